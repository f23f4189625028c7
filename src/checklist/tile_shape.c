/* Whether a raw 2D access reads a tile: the shapes S1's detector and its
 * rewrite both leave alone, by value.
 *
 * A pointer of two axes is a tile only when each axis holds distinct rows
 * or columns of some length above one:
 *
 *	b_ptrs = b + (offs_k[:, None] // 8) * stride_bk + offs_n[None, :] * stride_bn
 *
 * reads each packed row 8 times (int4 weights unpacked in registers), and
 *
 *	a_ptrs = a + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
 *
 * with offs_m = pid * BLOCK_M + tl.arange(0, BLOCK_M) and BLOCK_M = 1 in
 * every config is one row (a GEMV's activation). A tensor descriptor loads
 * neither as written. The offsets are read through names (analyze/values.h)
 * and a block's values through every config the autotune can be given,
 * also where the configs function is picked by module-level branches
 * (`get_configs = get_configs_amd if IS_HIP else get_configs_nvidia`). */
#include "config.h"
#include "analyze/values.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

#define MAX_SOURCES 8

/* The module-level statements under n (a module, or a block of one): the
 * ones inside if, elif, else and try blocks too. */
static void module_statements(TSNode n, void (*each)(TSNode stmt, void *ctx), void *ctx, int depth)
{
	if (depth > 4)
		return;
	for (uint32_t i = 0; i < ta_node_named_count(n); i++) {
		TSNode s = ta_node_named_child(n, i);
		if (ta_node_is(s, "if_statement") || ta_node_is(s, "try_statement") || ta_node_is(s, "elif_clause") ||
		    ta_node_is(s, "else_clause") || ta_node_is(s, "except_clause") || ta_node_is(s, "block"))
			module_statements(s, each, ctx, depth + 1);
		else
			each(s, ctx);
	}
}

/* The nodes that may build the configs a name stands for at module level:
 * each function definition of that name, each list bound to it, and what
 * each name bound to it may stand for, in turn. */
typedef struct config_sources {
	const ta_model *m;
	const char *name;
	TSNode node[MAX_SOURCES];
	size_t n;
	char *alias[MAX_SOURCES];
	size_t nalias;
	bool unknown;             /* a binding that is neither */
} config_sources;

static void config_source(TSNode s, void *ctx)
{
	config_sources *cs = ctx;
	if (ta_node_is(s, "decorated_definition"))
		s = ta_node_field(s, "definition");
	if (ta_node_is(s, "expression_statement"))
		s = ta_node_named_child(s, 0);
	if (ta_node_is(s, "function_definition")) {
		if (ta_node_text_eq(cs->m->src, ta_node_field(s, "name"), cs->name)) {
			if (cs->n < MAX_SOURCES)
				cs->node[cs->n++] = s;
			else
				cs->unknown = true;
		}
		return;
	}
	if (!ta_node_is(s, "assignment") || !ta_node_text_eq(cs->m->src, ta_node_field(s, "left"), cs->name))
		return;
	TSNode r = ta_node_unparen(ta_node_field(s, "right"));
	if (ta_node_is(r, "identifier") && cs->nalias < MAX_SOURCES)
		cs->alias[cs->nalias++] = ta_node_text(cs->m->src, r);
	else if ((ta_node_is(r, "list") || ta_node_is(r, "list_comprehension")) && cs->n < MAX_SOURCES)
		cs->node[cs->n++] = r;
	else
		cs->unknown = true;
}

/* Fills out[] with what name may build its configs from; false when some
 * binding of it is not followed. */
static bool sources_of(const ta_model *m, const char *name, TSNode *out, size_t *n, int depth)
{
	if (depth > 3)
		return false;
	config_sources cs = { .m = m, .name = name };
	module_statements(ta_syntax_root(m->syn), config_source, &cs, 0);
	bool ok = !cs.unknown && (cs.n || cs.nalias);
	for (size_t i = 0; i < cs.n && ok; i++) {
		if (*n >= MAX_SOURCES)
			ok = false;
		else
			out[(*n)++] = cs.node[i];
	}
	for (size_t i = 0; i < cs.nalias; i++) {
		if (ok)
			ok = sources_of(m, cs.alias[i], out, n, depth + 1);
		free(cs.alias[i]);
	}
	return ok;
}

/* The least and greatest of the literal integers in the list or tuple r;
 * false when r is not such a list. */
