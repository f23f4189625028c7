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
	/* 200 registers or more without local memory is the step before a
	 * spill: say which of the two the profile shows. */
	ta_finding *f = e->local_bytes
		? ta_rule_add(c, lp->header, "`%s` spills (%u bytes of local memory per thread, %u registers) "
			      "around the %s loop at line %u: tl.range(..., loop_unroll_factor=1) keeps fewer "
			      "tiles live", k->name, e->local_bytes, e->registers,
			      lp->kind == TA_LOOP_STATIC_RANGE ? "unrolled" : "heavy", lp->span.line)
		: ta_rule_add(c, lp->header, "`%s` holds %u registers per thread around the %s loop at line %u "
			      "(no local memory yet; 200 or more leaves little room before a spill): "
			      "tl.range(..., loop_unroll_factor=1) keeps fewer tiles live", k->name, e->registers,
			      lp->kind == TA_LOOP_STATIC_RANGE ? "unrolled" : "heavy", lp->span.line);
	f->measure = ta_xasprintf("local memory %u B/thread, %u registers/thread", e->local_bytes, e->registers);
	return TA_STATUS_APPLIES;
}

/* ---- the rewrite ---------------------------------------------------------- */

/* ---- where a static_range index must stay a compile-time value ----------
 * tl.static_range unrolls its loop, so its index is a constant in each copy;
 * tl.range does not. The index (or a name the body computes from it) must
 * stay constant where Triton needs one: a subscript (a tuple index), a
 * tl.arange bound or a shape, an axis, a nested static_range, a constexpr
 * parameter of a helper the body calls (or a helper parameter that needs
 * one in turn). */

typedef struct d1_names {
	char *v[16];
	size_t n;
} d1_names;

static bool d1_reads(const ta_model *m, TSNode n, const d1_names *names)
{
	for (size_t i = 0; i < names->n && !ts_node_is_null(n); i++)
		if (ta_node_contains_identifier(m->src, n, names->v[i]))
			return true;
	return false;
}

/* The names the body computes from the index (`j = i + 1`, `off = j * BLOCK`),
 * the index first. */
static void d1_derived(const ta_model *m, TSNode body, const char *var, d1_names *d)
{
	d->v[d->n++] = ta_xstrdup(var);
	for (bool grew = true; grew && d->n < 16;) {
		grew = false;
		size_t first, c = ta_model_refs_within(m->assign_nodes, m->assign_node_count, body, &first);
		for (size_t i = first; i < first + c && d->n < 16; i++) {
			TSNode a = m->assign_nodes[i].node;
			TSNode l = ta_node_field(a, "left"), r = ta_node_field(a, "right");
			if (!ta_node_is(l, "identifier") || ts_node_is_null(r) || !d1_reads(m, r, d))
				continue;
			char *t = ta_node_text(m->src, l);
			bool known = false;
			for (size_t j = 0; j < d->n && !known; j++)
				known = !strcmp(d->v[j], t);
			if (known) {
				free(t);
				continue;
			}
			d->v[d->n++] = t;
			grew = true;
		}
	}
}

static void d1_names_free(d1_names *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i]);
	d->n = 0;
}

/* triton.language functions whose arguments (from the index first_const
 * on) are compile-time values: bounds, shapes, axes. */
static int d1_const_from(const char *fn)
{
	static const struct { const char *name; int from; } fns[] = {
		{ "arange", 0 }, { "static_range", 0 }, { "constexpr", 0 }, { "static_assert", 0 },
		{ "static_print", 0 }, { "zeros", 0 }, { "full", -1 }, { "reshape", 1 }, { "view", 1 },
		{ "broadcast_to", 1 }, { "expand_dims", 1 }, { "permute", 1 }, { "trans", 1 }, { "sum", 1 },
		{ "max", 1 }, { "min", 1 }, { "argmax", 1 }, { "argmin", 1 }, { "reduce", 1 }, { "cumsum", 1 },
		{ "cumprod", 1 }, { "xor_sum", 1 }, { "sort", 1 }, { "flip", 1 }, { "associative_scan", 1 },
		{ "split", 1 }, { "split_k", 1 },
	};
	for (size_t i = 0; i < sizeof fns / sizeof *fns; i++)
		if (!strcmp(fn, fns[i].name))
			return fns[i].from;
	return -2;
}

static TSNode d1_const_use(const ta_model *m, TSNode n, const d1_names *names, int depth);

/* The helper of the file called by name, or NULL. */
static const ta_kernel *d1_helper(const ta_model *m, TSNode fn)
{
	if (!ta_node_is(fn, "identifier"))
		return NULL;
	for (size_t i = 0; i < m->kernel_count; i++)
		if (ta_node_text_eq(m->src, fn, m->kernels[i].name))
			return &m->kernels[i];
	return NULL;
}

/* Parameter p of helper h must be a compile-time value: it is a constexpr,
 * or the helper's body uses it where one is needed. */
