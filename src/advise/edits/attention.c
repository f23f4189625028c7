/* Attention edits: S5/G1 (K/V descriptor head count under GQA), G8 (prune
 * causal configs), S6 (fast tanh behind a constexpr flag). */
#include "config.h"
#include "advise/edits/edits.h"
#include "analyze/names.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A function or module-level name the file already defines. */
static bool defined(const ta_model *m, const char *name)
{
	for (size_t i = 0; i < m->function_count; i++)
		if (!strcmp(m->functions[i].name, name))
			return true;
	TSNode root = ta_syntax_root(m->syn);
	uint32_t n = ta_node_named_count(root);
	for (uint32_t i = 0; i < n; i++) {
		TSNode s = ts_node_named_child(root, i);
		TSNode a = ta_node_is(s, "expression_statement") ? ts_node_named_child(s, 0) : (TSNode){ 0 };
		if (ta_node_is(a, "assignment") && ta_node_text_eq(m->src, ta_node_field(a, "left"), name))
			return true;
	}
	return false;
}

/* ---- S5 / G1 --------------------------------------------------------------- */


static TSNode desc_arg(const ta_model *m, const ta_op *op, const char *kw, size_t index)
{
	const ta_kwarg *k = ta_kwarg_find(op->kwargs, op->kwarg_count, kw);
	if (k)
		return ta_edits_node(m, k->value_span);
	return op->arg_count > index ? ta_edits_node(m, op->args[index]) : (TSNode){ 0 };
}

/* Replaces each identifier H in n (a strides expression) by the K/V count. */
static size_t s5_strides(const ta_model *m, TSNode n, const char *h, const char *kvh, bool list_elem, ta_edit *out)
{
	if (ta_node_is(n, "identifier")) {
		if (!ta_node_text_eq(m->src, n, h))
			return 0;
		char *rep = list_elem || !strstr(kvh, "//") ? ta_xstrdup(kvh) : ta_xasprintf("(%s)", kvh);
		ta_edit_replace(out, ts_node_start_byte(n), ts_node_end_byte(n), rep);
		free(rep);
		return 1;
	}
	if (ta_node_is(n, "attribute"))
		return 0;
	size_t c = 0;
	uint32_t k = ta_node_named_count(n);
	for (uint32_t i = 0; i < k; i++)
		c += s5_strides(m, ts_node_named_child(n, i), h, kvh, false, out);
	return c;
}

static int s5_one(const ta_model *m, const ta_kernel *k, const ta_param *group, const ta_op *op, ta_edit *out,
		  char **why)
{
	TSNode shape = desc_arg(m, op, "shape", 1);
	if (!ta_node_is(shape, "list") && !ta_node_is(shape, "tuple"))
		return ta_edits_refuse(why, "line %u: the descriptor's shape is not a literal list", op->span.line);
	TSNode hn = { 0 };
	uint32_t n = ta_node_named_count(shape);
	for (uint32_t d = 0; d < n && ts_node_is_null(hn); d++) {
		TSNode el = ts_node_named_child(shape, d);
		char *t = ta_node_is(el, "identifier") ? ta_node_text(m->src, el) : NULL;
		if (t && ta_name_among(t, ta_gqa_head_counts) && ta_kernel_param(k, t))
			hn = el;
		free(t);
	}
	if (ts_node_is_null(hn))
		return ta_edits_refuse(why, "line %u: no head-count parameter in the descriptor's shape", op->span.line);
	char *h = ta_node_text(m->src, hn);
	char *kvh = ta_name_among(group->name, ta_gqa_kv_head_counts) ? ta_xstrdup(group->name) :
		    ta_xasprintf("%s // %s", h, group->name);
	ta_edit_replace(out, ts_node_start_byte(hn), ts_node_end_byte(hn), kvh);
	/* The batch stride written from the Q head count is wrong for K/V too. */
	TSNode strides = desc_arg(m, op, "strides", 2);
	size_t fixed = 0;
	if (ta_node_is(strides, "list") || ta_node_is(strides, "tuple")) {
		uint32_t sn = ta_node_named_count(strides);
		for (uint32_t i = 0; i < sn; i++)
			fixed += s5_strides(m, ts_node_named_child(strides, i), h, kvh, true, out);
	}
	ta_edit_set_title(out, "%s%s%s holds %s heads%s", op->target ? "descriptor " : "a K/V descriptor",
			  op->target ? op->target : "", op->target ? "" : "", kvh,
			  fixed ? " (shape and strides)" : "");
	out->line = op->span.line;
	free(kvh);
	free(h);
	return 0;
}

