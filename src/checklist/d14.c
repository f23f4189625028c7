/* D14: Autotuner or JIT rebuilt on every call. Its detector and its rewrite. */
#include "config.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool plain_word(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static int by_host_op(const void *pa, const void *pb)
{
	const ta_host_op_ref *a = pa, *b = pb;
	return a->host != b->host ? (a->host < b->host ? -1 : 1) : a->op < b->op ? -1 : a->op > b->op;
}

/* The wrapping calls that may name kernel k: those whose text holds its
 * name or an alias as a word (the model's index), in host and operation
 * order; every one when a name is not a plain word. Caller frees. */
static ta_host_op_ref *candidates(const ta_rule_ctx *c, size_t *count)
{
	const ta_model *m = c->m;
	ta_host_op_ref *v = NULL;
	size_t n = 0, cap = 0;
	bool plain = plain_word(c->k->name);
	for (size_t a = 0; a < c->k->alias_count && plain; a++)
		plain = plain_word(c->k->aliases[a]);
	if (!plain) {
		for (size_t hi = 0; hi < m->host_count; hi++)
			for (size_t i = 0; i < m->hosts[hi].op_count; i++)
				*TA_PUSH(v, n, cap) = (ta_host_op_ref){ (int)hi, (int)i };
		*count = n;
		return v;
	}
	for (size_t a = 0; a <= c->k->alias_count; a++) {
		size_t k;
		const ta_host_op_ref *r = ta_index_wrap_calls(m, a ? c->k->aliases[a - 1] : c->k->name, &k);
		for (size_t i = 0; i < k; i++)
			*TA_PUSH(v, n, cap) = r[i];
	}
	if (c->k->alias_count && n > 1) {
		qsort(v, n, sizeof *v, by_host_op);
		size_t w = 1;
		for (size_t i = 1; i < n; i++)
			if (by_host_op(&v[i], &v[w - 1]))
				v[w++] = v[i];
		n = w;
	}
	*count = n;
	return v;
}

ta_status ta_detect_d14(ta_rule_ctx *c)
{
	bool found = false;
	size_t nc;
	ta_host_op_ref *cands = candidates(c, &nc);
	for (size_t ci = 0; ci < nc; ci++) {
		const ta_host *h = &c->m->hosts[cands[ci].host];
		const ta_host_op *op = &h->ops[cands[ci].op];
		if (h->span.end == 0 || h->launch_count == 0 ||
		    (op->kind != TA_HOST_AUTOTUNE_CALL && op->kind != TA_HOST_JIT_CALL))
			continue;
		bool mine = ta_rule_mentions(c, op->span, c->k->name);
		for (size_t a = 0; a < c->k->alias_count && !mine; a++)
			mine = ta_rule_mentions(c, op->span, c->k->aliases[a]);
		/* `triton.autotune(...)(k)`: the wrapped name follows the call */
		if (!mine) {
			TSNode n = ta_rule_node(c, op->span);
			TSNode p = ta_node_parent(n);
			mine = ta_node_is(p, "call") && ta_node_contains_identifier(c->m->src, p, c->k->name);
		}
		if (!mine)
			continue;
		ta_rule_add(c, op->span, "`%s` runs %s on every call: the tuning cache is rebuilt each time; "
			    "wrap `%s` once at module level", h->name,
			    op->kind == TA_HOST_AUTOTUNE_CALL ? "triton.autotune(...)" : "triton.jit(...)",
			    c->k->name);
		found = true;
	}
	free(cands);
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}

/* ---- the rewrite ---------------------------------------------------------- */

static const char *const builtins[] = {
	"range", "len", "min", "max", "dict", "list", "tuple", "int", "float", "bool", "str", "True", "False",
	"None", "sum", "abs", "zip", "enumerate", "sorted", "set", "print", NULL,
};

/* Names a lambda or comprehension inside n binds (its own locals). */
static void bound_names(const ta_model *m, TSNode n, char ***v, size_t *count)
{
	TSNode bind = { 0 };
	if (ta_node_is(n, "lambda"))
		bind = ta_node_field(n, "parameters");
	else if (ta_node_is(n, "for_in_clause"))
		bind = ta_node_field(n, "left");
	if (!ts_node_is_null(bind)) {
		char **w;
		size_t nw = ta_edits_names(m, bind, &w);
		*v = ta_xrealloc(*v, (*count + nw + 1) * sizeof **v);
		for (size_t i = 0; i < nw; i++)
			(*v)[(*count)++] = w[i];
		free(w);
	}
	uint32_t c = ta_node_named_count(n);
	for (uint32_t i = 0; i < c; i++)
		bound_names(m, ta_node_named_child(n, i), v, count);
}

/* The module-level statement binding name, started before off, or -1. */
static bool module_name_before(const ta_model *m, const char *name, uint32_t off)
{
	if (ta_index_import_alias(m, name))
		return true;
	uint32_t d = ta_index_module_def(m, name), a = ta_index_module_assign(m, name);
	return (d != UINT32_MAX && d < off) || (a != UINT32_MAX && a < off);
}

static bool module_defines(const ta_model *m, const char *name)
{
	return module_name_before(m, name, (uint32_t)m->src->len + 1);
}

