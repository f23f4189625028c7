/* Runs and their results as the session's measurements. */
#include "config.h"
#include "advise/run.h"

#include <stdlib.h>

#include "advise/session.h"
#include "analyze/source.h"
#include "profile/autotune.h"
#include "profile/deep.h"
#include "profile/measure.h"
#include "profile/protocol.h"
#include "util/buf.h"
#include "util/fsutil.h"

static uint64_t first_start_ns(const ta_records *r)
{
	uint64_t t = 0;
	for (size_t i = 0; i < r->n_kernels; i++)
		if (r->kernels[i].start_ns && (!t || r->kernels[i].start_ns < t))
			t = r->kernels[i].start_ns;
	return t;
}

int ta_run_figures_from_records(const ta_model *m, const char *records, const ta_gpu_info *gpu,
				bool every_kernel, const char *label, ta_run_figures *out,
				ta_records_meta *meta, char **err)
{
	ta_records recs;
	ta_records_init(&recs);
	if (ta_records_load_file(&recs, records, err) != 0) {
		ta_records_clear(&recs);
		return -1;
	}
	size_t n = every_kernel ? 0 : m->kernel_count;
	const char **names = ta_xcalloc(n + 1, sizeof *names);
	bool *autotuned = ta_xcalloc(n + 1, sizeof *autotuned);
	for (size_t i = 0; i < n; i++) {
		names[i] = m->kernels[i].name;
		autotuned[i] = m->kernels[i].autotune != NULL;
	}
	ta_measurement *meas = ta_measure_build(&recs, names, every_kernel ? NULL : autotuned, n, gpu);
	/* The child's output saved with the records: Triton's autotuning report. */
	ta_autotune_log tl;
	ta_autotune_log_init(&tl);
	char *terr = NULL;
	if (ta_autotune_log_load_records(&tl, records, &terr) < 0)
		free(terr);
	ta_autotune_log_finish(&tl);
	ta_autotune_attach(meas, &tl);
	ta_autotune_log_clear(&tl);
	uint64_t t0 = first_start_ns(&recs);
	char *date = t0 ? ta_session_date_ns(t0) : ta_session_now();
	ta_run_figures_from_measure(out, meas, label, date, 0);
	/* Saved --deep runs come along. */
	ta_deep *deep = ta_deep_build(&recs, m->src ? m->src->path : NULL, names, n, meas);
	ta_run_figures_attach_deep(out, deep);
	ta_deep_free(deep);
	if (meta) {
		meta->date = date;
		meta->driver = recs.driver_version;
		meta->cupti = recs.cupti_version;
	} else {
		free(date);
	}
	ta_measurement_free(meas);
	free(names);
	free(autotuned);
	ta_records_clear(&recs);
	return 0;
}
