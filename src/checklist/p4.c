/* P4: matmul tiles taken from the grid in launch order. Its detector and its
 * rewrite.
 *
 * A dot kernel launched on a grid of (m tiles, n tiles) or (m tiles, n
 * tiles, batch) that takes its output tile straight from tl.program_id(0)
 * and tl.program_id(1) runs neighbouring programs (axis 0 varies fastest)
 * on one tile of one operand each while they stream through all of the
 * other. The edit groups the tile ids in the kernel: the program's place in
 * launch order is decoded GROUP_SIZE_M rows at a time. The decoding is a
 * bijection of the grid onto itself, so every tile is still computed once,
 * by the same code: the edit is safe wherever programs do not wait on each
 * other, and it leaves the grid, the launch and the batch axis alone. */
#include "config.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "analyze/flat.h"
#include "analyze/values.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Whether k, or a @jit helper it calls (three levels down), has an op
 * that pick accepts: a dot kernel whose loop is split into a helper is
 * still a dot kernel. */
static bool reaches(const ta_model *m, const ta_kernel *k, bool (*pick)(const ta_op *), int depth)
{
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (pick(op))
			return true;
		if (op->kind == TA_OP_HELPER_CALL && depth > 0 && op->helper >= 0 &&
		    (size_t)op->helper < m->kernel_count && &m->kernels[op->helper] != k &&
		    reaches(m, &m->kernels[op->helper], pick, depth - 1))
			return true;
	}
	return false;
}

static bool is_dot(const ta_op *op)
{
	return op->kind == TA_OP_DOT;
}

/* A load of a 2D tile: through raw pointers, a block pointer or a tensor
 * descriptor (the order of the tiles matters to all three). */
static bool tile_load(const ta_op *op)
{
	return (op->kind == TA_OP_LOAD && (op->ptr_shape == TA_PTR_2D || op->ptr_shape == TA_PTR_BLOCK_PTR)) ||
	       op->kind == TA_OP_DESC_LOAD;
}

/* A dot kernel reading tiles. */
static bool tile_dot(const ta_model *m, const ta_kernel *k)
{
	return reaches(m, k, is_dot, 3) && reaches(m, k, tile_load, 3);
}

/* ---- the kernel's tile ids ------------------------------------------------ */

/* The axis a tl.program_id / tl.num_programs op reads: its literal argument
 * (positional or axis=), 0 without one, -1 when computed. */
static int op_axis(const ta_model *m, const ta_op *op)
{
	const ta_kwarg *kw = ta_kwarg_find(op->kwargs, op->kwarg_count, "axis");
	char *t = kw ? ta_xstrdup(kw->value) :
		  op->arg_count ? ta_edits_text(m, op->args[0].start, op->args[0].end) : ta_xstrdup("0");
	int axis = !strcmp(t, "0") ? 0 : !strcmp(t, "1") ? 1 : !strcmp(t, "2") ? 2 : -1;
	free(t);
	return axis;
}

typedef enum p4_ids {
	P4_IDS_NONE,              /* not both of axes 0 and 1 are read */
	P4_IDS_GROUPED,           /* decoded with grouping (GROUP_*, swizzle2d, num_programs) */
	P4_IDS_DECODED,           /* decoded some other way (// and % on them) */
	P4_IDS_COMPUTED,          /* an axis that is not a literal */
	P4_IDS_AS_LAUNCHED        /* both read, used as they come */
} p4_ids;

/* Whether the left side of a `//` or `%` inside the kernel reads a program
 * id of axis 0 or 1, directly or through the name it was bound to. */
static bool ids_divided(const ta_model *m, const ta_kernel *k, unsigned axes)
{
	bool found = false;
	ta_walk w;
	ta_walk_start(&w, k->node);
	do {
		TSNode n = ta_walk_node(&w);
		TSNode op = ta_node_is(n, "binary_operator") ? ta_node_field(n, "operator") : (TSNode){ 0 };
		if (ts_node_is_null(op) || !(ta_node_is(op, "//") || ta_node_is(op, "%")))
			continue;
		TSNode left = ta_node_field(n, "left");
		uint32_t ls = ts_node_start_byte(left), le = ts_node_end_byte(left);
		for (size_t i = 0; i < k->op_count && !found; i++) {
			const ta_op *o = &k->ops[i];
			int axis = o->kind == TA_OP_PROGRAM_ID ? op_axis(m, o) : -1;
			if (axis < 0 || !(axes >> axis & 1))
				continue;
			found = (o->span.start >= ls && o->span.end <= le) ||
				(o->target && ta_node_contains_identifier(m->src, left, o->target));
		}
	} while (!found && ta_walk_next(&w, true));
	ta_walk_finish(&w);
	return found;
}

