#include "config.h"
#include "analyze/index.h"
#include "analyze/model_internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

ta_span ta_span_of(const ta_source *src, TSNode n)
{
	ta_span s = { 0 };
	if (ts_node_is_null(n))
		return s;
	s.start = ts_node_start_byte(n);
	s.end = ts_node_end_byte(n);
	s.line = (uint32_t)ta_node_line(n);
	s.end_line = (uint32_t)ta_node_end_line(n);
	s.col = (uint32_t)ta_source_column_of(src, s.start);
	return s;
}

void ta_kwargs_free(ta_kwarg *kw, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(kw[i].name);
		free(kw[i].value);
	}
	free(kw);
}

void ta_strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void ta_autotune_free(ta_autotune *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->config_count; i++) {
		ta_kwargs_free(a->configs[i].params, a->configs[i].param_count);
		ta_kwargs_free(a->configs[i].options, a->configs[i].option_count);
	}
	free(a->configs);
	free(a->configs_function);
	ta_strv_free(a->varies, a->vary_count);
	ta_strv_free(a->builder_params, a->builder_param_count);
	ta_strv_free(a->key, a->key_count);
	ta_kwargs_free(a->kwargs, a->kwarg_count);
	free(a);
}

static void kernel_free(ta_kernel *k)
{
	free(k->name);
	for (size_t i = 0; i < k->param_count; i++) {
		free(k->params[i].name);
		free(k->params[i].annotation);
		free(k->params[i].default_value);
	}
	free(k->params);
	ta_kwargs_free(k->jit_kwargs, k->jit_kwarg_count);
	ta_autotune_free(k->autotune);
	for (size_t i = 0; i < k->heuristic_count; i++) {
		free(k->heuristics[i].name);
		free(k->heuristics[i].expr);
	}
	free(k->heuristics);
	ta_strv_free(k->aliases, k->alias_count);
	for (size_t i = 0; i < k->loop_count; i++) {
		free(k->loops[i].var);
		ta_kwargs_free(k->loops[i].kwargs, k->loops[i].kwarg_count);
		ta_strv_free(k->loops[i].args, k->loops[i].arg_count);
	}
	free(k->loops);
	for (size_t i = 0; i < k->op_count; i++) {
		ta_op *o = &k->ops[i];
		free(o->callee);
		free(o->target);
		free(o->receiver);
		ta_kwargs_free(o->kwargs, o->kwarg_count);
		free(o->args);
	}
	free(k->ops);
	free(k->indent);
}

void ta_model_free(ta_model *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->import_count; i++) {
		free(m->imports[i].alias);
		free(m->imports[i].target);
		free(m->imports[i].from);
	}
	free(m->imports);
	for (size_t i = 0; i < m->kernel_count; i++)
		kernel_free(&m->kernels[i]);
	free(m->kernels);
	for (size_t i = 0; i < m->launch_count; i++) {
		ta_launch *l = &m->launches[i];
		free(l->callee);
		free(l->only_if);
		ta_strv_free(l->grid_dim_text, (size_t)l->grid_dims);
		ta_kwargs_free(l->kwargs, l->kwarg_count);
		free(l->args);
		free(l->loop_var);
		free(l->loop_iter);
	}
	free(m->launches);
	for (size_t i = 0; i < m->host_count; i++) {
		ta_host *h = &m->hosts[i];
		free(h->name);
		for (size_t j = 0; j < h->op_count; j++) {
			free(h->ops[j].text);
			free(h->ops[j].callee);
			free(h->ops[j].receiver);
			free(h->ops[j].target);
			ta_kwargs_free(h->ops[j].kwargs, h->ops[j].kwarg_count);
		}
		free(h->ops);
		free(h->launches);
		ta_strv_free(h->params, h->param_count);
	}
	free(m->hosts);
	for (size_t i = 0; i < m->function_count; i++)
		free(m->functions[i].name);
	free(m->functions);
	free(m->assign_nodes);
	free(m->compare_nodes);
	free(m->bind_nodes);
	for (size_t i = 0; i < m->kernel_names.cap; i++)
		free((char *)m->kernel_names.slots[i].name);
	ta_namemap_free(&m->kernel_names);
	ta_index_free(m->index);
	free(m);
}

