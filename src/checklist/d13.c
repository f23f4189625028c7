/* D13: Operator precedence kills a fast-path test.
 * Its detector and its rewrite. */
#include "config.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Names that hold a truth value by the usual conventions of Triton code. */
static bool flag_name(const char *name)
{
	static const char *const prefixes[] = { "EVEN_", "IS_", "HAS_", "USE_", "ENABLE_", "DIVISIBLE_",
						"NO_", "is_", "has_", "use_", NULL };
	static const char *const suffixes[] = { "_NEEDED", "_ENABLED", "_mask", "_MASK", NULL };
	for (const char *const *p = prefixes; *p; p++)
		if (!strncmp(name, *p, strlen(*p)))
			return true;
	size_t n = strlen(name);
	for (const char *const *p = suffixes; *p; p++)
		if (n > strlen(*p) && !strcmp(name + n - strlen(*p), *p))
			return true;
	/* MASK_M_SIZE is a size, not a mask: only whole words count */
	return !strcmp(name, "mask") || !strcmp(name, "EVEN") || !strcmp(name, "CAUSAL");
}

/* Whether n is boolean-like: a comparison, not/and/or, True/False, a flag
 * by name or a kernel parameter whose default is True or False, or & and |
 * over such values. */
static bool boolean_like(const ta_model *m, const ta_kernel *k, TSNode n)
{
	n = ta_node_unparen(n);
	if (ta_node_is(n, "comparison_operator") || ta_node_is(n, "not_operator") ||
	    ta_node_is(n, "boolean_operator") || ta_node_is(n, "true") || ta_node_is(n, "false"))
		return true;
	if (ta_node_is(n, "binary_operator")) {
		TSNode op = ta_node_field(n, "operator");
		return (ta_node_text_eq(m->src, op, "&") || ta_node_text_eq(m->src, op, "|")) &&
		       boolean_like(m, k, ta_node_field(n, "left")) && boolean_like(m, k, ta_node_field(n, "right"));
	}
	if (!ta_node_is(n, "identifier"))
		return false;
	char *name = ta_node_text(m->src, n);
	bool yes = flag_name(name);
	const ta_param *p = k ? ta_kernel_param(k, name) : NULL;
	if (p && p->default_value && (!strcmp(p->default_value, "True") || !strcmp(p->default_value, "False")))
		yes = true;
	free(name);
	return yes;
}

/* The D13 shape in comparison cmp: a side that is `A & B` (or |) where the
 * operand next to the comparison is not boolean-like and the far one is,
 * so the comparison took the wrong operand: `EVEN & d == BLOCK` is
 * `(EVEN & d) == BLOCK`, `x == 0 | isnan` is `x == (0 | isnan)`; or such a
 * side between two comparisons (`a < M & b < N` is `a < (M & b) < N`).
 * Returns 0 (left side), 1 (right side), 2 (in the middle) or -1; *bin is
 * that operand. A bit test such as `x & 0x7FFF < 0x7F80` is meant as written
 * and is not the shape. */
static int d13_side(const ta_model *m, const ta_kernel *k, TSNode cmp, TSNode *bin)
{
	uint32_t n = ta_node_named_count(cmp);
	if (!ta_node_is(cmp, "comparison_operator") || n < 2)
		return -1;
	for (uint32_t i = 1; i + 1 < n; i++) {
		TSNode b = ta_node_named_child(cmp, i);
		TSNode op = ta_node_field(b, "operator");
		if (ta_node_is(b, "binary_operator") && !ts_node_is_null(op) &&
		    (ta_node_text_eq(m->src, op, "&") || ta_node_text_eq(m->src, op, "|"))) {
			*bin = b;
			return 2;
		}
	}
	for (int side = 0; side < 2; side++) {
		TSNode b = ta_node_named_child(cmp, side ? n - 1 : 0);
		TSNode op = ta_node_field(b, "operator");
		if (!ta_node_is(b, "binary_operator") || ts_node_is_null(op) ||
		    !(ta_node_text_eq(m->src, op, "&") || ta_node_text_eq(m->src, op, "|")))
			continue;
		TSNode far = ta_node_field(b, side ? "right" : "left");
		TSNode near = ta_node_field(b, side ? "left" : "right");
		if (boolean_like(m, k, far) && !boolean_like(m, k, near)) {
			*bin = b;
			return side;
		}
	}
	return -1;
}

/* "(EVEN & d) == BLOCK" or "x == (0 | isnan)": how Python groups cmp. Caller frees. */
static char *as_parsed(const ta_model *m, TSNode cmp, TSNode bin, int side)
{
	char *all = ta_node_text(m->src, cmp), *b = ta_node_text(m->src, bin);
	uint32_t s = ts_node_start_byte(cmp), bs = ts_node_start_byte(bin) - s, be = ts_node_end_byte(bin) - s;
	char *t = side == 0 ? ta_xasprintf("(%s)%s", b, all + be)
		  : side == 1 ? ta_xasprintf("%.*s(%s)", (int)bs, all, b)
			      : ta_xasprintf("%.*s(%s)%s", (int)bs, all, b, all + be);
	free(all);
	free(b);
	return t;
}

