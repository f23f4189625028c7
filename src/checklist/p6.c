/* P6: Loaded strides or pointers without an alignment hint.
 * Its detector and its rewrite. The rewrite writes tl.multiple_of, not the
 * checklist's tl.assume: on Triton 3.6 tl.assume(x % 8 == 0) left the
 * population's grouped GEMM as it was (3.31 ms), tl.multiple_of on the same
 * strides and bases made it 1.70x faster (H100, tests/gpu/probes/grouped_ptx.py). */
#include "config.h"
#include "analyze/values.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Where a value goes into an address, and whether it carries a hint
 * already: one answer for the detector and the rewrite (below). */
static bool used_in_address(const ta_model *m, const ta_kernel *k, const char *name, bool *as_stride);
static bool already_assumed(const ta_model *m, const ta_kernel *k, const char *name);

/* The assignment a scalar load feeds, through method calls such as
 * `.to(tl.pointer_type(...))`; null when the load is used otherwise. */
static TSNode load_assignment(TSNode call)
{
	for (TSNode p = ta_node_parent(call); !ts_node_is_null(p); p = ta_node_parent(p)) {
		if (ta_node_is(p, "assignment"))
			return p;
		if (!ta_node_is(p, "attribute") && !ta_node_is(p, "call") && !ta_node_is(p, "argument_list"))
			break;
	}
	return (TSNode){ 0 };
}

/* a's value is load's result as a whole: the assignment load_assignment
 * finds for it is a. */
static bool loaded_whole(const ta_model *m, const ta_op *load, const ta_assign *a)
{
	TSNode as = load_assignment(ta_edits_node(m, load->span));
	if (ts_node_is_null(as))
		return false;
	TSNode rhs = ta_node_field(as, "right");
	return ts_node_start_byte(rhs) == a->rhs.start && ts_node_end_byte(rhs) == a->rhs.end;
}

/* The kernel's scalar loads by where they start (then by index). */
static int by_start(const void *x, const void *y, void *ops)
{
	const ta_op *o = ops;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	if (o[i].span.start != o[j].span.start)
		return o[i].span.start < o[j].span.start ? -1 : 1;
	return (i > j) - (i < j);
}

/* The first scalar load (by index) inside s: a binary search among the
 * loads sorted by start, then those starting inside s (a kernel of 10,000
 * assignments asked each of its ops for each). */
static const ta_op *scalar_load_in(const ta_kernel *k, const size_t *loads, size_t n, ta_span s)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->ops[loads[mid]].span.start < s.start)
			lo = mid + 1;
		else
			hi = mid;
	}
	const ta_op *best = NULL;
	for (size_t i = lo; i < n && k->ops[loads[i]].span.start <= s.end; i++)
		if (k->ops[loads[i]].span.end <= s.end && (!best || &k->ops[loads[i]] < best))
			best = &k->ops[loads[i]];
	return best;
}

/* The mask of a load or store (positional or mask=) as a node; null when
 * it has none. */
static TSNode access_mask(const ta_model *m, const ta_op *op)
{
	const ta_kwarg *kw = ta_kwarg_find(op->kwargs, op->kwarg_count, "mask");
	if (kw)
		return ta_edits_node(m, kw->value_span);
	size_t at = op->kind == TA_OP_STORE ? 2 : 1;
	return op->arg_count > at ? ta_edits_node(m, op->args[at]) : (TSNode){ 0 };
}

/* The bound of a mask `offs < bound` (through a name the kernel binds
 * once) when bound is itself a value loaded from memory with no hint: its
 * name (caller frees), else NULL. */
static char *loaded_mask_bound(ta_rule_ctx *c, TSNode mask)
{
	const ta_model *m = c->m;
	TSNode fn = c->k->node;
	for (int hop = 0; hop < 3 && ta_node_is(mask, "identifier"); hop++) {
		char *t = ta_node_text(m->src, mask);
		TSNode v = ta_rule_sole_value(m, fn, t, strlen(t), ts_node_start_byte(mask));
		free(t);
		if (ts_node_is_null(v))
			return NULL;
		mask = v;
	}
	mask = ta_node_unparen(mask);
	if (!ta_node_is(mask, "comparison_operator") || ta_node_named_count(mask) != 2)
		return NULL;
	TSNode bound = ta_node_named_child(mask, 1);
	if (!ta_node_is(bound, "identifier"))
		return NULL;
	char *name = ta_node_text(m->src, bound);
	TSNode v = ta_rule_sole_value(m, fn, name, strlen(name), ts_node_start_byte(bound));
	char *vt = ts_node_is_null(v) ? NULL : ta_node_text(m->src, v);
	bool loaded = vt && strstr(vt, "tl.load(") && !already_assumed(m, c->k, name);
	free(vt);
	if (!loaded) {
		free(name);
		return NULL;
	}
	return name;
}

/* When every load and store through the pointer p is masked by a bound
 * loaded from memory (`idx < chunk_numel`, chunk_numel a tl.load): that
 * bound's name (caller frees). Such masks hold one lane at a time, so the
 * accesses stay scalar whatever p's alignment. */
static char *masked_by_loaded_bound(ta_rule_ctx *c, const char *p)
{
	const ta_kernel *k = c->k;
	char *bound = NULL;
	size_t uses = 0;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if ((op->kind != TA_OP_LOAD && op->kind != TA_OP_STORE) || !op->arg_count ||
		    !ta_rule_mentions(c, op->args[0], p))
			continue;
		uses++;
		TSNode mk = access_mask(c->m, op);
		char *b = ts_node_is_null(mk) ? NULL : loaded_mask_bound(c, mk);
		if (!b || (bound && strcmp(b, bound))) {
			free(b);
			free(bound);
			return NULL;
		}
		free(bound);
		bound = b;
	}
	if (!uses) {
		free(bound);
		return NULL;
	}
	return bound;
}