/* Whether an identifier of k names a group (GROUP_SIZE_M, num_pid_in_group,
 * group_id): the decoding groups the tiles. */
static bool names_a_group(const ta_model *m, const ta_kernel *k)
{
	bool found = false;
	ta_walk w;
	ta_walk_start(&w, k->node);
	do {
		TSNode n = ta_walk_node(&w);
		if (!ta_node_is(n, "identifier"))
			continue;
		const char *t = m->src->text + ts_node_start_byte(n);
		for (uint32_t i = 0; i + 5 <= ts_node_end_byte(n) - ts_node_start_byte(n) && !found; i++)
			found = !strncasecmp(t + i, "group", 5);
	} while (!found && ta_walk_next(&w, true));
	ta_walk_finish(&w);
	return found;
}

/* Which program ids k reads, itself or in the @jit helpers it calls (two
 * levels down: `pid_m, pid_n = tile_of_program()`): seen[axis]. */
static p4_ids ids_read(const ta_model *m, const ta_kernel *k, unsigned axes, bool seen[3], int depth)
{
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->kind == TA_OP_NUM_PROGRAMS && op_axis(m, op) >= 0 && (axes >> op_axis(m, op) & 1))
			return P4_IDS_GROUPED;
		if (op->kind == TA_OP_OTHER && op->callee && strstr(op->callee, "swizzle2d"))
			return P4_IDS_GROUPED;
		if (op->kind == TA_OP_HELPER_CALL && depth > 0 && op->helper >= 0 &&
		    (size_t)op->helper < m->kernel_count && &m->kernels[op->helper] != k) {
			p4_ids h = ids_read(m, &m->kernels[op->helper], axes, seen, depth - 1);
			if (h != P4_IDS_AS_LAUNCHED)
				return h;
		}
		if (op->kind != TA_OP_PROGRAM_ID)
			continue;
		int axis = op_axis(m, op);
		if (axis < 0)
			return P4_IDS_COMPUTED;
		seen[axis] = true;
	}
	if (!ids_divided(m, k, axes))
		return P4_IDS_AS_LAUNCHED;
	return names_a_group(m, k) ? P4_IDS_GROUPED : P4_IDS_DECODED;
}

/* How k takes its tile from the program ids of axes (a bit per axis: the
 * grid's tile counts). */
static p4_ids tile_ids(const ta_model *m, const ta_kernel *k, unsigned axes)
{
	bool seen[3] = { false, false, false };
	p4_ids ids = ids_read(m, k, axes, seen, 2);
	for (int a = 0; a < 3; a++)
		if (ids == P4_IDS_AS_LAUNCHED && (axes >> a & 1) && !seen[a])
			return P4_IDS_NONE;
	return ids;
}

/* ---- the product's structure ------------------------------------------- */

/* The names of k whose value depends on tl.program_id(axis): bound from a
 * read of it, or from a name already in the set, to a fixpoint (`rm = pid_m
 * * BM + ...`, `a_ptrs = a + rm[:, None] * sam`, then `a_ptrs += ...`). */
typedef struct p4_taint {
	char **names;
	size_t n;
	const ta_kernel *k;
	int axis;
} p4_taint;

/* Whether the expression n reads tl.program_id(axis) (a read of the kernel's
 * within it) or an identifier of t. */
static bool taint_reads(const ta_model *m, const p4_taint *t, TSNode n)
{
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	for (size_t i = 0; i < t->k->op_count; i++) {
		const ta_op *op = &t->k->ops[i];
		if (op->kind == TA_OP_PROGRAM_ID && op->span.start >= a && op->span.end <= b &&
		    op_axis(m, op) == t->axis)
			return true;
	}
	for (size_t i = 0; i < t->n; i++)
		if (ta_node_contains_identifier(m->src, n, t->names[i]))
			return true;
	return false;
}

