/* What a launch passes (values.h): positional arguments mapped to the
 * kernel's parameters through starred sequences, a tensor's rank as the
 * host states it, and which stride of which tensor a stride argument is.
 *
 *	B, H, N, D = q.shape
 *	kernel[grid](q, k, *q.stride(), *k.stride(), N, BLOCK=64)
 *
 * q has 4 dimensions, so `*q.stride()` passes parameters 2-5 and k's
 * strides start at 6; N is the parameter before BLOCK however many k
 * has (a launch passes every parameter without a default once). */
#include "config.h"
#include "analyze/values.h"
#include "analyze/flat.h"
#include "analyze/index.h"
#include "analyze/syntax.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

/* A rank question follows names and facts: at most RANK_STEPS of them in
 * all (x.shape == y.shape both ways in a long function would otherwise
 * branch at every assert). */
enum { RANK_STEPS = 64, RANK_MAX = 64 };

static TSNode null_node(void)
{
	TSNode n = { 0 };
	return n;
}

static bool is_kind(TSNode n, const char *k)
{
	return !ts_node_is_null(n) && ta_node_is(n, k);
}

static uint32_t scope_key(TSNode n)
{
	TSNode fn = ta_node_ancestor(n, "function_definition");
	return ts_node_is_null(fn) ? 0 : ts_node_start_byte(fn) + 1;
}

/* `x.name(...)` or `x.name`: the object x when it is an identifier and the
 * attribute is name; *call gets the call (a null node for the attribute). */
static TSNode method_of(const ta_model *m, TSNode n, const char *name, TSNode *call)
{
	n = ta_node_unparen(n);
	*call = null_node();
	if (is_kind(n, "call")) {
		*call = n;
		n = ta_node_field(n, "function");
	}
	if (!is_kind(n, "attribute") || !ta_node_text_eq(m->src, ta_node_field(n, "attribute"), name))
		return null_node();
	return ta_node_unparen(ta_node_field(n, "object"));
}

/* The arguments of a call that are neither keywords nor splats: their
 * count, or -1 when a splat makes it unknown. */
static int positional_count(TSNode call)
{
	TSNode args = ta_node_field(call, "arguments");
	uint32_t n = ta_node_named_count(args);
	int c = 0;
	for (uint32_t i = 0; i < n; i++) {
		TSNode a = ta_node_named_child(args, i);
		if (is_kind(a, "list_splat") || is_kind(a, "dictionary_splat"))
			return -1;
		if (!is_kind(a, "keyword_argument") && !is_kind(a, "comment"))
			c++;
	}
	return c;
}

static TSNode first_arg(TSNode call)
{
	TSNode a = ta_node_named_child(ta_node_field(call, "arguments"), 0);
	return is_kind(a, "keyword_argument") ? null_node() : ta_node_unparen(a);
}

/* How many dimensions a shape argument list gives: one tuple or list
 * (`torch.empty((M, N))`), else each positional argument a size
 * (`x.view(M, -1)`); 0 when a splat or a name hides it. */
static size_t shape_args(const ta_model *m, TSNode call)
{
	TSNode a0 = first_arg(call);
	if (is_kind(a0, "tuple") || is_kind(a0, "list")) {
		uint32_t n = ta_node_named_count(a0);
		for (uint32_t i = 0; i < n; i++)
			if (is_kind(ta_node_named_child(a0, i), "list_splat"))
				return 0;
		return n;
	}
	int c = positional_count(call);
	if (c == 1 && !is_kind(a0, "integer") && !is_kind(a0, "binary_operator")) {
		/* one name: a size, or a whole shape (torch.Size, tuple)? */
		long v;
		return ta_values_int(m, a0, &v) ? 1 : 0;
	}
	return c > 0 ? (size_t)c : 0;
}

static size_t rank_of(const ta_model *m, TSNode x, int *steps);

