/* The tree-sitter parse of a source, with the regions that did not parse. */
#ifndef TA_ANALYZE_SYNTAX_H
#define TA_ANALYZE_SYNTAX_H

#include <stdbool.h>
#include <stddef.h>
#include <tree_sitter/api.h>

#include "analyze/source.h"

typedef struct ta_syntax_error {
	size_t line, column;         /* 1-based start */
	size_t end_line;
	bool missing;                /* a token the parser had to invent */
	char *what;                  /* e.g. "unexpected `)`" or "missing `:`" */
} ta_syntax_error;

typedef struct ta_syntax {
	const ta_source *src;        /* borrowed: must outlive the syntax */
	TSTree *tree;
	struct ta_ts_arena *arena;  /* the tree's memory (analyze/ts_arena.h) */
	struct ta_flat *flat;       /* the tree's flat copy, once asked for (ta_syntax_flat) */
	ta_syntax_error *errors;
	size_t error_count;
	size_t error_cap;
} ta_syntax;

/* The pinned tree-sitter-python grammar compiled into the binary. */
const TSLanguage *tree_sitter_python(void);

/* Parses src. Never fails on bad Python: syntax errors become entries of
 * ->errors and the tree still holds what parsed. Returns NULL only when
 * tree-sitter itself fails (message in *err, caller frees). */
ta_syntax *ta_syntax_parse(const ta_source *src, char **err);
/* Parses only the byte ranges given (ascending, apart, each from a line's
 * start), as if they were the whole file: nodes keep the file's offsets
 * and lines (analyze/split.h makes such ranges). */
ta_syntax *ta_syntax_parse_ranges(const ta_source *src, const TSRange *ranges, size_t n, char **err);
/* Frees the tree (and the nodes' memory) but keeps the error list: for a
 * caller done with the nodes that still reports the errors (--apply keeps
 * the count while it parses the edited text: one tree at a time). */
void ta_syntax_drop_tree(ta_syntax *syn);
void ta_syntax_free(ta_syntax *syn);

TSNode ta_syntax_root(const ta_syntax *syn);
/* The tree's flat copy (analyze/flat.h), made on the first call and kept
 * with the tree: from then on ta_node_parent, ta_node_named_child and
 * ta_walk answer from it for every node of the tree. */
const struct ta_flat *ta_syntax_flat(const ta_syntax *syn);

/* Node helpers over the source text. */
char *ta_node_text(const ta_source *src, TSNode n);              /* caller frees */
bool ta_node_text_eq(const ta_source *src, TSNode n, const char *s);
size_t ta_node_line(TSNode n);                                     /* 1-based */
size_t ta_node_end_line(TSNode n);                                 /* 1-based, inclusive */
bool ta_node_is(TSNode n, const char *type);
TSNode ta_node_field(TSNode n, const char *field);
/* ts_node_child_by_field_id, from the tree's flat copy when it has one. */
TSNode ta_node_field_id(TSNode n, TSFieldId field);
/* The parent of n, or a null node when n is null (tree-sitter's own reads
 * through a null node's tree). Remembered until the tree is freed:
 * tree-sitter 0.20 finds a parent by walking down from the root. */
TSNode ta_node_parent(TSNode n);
/* ts_node_named_child, from the tree's flat copy when it has one. */
TSNode ta_node_named_child(TSNode n, uint32_t i);
/* ts_node_named_descendant_for_byte_range, remembered the same way. */
TSNode ta_node_named_at(TSNode root, uint32_t start, uint32_t end);
/* The outermost node spanning exactly [start, end) above the named one
 * there, not going up into a node of type stop (null when no named node
 * spans it); remembered the same way. */
TSNode ta_node_outermost_at(TSNode root, uint32_t start, uint32_t end, const char *stop);

/* Child counts that are 0 for a null node (tree-sitter's own read through
 * it). */
static inline uint32_t ta_node_child_count(TSNode n)
{
	return ts_node_is_null(n) ? 0 : ts_node_child_count(n);
}

static inline uint32_t ta_node_named_count(TSNode n)
{
	return ts_node_is_null(n) ? 0 : ts_node_named_child_count(n);
}
/* n without the parentheses around it: `((x))` gives x. */
static inline TSNode ta_node_unparen(TSNode n)
{
	while (ta_node_is(n, "parenthesized_expression") && ta_node_named_count(n) == 1)
		n = ta_node_named_child(n, 0);
	return n;
}
/* A list or tuple literal of one item (`[64]`, `(4,)`): a loop over it
 * takes one value. */
static inline bool ta_node_one_item_literal(TSNode n)
{
	n = ta_node_unparen(n);
	return (ta_node_is(n, "list") || ta_node_is(n, "tuple")) && ta_node_named_count(n) == 1;
}
/* The name of parameter p of a def or lambda: p itself, or the identifier
 * of `x: T`, `x=1`, `x: T = 1`; a null node for `*args`, `**kw`, `*`, `/`. */
static inline TSNode ta_node_param_name(TSNode p)
{
	if (ta_node_is(p, "identifier"))
		return p;
	if (ta_node_is(p, "typed_parameter")) {
		TSNode id = ta_node_named_count(p) ? ts_node_named_child(p, 0) : p;
		return ta_node_is(id, "identifier") ? id : (TSNode){ 0 };
	}
	if (ta_node_is(p, "default_parameter") || ta_node_is(p, "typed_default_parameter"))
		return ts_node_child_by_field_name(p, "name", 4);
	return (TSNode){ 0 };
}
/* Whether n is an expression of a tree without errors (a call, an operator,
 * a literal, a comprehension, a lambda, ...): no statement, assignment or
 * assert lies inside one, so walks looking for those pass over it. */
bool ta_node_is_expression(TSNode n);
/* The first ancestor of n (n excluded) of the given type, or a null node. */
TSNode ta_node_ancestor(TSNode n, const char *type);
/* Moves a cursor to the next node in document order, into the current
 * node's children when descend is true. Returns false once past the last
 * node of the subtree the cursor was made on (iterative: files may nest
 * thousands of levels deep). */
bool ta_cursor_next(TSTreeCursor *c, bool descend);
/* Moves a cursor to the first child of its node that ends after byte at
 * (ts_tree_cursor_goto_first_child_for_byte, less tree-sitter 0.20's stop
 * at a child that ends exactly at at). False, the cursor somewhere below,
 * when no child does. */
bool ta_cursor_child_after(TSTreeCursor *c, uint32_t at);

/* Whether an identifier with that text occurs inside n. */
bool ta_node_contains_identifier(const ta_source *src, TSNode n, const char *name);
/* The first identifier spelling name in n (pre-order), or a null node. */
TSNode ta_node_find_identifier(const ta_source *src, TSNode n, const char *name);

#endif
