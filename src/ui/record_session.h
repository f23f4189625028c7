/* `--record-session OUT`: a session written without a terminal from runs
 * saved on a GPU, a driver of the advisor (advise/advisor.h) in its
 * recording mode: the file is analysed, the first run read from a record
 * stream, and each `--step ID=RECORDS[,MEASURED]` applied in order. */
#ifndef TA_UI_RECORD_SESSION_H
#define TA_UI_RECORD_SESSION_H

#include <stdbool.h>
#include <stddef.h>

/* One step of a recorded walk: today's mechanical edit of id made on
 * every site of the current version, the version after it measured by
 * records; measured (may be NULL) is the file those records measured,
 * kept when today's edit gives other bytes. Strings are borrowed. */
typedef struct ta_record_step {
	const char *id;
	const char *records;
	const char *measured;
} ta_record_step;

typedef struct ta_record_options {
	const char *file;             /* the kernel file */
	const char *records;          /* its first run (NULL: none) */
	const char *baseline_records; /* the baseline (NULL: none) */
	const char *gpu_preset;       /* a known GPU's facts, e.g. "h200" (NULL: none) */
	const ta_record_step *steps;
	size_t n_steps;
	const char *out;              /* where the session is written */
	/* The walk's entries, as the advisor takes them: --select, --ignore
	 * (NULL: the project's pyproject.toml), --isolated (none read). */
	const char *select, *ignore;
	bool isolated;
} ta_record_options;

/* Analyses the file, takes its first run from the records and the
 * baseline from baseline_records, with the facts of the GPU named, makes
 * each step in order and writes the session. Returns how many steps kept
 * the measured text (0: today's edits gave every measured file), or -1
 * with *err (caller frees) naming the step that could not be made. */
int ta_session_record_walk(const ta_record_options *o, char **err);

#endif