/* The rank of what expression e gives, when the expression says it. */
static size_t rank_of_value(const ta_model *m, TSNode e, int *steps)
{
	e = ta_node_unparen(e);
	if (++*steps > RANK_STEPS)
		return 0;
	if (is_kind(e, "identifier"))
		return rank_of(m, e, steps);
	TSNode call = null_node(), obj;
	if (is_kind(e, "attribute")) {
		obj = ta_node_unparen(ta_node_field(e, "object"));
		return ta_node_text_eq(m->src, ta_node_field(e, "attribute"), "T") ? rank_of_value(m, obj, steps) : 0;
	}
	if (!is_kind(e, "call"))
		return 0;
	call = e;
	TSNode fn = ta_node_field(call, "function");
	char *callee = ta_node_text(m->src, fn);
	size_t r = 0;
	static const char *const alloc[] = { "torch.empty", "torch.zeros", "torch.ones", "torch.rand",
					     "torch.randn", NULL };
	static const char *const like[] = { "torch.empty_like", "torch.zeros_like", "torch.ones_like",
					    "torch.full_like", "torch.rand_like", "torch.randn_like", NULL };
	for (size_t i = 0; alloc[i]; i++)
		if (!strcmp(callee, alloc[i]))
			r = shape_args(m, call);
	if (!strcmp(callee, "torch.full")) {
		TSNode a0 = first_arg(call);
		r = is_kind(a0, "tuple") || is_kind(a0, "list") ? ta_node_named_count(a0) : 0;
	}
	for (size_t i = 0; like[i]; i++)
		if (!strcmp(callee, like[i]))
			r = rank_of_value(m, first_arg(call), steps);
	free(callee);
	if (r || !is_kind(fn, "attribute"))
		return r;
	/* methods of a tensor: those that keep its rank, and those that say
	 * the new one */
	obj = ta_node_unparen(ta_node_field(fn, "object"));
	TSNode attr = ta_node_field(fn, "attribute");
	static const char *const keep[] = { "contiguous", "to", "float", "half", "bfloat16", "clone", "detach",
					    "cuda", "transpose", "type", "requires_grad_", NULL };
	for (size_t i = 0; keep[i]; i++)
		if (ta_node_text_eq(m->src, attr, keep[i]))
			return rank_of_value(m, obj, steps);
	static const char *const reshape[] = { "view", "reshape", "permute", "expand", NULL };
	for (size_t i = 0; reshape[i]; i++)
		if (ta_node_text_eq(m->src, attr, reshape[i]))
			return shape_args(m, call);
	if (ta_node_text_eq(m->src, attr, "t"))
		return 2;
	if (ta_node_text_eq(m->src, attr, "unsqueeze") && positional_count(call) == 1) {
		size_t b = rank_of_value(m, obj, steps);
		return b ? b + 1 : 0;
	}
	return 0;
}

/* ---- what the host states of a tensor's rank --------------------------------- */

/* One statement that says a tensor's rank: `B, H, N, D = x.shape`, or an
 * assert's `x.shape == (B, H, N, D)`, `x.dim() == 4`, `x.ndim == 4`,
 * `len(x.shape) == 4`, `x.shape == y.shape` (other: y). */
typedef struct rfact {
	const char *name;         /* into the file's text */
	uint32_t len;
	uint32_t scope;
	TSNode stmt;              /* the statement: where the fact holds from */
	size_t rank;              /* 0 with other */
	TSNode other;
} rfact;

typedef struct rtable {
	rfact *f;
	size_t n, cap;
} rtable;

static void add_fact(const ta_model *m, rtable *t, TSNode x, TSNode stmt, size_t rank, TSNode other)
{
	if (!is_kind(x, "identifier") || (!rank && ts_node_is_null(other)) || rank > RANK_MAX)
		return;
	rfact *f = TA_PUSH(t->f, t->n, t->cap);
	f->name = m->src->text + ts_node_start_byte(x);
	f->len = ts_node_end_byte(x) - ts_node_start_byte(x);
	f->scope = scope_key(stmt);
	f->stmt = stmt;
	f->rank = rank;
	f->other = other;
}

/* The tensor whose shape e reads: x for `x.shape`, `x.size()`, and the
 * rank's reads `x.dim()`, `x.ndim`, `len(x.shape)` (*dims true). */