void ta_model_index_kernel(ta_model *m, const char *name, int kernel, bool rebinds)
{
	size_t len = strlen(name);
	ta_namemap_slot *s = ta_namemap_find(&m->kernel_names, name, len);
	if (s) {
		/* the first binding of a name wins, unless this one rebinds it */
		if (rebinds)
			s->value = (uint32_t)kernel;
		return;
	}
	ta_namemap_add(&m->kernel_names, ta_xstrdup(name), len, (uint32_t)kernel);
}

int ta_model_find_kernel(const ta_model *m, const char *name)
{
	const ta_namemap_slot *s = ta_namemap_find(&m->kernel_names, name, strlen(name));
	return s ? (int)s->value : -1;
}

const ta_param *ta_kernel_param(const ta_kernel *k, const char *name)
{
	for (size_t i = 0; i < k->param_count; i++)
		if (!strcmp(k->params[i].name, name))
			return &k->params[i];
	return NULL;
}

const ta_kwarg *ta_kwarg_find(const ta_kwarg *kw, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (kw[i].name && !strcmp(kw[i].name, name))
			return &kw[i];
	return NULL;
}

bool ta_name_is(const char *canonical, const char *full)
{
	if (!canonical)
		return false;
	return strcmp(canonical, full) == 0;
}

const char *ta_op_kind_name(ta_op_kind k)
{
	static const char *names[TA_OP__COUNT] = {
		"load", "store", "dot", "trans", "permute", "reshape", "zeros", "arange",
		"expand_dims", "broadcast_to", "program_id", "num_programs",
		"make_tensor_descriptor", "make_block_ptr", "advance", "descriptor load",
		"descriptor store", "tanh", "exp", "exp2", "max", "maximum", "sum", "where",
		"assume", "multiple_of", "atomic", "cdiv", "inline_asm", "helper call", "other",
	};
	return (unsigned)k < TA_OP__COUNT ? names[k] : "?";
}

const char *ta_loop_kind_name(ta_loop_kind k)
{
	switch (k) {
	case TA_LOOP_RANGE: return "range";
	case TA_LOOP_TL_RANGE: return "tl.range";
	case TA_LOOP_STATIC_RANGE: return "tl.static_range";
	case TA_LOOP_FOR_OTHER: return "for";
	case TA_LOOP_WHILE: return "while";
	}
	return "?";
}

const char *ta_grid_kind_name(ta_grid_kind k)
{
	switch (k) {
	case TA_GRID_TUPLE: return "tuple";
	case TA_GRID_LAMBDA: return "lambda";
	case TA_GRID_FUNCTION: return "function";
	case TA_GRID_NAME: return "name";
	case TA_GRID_CALL: return "call";
	case TA_GRID_OTHER: return "expression";
	}
	return "?";
}

const char *ta_ptr_shape_name(ta_ptr_shape s)
{
	switch (s) {
	case TA_PTR_UNKNOWN: return "unknown";
	case TA_PTR_SCALAR: return "scalar";
	case TA_PTR_1D: return "1D";
	case TA_PTR_2D: return "2D";
	case TA_PTR_BLOCK_PTR: return "block pointer";
	}
	return "?";
}

const char *ta_host_kind_name(ta_host_kind k)
{
	static const char *names[TA_HOST__COUNT] = {
		"contiguous", "allocation", "to device", "hand-written cdiv",
		"set_allocator", "TensorDescriptor", "clone", "autotune call", "jit call",
		"capability query", "reshape", "stride test", "cdiv", "assert",
	};
	return (unsigned)k < TA_HOST__COUNT ? names[k] : "?";
}

