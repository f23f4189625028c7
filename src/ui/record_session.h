/* `--record-session OUT`: a session written without a terminal from runs
 * saved on a GPU, a driver of the advisor (advise/advisor.h) in its
 * recording mode: the file is analysed, the first run read from a record
 * stream, and each `--step ID=RECORDS[,MEASURED]` applied in order. */
#ifndef TA_UI_RECORD_SESSION_H
#define TA_UI_RECORD_SESSION_H

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

/* Analyses file, takes its first run from records (may be NULL: no run)
 * and the baseline from baseline_records (may be NULL), with the facts of
 * a known GPU (gpu_preset, e.g. "h200"; may be NULL), makes each step in
 * order and writes the session to out. Returns how many steps kept the
 * measured text (0: today's edits gave every measured file), or -1 with
 * *err (caller frees) naming the step that could not be made. */
int ta_session_record_walk(const char *file, const char *records, const char *baseline_records,
			   const char *gpu_preset, const ta_record_step *steps, size_t n_steps,
			   const char *out, char **err);

#endif
