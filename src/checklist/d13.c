/* D13: Operator precedence kills a fast-path test.
 * Its detector and its rewrite. */
#include "config.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

ta_status ta_detect_d13(ta_rule_ctx *c)
{
	bool found = false;
	size_t first, count = ta_model_refs_within(c->m->compare_nodes, c->m->compare_node_count,
						   c->k->node, &first);
	for (size_t i = first; i < first + count; i++) {
		TSNode n = c->m->compare_nodes[i].node;
		/* Either side: `offs < M & ok` is `offs < (M & ok)` just as much. */
		for (uint32_t side = 0; side < ta_node_named_count(n); side++) {
			TSNode left = ts_node_named_child(n, side);
			TSNode op = ta_node_field(left, "operator");
			if (ta_node_is(left, "binary_operator") && !ts_node_is_null(op) &&
			    (ta_node_text_eq(c->m->src, op, "&") || ta_node_text_eq(c->m->src, op, "|"))) {
				char *t = ta_node_text(c->m->src, n);
				ta_rule_add(c, ta_span_of(c->m->src, n), "`%s` parses as `(...) %s ...` compared as a "
					    "whole: Python's & and | bind tighter than comparisons; parenthesise the comparison",
					    t, ta_node_text_eq(c->m->src, op, "&") ? "&" : "|");
				free(t);
				found = true;
				break;
			}
		}
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}

/* ---- the rewrite ---------------------------------------------------------- */

/* The first `A & B == C` (or |) in n at line; fills *cmp. */
static bool d13_find(const ta_model *m, TSNode n, uint32_t line, TSNode *cmp)
{
	if (ta_node_is(n, "comparison_operator") && ta_node_named_count(n) >= 2) {
		TSNode left = ts_node_named_child(n, 0);
		TSNode op = ta_node_field(left, "operator");
		if (ta_node_is(left, "binary_operator") && !ts_node_is_null(op) &&
		    (ta_node_text_eq(m->src, op, "&") || ta_node_text_eq(m->src, op, "|")) &&
		    (line == 0 || (ta_node_line(n) <= line && line <= ta_node_end_line(n)))) {
			*cmp = n;
			return true;
		}
	}
	uint32_t c = ta_node_named_count(n);
	for (uint32_t i = 0; i < c; i++)
		if (d13_find(m, ts_node_named_child(n, i), line, cmp))
			return true;
	return false;
}

/* Rewrite: A & (B == C): parenthesise a comparison under & or |. */
TA_REWRITE(D13, NULL)
{
	char *why = NULL;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (kernel_or_host >= 0 && (size_t)kernel_or_host != ki)
			continue;
		TSNode cmp;
		if (!d13_find(m, m->kernels[ki].node, line, &cmp))
			continue;
		uint32_t line_of = (uint32_t)ta_node_line(cmp);
		if (ta_node_named_count(cmp) != 2) {
			ta_edits_keep_why(&why, ta_xasprintf("line %u: a chained comparison; the intended grouping is unclear",
						    line_of));
			continue;
		}
		/* `A & B == C` is `(A & B) == C`; the fast-path test meant A & (B == C). */
		TSNode left = ts_node_named_child(cmp, 0);
		TSNode b = ta_node_field(left, "right");
		ta_edit_replace(out, ts_node_start_byte(b), ts_node_start_byte(b), "(");
		ta_edit_replace(out, ts_node_end_byte(cmp), ts_node_end_byte(cmp), ")");
		char *t = ta_node_text(m->src, cmp);
		ta_edit_set_title(out, "parenthesise the comparison in `%s` (& and | bind tighter than ==): check that "
				  "this grouping is the intended one", t);
		free(t);
		out->line = line_of;
		free(why);
		return 0;
	}
	if (why) {
		*why_not = why;
		return -1;
	}
	return ta_edits_none(why_not, "no comparison under & or | in a kernel%s", line ? " on that line" : "");
}
