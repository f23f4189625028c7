#include "config.h"
#include "ui/profile_report.h"
#include "profile/autotune.h"
#include "profile/deep_report.h"
#include "profile/protocol.h"
#include "advise/device.h"
#include "advise/run.h"
#include "util/buf.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_CXA_DEMANGLE
/* The C++ runtime's demangler (it has C linkage). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);
#endif

/* A kernel name as people read it: demangled, without its return type,
 * template arguments and parameters ("at::native::(anonymous
 * namespace)::distribution_elementwise_grid_stride_kernel"); a name that
 * is not mangled comes back as it is. Caller frees. */
static char *display_name(const char *name)
{
	char *d = NULL;
	int status = -1;
#ifdef HAVE_CXA_DEMANGLE
	if (name[0] == '_' && name[1] == 'Z')
		d = __cxa_demangle(name, NULL, NULL, &status);
#endif
	if (!d || status != 0) {
		free(d);
		return ta_xstrdup(name);
	}
	static const char anon[] = "(anonymous namespace)";
	ta_buf b = TA_BUF_INIT;
	int depth = 0;
	const char *p = d;
	if (!strncmp(p, "void ", 5))
		p += 5;
	for (; *p; p++) {
		if (!strncmp(p, anon, sizeof anon - 1)) {
			if (!depth)
				ta_buf_puts(&b, anon);
			p += sizeof anon - 2;
		} else if (*p == '<') {
			depth++;
		} else if (*p == '>') {
			depth -= depth > 0;
		} else if (*p == '(' && !depth) {
			break;   /* the parameters */
		} else if (!depth) {
			ta_buf_putc(&b, *p);
		}
	}
	free(d);
	return ta_buf_steal(&b);
}

/* ---- text ---------------------------------------------------------------- */

static void text_group(ta_buf *b, const ta_kernel_group *g, bool is_main, bool shares)
{
	const ta_launch_config *c = &g->cfg;
	ta_buf_printf(b, "  %s grid %dx%dx%d  block %dx%dx%d  regs %u  smem %d+%d B  local %u B\n",
		      is_main ? "*" : " ", c->grid[0], c->grid[1], c->grid[2], c->block[0], c->block[1],
		      c->block[2], c->regs, c->smem_static, c->smem_dynamic, c->local_per_thread);
	if (g->n_durations > 0) {
		const ta_summary *s = &g->summary;
		ta_buf_printf(b, "      median %.1f us  IQR %.1f us  p95 %.1f us  CV %.1f%%  n=%zu",
			      s->median / 1e3, s->iqr / 1e3, s->p95 / 1e3, s->cv * 100, s->count);
		if (shares)
			ta_buf_printf(b, "  %.0f%% of the GPU time", g->share * 100);
	} else {
		ta_buf_printf(b, "      no steady-state launches");
	}
	if (g->autotune || g->warmup)
		ta_buf_printf(b, "  (set apart: %zu autotuning, %zu warm-up)", g->autotune, g->warmup);
	ta_buf_putc(b, '\n');
	if (g->sampled)
		ta_buf_printf(b, "      GPU times of %zu of %zu launches (adaptive tracing: the rest counted)\n",
			      g->n_durations + g->warmup + g->n_tune, g->launches);
	if (g->n_period) {
		ta_buf_printf(b, "      time per call %.1f us (median host time from the kernel's previous launch "
			      "to this one, IQR %.1f-%.1f us, n=%llu)", g->period_ns / 1e3, g->period_q1_ns / 1e3,
			      g->period_q3_ns / 1e3, (unsigned long long)g->n_period);
		if (g->n_durations && g->period_ns > 0 && g->summary.median <= g->period_ns)
			ta_buf_printf(b, ": GPU %.0f%% of it", 100 * g->summary.median / g->period_ns);
		else if (g->n_durations && g->period_ns > 0)
			ta_buf_printf(b, ": shorter than the GPU time, the launches queue up ahead of the GPU");
		ta_buf_putc(b, '\n');
	}
	if (g->has_occupancy) {
		const ta_occupancy *o = &g->occ;
		if (o->blocks_per_sm == 0)
			ta_buf_printf(b, "      occupancy: the configuration does not fit on this GPU\n");
		else
			ta_buf_printf(b, "      occupancy %.1f%% (%d block%s/SM, %d warps, limiter %s), %.2f waves\n",
				      o->occupancy * 100, o->blocks_per_sm, o->blocks_per_sm == 1 ? "" : "s", o->warps_per_sm,
				      ta_limiter_name(o->limiter), o->waves);
	}
	if (c->local_per_thread > 0)
		ta_buf_printf(b, "      local memory %u B/thread: likely register spills\n", c->local_per_thread);
}

