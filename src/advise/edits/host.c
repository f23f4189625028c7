/* Edits of host code: D12 (triton.cdiv), S7 (conditional .contiguous()),
 * G7 (triton.set_allocator before in-kernel descriptors are used). */
#include "config.h"
#include "advise/edits/edits.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

static bool host_selected(int kernel_or_host, size_t h)
{
	return kernel_or_host < 0 || (size_t)kernel_or_host == h;
}

/* Keeps the first reason a site was refused. */
/* ---- D12: (a + b - 1) // b -> triton.cdiv(a, b) -------------------------- */

static int d12_one(const ta_model *m, const ta_host_op *op, ta_edit *out, char **why_not)
{
	TSNode n = ta_edits_node(m, op->span);
	TSNode paren = ta_node_field(n, "left");
	TSNode minus = ts_node_named_child(paren, 0);
	TSNode plus = ta_node_field(minus, "left");
	TSNode a = ta_node_field(plus, "left"), b = ta_node_field(plus, "right");
	if (ts_node_is_null(a) || ts_node_is_null(b) || !ta_node_is(n, "binary_operator"))
		return ta_edits_refuse(why_not, "line %u: not of the form (a + b - 1) // b", op->span.line);
	char *cdiv = ta_edits_module(m, "triton.cdiv");
	if (!cdiv)
		return ta_edits_refuse(why_not, "line %u: the file does not import triton; add `import triton` first",
				       op->span.line);
	char *ta = ta_node_text(m->src, a), *tb = ta_node_text(m->src, b);
	char *rep = ta_xasprintf("%s(%s, %s)", cdiv, ta, tb);
	ta_edit_replace(out, op->span.start, op->span.end, rep);
	ta_edit_set_title(out, "use %s(%s, %s) for the ceiling division", cdiv, ta, tb);
	out->line = op->span.line;
	free(rep);
	free(ta);
	free(tb);
	free(cdiv);
	return 0;
}

TA_EDIT_MAKER(D12)
{
	char *why = NULL;
	for (size_t h = 0; h < m->host_count; h++) {
		if (!host_selected(kernel_or_host, h))
			continue;
		for (size_t i = 0; i < m->hosts[h].op_count; i++) {
			const ta_host_op *op = &m->hosts[h].ops[i];
			if (op->kind != TA_HOST_HAND_CDIV || !ta_edits_at_line(op->span, line))
				continue;
			char *w = NULL;
			if (d12_one(m, op, out, &w) == 0) {
				free(why);
				return 0;
			}
			ta_edits_keep_why(&why, w);
		}
	}
	if (why) {
		*why_not = why;
		return -1;
	}
	return ta_edits_none(why_not, "no hand-written ceiling division (a + b - 1) // b in host code%s",
			       line ? " on that line" : "");
}

/* ---- S7: x = x.contiguous() only when the last stride asks for it -------- */

/* A receiver we may evaluate twice: a name or a chain of attributes. */
static bool plain_name(TSNode n)
{
	if (ta_node_is(n, "identifier"))
		return true;
	return ta_node_is(n, "attribute") && plain_name(ta_node_field(n, "object"));
}

/* Inside an `if` or a conditional expression that tests a stride. */
static bool already_conditional(const ta_model *m, TSNode n)
{
	for (TSNode p = ta_node_parent(n); !ts_node_is_null(p); p = ta_node_parent(p)) {
		if (ta_node_is(p, "function_definition") || ta_node_is(p, "module"))
			break;
		TSNode cond = ta_node_is(p, "if_statement") ? ta_node_field(p, "condition") :
			      ta_node_is(p, "conditional_expression") ? ts_node_named_child(p, 1) : (TSNode){ 0 };
		if (!ts_node_is_null(cond)) {
			char *t = ta_node_text(m->src, cond);
			bool s = strstr(t, "stride") || strstr(t, "is_contiguous");
			free(t);
			if (s)
				return true;
		}
	}
	return false;
}

