/* `tileadvise --profile` (see profile_cmd.h): the device, the timed runs
 * (repeated), the --deep runs, the baseline, and what they measured. */
#include "config.h"
#include "advise/profile_cmd.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "advise/device.h"
#include "advise/run.h"
#include "analyze/analysis.h"
#include "profile/deep_report.h"
#include "profile/measure_report.h"
#include "util/buf.h"
#include "util/text.h"
#include "util/json.h"
#include "util/fsutil.h"

typedef struct run_outcome {
	char *describe;              /* how the last failing (or the last) run ended */
	bool any_failed;
	bool ran_ok;                 /* at least one run exited 0 */
	unsigned long long record_bytes;
	char *log_tail;              /* the failing run's last lines */
} run_outcome;

static char *tail_lines(const char *s, size_t len, int lines)
{
	size_t i = len;
	int seen = 0;
	while (i > 0) {
		if (s[i - 1] == '\n' && i != len && ++seen >= lines)
			break;
		i--;
	}
	return ta_xstrndup(s + i, len - i);
}

/* Runs run's command `repeat` times in mode, one child after the other;
 * oc collects how they ended. */
static int run_many(ta_run *run, ta_run_mode mode, int repeat, run_outcome *oc, char **err)
{
	for (int i = 0; i < repeat; i++) {
		if (ta_run_start(run, mode, err) != 0)
			return -1;
		ta_run_wait(run);
		const ta_run_result *x = ta_run_outcome(run);
		oc->record_bytes += x->record_bytes;
		bool failed = !(x->state == TA_RUN_EXITED && x->exit_status == 0);
		if (failed || !oc->any_failed) {
			free(oc->describe);
			oc->describe = ta_run_describe(run);
		}
		if (failed && !oc->any_failed) {
			size_t len;
			char *log = ta_run_log(run, &len);
			oc->log_tail = tail_lines(log, len, 20);
			free(log);
		}
		oc->any_failed |= failed;
		oc->ran_ok |= !failed;
		if (x->state == TA_RUN_EXEC_FAILED || x->state == TA_RUN_TIMED_OUT ||
		    x->state == TA_RUN_CANCELLED)
			break;
	}
	return 0;
}

static void free_outcome(run_outcome *oc)
{
	free(oc->describe);
	free(oc->log_tail);
}

/* Notes about the record stream, one line each. */
static void record_notes(const ta_records *recs, const run_outcome *oc, bool replay, FILE *err)
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

/* A CUPTI client inside the program (torch.profiler's Kineto) that finds
 * our subscriber first says so on its output with this code. */
static void spot_other_client(void *ctx, const char *line, size_t len)
{
	static const char code[] = "MULTIPLE_SUBSCRIBERS";
	if (len >= sizeof code - 1 && memmem(line, len, code, sizeof code - 1))
		*(bool *)ctx = true;
}

/* The two --deep runs, once each, after the timed ones: PC sampling, then
 * the counters. Their records (and errors) join the run's. */