static bool taint_has(const p4_taint *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->names[i], name))
			return true;
	return false;
}

static bool taint_add(const ta_model *m, p4_taint *t, TSNode target)
{
	if (!ta_node_is(target, "identifier"))
		return false;
	char *name = ta_node_text(m->src, target);
	if (taint_has(t, name)) {
		free(name);
		return false;
	}
	t->names = ta_xrealloc(t->names, (t->n + 1) * sizeof *t->names);
	t->names[t->n++] = name;
	return true;
}

static void taint_build(const ta_model *m, const ta_kernel *k, int kernel, int axis, p4_taint *t)
{
	*t = (p4_taint){ .k = k, .axis = axis };
	TSNode body = ta_node_field(k->node, "body");
	size_t first, n = ta_model_refs_within(m->assign_nodes, m->assign_node_count, body, &first);
	for (bool grew = true; grew;) {
		grew = false;
		for (size_t i = first; i < first + n; i++) {
			const ta_node_ref *r = &m->assign_nodes[i];
			if (r->function < 0 || m->functions[r->function].kernel != kernel)
				continue;
			TSNode left = ta_node_unparen(ta_node_field(r->node, "left"));
			TSNode right = ta_node_unparen(ta_node_field(r->node, "right"));
			if (ts_node_is_null(right))
				continue;
			uint32_t nl = ts_node_named_child_count(left), nr = ts_node_named_child_count(right);
			bool pairs = (ta_node_is(left, "pattern_list") || ta_node_is(left, "tuple_pattern")) &&
				     (ta_node_is(right, "expression_list") || ta_node_is(right, "tuple")) && nl == nr;
			if (pairs) {
				/* a, b = x, y: each target from its own value */
				for (uint32_t j = 0; j < nl; j++)
					if (taint_reads(m, t, ts_node_named_child(right, j)))
						grew |= taint_add(m, t, ts_node_named_child(left, j));
			} else if (taint_reads(m, t, right)) {
				if (ta_node_is(left, "identifier"))
					grew |= taint_add(m, t, left);
				for (uint32_t j = 0; j < nl; j++)
					grew |= taint_add(m, t, ts_node_named_child(left, j));
			}
		}
	}
}

static void taint_free(p4_taint *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->names[i]);
	free(t->names);
}

/* Whether k multiplies one operand that follows the tile of axis a and not
 * that of axis b by another that follows b and not a: the two axes are the
 * rows of A and the columns of B of one product. Not: a chunked scan's
 * (tiles, chunks), whose per-chunk state follows both; a kernel whose
 * loads this file does not show (its ids or its loads in a helper), where
 * nothing contradicts the grid. */
static bool operands_split(const ta_model *m, const ta_kernel *k, int kernel, int a, int b)
{
	size_t loads = 0;
	bool reads[2] = { false, false };
	for (size_t i = 0; i < k->op_count; i++) {
		loads += tile_load(&k->ops[i]) && k->ops[i].arg_count;
		if (k->ops[i].kind == TA_OP_PROGRAM_ID) {
			int ax = op_axis(m, &k->ops[i]);
			reads[0] |= ax == a;
			reads[1] |= ax == b;
		}
	}
	if (loads < 2 || !reads[0] || !reads[1])
		return true;
	p4_taint ta, tb;
	taint_build(m, k, kernel, a, &ta);
	taint_build(m, k, kernel, b, &tb);
	bool only_a = false, only_b = false;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (!tile_load(op) || !op->arg_count)
			continue;
		/* the pointer, or the descriptor's offsets */
		TSNode ptr = ta_edits_node(m, op->args[0]);
		bool ra = taint_reads(m, &ta, ptr), rb = taint_reads(m, &tb, ptr);
		only_a |= ra && !rb;
		only_b |= rb && !ra;
	}
	taint_free(&ta);
	taint_free(&tb);
	return only_a && only_b;
}

/* ---- the detector --------------------------------------------------------- */

/* The dot kernels launched with the grid defined at def (one grid variable
 * can serve several launches): named together, so that the finding, made
 * once per kernel, prints once. */
