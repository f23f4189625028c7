/* The trigger table: T1-T5 decide which sections the walk opens first. */
#include "config.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <string.h>
#include <strings.h>

/* What an online-softmax loop holds: dots, a running max, an exponential. */
typedef struct attn_shape {
	int dots, maxes, exps;
	uint32_t dot_lines[2];
} attn_shape;

static void count_op(attn_shape *s, const ta_op *op)
{
	switch (op->kind) {
	case TA_OP_DOT:
		if (s->dots < 2)
			s->dot_lines[s->dots] = op->span.line;
		s->dots++;
		break;
	case TA_OP_MAX: case TA_OP_MAXIMUM:
		s->maxes++;
		break;
	case TA_OP_EXP: case TA_OP_EXP2:
		s->exps++;
		break;
	default:
		break;
	}
}

static bool is_attention_shape(const attn_shape *s)
{
	return s->dots >= 2 && s->maxes > 0 && s->exps > 0;
}

/* The whole body of a helper counts when the helper is called in the loop. */
static void count_helper(const ta_model *m, int helper, attn_shape *s, int depth)
{
	if (helper < 0 || depth > 3)
		return;
	const ta_kernel *h = &m->kernels[helper];
	for (size_t i = 0; i < h->op_count; i++) {
		count_op(s, &h->ops[i]);
		if (h->ops[i].kind == TA_OP_HELPER_CALL)
			count_helper(m, h->ops[i].helper, s, depth + 1);
	}
}

/* Finds a loop of kernel ki with the attention shape; returns its index or
 * -1, and the shape found. Helpers called anywhere are searched too. */
static int attention_loop(const ta_model *m, int ki, attn_shape *out, int depth)
{
	const ta_kernel *k = &m->kernels[ki];
	for (size_t l = 0; l < k->loop_count; l++) {
		attn_shape s = { 0 };
		for (size_t i = 0; i < k->op_count; i++) {
			const ta_op *op = &k->ops[i];
			if (op->loop < 0 || !ta_loop_within(k, op->loop, (int)l))
				continue;
			count_op(&s, op);
			if (op->kind == TA_OP_HELPER_CALL)
				count_helper(m, op->helper, &s, 1);
		}
		if (is_attention_shape(&s)) {
			*out = s;
			return (int)l;
		}
	}
	if (depth < 3)
		for (size_t i = 0; i < k->op_count; i++)
			if (k->ops[i].kind == TA_OP_HELPER_CALL && k->ops[i].helper >= 0 &&
			    k->ops[i].helper != ki && attention_loop(m, k->ops[i].helper, out, depth + 1) >= 0)
				return -2 - k->ops[i].helper;
	return -1;
}

bool ta_rules_attention_at(const ta_model *m, int ki, size_t loop)
{
	const ta_kernel *k = &m->kernels[ki];
	attn_shape s = { 0 };
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->loop < 0 || !ta_loop_within(k, op->loop, (int)loop))
			continue;
		count_op(&s, op);
		if (op->kind == TA_OP_HELPER_CALL)
			count_helper(m, op->helper, &s, 1);
	}
	return is_attention_shape(&s);
}

static const char *const attention_hints[] = {
	"QUERY_GROUP_SIZE", "num_kv_heads", "WINDOW_SIZE", "SOFT_CAP", "softcap",
	"logit_cap", "sm_scale", "IS_CAUSAL", "CAUSAL", "STAGE", NULL,
};

ta_status ta_detect_t1(ta_rule_ctx *c)
{
	attn_shape s = { 0 };
	int l = attention_loop(c->m, c->kernel, &s, 0);
	if (l == -1)
		return TA_STATUS_NOT_APPLICABLE;
	ta_buf hints = TA_BUF_INIT;
	for (size_t i = 0; i < c->k->param_count; i++)
		if (ta_name_among(c->k->params[i].name, attention_hints))
			ta_buf_printf(&hints, "%s%s", hints.len ? ", " : "", c->k->params[i].name);
	ta_finding *f;
	if (l >= 0) {
		f = ta_rule_add(c, c->k->def_span,
				"`%s` is attention by structure: two tl.dot (lines %u, %u) in the loop at line %u "
				"with a running max and an exponential%s%s%s",
				c->k->name, s.dot_lines[0], s.dot_lines[1], c->k->loops[l].span.line,
				hints.len ? "; its parameters " : "", ta_buf_str(&hints), hints.len ? " pick the section 4 items" : "");
		ta_finding_line(f, c->k->loops[l].span.line);
		ta_finding_line(f, s.dot_lines[0]);
		ta_finding_line(f, s.dot_lines[1]);
	} else {
		const ta_kernel *h = &c->m->kernels[-2 - l];
		f = ta_rule_add(c, c->k->def_span,
				"`%s` is attention by structure: its helper `%s` (line %u) runs the online-softmax loop "
				"with two tl.dot", c->k->name, h->name, h->def_line);
		ta_finding_line(f, h->def_line);
	}
	ta_buf_free(&hints);
	return TA_STATUS_APPLIES;
}