static int s7_one(const ta_model *m, const ta_host *h, const ta_host_op *op, ta_edit *out, char **why_not)
{
	TSNode call = ta_edits_node(m, op->span);
	TSNode fn = ta_node_field(call, "function");
	TSNode recv = ta_node_field(fn, "object");
	TSNode args = ta_node_field(call, "arguments");
	if (!ta_node_is(call, "call") || ta_node_named_count(args) != 0)
		return ta_edits_refuse(why_not, "line %u: not a plain x.contiguous() call", op->span.line);
	if (!plain_name(recv))
		return ta_edits_refuse(why_not, "line %u: `%s` is an expression; tested and copied it would run twice",
				       op->span.line, op->receiver);
	if (already_conditional(m, call))
		return ta_edits_refuse(why_not, "line %u: the copy is already conditional on a stride test",
				       op->span.line);
	/* The kernel must be told the strides, else it may rely on the layout. */
	char *needle = ta_xasprintf("%s.stride(", op->receiver);
	ta_span scope = h->span.end > h->span.start ? h->span : (ta_span){ .start = 0, .end = (uint32_t)m->src->len };
	char *body = ta_edits_text(m, scope.start, scope.end);
	bool strides = strstr(body, needle) != NULL;
	free(body);
	free(needle);
	if (!strides)
		return ta_edits_refuse(why_not, "line %u: %s's strides are never passed to the kernel (no %s.stride(...) "
				       "in %s), so it may rely on a contiguous layout", op->span.line, op->receiver,
				       op->receiver, h->name);
	TSNode parent = ta_node_parent(call);
	TSNode stmt = ta_edits_statement(call);
	if (ta_node_is(parent, "assignment") && !ts_node_is_null(stmt) &&
	    ta_node_text_eq(m->src, ta_node_field(parent, "left"), op->receiver) &&
	    ta_edits_alone_on_line(m, stmt, true)) {
		char *ind = ta_edits_indent_at(m, op->span.start);
		const char *unit = ta_edits_indent_unit(m, ind);
		uint32_t s = ta_edits_line_start(m, ts_node_start_byte(stmt)), e = ts_node_end_byte(stmt);
		char *st = ta_edits_text(m, ts_node_start_byte(stmt), e);
		char *rep = ta_xasprintf("%sif %s.stride(-1) != 1:\n%s%s%s", ind, op->receiver, ind, unit, st);
		ta_edit_replace(out, s, e, rep);
		free(rep);
		free(st);
		free(ind);
	} else {
		bool bare = ta_node_is(parent, "assignment") || ta_node_is(parent, "argument_list") ||
			    ta_node_is(parent, "parenthesized_expression");
		char *rep = ta_xasprintf("%s%s if %s.stride(-1) == 1 else %s.contiguous()%s", bare ? "" : "(",
					 op->receiver, op->receiver, op->receiver, bare ? "" : ")");
		ta_edit_replace(out, op->span.start, op->span.end, rep);
		free(rep);
	}
	ta_edit_set_title(out, "copy %s only when its last stride is not 1", op->receiver);
	out->line = op->span.line;
	return 0;
}

TA_EDIT_MAKER(S7)
{
	char *why = NULL;
	for (size_t h = 0; h < m->host_count; h++) {
		if (!host_selected(kernel_or_host, h))
			continue;
		for (size_t i = 0; i < m->hosts[h].op_count; i++) {
			const ta_host_op *op = &m->hosts[h].ops[i];
			if (op->kind != TA_HOST_CONTIGUOUS || !op->receiver || !ta_edits_at_line(op->span, line))
				continue;
			char *w = NULL;
			if (s7_one(m, &m->hosts[h], op, out, &w) == 0) {
				free(why);
				return 0;
			}
			ta_edits_keep_why(&why, w);
		}
	}
	if (why) {
		*why_not = why;
		return -1;
	}
	return ta_edits_none(why_not, "no .contiguous() call in host code%s", line ? " on that line" : "");
}

/* ---- G7: triton.set_allocator before kernels with in-kernel descriptors -- */

