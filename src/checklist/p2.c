/* P2: Masked K loop where K divides evenly. Its detector and its rewrite. */
#include "config.h"
#include "analyze/values.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A divisibility flag: EVEN_K, EVEN_N, DIVISIBLE_K, K_DIVISIBLE, IS_EVEN_K. */
static bool even_flag_name(const char *n)
{
	return !strncasecmp(n, "EVEN", 4) || strcasestr(n, "DIVISIBLE") || strcasestr(n, "_EVEN");
}

static bool has_even_guard(const ta_kernel *k)
{
	for (size_t i = 0; i < k->heuristic_count; i++)
		if (even_flag_name(k->heuristics[i].name))
			return true;
	for (size_t i = 0; i < k->param_count; i++)
		if (k->params[i].constexpr_ && even_flag_name(k->params[i].name))
			return true;
	return false;
}

/* A reduction loop: it holds a dot or an accumulation `x += ...`. */
static bool is_reduction_loop(ta_rule_ctx *c, int l)
{
	size_t first, end = ta_loop_ops(c->k, l, &first);
	for (size_t i = first; i < end; i++)
		if (c->k->ops[i].kind == TA_OP_DOT && c->k->ops[i].loop == l)
			return true;
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	end = ta_rule_assigns_within(as, n, c->k->loops[l].span, &first);
	for (size_t i = first; i < end; i++)
		if (as[i].loop == l && as[i].augmented)
			return true;
	return false;
}

static bool while_range(const ta_model *m, const ta_loop *lp, TSNode *stop, TSNode *step);

/* The mask of a load (keyword or second positional argument); empty span
 * when it has none. */
static ta_span load_mask(const ta_op *op)
{
	const ta_kwarg *m = ta_kwarg_find(op->kwargs, op->kwarg_count, "mask");
	if (m)
		return m->value_span;
	return op->arg_count >= 2 ? op->args[1] : (ta_span){ 0 };
}

/* The right side of the last `name = ...` in the kernel before off. */
static TSNode last_assign(const ta_model *m, TSNode within, const char *name, uint32_t off);

/* name is the loop's variable or assigned inside the loop (an offset the
 * loop advances: `offs_k += BLOCK_K`). */
static bool moves_in_loop(const ta_model *m, const ta_loop *lp, TSNode loop, const char *name)
{
	if (lp->var && !strcmp(name, lp->var))
		return true;
	size_t first, n = ta_model_refs_within(m->assign_nodes, m->assign_node_count, loop, &first);
	for (size_t i = first; i < first + n; i++) {
		TSNode l = ta_node_field(m->assign_nodes[i].node, "left");
		if (ta_node_is(l, "identifier") && ta_node_text_eq(m->src, l, name))
			return true;
	}
	return false;
}

/* n reads something that moves with the loop. */
static bool reads_moving(const ta_model *m, const ta_loop *lp, TSNode loop, TSNode n)
{
	char **v;
	size_t c = ta_edits_names(m, n, &v);
	bool hit = false;
	for (size_t i = 0; i < c && !hit; i++)
		hit = moves_in_loop(m, lp, loop, v[i]);
	ta_edits_names_free(v, c);
	return hit;
}

/* n (or, two levels down, a local assigned inside the loop that it reads)
 * steps ahead of the loop's current tile: a sum of a bare constexpr
 * parameter and something that moves with the loop (`offs_k + BLOCK_K`),
 * or one more step of the loop variable (`(kb + 1) * BLOCK_K`). A bound
 * computed before the loop (`end = start_m + BLOCK_M`) is not a step. */
static bool steps_ahead(const ta_model *m, const ta_kernel *k, const ta_loop *lp, TSNode loop, TSNode n,
			uint32_t at, int depth)
{
	if (ts_node_is_null(n))
		return false;
	if (ta_node_is(n, "identifier")) {
		char *t = ta_node_text(m->src, n);
		bool hit = false;
		if (depth < 2 && !ta_kernel_param(k, t) && (!lp->var || strcmp(t, lp->var))) {
			TSNode rhs = last_assign(m, k->node, t, at);
			hit = !ts_node_is_null(rhs) && ts_node_start_byte(rhs) > lp->span.start &&
			      ts_node_start_byte(rhs) < lp->span.end &&
			      steps_ahead(m, k, lp, loop, rhs, ts_node_start_byte(rhs), depth + 1);
		}
		free(t);
		return hit;
	}
	if (ta_node_is(n, "binary_operator") && ta_node_text_eq(m->src, ta_node_field(n, "operator"), "+")) {
		TSNode a = ta_node_unparen(ta_node_field(n, "left")), b = ta_node_unparen(ta_node_field(n, "right"));
		for (int i = 0; i < 2; i++) {
			TSNode x = i ? b : a, y = i ? a : b;
			if (ta_node_is(x, "identifier")) {
				char *t = ta_node_text(m->src, x);
				const ta_param *p = ta_kernel_param(k, t);
				free(t);
				if (p && p->constexpr_ && reads_moving(m, lp, loop, y))
					return true;
			}
			if (ta_node_is(x, "integer") && ta_node_text_eq(m->src, x, "1") && lp->var &&
			    ta_node_contains_identifier(m->src, y, lp->var))
				return true;
		}
	}
	uint32_t c = ta_node_named_count(n);
	for (uint32_t i = 0; i < c; i++)
		if (steps_ahead(m, k, lp, loop, ta_node_named_child(n, i), at, depth))
			return true;
	return false;
}

/* A load of loop l that reads ahead of the current tile (a prefetch of the
 * next block): under an `if` inside the loop that tests the loop variable
 * (`if k + 1 < num_k:`), or masked by a bound that steps ahead. Its mask
 * guards the next block, which EVEN_K does not make whole. */
static bool p2_lookahead(const ta_model *m, const ta_kernel *k, const ta_op *op, int l)
{
	const ta_loop *lp = &k->loops[l];
	TSNode n = ta_edits_node(m, op->span);
	for (TSNode a = ta_node_parent(n); !ts_node_is_null(a) && ts_node_start_byte(a) > lp->span.start;
	     a = ta_node_parent(a))
		if (ta_node_is(a, "if_statement") && lp->var &&
		    ta_node_contains_identifier(m->src, ta_node_field(a, "condition"), lp->var))
			return true;
	const ta_kwarg *mk = ta_kwarg_find(op->kwargs, op->kwarg_count, "mask");
	ta_span ms = mk ? mk->value_span : op->arg_count >= 2 ? op->args[1] : (ta_span){ 0 };
	if (!ms.end)
		return false;
	TSNode loop = ta_edits_node(m, lp->span);
	if (ts_node_is_null(loop))
		return false;
	return steps_ahead(m, k, lp, loop, ta_edits_node(m, ms), op->span.start, 0);
}

/* Under an `if` (either branch) that tests a divisibility flag, or in a
 * kernel with any parameter so named (constexpr or not): the kernel already
 * splits the divisible case, and this load is its remainder path. */
static bool under_even_flag(const ta_rule_ctx *c, const ta_op *op)
{
	const ta_kernel *k = c->k;
	for (size_t i = 0; i < k->param_count; i++)
		if (even_flag_name(k->params[i].name))
			return true;
	TSNode n = ta_edits_node(c->m, op->span);
	for (TSNode a = ta_node_parent(n); !ts_node_is_null(a) && ts_node_start_byte(a) > k->body_span.start;
	     a = ta_node_parent(a)) {
		if (!ta_node_is(a, "if_statement") && !ta_node_is(a, "conditional_expression"))
			continue;
		char **v;
		size_t nv = ta_edits_names(c->m, ta_node_is(a, "if_statement") ? ta_node_field(a, "condition") : a, &v);
		bool hit = false;
		for (size_t i = 0; i < nv && !hit; i++)
			hit = even_flag_name(v[i]);
		ta_edits_names_free(v, nv);
		if (hit)
			return true;
	}
	return false;
}

/* A while loop that steps a counter like a range (`start = 0; while start
 * < N: ... start += BN`): its bound and step, and true. The counter is
 * bound once before the loop, to 0, and rebound once directly in its body
 * (ta_values_induction); the test compares it with the bound, either way
 * round. */
static bool while_range(const ta_model *m, const ta_loop *lp, TSNode *stop, TSNode *step)
{
	if (lp->kind != TA_LOOP_WHILE)
		return false;
	TSNode test = ta_node_unparen(ta_edits_node(m, lp->iter));
	if (!ta_node_is(test, "comparison_operator") || ts_node_named_child_count(test) != 2)
		return false;
	TSNode op = ts_node_child(test, 1);
	TSNode a = ts_node_named_child(test, 0), b = ts_node_named_child(test, 1);
	bool lt = ta_node_is(op, "<"), gt = ta_node_is(op, ">");
	if (!lt && !gt)
		return false;
	TSNode var = lt ? a : b, bound = lt ? b : a;
	if (!ta_node_is(var, "identifier"))
		return false;
	TSNode stmt = ta_edits_node(m, lp->span);
	if (!ta_node_is(stmt, "while_statement"))
		stmt = ta_node_ancestor(test, "while_statement");
	char *name = ta_node_text(m->src, var);
	TSNode init = { 0 }, st = { 0 }, update = { 0 };
	bool ind = !ts_node_is_null(stmt) && ta_values_induction(m, stmt, name, &init, &st, &update);
	free(name);
	long v;
	if (!ind || ts_node_is_null(init) || !ta_values_int(m, init, &v) || v != 0)
		return false;
	*stop = bound;
	*step = st;
	return true;
}

/* The extent loop l walks, as the name its bound reads: `K` for
 * range(0, K, BK), range(0, tl.cdiv(K, BK)) and range(n) where
 * `n = tl.cdiv(K, BK * SPLIT_K)`; a null node when it is no plain name. */
static TSNode loop_extent(ta_rule_ctx *c, int l)
{
	const ta_loop *lp = &c->k->loops[l];
	TSNode it = ta_rule_node(c, lp->iter);
	TSNode args = ta_node_field(it, "arguments");
	uint32_t n = ta_node_named_count(args);
	TSNode a, wstep;
	if (while_range(c->m, lp, &a, &wstep))
		;
	else if (!ta_node_is(it, "call") || n == 0 || n > 3)
		return (TSNode){ 0 };
	else
		a = ta_node_named_child(args, n == 1 ? 0 : 1);
	TSNode b = ta_values_follow(c->m, a);
	if (ta_node_is(b, "call") && ta_call_named(c->m, b, "cdiv"))
		b = ta_values_follow(c->m, ta_node_named_child(ta_node_field(b, "arguments"), 0));
	/* a name bound to a computed size (`in_group_dim = in_feat_dim //
	 * groups`) is the extent by that name */
	if (!ta_node_is(b, "identifier") && ta_node_is(ta_node_unparen(a), "identifier"))
		b = ta_node_unparen(a);
	return ta_node_is(b, "identifier") ? b : (TSNode){ 0 };
}

