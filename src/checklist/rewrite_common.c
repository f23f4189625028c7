/* Helpers shared by the edit generators. */
#include "config.h"
#include "analyze/values.h"
#include "checklist/rewrite_internal.h"
#include "util/buf.h"
#include "util/fsutil.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <libgen.h>
#include <stdio.h>
#include <sys/stat.h>

char *ta_edits_module(const ta_model *m, const char *module)
{
	/* An exact binding first: `import triton.language as tl`. */
	const char *alias = ta_index_import_of(m, module, NULL);
	if (alias)
		return ta_xstrdup(alias);
	/* Then the longest parent: `import triton` gives "triton.language". */
	char *parent = ta_xstrdup(module);
	for (char *dot; (dot = strrchr(parent, '.')) && dot > parent;) {
		*dot = '\0';
		if ((alias = ta_index_import_of(m, parent, NULL))) {
			char *r = ta_xasprintf("%s%s", alias, module + (dot - parent));
			free(parent);
			return r;
		}
	}
	free(parent);
	return NULL;
}

TSNode ta_edits_node(const ta_model *m, ta_span s)
{
	/* The outermost node with this range (the rules ask for the same
	 * spans again and again: remembered until the tree goes). */
	return ta_node_outermost_at(ta_syntax_root(m->syn), s.start, s.end, "expression_statement");
}

