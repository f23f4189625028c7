/* Helpers shared by the edit generators. */
#include "config.h"
#include "advise/edits/edits.h"
#include "util/buf.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

char *ta_edits_module(const ta_model *m, const char *module)
{
	/* An exact binding first: `import triton.language as tl`. */
	for (size_t i = 0; i < m->import_count; i++)
		if (!strcmp(m->imports[i].target, module))
			return ta_xstrdup(m->imports[i].alias);
	/* Then a parent: `import triton` gives "triton.language". */
	size_t best = 0;
	const ta_import *bi = NULL;
	for (size_t i = 0; i < m->import_count; i++) {
		const char *t = m->imports[i].target;
		size_t n = strlen(t);
		if (n < strlen(module) && !strncmp(module, t, n) && module[n] == '.' && n > best) {
			best = n;
			bi = &m->imports[i];
		}
	}
	return bi ? ta_xasprintf("%s%s", bi->alias, module + best) : NULL;
}

TSNode ta_edits_node(const ta_model *m, ta_span s)
{
	TSNode n = ts_node_named_descendant_for_byte_range(ta_syntax_root(m->syn), s.start, s.end);
	if (ts_node_is_null(n) || ts_node_start_byte(n) != s.start || ts_node_end_byte(n) != s.end)
		return (TSNode){ 0 };
	/* The outermost node with this range. */
	for (TSNode p = ts_node_parent(n); !ts_node_is_null(p) && ts_node_start_byte(p) == s.start &&
	     ts_node_end_byte(p) == s.end && !ta_node_is(p, "expression_statement"); p = ts_node_parent(p))
		n = p;
	return n;
}

char *ta_edits_text(const ta_model *m, uint32_t start, uint32_t end)
{
	return ta_xstrndup(m->src->text + start, end - start);
}

uint32_t ta_edits_line_start(const ta_model *m, uint32_t off)
{
	while (off > 0 && m->src->text[off - 1] != '\n')
		off--;
	return off;
}

uint32_t ta_edits_line_next(const ta_model *m, uint32_t off)
{
	while (off < m->src->len && m->src->text[off] != '\n')
		off++;
	return off < m->src->len ? off + 1 : off;
}

char *ta_edits_indent_at(const ta_model *m, uint32_t off)
{
	uint32_t s = ta_edits_line_start(m, off), e = s;
	while (e < m->src->len && (m->src->text[e] == ' ' || m->src->text[e] == '\t'))
		e++;
	return ta_edits_text(m, s, e);
}

const char *ta_edits_indent_unit(const ta_model *m, const char *base)
{
	const char *k = m->kernel_count ? m->kernels[0].indent : NULL;
	char want = base[0] ? base[0] : (k && k[0] ? k[0] : ' ');
	if (k && k[0] == want)
		return k;
	return want == '\t' ? "\t" : "    ";
}

bool ta_edits_alone_on_line(const ta_model *m, TSNode n, bool allow_comment)
{
	const char *t = m->src->text;
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	for (uint32_t i = ta_edits_line_start(m, s); i < s; i++)
		if (t[i] != ' ' && t[i] != '\t')
			return false;
	for (uint32_t i = e; i < m->src->len && t[i] != '\n'; i++) {
		if (t[i] == '#' && allow_comment)
			return true;
		if (t[i] != ' ' && t[i] != '\t' && t[i] != '\r')
			return false;
	}
	return true;
}

TSNode ta_edits_statement(TSNode n)
{
	for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); n = p, p = ts_node_parent(p)) {
		if (ta_node_is(p, "expression_statement"))
			return ts_node_named_child_count(p) == 1 ? p : (TSNode){ 0 };
		/* Only through the assignment itself: not out of a call. */
		if (!ta_node_is(p, "assignment") && !ta_node_is(p, "augmented_assignment"))
			return (TSNode){ 0 };
	}
	return (TSNode){ 0 };
}

bool ta_edits_at_line(ta_span site, uint32_t line)
{
	return line == 0 || (site.line <= line && line <= site.end_line);
}

int ta_edits_drop_arg(ta_edit *e, TSNode arg)
{
	TSNode prev = ts_node_prev_named_sibling(arg);
	while (!ts_node_is_null(prev) && ta_node_is(prev, "comment"))
		prev = ts_node_prev_named_sibling(prev);
	if (!ts_node_is_null(prev))
		return ta_edit_replace(e, ts_node_end_byte(prev), ts_node_end_byte(arg), "");
	TSNode next = ts_node_next_named_sibling(arg);
	if (!ts_node_is_null(next))
		return ta_edit_replace(e, ts_node_start_byte(arg), ts_node_start_byte(next), "");
	TSNode list = ts_node_parent(arg);
	return ta_edit_replace(e, ts_node_start_byte(arg), ts_node_end_byte(list) - 1, "");
}

int ta_edits_refuse(char **why_not, const char *fmt, ...)
{
	ta_buf b = TA_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	ta_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	*why_not = ta_buf_steal(&b);
	return -1;
}

int ta_edits_none(char **why_not, const char *fmt, ...)
{
	ta_buf b = TA_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	ta_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	*why_not = ta_buf_steal(&b);
	return -2;
}