typedef struct extent_find {
	ta_rule_ctx *c;
	int loop;
	char *ext;                /* the extent's name */
	bool compared;            /* a comparison that moves with the loop was met */
	bool found;
} extent_find;

/* Reads the extent, not divided (`K // group_size` counts groups). */
static ta_values_step reads_extent(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	extent_find *x = ctx;
	if (ta_node_is(n, "binary_operator")) {
		TSNode op = ta_node_field(n, "operator");
		if (ta_node_text_eq(m->src, op, "//") || ta_node_text_eq(m->src, op, "/") ||
		    ta_node_text_eq(m->src, op, "%"))
			return TA_VALUES_SKIP;
	}
	if (ta_node_is(n, "identifier") && ta_node_text_eq(m->src, n, x->ext)) {
		x->found = true;
		return TA_VALUES_STOP;
	}
	return TA_VALUES_DESCEND;
}

/* A comparison that moves with the loop and bounds by the extent. */
static ta_values_step compares_extent(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	extent_find *x = ctx;
	if (!ta_node_is(n, "comparison_operator") || ta_node_named_count(n) != 2)
		return TA_VALUES_DESCEND;
	if (!ta_rule_varies_in_loop(x->c, ta_span_of(m->src, n), x->loop))
		return TA_VALUES_SKIP;
	x->compared = true;
	for (uint32_t side = 0; side < 2 && !x->found; side++)
		ta_values_walk(m, ta_node_named_child(n, side), reads_extent, x);
	return x->found ? TA_VALUES_STOP : TA_VALUES_SKIP;
}

/* Whether op's mask, followed through the names it reads, bounds the tile
 * by loop l's own extent (`offs_k < K`, `offs_k[None, :] < K - k * BK`):
 * the mask EVEN_K lets go. A mask over another dimension that also moves
 * with the loop (a group's row, `(k * BK) // group_size < K // group_size`)
 * stays. Unknown extent, or a mask whose comparisons cannot be followed
 * (a name bound in both branches of an if): assumed. */
static bool mask_bounds_extent(ta_rule_ctx *c, const ta_op *op, int l)
{
	TSNode ext = loop_extent(c, l);
	if (ts_node_is_null(ext))
		return true;
	extent_find x = { .c = c, .loop = l, .ext = ta_node_text(c->m->src, ext) };
	ta_values_walk(c->m, ta_rule_node(c, load_mask(op)), compares_extent, &x);
	free(x.ext);
	return x.found || !x.compared;
}

/* The values the name id is given by the plain bindings in its function
 * that start before `before` (each arm's, for a name bound in two): up
 * to max, into out. */
static size_t values_before(ta_rule_ctx *c, TSNode id, uint32_t before, TSNode *out, size_t max)
{
	TSNode fn = ta_node_ancestor(id, "function_definition");
	char *name = ta_node_text(c->m->src, id);
	size_t nb, n = 0;
	const ta_values_binding *d = ta_values_bindings(c->m, fn, name, strlen(name), &nb);
	free(name);
	for (size_t i = 0; i < nb && n < max; i++)
		if (!d[i].mutation && ta_node_is(d[i].binding, "assignment") && ts_node_start_byte(d[i].binding) < before)
			out[n++] = ta_node_field(d[i].binding, "right");
	return n;
}

/* What a mask term's value reads of loop l: its variable, or a name the
 * loop steps (`k_left -= BK`). */
typedef struct step_read {
	ta_rule_ctx *c;
	int l;
	bool found;
} step_read;

static ta_values_step reads_step(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	step_read *r = ctx;
	if (!ta_node_is(n, "identifier"))
		return TA_VALUES_DESCEND;
	const ta_loop *lp = &r->c->k->loops[r->l];
	char *name = ta_node_text(m->src, n);
	r->found = lp->var && !strcmp(name, lp->var);
	size_t na, first;
	const ta_assign *as = ta_rule_assigns(r->c, &na);
	size_t end = ta_rule_assigns_within(as, na, lp->span, &first);
	for (size_t i = first; i < end && !r->found; i++)
		r->found = as[i].augmented && !strcmp(as[i].name, name);
	free(name);
	return r->found ? TA_VALUES_STOP : TA_VALUES_DESCEND;
}

/* Whether the comparison n moves with loop l: bound in the loop, and its
 * value reads the loop's variable or a name the loop steps. A term bound
 * in the loop from outer loops' variables alone (a convolution's
 * `h - pad + stride * offs` inside its channel loop) stays as it is for
 * every pass of l. */
static bool moves_with(ta_rule_ctx *c, TSNode n, int l)
{
	ta_span s = { .start = ts_node_start_byte(n), .end = ts_node_end_byte(n) };
	if (!ta_rule_varies_in_loop(c, s, l))
		return false;
	step_read r = { .c = c, .l = l };
	ta_values_walk(c->m, n, reads_step, &r);
	return r.found;
}

/* The comparisons a load's mask is made of (through the kernel's names,
 * each binding of a name bound in two arms): whether some move with loop
 * l (the K bound) and some do not (a row or column bound, `mask_m`). */
static void mask_parts(ta_rule_ctx *c, TSNode n, int l, uint32_t before, int depth, bool *moving, bool *fixed)
{
	n = ta_node_unparen(n);
	/* deep enough for a chain of a dozen terms joined by & (a
	 * convolution's bounds on batch, channels, height and width) */
	if (ts_node_is_null(n) || depth > 24)
		return;
	if (ta_node_is(n, "comparison_operator")) {
		*(moves_with(c, n, l) ? moving : fixed) = true;
		return;
	}
	if (ta_node_is(n, "identifier")) {
		TSNode v[8];
		size_t nv = values_before(c, n, before, v, 8);
		for (size_t i = 0; i < nv; i++)
			mask_parts(c, v[i], l, before, depth + 1, moving, fixed);
		return;
	}
	for (uint32_t i = 0; i < ta_node_named_count(n); i++)
		mask_parts(c, ta_node_named_child(n, i), l, before, depth + 1, moving, fixed);
}

/* The left-most kernel parameter in n that stays fixed in loop l: the
 * bound of `offs < L - start` is L. */
static const ta_param *fixed_param(ta_rule_ctx *c, TSNode n, int l)
{
	n = ta_node_unparen(n);
	if (ts_node_is_null(n))
		return NULL;
	if (ta_node_is(n, "identifier")) {
		char *name = ta_node_text(c->m->src, n);
		const ta_param *p = ta_kernel_param(c->k, name);
		free(name);
		ta_span s = { .start = ts_node_start_byte(n), .end = ts_node_end_byte(n) };
		return p && !ta_rule_varies_in_loop(c, s, l) ? p : NULL;
	}
	if (ta_node_is(n, "call") || ta_node_is(n, "attribute") || ta_node_is(n, "subscript"))
		return NULL;
	for (uint32_t i = 0; i < ta_node_named_count(n); i++) {
		const ta_param *p = fixed_param(c, ta_node_named_child(n, i), l);
		if (p)
			return p;
	}
	return NULL;
}

/* The parameter the mask of op bounds the loop's offsets by (`K` of
 * `offs_k < K - k * BLOCK_K`, `L` of `n_mask = offs_n < L - idx * BLOCK_N`),
 * through the kernel's names bound before op; NULL when none is found. */
static const ta_param *masked_bound(ta_rule_ctx *c, TSNode n, int l, uint32_t before, int depth)
{
	n = ta_node_unparen(n);
	if (ts_node_is_null(n) || depth > 6)
		return NULL;
	if (ta_node_is(n, "comparison_operator")) {
		ta_span s = { .start = ts_node_start_byte(n), .end = ts_node_end_byte(n) };
		if (ta_node_named_count(n) != 2 || !ta_rule_varies_in_loop(c, s, l))
			return NULL;
		char *op = ta_node_text(c->m->src, ts_node_child(n, 1));
		bool upper = !strcmp(op, "<") || !strcmp(op, "<=");
		bool lower = !strcmp(op, ">") || !strcmp(op, ">=");
		free(op);
		return upper ? fixed_param(c, ta_node_named_child(n, 1), l)
		       : lower ? fixed_param(c, ta_node_named_child(n, 0), l) : NULL;
	}
	if (ta_node_is(n, "identifier")) {
		TSNode v[8];
		size_t nv = values_before(c, n, before, v, 8);
		for (size_t i = 0; i < nv; i++) {
			const ta_param *p = masked_bound(c, v[i], l, before, depth + 1);
			if (p)
				return p;
		}
		return NULL;
	}
	if (ta_node_is(n, "call") || ta_node_is(n, "subscript")) {
		/* `mask[:, None]` and `(a < b)[None, :]` keep their comparison */
		if (ta_node_is(n, "subscript"))
			return masked_bound(c, ta_node_field(n, "value"), l, before, depth + 1);
		return NULL;
	}
	for (uint32_t i = 0; i < ta_node_named_count(n); i++) {
		const ta_param *p = masked_bound(c, ta_node_named_child(n, i), l, before, depth + 1);
		if (p)
			return p;
	}
	return NULL;
}

/* Whether the mask of op also bounds another axis, which no EVEN_K flag
 * lifts (`mask_m[:, None] & mask_k[None, :]`). */
static bool mask_bounds_other_axis(ta_rule_ctx *c, const ta_op *op, int l)
{
	bool moving = false, fixed = false;
	mask_parts(c, ta_rule_node(c, load_mask(op)), l, op->span.start, 0, &moving, &fixed);
	return moving && fixed;
}

/* Bounds that are rarely a multiple of a tile: sequence and context
 * lengths, token and row counts, vocabularies, and per-sequence ends. */
static bool ragged_bound_name(const char *t)
{
	/* by the words of its names (split at '_'), not by substring:
	 * `hidden_size` holds "n_" and is no count of rows */
	static const char *const starts[] = { "seq", "ctx", "len", "vocab", "token", "row", "batch", "end", "start", NULL };
	static const char *const whole[] = { "cu", "num", "n", NULL };
	for (const char *p = t; *p;) {
		if (!(isalnum((unsigned char)*p) || *p == '_')) {
			p++;
			continue;
		}
		const char *e = p;
		while (isalnum((unsigned char)*e))
			e++;
		size_t n = (size_t)(e - p);
		for (size_t i = 0; starts[i] && n; i++)
			if (n >= strlen(starts[i]) && !strncasecmp(p, starts[i], strlen(starts[i])))
				return true;
		/* `n_tokens`, `in_n`, `num_rows`: a word of a longer name (a bare
		 * N or K is a dimension) */
		bool part = *e == '_' || (p > t && p[-1] == '_');
		for (size_t i = 0; whole[i] && n && part; i++)
			if (n == strlen(whole[i]) && !strncmp(p, whole[i], n))
				return true;
		p = *e == '_' ? e + 1 : e;
	}
	return false;
}

