/* A session: everything one advising session on a kernel file produced,
 * kept beside the kernel in `.tileadvise/session-NAME.json` so that
 * reopening the file resumes it, and self-contained so that `--replay`
 * shows it on a machine without the GPU (or the file).
 *
 * Contents (format version TA_SESSION_VERSION):
 *   file       name, path, fingerprint (FNV-1a 64 hash and size) of the
 *              current version
 *   env        GPU (name, sm, SMs), driver, CUDA, software versions, or why
 *              there was no GPU; the date
 *   command    the profiled command; test: the --test command
 *   versions   the file's text at each version (0 = as first opened)
 *   runs       measurements: per kernel the steady-state figures and the
 *              durations, so later comparisons can be made
 *   baseline   optional: a measured reference (previous version or another
 *              implementation) and its command, for T4/T5
 *   edits      applied edits: id, kernel, line, from/to version, runs
 *              before/after, test result, undone flag
 *   skips      steps the user skipped
 *   walk       the steps with findings and diffs at the current version
 *   position   the kernel and step last shown */
#ifndef TA_ADVISE_SESSION_H
#define TA_ADVISE_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "advise/walk.h"
#include "profile/gpu.h"

#define TA_SESSION_VERSION 1

typedef struct ta_session_env {
	bool has_gpu;
	char *gpu;                /* "NVIDIA H200" */
	int cc_major, cc_minor, sm_count;
	int driver;               /* CUDA driver API version, e.g. 13000; 0 unknown */
	unsigned cupti;           /* CUPTI version from the injector; 0 unknown */
	char *software;           /* free text: "Triton 3.6.0, torch 2.11.0+cu130" */
	char *no_gpu;             /* why there was none; NULL when has_gpu */
	char *host;               /* where it was recorded; may be NULL */
} ta_session_env;

typedef struct ta_session_version {
	uint64_t hash;            /* FNV-1a 64 of text */
	char *text;               /* the file's bytes (owned, NUL-terminated) */
	size_t len;
	char *label;              /* "as opened", "after S3" */
} ta_session_version;

typedef enum ta_test_state { TA_TEST_NONE, TA_TEST_PASSED, TA_TEST_FAILED } ta_test_state;

typedef struct ta_session_edit {
	char id[8];
	char *kernel;
	uint32_t line;
	char *date;
	unsigned from_version, to_version;
	int before_run, after_run;   /* indexes into runs; -1 none */
	bool undone;
	char *diff;                  /* as applied */
	ta_test_state test;
	char *test_note;             /* one line: how the test ended */
	char *broken;                /* why the run after it shows the edit broke the
	                              * program (advise/check_lines.h); NULL: not seen */
} ta_session_edit;

typedef struct ta_session_skip {
	char *kernel;
	char id[8];
} ta_session_skip;

typedef struct ta_session {
	char *file_name;             /* basename of the kernel file */
	char *file_path;             /* as given when the session was made */
	uint64_t file_hash, file_size;
	char *created, *updated;     /* ISO 8601 UTC */
	char *tool;                  /* "tileadvise 0.1.0" */
	ta_session_env env;
	char **command;              /* NULL-terminated; NULL when default */
	char *test_command;
	ta_session_version *versions;
	size_t n_versions;
	unsigned current;            /* the version the file is at */
	ta_run_figures *runs;
	size_t n_runs;
	ta_run_figures *baseline;    /* the reference T4/T5 compare with; NULL: none */
	char *baseline_source;       /* its command or record file, as given */
	char *check_lines;           /* the first run's check lines (advise/check_lines.h);
	                              * NULL: none kept yet */
	ta_session_edit *edits;
	size_t n_edits;
	ta_session_skip *skips;
	size_t n_skips;
	ta_walk *walk;               /* owned; may be NULL */
	char *pos_kernel;
	char pos_step[8];
} ta_session;

/* A new session for the kernel at path with its text as version 0. Free
 * with ta_session_free. */
ta_session *ta_session_new(const char *path, const char *text, size_t len);
void ta_session_free(ta_session *s);

/* Where the session of the kernel at path lives:
 * DIR/.tileadvise/session-NAME.json. Caller frees. */
