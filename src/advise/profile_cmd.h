/* `tileadvise --profile`: the file's command (or a recorded stream of it)
 * measured under CUPTI, printed as text or JSON. A driver of the advisor
 * (advise/advisor.h) in its measuring mode, which resolves the device and
 * runs the sequence: the timed runs one after the other, the two --deep
 * runs, the baseline run or stream. This front end says what the runs
 * said (CUPTI errors, dropped records, another profiler holding CUPTI, a
 * failed run's last lines) and writes the figures with
 * profile/measure_report.h. */
#ifndef TA_ADVISE_PROFILE_CMD_H
#define TA_ADVISE_PROFILE_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "profile/measure_report.h"
#include "util/exitcode.h"

typedef struct ta_profile_request {
	const char *file;                 /* the kernel file; the default command is `python3 FILE` */
	bool analyse;                     /* measure file's own kernels: it is analysed first */
	char *const *command;             /* NULL-terminated argv given after "--"; NULL: the default */
	const char *baseline;             /* --baseline CMD: a shell command (sh -c), measured
	                                   * the same way and compared; NULL: none */
	const char *const *kernel_names;  /* not analysed: the file's kernels; n == 0: every
	                                   * kernel is the file's */
	const bool *autotuned;            /* parallel to kernel_names: the file autotunes it
	                                   * (NULL: any may be autotuned) */
	size_t n_kernel_names;
	const char *injector;             /* full path of libtileadvise-cupti.so; NULL: the
	                                   * installed one (ta_libdir()) */
	double timeout_s;                 /* per run; <= 0: 600 */
	int repeat;                       /* runs to pool; <= 0: 1 */
	ta_profile_format format;
	const char *gpu_preset;           /* "h200": device facts without a GPU (tests); NULL: libcuda */
	const char *records_in;           /* replay a recorded .jsonl instead of running */
	const char *records_out;          /* save the raw record stream here; NULL: don't */
	const char *baseline_records;     /* compare with a recorded stream instead of a
	                                   * baseline command; NULL: none */
	bool deep;                        /* after the timed runs, one PC sampling run and one
	                                   * counters run (profile/deep.h) */
} ta_profile_request;

/* Does the whole `--profile`: runs (or replays), measures and prints to
 * out; problems (no GPU, an unknown --gpu, no injector records, crash,
 * timeout) are one line each on err, and the child's last output lines when
 * it failed. Returns the exit status for the program: TA_EXIT_OK when a
 * measurement was printed (even an empty one), TA_EXIT_ERROR when nothing
 * could be measured (the file did not read, the command could not run,
 * crashed or timed out before any record, no GPU). */
ta_exit ta_profile_run_command(const ta_profile_request *req, FILE *out, FILE *err);

#endif
