/* S3: Fresh zeros + 3-argument dot. Its detector and its rewrite. */
#include "config.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The accumulator a dot adds into, as text (caller frees), or NULL. */
static char *dot_accumulator(const ta_rule_ctx *c, const ta_op *dot)
{
	if (dot->arg_count >= 3)
		return ta_rule_text(c, dot->args[2]);
	const ta_kwarg *acc = ta_kwarg_find(dot->kwargs, dot->kwarg_count, "acc");
	if (acc)
		return ta_xstrdup(acc->value);
	if (dot->augmented && dot->target)
		return ta_xstrdup(dot->target);
	return NULL;
}

ta_status ta_detect_s3(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	bool dots = false, found = false;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *dot = &k->ops[i];
		if (dot->kind != TA_OP_DOT)
			continue;
		dots = true;
		char *acc = dot_accumulator(c, dot);
		if (!acc)
			continue;
		/* The zeros must be made in the same loop body as the dot: one made
		 * before the loop is carried across iterations (the normal form). */
		const ta_op *z = NULL;
		for (size_t j = 0; j < k->op_count; j++) {
			const ta_op *op = &k->ops[j];
			if (op->kind == TA_OP_ZEROS && op->target && !strcmp(op->target, acc) &&
			    op->span.start < dot->span.start && op->loop == dot->loop)
				z = op;
		}
		/* ...and nothing else may assign it in between, on the way from
		 * the zeros to the dot (an assignment in another arm of an if
		 * that holds the dot is not on it). */
		if (z) {
			size_t n;
			const ta_assign *as = ta_rule_assigns(c, &n);
			for (size_t a = 0; a < n && z; a++)
				if (!strcmp(as[a].name, acc) && as[a].stmt.start > z->span.end &&
				    as[a].stmt.end < dot->span.start &&
				    !ta_rule_apart_arms(c, as[a].stmt.start, dot->span.start))
					z = NULL;
		}
		if (z) {
			/* the user's own operands when they are short enough to read */
			char *x = dot->arg_count >= 2 ? ta_op_arg(c, dot, 0) : NULL;
			char *y = dot->arg_count >= 2 ? ta_op_arg(c, dot, 1) : NULL;
			bool own = x && y && strlen(x) + strlen(y) <= 48;
			char *form = ta_xasprintf("%s = tl.dot(%s, %s)", acc, own ? x : "a", own ? y : "b");
			free(x);
			free(y);
			ta_finding *f;
			if (dot->loop >= 0)
				f = ta_rule_add(c, dot->span,
					"`%s` is zeroed at line %u and then used as the accumulator of this tl.dot on "
					"every iteration of the loop at line %u: `%s` does the same",
					acc, z->span.line, k->loops[dot->loop].span.line, form);
			else
				f = ta_rule_add(c, dot->span,
					"`%s` is zeroed at line %u only to accumulate this tl.dot: `%s` "
					"does the same", acc, z->span.line, form);
			free(form);
			ta_finding_line(f, z->span.line);
			found = true;
		}
		free(acc);
	}
	if (found)
		return TA_STATUS_APPLIES;
	return dots ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

static bool is_float32(const ta_model *m, const char *dtype_text, TSNode dtype)
{
	char *c = ts_node_is_null(dtype) ? NULL : ta_model_canonical(m, dtype);
	bool f = (c && (ta_name_is(c, "triton.language.float32") || !strcmp(c, "float32"))) ||
		 !strcmp(dtype_text, "tl.float32");
	free(c);
	return f;
}

