/* The front ends of a session: its markdown report (`--report --replay`,
 * the advisor's report file) and recording a session without a terminal
 * (`--record-session`). */
#ifndef TA_UI_SESSION_REPORT_H
#define TA_UI_SESSION_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "advise/session.h"

/* The markdown report of a session: file, GPU, each kernel's steps,
 * applied edits with before -> after and interval. Returns 0, or -1 on a
 * write error. */
int ta_session_report(const ta_session *s, const ta_walk *w, FILE *out);

/* `--record-session OUT`: analyses file, takes the measurement from a
 * recorded record stream (records may be NULL: no measurement) and the
 * baseline from another (baseline_records, may be NULL) with the facts of
 * a known GPU (gpu_preset, e.g. "h200"), and writes a session to out.
 * Returns 0, or -1 with *err (caller frees). */
int ta_session_record(const char *file, const char *records, const char *baseline_records,
		      const char *gpu_preset, const char *out, char **err);

/* ta_session_record, then each step in order: a new version, its run and
 * an applied edit whose before and after runs are the runs of the versions
 * before and after it. Returns how many steps kept the measured text (0:
 * today's edits gave every measured file), or -1 with *err (caller frees)
 * naming the step that could not be made (no site, a guided-only entry,
 * records that do not read, a result that does not parse). */
int ta_session_record_walk(const char *file, const char *records, const char *baseline_records,
			   const char *gpu_preset, const ta_record_step *steps, size_t n_steps,
			   const char *out, char **err);

#endif