char *ta_edits_text(const ta_model *m, uint32_t start, uint32_t end)
{
	/* Ranges come from trees that error recovery may have bent: an empty
	 * string beats reading outside the source. */
	if (end < start || end > m->src->len)
		return ta_xstrdup("");
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
	for (TSNode p = ta_node_parent(n); !ts_node_is_null(p); n = p, p = ta_node_parent(p)) {
		if (ta_node_is(p, "expression_statement"))
			return ta_node_named_count(p) == 1 ? p : (TSNode){ 0 };
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

/* arg has its line to itself (its comma and a comment may follow): the
 * bytes of that line, newline included, in *s and *end. */
static bool drop_arg_line(const ta_model *m, TSNode arg, uint32_t *s, uint32_t *end)
{
	const char *t = m->src->text;
	uint32_t a = ts_node_start_byte(arg), z = ts_node_end_byte(arg), ls = ta_edits_line_start(m, a);
	for (uint32_t i = ls; i < a; i++)
		if (t[i] != ' ' && t[i] != '\t')
			return false;
	uint32_t i = z;
	while (i < m->src->len && (t[i] == ' ' || t[i] == '\t'))
		i++;
	if (i < m->src->len && t[i] == ',')
		i++;
	while (i < m->src->len && (t[i] == ' ' || t[i] == '\t'))
		i++;
	if (i < m->src->len && t[i] == '#')
		while (i < m->src->len && t[i] != '\n')
			i++;
	if (i < m->src->len && t[i] == '\r')
		i++;
	if (i >= m->src->len || t[i] != '\n')
		return false;
	*s = ls;
	*end = i + 1;
	return true;
}

int ta_edits_drop_arg(const ta_model *m, ta_edit *e, TSNode arg)
{
	/* a keyword on a line of its own goes with its line, and with its
	 * comment, which would otherwise be left to the argument before it */
	uint32_t ls, le;
	if (drop_arg_line(m, arg, &ls, &le))
		return ta_edit_replace(e, ls, le, "");
	TSNode prev = ts_node_prev_named_sibling(arg);
	while (!ts_node_is_null(prev) && ta_node_is(prev, "comment"))
		prev = ts_node_prev_named_sibling(prev);
	if (!ts_node_is_null(prev))
		return ta_edit_replace(e, ts_node_end_byte(prev), ts_node_end_byte(arg), "");
	TSNode next = ts_node_next_named_sibling(arg);
	if (!ts_node_is_null(next))
		return ta_edit_replace(e, ts_node_start_byte(arg), ts_node_start_byte(next), "");
	TSNode list = ta_node_parent(arg);
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

void ta_sites_refuse(ta_sites *s, char *reason)
{
	if (!s->why)
		s->why = reason;
	else
		free(reason);
}

bool ta_sites_made(ta_sites *s, int rc, char **w, ta_edit *out)
{
	if (rc == 0) {
		free(s->why);
		s->why = NULL;
		free(*w);
		*w = NULL;
		return true;
	}
	ta_edit_clear(out);
	if (rc == -2) {
		free(*w);
	} else {
		ta_sites_refuse(s, *w);
	}
	*w = NULL;
	return false;
}

int ta_sites_done(ta_sites *s)
{
	free(s->why);
	s->why = NULL;
	return 0;
}

int ta_sites_end(ta_sites *s, char **why_not, uint32_t line, const char *none)
{
	if (s->why) {
		*why_not = s->why;
		s->why = NULL;
		return -1;
	}
	return ta_edits_none(why_not, "%s%s", none, line ? " on that line" : "");
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

static void names_walk(const ta_model *m, TSNode n, char ***v, size_t *count, size_t *cap)
{
	if (ta_node_is(n, "identifier")) {
		char *t = ta_node_text(m->src, n);
		for (size_t i = 0; i < *count; i++)
			if (!strcmp((*v)[i], t)) {
				free(t);
				return;
			}
		if (*count == *cap) {
			*cap = *cap ? *cap * 2 : 8;
			*v = ta_xrealloc(*v, *cap * sizeof **v);
		}
		(*v)[(*count)++] = t;
		return;
	}
	if (ta_node_is(n, "attribute")) {
		/* `a.b`: only a is read as a name. */
		names_walk(m, ta_node_field(n, "object"), v, count, cap);
		return;
	}
	if (ta_node_is(n, "keyword_argument")) {
		names_walk(m, ta_node_field(n, "value"), v, count, cap);
		return;
	}
	uint32_t c = ta_node_named_count(n);
	for (uint32_t i = 0; i < c; i++)
		names_walk(m, ta_node_named_child(n, i), v, count, cap);
}

size_t ta_edits_names(const ta_model *m, TSNode n, char ***out)
{
	size_t count = 0, cap = 0;
	*out = NULL;
	if (!ts_node_is_null(n))
		names_walk(m, n, out, &count, &cap);
	return count;
}

void ta_edits_names_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

char *ta_edits_reindent(const char *text, const char *unit)
{
	ta_buf b = TA_BUF_INIT;
	bool bol = true;
	for (const char *p = text; *p; p++) {
		if (bol && *p != '\n' && !(*p == '\r' && p[1] == '\n'))
			ta_buf_puts(&b, unit);
		ta_buf_putc(&b, *p);
		bol = *p == '\n';
	}
	return ta_buf_steal(&b);
}

uint32_t ta_edits_stmt_lines(const ta_model *m, TSNode stmt, uint32_t *end)
{
	uint32_t s = ts_node_start_byte(stmt);
	for (uint32_t i = ta_edits_line_start(m, s); i < s; i++)
		if (m->src->text[i] != ' ' && m->src->text[i] != '\t')
			return UINT32_MAX;
	uint32_t e = ts_node_end_byte(stmt);
	for (uint32_t i = e; i < m->src->len && m->src->text[i] != '\n'; i++) {
		if (m->src->text[i] == '#')
			break;
		if (m->src->text[i] != ' ' && m->src->text[i] != '\t' && m->src->text[i] != '\r')
			return UINT32_MAX;
	}
	*end = ta_edits_line_next(m, e);
	return ta_edits_line_start(m, s);
}

/* The parameter `after` ends the list, and its line ends in `):  # ...`
 * (the def's colon, then a comment about it): a parameter added after it
 * would go before that comment. The comment stays on its line, now after
 * `after` and a comma; the new parameter and the `):` go on a line of
 * their own, aligned with the line's first parameter. Returns whether it
 * made the edit. */
static bool def_line_comment(const ta_model *m, TSNode params, TSNode after, TSNode comma, const char *name,
			     const char *ce, ta_edit *out)
{
	const char *t = m->src->text;
	uint32_t rp = ts_node_end_byte(params) - 1;
	uint32_t from = ts_node_is_null(comma) ? ts_node_end_byte(after) : ts_node_end_byte(comma);
	for (uint32_t i = from; i < rp; i++)
		if (t[i] != ' ' && t[i] != '\t')
			return false;  /* not last, or the `)` on another line */
	if (t[rp] != ')')
		return false;
	/* `)`, an optional return annotation, `:`, blanks, then `#` */
	uint32_t i = rp + 1, colon = 0;
	for (; i < m->src->len && t[i] != '\n' && t[i] != '#'; i++)
		if (t[i] == ':')
			colon = i;
	if (i >= m->src->len || t[i] != '#' || !colon)
		return false;
	for (uint32_t j = colon + 1; j < i; j++)
		if (t[j] != ' ' && t[j] != '\t')
			return false;  /* a body on the def's line */
	uint32_t eol = i;
	while (eol < m->src->len && t[eol] != '\n' && t[eol] != '\r')
		eol++;
	/* the column of the first parameter on after's line, in that line's own
	 * blanks (tabs kept) */
	uint32_t row = ts_node_start_point(after).row, first = ts_node_start_byte(after);
	for (uint32_t k = 0; k < ta_node_named_count(params); k++) {
		TSNode p = ta_node_named_child(params, k);
		if (!ta_node_is(p, "comment") && ts_node_start_point(p).row == row) {
			first = ts_node_start_byte(p);
			break;
		}
	}
	uint32_t ls = ta_edits_line_start(m, first);
	char *ind = ta_xcalloc(first - ls + 1, 1);
	for (uint32_t k = ls; k < first; k++)
		ind[k - ls] = t[k] == '\t' ? '\t' : ' ';
	char *tail = ta_xstrndup(t + rp, colon + 1 - rp);
	char *par = ta_xasprintf("%s%s%s: %s%s", m->src->crlf ? "\r\n" : "\n", ind, name, ce, tail);
	ta_edit_replace(out, from, colon + 1, ts_node_is_null(comma) ? "," : "");
	ta_edit_replace(out, eol, eol, par);
	free(par);
	free(tail);
	free(ind);
	return true;
}

int ta_edits_add_constexpr(const ta_model *m, const ta_kernel *k, const char *name, const char *dflt,
			   const char *late_dflt, ta_edit *out, char **why)
{
	/* The parameter, after the last one without a default. */
	TSNode params = ta_node_field(k->node, "parameters");
	TSNode after = { 0 }, last = { 0 };
	uint32_t index = 0, seen = 0, n = ta_node_named_count(params);
	for (uint32_t i = 0; i < n; i++) {
		TSNode p = ta_node_named_child(params, i);
		if (ta_node_is(p, "comment"))
			continue;
		if (!ta_node_is(p, "identifier") && !ta_node_is(p, "typed_parameter") &&
		    !ta_node_is(p, "default_parameter") && !ta_node_is(p, "typed_default_parameter")) {
			*why = ta_xasprintf("%s: the parameter list has *args, **kwargs or a separator", k->name);
			return -1;
		}
		seen++;
		last = p;
		if (ta_node_is(p, "identifier") || ta_node_is(p, "typed_parameter")) {
			after = p;
			index = seen;
		}
	}
	/* Parameters with defaults follow: a launch elsewhere may pass them by
	 * position, so the new one goes after them all, with late_dflt. */
	if (late_dflt && !ts_node_is_null(last) && !ts_node_eq(last, after)) {
		after = last;
		index = seen;
		dflt = late_dflt;
	}
	if (ts_node_is_null(after)) {
		*why = ta_xasprintf("%s: every parameter has a default", k->name);
		return -1;
	}
	/* A launch passing more positional arguments would shift them. */
	ta_launch_walk walk = ta_index_launch_walk(m, (int)(k - m->kernels));
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		if (l->arg_count > index) {
			*why = ta_xasprintf("line %u: the launch passes %zu positional arguments, past where %s goes",
					    l->span.line, l->arg_count, name);
			return -1;
		}
	}
	char *ce = ta_edits_module(m, "triton.language.constexpr");
	if (!ce) {
		*why = ta_xstrdup("the file does not import triton.language");
		return -1;
	}
	if (dflt) {  /* `NAME: tl.constexpr = dflt`: launches that do not pass it keep working */
		char *with = ta_xasprintf("%s = %s", ce, dflt);
		free(ce);
		ce = with;
	}
	/* A comment ending the parameter's line describes that parameter: the
	 * new one goes on a line of its own after it, not before it. */
	TSNode nx = ts_node_next_sibling(after);
	bool comma = !ts_node_is_null(nx) && !ts_node_is_named(nx) && ta_node_is(nx, ",");
	TSNode cm = comma ? ts_node_next_sibling(nx) : nx;
	if (!ts_node_is_null(cm) && ta_node_is(cm, "comment") &&
	    ts_node_start_point(cm).row == ts_node_end_point(after).row) {
		char *ind = ta_edits_indent_at(m, ts_node_start_byte(after));
		uint32_t col = ts_node_start_point(after).column;
		if (strlen(ind) != col) {  /* not first on its line: under it */
			free(ind);
			ind = ta_xcalloc(col + 1, 1);
			memset(ind, ' ', col);
		}
		const char *nl = m->src->crlf ? "\r\n" : "\n";
		char *par = ta_xasprintf("%s%s%s: %s%s", nl, ind, name, ce, comma ? "," : "");
		if (!comma)
			ta_edit_replace(out, ts_node_end_byte(after), ts_node_end_byte(after), ",");
		ta_edit_replace(out, ts_node_end_byte(cm), ts_node_end_byte(cm), par);
		free(par);
		free(ind);
		free(ce);
		return 0;
	}
	if (def_line_comment(m, params, after, comma ? nx : (TSNode){ 0 }, name, ce, out)) {
		free(ce);
		return 0;
	}
	char *par = ta_xasprintf(", %s: %s", name, ce);
	ta_edit_replace(out, ts_node_end_byte(after), ts_node_end_byte(after), par);
	free(par);
	free(ce);
	return 0;
}

/* A positional argument (index) or keyword argument (kw) of a call. */
TSNode ta_edits_call_arg(const ta_model *m, TSNode call, uint32_t index, const char *kw)
{
	TSNode args = ta_node_field(call, "arguments");
	uint32_t pos = 0, n = ta_node_named_count(args);
	for (uint32_t i = 0; i < n; i++) {
		TSNode a = ta_node_named_child(args, i);
		if (ta_node_is(a, "comment"))
			continue;
		if (ta_node_is(a, "keyword_argument")) {
			if (kw && ta_node_text_eq(m->src, ta_node_field(a, "name"), kw))
				return ta_node_field(a, "value");
			continue;
		}
		if (pos++ == index)
			return a;
	}
	return (TSNode){ 0 };
}

/* ---- shared by several entries ---------------------------------------- */

bool ta_edits_host_selected(int kernel_or_host, size_t h)
{
	return kernel_or_host < 0 || (size_t)kernel_or_host == h;
}

bool ta_edits_kernel_selected(int kernel_or_host, size_t k)
{
	return kernel_or_host < 0 || (size_t)kernel_or_host == k;
}

int ta_edits_each_op(const ta_model *m, int kernel_or_host, uint32_t line, ta_edits_op_pick pick, ta_edits_op_fn one,
		     ta_edit *out, char **why_not, const char *none)
{
	ta_sites s = TA_SITES_INIT;
	for (size_t k = 0; k < m->kernel_count; k++) {
		if (!ta_edits_kernel_selected(kernel_or_host, k))
			continue;
		const ta_kernel *kn = &m->kernels[k];
		for (size_t i = 0; i < kn->op_count; i++) {
			if (!ta_edits_at_line(kn->ops[i].span, line) || !pick(m, kn, &kn->ops[i]))
				continue;
			char *w = NULL;
			if (ta_sites_made(&s, one(m, kn, &kn->ops[i], out, &w), &w, out))
				return 0;
		}
	}
	return ta_sites_end(&s, why_not, line, none);
}

int ta_edits_each_host_op(const ta_model *m, int kernel_or_host, uint32_t line, ta_edits_host_op_pick pick,
			  ta_edits_host_op_fn one, ta_edit *out, char **why_not, const char *none)
{
	ta_sites s = TA_SITES_INIT;
	for (size_t h = 0; h < m->host_count; h++) {
		if (!ta_edits_host_selected(kernel_or_host, h))
			continue;
		const ta_host *hf = &m->hosts[h];
		for (size_t i = 0; i < hf->op_count; i++) {
			if (!ta_edits_at_line(hf->ops[i].span, line) || !pick(m, hf, &hf->ops[i]))
				continue;
			char *w = NULL;
			if (ta_sites_made(&s, one(m, hf, &hf->ops[i], out, &w), &w, out))
				return 0;
		}
	}
	return ta_sites_end(&s, why_not, line, none);
}

bool ta_edits_word_in(const char *s, size_t n, const char *w)
{
	size_t wl = strlen(w);
	for (size_t i = 0; i + wl <= n; i++) {
		if (memcmp(s + i, w, wl) != 0)
			continue;
		bool l = i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_');
		bool r = i + wl == n || !(isalnum((unsigned char)s[i + wl]) || s[i + wl] == '_');
		if (l && r)
			return true;
	}
	return false;
}

/* A function or module-level name the file already defines. */
bool ta_edits_defined(const ta_model *m, const char *name)
{
	return ta_index_function(m, name) || ta_index_module_assign(m, name) != UINT32_MAX;
}

/* Inserts text before the line of a module-level definition at off. */
int ta_edits_before_def(const ta_model *m, uint32_t off, const char *text, ta_edit *out)
{
	uint32_t s = ta_edits_line_start(m, off);
	if (s != off)
		return -1;
	return ta_edit_replace(out, s, s, text);
}

static bool word_byte(char c)
{
	return isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80;
}

/* name is bound or read anywhere in the file: some identifier spells it
 * (the model's table of them, built once: a walk of the tree, or a search
 * of the text, per name made the analysis grow with kernels x lines). */
bool ta_edits_name_taken(const ta_model *m, const char *name)
{
	return ta_index_identifier(m, name);
}

bool ta_edits_reads_in(const ta_model *m, uint32_t start, uint32_t end, const char *name)
{
	TSNode root = ta_syntax_root(m->syn);
	size_t n = strlen(name);
	for (size_t at = ta_edits_next_word(m, start, name); at != SIZE_MAX && at + n <= end;
	     at = ta_edits_next_word(m, at + 1, name)) {
		TSNode id = ts_node_named_descendant_for_byte_range(root, (uint32_t)at, (uint32_t)(at + n));
		if (ta_node_is(id, "identifier") && ts_node_start_byte(id) == at && ts_node_end_byte(id) == at + n)
			return true;
	}
	return false;
}

size_t ta_edits_next_word(const ta_model *m, size_t from, const char *name)
{
	const char *text = m->src->text, *end = text + m->src->len;
	size_t n = strlen(name);
	for (const char *p = text + from; n && p < end && (p = memmem(p, (size_t)(end - p), name, n)); p++)
		if ((p == text || !word_byte(p[-1])) && (p + n == end || !word_byte(p[n])))
			return (size_t)(p - text);
	return SIZE_MAX;
}

/* 1 for x[:, None] (rows), 2 for x[None, :] (columns), -1 for any other
 * subscript that adds an axis, 0 for anything else. */
int ta_edits_bcast_kind(const ta_model *m, TSNode n)
{
	if (!ta_node_is(n, "subscript"))
		return 0;
	TSNode v = ta_node_field(n, "value");
	char buf[24];
	size_t k = 0;
	bool none = false;
	for (uint32_t i = ts_node_end_byte(v); i < ts_node_end_byte(n); i++) {
		char ch = m->src->text[i];
		if (isspace((unsigned char)ch))
			continue;
		if (k + 1 < sizeof buf)
			buf[k++] = ch;
		else
			none = true;  /* too long for either form */
	}
	buf[k] = '\0';
	if (!none && !strcmp(buf, "[:,None]"))
		return 1;
	if (!none && !strcmp(buf, "[None,:]"))
		return 2;
	return none || strstr(buf, "None") ? -1 : 0;
}

/* Calls that change a tile's shape or layout: the swap cannot see through. */
bool ta_edits_reshaping_call(const ta_model *m, TSNode call)
{
	static const char *const names[] = { "expand_dims", "broadcast_to", "broadcast", "reshape", "view",
					     "trans", "permute", "join", "split", "interleave", NULL };
	TSNode fn = ta_node_field(call, "function");
	TSNode last = ta_node_is(fn, "attribute") ? ta_node_field(fn, "attribute") : fn;
	for (size_t i = 0; names[i]; i++)
		if (ta_node_text_eq(m->src, last, names[i]))
			return true;
	return false;
}

/* Which broadcasts n holds: bit 1 rows, bit 2 columns, bit 4 something
 * else two-dimensional (other axes, reshapes, transposes). */
int ta_edits_bcast_mask(const ta_model *m, TSNode n)
{
	int k = ta_edits_bcast_kind(m, n);
	if (k < 0)
		return 4;
	int r = k > 0 ? 1 << (k - 1) : 0;
	if (ta_node_is(n, "call") && ta_edits_reshaping_call(m, n))
		r |= 4;
	if (ta_node_is(n, "attribute") && ta_node_text_eq(m->src, ta_node_field(n, "attribute"), "T"))
		r |= 4;
	uint32_t c = ta_node_named_count(n);
	for (uint32_t i = 0; i < c; i++)
		r |= ta_edits_bcast_mask(m, ta_node_named_child(n, i));
	return r;
}

static bool ident_byte(unsigned char ch)
{
	return isalnum(ch) || ch == '_' || ch >= 0x80;
}

/* Whether the identifier node at [s, e) lies in n where the count below
 * reaches it: followed down from n by the children that hold s, through an
 * attribute's object only and a keyword argument's value only (named
 * children only: an unnamed one is a token). One cursor, kept. */
static bool ident_reached(TSNode n, uint32_t s, uint32_t e)
{
	static _Thread_local TSTreeCursor c;
	static _Thread_local bool made;
	static _Thread_local TSFieldId object_f, value_f;
	if (!made) {
		const TSLanguage *l = ts_tree_language(n.tree);
		object_f = ts_language_field_id_for_name(l, "object", 6);
		value_f = ts_language_field_id_for_name(l, "value", 5);
		c = ts_tree_cursor_new(n);
		made = true;
	} else {
		ts_tree_cursor_reset(&c, n);
	}
	for (TSNode cur = n;;) {
		if (ta_node_is(cur, "identifier"))
			return ts_node_start_byte(cur) == s && ts_node_end_byte(cur) == e;
		bool attr = ta_node_is(cur, "attribute"), kwarg = ta_node_is(cur, "keyword_argument");
		if (!ta_cursor_child_after(&c, s))
			return false;
		cur = ts_tree_cursor_current_node(&c);
		if (!ts_node_is_named(cur) || ts_node_start_byte(cur) > s || ts_node_end_byte(cur) < e)
			return false;
		if ((attr && ts_tree_cursor_current_field_id(&c) != object_f) ||
		    (kwarg && ts_tree_cursor_current_field_id(&c) != value_f))
			return false;
	}
}

/* Occurrences of the identifier name in n (not after a dot, not keyword
 * names). Found from the text rather than by a walk of n: each place the
 * name is written in n's span and not inside a longer word is followed down
 * to the node there (a kernel's body is a few thousand nodes; a name is
 * written in it a few times). */
size_t ta_edits_ident_count(const ta_model *m, TSNode n, const char *name)
{
	size_t len = strlen(name);
	if (ts_node_is_null(n) || !len)
		return 0;
	const char *t = m->src->text;
	size_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	if (b > m->src->len)
		b = m->src->len;
	size_t count = 0;
	for (size_t o = a; o + len <= b;) {
		const char *p = memmem(t + o, b - o, name, len);
		if (!p)
			break;
		o = (size_t)(p - t);
		/* a letter or '_' before, or any word character after, makes the
		 * lexer read a longer token (a digit before is left to the tree) */
		bool bounded = (o == 0 || !(isalpha((unsigned char)t[o - 1]) || t[o - 1] == '_' ||
					    (unsigned char)t[o - 1] >= 0x80)) &&
			       (o + len >= m->src->len || !ident_byte((unsigned char)t[o + len]));
		if (bounded && ident_reached(n, (uint32_t)o, (uint32_t)(o + len)))
			count++;
		o++;
	}
	return count;
}

void ta_edits_find_defs(const ta_model *m, TSNode n, const char *name, ta_edits_defs *d)
{
	/* The model's binding nodes inside n, in document order (n included):
	 * no walk of n per name. */
	if (ts_node_is_null(n))
		return;
	size_t first, count = ta_model_refs_within(m->bind_nodes, m->bind_node_count, n, &first);
	for (size_t i = first; i < first + count; i++) {
		TSNode b = m->bind_nodes[i].node;
		TSNode target = ta_node_field(b, ta_node_is(b, "named_expression") ? "name" : "left");
		if (!ts_node_is_null(target) && ta_node_contains_identifier(m->src, target, name)) {
			if (d->n < sizeof d->v / sizeof *d->v)
				d->v[d->n++] = b;
			else
				d->more = true;
		}
	}
}

/* The terms of a chain of one binary operator ("+", "&"), left to right;
 * a parenthesised term stays whole. */
size_t ta_edits_chain_rec(const ta_model *m, TSNode n, const char *op, TSNode *terms, size_t max)
{
	if (ta_node_is(n, "binary_operator") && ta_node_text_eq(m->src, ta_node_field(n, "operator"), op)) {
		size_t l = ta_edits_chain_rec(m, ta_node_field(n, "left"), op, terms, max);
		if (l == 0 || l >= max)
			return 0;
		terms[l] = ta_node_field(n, "right");
		return l + 1;
	}
	if (max == 0)
		return 0;
	terms[0] = n;
	return 1;
}

size_t ta_edits_chain_terms(const ta_model *m, TSNode n, const char *op, TSNode *terms, size_t max)
{
	return ta_edits_chain_rec(m, ta_node_unparen(n), op, terms, max);
}

/* ---- a call that may launch one of several kernels ------------------------ */

int ta_edits_launch_alone(const ta_model *m, const ta_launch *l, char **why_not)
{
	if (!l->only_if)
		return 0;
	/* The same sentence from each kernel's finding at that call: the
	 * kernels it may run, in the model's order. */
	ta_buf names = TA_BUF_INIT;
	size_t n = 0;
	for (size_t i = 0; i < m->launch_count; i++)
		if (m->launches[i].span.start == l->span.start) {
			const char *k = m->kernels[m->launches[i].kernel].name;
			ta_buf_printf(&names, "%s%s", n ? " or " : "", k);
			n++;
		}
	int rc = n > 1 ? ta_edits_refuse(why_not, "line %u: the call may launch %s: an edit to it would change the "
					 "launch of each", l->span.line, ta_buf_str(&names))
		       : ta_edits_refuse(why_not, "line %u: the call launches %s only when %s, and something else "
					 "otherwise: an edit to the call would change that too", l->span.line,
					 m->kernels[l->kernel].name, l->only_if);
	ta_buf_free(&names);
	return rc;
}

/* ---- the Triton version a project declares ------------------------------ */

/* The lowest version `triton<op>X.Y` in text allows (==, ~=, >=, ===; a
 * bare `triton` or only an upper bound allows any); 0 when text names
 * triton with such a lower bound, with *major, *minor and the spec. */
static int lowest(const char *text, int *major, int *minor, char *spec, size_t spec_n)
{
	for (const char *p = text; (p = strstr(p, "triton")); p += 6) {
		if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '-' || p[-1] == '_'))
			continue;   /* pytorch-triton, triton_kernels... */
		const char *q = p + 6;
		if (isalnum((unsigned char)*q) || *q == '-' || *q == '_' || *q == '.')
			continue;
		while (*q == ' ')
			q++;
		const char *op = q;
		while (*q && strchr("=~>!<", *q))
			q++;
		size_t ol = (size_t)(q - op);
		if (!(ol == 2 && (!strncmp(op, "==", 2) || !strncmp(op, "~=", 2) || !strncmp(op, ">=", 2))) &&
		    !(ol == 3 && !strncmp(op, "===", 3)))
			continue;
		while (*q == ' ')
			q++;
		int a = 0, b = 0;
		if (sscanf(q, "%d.%d", &a, &b) < 1)
			continue;
		*major = a;
		*minor = b;
		size_t n = strcspn(p, "\"',;\n\r#");
		snprintf(spec, spec_n, "%.*s", (int)(n < spec_n ? n : spec_n - 1), p);
		return 0;
	}
	return -1;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	ta_buf b = TA_BUF_INIT;
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len < (1u << 20))
		ta_buf_append(&b, chunk, n);
	fclose(f);
	return ta_buf_steal(&b);
}