static int s3_one(const ta_model *m, const ta_kernel *k, const ta_op *dot, ta_edit *out, char **why)
{
	const ta_kwarg *acc = ta_kwarg_find(dot->kwargs, dot->kwarg_count, "acc");
	const char *x = dot->target;
	int form;  /* 1: third argument, 2: acc=, 3: x += dot(a, b) */
	if (!x)
		return ta_edits_refuse(why, "line %u: the dot's result is not assigned to a name", dot->span.line);
	if (dot->augmented && dot->arg_count == 2 && !acc)
		form = 3;
	else if (!dot->augmented && dot->arg_count == 3 && !acc &&
		 dot->args[2].end - dot->args[2].start == strlen(x) &&
		 !memcmp(m->src->text + dot->args[2].start, x, strlen(x)))
		form = 1;
	else if (!dot->augmented && acc && !strcmp(acc->value, x))
		form = 2;
	else
		return ta_edits_refuse(why, "line %u: not `%s = tl.dot(a, b, %s)`, `acc=%s` or `%s += tl.dot(a, b)`",
				       dot->span.line, x, x, x, x);
	/* The latest zeros into x before the dot. */
	const ta_op *z = NULL;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *o = &k->ops[i];
		if (o->kind == TA_OP_ZEROS && o->target && !strcmp(o->target, x) && !o->augmented &&
		    o->span.start < dot->span.start && (!z || o->span.start > z->span.start))
			z = o;
	}
	if (!z)
		return ta_edits_refuse(why, "line %u: %s is not a tl.zeros accumulator", dot->span.line, x);
	TSNode zc = ta_edits_node(m, z->span), dc = ta_edits_node(m, dot->span);
	TSNode zs = ta_edits_statement(zc), ds = ta_edits_statement(dc);
	if (ts_node_is_null(zs) || ts_node_is_null(ds) ||
	    !ts_node_eq(ta_node_parent(zs), ta_node_parent(ds)))
		return ta_edits_refuse(why, "line %u: %s is carried across loop iterations or branches "
				       "(zeros at line %u): the normal accumulator pattern", dot->span.line, x,
				       z->span.line);
	uint32_t gap0 = ts_node_end_byte(zs), gap1 = ts_node_start_byte(ds);
	if (gap1 < gap0 || ta_edits_reads_in(m, gap0, gap1, x))
		return ta_edits_refuse(why, "line %u: %s is used between its zeros (line %u) and the dot",
				       dot->span.line, x, z->span.line);
	if (!ta_edits_alone_on_line(m, zs, false))
		return ta_edits_refuse(why, "line %u: the zeros statement shares its line", z->span.line);
	/* dtype of the zeros: tl.dot's default result is float32. */
	const ta_kwarg *zd = ta_kwarg_find(z->kwargs, z->kwarg_count, "dtype");
	char *dtype = zd ? ta_xstrdup(zd->value) :
		      z->arg_count >= 2 ? ta_edits_text(m, z->args[1].start, z->args[1].end) : NULL;
	TSNode dn = zd ? ta_edits_node(m, zd->value_span) : z->arg_count >= 2 ? ta_edits_node(m, z->args[1]) :
		   (TSNode){ 0 };
	bool keep_dtype = dtype && !is_float32(m, dtype, dn) &&
			  !ta_kwarg_find(dot->kwargs, dot->kwarg_count, "out_dtype");
	if (keep_dtype && form == 3) {
		int r = ta_edits_refuse(why, "line %u: %s is %s and `+=` would keep the float32 result's type",
					dot->span.line, x, dtype);
		free(dtype);
		return r;
	}
	char *extra = keep_dtype ? ta_xasprintf(", out_dtype=%s", dtype) : ta_xstrdup("");
	free(dtype);
	/* Drop the zeros line. */
	ta_edit_replace(out, ta_edits_line_start(m, ts_node_start_byte(zs)),
			ta_edits_line_next(m, ts_node_end_byte(zs)), "");
	TSNode args = ta_node_field(dc, "arguments");
	if (form == 3) {
		/* The `+=` of the augmented assignment the dot sits in (the model's
		 * `augmented` comes from the call's parent, not from the statement:
		 * recovered parses can nest it deeper). */
		TSNode op = ta_node_field(ta_node_parent(dc), "operator");
		if (ts_node_is_null(op)) {
			free(extra);
			ta_edit_clear(out);
			return ta_edits_refuse(why, "line %u: cannot find the `+=` of the dot", dot->span.line);
		}
		/* (a kept dtype was refused above: `extra` is empty here) */
		ta_edit_replace(out, ts_node_start_byte(op), ts_node_end_byte(op), "=");
	} else {
		/* The accumulator argument, with the comma before it. */
		TSNode target = (TSNode){ 0 };
		uint32_t n = ta_node_named_count(args);
		for (uint32_t i = 0; i < n; i++) {
			TSNode c = ta_node_named_child(args, i);
			uint32_t s = ts_node_start_byte(c);
			if ((form == 1 && s == dot->args[2].start) || (form == 2 && s == acc->span.start))
				target = c;
		}
		TSNode prev = ts_node_is_null(target) ? target : ts_node_prev_named_sibling(target);
		if (ts_node_is_null(prev)) {
			free(extra);
			ta_edit_clear(out);
			return ta_edits_refuse(why, "line %u: cannot find the accumulator argument", dot->span.line);
		}
		ta_edit_replace(out, ts_node_end_byte(prev), ts_node_end_byte(target), extra);
	}
	free(extra);
	ta_edit_set_title(out, "start %s from tl.dot instead of adding to fresh zeros", x);
	out->line = dot->span.line;
	return 0;
}

static bool s3_site(const ta_model *m, const ta_kernel *k, const ta_op *op)
{
	(void)m, (void)k;
	return op->kind == TA_OP_DOT;
}

/* Rewrite: tl.dot(a, b) instead of fresh zeros plus a 3-argument dot. */
TA_REWRITE(S3, NULL, TA_SAFE)
{
	return ta_edits_each_op(m, kernel_or_host, line, s3_site, s3_one, out, why_not,
				"no tl.dot accumulating into fresh zeros");
}