/* What a question about a tile name answered last (the same name bound
 * again and again, `a = tl.load(x_ptr + ...)` down a long body, is asked
 * once: each question reads every op of the kernel). */
typedef struct tile_memo {
	char *tile;
	bool answer, as_stride;
} tile_memo;

static bool memo_hit(tile_memo *mo, const char *tile)
{
	return mo->tile && !strcmp(mo->tile, tile);
}

static void memo_keep(tile_memo *mo, const char *tile, bool answer, bool as_stride)
{
	free(mo->tile);
	mo->tile = ta_xstrdup(tile);
	mo->answer = answer;
	mo->as_stride = as_stride;
}

ta_status ta_detect_p6(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	bool any = false, found = false;
	size_t *loads = ta_xmalloc((k->op_count ? k->op_count : 1) * sizeof *loads), n_loads = 0;
	for (size_t j = 0; j < k->op_count; j++)
		if (k->ops[j].kind == TA_OP_LOAD && k->ops[j].ptr_shape == TA_PTR_SCALAR)
			loads[n_loads++] = j;
	qsort_r(loads, n_loads, sizeof *loads, by_start, k->ops);
	tile_memo used_memo = { 0 };
	for (size_t i = 0; i < n; i++) {
		const ta_assign *a = &as[i];
		if (a->augmented)
			continue;
		const ta_op *load = scalar_load_in(k, loads, n_loads, a->rhs);
		/* The value itself is what was loaded (through .to() and the like,
		 * as the rewrite requires): `p = tl.load(t + i) + off * dim` is not,
		 * and an assumption on p would not follow from one on the table. */
		bool stride = false;
		if (!load || !loaded_whole(c->m, load, a))
			continue;
		/* a name loaded again and again (unrolled steps) is asked once */
		if (!memo_hit(&used_memo, a->name)) {
			bool used = used_in_address(c->m, k, a->name, &stride);
			memo_keep(&used_memo, a->name, used, stride);
		}
		stride = used_memo.as_stride;
		if (!used_memo.answer)
			continue;
		/* Only a loaded stride or base pointer may be assumed aligned: one
		 * cast to a pointer, or one that multiplies an address. A loaded
		 * offset or prefix sum added to an address is no multiple of
		 * anything in general: assuming so would be undefined behaviour. */
		bool pointer = ta_rule_contains(c, a->rhs, "pointer_type");
		if (!pointer && !stride)
			continue;
		/* A loaded length capped per sample (a jagged row of `seqlen =
		 * tl.minimum(seqlen, max_length)` elements): no leading dimension,
		 * no host can promise a multiple of 8, and a hint on the load
		 * would not reach the capped value the address reads. */
		if (!pointer && ta_rule_clamped(c->m, k, a->name))
			continue;
		any = true;
		if (already_assumed(c->m, k, a->name))
			continue;
		if (ta_rule_reported_at(c, a->stmt.start))
			continue;
		/* What to assume, as the edit writes it: a pointer is aligned to
		 * 16 bytes, a stride to 8 elements (16 bytes of fp16). */
		char *cond = pointer ? ta_xasprintf("%s.to(tl.int64) %% 16 == 0", a->name) :
				       ta_xasprintf("%s %% 8 == 0", a->name);
		ta_finding *f = ta_rule_add(c, a->stmt,
			"`%s` is %s loaded from memory and used without an alignment hint: Triton cannot know "
			"its alignment (if the host guarantees %s, add `%s = tl.multiple_of(%s, %d)` and assert it "
			"there)", a->name,
			pointer ? "a pointer (cast with pointer_type)" : "a stride (it multiplies an address)", cond,
			a->name, a->name, pointer ? 16 : 8);
		free(cond);
		/* Masks against a bound loaded from memory hold one lane at a
		 * time: the hint alone leaves those accesses scalar. */
		char *bound = pointer ? masked_by_loaded_bound(c, a->name) : NULL;
		if (bound) {
			char *r = ta_xasprintf("%s; but its every access is masked against `%s`, loaded from memory "
					       "too: those masks keep the accesses scalar unless `%s` is also known to "
					       "be a multiple of 16 (or whole blocks take an unmasked path)",
					       f->reason, bound, bound);
			free(f->reason);
			f->reason = r;
			free(bound);
		}
		found = true;
	}
	free(loads);
	free(used_memo.tile);
	if (found)
		return TA_STATUS_APPLIES;
	return any ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

/* How a loaded value is used, which decides what may be assumed. */
typedef enum p6_use { P6_NONE, P6_STRIDE, P6_POINTER } p6_use;

typedef struct p6_site {
	const ta_kernel *k;
	const ta_op *load;
	TSNode stmt;              /* `name = ...tl.load(...)...` */
	char *name;
} p6_site;

/* n reads name as a plain identifier (not after a dot, not a keyword). */
static bool reads(const ta_model *m, TSNode n, const char *name)
{
	/* the names ta_edits_names lists are those ta_edits_ident_count
	 * counts, which finds one from the text instead of listing them all */
	return ta_edits_ident_count(m, n, name) > 0;
}

/* Whether name is written in the span's text: reads() of the node there
 * cannot be true otherwise, and finding that node costs a descent. */
static bool spelled_in(const ta_model *m, ta_span s, const char *name)
{
	size_t n = strlen(name);
	return !n || s.end > m->src->len || s.start > s.end ||
	       memmem(m->src->text + s.start, s.end - s.start, name, n);
}

/* name is a factor of a product somewhere inside n. */
/* The other factor of a product with a loaded value is a stride or a
 * tile size the kernel is given (`slot * stride_seq`, `row * BLOCK`): the
 * loaded value is then an index (a cache slot, a row), not a stride, and
 * no multiple of anything. */
static bool index_factor(const ta_model *m, const ta_kernel *k, TSNode other)
{
	if (!ta_node_is(other, "identifier"))
		return false;
	/* through the kernel's names: `stride_seq = stride_istate_seq` */
	TSNode v = ta_values_follow(m, other);
	for (int i = 0; i < 2; i++) {
		TSNode n = i ? v : other;
		if (!ta_node_is(n, "identifier"))
			continue;
		char *t = ta_node_text(m->src, n);
		const ta_param *p = ta_kernel_param(k, t);
		bool yes = strcasestr(t, "stride") || (p && p->constexpr_);
		free(t);
		if (yes)
			return true;
	}
	return false;
}

static bool multiplied(const ta_model *m, const ta_kernel *k, TSNode n, const char *name)
{
	if (ta_node_is(n, "binary_operator") && ta_node_text_eq(m->src, ta_node_field(n, "operator"), "*")) {
		TSNode l = ta_node_field(n, "left"), r = ta_node_field(n, "right");
		if ((ta_node_is(l, "identifier") && ta_node_text_eq(m->src, l, name) && !index_factor(m, k, r)) ||
		    (ta_node_is(r, "identifier") && ta_node_text_eq(m->src, r, name) && !index_factor(m, k, l)))
			return true;
	}
	uint32_t c = ta_node_named_count(n);
	for (uint32_t i = 0; i < c; i++)
		if (multiplied(m, k, ta_node_named_child(n, i), name))
			return true;
	return false;
}

static bool is_op(const ta_model *m, TSNode n, const char *op)
{
	return ta_node_is(n, "binary_operator") && ta_node_text_eq(m->src, ta_node_field(n, "operator"), op);
}

/* The terms of a sum, left to right (at most max written; the count of
 * all returned). The left side of a chain is walked in a loop: a chain of
 * 100,000 terms (tests/robust/long_chain.sh) would overflow the stack
 * recursing. */
static size_t sum_terms(const ta_model *m, TSNode n, TSNode *t, size_t count, size_t max)
{
	n = ta_node_unparen(n);
	size_t depth = 0;
	for (TSNode b = n; is_op(m, b, "+"); b = ta_node_unparen(ta_node_field(b, "left")))
		depth++;
	if (depth == 0) {
		if (count < max)
			t[count] = n;
		return count + 1;
	}
	TSNode *spine = ta_xmalloc(depth * sizeof *spine), b = n;
	for (size_t i = 0; i < depth; i++, b = ta_node_unparen(ta_node_field(b, "left")))
		spine[i] = b;
	count = sum_terms(m, b, t, count, max);
	for (size_t i = depth; i-- > 0;)
		count = sum_terms(m, ta_node_field(spine[i], "right"), t, count, max);
	free(spine);
	return count;
}


/* Whether the value of n holds a tl.arange, following local names (one
 * whose value is unknown may). */
static bool holds_range(const ta_model *m, const ta_kernel *k, TSNode n, int depth)
{
	n = ta_node_unparen(n);
	if (ts_node_is_null(n) || depth > 8)
		return true;
	if (ta_node_is(n, "identifier")) {
		char *t = ta_node_text(m->src, n);
		bool param = ta_kernel_param(k, t) != NULL;
		free(t);
		if (param)
			return false;
		TSNode v = ta_values_follow(m, n);
		return ta_node_is(v, "identifier") || holds_range(m, k, v, depth + 1);
	}
	if (ta_node_is(n, "call")) {
		char *fn = ta_model_canonical(m, ta_node_field(n, "function"));
		bool arange = fn && !strcmp(fn, "triton.language.arange");
		free(fn);
		if (arange)
			return true;
	}
	uint32_t c = ta_node_named_count(n);
	for (uint32_t i = 0; i < c; i++)
		if (holds_range(m, k, ta_node_named_child(n, i), depth + 1))
			return true;
	return false;
}

/* A factor that may be 1 at run time: a kernel parameter (Triton
 * specializes an integer argument of 1 at launch) or the literal 1. */
static bool may_be_one(const ta_model *m, const ta_kernel *k, TSNode n)
{
	n = ta_node_unparen(n);
	if (ta_node_is(n, "integer"))
		return ta_node_text_eq(m->src, n, "1");
	if (!ta_node_is(n, "identifier"))
		return false;
	char *t = ta_node_text(m->src, n);
	const ta_param *p = ta_kernel_param(k, t);
	free(t);
	return p && !p->constexpr_;
}

static bool unit_sum(const ta_model *m, const ta_kernel *k, TSNode n, int depth);

/* One term of an address: whether it may step one element along an axis. */
static bool unit_term(const ta_model *m, const ta_kernel *k, TSNode t, int depth)
{
	t = ta_node_unparen(t);
	if (ts_node_is_null(t) || depth > 8)
		return true;
	if (ta_node_is(t, "subscript"))      /* offs[None, :] */
		return unit_term(m, k, ta_node_field(t, "value"), depth + 1);
	if (ta_node_is(t, "identifier")) {
		char *name = ta_node_text(m->src, t);
		bool param = ta_kernel_param(k, name) != NULL;
		free(name);
		if (param)
			return false;         /* a base or a scalar: no axis */
		TSNode v = ta_values_follow(m, t);
		return ta_node_is(v, "identifier") || unit_sum(m, k, v, depth + 1);
	}
	if (ta_node_is(t, "call")) {
		TSNode f = ta_node_field(t, "function");
		char *fn = ta_model_canonical(m, f);
		bool arange = fn && !strcmp(fn, "triton.language.arange");
		bool load = fn && !strcmp(fn, "triton.language.load");
		free(fn);
		if (arange)
			return true;
		if (load)
			return false;         /* a value read from memory: a scalar index or base */
		/* x.to(...), tl.multiple_of(x, ...), tl.broadcast_to(x, ...): x */
		TSNode x = ta_node_is(f, "attribute") ? ta_node_field(f, "object")
						      : ta_node_named_child(ta_node_field(t, "arguments"), 0);
		return unit_term(m, k, x, depth + 1);
	}
	if (is_op(m, t, "*")) {
		TSNode l = ta_node_field(t, "left"), r = ta_node_field(t, "right");
		return (holds_range(m, k, l, depth + 1) && may_be_one(m, k, r)) ||
		       (holds_range(m, k, r, depth + 1) && may_be_one(m, k, l));
	}
	if (is_op(m, t, "-"))
		return unit_term(m, k, ta_node_field(t, "left"), depth + 1) ||
		       unit_term(m, k, ta_node_field(t, "right"), depth + 1);
	if (ta_node_is(t, "integer") || ta_node_is(t, "float") || is_op(m, t, "//") || is_op(m, t, "%"))
		return false;
	return true;                  /* a form not read here: it may */
}

/* Whether an address may read consecutive elements along some axis: a
 * term holding a tl.arange that is not scaled, or scaled by a kernel
 * parameter that may be 1. An alignment hint pays only there (wider
 * loads); where every axis steps by a stride loaded from memory (one
 * element of a per-sequence table per row) nothing is vectorised, and no
 * host can promise such a stride is a multiple of anything. */
static bool unit_sum(const ta_model *m, const ta_kernel *k, TSNode n, int depth)
{
	TSNode t[16];
	size_t c = sum_terms(m, n, t, 0, 16);
	if (c > 16)
		return true;
	for (size_t i = 0; i < c; i++)
		if (unit_term(m, k, t[i], depth))
			return true;
	return false;
}

static bool is_memory_op(const ta_op *op)
{
	return op->kind == TA_OP_LOAD || op->kind == TA_OP_STORE || op->kind == TA_OP_MAKE_DESCRIPTOR ||
	       op->kind == TA_OP_MAKE_BLOCK_PTR;
}

static bool used_directly(const ta_model *m, const ta_kernel *k, const char *name, bool *as_stride);

/* Calls fn for each pointer tile kernel k builds from name as a stride or
 * base (`a_ptrs = a_ptr + offs_am[:, None] * lda`: tile a_ptrs, rhs the
 * sum), until fn returns true; returns whether one did. */
typedef bool (*tile_fn)(const ta_model *m, const ta_kernel *k, const char *name, const char *tile, TSNode rhs,
			void *ctx);

static bool each_tile_from(const ta_model *m, const ta_kernel *k, const char *name, tile_fn fn, void *ctx)
{
	/* The model's assignments inside the kernel, in document order: the
	 * order a walk of the kernel's tree would meet them in. */
	size_t first, count = ta_model_refs_within(m->assign_nodes, m->assign_node_count, k->node, &first);
	for (size_t i = first; i < first + count; i++) {
		TSNode n = m->assign_nodes[i].node;
		/* the text first: most assignments of a long kernel do not
		 * mention name, and reading their fields costs a descent */
		if (!ta_node_is(n, "assignment") ||
		    !spelled_in(m, (ta_span){ .start = ts_node_start_byte(n), .end = ts_node_end_byte(n) }, name))
			continue;
		TSNode left = ta_node_field(n, "left"), right = ta_node_field(n, "right");
		if (ta_node_is(left, "identifier") && !ta_node_text_eq(m->src, left, name) &&
		    ta_kernel_address_role(m, k, right, name)) {
			char *tile = ta_node_text(m->src, left);
			bool stop = fn(m, k, name, tile, right, ctx);
			free(tile);
			if (stop)
				return true;
		}
	}
	return false;
}

typedef struct tile_use {
	bool found, as_stride;
	tile_memo memo;
} tile_use;

/* For used_in_address: the tile goes into an address itself. */
static bool tile_used(const ta_model *m, const ta_kernel *k, const char *name, const char *tile, TSNode rhs, void *ctx)
{
	tile_use *u = ctx;
	bool ignored;
	if (!memo_hit(&u->memo, tile))
		memo_keep(&u->memo, tile, used_directly(m, k, tile, &ignored), false);
	if (u->memo.answer) {
		u->found = true;
		u->as_stride |= multiplied(m, k, rhs, name);
	}
	return false;
}

/* Where the value goes into an address, the way the P6 detector sees it:
 * the pointer argument of a memory op, or a descriptor's strides/base;
 * else one step through a pointer tile built from it as a stride or base
 * (`a_ptrs = a_ptr + offs_am[:, None] * lda`, then tl.load(a_ptrs)). */
static bool used_in_address(const ta_model *m, const ta_kernel *k, const char *name, bool *as_stride)
{
	if (used_directly(m, k, name, as_stride))
		return true;
	tile_use u = { 0 };
	each_tile_from(m, k, name, tile_used, &u);
	free(u.memo.tile);
	*as_stride = u.as_stride;
	return u.found;
}

static bool used_directly(const ta_model *m, const ta_kernel *k, const char *name, bool *as_stride)
{
	bool used = false;
	*as_stride = false;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (!is_memory_op(op))
			continue;
		if (op->arg_count && spelled_in(m, op->args[0], name)) {
			TSNode a = ta_edits_node(m, op->args[0]);
			/* a descriptor's base must be aligned (TMA); a raw access's
			 * alignment pays only along a contiguous axis */
			bool raw = op->kind == TA_OP_LOAD || op->kind == TA_OP_STORE;
			if (!ts_node_is_null(a) && reads(m, a, name) && ta_kernel_address_role(m, k, a, name) &&
			    (!raw || unit_sum(m, k, a, 0))) {
				used = true;
				*as_stride |= multiplied(m, k, a, name);
			}
		}
		for (size_t j = 0; j < op->kwarg_count; j++) {
			const ta_kwarg *kw = &op->kwargs[j];
			bool st = !strcmp(kw->name, "strides");
			if ((!st && strcmp(kw->name, "base")) || !spelled_in(m, kw->value_span, name))
				continue;
			TSNode v = ta_edits_node(m, kw->value_span);
			if (!ts_node_is_null(v) && reads(m, v, name)) {
				used = true;
				*as_stride |= st;
			}
		}
	}
	return used;
}

