#include "config.h"
#include "analyze/syntax.h"
#include "analyze/flat.h"
#include "analyze/grammar.h"
#include "analyze/ts_arena.h"
#include "util/buf.h"
#include "util/cpu_budget.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ta_node_field's and ta_node_parent's answers, kept until a tree is freed: tree-sitter 0.20
 * finds a child by field by walking the children from the first (about 600
 * instructions), and the model and the rules ask for the same few fields of
 * the same nodes again and again (the function of a call, the left and
 * right of an assignment). A node is known by its tree, its subtree and its
 * start, which no two live nodes share; ta_syntax_free starts a new
 * generation, so no answer outlives its tree. The analysis runs on one
 * thread. */
enum { FIELD_MEMO = 4096 };
static struct field_memo {
	const void *id;
	const TSTree *tree;
	uint32_t start, alias;
	unsigned gen;
	TSFieldId field;
	TSNode child;
} field_memo[FIELD_MEMO];
static unsigned field_gen = 1;

static void add_error(ta_syntax *syn, TSNode n, bool missing)
{
	const ta_source *src = syn->src;
	ta_syntax_error *e = TA_PUSH(syn->errors, syn->error_count, syn->error_cap);
	uint32_t start = ts_node_start_byte(n);
	e->line = ta_node_line(n);
	e->column = ta_source_column_of(src, start);
	e->end_line = ta_node_end_line(n);
	e->missing = missing;
	if (missing) {
		e->what = ta_xasprintf("missing `%s`", ts_node_type(n));
	} else {
		/* Quote the first token the parser could not place. */
		size_t len;
		const char *line = ta_source_line(src, e->line, &len);
		size_t off = start - (size_t)(line - src->text);
		size_t n_tok = 0;
		while (off + n_tok < len && n_tok < 24 && line[off + n_tok] != ' ')
			n_tok++;
		if (n_tok)
			e->what = ta_xasprintf("cannot parse `%.*s`", (int)n_tok, line + off);
		else
			e->what = ta_xstrdup("cannot parse this line");
	}
}

/* tree-sitter-python (0.23 and 0.25 alike) rejects a starred item that is
 * not a plain name in a bare return or yield tuple, `return dx, *[None] * 10`,
 * which Python accepts since 3.8. Such an ERROR is valid code when the same
 * items parse as a parenthesised tuple: the error is not the user's. */
static bool starred_return(TSNode n, const ta_source *src)
{
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	const char *t = src->text + a;
	size_t len = b - a;
	size_t kw = len > 7 && !strncmp(t, "return ", 7) ? 7 : len > 6 && !strncmp(t, "yield ", 6) ? 6 : 0;
	if (!kw || !memchr(t, '*', len) || memchr(t, '#', len))
		return false;
	char *probe = ta_xasprintf("(%.*s)\n", (int)(len - kw), t + kw);
	TSParser *parser = ts_parser_new();
	bool ok = false;
	if (ts_parser_set_language(parser, tree_sitter_python())) {
		TSTree *tree = ts_parser_parse_string(parser, NULL, probe, (uint32_t)strlen(probe));
		if (tree) {
			ok = !ts_node_has_error(ts_tree_root_node(tree));
			ts_tree_delete(tree);
		}
	}
	ts_parser_delete(parser);
	free(probe);
	return ok;
}

/* Walks the tree iteratively (files may nest thousands of levels deep) and
 * records the outermost ERROR and every MISSING node. */
static void collect_errors(ta_syntax *syn)
{
	TSNode root = ts_tree_root_node(syn->tree);
	if (!ts_node_has_error(root))
		return;
	TSTreeCursor c = ts_tree_cursor_new(root);
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&c);
		bool descend = ts_node_has_error(n);
		if (!strcmp(ts_node_type(n), "ERROR")) {
			if (!starred_return(n, syn->src))
				add_error(syn, n, false);
			descend = false;
		} else if (ts_node_is_missing(n)) {
			add_error(syn, n, true);
			descend = false;
		}
		if (!ta_cursor_next(&c, descend))
			break;
	}
	ts_tree_cursor_delete(&c);
}

bool ta_cursor_next(TSTreeCursor *c, bool descend)
{
	if (descend && ts_tree_cursor_goto_first_child(c))
		return true;
	while (!ts_tree_cursor_goto_next_sibling(c))
		if (!ts_tree_cursor_goto_parent(c))
			return false;
	return true;
}

