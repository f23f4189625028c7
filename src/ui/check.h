/* `tileadvise --check`: the checklist as compiler-style diagnostics for
 * scripts, editors and CI (text, json, SARIF 2.1.0, GitHub workflow
 * commands). Entries that share a detector report one finding with all
 * their ids, in every format.
 *
 * Suppression: a comment `# tileadvise: ignore[ID,...]` on the finding's line
 * or on the kernel's `def` line silences those ids there (a bare
 * `# tileadvise: ignore`: every id); `ignore-next-line[...]` on the line
 * before, `ignore-file[...]` anywhere, for the whole file. --select and
 * --ignore take ids, section letters (S: every S entry) and ALL. Entries in
 * preview (measured precision below 90%) are left out unless --preview is
 * given or --select names them by id. The trigger notes (T1-T5, which
 * order the advisor's walk) are left out unless --show-notes is given or
 * --select names them (T1, the section T, ALL). An id the
 * checklist does not know, written in such a comment, is itself reported as
 * a warning with id X0 (so a typo cannot silently keep a finding alive);
 * `--ignore X0` silences that too. A path "-" is the file on standard
 * input. */
#ifndef TA_UI_CHECK_H
#define TA_UI_CHECK_H

#include <stdbool.h>
#include <stdio.h>

#include "ui/discover.h"
#include "util/format.h"
#include "util/exitcode.h"

/* A per-file-ignores row: the files a pattern matches leave out ids. */
typedef struct ta_file_ignore {
	ta_exclude match;         /* pattern and the folder it is read from */
	const char *ids;          /* comma-separated, as --ignore */
} ta_file_ignore;


typedef struct ta_check_options {
	ta_format format;         /* TEXT, JSON or SARIF */
	const char *select;       /* comma-separated ids, or NULL for all */
	const char *ignore;       /* comma-separated ids, or NULL */
	const char *extend_select; /* comma-separated ids added to the selection, or NULL */
	const ta_file_ignore *file_ignores; /* pyproject's per-file-ignores */
	size_t n_file_ignores;
	const char *stdin_filename; /* "-" is reported as this (NULL: "-") */
	bool fixes;               /* for each finding of an entry the tool writes, run its
				     rewrite at the finding's site and say whether it makes
				     the edit (text: a note when it does not; json: "fix") */
	bool exit_zero;           /* findings leave the exit status 0 */
	bool statistics;          /* text: a count per entry instead of the findings */
	bool preview;             /* report the entries in preview too (entries.def's
				     TA_ENTRY_PREVIEW; named in select, they are reported
				     without it) */
	bool show_notes;          /* report the trigger notes (T1-T5) too; without it
				     they are left out unless select names them (T1,
				     T, ALL): they order the advisor's walk and are no
				     defect of the code */
	const struct ta_exclude *exclude; /* folders' files left out (ui/discover.h) */
	size_t n_exclude;
	bool no_gitignore;        /* read folders' files whatever .gitignore says */
	bool fix;                 /* first make every edit --apply would make (advise/fix.h) */
	bool fix_diff;            /* print those edits as diffs instead, change nothing, report
				     nothing else */
	bool unsafe_fixes;        /* fix, fix_diff: the unsafe edits too */
	bool color;               /* text: terminal colours (gcc's: bold place, coloured severity) */
} ta_check_options;

/* Checks every path (files, and folders searched for *.py files as
 * ui/discover.h says: not in hidden folders, virtual environments, build
 * output or what .gitignore and the exclude patterns leave out; no link
 * followed out of the tree).
 * Diagnostics go to out, problems with the input to err (one line per
 * file). Returns the exit status: TA_EXIT_OK clean, TA_EXIT_FINDINGS
 * findings, TA_EXIT_ERROR error (an unreadable or invalid file, a bad id
 * list; the other files are still checked); with exit_zero, findings
 * leave it TA_EXIT_OK. */
ta_exit ta_check_run(char *const *paths, int count, const ta_check_options *o, FILE *out, FILE *err);

#endif