int ta_edits_set_allocator(const ta_model *m, const ta_launch *first, ta_edit *out, char **why_not)
{
	char *triton = ta_edits_module(m, "triton.set_allocator");
	char *torch = ta_edits_module(m, "torch.empty");
	char *int8 = ta_edits_module(m, "torch.int8");
	if (!triton || !torch || !int8) {
		free(triton);
		free(torch);
		free(int8);
		return ta_edits_refuse(why_not, "the file must import both triton and torch for the allocator");
	}
	/* Before the host loop around the launch, else before the launch. */
	uint32_t at = first->loop_depth > 0 ? first->loop_span.start : first->span.start;
	TSNode n = ts_node_named_descendant_for_byte_range(ta_syntax_root(m->syn), at, at);
	while (!ts_node_is_null(n) && ts_node_start_byte(n) == at && !ts_node_is_null(ta_node_parent(n)) &&
	       ts_node_start_byte(ta_node_parent(n)) == at && !ta_node_is(n, "expression_statement") &&
	       !ta_node_is(n, "for_statement") && !ta_node_is(n, "while_statement"))
		n = ta_node_parent(n);
	if (ts_node_is_null(n) || !ta_edits_alone_on_line(m, n, true) ||
	    ta_edits_line_start(m, at) + 0 > at) {
		free(triton);
		free(torch);
		free(int8);
		return ta_edits_refuse(why_not, "line %u: the launch shares its line with other code", first->span.line);
	}
	const char *name = "alloc_fn";
	for (size_t i = 0; i < m->function_count; i++)
		if (!strcmp(m->functions[i].name, name))
			name = "_tileadvise_alloc_fn";
	char *ind = ta_edits_indent_at(m, at);
	const char *unit = ta_edits_indent_unit(m, ind);
	ta_buf b = TA_BUF_INIT;
	ta_buf_printf(&b, "%sdef %s(size: int, alignment: int, stream):\n", ind, name);
	ta_buf_printf(&b, "%s%s# scratch memory for tensor descriptors built inside the kernel\n", ind, unit);
	ta_buf_printf(&b, "%s%sreturn %s(size, device=\"cuda\", dtype=%s)\n\n", ind, unit, torch, int8);
	ta_buf_printf(&b, "%s%s(%s)\n", ind, triton, name);
	uint32_t s = ta_edits_line_start(m, at);
	ta_edit_replace(out, s, s, ta_buf_str(&b));
	ta_buf_free(&b);
	free(ind);
	free(triton);
	free(torch);
	free(int8);
	return 0;
}

static bool uses_descriptors(const ta_model *m, size_t k, int depth)
{
	const ta_kernel *kn = &m->kernels[k];
	for (size_t i = 0; i < kn->op_count; i++) {
		if (kn->ops[i].kind == TA_OP_MAKE_DESCRIPTOR)
			return true;
		if (kn->ops[i].kind == TA_OP_HELPER_CALL && kn->ops[i].helper >= 0 && depth < 4 &&
		    uses_descriptors(m, (size_t)kn->ops[i].helper, depth + 1))
			return true;
	}
	return false;
}

TA_EDIT_MAKER(G7)
{
	for (size_t h = 0; h < m->host_count; h++)
		for (size_t i = 0; i < m->hosts[h].op_count; i++)
			if (m->hosts[h].ops[i].kind == TA_HOST_SET_ALLOCATOR)
				return ta_edits_none(why_not, "the file already calls set_allocator (line %u)",
						       m->hosts[h].ops[i].span.line);
	/* The first launch of a kernel that builds descriptors in the kernel. */
	const ta_launch *first = NULL;
	for (size_t i = 0; i < m->launch_count; i++) {
		const ta_launch *l = &m->launches[i];
		if (l->kernel < 0 || (kernel_or_host >= 0 && l->kernel != kernel_or_host))
			continue;
		if (!uses_descriptors(m, (size_t)l->kernel, 0))
			continue;
		if (line && !ta_edits_at_line(l->span, line) && m->kernels[l->kernel].def_line != line &&
		    !ta_edits_at_line(m->kernels[l->kernel].span, line))
			continue;
		if (!first || l->span.start < first->span.start)
			first = l;
	}
	if (!first)
		return ta_edits_none(why_not, "no launch of a kernel that calls tl.make_tensor_descriptor%s",
				       line ? " at that line" : "");
	if (ta_edits_set_allocator(m, first, out, why_not) != 0)
		return -1;
	ta_edit_set_title(out, "set an allocator for %s's in-kernel tensor descriptors",
			  m->kernels[first->kernel].name);
	out->line = first->span.line;
	return 0;
}
