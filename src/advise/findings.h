/* The findings `tileadvise --check` reports, file by file: each file
 * analysed (a large one in parts, analyze/split.h), the checklist's
 * findings of the entries that apply, less those the filter leaves out
 * (--select, --ignore, preview) and those a suppression comment silences
 * (checklist/filter.h); syntax errors as errors; an unknown id in a
 * suppression comment as X0; with fixes, whether --apply makes each
 * finding's edit at its site. The project's settings that feed it come
 * from pyproject.toml (checklist/pyproject.h). Front ends write the
 * result (ui/check.c: text, json, SARIF, GitHub). */
#ifndef TA_ADVISE_FINDINGS_H
#define TA_ADVISE_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "checklist/pyproject.h"
#include "util/exitcode.h"

/* The id an unknown id in a suppression comment is reported under. */
#define TA_CHECK_SUPPRESSION_ID "X0"

/* One diagnostic: a finding of one entry, or a syntax error. */
/* One replacement of a fix, as an editor applies it: [start, end) by
 * 1-based line and column (code points), replaced by content. */
typedef struct ta_diag_edit {
	uint32_t line, col, end_line, end_col;
	char *content;
} ta_diag_edit;

typedef struct ta_diag {
	const char *file;         /* borrowed from the caller's path */
	uint32_t line, col, end_line;
	uint32_t end_col;         /* one past the finding's last code point; 0 unknown */
	bool error;               /* syntax error rather than a finding */
	bool note;                /* a finding read for information (TA_TAG_NOTE) */
	char id[8];
	char *message;            /* one line */
	char *kernel;             /* may be NULL */
	int fix;                  /* entries the tool writes: 1 the edit can be made
				     here, -1 it cannot (fix_why says why); else 0 */
	char *fix_why;
	char *fix_unsafe;         /* fix 1: the edit's assumption when it is unsafe */
	ta_diag_edit *edits;      /* fix 1: what --apply=ID:LINE replaces */
	size_t edit_count;
	/* S1, once per kernel: every raw tile it stands for (the first at
	 * line), each with fixes' outcome there, and the note that says at
	 * which lines --apply rewrites ("unsafe S1 edits at lines 12 and 30
	 * ...; no mechanical S1 edit at line 41: why"); NULL for one site. */
	struct ta_diag_site {
		uint32_t line;
		int fix;          /* as the diagnostic's fix, for this site */
		char *why, *unsafe;
		ta_diag_edit *edits;
		size_t edit_count;
	} *sites;
	size_t site_count;
	char *fix_where;
} ta_diag;

/* Length of a message without the " (as ID)" that a served entry's
 * finding appends: the findings of one place with the same base are one
 * finding with several ids. */
size_t ta_diag_base_len(const char *message);

typedef struct ta_findings ta_findings;

/* Findings to collect under --select, --ignore and --extend-select (comma
 * lists of ids, section letters, ALL, X0, X1; NULL: none) and preview; fixes: run each
 * written entry's rewrite at its finding. NULL when a list names an
 * unknown id (one line for each bad list on err). Free with
 * ta_findings_free. */
ta_findings *ta_findings_new(const char *select, const char *ignore, const char *extend, bool preview, bool fixes,
			     FILE *err);
void ta_findings_free(ta_findings *fs);
/* Adds the diagnostics of the file at path ("-": standard input). path
 * must outlive fs. A file that cannot be read or analysed is one line on
 * err and sets *rc to TA_EXIT_ERROR; the others are still checked. */
void ta_findings_check(ta_findings *fs, const char *path, FILE *err, ta_exit *rc);
/* The same, with the ids of the list also_ignore (per-file-ignores; NULL:
 * none) left out of this file's findings. A bad id is one line on err. */
void ta_findings_check_ignoring(ta_findings *fs, const char *path, const char *also_ignore, FILE *err, ta_exit *rc);
/* The same for a file analysed whole already (a file --fix edits in
 * memory), which stays the caller's. */
struct ta_analysis;
void ta_findings_check_analysis(ta_findings *fs, const char *path, const struct ta_analysis *a);
/* Every diagnostic so far, sorted by file, line, column and id; valid
 * until the next ta_findings_check or ta_findings_free. */
const ta_diag *ta_findings_sorted(ta_findings *fs, size_t *n);

/* The [tool.tileadvise] settings for a check of first (a file, a folder,
 * or "-"): from first's folder (the current one for "-") and above;
 * isolated: none; config (--config): that file's table, an error when it
 * has none. Same contract as ta_project_find. */
int ta_findings_project(const char *first, bool isolated, const char *config, ta_project *p, FILE *warn,
			char **err);
/* Reports the file "-" (standard input) as name (--stdin-filename; it must
 * outlive fs). */
void ta_findings_stdin_name(ta_findings *fs, const char *name);
/* Whether this build reads pyproject.toml (toml++). */
bool ta_findings_read_toml(void);

#endif
