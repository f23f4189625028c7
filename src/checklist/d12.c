/* D12: Hand-written ceiling division for a grid.
 * Its detector and its rewrite. */
#include "config.h"
#include "analyze/values.h"
#include "checklist/rewrite_internal.h"
#include "analyze/flat.h"
#include "analyze/index.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The name a host expression is assigned to, when it is the whole right side
 * or part of it (caller frees), or NULL. */
static char *assigned_name(const ta_rule_ctx *c, ta_span s)
{
	TSNode n = ta_rule_node(c, s);
	TSNode a = ta_node_ancestor(n, "assignment");
	if (ts_node_is_null(a) || !ta_node_is(ta_node_field(a, "left"), "identifier"))
		return NULL;
	return ta_node_text(c->m->src, ta_node_field(a, "left"));
}

typedef struct grid_reach {
	ta_span op;
	bool hit;
} grid_reach;

/* n divides what the grid counts (the right of `//`, `/` or `%`, or
 * cdiv's second argument): a tile size, not a count of programs. */
static bool divisor(const ta_model *m, TSNode n)
{
	TSNode p = ta_node_parent(n);
	if (ta_node_is(p, "binary_operator")) {
		TSNode op = ta_node_field(p, "operator");
		return ts_node_eq(ta_node_field(p, "right"), n) &&
		       (ta_node_text_eq(m->src, op, "//") || ta_node_text_eq(m->src, op, "/") ||
			ta_node_text_eq(m->src, op, "%"));
	}
	return ta_node_is(p, "argument_list") && ta_call_named(m, ta_node_parent(p), "cdiv") &&
	       ta_node_named_count(p) == 2 && ts_node_eq(ta_node_named_child(p, 1), n);
}

static ta_values_step grid_reach_visit(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	grid_reach *r = ctx;
	if (divisor(m, n))
		return TA_VALUES_SKIP;
	r->hit = ts_node_start_byte(n) <= r->op.start && r->op.end <= ts_node_end_byte(n) &&
		 !ta_node_is(n, "module") && !ta_node_is(n, "function_definition") && !ta_node_is(n, "block");
	return r->hit ? TA_VALUES_STOP : TA_VALUES_DESCEND;
}

/* The grid's value, followed through the wrapper's names (`grid =
 * (grid_size,)`, `grid_size = min(NUM_SMS, num_tiles_m * num_tiles_n)`,
 * `num_tiles_m = (M + BM - 1) // BM`), holds the division at op as a count
 * of programs (not inside a divisor: a block size rounded up). */
static bool grid_value_holds(const ta_rule_ctx *c, const ta_launch *l, ta_span op)
{
	if (!l->grid_span.end)
		return false;
	grid_reach r = { .op = op };
	ta_values_walk(c->m, ta_rule_node(c, l->grid_span), grid_reach_visit, &r);
	return r.hit;
}

/* The module function a call of a plain name calls, when it returns
 * the hand-written ceiling division of its two parameters in order
 * (`def ceil_div(a, b): return (a + b - 1) // b`): that function's
 * definition, or a null node. */
static TSNode d12_cdiv_helper(const ta_model *m, TSNode call)
{
	TSNode none = { 0 };
	TSNode fn = ta_node_field(call, "function");
	if (!ta_node_is(call, "call") || !ta_node_is(fn, "identifier") ||
	    ta_node_named_count(ta_node_field(call, "arguments")) != 2)
		return none;
	char *name = ta_node_text(m->src, fn);
	uint32_t at = ta_index_module_def(m, name);
	free(name);
	if (at == UINT32_MAX)
		return none;
	TSNode def = ta_node_named_at(ta_syntax_root(m->syn), at, at + 1);
	while (!ts_node_is_null(def) && !ta_node_is(def, "function_definition") &&
	       !ta_node_is(def, "decorated_definition"))
		def = ta_node_parent(def);
	if (ta_node_is(def, "decorated_definition"))
		def = ta_node_field(def, "definition");
	TSNode params = ta_node_field(def, "parameters"), body = ta_node_field(def, "body");
	if (!ta_node_is(def, "function_definition") || ta_node_named_count(params) != 2)
		return none;
	/* one statement after any docstring: return (a + b - 1) // b */
	TSNode ret = { 0 };
	for (uint32_t i = 0; i < ta_node_named_count(body); i++) {
		TSNode st = ta_node_named_child(body, i);
		if (ta_node_is(st, "comment") ||
		    (ts_node_is_null(ret) && ta_node_is(st, "expression_statement") &&
		     ta_node_is(ta_node_named_child(st, 0), "string")))
			continue;
		if (!ts_node_is_null(ret) || !ta_node_is(st, "return_statement"))
			return none;
		ret = st;
	}
	TSNode e = ts_node_is_null(ret) ? ret : ta_node_unparen(ta_node_named_child(ret, 0));
	if (!ta_node_is(e, "binary_operator") || !ta_node_text_eq(m->src, ta_node_field(e, "operator"), "//"))
		return none;
	TSNode num = ta_node_unparen(ta_node_field(e, "left")), plus = num;
	if (ta_node_is(num, "binary_operator") && ta_node_text_eq(m->src, ta_node_field(num, "operator"), "-"))
		plus = ta_node_unparen(ta_node_field(num, "left"));
	if (!ta_node_is(plus, "binary_operator") || !ta_node_text_eq(m->src, ta_node_field(plus, "operator"), "+"))
		return none;
	/* the model's own test of the form, on the host op of that return */
	bool hand = false;
	int hi = ta_index_host_at(m, ts_node_start_byte(e));
	for (size_t i = 0; hi >= 0 && i < m->hosts[hi].op_count && !hand; i++)
		hand = m->hosts[hi].ops[i].kind == TA_HOST_HAND_CDIV &&
		       m->hosts[hi].ops[i].span.start == ts_node_start_byte(e);
	char *a = ta_node_text(m->src, ta_node_named_child(params, 0));
	char *b = ta_node_text(m->src, ta_node_named_child(params, 1));
	bool in_order = hand && ta_node_text_eq(m->src, ta_node_unparen(ta_node_field(plus, "left")), a) &&
			ta_node_text_eq(m->src, ta_node_unparen(ta_node_field(e, "right")), b);
	free(a);
	free(b);
	return in_order ? def : none;
}