static int d14_one(const ta_model *m, const ta_host *h, const ta_host_op *op, ta_edit *out, char **why)
{
	TSNode n = ta_edits_node(m, op->span);
	TSNode stmt = ta_node_ancestor(n, "expression_statement");
	TSNode asg = ts_node_is_null(stmt) ? stmt : ta_node_named_child(stmt, 0);
	if (!ta_node_is(asg, "assignment") || !ta_node_is(ta_node_field(asg, "left"), "identifier"))
		return ta_edits_refuse(why, "line %u: the wrapped kernel is not assigned to a name", op->span.line);
	TSNode body = ta_node_parent(stmt);
	TSNode fn = ta_node_parent(body);
	if (!ta_node_is(body, "block") || !ta_node_is(fn, "function_definition") ||
	    ts_node_start_byte(fn) < h->span.start || ts_node_end_byte(fn) > h->span.end)
		return ta_edits_refuse(why, "line %u: the wrapping is inside a branch or loop of %s", op->span.line,
				       h->name);
	TSNode rhs = ta_node_field(asg, "right");
	/* The innermost wrapped name: f in autotune(...)(jit(f)). */
	TSNode w = rhs;
	while (ta_node_is(w, "call")) {
		TSNode args = ta_node_field(w, "arguments");
		if (ta_node_named_count(args) < 1)
			break;
		w = ta_node_named_child(args, 0);
	}
	if (!ta_node_is(w, "identifier"))
		return ta_edits_refuse(why, "line %u: the wrapped function is not a plain name", op->span.line);
	char *wname = ta_node_text(m->src, w);
	const ta_function *f = NULL;
	for (size_t i = 0; i < m->function_count; i++)
		if (m->functions[i].parent < 0 && !strcmp(m->functions[i].name, wname))
			f = &m->functions[i];
	if (!f) {
		int r = ta_edits_refuse(why, "line %u: %s is not a module-level function", op->span.line, wname);
		free(wname);
		return r;
	}
	/* After the wrapped function, at module level. */
	uint32_t at = ta_edits_line_next(m, f->span.end - 1);
	if (f->span.end - 1 >= at || at <= f->span.start || at > h->span.start) {
		int r = ta_edits_refuse(why, "line %u: %s is defined after %s", op->span.line, wname, h->name);
		free(wname);
		return r;
	}
	/* Every name the wrapping reads must exist at module level by then. */
	char **names, **bound = NULL;
	size_t nn = ta_edits_names(m, rhs, &names), nb = 0;
	bound_names(m, rhs, &bound, &nb);
	char *bad = NULL;
	for (size_t i = 0; i < nn && !bad; i++) {
		bool ok = false;
		for (size_t j = 0; j < nb && !ok; j++)
			ok = !strcmp(bound[j], names[i]);
		for (const char *const *b = builtins; *b && !ok; b++)
			ok = !strcmp(*b, names[i]);
		ok = ok || !strcmp(names[i], wname) || module_name_before(m, names[i], at);
		if (!ok)
			bad = ta_xstrdup(names[i]);
	}
	ta_edits_names_free(names, nn);
	ta_edits_names_free(bound, nb);
	if (bad) {
		int r = ta_edits_refuse(why, "line %u: `%s` is not a module-level name defined before %s", op->span.line,
					bad, wname);
		free(bad);
		free(wname);
		return r;
	}
	char *gname = ta_xasprintf("%s_%s", wname, op->kind == TA_HOST_AUTOTUNE_CALL ? "tuned" : "jit");
	if (module_defines(m, gname)) {
		int r = ta_edits_refuse(why, "the file already defines %s", gname);
		free(gname);
		free(wname);
		return r;
	}
	/* The expression without the function body's indentation. */
	char *ind = ta_edits_indent_at(m, ts_node_start_byte(stmt));
	char *et = ta_node_text(m->src, rhs);
	ta_buf b = TA_BUF_INIT;
	ta_buf_printf(&b, "\n\n%s = ", gname);
	size_t il = strlen(ind);
	for (const char *p = et; *p; p++) {
		ta_buf_putc(&b, *p);
		if (*p == '\n' && !strncmp(p + 1, ind, il))
			p += il;
	}
	ta_buf_putc(&b, '\n');
	ta_edit_replace(out, at, at, ta_buf_str(&b));
	ta_buf_free(&b);
	ta_edit_replace(out, ts_node_start_byte(rhs), ts_node_end_byte(rhs), gname);
	ta_edit_set_title(out, "wrap %s once at module level (%s) instead of on every call of %s", wname, gname,
			  h->name);
	out->line = op->span.line;
	free(et);
	free(ind);
	free(gname);
	free(wname);
	return 0;
}

static bool d14_site(const ta_model *m, const ta_host *h, const ta_host_op *op)
{
	(void)m;
	return h->span.end != 0 && (op->kind == TA_HOST_AUTOTUNE_CALL || op->kind == TA_HOST_JIT_CALL);
}

/* Rewrite: wrap the kernel with autotune/jit once at module level. */
TA_REWRITE(D14, NULL, TA_SAFE)
{
	return ta_edits_each_host_op(m, kernel_or_host, line, d14_site, d14_one, out, why_not,
				     "no triton.autotune(...)(f) or triton.jit(f) inside a host function");
}
