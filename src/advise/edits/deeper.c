/* Deeper entries: D13 (parenthesise a comparison under & or |), D15
 * (allocate on the device instead of .to(device)), D14 (hoist an
 * autotune/jit wrapping out of a host function). */
#include "config.h"
#include "advise/edits/edits.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

/* ---- D13 ------------------------------------------------------------------- */

/* The first `A & B == C` (or |) in n at line; fills *cmp. */
static bool d13_find(const ta_model *m, TSNode n, uint32_t line, TSNode *cmp)
{
	if (ta_node_is(n, "comparison_operator") && ta_node_named_count(n) >= 2) {
		TSNode left = ts_node_named_child(n, 0);
		TSNode op = ta_node_field(left, "operator");
		if (ta_node_is(left, "binary_operator") && !ts_node_is_null(op) &&
		    (ta_node_text_eq(m->src, op, "&") || ta_node_text_eq(m->src, op, "|")) &&
		    (line == 0 || (ta_node_line(n) <= line && line <= ta_node_end_line(n)))) {
			*cmp = n;
			return true;
		}
	}
	uint32_t c = ta_node_named_count(n);
	for (uint32_t i = 0; i < c; i++)
		if (d13_find(m, ts_node_named_child(n, i), line, cmp))
			return true;
	return false;
}

TA_EDIT_MAKER(D13)
{
	char *why = NULL;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (kernel_or_host >= 0 && (size_t)kernel_or_host != ki)
			continue;
		TSNode cmp;
		if (!d13_find(m, m->kernels[ki].node, line, &cmp))
			continue;
		uint32_t line_of = (uint32_t)ta_node_line(cmp);
		if (ta_node_named_count(cmp) != 2) {
			ta_edits_keep_why(&why, ta_xasprintf("line %u: a chained comparison; the intended grouping is unclear",
						    line_of));
			continue;
		}
		/* `A & B == C` is `(A & B) == C`; the fast-path test meant A & (B == C). */
		TSNode left = ts_node_named_child(cmp, 0);
		TSNode b = ta_node_field(left, "right");
		ta_edit_replace(out, ts_node_start_byte(b), ts_node_start_byte(b), "(");
		ta_edit_replace(out, ts_node_end_byte(cmp), ts_node_end_byte(cmp), ")");
		char *t = ta_node_text(m->src, cmp);
		ta_edit_set_title(out, "parenthesise the comparison in `%s` (& and | bind tighter than ==): check that "
				  "this grouping is the intended one", t);
		free(t);
		out->line = line_of;
		free(why);
		return 0;
	}
	if (why) {
		*why_not = why;
		return -1;
	}
	return ta_edits_none(why_not, "no comparison under & or | in a kernel%s", line ? " on that line" : "");
}

/* ---- D15 ------------------------------------------------------------------- */

/* name is assigned (or passed to an in-place method) in [s, e). */
static bool touched_between(const ta_model *m, TSNode n, const char *name, uint32_t s, uint32_t e)
{
	if (ts_node_end_byte(n) <= s || ts_node_start_byte(n) >= e)
		return false;
	if (ts_node_start_byte(n) >= s && ts_node_end_byte(n) <= e && ta_node_is(n, "identifier") &&
	    ta_node_text_eq(m->src, n, name))
		return true;
	uint32_t c = ta_node_named_count(n);
	for (uint32_t i = 0; i < c; i++)
		if (touched_between(m, ts_node_named_child(n, i), name, s, e))
			return true;
	return false;
}

