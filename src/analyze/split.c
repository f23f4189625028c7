/* A large file cut into parts of whole top-level statements (see split.h). */
#include "config.h"
#include "analyze/split.h"
#include "analyze/namemap.h"
#include "analyze/syntax.h"
#include "util/buf.h"

#include <stdbool.h>
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { SEG_NONE, SEG_IMPORT, SEG_DEF, SEG_OTHER };

typedef struct seg {
	uint32_t start, end;      /* from a line's start to the next segment's */
	int kind;
	bool foreign;             /* a def under a decorator not Triton's */
	int parent;               /* union-find */
	size_t first, count;      /* its names in mentions[] */
} seg;

typedef struct name {
	int binder;               /* a segment defining it, -1 none */
	int stamp;                /* the last segment that listed it */
} name;

typedef struct splitter {
	const ta_source *src;
	seg *segs;
	size_t nseg, segcap;
	ta_namemap index;         /* a name's text -> its entry in names[] */
	name *names;
	size_t nname, namecap;
	uint32_t *mentions;       /* entries of names[], per segment */
	size_t nment, mentcap;
} splitter;

/* ---- candidate cuts: lines where a top-level statement may start ---------- */

static bool starts_word(const char *t, size_t n, const char *w)
{
	size_t l = strlen(w);
	if (n < l || memcmp(t, w, l))
		return false;
	char c = n > l ? t[l] : ' ';
	return !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'));
}

/* Lines at depth 0, outside strings, not continued by a backslash, that
 * start with code, are not an else/elif/except/finally and do not follow a
 * decorator. A wrong guess only costs the split: the parse checks it. */
static void find_cuts(splitter *s)
{
	const char *t = s->src->text;
	size_t len = s->src->len, i = 0;
	int depth = 0;
	char quote = 0;
	bool triple = false, cont = false, after_decorator = false;
	while (i < len) {
		if (!quote && !depth && !cont && !strchr(" \t\r\n\f#", t[i])) {
			const char *l = t + i;
			size_t n = len - i;
			if (t[i] == '@') {
				if (!after_decorator)
					TA_PUSH(s->segs, s->nseg, s->segcap)->start = (uint32_t)i;
				after_decorator = true;
			} else {
				if (!after_decorator && !starts_word(l, n, "else") && !starts_word(l, n, "elif") &&
				    !starts_word(l, n, "except") && !starts_word(l, n, "finally"))
					TA_PUSH(s->segs, s->nseg, s->segcap)->start = (uint32_t)i;
				after_decorator = false;
			}
		}
		cont = false;
		while (i < len && t[i] != '\n') {
			char c = t[i];
			if (quote) {
				if (c == '\\') {
					i += 2;
				} else if (c == quote && (!triple || (i + 2 < len && t[i + 1] == c && t[i + 2] == c))) {
					i += triple ? 3 : 1;
					quote = 0;
				} else {
					i++;
				}
				continue;
			}
			if (c == '#') {
				while (i < len && t[i] != '\n')
					i++;
				break;
			}
			if (c == '"' || c == '\'') {
				triple = i + 2 < len && t[i + 1] == c && t[i + 2] == c;
				quote = c;
				i += triple ? 3 : 1;
				continue;
			}
			if (c == '(' || c == '[' || c == '{')
				depth++;
			else if ((c == ')' || c == ']' || c == '}') && depth > 0)
				depth--;
			else if (c == '\\' && i + 1 < len && (t[i + 1] == '\n' || t[i + 1] == '\r'))
				cont = true;
			i++;
		}
		if (quote && !triple)
			quote = 0;    /* an unclosed string: the parse will say */
		i++;
	}
	for (size_t k = 0; k < s->nseg; k++)
		s->segs[k].end = k + 1 < s->nseg ? s->segs[k + 1].start : (uint32_t)len;
	if (s->nseg)
		s->segs[0].start = 0;   /* leading comments go with the first statement */
}

/* ---- names ------------------------------------------------------------------- */

/* The entry in names[] of the name at [off, off + len) of the text, made
 * on its first mention. */
static size_t name_index(splitter *s, uint32_t off, uint32_t len)
{
	const char *t = s->src->text + off;
	const ta_namemap_slot *e = ta_namemap_find(&s->index, t, len);
	if (e)
		return e->value;
	ta_namemap_add(&s->index, t, len, (uint32_t)s->nname);
	*TA_PUSH(s->names, s->nname, s->namecap) = (name){ .binder = -1, .stamp = -1 };
	return s->nname - 1;
}

static int find(seg *segs, int i)
{
	while (segs[i].parent != i) {
		segs[i].parent = segs[segs[i].parent].parent;
		i = segs[i].parent;
	}
	return i;
}

