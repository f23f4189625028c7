/* Suggested edits: making them from the model, and applying, undoing and
 * redoing them on the user's file safely.
 *
 * A generator turns one site of a checklist entry into a ta_edit (diff.h).
 * Applying checks that the file is still the one analysed, verifies the
 * new text (re-parse: no new syntax errors; python3 compile() when python3
 * exists), then replaces the file atomically and records the step in the
 * journal (journal.h), so undo/redo work across runs. */
#ifndef TA_ADVISE_EDIT_H
#define TA_ADVISE_EDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "advise/diff.h"
#include "analyze/model.h"

/* Makes the edit for one site. kernel_or_host is a kernel index for
 * kernel-side entries, a host index for host-side ones, or -1 for any.
 * line 0 takes the first site, else the site on (or spanning) that line.
 * Returns 0 with *out filled (the caller clears it), or, with *why_not
 * (caller frees, one line): -1 when a site exists but a precondition of the
 * rewrite does not hold (offer the guided template), -2 when there is no
 * site at all. */
typedef int (*ta_edit_maker)(const ta_model *m, int kernel_or_host, uint32_t line,
			     ta_edit *out, char **why_not);

typedef struct ta_edit_gen {
	const char *id;           /* "D12" */
	ta_edit_maker make;       /* NULL: guided only */
	bool host;                /* index space of kernel_or_host: hosts, else kernels */
	const char *summary;      /* what the edit does, one line */
	const char *demoted;      /* non-NULL: shown as a diff but not applied by the
				     tool (measured slower on a real kernel); why */
} ta_edit_gen;

/* The generator table; NULL when id has no mechanical edit. Static data. */
const ta_edit_gen *ta_edit_gen_find(const char *id);
const ta_edit_gen *ta_edit_gens(size_t *count);

/* Runs id's generator over every kernel (or host) until one yields an
 * edit for line (0: the first site). Same contract as ta_edit_maker. */
int ta_edit_make(const ta_model *m, const char *id, uint32_t line, ta_edit *out, char **why_not);

/* A guided edit: the template of id as a comment block, with {0}, {1}...
 * replaced by names[0], names[1]..., inserted before line (1-based) with that
 * line's indentation and the file's line ending. Returns -1 with *err
 * (caller frees) when line is outside the file. */
int ta_edit_guided(const ta_model *m, const char *id, uint32_t line,
		   const char *const *names, size_t name_count, ta_edit *out, char **err);

/* Parses "ID" or "ID:LINE". Returns 0, or -1 when malformed. */
int ta_edit_parse_spec(const char *spec, char id[8], uint32_t *line);

/* The file an edit of path may write: path itself, or the target of a
 * symlink that stays inside path's folder. Refuses (returns -1, *err caller
 * frees) a symlink leading out of the folder, a file that is not regular,
 * and a read-only file or folder. *real is the path to write (caller frees);
 * *st its status. */
int ta_edit_target(const char *path, char **real, struct stat *st, char **err);

/* Applies e to the file src was read from. Returns 0 with *msg (caller
 * frees; "applied D12 at line 37") or -1 with *msg: one line saying why
 * nothing changed (or that the prior bytes were restored). */
int ta_edit_apply(const ta_source *src, const ta_syntax *syn, const ta_edit *e, char **msg);

/* Moves one step back or forward in path's journal. Same contract; when
 * diff is non-NULL it receives the unified diff of the change (caller
 * frees). */
int ta_edit_undo(const char *path, char **diff, char **msg);
int ta_edit_redo(const char *path, char **diff, char **msg);

/* The command-line actions: "apply" and "diff" take spec, "undo" and "redo"
 * ignore it. Prints the diff on out and problems as one line on err.
 * Returns the exit status: 0 done, 2 refused or failed. */
int ta_edit_run(const char *action, const char *spec, const char *path, FILE *out, FILE *err);

#endif