static TSNode shape_read(const ta_model *m, TSNode e, bool *dims)
{
	TSNode call, x;
	e = ta_node_unparen(e);
	*dims = false;
	if (!ts_node_is_null(x = method_of(m, e, "shape", &call)) && ts_node_is_null(call))
		return x;
	if (!ts_node_is_null(x = method_of(m, e, "size", &call)) && !ts_node_is_null(call) &&
	    positional_count(call) == 0)
		return x;
	*dims = true;
	if ((!ts_node_is_null(x = method_of(m, e, "dim", &call)) && !ts_node_is_null(call) &&
	     positional_count(call) == 0) ||
	    (!ts_node_is_null(x = method_of(m, e, "ndim", &call)) && ts_node_is_null(call)))
		return x;
	if (is_kind(e, "call") && ta_node_text_eq(m->src, ta_node_field(e, "function"), "len") &&
	    positional_count(e) == 1) {
		bool inner;
		x = shape_read(m, first_arg(e), &inner);
		if (!inner)
			return x;
	}
	return null_node();
}

/* The facts of one comparison `a == b [== c ...]`. */
static void compare_facts(const ta_model *m, rtable *t, TSNode cmp, TSNode stmt)
{
	uint32_t n = ta_node_named_count(cmp);
	for (uint32_t i = 0; i + 1 < n; i++) {
		for (uint32_t j = i + 1; j < n; j++) {
			TSNode a = ta_node_unparen(ta_node_named_child(cmp, i)), b = ta_node_unparen(ta_node_named_child(cmp, j));
			for (int side = 0; side < 2; side++) {
				TSNode u = side ? b : a, v = side ? a : b;
				bool udims, vdims;
				TSNode x = shape_read(m, u, &udims), y = shape_read(m, v, &vdims);
				if (ts_node_is_null(x))
					continue;
				long r;
				if (udims && ta_values_int(m, v, &r) && r > 0)
					add_fact(m, t, x, stmt, (size_t)r, null_node());
				else if (!udims && (is_kind(v, "tuple") || is_kind(v, "list")))
					add_fact(m, t, x, stmt, ta_node_named_count(v), null_node());
				else if (!ts_node_is_null(y) && udims == vdims)
					add_fact(m, t, x, stmt, 0, y);
			}
		}
	}
}

/* The facts of an assert's condition: its `and` operands, each a
 * comparison whose operators are all `==`. */
static void assert_facts(const ta_model *m, rtable *t, TSNode e, TSNode stmt, int depth)
{
	e = ta_node_unparen(e);
	if (depth > 32)
		return;
	if (is_kind(e, "boolean_operator")) {
		if (ta_node_text_eq(m->src, ta_node_field(e, "operator"), "and")) {
			assert_facts(m, t, ta_node_field(e, "left"), stmt, depth + 1);
			assert_facts(m, t, ta_node_field(e, "right"), stmt, depth + 1);
		}
		return;
	}
	if (!is_kind(e, "comparison_operator"))
		return;
	uint32_t c = ta_node_child_count(e);
	for (uint32_t i = 0; i < c; i++) {
		TSNode op = ts_node_child(e, i);
		if (!ts_node_is_named(op) && !ta_node_text_eq(m->src, op, "=="))
			return;
	}
	compare_facts(m, t, e, stmt);
}

/* Facts sorted by name, scope and where they are: a name's facts in a
 * function are one run, in document order. */
static int fact_key_cmp(const rfact *a, const char *name, uint32_t len, uint32_t scope)
{
	if (a->len != len)
		return a->len < len ? -1 : 1;
	int c = memcmp(a->name, name, len);
	if (c)
		return c;
	return a->scope != scope ? (a->scope < scope ? -1 : 1) : 0;
}

static int by_name_scope_start(const void *pa, const void *pb)
{
	const rfact *a = pa, *b = pb;
	int c = fact_key_cmp(a, b->name, b->len, b->scope);
	if (c)
		return c;
	uint32_t x = ts_node_start_byte(a->stmt), y = ts_node_start_byte(b->stmt);
	if (x != y)
		return x < y ? -1 : 1;
	/* in one statement, a stated rank last: read first, going back */
	return (a->rank != 0) - (b->rank != 0);
}