static bool hinted(const ta_model *m, const ta_kernel *k, const char *name)
{
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->kind != TA_OP_ASSUME && op->kind != TA_OP_MULTIPLE_OF)
			continue;
		TSNode n = ta_edits_node(m, op->span);
		if (!ts_node_is_null(n) && reads(m, n, name))
			return true;
	}
	return false;
}

static bool tile_hinted(const ta_model *m, const ta_kernel *k, const char *name, const char *tile, TSNode rhs,
			void *ctx)
{
	(void)name;
	(void)rhs;
	tile_memo *mo = ctx;
	if (!memo_hit(mo, tile))
		memo_keep(mo, tile, hinted(m, k, tile), false);
	return mo->answer;
}

/* name, or a pointer tile built from it, carries an alignment hint already
 * (as the detector sees it). */
static bool already_assumed(const ta_model *m, const ta_kernel *k, const char *name)
{
	if (hinted(m, k, name))
		return true;
	tile_memo mo = { 0 };
	bool yes = each_tile_from(m, k, name, tile_hinted, &mo);
	free(mo.tile);
	return yes;
}


/* The entry index of a table read: `i` (every entry), `i * S` or `S * i`
 * (every S-th, from 0). Returns the stride S (1 for `i`), 0 otherwise. */
static long index_stride(const ta_model *m, TSNode n)
{
	if (ta_node_is(n, "identifier"))
		return 1;
	if (!is_op(m, n, "*"))
		return 0;
	TSNode l = ta_node_unparen(ta_node_field(n, "left")), r = ta_node_unparen(ta_node_field(n, "right"));
	TSNode lit = ta_node_is(r, "integer") ? r : l, var = ta_node_is(r, "integer") ? l : r;
	if (!ta_node_is(lit, "integer") || !ta_node_is(var, "identifier"))
		return 0;
	char *t = ta_node_text(m->src, lit);
	long v = strtol(t, NULL, 10);
	free(t);
	return v > 0 && v < 1000 ? v : 0;
}