/* Short names that count time or sequence positions in the wild (fla's T,
 * NT chunks, L, S). */
static bool ragged_exact_name(const char *t)
{
	static const char *const names[] = { "T", "NT", "L", "S", "NS", "N_CTX", NULL };
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(t, names[i]))
			return true;
	return false;
}

/* Without a tl.dot, a bound named as a reduction or model dimension (K,
 * `dim`, `HEAD_DIM`, `hidden_size`), as is or inside tl.cdiv(NAME, ...). */
static bool reduction_dim_name(const char *bound)
{
	static const char *const names[] = {
		"K", "k", "D", "HEAD_DIM", "head_dim", "dim", "DIM", "hidden", "hidden_dim", "hidden_size",
		"HIDDEN", "HIDDEN_DIM", "HIDDEN_SIZE", "in_features", "IN_FEATURES", NULL,
	};
	for (size_t i = 0; names[i]; i++) {
		size_t n = strlen(names[i]);
		if (!strcmp(bound, names[i]) ||
		    (!strncmp(bound, "tl.cdiv(", 8) && !strncmp(bound + 8, names[i], n) && bound[8 + n] == ','))
			return true;
	}
	return false;
}

/* Whether loop l's extent is a K-like dimension the checklist means: the
 * loop feeds a tl.dot, its bound is a kernel parameter (not a value loaded or computed per program:
 * the rows of a gather, a sequence's end), not one named like a length,
 * and the loop is not attention's K/V loop (sequence lengths). */
static bool k_like_bound(ta_rule_ctx *c, const char *bound, int dots);

static bool k_like_loop(ta_rule_ctx *c, int l)
{
	const ta_loop *lp = &c->k->loops[l];
	/* A matmul's K loop: its bound is a reduction dimension (hidden sizes,
	 * head dimensions), which models keep to multiples of the tile. A
	 * row-wise reduction's bound (classes, spatial sizes, lengths) often
	 * is not, and attention's K/V loop walks the sequence. */
	int dots = ta_rule_dots_in_loop(c->k, l);
	if (c->attention && dots >= 2)
		return false;
	TSNode wstop, wstep;
	if (while_range(c->m, lp, &wstop, &wstep)) {
		char *bound = ta_node_text(c->m->src, ta_values_follow(c->m, wstop));
		bool like = k_like_bound(c, bound, dots);
		free(bound);
		return like;
	}
	if ((lp->kind != TA_LOOP_RANGE && lp->kind != TA_LOOP_TL_RANGE) || !lp->arg_count)
		return false;
	/* the bound's value: `num_k = tl.cdiv(K, BK)` before the loop is
	 * range(tl.cdiv(K, BK)) */
	TSNode it = ta_rule_node(c, lp->iter), args = ta_node_field(it, "arguments");
	TSNode bn = ta_node_is(it, "call") && ta_node_named_count(args) == lp->arg_count
		? ta_values_follow(c->m, ta_node_named_child(args, lp->arg_count == 1 ? 0 : 1)) : (TSNode){ 0 };
	char *owned = ts_node_is_null(bn) ? NULL : ta_node_text(c->m->src, bn);
	const char *bound = owned ? owned : lp->args[lp->arg_count == 1 ? 0 : 1];
	bool like = k_like_bound(c, bound, dots);
	free(owned);
	return like;
}

/* k_like_loop's test of the bound's text. */
static bool k_like_bound(ta_rule_ctx *c, const char *bound, int dots)
{
	if (dots == 0 && !reduction_dim_name(bound))
		return false;
	if (ragged_bound_name(bound))
		return false;
	/* every name the bound reads is a parameter of the kernel (tl.cdiv
	 * aside): not a value loaded or computed per program, which a tuple
	 * assignment (`i_t, i_bh = tl.program_id(0), ...`) may also bind */
	bool any_param = false;
	for (const char *p = bound; *p;) {
		if (!(isalpha((unsigned char)*p) || *p == '_')) {
			p++;
			continue;
		}
		const char *e = p;
		while (isalnum((unsigned char)*e) || *e == '_')
			e++;
		char *id = ta_xstrndup(p, (size_t)(e - p));
		bool builtin = !strcmp(id, "tl") || !strcmp(id, "triton") || !strcmp(id, "cdiv");
		const ta_param *prm = builtin ? NULL : ta_kernel_param(c->k, id);
		bool ragged = prm && ragged_exact_name(id);
		free(id);
		if (!builtin && (!prm || ragged))
			return false;
		any_param |= prm != NULL;
		p = e;
	}
	if (!any_param)
		return false;
	return true;
}

/* s without its whitespace, into out (cut at size - 1); its length. */
static size_t squeeze(const char *s, char *out, size_t size)
{
	size_t n = 0;
	for (; *s && n < size - 1; s++)
		if (!isspace((unsigned char)*s))
			out[n++] = *s;
	out[n] = '\0';
	return n;
}

/* A loop of one step, `range(X - 1, X)` or `range(X, X + 1)`: the masked
 * tail an author has already peeled off after an unmasked loop over the
 * full blocks. Whitespace aside, the one bound must be the other's text. */
static bool one_step_loop(const ta_loop *lp)
{
	if (lp->kind != TA_LOOP_RANGE && lp->kind != TA_LOOP_TL_RANGE)
		return false;
	if (lp->arg_count != 2 && !(lp->arg_count == 3 && !strcmp(lp->args[2], "1")))
		return false;
	char a[256], b[256];
	size_t na = squeeze(lp->args[0], a, sizeof a), nb = squeeze(lp->args[1], b, sizeof b);
	/* start + 2 == stop, either way round */
	return (na == nb + 2 && !strncmp(a, b, nb) && !strcmp(a + nb, "-1")) ||
	       (nb == na + 2 && !strncmp(b, a, na) && !strcmp(b + na, "+1"));
}

/* P2's attention form (below): reports loop li, true when it did. */
static bool p2_attn_report(ta_rule_ctx *rc, size_t li);

/* Whether a comparison in the value of mask bounds something by name: its
 * bound side is the name (`x < name`, `name > x`), or the name less an
 * offset (`x < name - k * BK`). */
typedef struct bounded_ctx {
	const char *name;
	bool hit;
} bounded_ctx;

static ta_values_step bounded_visit(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	bounded_ctx *b = ctx;
	if (!ta_node_is(n, "comparison_operator") || ts_node_named_child_count(n) != 2)
		return TA_VALUES_DESCEND;
	TSNode op = ts_node_child(n, 1);
	bool lt = ta_node_is(op, "<") || ta_node_is(op, "<="), gt = ta_node_is(op, ">") || ta_node_is(op, ">=");
	if (lt || gt) {
		/* the bound is the name, or the name less the part already
		 * walked (`K - k * BK`); a product (`T * K`) mixes it with
		 * another size */
		TSNode side = ta_values_follow(m, ts_node_named_child(n, lt ? 1 : 0));
		if (ta_node_is(side, "binary_operator") && ta_node_is(ta_node_field(side, "operator"), "-"))
			side = ta_values_follow(m, ta_node_field(side, "left"));
		if (ta_node_is(side, "identifier") && ta_node_text_eq(m->src, side, b->name)) {
			b->hit = true;
			return TA_VALUES_STOP;
		}
	}
	return TA_VALUES_DESCEND;
}

static bool bounded_by(const ta_model *m, TSNode mask, const char *name)
{
	bounded_ctx b = { name, false };
	if (!ts_node_is_null(mask))
		ta_values_walk(m, mask, bounded_visit, &b);
	return b.hit;
}

/* Whether k is a @jit helper called in the file and every call of it
 * passes what each() accepts (caller: the kernel the call is in). */
typedef bool (*call_test)(const ta_model *m, const ta_kernel *caller, const ta_op *op, TSNode call, void *ctx);
static bool every_call(const ta_model *m, const ta_kernel *k, call_test each, void *ctx)
{
	size_t calls = 0, passed = 0;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		const ta_kernel *caller = &m->kernels[ki];
		for (size_t i = 0; i < caller->op_count; i++) {
			const ta_op *op = &caller->ops[i];
			if (op->kind != TA_OP_HELPER_CALL || op->helper < 0 || &m->kernels[op->helper] != k)
				continue;
			calls++;
			passed += each(m, caller, op, ta_edits_node(m, op->span), ctx);
		}
	}
	return calls && passed == calls;
}

/* ta_values_walk's visitor: a tl.load in the value. */
static ta_values_step load_visit(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	bool *found = ctx;
	*found |= ta_call_named(m, n, "load");
	return *found ? TA_VALUES_STOP : TA_VALUES_DESCEND;
}

static bool reads_load(const ta_model *m, TSNode n)
{
	bool found = false;
	if (!ts_node_is_null(n))
		ta_values_walk(m, n, load_visit, &found);
	return found;
}

/* Whether the extent of loop l is loaded from memory per program (a
 * per-expert token count, a varlen length): in the kernel's names, or, for
 * a parameter of a @jit helper, at every call of it in the file. No host
 * heuristic can test such a bound: P2 does not apply (the checklist's
 * varlen exclusion). */
typedef struct param_of {
	const ta_kernel *k;
	const ta_param *p;
} param_of;

/* every_call's test: the call passes a loaded value for the parameter. */
static bool passes_load(const ta_model *m, const ta_kernel *caller, const ta_op *op, TSNode call, void *ctx)
{
	(void)caller;
	(void)op;
	const param_of *w = ctx;
	return reads_load(m, ta_edits_call_arg(m, call, (uint32_t)(w->p - w->k->params), w->p->name));
}

static bool extent_loaded(ta_rule_ctx *c, int l)
{
	const ta_model *m = c->m;
	TSNode ext = loop_extent(c, l);
	if (ts_node_is_null(ext))
		return false;
	char *en = ta_node_text(m->src, ext);
	const ta_param *p = ta_kernel_param(c->k, en);
	free(en);
	param_of w = { .k = c->k, .p = p };
	return p ? every_call(m, c->k, passes_load, &w) : reads_load(m, ext);
}

