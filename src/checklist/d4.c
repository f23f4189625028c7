/* D4: tl.expand_dims in a hot loop. Its detector and its rewrite. */
#include "config.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"
#include "util/text.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The index that inserts a new axis at position `axis` (a literal integer
 * >= 0): Triton's x[:, None] expands at the position of the None and keeps
 * every axis after it, whatever x's rank, so axis k is k slices then None.
 * NULL for a negative or non-literal axis, whose position needs the rank. */
static char *axis_index(const char *axis)
{
	if (!axis || !*axis)
		return NULL;
	for (const char *p = axis; *p; p++)
		if (!isdigit((unsigned char)*p))
			return NULL;
	long k = strtol(axis, NULL, 10);
	if (k > 8)
		return NULL;
	if (k == 0)
		return ta_xstrdup("[None, :]");
	ta_buf b = TA_BUF_INIT;
	ta_buf_puts(&b, "[");
	for (long i = 0; i < k; i++)
		ta_buf_puts(&b, ":, ");
	ta_buf_puts(&b, "None]");
	return ta_buf_steal(&b);
}

/* The axis of an expand_dims op as written (positional or axis=), or NULL. */
static char *op_axis(ta_rule_ctx *c, const ta_op *op)
{
	const ta_kwarg *ax = ta_kwarg_find(op->kwargs, op->kwarg_count, "axis");
	if (ax)
		return ta_xstrdup(ax->value);
	return op->receiver ? ta_op_arg(c, op, 0) : ta_op_arg(c, op, 1);
}

ta_status ta_detect_d4(ta_rule_ctx *c)
{
	bool found = false;
	for (size_t i = 0; i < c->k->op_count; i++) {
		const ta_op *op = &c->k->ops[i];
		if (op->kind != TA_OP_EXPAND_DIMS || op->loop < 0)
			continue;
		/* In a loop that holds another loop, outside it: once per tile
		 * (an epilogue after the K loop), not in the hot loop. */
		bool outer = false;
		for (size_t l = 0; l < c->k->loop_count && !outer; l++)
			outer = c->k->loops[l].parent == op->loop;
		if (outer)
			continue;
		char *x = op->receiver ? ta_xstrdup(op->receiver) : ta_op_arg(c, op, 0);
		char *axis = op_axis(c, op);
		char *idx = axis_index(axis);
		unsigned loop = c->k->loops[op->loop].span.line;
		/* the call as written: the function or the method form */
		char *call = ta_text_one_line(ta_rule_text(c, op->span));
		if (idx)
			ta_rule_add(c, op->span, "`%s` inside the loop at line %u: (%s)%s inserts the same axis "
				    "without a call", call, loop, x ? x : "x", idx);
		else
			ta_rule_add(c, op->span, "`%s` inside the loop at line %u: indexing with None at that axis "
				    "is the same without a call (the axis counts from the end, so its position "
				    "depends on the rank of `%s`)", call, loop, x ? x : "x");
		free(call);
		free(idx);
		free(x);
		free(axis);
		found = true;
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}

/* ---- the rewrite ---------------------------------------------------------- */

static bool primary(TSNode n)
{
	static const char *const kinds[] = {
		"identifier", "attribute", "subscript", "call", "parenthesized_expression",
	};
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if (ta_node_is(n, kinds[i]))
			return true;
	return false;
}

static int d4_one(const ta_model *m, const ta_kernel *k, const ta_op *op, ta_edit *out, char **why)
{
	(void)k;
	if (op->receiver)
		return ta_edits_refuse(why, "line %u: the method form x.expand_dims() is left alone", op->span.line);
	const ta_kwarg *ax = ta_kwarg_find(op->kwargs, op->kwarg_count, "axis");
	if (op->arg_count < 1 || (op->arg_count < 2 && !ax))
		return ta_edits_refuse(why, "line %u: expand_dims without an axis", op->span.line);
	char *axis = ax ? ta_xstrdup(ax->value) : ta_edits_text(m, op->args[1].start, op->args[1].end);
	char *idx = axis_index(axis);
	if (!idx) {
		int r = ta_edits_refuse(why, "line %u: axis %s: a negative or computed axis needs the rank of the "
					"tensor to rewrite", op->span.line, axis);
		free(axis);
		return r;
	}
	free(axis);
	TSNode x = ta_edits_node(m, op->args[0]);
	char *xt = ta_edits_text(m, op->args[0].start, op->args[0].end);
	char *rep = primary(x) ? ta_xasprintf("%s%s", xt, idx) : ta_xasprintf("(%s)%s", xt, idx);
	ta_edit_replace(out, op->span.start, op->span.end, rep);
	ta_edit_set_title(out, "index with %s instead of calling expand_dims", idx);
	out->line = op->span.line;
	free(idx);
	free(rep);
	free(xt);
	return 0;
}

static bool d4_site(const ta_model *m, const ta_kernel *k, const ta_op *op)
{
	(void)m, (void)k;
	return op->kind == TA_OP_EXPAND_DIMS;
}

/* Rewrite: x[:, None] / x[None, :] instead of tl.expand_dims. */
TA_REWRITE(D4, NULL, TA_SAFE)
{
	return ta_edits_each_op(m, kernel_or_host, line, d4_site, d4_one, out, why_not, "no tl.expand_dims call");
}
