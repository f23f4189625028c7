/* `--fix` and `--diff` without an id: every edit --apply would make in a
 * file, one after another, ruff's mass fix.
 *
 * One file at a time: the findings --check reports (the same --select,
 * --ignore, preview and suppression comments), their sites in the
 * checklist's order (then by line), and for each the edit --apply=ID:LINE
 * makes there. The first site whose edit can be made (safe; unsafe too
 * with unsafe_fixes) is applied, the file analysed again, and so on until
 * no site has an edit left. Each edit is checked as --apply checks it
 * (parses, compiles) and, when written, recorded in the journal, so
 * `--undo` takes them back one at a time. A site whose edit is refused is
 * skipped; a file with syntax errors is not edited. */
#ifndef TA_ADVISE_FIX_H
#define TA_ADVISE_FIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* At most this many edits in one file: a pair of edits that undid each
 * other would otherwise never end (ruff stops at 100 passes too). */
#define TA_FIX_MAX_EDITS 100

typedef struct ta_fix_options {
	const char *select, *ignore, *extend; /* as --check's (NULL: none) */
	bool preview;
	bool unsafe_fixes;        /* also make edits that are unsafe */
	bool dry_run;             /* --diff: write nothing, give the diff */
} ta_fix_options;

typedef struct ta_fix_outcome {
	size_t applied;           /* edits made (or, dry_run, that would be) */
	size_t unsafe_left;       /* sites left whose edit is unsafe (without unsafe_fixes) */
	char *diff;               /* dry_run: the file's unified diff ("" none; caller frees) */
	char *made;               /* "D12 at line 37, S1 at lines 40 and 52" (caller frees; NULL none) */
} ta_fix_outcome;

/* Makes the edits in path (a file; not "-"). Returns 0 with *out filled
 * (also when nothing was to be done), or -1: silently when the file cannot
 * be read (--check, which follows, says why), else after one line on err
 * (it cannot be written or locked, has syntax errors, or the id lists are
 * bad); edits made before a failure stay made and are counted in *out. */
int ta_fix_file(const char *path, const ta_fix_options *o, ta_fix_outcome *out, FILE *err);
void ta_fix_outcome_clear(ta_fix_outcome *out);

#endif