bool ta_cursor_child_after(TSTreeCursor *c, uint32_t at)
{
	if (ts_tree_cursor_goto_first_child_for_byte(c, at) < 0)
		return false;
	while (ts_node_end_byte(ts_tree_cursor_current_node(c)) <= at)
		if (!ts_tree_cursor_goto_next_sibling(c))
			return false;
	return true;
}

ta_syntax *ta_syntax_parse(const ta_source *src, char **err)
{
	return ta_syntax_parse_ranges(src, NULL, 0, err);
}

/* How long tree-sitter may take on a file of LEN bytes, in microseconds of
 * the parsing thread's CPU time.
 * Python code parses at about 0.3 µs a byte (a 15 MB file in 5 s); error
 * recovery on bytes that are not Python can cost tens of µs a byte and
 * grows faster than the input (a fuzzed 233 KB file took 2.6 s). The budget,
 * 1 s and 8 µs a byte, is some 25 times what code takes, so that only such
 * input reaches it. TILEADVISE_PARSE_BUDGET_MS sets it (the tests). */
static uint64_t parse_budget_us(size_t len)
{
	const char *e = getenv("TILEADVISE_PARSE_BUDGET_MS");
	char *end;
	unsigned long long ms = e && *e ? strtoull(e, &end, 10) : 0;
	if (e && *e && !*end && ms)
		return (uint64_t)ms * 1000;
	return 1000000 + (uint64_t)len * 8;
}

ta_syntax *ta_syntax_parse_ranges(const ta_source *src, const TSRange *ranges, size_t n, char **err)
{
	*err = NULL;
	/* The parser and the tree live in an arena of their own. */
	ta_ts_arena *arena = ta_ts_arena_begin();
	TSParser *parser = ts_parser_new();
	if (!ts_parser_set_language(parser, ta_grammar_python())) {
		ts_parser_delete(parser);
		ta_ts_arena_end();
		ta_ts_arena_free(arena);
		*err = ta_xstrdup("the built-in Python grammar is incompatible with this tree-sitter library (rebuild tileadvise)");
		return NULL;
	}
	TSTree *tree = NULL;
	uint64_t budget = parse_budget_us(src->len);
	/* The budget is CPU time, counted by a watchdog: a wall-clock limit
	 * would let a busy machine (a test suite running beside) turn a file
	 * near the budget into a parse error now and then. The wall clock
	 * stays as a backstop, eight times as long, where no watchdog can be
	 * had. */
	size_t stop = 0;
	ta_cpu_budget *watch = ta_cpu_budget_start(&stop, budget);
	ts_parser_set_cancellation_flag(parser, &stop);
	ts_parser_set_timeout_micros(parser, watch ? budget * 8 : budget);
	bool ranged = !n || ts_parser_set_included_ranges(parser, ranges, (uint32_t)n);
	if (ranged)
		tree = ts_parser_parse_string(parser, NULL, src->text, (uint32_t)src->len);
	ta_cpu_budget_finish(watch);
	ts_parser_delete(parser);
	ta_ts_arena_end();
	if (!tree) {
		ta_ts_arena_free(arena);
		if (ranged)
			*err = ta_xasprintf("%s: parsing stopped after %.3g s of CPU time, far longer than Python code of "
					    "this size takes (%zu KB): is it a Python source file? Give the "
					    "kernel file alone",
					    src->path, (double)budget / 1e6, (src->len + 1023) / 1024);
		else
			*err = ta_xasprintf("%s: the parser gave up on this file", src->path);
		return NULL;
	}
	ta_syntax *syn = ta_xcalloc(1, sizeof *syn);
	syn->src = src;
	syn->tree = tree;
	syn->arena = arena;
	collect_errors(syn);
	return syn;
}

void ta_syntax_drop_tree(ta_syntax *syn)
{
	if (!syn || !syn->tree)
		return;
	field_gen++;   /* the tree's nodes go: forget what ta_node_field said of them */
	ta_flat_free(syn->flat);
	syn->flat = NULL;
	if (syn->arena)
		ta_ts_arena_free(syn->arena);   /* the tree with it, unwalked */
	else
		ts_tree_delete(syn->tree);
	syn->arena = NULL;
	syn->tree = NULL;
}