/* The configurations the autotuner tried, apart from the groups above. */
static void text_autotune(ta_buf *b, const ta_autotune_table *t)
{
	if (t->tried > t->n_rows)
		ta_buf_printf(b, "  autotune: %zu configurations tried, %zu launch shape%s", t->tried, t->n_rows,
			      t->n_rows == 1 ? "" : "s");
	else
		ta_buf_printf(b, "  autotune: %zu configuration%s tried", t->n_rows, t->n_rows == 1 ? "" : "s");
	if (t->tunings > 1)
		ta_buf_printf(b, " for %zu keys", t->tunings);
	if (t->key)
		ta_buf_printf(b, ", key %s", t->key);
	if (t->seconds >= 0)
		ta_buf_printf(b, ", tuning took %.2f s", t->seconds);
	ta_buf_puts(b, t->tunings ? " (Triton's report)\n" : " (no report from Triton: chosen = steady state)\n");
	ta_buf_puts(b, "    launches  median us  grid        block  regs  smem B  occupancy            config\n");
	for (size_t i = 0; i < t->n_rows; i++) {
		const ta_autotune_row *r = &t->rows[i];
		char med[32] = "-", grid[40], occ[40] = "-";
		if (r->median_ns >= 0)
			snprintf(med, sizeof med, "%.1f", r->median_ns / 1e3);
		snprintf(grid, sizeof grid, "%dx%dx%d", r->grid[0], r->grid[1], r->grid[2]);
		if (r->has_occupancy)
			snprintf(occ, sizeof occ, "%.1f%% %s", r->occupancy * 100, r->limiter);
		char *cfg = r->config ? ta_autotune_short_config(r->config) : ta_xstrdup("-");
		ta_buf_printf(b, "  %s %8zu  %9s  %-10s  %5d  %4u  %6d  %-19s  %s\n", r->chosen ? "*" : " ",
			      r->launches, med, grid, r->block[0] * r->block[1] * r->block[2], r->regs,
			      r->smem_static + r->smem_dynamic, occ, cfg);
		free(cfg);
	}
}

static void text_measurement(ta_buf *b, const ta_measurement *m, const ta_gpu_info *gpu)
{
	if (gpu)
		ta_buf_printf(b, "GPU: %s (sm_%d%d, %d SMs, %.0f GB/s peak DRAM, %d MiB L2)\n", gpu->name,
			      gpu->cc_major, gpu->cc_minor, gpu->sm_count, gpu->peak_dram_gbs,
			      gpu->l2_bytes / (1024 * 1024));
	if (m->n_kernels == 0)
		ta_buf_puts(b, ta_proto_capture_mode(getenv("TILEADVISE_CAPTURE")) == 1
				       ? "no launches of the file's kernels were recorded between cudaProfilerStart "
					 "and cudaProfilerStop (TILEADVISE_CAPTURE=profiler-api: the program must call "
					 "them, e.g. torch.cuda.profiler.start() and .stop())\n"
				       : "no launches of the file's kernels were recorded\n");
	for (size_t i = 0; i < m->n_kernels; i++) {
		const ta_kernel_measure *k = &m->kernels[i];
		ta_buf_printf(b, "%s: %zu launches", k->name, k->launches);
		if (k->autotune_launches || k->warmup_launches)
			ta_buf_printf(b, " (%zu autotuning and %zu warm-up set apart)", k->autotune_launches,
				      k->warmup_launches);
		ta_buf_printf(b, ", %zu configuration%s\n", k->n_groups, k->n_groups == 1 ? "" : "s");
		/* Several shapes in steady use: the workload's time per call, and
		 * each shape's share of it (* marks the one with the most). */
		size_t steady = 0;
		for (size_t g = 0; g < k->n_groups; g++)
			steady += k->groups[g].n_durations > 0;
		if (steady > 1)
			ta_buf_printf(b, "  per call %.1f us over %zu steady launches of %zu shapes\n",
				      k->steady_total_ns / (double)k->steady_calls / 1e3, k->steady_calls, steady);
		for (size_t g = 0; g < k->n_groups; g++)
			text_group(b, &k->groups[g], g == k->main_group, steady > 1);
		if (k->tune.n_rows)
			text_autotune(b, &k->tune);
	}
	if (m->other_launches > 0) {
		ta_buf_printf(b, "other kernels (not in the file): %zu launches of %zu kernels", m->other_launches,
			      m->n_others);
		for (size_t i = 0; i < m->n_others && i < 3; i++) {
			char *name = display_name(m->others[i].name);
			ta_buf_printf(b, "%s %s (%zu, %.1f us)", i ? "," : ";", name, m->others[i].launches,
				      m->others[i].total_ns / 1e3);
			free(name);
		}
		ta_buf_putc(b, '\n');
	}
}