static void unite(seg *segs, int a, int b)
{
	a = find(segs, a);
	b = find(segs, b);
	if (a != b)
		segs[a > b ? a : b].parent = a < b ? a : b;   /* the earlier segment leads */
}

static void bind(splitter *s, size_t ni, int si)
{
	if (s->names[ni].binder < 0)
		s->names[ni].binder = si;
	else
		unite(s->segs, s->names[ni].binder, si);
}

/* Where a name is bound by a statement that is not a def: the field of
 * the parent a node sits in (`x` of `x = ...`, of `for x in`, `as x`...). */
static bool binding_field(const char *parent, const char *field)
{
	if (!field)
		return false;
	if (!strcmp(field, "left"))
		return !strcmp(parent, "assignment") || !strcmp(parent, "augmented_assignment") ||
		       !strcmp(parent, "for_statement") || !strcmp(parent, "for_in_clause");
	if (!strcmp(field, "name"))
		return !strcmp(parent, "named_expression") || !strcmp(parent, "function_definition") ||
		       !strcmp(parent, "class_definition") || !strcmp(parent, "import_statement") ||
		       !strcmp(parent, "import_from_statement") || !strcmp(parent, "aliased_import");
	if (!strcmp(field, "alias"))
		return true;
	return false;
}

static bool ends_word(const char *t, size_t n, const char *w)
{
	size_t l = strlen(w);
	return n >= l && !memcmp(t + n - l, w, l) && (n == l || !(t[n - l - 1] == '_' || isalnum((unsigned char)t[n - l - 1])));
}

/* Inside a def, what the model resolves by name across the whole file:
 * a nested def or class (its kernel-name table holds every kernel, nested
 * ones too), and a variable anywhere that may alias a kernel (`k = fn`,
 * `k = triton.jit(fn)`). */
static void bind_def_names(splitter *s, TSNode cur, const char *type, int si)
{
	TSNode id = { 0 };
	if (!strcmp(type, "function_definition") || !strcmp(type, "class_definition")) {
		id = ta_node_field(cur, "name");
	} else if (!strcmp(type, "assignment")) {
		TSNode r = ta_node_unparen(ta_node_field(cur, "right"));
		bool alias = ta_node_is(r, "identifier");
		if (ta_node_is(r, "call")) {
			TSNode f = ta_node_field(r, "function");
			if (ta_node_is(f, "call"))
				f = ta_node_field(f, "function");
			const char *t = s->src->text + ts_node_start_byte(f);
			size_t n = ts_node_end_byte(f) - ts_node_start_byte(f);
			alias = ends_word(t, n, "jit") || ends_word(t, n, "autotune") || ends_word(t, n, "heuristics") ||
				(n >= 11 && !memcmp(t + n - 11, "wrap_triton", 11)) || !ta_node_is(f, "attribute");
		}
		if (alias)
			id = ta_node_field(cur, "left");
	}
	if (!ta_node_is(id, "identifier"))
		return;
	uint32_t a = ts_node_start_byte(id);
	size_t ni = name_index(s, a, ts_node_end_byte(id) - a);
	bind(s, ni, si);
}

/* Every identifier of statement n, listed once for segment si; with
 * bind_names, those it binds (assignment targets, loop variables, nested
 * defs and imports, `global` names) define them for si. */
static void list_names(splitter *s, TSNode n, int si, bool bind_names)
{
	TSTreeCursor c = ts_tree_cursor_new(n);
	const char **types = NULL;
	size_t depth = 0, cap = 0;
	long bind_at = -1;            /* depth where a binding subtree began */
	for (;;) {
		TSNode cur = ts_tree_cursor_current_node(&c);
		const char *type = ts_node_type(cur);
		if (bind_names && bind_at < 0 && depth > 0 &&
		    (binding_field(types[depth - 1], ts_tree_cursor_current_field_name(&c)) ||
		     !strcmp(types[depth - 1], "global_statement") || !strcmp(types[depth - 1], "nonlocal_statement")))
			bind_at = (long)depth;
		if (!bind_names)
			bind_def_names(s, cur, type, si);
		if (!strcmp(type, "identifier")) {
			uint32_t a = ts_node_start_byte(cur), b = ts_node_end_byte(cur);
			size_t ni = name_index(s, a, b - a);
			if (s->names[ni].stamp != si) {
				s->names[ni].stamp = si;
				*TA_PUSH(s->mentions, s->nment, s->mentcap) = (uint32_t)ni;
				s->segs[si].count++;
			}
			if (bind_at >= 0)
				bind(s, ni, si);
		}
		if (ts_tree_cursor_goto_first_child(&c)) {
			if (depth == cap) {
				cap = cap ? cap * 2 : 64;
				types = ta_xrealloc(types, cap * sizeof *types);
			}
			types[depth++] = type;
			continue;
		}
		for (;;) {
			if (bind_at == (long)depth)
				bind_at = -1;
			if (ts_tree_cursor_goto_next_sibling(&c))
				break;
			if (!depth || !ts_tree_cursor_goto_parent(&c))
				goto done;
			depth--;
		}
	}
done:
	free(types);
	ts_tree_cursor_delete(&c);
}

