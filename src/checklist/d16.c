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
 * itself is now in base 2: where it is read after the loop (a log-sum-exp
 * kept for a backward pass), the edit turns it back into base e there. */
#include "config.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "analyze/flat.h"
#include "analyze/values.h"
#include "util/buf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define D16_LOG2E "1.4426950408889634"
#define D16_LN2 "0.6931471805599453"

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

/* In loop, the last `name -= B` before offset at: B, or a null node. */
static TSNode d16_inplace_sub(const ta_model *m, TSNode loop, TSNode name, uint32_t at)
{
	TSNode found = { 0 };
	ta_walk w;
	ta_walk_start(&w, loop);
	for (;;) {
		TSNode n = ta_walk_node(&w);
		if (ts_node_start_byte(n) >= at)
			break;
		if (ta_node_is(n, "augmented_assignment") &&
		    ta_node_text_eq(m->src, ta_node_field(n, "operator"), "-=")) {
			TSNode l = ta_node_field(n, "left");
			uint32_t ls = ts_node_start_byte(l), le = ts_node_end_byte(l);
			uint32_t ns = ts_node_start_byte(name), ne = ts_node_end_byte(name);
			if (ta_node_is(l, "identifier") && le - ls == ne - ns &&
			    !memcmp(m->src->text + ls, m->src->text + ns, le - ls))
				found = ta_node_unparen(ta_node_field(n, "right"));
		}
		if (!ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
	return found;
}

/* The argument of an exp op as `A - B`: A and B, or null nodes. Written
 * there, through a name bound to the difference (`d = s - m[:, None]`,
 * tl.exp(d)), or as S after `S -= B` in the loop (`s -= m[:, None]`,
 * tl.exp(s)): the same value. */
static bool d16_difference(const ta_model *m, const ta_kernel *k, const ta_op *op, TSNode *a, TSNode *b)
{
	if (op->arg_count < 1)
		return false;
	TSNode arg = ta_node_unparen(ta_edits_node(m, op->args[0]));
	TSNode d = ta_node_unparen(ta_values_follow(m, arg));
	if (ta_node_is(arg, "identifier") && !ta_node_is(d, "binary_operator") && op->loop >= 0) {
		TSNode sub = d16_inplace_sub(m, ta_edits_node(m, k->loops[op->loop].span), arg, op->span.start);
		if (!ts_node_is_null(sub)) {
			*a = arg;
			*b = sub;
			return true;
		}
	}
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
	size_t first, end = ta_loop_ops(k, li, &first);
	for (size_t i = first; i < end; i++) {
		const ta_op *op = &k->ops[i];
		TSNode a, b;
		if (op->kind != TA_OP_EXP || op->loop != li || !d16_difference(m, k, op, &a, &b))
			continue;
		if (ta_edits_bcast_kind(m, b) == 1 && ta_node_is(a, "identifier") &&
		    ta_node_is(ta_node_unparen(ta_node_field(b, "value")), "identifier") && !x->p_exp) {
			x->p_exp = op;
			x->s = ta_node_text(m->src, a);
			x->m_new = ta_node_text(m->src, ta_node_unparen(ta_node_field(b, "value")));
		}
	}
	for (size_t i = first; x->p_exp && i < end; i++) {
		const ta_op *op = &k->ops[i];
		TSNode a, b;
		if (op->kind != TA_OP_EXP || op->loop != li || op == x->p_exp || !d16_difference(m, k, op, &a, &b))
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

static ta_values_step d16_dot_visit(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	bool dot = ta_call_named(m, n, "dot");
	if (dot)
		*(bool *)ctx = true;
	return dot ? TA_VALUES_STOP : TA_VALUES_DESCEND;
}

/* Whether the logits of the softmax exp hold a tl.dot's result: some
 * binding of them in the loop (`s = tl.dot(q, k)`, `s += tl.dot(q, k)`,
 * `s = tl.where(m, s, -inf)` over one) reads a tl.dot through its names.
 * Only then is there a scale to fold log2(e) into; an exp of other values
 * (a matrix of log forget gates, say) would need a multiply more. */
static bool d16_logits_from_dot(const ta_model *m, const d16_match *x)
{
	ta_edits_defs d = { 0 };
	ta_edits_find_defs(m, ta_edits_node(m, x->loop->span), x->s, &d);
	bool dot = false;
	for (size_t i = 0; i < d.n && !dot; i++)
		ta_values_walk(m, ta_node_field(d.v[i], "right"), d16_dot_visit, &dot);
	return dot;
}

/* Whether the logits are scaled in the loop (`s = tl.dot(q, k) * scale`,
 * `s *= scale`, `s = s * scale`): log2(e) folds into that factor. With no
 * factor, exp2 needs the multiply by log2(e) that tl.exp already makes
 * (it lowers to ex2 of x * log2(e)): nothing is saved. */
static bool d16_logits_scaled(const ta_model *m, const d16_match *x)
{
	ta_edits_defs d = { 0 };
	ta_edits_find_defs(m, ta_edits_node(m, x->loop->span), x->s, &d);
	for (size_t i = 0; i < d.n; i++) {
		TSNode b = d.v[i];
		if (ta_node_is(b, "augmented_assignment") && ta_node_text_eq(m->src, ta_node_field(b, "operator"), "*="))
			return true;
		TSNode r = ta_node_unparen(ta_node_field(b, "right"));
		if (ta_node_is(r, "binary_operator") && ta_node_text_eq(m->src, ta_node_field(r, "operator"), "*"))
			return true;
	}
	return false;
}

ta_status ta_detect_d16(ta_rule_ctx *c)
{
	bool found = false;
	for (size_t li = 0; li < c->k->loop_count; li++) {
		d16_match x;
		if (!d16_find(c->m, c->k, (int)li, &x))
			continue;
		if (!d16_logits_from_dot(c->m, &x) || !d16_logits_scaled(c->m, &x)) {
			d16_free(&x);
			continue;
		}
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
		/* S -= M_new[:, None]: the scaled logits less their scaled max */
		if (ta_node_is(a, "augmented_assignment") && ta_node_text_eq(m->src, ta_node_field(a, "operator"), "-=")) {
			TSNode r = ta_node_unparen(ta_node_field(a, "right"));
			TSNode v = ta_node_unparen(ta_node_field(r, "value"));
			if (ta_edits_bcast_kind(m, r) == 1 && ta_node_is(v, "identifier") &&
			    ta_node_text_eq(m->src, v, x->m_new))
				continue;
		}
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

/* -inf written as a float: float("-inf"), -float("inf"), -math.inf. */
static bool d16_minus_inf(const ta_model *m, TSNode n)
{
	char *t = ta_node_text(m->src, ta_node_unparen(n));
	size_t j = 0;
	for (size_t i = 0; t[i]; i++)
		if (t[i] != ' ' && t[i] != '\'' && t[i] != '"')
			t[j++] = t[i];
	t[j] = '\0';
	bool yes = !strcmp(t, "float(-inf)") || !strcmp(t, "-float(inf)") || !strcmp(t, "-math.inf") ||
		   !strcmp(t, "-inf");
	free(t);
	return yes;
}

/* Whether the value n is the same number in base e and in base 2, as the
 * running max's start must be: tl.zeros(...), tl.full(shape, -inf or 0),
 * -inf, 0, or zeros minus inf. */
static bool d16_neutral(const ta_model *m, TSNode n, int depth)
{
	n = ta_node_unparen(n);
	if (depth > 4 || ts_node_is_null(n))
		return false;
	if (ta_node_is(n, "integer") || ta_node_is(n, "float"))
		return ta_node_text_eq(m->src, n, "0") || ta_node_text_eq(m->src, n, "0.0");
	if (d16_minus_inf(m, n))
		return true;
	if (ta_node_is(n, "binary_operator") && ta_node_text_eq(m->src, ta_node_field(n, "operator"), "-")) {
		char *r = ta_node_text(m->src, ta_node_unparen(ta_node_field(n, "right")));
		bool inf = r && (!strcmp(r, "float(\"inf\")") || !strcmp(r, "float('inf')") || !strcmp(r, "math.inf"));
		free(r);
		return inf && d16_neutral(m, ta_node_field(n, "left"), depth + 1);
	}
	if (!ta_node_is(n, "call"))
		return false;
	char *fn = ta_model_canonical(m, ta_node_field(n, "function"));
	bool zeros = fn && ta_name_is(fn, "triton.language.zeros");
	bool full = fn && ta_name_is(fn, "triton.language.full");
	free(fn);
	if (zeros)
		return true;
	if (!full)
		return false;
	TSNode v = ta_edits_call_arg(m, n, 1, "value");
	return !ts_node_is_null(v) && d16_neutral(m, v, depth + 1);
}

/* The running max read after the loop (a log-sum-exp kept for a backward
 * pass) is in base 2 once the loop uses exp2: each such read becomes
 * `(m_i * ln 2)`, the max in base e again, so what the kernel stores or
 * computes from it keeps its meaning. Refused when the name is bound again
 * after the loop (a read of it then might be either), when the new max is
 * read after the loop, or when the max enters the loop with a value that
 * is not the same in both bases (anything but -inf or 0). */
static int d16_readers(const ta_model *m, const ta_kernel *k, const d16_match *x, ta_edit *out, char **why)
{
	uint32_t end = x->loop->span.end;
	TSNode loop = ta_edits_node(m, x->loop->span);
	ta_edits_defs d = { 0 };
	ta_edits_find_defs(m, k->node, x->m_i, &d);
	for (size_t i = 0; i < d.n; i++)
		if (ts_node_start_byte(d.v[i]) >= end)
			return ta_edits_refuse(why, "line %u: %s is bound again after the loop: which reads hold the max "
					       "in base 2 cannot be told", ts_node_start_point(d.v[i]).row + 1, x->m_i);
	size_t at = ta_edits_next_word(m, end, x->m_new);
	if (at != SIZE_MAX && at < k->span.end)
		return ta_edits_refuse(why, "line %u: %s is read after the loop", (unsigned)ta_source_line_of(m->src, at),
				       x->m_new);
	/* the max the loop starts from: -inf (or 0) is itself in either base */
	TSNode init = { 0 };
	for (size_t i = 0; i < d.n; i++)
		if (ts_node_end_byte(d.v[i]) <= ts_node_start_byte(loop))
			init = d.v[i];
	if (!ta_node_is(init, "assignment") || !d16_neutral(m, ta_node_field(init, "right"), 0))
		return ta_edits_refuse(why, "line %u: %s enters the loop with a value that is not -inf or 0: "
				       "with exp2 the loop would read it in base 2", x->loop->span.line,
				       x->m_i);
	TSNode root = ta_syntax_root(m->syn);
	size_t len = strlen(x->m_i);
	for (at = ta_edits_next_word(m, end, x->m_i); at != SIZE_MAX && at < k->span.end;
	     at = ta_edits_next_word(m, at + 1, x->m_i)) {
		TSNode id = ta_node_named_at(root, (uint32_t)at, (uint32_t)(at + len));
		if (!ta_node_is(id, "identifier") || ts_node_start_byte(id) != at)
			continue;
		char *rep = ta_xasprintf("(%s * %s)", x->m_i, D16_LN2);
		ta_edit_replace(out, (uint32_t)at, (uint32_t)(at + len), rep);
		free(rep);
	}
	return 0;
}

static int d16_one(const ta_model *m, const ta_kernel *k, const ta_op *op, ta_edit *out, char **why)
{
	d16_match x;
	if (op->loop < 0 || !d16_find(m, k, op->loop, &x) || x.p_exp != op)
		return ta_edits_none(why, "no online softmax exp on line %u", op->span.line);
	int rc = d16_logits(m, k, &x, why);
	if (rc == 0)
		rc = d16_readers(m, k, &x, out, why);
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
