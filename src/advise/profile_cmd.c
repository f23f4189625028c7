/* `tileadvise --profile` (see profile_cmd.h): the advisor measuring, then
 * what its runs said and what they measured. */
#include "config.h"
#include "advise/profile_cmd.h"

#include <jansson.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "advise/advisor.h"
#include "advise/run.h"
#include "profile/deep_report.h"
#include "profile/measure_report.h"
#include "util/buf.h"
#include "util/text.h"
#include "util/json.h"
#include "util/fsutil.h"

/* Notes about the record stream, one line each. */
static void record_notes(const ta_records *recs, const ta_run_part *oc, bool replay, FILE *err)
{
	if (!replay && oc->record_bytes == 0 && recs->n_kernels == 0) {
		char *why = ta_run_why_silent();
		fprintf(err, "tileadvise: %s\n", ta_text_name(why));
		free(why);
	}
	for (size_t i = 0; i < recs->n_notes; i++)
		fprintf(err, "tileadvise: note from the profiled run: %s\n", recs->notes[i]);
	bool other_profiler = false;
	for (size_t i = 0; i < recs->n_errors; i++) {
		fprintf(err, "tileadvise: CUPTI error in the child: %s\n", recs->errors[i]);
		other_profiler |= strstr(recs->errors[i], "MULTIPLE_SUBSCRIBERS") != NULL;
	}
	if (other_profiler)
		fprintf(err, "tileadvise: another CUPTI client holds the program (a profiler such as "
			"ncu, nsys or torch.profiler started first): run without it to be measured\n");
	if (recs->dropped)
		fprintf(err, "tileadvise: CUPTI dropped %llu records (its buffers were full): counts are low\n",
			(unsigned long long)recs->dropped);
	if (recs->lost)
		fprintf(err, "tileadvise: %llu record lines could not be delivered\n",
			(unsigned long long)recs->lost);
	if (recs->n_malformed + recs->n_overlong + recs->n_truncated)
		fprintf(err, "tileadvise: skipped %zu malformed and %zu truncated record lines\n",
			recs->n_malformed + recs->n_overlong, recs->n_truncated);
	if (!replay && recs->n_hello > recs->n_bye)
		fprintf(err, "tileadvise: %zu process%s ended without the final flush (killed or "
			"os._exit): the last launches may be missing\n", recs->n_hello - recs->n_bye,
			recs->n_hello - recs->n_bye == 1 ? "" : "es");
}

/* What the two --deep runs said: a child that could not start or failed,
 * and another CUPTI client refused in them. */
static void deep_notes(const ta_measured *x, FILE *err)
{
	static const char *const what[] = { "PC sampling", "counters" };
	for (size_t i = 0; i < 2; i++) {
		const ta_run_part *p = &x->deep[i];
		if (p->start_error)
			fprintf(err, "tileadvise: --deep %s run: %s\n", what[i], p->start_error);
		else if (p->any_failed)
			fprintf(err, "tileadvise: the --deep %s run %s\n", what[i], p->describe);
	}
	bool timed_too = x->timed.other_client;
	if (x->deep[0].other_client || x->deep[1].other_client)
		fprintf(err, "tileadvise: the program's own CUPTI client (torch.profiler or another "
			"profiler) could not start during the --deep runs%s, which need CUPTI's one "
			"subscriber: its trace is empty there%s\n", timed_too ? " either" : "",
			timed_too ? " too" : "; in the timed run it started");
}

/* The timed run's launch callbacks hold CUPTI's one subscriber (Kineto
 * starts later and is refused: seen on an H200 with torch 2.11). */
static void timed_other_client(bool other_client, FILE *err)
{
	if (other_client)
		fprintf(err, "tileadvise: the program's own CUPTI client (torch.profiler or another "
			"profiler) could not start in the timed run: tileadvise's launch callbacks "
			"hold CUPTI's one subscriber, so that client's trace is empty. "
			"TILEADVISE_TRACE=plain leaves the subscriber to it, but tileadvise then sees "
			"only what that client leaves (1 of 66 kernels in a run on an H200)\n");
}

