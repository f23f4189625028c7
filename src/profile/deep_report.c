/* Text and JSON forms of the --deep view. */
#include "config.h"
#include "profile/deep_report.h"
#include "util/text.h"

#include <stdlib.h>
#include <string.h>

static void text_overheads(ta_buf *b, const ta_deep *d)
{
	ta_buf_puts(b, "deep runs:");
	if (d->has_pc) {
		ta_buf_printf(b, " PC sampling %llu samples", (unsigned long long)d->pc_samples);
		if (d->pc_period)
			ta_buf_printf(b, " every 2^%u cycles", d->pc_period);
		if (d->pc_overhead > 0)
			ta_buf_printf(b, ", %.1f× the timed run's wall time", d->pc_overhead);
		if (d->pc_dropped)
			ta_buf_printf(b, ", %llu dropped", (unsigned long long)d->pc_dropped);
		if (d->pc_hw_full)
			ta_buf_puts(b, ", hardware buffer overflowed");
	} else {
		ta_buf_puts(b, " no PC samples");
	}
	ta_buf_puts(b, ";");
	if (d->has_sol) {
		ta_buf_puts(b, " counters read");
		if (d->sol_overhead > 0)
			ta_buf_printf(b, ", %.1f× the timed run's wall time", d->sol_overhead);
	} else {
		ta_buf_puts(b, " no counters");
	}
	ta_buf_puts(b, "\n");
}

static void text_sol(ta_buf *b, const ta_sol *s)
{
	ta_buf_printf(b, "  speed of light (median of %zu launch%s%s, %zu pass%s): ", s->launches,
		      s->launches == 1 ? "" : "es", s->main_config ? " with the steady grid" : "",
		      s->passes, s->passes == 1 ? "" : "es");
	ta_buf_printf(b, "DRAM %.1f%% of peak", s->dram_pct);
	if (s->peak_bandwidth > 0 && s->bandwidth == s->bandwidth)
		ta_buf_printf(b, " (%.2f of %.2f TB/s)", s->bandwidth / 1e12, s->peak_bandwidth / 1e12);
	ta_buf_printf(b, ", SM %.1f%%", s->sm_pct);
	if (s->tensor_pct >= 0)
		ta_buf_printf(b, ", tensor pipe %.1f%%", s->tensor_pct);
	/* Zero with a busy tensor pipe means the kernel's precision has no
	 * counter in the list: say nothing rather than 0%. */
	if (s->tensor_ops_pct > 0)
		ta_buf_printf(b, ", tensor math %.1f%% of peak", s->tensor_ops_pct);
	if (s->l2_pct >= 0)
		ta_buf_printf(b, ", L2 %.1f%%", s->l2_pct);
	ta_buf_printf(b, ", achieved occupancy %.1f%%: %s\n", s->occupancy_pct, ta_bound_name(s->bound));
}

static int cmp_hot(const void *x, const void *y)
{
	const ta_hot_line *a = *(const ta_hot_line *const *)x, *b = *(const ta_hot_line *const *)y;
	return a->samples < b->samples ? 1 : a->samples > b->samples ? -1 : (a->line > b->line) - (a->line < b->line);
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p ? p : "";
}

static void text_lines(ta_buf *b, const ta_deep_kernel *k, const char *file, size_t max_lines)
{
	double all = (double)k->samples;
	ta_buf_printf(b, "  stall samples: %llu (%.0f%% on lines of %s", (unsigned long long)k->samples,
		      100.0 * (double)k->on_lines / all, ta_text_name(base_name(file)));
	if (k->elsewhere * 200 >= k->samples)
		ta_buf_printf(b, ", %.0f%% in %s and other files", 100.0 * (double)k->elsewhere / all,
			      ta_text_name(base_name(k->elsewhere_file)));
	if (k->unattributed * 200 >= k->samples)
		ta_buf_printf(b, ", %.0f%% without line information", 100.0 * (double)k->unattributed / all);
	ta_buf_puts(b, ")\n");
	const ta_hot_line **order = ta_xcalloc(k->n_lines ? k->n_lines : 1, sizeof *order);
	for (size_t i = 0; i < k->n_lines; i++)
		order[i] = &k->lines[i];
	qsort(order, k->n_lines, sizeof *order, cmp_hot);
	for (size_t i = 0; i < k->n_lines && i < max_lines; i++) {
		const ta_hot_line *h = order[i];
		ta_buf_printf(b, "    line %4u %5.1f%%", h->line, 100.0 * (double)h->samples / all);
		for (size_t r = 0; r < TA_HOT_REASONS && h->reason[r]; r++)
			ta_buf_printf(b, "%s %s %.0f%%%s%s%s", r ? "," : " ", ta_text_name(h->reason[r]),
				      100.0 * (double)h->reason_samples[r] / (double)h->samples,
				      r == 0 ? " (" : "", r == 0 ? ta_stall_words(h->reason[r]) : "",
				      r == 0 ? ")" : "");
		ta_buf_puts(b, "\n");
	}
	free(order);
}