ta_status ta_detect_p2(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	bool any = false, found = false;
	/* moving[i]: load i is masked by a bound that moves with the loop (the
	 * K step), the EVEN_K case; a mask fixed before the loop (a row-wise
	 * kernel's column bound) is not. */
	bool *moving = ta_xcalloc(k->op_count ? k->op_count : 1, sizeof *moving);
	for (size_t l = 0; l < k->loop_count; l++) {
		size_t loads = 0, masked = 0, first, end = ta_loop_ops(k, (int)l, &first);
		for (size_t i = first; i < end; i++) {
			const ta_op *op = &k->ops[i];
			if (op->kind != TA_OP_LOAD || op->loop != (int)l)
				continue;
			if (op->has_mask && p2_lookahead(c->m, k, op, (int)l))
				continue;  /* a prefetch keeps its mask: neither counted nor reported */
			moving[i] = op->has_mask && ta_rule_varies_in_loop(c, load_mask(op), (int)l);
			if (op->ptr_shape == TA_PTR_1D || op->ptr_shape == TA_PTR_2D) {
				loads++;
				masked += moving[i];
			}
		}
		/* Attention's KV loop walks the sequence: its own form, below. */
		if (c->attention && ta_rule_dots_in_loop(k, (int)l) >= 2 && !has_even_guard(k) &&
		    !extent_loaded(c, (int)l) && p2_attn_report(c, l)) {
			any = found = true;
			continue;
		}
		if (!masked || !is_reduction_loop(c, (int)l) || !k_like_loop(c, (int)l) || extent_loaded(c, (int)l))
			continue;
		/* a peeled tail: the full blocks already go unmasked */
		if (one_step_loop(&k->loops[l])) {
			any = true;
			continue;
		}
		/* With an EVEN_* guard the masked loads are the remainder path. */
		if (has_even_guard(k)) {
			any = true;
			continue;
		}
		if (masked != loads)
			continue;
		any = true;
		for (size_t i = first; i < end; i++) {
			const ta_op *op = &k->ops[i];
			if (op->kind != TA_OP_LOAD || op->loop != (int)l || !moving[i] || op->gather ||
			    under_even_flag(c, op) || !mask_bounds_extent(c, op, (int)l))
				continue;
			/* The flag is named after the dimension the mask bounds (the
			 * checklist's rule, and the edit's name): the parameter the
			 * mask compares with, else the loop's own bound (`V` in a loop
			 * over V), else K. */
			const ta_param *bp = masked_bound(c, ta_rule_node(c, load_mask(op)), (int)l, op->span.start, 0);
			TSNode ext = loop_extent(c, (int)l);
			/* where the mask compares with the loop's extent, the flag is
			 * named after it: a term that moves with the loop against
			 * another size (an implicit-GEMM convolution's `in_h < H`,
			 * its padding) names no flag */
			if (bp && !ts_node_is_null(ext) && !ta_node_text_eq(c->m->src, ext, bp->name)) {
				char *en = ta_node_text(c->m->src, ext);
				const ta_param *ep = ta_kernel_param(k, en);
				if (ep && bounded_by(c->m, ta_rule_node(c, load_mask(op)), en))
					bp = ep;
				free(en);
			}
			char *bound = bp ? ta_xstrdup(bp->name)
				      : ts_node_is_null(ext) ? ta_xstrdup("K") : ta_node_text(c->m->src, ext);
			char *flag = ta_xasprintf("EVEN_%s", bound);
			for (char *p = flag; *p; p++)
				*p = (char)toupper((unsigned char)*p);
			char *what = mask_bounds_other_axis(c, op, (int)l)
					     ? ta_xasprintf("drop its bound on %s (the bound on the other axis stays)", bound)
					     : ta_xstrdup("skip it");
			/* a constexpr bound is known when the kernel compiles: the
			 * kernel can test it itself, no heuristic needed (the edit
			 * still writes one, which is as good) */
			ta_finding *f = bp && bp->constexpr_
				? ta_rule_add(c, op->span,
					"%s%s%s is loaded with a mask on every step of the loop at line %u: `%s` is a "
					"tl.constexpr, so its divisibility by the tile is known when the kernel compiles, "
					"and an %s flag (a heuristic, or that test written in the kernel) would let the "
					"divisible case %s",
					op->target ? "`" : "", op->target ? op->target : "a tile", op->target ? "`" : "",
					k->loops[l].span.line, bound, flag, what)
				: ta_rule_add(c, op->span,
					"%s%s%s is loaded with a mask on every step of the loop at line %u: an %s "
					"heuristic would let the divisible case %s",
					op->target ? "`" : "", op->target ? op->target : "a tile", op->target ? "`" : "",
					k->loops[l].span.line, flag, what);
			free(flag);
			free(what);
			free(bound);
			ta_finding_line(f, k->loops[l].span.line);
			found = true;
		}
	}
	free(moving);
	if (found)
		return TA_STATUS_APPLIES;
	return any ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

/* A local change inside a statement's text. */
typedef struct cut {
	uint32_t s, e;
	char *t;
} cut;

typedef struct p2_ctx {
	const ta_model *m;
	const ta_kernel *k;
	char *K, *BK;             /* the bound and the K tile, from the loop */
	const char *flag;         /* the heuristic's name: EVEN_K, or EVEN_N for a KV loop */
	char *own_flag;           /* EVEN_<bound> when the flag is named from the loop's bound */
	cut *cuts;                /* even-branch changes, in document order */
	size_t cut_count, cut_cap;
} p2_ctx;

static void add_cut(p2_ctx *c, uint32_t s, uint32_t e, char *t)
{
	ta_grow((void **)&c->cuts, &c->cut_cap, c->cut_count + 1, sizeof *c->cuts);
	c->cuts[c->cut_count++] = (cut){ s, e, t };
}

static void clear_cuts(p2_ctx *c)
{
	for (size_t i = 0; i < c->cut_count; i++)
		free(c->cuts[i].t);
	free(c->cuts);
	c->cuts = NULL;
	c->cut_count = c->cut_cap = 0;
}

/* Frees what a loop's rewrite gathered; a failed one (rc != 0) drops the
 * edit made so far too. Returns rc. */
static int p2_done(p2_ctx *c, ta_edit *out, int rc)
{
	clear_cuts(c);
	free(c->K);
	free(c->BK);
	free(c->own_flag);
	if (rc != 0)
		ta_edit_clear(out);
	return rc;
}

/* Appends a term a mask keeps to the `&` chain in b, parenthesized unless
 * it is atomic; a lone `(x < M)` loses its now useless parentheses. */
static void keep_term(const ta_model *m, ta_buf *b, TSNode tn, size_t kept)
{
	if (kept == 1 && ta_node_is(tn, "parenthesized_expression") && ta_node_named_count(tn) == 1)
		tn = ta_node_named_child(tn, 0);
	char *t = ta_node_text(m->src, tn);
	bool bare = kept == 1 || ta_node_is(tn, "parenthesized_expression") || ta_node_is(tn, "identifier") ||
		    ta_node_is(tn, "subscript") || ta_node_is(tn, "call");
	ta_buf_printf(b, "%s%s%s%s", b->len ? " & " : "", bare ? "" : "(", t, bare ? "" : ")");
	free(t);
}

static bool is_param_ident(const ta_kernel *k, TSNode n, const ta_model *m)
{
	if (!ta_node_is(n, "identifier"))
		return false;
	char *t = ta_node_text(m->src, n);
	bool p = ta_kernel_param(k, t) != NULL;
	free(t);
	return p;
}

/* The bound and the step of `range(0, K, BLOCK_K)` or
 * `range(tl.cdiv(K, BLOCK_K))` (tl.range too) as written: NULL with *kn
 * and *bn, else why not (static). */
static const char *range_bounds(const ta_model *m, const ta_loop *l, TSNode *kn, TSNode *bn)
{
	if (l->kind != TA_LOOP_RANGE && l->kind != TA_LOOP_TL_RANGE)
		return "the loop is not range(...) or tl.range(...)";
	TSNode call = ta_edits_node(m, l->iter);
	TSNode args = ta_node_field(call, "arguments");
	TSNode pos[3];
	uint32_t np = 0, n = ta_node_named_count(args);
	for (uint32_t i = 0; i < n; i++) {
		TSNode a = ta_node_named_child(args, i);
		if (ta_node_is(a, "keyword_argument") || ta_node_is(a, "comment"))
			continue;
		if (np == 3)
			return "the range has more than three arguments";
		pos[np++] = a;
	}
	if (np == 0)
		return "the range has no arguments";
	/* The start must be 0 so every tile starts at a multiple of BLOCK_K. */
	if (np >= 2 && !ta_node_text_eq(m->src, pos[0], "0"))
		return "the loop does not start at 0";
	TSNode stop = pos[np == 1 ? 0 : 1];
	if (np == 3 && ta_node_is(stop, "identifier")) {
		*kn = stop;
		*bn = pos[2];
	} else if (ta_node_is(stop, "call") && (np < 3 || ta_node_text_eq(m->src, pos[2], "1"))) {
		char *fn = ta_model_canonical(m, ta_node_field(stop, "function"));
		TSNode ca = ta_node_field(stop, "arguments");
		if (fn && (ta_name_is(fn, "triton.language.cdiv") || ta_name_is(fn, "triton.cdiv")) &&
		    ta_node_named_count(ca) == 2) {
			*kn = ta_node_named_child(ca, 0);
			*bn = ta_node_named_child(ca, 1);
		}
		free(fn);
	}
	if (ts_node_is_null(*kn))
		return "the loop is neither range(0, K, BLOCK_K) nor range(tl.cdiv(K, BLOCK_K))";
	return NULL;
}

/* K and BLOCK_K from `range(0, K, BLOCK_K)` or `range(0, tl.cdiv(K, BLOCK_K))`
 * (tl.range too), or from a while loop that steps like the first: both
 * parameters, the tile a constexpr. Returns NULL on success, else why not
 * (static). */
static const char *loop_bounds(p2_ctx *c, const ta_loop *l)
{
	const ta_model *m = c->m;
	TSNode kn = { 0 }, bn = { 0 };
	/* `k = 0; while k < K: ... k += BLOCK_K` is range(0, K, BLOCK_K) */
	if (!while_range(m, l, &kn, &bn)) {
		const char *why = range_bounds(m, l, &kn, &bn);
		if (why)
			return why;
	}
	if (!is_param_ident(c->k, kn, m) || !is_param_ident(c->k, bn, m))
		return "the loop's bound and step are not both parameters of the kernel";
	c->K = ta_node_text(m->src, kn);
	c->BK = ta_node_text(m->src, bn);
	if (!ta_kernel_param(c->k, c->BK)->constexpr_) {
		free(c->K);
		free(c->BK);
		c->K = c->BK = NULL;
		return "the K tile is not a tl.constexpr parameter";
	}
	return NULL;
}

/* `name = value`: not a tuple, a subscript or an augmented assignment. */
static bool plain_assignment(const ta_values_binding *d)
{
	return ta_node_is(d->binding, "assignment") && ts_node_eq(ta_node_field(d->binding, "left"), d->target);
}

/* The right side of the last `name = ...` of function `within` begun
 * before off, from the values table's bindings of the name (a binary
 * search) rather than a pass over every assignment of the kernel. */
static TSNode last_assign(const ta_model *m, TSNode within, const char *name, uint32_t off)
{
	size_t n;
	const ta_values_binding *d = ta_values_bindings(m, within, name, strlen(name), &n);
	size_t lo = 0, hi = n;   /* the first binding taking effect after off */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d[mid].point <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Plain assignments of one name do not hold one another, so by point
	 * they are in the order they begin: the first after off begins before
	 * it when it holds off (`x = f(x < n)`), else the last before off. */
	TSNode found = { 0 };
	for (size_t i = lo; i < n; i++)
		if (plain_assignment(&d[i])) {
			if (ts_node_start_byte(d[i].binding) < off)
				found = ta_node_field(d[i].binding, "right");
			break;
		}
	for (size_t i = lo; ts_node_is_null(found) && i-- > 0;)
		if (plain_assignment(&d[i]))
			found = ta_node_field(d[i].binding, "right");
	return found;
}

/* Does the mask term read K (directly or through locals assigned from it,
 * up to three names deep: `ks_mask = ks[None, :] < k_left` with `k_left =
 * K - k0`), and no other size parameter? 1 K only, 0 not K, -1 K mixed
 * with another dimension. */
static int k_term(p2_ctx *c, TSNode term, uint32_t at, int depth);
static void split_and(const ta_model *m, TSNode n, TSNode *terms, size_t *count, size_t max);

/* A local's value as k_term reads it: 1 when it bounds K alone (through
 * more locals too), 0 when it bounds no K, or bounds K and another
 * dimension side by side (`m_h = m_k[:, None] & (o_v < V)`, V a constexpr
 * too): the name then stays on the even path whole, since dropping it
 * would drop V's bound with it; -1 when a part mixes K with another size
 * in one expression. */
static int k_conjunction(p2_ctx *c, TSNode rhs, int depth)
{
	TSNode parts[16];
	size_t n = 0;
	split_and(c->m, rhs, parts, &n, 16);
	if (n > 16)
		return -1;
	bool k = false, other = false;
	for (size_t i = 0; i < n; i++) {
		int r = k_term(c, parts[i], ts_node_start_byte(parts[i]), depth);
		if (r < 0)
			return -1;
		k |= r > 0;
		other |= r == 0;
	}
	return k && !other ? 1 : 0;
}

static int k_term(p2_ctx *c, TSNode term, uint32_t at, int depth)
{
	char **v;
	size_t n = ta_edits_names(c->m, term, &v);
	bool k = false, other = false;
	for (size_t i = 0; i < n; i++) {
		const ta_param *p = ta_kernel_param(c->k, v[i]);
		if (!strcmp(v[i], c->K)) {
			k = true;
		} else if (p) {
			if (!p->constexpr_ && strncmp(v[i], "stride", 6) != 0)
				other = true;
		} else if (depth < 3) {
			TSNode rhs = last_assign(c->m, c->k->node, v[i], at);
			int r = ts_node_is_null(rhs) ? 0 : k_conjunction(c, rhs, depth + 1);
			k |= r != 0;
			other |= r < 0;
			/* a local from another size (offs_m = ... % M) */
			if (!ts_node_is_null(rhs) && r == 0) {
				char **w;
				size_t nw = ta_edits_names(c->m, rhs, &w);
				for (size_t j = 0; j < nw; j++) {
					const ta_param *q = ta_kernel_param(c->k, w[j]);
					if (q && !q->constexpr_ && strncmp(w[j], "stride", 6) != 0 && strcmp(w[j], c->K))
						other = true;
				}
				ta_edits_names_free(w, nw);
			}
		}
	}
	ta_edits_names_free(v, n);
	return !k ? 0 : other ? -1 : 1;
}

/* Splits a mask at its top-level `&` into terms. */
static void split_and(const ta_model *m, TSNode n, TSNode *terms, size_t *count, size_t max)
{
	TSNode in = ta_node_unparen(n);
	TSNode op = ta_node_field(in, "operator");
	if (ta_node_is(in, "binary_operator") && ta_node_text_eq(m->src, op, "&")) {
		split_and(m, ta_node_field(in, "left"), terms, count, max);
		split_and(m, ta_node_field(in, "right"), terms, count, max);
		return;
	}
	if (*count < max)
		terms[*count] = n;
	(*count)++;
}

/* The argument node of a load: keyword name, else positional index. */
static TSNode load_arg(const ta_model *m, TSNode call, const char *kw, uint32_t index, TSNode *whole)
{
	TSNode args = ta_node_field(call, "arguments");
	uint32_t n = ta_node_named_count(args), pos = 0;
	for (uint32_t i = 0; i < n; i++) {
		TSNode a = ta_node_named_child(args, i);
		if (ta_node_is(a, "comment"))
			continue;
		if (ta_node_is(a, "keyword_argument")) {
			if (ta_node_text_eq(m->src, ta_node_field(a, "name"), kw)) {
				*whole = a;
				return ta_node_field(a, "value");
			}
			continue;
		}
		if (pos++ == index) {
			*whole = a;
			return a;
		}
	}
	*whole = (TSNode){ 0 };
	return (TSNode){ 0 };
}

/* The definition of a mask held in a name (analyze/values.h): the value
 * the name has at the load at off, when nothing that value reads is bound
 * again before it; else mask itself. */
static TSNode named_mask(const ta_model *m, const ta_kernel *k, TSNode mask, uint32_t off)
{
	(void)k;
	if (!ta_node_is(mask, "identifier"))
		return mask;
	TSNode rhs = ta_values_def(m, mask, NULL);
	return !ts_node_is_null(rhs) && ta_values_stable(m, rhs, off) ? rhs : mask;
}

/* The even-branch change of one load. 1 changed, 0 no K term (leave the
 * load alone), -1 refused (*why). */
static int p2_load(p2_ctx *c, const ta_op *op, char **why)
{
	const ta_model *m = c->m;
	TSNode call = ta_edits_node(m, op->span);
	TSNode mwhole, owhole;
	TSNode mask = load_arg(m, call, "mask", 1, &mwhole);
	load_arg(m, call, "other", 2, &owhole);
	if (ts_node_is_null(mask))
		return 0;
	/* A mask kept in a name (`a_mask = (offs_m < M) & (offs_k < K - k)`)
	 * is split as its one definition, when what it reads is not bound
	 * again before the load: the even path then takes its non-K terms. */
	TSNode mexpr = named_mask(m, c->k, mask, op->span.start);
	TSNode terms[16];
	size_t n = 0;
	split_and(m, mexpr, terms, &n, 16);
	if (n > 16) {
		*why = ta_xasprintf("line %u: the mask has too many terms", op->span.line);
		return -1;
	}
	int cls[16];
	size_t kept = 0, kterms = 0;
	for (size_t i = 0; i < n; i++) {
		cls[i] = k_term(c, terms[i], ts_node_eq(mexpr, mask) ? op->span.start : ts_node_start_byte(mexpr), 0);
		if (cls[i] < 0) {
			char *t = ta_node_text(m->src, terms[i]);
			*why = ta_xasprintf("line %u: the mask term `%s` mixes %s (the loop bound) with another dimension",
					    op->span.line, t, c->K);
			free(t);
			return -1;
		}
		kterms += cls[i] > 0;
	}
	kept = n - kterms;
	ta_buf keep = TA_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		if (cls[i] > 0)
			continue;
		keep_term(m, &keep, terms[i], kept);
	}
	if (kterms == 0) {
		ta_buf_free(&keep);
		return 0;
	}
	if (kept) {
		/* Keep the M/N part of the mask (and its other=) on the even path. */
		add_cut(c, ts_node_start_byte(mask), ts_node_end_byte(mask), ta_buf_steal(&keep));
		return 1;
	}
	ta_buf_free(&keep);
	/* No mask left: drop mask and other with their commas. */
	TSNode prev = ts_node_prev_named_sibling(mwhole);
	while (!ts_node_is_null(prev) && ta_node_is(prev, "comment"))
		prev = ts_node_prev_named_sibling(prev);
	if (ts_node_is_null(prev)) {
		*why = ta_xasprintf("line %u: the load has no pointer argument before its mask", op->span.line);
		return -1;
	}
	TSNode first = mwhole, last = mwhole;
	if (!ts_node_is_null(owhole)) {
		if (ts_node_start_byte(owhole) < ts_node_start_byte(first))
			first = owhole;
		else
			last = owhole;
		/* mask and other must be neighbours, else two cuts. */
		TSNode between = ts_node_next_named_sibling(first);
		if (!ts_node_eq(between, last)) {
			add_cut(c, ts_node_end_byte(ts_node_prev_named_sibling(mwhole)), ts_node_end_byte(mwhole),
				ta_xstrdup(""));
			add_cut(c, ts_node_end_byte(ts_node_prev_named_sibling(owhole)), ts_node_end_byte(owhole),
				ta_xstrdup(""));
			if (c->cuts[c->cut_count - 1].s < c->cuts[c->cut_count - 2].s) {
				cut t = c->cuts[c->cut_count - 1];
				c->cuts[c->cut_count - 1] = c->cuts[c->cut_count - 2];
				c->cuts[c->cut_count - 2] = t;
			}
			return 1;
		}
	}
	add_cut(c, ts_node_end_byte(ts_node_prev_named_sibling(first)), ts_node_end_byte(last), ta_xstrdup(""));
	return 1;
}

