/* `tileadvise --walk FILE [-- COMMAND]`: the measured walk without a
 * terminal (advise/autowalk.h) for agents and CI jobs. Progress goes to
 * stderr as it happens and a table of the steps to stdout at the end
 * (text or markdown); with --format=jsonl, stdout gets one JSON object per
 * event instead. The session is written beside the file, where the
 * advisor resumes and --replay shows it. */
#ifndef TA_UI_WALK_CLI_H
#define TA_UI_WALK_CLI_H

#include <stdbool.h>

#include "util/exitcode.h"
#include "util/format.h"

typedef struct ta_walk_cli_options {
	const char *file;
	char *const *command;         /* argv after --; NULL: python3 FILE */
	const char *test_command;     /* --test CMD: run after each step */
	const char *select;           /* --select: the steps tried (NULL: the project's) */
	const char *ignore;           /* --ignore: steps not tried (NULL: the project's) */
	bool preview;                 /* --preview: entries in preview are tried too */
	bool isolated;                /* --isolated: no pyproject.toml */
	bool unsafe_fixes;            /* unsafe sites too */
	bool keep_neutral;            /* keep steps within noise */
	double budget_s;              /* --budget; <= 0: none */
	double timeout_s;             /* per run; <= 0: the runner's default */
	const char *gpu_preset;       /* --gpu NAME */
	const char *records;          /* every run read from this stream (tests) */
	ta_format format;             /* TEXT, MARKDOWN or JSONL */
} ta_walk_cli_options;

/* Runs the walk. Returns TA_EXIT_OK when a step was kept, TA_EXIT_FINDINGS
 * (1) when none was, TA_EXIT_ERROR when the walk could not start (no GPU,
 * the first run not measured, an unknown --select id); TA_EXIT_INTERRUPTED
 * when a signal (Ctrl-C) stopped it, the file left as of the last kept step. */
ta_exit ta_walk_cli_run(const ta_walk_cli_options *o);

#endif