static bool d1_param_const(const ta_model *m, const ta_kernel *h, const ta_param *p, int depth)
{
	if (p->constexpr_)
		return true;
	if (depth >= 3)
		return false;
	d1_names d = { .n = 0 };
	TSNode body = ta_node_field(h->node, "body");
	d1_derived(m, body, p->name, &d);
	bool hit = !ts_node_is_null(d1_const_use(m, body, &d, depth + 1));
	d1_names_free(&d);
	return hit;
}

/* A call that takes the index where a compile-time value is needed. */
static bool d1_call_needs(const ta_model *m, TSNode call, const d1_names *names, int depth)
{
	TSNode fn = ta_node_field(call, "function"), args = ta_node_field(call, "arguments");
	if (ts_node_is_null(args) || !ta_node_is(args, "argument_list"))
		return false;
	const ta_kernel *h = d1_helper(m, fn);
	int from = -2;
	if (!h) {
		char *canon = ta_model_canonical(m, fn);
		bool module = canon && !strncmp(canon, "triton.", 7);
		if (canon && !strncmp(canon, "triton.language.", 16))
			from = d1_const_from(canon + 16);
		free(canon);
		if (!module && ta_node_is(fn, "attribute")) {
			/* a tensor's method (x.reshape(...), x.sum(axis=...)): the
			 * receiver is the tensor, every argument counts */
			char *a = ta_node_text(m->src, ta_node_field(fn, "attribute"));
			from = d1_const_from(a) == -2 ? -2 : 0;
			free(a);
		}
		if (from == -2)
			return false;
	}
	uint32_t c = ta_node_named_count(args);
	for (uint32_t i = 0, pos = 0; i < c; i++) {
		TSNode a = ta_node_named_child(args, i);
		if (ta_node_is(a, "comment"))
			continue;
		bool kw = ta_node_is(a, "keyword_argument");
		TSNode v = kw ? ta_node_field(a, "value") : a;
		uint32_t at = kw ? UINT32_MAX : pos++;
		if (!d1_reads(m, v, names))
			continue;
		if (h) {
			const ta_param *p = NULL;
			if (kw) {
				char *name = ta_node_text(m->src, ta_node_field(a, "name"));
				p = ta_kernel_param(h, name);
				free(name);
			} else if (at < h->param_count) {
				p = &h->params[at];
			}
			if (p && d1_param_const(m, h, p, depth))
				return true;
			continue;
		}
		if (kw) {
			/* shape=, axis=, dim=...: every keyword but the tensor's and the value's */
			TSNode kn = ta_node_field(a, "name");
			if (!ta_node_text_eq(m->src, kn, "input") && !ta_node_text_eq(m->src, kn, "value") &&
			    !ta_node_text_eq(m->src, kn, "x") && !ta_node_text_eq(m->src, kn, "other"))
				return true;
		} else if (from == -1 ? at == 0 : (int)at >= from) {
			return true;
		}
	}
	return false;
}

/* The first node of n that uses one of names where Triton needs a
 * compile-time value, or a null node. */
static TSNode d1_const_use(const ta_model *m, TSNode n, const d1_names *names, int depth)
{
	if (ts_node_is_null(n))
		return n;
	if (ta_node_is(n, "subscript")) {
		TSNode s = ta_node_field(n, "subscript");
		if (!ts_node_is_null(s) && d1_reads(m, s, names))
			return n;
	}
	if (ta_node_is(n, "call") && d1_call_needs(m, n, names, depth))
		return n;
	uint32_t c = ta_node_named_count(n);
	for (uint32_t i = 0; i < c; i++) {
		TSNode u = d1_const_use(m, ta_node_named_child(n, i), names, depth);
		if (!ts_node_is_null(u))
			return u;
	}
	return (TSNode){ 0 };
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
			if (l->kind == TA_LOOP_STATIC_RANGE && l->var) {
				TSNode body = ta_node_field(loop, "body");
				d1_names d = { .n = 0 };
				d1_derived(m, body, l->var, &d);
				TSNode use = d1_const_use(m, body, &d, 0);
				d1_names_free(&d);
				if (!ts_node_is_null(use)) {
					char *t = ta_node_text(m->src, use);
					size_t tl = 0;
					for (size_t c = 0; t[c]; c++)  /* one line: runs of blanks as one space */
						if (!isspace((unsigned char)t[c]) || (tl && t[tl - 1] != ' '))
							t[tl++] = isspace((unsigned char)t[c]) ? ' ' : t[c];
					t[tl] = '\0';
					ta_sites_refuse(&s, ta_xasprintf("line %zu: `%.*s%s` needs %s as a compile-time value, "
									 "which only tl.static_range gives: the loop at line %u "
									 "stays unrolled", ta_node_line(use), tl > 60 ? 57 : (int)tl,
									 t, tl > 60 ? "..." : "", l->var, l->header.line));
					free(t);
					continue;
				}
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