/* The table parameter T a load reads and which of its entries: `T + i`
 * (all), `T + i * S + c` (every S-th from c), `T` (the first). *slice gets
 * the Python slice of the host's tensor holding exactly those entries ("" for
 * all). Both caller-freed; NULL when the address is of another form. */
static char *table_param(const ta_model *m, const ta_kernel *k, TSNode ptr, char **slice)
{
	TSNode t[4];
	size_t n = sum_terms(m, ptr, t, 0, 4);
	if (n == 0 || n > 3 || !ta_node_is(t[0], "identifier"))
		return NULL;
	char *name = ta_node_text(m->src, t[0]);
	const ta_param *p = ta_kernel_param(k, name);
	long stride = n >= 2 ? index_stride(m, t[1]) : 1, first = 0;
	if (n == 3 && ta_node_is(t[2], "integer")) {
		char *c = ta_node_text(m->src, t[2]);
		first = strtol(c, NULL, 10);
		free(c);
	}
	if (!p || p->constexpr_ || stride == 0 || (n == 3 && (!ta_node_is(t[2], "integer") || first >= stride))) {
		free(name);
		return NULL;
	}
	if (n == 1)
		*slice = ta_xstrdup("[:1]");
	else if (stride == 1)
		*slice = ta_xstrdup("");
	else if (first)
		*slice = ta_xasprintf("[%ld::%ld]", first, stride);
	else
		*slice = ta_xasprintf("[::%ld]", stride);
	return name;
}