static bool int_list_range(const ta_model *m, TSNode r, long *lo, long *hi)
{
	r = ta_node_unparen(r);
	if (!ta_node_is(r, "list") && !ta_node_is(r, "tuple"))
		return false;
	bool any = false;
	for (uint32_t i = 0; i < ta_node_named_count(r); i++) {
		long v;
		if (!ta_values_int(m, ta_node_named_child(r, i), &v))
			return false;
		*lo = any && *lo < v ? *lo : v;
		*hi = any && *hi > v ? *hi : v;
		any = true;
	}
	return any;
}

/* The for clause of the comprehension p that binds the name `want`, or a
 * null node. */
static TSNode comprehension_clause(const ta_model *m, TSNode p, const char *want)
{
	for (uint32_t i = 0; i < ta_node_named_count(p); i++) {
		TSNode fc = ta_node_named_child(p, i);
		if (ta_node_is(fc, "for_in_clause") && ta_node_is(ta_node_field(fc, "left"), "identifier") &&
		    ta_node_text_eq(m->src, ta_node_field(fc, "left"), want))
			return fc;
	}
	return (TSNode){ 0 };
}

/* The literal integers a for statement or comprehension around n (inside
 * scope) gives the identifier id when it iterates a list or tuple of them:
 * `for M in [1]`, `[Config({"BK": bk}) for bk in [64, 128]]` (a
 * comprehension's if clause only narrows them: the range still bounds
 * them). *lo and *hi get their least and greatest; false when not such a
 * name. */
static bool loop_values(const ta_model *m, TSNode id, TSNode scope, long *lo, long *hi)
{
	char *want = ta_node_text(m->src, id);
	bool ok = false;
	for (TSNode p = ta_node_parent(id); !ts_node_is_null(p) && ts_node_start_byte(p) >= ts_node_start_byte(scope);
	     p = ta_node_parent(p)) {
		if (ta_node_is(p, "list_comprehension") || ta_node_is(p, "generator_expression")) {
			TSNode fc = comprehension_clause(m, p, want);
			if (ts_node_is_null(fc))
				continue;
			ok = int_list_range(m, ta_node_field(fc, "right"), lo, hi);
			break;
		}
		if (!ta_node_is(p, "for_statement"))
			continue;
		TSNode left = ta_node_field(p, "left");
		if (!ta_node_is(left, "identifier") || ts_node_start_byte(left) == ts_node_start_byte(id) ||
		    !ta_node_text_eq(m->src, left, want))
			continue;
		ok = int_list_range(m, ta_node_field(p, "right"), lo, hi);
		break;
	}
	free(want);
	return ok;
}

bool ta_configs_range(const ta_model *m, TSNode n, const char *name, long *lo, long *hi)
{
	char *q1 = ta_xasprintf("\"%s\"", name), *q2 = ta_xasprintf("'%s'", name);
	bool any = false, bad = false;
	TSTreeCursor cur = ts_tree_cursor_new(n);
	for (;;) {
		TSNode p = ts_tree_cursor_current_node(&cur);
		TSNode key = ta_node_field(p, "key");
		if (ta_node_is(p, "pair") && (ta_node_text_eq(m->src, key, q1) || ta_node_text_eq(m->src, key, q2))) {
			TSNode v = ta_node_unparen(ta_node_field(p, "value"));
			long a, b;
			if (ta_values_int(m, v, &a))
				b = a;
			else if (!ta_node_is(v, "identifier") || !loop_values(m, v, n, &a, &b))
				bad = true;
			if (!bad) {
				*lo = any && *lo < a ? *lo : a;
				*hi = any && *hi > b ? *hi : b;
				any = true;
			}
		}
		if (bad || !ta_cursor_next(&cur, true) ||
		    ts_node_end_byte(ts_tree_cursor_current_node(&cur)) > ts_node_end_byte(n))
			break;
	}
	ts_tree_cursor_delete(&cur);
	free(q1);
	free(q2);
	return any && !bad;
}

/* Whether every config k's autotune may be given sets the constexpr name
 * to 1. */
static bool configs_all_one(const ta_model *m, const ta_kernel *k, const char *name)
{
	const ta_autotune *at = k->autotune;
	if (!at)
		return false;
	/* the configs the model read already: one that says otherwise ends it
	 * before the module is searched */
	for (size_t i = 0; i < at->config_count; i++)
		for (size_t j = 0; j < at->configs[i].param_count; j++) {
			const ta_kwarg *p = &at->configs[i].params[j];
			if (!strcmp(p->name, name) && p->value && strspn(p->value, "0123456789") == strlen(p->value) &&
			    strcmp(p->value, "1"))
				return false;
		}
	TSNode src[MAX_SOURCES];
	size_t n = 0;
	TSNode cs = ta_node_unparen(ta_edits_node(m, at->configs_span));
	if (ta_node_is(cs, "list") || ta_node_is(cs, "list_comprehension")) {
		src[n++] = cs;
	} else {
		TSNode fn = ta_node_is(cs, "call") ? ta_node_field(cs, "function") : cs;
		if (!ta_node_is(fn, "identifier"))
			return false;
		char *fname = ta_node_text(m->src, fn);
		bool ok = sources_of(m, fname, src, &n, 0);
		free(fname);
		if (!ok)
			return false;
	}
	for (size_t i = 0; i < n; i++) {
		long lo = 0, hi = 0;
		if (!ta_configs_range(m, src[i], name, &lo, &hi) || lo != 1 || hi != 1)
			return false;
	}
	return n > 0;
}

