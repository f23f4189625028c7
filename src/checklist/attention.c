/* Section 4: the attention checklist (G1-G8), opened by T1. Entries that
 * another section's detector serves reuse its findings. */
#include "config.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

ta_status ta_detect_g1(ta_rule_ctx *c)
{
	return c->attention ? ta_rule_serve(c, "S5", 0) : TA_STATUS_NOT_APPLICABLE;
}

ta_status ta_detect_g2(ta_rule_ctx *c)
{
	/* A wrapper that picks its tiles per GPU (by capability) has the
	 * per-GPU choice G2 asks for, if not its sweep: P1 still says it is
	 * untuned, G2 does not. */
	return c->attention ? ta_rule_serve_except(c, "P1", TA_TAG_PER_GPU_CHOICE) : TA_STATUS_NOT_APPLICABLE;
}

ta_status ta_detect_g3(ta_rule_ctx *c)
{
	return c->attention ? ta_rule_serve(c, "S8", 0) : TA_STATUS_NOT_APPLICABLE;
}

ta_status ta_detect_g4(ta_rule_ctx *c)
{
	return c->attention ? ta_rule_serve(c, "S3", 0) : TA_STATUS_NOT_APPLICABLE;
}

/* The 1/ln 2 factor of an exp2 softmax, as people write it. */
static bool log2e_text(const char *t)
{
	static const char *const marks[] = {
		"log2e", "log2_e", "1.4426", "rcp_ln2", "inv_log_2", "inv_ln2", "ln2_inv", "invln2",
		"inv_log2", "log2(e)", "math.log2(math.e)",
	};
	char *low = ta_xstrdup(t);
	for (char *p = low; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	bool yes = false;
	for (size_t i = 0; i < sizeof marks / sizeof *marks && !yes; i++)
		yes = strstr(low, marks[i]) != NULL;
	free(low);
	return yes;
}

/* True when the value in span, computed before `before`, carries the log2
 * scale (directly, or through names assigned earlier). */
static bool scaled_by_log2e(ta_rule_ctx *c, ta_span s, uint32_t before, int depth)
{
	char *t = ta_rule_text(c, s);
	bool yes = log2e_text(t);
	free(t);
	if (yes || depth > 3)
		return yes;
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	for (size_t i = 0; i < n && !yes; i++) {
		if (as[i].stmt.start >= before || !ta_rule_mentions(c, s, as[i].name))
			continue;
		/* only the assignment that reaches `before` counts for a name */
		bool later = false;
		for (size_t j = i + 1; j < n; j++)
			if (!strcmp(as[j].name, as[i].name) && as[j].stmt.start < before)
				later = true;
		if (!later)
			yes = scaled_by_log2e(c, as[i].rhs, as[i].stmt.start, depth + 1);
	}
	return yes;
}

ta_status ta_detect_g5(ta_rule_ctx *c)
{
	if (!c->attention)
		return TA_STATUS_NOT_APPLICABLE;
	bool any = false, found = false;
	for (size_t i = 0; i < c->k->op_count; i++) {
		const ta_op *op = &c->k->ops[i];
		if (op->kind != TA_OP_TANH || !op->arg_count)
			continue;
		any = true;
		if (scaled_by_log2e(c, op->args[0], op->span.start, 0)) {
			char *arg = ta_rule_text(c, op->args[0]);
			ta_rule_add(c, op->span, "the soft cap's tanh(%s) sees logits already scaled by 1/ln 2: "
				    "apply tanh in the original scale, then the exp2 factor", arg);
			free(arg);
			found = true;
		}
	}
	if (found)
		return TA_STATUS_APPLIES;
	return any ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

/* The axis of a tl.max/tl.sum op as text, or NULL. */
static char *reduce_axis(ta_rule_ctx *c, const ta_op *op)
{
	const ta_kwarg *kw = ta_kwarg_find(op->kwargs, op->kwarg_count, "axis");
	if (kw)
		return ta_xstrdup(kw->value);
	return ta_op_arg(c, op, 1);
}

ta_status ta_detect_g6(ta_rule_ctx *c)
{
	if (!c->attention)
		return TA_STATUS_NOT_APPLICABLE;
	const ta_kernel *k = c->k;
	bool any = false, found = false;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if ((op->kind != TA_OP_MAX && op->kind != TA_OP_SUM) || op->loop < 0 || !op->arg_count)
			continue;
		char *axis = reduce_axis(c, op);
		char *x = ta_op_arg(c, op, 0);
		if (!axis) {
			free(x);
			continue;
		}
		any = true;
		/* The scores from tl.dot(a, b) in the loop: the operand the loop
		 * walks holds the keys (it changes from one pass to the next), the
		 * other the queries the program keeps. Keys in b: [queries, keys],
		 * the softmax reduces axis 1; keys in a (`tl.dot(k, q_t)`, the
		 * transposed form): axis 0. */
		const ta_op *def = ta_op_defining(k, x, op->span.start);
		int key_axis = -1;
		if (def && def->kind == TA_OP_DOT && def->arg_count >= 2 && def->loop == op->loop) {
			bool a = ta_rule_varies_in_loop(c, def->args[0], op->loop);
			bool b = ta_rule_varies_in_loop(c, def->args[1], op->loop);
			key_axis = a == b ? -1 : b ? 1 : 0;
		}
		if (key_axis >= 0 && (!strcmp(axis, "0") || !strcmp(axis, "1")) && atoi(axis) != key_axis) {
			ta_rule_add(c, op->span, "reduction of `%s` over axis %s in the loop at line %u: the scores "
				    "are %s (the keys are the operand the loop walks), the softmax reduces axis %d",
				    x, axis, k->loops[op->loop].span.line,
				    key_axis ? "[M, N], queries by keys" : "[N, M], keys by queries", key_axis);
			found = true;
		}
		free(axis);
		free(x);
	}
	if (found)
		return TA_STATUS_APPLIES;
	return any ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}