/* T2: a layout flag on the kernel or on the host function launching it. */
ta_status ta_detect_t2(ta_rule_ctx *c)
{
	for (size_t i = 0; i < c->k->param_count; i++) {
		const ta_param *p = &c->k->params[i];
		if (ta_is_layout_flag(p->name)) {
			ta_rule_add(c, p->span, "`%s` takes the layout flag `%s`: one kernel serves two layouts",
				    c->k->name, p->name);
			return TA_STATUS_APPLIES;
		}
	}
	ta_launch_walk walk = ta_index_launch_walk(c->m, c->kernel);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		if (l->host < 0)
			continue;
		const ta_host *h = &c->m->hosts[l->host];
		for (size_t p = 0; p < h->param_count; p++) {
			/* torch's factories take layout= (torch.strided): a wrapper's
			 * `layout` is the kernel's layout flag only when it reaches
			 * the launch. */
			if (ta_is_layout_flag(h->params[p]) &&
			    (strcasecmp(h->params[p], "layout") || ta_rule_mentions(c, l->span, h->params[p]))) {
				ta_rule_add(c, h->span.line ? h->span : l->span,
					    "host function `%s` takes the layout flag `%s` and launches `%s`",
					    h->name, h->params[p], c->k->name);
				return TA_STATUS_APPLIES;
			}
		}
	}
	return TA_STATUS_NOT_APPLICABLE;
}

/* T3: the kernel is autotuned (any @triton.autotune in the file opens P1
 * and L2 for the kernels it decorates). */
ta_status ta_detect_t3(ta_rule_ctx *c)
{
	if (!c->k->autotune)
		return TA_STATUS_NOT_APPLICABLE;
	ta_rule_add(c, c->k->autotune->span, "`%s` is autotuned: check the grid and the configs with it (P1, L2)",
		    c->k->name);
	return TA_STATUS_APPLIES;
}

static bool has_raw_tiles(const ta_kernel *k)
{
	for (size_t i = 0; i < k->op_count; i++)
		if ((k->ops[i].kind == TA_OP_LOAD || k->ops[i].kind == TA_OP_STORE) &&
		    k->ops[i].ptr_shape == TA_PTR_2D)
			return true;
	return false;
}

static bool has_descriptors(const ta_kernel *k)
{
	for (size_t i = 0; i < k->op_count; i++)
		if (k->ops[i].kind == TA_OP_DESC_LOAD || k->ops[i].kind == TA_OP_DESC_STORE ||
		    k->ops[i].kind == TA_OP_MAKE_DESCRIPTOR)
			return true;
	return false;
}

/* Profile-backed triggers only make sense for kernels the file launches. */
static bool measurable(const ta_rule_ctx *c)
{
	return !c->k->is_helper;
}

/* T4: TMA in place (every 2D tile through descriptors) and >20% slower. */
ta_status ta_detect_t4(ta_rule_ctx *c)
{
	if (!measurable(c) || !has_descriptors(c->k) || has_raw_tiles(c->k))
		return TA_STATUS_NOT_APPLICABLE;
	const ta_kernel_evidence *e = ta_evidence_find(c->ev, c->k->name);
	if (!e || e->baseline_ratio <= 0)
		return TA_STATUS_NEEDS_BASELINE;
	if (e->baseline_ratio <= 1.2)
		return TA_STATUS_SATISFIED;
	ta_finding *f = ta_rule_add(c, c->k->def_span,
				    "`%s` uses descriptors for its tiles but runs %.2fx the baseline's time",
				    c->k->name, e->baseline_ratio);
	f->measure = ta_xasprintf("median %.1f us vs baseline ratio %.2f", e->median_ns / 1e3, e->baseline_ratio);
	return TA_STATUS_APPLIES;
}

/* Under this share of both ceilings a kernel that is not tiny is doing
 * something badly wrong (the checklist's "far below the device's memory
 * and compute ceilings"); tiny kernels are all launch latency. */
#define T5_FAR_BELOW_PCT 10.0

#define T5_MIN_NS 20000.0

/* T5 without a baseline: the --deep counters against the ceilings. */
static ta_status t5_from_ceilings(ta_rule_ctx *c, const ta_kernel_evidence *e)
{
	if (e->median_ns < T5_MIN_NS || e->dram_pct >= T5_FAR_BELOW_PCT || e->sm_pct >= T5_FAR_BELOW_PCT)
		return TA_STATUS_SATISFIED;
	ta_finding *f = ta_rule_add(c, c->k->def_span,
				    "`%s` runs far below both ceilings (DRAM %.1f%%, SM %.1f%% of peak) with no "
				    "baseline to compare: check raw 2D loads, broadcast+dot and fixed tiles first",
				    c->k->name, e->dram_pct, e->sm_pct);
	f->measure = ta_xasprintf("median %.1f us; DRAM %.1f%%, SM %.1f%% of peak (--deep counters)",
				  e->median_ns / 1e3, e->dram_pct, e->sm_pct);
	return TA_STATUS_APPLIES;
}

/* T5: 10x or more slower than the baseline. */
ta_status ta_detect_t5(ta_rule_ctx *c)
{
	if (!measurable(c))
		return TA_STATUS_NOT_APPLICABLE;
	const ta_kernel_evidence *e = ta_evidence_find(c->ev, c->k->name);
	if (e && e->baseline_ratio <= 0 && e->has_sol)
		return t5_from_ceilings(c, e);
	if (!e || e->baseline_ratio <= 0)
		return TA_STATUS_NEEDS_BASELINE;
	if (e->baseline_ratio < 10)
		return TA_STATUS_SATISFIED;
	ta_finding *f = ta_rule_add(c, c->k->def_span,
				    "`%s` runs %.1fx the baseline's time: check raw 2D loads, broadcast+dot and fixed tiles first",
				    c->k->name, e->baseline_ratio);
	f->measure = ta_xasprintf("median %.1f us, %.1fx the baseline", e->median_ns / 1e3, e->baseline_ratio);
	return TA_STATUS_APPLIES;
}