/* The statement holding n that sits directly in a block (or the module). */
static TSNode block_statement(TSNode n)
{
	for (TSNode p = ta_node_parent(n); !ts_node_is_null(p); n = p, p = ta_node_parent(p))
		if (ta_node_is(p, "block") || ta_node_is(p, "module"))
			return n;
	return (TSNode){ 0 };
}

/* An expression the assert may evaluate again: a name or attribute chain. */
static bool plain_name(TSNode n)
{
	if (ta_node_is(n, "identifier"))
		return true;
	return ta_node_is(n, "attribute") && plain_name(ta_node_field(n, "object"));
}

/* The argument a launch passes for parameter index pi (named pname). */
static TSNode launch_arg(const ta_model *m, const ta_launch *l, size_t pi, const char *pname)
{
	if (pi < l->arg_count)
		return ta_edits_node(m, l->args[pi]);
	const ta_kwarg *kw = ta_kwarg_find(l->kwargs, l->kwarg_count, pname);
	return kw ? ta_edits_node(m, kw->value_span) : (TSNode){ 0 };
}

/* ---- the host's check, on host values only ----------------------------
 * The table lives on the GPU: reading it on the host (`.all()`, `.item()`)
 * synchronises every call (a grouped GEMM ran 2.9x slower so on an H200).
 * Where the wrapper builds the table from a host list (`torch.tensor(lds,
 * ...)`, or a list written inside that call), the assert reads the list;
 * elsewhere nothing is asserted and the edit states the assumption. */

/* A value the host computes without the GPU: numbers, names, arithmetic,
 * a tensor's shape, strides, size or address (never a list or a tuple:
 * the table must be flat for the kernel's T + i * S + c to index it). */
