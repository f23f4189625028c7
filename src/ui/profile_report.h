/* `tileadvise --profile`: runs the command under the injector, builds the
 * measurement, prints it as text or JSON. */
#ifndef TA_UI_PROFILE_REPORT_H
#define TA_UI_PROFILE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analyze/model.h"
#include "profile/gpu.h"
#include "profile/measure.h"
#include "util/exitcode.h"

typedef enum ta_profile_format {
	TA_PROFILE_TEXT,
	TA_PROFILE_JSON,
} ta_profile_format;

/* Prints the measurement (per kernel: launches, steady-state figures per
 * configuration, occupancy and waves when gpu is given). Returns 0, or -1
 * on a write error. */
int ta_profile_print(const ta_measurement *m, const ta_gpu_info *gpu, ta_profile_format format,
		     FILE *out);

typedef struct ta_profile_request {
	const char *file;                 /* the kernel file; the default command is `python3 FILE` */
	char *const *command;             /* NULL-terminated argv given after "--"; NULL: the default */
	const char *baseline;             /* --baseline CMD: a shell command (sh -c), measured
	                                   * the same way and compared; NULL: none */
	const ta_model *model;            /* the file's model: its kernels are measured; NULL:
	                                   * those named below */
	const char *const *kernel_names;  /* without a model, the file's kernels; n == 0: every
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

/* Does the whole `--profile` for the CLI: runs (or replays), measures and
 * prints to out; problems (no GPU, no injector records, crash, timeout) are
 * one line each on err, and the child's last output lines when it failed.
 * Returns the exit status for the program: TA_EXIT_OK when a measurement
 * was printed (even an empty one), TA_EXIT_ERROR when nothing could be
 * measured (the command could not run, crashed or timed out before any
 * record, no GPU). */
ta_exit ta_profile_run_command(const ta_profile_request *req, FILE *out, FILE *err);

#endif
