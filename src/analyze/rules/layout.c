/* Section 1: layout flags -> structure (L1-L4). */
#include "config.h"
#include "analyze/rules/rules_internal.h"
#include "util/buf.h"

#include <string.h>

/* The condition of an if/elif/conditional expression node, or null. */
static TSNode condition_of(TSNode n)
{
	if (ta_node_is(n, "if_statement") || ta_node_is(n, "elif_clause") || ta_node_is(n, "while_statement"))
		return ta_node_field(n, "condition");
	if (ta_node_is(n, "conditional_expression") && ta_node_named_count(n) >= 2)
		return ts_node_named_child(n, 1);
	TSNode none = { 0 };
	return none;
}

/* True when the op sits under a test of `flag`. */
static bool guarded_by(const ta_rule_ctx *c, const ta_op *op, const char *flag)
{
	TSNode n = ta_rule_node(c, op->span);
	while (!ts_node_is_null(n) && !ta_node_is(n, "function_definition")) {
		TSNode cond = condition_of(n);
		if (!ts_node_is_null(cond) && ta_node_contains_identifier(c->m->src, cond, flag))
			return true;
		/* else/elif branches: their if_statement holds the condition. */
		if (ta_node_is(n, "else_clause") || ta_node_is(n, "elif_clause")) {
			TSNode parent = ta_node_parent(n);
			TSNode pc = condition_of(parent);
			if (!ts_node_is_null(pc) && ta_node_contains_identifier(c->m->src, pc, flag))
				return true;
		}
		n = ta_node_parent(n);
	}
	return false;
}