/* The declared requirement found first going up from dir: requirements*.txt,
 * pyproject.toml, setup.py, stopping after the folder that holds .git. */
static int find_declared(const char *dir0, int *major, int *minor, char *spec, size_t spec_n, char **where)
{
	char *dir = realpath(dir0, NULL);
	for (int depth = 0; dir && depth < 32; depth++) {
		static const char *const fixed[] = { "pyproject.toml", "setup.py", NULL };
		DIR *d = opendir(dir);
		struct dirent *e;
		int found = -1;
		while (d && found != 0 && (e = readdir(d))) {
			bool req = !strncmp(e->d_name, "requirements", 12) && strstr(e->d_name, ".txt");
			for (size_t i = 0; !req && fixed[i]; i++)
				req = !strcmp(e->d_name, fixed[i]);
			if (!req)
				continue;
			char *p = ta_path_join(dir, e->d_name);
			char *t = slurp(p);
			if (t && lowest(t, major, minor, spec, spec_n) == 0) {
				found = 0;
				*where = p;
				p = NULL;
			}
			free(t);
			free(p);
		}
		if (d)
			closedir(d);
		if (found == 0) {
			free(dir);
			return 0;
		}
		char *git = ta_path_join(dir, ".git");
		struct stat st;
		bool root = stat(git, &st) == 0 || !strcmp(dir, "/");
		free(git);
		if (root)
			break;
		char *up = ta_xstrdup(dir);
		char *parent = ta_xstrdup(dirname(up));
		free(up);
		free(dir);
		dir = parent;
	}
	free(dir);
	return -1;
}