static char *kernels_on_grid(const ta_rule_ctx *c, ta_span def, int dims, unsigned tiles, size_t *count)
{
	const ta_kernel **ks = ta_xcalloc(c->m->launch_count + 1, sizeof *ks);
	size_t n = 0;
	for (size_t i = 0; i < c->m->launch_count; i++) {
		const ta_launch *l = &c->m->launches[i];
		if (l->kernel < 0 || l->grid_dims != dims || l->grid_def_span.start != def.start ||
		    l->grid_def_span.end != def.end)
			continue;
		const ta_kernel *k = &c->m->kernels[l->kernel];
		bool seen = false;   /* one kernel can be launched twice on the grid */
		for (size_t j = 0; j < n && !seen; j++)
			seen = ks[j] == k;
		if (!seen && (k == c->k || (tile_dot(c->m, k) &&
					    tile_ids(c->m, k, tiles) == P4_IDS_AS_LAUNCHED)))
			ks[n++] = k;
	}
	*count = n;
	char *names = ta_rule_kernel_list(ks, n);
	free(ks);
	return names;
}

/* How many tile counts a grid dimension's text holds: triton.cdiv(...)
 * calls and floor divisions (`M // 64`, `(M + 63) // 64`). */
static int tile_counts(const char *t)
{
	int n = 0;
	for (const char *p = t; (p = strstr(p, "cdiv(")); p += 5)
		n++;
	if (n)   /* a // inside cdiv's arguments (out_c // groups) counts no tile */
		return n;
	for (const char *p = t; (p = strstr(p, "//")); p += 2)
		n++;
	return n;
}

/* A tile count over a head dimension (`triton.cdiv(K, meta['BK'])`,
 * `cdiv(head_dim, BLOCK_D)`): a handful of tiles per head, so grouping
 * program ids has nothing to keep together. */
static bool over_head_dim(const char *t)
{
	const char *c = strstr(t, "cdiv(");
	if (!c)
		return false;
	c += 5;
	while (*c == ' ')
		c++;
	size_t n = strcspn(c, ",)");
	while (n && c[n - 1] == ' ')
		n--;
	static const char *const heads[] = { "K", "V", "D", "head_dim", "HEAD_DIM", "headdim", "dstate", NULL };
	for (size_t i = 0; heads[i]; i++)
		if (n == strlen(heads[i]) && !strncmp(c, heads[i], n))
			return true;
	return strcasestr(c, "head") && (size_t)(strcasestr(c, "head") - c) < n;
}

static const char *inline_names(const ta_model *m, TSNode id, void *ctx)
{
	(void)m, (void)id, (void)ctx;
	return TA_VALUES_INLINE;
}

/* Dimension d of launch l's grid with the names it reads written as their
 * values (`n_m` bound to `triton.cdiv(M, 128)` reads as that), or as
 * written when the grid's node is not at hand. Caller frees. */
static char *dim_value(const ta_model *m, const ta_launch *l, int d)
{
	TSNode g = ta_node_unparen(ta_edits_node(m, l->grid_def_span));
	if (ta_node_is(g, "decorated_definition"))
		g = ta_node_field(g, "definition");
	if (ta_node_is(g, "lambda"))
		g = ta_node_unparen(ta_node_field(g, "body"));
	if (ta_node_is(g, "function_definition")) {
		/* def grid(META): ... return (a, b): the returned tuple */
		TSNode body = ta_node_field(g, "body");
		g = (TSNode){ 0 };
		for (uint32_t i = 0; i < ts_node_named_child_count(body); i++) {
			TSNode st = ts_node_named_child(body, i);
			if (ta_node_is(st, "return_statement") && ts_node_named_child_count(st))
				g = ta_node_unparen(ts_node_named_child(st, 0));
		}
		if (ts_node_is_null(g))
			return ta_xstrdup(l->grid_dim_text[d]);
	}
	uint32_t skip = 0;
	if (!ta_node_is(g, "tuple") && !ta_node_is(g, "list")) {
		/* kernel[a, b]: the dimensions are the subscript's, after the kernel */
		TSNode at = ts_node_named_descendant_for_byte_range(ta_syntax_root(m->syn), l->grid_span.start,
								     l->grid_span.start);
		g = ta_node_ancestor(at, "subscript");
		skip = 1;
	}
	if (!ts_node_is_null(g)) {
		int at = 0;
		for (uint32_t i = skip; i < ts_node_named_child_count(g); i++) {
			TSNode e = ts_node_named_child(g, i);
			if (ta_node_is(e, "comment"))
				continue;
			if (at++ == d)
				return ta_values_text(m, e, inline_names, NULL);
		}
	}
	return ta_xstrdup(l->grid_dim_text[d]);
}

