/* D11: Masks on tiles that are always full: a mask the host's assert makes
 * pass every lane, or one that passes every lane by itself. Its detector
 * (no edit: the mask and its other= go by hand). */
#include "config.h"
#include "analyze/flat.h"
#include "analyze/values.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"
#include "util/text.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The launch argument given for kernel parameter p, as text (caller frees). */
static char *launch_arg_for(const ta_rule_ctx *c, const ta_launch *l, const char *p)
{
	const ta_kwarg *kw = ta_kwarg_find(l->kwargs, l->kwarg_count, p);
	if (kw)
		return ta_xstrdup(kw->value);
	for (size_t i = 0; i < c->k->param_count && i < l->arg_count; i++)
		if (!strcmp(c->k->params[i].name, p))
			return ta_rule_text(c, l->args[i]);
	return NULL;
}


/* In an assert's text, the divisor d of `a % d == 0` where `a` stands as a
 * whole operand (so `BT % BS == 0` is no statement about `T`); caller frees,
 * NULL when there is none. */
static char *asserted_divisor(const char *text, const char *a)
{
	size_t n = strlen(a);
	for (const char *p = strstr(text, a); p; p = strstr(p + 1, a)) {
		if ((p > text && (ta_text_ident_char(p[-1]) || p[-1] == '.')) || ta_text_ident_char(p[n]))
			continue;
		const char *q = p + n;
		while (*q == ' ')
			q++;
		if (*q != '%')
			continue;
		q++;
		while (*q == ' ')
			q++;
		const char *d = q;
		while (ta_text_ident_char(*q) || *q == '.')
			q++;
		if (q == d)
			continue;
		const char *e = q;
		while (*e == ' ')
			e++;
		if (strncmp(e, "== 0", 4) || ta_text_ident_char(e[4]))
			continue;
		return ta_xstrndup(d, (size_t)(q - d));
	}
	return NULL;
}

/* `a % d == 0`, the clause of the assert that says it (caller frees). */
static char *asserted_condition(const char *text, const char *a)
{
	char *d = asserted_divisor(text, a);
	char *r = ta_xasprintf("%s %% %s == 0", a, d ? d : "?");
	free(d);
	return r;
}

/* Whether the divisor d of an assert covers the kernel's tile width tile
 * at launch l: the launch gives tile the very value d, or d is a number
 * that every value tile takes (configs, launch keywords) divides: `S % 128
 * == 0` with BLOCK_M in {64, 128}. */
static bool divisor_covers(const ta_rule_ctx *c, const ta_launch *l, const char *d, const char *tile)
{
	const ta_param *pr = ta_kernel_param(c->k, tile);
	if (!pr || !pr->constexpr_)
		return false;
	char *v = launch_arg_for(c, l, tile);
	bool same = v && !strcmp(v, d);
	free(v);
	if (same)
		return true;
	char *end;
	long dv = strtol(d, &end, 10);
	if (*end || dv <= 0)
		return false;
	long vals[32];
	size_t nv = ta_rule_param_values(c, tile, vals, 32);
	bool all = nv > 0;
	for (size_t i = 0; i < nv && all; i++)
		all = vals[i] > 0 && dv % vals[i] == 0;
	return all;
}

/* The host's assert, at launch l, that `a` is a multiple of every value of
 * the tile width tile; NULL when there is none. */
static const ta_host_op *covering_assert(const ta_rule_ctx *c, const ta_launch *l, const char *a, const char *tile)
{
	const ta_host *h = &c->m->hosts[l->host];
	size_t n;
	const uint32_t *asserts = ta_rule_host_ops(c, l->host, TA_HOST_ASSERT, &n);
	for (size_t i = 0; i < n; i++) {
		const ta_host_op *op = &h->ops[asserts[i]];
		if (!op->text)
			continue;
		char *d = asserted_divisor(op->text, a);
		bool covers = d && divisor_covers(c, l, d, tile);
		free(d);
		if (covers)
			return op;
	}
	return NULL;
}