static bool tritonish(const ta_source *src, TSNode decorator)
{
	const char *t = src->text + ts_node_start_byte(decorator) + 1;
	size_t n = ts_node_end_byte(decorator) - ts_node_start_byte(decorator) - 1;
	while (n && (*t == ' ' || *t == '\t'))
		t++, n--;
	return starts_word(t, n, "triton") || starts_word(t, n, "jit") || starts_word(t, n, "autotune") ||
	       starts_word(t, n, "heuristics");
}

/* A def wrapped by a decorator that is not Triton's (a project's own
 * launcher): P1's edits look at every such kernel of the file at once.
 * 1: beside a Triton decorator, a kernel for sure; 2: alone, a kernel if
 * a module-level statement jits it. */
static int foreign_decorator(const ta_source *src, TSNode dd)
{
	bool foreign = false, triton = false;
	for (uint32_t i = 0; i < ta_node_named_count(dd); i++) {
		TSNode d = ta_node_named_child(dd, i);
		if (!ta_node_is(d, "decorator"))
			continue;
		if (tritonish(src, d))
			triton = true;
		else
			foreign = true;
	}
	return !foreign ? 0 : triton ? 1 : 2;
}

static TSPoint point_of(const ta_source *src, uint32_t off)
{
	size_t line = ta_source_line_of(src, off);
	return (TSPoint){ .row = (uint32_t)(line - 1), .column = (uint32_t)(off - src->line_starts[line - 1]) };
}

static TSRange range_of(const ta_source *src, uint32_t a, uint32_t b)
{
	return (TSRange){ .start_point = point_of(src, a), .end_point = point_of(src, b),
			  .start_byte = a, .end_byte = b };
}

/* Parses segments [a, b) as one run: whole statements, no error, each
 * statement inside one segment. Notes kinds, definitions and mentions. */
static bool read_run(splitter *s, size_t a, size_t b)
{
	TSRange r = range_of(s->src, s->segs[a].start, s->segs[b - 1].end);
	char *err = NULL;
	ta_syntax *syn = ta_syntax_parse_ranges(s->src, &r, 1, &err);
	free(err);
	if (!syn)
		return false;
	TSNode root = ta_syntax_root(syn);
	bool ok = !syn->error_count;   /* what ta_syntax forgives, too */

	size_t si = a;
	uint32_t n = ta_node_named_count(root);
	for (uint32_t i = 0; ok && i < n; i++) {
		TSNode st = ta_node_named_child(root, i);
		const char *type = ts_node_type(st);
		if (!strcmp(type, "comment"))
			continue;
		uint32_t start = ts_node_start_byte(st), end = ts_node_end_byte(st);
		while (si < b && start >= s->segs[si].end)
			si++;
		if (si == b || start < s->segs[si].start || end > s->segs[si].end) {
			ok = false;
			break;
		}
		seg *g = &s->segs[si];
		int kind = SEG_OTHER;
		if (!strcmp(type, "import_statement") || !strcmp(type, "import_from_statement") ||
		    !strcmp(type, "future_import_statement"))
			kind = SEG_IMPORT;
		else if (!strcmp(type, "function_definition") || !strcmp(type, "class_definition") ||
			 !strcmp(type, "decorated_definition"))
			kind = SEG_DEF;
		g->kind = g->kind == SEG_NONE || g->kind == kind ? kind : SEG_OTHER;
		if (kind == SEG_IMPORT)
			continue;
		if (g->count == 0)
			g->first = s->nment;
		list_names(s, st, (int)si, kind == SEG_OTHER);
		if (kind == SEG_DEF) {
			TSNode def = ta_node_is(st, "decorated_definition") ? ta_node_field(st, "definition") : st;
			TSNode id = ta_node_field(def, "name");
			int foreign = ta_node_is(st, "decorated_definition") ? foreign_decorator(s->src, st) : 0;
			if (ts_node_is_null(id) || foreign == 1) {
				ok = false;
				break;
			}
			g->foreign |= foreign == 2;
			bind(s, name_index(s, ts_node_start_byte(id), ts_node_end_byte(id) - ts_node_start_byte(id)), (int)si);
		}
	}
	ta_syntax_free(syn);
	return ok;
}

void ta_split_free(ta_split_part *parts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(parts[i].ranges);
	free(parts);
}