static void *build_facts(const ta_model *m)
{
	rtable *t = ta_xcalloc(1, sizeof *t);
	/* unpacking: `B, H, N, D = x.shape` */
	for (size_t i = 0; i < m->bind_node_count; i++) {
		TSNode b = m->bind_nodes[i].node;
		if (!is_kind(b, "assignment"))
			continue;
		TSNode left = ta_node_unparen(ta_node_field(b, "left")), right = ta_node_field(b, "right");
		bool dims;
		TSNode x = shape_read(m, right, &dims);
		if (ts_node_is_null(x) || dims || (!is_kind(left, "pattern_list") && !is_kind(left, "tuple_pattern")))
			continue;
		uint32_t n = ta_node_named_count(left);
		bool splat = false;
		for (uint32_t j = 0; j < n; j++)
			splat |= is_kind(ta_node_named_child(left, j), "list_splat_pattern");
		if (!splat)
			add_fact(m, t, x, b, n, null_node());
	}
	/* asserts */
	for (size_t h = 0; h < m->host_count; h++)
		for (size_t i = 0; i < m->hosts[h].op_count; i++) {
			const ta_host_op *op = &m->hosts[h].ops[i];
			if (op->kind != TA_HOST_ASSERT)
				continue;
			TSNode s = ta_node_outermost_at(ta_syntax_root(m->syn), op->span.start, op->span.end, "block");
			if (is_kind(s, "assert_statement"))
				assert_facts(m, t, ta_node_named_child(s, 0), s, 0);
		}
	if (t->n)
		qsort(t->f, t->n, sizeof *t->f, by_name_scope_start);
	return t;
}

static void free_facts(void *p)
{
	rtable *t = p;
	if (t)
		free(t->f);
	free(t);
}

/* The rank the facts about x before x's read state, the latest first:
 * facts that run before every such read, x not bound again in between,
 * and that give a rank (`x.shape == y.shape` gives y's when known). */