static bool p6_host_scalar(const ta_model *m, TSNode n)
{
	n = ta_node_unparen(n);
	if (ta_node_is(n, "integer") || ta_node_is(n, "identifier"))
		return true;
	if (ta_node_is(n, "attribute"))
		return p6_host_scalar(m, ta_node_field(n, "object"));
	if (ta_node_is(n, "subscript"))
		return p6_host_scalar(m, ta_node_field(n, "value"));
	if (ta_node_is(n, "binary_operator"))
		return p6_host_scalar(m, ta_node_field(n, "left")) && p6_host_scalar(m, ta_node_field(n, "right"));
	if (ta_node_is(n, "unary_operator"))
		return p6_host_scalar(m, ta_node_field(n, "argument"));
	if (!ta_node_is(n, "call"))
		return false;
	static const char *const methods[] = { "stride", "data_ptr", "size", "numel", "dim", "element_size", NULL };
	static const char *const builtins[] = { "len", "int", "max", "min", NULL };
	TSNode fn = ta_node_field(n, "function");
	const char *const *ok = ta_node_is(fn, "attribute") ? methods : ta_node_is(fn, "identifier") ? builtins : NULL;
	TSNode name = ta_node_is(fn, "attribute") ? ta_node_field(fn, "attribute") : fn;
	bool known = false;
	for (size_t i = 0; ok && ok[i] && !known; i++)
		known = ta_node_text_eq(m->src, name, ok[i]);
	if (!known || (ta_node_is(fn, "attribute") && !p6_host_scalar(m, ta_node_field(fn, "object"))))
		return false;
	TSNode args = ta_node_field(n, "arguments");
	for (uint32_t i = 0, c = ta_node_named_count(args); i < c; i++)
		if (!p6_host_scalar(m, ta_node_named_child(args, i)))
			return false;
	return true;
}

/* A flat list of host values written out: a list display or a list
 * comprehension whose element is one. */
static bool p6_host_list_expr(const ta_model *m, TSNode n)
{
	n = ta_node_unparen(n);
	if (ta_node_is(n, "list_comprehension"))
		return p6_host_scalar(m, ta_node_field(n, "body"));
	if (!ta_node_is(n, "list") && !ta_node_is(n, "tuple"))
		return false;
	for (uint32_t i = 0, c = ta_node_named_count(n); i < c; i++)
		if (!p6_host_scalar(m, ta_node_named_child(n, i)))
			return false;
	return true;
}

/* name is a flat list of host values in the function host: bound to one
 * (every binding), grown only by `+=` of one, .append of a host value or
 * .extend of one. */
static bool p6_host_list_name(const ta_model *m, TSNode host, const char *name)
{
	ta_edits_defs d = { .n = 0 };
	ta_edits_find_defs(m, host, name, &d);
	if (!d.n || d.more)
		return false;
	for (size_t i = 0; i < d.n; i++) {
		TSNode r = ta_node_field(d.v[i], "right");
		if (!ta_node_is(ta_node_field(d.v[i], "left"), "identifier") || !p6_host_list_expr(m, r))
			return false;
	}
	/* name.append(x) / name.extend(xs) anywhere in the function */
	for (size_t at = ta_edits_next_word(m, ts_node_start_byte(host), name);
	     at != SIZE_MAX && at < ts_node_end_byte(host); at = ta_edits_next_word(m, at + 1, name)) {
		TSNode id = ta_node_named_at(host, (uint32_t)at, (uint32_t)(at + strlen(name)));
		TSNode attr = ta_node_parent(id), call = ta_node_parent(attr);
		if (!ta_node_is(id, "identifier") || !ta_node_is(attr, "attribute") || !ta_node_is(call, "call") ||
		    !ts_node_eq(ta_node_field(attr, "object"), id))
			continue;
		TSNode meth = ta_node_field(attr, "attribute"), args = ta_node_field(call, "arguments");
		TSNode a0 = ta_node_named_count(args) == 1 ? ta_node_named_child(args, 0) : (TSNode){ 0 };
		if (ta_node_text_eq(m->src, meth, "append") && !(ts_node_is_null(a0) || !p6_host_scalar(m, a0)))
			continue;
		if (ta_node_text_eq(m->src, meth, "extend") && !ts_node_is_null(a0) && p6_host_list_expr(m, a0))
			continue;
		if (ta_node_text_eq(m->src, meth, "append") || ta_node_text_eq(m->src, meth, "extend") ||
		    ta_node_text_eq(m->src, meth, "insert") || ta_node_text_eq(m->src, meth, "__setitem__"))
			return false;
	}
	return true;
}

/* The host list a tensor is copied from: `torch.tensor(L, ...)`,
 * `torch.as_tensor(L)`, through .to(...), .cuda(), .int() and the like;
 * a null node otherwise. */
static TSNode p6_tensor_source(const ta_model *m, TSNode v)
{
	v = ta_node_unparen(v);
	if (!ta_node_is(v, "call"))
		return (TSNode){ 0 };
	TSNode fn = ta_node_field(v, "function");
	if (ta_node_is(fn, "attribute")) {
		static const char *const moves[] = { "to", "cuda", "int", "long", "contiguous", NULL };
		for (size_t i = 0; moves[i]; i++)
			if (ta_node_text_eq(m->src, ta_node_field(fn, "attribute"), moves[i]))
				return p6_tensor_source(m, ta_node_field(fn, "object"));
	}
	char *c = ta_model_canonical(m, fn);
	bool copy = c && (ta_name_is(c, "torch.tensor") || ta_name_is(c, "torch.as_tensor") ||
			  ta_name_is(c, "torch.LongTensor") || ta_name_is(c, "torch.IntTensor"));
	free(c);
	return copy ? ta_edits_call_arg(m, v, 0, "data") : (TSNode){ 0 };
}

