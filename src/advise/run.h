/* Runs and their results as the session's measurements. */
#ifndef TA_ADVISE_RUN_H
#define TA_ADVISE_RUN_H

#include <stdbool.h>

#include "advise/walk.h"
#include "analyze/model.h"
#include "profile/gpu.h"

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
