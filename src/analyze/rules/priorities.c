/* Section 2: the post-TMA priority list (P1-P7). */
#include "config.h"
#include "analyze/rules/rules_internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool is_tile_param(const ta_param *p)
{
	if (!p->constexpr_)
		return false;
	return strncasecmp(p->name, "BLOCK", 5) == 0 || strstr(p->name, "_BLOCK") ||
	       strncasecmp(p->name, "TILE", 4) == 0 || strstr(p->name, "_SIZE") != NULL;
}

static bool varies(const ta_autotune *a, const char *name)
{
	for (size_t i = 0; i < a->vary_count; i++)
		if (!strcasecmp(a->varies[i], name))
			return true;
	return false;
}

static ta_span configs_where(const ta_autotune *a)
{
	if (a->configs_kind == TA_CONFIGS_LIST || a->configs_kind == TA_CONFIGS_COMPREHENSION)
		return a->configs_span;
	return a->config_count ? a->configs[0].span : a->span;
}

/* Below this GPU time per launch, the autotuner's work on every call (its
 * key, its cache lookup, in Python) is of the same order as the kernel: on
 * an H200 the bundled cat example's 5.3 us copies ran as fast after P1 and
 * the whole call took 1.4x as long. */
#define P1_SHORT_LAUNCH_NS 20000.0

