/* An edit as data: byte-range replacements on a source as read, and the
 * unified diff they make. Pure functions over memory: no file access.
 *
 * Offsets are into ta_source.text (the bytes after any BOM). Replacements
 * are kept sorted and must not overlap; an insertion is start == end. */
#ifndef TA_ANALYZE_DIFF_H
#define TA_ANALYZE_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ta_repl {
	uint32_t start, end;      /* replaced range [start, end) */
	char *text;               /* new bytes; owned */
} ta_repl;

typedef struct ta_edit {
	char id[8];               /* checklist id: "D12" */
	char *title;              /* one line for the user; owned, may be NULL */
	uint32_t line;            /* 1-based line of the site (for --apply ID:LINE) */
	bool guided;              /* a template to finish by hand, not a rewrite */
	char *unsafe;             /* NULL: safe (meaning kept for every input the code
				     accepts today); else the one assumption under which
				     it is kept, a sentence ("assumes ..."); owned */
	bool crlf;                /* turn "\n" in added text into "\r\n" */
	ta_repl *repls;           /* sorted by start; owned */
	size_t repl_count, repl_cap;
} ta_edit;

/* Starts an empty edit (no allocation until the first replacement). */
void ta_edit_init(ta_edit *e, const char *id, bool crlf);
/* Frees what the edit owns and leaves it empty (safe to call twice). */
void ta_edit_clear(ta_edit *e);
void ta_edit_set_title(ta_edit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Marks the edit unsafe: it keeps the program's meaning only under the
 * assumption fmt states (one sentence, "assumes ..."). The last call wins. */
void ta_edit_set_unsafe(ta_edit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Adds a replacement; text is copied, with bare "\n" written as "\r\n"
 * when e->crlf. Returns -1 (and adds nothing) when it overlaps one already
 * there, else 0. Insertions at the same offset keep their call order. */
int ta_edit_replace(ta_edit *e, uint32_t start, uint32_t end, const char *text);

/* The new text: old with every replacement applied. Returns 0 and *out
 * (caller frees, NUL-terminated) with *out_len, or -1 with *err (caller
 * frees) when a replacement lies outside old. */
int ta_edit_apply_text(const ta_edit *e, const char *old, size_t old_len,
		       char **out, size_t *out_len, char **err);

/* Unified diff between old and new text, the hunks taken from e's
 * replacements, each made minimal by a line diff (3 lines of context,
 * nearby hunks merged). name labels both
 * sides ("a/NAME", "b/NAME"). Lines keep their own endings (a CRLF file's
 * lines end in "\r\n" in the diff as in the file), and a last line without
 * a newline is marked the way diff(1) does. Caller frees; "" when e changes
 * nothing. */
char *ta_edit_diff(const ta_edit *e, const char *name, const char *old, size_t old_len);

/* The unified diff between two whole texts (undo, redo and a recorded
 * walk's steps, where no edit's replacements are at hand): a line diff
 * (Myers), so lines equal on both sides are context. Caller frees; ""
 * when they are equal. */
char *ta_edit_diff_texts(const char *name, const char *a, size_t al, const char *b, size_t bl);

#endif
