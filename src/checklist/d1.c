/* D1: Unrolled heavy loop spilling registers. Its detector and its rewrite. */
#include "config.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

ta_status ta_detect_d1(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	int heavy = -1;
	bool controlled = false;
	for (size_t l = 0; l < k->loop_count; l++) {
		const ta_loop *lp = &k->loops[l];
		if (ta_kwarg_find(lp->kwargs, lp->kwarg_count, "loop_unroll_factor")) {
			controlled = true;
			continue;
		}
		if (heavy < 0 && (lp->kind == TA_LOOP_STATIC_RANGE || ta_rule_dots_in_loop(k, (int)l) >= 2))
			heavy = (int)l;
	}
	if (heavy < 0)
		return controlled ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
	const ta_kernel_evidence *e = ta_evidence_find(c->ev, k->name);
	const ta_loop *lp = &k->loops[heavy];
	if (!e) {
		/* The site is known; whether it spills only a profile tells. */
		ta_rule_add(c, lp->header, "the %s loop at line %u of `%s`: a profile tells whether it spills "
			    "(then tl.range(..., loop_unroll_factor=1) keeps fewer tiles live)",
			    lp->kind == TA_LOOP_STATIC_RANGE ? "unrolled" : "heavy", lp->span.line, k->name);
		return TA_STATUS_NEEDS_PROFILE;
	}
	if (e->local_bytes == 0 && e->registers < 200)
		return TA_STATUS_SATISFIED;
	ta_finding *f = ta_rule_add(c, lp->header, "`%s` spills (%u bytes of local memory per thread, %u "
				    "registers) around the %s loop at line %u: tl.range(..., loop_unroll_factor=1) "
				    "keeps fewer tiles live", k->name, e->local_bytes, e->registers,
				    lp->kind == TA_LOOP_STATIC_RANGE ? "unrolled" : "heavy", lp->span.line);
	f->measure = ta_xasprintf("local memory %u B/thread, %u registers/thread", e->local_bytes, e->registers);
	return TA_STATUS_APPLIES;
}

/* ---- the rewrite ---------------------------------------------------------- */

/* The loop variable indexes something: it must stay a compile-time value. */
static bool var_indexes(const ta_model *m, TSNode n, const char *var)
{
	if (ts_node_is_null(n))
		return false;
	if (ta_node_is(n, "subscript")) {
		TSNode s = ta_node_field(n, "subscript");
		if (!ts_node_is_null(s) && ta_node_contains_identifier(m->src, s, var))
			return true;
	}
	uint32_t c = ta_node_named_count(n);
	for (uint32_t i = 0; i < c; i++)
		if (var_indexes(m, ta_node_named_child(n, i), var))
			return true;
	return false;
}

/* Rewrite: tl.range(..., loop_unroll_factor=1). Unsafe only where the
 * project declares no Triton: loop_unroll_factor came with 3.2. */
TA_REWRITE(D1, NULL, TA_MIXED("assumes Triton 3.2 or newer (tl.range's loop_unroll_factor), where the project declares no Triton"))
{
	ta_sites s = TA_SITES_INIT;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (!ta_edits_kernel_selected(kernel_or_host, ki))
			continue;
		const ta_kernel *k = &m->kernels[ki];
		for (size_t i = 0; i < k->loop_count; i++) {
			const ta_loop *l = &k->loops[i];
			if (l->kind != TA_LOOP_RANGE && l->kind != TA_LOOP_TL_RANGE && l->kind != TA_LOOP_STATIC_RANGE)
				continue;
			if (!ta_edits_at_line(l->header, line))
				continue;
			if (ta_kwarg_find(l->kwargs, l->kwarg_count, "loop_unroll_factor")) {
				ta_sites_refuse(&s, ta_xasprintf("line %u: the loop sets loop_unroll_factor already",
							    l->header.line));
				continue;
			}
			TSNode call = ta_edits_node(m, l->iter);
			TSNode loop = ta_node_parent(call);
			if (!ta_node_is(call, "call")) {
				ta_sites_refuse(&s, ta_xasprintf("line %u: the loop does not iterate over a range call",
							    l->header.line));
				continue;
			}
			if (l->kind == TA_LOOP_STATIC_RANGE && l->var &&
			    var_indexes(m, ta_node_field(loop, "body"), l->var)) {
				ta_sites_refuse(&s, ta_xasprintf("line %u: %s indexes a value in the body, so the loop must stay "
							    "static_range", l->header.line, l->var));
				continue;
			}
			char *range = ta_edits_module(m, "triton.language.range");
			if (!range)
				return ta_edits_refuse(why_not, "the file does not import triton.language");
			TSNode fn = ta_node_field(call, "function");
			TSNode args = ta_node_field(call, "arguments");
			uint32_t n = ta_node_named_count(args);
			if (l->kind != TA_LOOP_TL_RANGE)
				ta_edit_replace(out, ts_node_start_byte(fn), ts_node_end_byte(fn), range);
			if (n == 0) {
				free(range);
				ta_edit_clear(out);
				return ta_edits_refuse(why_not, "line %u: a range without arguments", l->header.line);
			}
			TSNode last = ta_node_named_child(args, n - 1);
			ta_edit_replace(out, ts_node_end_byte(last), ts_node_end_byte(last), ", loop_unroll_factor=1");
			ta_edit_set_title(out, "keep the loop at line %u rolled (%s(..., loop_unroll_factor=1))",
					  l->header.line, range);
			out->line = l->header.line;
			free(range);
			char *w = NULL;
			if (ta_edits_need_triton(m, 3, 2, "tl.range's loop_unroll_factor", out, &w) != 0) {
				ta_edit_clear(out);
				ta_sites_refuse(&s, w);
				continue;
			}
			return ta_sites_done(&s);
		}
	}
	return ta_sites_end(&s, why_not, line, "no range/tl.range/tl.static_range loop in a kernel");
}