/* Which axes of launch l's grid count the tiles of one product, through
 * the names the wrapper binds (a bit per axis), or 0: a 2D grid whose two
 * axes are one tile count each, or a 3D grid with two such axes and one
 * that counts none (a batch or head count), in any order. Not: attention's
 * (splits, q blocks, heads), a grid whose m and n blocks are already one
 * axis, a chunked scan's (v blocks, chunks, heads), tiles of a head
 * dimension (a recurrence's (K tiles, V tiles, heads)). */
static unsigned mn_grid(const ta_model *m, const ta_launch *l)
{
	if ((l->grid_dims != 2 && l->grid_dims != 3) || !l->grid_dim_text)
		return 0;
	unsigned tiles = 0;
	int plain = 0;
	for (int d = 0; d < l->grid_dims; d++) {
		char *t = dim_value(m, l, d);
		int n = tile_counts(t);
		bool head = n == 1 && over_head_dim(t);
		free(t);
		if (head || n > 1)
			return 0;
		if (n == 1)
			tiles |= 1u << d;
		else
			plain++;
	}
	bool two = tiles == 3 || tiles == 5 || tiles == 6;
	return two && plain == l->grid_dims - 2 ? tiles : 0;
}

ta_status ta_detect_p4(ta_rule_ctx *c)
{
	if (c->k->launch_count == 0 || c->attention || c->k->persistent || !tile_dot(c->m, c->k))
		return TA_STATUS_NOT_APPLICABLE;
	bool found = false, grouped = false;
	ta_launch_walk walk = ta_index_launch_walk(c->m, c->kernel);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		unsigned tiles = mn_grid(c->m, l);
		int a = tiles & 1 ? 0 : 1, b = tiles & 4 ? 2 : 1;
		if (tiles && !operands_split(c->m, c->k, c->kernel, a, b))
			tiles = 0;
		p4_ids ids = tiles ? tile_ids(c->m, c->k, tiles) : P4_IDS_NONE;
		grouped |= ids == P4_IDS_GROUPED;
		if (ids != P4_IDS_AS_LAUNCHED)
			continue;
		size_t on_grid;
		char *who = kernels_on_grid(c, l->grid_def_span, l->grid_dims, tiles, &on_grid);
		bool several = on_grid > 1;
		char *dims = l->grid_dims == 3 ?
			ta_xasprintf("(%s, %s, %s)", l->grid_dim_text[0], l->grid_dim_text[1], l->grid_dim_text[2]) :
			ta_xasprintf("(%s, %s)", l->grid_dim_text[0], l->grid_dim_text[1]);
		const char *order = tiles & 1 ?
			"programs run with axis 0 varying fastest, so neighbours share one operand's tile and stream "
			"through all of the other's" :
			"programs run with axis 0 varying fastest, and that axis counts no tiles (a batch), so "
			"neighbours take the same tile position of other batch entries";
		ta_finding *f = ta_rule_add(c, l->grid_def_span,
			"dot kernel%s %s take%s %s output tile straight from tl.program_id(%d) and (%d), which count the "
			"tiles of the grid %s: %s; grouping the tile ids by GROUP_SIZE_M%s runs tiles that share rows of "
			"A and columns of B one after the other, so those are read from L2", several ? "s" : "", who,
			several ? "" : "s", several ? "their" : "its", a, b, dims, order,
			tiles & 1 ? "" : " (with the tile axes first)");
		free(dims);
		free(who);
		ta_finding_line(f, l->span.line);
		for (size_t j = 0; j < c->k->op_count; j++) {
			int ax = c->k->ops[j].kind == TA_OP_PROGRAM_ID ? op_axis(c->m, &c->k->ops[j]) : -1;
			if (ax >= 0 && (tiles >> ax & 1))
				ta_finding_line(f, c->k->ops[j].span.line);
		}
		found = true;
	}
	/* a flat grid decoded with grouping (Triton's matmul tutorial) */
	grouped |= !found && tile_ids(c->m, c->k, 1) == P4_IDS_GROUPED;
	return found ? TA_STATUS_APPLIES : grouped ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