/* The lower bound the project around m's file declares: 0 with *major,
 * *minor, spec and *where (caller frees), or -1 when it declares none. */
static int declared(const ta_model *m, int *major, int *minor, char *spec, size_t spec_n, char **where)
{
	*where = NULL;
	if (!m->src->path)
		return -1;
	char *p = ta_xstrdup(m->src->path);
	char *dir = ta_xstrdup(dirname(p));
	free(p);
	int rc = find_declared(dir, major, minor, spec, spec_n, where);
	free(dir);
	return rc;
}

int ta_edits_triton_at_least(const ta_model *m, int major, int minor, const char *what, char **why_not)
{
	int a, b;
	char spec[64], *where = NULL;
	int rc = 0;
	if (declared(m, &a, &b, spec, sizeof spec, &where) == 0 && (a < major || (a == major && b < minor)))
		rc = ta_edits_refuse(why_not, "%s declares %s, and %s needs Triton %d.%d or newer", where, spec, what,
				     major, minor);
	free(where);
	return rc;
}

int ta_edits_need_triton(const ta_model *m, int major, int minor, const char *what, ta_edit *out, char **why_not)
{
	int a, b;
	char spec[64], *where = NULL;
	int found = declared(m, &a, &b, spec, sizeof spec, &where);
	free(where);
	if (found == 0)
		return ta_edits_triton_at_least(m, major, minor, what, why_not);
	/* Nothing declared: the edit holds only where the Triton it runs on
	 * has what, an assumption stated after the edit's own. */
	const ta_entry_def *d = ta_entry_find(out->id);
	const char *own = out->unsafe ? out->unsafe :
			  d && d->rewrite->safety == TA_FIX_UNSAFE ? d->rewrite->assumes : NULL;
	char *both = own ? ta_xasprintf("%s, and Triton %d.%d or newer (%s)", own, major, minor, what)
			 : ta_xasprintf("assumes Triton %d.%d or newer (%s)", major, minor, what);
	ta_edit_set_unsafe(out, "%s", both);
	free(both);
	return 0;
}

