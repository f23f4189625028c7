/* The advisor: the one owner of what advising a kernel file does. It
 * analyses the file and builds the walk, applies a step's edit, re-runs the
 * file under CUPTI, judges the run (broken, faster, slower), runs the test,
 * the --deep runs and the baseline, undoes and redoes, and keeps the
 * session that records it all: the session's links between edits,
 * versions and runs are set here and nowhere else.
 *
 * Front ends drive it: the interactive advisor (ui/tui), --walk,
 * --record-session and --profile (advise/profile_cmd.h, in its measuring
 * mode). They turn its events into screens or lines and read its walk and
 * session; none of them changes either.
 *
 * The rules it keeps, whoever drives it:
 *   - a run after an edit that exits non-zero or whose check lines differ
 *     from the first run's marks the edit broken: no verdict, never a win,
 *     and a revert is offered;
 *   - an edit that makes a kernel slower offers a revert;
 *   - a failed test offers a revert;
 *   - the baseline, once measured or read, is kept for the session.
 * An offer stands until the front end answers it (ta_advisor_revert or
 * ta_advisor_keep); nothing else starts while it does.
 *
 * Runs go on in the background: the caller polls the fds of the one in
 * flight (ta_advisor_fds, ta_advisor_deadline_ms) and feeds it with
 * ta_advisor_poll. A run read from a recorded stream ends at once. */
#ifndef TA_ADVISE_ADVISOR_H
#define TA_ADVISE_ADVISOR_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "advise/checklist.h"
#include "advise/session.h"
#include "advise/walk.h"

typedef struct ta_advisor ta_advisor;

typedef struct ta_advisor_options {
	const char *file;             /* the kernel file (NULL with replay) */
	const char *replay;           /* a session shown read-only, or NULL */
	bool no_profile;              /* static analysis only: nothing runs */
	const char *test_command;     /* shell command run after each applied edit */
	char *const *command;         /* the command to profile (argv); NULL: python3 FILE */
	const char *records;          /* every run reads this recorded stream instead */
	const char *gpu_preset;       /* --gpu NAME (advise/device.h) */
	double timeout_s;             /* per run; <= 0: the runner's default */
	const char *baseline;         /* shell command measured once as the T4/T5 baseline */
	const char *baseline_records; /* or the baseline's recorded stream */
	bool deep;                    /* after each measured run, the --deep runs */
	/* A recording from streams saved on a GPU (--record-session): no
	 * session is resumed or written beside the file, the file is never
	 * written (each step's text is the session's), and each run reads the
	 * stream ta_advisor_set_records named, keeping its date and Triton's
	 * report (first_label names the first run). */
	bool recording;
	const char *first_label;      /* the first run's label; NULL: "first run" */
	const char *session_path;     /* where the session is written; NULL: beside the file
	                               * (ta_session_path_for) */
	/* The entries the walk reports, as --check takes them: the ids
	 * --select and --ignore name (NULL: the project's select and ignore,
	 * read from pyproject.toml's [tool.tileadvise] from the file's folder
	 * up, unless isolated). A step of an entry they leave out is not
	 * applicable (ignored). Entries in preview are in the walk either way;
	 * preview (or the project's) says whether --walk tries them. */
	const char *select, *ignore;
	bool preview, isolated;
	/* --profile: a measurement and nothing else. No session is read or
	 * written and no walk is built; the timed run is the file's command
	 * repeated `repeat` times into one measurement, and the --deep runs
	 * join it (its records, theirs too, saved to records_out); then the
	 * baseline, its stream or its command run as often, measured on the
	 * file's kernels (a command not when the runs are read from a
	 * stream). No event comes: ta_advisor_measured says what was had. */
	bool measuring;
	int repeat;                   /* <= 0: 1 */
	const char *records_out;      /* NULL: none saved */
	const char *injector;         /* libtileadvise-cupti.so; NULL: the installed one */
	/* Measuring without reading the file (a test tool): the kernels
	 * measured by name (none: every kernel the command launches). */
	bool no_analysis;
	const char *const *kernel_names;
	const bool *autotuned;        /* parallel to kernel_names; NULL: any may be */
	size_t n_kernel_names;
	/* A test double for the runner: the recorded stream that stands for
	 * the n-th run of the file's command (0: the first), or NULL for a real
	 * run. NULL: none. */
	const char *(*records_for)(void *ctx, size_t n);
	void *records_ctx;
} ta_advisor_options;