typedef struct grid_helpers {
	const ta_model *m;
	TSNode calls[8];
	size_t count;
} grid_helpers;

static ta_values_step grid_helper_visit(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	grid_helpers *g = ctx;
	if (divisor(m, n))
		return TA_VALUES_SKIP;
	if (g->count < 8 && ta_node_is(n, "call") && !ts_node_is_null(d12_cdiv_helper(m, n))) {
		for (size_t i = 0; i < g->count; i++)
			if (ts_node_eq(g->calls[i], n))
				return TA_VALUES_SKIP;
		g->calls[g->count++] = n;
		return TA_VALUES_SKIP;
	}
	return TA_VALUES_DESCEND;
}

/* The calls of a ceiling-division helper of the file (d12_cdiv_helper)
 * that give launch l's grid: the same division, one call away. */
static bool d12_helper_calls(ta_rule_ctx *c, const ta_launch *l)
{
	if (!l->grid_span.end)
		return false;
	grid_helpers g = { .m = c->m };
	ta_values_walk(c->m, ta_rule_node(c, l->grid_span), grid_helper_visit, &g);
	bool found = false;
	for (size_t i = 0; i < g.count; i++) {
		ta_span at = ta_span_of(c->m->src, g.calls[i]);
		bool dup = false;
		for (size_t f = 0; f < c->res->finding_count; f++)
			dup |= c->res->findings[f].id == c->id && c->res->findings[f].span.start == at.start;
		if (dup)
			continue;
		TSNode def = d12_cdiv_helper(c->m, g.calls[i]);
		char *call = ta_node_text(c->m->src, g.calls[i]);
		char *name = ta_node_text(c->m->src, ta_node_field(def, "name"));
		ta_rule_add(c, at, "the grid of `%s` is computed with `%s`, a hand-written ceiling division (`%s` at "
			    "line %u): triton.cdiv says it", c->k->name, call, name, ts_node_start_point(def).row + 1);
		free(call);
		free(name);
		found = true;
	}
	return found;
}

/* The hand-written ceiling divisions of host hi that give launch l's grid. */
static bool d12_host(ta_rule_ctx *c, const ta_launch *l, size_t hi)
{
	bool found = false;
	const ta_host *h = &c->m->hosts[hi];
	size_t n;
	const uint32_t *cdivs = ta_rule_host_ops(c, (int)hi, TA_HOST_HAND_CDIV, &n);
	for (size_t i = 0; i < n; i++) {
		const ta_host_op *op = &h->ops[cdivs[i]];
		bool in_grid = op->span.start >= l->grid_def_span.start && op->span.end <= l->grid_def_span.end;
		if (!in_grid) {
			char *name = assigned_name(c, op->span);
			in_grid = name && (ta_rule_mentions(c, l->grid_def_span, name) ||
					   ta_rule_mentions(c, l->grid_span, name));
			free(name);
		}
		if (!in_grid)
			in_grid = grid_value_holds(c, l, op->span);
		if (!in_grid)
			continue;
		bool dup = false;
		for (size_t f = 0; f < c->res->finding_count; f++)
			dup |= c->res->findings[f].id == c->id && c->res->findings[f].span.start == op->span.start;
		if (dup)
			continue;
		ta_rule_add(c, op->span, "the grid of `%s` is computed with a hand-written ceiling division "
			    "%s: triton.cdiv says it", c->k->name, op->text);
		found = true;
	}
	return found;
}

