/* Suggested edits on the user's file: applying, undoing and redoing them
 * safely (the command-line actions are advise/edit_cmd.h). The edits themselves are made by
 * the checklist's rewrites (checklist/rewrite.h).
 *
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

#include "analyze/diff.h"
#include "analyze/model.h"
#include "checklist/rewrite.h"
#include "util/exitcode.h"

/* The file an edit of path may write: path itself, or the target of a
 * symlink that stays inside path's folder. Refuses (returns -1, *err caller
 * frees) a symlink leading out of the folder, a file that is not regular,
 * and a read-only file or folder. *real is the path to write (caller frees);
 * *st its status. */
int ta_edit_target(const char *path, char **real, struct stat *st, char **err);

/* The file's bytes after e, checked as an apply checks them (the BOM and
 * line endings of the file kept; the new text parses with no syntax error
 * the old one (syn) did not have and python3 compiles it when it compiled
 * old): old is the file's bytes as read. Returns 0 with *bytes (caller
 * frees) and *len, or -1 with *msg (caller frees): one line, "the edit
 * changes nothing" among them. Writes nothing: --fix --diff's edits in
 * memory and ta_edit_apply's check. */
int ta_edit_checked_bytes(const ta_source *src, const ta_syntax *syn, const ta_edit *e, const char *old,
			  size_t old_len, char **bytes, size_t *len, char **msg);

/* Applies e to the file src was read from. Returns 0 with *msg (caller
 * frees; "applied D12 at line 37") or -1 with *msg: one line saying why
 * nothing changed (or that the prior bytes were restored). */
int ta_edit_apply(const ta_source *src, const ta_syntax *syn, const ta_edit *e, char **msg);

/* Moves one step back or forward in path's journal. Same contract; when
 * diff is non-NULL it receives the unified diff of the change (caller
 * frees). */
int ta_edit_undo(const char *path, char **diff, char **msg);
int ta_edit_redo(const char *path, char **diff, char **msg);

#endif
