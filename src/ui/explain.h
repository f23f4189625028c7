/* --list-rules and --explain ID: the checklist catalog as text pages. */
#ifndef TA_UI_EXPLAIN_H
#define TA_UI_EXPLAIN_H

#include <stdbool.h>
#include <stdio.h>

#include "advise/checklist.h"
#include "util/buf.h"
#include "util/exitcode.h"

/* Prose is wrapped to this many columns. */
#define TA_EXPLAIN_WIDTH 78

/* The --list-rules table: one line per entry (id, section, edit kind, needs, status,
 * title) in aligned columns, grouped by section under a header line. color
 * adds bold to headers and ids (the caller decides: isatty, NO_COLOR). */
void ta_explain_list(const ta_catalog *cat, FILE *out, bool color);
/* The same as a JSON array, one object per entry (--list-rules --format=json). */
void ta_explain_list_json(const ta_catalog *cat, FILE *out);

/* The --explain page of one entry (id compared without regard to case).
 * Returns TA_EXIT_OK; or TA_EXIT_ERROR when there is no such entry, after printing
 * "tileadvise: unknown checklist id 'X' (see --list-rules)" and, when an id is
 * close, a "did you mean" line on stderr. */
ta_exit ta_explain_entry(const ta_catalog *cat, const char *id, FILE *out);

/* The suggestion for an unknown id, without the "did you mean" words:
 * "S3", "one of P1, P2, P3, P4, P5, P6, P7", "S6 (Precise tanh ...)".
 * NULL when nothing is close. Caller frees. */
char *ta_explain_suggest(const ta_catalog *cat, const char *id);

/* Appends text word-wrapped to width columns, each line starting with indent
 * spaces. Columns are counted in code points, and words are never split (a
 * word longer than the line stands alone). A blank line in text starts a new
 * paragraph; other newlines count as spaces. Ends with a newline. */
void ta_explain_wrap(ta_buf *b, const char *text, int indent, int width);

#endif
