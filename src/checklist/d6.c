/* D6: Shape parameters that should be constexpr.
 * Its detector and its rewrite. */
#include "config.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Names of dimensions that are model constants: head dims, head counts,
 * pads. A hidden size or a norm's row length is not one of them (making it
 * constexpr recompiles per model width and measured slower on the layernorm
 * example), nor any length that walks a loop in tiles. */
static const char *const model_dims[] = {
	"HEAD_DIM", "head_dim", "d_head", "D_HEAD", "HEAD_SIZE", "head_size", "num_heads", "NUM_HEADS",
	"n_heads", "num_kv_heads", "NUM_KV_HEADS", "n_kv_heads", "pad", "PAD", "padding", NULL,
};

/* Single letters that name a head dim or head count only in attention. */
static const char *const attention_dims[] = { "D", "H", NULL };

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
		if (ta_name_among(p->name, problem_sizes))
			continue;
		bool dim = ta_name_among(p->name, model_dims) ||
			   (c->attention && ta_name_among(p->name, attention_dims));
		if (!dim)
			continue;
		any = true;
		if (p->constexpr_)
			continue;
		ta_finding *f = ta_rule_add(c, lp->header, "`%s` (a plain int parameter, line %u) is the trip count "
					    "of the loop at line %u; as tl.constexpr the loop is compiled for its value",
					    p->name, p->span.line, lp->span.line);
		ta_finding_line(f, p->span.line);
		found = true;
	}
	/* A @triton.jit helper takes constexpr values from the kernel that calls
	 * it without annotating its parameters: only a kernel this file launches
	 * is known to receive a runtime integer. */
	bool launched = k->launch_count > 0;
	for (size_t i = 0; i < k->op_count && launched; i++) {
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

/* ---- the rewrite ---------------------------------------------------------- */

static bool dim_like(const char *name)
{
	bool upper = true;
	for (const char *p = name; *p; p++)
		if (islower((unsigned char)*p))
			upper = false;
	if (upper)
		return true;
	static const char *const parts[] = { "dim", "head", "pad" };
	for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
		for (const char *p = name; *p; p++)
			if (!strncasecmp(p, parts[i], strlen(parts[i])))
				return true;
	}
	return false;
}

/* Where p is used as a size: a tl.arange bound or a loop trip count. */
static uint32_t size_use_line(const ta_model *m, const ta_kernel *k, const ta_param *p)
{
	for (size_t i = 0; i < k->op_count; i++)
		if (k->ops[i].kind == TA_OP_ARANGE &&
		    ta_edits_word_in(m->src->text + k->ops[i].span.start, k->ops[i].span.end - k->ops[i].span.start, p->name))
			return k->ops[i].span.line;
	if (!dim_like(p->name))
		return 0;
	for (size_t i = 0; i < k->loop_count; i++) {
		const ta_loop *l = &k->loops[i];
		if (l->kind == TA_LOOP_WHILE || l->kind == TA_LOOP_FOR_OTHER)
			continue;
		for (size_t a = 0; a < l->arg_count; a++)
			if (ta_edits_word_in(l->args[a], strlen(l->args[a]), p->name))
				return l->header.line;
	}
	return 0;
}

/* Rewrite: annotate a dimension parameter tl.constexpr. Shown, not applied:
 * measured slower on the layernorm example. */
TA_REWRITE(D6, "on an H200 this annotation made the layernorm example 4.1% slower (61 registers "
	   "instead of 56, occupancy 50% instead of 56%): make it by hand and measure",
	   TA_SAFE)
{
	ta_sites s = TA_SITES_INIT;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (!ta_edits_kernel_selected(kernel_or_host, ki))
			continue;
		const ta_kernel *k = &m->kernels[ki];
		for (size_t i = 0; i < k->param_count; i++) {
			const ta_param *p = &k->params[i];
			if (p->constexpr_ || strstr(p->name, "ptr") || !strncmp(p->name, "stride", 6))
				continue;
			uint32_t use = size_use_line(m, k, p);
			if (!use || (line && line != use && !ta_edits_at_line(p->span, line)))
				continue;
			const ta_kwarg *dns = ta_kwarg_find(k->jit_kwargs, k->jit_kwarg_count, "do_not_specialize");
			if (dns && ta_edits_word_in(dns->value, strlen(dns->value), p->name)) {
				ta_sites_refuse(&s, ta_xasprintf("line %u: %s is listed in do_not_specialize", p->span.line,
							    p->name));
				continue;
			}
			if (p->annotation) {
				ta_sites_refuse(&s, ta_xasprintf("line %u: %s is annotated `%s` already", p->span.line,
							    p->name, p->annotation));
				continue;
			}
			char *ce = ta_edits_module(m, "triton.language.constexpr");
			if (!ce)
				return ta_edits_refuse(why_not, "the file does not import triton.language");
			if (p->default_value) {
				char *rep = ta_xasprintf("%s: %s = %s", p->name, ce, p->default_value);
				ta_edit_replace(out, p->span.start, p->span.end, rep);
				free(rep);
			} else {
				char *rep = ta_xasprintf(": %s", ce);
				uint32_t e = p->span.start + (uint32_t)strlen(p->name);
				ta_edit_replace(out, e, e, rep);
				free(rep);
			}
			ta_edit_set_title(out, "make %s a compile-time constant (%s, used at line %u)", p->name, ce, use);
			out->line = p->span.line;
			free(ce);
			return ta_sites_done(&s);
		}
	}
	return ta_sites_end(&s, why_not, line, "no non-constexpr parameter used as a tl.arange bound or loop trip count");
}
