/* --deep figures as a session keeps them (see deep_figures.h). */
#include "config.h"
#include "advise/deep_figures.h"
#include "util/buf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Lines below this share are left out of a session: noise, and a big
 * kernel has hundreds of them. */
#define HOT_MIN_SHARE 0.001

void ta_deep_figures_set(ta_deep_figures *out, const ta_deep_kernel *k)
{
	memset(out, 0, sizeof *out);
	if (!k)
		return;
	out->samples = k->samples;
	out->elsewhere_share = k->samples ? (double)k->elsewhere / (double)k->samples : 0;
	out->hot = ta_xcalloc(k->n_lines ? k->n_lines : 1, sizeof *out->hot);
	for (size_t i = 0; i < k->n_lines; i++) {
		const ta_hot_line *h = &k->lines[i];
		double share = k->samples ? (double)h->samples / (double)k->samples : 0;
		if (share < HOT_MIN_SHARE)
			continue;
		ta_hot_figure *f = &out->hot[out->n_hot++];
		f->line = h->line;
		f->share = share;
		if (h->reason[0]) {
			snprintf(f->reason, sizeof f->reason, "%s", h->reason[0]);
			f->reason_share = h->samples ? (double)h->reason_samples[0] / (double)h->samples : 0;
		}
	}
	out->has_sol = k->has_sol;
	if (k->has_sol)
		out->sol = k->sol;
}

void ta_deep_figures_clear(ta_deep_figures *f)
{
	if (!f)
		return;
	free(f->hot);
	memset(f, 0, sizeof *f);
}

void ta_deep_figures_copy(ta_deep_figures *dst, const ta_deep_figures *src)
{
	*dst = *src;
	dst->hot = NULL;
	if (src->n_hot) {
		dst->hot = ta_xcalloc(src->n_hot, sizeof *dst->hot);
		memcpy(dst->hot, src->hot, src->n_hot * sizeof *dst->hot);
	}
}

static json_t *num(double v)
{
	return isfinite(v) && v >= 0 ? json_real(v) : json_null();
}

json_t *ta_deep_figures_json(const ta_deep_figures *f)
{
	if (!f->samples && !f->has_sol)
		return NULL;
	json_t *o = json_object();
	json_object_set_new(o, "samples", json_integer((json_int_t)f->samples));
	json_object_set_new(o, "elsewhere", num(f->elsewhere_share));
	json_t *hot = json_array();
	for (size_t i = 0; i < f->n_hot; i++) {
		const ta_hot_figure *h = &f->hot[i];
		json_array_append_new(hot, json_pack("[I, f, s, f]", (json_int_t)h->line, h->share, h->reason,
						     h->reason_share));
	}
	json_object_set_new(o, "hot", hot);
	if (f->has_sol) {
		const ta_sol *s = &f->sol;
		json_t *so = json_object();
		json_object_set_new(so, "launches", json_integer((json_int_t)s->launches));
		json_object_set_new(so, "steady_grid", json_boolean(s->main_config));
		json_object_set_new(so, "passes", json_integer((json_int_t)s->passes));
		json_object_set_new(so, "duration_ns", num(s->duration_ns));
		json_object_set_new(so, "dram_pct", num(s->dram_pct));
		json_object_set_new(so, "sm_pct", num(s->sm_pct));
		json_object_set_new(so, "occupancy_pct", num(s->occupancy_pct));
		json_object_set_new(so, "l2_pct", num(s->l2_pct));
		json_object_set_new(so, "tensor_pipe_pct", num(s->tensor_pct));
		json_object_set_new(so, "tensor_math_pct", num(s->tensor_ops_pct));
		json_object_set_new(so, "dram_bytes", num(s->dram_bytes));
		json_object_set_new(so, "bandwidth", num(s->bandwidth));
		json_object_set_new(so, "peak_bandwidth", num(s->peak_bandwidth));
		json_object_set_new(so, "bound", json_string(ta_bound_name(s->bound)));
		json_object_set_new(o, "sol", so);
	}
	return o;
}

static double get(json_t *o, const char *key, double dflt)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : dflt;
}

static ta_bound bound_named(const char *name)
{
	for (int b = TA_BOUND_UNKNOWN; b <= TA_BOUND_BALANCED; b++)
		if (name && !strcmp(name, ta_bound_name((ta_bound)b)))
			return (ta_bound)b;
	return TA_BOUND_UNKNOWN;
}