/* ---- json ---------------------------------------------------------------- */

static json_t *triple(const int32_t v[3])
{
	return json_pack("[iii]", (json_int_t)v[0], (json_int_t)v[1], (json_int_t)v[2]);
}

static json_t *json_group(const ta_kernel_group *g, bool is_main)
{
	const ta_launch_config *c = &g->cfg;
	const ta_summary *s = &g->summary;
	json_t *o = json_object();
	json_object_set_new(o, "main", json_boolean(is_main));
	json_object_set_new(o, "grid", triple(c->grid));
	json_object_set_new(o, "block", triple(c->block));
	json_object_set_new(o, "regs", json_integer(c->regs));
	json_object_set_new(o, "smem_static", json_integer(c->smem_static));
	json_object_set_new(o, "smem_dynamic", json_integer(c->smem_dynamic));
	json_object_set_new(o, "local_per_thread", json_integer(c->local_per_thread));
	json_object_set_new(o, "launches", json_integer((json_int_t)g->launches));
	json_object_set_new(o, "autotune", json_integer((json_int_t)g->autotune));
	json_object_set_new(o, "warmup", json_integer((json_int_t)g->warmup));
	json_object_set_new(o, "count", json_integer((json_int_t)s->count));
	json_object_set_new(o, "share", json_real(g->share));
	if (s->count > 0) {
		json_object_set_new(o, "median_ns", json_real(s->median));
		json_object_set_new(o, "q1_ns", json_real(s->q1));
		json_object_set_new(o, "q3_ns", json_real(s->q3));
		json_object_set_new(o, "iqr_ns", json_real(s->iqr));
		json_object_set_new(o, "p95_ns", json_real(s->p95));
		json_object_set_new(o, "min_ns", json_real(s->min));
		json_object_set_new(o, "max_ns", json_real(s->max));
		json_object_set_new(o, "cv", json_real(s->cv));
	}
	if (g->counted) {
		json_object_set_new(o, "counted", json_integer((json_int_t)g->counted));
		json_object_set_new(o, "sampled", json_boolean(g->sampled));
	}
	if (g->n_period)
		json_object_set_new(o, "period",
				    json_pack("{s:I,s:f,s:f,s:f}", "n", (json_int_t)g->n_period, "median_ns",
					      g->period_ns, "q1_ns", g->period_q1_ns, "q3_ns", g->period_q3_ns));
	if (g->has_occupancy) {
		const ta_occupancy *x = &g->occ;
		json_object_set_new(o, "occupancy",
				    json_pack("{s:i,s:i,s:f,s:s,s:f}", "blocks_per_sm", x->blocks_per_sm,
					      "warps_per_sm", x->warps_per_sm, "occupancy", x->occupancy,
					      "limiter", ta_limiter_name(x->limiter), "waves", x->waves));
	}
	return o;
}

static json_t *json_autotune(const char *kernel, const ta_autotune_table *t)
{
	json_t *o = json_object();
	json_object_set_new(o, "kernel", json_string(kernel));
	json_object_set_new(o, "key", t->key ? json_string(t->key) : json_null());
	json_object_set_new(o, "seconds", t->seconds >= 0 ? json_real(t->seconds) : json_null());
	json_object_set_new(o, "tunings", json_integer((json_int_t)t->tunings));
	json_object_set_new(o, "tried", json_integer((json_int_t)t->tried));
	json_t *rows = json_array();
	for (size_t i = 0; i < t->n_rows; i++) {
		const ta_autotune_row *r = &t->rows[i];
		json_t *x = json_object();
		json_object_set_new(x, "config", r->config ? json_string(r->config) : json_null());
		json_object_set_new(x, "chosen", json_boolean(r->chosen));
		json_object_set_new(x, "launches", json_integer((json_int_t)r->launches));
		json_object_set_new(x, "median_ns", r->median_ns >= 0 ? json_real(r->median_ns) : json_null());
		json_object_set_new(x, "grid", triple(r->grid));
		json_object_set_new(x, "block", triple(r->block));
		json_object_set_new(x, "regs", json_integer(r->regs));
		json_object_set_new(x, "smem_static", json_integer(r->smem_static));
		json_object_set_new(x, "smem_dynamic", json_integer(r->smem_dynamic));
		if (r->has_occupancy)
			json_object_set_new(x, "occupancy",
					    json_pack("{s:f,s:i,s:s}", "occupancy", r->occupancy, "blocks_per_sm",
						      r->blocks_per_sm, "limiter", r->limiter));
		json_array_append_new(rows, x);
	}
	json_object_set_new(o, "configs", rows);
	return o;
}