char *ta_session_path_for(const char *kernel_path);

/* Reads a session. Returns 0 and *out, or -1 with *err (caller frees): a
 * line naming the file and the problem (not JSON, not a session, written by
 * a newer tileadvise, a field of the wrong type). */
int ta_session_load(const char *path, ta_session **out, char **err);
int ta_session_from_json(const char *text, size_t len, const char *name, ta_session **out,
			 char **err);
/* The session as JSON text (caller frees). */
char *ta_session_to_json(const ta_session *s);
/* Writes atomically, creating the folder (0700) when it is .tileadvise. */
int ta_session_save(ta_session *s, const char *path, char **err);

/* Adds the text as a version unless it is the current one; makes it
 * current and returns its index. */
unsigned ta_session_add_version(ta_session *s, const char *text, size_t len, const char *label);
/* The index of the version with this hash, or -1. */
int ta_session_find_version(const ta_session *s, uint64_t hash);
/* Takes over *run (left empty); returns its index. */
int ta_session_add_run(ta_session *s, ta_run_figures *run);
/* Replaces the baseline, taking over *run (left empty); run NULL: none. */
void ta_session_set_baseline(ta_session *s, ta_run_figures *run, const char *source);
/* The last run of version v, or -1. */
int ta_session_run_of(const ta_session *s, unsigned v);
/* Enters an edit that took the file from version from_version to the
 * current one (the run before it: from_version's last). */
ta_session_edit *ta_session_add_edit(ta_session *s, const char *id, const char *kernel,
				     uint32_t line, const char *diff, unsigned from_version);
/* The last edit in effect (not undone), or NULL. */
ta_session_edit *ta_session_last_edit(ta_session *s);
/* Why the edit is broken (its run's check, or its failed test), or NULL
 * (caller frees). */
char *ta_session_edit_broken(const ta_session_edit *e);
/* The first undone edit after the last one in effect, or NULL. */
ta_session_edit *ta_session_next_undone(ta_session *s);
void ta_session_set_skip(ta_session *s, const char *kernel, const char *id, bool on);
bool ta_session_skipped(const ta_session *s, const char *kernel, const char *id);
/* Replaces the stored walk (takes w). */
void ta_session_set_walk(ta_session *s, ta_walk *w);
void ta_session_set_env_gpu(ta_session *s, const ta_gpu_info *gpu);

/* Marks w from what the user did: skipped steps, applied edits with their
 * measured change (first kernel that has one), and edits that broke the
 * run or failed the test (ta_step.broken). */
void ta_session_annotate(const ta_session *s, ta_walk *w);

/* How the session's runs of kernel compare (ta_change_compare): their
 * parts, when every run that measured it (none an edit broke) ran in as
 * many, two or more; else the time per call. One way for all, so that a
 * step's before is the previous step's after and the steps' ratios
 * multiply to the whole walk's. */
ta_pairing ta_session_pairing(const ta_session *s, const char *kernel);
/* Run run's figure for kernel as the session compares it: the geometric
 * mean of its parts' medians (*parts: how many) when they pair, else its
 * GPU time per call (sessions before that: its median; *parts 0). */
double ta_session_figure(const ta_session *s, int run, const char *kernel, size_t *parts);
/* The change of kernel from run before to run after, compared the
 * session's way; not measured when a run index is out of range. */
ta_change ta_session_change(const ta_session *s, int before, int after, const char *kernel);

/* The measured change of kernel over the whole walk: from the session's
 * first run that measured it to the run of the version the file is at
 * (runs of a version that an edit broke do not count), compared as
 * ta_change_between does. When the two runs share no launch shape, the
 * workload's GPU time per call (every shape) stands for each, with no
 * interval: the verdict is faster or slower beyond 5%, else within noise.
 * Returns false when there are not two such runs; *first and *last (may
 * be NULL) get their indexes. */
bool ta_session_walk_change(const ta_session *s, const char *kernel, ta_change *out, int *first,
			    int *last);

/* ISO 8601 UTC of now, or of ns since the epoch. Caller frees. */
char *ta_session_now(void);
char *ta_session_date_ns(uint64_t ns);

#endif