/* The function (or module) holding launch l. */
static TSNode p6_host_node(const ta_model *m, const ta_launch *l)
{
	TSNode n = l->host >= 0 ? ta_edits_node(m, m->hosts[l->host].span) : (TSNode){ 0 };
	return ts_node_is_null(n) ? ta_syntax_root(m->syn) : n;
}

/* What the host's check of one launch is. */
typedef struct p6_check {
	const char *kernel;
	const char *slice;
	int mod;
	const char *kcond;
	uint32_t done[16];        /* the bindings already checked (several launches) */
	size_t ndone;
	uint32_t unchecked_line;  /* the first launch nothing could check, or 0 */
	char *unchecked_arg;
} p6_check;

/* Checks launch l's table argument `at` (a plain name) on the host where
 * its entries are host values: 1 done (or done already), 0 when they are
 * not (only on the GPU). */
static int p6_check_host(const ta_model *m, const ta_launch *l, TSNode arg, p6_check *ck, ta_edit *out)
{
	if (!ta_node_is(arg, "identifier"))
		return 0;
	TSNode host = p6_host_node(m, l);
	char *name = ta_node_text(m->src, arg);
	/* the tensor the launch passes, where the wrapper binds it */
	TSNode binding, val = ta_values_def(m, arg, &binding);
	TSNode src = !ts_node_is_null(val) && ta_node_is(binding, "assignment") &&
			     ta_node_is(ta_node_field(binding, "left"), "identifier")
		     ? p6_tensor_source(m, val) : (TSNode){ 0 };
	TSNode stmt = ts_node_is_null(src) ? src : ta_node_parent(binding);
	uint32_t end, st = ts_node_is_null(stmt) || !ta_node_is(stmt, "expression_statement") ? UINT32_MAX
			   : ta_edits_stmt_lines(m, stmt, &end);
	bool named = ta_node_is(src, "identifier");
	char *list = named ? ta_node_text(m->src, src) : NULL;
	char *hoisted = NULL;
	int rc = 0;
	if (st == UINT32_MAX || (named ? !p6_host_list_name(m, host, list) : !p6_host_list_expr(m, src)))
		goto out;
	for (size_t i = 0; i < ck->ndone; i++)
		if (ck->done[i] == st) {
			rc = 1;
			goto out;
		}
	if (!named) {
		hoisted = ta_xasprintf("%s_host", name);
		if (ta_edits_name_taken(m, hoisted))
			goto out;
	}
	char *ind = ta_edits_indent_at(m, st);
	const char *nl = m->src->crlf ? "\r\n" : "\n";
	char *check = ta_xasprintf("%sassert all(v %% %d == 0 for v in %s%s), \"%s: tl.multiple_of assumes %s\"%s", ind,
				   ck->mod, named ? list : hoisted, ck->slice, ck->kernel, ck->kcond, nl);
	if (named) {
		/* after the copy: what the tensor holds is what the list held */
		ta_edit_replace(out, end, end, check);
	} else {
		/* the list written in the call gets a name, checked, then copied */
		char *text = ta_node_text(m->src, src);
		char *pre = ta_xasprintf("%s%s = %s%s%s", ind, hoisted, text, nl, check);
		ta_edit_replace(out, st, st, pre);
		ta_edit_replace(out, ts_node_start_byte(src), ts_node_end_byte(src), hoisted);
		free(pre);
		free(text);
	}
	free(check);
	free(ind);
	if (ck->ndone < 16)
		ck->done[ck->ndone++] = st;
	rc = 1;
out:
	free(hoisted);
	free(list);
	free(name);
	return rc;
}

/* For each launch of the kernel, the host's check of the table parameter's
 * entries, on host values only; a launch whose table only the GPU holds
 * gets a comment saying what is assumed, and the edit states it. */
static int p6_host(const ta_model *m, const p6_site *s, const char *table, const char *slice, int mod,
		   const char *kcond, ta_edit *out, char **why)
{
	size_t ki = (size_t)(s->k - m->kernels), pi = 0;
	while (pi < s->k->param_count && strcmp(s->k->params[pi].name, table))
		pi++;
	size_t launches = 0;
	p6_check ck = { .kernel = s->k->name, .slice = slice, .mod = mod, .kcond = kcond };
	ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		/* its check would hold the other kernel's launch to this one's table */
		if (ta_edits_launch_alone(m, l, why) != 0)
			goto fail;
		TSNode arg = launch_arg(m, l, pi, table);
		if (ts_node_is_null(arg)) {
			ta_edits_refuse(why, "line %u: the launch does not pass `%s` by position or by name", l->span.line,
					table);
			goto fail;
		}
		char *at = ta_node_text(m->src, arg);
		if (!plain_name(arg)) {
			ta_edits_refuse(why, "line %u: `%s` (for %s) is built inside the launch; give it a name first so "
					"the host can check it", l->span.line, at, table);
			free(at);
			goto fail;
		}
		TSNode st = block_statement(ta_edits_node(m, l->span));
		uint32_t end;
		uint32_t start = ts_node_is_null(st) ? UINT32_MAX : ta_edits_stmt_lines(m, st, &end);
		if (start == UINT32_MAX) {
			free(at);
			ta_edits_refuse(why, "line %u: the launch shares its line with other code", l->span.line);
			goto fail;
		}
		launches++;
		if (!p6_check_host(m, l, arg, &ck, out)) {
			char *ind = ta_edits_indent_at(m, start);
			char *line = ta_xasprintf("%s# %s assumes %s for each entry of %s%s it reads: not asserted here, "
						  "since reading a GPU tensor on the host waits for the GPU on every call%s",
						  ind, s->k->name, kcond, at, slice, m->src->crlf ? "\r\n" : "\n");
			ta_edit_replace(out, start, start, line);
			free(line);
			free(ind);
			if (!ck.unchecked_line) {
				ck.unchecked_line = l->span.line;
				ck.unchecked_arg = ta_xstrdup(at);
			}
		}
		free(at);
	}
	if (!launches) {
		ta_edits_refuse(why, "no launch of %s in this file: nowhere to say on the host what the hint assumes",
				s->k->name);
		goto fail;
	}
	if (ck.unchecked_line)
		ta_edit_set_unsafe(out, "assumes every entry of %s%s that %s reads (the launch at line %u) is %s: "
				   "nothing checks it, since the table is on the GPU and reading it on the host would "
				   "wait for the GPU on every call", ck.unchecked_arg, slice, s->k->name, ck.unchecked_line,
				   mod == 16 ? "a 16-byte aligned address" : "a multiple of 8");
	free(ck.unchecked_arg);
	return 0;