/* Launch keywords that fix tiles or launch options of an untuned kernel. */
static ta_status p1_untuned(ta_rule_ctx *c)
{
	const ta_kernel_evidence *e = ta_evidence_find(c->ev, c->k->name);
	bool found = false;
	for (size_t i = 0; i < c->m->launch_count; i++) {
		const ta_launch *l = &c->m->launches[i];
		if (l->kernel != c->kernel)
			continue;
		ta_buf fixed = TA_BUF_INIT;
		uint32_t kw_line = 0;
		for (size_t j = 0; j < l->kwarg_count; j++) {
			const ta_kwarg *kw = &l->kwargs[j];
			const ta_param *p = ta_kernel_param(c->k, kw->name);
			if ((p && is_tile_param(p)) || !strcmp(kw->name, "num_warps") || !strcmp(kw->name, "num_stages")) {
				ta_buf_printf(&fixed, "%s%s=%s", fixed.len ? ", " : "", kw->name, kw->value);
				kw_line = kw->span.line;
			}
		}
		if (fixed.len) {
			ta_finding *f = ta_rule_add(c, l->span,
				"`%s` is launched with fixed %s and no @triton.autotune", c->k->name, ta_buf_str(&fixed));
			ta_finding_line(f, kw_line);
			if (e && e->median_ns > 0 && e->median_ns < P1_SHORT_LAUNCH_NS)
				f->measure = ta_xasprintf(
					"each launch runs %.1f us on the GPU: the autotuner adds host work to every "
					"call (its key, its cache lookup), which can cost more than a better config "
					"saves at this size; time the whole call, not only the kernel",
					e->median_ns / 1e3);
			found = true;
		}
		ta_buf_free(&fixed);
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}

/* The kernels whose autotune reads the same config list as k's, in file
 * order: one list tuned for several kernels gets one finding (the same text
 * for each), naming them all. *count: how many. */
static char *sharing_configs(const ta_rule_ctx *c, ta_span where, size_t *count)
{
	const ta_kernel **ks = ta_xcalloc(c->m->kernel_count + 1, sizeof *ks);
	size_t n = 0;
	for (size_t i = 0; i < c->m->kernel_count; i++) {
		const ta_kernel *o = &c->m->kernels[i];
		if (o != c->k && (o->is_helper || !o->autotune || !o->autotune->config_count))
			continue;
		ta_span w = o == c->k ? where : configs_where(o->autotune);
		if (w.start == where.start && w.end == where.end)
			ks[n++] = o;
	}
	*count = n;
	char *names = ta_rule_kernel_list(ks, n);
	free(ks);
	return names;
}

ta_status ta_detect_p1(ta_rule_ctx *c)
{
	const ta_autotune *a = c->k->autotune;
	if (c->k->is_helper)
		return TA_STATUS_NOT_APPLICABLE;
	if (!a)
		return p1_untuned(c);
	if (a->configs_kind == TA_CONFIGS_UNRESOLVED || a->configs_kind == TA_CONFIGS_NONE || a->config_count == 0)
		return TA_STATUS_NOT_APPLICABLE;
	ta_span where = configs_where(a);
	bool found = false;
	size_t sharing;
	char *who = sharing_configs(c, where, &sharing);
	if (!varies(a, "num_stages") && !varies(a, "num_warps")) {
		ta_rule_add(c, where, "the autotune configs of %s vary neither num_stages nor num_warps", who);
		found = true;
	}
	if (!a->branches_on_capability) {
		ta_finding *f = ta_rule_add(c, where,
			"%s use%s one config list for every GPU: nothing branches on "
			"torch.cuda.get_device_capability() or the backend", who, sharing > 1 ? "" : "s");
		f->tags |= TA_TAG_GPU_SPLIT;
		found = true;
	}
	free(who);
	/* occupancy, or the program count itself (Triton's grouped GEMM tunes NUM_SM) */
	if (c->k->persistent && !varies(a, "occupancy") && !varies(a, "OCCUPANCY") && !varies(a, "NUM_SMS") &&
	    !varies(a, "NUM_SM") && !varies(a, "NUM_PROGRAMS")) {
		ta_rule_add(c, where, "persistent `%s` has no occupancy in its autotune configs", c->k->name);
		found = true;
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_SATISFIED;
}

static bool has_even_guard(const ta_kernel *k)
{
	for (size_t i = 0; i < k->heuristic_count; i++)
		if (!strncasecmp(k->heuristics[i].name, "EVEN", 4))
			return true;
	for (size_t i = 0; i < k->param_count; i++)
		if (k->params[i].constexpr_ && !strncasecmp(k->params[i].name, "EVEN", 4))
			return true;
	return false;
}

/* A reduction loop: it holds a dot or an accumulation `x += ...`. */
static bool is_reduction_loop(ta_rule_ctx *c, int l)
{
	for (size_t i = 0; i < c->k->op_count; i++)
		if (c->k->ops[i].kind == TA_OP_DOT && c->k->ops[i].loop == l)
			return true;
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	for (size_t i = 0; i < n; i++)
		if (as[i].loop == l && as[i].augmented)
			return true;
	return false;
}

/* The mask of a load (keyword or second positional argument); empty span
 * when it has none. */
static ta_span load_mask(const ta_op *op)
{
	const ta_kwarg *m = ta_kwarg_find(op->kwargs, op->kwarg_count, "mask");
	if (m)
		return m->value_span;
	return op->arg_count >= 2 ? op->args[1] : (ta_span){ 0 };
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
		size_t loads = 0, masked = 0;
		for (size_t i = 0; i < k->op_count; i++) {
			const ta_op *op = &k->ops[i];
			if (op->kind != TA_OP_LOAD || op->loop != (int)l)
				continue;
			moving[i] = op->has_mask && ta_rule_varies_in_loop(c, load_mask(op), (int)l);
			if (op->ptr_shape == TA_PTR_1D || op->ptr_shape == TA_PTR_2D) {
				loads++;
				masked += moving[i];
			}
		}
		if (!masked || !is_reduction_loop(c, (int)l))
			continue;
		/* With an EVEN_* guard the masked loads are the remainder path. */
		if (has_even_guard(k)) {
			any = true;
			continue;
		}
		if (masked != loads)
			continue;
		any = true;
		for (size_t i = 0; i < k->op_count; i++) {
			const ta_op *op = &k->ops[i];
			if (op->kind != TA_OP_LOAD || op->loop != (int)l || !moving[i])
				continue;
			ta_finding *f = ta_rule_add(c, op->span,
				"%s%s%s is loaded with a mask on every step of the loop at line %u: an EVEN_K "
				"heuristic would let the divisible case skip it",
				op->target ? "`" : "", op->target ? op->target : "a tile", op->target ? "`" : "",
				k->loops[l].span.line);
			ta_finding_line(f, k->loops[l].span.line);
			found = true;
		}
	}
	free(moving);
	if (found)
		return TA_STATUS_APPLIES;
	return any ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

/* Where a tile comes from: 1 raw pointer load, 2 descriptor/block pointer,
 * 0 unknown. */
static int tile_origin(ta_rule_ctx *c, const char *name, uint32_t before, int depth)
{
	if (!name || depth > 4)
		return 0;
	const ta_kernel *k = c->k;
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	const ta_assign *def = NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(as[i].name, name) && as[i].stmt.start < before && !as[i].augmented)
			def = &as[i];
	if (!def)
		return 0;
	int origin = 0;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->span.start < def->rhs.start || op->span.end > def->rhs.end)
			continue;
		if (op->kind == TA_OP_DESC_LOAD || (op->kind == TA_OP_LOAD && op->ptr_shape == TA_PTR_BLOCK_PTR))
			return 2;
		if (op->kind == TA_OP_LOAD)
			origin = 1;
	}
	if (origin)
		return origin;
	/* `b = a.to(tl.float16)`: follow a plain name. */
	TSNode rhs = ta_rule_node(c, def->rhs);
	while (ta_node_is(rhs, "call") && ta_node_is(ta_node_field(rhs, "function"), "attribute"))
		rhs = ta_node_field(ta_node_field(rhs, "function"), "object");
	if (ta_node_is(rhs, "identifier")) {
		char *t = ta_node_text(c->m->src, rhs);
		int o = tile_origin(c, t, def->stmt.start, depth + 1);
		free(t);
		return o;
	}
	return 0;
}

