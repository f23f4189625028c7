/* G8: Causal configs pruned to BLOCK_M % BLOCK_N == 0.
 * Its detector and its rewrite. */
#include "config.h"
#include "analyze/names.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
		TSNode f = ta_node_named_child(comp, i), list = ta_node_field(f, "right");
		if (!ta_node_is(f, "for_in_clause") || !ta_node_text_eq(c->m->src, ta_node_field(f, "left"), kw->value) ||
		    !(ta_node_is(list, "list") || ta_node_is(list, "tuple")))
			continue;
		size_t k = 0;
		uint32_t m = ta_node_named_count(list);
		for (uint32_t j = 0; j < m && k < max; j++) {
			char *t = ta_node_text(c->m->src, ta_node_named_child(list, j));
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

/* How many passes of an online softmax the kernel makes: its innermost
 * attention loops, and each call of a helper that makes one (tutorial 06
 * calls its inner loop twice, off the diagonal unmasked and on it masked,
 * split at start_m * BLOCK_M: the split needs BLOCK_M % BLOCK_N == 0). */
static size_t softmax_passes(const ta_model *m, int ki, int depth)
{
	const ta_kernel *k = &m->kernels[ki];
	size_t n = 0;
	for (size_t l = 0; l < k->loop_count; l++) {
		if (!ta_rules_attention_at(m, ki, l))
			continue;
		bool inner = false;
		for (size_t j = 0; j < k->loop_count && !inner; j++)
			inner = j != l && ta_loop_within(k, (int)j, (int)l) && ta_rules_attention_at(m, ki, j);
		n += !inner;
	}
	for (size_t i = 0; i < k->op_count && depth < 3; i++) {
		const ta_op *op = &k->ops[i];
		/* a call inside a loop of the kernel was counted with that loop */
		if (op->kind == TA_OP_HELPER_CALL && op->helper >= 0 && op->helper != ki && op->loop < 0)
			n += softmax_passes(m, op->helper, depth + 1);
	}
	return n;
}

/* Whether the kernel's own online-softmax loop reads the causal parameter
 * in its body (`_apply_mask(s, ..., IS_CAUSAL)`, `if IS_CAUSAL: s =
 * tl.where(...)`): each tile is masked against the diagonal, so the loop may
 * end at a bound from BLOCK_M whatever BLOCK_N is. A loop that only stops at
 * `(pid + 1) * BLOCK_M` and masks nothing reads keys past the diagonal when
 * BLOCK_N does not divide BLOCK_M. */
static bool one_pass_masks(const ta_rule_ctx *c, const char *causal)
{
	const ta_kernel *k = c->k;
	for (size_t l = 0; l < k->loop_count; l++) {
		if (!ta_rules_attention_at(c->m, c->kernel, l))
			continue;
		ta_span body = { .start = k->loops[l].header.end, .end = k->loops[l].span.end };
		if (ta_rule_mentions(c, body, causal))
			return true;
	}
	return false;
}

ta_status ta_detect_g8(ta_rule_ctx *c)
{
	const ta_autotune *a = c->k->autotune;
	if (!c->attention || !a)
		return TA_STATUS_NOT_APPLICABLE;
	static const char *const causal[] = { "STAGE", "IS_CAUSAL", "CAUSAL", NULL };
	const ta_param *p = NULL;
	for (size_t i = 0; i < c->k->param_count && !p; i++)
		if (c->k->params[i].constexpr_ && ta_name_among(c->k->params[i].name, causal) &&
		    ta_rule_kernel_reads(c->m, c->k, c->k->params[i].name))
			p = &c->k->params[i];
	bool sweeps = false;
	for (size_t i = 0; i < a->vary_count; i++)
		sweeps |= !strcasecmp(a->varies[i], "BLOCK_M") || !strcasecmp(a->varies[i], "BLOCK_N");
	if (!p || !sweeps || (softmax_passes(c->m, c->kernel, 0) == 1 && one_pass_masks(c, p->name)))
		return TA_STATUS_NOT_APPLICABLE;
	if (a->has_prune || configs_divisible(c, a))
		return TA_STATUS_SATISFIED;
	ta_finding *f = ta_rule_add(c, a->span, "`%s` has a causal mode (`%s`) and sweeps BLOCK_M/BLOCK_N "
				    "without prune_configs_by: configs with BLOCK_M %% BLOCK_N != 0 are not pruned",
				    c->k->name, p->name);
	ta_finding_line(f, p->span.line);
	return TA_STATUS_APPLIES;
}

/* ---- the rewrite ---------------------------------------------------------- */

static const char *config_name(const ta_autotune *a, const char *want)
{
	for (size_t c = 0; c < a->config_count; c++)
		for (size_t i = 0; i < a->configs[c].param_count; i++)
			if (!strcasecmp(a->configs[c].params[i].name, want))
				return a->configs[c].params[i].name;
	for (size_t i = 0; i < a->vary_count; i++)
		if (!strcasecmp(a->varies[i], want))
			return a->varies[i];
	return NULL;
}

/* Rewrite: prune_configs_by: BLOCK_M % BLOCK_N == 0 in the causal mode. */
TA_REWRITE(G8, NULL, TA_SAFE)
{
	static const char *const causal[] = { "STAGE", "IS_CAUSAL", "CAUSAL", NULL };
	ta_sites s = TA_SITES_INIT;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (!ta_edits_kernel_selected(kernel_or_host, ki))
			continue;
		const ta_kernel *k = &m->kernels[ki];
		const ta_autotune *a = k->autotune;
		if (!a || a->has_prune)
			continue;
		const ta_param *p = NULL;
		for (size_t i = 0; i < k->param_count && !p; i++)
			if (k->params[i].constexpr_ && ta_name_among(k->params[i].name, causal) &&
			    ta_rule_kernel_reads(m, k, k->params[i].name))
				p = &k->params[i];
		const char *bm = config_name(a, "BLOCK_M"), *bn = config_name(a, "BLOCK_N");
		if (!p || (!bm && !bn))
			continue;
		if (line && !ta_edits_at_line(a->span, line) && !ta_edits_at_line(p->span, line))
			continue;
		if (!bm || !bn) {
			ta_sites_refuse(&s, ta_xasprintf("%s: the configs do not set both BLOCK_M and BLOCK_N", k->name));
			continue;
		}
		TSNode call = ta_edits_node(m, a->span);
		if (k->wrapped || !ta_node_is(call, "call") || !ta_node_is(ta_node_parent(call), "decorator")) {
			ta_sites_refuse(&s, ta_xasprintf("%s: autotune is applied by a call, not a decorator", k->name));
			continue;
		}
		const char *fn = "_prune_causal_configs";
		if (ta_edits_defined(m, fn)) {
			ta_sites_refuse(&s, ta_xasprintf("the file already defines %s", fn));
			continue;
		}
		TSNode args = ta_node_field(call, "arguments");
		uint32_t na = ta_node_named_count(args);
		TSNode last = na ? ta_node_named_child(args, na - 1) : (TSNode){ 0 };
		while (!ts_node_is_null(last) && ta_node_is(last, "comment"))
			last = ts_node_prev_named_sibling(last);
		if (ts_node_is_null(last)) {
			ta_sites_refuse(&s, ta_xasprintf("%s: autotune without arguments", k->name));
			continue;
		}
		const char *u = ta_edits_indent_unit(m, "");
		/* STAGE == 3 is the causal stage of the tutorial kernels; a flag is truthy. */
		char *test = !strcasecmp(p->name, "STAGE") ? ta_xasprintf("args.get(\"%s\") != 3", p->name) :
			     ta_xasprintf("not args.get(\"%s\")", p->name);
		ta_buf b = TA_BUF_INIT;
		ta_buf_printf(&b, "def %s(configs, named_args, **kwargs):\n", fn);
		ta_buf_printf(&b, "%s# causal: the diagonal tile needs BLOCK_M to be a multiple of BLOCK_N\n", u);
		ta_buf_printf(&b, "%sargs = {**named_args, **kwargs}\n", u);
		ta_buf_printf(&b, "%sif %s:\n%s%sreturn configs\n", u, test, u, u);
		ta_buf_printf(&b, "%skept = [c for c in configs if c.kwargs.get(\"%s\", 1) %% c.kwargs.get(\"%s\", 1) == 0]\n",
			      u, bm, bn);
		ta_buf_printf(&b, "%sreturn kept or configs\n\n\n", u);
		free(test);
		if (ta_edits_before_def(m, k->span.start, ta_buf_str(&b), out) != 0) {
			ta_buf_free(&b);
			ta_edit_clear(out);
			ta_sites_refuse(&s, ta_xasprintf("%s is not defined at module level", k->name));
			continue;
		}
		ta_buf_free(&b);
		/* On its own line when the arguments are one per line. */
		char *kw;
		if (ts_node_start_point(last).row != ts_node_start_point(call).row) {
			char *ind = ta_edits_indent_at(m, ts_node_start_byte(last));
			kw = ta_xasprintf(",\n%sprune_configs_by={\"early_config_prune\": %s}", ind, fn);
			free(ind);
		} else {
			kw = ta_xasprintf(", prune_configs_by={\"early_config_prune\": %s}", fn);
		}
		ta_edit_replace(out, ts_node_end_byte(last), ts_node_end_byte(last), kw);
		free(kw);
		ta_edit_set_title(out, "prune %s's configs to BLOCK_M %% BLOCK_N == 0 in the causal mode (%s)", k->name,
				  p->name);
		out->line = a->span.line;
		return ta_sites_done(&s);
	}
	return ta_sites_end(&s, why_not, line, "no autotuned kernel with a causal flag sweeping BLOCK_M/BLOCK_N without a "
			     "prune");
}