/* ---- the rewrite ---------------------------------------------------------- */

/* A name for the edit to bind: base, or base_2, base_3... when the file
 * already uses it or an earlier pick took it. Caller frees. */
static char *fresh_name(const ta_model *m, const char *base, char *const *taken, size_t n_taken)
{
	for (int i = 1; i < 100; i++) {
		char *name = i == 1 ? ta_xstrdup(base) : ta_xasprintf("%s_%d", base, i);
		bool used = ta_edits_name_taken(m, name);
		for (size_t j = 0; j < n_taken && !used; j++)
			used = !strcmp(taken[j], name);
		if (!used)
			return name;
		free(name);
	}
	return NULL;
}

/* Why programs of k may wait on each other, or NULL: a spin lock, a
 * compare-and-swap or exchange (flags one program sets for another), a
 * while loop (polling). Which program takes which tile then orders their
 * turns, and a new order can stall. Caller frees. */
static char *waits_on_others(const ta_model *m, const ta_kernel *k)
{
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->kind == TA_OP_ATOMIC && op->callee &&
		    (strstr(op->callee, "atomic_cas") || strstr(op->callee, "atomic_xchg")))
			return ta_xasprintf("line %u: %s lets one program wait for another (%s), so which program "
					    "takes which tile orders their turns", op->span.line, k->name, op->callee);
	}
	/* a while loop whose test reads memory: polling a flag another
	 * program sets (`while tl.load(flag, volatile=True) == 0`) */
	for (size_t l = 0; l < k->loop_count; l++) {
		const ta_loop *lp = &k->loops[l];
		if (lp->kind != TA_LOOP_WHILE)
			continue;
		for (size_t i = 0; i < k->op_count; i++) {
			const ta_op *op = &k->ops[i];
			if ((op->kind == TA_OP_LOAD || op->kind == TA_OP_ATOMIC) && op->span.start >= lp->iter.start &&
			    op->span.end <= lp->iter.end)
				return ta_xasprintf("line %u: %s waits in a while loop on memory another program may "
						    "write; which program takes which tile would order their turns",
						    lp->span.line, k->name);
		}
	}
	(void)m;
	return NULL;
}


/* The statement `NAME = tl.program_id(axis)` holding op alone, at the top
 * level of the kernel's body, with NAME bound nowhere else in the kernel:
 * the decoding can bind NAME itself. Null node otherwise. */
static TSNode sole_binding(const ta_model *m, const ta_kernel *k, const ta_op *op)
{
	TSNode call = ta_edits_node(m, op->span);
	TSNode as = ts_node_parent(call);
	if (ts_node_is_null(as) || !ta_node_is(as, "assignment") || !op->target)
		return (TSNode){ 0 };
	TSNode left = ta_node_field(as, "left"), right = ta_node_field(as, "right");
	if (!ta_node_is(left, "identifier") || ts_node_start_byte(right) != op->span.start ||
	    ts_node_end_byte(right) != op->span.end)
		return (TSNode){ 0 };
	TSNode stmt = ts_node_parent(as);
	TSNode body = ta_node_field(k->node, "body");
	if (!ta_node_is(stmt, "expression_statement") || !ts_node_eq(ts_node_parent(stmt), body))
		return (TSNode){ 0 };
	ta_edits_defs d = { .n = 0 };
	ta_edits_find_defs(m, body, op->target, &d);
	if (d.n != 1 || d.more)
		return (TSNode){ 0 };
	return stmt;
}

/* The first statement of the body, after a docstring. */
static TSNode first_statement(const ta_kernel *k)
{
	TSNode body = ta_node_field(k->node, "body");
	uint32_t n = ts_node_named_child_count(body);
	for (uint32_t i = 0; i < n; i++) {
		TSNode s = ts_node_named_child(body, i);
		if (ta_node_is(s, "comment"))
			continue;
		if (i + 1 < n && ta_node_is(s, "expression_statement") && ts_node_named_child_count(s) == 1 &&
		    ta_node_is(ts_node_named_child(s, 0), "string"))
			continue;
		return s;
	}
	return (TSNode){ 0 };
}