/* The operand a transpose applies to, as text (caller frees). */
static char *trans_operand(ta_rule_ctx *c, const ta_op *op)
{
	if (op->receiver)
		return ta_xstrdup(op->receiver);
	return ta_op_arg(c, op, 0);
}

ta_status ta_detect_p3(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	bool found = false, good = false;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if ((op->kind != TA_OP_TRANS && op->kind != TA_OP_PERMUTE) || op->loop < 0)
			continue;
		char *x = trans_operand(c, op);
		int origin = 0;
		if (x) {
			origin = tile_origin(c, x, op->span.start, 0);
			/* tl.trans(tl.load(...)) directly */
			for (size_t j = 0; j < k->op_count && !origin; j++)
				if (k->ops[j].kind == TA_OP_LOAD && op->arg_count &&
				    k->ops[j].span.start == op->args[0].start && k->ops[j].ptr_shape != TA_PTR_BLOCK_PTR)
					origin = 1;
		}
		if (origin == 1) {
			ta_finding *f = ta_rule_add(c, op->span,
				"`%s` is transposed on every iteration of the loop at line %u; loading it "
				"transposed (swap the offset/stride roles) avoids the shuffle",
				x, k->loops[op->loop].span.line);
			ta_finding_line(f, k->loops[op->loop].span.line);
			found = true;
		} else if (origin == 2) {
			good = true;
		}
		free(x);
	}
	if (found)
		return TA_STATUS_APPLIES;
	return good ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

static bool has_dot(const ta_kernel *k)
{
	for (size_t i = 0; i < k->op_count; i++)
		if (k->ops[i].kind == TA_OP_DOT)
			return true;
	return false;
}

/* Pointer BMM: a dot kernel reading its tiles through raw pointers. */
static bool pointer_tiles(const ta_kernel *k)
{
	for (size_t i = 0; i < k->op_count; i++)
		if (k->ops[i].kind == TA_OP_LOAD && k->ops[i].ptr_shape == TA_PTR_2D)
			return true;
	return false;
}