/* Opens the file (or the replay) and its session: resumed from
 * .tileadvise/ beside the file unless recording. Nothing runs yet
 * (ta_advisor_start). Returns 0 and *out (free with ta_advisor_free), or
 * -1 with *err (caller frees): an unreadable file or session, an unknown
 * --gpu, a baseline stream that does not read, an unknown id in --select or
 * --ignore, a pyproject.toml that does not read. */
int ta_advisor_open(const ta_advisor_options *o, ta_advisor **out, char **err);
void ta_advisor_free(ta_advisor *a);

/* ---- events ---------------------------------------------------------------- */

typedef enum ta_advisor_event_kind {
	TA_ADVISOR_NOTE,              /* what was done, or why not */
	TA_ADVISOR_MEASURED,          /* a run of the file was measured (run) */
	TA_ADVISOR_SLOWER,            /* after an edit a kernel got slower: a revert is offered */
	TA_ADVISOR_BROKEN,            /* the run after an edit shows it broke the program:
	                               * a revert is offered */
	TA_ADVISOR_TEST_PASSED,
	TA_ADVISOR_TEST_FAILED,       /* after an edit: a revert is offered */
	TA_ADVISOR_DEEP_DONE,         /* the --deep runs joined the run they followed */
	TA_ADVISOR_BASELINE_DONE,     /* the baseline is measured (or read) and kept */
	TA_ADVISOR_RUN_FAILED,        /* a run ended without a measurement */
	TA_ADVISOR_PROJECT,           /* at opening: what the project's pyproject.toml leaves
	                               * out of the walk, or a setting of it not read */
} ta_advisor_event_kind;

typedef struct ta_advisor_event {
	ta_advisor_event_kind kind;
	bool error;                   /* bad news */
	bool see_log;                 /* the run's output says more */
	bool offers_revert;           /* a revert of the edit is offered (ta_advisor_revert) */
	const char *text;             /* one line for the user; valid until the next
	                               * ta_advisor_next_event */
	int edit;                     /* the session edit it is about, or -1 */
	int run;                      /* the session run, or -1 */
} ta_advisor_event;

/* The next event since the last call, oldest first; false when none. */
bool ta_advisor_next_event(ta_advisor *a, ta_advisor_event *ev);

/* ---- starting ---------------------------------------------------------------- */

/* The question to ask before running commands the session file stores
 * and this command line did not give (advise/trust.h), or NULL. Until it
 * is answered nothing runs. */
const char *ta_advisor_trust_question(const ta_advisor *a);
/* Answers it: yes allows them (remembered for this file), no drops them;
 * then the first run starts if it waited. */
void ta_advisor_trust(ta_advisor *a, bool yes);
/* What opening leaves to do: the first run when the current version has
 * none (and profiling is on), then the --baseline command. */
void ta_advisor_start(ta_advisor *a);

/* ---- acting ------------------------------------------------------------------ */

typedef enum ta_apply_result {
	TA_APPLY_DONE,                /* applied; its run (or test) started */
	TA_APPLY_UNSAFE,              /* unsafe and not allowed: nothing changed */
	TA_APPLY_REFUSED,             /* not made (a note says why) */
} ta_apply_result;

/* Applies the edit of step id about kernel at its site on line, then
 * re-runs the file (or runs the test). An unsafe edit is made only with
 * unsafe_ok; without, *assumption (may be NULL; caller frees) gets what it
 * assumes. */
ta_apply_result ta_advisor_apply(ta_advisor *a, const char *kernel, const char *id, uint32_t line,
				 bool unsafe_ok, char **assumption);