/* Whether k or a @jit helper it calls (two levels down) reads a program
 * id itself: a helper would see the launch order, not the grouped tile. */
static const ta_kernel *helper_reading_ids(const ta_model *m, const ta_kernel *k, int depth)
{
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->kind != TA_OP_HELPER_CALL || op->helper < 0 || (size_t)op->helper >= m->kernel_count)
			continue;
		const ta_kernel *h = &m->kernels[op->helper];
		if (h == k)
			continue;
		for (size_t j = 0; j < h->op_count; j++)
			if (h->ops[j].kind == TA_OP_PROGRAM_ID || h->ops[j].kind == TA_OP_NUM_PROGRAMS)
				return h;
		const ta_kernel *deeper = depth > 0 ? helper_reading_ids(m, h, depth - 1) : NULL;
		if (deeper)
			return deeper;
	}
	return NULL;
}

/* Whether one of k's launches is on line (its call or its grid). */
static bool launched_at(const ta_model *m, size_t ki, uint32_t line)
{
	if (line == 0)
		return true;
	const ta_kernel *k = &m->kernels[ki];
	if (line >= k->span.line && line <= k->span.end_line)
		return true;
	ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));)
		if (ta_edits_at_line(l->span, line) || ta_edits_at_line(l->grid_def_span, line) ||
		    ta_edits_at_line(l->grid_span, line))
			return true;
	return false;
}

enum { P4_GROUP = 8 };

