/* A flat copy of a parse tree: its visible nodes in document order, each
 * with its parent and the end of its subtree, made in one cursor walk.
 * tree-sitter 0.20's node API walks the tree again for each answer: a cursor
 * step costs about 500 instructions over Python's hidden nodes, the i-th
 * named child scans the children from the first, a parent walks down from
 * the root. The model and the rules ask such questions hundreds of
 * thousands of times a file; the copy answers them by index. */
#ifndef TA_ANALYZE_FLAT_H
#define TA_ANALYZE_FLAT_H

#include <stdbool.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#define TA_FLAT_NONE UINT32_MAX

typedef struct ta_flat_node {
	uint32_t context[4];   /* the TSNode's own, as tree-sitter made it */
	const void *id;
	uint32_t parent;       /* index, TA_FLAT_NONE at the root */
	uint32_t end;          /* one past its subtree's last node */
	TSSymbol symbol;
	TSFieldId field;       /* the field it hangs from, 0 for none */
	bool named;
} ta_flat_node;

typedef struct ta_flat {
	const TSTree *tree;
	ta_flat_node *nodes;
	uint32_t count;
	uint32_t *slots;       /* node index + 1 by the node's id; 0 empty */
	uint32_t mask;
	struct ta_flat *next_live;
	/* The named children of the nodes asked for a later one
	 * (ta_flat_named_child), made on first asking: kids_slots by node
	 * index (open addressing), each a run of kids_pool. */
	struct ta_flat_kids *kids_slots;
	uint32_t kids_mask, kids_used;
	uint32_t *kids_pool;
	size_t kids_len, kids_cap;
} ta_flat;

/* Copies the tree under root (a tree's root node) and makes the copy the
 * one ta_flat_of finds for that tree on this thread until ta_flat_free. */
ta_flat *ta_flat_build(TSNode root);
/* The same, made by tree-sitter's cursor or by reading the tree's arrays
 * (analyze/ts_layout.h); ta_flat_build reads the arrays once the first copy
 * of the process came out the same both ways. */
ta_flat *ta_flat_build_by(TSNode root, bool by_layout);
void ta_flat_free(ta_flat *f);
/* ts_node_type(n), read from the node itself once the layout is known. */
const char *ta_flat_type(TSNode n);
/* Whether the tree's arrays may be read directly (analyze/ts_layout.h):
 * the process's first copy came out the same both ways. */
bool ta_flat_layout_known(void);
/* Where ta_flat_layout_known: the node a cursor on n reaches with
 * ts_tree_cursor_goto_first_child_for_byte(goal), false where it fails. */
bool ta_flat_child_for_byte(TSNode n, uint32_t goal, TSNode *out);
/* The first child (named or not) of node index at that ends after byte
 * goal, or TA_FLAT_NONE: a binary search over at's subtree, so that a
 * block of thousands of statements is not scanned child by child. */
uint32_t ta_flat_child_after(const ta_flat *f, uint32_t at, uint32_t goal);
/* ts_node_named_descendant_for_byte_range(n, start, end), read from the
 * tree's arrays once the layout is known to be the runtime's. */
TSNode ta_flat_named_descendant(TSNode n, uint32_t start, uint32_t end);
/* The live copy of n's tree, or NULL (a tree nobody copied: callers then
 * ask tree-sitter). */
const ta_flat *ta_flat_of(TSNode n);
/* n's index in f, or TA_FLAT_NONE when n is not one of f's nodes. */
uint32_t ta_flat_index(const ta_flat *f, TSNode n);

static inline TSNode ta_flat_node_at(const ta_flat *f, uint32_t i)
{
	const ta_flat_node *e = &f->nodes[i];
	TSNode n = { { e->context[0], e->context[1], e->context[2], e->context[3] }, e->id, f->tree };
	return n;
}

/* The first child of node index at hanging from field (not 0), or
 * TA_FLAT_NONE: ts_node_child_by_field_id's answer. */
uint32_t ta_flat_field_child(const ta_flat *f, uint32_t at, TSFieldId field);
/* The i-th named child of node index at, or TA_FLAT_NONE. A loop over a
 * node's named children is linear in their number: past the first few, a
 * node's named children are listed once and read by index. */
uint32_t ta_flat_named_child(const ta_flat *f, uint32_t at, uint32_t i);

/* A walk over a node's subtree in document order: over the flat copy when
 * the tree has one, else with tree-sitter's cursor. */
typedef struct ta_walk {
	const ta_flat *flat;
	uint32_t at, start, end;   /* the flat walk: the current node, the first, the subtree's end */
	TSTreeCursor cursor;   /* the other */
} ta_walk;

void ta_walk_start(ta_walk *w, TSNode n);
void ta_walk_finish(ta_walk *w);
TSNode ta_walk_node(const ta_walk *w);
/* The node's symbol when named, else 0. */
TSSymbol ta_walk_named_symbol(const ta_walk *w);
/* The field the current node hangs from (0 for the node the walk started
 * at, as with a cursor made on it). */
TSFieldId ta_walk_field(const ta_walk *w);
/* To the next node in document order, into the current node's children
 * when descend; false past the subtree's last node. */
bool ta_walk_next(ta_walk *w, bool descend);

#endif