/* Whether the constexpr parameter name of k is 1 wherever k runs: each
 * launch in the file passes 1 for it or leaves it to configs (or a
 * default) that say 1, and no heuristic computes it. */
static bool unit_param(const ta_model *m, const ta_kernel *k, int ki, const char *name)
{
	size_t idx = k->param_count;
	for (size_t i = 0; i < k->param_count; i++)
		if (!strcmp(k->params[i].name, name))
			idx = i;
	if (idx == k->param_count || !k->params[idx].constexpr_)
		return false;
	for (size_t h = 0; h < k->heuristic_count; h++)
		if (!strcmp(k->heuristics[h].name, name))
			return false;
	/* what the launches pass first: most pass a tile above 1 */
	size_t seen = 0, unpassed = 0;
	ta_launch_walk walk = ta_index_launch_walk(m, ki);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk)); seen++) {
		TSNode a = ta_edits_launch_arg_node(m, l, k, idx);
		long v;
		if (ts_node_is_null(a))
			unpassed++;
		else if (!ta_values_int(m, a, &v) || v != 1)
			return false;
	}
	if (seen && !unpassed)
		return true;
	const char *d = k->params[idx].default_value;
	return configs_all_one(m, k, name) || (!k->autotune && d && !strcmp(d, "1"));
}

typedef struct tile_walk {
	const ta_kernel *k;
	int ki;
	int depth;                /* pointers followed to their one binding */
	bool repeats;             /* an axis's offsets divided: rows read again */
	bool unit;                /* an axis of length 1 */
	bool arange;              /* (for one operand) a tl.arange is read */
} tile_walk;

/* Whether n calls triton.language's fn (canonical name, any alias). */
static bool tl_call(const ta_model *m, TSNode n, const char *fn)
{
	if (!ta_node_is(n, "call"))
		return false;
	char *canon = ta_model_canonical(m, ta_node_field(n, "function"));
	bool yes = canon && ta_name_is(canon, fn);
	free(canon);
	return yes;
}

/* tl.arange, and tl.load: a loaded value holds indices from memory, whose
 * division is a gather's. */
static bool is_arange(const ta_model *m, TSNode n)
{
	return tl_call(m, n, "triton.language.arange");
}

static bool is_load(const ta_model *m, TSNode n)
{
	return tl_call(m, n, "triton.language.load");
}

static ta_values_step find_arange(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	tile_walk *w = ctx;
	if (is_arange(m, n)) {
		w->arange = true;
		return TA_VALUES_STOP;
	}
	return is_load(m, n) ? TA_VALUES_SKIP : TA_VALUES_DESCEND;
}

/* An arange of length 1: tl.arange(a, a + 1) by value, or tl.arange(0, B)
 * with B a constexpr parameter that is 1 wherever the kernel runs. */
static bool unit_arange(const ta_model *m, const tile_walk *w, TSNode n)
{
	TSNode a0 = ta_edits_call_arg(m, n, 0, "start"), a1 = ta_edits_call_arg(m, n, 1, "end");
	long s, e;
	if (ts_node_is_null(a0) || ts_node_is_null(a1) || !ta_values_int(m, a0, &s))
		return false;
	if (ta_values_int(m, a1, &e))
		return e - s == 1;
	a1 = ta_node_unparen(a1);
	if (s != 0 || !ta_node_is(a1, "identifier"))
		return false;
	char *name = ta_node_text(m->src, a1);
	bool one = ta_kernel_param(w->k, name) && unit_param(m, w->k, w->ki, name);
	free(name);
	return one;
}

/* The value a pointer or offsets advanced in a loop start from: the one
 * plain binding of the name in the kernel (`a_ptrs = ...` before `a_ptrs
 * += step`), whose shape the advanced value keeps. Null when the name is
 * bound otherwise, twice, or never advanced. The values table's bindings
 * of the name (a binary search), so that a name asked about at every
 * access costs no walk. */