ta_status ta_detect_d13(ta_rule_ctx *c)
{
	bool found = false;
	size_t first, count = ta_model_refs_within(c->m->compare_nodes, c->m->compare_node_count,
						   c->k->node, &first);
	for (size_t i = first; i < first + count; i++) {
		TSNode n = c->m->compare_nodes[i].node, bin;
		int side = d13_side(c->m, c->k, n, &bin);
		if (side < 0)
			continue;
		char *t = ta_node_text(c->m->src, n), *p = as_parsed(c->m, n, bin, side);
		if (side == 2) {
			ta_rule_add(c, ta_span_of(c->m->src, n), "`%s` parses as the chained comparison `%s` (& and | "
				    "bind tighter than comparisons): parenthesise each comparison", t, p);
			free(t);
			free(p);
			found = true;
			continue;
		}
		TSNode far = ta_node_field(bin, side ? "right" : "left");
		TSNode near = ta_node_field(bin, side ? "left" : "right");
		uint32_t ts = side ? ts_node_start_byte(n) : ts_node_start_byte(near);
		uint32_t te = side ? ts_node_end_byte(near) : ts_node_end_byte(n);
		char *f = ta_node_text(c->m->src, far);
		ta_rule_add(c, ta_span_of(c->m->src, n), "`%s` parses as `%s` (& and | bind tighter than "
			    "comparisons), so `%s` never joins the test `%.*s`: parenthesise the comparison", t, p, f,
			    (int)(te - ts), c->m->src->text + ts);
		free(f);
		free(t);
		free(p);
		found = true;
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}

/* ---- the rewrite ---------------------------------------------------------- */

/* The first comparison of the D13 shape in n at line; fills *cmp, *bin. */
static int d13_find(const ta_model *m, const ta_kernel *k, TSNode n, uint32_t line, TSNode *cmp, TSNode *bin)
{
	int side;
	if ((line == 0 || (ta_node_line(n) <= line && line <= ta_node_end_line(n))) &&
	    (side = d13_side(m, k, n, bin)) >= 0) {
		*cmp = n;
		return side;
	}
	uint32_t c = ta_node_named_count(n);
	for (uint32_t i = 0; i < c; i++)
		if ((side = d13_find(m, k, ta_node_named_child(n, i), line, cmp, bin)) >= 0)
			return side;
	return -1;
}

/* Rewrite: A & (B == C), or (C == A) | B: the comparison takes the operand meant. */
TA_REWRITE(D13, NULL, TA_UNSAFE("assumes the test was meant as its flag and comparison read: the edit changes what it computes, which is the point"))
{
	ta_sites s = TA_SITES_INIT;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (!ta_edits_kernel_selected(kernel_or_host, ki))
			continue;
		TSNode cmp, bin;
		int side = d13_find(m, &m->kernels[ki], m->kernels[ki].node, line, &cmp, &bin);
		if (side < 0)
			continue;
		uint32_t line_of = (uint32_t)ta_node_line(cmp);
		if (ta_node_named_count(cmp) != 2) {
			ta_sites_refuse(&s, ta_xasprintf("line %u: a chained comparison; the intended grouping is unclear",
						    line_of));
			continue;
		}
		if (side == 0) {
			/* `A & B == C` is `(A & B) == C`; the test meant A & (B == C). */
			TSNode b = ta_node_field(bin, "right");
			ta_edit_replace(out, ts_node_start_byte(b), ts_node_start_byte(b), "(");
			ta_edit_replace(out, ts_node_end_byte(cmp), ts_node_end_byte(cmp), ")");
		} else {
			/* `C == A | B` is `C == (A | B)`; the test meant (C == A) | B. */
			TSNode a = ta_node_field(bin, "left");
			ta_edit_replace(out, ts_node_start_byte(cmp), ts_node_start_byte(cmp), "(");
			ta_edit_replace(out, ts_node_end_byte(a), ts_node_end_byte(a), ")");
		}
		char *t = ta_node_text(m->src, cmp);
		ta_edit_set_title(out, "parenthesise the comparison in `%s` (& and | bind tighter than comparisons)", t);
		/* The edit changes what the test computes: right only if the
		 * author meant the grouping the names suggest. */
		ta_edit_set_unsafe(out, "assumes `%s` was meant with the comparison grouped first: the edit changes "
				   "what it computes", t);
		free(t);
		out->line = line_of;
		return ta_sites_done(&s);
	}
	return ta_sites_end(&s, why_not, line, "no comparison that & or | takes the wrong operand of");
}