TA_EDIT_MAKER(S5)
{
	char *why = NULL;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (kernel_or_host >= 0 && (size_t)kernel_or_host != ki)
			continue;
		const ta_kernel *k = &m->kernels[ki];
		const ta_param *group = NULL;
		for (size_t i = 0; i < k->param_count && !group; i++)
			if (ta_name_among(k->params[i].name, ta_gqa_group_sizes) ||
			    ta_name_among(k->params[i].name, ta_gqa_kv_head_counts))
				group = &k->params[i];
		if (!group)
			continue;
		for (size_t i = 0; i < k->op_count; i++) {
			const ta_op *op = &k->ops[i];
			if (op->kind != TA_OP_MAKE_DESCRIPTOR || !ta_edits_at_line(op->span, line))
				continue;
			char *base = op->arg_count ? ta_edits_text(m, op->args[0].start, op->args[0].end) : NULL;
			bool kv = ta_gqa_kv_name(op->target) || ta_gqa_kv_name(base);
			free(base);
			if (!kv)
				continue;
			char *w = NULL;
			if (s5_one(m, k, group, op, out, &w) == 0) {
				free(why);
				return 0;
			}
			ta_edit_clear(out);
			ta_edits_keep_why(&why, w);
		}
	}
	if (why) {
		*why_not = why;
		return -1;
	}
	return ta_edits_none(why_not, "no K/V tensor descriptor in a kernel with a group-size parameter%s",
			     line ? " at that line" : "");
}

/* ---- G8 -------------------------------------------------------------------- */

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

/* Inserts text before the line of a module-level definition at off. */
static int before_def(const ta_model *m, uint32_t off, const char *text, ta_edit *out)
{
	uint32_t s = ta_edits_line_start(m, off);
	if (s != off)
		return -1;
	return ta_edit_replace(out, s, s, text);
}