static TSNode advanced_start(const ta_model *m, int ki, TSNode id)
{
	uint32_t a = ts_node_start_byte(id);
	size_t n;
	const ta_values_binding *d = ta_values_bindings(m, m->kernels[ki].node, m->src->text + a,
							ts_node_end_byte(id) - a, &n);
	TSNode found = { 0 };
	size_t plain = 0, augmented = 0;
	for (size_t i = 0; i < n; i++) {
		bool aug = ta_node_is(d[i].binding, "augmented_assignment");
		if (!(aug || ta_node_is(d[i].binding, "assignment")) ||
		    !ts_node_eq(ta_node_field(d[i].binding, "left"), d[i].target))
			continue;
		if (aug)
			augmented++;
		else if (plain++ == 0)
			found = ta_node_field(d[i].binding, "right");
	}
	return plain == 1 && augmented ? found : (TSNode){ 0 };
}

static ta_values_step tile_visit(const ta_model *m, TSNode n, TSNode via, void *ctx);

/* Walks the value of each plain binding of the name id before it in the
 * kernel; false when the walk stopped. */
static bool arms_binding(const ta_model *m, const ta_values_binding *b, TSNode value, void *ctx)
{
	return !ta_values_binding_plain(b) || ta_values_walk(m, value, tile_visit, ctx);
}

static bool arms_visit(const ta_model *m, tile_walk *w, TSNode id)
{
	w->depth++;
	bool go = ta_values_bindings_before(m, m->kernels[w->ki].node, id, arms_binding, w, NULL);
	w->depth--;
	return go;
}

static ta_values_step tile_visit(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	tile_walk *w = ctx;
	/* a name a loop advances (`a_ptrs += step`, `offs_m += BLOCK_M`): where
	 * it starts */
	if (ta_node_is(n, "identifier") && w->depth < 4) {
		char *name = ta_node_text(m->src, n);
		bool param = ta_kernel_param(w->k, name) != NULL;
		free(name);
		TSNode start = !param && ts_node_is_null(ta_values_def(m, n, NULL)) ? advanced_start(m, w->ki, n) :
											  (TSNode){ 0 };
		if (!ts_node_is_null(start)) {
			w->depth++;
			bool go = ta_values_walk(m, start, tile_visit, w);
			w->depth--;
			return go ? TA_VALUES_SKIP : TA_VALUES_STOP;
		}
		/* a name bound on each arm of an if (`s = out_s` or `s = out_s
		 * - n`): the tile's rows are whatever either arm gives */
		if (!param && ts_node_is_null(ta_values_def(m, n, NULL)))
			return arms_visit(m, w, n) ? TA_VALUES_SKIP : TA_VALUES_STOP;
		return TA_VALUES_DESCEND;
	}
	if (ta_node_is(n, "binary_operator") && ta_node_text_eq(m->src, ta_node_field(n, "operator"), "//")) {
		tile_walk inner = { .k = w->k, .ki = w->ki };
		ta_values_walk(m, ta_node_field(n, "left"), find_arange, &inner);
		long d;
		if (inner.arange && !(ta_values_int(m, ta_node_field(n, "right"), &d) && d == 1)) {
			w->repeats = true;
			return TA_VALUES_STOP;
		}
	} else if (is_arange(m, n) && unit_arange(m, w, n)) {
		w->unit = true;
		return TA_VALUES_STOP;
	}
	/* offsets loaded from memory: a gather's rows, however computed */
	return is_load(m, n) ? TA_VALUES_SKIP : TA_VALUES_DESCEND;
}

/* Walks op's 2D pointer; false when op has none. */
static bool tile_walk_of(const ta_model *m, const ta_kernel *k, const ta_op *op, tile_walk *w)
{
	if (op->ptr_shape != TA_PTR_2D || !op->arg_count)
		return false;
	TSNode p = ta_edits_node(m, op->args[0]);
	if (ts_node_is_null(p))
		return false;
	*w = (tile_walk){ .k = k, .ki = (int)(k - m->kernels) };
	ta_values_walk(m, p, tile_visit, w);
	return true;
}

bool ta_tile_shape(const ta_model *m, const ta_kernel *k, const ta_op *op, bool *rows_repeat)
{
	tile_walk w;
	bool walked = tile_walk_of(m, k, op, &w);
	if (rows_repeat)
		*rows_repeat = walked && w.repeats;
	/* one axis of length 1 leaves a 3D pointer a tile of two */
	return walked && (w.repeats || (w.unit && op->ptr_rank <= 2));
}

bool ta_tile_not_2d(const ta_model *m, const ta_kernel *k, const ta_op *op)
{
	return ta_tile_shape(m, k, op, NULL);
}
