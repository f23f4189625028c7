/* The deeper entries D1-D15 (from the two linked documents and from
 * patterns seen in public kernels). */
#include "config.h"
#include "analyze/rules/rules_internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int dots_in_loop(const ta_kernel *k, int l)
{
	int n = 0;
	for (size_t i = 0; i < k->op_count; i++)
		if (k->ops[i].kind == TA_OP_DOT && k->ops[i].loop >= 0 && ta_loop_within(k, k->ops[i].loop, l))
			n++;
	return n;
}

ta_status ta_detect_d1(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	int heavy = -1;
	bool controlled = false;
	for (size_t l = 0; l < k->loop_count; l++) {
		const ta_loop *lp = &k->loops[l];
		if (ta_kwarg_find(lp->kwargs, lp->kwarg_count, "loop_unroll_factor")) {
			controlled = true;
			continue;
		}
		if (heavy < 0 && (lp->kind == TA_LOOP_STATIC_RANGE || dots_in_loop(k, (int)l) >= 2))
			heavy = (int)l;
	}
	if (heavy < 0)
		return controlled ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
	const ta_kernel_evidence *e = ta_evidence_find(c->ev, k->name);
	if (!e)
		return TA_STATUS_NEEDS_PROFILE;
	if (e->local_bytes == 0 && e->registers < 200)
		return TA_STATUS_SATISFIED;
	const ta_loop *lp = &k->loops[heavy];
	ta_finding *f = ta_rule_add(c, lp->header, "`%s` spills (%u bytes of local memory per thread, %u "
				    "registers) around the %s loop at line %u: tl.range(..., loop_unroll_factor=1) "
				    "keeps fewer tiles live", k->name, e->local_bytes, e->registers,
				    lp->kind == TA_LOOP_STATIC_RANGE ? "unrolled" : "heavy", lp->span.line);
	f->measure = ta_xasprintf("local memory %u B/thread, %u registers/thread", e->local_bytes, e->registers);
	return TA_STATUS_APPLIES;
}