static int d15_one(const ta_model *m, const ta_host *h, const ta_host_op *a, const ta_host_op *t, ta_edit *out,
		   char **why)
{
	TSNode ac = ta_edits_node(m, a->span), tc = ta_edits_node(m, t->span);
	if (!ta_node_is(ac, "call") || !ta_node_is(tc, "call"))
		return ta_edits_refuse(why, "line %u: the allocation or the copy is not a plain call", a->span.line);
	TSNode tf = ta_node_field(tc, "function");
	TSNode targs = ta_node_field(tc, "arguments");
	char *meth = ta_node_text(m->src, ta_node_field(tf, "attribute"));
	char *dev = NULL;
	uint32_t na = ta_node_named_count(targs);
	if (meth && !strcmp(meth, "cuda") && na == 0) {
		dev = ta_xstrdup("\"cuda\"");
	} else if (meth && !strcmp(meth, "to") && na == 1) {
		TSNode arg = ts_node_named_child(targs, 0);
		if (ta_node_is(arg, "keyword_argument") && ta_node_text_eq(m->src, ta_node_field(arg, "name"), "device"))
			arg = ta_node_field(arg, "value");
		if (!ta_node_is(arg, "keyword_argument"))
			dev = ta_node_text(m->src, arg);
		/* a dtype is not a device */
		if (dev && (strstr(dev, "float") || strstr(dev, "int") || strstr(dev, "bool") || strstr(dev, "dtype"))) {
			free(dev);
			dev = NULL;
		}
	}
	free(meth);
	if (!dev)
		return ta_edits_refuse(why, "line %u: `%s` is not .to(device) or .cuda() with a device alone",
				       t->span.line, t->text);
	/* The device is known at the allocation, and the CPU tensor is not
	 * used before it is copied. */
	TSNode as = ta_node_ancestor(ac, "expression_statement");
	TSNode ts = ta_node_ancestor(tc, "expression_statement");
	TSNode devn = ts_node_named_child(targs, 0);
	char **names;
	size_t nn = ta_edits_names(m, devn, &names);
	bool late = false;
	for (size_t i = 0; i < nn && !late && !ts_node_is_null(as); i++) {
		TSNode fn = ts_node_is_null(as) ? as : ta_node_parent(as);
		late = touched_between(m, fn, names[i], ts_node_end_byte(as), ts_node_start_byte(tc));
	}
	ta_edits_names_free(names, nn);
	if (ts_node_is_null(as) || ts_node_is_null(ts) || late) {
		free(dev);
		return ta_edits_refuse(why, "line %u: the device `%s` is not known where %s is allocated", a->span.line,
				       t->text, a->target);
	}
	if (touched_between(m, ta_node_parent(as), a->target, ts_node_end_byte(as), ts_node_start_byte(ts))) {
		free(dev);
		return ta_edits_refuse(why, "line %u: %s is used on the CPU before the copy at line %u", a->span.line,
				       a->target, t->span.line);
	}
	/* device= into the allocation. */
	TSNode aargs = ta_node_field(ac, "arguments");
	uint32_t an = ta_node_named_count(aargs);
	TSNode last = an ? ts_node_named_child(aargs, an - 1) : (TSNode){ 0 };
	char *kw = ta_xasprintf("%sdevice=%s", ts_node_is_null(last) ? "" : ", ", dev);
	uint32_t at = ts_node_is_null(last) ? ts_node_end_byte(aargs) - 1 : ts_node_end_byte(last);
	ta_edit_replace(out, at, at, kw);
	free(kw);
	/* `x = x.to(dev)` goes; elsewhere `x.to(dev)` becomes `x`. */
	TSNode asg = ts_node_named_child(ts, 0);
	uint32_t end;
	uint32_t start = ta_edits_stmt_lines(m, ts, &end);
	if (ta_node_is(asg, "assignment") && ta_node_text_eq(m->src, ta_node_field(asg, "left"), a->target) &&
	    ts_node_eq(ta_node_field(asg, "right"), tc) && start != UINT32_MAX) {
		ta_edit_replace(out, start, end, "");
	} else {
		ta_edit_replace(out, ts_node_start_byte(tc), ts_node_end_byte(tc), a->target);
	}
	ta_edit_set_title(out, "allocate %s on the device (device=%s) instead of copying it in %s", a->target, dev,
			  h->name);
	out->line = a->span.line;
	free(dev);
	return 0;
}

