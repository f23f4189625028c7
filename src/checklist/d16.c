/* D16: exp in an online softmax, where exp2 with log2(e) folded into the
 * scale saves a multiply per element. Its detector and its rewrite.
 *
 * The pattern, in one loop of a kernel: logits S (assigned from a tl.dot,
 * perhaps masked by tl.where(..., S, -inf)), a running max m_new =
 * tl.maximum(m_i, tl.max(S, 1)), p = tl.exp(S - m_new[:, None]) and
 * alpha = tl.exp(m_i - m_new). Since exp(x) = exp2(x * log2(e)), scaling S
 * by log2(e) where it is made and calling exp2 in both places gives the
 * same p and alpha: the max is taken over the scaled logits, so it is
 * scaled too, and every exp reads a difference of two scaled values. The
 * normalisation by the sum of p does not see the scale. What changes is
 * the rounding of one fp32 multiply (scale * log2(e) is formed once), a
 * relative error of about 1e-7 in the exponent's argument. The running max
 * itself is now in base 2: read after the loop (a log-sum-exp kept for a
 * backward pass), it would mean something else, so the edit refuses. */
#include "config.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define D16_LOG2E "1.4426950408889634"

typedef struct d16_match {
	const ta_op *p_exp, *alpha_exp; /* tl.exp(S - M[:, None]), tl.exp(m_i - M) */
	char *s, *m_new, *m_i;          /* the logits, the new and the running max */
	TSNode s_def;                   /* S = <... tl.dot ...> in the loop */
	const ta_loop *loop;
} d16_match;

static void d16_free(d16_match *x)
{
	free(x->s);
	free(x->m_new);
	free(x->m_i);
}

/* The argument of an exp op as `A - B`: A and B, or null nodes. */
static bool d16_difference(const ta_model *m, const ta_op *op, TSNode *a, TSNode *b)
{
	if (op->arg_count < 1)
		return false;
	TSNode d = ta_node_unparen(ta_edits_node(m, op->args[0]));
	if (!ta_node_is(d, "binary_operator") || !ta_node_text_eq(m->src, ta_node_field(d, "operator"), "-"))
		return false;
	*a = ta_node_unparen(ta_node_field(d, "left"));
	*b = ta_node_unparen(ta_node_field(d, "right"));
	return !ts_node_is_null(*a) && !ts_node_is_null(*b);
}

/* The two exps of an online softmax in loop li of k. */
static bool d16_find(const ta_model *m, const ta_kernel *k, int li, d16_match *x)
{
	memset(x, 0, sizeof *x);
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		TSNode a, b;
		if (op->kind != TA_OP_EXP || op->loop != li || !d16_difference(m, op, &a, &b))
			continue;
		if (ta_edits_bcast_kind(m, b) == 1 && ta_node_is(a, "identifier") &&
		    ta_node_is(ta_node_unparen(ta_node_field(b, "value")), "identifier") && !x->p_exp) {
			x->p_exp = op;
			x->s = ta_node_text(m->src, a);
			x->m_new = ta_node_text(m->src, ta_node_unparen(ta_node_field(b, "value")));
		}
	}
	for (size_t i = 0; x->p_exp && i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		TSNode a, b;
		if (op->kind != TA_OP_EXP || op->loop != li || op == x->p_exp || !d16_difference(m, op, &a, &b))
			continue;
		if (ta_node_is(a, "identifier") && ta_node_is(b, "identifier") && ta_node_text_eq(m->src, b, x->m_new)) {
			x->alpha_exp = op;
			x->m_i = ta_node_text(m->src, a);
			break;
		}
	}
	if (!x->p_exp || !x->alpha_exp) {
		d16_free(x);
		return false;
	}
	x->loop = &k->loops[li];
	return true;
}

/* Whether n holds a call whose function ends in `dot`. */
static bool d16_has_dot(const ta_model *m, TSNode n)
{
	if (ta_node_is(n, "call")) {
		char *f = ta_node_text(m->src, ta_node_field(n, "function"));
		size_t l = f ? strlen(f) : 0;
		bool dot = l >= 3 && !strcmp(f + l - 3, "dot");
		free(f);
		if (dot)
			return true;
	}
	uint32_t c = ta_node_named_count(n);
	for (uint32_t i = 0; i < c; i++)
		if (d16_has_dot(m, ta_node_named_child(n, i)))
			return true;
	return false;
}