void ta_deep_figures_from_json(ta_deep_figures *f, json_t *o)
{
	memset(f, 0, sizeof *f);
	if (!json_is_object(o))
		return;
	double samples = get(o, "samples", 0);
	f->samples = samples > 0 && samples < 1e18 ? (uint64_t)samples : 0;
	f->elsewhere_share = get(o, "elsewhere", 0);
	json_t *hot = json_object_get(o, "hot");
	size_t n = json_array_size(hot), i;
	json_t *h;
	f->hot = ta_xcalloc(n ? n : 1, sizeof *f->hot);
	uint32_t last = 0;
	json_array_foreach(hot, i, h) {
		json_t *line = json_array_get(h, 0), *reason = json_array_get(h, 2);
		if (!json_is_integer(line) || json_integer_value(line) <= last ||
		    json_integer_value(line) > UINT32_MAX)
			continue;       /* lines rise: keeps the lookup a binary search */
		ta_hot_figure *x = &f->hot[f->n_hot++];
		x->line = last = (uint32_t)json_integer_value(line);
		x->share = json_number_value(json_array_get(h, 1));
		snprintf(x->reason, sizeof x->reason, "%s", json_is_string(reason) ? json_string_value(reason) : "");
		x->reason_share = json_number_value(json_array_get(h, 3));
	}
	json_t *so = json_object_get(o, "sol");
	if (json_is_object(so)) {
		ta_sol *s = &f->sol;
		f->has_sol = true;
		s->launches = (size_t)get(so, "launches", 0);
		s->main_config = json_is_true(json_object_get(so, "steady_grid"));
		s->passes = (size_t)get(so, "passes", 0);
		s->duration_ns = get(so, "duration_ns", NAN);
		s->dram_pct = get(so, "dram_pct", NAN);
		s->sm_pct = get(so, "sm_pct", NAN);
		s->occupancy_pct = get(so, "occupancy_pct", NAN);
		s->l2_pct = get(so, "l2_pct", -1);
		s->tensor_pct = get(so, "tensor_pipe_pct", -1);
		s->tensor_ops_pct = get(so, "tensor_math_pct", -1);
		s->dram_bytes = get(so, "dram_bytes", NAN);
		s->bandwidth = get(so, "bandwidth", NAN);
		s->peak_bandwidth = get(so, "peak_bandwidth", -1);
		s->bound = bound_named(json_string_value(json_object_get(so, "bound")));
	}
}

const ta_hot_figure *ta_deep_figures_line(const ta_deep_figures *f, uint32_t line)
{
	size_t lo = 0, hi = f ? f->n_hot : 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (f->hot[mid].line == line)
			return &f->hot[mid];
		if (f->hot[mid].line < line)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

char *ta_deep_figures_sentence(const ta_deep_figures *f, const uint32_t *lines, size_t n)
{
	if (!f || !f->samples || !n)
		return NULL;
	uint32_t *sorted = ta_xmalloc(n * sizeof *sorted);
	memcpy(sorted, lines, n * sizeof *sorted);
	qsort(sorted, n, sizeof *sorted, cmp_u32);
	double share = 0;
	const ta_hot_figure *top = NULL;
	uint32_t first = 0, last = 0;
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && sorted[i] == sorted[i - 1])
			continue;
		const ta_hot_figure *h = ta_deep_figures_line(f, sorted[i]);
		if (!h)
			continue;
		share += h->share;
		if (!first)
			first = h->line;
		last = h->line;
		if (!top || h->share > top->share)
			top = h;
	}
	free(sorted);
	if (share < 0.02 || !top)
		return NULL;
	ta_buf b = TA_BUF_INIT;
	if (first == last)
		ta_buf_printf(&b, "%.0f%% of stall samples are on line %u", share * 100, first);
	else
		ta_buf_printf(&b, "%.0f%% of stall samples are on lines %u–%u", share * 100, first, last);
	if (top->reason[0])
		ta_buf_printf(&b, ": %s (%s)", top->reason, ta_stall_words(top->reason));
	return ta_buf_steal(&b);
}

char *ta_deep_figures_sol_line(const ta_deep_figures *f)
{
	if (!f || !f->has_sol)
		return NULL;
	const ta_sol *s = &f->sol;
	ta_buf b = TA_BUF_INIT;
	ta_buf_printf(&b, "speed of light: DRAM %.1f%%, SM %.1f%% of peak", s->dram_pct, s->sm_pct);
	if (s->tensor_pct > 0)
		ta_buf_printf(&b, ", tensor pipe %.1f%%", s->tensor_pct);
	ta_buf_printf(&b, ", achieved occupancy %.1f%%: %s", s->occupancy_pct, ta_bound_name(s->bound));
	if (s->peak_bandwidth > 0 && isfinite(s->bandwidth))
		ta_buf_printf(&b, " (%.2f of %.2f TB/s)", s->bandwidth / 1e12, s->peak_bandwidth / 1e12);
	return ta_buf_steal(&b);
}