fail:
	free(ck.unchecked_arg);
	return -1;
}

static int p6_one(const ta_model *m, const p6_site *s, bool stride, ta_edit *out, char **why)
{
	uint32_t sline = ts_node_start_point(s->stmt).row + 1;
	uint32_t end;
	if (!ta_node_is(ta_node_parent(s->stmt), "block") || ta_edits_stmt_lines(m, s->stmt, &end) == UINT32_MAX)
		return ta_edits_refuse(why, "line %u: the load of `%s` shares its line with other code", sline, s->name);
	TSNode assign = ta_node_named_child(s->stmt, 0);
	char *rhs = ta_node_text(m->src, ta_node_field(assign, "right"));
	bool pointer = strstr(rhs, "pointer_type") != NULL;
	free(rhs);
	if (!pointer && !stride)
		return ta_edits_refuse(why, "line %u: `%s` is neither a stride (a factor of an address) nor a pointer "
				       "(cast with pointer_type): what to assume is not clear", sline, s->name);
	TSNode call = ta_edits_node(m, s->load->span);
	TSNode ptr = ta_node_named_child(ta_node_field(call, "arguments"), 0);
	char *slice = NULL;
	char *table = ts_node_is_null(ptr) ? NULL : table_param(m, s->k, ptr, &slice);
	if (!table)
		return ta_edits_refuse(why, "line %u: the load of `%s` does not read a table parameter T at T + i or "
				       "T + i * S + c, so the host cannot check the entries it reads", sline, s->name);
	char *tl = ta_edits_module(m, "triton.language");
	if (!tl) {
		free(table);
		free(slice);
		return ta_edits_refuse(why, "the file does not import triton.language");
	}
	char *cond = pointer ? ta_xasprintf("%s.to(%s.int64) %% 16 == 0", s->name, tl) :
			       ta_xasprintf("%s %% 8 == 0", s->name);
	/* The host's side first: its check, or the assumption stated. */
	int rc = p6_host(m, s, table, slice, pointer ? 16 : 8, cond, out, why);
	if (rc == 0) {
		char *ind = ta_edits_indent_at(m, ts_node_start_byte(s->stmt));
		bool nl = end > 0 && m->src->text[end - 1] == '\n';
		int mod = pointer ? 16 : 8;
		char *line = ta_xasprintf("%s%s%s = %s.multiple_of(%s, %d)\n", nl ? "" : "\n", ind, s->name, tl, s->name,
					  mod);
		ta_edit_replace(out, end, end, line);
		/* p6_host states the assumption where nothing could check it */
		ta_edit_set_title(out, out->unsafe ? "tl.multiple_of(%s, %d) after the load (%s); the host checks `%s` "
				  "where it copies a list of its own, and says what is assumed where the table is only on the GPU"
				  : "tl.multiple_of(%s, %d) after the load (%s), checked on the host list copied to `%s`",
				  s->name, mod, cond, table);
		out->line = sline;
		free(line);
		free(ind);
	}
	free(cond);
	free(tl);
	free(table);
	free(slice);
	return rc;
}

static int p6_kernel(const ta_model *m, const ta_kernel *k, uint32_t line, ta_edit *out, ta_sites *sites)
{
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->kind != TA_OP_LOAD || op->ptr_shape != TA_PTR_SCALAR)
			continue;
		TSNode as = load_assignment(ta_edits_node(m, op->span));
		if (ts_node_is_null(as))
			continue;       /* a null node has no tree: no parent to ask for */
		TSNode left = ta_node_field(as, "left");
		TSNode stmt = ta_node_parent(as);
		if (!ta_node_is(left, "identifier") || !ta_node_is(stmt, "expression_statement"))
			continue;
		p6_site s = { k, op, stmt, ta_node_text(m->src, left) };
		bool stride;
		ta_span at = { .line = ts_node_start_point(stmt).row + 1, .end_line = ts_node_end_point(stmt).row + 1 };
		if (!used_in_address(m, k, s.name, &stride) || already_assumed(m, k, s.name) ||
		    !ta_edits_at_line(at, line)) {
			free(s.name);
			continue;
		}
		char *w = NULL;
		int rc = p6_one(m, &s, stride, out, &w);
		free(s.name);
		if (ta_sites_made(sites, rc, &w, out))
			return 0;
	}
	return -1;
}

/* Rewrite: tl.multiple_of on a loaded stride or pointer, and the host's check of it on host values (never a read of
 * the GPU's table), or the assumption stated where there is none. */
TA_REWRITE(P6, NULL, TA_UNSAFE("assumes no caller passes a table entry the new host assert rejects (a stride not a multiple of 8, a pointer not 16-byte aligned); where the table is only on the GPU nothing asserts it, and the edit says so"))
{
	ta_sites s = TA_SITES_INIT;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (!ta_edits_kernel_selected(kernel_or_host, ki))
			continue;
		if (p6_kernel(m, &m->kernels[ki], line, out, &s) == 0)
			return 0;
	}
	return ta_sites_end(&s, why_not, line, "no stride or pointer loaded from memory and used in an address without "
			       "an alignment hint");
}