/* ---- D11: a mask that never clears a lane by itself ---------------------- */

/* The value of the one binding of name in the kernel, when there is one,
 * a plain assignment before at, and name is no parameter; a null node
 * otherwise. From the bindings' index: each question costs the name's
 * bindings, not the kernel's statements. */
static TSNode sole_binding(ta_rule_ctx *c, const char *name, uint32_t at)
{
	for (size_t p = 0; p < c->k->param_count; p++)
		if (!strcmp(c->k->params[p].name, name))
			return (TSNode){ 0 };
	return ta_rule_sole_value(c->m, c->k->node, name, strlen(name), at ? at : 1);
}

/* Whether name is bound anywhere inside span s (its loop rebinds it). */
static bool bound_within(ta_rule_ctx *c, const char *name, ta_span s)
{
	size_t n;
	const ta_values_binding *b = ta_values_bindings(c->m, c->k->node, name, strlen(name), &n);
	for (size_t i = 0; i < n; i++)
		if (ts_node_start_byte(b[i].binding) >= s.start && ts_node_end_byte(b[i].binding) <= s.end &&
		    !ta_node_is(b[i].binding, "for_statement"))
			return true;
	return false;
}

/* The kernel's early returns at the top of its body (`if x >= bound:
 * return`), found once per kernel. */
typedef struct d11_returns {
	TSNode st[16];
	size_t n;
} d11_returns;

static void early_returns(ta_rule_ctx *c, d11_returns *r)
{
	r->n = 0;
	TSNode body = ta_node_field(c->k->node, "body");
	for (uint32_t i = 0; r->n < 16 && i < ta_node_named_count(body); i++) {
		TSNode st = ta_node_named_child(body, i);
		if (!ta_node_is(st, "if_statement") || ta_node_named_count(st) != 2)
			continue;
		TSNode cond = ta_node_unparen(ta_node_field(st, "condition"));
		TSNode then = ta_node_field(st, "consequence");
		if (!ta_node_is(cond, "comparison_operator") || ta_node_named_count(cond) != 2 ||
		    ta_node_named_count(then) != 1 || !ta_node_is(ta_node_named_child(then, 0), "return_statement") ||
		    ta_node_named_count(ta_node_named_child(then, 0)))
			continue;
		r->st[r->n++] = st;
	}
}

static bool same_text(ta_rule_ctx *c, TSNode a, TSNode b)
{
	a = ta_node_unparen(a);
	b = ta_node_unparen(b);
	uint32_t la = ts_node_end_byte(a) - ts_node_start_byte(a), lb = ts_node_end_byte(b) - ts_node_start_byte(b);
	return la && la == lb &&
	       !memcmp(c->m->src->text + ts_node_start_byte(a), c->m->src->text + ts_node_start_byte(b), la);
}

/* `tl.arange(0, W)`: its W; a null node otherwise. */
static TSNode range_from_zero(ta_rule_ctx *c, TSNode n)
{
	n = ta_node_unparen(n);
	if (!ta_node_is(n, "call") || !ta_call_named(c->m, n, "arange"))
		return (TSNode){ 0 };
	TSNode args = ta_node_field(n, "arguments");
	if (ta_node_named_count(args) != 2 || !ta_node_text_eq(c->m->src, ta_node_named_child(args, 0), "0"))
		return (TSNode){ 0 };
	return ta_node_named_child(args, 1);
}