/* The deep view of the records; a note when --deep found nothing. */
static ta_deep *deep_view(const ta_profile_request *req, const ta_run *run, const ta_measurement *m,
			  FILE *err)
{
	ta_deep *d = ta_run_deep(run, m);
	if (!d && req->deep)
		fprintf(err, "tileadvise: --deep collected no PC samples or counters%s\n",
			ta_run_records(run)->n_errors ? " (the CUPTI errors above say why)"
			: ta_run_records(run)->n_notes ? " (the notes above say why)" : "");
	return d;
}

/* What the timed runs said, as they said it: another CUPTI client, the
 * --deep runs, a child that could not start (then nothing is measured:
 * false), a failed run and its last lines. */
static bool live_notes(const ta_measured *x, FILE *err)
{
	if (x->tee_error)
		fprintf(err, "tileadvise: %s\n", x->tee_error);
	timed_other_client(x->timed.other_client, err);
	if (x->deep_ran)
		deep_notes(x, err);
	if (x->timed.start_error) {
		fprintf(err, "tileadvise: %s\n", x->timed.start_error);
		return false;
	}
	const ta_run_part *oc = &x->timed;
	if (oc->any_failed) {
		fprintf(err, "tileadvise: the profiled run failed: %s\n", oc->describe);
		if (oc->log_tail && *oc->log_tail)
			fprintf(err, "--- last lines of its output ---\n%s%s", oc->log_tail,
				oc->log_tail[strlen(oc->log_tail) - 1] == '\n' ? "" : "\n");
	}
	return true;
}

/* The baseline's measurement (NULL: none, or it could not be had: said on
 * err). */
static ta_measurement *baseline(const ta_measured *x, const ta_gpu_info *gpu, FILE *err)
{
	if (x->baseline_error) {
		fprintf(err, "tileadvise: cannot read the baseline records: %s\n", x->baseline_error);
		return NULL;
	}
	if (x->base.start_error) {
		fprintf(err, "tileadvise: baseline: %s\n", x->base.start_error);
		return NULL;
	}
	if (!x->baseline)
		return NULL;
	if (x->base.any_failed)
		fprintf(err, "tileadvise: the baseline run failed: %s\n", x->base.describe);
	return ta_run_measure(x->baseline, gpu);
}

/* Feeds the advisor's runs until none is left. */
static void wait_idle(ta_advisor *a)
{
	while (ta_advisor_busy(a)) {
		struct pollfd fds[8];
		size_t n = ta_advisor_fds(a, fds, 8);
		int t = ta_advisor_deadline_ms(a);
		if (t < 0 || t > 1000)
			t = 1000;   /* a child reaped without a word still ends the wait */
		poll(fds, (nfds_t)n, t);
		ta_advisor_poll(a);
	}
}

/* What was measured, in the request's format. Returns 0, or -1 on a
 * write error. */
static int write_result(const ta_profile_request *req, const ta_run_part *oc, const ta_measurement *m,
			const ta_gpu_info *gpu, const ta_deep *deep, const ta_measurement *base, FILE *out)
{
	if (req->format == TA_PROFILE_JSON) {
		json_t *root = ta_measure_json(m, gpu);
		json_object_set_new(root, "outcome", ta_json_raw(oc->describe));
		if (deep)
			json_object_set_new(root, "deep", ta_deep_json(deep));
		if (base)
			json_object_set_new(root, "baseline", ta_measure_compare_json(base, m));
		return ta_measure_put_json(root, out);
	}
	if (req->format == TA_PROFILE_CSV)   /* the rows alone: a spreadsheet reads them */
		return ta_profile_print(m, gpu, TA_PROFILE_CSV, out);
	bool md = req->format == TA_PROFILE_MARKDOWN;
	if (oc->describe)
		fprintf(out, "run: %s (%d run%s)\n%s", oc->describe, m->runs > 0 ? m->runs : 1, m->runs > 1 ? "s" : "",
			md ? "\n" : "");
	int rc = ta_profile_print(m, gpu, req->format == TA_PROFILE_MARKDOWN ? TA_PROFILE_MARKDOWN : TA_PROFILE_TEXT, out);
	if (deep) {
		ta_buf b = TA_BUF_INIT;
		ta_deep_text(&b, deep, req->file, 8);
		fputs(ta_buf_str(&b), out);
		ta_buf_free(&b);
	}
	if (base)
		ta_measure_compare_text(base, m, out);
	return rc;
}