TA_EDIT_MAKER(D15)
{
	char *why = NULL;
	for (size_t hi = 0; hi < m->host_count; hi++) {
		if (kernel_or_host >= 0 && (size_t)kernel_or_host != hi)
			continue;
		const ta_host *h = &m->hosts[hi];
		for (size_t i = 0; i < h->op_count; i++) {
			const ta_host_op *a = &h->ops[i];
			if (a->kind != TA_HOST_ALLOC || a->has_device || !a->target || !ta_edits_at_line(a->span, line))
				continue;
			for (size_t j = 0; j < h->op_count; j++) {
				const ta_host_op *t = &h->ops[j];
				if (t->kind != TA_HOST_TO_DEVICE || !t->receiver || strcmp(t->receiver, a->target) ||
				    t->span.start <= a->span.start)
					continue;
				char *w = NULL;
				if (d15_one(m, h, a, t, out, &w) == 0) {
					free(why);
					return 0;
				}
				ta_edit_clear(out);
				ta_edits_keep_why(&why, w);
				break;
			}
		}
	}
	if (why) {
		*why_not = why;
		return -1;
	}
	return ta_edits_none(why_not, "no CPU allocation copied to the device afterwards%s", line ? " on that line" : "");
}

/* ---- D14 ------------------------------------------------------------------- */

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
		bound_names(m, ts_node_named_child(n, i), v, count);
}

/* The module-level statement binding name, started before off, or -1. */
static bool module_name_before(const ta_model *m, const char *name, uint32_t off)
{
	for (size_t i = 0; i < m->import_count; i++)
		if (!strcmp(m->imports[i].alias, name))
			return true;
	TSNode root = ta_syntax_root(m->syn);
	uint32_t n = ta_node_named_count(root);
	for (uint32_t i = 0; i < n; i++) {
		TSNode s = ts_node_named_child(root, i);
		if (ts_node_start_byte(s) >= off)
			break;
		TSNode d = ta_node_is(s, "decorated_definition") ? ta_node_field(s, "definition") : s;
		if ((ta_node_is(d, "function_definition") || ta_node_is(d, "class_definition")) &&
		    ta_node_text_eq(m->src, ta_node_field(d, "name"), name))
			return true;
		TSNode a = ta_node_is(s, "expression_statement") ? ts_node_named_child(s, 0) : (TSNode){ 0 };
		if (ta_node_is(a, "assignment") && ta_node_text_eq(m->src, ta_node_field(a, "left"), name))
			return true;
	}
	return false;
}

static bool module_defines(const ta_model *m, const char *name)
{
	return module_name_before(m, name, (uint32_t)m->src->len + 1);
}

static int d14_one(const ta_model *m, const ta_host *h, const ta_host_op *op, ta_edit *out, char **why)
{
	TSNode n = ta_edits_node(m, op->span);
	TSNode stmt = ta_node_ancestor(n, "expression_statement");
	TSNode asg = ts_node_is_null(stmt) ? stmt : ts_node_named_child(stmt, 0);
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
		w = ts_node_named_child(args, 0);
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

TA_EDIT_MAKER(D14)
{
	char *why = NULL;
	for (size_t hi = 0; hi < m->host_count; hi++) {
		if (kernel_or_host >= 0 && (size_t)kernel_or_host != hi)
			continue;
		const ta_host *h = &m->hosts[hi];
		if (h->span.end == 0)
			continue;
		for (size_t i = 0; i < h->op_count; i++) {
			const ta_host_op *op = &h->ops[i];
			if ((op->kind != TA_HOST_AUTOTUNE_CALL && op->kind != TA_HOST_JIT_CALL) ||
			    !ta_edits_at_line(op->span, line))
				continue;
			char *w = NULL;
			if (d14_one(m, h, op, out, &w) == 0) {
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
	return ta_edits_none(why_not, "no triton.autotune(...)(f) or triton.jit(f) inside a host function%s",
			     line ? " on that line" : "");
}
