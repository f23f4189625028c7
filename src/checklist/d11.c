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

/* The constexpr parameter of the kernel that the launch gives `d` (the
 * divisor of an assert), when the kernel builds a tile from it with
 * tl.arange(0, P); NULL otherwise. */
static const ta_param *tile_param_given(const ta_rule_ctx *c, const ta_launch *l, const char *d)
{
	for (size_t p = 0; p < c->k->param_count; p++) {
		const ta_param *pr = &c->k->params[p];
		if (!pr->constexpr_)
			continue;
		char *v = launch_arg_for(c, l, pr->name);
		bool same = v && !strcmp(v, d);
		free(v);
		if (!same)
			continue;
		char *pat = ta_xasprintf("arange(0, %s)", pr->name);
		bool tile = ta_rule_contains(c, c->k->body_span, pat);
		free(pat);
		if (tile)
			return pr;
	}
	/* A literal divisor covers a tuned tile when every value it takes
	 * (configs, launch keywords) divides it: `S % 128 == 0` with BLOCK_M
	 * in {64, 128}. */
	char *end;
	long dv = strtol(d, &end, 10);
	if (*end || dv <= 0)
		return NULL;
	for (size_t p = 0; p < c->k->param_count; p++) {
		const ta_param *pr = &c->k->params[p];
		long vals[32];
		size_t nv = pr->constexpr_ ? ta_rule_param_values(c, pr->name, vals, 32) : 0;
		bool all = nv > 0;
		for (size_t i = 0; i < nv && all; i++)
			all = vals[i] > 0 && dv % vals[i] == 0;
		char *pat = ta_xasprintf("arange(0, %s)", pr->name);
		bool tile = all && ta_rule_contains(c, c->k->body_span, pat);
		free(pat);
		if (tile)
			return pr;
	}
	return NULL;
}

/* The host's assert that `a` is a multiple of a tile of the kernel: its op,
 * with the tile parameter in *tile; NULL when there is none. */
static const ta_host_op *divisible_assert(const ta_rule_ctx *c, const ta_launch *l, const char *a,
					  const ta_param **tile)
{
	const ta_host *h = &c->m->hosts[l->host];
	size_t n;
	const uint32_t *asserts = ta_rule_host_ops(c, l->host, TA_HOST_ASSERT, &n);
	for (size_t i = 0; i < n; i++) {
		const ta_host_op *op = &h->ops[asserts[i]];
		if (!op->text)
			continue;
		char *d = asserted_divisor(op->text, a);
		*tile = d ? tile_param_given(c, l, d) : NULL;
		free(d);
		if (*tile)
			return op;
	}
	return NULL;
}

/* True when the mask at ms compares offsets built from tl.arange(0, tile):
 * the arange itself or a name assigned from it. */