/* The text [s, e) with the cuts inside it applied. */
static char *cut_text(const p2_ctx *c, uint32_t s, uint32_t e)
{
	ta_buf b = TA_BUF_INIT;
	uint32_t at = s;
	for (size_t i = 0; i < c->cut_count; i++) {
		/* (a cut overlapping the previous one, which only a bent parse
		 * gives, is left out rather than read backwards) */
		if (c->cuts[i].s < at || c->cuts[i].e > e)
			continue;
		ta_buf_append(&b, c->m->src->text + at, c->cuts[i].s - at);
		ta_buf_puts(&b, c->cuts[i].t);
		at = c->cuts[i].e;
	}
	ta_buf_append(&b, c->m->src->text + at, e - at);
	return ta_buf_steal(&b);
}

static TSNode jit_decorator(const ta_model *m, const ta_kernel *k)
{
	TSNode dd = ta_node_parent(k->node);
	if (!ta_node_is(dd, "decorated_definition"))
		return (TSNode){ 0 };
	uint32_t n = ta_node_named_count(dd);
	for (uint32_t i = 0; i < n; i++) {
		TSNode d = ta_node_named_child(dd, i);
		if (!ta_node_is(d, "decorator"))
			continue;
		TSNode e = ta_node_named_child(d, 0);
		TSNode fn = ta_node_is(e, "call") ? ta_node_field(e, "function") : e;
		char *c = ta_model_canonical(m, fn);
		bool jit = c && (ta_name_is(c, "triton.jit") || !strcmp(c, "jit"));
		free(c);
		if (jit)
			return d;
	}
	return (TSNode){ 0 };
}