/* Appends one reason to why, once. */
static void add_reason(ta_buf *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_reason(ta_buf *why, const char *fmt, ...)
{
	ta_buf r = TA_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	ta_buf_vprintf(&r, fmt, ap);
	va_end(ap);
	if (!why->len || !strstr(why->data, r.data))
		ta_buf_printf(why, "%s%s", why->len ? "; " : "", r.data);
	ta_buf_free(&r);
}

/* x without the axes given to it (`o[:, None]`, `o[None, :]` give o). */
static TSNode given_axes_of(TSNode x)
{
	x = ta_node_unparen(x);
	while (ta_node_is(x, "subscript")) {
		uint32_t n = ta_node_named_count(x);
		for (uint32_t i = 1; i < n; i++) {
			TSNode ix = ta_node_named_child(x, i);
			if (!ta_node_is(ix, "none") && !(ta_node_is(ix, "slice") && !ta_node_named_count(ix)))
				return x;
		}
		x = ta_node_unparen(ta_node_field(x, "value"));
	}
	return x;
}

/* Why `x < bound` holds for every lane at `at`, appended to why: x is
 * tl.arange(0, bound) (or a name bound once to it), the variable of a
 * range loop that stops at bound around at, or the kernel has returned
 * when `x >= bound`. */
static bool below_always(ta_rule_ctx *c, const d11_returns *r, TSNode x, TSNode bound, uint32_t at, ta_buf *why)
{
	x = given_axes_of(x);
	TSNode w = range_from_zero(c, x);
	if (!ts_node_is_null(w) && same_text(c, w, bound)) {
		int wl = (int)(ts_node_end_byte(w) - ts_node_start_byte(w));
		const char *wt = c->m->src->text + ts_node_start_byte(w);
		add_reason(why, "tl.arange(0, %.*s) stays below %.*s", wl, wt, wl, wt);
		return true;
	}
	if (!ta_node_is(x, "identifier"))
		return false;
	char *name = ta_node_text(c->m->src, x);
	bool ok = false;
	w = range_from_zero(c, sole_binding(c, name, at));
	if (!ts_node_is_null(w) && same_text(c, w, bound)) {
		add_reason(why, "`%s` is tl.arange(0, %.*s) (line %zu)", name,
			      (int)(ts_node_end_byte(w) - ts_node_start_byte(w)), c->m->src->text + ts_node_start_byte(w),
			      ta_node_line(w));
		ok = true;
	}
	/* the loops around at, innermost first */
	for (int l = ta_kernel_loop_at(c->k, at); !ok && l >= 0; l = c->k->loops[l].parent) {
		const ta_loop *lp = &c->k->loops[l];
		if (!lp->var || strcmp(lp->var, name) || lp->kind == TA_LOOP_FOR_OTHER || lp->kind == TA_LOOP_WHILE ||
		    lp->arg_count < 1 || lp->arg_count > 3)
			continue;
		if (lp->arg_count == 3) {
			char *end;
			long step = strtol(lp->args[2], &end, 10);
			if (*end || step <= 0)
				continue;
		}
		char *b = ta_node_text(c->m->src, ta_node_unparen(bound));
		const char *stop = lp->args[lp->arg_count == 1 ? 0 : 1];
		if (!bound_within(c, name, lp->span) && !strcmp(b, stop)) {
			add_reason(why, "`%s` runs over the loop at line %u, which stops at %s",
				      name, lp->header.line, stop);
			ok = true;
		}
		free(b);
	}
	/* `if x >= bound: return` at the top of the body, before at */
	for (size_t i = 0; !ok && i < r->n && ts_node_start_byte(r->st[i]) < at; i++) {
		TSNode cond = ta_node_unparen(ta_node_field(r->st[i], "condition"));
		const char *op = ts_node_type(ts_node_child(cond, 1));
		TSNode a = ta_node_named_child(cond, 0), z = ta_node_named_child(cond, 1);
		bool ge = !strcmp(op, ">=") && same_text(c, a, x) && same_text(c, z, bound);
		bool le = !strcmp(op, "<=") && same_text(c, z, x) && same_text(c, a, bound);
		if (ge || le) {
			add_reason(why, "the kernel returns at line %zu when `%s` reaches it", ta_node_line(r->st[i]),
				   name);
			ok = true;
		}
	}
	free(name);
	return ok;
}

/* What the host's asserts prove of a mask at one launch: the first assert
 * that covered a term, the argument it is about and the tile it covers. */
typedef struct d11_assert {
	const ta_launch *l;       /* the launch whose wrapper is read */
	const ta_host_op *op;     /* NULL: no term covered yet */
	char *arg, *tile;         /* owned */
} d11_assert;

/* Whether n's value is a multiple of the tile width w (`pid * BLOCK`,
 * `BLOCK * k`, through names bound once). */
static bool times_tile(ta_rule_ctx *c, TSNode n, TSNode w, uint32_t at, int depth)
{
	n = ta_node_unparen(n);
	if (depth > 8 || ts_node_is_null(n))
		return false;
	if (ta_node_is(n, "identifier")) {
		if (same_text(c, n, w))
			return true;
		char *name = ta_node_text(c->m->src, n);
		TSNode v = sole_binding(c, name, at);
		free(name);
		return !ts_node_is_null(v) && times_tile(c, v, w, ts_node_start_byte(v), depth + 1);
	}
	if (!ta_node_is(n, "binary_operator") || !ta_node_text_eq(c->m->src, ta_node_field(n, "operator"), "*"))
		return false;
	TSNode a = ta_node_unparen(ta_node_field(n, "left")), b = ta_node_unparen(ta_node_field(n, "right"));
	return same_text(c, a, w) || same_text(c, b, w);
}

/* The width W when x's value is a tile of offsets `[start +]
 * tl.arange(0, W)` (axes given or not, names bound once) whose start is a
 * multiple of W; a null node otherwise. */
static TSNode tile_of(ta_rule_ctx *c, TSNode x, uint32_t at, int depth)
{
	x = given_axes_of(x);
	if (depth > 8 || ts_node_is_null(x))
		return (TSNode){ 0 };
	TSNode w = range_from_zero(c, x);
	if (!ts_node_is_null(w))
		return w;
	if (ta_node_is(x, "identifier")) {
		char *name = ta_node_text(c->m->src, x);
		TSNode v = sole_binding(c, name, at);
		free(name);
		return ts_node_is_null(v) ? v : tile_of(c, v, ts_node_start_byte(v), depth + 1);
	}
	if (!ta_node_is(x, "binary_operator") || !ta_node_text_eq(c->m->src, ta_node_field(x, "operator"), "+"))
		return (TSNode){ 0 };
	TSNode a = ta_node_field(x, "left"), b = ta_node_field(x, "right");
	TSNode wa = tile_of(c, a, at, depth + 1), wb = tile_of(c, b, at, depth + 1);
	if (!ts_node_is_null(wa) && ts_node_is_null(wb) && times_tile(c, b, wa, at, 0))
		return wa;
	if (!ts_node_is_null(wb) && ts_node_is_null(wa) && times_tile(c, a, wb, at, 0))
		return wb;
	return (TSNode){ 0 };
}

/* The runtime parameter that bound is, whole or less a multiple of the
 * tile w (`K - k * BLOCK_K`, the part of K a loop has left); a null node
 * otherwise. */
static TSNode bound_param(ta_rule_ctx *c, TSNode bound, TSNode w, uint32_t at)
{
	bound = ta_node_unparen(bound);
	if (ta_node_is(bound, "binary_operator") && ta_node_text_eq(c->m->src, ta_node_field(bound, "operator"), "-") &&
	    times_tile(c, ta_node_field(bound, "right"), w, at, 0))
		bound = ta_node_unparen(ta_node_field(bound, "left"));
	if (!ta_node_is(bound, "identifier"))
		return (TSNode){ 0 };
	char *name = ta_node_text(c->m->src, bound);
	const ta_param *p = ta_kernel_param(c->k, name);
	free(name);
	return p && !p->constexpr_ ? bound : (TSNode){ 0 };
}

/* Whether `x < bound` passes every lane because the wrapper asserts that
 * bound's parameter is a multiple of every value of the tile x is built
 * from; the first such assert is kept in *as, later ones go to why. */
static bool below_by_assert(ta_rule_ctx *c, d11_assert *as, TSNode x, TSNode bound, uint32_t at, ta_buf *why)
{
	if (!as)
		return false;
	TSNode w = tile_of(c, x, at, 0);
	if (ts_node_is_null(w) || !ta_node_is(w, "identifier"))
		return false;
	TSNode p = bound_param(c, bound, w, at);
	if (ts_node_is_null(p))
		return false;
	char *pname = ta_node_text(c->m->src, p), *tile = ta_node_text(c->m->src, w);
	char *arg = launch_arg_for(c, as->l, pname);
	const ta_host_op *op = arg ? covering_assert(c, as->l, arg, tile) : NULL;
	if (op && !as->op) {
		as->op = op;
		as->arg = arg;
		as->tile = tile;
		arg = tile = NULL;
	} else if (op) {
		char *cond = asserted_condition(op->text, arg);
		add_reason(why, "`%s` (line %u) covers tl.arange(0, %s)", cond, op->span.line, tile);
		free(cond);
	}
	free(pname);
	free(tile);
	free(arg);
	return op != NULL;
}

/* Whether every lane of mask m passes at `at`: each term joined by `&` is
 * `x < bound` (or `bound > x`, given axes or not) that below_always holds,
 * or, with as, that a host assert covers (below_by_assert); a name bound
 * once stands for its value. */
static bool mask_always(ta_rule_ctx *c, const d11_returns *r, TSNode m, uint32_t at, ta_buf *why, int depth,
			d11_assert *as)
{
	m = ta_node_unparen(m);
	if (depth > 8 || ts_node_is_null(m))
		return false;
	if (ta_node_is(m, "identifier")) {
		char *name = ta_node_text(c->m->src, m);
		TSNode v = sole_binding(c, name, at);
		free(name);
		return !ts_node_is_null(v) && mask_always(c, r, v, ts_node_start_byte(v), why, depth + 1, as);
	}
	if (ta_node_is(m, "subscript")) {
		TSNode v = given_axes_of(m);
		return !ts_node_eq(v, m) && mask_always(c, r, v, at, why, depth + 1, as);
	}
	if (ta_node_is(m, "binary_operator")) {
		TSNode o = ta_node_field(m, "operator");
		return ta_node_text_eq(c->m->src, o, "&") &&
		       mask_always(c, r, ta_node_field(m, "left"), at, why, depth + 1, as) &&
		       mask_always(c, r, ta_node_field(m, "right"), at, why, depth + 1, as);
	}
	if (!ta_node_is(m, "comparison_operator") || ta_node_named_count(m) != 2 || ts_node_child_count(m) != 3)
		return false;
	const char *op = ts_node_type(ts_node_child(m, 1));
	TSNode a = ta_node_named_child(m, 0), z = ta_node_named_child(m, 1);
	if (!strcmp(op, "<"))
		return below_always(c, r, a, z, at, why) || below_by_assert(c, as, a, z, at, why);
	if (!strcmp(op, ">"))
		return below_always(c, r, z, a, at, why) || below_by_assert(c, as, z, a, at, why);
	return false;
}

/* The loads and stores of k whose mask passes every lane by itself
 * (mask_always): reported with the reason; true when there was one. */
static bool d11_masks_always_true(ta_rule_ctx *c, const d11_returns *r, const bool *reported)
{
	bool found = false;
	for (size_t i = 0; i < c->k->op_count; i++) {
		const ta_op *op = &c->k->ops[i];
		if ((op->kind != TA_OP_LOAD && op->kind != TA_OP_STORE) || !op->has_mask || reported[i])
			continue;
		const ta_kwarg *mk = ta_kwarg_find(op->kwargs, op->kwarg_count, "mask");
		ta_span ms = mk ? mk->value_span : op->args[op->kind == TA_OP_STORE ? 2 : 1];
		if (ms.end <= ms.start)
			continue;
		ta_buf why = { 0 };
		if (mask_always(c, r, ta_rule_node(c, ms), op->span.start, &why, 0, NULL)) {
			char *mask = ta_rule_text(c, ms);
			bool other = ta_kwarg_find(op->kwargs, op->kwarg_count, "other") ||
				     (op->kind == TA_OP_LOAD && op->arg_count > 2);
			ta_rule_add(c, op->span, "masked with `%s`, which every lane passes (%s): the mask%s can go, "
				    "the %s the same without it", mask, why.data, other ? " and its other=" : "",
				    op->kind == TA_OP_LOAD ? "load reads" : "store writes");
			free(mask);
			found = true;
		}
		ta_buf_free(&why);
	}
	return found;
}

/* The loads and stores of k whose every mask term passes, some of them by
 * the wrapper's assert that a size is a multiple of the tile (a mask with
 * one term no assert covers, `offs_m < M` beside a covered `offs_k < K`,
 * can clear lanes, and is no D11): reported with the first assert, and
 * marked in reported[]. */
static bool d11_masks_asserted(ta_rule_ctx *c, const d11_returns *r, bool *reported)
{
	bool found = false;
	for (size_t i = 0; i < c->k->op_count; i++) {
		const ta_op *op = &c->k->ops[i];
		if ((op->kind != TA_OP_LOAD && op->kind != TA_OP_STORE) || !op->has_mask)
			continue;
		const ta_kwarg *mk = ta_kwarg_find(op->kwargs, op->kwarg_count, "mask");
		ta_span ms = mk ? mk->value_span : op->args[op->kind == TA_OP_STORE ? 2 : 1];
		TSNode mn = ta_node_unparen(ta_rule_node(c, ms));
		/* a mask bound to a name first (`q_mask = offs_m[:, None] < N`)
		 * is shown as its value */
		ta_span shown = ms;
		if (ta_node_is(mn, "identifier")) {
			char *name = ta_node_text(c->m->src, mn);
			TSNode v = sole_binding(c, name, op->span.start);
			free(name);
			if (!ts_node_is_null(v))
				shown = (ta_span){ .start = ts_node_start_byte(v), .end = ts_node_end_byte(v) };
		}
		ta_launch_walk walk = ta_index_launch_walk(c->m, c->kernel);
		for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
			if (l->host < 0)
				continue;
			d11_assert as = { .l = l };
			ta_buf why = { 0 };
			bool full = mask_always(c, r, mn, op->span.start, &why, 0, &as) && as.op;
			if (full) {
				char *mask = ta_rule_text(c, shown);
				char *cond = asserted_condition(as.op->text, as.arg);
				ta_finding *f = ta_rule_add(c, op->span, "masked with `%s` although `%s` asserts `%s` at "
							    "line %u, a multiple of every value of %s, the width of "
							    "tl.arange(0, %s)%s%s: the mask never clears a lane",
							    mask, c->m->hosts[l->host].name, cond, as.op->span.line,
							    as.tile, as.tile, why.len ? ", and " : "", why.len ? why.data : "");
				ta_finding_line(f, as.op->span.line);
				free(cond);
				free(mask);
				reported[i] = true;
				found = true;
			}
			free(as.arg);
			free(as.tile);
			ta_buf_free(&why);
			if (full)
				break;
		}
	}
	return found;
}

ta_status ta_detect_d11(ta_rule_ctx *c)
{
	d11_returns r;
	early_returns(c, &r);
	bool *reported = ta_xcalloc(c->k->op_count ? c->k->op_count : 1, sizeof *reported);
	bool found = d11_masks_asserted(c, &r, reported);
	found |= d11_masks_always_true(c, &r, reported);
	free(reported);
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}