static json_t *json_gpu(const ta_gpu_info *g)
{
	json_t *o = json_object();
	json_object_set_new(o, "name", json_string(g->name));
	json_object_set_new(o, "cc", json_sprintf("%d.%d", g->cc_major, g->cc_minor));
	json_object_set_new(o, "sm_count", json_integer(g->sm_count));
	json_object_set_new(o, "peak_dram_gbs", json_real(g->peak_dram_gbs));
	json_object_set_new(o, "l2_bytes", json_integer(g->l2_bytes));
	json_object_set_new(o, "driver_version", json_integer(g->driver_version));
	return o;
}

static json_t *json_measurement(const ta_measurement *m, const ta_gpu_info *gpu)
{
	json_t *root = json_object();
	json_object_set_new(root, "gpu", gpu ? json_gpu(gpu) : json_null());
	json_object_set_new(root, "runs", json_integer(m->runs));
	json_t *ks = json_array();
	for (size_t i = 0; i < m->n_kernels; i++) {
		const ta_kernel_measure *k = &m->kernels[i];
		json_t *ko = json_object();
		json_object_set_new(ko, "name", json_string(k->name));
		json_object_set_new(ko, "launches", json_integer((json_int_t)k->launches));
		json_object_set_new(ko, "autotune_launches", json_integer((json_int_t)k->autotune_launches));
		json_object_set_new(ko, "warmup_launches", json_integer((json_int_t)k->warmup_launches));
		json_object_set_new(ko, "steady_calls", json_integer((json_int_t)k->steady_calls));
		json_object_set_new(ko, "per_call_ns",
				    k->steady_calls ? json_real(k->steady_total_ns / (double)k->steady_calls)
						    : json_null());
		/* The host period of the dominant shape: time per call of the
		 * user's loop (absent: not counted, older streams). */
		if (k->n_period)
			json_object_set_new(ko, "period_ns", json_real(k->period_ns));
		json_t *gs = json_array();
		for (size_t g = 0; g < k->n_groups; g++)
			json_array_append_new(gs, json_group(&k->groups[g], g == k->main_group));
		json_object_set_new(ko, "groups", gs);
		json_array_append_new(ks, ko);
	}
	json_object_set_new(root, "kernels", ks);
	json_t *tunes = json_array();
	for (size_t i = 0; i < m->n_kernels; i++)
		if (m->kernels[i].tune.n_rows)
			json_array_append_new(tunes, json_autotune(m->kernels[i].name, &m->kernels[i].tune));
	json_object_set_new(root, "autotune", tunes);
	json_t *others = json_array();
	for (size_t i = 0; i < m->n_others; i++) {
		char *shown = display_name(m->others[i].name);
		json_array_append_new(others, json_pack("{s:s,s:s,s:I,s:f}", "name", m->others[i].name,
							"display_name", shown, "launches",
							(json_int_t)m->others[i].launches, "total_ns",
							m->others[i].total_ns));
		free(shown);
	}
	json_object_set_new(root, "other_kernels", others);
	json_object_set_new(root, "records",
			    json_pack("{s:I,s:I,s:I,s:I,s:I,s:I}", "errors", (json_int_t)m->n_errors,
				      "dropped", (json_int_t)m->dropped, "lost", (json_int_t)m->lost,
				      "malformed", (json_int_t)m->n_malformed, "truncated",
				      (json_int_t)m->n_truncated, "processes", (json_int_t)m->n_hello));
	return root;
}

static int put_json(json_t *root, FILE *out)
{
	int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	fputc('\n', out);
	json_decref(root);
	return rc == 0 && !ferror(out) ? 0 : -1;
}

