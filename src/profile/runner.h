/* Runs the user's command under the CUPTI injector: its own process group,
 * output into a bounded log, records decoded as they arrive, a timeout and
 * cancel. The child gets TRITON_PRINT_AUTOTUNING=1 unless the environment
 * sets it (profile/autotune.h reads what Triton then prints). Non-blocking: a UI loop calls ta_runner_poll (or polls
 * ta_runner_fds itself) and stays responsive. */
#ifndef TA_PROFILE_RUNNER_H
#define TA_PROFILE_RUNNER_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "profile/protocol.h"

#define TA_RUNNER_DEFAULT_TIMEOUT_S 600.0
#define TA_RUNNER_DEFAULT_GRACE_S 3.0
#define TA_RUNNER_DEFAULT_LOG_CAP ((size_t)1 << 20)

/* The default command for a kernel file: python3 FILE, with "--" before a
 * FILE that starts with '-' so that python3 never reads it as an option.
 * Fills argv[0..3]; the strings are file's or static. */
void ta_runner_python_argv(const char *file, char *argv[4]);

typedef struct ta_runner_opts {
	char *const *argv;          /* NULL-terminated; argv[0] is looked up in PATH, no shell */
	const char *injector;       /* path of libtileadvise-cupti.so; NULL runs without it */
	const char *cupti_libdir;   /* where libcupti is; NULL: the build-time place, then
	                             * the usual CUDA places */
	double timeout_s;           /* <= 0: no timeout */
	double grace_s;             /* SIGINT to SIGKILL, on timeout or cancel; <= 0: 3 s */
	size_t log_cap;             /* output bytes kept (the last ones); 0: 1 MiB */
	ta_records *records;        /* decoded records are appended here (not owned); may be NULL */
	int run_index;              /* stamped on the kernels of this run */
	FILE *records_tee;          /* the raw record bytes are also written here; may be NULL */
	/* Each line of the child's output as it arrives (without its "\n"; an
	 * unterminated last one at the end; lines over 64 KiB cut there), also
	 * what the bounded log no longer holds; may be NULL. */
	void (*output_line)(void *ctx, const char *line, size_t len);
	void *output_ctx;
	const char *deep;           /* "pc" or "sol": a --deep run (TILEADVISE_DEEP); NULL: timed */
	const char *deep_kernels;   /* kernels the deep run looks at, commas; NULL: all */
	const char *const *extra_env; /* NULL-terminated "NAME=VALUE" set in the child's
	                             * environment, unless it already sets NAME; may be NULL */
	bool tee_output;            /* also write each output line into records_tee as a
	                             * {"type":"output","line":"..."} record, between
	                             * record lines */
} ta_runner_opts;

typedef enum ta_run_state {
	TA_RUN_RUNNING,
	TA_RUN_EXITED,              /* exit_status is valid */
	TA_RUN_SIGNALED,            /* term_signal is valid */
	TA_RUN_TIMED_OUT,
	TA_RUN_CANCELLED,
	TA_RUN_EXEC_FAILED,         /* exec_errno is valid */
} ta_run_state;

typedef struct ta_run_result {
	ta_run_state state;
	int exit_status;
	int term_signal;
	int exec_errno;
	double elapsed_s;
	double timeout_s;
	unsigned long long log_bytes;          /* output bytes the child wrote */
	unsigned long long log_dropped;        /* of which no longer in the log */
	unsigned long long record_bytes;       /* bytes on the record channel */
} ta_run_result;

typedef struct ta_runner ta_runner;

/* Starts the command. Returns the runner (free with ta_runner_free), or NULL
 * with *err (caller frees) when it could not even be started (no pipes, no
 * fork). A command that is not found is not an error here: the run ends at
 * once in TA_RUN_EXEC_FAILED. */
ta_runner *ta_runner_start(const ta_runner_opts *opts, char **err);

/* Does the pending work, waiting at most timeout_ms (-1: until something
 * happens) for the child. Returns true once the run is over (the child
 * reaped, its process group killed, its pipes drained). */
bool ta_runner_poll(ta_runner *r, int timeout_ms);

/* Waits for the end of the run (calling ta_runner_poll). */
void ta_runner_wait(ta_runner *r);

/* The runner's descriptors, for a UI that polls them with its own: fills at
 * most max entries (events set) and returns how many there are. After any of
 * them is ready, or at least every ta_runner_next_deadline_ms, call
 * ta_runner_poll(r, 0). */
size_t ta_runner_fds(const ta_runner *r, struct pollfd *fds, size_t max);
/* Milliseconds until the runner needs a call even without fd activity
 * (timeout, kill after the grace period); -1 when nothing is due. */
int ta_runner_next_deadline_ms(const ta_runner *r);

/* Asks the run to stop: SIGINT to the process group now, SIGKILL after the
 * grace period. The run then ends as TA_RUN_CANCELLED. */
void ta_runner_cancel(ta_runner *r);

bool ta_runner_done(const ta_runner *r);
const ta_run_result *ta_runner_result(const ta_runner *r);

/* A copy of the kept output (at most log_cap bytes, NUL-terminated);
 * caller frees. *len may be NULL. */
char *ta_runner_log(const ta_runner *r, size_t *len);

/* One line saying how the run ended: "exited 0", "exited with status 1",
 * "killed by SIGSEGV", "timed out after 600 s", "cancelled", "command not
 * found: foo", "not executable: foo". Caller frees. */
char *ta_runner_describe(const ta_runner *r);

/* Kills the process group if it is still running, reaps it, frees r. */
void ta_runner_free(ta_runner *r);

/* The directory holding libcupti to put on the child's library path, or
 * NULL when none of the known places has it. Static string or `hint`. */
const char *ta_runner_find_cupti(const char *hint);
/* Whether dir holds the CUPTI the injector was linked against (the soname
 * of the build's toolkit, e.g. libcupti.so.13); true when unknown. */
bool ta_runner_cupti_fits(const char *dir);

/* "SIGSEGV" for SIGSEGV, "signal 42" for an unnamed one: a static string or
 * one in buf[32]. */
const char *ta_signal_name(int sig, char buf[32]);

#endif