/* The dot kernels launched with the grid defined at def (one grid variable
 * can serve several launches): named together, so that the finding, made
 * once per kernel, prints once. */
static char *kernels_on_grid(const ta_rule_ctx *c, ta_span def, size_t *count)
{
	const ta_kernel **ks = ta_xcalloc(c->m->launch_count + 1, sizeof *ks);
	size_t n = 0;
	for (size_t i = 0; i < c->m->launch_count; i++) {
		const ta_launch *l = &c->m->launches[i];
		if (l->kernel < 0 || l->grid_dims != 3 || l->grid_def_span.start != def.start ||
		    l->grid_def_span.end != def.end)
			continue;
		const ta_kernel *k = &c->m->kernels[l->kernel];
		bool seen = false;   /* one kernel can be launched twice on the grid */
		for (size_t j = 0; j < n && !seen; j++)
			seen = ks[j] == k;
		if (!seen && (k == c->k || (has_dot(k) && pointer_tiles(k))))
			ks[n++] = k;
	}
	*count = n;
	char *names = ta_rule_kernel_list(ks, n);
	free(ks);
	return names;
}

ta_status ta_detect_p4(ta_rule_ctx *c)
{
	if (!has_dot(c->k) || c->k->launch_count == 0 || c->attention || !pointer_tiles(c->k))
		return TA_STATUS_NOT_APPLICABLE;
	bool found = false;
	for (size_t i = 0; i < c->m->launch_count; i++) {
		const ta_launch *l = &c->m->launches[i];
		if (l->kernel != c->kernel || l->grid_dims != 3)
			continue;
		size_t on_grid;
		char *who = kernels_on_grid(c, l->grid_def_span, &on_grid);
		bool several = on_grid > 1;
		ta_finding *f = ta_rule_add(c, l->grid_def_span,
			"dot kernel%s %s %s launched on a 3D grid (%s, %s, %s): a 2D grid with grouped "
			"program ids keeps tiles of one batch together in L2", several ? "s" : "", who,
			several ? "are" : "is", l->grid_dim_text[0], l->grid_dim_text[1], l->grid_dim_text[2]);
		free(who);
		ta_finding_line(f, l->span.line);
		for (size_t j = 0; j < c->k->op_count; j++)
			if (c->k->ops[j].kind == TA_OP_PROGRAM_ID && c->k->ops[j].arg_count &&
			    ta_rule_contains(c, c->k->ops[j].args[0], "2"))
				ta_finding_line(f, c->k->ops[j].span.line);
		found = true;
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_SATISFIED;
}

/* The last block dimension of the descriptor a store writes through, as the
 * name of a parameter (caller frees), or NULL when it is not visible. */
static char *store_block_width(ta_rule_ctx *c, const ta_op *store)
{
	if (!store->receiver)
		return NULL;
	const ta_op *d = ta_op_defining(c->k, store->receiver, store->span.start);
	if (!d || d->kind != TA_OP_MAKE_DESCRIPTOR)
		return NULL;
	const ta_kwarg *kw = ta_kwarg_find(d->kwargs, d->kwarg_count, "block_shape");
	TSNode list = kw ? ta_rule_node(c, kw->value_span) : d->arg_count >= 4 ? ta_rule_node(c, d->args[3]) :
		      (TSNode){ 0 };
	uint32_t n = ta_node_is(list, "list") || ta_node_is(list, "tuple") ? ta_node_named_count(list) : 0;
	if (!n)
		return NULL;
	return ta_node_text(c->m->src, ts_node_named_child(list, n - 1));
}

ta_status ta_detect_p5(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	const ta_op *store = NULL;
	for (size_t i = 0; i < k->op_count && !store; i++)
		if (k->ops[i].kind == TA_OP_DESC_STORE)
			store = &k->ops[i];
	if (!store)
		return TA_STATUS_NOT_APPLICABLE;
	for (size_t i = 0; i < k->param_count; i++)
		if (strstr(k->params[i].name, "SUBTILE") || strstr(k->params[i].name, "subtile"))
			return TA_STATUS_SATISFIED;
	/* The tile's width: the descriptor's last block dimension when the
	 * kernel builds it, else the usual N-tile names. */
	char *width = store_block_width(c, store);
	static const char *const names[] = { "BLOCK_N", "BLOCK_SIZE_N", "BN", NULL };
	const char *const *cands = names;
	const char *one[2] = { width, NULL };
	if (width)
		cands = one;
	ta_status s = TA_STATUS_NOT_APPLICABLE;
	for (; *cands && s == TA_STATUS_NOT_APPLICABLE; cands++) {
		if (!ta_kernel_param(k, *cands))
			continue;
		long vals[64];
		size_t nv = ta_rule_param_values(c, *cands, vals, 64);
		long big = 0;
		for (size_t i = 0; i < nv; i++)
			if (vals[i] > big)
				big = vals[i];
		if (big >= 128) {
			ta_rule_add(c, store->span, "`%s` stores its output tile through a descriptor with %s up to "
				    "%ld and no epilogue subtile option", k->name, *cands, big);
			s = TA_STATUS_APPLIES;
		} else if (big) {
			s = TA_STATUS_SATISFIED;
		}
	}
	free(width);
	return s;
}

/* Assignment a builds a pointer tile from name, as its stride or base
 * (`a_ptrs = a_ptr + offs_am[:, None] * lda`). */
static bool builds_tile_from(ta_rule_ctx *c, const ta_assign *a, const char *name)
{
	return strcmp(a->name, name) && ta_rule_mentions(c, a->rhs, name) &&
	       ta_kernel_address_role(c->m, c->k, ta_rule_node(c, a->rhs), name);
}

/* True when name (transitively through assignments) reaches the pointer
 * of a memory op or a descriptor base. */
static bool flows_to_pointer(ta_rule_ctx *c, const char *name, int depth)
{
	const ta_kernel *k = c->k;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		bool mem = op->kind == TA_OP_LOAD || op->kind == TA_OP_STORE || op->kind == TA_OP_MAKE_DESCRIPTOR ||
			   op->kind == TA_OP_MAKE_BLOCK_PTR;
		if (!mem)
			continue;
		if (op->arg_count && ta_rule_mentions(c, op->args[0], name) &&
		    ta_kernel_address_role(c->m, k, ta_rule_node(c, op->args[0]), name))
			return true;
		if (op->kind == TA_OP_MAKE_DESCRIPTOR || op->kind == TA_OP_MAKE_BLOCK_PTR)
			for (size_t j = 0; j < op->kwarg_count; j++)
				if ((!strcmp(op->kwargs[j].name, "strides") || !strcmp(op->kwargs[j].name, "base")) &&
				    ta_rule_mentions(c, op->kwargs[j].value_span, name))
					return true;
	}
	/* Else one step through a pointer tile built from it, in the role of a
	 * stride or a base: a loaded index that picks a row (through tl.where
	 * or arithmetic) is an offset, not a stride or a base pointer. */
	if (depth > 0)
		return false;
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	for (size_t i = 0; i < n; i++) {
		if (!builds_tile_from(c, &as[i], name))
			continue;
		char *t = ta_xstrdup(as[i].name);
		bool yes = flows_to_pointer(c, t, depth + 1);
		free(t);
		if (yes)
			return true;
	}
	return false;
}