/* ---- what launches pass -------------------------------------------------- */

char *ta_edits_launch_arg(const ta_model *m, const ta_launch *l, const ta_kernel *k, size_t i)
{
	if (i < l->arg_count)
		return ta_node_text(m->src, ta_edits_node(m, l->args[i]));
	const ta_kwarg *kw = ta_kwarg_find(l->kwargs, l->kwarg_count, k->params[i].name);
	return kw ? ta_xstrdup(kw->value) : NULL;
}

bool ta_edits_rounds(const ta_model *m, const ta_kernel *k, size_t ki, size_t si, size_t j)
{
	size_t seen = 0, rounded = 0;
	ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		seen++;
		char *len = ta_edits_launch_arg(m, l, k, si), *key = ta_edits_launch_arg(m, l, k, j);
		if (len && key && *len && ta_edits_word_in(key, strlen(key), len) &&
		    (strstr(key, "//") || strstr(key, "<<") || strstr(key, ">>") || strstr(key, "power_of_2") ||
		     strstr(key, "round") || strstr(key, "bit_length")))
			rounded++;
		free(len);
		free(key);
	}
	return seen && rounded == seen;
}

TSNode ta_edits_launch_arg_node(const ta_model *m, const ta_launch *l, const ta_kernel *k, size_t idx)
{
	return ta_values_launch_arg(m, l, k, idx, NULL);
}