/* name multiplies something that varies over the tile (not a parameter of
 * k, not a literal) somewhere in n. Deeper than any real address: no. */
static bool stride_in(const ta_model *m, const ta_kernel *k, TSNode n, const char *name, int depth)
{
	n = ta_node_unparen(n);
	if (depth > 64 || !ta_node_is(n, "binary_operator"))
		return false;
	TSNode l = ta_node_unparen(ta_node_field(n, "left")), r = ta_node_unparen(ta_node_field(n, "right"));
	if (ta_node_text_eq(m->src, ta_node_field(n, "operator"), "*")) {
		for (int side = 0; side < 2; side++) {
			TSNode me = side ? r : l, other = side ? l : r;
			if (!ta_node_is(me, "identifier") || !ta_node_text_eq(m->src, me, name))
				continue;
			bool scalar = ta_node_is(other, "integer");
			if (ta_node_is(other, "identifier")) {
				char *t = ta_node_text(m->src, other);
				scalar = ta_kernel_param(k, t) != NULL;
				free(t);
			}
			if (!scalar)
				return true;
		}
	}
	return stride_in(m, k, l, name, depth + 1) || stride_in(m, k, r, name, depth + 1);
}

bool ta_loop_steps_by_programs(const ta_loop *lp, const char *const *pid_names, size_t npid)
{
	if ((lp->kind != TA_LOOP_RANGE && lp->kind != TA_LOOP_TL_RANGE) || lp->arg_count < 3)
		return false;
	bool from_pid = strstr(lp->args[0], "program_id") != NULL;
	for (size_t i = 0; i < npid && !from_pid; i++)
		from_pid = !strcmp(pid_names[i], lp->args[0]);
	bool numeric_step = lp->args[2][0] >= '0' && lp->args[2][0] <= '9';
	return from_pid && !numeric_step;
}

bool ta_kernel_tile_loop(const ta_kernel *k, size_t l)
{
	const char **pid_names = NULL;
	size_t npid = 0;
	for (size_t i = 0; i < k->op_count; i++)
		if (k->ops[i].kind == TA_OP_PROGRAM_ID && k->ops[i].target)
			*TA_APPEND(pid_names, npid) = k->ops[i].target;
	bool tiles = l < k->loop_count && ta_loop_steps_by_programs(&k->loops[l], pid_names, npid);
	free(pid_names);
	return tiles;
}

bool ta_kernel_address_role(const ta_model *m, const ta_kernel *k, TSNode addr, const char *name)
{
	/* Both ways need an identifier spelled name inside addr: none where
	 * addr's text does not hold it (most assignments a rule asks about). */
	if (ts_node_is_null(addr))  /* a recovered parse can leave a side out */
		return false;
	size_t len = strlen(name);
	uint32_t a = ts_node_start_byte(addr), b = ts_node_end_byte(addr);
	if (len && a <= b && b <= m->src->len && !memmem(m->src->text + a, b - a, name, len))
		return false;
	TSNode first = ta_node_unparen(addr);
	while (ta_node_is(first, "binary_operator") && ta_node_text_eq(m->src, ta_node_field(first, "operator"), "+"))
		first = ta_node_unparen(ta_node_field(first, "left"));
	if (ta_node_is(first, "identifier") && ta_node_text_eq(m->src, first, name))
		return true;
	return stride_in(m, k, addr, name, 0);
}

/* The first of v[lo .. n) (sorted by start) starting at or after off. */
static size_t refs_from(const ta_node_ref *v, size_t lo, size_t n, uint32_t off)
{
	size_t hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ts_node_start_byte(v[mid].node) < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t ta_model_refs_within(const ta_node_ref *v, size_t n, TSNode within, size_t *first)
{
	*first = refs_from(v, 0, n, ts_node_start_byte(within));
	return refs_from(v, *first, n, ts_node_end_byte(within)) - *first;
}