ta_status ta_detect_l1(ta_rule_ctx *c)
{
	const ta_param *flag = NULL;
	for (size_t i = 0; i < c->k->param_count && !flag; i++)
		if (ta_is_layout_flag(c->k->params[i].name))
			flag = &c->k->params[i];
	if (!flag)
		return TA_STATUS_NOT_APPLICABLE;
	bool found = false;
	for (size_t i = 0; i < c->k->op_count; i++) {
		const ta_op *op = &c->k->ops[i];
		if (op->loop < 0 || (op->kind != TA_OP_TRANS && op->kind != TA_OP_PERMUTE && op->kind != TA_OP_RESHAPE))
			continue;
		if (!guarded_by(c, op, flag->name))
			continue;
		ta_finding *f = ta_rule_add(c, op->span,
			"`%s` transposes a tile inside the loop at line %u for one value of `%s`: "
			"two kernels with the branch resolved avoid it%s",
			c->k->name, c->k->loops[op->loop].span.line, flag->name,
			flag->constexpr_ ? "" : " (the flag is not tl.constexpr: guided)");
		ta_finding_line(f, flag->span.line);
		if (!flag->constexpr_)
			f->tags |= TA_TAG_GUIDED;
		found = true;
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_SATISFIED;
}

/* A launch keyword the configs also set freezes it. */
static const ta_kwarg *frozen_keyword(const ta_autotune *a, const ta_launch *l)
{
	for (size_t i = 0; i < l->kwarg_count; i++)
		for (size_t j = 0; j < a->config_count; j++)
			if (ta_kwarg_find(a->configs[j].params, a->configs[j].param_count, l->kwargs[i].name))
				return &l->kwargs[i];
	return NULL;
}

/* Whether the tuner picks a value the grid could depend on: some config
 * sets a parameter of the kernel (not only num_warps / num_stages). Configs
 * not resolved from the source count as setting one. */
static bool configs_set_parameters(const ta_rule_ctx *c, const ta_autotune *a)
{
	if (a->configs_kind == TA_CONFIGS_UNRESOLVED || a->configs_kind == TA_CONFIGS_NONE || !a->config_count)
		return true;
	for (size_t i = 0; i < a->config_count; i++)
		for (size_t p = 0; p < a->configs[i].param_count; p++)
			if (ta_kernel_param(c->k, a->configs[i].params[p].name))
				return true;
	return false;
}

ta_status ta_detect_l2(ta_rule_ctx *c)
{
	const ta_autotune *a = c->k->autotune;
	if (!a || c->k->launch_count == 0)
		return TA_STATUS_NOT_APPLICABLE;
	/* A persistent kernel's grid is the SM count by design, and configs
	 * that only pick warps and stages leave nothing for the grid to read. */
	bool grid_should_read_meta = !c->k->persistent && configs_set_parameters(c, a);
	bool found = false;
	for (size_t i = 0; i < c->m->launch_count; i++) {
		const ta_launch *l = &c->m->launches[i];
		if (l->kernel != c->kernel)
			continue;
		bool known = l->grid_kind == TA_GRID_TUPLE || l->grid_kind == TA_GRID_LAMBDA ||
			     l->grid_kind == TA_GRID_FUNCTION;
		if (grid_should_read_meta && known && !l->grid_uses_meta && l->grid_dims > 0) {
			ta_finding *f = ta_rule_add(c, l->grid_span,
				"autotuned `%s` is launched with a grid that does not read META: the tile sizes "
				"the tuner picks never reach the grid", c->k->name);
			ta_finding_line(f, l->grid_def_span.line);
			found = true;
		}
		const ta_kwarg *kw = frozen_keyword(a, l);
		if (kw) {
			ta_finding *f = ta_rule_add(c, kw->span,
				"launch of autotuned `%s` passes `%s`, which the autotune configs also set: "
				"the keyword overrides the tuning", c->k->name, kw->name);
			ta_finding_line(f, a->span.line);
			found = true;
		}
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_SATISFIED;
}

ta_status ta_detect_l3(ta_rule_ctx *c)
{
	const ta_autotune *a = c->k->autotune;
	if (!a)
		return TA_STATUS_NOT_APPLICABLE;
	bool any = false, found = false;
	for (size_t i = 0; i < c->m->launch_count; i++) {
		const ta_launch *l = &c->m->launches[i];
		if (l->kernel != c->kernel || l->host < 0)
			continue;
		const ta_host *h = &c->m->hosts[l->host];
		for (size_t j = 0; j < h->op_count; j++) {
			const ta_host_op *op = &h->ops[j];
			if (op->kind != TA_HOST_TENSOR_DESCRIPTOR)
				continue;
			/* only the descriptors this launch passes (a host function
			 * may build them for another kernel it launches) */
			bool passed = op->target ? ta_rule_mentions(c, l->span, op->target) :
				      op->span.start >= l->span.start && op->span.end <= l->span.end;
			if (!passed)
				continue;
			any = true;
			if (a->has_pre_hook)
				continue;
			bool dup = false;
			for (size_t f = 0; f < c->res->finding_count; f++)
				if (c->res->findings[f].id == c->id && c->res->findings[f].kernel == c->kernel &&
				    c->res->findings[f].span.start == op->span.start)
					dup = true;
			if (dup)
				continue;
			ta_finding *f = ta_rule_add(c, op->span,
				"host descriptor `%s` is built with a fixed block shape while `%s` is autotuned "
				"(no pre_hook sets it per config)", op->target ? op->target : op->text, c->k->name);
			ta_finding_line(f, a->span.line);
			found = true;
		}
	}
	if (found)
		return TA_STATUS_APPLIES;
	return any ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

/* A loop over a list: not `range(n)` (a benchmark repeat), unless it walks
 * a length. */
static bool loops_over_items(const ta_launch *l)
{
	if (!l->loop_iter)
		return false;
	if (!strncmp(l->loop_iter, "range(", 6))
		return strstr(l->loop_iter, "len(") != NULL;
	return true;
}

ta_status ta_detect_l4(ta_rule_ctx *c)
{
	if (c->k->launch_count == 0)
		return TA_STATUS_NOT_APPLICABLE;
	bool found = false;
	for (size_t i = 0; i < c->m->launch_count; i++) {
		const ta_launch *l = &c->m->launches[i];
		if (l->kernel != c->kernel || l->loop_depth == 0 || !loops_over_items(l))
			continue;
		ta_finding *f = ta_rule_add(c, l->span,
			"`%s` is launched once per item of `%s` from the loop at line %u: one batched launch "
			"(program_id(1) picks the tensor) saves the launch overhead",
			c->k->name, l->loop_iter, l->loop_span.line);
		ta_finding_line(f, l->loop_span.line);
		found = true;
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_SATISFIED;
}