int ta_profile_print(const ta_measurement *m, const ta_gpu_info *gpu, ta_profile_format format, FILE *out)
{
	if (format == TA_PROFILE_JSON)
		return put_json(json_measurement(m, gpu), out);
	ta_buf b = TA_BUF_INIT;
	text_measurement(&b, m, gpu);
	fputs(ta_buf_str(&b), out);
	ta_buf_free(&b);
	return ferror(out) ? -1 : 0;
}

/* ---- the whole command ------------------------------------------------------ */

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
		fprintf(err, "tileadvise: %s\n", why);
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

ta_exit ta_profile_run_command(const ta_profile_request *req, FILE *out, FILE *err)
{
	if (!req->records_in && !req->injector && !ta_run_can_profile()) {
		fprintf(err, "tileadvise: profiling is off in this build (configured without CUPTI; "
			"rebuild with --with-cuda=DIR)\n");
		return TA_EXIT_ERROR;
	}
	ta_device dev;
	char *why = NULL;
	ta_device_request dr = { .preset = req->gpu_preset, .records = req->records_in != NULL };
	if (ta_device_resolve(&dr, &dev, &why) != 0) {
		fprintf(err, "tileadvise: %s\n", why);
		free(why);
		return TA_EXIT_ERROR;
	}
	if (!dev.has_gpu && dev.why_not && !req->records_in) {
		fprintf(err, "tileadvise: cannot profile: %s (--records FILE reads a run saved on a GPU; "
			"the advisor works without one: --no-profile, or --replay SESSION)\n", dev.why_not);
		ta_device_clear(&dev);
		return TA_EXIT_ERROR;
	}
	ta_gpu_info gpu_store = dev.gpu, *gpu = dev.has_gpu ? &gpu_store : NULL;
	ta_device_clear(&dev);

	run_outcome oc;
	memset(&oc, 0, sizeof oc);
	ta_exit status = TA_EXIT_OK;
	char *e = NULL;
	bool other_client = false;
	ta_run *run = NULL;

	if (req->records_in) {
		run = new_run(req, NULL, NULL, true, &other_client);
		if (ta_run_load(run, req->records_in, &e) != 0) {
			fprintf(err, "tileadvise: cannot read records: %s\n", e);
			free(e);
			ta_run_free(run);
			return TA_EXIT_ERROR;
		}
	} else {
		FILE *tee = NULL;
		if (req->records_out && !(tee = fopen(req->records_out, "w")))
			fprintf(err, "tileadvise: cannot write %s: %s\n", req->records_out, strerror(errno));
		run = new_run(req, req->command, tee, true, &other_client);
		int rc = run_many(run, TA_RUN_MODE_TIMED, req->repeat > 0 ? req->repeat : 1, &oc, &e);
		timed_other_client(other_client, err);
		bool timed_other = other_client;
		other_client = false;
		if (rc == 0 && req->deep && oc.ran_ok)
			deep_runs(run, &other_client, timed_other, err);
		if (tee)
			fclose(tee);
		if (rc != 0) {
			fprintf(err, "tileadvise: %s\n", e);
			free(e);
			ta_run_free(run);
			return TA_EXIT_ERROR;
		}
		if (oc.any_failed) {
			fprintf(err, "tileadvise: the profiled run failed: %s\n", oc.describe);
			if (oc.log_tail && *oc.log_tail)
				fprintf(err, "--- last lines of its output ---\n%s%s", oc.log_tail,
					oc.log_tail[strlen(oc.log_tail) - 1] == '\n' ? "" : "\n");
		}
	}
	const ta_records *recs = ta_run_records(run);
	record_notes(recs, &oc, req->records_in != NULL, err);

	ta_measurement *m = ta_run_measure(run, gpu);
	if (ta_run_tune_truncated(run))
		fprintf(err, "tileadvise: %zu of Triton's autotuning reports were cut short\n",
			ta_run_tune_truncated(run));
	ta_deep *deep = deep_view(req, run, m, err);
	ta_measurement *base = NULL;
	ta_run *brun = NULL;
	if (req->baseline_records) {
		brun = new_run(req, NULL, NULL, false, NULL);
		if (ta_run_load(brun, req->baseline_records, &e) != 0) {
			fprintf(err, "tileadvise: cannot read the baseline records: %s\n", e);
			free(e);
		} else {
			base = ta_run_measure(brun, gpu);
		}
	} else if (req->baseline && !req->records_in) {
		char *bargv[] = { "/bin/sh", "-c", (char *)req->baseline, NULL };
		brun = new_run(req, bargv, NULL, false, NULL);
		run_outcome boc;
		memset(&boc, 0, sizeof boc);
		if (run_many(brun, TA_RUN_MODE_TIMED, req->repeat > 0 ? req->repeat : 1, &boc, &e) != 0) {
			fprintf(err, "tileadvise: baseline: %s\n", e);
			free(e);
		} else {
			if (boc.any_failed)
				fprintf(err, "tileadvise: the baseline run failed: %s\n", boc.describe);
			base = ta_run_measure(brun, gpu);
		}
		free_outcome(&boc);
	}

	bool nothing = m->n_kernels == 0 && recs->n_kernels == 0 && !oc.ran_ok && !req->records_in;
	if (req->format == TA_PROFILE_JSON) {
		json_t *root = json_measurement(m, gpu);
		json_object_set_new(root, "outcome", oc.describe ? json_string(oc.describe) : json_null());
		if (deep)
			json_object_set_new(root, "deep", ta_deep_json(deep));
		if (base) {
			ta_kernel_comparison *cs;
			size_t n = ta_measure_compare(base, m, &cs);
			json_t *arr = json_array();
			for (size_t i = 0; i < n; i++) {
				json_t *c = json_object();
				json_object_set_new(c, "name", json_string(cs[i].name));
				json_object_set_new(c, "in_baseline", json_boolean(cs[i].in_before));
				json_object_set_new(c, "in_run", json_boolean(cs[i].in_after));
				if (cs[i].in_before && cs[i].in_after) {
					json_object_set_new(c, "same_config", json_boolean(cs[i].same_config));
					json_object_set_new(c, "phases", json_integer(cs[i].by_phase ? (json_int_t)cs[i].cmp.phases : 0));
					json_object_set_new(c, "baseline_median_ns", json_real(cs[i].before_median_ns));
					json_object_set_new(c, "median_ns", json_real(cs[i].after_median_ns));
					json_object_set_new(c, "ratio", json_real(cs[i].cmp.ratio));
					json_object_set_new(c, "ci95", json_pack("[ff]", cs[i].cmp.lo, cs[i].cmp.hi));
					json_object_set_new(c, "verdict", json_string(ta_verdict_name(cs[i].cmp.verdict)));
				}
				json_array_append_new(arr, c);
			}
			free(cs);
			json_object_set_new(root, "baseline", arr);
		}
		if (put_json(root, out) != 0)
			status = TA_EXIT_ERROR;
	} else {
		if (oc.describe)
			fprintf(out, "run: %s (%d run%s)\n", oc.describe, m->runs > 0 ? m->runs : 1,
				m->runs > 1 ? "s" : "");
		if (ta_profile_print(m, gpu, TA_PROFILE_TEXT, out) != 0)
			status = TA_EXIT_ERROR;
		if (deep) {
			ta_buf b = TA_BUF_INIT;
			ta_deep_text(&b, deep, req->file, 8);
			fputs(ta_buf_str(&b), out);
			ta_buf_free(&b);
		}
		if (base) {
			ta_kernel_comparison *cs;
			size_t n = ta_measure_compare(base, m, &cs);
			for (size_t i = 0; i < n; i++) {
				if (!cs[i].in_before || !cs[i].in_after) {
					fprintf(out, "vs baseline: %s only in the %s\n", cs[i].name,
						cs[i].in_after ? "run" : "baseline");
					continue;
				}
				char how[64] = "";
				if (cs[i].by_phase && cs[i].cmp.phases > 1)
					snprintf(how, sizeof how, " (%zu phases compared in order)", cs[i].cmp.phases);
				fprintf(out, "vs baseline: %s %.1f us -> %.1f us, ratio %.3f [%.3f, %.3f]: %s%s\n",
					cs[i].name, cs[i].before_median_ns / 1e3, cs[i].after_median_ns / 1e3,
					cs[i].cmp.ratio, cs[i].cmp.lo, cs[i].cmp.hi,
					ta_verdict_name(cs[i].cmp.verdict), how);
			}
			free(cs);
		}
	}
	if (nothing)
		status = TA_EXIT_ERROR;
	ta_deep_free(deep);
	ta_measurement_free(m);
	ta_measurement_free(base);
	ta_run_free(run);
	ta_run_free(brun);
	free_outcome(&oc);
	return status;
}