TSNode ta_edits_configs_node(const ta_model *m, const ta_autotune *at)
{
	if (at->configs_kind == TA_CONFIGS_LIST || at->configs_kind == TA_CONFIGS_COMPREHENSION)
		return ta_edits_node(m, at->configs_span);
	if (!at->configs_function && at->configs_kind != TA_CONFIGS_NAME)
		return (TSNode){ 0 };
	char *want = at->configs_function ? ta_xstrdup(at->configs_function) : ta_edits_text(m, at->configs_span.start,
												      at->configs_span.end);
	TSNode root = ta_syntax_root(m->syn), hit = { 0 };
	for (uint32_t i = 0; i < ts_node_named_child_count(root) && ts_node_is_null(hit); i++) {
		TSNode n = ta_node_named_child(root, i);
		if (ta_node_is(n, "decorated_definition"))
			n = ta_node_field(n, "definition");
		if (ta_node_is(n, "expression_statement"))
			n = ta_node_named_child(n, 0);
		TSNode name = ta_node_is(n, "function_definition") ? ta_node_field(n, "name") :
			      ta_node_is(n, "assignment") ? ta_node_field(n, "left") : (TSNode){ 0 };
		if (!ts_node_is_null(name) && ta_node_text_eq(m->src, name, want))
			hit = n;
	}
	free(want);
	return hit;
}

/* See rewrite_internal.h. */
uint32_t ta_edits_under_spin_lock(const ta_model *m, TSNode n)
{
	for (TSNode p = ta_node_parent(n); !ts_node_is_null(p) && !ta_node_is(p, "function_definition");
	     n = p, p = ta_node_parent(p)) {
		if (!ta_node_is(p, "block"))
			continue;
		for (uint32_t i = 0; i < ts_node_named_child_count(p); i++) {
			TSNode st = ts_node_named_child(p, i);
			if (ts_node_start_byte(st) >= ts_node_start_byte(n))
				break;
			if (!ta_node_is(st, "while_statement"))
				continue;
			TSNode cond = ta_node_field(st, "condition");
			if (ta_edits_reads_in(m, ts_node_start_byte(cond), ts_node_end_byte(cond), "atomic_cas"))
				return ts_node_start_point(st).row + 1;
		}
	}
	return 0;
}