static bool hinted(const ta_rule_ctx *c, const char *name)
{
	for (size_t i = 0; i < c->k->op_count; i++) {
		const ta_op *op = &c->k->ops[i];
		if ((op->kind == TA_OP_ASSUME || op->kind == TA_OP_MULTIPLE_OF) &&
		    ta_rule_mentions(c, op->span, name))
			return true;
	}
	return false;
}

/* name, or a pointer tile built from it, already carries an alignment hint
 * (Triton's grouped GEMM: tl.multiple_of(a_ptrs, [16, 16])). */
static bool assumed(ta_rule_ctx *c, const char *name)
{
	if (hinted(c, name))
		return true;
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	for (size_t i = 0; i < n; i++)
		if (builds_tile_from(c, &as[i], name) && hinted(c, as[i].name))
			return true;
	return false;
}

ta_status ta_detect_p6(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	bool any = false, found = false;
	for (size_t i = 0; i < n; i++) {
		const ta_assign *a = &as[i];
		if (a->augmented)
			continue;
		const ta_op *load = NULL;
		for (size_t j = 0; j < k->op_count && !load; j++) {
			const ta_op *op = &k->ops[j];
			if (op->kind == TA_OP_LOAD && op->ptr_shape == TA_PTR_SCALAR &&
			    op->span.start >= a->rhs.start && op->span.end <= a->rhs.end)
				load = op;
		}
		if (!load || !flows_to_pointer(c, a->name, 0))
			continue;
		any = true;
		if (assumed(c, a->name))
			continue;
		bool dup = false;
		for (size_t f = 0; f < c->res->finding_count; f++)
			if (c->res->findings[f].id == c->id && c->res->findings[f].kernel == c->kernel &&
			    c->res->findings[f].span.start == a->stmt.start)
				dup = true;
		if (dup)
			continue;
		/* What to assume, as the edit writes it: a pointer is aligned to
		 * 16 bytes, a stride to 8 elements (16 bytes of fp16). */
		bool pointer = ta_rule_contains(c, a->rhs, "pointer_type");
		char *cond = pointer ? ta_xasprintf("%s.to(tl.int64) %% 16 == 0", a->name) :
				       ta_xasprintf("%s %% 8 == 0", a->name);
		ta_rule_add(c, a->stmt,
			"`%s` is loaded from memory and used in pointer arithmetic without tl.assume: Triton "
			"cannot know its alignment (add tl.assume(%s) and assert it on the host)", a->name, cond);
		free(cond);
		found = true;
	}
	if (found)
		return TA_STATUS_APPLIES;
	return any ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

ta_status ta_detect_p7(ta_rule_ctx *c)
{
	if (c->k->is_helper || c->k->launch_count == 0)
		return TA_STATUS_NOT_APPLICABLE;
	const ta_kernel_evidence *e = ta_evidence_find(c->ev, c->k->name);
	if (!e || !c->ev->sm_count)
		return TA_STATUS_NEEDS_PROFILE;
	double blocks = (double)(e->grid[0] ? e->grid[0] : 1) * (e->grid[1] ? e->grid[1] : 1) *
			(e->grid[2] ? e->grid[2] : 1);
	ta_span where = c->k->def_span;
	for (size_t i = 0; i < c->m->launch_count; i++)
		if (c->m->launches[i].kernel == c->kernel) {
			where = c->m->launches[i].span;
			break;
		}
	if (!c->k->persistent && blocks > 16.0 * c->ev->sm_count && e->median_ns > 0 &&
	    e->median_ns / (e->waves > 0 ? e->waves : blocks / c->ev->sm_count) < 5000) {
		ta_finding *f = ta_rule_add(c, where,
			"`%s` launches %.0f short programs on %u SMs: a persistent loop over tiles saves "
			"the per-program start", c->k->name, blocks, c->ev->sm_count);
		f->measure = ta_xasprintf("%.0f blocks, %.1f waves, median %.1f us", blocks, e->waves, e->median_ns / 1e3);
		return TA_STATUS_APPLIES;
	}
	if (c->k->persistent && e->waves > 0 && e->waves < 0.5 && e->occupancy > 0) {
		ta_finding *f = ta_rule_add(c, where,
			"persistent `%s` fills %.0f%% of one wave: its program count ignores occupancy",
			c->k->name, e->waves * 100);
		f->measure = ta_xasprintf("%.0f blocks on %u SMs, occupancy %.2f", blocks, c->ev->sm_count, e->occupancy);
		return TA_STATUS_APPLIES;
	}
	return TA_STATUS_SATISFIED;
}