void ta_syntax_free(ta_syntax *syn)
{
	if (!syn)
		return;
	for (size_t i = 0; i < syn->error_count; i++)
		free(syn->errors[i].what);
	free(syn->errors);
	ta_syntax_drop_tree(syn);
	free(syn);
}

TSNode ta_syntax_root(const ta_syntax *syn)
{
	return ts_tree_root_node(syn->tree);
}

const struct ta_flat *ta_syntax_flat(const ta_syntax *syn)
{
	/* a cache of the tree, which the syntax owns: made through the const
	 * pointer the analysis hands around */
	ta_syntax *own = (ta_syntax *)syn;
	if (!own->flat && own->tree)
		own->flat = ta_flat_build(ts_tree_root_node(own->tree));
	return own->flat;
}

char *ta_node_text(const ta_source *src, TSNode n)
{
	if (ts_node_is_null(n))
		return ta_xstrdup("");
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	if (b > src->len)
		b = (uint32_t)src->len;
	if (a > b)
		a = b;
	return ta_xstrndup(src->text + a, b - a);
}

bool ta_node_text_eq(const ta_source *src, TSNode n, const char *s)
{
	if (ts_node_is_null(n))
		return false;
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	size_t l = strlen(s);
	return b - a == l && b <= src->len && memcmp(src->text + a, s, l) == 0;
}

size_t ta_node_line(TSNode n)
{
	return ts_node_start_point(n).row + 1;
}

size_t ta_node_end_line(TSNode n)
{
	TSPoint p = ts_node_end_point(n);
	/* A node ending at column 0 ends on the previous line. */
	if (p.column == 0 && p.row > ts_node_start_point(n).row)
		return p.row;
	return p.row + 1;
}

bool ta_node_is(TSNode n, const char *type)
{
	if (!n.id)   /* ts_node_is_null */
		return false;
	/* most tests fail on the first letter: no call to strcmp then */
	const char *t = ta_flat_type(n);
	return t == type || (t[0] == type[0] && strcmp(t, type) == 0);
}

/* field 0 (no field has it) stands for the parent */
static TSNode child_by_field(TSNode n, TSFieldId field)
{
	if (field) {
		const ta_flat *f = ta_flat_of(n);
		uint32_t at = f ? ta_flat_index(f, n) : TA_FLAT_NONE;
		if (at != TA_FLAT_NONE) {
			uint32_t c = ta_flat_field_child(f, at, field);
			return c == TA_FLAT_NONE ? (TSNode){ 0 } : ta_flat_node_at(f, c);
		}
	}
	size_t h = (((uintptr_t)n.id >> 3) * 31 + field) % FIELD_MEMO;
	struct field_memo *e = &field_memo[h];
	if (e->gen == field_gen && e->id == n.id && e->tree == n.tree && e->start == n.context[0] &&
	    e->alias == n.context[3] && e->field == field)
		return e->child;
	TSNode c = field ? ts_node_child_by_field_id(n, field) : ts_node_parent(n);
	*e = (struct field_memo){ .id = n.id, .tree = n.tree, .start = n.context[0], .alias = n.context[3],
				  .gen = field_gen, .field = field, .child = c };
	return c;
}

TSNode ta_node_field_id(TSNode n, TSFieldId field)
{
	return ts_node_is_null(n) || !field ? (TSNode){ 0 } : child_by_field(n, field);
}

TSNode ta_node_parent(TSNode n)
{
	if (ts_node_is_null(n))
		return n;
	const ta_flat *f = ta_flat_of(n);
	uint32_t i = f ? ta_flat_index(f, n) : TA_FLAT_NONE;
	if (i != TA_FLAT_NONE) {
		uint32_t p = f->nodes[i].parent;
		return p == TA_FLAT_NONE ? (TSNode){ 0 } : ta_flat_node_at(f, p);
	}
	return child_by_field(n, 0);
}

TSNode ta_node_named_child(TSNode n, uint32_t i)
{
	const ta_flat *f = ta_flat_of(n);
	uint32_t at = f ? ta_flat_index(f, n) : TA_FLAT_NONE;
	if (at == TA_FLAT_NONE)
		return ts_node_named_child(n, i);
	uint32_t c = ta_flat_named_child(f, at, i);
	return c == TA_FLAT_NONE ? (TSNode){ 0 } : ta_flat_node_at(f, c);
}