/* A whole step: the edit of id made on every site of the current version
 * that a suppression comment does not silence, as --apply ID repeated (at
 * most 12 sites), entered as one edit. */
typedef struct ta_step_request {
	const char *id;
	bool unsafe_ok;               /* unsafe sites too; else they are left as they are */
	/* A recording: the stream that measured the version after the step,
	 * and the file it ran (may be NULL). When today's edit gives other
	 * bytes than that file, the session keeps the measured text (the
	 * figures belong to it), its version and run labelled "as measured;
	 * today's ID edit differs". */
	const char *records;
	const char *measured;
} ta_step_request;

/* Makes the step and measures it. Returns 0, 1 when the measured text was
 * kept (today's edit differs), or -1 with *err (caller frees) saying why
 * no step was made (no site left, a guided-only entry, records that do
 * not read). */
int ta_advisor_apply_step(ta_advisor *a, const ta_step_request *r, char **err);

/* Undoes or redoes the last edit (the journal beside the file). Returns 0,
 * or -1 (a note says why). An offered revert is answered by undo. */
int ta_advisor_undo(ta_advisor *a);
int ta_advisor_redo(ta_advisor *a);
/* The offer of a revert (after SLOWER, BROKEN, TEST_FAILED): whether one
 * stands; taken (the edit undone) or declined. */
bool ta_advisor_offers_revert(const ta_advisor *a);
int ta_advisor_revert(ta_advisor *a);
void ta_advisor_keep(ta_advisor *a);
/* Skips the step (or no longer skips it); returns whether it is skipped. */
bool ta_advisor_skip(ta_advisor *a, const char *kernel, const char *id);
/* Analyses the file again (after an edit by hand): returns 0, 1 when its
 * text changed, or -1 (a note says why). */
int ta_advisor_reread(ta_advisor *a, const char *label);
/* Whether the file changed on disk since it was read (checked while no run
 * is going); when it did it is analysed again. */
bool ta_advisor_watch(ta_advisor *a);
/* Runs the file again. */
void ta_advisor_rerun(ta_advisor *a, const char *label);
void ta_advisor_cancel(ta_advisor *a);
/* Writes the session (not in a replay) with the position shown (kernel
 * and step may be NULL). Returns 0, or -1 with *err (caller frees). */
int ta_advisor_save(ta_advisor *a, const char *kernel, const char *step, char **err);

/* ---- runs in flight ------------------------------------------------------------ */

typedef enum ta_run_kind {
	TA_RUN_NONE, TA_RUN_PROFILE, TA_RUN_BASELINE, TA_RUN_TEST,
	TA_RUN_DEEP_PC, TA_RUN_DEEP_SOL,     /* --deep: PC sampling, then the counters */
} ta_run_kind;

/* The fds of the run in flight (at most max; returns how many) and the ms
 * until it wants ta_advisor_poll anyway (-1: none). */
size_t ta_advisor_fds(const ta_advisor *a, struct pollfd *fds, size_t max);
int ta_advisor_deadline_ms(const ta_advisor *a);
/* Feeds the run in flight. Returns TA_ADVISOR_IDLE (none), _RUNNING (it
 * goes on) or _ENDED (it ended: the session changed). */
enum { TA_ADVISOR_IDLE, TA_ADVISOR_RUNNING, TA_ADVISOR_ENDED };
int ta_advisor_poll(ta_advisor *a);
ta_run_kind ta_advisor_run_kind(const ta_advisor *a);
const char *ta_advisor_run_label(const ta_advisor *a);    /* "first run", "after S3" */
double ta_advisor_run_elapsed(const ta_advisor *a);       /* s; 0 when none runs */
size_t ta_advisor_run_launches(const ta_advisor *a);      /* of the file's kernels so far */
/* The output of the run in flight so far (caller frees), or NULL. */
char *ta_advisor_run_output(const ta_advisor *a);
/* The output of the last run that ended, and how it ended; NULL: none. */
const char *ta_advisor_last_output(const ta_advisor *a);
const char *ta_advisor_last_note(const ta_advisor *a);