static bool mask_on_tile(ta_rule_ctx *c, ta_span ms, const char *tile)
{
	char *pat = ta_xasprintf("arange(0, %s)", tile);
	bool on = ta_rule_contains(c, ms, pat);
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	for (size_t i = 0; i < n && !on; i++)
		on = as[i].rhs.end <= ms.start && ta_rule_contains(c, as[i].rhs, pat) &&
		     ta_rule_mentions(c, ms, as[i].name);
	free(pat);
	return on;
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

/* Whether every lane of mask m passes at `at`: each term joined by `&` is
 * `x < bound` (or `bound > x`, given axes or not) that below_always holds;
 * a name bound once stands for its value. */
static bool mask_always(ta_rule_ctx *c, const d11_returns *r, TSNode m, uint32_t at, ta_buf *why, int depth)
{
	m = ta_node_unparen(m);
	if (depth > 8 || ts_node_is_null(m))
		return false;
	if (ta_node_is(m, "identifier")) {
		char *name = ta_node_text(c->m->src, m);
		TSNode v = sole_binding(c, name, at);
		free(name);
		return !ts_node_is_null(v) && mask_always(c, r, v, ts_node_start_byte(v), why, depth + 1);
	}
	if (ta_node_is(m, "subscript")) {
		TSNode v = given_axes_of(m);
		return !ts_node_eq(v, m) && mask_always(c, r, v, at, why, depth + 1);
	}
	if (ta_node_is(m, "binary_operator")) {
		TSNode o = ta_node_field(m, "operator");
		return ta_node_text_eq(c->m->src, o, "&") &&
		       mask_always(c, r, ta_node_field(m, "left"), at, why, depth + 1) &&
		       mask_always(c, r, ta_node_field(m, "right"), at, why, depth + 1);
	}
	if (!ta_node_is(m, "comparison_operator") || ta_node_named_count(m) != 2 || ts_node_child_count(m) != 3)
		return false;
	const char *op = ts_node_type(ts_node_child(m, 1));
	TSNode a = ta_node_named_child(m, 0), z = ta_node_named_child(m, 1);
	if (!strcmp(op, "<"))
		return below_always(c, r, a, z, at, why);
	if (!strcmp(op, ">"))
		return below_always(c, r, z, a, at, why);
	return false;
}

/* The loads and stores of k whose mask passes every lane by itself
 * (mask_always): reported with the reason; true when there was one. */
static bool d11_masks_always_true(ta_rule_ctx *c, uint32_t reported_at)
{
	bool found = false;
	d11_returns r;
	early_returns(c, &r);
	for (size_t i = 0; i < c->k->op_count; i++) {
		const ta_op *op = &c->k->ops[i];
		if ((op->kind != TA_OP_LOAD && op->kind != TA_OP_STORE) || !op->has_mask ||
		    (reported_at && op->span.start + 1 == reported_at))
			continue;
		const ta_kwarg *mk = ta_kwarg_find(op->kwargs, op->kwarg_count, "mask");
		ta_span ms = mk ? mk->value_span : op->args[op->kind == TA_OP_STORE ? 2 : 1];
		if (ms.end <= ms.start)
			continue;
		ta_buf why = { 0 };
		if (mask_always(c, &r, ta_rule_node(c, ms), op->span.start, &why, 0)) {
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

ta_status ta_detect_d11(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	bool found = false;
	uint32_t reported_at = 0;   /* the op the assert's finding names, + 1 */
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if ((op->kind != TA_OP_LOAD && op->kind != TA_OP_STORE) || !op->has_mask)
			continue;
		const ta_kwarg *mk = ta_kwarg_find(op->kwargs, op->kwarg_count, "mask");
		ta_span ms = mk ? mk->value_span : op->args[op->kind == TA_OP_STORE ? 2 : 1];
		/* a mask bound to a name first (`q_mask = offs_m[:, None] < N`)
		 * is that value */
		TSNode mn = ta_node_unparen(ta_rule_node(c, ms));
		if (ta_node_is(mn, "identifier")) {
			char *name = ta_node_text(c->m->src, mn);
			TSNode v = sole_binding(c, name, op->span.start);
			free(name);
			if (!ts_node_is_null(v))
				ms = (ta_span){ .start = ts_node_start_byte(v), .end = ts_node_end_byte(v) };
		}
		for (size_t p = 0; p < k->param_count && !found; p++) {
			const ta_param *pr = &k->params[p];
			if (pr->constexpr_ || !ta_rule_mentions(c, ms, pr->name))
				continue;
			ta_launch_walk walk = ta_index_launch_walk(c->m, c->kernel);
			for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
				if (l->host < 0)
					continue;
				char *a = launch_arg_for(c, l, pr->name);
				const ta_param *tile = NULL;
				const ta_host_op *as = a ? divisible_assert(c, l, a, &tile) : NULL;
				if (as && !mask_on_tile(c, ms, tile->name))
					as = NULL;
				if (as) {
					reported_at = op->span.start + 1;
					char *mask = ta_rule_text(c, ms);
					char *cond = asserted_condition(as->text, a);
					ta_finding *f = ta_rule_add(c, op->span, "masked with `%s` although `%s` asserts "
								    "`%s` at line %u, a multiple of every value of %s, the width of "
								    "tl.arange(0, %s): the mask never clears a lane",
								    mask, c->m->hosts[l->host].name, cond, as->span.line,
								    tile->name, tile->name);
					free(cond);
					ta_finding_line(f, as->span.line);
					free(mask);
					found = true;
				}
				free(a);
				if (found)
					break;
			}
		}
	}
	found |= d11_masks_always_true(c, reported_at);
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}
