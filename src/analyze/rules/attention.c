/* Section 4: the attention checklist (G1-G8), opened by T1. Entries that
 * another section's detector serves reuse its findings. */
#include "config.h"
#include "analyze/rules/rules_internal.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

ta_status ta_detect_g1(ta_rule_ctx *c)
{
	return c->attention ? ta_rule_serve(c, "S5", 0) : TA_STATUS_NOT_APPLICABLE;
}

ta_status ta_detect_g2(ta_rule_ctx *c)
{
	return c->attention ? ta_rule_serve(c, "P1", 0) : TA_STATUS_NOT_APPLICABLE;
}

ta_status ta_detect_g3(ta_rule_ctx *c)
{
	return c->attention ? ta_rule_serve(c, "S8", 0) : TA_STATUS_NOT_APPLICABLE;
}

ta_status ta_detect_g4(ta_rule_ctx *c)
{
	return c->attention ? ta_rule_serve(c, "S3", 0) : TA_STATUS_NOT_APPLICABLE;
}

/* The 1/ln 2 factor of an exp2 softmax, as people write it. */
static bool log2e_text(const char *t)
{
	static const char *const marks[] = {
		"log2e", "log2_e", "1.4426", "rcp_ln2", "inv_log_2", "inv_ln2", "ln2_inv", "invln2",
		"inv_log2", "log2(e)", "math.log2(math.e)",
	};
	char *low = ta_xstrdup(t);
	for (char *p = low; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	bool yes = false;
	for (size_t i = 0; i < sizeof marks / sizeof *marks && !yes; i++)
		yes = strstr(low, marks[i]) != NULL;
	free(low);
	return yes;
}

/* True when the value in span, computed before `before`, carries the log2
 * scale (directly, or through names assigned earlier). */
static bool scaled_by_log2e(ta_rule_ctx *c, ta_span s, uint32_t before, int depth)
{
	char *t = ta_rule_text(c, s);
	bool yes = log2e_text(t);
	free(t);
	if (yes || depth > 3)
		return yes;
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	for (size_t i = 0; i < n && !yes; i++) {
		if (as[i].stmt.start >= before || !ta_rule_mentions(c, s, as[i].name))
			continue;
		/* only the assignment that reaches `before` counts for a name */
		bool later = false;
		for (size_t j = i + 1; j < n; j++)
			if (!strcmp(as[j].name, as[i].name) && as[j].stmt.start < before)
				later = true;
		if (!later)
			yes = scaled_by_log2e(c, as[i].rhs, as[i].stmt.start, depth + 1);
	}
	return yes;
}

ta_status ta_detect_g5(ta_rule_ctx *c)
{
	if (!c->attention)
		return TA_STATUS_NOT_APPLICABLE;
	bool any = false, found = false;
	for (size_t i = 0; i < c->k->op_count; i++) {
		const ta_op *op = &c->k->ops[i];
		if (op->kind != TA_OP_TANH || !op->arg_count)
			continue;
		any = true;
		if (scaled_by_log2e(c, op->args[0], op->span.start, 0)) {
			char *arg = ta_rule_text(c, op->args[0]);
			ta_rule_add(c, op->span, "the soft cap's tanh(%s) sees logits already scaled by 1/ln 2: "
				    "apply tanh in the original scale, then the exp2 factor", arg);
			free(arg);
			found = true;
		}
	}
	if (found)
		return TA_STATUS_APPLIES;
	return any ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

/* The axis of a tl.max/tl.sum op as text, or NULL. */
static char *reduce_axis(ta_rule_ctx *c, const ta_op *op)
{
	const ta_kwarg *kw = ta_kwarg_find(op->kwargs, op->kwarg_count, "axis");
	if (kw)
		return ta_xstrdup(kw->value);
	return ta_op_arg(c, op, 1);
}

ta_status ta_detect_g6(ta_rule_ctx *c)
{
	if (!c->attention)
		return TA_STATUS_NOT_APPLICABLE;
	const ta_kernel *k = c->k;
	bool any = false, found = false;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if ((op->kind != TA_OP_MAX && op->kind != TA_OP_SUM) || op->loop < 0 || !op->arg_count)
			continue;
		char *axis = reduce_axis(c, op);
		char *x = ta_op_arg(c, op, 0);
		if (!axis) {
			free(x);
			continue;
		}
		any = true;
		/* The scores from tl.dot(q, k): rows are queries, reduce over axis 1. */
		const ta_op *def = ta_op_defining(k, x, op->span.start);
		bool scores = def && def->kind == TA_OP_DOT && def->arg_count &&
			      (ta_rule_contains(c, def->args[0], "q") || ta_rule_contains(c, def->args[0], "Q"));
		if (scores && !strcmp(axis, "0")) {
			ta_rule_add(c, op->span, "reduction of `%s` over axis 0 in the loop at line %u: the scores "
				    "are [M, N] (queries by keys), the softmax reduces axis 1", x,
				    k->loops[op->loop].span.line);
			found = true;
		}
		free(axis);
		free(x);
	}
	if (found)
		return TA_STATUS_APPLIES;
	return any ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

static bool file_sets_allocator(const ta_model *m)
{
	for (size_t h = 0; h < m->host_count; h++)
		for (size_t i = 0; i < m->hosts[h].op_count; i++)
			if (m->hosts[h].ops[i].kind == TA_HOST_SET_ALLOCATOR)
				return true;
	return false;
}

/* A kernel the file runs: launched here, or a helper of one that is. */
static bool launched_here(const ta_model *m, int ki, int depth)
{
	if (m->kernels[ki].launch_count > 0)
		return true;
	if (depth > 3)
		return false;
	for (size_t k = 0; k < m->kernel_count; k++)
		for (size_t i = 0; i < m->kernels[k].op_count; i++)
			if (m->kernels[k].ops[i].kind == TA_OP_HELPER_CALL && m->kernels[k].ops[i].helper == ki &&
			    (int)k != ki && launched_here(m, (int)k, depth + 1))
				return true;
	return false;
}

ta_status ta_detect_g7(ta_rule_ctx *c)
{
	const ta_op *desc = NULL;
	for (size_t i = 0; i < c->k->op_count && !desc; i++)
		if (c->k->ops[i].kind == TA_OP_MAKE_DESCRIPTOR)
			desc = &c->k->ops[i];
	bool own = false;
	if (desc && launched_here(c->m, c->kernel, 0) && !file_sets_allocator(c->m)) {
		ta_rule_add(c, desc->span, "`%s` builds tensor descriptors in the kernel but the file never "
			    "calls triton.set_allocator: the launch fails at run time", c->k->name);
		own = true;
	}
	if (!c->attention)
		return own ? TA_STATUS_APPLIES : desc ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
	ta_status l3 = ta_rule_serve(c, "L3", 0);
	ta_status s7 = ta_rule_serve(c, "S7", 0);
	if (own || l3 == TA_STATUS_APPLIES || s7 == TA_STATUS_APPLIES)
		return TA_STATUS_APPLIES;
	if (desc || l3 == TA_STATUS_SATISFIED || s7 == TA_STATUS_SATISFIED)
		return TA_STATUS_SATISFIED;
	return TA_STATUS_NOT_APPLICABLE;
}

/* The values a config gives a tile size: a literal, or the literal list a
 * comprehension's `for BM in [64, 128]` iterates. 0 when not known. */
static size_t tile_values(const ta_rule_ctx *c, const ta_config *cfg, const char *name, long *v, size_t max)
{
	const ta_kwarg *kw = ta_kwarg_find(cfg->params, cfg->param_count, name);
	if (!kw)
		return 0;
	char *end;
	long x = strtol(kw->value, &end, 10);
	if (*kw->value && !*end) {
		v[0] = x;
		return 1;
	}
	TSNode comp = ta_node_parent(ta_rule_node(c, cfg->span));
	while (!ts_node_is_null(comp) && !ta_node_is(comp, "list_comprehension") &&
	       !ta_node_is(comp, "decorated_definition") && !ta_node_is(comp, "module"))
		comp = ta_node_parent(comp);
	uint32_t n = ta_node_is(comp, "list_comprehension") ? ta_node_named_count(comp) : 0;
	for (uint32_t i = 0; i < n; i++) {
		TSNode f = ts_node_named_child(comp, i), list = ta_node_field(f, "right");
		if (!ta_node_is(f, "for_in_clause") || !ta_node_text_eq(c->m->src, ta_node_field(f, "left"), kw->value) ||
		    !(ta_node_is(list, "list") || ta_node_is(list, "tuple")))
			continue;
		size_t k = 0;
		uint32_t m = ta_node_named_count(list);
		for (uint32_t j = 0; j < m && k < max; j++) {
			char *t = ta_node_text(c->m->src, ts_node_named_child(list, j));
			x = strtol(t, &end, 10);
			bool ok = *t && !*end;
			free(t);
			if (!ok)
				return 0;
			v[k++] = x;
		}
		return m <= max ? k : 0;
	}
	return 0;
}

/* Every config already has BLOCK_M % BLOCK_N == 0 (the values known). */
static bool configs_divisible(const ta_rule_ctx *c, const ta_autotune *a)
{
	if (a->configs_kind == TA_CONFIGS_UNRESOLVED || !a->config_count)
		return false;
	for (size_t i = 0; i < a->config_count; i++) {
		long bm[16], bn[16];
		size_t nm = tile_values(c, &a->configs[i], "BLOCK_M", bm, 16);
		size_t nn = tile_values(c, &a->configs[i], "BLOCK_N", bn, 16);
		if (!nm || !nn)
			return false;
		for (size_t x = 0; x < nm; x++)
			for (size_t y = 0; y < nn; y++)
				if (bn[y] <= 0 || bm[x] % bn[y])
					return false;
	}
	return true;
}

ta_status ta_detect_g8(ta_rule_ctx *c)
{
	const ta_autotune *a = c->k->autotune;
	if (!c->attention || !a)
		return TA_STATUS_NOT_APPLICABLE;
	static const char *const causal[] = { "STAGE", "IS_CAUSAL", "CAUSAL", NULL };
	const ta_param *p = NULL;
	for (size_t i = 0; i < c->k->param_count && !p; i++)
		if (c->k->params[i].constexpr_ && ta_name_among(c->k->params[i].name, causal))
			p = &c->k->params[i];
	bool sweeps = false;
	for (size_t i = 0; i < a->vary_count; i++)
		sweeps |= !strcasecmp(a->varies[i], "BLOCK_M") || !strcasecmp(a->varies[i], "BLOCK_N");
	if (!p || !sweeps)
		return TA_STATUS_NOT_APPLICABLE;
	if (a->has_prune || configs_divisible(c, a))
		return TA_STATUS_SATISFIED;
	ta_finding *f = ta_rule_add(c, a->span, "`%s` has a causal mode (`%s`) and sweeps BLOCK_M/BLOCK_N "
				    "without prune_configs_by: configs with BLOCK_M %% BLOCK_N != 0 are not pruned",
				    c->k->name, p->name);
	ta_finding_line(f, p->span.line);
	return TA_STATUS_APPLIES;
}