/* Heuristic and parameter: the decorator (or a new entry in an existing
 * heuristics dict) and `EVEN_K: tl.constexpr` after the last parameter
 * without a default. */
/* How the heuristic reads parameter name from its args, quoted with q:
 * `args["K"]`, or `args.get("BLOCK_K", 32)` for one with a default, which
 * a launch may leave out (Triton's heuristics see the arguments passed,
 * not the defaults: args["BLOCK_K"] raised KeyError). Caller frees. */
static char *p2_arg(const ta_kernel *k, const char *name, char q)
{
	const ta_param *p = ta_kernel_param(k, name);
	if (p && p->default_value)
		return ta_xasprintf("args.get(%c%s%c, %s)", q, name, q, p->default_value);
	return ta_xasprintf("args[%c%s%c]", q, name, q);
}

static char *p2_lambda(const p2_ctx *c, char q)
{
	char *a = p2_arg(c->k, c->K, q), *b = p2_arg(c->k, c->BK, q);
	char *lam = ta_xasprintf("lambda args: %s %% %s == 0", a, b);
	free(a);
	free(b);
	return lam;
}

static int p2_signature(p2_ctx *c, ta_edit *out, char **why)
{
	const ta_model *m = c->m;
	const ta_kernel *k = c->k;
	char *lam = p2_lambda(c, '"');
	/* Heuristics written above @triton.autotune run before it picks a
	 * config: they see the launch's arguments but not a tuned tile, so
	 * the flag goes into a decorator of its own beneath the autotune. */
	bool below_autotune = !k->autotune || k->heuristics_span.start > k->autotune->span.start;
	if (k->heuristics_span.end > k->heuristics_span.start && below_autotune) {
		TSNode call = ta_edits_node(m, k->heuristics_span);
		TSNode args = ta_node_field(call, "arguments");
		TSNode dict = ta_node_named_child(args, 0);
		if (!ta_node_is(dict, "dictionary")) {
			free(lam);
			*why = ta_xasprintf("%s: the heuristics are not a literal dict", k->name);
			return -1;
		}
		TSNode last = { 0 };
		char q = '"';
		uint32_t n = ta_node_named_count(dict);
		for (uint32_t i = 0; i < n; i++) {
			TSNode p = ta_node_named_child(dict, i);
			if (!ta_node_is(p, "pair"))
				continue;
			TSNode key = ta_node_field(p, "key");
			if (ts_node_is_null(last) && ta_node_is(key, "string"))
				q = m->src->text[ts_node_start_byte(key)];
			last = p;
		}
		if (q != '\'')
			q = '"';
		free(lam);
		lam = p2_lambda(c, q);
		char *ent = ta_xasprintf("%s%c%s%c: %s", ts_node_is_null(last) ? "" : ", ", q, c->flag, q, lam);
		uint32_t at = ts_node_is_null(last) ? ts_node_start_byte(dict) + 1 : ts_node_end_byte(last);
		ta_edit_replace(out, at, at, ent);
		free(ent);
	} else {
		TSNode jit = jit_decorator(m, k);
		if (ts_node_is_null(jit)) {
			free(lam);
			*why = ta_xasprintf("%s: triton.jit is applied by a call, not a decorator", k->name);
			return -1;
		}
		char *heur = ta_edits_module(m, "triton.heuristics");
		if (!heur) {
			free(lam);
			*why = ta_xstrdup("the file does not import triton");
			return -1;
		}
		char *ind = ta_edits_indent_at(m, ts_node_start_byte(jit));
		char *line = ta_xasprintf("%s@%s({\"%s\": %s})\n", ind, heur, c->flag, lam);
		uint32_t at = ta_edits_line_start(m, ts_node_start_byte(jit));
		ta_edit_replace(out, at, at, line);
		free(line);
		free(ind);
		free(heur);
	}
	free(lam);
	/* after any parameter with a default: a launch may pass those by
	 * position; the heuristic always sets the flag, False is the masked path */
	return ta_edits_add_constexpr(m, k, c->flag, NULL, "False", out, why);
}

/* The statement holding a load, alone on its lines, directly in a block. */
static TSNode load_statement(const ta_model *m, const ta_op *op)
{
	TSNode n = ta_edits_node(m, op->span);
	TSNode s = ta_node_ancestor(n, "expression_statement");
	if (ts_node_is_null(s) || !ta_node_is(ta_node_parent(s), "block"))
		return (TSNode){ 0 };
	uint32_t end;
	if (ta_edits_stmt_lines(m, s, &end) == UINT32_MAX)
		return (TSNode){ 0 };
	return s;
}

static int p2_loop(const ta_model *m, const ta_kernel *k, size_t li, ta_edit *out, char **why)
{
	const ta_loop *l = &k->loops[li];
	p2_ctx c = { .m = m, .k = k, .flag = "EVEN_K" };
	const char *bad = loop_bounds(&c, l);
	if (bad) {
		*why = ta_xasprintf("line %u: %s", l->header.line, bad);
		return -1;
	}
	if (k->is_helper) {
		*why = ta_xasprintf("%s is called from another kernel: heuristics only run at a launch", k->name);
		goto fail;
	}
	/* The flag is named after the dimension the loop walks (EVEN_V for a
	 * loop over V): the checklist's rule, and what the title says. */
	c.own_flag = ta_xasprintf("EVEN_%s", c.K);
	for (char *p = c.own_flag; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	c.flag = c.own_flag;
	/* The loads to branch, as statements (several loads may share one). */
	TSNode stmts[64];
	size_t ns = 0;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->kind != TA_OP_LOAD || op->loop != (int)li || !op->has_mask)
			continue;
		if (p2_lookahead(m, k, op, (int)li))
			continue;  /* the next block's guard stays on both paths */
		int r = p2_load(&c, op, why);
		if (r < 0)
			goto fail;
		if (r == 0)
			continue;
		TSNode s = load_statement(m, op);
		if (ts_node_is_null(s)) {
			*why = ta_xasprintf("line %u: the load is not a statement of its own line", op->span.line);
			goto fail;
		}
		if (ns == 0 || !ts_node_eq(stmts[ns - 1], s)) {
			if (ns == 64) {
				*why = ta_xasprintf("line %u: too many loads", l->header.line);
				goto fail;
			}
			stmts[ns++] = s;
		}
	}
	if (ns == 0) {
		*why = ta_xasprintf("line %u: no load mask in the loop reads %s", l->header.line, c.K);
		goto fail;
	}
	if (p2_signature(&c, out, why) != 0)
		goto fail;
	/* One if/else per run of adjacent statements. */
	for (size_t i = 0; i < ns;) {
		size_t j = i;
		while (j + 1 < ns) {
			TSNode nx = ts_node_next_named_sibling(stmts[j]);
			while (!ts_node_is_null(nx) && ta_node_is(nx, "comment") &&
			       ts_node_start_point(nx).row == ts_node_end_point(stmts[j]).row)
				nx = ts_node_next_named_sibling(nx);
			if (!ts_node_eq(nx, stmts[j + 1]))
				break;
			j++;
		}
		uint32_t end, start = ta_edits_stmt_lines(m, stmts[i], &end);
		ta_edits_stmt_lines(m, stmts[j], &end);
		char *ind = ta_edits_indent_at(m, start);
		const char *unit = ta_edits_indent_unit(m, ind);
		char *orig = ta_edits_text(m, start, end);
		char *even = cut_text(&c, start, end);
		char *ro = ta_edits_reindent(orig, unit), *re = ta_edits_reindent(even, unit);
		bool nl = end > start && m->src->text[end - 1] == '\n';
		char *rep = ta_xasprintf("%sif %s:\n%s%s%selse:\n%s", ind, c.flag, re, nl ? "" : "\n", ind, ro);
		ta_edit_replace(out, start, end, rep);
		free(rep);
		free(ro);
		free(re);
		free(orig);
		free(even);
		free(ind);
		i = j + 1;
	}
	ta_edit_set_title(out, "%s: skip the %s masks of the loop at line %u when %s %% %s == 0", c.flag, c.K,
			  l->header.line, c.K, c.BK);
	ta_edit_set_unsafe(out, "assumes every %s tile the loop at line %u loads starts at a multiple of %s inside "
			   "[0, %s), so that %s %% %s == 0 makes each one whole", c.K, l->header.line, c.BK, c.K, c.K,
			   c.BK);
	out->line = ts_node_start_point(stmts[0]).row + 1;
	return p2_done(&c, out, 0);
fail:
	return p2_done(&c, out, -1);
}

/* ---- P2's attention form ---------------------------------------------
 * In attention's KV loop `for start_n in range(0, N_CTX, BLOCK_N)` a term
 * `cols < N_CTX`, cols = start_n + tl.arange(0, BLOCK_N), bounds the
 * current block by the loop's extent. When N_CTX % BLOCK_N == 0 every
 * block is whole and the term is true on every element: under an EVEN_N
 * heuristic the loads and the tl.where skip it, the last (partial) block
 * of any other length keeps it. Only such terms go; the head dimension,
 * the rows, causal masks and a prefetch's mask stay on both paths. */

/* An identifier bound exactly once in n, by a plain assignment; its
 * right side, else a null node. */
static TSNode only_def(const ta_model *m, TSNode n, const char *name)
{
	ta_edits_defs d = { .n = 0 };
	ta_edits_find_defs(m, n, name, &d);
	if (d.n != 1 || d.more || !ta_node_is(d.v[0], "assignment"))
		return (TSNode){ 0 };
	TSNode l = ta_node_field(d.v[0], "left");
	if (!ta_node_is(l, "identifier"))
		return (TSNode){ 0 };
	return ta_node_field(d.v[0], "right");
}

/* x is tl.arange(0, BLOCK_N) with the loop's step, inline or as a name
 * bound once in the kernel, before the loop. */
/* Whether x is `tl.arange(0, bk)`, or a name bound to it once in kernel k
 * before the offset `before`. */
