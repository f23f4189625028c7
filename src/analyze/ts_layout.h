/* tree-sitter 0.20's layout of a tree in memory, as its runtime (lib/src/
 * subtree.h, length.h) keeps it, declared here to read a tree without the
 * cursor: ts_tree_cursor_goto_next_sibling and _current_field_id cost about
 * 640 instructions a node over Python's hidden nodes, reading the children
 * arrays directly about 60. The runtime is linked from its static archive, so
 * the layout is fixed at build time; flat.c still checks every node of the
 * first tree a process copies against the cursor's walk and keeps to the
 * cursor when they differ (another runtime version). Only what the walk
 * reads is declared. */
#ifndef TA_ANALYZE_TS_LAYOUT_H
#define TA_ANALYZE_TS_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>
#include <tree_sitter/api.h>

/* A byte count with its row and column (tree-sitter's Length). */
typedef struct ta_ts_length {
	uint32_t bytes;
	TSPoint extent;
} ta_ts_length;

/* A small leaf stored in the child slot itself; the first bit tells it from
 * a pointer (heap blocks are aligned, so their first bit is 0). */
typedef struct ta_ts_inline {
	bool is_inline : 1;
	bool visible : 1;
	bool named : 1;
	bool extra : 1;
	bool has_changes : 1;
	bool is_missing : 1;
	bool is_keyword : 1;
	uint8_t symbol;
	uint16_t parse_state;
	uint8_t padding_columns;
	uint8_t padding_rows : 4;
	uint8_t lookahead_bytes : 4;
	uint8_t padding_bytes;
	uint8_t size_bytes;
} ta_ts_inline;

/* Any other node: its children are stored just before this block. */
typedef struct ta_ts_heap {
	uint32_t ref_count;
	ta_ts_length padding;
	ta_ts_length size;
	uint32_t lookahead_bytes;
	uint32_t error_cost;
	uint16_t child_count;
	TSSymbol symbol;
	uint16_t parse_state;
	bool visible : 1;
	bool named : 1;
	bool extra : 1;
	bool fragile_left : 1;
	bool fragile_right : 1;
	bool has_changes : 1;
	bool has_external_tokens : 1;
	bool has_external_scanner_state_change : 1;
	bool depends_on_column : 1;
	bool is_missing : 1;
	bool is_keyword : 1;
	/* a leaf's external scanner state (it starts with a pointer) or, for
	 * a node with children, their counts and the production */
	union {
		struct {
			uint32_t visible_child_count;
			uint32_t named_child_count;
			uint32_t node_count;
			int32_t dynamic_precedence;
			uint16_t repeat_depth;
			uint16_t production_id;
		};
		const char *external_state;
	};
} ta_ts_heap;

typedef union ta_ts_subtree {
	ta_ts_inline data;
	const ta_ts_heap *ptr;
} ta_ts_subtree;

static inline bool ta_ts_visible(ta_ts_subtree s)
{
	return s.data.is_inline ? s.data.visible : s.ptr->visible;
}

static inline bool ta_ts_extra(ta_ts_subtree s)
{
	return s.data.is_inline ? s.data.extra : s.ptr->extra;
}

static inline uint32_t ta_ts_child_count(ta_ts_subtree s)
{
	return s.data.is_inline ? 0 : s.ptr->child_count;
}

static inline uint32_t ta_ts_visible_child_count(ta_ts_subtree s)
{
	return ta_ts_child_count(s) ? s.ptr->visible_child_count : 0;
}

static inline const ta_ts_subtree *ta_ts_children(ta_ts_subtree s)
{
	return (const ta_ts_subtree *)s.ptr - s.ptr->child_count;
}

static inline ta_ts_length ta_ts_padding(ta_ts_subtree s)
{
	if (s.data.is_inline)
		return (ta_ts_length){ s.data.padding_bytes, { s.data.padding_rows, s.data.padding_columns } };
	return s.ptr->padding;
}

static inline ta_ts_length ta_ts_size(ta_ts_subtree s)
{
	if (s.data.is_inline)
		return (ta_ts_length){ s.data.size_bytes, { 0, s.data.size_bytes } };
	return s.ptr->size;
}

/* Positions add as text does: a span with rows ends at its own column. */
static inline ta_ts_length ta_ts_add(ta_ts_length a, ta_ts_length b)
{
	a.bytes += b.bytes;
	if (b.extent.row) {
		a.extent.row += b.extent.row;
		a.extent.column = b.extent.column;
	} else {
		a.extent.column += b.extent.column;
	}
	return a;
}

#endif
