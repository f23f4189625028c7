/* G7: Host side of a descriptor attention kernel.
 * Its detector and its rewrite. */
#include "config.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "analyze/reexport.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool file_sets_allocator(const ta_model *m)
{
	for (size_t h = 0; h < m->host_count; h++)
		for (size_t i = 0; i < m->hosts[h].op_count; i++)
			if (m->hosts[h].ops[i].kind == TA_HOST_SET_ALLOCATOR)
				return true;
	return false;
}

/* Whether a module of the file's own package that it imports (or one that
 * imports, two deep) calls triton.set_allocator: a package sets it once, at
 * import time, for all its kernels (flash-linear-attention's utils). */
static bool package_reads_allocator(const ta_model *m)
{
	for (size_t i = 0; i < m->import_count; i++) {
		const char *from = m->imports[i].from;
		if (!from || !strncmp(from, "triton", 6) || !strncmp(from, "torch", 5))
			continue;
		/* `from . import util` imports the module .util itself */
		char *module = from[strspn(from, ".")] ? ta_xstrdup(from) : ta_xasprintf("%s%s", from, m->imports[i].alias);
		bool yes = ta_reexport_package_mentions(m->src->path, module, "set_allocator(");
		free(module);
		if (yes)
			return true;
	}
	return false;
}

/* Asked once per file, whatever number of its kernels build descriptors:
 * the answer reads the package's files. */
static void *new_package_allocator(const ta_model *m)
{
	bool *yes = ta_xmalloc(sizeof *yes);
	*yes = package_reads_allocator(m);
	return yes;
}

static bool package_sets_allocator(const ta_model *m)
{
	return *(bool *)ta_index_cached(m, new_package_allocator, free);
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
	if (desc && launched_here(c->m, c->kernel, 0) && !file_sets_allocator(c->m) && !package_sets_allocator(c->m)) {
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

/* ---- G7: triton.set_allocator before kernels with in-kernel descriptors -- */

/* The statement of the module or of a function body that holds offset at
 * (not a statement nested in a branch, loop or with), or a null node. */
static TSNode g7_top_statement(const ta_model *m, uint32_t at, bool *in_function)
{
	TSNode n = ts_node_named_descendant_for_byte_range(ta_syntax_root(m->syn), at, at);
	while (!ts_node_is_null(n)) {
		TSNode p = ta_node_parent(n);
		if (ts_node_is_null(p))
			return (TSNode){ 0 };
		if (ta_node_is(p, "module")) {
			*in_function = false;
			return n;
		}
		if (ta_node_is(p, "block") && ta_node_is(ta_node_parent(p), "function_definition")) {
			*in_function = true;
			return n;
		}
		n = p;
	}
	return n;
}

/* Every launch of kernel ki is made in host function h. */
static bool g7_launched_only_in(const ta_model *m, int ki, int h)
{
	ta_launch_walk walk = ta_index_launch_walk(m, ki);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));)
		if (l->host != h)
			return false;
	return true;
}

/* Where the allocator goes so that it runs before every launch of kernel
 * ki: when they are all in one function, before the statement of its body
 * that holds the first (a branch or loop around the launches is entered
 * after it); else at module level after the last import. */
static uint32_t g7_dominating_point(const ta_model *m, const ta_launch *first, bool *ok)
{
	bool one_host = g7_launched_only_in(m, first->kernel, first->host);
	bool in_fn = false;
	TSNode top = g7_top_statement(m, first->span.start, &in_fn);
	*ok = true;
	if (one_host && first->host >= 0 && !ts_node_is_null(top) && in_fn)
		return ts_node_start_byte(top);
	/* module level: after the imports */
	TSNode root = ta_syntax_root(m->syn), last = { 0 };
	uint32_t n = ta_node_named_count(root);
	for (uint32_t i = 0; i < n; i++) {
		TSNode c = ta_node_named_child(root, i);
		if (ta_node_is(c, "import_statement") || ta_node_is(c, "import_from_statement"))
			last = c;
	}
	if (ts_node_is_null(last)) {
		*ok = false;
		return 0;
	}
	return ta_edits_line_next(m, ts_node_end_byte(last));
}

