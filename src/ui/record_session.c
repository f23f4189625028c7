/* `--record-session`: the advisor in its recording mode (see
 * record_session.h). */
#include "config.h"
#include "ui/record_session.h"

#include <stdio.h>
#include <stdlib.h>

#include "advise/advisor.h"
#include "util/buf.h"
#include "util/fsutil.h"

/* The kernel a replay opens on: the file's first launched kernel (an edit
 * may add a helper before it), else its first. */
static const char *opening_kernel(const ta_walk *w)
{
	for (size_t i = 0; w && i < w->n_kernels; i++)
		if (!w->kernels[i].helper)
			return w->kernels[i].name;
	return w && w->n_kernels ? w->kernels[0].name : NULL;
}

int ta_session_record_walk(const ta_record_options *ro, char **err)
{
	const ta_record_step *steps = ro->steps;
	size_t n_steps = ro->n_steps;
	ta_advisor_options o = {
		.file = ro->file,
		.records = ro->records,
		.baseline_records = ro->baseline_records,
		.gpu_preset = ro->gpu_preset,
		.recording = true,
		.first_label = "recorded run",
		.session_path = ro->out,
		.select = ro->select,
		.ignore = ro->ignore,
		.isolated = ro->isolated,
	};
	ta_advisor *a;
	if (ta_advisor_open(&o, &a, err) != 0)
		return -1;
	ta_advisor_start(a);
	/* A first stream that does not read stops the recording. */
	ta_advisor_event ev;
	while (ta_advisor_next_event(a, &ev)) {
		if (ev.kind == TA_ADVISOR_PROJECT)
			fprintf(stderr, "tileadvise: %s\n", ev.text);
		if (ev.kind == TA_ADVISOR_RUN_FAILED) {
			*err = ta_xstrdup(ev.text);
			ta_advisor_free(a);
			return -1;
		}
	}
	int kept = 0;
	for (size_t i = 0; i < n_steps; i++) {
		ta_step_request r = { .id = steps[i].id, .unsafe_ok = true, .records = steps[i].records,
				      .measured = steps[i].measured };
		char *why = NULL;
		int rc = ta_advisor_apply_step(a, &r, &why);
		if (rc < 0) {
			*err = ta_xasprintf("--step %s (step %zu of %zu): %s", steps[i].id, i + 1, n_steps, why);
			free(why);
			ta_advisor_free(a);
			return -1;
		}
		kept += rc;
	}
	int rc = ta_advisor_save(a, opening_kernel(ta_advisor_walk(a)), NULL, err);
	ta_advisor_free(a);
	return rc == 0 ? kept : -1;
}