ta_status ta_detect_d12(ta_rule_ctx *c)
{
	bool found = false;
	ta_launch_walk walk = ta_index_launch_walk(c->m, c->kernel);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		if (l->host < 0)
			continue;
		found |= d12_host(c, l, (size_t)l->host);
		found |= d12_helper_calls(c, l);
		if (l->grid_kind != TA_GRID_FUNCTION)
			continue;
		/* a grid function nested in the wrapper (`def grid(META): return
		 * (...)`) is a host of its own in the model */
		for (size_t hi = 0; hi < c->m->host_count; hi++) {
			const ta_host *h = &c->m->hosts[hi];
			if ((int)hi != l->host && h->span.end && h->span.start >= l->grid_def_span.start &&
			    h->span.end <= l->grid_def_span.end)
				found |= d12_host(c, l, hi);
		}
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}


/* Keeps the first reason a site was refused. */
/* ---- D12: (a + b - 1) // b, (a + 63) // 64 -> triton.cdiv(a, b) ---------- */

static int d12_one(const ta_model *m, const ta_host_op *op, ta_edit *out, char **why_not)
{
	/* the two forms the model finds: (a + b - 1) // b, and (a + 63) // 64
	 * (a literal addend one less than a literal divisor) */
	TSNode n = ta_edits_node(m, op->span);
	TSNode num = ta_node_unparen(ta_node_field(n, "left"));
	TSNode plus = num;
	if (ta_node_is(num, "binary_operator") && ta_node_text_eq(m->src, ta_node_field(num, "operator"), "-"))
		plus = ta_node_unparen(ta_node_field(num, "left"));
	TSNode a = ta_node_field(plus, "left"), b = ta_node_field(n, "right");
	if (ts_node_is_null(a) || ts_node_is_null(b) || !ta_node_is(n, "binary_operator") ||
	    !ta_node_is(plus, "binary_operator") || !ta_node_text_eq(m->src, ta_node_field(plus, "operator"), "+"))
		return ta_edits_refuse(why_not, "line %u: not of the form (a + b - 1) // b", op->span.line);
	char *cdiv = ta_edits_module(m, "triton.cdiv");
	if (!cdiv)
		return ta_edits_refuse(why_not, "line %u: the file does not import triton; add `import triton` first",
				       op->span.line);
	char *ta = ta_node_text(m->src, a), *tb = ta_node_text(m->src, b);
	char *rep = ta_xasprintf("%s(%s, %s)", cdiv, ta, tb);
	ta_edit_replace(out, op->span.start, op->span.end, rep);
	ta_edit_set_title(out, "use %s(%s, %s) for the ceiling division", cdiv, ta, tb);
	out->line = op->span.line;
	free(rep);
	free(ta);
	free(tb);
	free(cdiv);
	return 0;
}

static bool d12_site(const ta_model *m, const ta_host *h, const ta_host_op *op)
{
	(void)m, (void)h;
	return op->kind == TA_HOST_HAND_CDIV;
}

static int d12_at(const ta_model *m, const ta_host *h, const ta_host_op *op, ta_edit *out, char **why)
{
	(void)h;
	return d12_one(m, op, out, why);
}

/* A call of a ceiling-division helper (d12_cdiv_helper) in a selected
 * host function, on line (0: anywhere), made triton.cdiv(x, y): the
 * helper computes exactly that. */
static int d12_helper_call_edit(const ta_model *m, int kernel_or_host, uint32_t line, ta_edit *out)
{
	ta_walk w;
	ta_walk_start(&w, ta_syntax_root(m->syn));
	int rc = -1;
	for (;;) {
		TSNode n = ta_walk_node(&w);
		ta_span at = ta_span_of(m->src, n);
		int h = ta_node_is(n, "call") ? ta_index_host_at(m, at.start) : -1;
		if (h >= 0 && ta_edits_host_selected(kernel_or_host, (size_t)h) && ta_edits_at_line(at, line) &&
		    !ts_node_is_null(d12_cdiv_helper(m, n))) {
			char *cdiv = ta_edits_module(m, "triton.cdiv");
			if (cdiv) {
				char *args = ta_node_text(m->src, ta_node_field(n, "arguments"));
				char *rep = ta_xasprintf("%s%s", cdiv, args);
				ta_edit_replace(out, at.start, at.end, rep);
				ta_edit_set_title(out, "use %s%s for the ceiling division", cdiv, args);
				out->line = at.line;
				free(rep);
				free(args);
				free(cdiv);
				rc = 0;
			}
		}
		if (!rc || !ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
	return rc;
}

/* Rewrite: triton.cdiv(a, b) instead of (a + b - 1) // b or (a + 63) // 64,
 * or instead of a call of the file's function that returns that. */
TA_REWRITE(D12, NULL, TA_SAFE)
{
	char *why = NULL;
	int rc = ta_edits_each_host_op(m, kernel_or_host, line, d12_site, d12_at, out, &why,
				       "no hand-written ceiling division (a + b - 1) // b in host code");
	if (rc && !d12_helper_call_edit(m, kernel_or_host, line, out)) {
		free(why);
		return 0;
	}
	if (why_not)
		*why_not = why;
	else
		free(why);
	return rc;
}