TSNode ta_node_named_at(TSNode root, uint32_t start, uint32_t end)
{
	/* the same table, as a lookup under root of no field (0xFFFF), the
	 * range's end where a node's alias goes */
	const TSFieldId range = 0xFFFF;
	size_t h = (((uintptr_t)root.id >> 3) * 31 + start * 7 + end) % FIELD_MEMO;
	struct field_memo *e = &field_memo[h];
	if (e->gen == field_gen && e->id == root.id && e->tree == root.tree && e->start == start &&
	    e->alias == end && e->field == range)
		return e->child;
	TSNode c = ta_flat_named_descendant(root, start, end);
	*e = (struct field_memo){ .id = root.id, .tree = root.tree, .start = start, .alias = end,
				  .gen = field_gen, .field = range, .child = c };
	return c;
}

/* ta_node_outermost_at in one descent from root with a kept cursor, the
 * ancestors on the way kept: ts_node_named_descendant_for_byte_range and
 * then ts_node_parent each walk down from the root again (tree-sitter 0.20).
 * At each level the first child ending after start is the only one that can
 * hold the range, as in tree-sitter's own search. False where the cursor
 * cannot tell (its search found no child): the caller asks the slow way. */
static bool outermost_by_descent(TSNode root, uint32_t start, uint32_t end, const char *stop, TSNode *out)
{
	static _Thread_local TSTreeCursor c;
	static _Thread_local bool made;
	static _Thread_local TSNode *path;
	static _Thread_local size_t cap;
	/* the tree's arrays read directly where their layout is known (a
	 * tenth of the cursor's cost), else the cursor */
	const ta_flat *f = ta_flat_layout_known() ? ta_flat_of(root) : NULL;
	bool by_layout = f != NULL;
	if (!by_layout && !made) {
		c = ts_tree_cursor_new(root);
		made = true;
	} else if (!by_layout) {
		ts_tree_cursor_reset(&c, root);
	}
	size_t depth = 0;
	uint32_t at = TA_FLAT_NONE;   /* path[depth]'s index in f, past the root */
	ta_grow((void **)&path, &cap, 1, sizeof *path);
	path[0] = root;
	for (;;) {
		if (!ts_node_child_count(path[depth]))
			break;
		TSNode ch;
		if (by_layout) {
			/* as ta_cursor_child_after: the first child ending
			 * after start, found in the copy by a binary search */
			uint32_t i = depth ? at : ta_flat_index(f, path[depth]);
			uint32_t ci = i == TA_FLAT_NONE ? TA_FLAT_NONE : ta_flat_child_after(f, i, start);
			if (ci == TA_FLAT_NONE)
				return false;
			ch = ta_flat_node_at(f, ci);
			at = ci;
		} else {
			if (!ta_cursor_child_after(&c, start))
				return false;
			ch = ts_tree_cursor_current_node(&c);
		}
		if (ts_node_start_byte(ch) > start || ts_node_end_byte(ch) < end)
			break;
		depth++;
		ta_grow((void **)&path, &cap, depth + 1, sizeof *path);
		path[depth] = ch;
	}
	size_t d = depth + 1;
	while (d > 0 && !ts_node_is_named(path[d - 1]))
		d--;
	TSNode n = { 0 };
	if (d > 0 && ts_node_start_byte(path[d - 1]) == start && ts_node_end_byte(path[d - 1]) == end) {
		d--;
		while (d > 0 && ts_node_start_byte(path[d - 1]) == start && ts_node_end_byte(path[d - 1]) == end &&
		       !ta_node_is(path[d - 1], stop))
			d--;
		n = path[d];
	}
	*out = n;
	return true;
}

TSNode ta_node_outermost_at(TSNode root, uint32_t start, uint32_t end, const char *stop)
{
	/* remembered in the same table, under root as a lookup of field 0xFFFE */
	const TSFieldId outer = 0xFFFE;
	size_t h = (((uintptr_t)root.id >> 3) * 31 + start * 7 + end * 3 + 1) % FIELD_MEMO;
	struct field_memo *e = &field_memo[h];
	if (e->gen == field_gen && e->id == root.id && e->tree == root.tree && e->start == start &&
	    e->alias == end && e->field == outer)
		return e->child;
	TSNode n;
	if (!outermost_by_descent(root, start, end, stop, &n)) {
		n = ta_node_named_at(root, start, end);
		if (ts_node_is_null(n) || ts_node_start_byte(n) != start || ts_node_end_byte(n) != end) {
			n = (TSNode){ 0 };
		} else {
			for (TSNode p = ta_node_parent(n); !ts_node_is_null(p) && ts_node_start_byte(p) == start &&
			     ts_node_end_byte(p) == end && !ta_node_is(p, stop); p = ta_node_parent(p))
				n = p;
		}
	}
	*e = (struct field_memo){ .id = root.id, .tree = root.tree, .start = start, .alias = end,
				  .gen = field_gen, .field = outer, .child = n };
	return n;
}

