/* S6: Precise tanh in the inner loop. Its detector and its rewrite. */
#include "config.h"
#include "analyze/names.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

ta_status ta_detect_s6(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	bool fast = false, found = false;
	/* tanh.approx.f32 is PTX: a file under an Ascend, ROCm or other
	 * back-end's folder has no such instruction to use. */
	if (ta_file_other_backend(c->m, NULL) == TA_BACKEND_FOLDER)
		return TA_STATUS_NOT_APPLICABLE;
	for (size_t i = 0; i < k->op_count; i++)
		if (k->ops[i].kind == TA_OP_INLINE_ASM)
			fast = true;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->kind != TA_OP_TANH || op->loop < 0)
			continue;
		if (fast)
			return TA_STATUS_SATISFIED;
		ta_rule_add(c, op->span, "%s inside the loop at line %u: a fast tanh approximation "
			    "(tanh.approx.f32 behind a flag) is cheaper", op->callee ? op->callee : "tanh",
			    k->loops[op->loop].span.line);
		found = true;
	}
	return found ? TA_STATUS_APPLIES : fast ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

/* ---- the rewrite ---------------------------------------------------------- */

/* Rewrite: fast tanh (tanh.approx.f32) behind a FAST_TANH constexpr, on for NVIDIA GPUs. */
TA_REWRITE(S6, NULL, TA_UNSAFE("assumes tanh.approx.f32's error (about 2^-11 relative) is within what the kernel's output tolerates"))
{
	ta_backend_fact be;
	if (ta_file_other_backend(m, &be) == TA_BACKEND_FOLDER)
		return ta_edits_refuse(why_not, "the file is under %.*s/, a folder for another back-end than CUDA: "
				       "tanh.approx.f32 is a PTX instruction", be.len, be.text);
	ta_sites s = TA_SITES_INIT;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (!ta_edits_kernel_selected(kernel_or_host, ki))
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
			ta_sites_refuse(&s, ta_xasprintf("%s is not launched in this file: nowhere to set FAST_TANH", k->name));
			continue;
		}
		if (ta_edits_line_start(m, k->span.start) != k->span.start) {
			ta_sites_refuse(&s, ta_xasprintf("%s is not defined at module level", k->name));
			continue;
		}
		if (ta_edits_defined(m, "_fast_tanh") || ta_edits_defined(m, "_HAS_FAST_TANH") || ta_kernel_param(k, "FAST_TANH")) {
			ta_sites_refuse(&s, ta_xstrdup("the file already defines _fast_tanh, _HAS_FAST_TANH or FAST_TANH"));
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
				ta_sites_refuse(&s, ta_xasprintf("line %u: not a plain tanh(x) call", op->span.line));
				ok = false;
				break;
			}
			char *t = ta_node_text(m->src, fnn);
			if (!exact)
				exact = t;
			else if (strcmp(exact, t)) {
				ta_sites_refuse(&s, ta_xasprintf("line %u: tanh is called as %s and %s", op->span.line, exact, t));
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
				ta_sites_refuse(&s, w);
				ok = false;
			}
		}
		/* Each launch sets the flag from the module-level test. */
		ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
		for (const ta_launch *l; ok && (l = ta_launch_walk_next(&walk));) {
			char *w = NULL;
			if (ta_edits_launch_alone(m, l, &w) != 0) {   /* the other kernel takes no flag */
				ta_sites_refuse(&s, w);
				ok = false;
				break;
			}
			TSNode call = ta_edits_node(m, l->span);
			TSNode args = ta_node_field(call, "arguments");
			uint32_t na = ta_node_named_count(args);
			TSNode last = na ? ta_node_named_child(args, na - 1) : (TSNode){ 0 };
			while (!ts_node_is_null(last) && ta_node_is(last, "comment"))
				last = ts_node_prev_named_sibling(last);
			if (ts_node_is_null(last) || ta_node_is(last, "dictionary_splat") ||
			    ta_node_is(last, "list_splat")) {
				ta_sites_refuse(&s, ta_xasprintf("line %u: the launch has no plain last argument", l->span.line));
				ok = false;
				break;
			}
			ta_edit_replace(out, ts_node_end_byte(last), ts_node_end_byte(last), ", FAST_TANH=_HAS_FAST_TANH");
		}
		if (ok) {
			const char *u = ta_edits_indent_unit(m, "");
			ta_buf b = TA_BUF_INIT;
			/* torch.version.cuda is None on ROCm and CPU builds. It does not
			 * name hip: P1 reads a hip test as the author's word that the
			 * file runs on another back-end, and this guard is not that. */
			ta_buf_printf(&b, "# tanh.approx.f32 is PTX: NVIDIA GPUs only (sm_75+)\n");
			ta_buf_printf(&b, "_HAS_FAST_TANH = %s.is_available() and %s.cuda is not None\n\n\n", torch, tv);
			ta_buf_printf(&b, "@%s\ndef _fast_tanh(x, FAST: %s):\n", jit, ce);
			ta_buf_printf(&b, "%s# FAST: one MUFU instruction, relative error about 2**-11; else the exact tanh\n", u);
			ta_buf_printf(&b, "%sif FAST:\n", u);
			ta_buf_printf(&b, "%s%sreturn %s.inline_asm_elementwise(\n", u, u, tl);
			ta_buf_printf(&b, "%s%s%s\"tanh.approx.f32 $0, $1;\", \"=f,f\", [x.to(%s.float32)],\n", u, u, u, tl);
			ta_buf_printf(&b, "%s%s%sdtype=%s.float32, is_pure=True, pack=1).to(x.dtype)\n", u, u, u, tl);
			ta_buf_printf(&b, "%selse:\n%s%sreturn %s(x)\n\n\n", u, u, u, exact);
			ta_edits_before_def(m, k->span.start, ta_buf_str(&b), out);
			ta_buf_free(&b);
			ta_edit_set_title(out, "fast tanh for %s behind FAST_TANH (on for NVIDIA GPUs)", k->name);
			out->line = first->span.line;
			char *w = NULL;
			if (ta_edits_need_triton(m, 2, 2, "tl.inline_asm_elementwise", out, &w) != 0) {
				ta_sites_refuse(&s, w);
				ok = false;
			}
		}
		free(exact);
		free(tv);
		free(torch);
		free(jit);
		free(tl);
		free(ce);
		if (ok) {
			return ta_sites_done(&s);
		}
		ta_edit_clear(out);
	}
	return ta_sites_end(&s, why_not, line, "no tanh inside a kernel loop");
}