static int p4_one(const ta_model *m, const ta_kernel *k, ta_edit *out, char **why)
{
	char *wait = waits_on_others(m, k);
	if (wait) {
		int r = ta_edits_refuse(why, "%s", wait);
		free(wait);
		return r;
	}
	const ta_kernel *h = helper_reading_ids(m, k, 2);
	if (h)
		return ta_edits_refuse(why, "line %u: the helper %s reads the program id itself, and would see the "
					"launch order, not the grouped tile", h->span.line, h->name);
	TSNode first = first_statement(k);
	if (ts_node_is_null(first))
		return ta_edits_refuse(why, "line %u: %s has no statement to put the decoding before",
				       k->span.line, k->name);
	/* The names the decoding binds; a program id bound alone at the top of
	 * the body keeps its name (the decoding binds it), every other read of
	 * program_id(0) or (1) becomes the decoded id. */
	static const char *const bases[] = { "GROUP_SIZE_M", "tiles_0", "tiles_1", "tile_id", "group_width",
					      "group_start", "group_rows", "tile_0", "tile_1" };
	enum { N_NAMES = sizeof bases / sizeof *bases };
	char *names[N_NAMES] = { 0 };
	size_t named = 0;
	for (; named < N_NAMES; named++)
		if (!(names[named] = fresh_name(m, bases[named], names, named)))
			break;
	int rc = 0;
	if (named < N_NAMES) {
		rc = ta_edits_refuse(why, "line %u: no free name for the decoding in %s", k->span.line, k->name);
		goto done;
	}
	const char *id_name[2] = { names[7], names[8] };
	TSNode bound[2];
	memset(bound, 0, sizeof bound);
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		int axis = op->kind == TA_OP_PROGRAM_ID ? op_axis(m, op) : -1;
		if (axis < 0 || axis > 1 || !ts_node_is_null(bound[axis]))
			continue;
		TSNode s = sole_binding(m, k, op);
		if (!ts_node_is_null(s)) {
			bound[axis] = s;
			id_name[axis] = op->target;
		}
	}
	char *tl = ta_edits_module(m, "triton.language");
	if (!tl) {
		rc = ta_edits_refuse(why, "line %u: the file does not import triton.language", k->span.line);
		goto done;
	}
	char *in = ta_edits_indent_at(m, ts_node_start_byte(first));
	ta_buf b = TA_BUF_INIT;
	ta_buf_printf(&b, "%s# P4: neighbouring programs take neighbouring tiles, %s rows of axis 0 at a time,\n",
		      in, names[0]);
	ta_buf_printf(&b, "%s# so the tiles of A and B they share are read from L2 (same tiles, other order)\n", in);
	ta_buf_printf(&b, "%s%s = %d\n", in, names[0], P4_GROUP);
	ta_buf_printf(&b, "%s%s = %s.num_programs(0)\n", in, names[1], tl);
	ta_buf_printf(&b, "%s%s = %s.num_programs(1)\n", in, names[2], tl);
	ta_buf_printf(&b, "%s%s = %s.program_id(1) * %s + %s.program_id(0)\n", in, names[3], tl, names[1], tl);
	ta_buf_printf(&b, "%s%s = %s * %s\n", in, names[4], names[0], names[2]);
	ta_buf_printf(&b, "%s%s = %s // %s * %s\n", in, names[5], names[3], names[4], names[0]);
	ta_buf_printf(&b, "%s%s = %s.minimum(%s - %s, %s)\n", in, names[6], tl, names[1], names[5], names[0]);
	ta_buf_printf(&b, "%s%s = %s + %s %% %s %% %s\n", in, id_name[0], names[5], names[3], names[4], names[6]);
	ta_buf_printf(&b, "%s%s = %s %% %s // %s\n", in, id_name[1], names[3], names[4], names[6]);
	free(in);
	free(tl);
	char *block = ta_buf_steal(&b);
	/* The block goes before the first statement, in place of a bound
	 * program id when that statement is one; the other bound one goes. */
	uint32_t at = ta_edits_line_start(m, ts_node_start_byte(first));
	bool placed = false;
	for (int axis = 0; axis < 2 && rc == 0; axis++) {
		if (ts_node_is_null(bound[axis]))
			continue;
		uint32_t end;
		uint32_t start = ta_edits_stmt_lines(m, bound[axis], &end);
		if (start == UINT32_MAX) {
			rc = ta_edits_refuse(why, "line %zu: the program id shares its line with other code",
					     ta_node_line(bound[axis]));
		} else {
			ta_edit_replace(out, start, end, start == at ? block : "");
			placed |= start == at;
		}
	}
	if (rc == 0 && !placed)
		ta_edit_replace(out, at, at, block);
	free(block);
	if (rc)
		goto done;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		int axis = op->kind == TA_OP_PROGRAM_ID ? op_axis(m, op) : -1;
		if (axis < 0 || axis > 1)
			continue;
		if (!ts_node_is_null(bound[axis]) && op->span.start >= ts_node_start_byte(bound[axis]) &&
		    op->span.end <= ts_node_end_byte(bound[axis]))
			continue;
		ta_edit_replace(out, op->span.start, op->span.end, id_name[axis]);
	}
	ta_edit_set_title(out, "group %s's tile ids by %d rows of axis 0", k->name, P4_GROUP);
	out->line = ts_node_start_point(first).row + 1;
done:
	for (size_t i = 0; i < named; i++)
		free(names[i]);
	return rc;
}

/* Rewrite: the tile ids decoded GROUP_SIZE_M rows at a time, in the kernel. */
TA_REWRITE(P4, NULL, TA_SAFE)
{
	ta_sites s = TA_SITES_INIT;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (!ta_edits_kernel_selected(kernel_or_host, ki))
			continue;
		const ta_kernel *k = &m->kernels[ki];
		if (k->is_helper || k->persistent || !tile_dot(m, k) || !launched_at(m, ki, line))
			continue;
		unsigned tiles = 0;
		const ta_launch *other = NULL;
		ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
		for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
			unsigned t = mn_grid(m, l);
			if (t && t != 3)
				other = l;
			tiles |= t;
		}
		if (!tiles || tile_ids(m, k, tiles) != P4_IDS_AS_LAUNCHED)
			continue;
		if (other) {
			ta_sites_refuse(&s, ta_xasprintf("line %u: %s's grid has its tiles on axes %d and %d: putting "
							 "them first changes the grid and the kernel together, which is "
							 "done by hand", other->span.line, k->name, tiles & 1 ? 0 : 1,
							 tiles & 4 ? 2 : 1));
			continue;
		}
		char *w = NULL;
		if (ta_sites_made(&s, p4_one(m, k, out, &w), &w, out))
			return 0;
	}
	return ta_sites_end(&s, why_not, line, "no dot kernel taking its tiles from the grid in launch order");
}