TSNode ta_node_field(TSNode n, const char *field)
{
	if (ts_node_is_null(n))
		return n;
	/* Looking a field up by name scans the grammar's names every time, so
	 * remember the ids (slot chosen by the name's address, checked by
	 * content). With 64 slots by the address's low bits 8% of the 93,000
	 * look-ups over the 64 files of tests/bench/astgrep.sh missed (800
	 * instructions each); with 256 by a multiplicative hash, 18 did. */
	enum { SLOTS = 256, NAME_MAX_LEN = 31 };
	static _Thread_local struct { char name[NAME_MAX_LEN + 1]; TSFieldId id; } cache[SLOTS];
	size_t h = (size_t)(((uintptr_t)field * 0x9E3779B97F4A7C15ull) >> 56) % SLOTS;
	if (strcmp(cache[h].name, field) != 0) {
		size_t len = strlen(field);
		TSFieldId id = ts_language_field_id_for_name(tree_sitter_python(), field, (uint32_t)len);
		if (!id || len > NAME_MAX_LEN)
			return ts_node_child_by_field_name(n, field, (uint32_t)len);
		memcpy(cache[h].name, field, len + 1);
		cache[h].id = id;
	}
	return child_by_field(n, cache[h].id);
}

bool ta_node_is_expression(TSNode n)
{
	static const char *const kinds[] = {
		"call", "argument_list", "attribute", "subscript", "slice", "binary_operator",
		"unary_operator", "boolean_operator", "not_operator", "comparison_operator",
		"conditional_expression", "parenthesized_expression", "expression_list", "list", "tuple",
		"set", "dictionary", "pair", "list_comprehension", "set_comprehension",
		"dictionary_comprehension", "generator_expression", "lambda", "keyword_argument",
		"named_expression", "await", "string", "concatenated_string", "integer", "float",
		"identifier", "true", "false", "none", "comment", NULL,
	};
	/* one flag per symbol, made once per run */
	static _Thread_local bool *table;
	static _Thread_local uint32_t count;
	if (!table) {
		const TSLanguage *l = tree_sitter_python();
		count = ts_language_symbol_count(l);
		table = ta_xcalloc(count ? count : 1, sizeof *table);
		for (size_t i = 0; kinds[i]; i++) {
			TSSymbol s = ts_language_symbol_for_name(l, kinds[i], (uint32_t)strlen(kinds[i]), true);
			if (s && s < count)
				table[s] = true;
		}
	}
	if (ts_node_is_null(n) || !ts_node_is_named(n) || ts_node_has_error(n))
		return false;
	TSSymbol s = ts_node_symbol(n);
	return s < count && table[s];
}

TSNode ta_node_ancestor(TSNode n, const char *type)
{
	for (TSNode p = ta_node_parent(n); !ts_node_is_null(p); p = ta_node_parent(p))
		if (strcmp(ts_node_type(p), type) == 0)
			return p;
	TSNode null = { 0 };
	return null;
}

TSNode ta_node_find_identifier(const ta_source *src, TSNode n, const char *name)
{
	TSNode found = { 0 };
	if (ts_node_is_null(n))
		return found;
	TSTreeCursor c = ts_tree_cursor_new(n);
	for (;;) {
		TSNode cur = ts_tree_cursor_current_node(&c);
		if (ta_node_is(cur, "identifier") && ta_node_text_eq(src, cur, name)) {
			found = cur;
			break;
		}
		if (!ta_cursor_next(&c, true))
			break;
	}
	ts_tree_cursor_delete(&c);
	return found;
}

bool ta_node_contains_identifier(const ta_source *src, TSNode n, const char *name)
{
	return !ts_node_is_null(ta_node_find_identifier(src, n, name));
}
