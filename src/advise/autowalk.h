/* The measured walk without a terminal (`tileadvise --walk`): for each
 * mechanical step in walk order, the advisor applies it on every site,
 * re-runs the file under CUPTI, runs the test, and the step is kept only
 * when the program is still correct and the run measured it faster (the
 * ratio's interval below 1.0). It is reverted when slower, broken or
 * failing, and, unless keep_neutral, when within noise or not comparable.
 * A step reverted is not tried again; the walk goes on from the file as
 * of the last kept step, whose findings are checked again.
 *
 * Every event (the first run, a step started, its diff, each kernel's
 * measured change, the test, kept or reverted and why, the summary) goes
 * to the caller's sink as it happens, for an agent or a CI job to read. */
#ifndef TA_ADVISE_AUTOWALK_H
#define TA_ADVISE_AUTOWALK_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "advise/advisor.h"

typedef enum ta_walk_event_kind {
	TA_WALK_FIRST_RUN,            /* the file measured before any step (run) */
	TA_WALK_STEP,                 /* a step is tried (id) */
	TA_WALK_DIFF,                 /* its edit is on the file (diff, sites' first line) */
	TA_WALK_MEASURED,             /* one kernel's change after it (kernel, figures) */
	TA_WALK_TEST,                 /* the test ran after it (passed, how) */
	TA_WALK_KEPT,                 /* the step stays (why) */
	TA_WALK_REVERTED,             /* the step was taken back (why) */
	TA_WALK_NOT_MADE,             /* no edit could be made for it (why) */
	TA_WALK_NOTE,                 /* what the advisor said on the way (text) */
	TA_WALK_SUMMARY,              /* the walk is over (counts, whole-walk figures) */
} ta_walk_event_kind;

typedef struct ta_walk_event {
	ta_walk_event_kind kind;
	const char *id;               /* the step's entry, or NULL */
	const char *kernel;           /* MEASURED: the kernel; else NULL */
	const char *text;             /* DIFF: the diff; TEST: how it ended; KEPT, REVERTED,
	                               * NOT_MADE: why; NOTE: what; else NULL */
	uint32_t line;                /* DIFF: the first site's line */
	bool error;                   /* NOTE: bad news */
	bool passed;                  /* TEST */
	/* MEASURED (and SUMMARY, per kernel of the whole walk): */
	const ta_change *change;
	int run_before, run_after;    /* session runs; -1 none */
	/* SUMMARY */
	size_t tried, kept, reverted, not_made;
	bool stopped;                 /* by the budget or a signal */
	const char *stop_reason;
} ta_walk_event;

typedef struct ta_autowalk_options {
	const char *select;           /* the steps tried, as --check --select takes them (ids,
	                               * section letters, ALL); NULL: the advisor's
	                               * (ta_advisor_scope: --select, else the project's) or,
	                               * without one, every mechanical step not in preview
	                               * (in preview too with --preview) that is not ignored */
	bool unsafe_ok;               /* unsafe sites too (--unsafe-fixes) */
	bool keep_neutral;            /* keep a step within noise or not comparable */
	double budget_s;              /* the whole walk's wall time; <= 0: none */
	/* Set (by a signal handler) to stop: the run in flight is cancelled,
	 * its step reverted, the walk summed up. May be NULL. */
	volatile sig_atomic_t *stop;
	void (*event)(void *ctx, const ta_walk_event *ev);
	void *ctx;
} ta_autowalk_options;

typedef struct ta_autowalk_result {
	size_t tried, kept, reverted, not_made;
	bool stopped;
	int first_run, last_run;      /* the session runs the whole walk goes from and to */
} ta_autowalk_result;

/* Walks a (opened on the file, nothing started yet). Returns 0 with *res,
 * or -1 with *err (caller frees) when the first run could not be measured
 * or a --select id is unknown; the file is then as it was. */
int ta_autowalk_run(ta_advisor *a, const ta_autowalk_options *o, ta_autowalk_result *res, char **err);

#endif