static size_t rank_from_facts(const ta_model *m, TSNode x, int *steps)
{
	const rtable *t = ta_index_cached(m, build_facts, free_facts);
	uint32_t at = ts_node_start_byte(x), len = ts_node_end_byte(x) - at, scope = scope_key(x);
	const char *name = m->src->text + at;
	/* the run of x's facts in x's function: [lo, hi) */
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (fact_key_cmp(&t->f[mid], name, len, scope) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* then the first of them at or after x's read: [lo, hi) are before it */
	hi = lo;
	for (size_t top = t->n; hi < top;) {
		size_t mid = (hi + top) / 2;
		if (!fact_key_cmp(&t->f[mid], name, len, scope) && ts_node_start_byte(t->f[mid].stmt) < at)
			hi = mid + 1;
		else
			top = mid;
	}
	/* the latest first; one that gives no rank lets an earlier statement's speak */
	uint32_t before = at;
	for (size_t i = hi; i-- > lo;) {
		const rfact *f = &t->f[i];
		if (ts_node_end_byte(f->stmt) > before || !ta_values_runs_before(f->stmt, at) ||
		    ta_values_bound_between(m, x, ts_node_end_byte(f->stmt), at))
			continue;
		if (++*steps > RANK_STEPS)
			return 0;
		size_t r = f->rank ? f->rank : rank_of(m, f->other, steps);
		if (r)
			return r;
		before = ts_node_start_byte(f->stmt);
	}
	return 0;
}

static size_t rank_of(const ta_model *m, TSNode x, int *steps)
{
	if (!is_kind(x, "identifier") || ++*steps > RANK_STEPS)
		return 0;
	TSNode v = ta_values_def(m, x, NULL);
	size_t r = ts_node_is_null(v) ? 0 : rank_of_value(m, v, steps);
	return r ? r : rank_from_facts(m, x, steps);
}

size_t ta_values_rank(const ta_model *m, TSNode x)
{
	int steps = 0;
	return rank_of(m, ta_node_unparen(x), &steps);
}

/* ---- a launch's positional arguments ----------------------------------------- */

typedef enum slot_kind { SLOT_ONE, SLOT_TUPLE, SLOT_STRIDES, SLOT_SHAPE, SLOT_OTHER } slot_kind;

/* One positional argument of a launch and the parameters it fills:
 * [start, start + len). */
typedef struct slot {
	TSNode node;              /* the argument as written */
	slot_kind kind;
	TSNode tensor;            /* x of `*x.stride()`, `*x.shape`, `*x.size()` */
	size_t len;               /* 0: not known */
	size_t start;
	bool placed;              /* start is known */
	bool guessed;             /* len comes from an even split */
	bool assumed;             /* len or start rests on an even split */
} slot;

/* How many arguments `*(a, b)` or `*((a, b) if c else (d, e))` passes: a
 * tuple's length, the same in both branches (mamba's optional strides);
 * 0 when not known. */
static size_t splat_len(TSNode splat)
{
	if (!is_kind(splat, "list_splat") || ta_node_named_count(splat) != 1)
		return 0;
	TSNode e = ta_node_unparen(ta_node_named_child(splat, 0));
	if (is_kind(e, "tuple"))
		return ta_node_named_count(e);
	if (!is_kind(e, "conditional_expression") || ta_node_named_count(e) != 3)
		return 0;
	TSNode a = ta_node_unparen(ta_node_named_child(e, 0)), b = ta_node_unparen(ta_node_named_child(e, 2));
	if (!is_kind(a, "tuple") || !is_kind(b, "tuple") || ta_node_named_count(a) != ta_node_named_count(b))
		return 0;
	return ta_node_named_count(a);
}

static void read_slot(const ta_model *m, const ta_launch *l, size_t j, slot *s)
{
	memset(s, 0, sizeof *s);
	s->node = ta_node_outermost_at(ta_syntax_root(m->syn), l->args[j].start, l->args[j].end, "expression_statement");
	if (m->src->text[l->args[j].start] != '*') {
		s->kind = SLOT_ONE;
		s->len = 1;
		return;
	}
	if ((s->len = splat_len(s->node))) {
		s->kind = SLOT_TUPLE;
		return;
	}
	s->kind = SLOT_OTHER;
	if (!is_kind(s->node, "list_splat") || ta_node_named_count(s->node) != 1)
		return;
	TSNode e = ta_node_named_child(s->node, 0), call, x;
	if (!ts_node_is_null(x = method_of(m, e, "stride", &call)) && !ts_node_is_null(call) &&
	    positional_count(call) == 0)
		s->kind = SLOT_STRIDES;
	else if ((!ts_node_is_null(x = method_of(m, e, "shape", &call)) && ts_node_is_null(call)) ||
		 (!ts_node_is_null(x = method_of(m, e, "size", &call)) && !ts_node_is_null(call) &&
		  positional_count(call) == 0))
		s->kind = SLOT_SHAPE;
	else
		return;
	if (!is_kind(x, "identifier")) {
		s->kind = SLOT_OTHER;
		return;
	}
	s->tensor = x;
	s->len = ta_values_rank(m, x);
}

/* Whether parameter p of k is one the autotuner or a heuristic passes by
 * name: a key of a config's dict, a name the configs vary, a heuristic's
 * name. */
static bool tuner_passes(const ta_kernel *k, const char *p)
{
	for (size_t i = 0; i < k->heuristic_count; i++)
		if (!strcmp(k->heuristics[i].name, p))
			return true;
	const ta_autotune *a = k->autotune;
	if (!a)
		return false;
	for (size_t i = 0; i < a->config_count; i++)
		if (ta_kwarg_find(a->configs[i].params, a->configs[i].param_count, p))
			return true;
	for (size_t i = 0; i < a->vary_count; i++)
		if (!strcmp(a->varies[i], p))
			return true;
	return false;
}

/* How many positional parameters launch l fills, when its keywords say:
 * every parameter before the first one passed by name, at the launch or by
 * the kernel's autotuner or heuristics, as long as the one just before it
 * has no default (a launch must pass it, and could not by position after).
 * Not where the tuner's names are not all known: configs the file does not
 * spell, a kernel wrapped by a call. 0 when unknown. */
static size_t positional_total(const ta_model *m, const ta_launch *l, const ta_kernel *k)
{
	const ta_autotune *a = k->autotune;
	if (k->wrapped || (a && (!a->config_count || a->configs_kind == TA_CONFIGS_UNRESOLVED ||
				 a->configs_kind == TA_CONFIGS_NONE || a->configs_kind == TA_CONFIGS_NAME)))
		return 0;
	for (size_t j = 0; j < l->arg_count; j++)
		if (!strncmp(m->src->text + l->args[j].start, "**", 2))
			return 0;
	size_t first = k->param_count;
	for (size_t p = 0; p < k->param_count && first == k->param_count; p++)
		if (ta_kwarg_find(l->kwargs, l->kwarg_count, k->params[p].name) || tuner_passes(k, k->params[p].name))
			first = p;
	if (!first || k->params[first - 1].default_value)
		return 0;
	return first;
}

/* ---- which parameters the kernel reads as a pointer's strides ----------------- */

typedef struct used_ctx {
	const ta_kernel *k;
	bool *used;               /* per parameter */
} used_ctx;

static ta_values_step mark_params(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	used_ctx *u = ctx;
	if (is_kind(n, "identifier"))
		for (size_t i = 0; i < u->k->param_count; i++)
			if (!u->k->params[i].constexpr_ && ta_node_text_eq(m->src, n, u->k->params[i].name))
				u->used[i] = true;
	return TA_VALUES_DESCEND;
}

/* The terms of an address's sum, through the kernel's names: whether one is
 * the parameter p itself (*based), the others' parameters marked. */
static void address_terms(const ta_model *m, TSNode e, const char *p, bool *based, used_ctx *u, int depth)
{
	e = ta_values_follow(m, e);
	if (depth > 16)
		return;
	if (is_kind(e, "binary_operator") && ta_node_text_eq(m->src, ta_node_field(e, "operator"), "+")) {
		address_terms(m, ta_node_field(e, "left"), p, based, u, depth + 1);
		address_terms(m, ta_node_field(e, "right"), p, based, u, depth + 1);
	} else if (is_kind(e, "identifier") && ta_node_text_eq(m->src, e, p)) {
		*based = true;
	} else {
		ta_values_walk(m, e, mark_params, u);
	}
}

/* used[i]: kernel k reads parameter i in the offsets of an address that
 * starts from pointer parameter p: a load's or store's pointer, or a
 * pointer tile bound before a loop that advances it (`P + b * s0 + offs *
 * s1`, `ptrs = base + offs * s1` with `base = P + b * s0`). */
/* Marks in used the parameters addr's sum reads beside p, when it starts
 * from p. mine: scratch, one flag per parameter. */
static void mark_address(const ta_model *m, const ta_kernel *k, size_t p, TSNode addr, bool *mine, bool *used)
{
	bool based = false;
	memset(mine, 0, k->param_count * sizeof *mine);
	used_ctx u = { k, mine };
	address_terms(m, addr, k->params[p].name, &based, &u, 0);
	for (size_t j = 0; based && j < k->param_count; j++)
		used[j] |= mine[j] && j != p;
}

static void strides_used(const ta_model *m, const ta_kernel *k, size_t p, bool *used)
{
	bool *mine = ta_xcalloc(k->param_count, sizeof *mine);
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if ((op->kind == TA_OP_LOAD || op->kind == TA_OP_STORE) && op->arg_count)
			mark_address(m, k, p, ta_node_outermost_at(ta_syntax_root(m->syn), op->args[0].start,
								   op->args[0].end, "expression_statement"), mine, used);
	}
	ta_walk w;
	ta_walk_start(&w, k->node);
	for (;;) {
		TSNode n = ta_walk_node(&w);
		if (ta_node_is(n, "assignment"))
			mark_address(m, k, p, ta_node_field(n, "right"), mine, used);
		if (!ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
	free(mine);
}

/* The parameter launch l passes the tensor x for, by a placed positional
 * argument spelled x; k->param_count when none. */
static size_t pointer_param(const ta_model *m, const slot *s, size_t n, const ta_kernel *k, TSNode x)
{
	char *xt = ta_node_text(m->src, x);
	size_t p = k->param_count;
	for (size_t j = 0; j < n && p == k->param_count; j++)
		if (s[j].kind == SLOT_ONE && s[j].placed && s[j].start < k->param_count &&
		    ta_node_text_eq(m->src, ta_node_unparen(s[j].node), xt))
			p = s[j].start;
	free(xt);
	return p;
}

/* The lengths of the sequences in [front, back) (placed from at to end)
 * from the kernel: each `*x.stride()` of unknown rank covers, from where
 * it starts, the parameters the kernel reads as strides of the pointer x
 * is passed for, and no other pointer's. True when that fills [at, end)
 * exactly; the lengths then rest on it (guessed). */
static bool split_by_kernel(const ta_model *m, const ta_kernel *k, slot *s, size_t n, size_t front, size_t back,
			    size_t at, size_t end)
{
	bool *used = ta_xcalloc(k->param_count, sizeof *used);
	size_t *len = ta_xcalloc(back - front, sizeof *len);
	bool ok = true;
	size_t pos = at;
	for (size_t j = front; j < back && ok; j++) {
		if (s[j].len) {
			len[j - front] = s[j].len;
			pos += s[j].len;
			continue;
		}
		size_t p = s[j].kind == SLOT_STRIDES ? pointer_param(m, s, n, k, s[j].tensor) : k->param_count;
		ok = p < k->param_count;
		if (!ok)
			break;
		memset(used, 0, k->param_count * sizeof *used);
		strides_used(m, k, p, used);
		size_t last = pos;
		for (size_t i = pos; i < end && i < k->param_count; i++)
			if (used[i])
				last = i + 1;
		ok = last > pos;
		len[j - front] = last - pos;
		pos = last;
	}
	ok = ok && pos == end;
	for (size_t j = front; ok && j < back; j++)
		if (!s[j].len) {
			s[j].len = len[j - front];
			s[j].guessed = true;
		}
	free(used);
	free(len);
	return ok;
}

/* Lays the launch's positional arguments over the parameters: from the
 * front while lengths are known, from the back (positional_total) while
 * they are known, and the sequences left between, when they are all
 * tensors' strides or shapes, split evenly (assumed). */
static slot *layout(const ta_model *m, const ta_launch *l, const ta_kernel *k, size_t *count)
{
	slot *s = ta_xcalloc(l->arg_count ? l->arg_count : 1, sizeof *s);
	*count = l->arg_count;
	for (size_t j = 0; j < l->arg_count; j++)
		read_slot(m, l, j, &s[j]);
	size_t front = 0, at = 0;
	for (; front < l->arg_count && s[front].len; front++) {
		s[front].start = at;
		s[front].placed = true;
		at += s[front].len;
	}
	if (front == l->arg_count)
		return s;
	size_t total = positional_total(m, l, k);
	if (!total)
		return s;
	size_t back = l->arg_count, end = total;
	for (; back > front && s[back - 1].len; back--) {
		if (s[back - 1].len > end)
			return s;
		end -= s[back - 1].len;
		s[back - 1].start = end;
		s[back - 1].placed = true;
	}
	/* [front, back): the first and the last are of unknown length; only
	 * tensors' strides and shapes between them */
	size_t known = 0, unknown = 0;
	for (size_t j = front; j < back; j++) {
		if (s[j].kind == SLOT_OTHER)
			return s;
		if (s[j].len)
			known += s[j].len;
		else
			unknown++;
	}
	if (end < at + known || !unknown)
		return s;
	size_t rest = end - at - known;
	if (unknown == 1) {
		for (size_t j = front; j < back; j++)
			if (!s[j].len)
				s[j].len = rest;
	} else if (!split_by_kernel(m, k, s, *count, front, back, at, end)) {
		/* an even split */
		if (rest % unknown || !rest)
			return s;
		for (size_t j = front; j < back; j++)
			if (!s[j].len) {
				s[j].len = rest / unknown;
				s[j].guessed = true;
			}
	}
	for (size_t j = front; j < back; j++) {
		if (!s[j].len)
			return s;
		s[j].start = at;
		s[j].placed = true;
		s[j].assumed = s[j].guessed || (j > front && s[j - 1].assumed);
		at += s[j].len;
	}
	return s;
}

/* Layouts asked for, per launch of the model: rules ask for one parameter
 * at a time, launch after launch. */
typedef struct layouts {
	slot **s;
	size_t *n;
	size_t count;
} layouts;

static void *new_layouts(const ta_model *m)
{
	layouts *x = ta_xcalloc(1, sizeof *x);
	x->count = m->launch_count;
	x->s = ta_xcalloc(x->count ? x->count : 1, sizeof *x->s);
	x->n = ta_xcalloc(x->count ? x->count : 1, sizeof *x->n);
	return x;
}

static void free_layouts(void *p)
{
	layouts *x = p;
	for (size_t i = 0; x && i < x->count; i++)
		free(x->s[i]);
	if (x) {
		free(x->s);
		free(x->n);
	}
	free(x);
}

/* The layout of launch l over kernel k, kept with the model when l is one
 * of its launches and k the kernel it runs; else the caller's to free
 * (*owned). */
static const slot *layout_of(const ta_model *m, const ta_launch *l, const ta_kernel *k, size_t *count, bool *owned)
{
	size_t li = (size_t)(l - m->launches);
	*owned = !(l >= m->launches && li < m->launch_count && l->kernel >= 0 &&
		   (size_t)l->kernel < m->kernel_count && k == &m->kernels[l->kernel]);
	if (*owned)
		return layout(m, l, k, count);
	layouts *x = ta_index_cached(m, new_layouts, free_layouts);
	if (!x->s[li])
		x->s[li] = layout(m, l, k, &x->n[li]);
	*count = x->n[li];
	return x->s[li];
}

static const slot *slot_at(const slot *s, size_t n, size_t i)
{
	for (size_t j = 0; j < n; j++)
		if (s[j].placed && s[j].start <= i && i < s[j].start + s[j].len)
			return &s[j];
	return NULL;
}

TSNode ta_values_launch_arg(const ta_model *m, const ta_launch *l, const ta_kernel *k, size_t i, bool *keyword)
{
	if (keyword)
		*keyword = false;
	if (i >= k->param_count)
		return null_node();
	const ta_kwarg *kw = ta_kwarg_find(l->kwargs, l->kwarg_count, k->params[i].name);
	if (kw) {
		if (keyword)
			*keyword = true;
		return ta_node_outermost_at(ta_syntax_root(m->syn), kw->value_span.start, kw->value_span.end,
					    "expression_statement");
	}
	size_t n;
	bool owned;
	const slot *s = layout_of(m, l, k, &n, &owned);
	const slot *at = slot_at(s, n, i);
	TSNode r = at && at->kind == SLOT_ONE && !at->assumed ? at->node : null_node();
	if (owned)
		free((slot *)s);
	return r;
}

/* `x.stride(d)` with x a name and d an integer: x and d. */
static bool stride_call(const ta_model *m, TSNode e, TSNode *x, long *d)
{
	TSNode call;
	*x = method_of(m, e, "stride", &call);
	return is_kind(*x, "identifier") && !ts_node_is_null(call) && positional_count(call) == 1 &&
	       ta_values_int(m, first_arg(call), d);
}

bool ta_values_launch_stride(const ta_model *m, const ta_launch *l, const ta_kernel *k, size_t i,
			     ta_values_stride *out)
{
	memset(out, 0, sizeof *out);
	TSNode a = ta_values_launch_arg(m, l, k, i, NULL);
	if (!ts_node_is_null(a)) {
		/* written there, or through names whose values still read the
		 * same tensor at the launch */
		TSNode v = ta_values_follow(m, a);
		if (!stride_call(m, v, &out->tensor, &out->dim) ||
		    (!ts_node_eq(v, ta_node_unparen(a)) && !ta_values_stable(m, v, l->span.start)))
			return false;
		out->rank = ta_values_rank(m, out->tensor);
		return true;
	}
	if (i >= k->param_count || ta_kwarg_find(l->kwargs, l->kwarg_count, k->params[i].name))
		return false;
	size_t n;
	bool owned;
	const slot *s = layout_of(m, l, k, &n, &owned);
	const slot *at = slot_at(s, n, i);
	bool ok = at && at->kind == SLOT_STRIDES;
	if (ok) {
		out->tensor = at->tensor;
		out->dim = (long)(i - at->start);
		out->rank = at->len;
		if (at->assumed) {
			/* `k.dim() == v.dim() == 4 and lse.dim() == 3`: each
			 * tensor whose rank was guessed, up to this one */
			ta_buf b = TA_BUF_INIT;
			const slot *prev = NULL;
			for (const slot *p = s; p <= at; p++) {
				if (!p->guessed)
					continue;
				if (prev && prev->len != p->len)
					ta_buf_printf(&b, "%zu and ", prev->len);
				char *t = ta_node_text(m->src, p->tensor);
				ta_buf_printf(&b, "%s.dim() == ", t);
				free(t);
				prev = p;
			}
			ta_buf_printf(&b, "%zu", prev ? prev->len : at->len);
			out->assume = ta_xstrdup(ta_buf_str(&b));
			ta_buf_free(&b);
		}
	}
	if (owned)
		free((slot *)s);
	return ok;
}

void ta_values_stride_free(ta_values_stride *s)
{
	free(s->assume);
	s->assume = NULL;
}
