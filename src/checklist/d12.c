/* D12: Hand-written ceiling division for a grid.
 * Its detector and its rewrite. */
#include "config.h"
#include "analyze/values.h"
#include "checklist/rewrite_internal.h"
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

/* The division at s is by an integer literal under 16 (`(H + 1) // 2`,
 * `(n + 7) // 8`) that no parameter of the kernel is given: a stride, a
 * pooling window or a packing factor, whose quotient is a size (the pooled
 * height, the bytes of packed bits) the grid counts in elements, not a
 * count of tiles. */
static bool small_factor(const ta_rule_ctx *c, ta_span s)
{
	TSNode n = ta_node_unparen(ta_rule_node(c, s));
	if (!ta_node_is(n, "binary_operator"))
		return false;
	TSNode d = ta_node_unparen(ta_node_field(n, "right"));
	if (!ta_node_is(d, "integer"))
		return false;
	char *t = ta_node_text(c->m->src, d);
	char *end;
	long v = strtol(t, &end, 0);
	bool small = *end == '\0' && v > 0 && v < 16;
	free(t);
	/* the factor is the kernel's own tile when a launch or config gives a
	 * parameter that value (`ROWS_PER_PROGRAM=1` beside `(n + 1 - 1) // 1`):
	 * then the quotient counts programs */
	for (size_t p = 0; small && p < c->k->param_count; p++) {
		long vals[16];
		size_t nv = ta_rule_param_values(c, c->k->params[p].name, vals, 16);
		for (size_t i = 0; i < nv && small; i++)
			small = vals[i] != v;
	}
	return small;
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
		if (small_factor(c, op->span))
			continue;
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

/* Rewrite: triton.cdiv(a, b) instead of (a + b - 1) // b or (a + 63) // 64. */
TA_REWRITE(D12, NULL, TA_SAFE)
{
	return ta_edits_each_host_op(m, kernel_or_host, line, d12_site, d12_at, out, why_not,
				     "no hand-written ceiling division (a + b - 1) // b in host code");
}
