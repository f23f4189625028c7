/* Tree-sitter queries loaded from the data folder (queries/NAME.scm), with the predicates the
 * C library leaves to its clients (#eq?, #not-eq?, #match?, #not-match?,
 * #any-of?) evaluated here. */
#ifndef TA_ANALYZE_QUERY_H
#define TA_ANALYZE_QUERY_H

#include <stdbool.h>
#include <tree_sitter/api.h>

#include "analyze/source.h"
#include "analyze/syntax.h"

typedef struct ta_query ta_query;

/* Compiles query text. name is used in messages. On error returns NULL and
 * *err (caller frees) as "name:row:col: what" followed by the line and a caret. */
ta_query *ta_query_new(const char *name, const char *text, size_t len, char **err);
/* Reads and compiles <datadir>/queries/<name>.scm. */
ta_query *ta_query_load(const char *name, char **err);
void ta_query_free(ta_query *q);

/* Index of a capture by name, or -1. */
int ta_query_capture(const ta_query *q, const char *name);

typedef struct ta_query_iter {
	const ta_query *q;
	const ta_source *src;
	TSQueryCursor *cursor;
} ta_query_iter;

/* Runs q over node; matches that fail their predicates are skipped. */
void ta_query_exec(ta_query_iter *it, const ta_query *q, const ta_source *src, TSNode node);
bool ta_query_next(ta_query_iter *it, TSQueryMatch *match);
void ta_query_iter_end(ta_query_iter *it);

/* The node captured as capture index cap in match, or a null node. */
TSNode ta_match_node(const TSQueryMatch *m, int cap);

#endif
