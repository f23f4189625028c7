/* Memory for tree-sitter's trees: every block a parse allocates comes from
 * an arena of its own, and the tree is freed with its arena at once instead
 * of node by node. Between ta_ts_arena_begin and ta_ts_arena_end,
 * tree-sitter allocates in the new arena; outside, with malloc. */
#ifndef TA_ANALYZE_TS_ARENA_H
#define TA_ANALYZE_TS_ARENA_H

typedef struct ta_ts_arena ta_ts_arena;

/* Makes a new arena the one tree-sitter allocates in (one parse at a time). */
ta_ts_arena *ta_ts_arena_begin(void);
/* Back to malloc for what tree-sitter allocates next (cursors...). */
void ta_ts_arena_end(void);
/* Frees the arena and everything in it: the tree made in it must not be
 * used (nor deleted) afterwards. NULL is allowed. */
void ta_ts_arena_free(ta_ts_arena *a);

#endif