TA_EDIT_MAKER(G8)
{
	static const char *const causal[] = { "STAGE", "IS_CAUSAL", "CAUSAL", NULL };
	char *why = NULL;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (kernel_or_host >= 0 && (size_t)kernel_or_host != ki)
			continue;
		const ta_kernel *k = &m->kernels[ki];
		const ta_autotune *a = k->autotune;
		if (!a || a->has_prune)
			continue;
		const ta_param *p = NULL;
		for (size_t i = 0; i < k->param_count && !p; i++)
			if (k->params[i].constexpr_ && ta_name_among(k->params[i].name, causal))
				p = &k->params[i];
		const char *bm = config_name(a, "BLOCK_M"), *bn = config_name(a, "BLOCK_N");
		if (!p || (!bm && !bn))
			continue;
		if (line && !ta_edits_at_line(a->span, line) && !ta_edits_at_line(p->span, line))
			continue;
		if (!bm || !bn) {
			ta_edits_keep_why(&why, ta_xasprintf("%s: the configs do not set both BLOCK_M and BLOCK_N", k->name));
			continue;
		}
		TSNode call = ta_edits_node(m, a->span);
		if (k->wrapped || !ta_node_is(call, "call") || !ta_node_is(ta_node_parent(call), "decorator")) {
			ta_edits_keep_why(&why, ta_xasprintf("%s: autotune is applied by a call, not a decorator", k->name));
			continue;
		}
		const char *fn = "_prune_causal_configs";
		if (defined(m, fn)) {
			ta_edits_keep_why(&why, ta_xasprintf("the file already defines %s", fn));
			continue;
		}
		TSNode args = ta_node_field(call, "arguments");
		uint32_t na = ta_node_named_count(args);
		TSNode last = na ? ts_node_named_child(args, na - 1) : (TSNode){ 0 };
		while (!ts_node_is_null(last) && ta_node_is(last, "comment"))
			last = ts_node_prev_named_sibling(last);
		if (ts_node_is_null(last)) {
			ta_edits_keep_why(&why, ta_xasprintf("%s: autotune without arguments", k->name));
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
		if (before_def(m, k->span.start, ta_buf_str(&b), out) != 0) {
			ta_buf_free(&b);
			ta_edit_clear(out);
			ta_edits_keep_why(&why, ta_xasprintf("%s is not defined at module level", k->name));
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
		free(why);
		return 0;
	}
	if (why) {
		*why_not = why;
		return -1;
	}
	return ta_edits_none(why_not, "no autotuned kernel with a causal flag sweeping BLOCK_M/BLOCK_N without a "
			     "prune%s", line ? " at that line" : "");
}

/* ---- S6 -------------------------------------------------------------------- */

TA_EDIT_MAKER(S6)
{
	char *why = NULL;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (kernel_or_host >= 0 && (size_t)kernel_or_host != ki)
			continue;
		const ta_kernel *k = &m->kernels[ki];
		bool fast = false;
		for (size_t i = 0; i < k->op_count; i++)
			fast |= k->ops[i].kind == TA_OP_INLINE_ASM;
		if (fast)
			continue;
		const ta_op *first = NULL;
		for (size_t i = 0; i < k->op_count && !first; i++)
			if (k->ops[i].kind == TA_OP_TANH && k->ops[i].loop >= 0 && ta_edits_at_line(k->ops[i].span, line))
				first = &k->ops[i];
		if (!first)
			continue;
		if (k->is_helper || k->launch_count == 0) {
			ta_edits_keep_why(&why, ta_xasprintf("%s is not launched in this file: nowhere to set FAST_TANH", k->name));
			continue;
		}
		if (ta_edits_line_start(m, k->span.start) != k->span.start) {
			ta_edits_keep_why(&why, ta_xasprintf("%s is not defined at module level", k->name));
			continue;
		}
		if (defined(m, "_fast_tanh") || defined(m, "_HAS_FAST_TANH") || ta_kernel_param(k, "FAST_TANH")) {
			ta_edits_keep_why(&why, ta_xstrdup("the file already defines _fast_tanh, _HAS_FAST_TANH or FAST_TANH"));
			continue;
		}
		char *torch = ta_edits_module(m, "torch.cuda");
		char *jit = ta_edits_module(m, "triton.jit");
		char *tl = ta_edits_module(m, "triton.language");
		char *ce = ta_edits_module(m, "triton.language.constexpr");
		/* Every tanh of the kernel (in or out of loops) takes the flag; only
		 * plain one-argument calls. */
		char *tv = ta_edits_module(m, "torch.version");
		bool ok = torch && jit && tl && ce && tv;
		char *exact = NULL;
		for (size_t i = 0; i < k->op_count && ok; i++) {
			const ta_op *op = &k->ops[i];
			if (op->kind != TA_OP_TANH)
				continue;
			TSNode call = ta_edits_node(m, op->span);
			TSNode fnn = ta_node_field(call, "function");
			if (op->arg_count != 1 || op->kwarg_count || op->receiver || !ta_node_is(call, "call")) {
				ta_edits_keep_why(&why, ta_xasprintf("line %u: not a plain tanh(x) call", op->span.line));
				ok = false;
				break;
			}
			char *t = ta_node_text(m->src, fnn);
			if (!exact)
				exact = t;
			else if (strcmp(exact, t)) {
				ta_edits_keep_why(&why, ta_xasprintf("line %u: tanh is called as %s and %s", op->span.line, exact, t));
				ok = false;
				free(t);
				break;
			} else {
				free(t);
			}
			ta_edit_replace(out, ts_node_start_byte(fnn), ts_node_end_byte(fnn), "_fast_tanh");
			ta_edit_replace(out, op->args[0].end, op->args[0].end, ", FAST_TANH");
		}
		if (ok) {
			char *w = NULL;
			if (ta_edits_add_constexpr(m, k, "FAST_TANH", out, &w) != 0) {
				ta_edits_keep_why(&why, w);
				ok = false;
			}
		}
		/* Each launch sets the flag from the module-level test. */
		for (size_t i = 0; i < m->launch_count && ok; i++) {
			const ta_launch *l = &m->launches[i];
			if (l->kernel != (int)ki)
				continue;
			TSNode call = ta_edits_node(m, l->span);
			TSNode args = ta_node_field(call, "arguments");
			uint32_t na = ta_node_named_count(args);
			TSNode last = na ? ts_node_named_child(args, na - 1) : (TSNode){ 0 };
			while (!ts_node_is_null(last) && ta_node_is(last, "comment"))
				last = ts_node_prev_named_sibling(last);
			if (ts_node_is_null(last) || ta_node_is(last, "dictionary_splat") ||
			    ta_node_is(last, "list_splat")) {
				ta_edits_keep_why(&why, ta_xasprintf("line %u: the launch has no plain last argument", l->span.line));
				ok = false;
				break;
			}
			ta_edit_replace(out, ts_node_end_byte(last), ts_node_end_byte(last), ", FAST_TANH=_HAS_FAST_TANH");
		}
		if (ok) {
			const char *u = ta_edits_indent_unit(m, "");
			ta_buf b = TA_BUF_INIT;
			ta_buf_printf(&b, "# tanh.approx.f32 is PTX: NVIDIA GPUs only (sm_75+)\n");
			ta_buf_printf(&b, "_HAS_FAST_TANH = %s.is_available() and %s.hip is None\n\n\n", torch, tv);
			ta_buf_printf(&b, "@%s\ndef _fast_tanh(x, FAST: %s):\n", jit, ce);
			ta_buf_printf(&b, "%s# FAST: one MUFU instruction, relative error about 2**-11; else the exact tanh\n", u);
			ta_buf_printf(&b, "%sif FAST:\n", u);
			ta_buf_printf(&b, "%s%sreturn %s.inline_asm_elementwise(\n", u, u, tl);
			ta_buf_printf(&b, "%s%s%s\"tanh.approx.f32 $0, $1;\", \"=f,f\", [x.to(%s.float32)],\n", u, u, u, tl);
			ta_buf_printf(&b, "%s%s%sdtype=%s.float32, is_pure=True, pack=1).to(x.dtype)\n", u, u, u, tl);
			ta_buf_printf(&b, "%selse:\n%s%sreturn %s(x)\n\n\n", u, u, u, exact);
			before_def(m, k->span.start, ta_buf_str(&b), out);
			ta_buf_free(&b);
			ta_edit_set_title(out, "fast tanh for %s behind FAST_TANH (on for NVIDIA GPUs)", k->name);
			out->line = first->span.line;
		}
		free(exact);
		free(tv);
		free(torch);
		free(jit);
		free(tl);
		free(ce);
		if (ok) {
			free(why);
			return 0;
		}
		ta_edit_clear(out);
	}
	if (why) {
		*why_not = why;
		return -1;
	}
	return ta_edits_none(why_not, "no tanh inside a kernel loop%s", line ? " at that line" : "");
}