static bool arange_of(const ta_model *m, const ta_kernel *k, TSNode x, const char *bk, uint32_t before)
{
	x = ta_node_unparen(x);
	if (ta_node_is(x, "identifier")) {
		char *t = ta_node_text(m->src, x);
		TSNode rhs = only_def(m, k->node, t);
		free(t);
		if (ts_node_is_null(rhs) || ts_node_start_byte(rhs) >= before)
			return false;
		x = ta_node_unparen(rhs);
	}
	if (!ta_node_is(x, "call"))
		return false;
	char *fn = ta_model_canonical(m, ta_node_field(x, "function"));
	bool arange = fn && ta_name_is(fn, "triton.language.arange");
	free(fn);
	TSNode a = ta_node_field(x, "arguments");
	return arange && ta_node_named_count(a) == 2 && ta_node_text_eq(m->src, ta_node_named_child(a, 0), "0") &&
	       ta_node_text_eq(m->src, ta_node_named_child(a, 1), bk);
}

/* The block's offsets `tl.arange(0, BK)`, in the kernel, or handed to a
 * @jit helper that holds the loop: a parameter of the helper for which
 * every call of it in the file passes the caller's `tl.arange(0, B)`, B
 * being what the same call passes for the loop's step (tutorial 06's
 * `_attn_fwd_inner(..., offs_m, offs_n, ...)`). */
typedef struct arange_arg {
	const ta_kernel *k;
	const ta_param *p, *step;
} arange_arg;

/* every_call's test: the call passes `tl.arange(0, B)` for p, B being what
 * it passes for the loop's step. */
static bool passes_arange(const ta_model *m, const ta_kernel *caller, const ta_op *op, TSNode call, void *ctx)
{
	const arange_arg *w = ctx;
	TSNode a = ta_edits_call_arg(m, call, (uint32_t)(w->p - w->k->params), w->p->name);
	TSNode b = ta_edits_call_arg(m, call, (uint32_t)(w->step - w->k->params), w->step->name);
	char *bt = ts_node_is_null(b) ? NULL : ta_node_text(m->src, ta_node_unparen(b));
	bool yes = bt && !ts_node_is_null(a) && arange_of(m, caller, a, bt, op->span.start);
	free(bt);
	return yes;
}

static bool block_arange(const p2_ctx *c, const ta_loop *lp, TSNode x)
{
	const ta_model *m = c->m;
	const ta_kernel *k = c->k;
	if (arange_of(m, k, x, c->BK, lp->span.start))
		return true;
	x = ta_node_unparen(x);
	char *t = ta_node_is(x, "identifier") ? ta_node_text(m->src, x) : NULL;
	arange_arg w = { .k = k, .p = t ? ta_kernel_param(k, t) : NULL, .step = ta_kernel_param(k, c->BK) };
	free(t);
	return w.p && w.step && every_call(m, k, passes_arange, &w);
}

/* x (a broadcast of it aside) holds the current block's indices:
 * `start_n + offs_n`, or a name bound once inside the loop to that. */
static bool block_indices(const p2_ctx *c, const ta_loop *lp, TSNode loop, TSNode x, int depth)
{
	const ta_model *m = c->m;
	x = ta_node_unparen(x);
	if (depth == 0 && ta_edits_bcast_kind(m, x) > 0)
		x = ta_node_unparen(ta_node_field(x, "value"));
	if (ta_node_is(x, "identifier")) {
		if (depth > 0)
			return false;
		char *t = ta_node_text(m->src, x);
		TSNode rhs = only_def(m, loop, t);
		free(t);
		/* bound on every pass: a statement of the loop's own body */
		TSNode body = ta_node_field(loop, "body");
		return !ts_node_is_null(rhs) && ts_node_end_byte(rhs) <= ts_node_start_byte(x) &&
		       ts_node_eq(ta_node_parent(ta_node_parent(ta_node_parent(rhs))), body) &&
		       block_indices(c, lp, loop, rhs, depth + 1);
	}
	if (!ta_node_is(x, "binary_operator") || !ta_node_text_eq(m->src, ta_node_field(x, "operator"), "+"))
		return false;
	TSNode a = ta_node_unparen(ta_node_field(x, "left")), b = ta_node_unparen(ta_node_field(x, "right"));
	for (int i = 0; i < 2; i++) {
		TSNode v = i ? b : a, o = i ? a : b;
		if (ta_node_is(v, "identifier") && ta_node_text_eq(m->src, v, lp->var) && block_arange(c, lp, o))
			return true;
	}
	return false;
}

/* The term is `cols < N` for the current block's indices and the loop's
 * bound N. */
static bool block_bound_term(const p2_ctx *c, const ta_loop *lp, TSNode loop, TSNode term)
{
	const ta_model *m = c->m;
	TSNode t = ta_node_unparen(term);
	/* a bound held in a name and broadcast (`kv_mask[None, :]` with
	 * `kv_mask = cols < N`) is that bound */
	for (int i = 0; i < 8; i++) {
		TSNode v = ta_edits_bcast_kind(m, t) > 0 ? ta_node_field(t, "value") :
			   ta_node_is(t, "identifier") ? ta_values_def(m, t, NULL) : (TSNode){ 0 };
		if (ts_node_is_null(v))
			break;
		t = ta_node_unparen(v);
	}
	if (!ta_node_is(t, "comparison_operator") || ta_node_named_count(t) != 2 || ta_node_child_count(t) != 3 ||
	    !ta_node_text_eq(m->src, ts_node_child(t, 1), "<"))
		return false;
	TSNode r = ta_node_unparen(ta_node_named_child(t, 1));
	return ta_node_text_eq(m->src, r, c->K) && block_indices(c, lp, loop, ta_node_named_child(t, 0), 0);
}

/* One place the loop bounds its block: a load's mask or a tl.where's
 * condition (as written at the call), the expression its terms come from
 * (a mask kept in a name is split as its definition), and which terms go. */
typedef struct attn_site {
	const ta_op *op;
	TSNode at;                /* the mask or condition at the call */
	TSNode whole;             /* the `mask=...` argument (loads) */
	TSNode terms[16];
	size_t n;
	unsigned drop;            /* bit i: terms[i] bounds the block */
} attn_site;

/* The sites of loop li when it is attention's KV loop in the form above;
 * c->K and c->BK are set when it returns more than 0. */
static size_t attn_sites(p2_ctx *c, size_t li, attn_site *out, size_t max)
{
	const ta_model *m = c->m;
	const ta_kernel *k = c->k;
	const ta_loop *lp = &k->loops[li];
	if (ta_rule_dots_in_loop(k, (int)li) < 2 || lp->arg_count != 3 || !lp->var ||
	    !ta_rules_attention_at(m, (int)(k - m->kernels), li))
		return 0;
	if (loop_bounds(c, lp) != NULL)
		return 0;
	TSNode loop = ta_edits_node(m, lp->span);
	size_t n = 0;
	ta_edits_defs vd = { .n = 0 };
	ta_edits_find_defs(m, loop, lp->var, &vd);
	if (!ts_node_is_null(loop) && vd.n == 1 && !vd.more) {
		for (size_t i = 0; i < k->op_count && n < max; i++) {
			const ta_op *op = &k->ops[i];
			attn_site s = { .op = op };
			TSNode call = ta_edits_node(m, op->span);
			if (op->loop != (int)li)
				continue;
			if (op->kind == TA_OP_LOAD && op->has_mask && !p2_lookahead(m, k, op, (int)li)) {
				s.at = load_arg(m, call, "mask", 1, &s.whole);
			} else if (op->kind == TA_OP_WHERE && op->arg_count == 3) {
				s.at = ta_edits_node(m, op->args[0]);
			} else {
				continue;
			}
			if (ts_node_is_null(s.at))
				continue;
			TSNode def = named_mask(m, k, s.at, op->span.start);
			split_and(m, def, s.terms, &s.n, 16);
			if (s.n > 16)
				continue;
			for (size_t t = 0; t < s.n; t++)
				if (block_bound_term(c, lp, loop, s.terms[t]))
					s.drop |= 1u << t;
			if (s.drop)
				out[n++] = s;
		}
	}
	if (!n) {
		free(c->K);
		free(c->BK);
		c->K = c->BK = NULL;
	}
	return n;
}

/* The terms a site keeps, joined by &; NULL when none. */
static char *attn_kept(const ta_model *m, const attn_site *s)
{
	ta_buf b = TA_BUF_INIT;
	size_t kept = 0;
	for (size_t t = 0; t < s->n; t++)
		kept += !(s->drop >> t & 1);
	for (size_t t = 0; t < s->n; t++) {
		if (s->drop >> t & 1)
			continue;
		keep_term(m, &b, s->terms[t], kept);
	}
	return kept ? ta_buf_steal(&b) : (ta_buf_free(&b), NULL);
}

/* The statement s alone on its lines, directly in a block. */
static TSNode own_statement(const ta_model *m, TSNode n)
{
	TSNode s = ta_node_ancestor(n, "expression_statement");
	uint32_t end;
	if (ts_node_is_null(s) || !ta_node_is(ta_node_parent(s), "block") ||
	    ta_edits_stmt_lines(m, s, &end) == UINT32_MAX)
		return (TSNode){ 0 };
	return s;
}

/* `x = tl.where(cond, x, ...)` as a statement: the name x, else NULL. */
static char *where_self_assign(const ta_model *m, const attn_site *s, TSNode stmt)
{
	TSNode a = ta_node_named_child(stmt, 0);
	if (!ta_node_is(a, "assignment"))
		return NULL;
	TSNode l = ta_node_field(a, "left"), r = ta_node_field(a, "right");
	if (!ta_node_is(l, "identifier") || ts_node_start_byte(r) != s->op->span.start ||
	    ts_node_end_byte(r) != s->op->span.end)
		return NULL;
	TSNode x = ta_edits_node(m, s->op->args[1]);
	char *name = ta_node_text(m->src, l);
	if (ts_node_is_null(x) || !ta_node_is(ta_node_unparen(x), "identifier") ||
	    !ta_node_text_eq(m->src, ta_node_unparen(x), name)) {
		free(name);
		return NULL;
	}
	return name;
}

/* Statement forms: cuts inside it, wrapped in `if not EVEN_N:`, or
 * doubled into `if EVEN_N: <cut> else: <as is>`. */
enum { ATTN_CUT, ATTN_SKIP, ATTN_BRANCH };