/* The advisor, measuring: the device, the runs (or the stream), the
 * baseline; then what they said and what they measured. */
static ta_exit profile(const ta_profile_request *req, FILE *out, FILE *err)
{
	ta_advisor_options o = {
		.file = req->file,
		.measuring = true,
		.no_analysis = !req->analyse,
		.kernel_names = req->kernel_names,
		.autotuned = req->autotuned,
		.n_kernel_names = req->n_kernel_names,
		.command = req->command,
		.injector = req->injector,
		.timeout_s = req->timeout_s,
		.repeat = req->repeat,
		.records = req->records_in,
		.records_out = req->records_out,
		.gpu_preset = req->gpu_preset,
		.baseline = req->baseline,
		.baseline_records = req->baseline_records,
		.deep = req->deep,
	};
	ta_advisor *a;
	char *why = NULL;
	if (ta_advisor_open(&o, &a, &why) != 0) {
		fprintf(err, "tileadvise: %s\n", why);
		free(why);
		return TA_EXIT_ERROR;
	}
	ta_exit status = TA_EXIT_ERROR;
	const ta_gpu_info *gpu = ta_advisor_gpu(a);
	if (!req->records_in && !req->injector && !ta_run_can_profile()) {
		fprintf(err, "tileadvise: profiling is off in this build (configured without CUPTI; "
			"rebuild with --with-cuda=DIR)\n");
		goto out;
	}
	if (!gpu && ta_advisor_why_no_run(a) && !req->records_in) {
		fprintf(err, "tileadvise: cannot profile: %s (--records FILE reads a run saved on a GPU; "
			"the advisor works without one: --no-profile, or --replay SESSION)\n",
			ta_advisor_why_no_run(a));
		goto out;
	}
	ta_advisor_start(a);
	wait_idle(a);
	const ta_measured *x = ta_advisor_measured(a);
	if (x->records_error) {
		fprintf(err, "tileadvise: cannot read records: %s\n", x->records_error);
		goto out;
	}
	if (!req->records_in && !live_notes(x, err))
		goto out;
	const ta_records *recs = ta_run_records(x->run);
	record_notes(recs, &x->timed, req->records_in != NULL, err);
	ta_measurement *m = ta_run_measure(x->run, gpu);
	if (ta_run_tune_truncated(x->run))
		fprintf(err, "tileadvise: %zu of Triton's autotuning reports were cut short\n",
			ta_run_tune_truncated(x->run));
	ta_deep *deep = deep_view(req, x->run, m, err);
	ta_measurement *base = baseline(x, gpu, err);
	bool nothing = m->n_kernels == 0 && recs->n_kernels == 0 && !x->timed.ran_ok && !req->records_in;
	status = write_result(req, &x->timed, m, gpu, deep, base, out) != 0 || nothing ? TA_EXIT_ERROR
											: TA_EXIT_OK;
	ta_deep_free(deep);
	ta_measurement_free(m);
	ta_measurement_free(base);
out:
	ta_advisor_free(a);
	return status;
}

ta_exit ta_profile_run_command(const ta_profile_request *req, FILE *out, FILE *err)
{
	return profile(req, out, err);
}
