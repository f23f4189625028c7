/* The deeper entries D1-D15 (from the two linked documents and from
 * patterns seen in public kernels). */
#include "config.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
		if (!ta_rule_host_launches(c, h))
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

ta_status ta_detect_d7(ta_rule_ctx *c)
{
	bool found = false;
	for (size_t hi = 0; hi < c->m->host_count; hi++) {
		const ta_host *h = &c->m->hosts[hi];
		if (!ta_rule_host_launches(c, h))
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
		    !op->arg_count || ta_rule_dots_in_loop(k, op->loop) == 0)
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
		if (!ta_rule_host_launches(c, h))
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