static int p2_attn_loop(const ta_model *m, const ta_kernel *k, size_t li, ta_edit *out, char **why)
{
	const ta_loop *l = &k->loops[li];
	p2_ctx c = { .m = m, .k = k, .flag = "EVEN_N" };
	attn_site sites[32];
	size_t ns = attn_sites(&c, li, sites, 32);
	TSNode stmts[32];
	int form[32];
	size_t nst = 0;
	if (!ns) {
		*why = ta_xasprintf("line %u: no mask in the loop bounds its block by the loop's extent", l->header.line);
		return -1;
	}
	if (k->is_helper) {
		*why = ta_xasprintf("%s is called from another kernel: heuristics only run at a launch", k->name);
		goto fail;
	}
	if (ta_kernel_param(k, c.flag) || ta_edits_reads_in(m, k->span.start, k->span.end, c.flag)) {
		*why = ta_xasprintf("%s is already a name in %s", c.flag, k->name);
		goto fail;
	}
	for (size_t i = 0; i < ns; i++) {
		attn_site *s = &sites[i];
		TSNode stmt = own_statement(m, ta_edits_node(m, s->op->span));
		if (ts_node_is_null(stmt)) {
			*why = ta_xasprintf("line %u: the %s is not a statement of its own line", s->op->span.line,
					    s->op->kind == TA_OP_LOAD ? "load" : "tl.where");
			goto fail;
		}
		char *kept = attn_kept(m, s);
		int f = ATTN_CUT;
		char *self = s->op->kind == TA_OP_WHERE && !kept ? where_self_assign(m, s, stmt) : NULL;
		if (self) {
			f = ATTN_SKIP;  /* x = tl.where(cols < N, x, ...) is x itself on whole blocks */
		} else if (kept || s->op->kind == TA_OP_WHERE) {
			/* The call stays one call: its mask (condition) takes the
			 * flag, which Triton resolves at compile time. */
			char *orig = ta_node_text(m->src, s->at);
			TSNode u = ta_node_unparen(s->at);
			bool po = !ta_node_is(u, "identifier") && !ta_node_is(u, "subscript") && !ta_node_is(u, "call") &&
				  ts_node_eq(u, s->at);
			bool pk = kept && strpbrk(kept, "<>=&|!+-*/ ") != NULL;  /* parentheses for the reader */
			add_cut(&c, ts_node_start_byte(s->at), ts_node_end_byte(s->at),
				ta_xasprintf("%s%s%s if %s else %s%s%s", pk ? "(" : "", kept ? kept : "True", pk ? ")" : "",
					     c.flag, po ? "(" : "", orig, po ? ")" : ""));
			free(orig);
		} else {
			/* a load masked by the block bound alone: no mask, no other */
			TSNode ow;
			load_arg(m, ta_edits_node(m, s->op->span), "other", 2, &ow);
			TSNode prev = ts_node_prev_named_sibling(s->whole);
			if (ts_node_is_null(prev) || !ts_node_is_null(ow)) {
				/* other= goes with the mask: only where both sit last */
				TSNode first = s->whole, last = s->whole;
				if (!ts_node_is_null(ow)) {
					if (ts_node_start_byte(ow) < ts_node_start_byte(first))
						first = ow;
					else
						last = ow;
				}
				prev = ts_node_prev_named_sibling(first);
				if (ts_node_is_null(prev) || !ts_node_eq(ts_node_next_named_sibling(first), last) ||
				    (!ts_node_eq(first, last) && !ts_node_is_null(ts_node_next_named_sibling(last)))) {
					free(kept);
					*why = ta_xasprintf("line %u: the load's mask and other are not its last arguments",
							    s->op->span.line);
					goto fail;
				}
				add_cut(&c, ts_node_end_byte(prev), ts_node_end_byte(last), ta_xstrdup(""));
			} else {
				add_cut(&c, ts_node_end_byte(prev), ts_node_end_byte(s->whole), ta_xstrdup(""));
			}
			f = ATTN_BRANCH;
		}
		free(kept);
		free(self);
		if (nst && ts_node_eq(stmts[nst - 1], stmt)) {
			if (f != form[nst - 1] && (f == ATTN_SKIP || form[nst - 1] == ATTN_SKIP)) {
				*why = ta_xasprintf("line %u: the tl.where shares its statement with another site",
						    s->op->span.line);
				goto fail;
			}
			if (f != form[nst - 1])
				form[nst - 1] = ATTN_BRANCH;  /* both paths whole */
			continue;
		}
		stmts[nst] = stmt;
		form[nst++] = f;
	}
	/* cut_text reads the cuts in document order */
	for (size_t i = 1; i < c.cut_count; i++)
		for (size_t j = i; j > 0 && c.cuts[j].s < c.cuts[j - 1].s; j--) {
			cut t = c.cuts[j];
			c.cuts[j] = c.cuts[j - 1];
			c.cuts[j - 1] = t;
		}
	if (p2_signature(&c, out, why) != 0)
		goto fail;
	for (size_t i = 0; i < nst; i++) {
		uint32_t end, start = ta_edits_stmt_lines(m, stmts[i], &end);
		char *ind = ta_edits_indent_at(m, start);
		const char *unit = ta_edits_indent_unit(m, ind);
		char *orig = ta_edits_text(m, start, end);
		char *even = cut_text(&c, start, end);
		bool nl = end > start && m->src->text[end - 1] == '\n';
		char *rep;
		if (form[i] == ATTN_CUT) {
			rep = ta_xstrdup(even);
		} else {
			char *ro = ta_edits_reindent(orig, unit), *re = ta_edits_reindent(even, unit);
			if (form[i] == ATTN_SKIP)
				rep = ta_xasprintf("%sif not %s:  # whole blocks need no bound\n%s", ind, c.flag, ro);
			else
				rep = ta_xasprintf("%sif %s:\n%s%s%selse:\n%s", ind, c.flag, re, nl ? "" : "\n", ind, ro);
			free(ro);
			free(re);
		}
		ta_edit_replace(out, start, end, rep);
		free(rep);
		free(orig);
		free(even);
		free(ind);
	}
	ta_edit_set_unsafe(out, "assumes the launch of %s passes %s and %s, which the EVEN_N heuristic reads; the bound it "
			   "drops on whole blocks is true on every element there, so the results are the same",
			   k->name, c.K, c.BK);
	ta_edit_set_title(out, "EVEN_N: whole KV blocks of the loop at line %u skip the bound %s (%u site%s) when %s %% %s == 0",
			  l->header.line, c.K, (unsigned)ns, ns == 1 ? "" : "s", c.K, c.BK);
	out->line = l->header.line;
	return p2_done(&c, out, 0);
fail:
	return p2_done(&c, out, -1);
}

/* The detector's side: one finding for a KV loop in the form above. */
static bool p2_attn_report(ta_rule_ctx *rc, size_t li)
{
	p2_ctx c = { .m = rc->m, .k = rc->k, .flag = "EVEN_N" };
	attn_site sites[32];
	size_t ns = attn_sites(&c, li, sites, 32);
	if (!ns)
		return false;
	ta_buf b = TA_BUF_INIT;
	for (size_t i = 0; i < ns; i++) {
		const ta_op *op = sites[i].op;
		ta_buf_printf(&b, "%s%s%s%s%s (line %u)", i == 0 ? "" : i + 1 == ns ? " and " : ", ",
			      op->kind == TA_OP_WHERE ? "the tl.where" : "the load",
			      op->target ? " of `" : "", op->target ? op->target : "", op->target ? "`" : "",
			      op->span.line);
	}
	const ta_loop *lp = &rc->k->loops[li];
	/* the first bound dropped, as written: `cols[:, None] < N_CTX` */
	unsigned d = sites[0].drop;
	size_t t0 = 0;
	while (!(d >> t0 & 1))
		t0++;
	TSNode term = ta_node_unparen(sites[0].terms[t0]);
	char *tt = ta_node_text(rc->m->src, term);
	ta_finding *f = ta_rule_add(rc, sites[0].op->span,
		"the KV loop at line %u bounds every block by `%s` in %s: when %s %% %s == 0 no block is "
		"partial, and an EVEN_N heuristic lets whole blocks skip the bound",
		lp->header.line, tt, b.data, c.K, c.BK);
	free(tt);
	ta_finding_line(f, lp->header.line);
	for (size_t i = 1; i < ns; i++)
		ta_finding_line(f, sites[i].op->span.line);
	ta_buf_free(&b);
	free(c.K);
	free(c.BK);
	return true;
}

static bool has_even(const ta_kernel *k)
{
	for (size_t i = 0; i < k->heuristic_count; i++)
		if (even_flag_name(k->heuristics[i].name))
			return true;
	for (size_t i = 0; i < k->param_count; i++)
		if (even_flag_name(k->params[i].name))
			return true;
	return false;
}

/* Rewrite: EVEN_K heuristic, constexpr and an unmasked branch for the K loop's loads. */
TA_REWRITE(P2, NULL, TA_UNSAFE("assumes every K tile the loop loads starts at a multiple of BLOCK_K inside [0, K), so that K % BLOCK_K == 0 makes each one whole"))
{
	ta_sites s = TA_SITES_INIT;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (!ta_edits_kernel_selected(kernel_or_host, ki))
			continue;
		const ta_kernel *k = &m->kernels[ki];
		if (has_even(k))
			continue;
		for (size_t li = 0; li < k->loop_count; li++) {
			/* The loops the detector reports: every tile load masked. */
			size_t loads = 0, masked = 0, first, end = ta_loop_ops(k, (int)li, &first);
			bool at = line == 0 || ta_edits_at_line(k->loops[li].header, line);
			for (size_t i = first; i < end; i++) {
				const ta_op *op = &k->ops[i];
				if (op->kind == TA_OP_LOAD && op->loop == (int)li &&
				    (op->ptr_shape == TA_PTR_1D || op->ptr_shape == TA_PTR_2D) &&
				    !(op->has_mask && p2_lookahead(m, k, op, (int)li))) {
					loads++;
					masked += op->has_mask;
					at |= op->has_mask && ta_edits_at_line(op->span, line);
				}
			}
			char *w = NULL;
			/* A KV loop bounding its blocks by the sequence: EVEN_N. */
			p2_ctx ac = { .m = m, .k = k, .flag = "EVEN_N" };
			attn_site as[32];
			size_t an = attn_sites(&ac, li, as, 32);
			bool at_attn = line == 0 || ta_edits_at_line(k->loops[li].header, line);
			for (size_t i = 0; i < an; i++)
				at_attn |= ta_edits_at_line(as[i].op->span, line);
			free(ac.K);
			free(ac.BK);
			if (an) {
				if (at_attn && ta_sites_made(&s, p2_attn_loop(m, k, li, out, &w), &w, out))
					return 0;
				continue;
			}
			if (!masked || masked != loads || !at)
				continue;
			if (ta_sites_made(&s, p2_loop(m, k, li, out, &w), &w, out))
				return 0;
		}
	}
	return ta_sites_end(&s, why_not, line, "no loop whose loads are all masked");
}