ta_status ta_detect_d2(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	const ta_op *dot = NULL;
	for (size_t i = 0; i < k->op_count && !dot; i++)
		if (k->ops[i].kind == TA_OP_DOT)
			dot = &k->ops[i];
	if (!dot)
		return TA_STATUS_NOT_APPLICABLE;
	bool known = false;
	for (size_t i = 0; i < k->param_count; i++) {
		const ta_param *p = &k->params[i];
		if (!p->constexpr_ || strncasecmp(p->name, "BLOCK", 5))
			continue;
		long vals[64];
		size_t n = ta_rule_param_values(c, p->name, vals, 64);
		if (!n)
			continue;
		known = true;
		long most = 0;
		for (size_t v = 0; v < n; v++)
			if (vals[v] > most)
				most = vals[v];
		if (most <= 16) {
			ta_finding *f = ta_rule_add(c, dot->span, "tl.dot in `%s` works on %ld-wide tiles (`%s` is "
						    "never larger): tiles of 32 or more use the tensor cores better",
						    k->name, most, p->name);
			ta_finding_line(f, p->span.line);
			return TA_STATUS_APPLIES;
		}
	}
	return known ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

static bool output_alloc(const ta_host_op *op)
{
	static const char *const names[] = {
		"torch.empty", "torch.zeros", "torch.ones", "torch.full", "torch.empty_like",
		"torch.zeros_like", "torch.ones_like", "torch.full_like", "torch.empty_strided", NULL,
	};
	return op->kind == TA_HOST_ALLOC && op->callee && ta_name_among(op->callee, names);
}

/* Host functions (not module level) that launch the current kernel. */
static bool host_launches(const ta_rule_ctx *c, const ta_host *h)
{
	if (h->span.end == 0 || ta_rule_host_is_test(h))
		return false;
	for (size_t i = 0; i < h->launch_count; i++)
		if (c->m->launches[h->launches[i]].kernel == c->kernel)
			return true;
	return false;
}

/* The kernels h launches, for a message: the same text for each of them,
 * so that the finding, made once per kernel, prints once. */
static char *launched_names(const ta_rule_ctx *c, const ta_host *h)
{
	const ta_kernel **ks = ta_xcalloc(h->launch_count ? h->launch_count : 1, sizeof *ks);
	size_t n = 0;
	for (size_t i = 0; i < h->launch_count; i++) {
		int k = c->m->launches[h->launches[i]].kernel;
		if (k >= 0)
			ks[n++] = &c->m->kernels[k];
	}
	char *names = ta_rule_kernel_list(ks, n);
	free(ks);
	return names;
}

ta_status ta_detect_d3(ta_rule_ctx *c)
{
	bool any = false, found = false;
	for (size_t hi = 0; hi < c->m->host_count; hi++) {
		const ta_host *h = &c->m->hosts[hi];
		if (!host_launches(c, h))
			continue;
		any = true;
		size_t n = 0;
		const ta_host_op *first = NULL;
		for (size_t i = 0; i < h->op_count; i++)
			if (output_alloc(&h->ops[i]) && h->ops[i].loop_depth == 0) {
				if (!first)
					first = &h->ops[i];
				n++;
			}
		if (n < 3)
			continue;
		char *kernels = launched_names(c, h);
		ta_finding *f = ta_rule_add(c, first->span, "`%s` allocates %zu tensors on every call before "
					    "launching %s: one slab with views into it is cheaper", h->name, n, kernels);
		free(kernels);
		for (size_t i = 0; i < h->op_count; i++)
			if (output_alloc(&h->ops[i]) && h->ops[i].loop_depth == 0)
				ta_finding_line(f, h->ops[i].span.line);
		found = true;
	}
	if (found)
		return TA_STATUS_APPLIES;
	return any ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

ta_status ta_detect_d4(ta_rule_ctx *c)
{
	bool found = false;
	for (size_t i = 0; i < c->k->op_count; i++) {
		const ta_op *op = &c->k->ops[i];
		if (op->kind != TA_OP_EXPAND_DIMS || op->loop < 0)
			continue;
		char *x = op->receiver ? ta_xstrdup(op->receiver) : ta_op_arg(c, op, 0);
		char *axis = op->receiver ? ta_op_arg(c, op, 0) : ta_op_arg(c, op, 1);
		const char *idx = axis && !strcmp(axis, "0") ? "[None, :]" : "[:, None]";
		ta_rule_add(c, op->span, "tl.expand_dims(%s, %s) inside the loop at line %u: (%s)%s is the same "
			    "without a call", x ? x : "x", axis ? axis : "?", c->k->loops[op->loop].span.line,
			    x ? x : "x", idx);
		free(x);
		free(axis);
		found = true;
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}

ta_status ta_detect_d5(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	bool found = false;
	for (size_t l = 0; l < k->loop_count; l++) {
		const ta_loop *lp = &k->loops[l];
		char *it = ta_rule_text(c, lp->iter);
		for (char *p = it; *p; p++)
			*p = (char)(*p | 0x20);
		bool groups = strstr(it, "group") || strstr(it, "expert") || strstr(it, "problem");
		free(it);
		if (!groups)
			continue;
		bool where = false, scalar_load = false;
		for (size_t i = 0; i < k->op_count; i++) {
			const ta_op *op = &k->ops[i];
			if (op->loop != (int)l)
				continue;
			where |= op->kind == TA_OP_WHERE;
			scalar_load |= op->kind == TA_OP_LOAD && op->ptr_shape == TA_PTR_SCALAR;
		}
		if (!where || !scalar_load)
			continue;
		ta_rule_add(c, lp->header, "the loop at line %u scans every group with tl.where to find the "
			    "current tile's group: advancing a running `last_problem_end` visits each once",
			    lp->span.line);
		found = true;
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}

/* Names of dimensions that are model constants (head dim, head counts,
 * pads), and of problem sizes that legitimately vary per call. */
static const char *const model_dims[] = {
	"HEAD_DIM", "head_dim", "D", "d_head", "D_HEAD", "HEAD_SIZE", "num_heads", "NUM_HEADS", "H",
	"n_heads", "num_kv_heads", "pad", "PAD", "padding", "hidden", "hidden_size", "HIDDEN", "dim", NULL,
};
static const char *const problem_sizes[] = {
	"n_elements", "numel", "n_rows", "num_rows", "M", "batch", "B", "seq_len", "N_CTX", "total",
	"n_tokens", "num_tokens", "T", "L", "S", "K", "size", NULL,
};

ta_status ta_detect_d6(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	bool found = false, any = false;
	for (size_t l = 0; l < k->loop_count; l++) {
		const ta_loop *lp = &k->loops[l];
		if ((lp->kind != TA_LOOP_RANGE && lp->kind != TA_LOOP_TL_RANGE) || !lp->arg_count)
			continue;
		const char *bound = lp->arg_count == 1 ? lp->args[0] : lp->args[1];
		const ta_param *p = ta_kernel_param(k, bound);
		if (!p)
			continue;
		any = true;
		if (p->constexpr_ || ta_name_among(p->name, problem_sizes))
			continue;
		bool dim = ta_name_among(p->name, model_dims);
		bool tiled_walk = lp->arg_count == 3 && dots_in_loop(k, (int)l) == 0 &&
				  ta_kernel_param(k, lp->args[2]) && ta_kernel_param(k, lp->args[2])->constexpr_;
		if (!dim && !tiled_walk)
			continue;
		ta_finding *f = ta_rule_add(c, lp->header, "`%s` (a plain int parameter, line %u) is the trip count "
					    "of the loop at line %u; as tl.constexpr the loop is compiled for its value",
					    p->name, p->span.line, lp->span.line);
		ta_finding_line(f, p->span.line);
		found = true;
	}
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->kind != TA_OP_ARANGE || op->arg_count < 2)
			continue;
		char *b = ta_rule_text(c, op->args[1]);
		const ta_param *p = ta_kernel_param(k, b);
		if (p && !p->constexpr_) {
			ta_finding *f = ta_rule_add(c, op->span, "`%s` bounds tl.arange but is not tl.constexpr", b);
			ta_finding_line(f, p->span.line);
			found = true;
		}
		free(b);
	}
	if (found)
		return TA_STATUS_APPLIES;
	return any ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

ta_status ta_detect_d7(ta_rule_ctx *c)
{
	bool found = false;
	for (size_t hi = 0; hi < c->m->host_count; hi++) {
		const ta_host *h = &c->m->hosts[hi];
		if (!host_launches(c, h))
			continue;
		for (size_t i = 0; i < h->op_count; i++) {
			const ta_host_op *op = &h->ops[i];
			if (op->kind != TA_HOST_CLONE || !op->receiver)
				continue;
			bool copied = strstr(op->receiver, "contiguous(") != NULL;
			for (size_t j = 0; j < h->op_count && !copied; j++)
				copied = h->ops[j].kind == TA_HOST_CONTIGUOUS && h->ops[j].target &&
					 !strcmp(h->ops[j].target, op->receiver) && h->ops[j].span.start < op->span.start &&
					 (strstr(h->ops[j].text, "transpose") || strstr(h->ops[j].text, ".t()") ||
					  strstr(h->ops[j].text, ".T") || strstr(h->ops[j].text, "permute"));
			if (!copied)
				continue;
			ta_rule_add(c, op->span, "`%s` clones `%s`, which a transpose+contiguous already copied",
				    h->name, op->receiver);
			found = true;
		}
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}

ta_status ta_detect_d8(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	bool any = false, found = false;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if ((op->kind != TA_OP_LOAD && op->kind != TA_OP_STORE) || op->loop < 0 || op->ptr_shape != TA_PTR_2D ||
		    !op->arg_count || dots_in_loop(k, op->loop) == 0)
			continue;
		any = true;
		if (!ta_rule_contains(c, op->args[0], "*"))
			continue;
		char *ptr = ta_rule_text(c, op->args[0]);
		if (strlen(ptr) > 60)
			strcpy(ptr + 57, "...");
		ta_rule_add(c, op->span, "the pointer `%s` is rebuilt on every iteration of the loop at line %u: "
			    "advance a pointer (or descriptor offset) by one step instead", ptr,
			    k->loops[op->loop].span.line);
		free(ptr);
		found = true;
	}
	if (found)
		return TA_STATUS_APPLIES;
	return any ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

static bool split_reshape(const char *t)
{
	return t && strstr(t, "// 2") && (strstr(t, ", 2,") || strstr(t, ",2,") || strstr(t, "(2,"));
}

static bool ends_with_split(const ta_rule_ctx *c, TSNode fn)
{
	char *t = ta_node_text(c->m->src, fn);
	size_t n = strlen(t);
	bool yes = n >= 5 && !strcmp(t + n - 5, "split");
	free(t);
	return yes;
}

/* The epilogue-subtile idiom (P5's own edit): in a kernel with a subtile
 * option, a reshape to [M, 2, N // 2] whose result, permuted or not, is split
 * into two register tiles. Nothing is addressed in memory, so it is not D9. */
static bool split_in_registers(ta_rule_ctx *c, const ta_op *op)
{
	bool subtile = false;
	for (size_t i = 0; i < c->k->param_count; i++)
		subtile |= strstr(c->k->params[i].name, "SUBTILE") || strstr(c->k->params[i].name, "subtile");
	if (!subtile)
		return false;
	/* acc.reshape(...).permute(...).split(), tl.split(tl.permute(tl.reshape(...))) */
	for (TSNode p = ta_node_parent(ta_rule_node(c, op->span)); !ts_node_is_null(p); p = ta_node_parent(p)) {
		if (ta_node_is(p, "call")) {
			if (ends_with_split(c, ta_node_field(p, "function")))
				return true;
		} else if (!ta_node_is(p, "attribute") && !ta_node_is(p, "argument_list")) {
			break;
		}
	}
	/* x = tl.reshape(acc, ...); x = tl.permute(x, ...); a, b = tl.split(x) */
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	const char *name = NULL;
	uint32_t after = 0;
	for (size_t i = 0; i < n; i++)
		if (!as[i].augmented && as[i].rhs.start <= op->span.start && op->span.end <= as[i].rhs.end) {
			name = as[i].name;
			after = as[i].stmt.end;
		}
	for (int hop = 0; name && hop < 3; hop++) {
		for (size_t i = 0; i < c->k->op_count; i++) {
			const ta_op *s = &c->k->ops[i];
			size_t cl = s->callee ? strlen(s->callee) : 0;
			if (s->span.start >= after && cl >= 5 && !strcmp(s->callee + cl - 5, "split") && s->arg_count &&
			    ta_rule_mentions(c, s->args[0], name))
				return true;
		}
		const char *next = NULL;
		for (size_t i = 0; i < n && !next; i++)
			if (as[i].stmt.start >= after && ta_rule_mentions(c, as[i].rhs, name) &&
			    (ta_rule_contains(c, as[i].rhs, "permute") || ta_rule_contains(c, as[i].rhs, "trans"))) {
				next = as[i].name;
				after = as[i].stmt.end;
			}
		name = next;
	}
	return false;
}

ta_status ta_detect_d9(ta_rule_ctx *c)
{
	bool found = false;
	for (size_t i = 0; i < c->k->op_count; i++) {
		const ta_op *op = &c->k->ops[i];
		if (op->kind != TA_OP_RESHAPE)
			continue;
		char *t = ta_rule_text(c, op->span);
		if (split_reshape(t) && !split_in_registers(c, op)) {
			ta_rule_add(c, op->span, "a reshape splits a dimension in two halves to address them: a "
				    "transposed, contiguous layout with an offset is faster");
			found = true;
		}
		free(t);
	}
	for (size_t hi = 0; hi < c->m->host_count; hi++) {
		const ta_host *h = &c->m->hosts[hi];
		if (!host_launches(c, h))
			continue;
		for (size_t i = 0; i < h->op_count; i++)
			if (h->ops[i].kind == TA_HOST_RESHAPE && split_reshape(h->ops[i].text)) {
				ta_rule_add(c, h->ops[i].span, "`%s` reshapes a dimension into two halves before "
					    "launching `%s`: a transposed, contiguous layout with an offset is faster",
					    h->name, c->k->name);
				found = true;
			}
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}

ta_status ta_detect_d10(ta_rule_ctx *c)
{
	bool any = false, found = false;
	for (size_t i = 0; i < c->k->op_count; i++) {
		const ta_op *op = &c->k->ops[i];
		if (!op->callee || !ta_name_is(op->callee, "triton.language.pointer_type") || !op->arg_count)
			continue;
		any = true;
		char *t = ta_rule_text(c, op->args[0]);
		if (!strstr(t, "dtype") && (strstr(t, "float") || strstr(t, "int") || strstr(t, "fp8"))) {
			ta_rule_add(c, op->span, "pointer type fixed to %s in `%s`: take the element type from the "
				    "tensor (x.dtype.element_ty) so other dtypes stay correct", t, c->k->name);
			found = true;
		}
		free(t);
	}
	if (found)
		return TA_STATUS_APPLIES;
	return any ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

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

/* The host's assert that `a % n == 0`, or NULL. */
static const ta_host_op *divisible_assert(const ta_host *h, const char *a)
{
	char *pat = ta_xasprintf("%s %%", a);
	const ta_host_op *found = NULL;
	for (size_t i = 0; i < h->op_count && !found; i++)
		if (h->ops[i].kind == TA_HOST_ASSERT && strstr(h->ops[i].text, pat) && strstr(h->ops[i].text, "== 0"))
			found = &h->ops[i];
	free(pat);
	return found;
}

ta_status ta_detect_d11(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	bool found = false;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if ((op->kind != TA_OP_LOAD && op->kind != TA_OP_STORE) || !op->has_mask)
			continue;
		const ta_kwarg *mk = ta_kwarg_find(op->kwargs, op->kwarg_count, "mask");
		ta_span ms = mk ? mk->value_span : op->args[op->kind == TA_OP_STORE ? 2 : 1];
		for (size_t p = 0; p < k->param_count && !found; p++) {
			const ta_param *pr = &k->params[p];
			if (pr->constexpr_ || !ta_rule_mentions(c, ms, pr->name))
				continue;
			for (size_t li = 0; li < c->m->launch_count; li++) {
				const ta_launch *l = &c->m->launches[li];
				if (l->kernel != c->kernel || l->host < 0)
					continue;
				char *a = launch_arg_for(c, l, pr->name);
				const ta_host_op *as = a ? divisible_assert(&c->m->hosts[l->host], a) : NULL;
				if (as) {
					char *mask = ta_rule_text(c, ms);
					ta_finding *f = ta_rule_add(c, op->span, "masked with `%s` although `%s` asserts %s "
								    "is a multiple of the tile: the mask never clears a lane",
								    mask, c->m->hosts[l->host].name, a);
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
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}

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

ta_status ta_detect_d12(ta_rule_ctx *c)
{
	bool found = false;
	for (size_t li = 0; li < c->m->launch_count; li++) {
		const ta_launch *l = &c->m->launches[li];
		if (l->kernel != c->kernel || l->host < 0)
			continue;
		const ta_host *h = &c->m->hosts[l->host];
		for (size_t i = 0; i < h->op_count; i++) {
			const ta_host_op *op = &h->ops[i];
			if (op->kind != TA_HOST_HAND_CDIV)
				continue;
			bool in_grid = op->span.start >= l->grid_def_span.start && op->span.end <= l->grid_def_span.end;
			if (!in_grid) {
				char *name = assigned_name(c, op->span);
				in_grid = name && (ta_rule_mentions(c, l->grid_def_span, name) ||
						   ta_rule_mentions(c, l->grid_span, name));
				free(name);
			}
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
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}

ta_status ta_detect_d13(ta_rule_ctx *c)
{
	bool found = false;
	TSTreeCursor cur = ts_tree_cursor_new(c->k->node);
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&cur);
		/* Either side: `offs < M & ok` is `offs < (M & ok)` just as much. */
		for (uint32_t side = 0; ta_node_is(n, "comparison_operator") && side < ta_node_named_count(n);
		     side++) {
			TSNode left = ts_node_named_child(n, side);
			TSNode op = ta_node_field(left, "operator");
			if (ta_node_is(left, "binary_operator") && !ts_node_is_null(op) &&
			    (ta_node_text_eq(c->m->src, op, "&") || ta_node_text_eq(c->m->src, op, "|"))) {
				char *t = ta_node_text(c->m->src, n);
				ta_rule_add(c, ta_span_of(c->m->src, n), "`%s` parses as `(...) %s ...` compared as a "
					    "whole: Python's & and | bind tighter than comparisons; parenthesise the comparison",
					    t, ta_node_text_eq(c->m->src, op, "&") ? "&" : "|");
				free(t);
				found = true;
				break;
			}
		}
		if (!ta_cursor_next(&cur, true))
			break;
	}
	ts_tree_cursor_delete(&cur);
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}

ta_status ta_detect_d14(ta_rule_ctx *c)
{
	bool found = false;
	for (size_t hi = 0; hi < c->m->host_count; hi++) {
		const ta_host *h = &c->m->hosts[hi];
		if (h->span.end == 0 || h->launch_count == 0)
			continue;
		for (size_t i = 0; i < h->op_count; i++) {
			const ta_host_op *op = &h->ops[i];
			if (op->kind != TA_HOST_AUTOTUNE_CALL && op->kind != TA_HOST_JIT_CALL)
				continue;
			bool mine = ta_rule_mentions(c, op->span, c->k->name);
			for (size_t a = 0; a < c->k->alias_count && !mine; a++)
				mine = ta_rule_mentions(c, op->span, c->k->aliases[a]);
			/* `triton.autotune(...)(k)`: the wrapped name follows the call */
			if (!mine) {
				TSNode n = ta_rule_node(c, op->span);
				TSNode p = ta_node_parent(n);
				mine = ta_node_is(p, "call") && ta_node_contains_identifier(c->m->src, p, c->k->name);
			}
			if (!mine)
				continue;
			ta_rule_add(c, op->span, "`%s` runs %s on every call: the tuning cache is rebuilt each time; "
				    "wrap `%s` once at module level", h->name,
				    op->kind == TA_HOST_AUTOTUNE_CALL ? "triton.autotune(...)" : "triton.jit(...)",
				    c->k->name);
			found = true;
		}
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}

ta_status ta_detect_d15(ta_rule_ctx *c)
{
	bool found = false;
	for (size_t hi = 0; hi < c->m->host_count; hi++) {
		const ta_host *h = &c->m->hosts[hi];
		if (!host_launches(c, h))
			continue;
		for (size_t i = 0; i < h->op_count; i++) {
			const ta_host_op *a = &h->ops[i];
			if (a->kind != TA_HOST_ALLOC || a->has_device || !a->target)
				continue;
			for (size_t j = 0; j < h->op_count; j++) {
				const ta_host_op *t = &h->ops[j];
				if (t->kind == TA_HOST_TO_DEVICE && t->receiver && !strcmp(t->receiver, a->target) &&
				    t->span.start > a->span.start) {
					ta_finding *f = ta_rule_add(c, a->span, "`%s` is allocated on the CPU and then "
								    "copied with %s on every call: allocate it with device=",
								    a->target, t->text);
					ta_finding_line(f, t->span.line);
					found = true;
					break;
				}
			}
		}
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}
