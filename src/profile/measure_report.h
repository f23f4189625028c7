/* A measurement written out as `tileadvise --profile` prints it: text for
 * people, JSON for scripts (the same facts), and its comparison with a
 * baseline's. Kernel names that are mangled C++ are shown demangled. */
#ifndef TA_PROFILE_MEASURE_REPORT_H
#define TA_PROFILE_MEASURE_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "profile/gpu.h"
#include "profile/measure.h"

typedef enum ta_profile_format {
	TA_PROFILE_TEXT,
	TA_PROFILE_JSON,
	TA_PROFILE_CSV,           /* one row per kernel and launch shape, a header first */
	TA_PROFILE_MARKDOWN,      /* a table of the same rows, for a report or an issue */
} ta_profile_format;

/* Prints the measurement (per kernel: launches, steady-state figures per
 * configuration, occupancy and waves when gpu is given). Returns 0, or -1
 * on a write error. */
int ta_profile_print(const ta_measurement *m, const ta_gpu_info *gpu, ta_profile_format format,
		     FILE *out);

/* The measurement as JSON (caller decrefs); gpu may be NULL. */
json_t *ta_measure_json(const ta_measurement *m, const ta_gpu_info *gpu);
/* Writes root indented, with a newline, and decrefs it. Returns 0, or -1
 * on a write error. */
int ta_measure_put_json(json_t *root, FILE *out);

/* m against base, kernel by kernel: a JSON array (caller decrefs), or
 * "vs baseline: ..." lines on out. */
json_t *ta_measure_compare_json(const ta_measurement *base, const ta_measurement *m);
void ta_measure_compare_text(const ta_measurement *base, const ta_measurement *m, FILE *out);

#endif
