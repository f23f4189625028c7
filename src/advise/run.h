/* A profiled run of the user's command, and its result as the session's
 * measurement. Front ends (the advisor, --profile, --record-session) hold a
 * ta_run and never the runner, the records or the measurement behind it.
 *
 * A ta_run is one measurement: the records of one or more children (the
 * timed runs, or the two --deep runs) or of a recorded stream, and Triton's
 * autotuning report. Its children run one at a time; the event loop polls
 * the fds and the deadline of the one running (ta_run_fds,
 * ta_run_deadline_ms) and feeds it with ta_run_poll; ta_run_wait blocks. */
#ifndef TA_ADVISE_RUN_H
#define TA_ADVISE_RUN_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "advise/walk.h"
#include "analyze/model.h"
#include "profile/deep.h"
#include "profile/gpu.h"
#include "profile/measure.h"
#include "profile/runner.h"

/* What a child of a run is. */
typedef enum ta_run_mode {
	TA_RUN_MODE_TIMED,           /* under the injector: the launches timed */
	TA_RUN_MODE_PC,              /* --deep: PC sampling */
	TA_RUN_MODE_SOL,             /* --deep: the counters */
	TA_RUN_MODE_PLAIN,           /* without the injector (a test command) */
} ta_run_mode;

typedef struct ta_run_opts {
	const char *file;            /* the kernel file: the default command is `python3 FILE`,
	                              * --deep reads its lines */
	const ta_model *model;       /* its kernels are measured (names copied); NULL: those
	                              * named below */
	const char *const *kernel_names;  /* without a model: the kernels measured (copied);
	                              * none: every kernel the command launches (a baseline) */
	const bool *autotuned;       /* parallel to kernel_names: the file autotunes it (NULL:
	                              * any may be autotuned) */
	size_t n_kernel_names;
	char *const *argv;           /* the command (copied); NULL or empty: python3 FILE */
	const char *injector;        /* libtileadvise-cupti.so; NULL: the one in ta_libdir() */
	double timeout_s;            /* per child; <= 0: the runner's default */
	FILE *tee;                   /* raw records, "run" lines and the output saved here (not
	                              * owned); NULL: none */
	bool read_tune;              /* Triton's autotuning report is read from the output as it
	                              * arrives, and from the "output" records ta_run_load reads */
	bool tune_first;             /* a timed run of a file that autotunes one of its kernels
	                              * runs it once uninjected first, with Triton's autotuning
	                              * cache on (TRITON_CACHE_AUTOTUNING=1, in Triton's own
	                              * cache), so that the measured run launches no tuning */
	/* Each output line of a child when read_tune is off; may be NULL. */
	void (*output_line)(void *ctx, const char *line, size_t len);
	void *output_ctx;
} ta_run_opts;

typedef struct ta_run ta_run;

/* A run with no records yet. Free with ta_run_free. */
ta_run *ta_run_new(const ta_run_opts *o);
void ta_run_free(ta_run *r);

/* Starts a child in mode (a run holds one child at a time: the last one
 * must have ended). Returns 0, or -1 with *err (caller frees). When it
 * ends, its wall time is noted in the records (and the tee). */
int ta_run_start(ta_run *r, ta_run_mode mode, char **err);
/* A recorded stream stands in for children: its records join the run's.
 * Returns 0, or -1 with *err (caller frees). */
int ta_run_load(ta_run *r, const char *records, char **err);

/* The child now running: its fds to poll (at most max; returns how many)
 * and the milliseconds until it wants ta_run_poll anyway (-1: none). */
size_t ta_run_fds(const ta_run *r, struct pollfd *fds, size_t max);
int ta_run_deadline_ms(const ta_run *r);
/* Feeds what arrived (records, output) for up to timeout_ms. Returns true
 * when no child runs any more (it ended, or none was started). */
bool ta_run_poll(ta_run *r, int timeout_ms);
void ta_run_wait(ta_run *r);
void ta_run_cancel(ta_run *r);
bool ta_run_running(const ta_run *r);

/* The last child: how it ended (NULL before one was started), a sentence
 * saying so ("exited with status 0 after 3.2 s"), and its output (the
 * last bytes; caller frees both; NULL before one was started). */
const ta_run_result *ta_run_outcome(const ta_run *r);
char *ta_run_describe(const ta_run *r);
char *ta_run_log(const ta_run *r, size_t *len);

/* Whether this build can profile (it has the CUPTI injector). */
bool ta_run_can_profile(void);
/* Why a run whose children sent no records at all got none: CUPTI is
 * missing, of another version, or the program did not load it. One
 * sentence (caller frees). */
char *ta_run_why_silent(void);

/* Notes a run of the mode that took wall_s, made elsewhere (the timed run
 * a --deep run's overhead is told against). */
void ta_run_note(ta_run *r, ta_run_mode mode, double wall_s);
/* Reads Triton's autotuning report from text (a child's output). */
void ta_run_read_tune(ta_run *r, const char *text, size_t len);

/* How many of Triton's autotuning reports were cut short. */
size_t ta_run_tune_truncated(const ta_run *r);
/* What the records hold so far: the raw records; whether any launch was
 * recorded; the launches of w's kernels (names may carry a Triton
 * suffix); CUPTI errors; the driver (0 or less: unknown) and CUPTI
 * versions (0: unknown). */
const ta_records *ta_run_records(const ta_run *r);
bool ta_run_recorded(const ta_run *r);
size_t ta_run_launches(const ta_run *r, const ta_walk *w);
size_t ta_run_errors(const ta_run *r);
int ta_run_driver(const ta_run *r);
unsigned ta_run_cupti(const ta_run *r);

/* The measurement of the run's records: the file's kernels (or every
 * kernel), with the autotuning table. gpu may be NULL (no occupancy).
 * Caller frees with ta_measurement_free. */
ta_measurement *ta_run_measure(const ta_run *r, const ta_gpu_info *gpu);
/* The --deep view of the run's records; timed (may be NULL) picks the
 * launches the timing describes. NULL when they hold none. */
ta_deep *ta_run_deep(const ta_run *r, const ta_measurement *timed);
/* The run as the session keeps it: its measurement as figures labelled
 * label (date: NULL now; version: the file version measured) with what
 * --deep found attached. *other (may be NULL) counts the launches of other
 * kernels. Free with ta_run_figures_clear. */
void ta_run_finish(const ta_run *r, const ta_gpu_info *gpu, const char *label, const char *date,
		   unsigned version, ta_run_figures *out, size_t *other);

/* What a record stream says besides the launches. */
typedef struct ta_records_meta {
	char *date;                  /* of its first launch, or now (caller frees) */
	int driver;                  /* 0 unknown */
	unsigned cupti;
} ta_records_meta;

/* The figures of a recorded record stream: the model's kernels, or with
 * every_kernel all kernels it launched (a baseline runs kernels of its
 * own). meta may be NULL. Returns 0, or -1 with *err (caller frees). */
int ta_run_figures_from_records(const ta_model *m, const char *records, const ta_gpu_info *gpu,
				bool every_kernel, const char *label, ta_run_figures *out,
				ta_records_meta *meta, char **err);

#endif