void ta_deep_text(ta_buf *b, const ta_deep *d, const char *file, size_t max_lines)
{
	if (!d)
		return;
	text_overheads(b, d);
	for (size_t i = 0; i < d->n_kernels; i++) {
		const ta_deep_kernel *k = &d->kernels[i];
		if (!k->has_sol && k->samples == 0)
			continue;
		ta_buf_printf(b, "deep %s\n", ta_text_name(k->name));
		if (k->has_sol)
			text_sol(b, &k->sol);
		if (k->samples)
			text_lines(b, k, file, max_lines);
	}
}

static json_t *num_or_null(double v)
{
	return v >= 0 && v == v ? json_real(v) : json_null();
}

static json_t *json_sol(const ta_sol *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "launches", json_integer((json_int_t)s->launches));
	json_object_set_new(o, "steady_grid", json_boolean(s->main_config));
	json_object_set_new(o, "passes", json_integer((json_int_t)s->passes));
	json_object_set_new(o, "duration_ns", num_or_null(s->duration_ns));
	json_object_set_new(o, "dram_pct", num_or_null(s->dram_pct));
	json_object_set_new(o, "sm_pct", num_or_null(s->sm_pct));
	json_object_set_new(o, "occupancy_pct", num_or_null(s->occupancy_pct));
	json_object_set_new(o, "l2_pct", num_or_null(s->l2_pct));
	json_object_set_new(o, "tensor_pipe_pct", num_or_null(s->tensor_pct));
	json_object_set_new(o, "tensor_math_pct", num_or_null(s->tensor_ops_pct));
	json_object_set_new(o, "dram_bytes", num_or_null(s->dram_bytes));
	json_object_set_new(o, "bandwidth", num_or_null(s->bandwidth));
	json_object_set_new(o, "peak_bandwidth", num_or_null(s->peak_bandwidth));
	json_object_set_new(o, "bound", json_string(ta_bound_name(s->bound)));
	return o;
}

static json_t *json_lines(const ta_deep_kernel *k)
{
	json_t *a = json_array();
	for (size_t i = 0; i < k->n_lines; i++) {
		const ta_hot_line *h = &k->lines[i];
		json_t *stalls = json_array();
		for (size_t r = 0; r < TA_HOT_REASONS && h->reason[r]; r++)
			json_array_append_new(stalls, json_pack("[sI]", h->reason[r],
								(json_int_t)h->reason_samples[r]));
		json_array_append_new(a, json_pack("{sIsIsfso}", "line", (json_int_t)h->line, "samples",
						   (json_int_t)h->samples, "share", h->share, "stalls",
						   stalls));
	}
	return a;
}

json_t *ta_deep_json(const ta_deep *d)
{
	json_t *o = json_object();
	json_object_set_new(o, "pc_samples", json_integer((json_int_t)d->pc_samples));
	json_object_set_new(o, "pc_dropped", json_integer((json_int_t)d->pc_dropped));
	json_object_set_new(o, "pc_period", d->pc_period ? json_integer(d->pc_period) : json_null());
	json_object_set_new(o, "pc_overhead", num_or_null(d->pc_overhead));
	json_object_set_new(o, "sol_overhead", num_or_null(d->sol_overhead));
	json_t *ks = json_array();
	for (size_t i = 0; i < d->n_kernels; i++) {
		const ta_deep_kernel *k = &d->kernels[i];
		json_t *jk = json_object();
		json_object_set_new(jk, "name", json_string(k->name));
		json_object_set_new(jk, "samples", json_integer((json_int_t)k->samples));
		json_object_set_new(jk, "on_lines", json_integer((json_int_t)k->on_lines));
		json_object_set_new(jk, "elsewhere", json_integer((json_int_t)k->elsewhere));
		json_object_set_new(jk, "unattributed", json_integer((json_int_t)k->unattributed));
		json_object_set_new(jk, "lines", json_lines(k));
		json_object_set_new(jk, "sol", k->has_sol ? json_sol(&k->sol) : json_null());
		json_array_append_new(ks, jk);
	}
	json_object_set_new(o, "kernels", ks);
	return o;
}
