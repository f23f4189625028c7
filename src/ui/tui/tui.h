/* The interactive advisor: `tileadvise FILE` and `tileadvise --replay
 * SESSION`. */
#ifndef TA_UI_TUI_TUI_H
#define TA_UI_TUI_TUI_H

#include <stdbool.h>

#include "util/exitcode.h"

typedef struct ta_tui_options {
	const char *file;             /* the kernel file (NULL with replay) */
	const char *replay;           /* a session to show read-only, or NULL */
	bool no_profile;              /* static analysis only */
	const char *test_command;     /* shell command run after each applied edit */
	char *const *command;         /* the command to profile (argv); NULL: python3 FILE */
	const char *records;          /* take measurements from this record stream */
	const char *gpu_preset;       /* device facts of a known GPU instead of the driver's */
	double timeout_s;             /* per profiled run; <= 0: the runner's default */
	const char *baseline;         /* shell command measured once as the T4/T5 baseline */
	const char *baseline_records; /* or the baseline's recorded record stream */
	bool deep;                    /* after each measured run, the --deep runs (PC
	                               * sampling, counters) */
	const char *select, *ignore;  /* --select, --ignore: the walk's entries (NULL: the
	                               * project's pyproject.toml) */
	bool isolated;                /* --isolated: no pyproject.toml */
} ta_tui_options;

/* Runs the advisor. Returns the exit status: TA_EXIT_OK, or TA_EXIT_ERROR
 * when it could not start (stdout not a terminal, unreadable file or
 * session, an unknown --gpu); the reason is printed on stderr. */
ta_exit ta_tui_run(const ta_tui_options *o);

#endif