static void deep_runs(ta_run *run, const bool *other_client, bool timed_too, FILE *err)
{
	static const struct {
		ta_run_mode mode;
		const char *what;
	} deep[] = {
		{ TA_RUN_MODE_PC, "PC sampling" },
		{ TA_RUN_MODE_SOL, "counters" },
	};
	for (size_t i = 0; i < 2; i++) {
		run_outcome oc;
		memset(&oc, 0, sizeof oc);
		char *e = NULL;
		if (run_many(run, deep[i].mode, 1, &oc, &e) != 0) {
			fprintf(err, "tileadvise: --deep %s run: %s\n", deep[i].what, e);
			free(e);
		} else if (oc.any_failed) {
			fprintf(err, "tileadvise: the --deep %s run %s\n", deep[i].what, oc.describe);
		}
		free_outcome(&oc);
	}
	if (*other_client)
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

/* A run of cmd for req: its kernels, timeout, injector and tee. */
static ta_run *new_run(const ta_profile_request *req, char *const *cmd, FILE *tee, bool read_tune,
		       bool *other_client)
{
	ta_run_opts o = {
		.file = req->file,
		.model = req->model,
		.kernel_names = req->kernel_names,
		.autotuned = req->autotuned,
		.n_kernel_names = req->n_kernel_names,
		.argv = cmd,
		.injector = req->injector,
		.timeout_s = req->timeout_s,
		.tee = tee,
		.read_tune = read_tune,
		.output_line = other_client ? spot_other_client : NULL,
		.output_ctx = other_client,
	};
	return ta_run_new(&o);
}

/* The device the figures are told against: --gpu's, the driver's, or
 * none (recorded runs without --gpu). Returns 0 with *gpu (NULL: none) or
 * -1 having said why not on err. */
static int find_device(const ta_profile_request *req, ta_gpu_info *store, ta_gpu_info **gpu, FILE *err)
{
	ta_device dev;
	char *why = NULL;
	ta_device_request dr = { .preset = req->gpu_preset, .records = req->records_in != NULL };
	*gpu = NULL;
	if (ta_device_resolve(&dr, &dev, &why) != 0) {
		fprintf(err, "tileadvise: %s\n", ta_text_name(why));
		free(why);
		return -1;
	}
	if (!dev.has_gpu && dev.why_not && !req->records_in) {
		fprintf(err, "tileadvise: cannot profile: %s (--records FILE reads a run saved on a GPU; "
			"the advisor works without one: --no-profile, or --replay SESSION)\n", dev.why_not);
		ta_device_clear(&dev);
		return -1;
	}
	*store = dev.gpu;
	if (dev.has_gpu)
		*gpu = store;
	ta_device_clear(&dev);
	return 0;
}

/* The timed runs (repeat of them) and, when asked for and one ran, the
 * --deep runs; their records saved to --save-records' file. NULL (said on
 * err) when no child could start. */
static ta_run *live_runs(const ta_profile_request *req, run_outcome *oc, FILE *err)
{
	char *e = NULL;
	bool other_client = false;
	FILE *tee = NULL;
	if (req->records_out && !(tee = fopen(req->records_out, "w")))
		fprintf(err, "tileadvise: cannot write %s: %s\n", req->records_out, strerror(errno));
	ta_run *run = new_run(req, req->command, tee, true, &other_client);
	int rc = run_many(run, TA_RUN_MODE_TIMED, req->repeat > 0 ? req->repeat : 1, oc, &e);
	timed_other_client(other_client, err);
	bool timed_other = other_client;
	other_client = false;
	if (rc == 0 && req->deep && oc->ran_ok)
		deep_runs(run, &other_client, timed_other, err);
	if (tee)
		fclose(tee);
	if (rc != 0) {
		fprintf(err, "tileadvise: %s\n", ta_text_name(e));
		free(e);
		ta_run_free(run);
		return NULL;
	}
	if (oc->any_failed) {
		fprintf(err, "tileadvise: the profiled run failed: %s\n", oc->describe);
		if (oc->log_tail && *oc->log_tail)
			fprintf(err, "--- last lines of its output ---\n%s%s", oc->log_tail,
				oc->log_tail[strlen(oc->log_tail) - 1] == '\n' ? "" : "\n");
	}
	return run;
}

/* The baseline's measurement: its recorded stream, or its command run as
 * the file's was (not when the file's run is a recorded one). NULL: none,
 * or it could not be had (said on err). *brun keeps its records. */
static ta_measurement *baseline(const ta_profile_request *req, const ta_gpu_info *gpu, ta_run **brun, FILE *err)
{
	char *e = NULL;
	*brun = NULL;
	if (req->baseline_records) {
		*brun = new_run(req, NULL, NULL, false, NULL);
		if (ta_run_load(*brun, req->baseline_records, &e) != 0) {
			fprintf(err, "tileadvise: cannot read the baseline records: %s\n", e);
			free(e);
			return NULL;
		}
		return ta_run_measure(*brun, gpu);
	}
	if (!req->baseline || req->records_in)
		return NULL;
	char *bargv[] = { "/bin/sh", "-c", (char *)req->baseline, NULL };
	*brun = new_run(req, bargv, NULL, false, NULL);
	run_outcome boc;
	memset(&boc, 0, sizeof boc);
	ta_measurement *base = NULL;
	if (run_many(*brun, TA_RUN_MODE_TIMED, req->repeat > 0 ? req->repeat : 1, &boc, &e) != 0) {
		fprintf(err, "tileadvise: baseline: %s\n", e);
		free(e);
	} else {
		if (boc.any_failed)
			fprintf(err, "tileadvise: the baseline run failed: %s\n", boc.describe);
		base = ta_run_measure(*brun, gpu);
	}
	free_outcome(&boc);
	return base;
}

/* What was measured, in the request's format. Returns 0, or -1 on a
 * write error. */
static int write_result(const ta_profile_request *req, const run_outcome *oc, const ta_measurement *m,
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
	if (oc->describe)
		fprintf(out, "run: %s (%d run%s)\n", oc->describe, m->runs > 0 ? m->runs : 1,
			m->runs > 1 ? "s" : "");
	int rc = ta_profile_print(m, gpu, TA_PROFILE_TEXT, out);
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

static ta_exit profile(const ta_profile_request *req, FILE *out, FILE *err)
{
	if (!req->records_in && !req->injector && !ta_run_can_profile()) {
		fprintf(err, "tileadvise: profiling is off in this build (configured without CUPTI; "
			"rebuild with --with-cuda=DIR)\n");
		return TA_EXIT_ERROR;
	}
	ta_gpu_info gpu_store, *gpu;
	if (find_device(req, &gpu_store, &gpu, err) != 0)
		return TA_EXIT_ERROR;
	run_outcome oc;
	memset(&oc, 0, sizeof oc);
	ta_run *run;
	if (req->records_in) {
		char *e = NULL;
		run = new_run(req, NULL, NULL, true, NULL);
		if (ta_run_load(run, req->records_in, &e) != 0) {
			fprintf(err, "tileadvise: cannot read records: %s\n", e);
			free(e);
			ta_run_free(run);
			return TA_EXIT_ERROR;
		}
	} else if (!(run = live_runs(req, &oc, err))) {
		free_outcome(&oc);
		return TA_EXIT_ERROR;
	}
	const ta_records *recs = ta_run_records(run);
	record_notes(recs, &oc, req->records_in != NULL, err);
	ta_measurement *m = ta_run_measure(run, gpu);
	if (ta_run_tune_truncated(run))
		fprintf(err, "tileadvise: %zu of Triton's autotuning reports were cut short\n",
			ta_run_tune_truncated(run));
	ta_deep *deep = deep_view(req, run, m, err);
	ta_run *brun;
	ta_measurement *base = baseline(req, gpu, &brun, err);
	bool nothing = m->n_kernels == 0 && recs->n_kernels == 0 && !oc.ran_ok && !req->records_in;
	ta_exit status = write_result(req, &oc, m, gpu, deep, base, out) != 0 || nothing ? TA_EXIT_ERROR
											 : TA_EXIT_OK;
	ta_deep_free(deep);
	ta_measurement_free(m);
	ta_measurement_free(base);
	ta_run_free(run);
	ta_run_free(brun);
	free_outcome(&oc);
	return status;
}

ta_exit ta_profile_run_command(const ta_profile_request *req, FILE *out, FILE *err)
{
	if (!req->analyse)
		return profile(req, out, err);
	/* The file's kernels are the ones measured. */
	ta_analysis *a;
	char *why;
	if (ta_analysis_open(req->file, &a, &why) != 0) {
		fprintf(err, "tileadvise: %s\n", ta_text_name(why));
		free(why);
		return TA_EXIT_ERROR;
	}
	ta_profile_request r = *req;
	r.model = a->model;
	ta_exit rc = profile(&r, out, err);
	ta_analysis_free(a);
	return rc;
}
