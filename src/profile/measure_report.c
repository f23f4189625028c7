/* A measurement as --profile prints it (see measure_report.h). */
#include "config.h"
#include "profile/measure_report.h"
#include "profile/autotune.h"
#include "profile/protocol.h"
#include "util/buf.h"
#include "util/fsutil.h"
#include "util/json.h"
#include "util/text.h"

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
		ta_buf_printf(b, "      median %.1f µs  IQR %.1f µs  p95 %.1f µs  CV %.1f%%  n=%zu",
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
		ta_buf_printf(b, "      time per call %.1f µs (median host time from the kernel's previous launch "
			      "to this one, IQR %.1f-%.1f µs, n=%llu)", g->period_ns / 1e3, g->period_q1_ns / 1e3,
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
		ta_buf_printf(b, ", key %s", ta_text_name(t->key));
	if (t->seconds >= 0)
		ta_buf_printf(b, ", tuning took %.2f s", t->seconds);
	ta_buf_puts(b, t->tunings ? " (Triton's report)\n" : " (no report from Triton: chosen = steady state)\n");
	ta_buf_puts(b, "    launches  median µs  grid        block  regs  smem B  occupancy            config\n");
	for (size_t i = 0; i < t->n_rows; i++) {
		const ta_autotune_row *r = &t->rows[i];
		char med[32] = "-", grid[40], occ[40] = "-";
		if (r->median_ns >= 0)
			snprintf(med, sizeof med, "%.1f", r->median_ns / 1e3);
		snprintf(grid, sizeof grid, "%dx%dx%d", r->grid[0], r->grid[1], r->grid[2]);
		if (r->has_occupancy)
			snprintf(occ, sizeof occ, "%.1f%% %s", r->occupancy * 100, r->limiter);
		/* without Triton's report, what the launch shape tells of it */
		char *cfg = r->config ? ta_autotune_short_config(r->config) : ta_autotune_config_from_shape(r);
		ta_buf_printf(b, "  %s %8zu  %9s  %-10s  %5d  %4u  %6d  %-19s  %s\n", r->chosen ? "*" : " ",
			      r->launches, med, grid, r->block[0] * r->block[1] * r->block[2], r->regs,
			      r->smem_static + r->smem_dynamic, occ, ta_text_name(cfg));
		free(cfg);
	}
}

static void text_measurement(ta_buf *b, const ta_measurement *m, const ta_gpu_info *gpu)
{
	if (gpu)
		ta_buf_printf(b, "GPU: %s (sm_%d%d, %d SMs, %.0f GB/s peak DRAM, %d MiB L2)\n", ta_text_name(gpu->name),
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
		ta_buf_printf(b, "%s: %zu launches", ta_text_name(k->name), k->launches);
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
			ta_buf_printf(b, "  per call %.1f µs over %zu steady launches of %zu shapes\n",
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
			/* a record's name is any text: a line break of it would be a
			 * line of ours ("::error ..." to a CI log) */
			ta_buf_printf(b, "%s %s (%zu, %.1f µs)", i ? "," : ";", ta_text_name(name), m->others[i].launches,
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

json_t *ta_measure_json(const ta_measurement *m, const ta_gpu_info *gpu)
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

int ta_measure_put_json(json_t *root, FILE *out)
{
	int rc = ta_json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	fputc('\n', out);
	json_decref(root);
	return rc == 0 && !ferror(out) ? 0 : -1;
}

/* ---- rows: csv and markdown ------------------------------------------------- */

/* The columns of a row: one kernel's one launch shape. Times in µs (the
 * header says so), blank where there is no figure. */
static const char *const row_columns[] = {
	"kernel", "shape", "main", "launches", "steady", "autotune", "warmup", "grid", "block", "regs",
	"smem_static_B", "smem_dynamic_B", "local_B_per_thread", "median_us", "iqr_us", "p95_us", "cv",
	"share", "time_per_call_us", "occupancy", "blocks_per_sm", "limiter", "waves", NULL,
};

/* A CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv_field(ta_buf *b, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		ta_buf_puts(b, s);
		return;
	}
	ta_buf_putc(b, '"');
	for (; *s; s++) {
		if (*s == '"')
			ta_buf_putc(b, '"');
		ta_buf_putc(b, *s);
	}
	ta_buf_putc(b, '"');
}

/* A markdown cell: a pipe escaped, a line break a space. */
static void md_cell(ta_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			ta_buf_putc(b, '\\');
		ta_buf_putc(b, *s == '\n' || *s == '\r' ? ' ' : *s);
	}
}

static void put_row(ta_buf *b, char *const *cells, bool md)
{
	for (size_t i = 0; row_columns[i]; i++) {
		if (md) {
			ta_buf_puts(b, i ? " | " : "| ");
			md_cell(b, cells[i]);
		} else {
			if (i)
				ta_buf_putc(b, ',');
			csv_field(b, cells[i]);
		}
	}
	ta_buf_puts(b, md ? " |\n" : "\n");
}

static void rows_measurement(ta_buf *b, const ta_measurement *m, bool md)
{
	size_t ncol = 0;
	while (row_columns[ncol])
		ncol++;
	put_row(b, (char *const *)row_columns, md);
	if (md) {
		for (size_t i = 0; i < ncol; i++)
			ta_buf_puts(b, i ? "|---" : "|---");
		ta_buf_puts(b, "|\n");
	}
	char **cells = ta_xcalloc(ncol + 1, sizeof *cells);
	for (size_t k = 0; k < m->n_kernels; k++) {
		const ta_kernel_measure *km = &m->kernels[k];
		char *name = display_name(km->name);
		for (size_t g = 0; g < km->n_groups; g++) {
			const ta_kernel_group *gr = &km->groups[g];
			const ta_launch_config *c = &gr->cfg;
			const ta_summary *s = &gr->summary;
			const ta_occupancy *o = &gr->occ;
			bool t = s->count > 0, occ = gr->has_occupancy;
			size_t i = 0;
			cells[i++] = ta_xstrdup(name);
			cells[i++] = ta_xasprintf("%zu", g + 1);
			cells[i++] = ta_xstrdup(g == km->main_group ? "yes" : "no");
			cells[i++] = ta_xasprintf("%zu", gr->launches);
			cells[i++] = ta_xasprintf("%zu", s->count);
			cells[i++] = ta_xasprintf("%zu", gr->autotune);
			cells[i++] = ta_xasprintf("%zu", gr->warmup);
			cells[i++] = ta_xasprintf("%dx%dx%d", c->grid[0], c->grid[1], c->grid[2]);
			cells[i++] = ta_xasprintf("%dx%dx%d", c->block[0], c->block[1], c->block[2]);
			cells[i++] = ta_xasprintf("%u", c->regs);
			cells[i++] = ta_xasprintf("%d", c->smem_static);
			cells[i++] = ta_xasprintf("%d", c->smem_dynamic);
			cells[i++] = ta_xasprintf("%u", c->local_per_thread);
			cells[i++] = t ? ta_xasprintf("%.3f", s->median / 1e3) : ta_xstrdup("");
			cells[i++] = t ? ta_xasprintf("%.3f", s->iqr / 1e3) : ta_xstrdup("");
			cells[i++] = t ? ta_xasprintf("%.3f", s->p95 / 1e3) : ta_xstrdup("");
			cells[i++] = t ? ta_xasprintf("%.4f", s->cv) : ta_xstrdup("");
			cells[i++] = t ? ta_xasprintf("%.4f", gr->share) : ta_xstrdup("");
			cells[i++] = gr->n_period ? ta_xasprintf("%.3f", gr->period_ns / 1e3) : ta_xstrdup("");
			cells[i++] = occ && o->blocks_per_sm ? ta_xasprintf("%.4f", o->occupancy) : ta_xstrdup("");
			cells[i++] = occ ? ta_xasprintf("%d", o->blocks_per_sm) : ta_xstrdup("");
			cells[i++] = occ && o->blocks_per_sm ? ta_xstrdup(ta_limiter_name(o->limiter)) : ta_xstrdup("");
			cells[i++] = occ && o->blocks_per_sm ? ta_xasprintf("%.3f", o->waves) : ta_xstrdup("");
			put_row(b, cells, md);
			for (size_t j = 0; j < ncol; j++)
				free(cells[j]);
		}
		free(name);
	}
	free(cells);
}

int ta_profile_print(const ta_measurement *m, const ta_gpu_info *gpu, ta_profile_format format, FILE *out)
{
	if (format == TA_PROFILE_JSON)
		return ta_measure_put_json(ta_measure_json(m, gpu), out);
	if (format == TA_PROFILE_CSV || format == TA_PROFILE_MARKDOWN) {
		ta_buf b = TA_BUF_INIT;
		if (format == TA_PROFILE_MARKDOWN && gpu)
			ta_buf_printf(&b, "GPU: %s (sm_%d%d, %d SMs)\n\n", gpu->name, gpu->cc_major, gpu->cc_minor,
				      gpu->sm_count);
		rows_measurement(&b, m, format == TA_PROFILE_MARKDOWN);
		fputs(ta_buf_str(&b), out);
		ta_buf_free(&b);
		return ferror(out) ? -1 : 0;
	}
	ta_buf b = TA_BUF_INIT;
	text_measurement(&b, m, gpu);
	fputs(ta_buf_str(&b), out);
	ta_buf_free(&b);
	return ferror(out) ? -1 : 0;
}


/* ---- against a baseline -------------------------------------------------- */

/* ---- against a baseline: metric by metric ------------------------------------ */

/* The main launch shape of the kernel named name in m, or NULL. */
static const ta_kernel_group *main_group_of(const ta_measurement *m, const char *name)
{
	for (size_t i = 0; i < m->n_kernels; i++)
		if (!strcmp(m->kernels[i].name, name) && m->kernels[i].n_groups)
			return &m->kernels[i].groups[m->kernels[i].main_group];
	return NULL;
}

/* One metric of the two main shapes, as Nsight Compute's baseline shows
 * it: both values and the change. */
typedef struct metric {
	const char *name, *key, *unit;   /* key: JSON's */
	double before, after;
	int digits;
} metric;

static size_t metrics_of(const ta_kernel_group *b, const ta_kernel_group *a, metric *out)
{
	size_t n = 0;
	out[n++] = (metric){ "launches", "launches", "", (double)b->launches, (double)a->launches, 0 };
	out[n++] = (metric){ "threads per block", "threads_per_block", "",
			     (double)b->cfg.block[0] * b->cfg.block[1] * b->cfg.block[2],
			     (double)a->cfg.block[0] * a->cfg.block[1] * a->cfg.block[2], 0 };
	out[n++] = (metric){ "blocks", "blocks", "", (double)b->cfg.grid[0] * b->cfg.grid[1] * b->cfg.grid[2],
			     (double)a->cfg.grid[0] * a->cfg.grid[1] * a->cfg.grid[2], 0 };
	out[n++] = (metric){ "registers", "registers", "", b->cfg.regs, a->cfg.regs, 0 };
	out[n++] = (metric){ "shared memory", "shared_memory_bytes", " B",
			     (double)b->cfg.smem_static + b->cfg.smem_dynamic,
			     (double)a->cfg.smem_static + a->cfg.smem_dynamic, 0 };
	out[n++] = (metric){ "local memory", "local_bytes_per_thread", " B/thread", b->cfg.local_per_thread,
			     a->cfg.local_per_thread, 0 };
	if (b->has_occupancy && a->has_occupancy) {
		out[n++] = (metric){ "occupancy", "occupancy_percent", "%", 100 * b->occ.occupancy,
				     100 * a->occ.occupancy, 1 };
		out[n++] = (metric){ "waves", "waves", "", b->occ.waves, a->occ.waves, 2 };
	}
	return n;
}

json_t *ta_measure_compare_json(const ta_measurement *base, const ta_measurement *m)
{
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
			const ta_kernel_group *gb = main_group_of(base, cs[i].name), *ga = main_group_of(m, cs[i].name);
			if (gb && ga) {
				metric v[8];
				size_t nv = metrics_of(gb, ga, v);
				json_t *mo = json_object();
				for (size_t k = 0; k < nv; k++)
					json_object_set_new(mo, v[k].key, json_pack("{s:f,s:f}", "baseline", v[k].before,
										   "run", v[k].after));
				json_object_set_new(c, "metrics", mo);
			}
		}
		json_array_append_new(arr, c);
	}
	free(cs);
	return arr;
}

void ta_measure_compare_text(const ta_measurement *base, const ta_measurement *m, FILE *out)
{
	ta_kernel_comparison *cs;
	size_t n = ta_measure_compare(base, m, &cs);
	for (size_t i = 0; i < n; i++) {
		if (!cs[i].in_before || !cs[i].in_after) {
			fprintf(out, "vs baseline: %s only in the %s\n", ta_text_name(cs[i].name),
				cs[i].in_after ? "run" : "baseline");
			continue;
		}
		char how[64] = "";
		if (cs[i].by_phase && cs[i].cmp.phases > 1)
			snprintf(how, sizeof how, " (%zu phases compared in order)", cs[i].cmp.phases);
		fprintf(out, "vs baseline: %s %.1f µs -> %.1f µs, ratio %.3f [%.3f, %.3f]: %s%s\n",
			ta_text_name(cs[i].name), cs[i].before_median_ns / 1e3, cs[i].after_median_ns / 1e3,
			cs[i].cmp.ratio, cs[i].cmp.lo, cs[i].cmp.hi,
			ta_verdict_name(cs[i].cmp.verdict), how);
		/* metric by metric, the main launch shapes (Nsight Compute's
		 * baseline view): what changed with the time */
		const ta_kernel_group *gb = main_group_of(base, cs[i].name), *ga = main_group_of(m, cs[i].name);
		if (!gb || !ga)
			continue;
		metric v[8];
		size_t nv = metrics_of(gb, ga, v);
		fputs("  main launch shape, baseline -> run:", out);
		for (size_t k = 0; k < nv; k++) {
			fprintf(out, "%s %s %.*f", k ? "," : "", v[k].name, v[k].digits, v[k].before);
			if (v[k].after == v[k].before)
				fprintf(out, "%s (same)", v[k].unit);
			else
				fprintf(out, " -> %.*f%s (%+.*f)", v[k].digits, v[k].after, v[k].unit, v[k].digits,
					v[k].after - v[k].before);
		}
		fputc('\n', out);
	}
	free(cs);
}