/* triton.set_allocator(None): takes the allocator away. */
static bool g7_resets(const ta_model *m, const ta_host_op *op)
{
	TSNode call = ta_edits_node(m, op->span);
	if (!ta_node_is(call, "call"))
		return false;
	TSNode args = ta_node_field(call, "arguments");
	return !ts_node_is_null(args) && ta_node_named_count(args) == 1 &&
	       ta_node_is(ta_node_named_child(args, 0), "none");
}

bool ta_edits_allocator_dominates(const ta_model *m, size_t ki)
{
	const ta_launch *first = ta_index_first_launch(m, (int)ki);
	for (size_t h = 0; h < m->host_count; h++) {
		for (size_t i = 0; i < m->hosts[h].op_count; i++) {
			const ta_host_op *op = &m->hosts[h].ops[i];
			if (op->kind != TA_HOST_SET_ALLOCATOR || g7_resets(m, op))
				continue;
			bool in_fn = false;
			TSNode top = g7_top_statement(m, op->span.start, &in_fn);
			if (ts_node_is_null(top))
				continue;
			if (!in_fn)
				return true;  /* module level: runs on import */
			if (!first)
				continue;
			/* in the function of every launch, unconditionally (a statement
			 * of its body, not one inside a branch, loop or try), before them */
			if (!ta_node_is(top, "expression_statement"))
				continue;
			if (op->span.start < first->span.start && g7_launched_only_in(m, (int)ki, (int)h))
				return true;
		}
	}
	return false;
}

int ta_edits_set_allocator(const ta_model *m, const ta_launch *first, ta_edit *out, char **why_not)
{
	/* triton.set_allocator came with in-kernel descriptors (Triton 3.3). */
	if (ta_edits_triton_at_least(m, 3, 3, "triton.set_allocator", why_not) != 0)
		return -1;
	char *triton = ta_edits_module(m, "triton.set_allocator");
	char *torch = ta_edits_module(m, "torch.empty");
	char *int8 = ta_edits_module(m, "torch.int8");
	if (!triton || !torch || !int8) {
		free(triton);
		free(torch);
		free(int8);
		return ta_edits_refuse(why_not, "the file must import both triton and torch for the allocator");
	}
	bool ok;
	uint32_t at = g7_dominating_point(m, first, &ok);
	if (!ok || ta_edits_line_start(m, at) != at - (uint32_t)strspn(m->src->text + ta_edits_line_start(m, at), " \t")) {
		free(triton);
		free(torch);
		free(int8);
		return ta_edits_refuse(why_not, "line %u: no place before every launch of %s to set the allocator",
				       first->span.line, m->kernels[first->kernel].name);
	}
	const char *name = "alloc_fn";
	for (size_t i = 0; i < m->function_count; i++)
		if (!strcmp(m->functions[i].name, name))
			name = "_tileadvise_alloc_fn";
	char *ind = ta_edits_indent_at(m, at);
	const char *unit = ta_edits_indent_unit(m, ind);
	ta_buf b = TA_BUF_INIT;
	bool module = !*ind;
	if (module)
		ta_buf_puts(&b, "\n\n");
	ta_buf_printf(&b, "%sdef %s(size: int, alignment: int, stream):\n", ind, name);
	ta_buf_printf(&b, "%s%s# scratch memory for tensor descriptors built inside the kernel\n", ind, unit);
	ta_buf_printf(&b, "%s%sreturn %s(size, device=\"cuda\", dtype=%s)\n%s", ind, unit, torch, int8,
		      module ? "\n\n" : "\n");
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

/* Rewrite: triton.set_allocator before kernels with in-kernel descriptors. */
TA_REWRITE(G7, NULL, TA_SAFE)
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
		if (l->kernel < 0 || !ta_edits_kernel_selected(kernel_or_host, (size_t)l->kernel))
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