/* ---- measuring (--profile) -------------------------------------------------------- */

/* How the children of one part of the sequence ended. */
typedef struct ta_run_part {
	size_t children;              /* started */
	char *start_error;            /* a child could not start: why (the part stopped); NULL */
	char *describe;               /* how the last failing child ended, else the last */
	bool any_failed;              /* a child did not exit with status 0 */
	bool ran_ok;                  /* one did */
	unsigned long long record_bytes;
	char *log_tail;               /* the first failing child's last 20 lines of output */
	bool other_client;            /* its output says another CUPTI client was refused */
} ta_run_part;

struct ta_run;

/* What a measuring advisor had once it is no longer busy. */
typedef struct ta_measured {
	const struct ta_run *run;     /* the timed runs' records (and the --deep runs'), or
	                               * the stream's; NULL before */
	char *records_error;          /* the stream that stands for the runs did not read */
	char *tee_error;              /* records_out could not be written */
	ta_run_part timed;
	bool deep_ran;                /* the --deep runs were asked for and came */
	ta_run_part deep[2];          /* PC sampling, counters */
	const struct ta_run *baseline;   /* NULL: none measured */
	char *baseline_error;         /* the baseline's stream did not read */
	ta_run_part base;
} ta_measured;

const ta_measured *ta_advisor_measured(const ta_advisor *a);

/* ---- reading --------------------------------------------------------------------- */

const ta_session *ta_advisor_session(const ta_advisor *a);
const ta_walk *ta_advisor_walk(const ta_advisor *a);
/* Bumped whenever the walk is built again (its steps move). */
unsigned ta_advisor_walk_version(const ta_advisor *a);
const ta_catalog *ta_advisor_catalog(const ta_advisor *a);
/* The text shown: the file's (or the replay's recorded one). */
const ta_source *ta_advisor_source(const ta_advisor *a);
/* The run of the current version (else the last run), or NULL. */
const ta_run_figures *ta_advisor_last_run(const ta_advisor *a);
const char *ta_advisor_path(const ta_advisor *a);          /* the kernel file; NULL in a replay */
const char *ta_advisor_session_path(const ta_advisor *a);  /* NULL in a replay */
bool ta_advisor_read_only(const ta_advisor *a);            /* a replay */
/* The device: its facts (NULL: none) and why no run can be made (NULL:
 * runs can be made). */
const ta_gpu_info *ta_advisor_gpu(const ta_advisor *a);
const char *ta_advisor_why_no_run(const ta_advisor *a);
/* Whether runs can be made (not a replay, profiling on, a device or a
 * recorded stream), and whether profiling was turned off (--no-profile). */
bool ta_advisor_can_run(const ta_advisor *a);
bool ta_advisor_profiling_off(const ta_advisor *a);
bool ta_advisor_uses_records(const ta_advisor *a);
/* What the walk reports, as --check's filter takes it: the select and
 * ignore lists in force (the command line's, else the project's; NULL:
 * none) and whether entries in preview are chosen too. */
void ta_advisor_scope(const ta_advisor *a, const char **select, const char **ignore, bool *preview);
/* Whether a run, a test or a deep run is in flight. */
bool ta_advisor_busy(const ta_advisor *a);
/* The --baseline command still to be measured. */
bool ta_advisor_baseline_pending(const ta_advisor *a);

/* The lazy walk's kernels and edits: they are made when shown or while
 * the front end is idle (ta_walk_build_lazy). */
size_t ta_advisor_walk_pending(const ta_advisor *a);
size_t ta_advisor_ready_one(ta_advisor *a);
void ta_advisor_kernel_ready(ta_advisor *a, size_t kernel);
void ta_advisor_step_ready(ta_advisor *a, size_t kernel, size_t step);
void ta_advisor_walk_complete(ta_advisor *a);

/* Lets go of what the analysis keeps for the whole process (the grammar,
 * the queries): once, at exit. */
void ta_advisor_shutdown(void);

#endif