static void add_range(const ta_source *src, ta_split_part *p, size_t *cap, uint32_t a, uint32_t b)
{
	if (p->range_count && p->ranges[p->range_count - 1].end_byte == a) {
		p->ranges[p->range_count - 1] = range_of(src, p->ranges[p->range_count - 1].start_byte, b);
		return;
	}
	*TA_PUSH(p->ranges, p->range_count, *cap) = range_of(src, a, b);
}

size_t ta_split(const ta_source *src, size_t part_bytes, ta_split_part **out)
{
	*out = NULL;
	if (src->len <= part_bytes)
		return 0;
	splitter s = { .src = src };
	find_cuts(&s);
	size_t nparts = 0;
	ta_split_part *parts = NULL;
	size_t import_bytes = 0;
	bool ok = s.nseg > 1;
	for (size_t i = 0; i < s.nseg; i++)
		s.segs[i].parent = (int)i;
	/* Read the statements one run of about part_bytes at a time. */
	for (size_t a = 0; ok && a < s.nseg;) {
		size_t b = a + 1;
		while (b < s.nseg && s.segs[b].end - s.segs[a].start <= part_bytes)
			b++;
		ok = read_run(&s, a, b);
		a = b;
	}
	if (!ok)
		goto done;
	/* Statements that are neither defs nor imports go together; a
	 * segment joins whatever defines a name it mentions. */
	int other = -1;
	for (size_t i = 0; i < s.nseg; i++) {
		seg *g = &s.segs[i];
		if (g->kind == SEG_IMPORT)
			import_bytes += g->end - g->start;
		if (g->kind != SEG_OTHER)
			continue;
		if (other < 0)
			other = (int)i;
		unite(s.segs, other, (int)i);
	}
	for (size_t i = 0; i < s.nseg; i++) {
		seg *g = &s.segs[i];
		for (size_t j = 0; j < g->count; j++) {
			int d = s.names[s.mentions[g->first + j]].binder;
			if (d >= 0)
				unite(s.segs, (int)i, d);
		}
	}
	/* triton.set_allocator serves every kernel of the file that makes
	 * tensor descriptors (G7): those go with every statement that names
	 * it; an import of either name would hide them. */
	int alloc = -1;
	for (size_t i = 0; i < s.nseg; i++) {
		const char *t = src->text + s.segs[i].start;
		size_t n = s.segs[i].end - s.segs[i].start;
		if (!memmem(t, n, "set_allocator", 13) && !memmem(t, n, "make_tensor_descriptor", 22))
			continue;
		if (s.segs[i].kind == SEG_IMPORT)
			goto done;
		if (alloc < 0)
			alloc = (int)i;
		unite(s.segs, alloc, (int)i);
	}
	/* A torch.autograd.Function anywhere in the file changes what P1's
	 * edit may assume of every launch (autograd checks the versions of the
	 * tensors it saved): such a file is analysed whole. */
	for (size_t i = 0; i < s.nseg; i++)
		if (memmem(src->text + s.segs[i].start, s.segs[i].end - s.segs[i].start, "autograd", 8))
			goto done;
	/* A def under a foreign decorator that module-level code may jit. */
	for (size_t i = 0; other >= 0 && i < s.nseg; i++)
		if (s.segs[i].foreign && find(s.segs, (int)i) == find(s.segs, other))
			goto done;
	/* Groups in the order of their first segment, packed into parts. */
	int *part_of = ta_xmalloc(s.nseg * sizeof *part_of);
	size_t cur = 0, filled = 0;
	for (size_t i = 0; i < s.nseg; i++) {
		int r = find(s.segs, (int)i);
		if (r == (int)i) {
			if (filled >= part_bytes) {
				cur++;
				filled = 0;
			}
			part_of[i] = (int)cur;
		} else {
			part_of[i] = part_of[r];   /* r < i: already placed */
		}
		if (s.segs[i].kind != SEG_IMPORT)
			filled += s.segs[i].end - s.segs[i].start;
	}
	nparts = filled ? cur + 1 : cur;
	/* Every part parses the imports again: not when they would cost more
	 * than the file itself. */
	if (nparts < 2 || import_bytes * nparts > src->len) {
		nparts = 0;
		free(part_of);
		goto done;
	}
	parts = ta_xcalloc(nparts, sizeof *parts);
	size_t *caps = ta_xcalloc(nparts, sizeof *caps);
	for (size_t i = 0; i < s.nseg; i++) {
		uint32_t a = s.segs[i].start, b = s.segs[i].end;
		if (s.segs[i].kind == SEG_IMPORT) {
			for (size_t p = 0; p < nparts; p++)
				add_range(src, &parts[p], &caps[p], a, b);
		} else {
			add_range(src, &parts[part_of[i]], &caps[part_of[i]], a, b);
		}
	}
	free(caps);
	free(part_of);
done:
	free(s.segs);
	ta_namemap_free(&s.index);
	free(s.names);
	free(s.mentions);
	*out = parts;
	return nparts;
}