ta_status ta_detect_d16(ta_rule_ctx *c)
{
	bool found = false;
	for (size_t li = 0; li < c->k->loop_count; li++) {
		d16_match x;
		if (!d16_find(c->m, c->k, (int)li, &x))
			continue;
		ta_rule_add(c, x.p_exp->span, "online softmax in the loop at line %u calls tl.exp on `%s - %s[:, None]` "
			    "and `%s - %s` (line %u): tl.exp2 with log2(e) folded into the scale of `%s` saves a "
			    "multiply per element", x.loop->span.line, x.s, x.m_new, x.m_i, x.m_new,
			    x.alpha_exp->span.line, x.s);
		d16_free(&x);
		found = true;
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}

/* ---- the rewrite ---------------------------------------------------------- */

/* Every binding of S in the loop: exactly one from a tl.dot (which gets the
 * scale) and otherwise only masks `S = tl.where(c, S, float("-inf"))`. */
static int d16_logits(const ta_model *m, const ta_kernel *k, d16_match *x, char **why)
{
	TSNode loop = ta_edits_node(m, x->loop->span);
	ta_edits_defs d = { 0 };
	ta_edits_find_defs(m, loop, x->s, &d);
	ta_edits_defs all = { 0 };
	ta_edits_find_defs(m, k->node, x->s, &all);
	if (d.more || all.more || all.n != d.n)
		return ta_edits_refuse(why, "line %u: %s is also bound outside the loop at line %u", x->p_exp->span.line,
				       x->s, x->loop->span.line);
	for (size_t i = 0; i < d.n; i++) {
		TSNode a = d.v[i];
		if (!ta_node_is(a, "assignment"))
			return ta_edits_refuse(why, "line %u: %s is updated in place; only S = ... is followed",
					       ts_node_start_point(a).row + 1, x->s);
		TSNode r = ta_node_unparen(ta_node_field(a, "right"));
		if (d16_has_dot(m, r)) {
			if (!ts_node_is_null(x->s_def))
				return ta_edits_refuse(why, "line %u: %s is made from a tl.dot twice in the loop",
						       ts_node_start_point(a).row + 1, x->s);
			x->s_def = a;
			continue;
		}
		char *t = ta_node_text(m->src, r);
		bool mask = ta_node_is(r, "call") && strstr(t, "where") && strstr(t, "-inf") &&
			    ta_node_contains_identifier(m->src, r, x->s);
		free(t);
		if (!mask)
			return ta_edits_refuse(why, "line %u: %s is rebound by something other than a tl.where mask to "
					       "-inf: the scale might not carry through", ts_node_start_point(a).row + 1,
					       x->s);
	}
	if (ts_node_is_null(x->s_def))
		return ta_edits_refuse(why, "line %u: %s is not made from a tl.dot in the loop", x->p_exp->span.line,
				       x->s);
	return 0;
}

/* The running max is read after the loop: a log-sum-exp in base e. */
static uint32_t d16_read_after(const ta_model *m, const ta_kernel *k, const d16_match *x)
{
	uint32_t end = x->loop->span.end;
	for (size_t at = ta_edits_next_word(m, end, x->m_i); at != SIZE_MAX && at < k->span.end;
	     at = ta_edits_next_word(m, at + 1, x->m_i))
		return (uint32_t)ta_source_line_of(m->src, at);
	return 0;
}

static int d16_one(const ta_model *m, const ta_kernel *k, const ta_op *op, ta_edit *out, char **why)
{
	d16_match x;
	if (op->loop < 0 || !d16_find(m, k, op->loop, &x) || x.p_exp != op)
		return ta_edits_none(why, "no online softmax exp on line %u", op->span.line);
	int rc = d16_logits(m, k, &x, why);
	uint32_t after = rc == 0 ? d16_read_after(m, k, &x) : 0;
	if (rc == 0 && after)
		rc = ta_edits_refuse(why, "line %u: %s is read after the loop: with exp2 it holds the max in base 2, "
				     "which a log-sum-exp there would misread", after, x.m_i);
	char *tlm = rc == 0 ? ta_edits_module(m, "triton.language") : NULL;
	if (rc == 0 && !tlm)
		rc = ta_edits_refuse(why, "the file does not import triton.language");
	if (rc != 0) {
		d16_free(&x);
		return rc;
	}
	/* The scale: S = <dot> * NAME gets NAME * log2(e), formed once before
	 * the loop; a bare dot gets the constant as its factor. */
	TSNode r = ta_node_unparen(ta_node_field(x.s_def, "right"));
	TSNode scale = { 0 };
	if (ta_node_is(r, "binary_operator") && ta_node_text_eq(m->src, ta_node_field(r, "operator"), "*")) {
		TSNode lt = ta_node_unparen(ta_node_field(r, "left")), rt = ta_node_unparen(ta_node_field(r, "right"));
		if (ta_node_is(rt, "identifier") && d16_has_dot(m, lt))
			scale = rt;
		else if (ta_node_is(lt, "identifier") && d16_has_dot(m, rt))
			scale = lt;
	}
	if (!ts_node_is_null(scale)) {
		char *sn = ta_node_text(m->src, scale);
		char *folded = ta_xasprintf("%s_log2e", sn);
		ta_edits_defs d = { 0 };
		ta_edits_find_defs(m, k->node, sn, &d);
		if (ta_edits_ident_count(m, k->node, folded) > 0 || d.n > 0 || d.more) {
			rc = d.n || d.more ?
				ta_edits_refuse(why, "line %u: the scale %s is bound in the kernel; fold log2(e) by hand",
						ts_node_start_point(scale).row + 1, sn) :
				ta_edits_refuse(why, "the name %s is taken", folded);
			free(sn);
			free(folded);
			free(tlm);
			d16_free(&x);
			return rc;
		}
		TSNode loop = ta_edits_node(m, x.loop->span);
		char *ind = ta_edits_indent_at(m, ts_node_start_byte(loop));
		char *line = ta_xasprintf("%s%s = %s * %s  # exp(x) == exp2(x * log2(e))\n", ind, folded, sn,
					  D16_LOG2E);
		uint32_t ls = ta_edits_line_start(m, ts_node_start_byte(loop));
		ta_edit_replace(out, ls, ls, line);
		ta_edit_replace(out, ts_node_start_byte(scale), ts_node_end_byte(scale), folded);
		free(line);
		free(ind);
		free(sn);
		free(folded);
	} else {
		ta_edit_replace(out, ts_node_start_byte(r), ts_node_start_byte(r), "(");
		ta_edit_replace(out, ts_node_end_byte(r), ts_node_end_byte(r), ") * " D16_LOG2E);
	}
	/* tl.exp -> tl.exp2 at both calls */
	const ta_op *ops[2] = { x.p_exp, x.alpha_exp };
	for (int i = 0; i < 2; i++) {
		TSNode call = ta_edits_node(m, ops[i]->span), fn = ta_node_field(call, "function");
		char *e2 = ta_xasprintf("%s.exp2", tlm);
		ta_edit_replace(out, ts_node_start_byte(fn), ts_node_end_byte(fn), e2);
		free(e2);
	}
	ta_edit_set_title(out, "tl.exp2 in the online softmax (lines %u and %u) with log2(e) folded into the scale "
			  "of %s (line %u)", x.p_exp->span.line, x.alpha_exp->span.line, x.s,
			  ts_node_start_point(x.s_def).row + 1);
	out->line = op->span.line;
	free(tlm);
	d16_free(&x);
	return 0;
}

static bool d16_site(const ta_model *m, const ta_kernel *k, const ta_op *op)
{
	(void)m, (void)k;
	return op->kind == TA_OP_EXP && op->loop >= 0;
}

/* Rewrite: exp2 with log2(e) folded into the logits' scale. */
TA_REWRITE(D16, NULL, TA_UNSAFE("assumes outputs may differ in the last bits from exp's (log2(e) is folded into the scale and rounded once there)"))
{
	return ta_edits_each_op(m, kernel_or_host, line, d16_site, d16_one, out, why_not,
				"no online softmax calling tl.exp");
}
