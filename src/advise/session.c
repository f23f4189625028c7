/* Sessions in memory and as JSON (see session.h). */
#include "config.h"
#include "advise/session.h"
#include "advise/statedir.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "advise/journal.h"
#include "advise/json_read.h"
#include "analyze/source.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/fsutil.h"

#define SESSION_MAX_BYTES ((size_t)256 << 20)

char *ta_session_date_ns(uint64_t ns)
{
	char buf[32];
	time_t t = (time_t)(ns / 1000000000ull);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return ta_xstrdup(buf);
}

char *ta_session_now(void)
{
	return ta_session_date_ns((uint64_t)time(NULL) * 1000000000ull);
}

static char *dup_or_null(const char *s)
{
	return s ? ta_xstrdup(s) : NULL;
}

/* ---- lifetime ------------------------------------------------------------------ */

ta_session *ta_session_new(const char *path, const char *text, size_t len)
{
	ta_session *s = ta_xcalloc(1, sizeof *s);
	s->file_path = ta_xstrdup(path);
	s->file_name = ta_xstrdup(ta_path_basename(path));
	s->created = ta_session_now();
	s->updated = ta_xstrdup(s->created);
	s->tool = ta_xstrdup(PACKAGE_NAME " " PACKAGE_VERSION);
	ta_session_add_version(s, text, len, "as opened");
	return s;
}

static void env_clear(ta_session_env *e)
{
	free(e->gpu);
	free(e->software);
	free(e->no_gpu);
	free(e->host);
	memset(e, 0, sizeof *e);
}

void ta_session_free(ta_session *s)
{
	if (!s)
		return;
	free(s->file_name);
	free(s->file_path);
	free(s->created);
	free(s->updated);
	free(s->tool);
	env_clear(&s->env);
	for (size_t i = 0; s->command && s->command[i]; i++)
		free(s->command[i]);
	free(s->command);
	free(s->test_command);
	for (size_t i = 0; i < s->n_versions; i++) {
		free(s->versions[i].text);
		free(s->versions[i].label);
	}
	free(s->versions);
	for (size_t i = 0; i < s->n_runs; i++)
		ta_run_figures_clear(&s->runs[i]);
	free(s->runs);
	ta_session_set_baseline(s, NULL, NULL);
	for (size_t i = 0; i < s->n_edits; i++) {
		free(s->edits[i].kernel);
		free(s->edits[i].date);
		free(s->edits[i].diff);
		free(s->edits[i].test_note);
		free(s->edits[i].broken);
	}
	free(s->check_lines);
	free(s->edits);
	for (size_t i = 0; i < s->n_skips; i++)
		free(s->skips[i].kernel);
	free(s->skips);
	ta_walk_free(s->walk);
	free(s->pos_kernel);
	free(s);
}

char *ta_session_path_for(const char *kernel_path)
{
	char *dir = ta_path_dirname(kernel_path);
	char *name = ta_xasprintf(".tileadvise/session-%s.json", ta_path_basename(kernel_path));
	char *p = ta_path_join(dir, name);
	free(dir);
	free(name);
	return p;
}

/* ---- editing ------------------------------------------------------------------ */

int ta_session_find_version(const ta_session *s, uint64_t hash)
{
	for (size_t i = s->n_versions; i-- > 0;)
		if (s->versions[i].hash == hash)
			return (int)i;
	return -1;
}

unsigned ta_session_add_version(ta_session *s, const char *text, size_t len, const char *label)
{
	uint64_t h = ta_hash_bytes(text, len);
	if (s->n_versions && s->versions[s->current].hash == h)
		return s->current;
	ta_session_version *v = TA_APPEND(s->versions, s->n_versions);
	v->hash = h;
	v->text = ta_xstrndup(text, len);
	v->len = len;
	v->label = ta_xstrdup(label ? label : "");
	s->current = (unsigned)(s->n_versions - 1);
	s->file_hash = h;
	s->file_size = len;
	return s->current;
}

int ta_session_add_run(ta_session *s, ta_run_figures *run)
{
	ta_run_figures *r = TA_APPEND(s->runs, s->n_runs);
	*r = *run;
	memset(run, 0, sizeof *run);
	return (int)(s->n_runs - 1);
}

void ta_session_set_baseline(ta_session *s, ta_run_figures *run, const char *source)
{
	if (s->baseline)
		ta_run_figures_clear(s->baseline);
	free(s->baseline);
	free(s->baseline_source);
	s->baseline = NULL;
	s->baseline_source = NULL;
	if (!run)
		return;
	s->baseline = ta_xcalloc(1, sizeof *s->baseline);
	*s->baseline = *run;
	memset(run, 0, sizeof *run);
	s->baseline_source = dup_or_null(source);
}

int ta_session_run_of(const ta_session *s, unsigned v)
{
	for (size_t i = s->n_runs; i-- > 0;)
		if (s->runs[i].version == v)
			return (int)i;
	return -1;
}

ta_session_edit *ta_session_add_edit(ta_session *s, const char *id, const char *kernel,
				     uint32_t line, const char *diff, unsigned from_version)
{
	/* A new edit after undo forgets what could have been redone, as the
	 * journal does. */
	while (s->n_edits && s->edits[s->n_edits - 1].undone) {
		ta_session_edit *d = &s->edits[--s->n_edits];
		free(d->kernel);
		free(d->date);
		free(d->diff);
		free(d->test_note);
		free(d->broken);
	}
	ta_session_edit *e = TA_APPEND(s->edits, s->n_edits);
	snprintf(e->id, sizeof e->id, "%s", id);
	e->kernel = dup_or_null(kernel);
	e->line = line;
	e->date = ta_session_now();
	e->from_version = from_version;
	e->to_version = s->current;
	e->before_run = ta_session_run_of(s, from_version);
	e->after_run = -1;
	e->diff = dup_or_null(diff);
	return e;
}

ta_session_edit *ta_session_last_edit(ta_session *s)
{
	for (size_t i = s->n_edits; i-- > 0;)
		if (!s->edits[i].undone)
			return &s->edits[i];
	return NULL;
}

char *ta_session_edit_broken(const ta_session_edit *e)
{
	if (e->broken)
		return ta_xstrdup(e->broken);
	if (e->test == TA_TEST_FAILED)
		return ta_xasprintf("the test %s", e->test_note ? e->test_note : "failed");
	return NULL;
}

/* Whether run r measured a version that an edit in effect broke. */
static bool run_of_broken(const ta_session *s, const ta_run_figures *r)
{
	for (size_t i = 0; i < s->n_edits; i++) {
		const ta_session_edit *e = &s->edits[i];
		if (!e->undone && e->to_version == r->version && (e->broken || e->test == TA_TEST_FAILED))
			return true;
	}
	return false;
}

ta_pairing ta_session_pairing(const ta_session *s, const char *kernel)
{
	/* Parts pair across the session only when every run has as many:
	 * else some steps would compare parts and others the time per call,
	 * and a step's before would not be the previous step's after. */
	size_t parts = 0;
	for (size_t i = 0; i < s->n_runs; i++) {
		const ta_kernel_figures *k = ta_run_figures_find(&s->runs[i], kernel);
		if (!k || !k->n_durations || run_of_broken(s, &s->runs[i]))
			continue;
		if (k->n_phases < 2 || (parts && k->n_phases != parts))
			return TA_PAIR_WORKLOAD;
		parts = k->n_phases;
	}
	return parts ? TA_PAIR_PARTS : TA_PAIR_WORKLOAD;
}

double ta_session_figure(const ta_session *s, int run, const char *kernel, size_t *parts)
{
	*parts = 0;
	const ta_kernel_figures *k =
		run >= 0 && (size_t)run < s->n_runs ? ta_run_figures_find(&s->runs[run], kernel) : NULL;
	if (!k)
		return 0;
	bool by_parts = ta_session_pairing(s, kernel) == TA_PAIR_PARTS && k->n_phases >= 2;
	*parts = by_parts ? k->n_phases : 0;
	return ta_kernel_figure(k, by_parts, true);
}

ta_change ta_session_change(const ta_session *s, int before, int after, const char *kernel)
{
	ta_change none = { 0 };
	if (before < 0 || after < 0 || (size_t)before >= s->n_runs || (size_t)after >= s->n_runs)
		return none;
	return ta_change_compare(&s->runs[before], &s->runs[after], kernel, ta_session_pairing(s, kernel));
}

bool ta_session_walk_change(const ta_session *s, const char *kernel, ta_change *out, int *first,
			    int *last)
{
	/* From the first run that measured the kernel to the run of the version
	 * the file is at now (not a version an undo left, nor one an edit in
	 * effect broke). */
	int a = -1, b = ta_session_run_of(s, s->current);
	for (size_t i = 0; i < s->n_runs && a < 0; i++)
		if (ta_run_figures_find(&s->runs[i], kernel) && !run_of_broken(s, &s->runs[i]))
			a = (int)i;
	if (b >= 0 && (!ta_run_figures_find(&s->runs[b], kernel) || run_of_broken(s, &s->runs[b]) ||
		       (a >= 0 && s->runs[b].version == s->runs[a].version)))
		b = -1;
	if (first)
		*first = a;
	if (last)
		*last = b;
	if (a < 0 || b < 0)
		return false;
	*out = ta_session_change(s, a, b, kernel);
	if (!out->measured)
		return false;
	/* No shape launched alike from first to last (tiles and grids changed
	 * on the way): the workload's GPU time per call is what the user's
	 * program pays. Two totals have no interval: a change under 5% counts
	 * as noise. */
	const ta_kernel_figures *fb = ta_run_figures_find(&s->runs[a], kernel);
	const ta_kernel_figures *fa = ta_run_figures_find(&s->runs[b], kernel);
	if (out->cmp.verdict != TA_VERDICT_FASTER && out->cmp.verdict != TA_VERDICT_SLOWER &&
	    out->cmp.verdict != TA_VERDICT_NOISE && fb->calls && fa->calls && fb->per_call_ns > 0) {
		out->before_ns = fb->per_call_ns;
		out->after_ns = fa->per_call_ns;
		out->cmp.ratio = out->after_ns / out->before_ns;
		out->cmp.lo = out->cmp.hi = out->cmp.ratio;
		out->cmp.verdict = out->cmp.ratio < 0.95 ? TA_VERDICT_FASTER
				 : out->cmp.ratio > 1.05 ? TA_VERDICT_SLOWER : TA_VERDICT_NOISE;
	}
	return true;
}

ta_session_edit *ta_session_next_undone(ta_session *s)
{
	for (size_t i = 0; i < s->n_edits; i++)
		if (s->edits[i].undone)
			return &s->edits[i];
	return NULL;
}

bool ta_session_skipped(const ta_session *s, const char *kernel, const char *id)
{
	for (size_t i = 0; i < s->n_skips; i++)
		if (!strcmp(s->skips[i].kernel, kernel) && !strcasecmp(s->skips[i].id, id))
			return true;
	return false;
}

void ta_session_set_skip(ta_session *s, const char *kernel, const char *id, bool on)
{
	for (size_t i = 0; i < s->n_skips; i++) {
		if (!strcmp(s->skips[i].kernel, kernel) && !strcasecmp(s->skips[i].id, id)) {
			if (!on) {
				free(s->skips[i].kernel);
				s->skips[i] = s->skips[--s->n_skips];
			}
			return;
		}
	}
	if (!on)
		return;
	ta_session_skip *k = TA_APPEND(s->skips, s->n_skips);
	k->kernel = ta_xstrdup(kernel);
	snprintf(k->id, sizeof k->id, "%s", id);
}

void ta_session_set_walk(ta_session *s, ta_walk *w)
{
	ta_walk_free(s->walk);
	s->walk = w;
}

void ta_session_set_env_gpu(ta_session *s, const ta_gpu_info *gpu)
{
	free(s->env.gpu);
	free(s->env.no_gpu);
	s->env.no_gpu = NULL;
	s->env.has_gpu = true;
	s->env.gpu = ta_xstrdup(gpu->name);
	s->env.cc_major = gpu->cc_major;
	s->env.cc_minor = gpu->cc_minor;
	s->env.sm_count = gpu->sm_count;
	if (gpu->driver_version)
		s->env.driver = gpu->driver_version;
}

void ta_session_annotate(const ta_session *s, ta_walk *w)
{
	for (size_t i = 0; i < s->n_skips; i++) {
		ta_step *st = ta_walk_find_step(w, s->skips[i].kernel, s->skips[i].id);
		if (st && ta_step_is_open(st))
			st->mark = TA_MARK_SKIPPED;
	}
	for (size_t i = 0; i < s->n_edits; i++) {
		const ta_session_edit *e = &s->edits[i];
		if (e->undone)
			continue;
		for (size_t k = 0; k < w->n_kernels; k++) {
			if (e->kernel && strcmp(e->kernel, w->kernels[k].name))
				continue;
			ta_step *st = ta_walk_find_step(w, w->kernels[k].name, e->id);
			if (!st)
				continue;
			st->mark = TA_MARK_APPLIED;
			free(st->broken);
			st->broken = ta_session_edit_broken(e);
			if (e->before_run >= 0 && e->after_run >= 0 && (size_t)e->after_run < s->n_runs &&
			    (size_t)e->before_run < s->n_runs) {
				st->change = ta_session_change(s, e->before_run, e->after_run, w->kernels[k].name);
				st->has_change = st->change.measured;
			}
		}
	}
}

/* ---- to JSON ------------------------------------------------------------------- */

/* Text as it is: a name or a command that is not UTF-8 keeps its bytes
 * beside it when written (util/json.h), instead of being dropped. */
static json_t *jstr(const char *s)
{
	return ta_json_raw(s);
}

static json_t *jhash(uint64_t h)
{
	char *x = ta_hash_hex(h);
	json_t *j = json_string(x);
	free(x);
	return j;
}

static json_t *ints3(const int32_t v[3])
{
	return json_pack("[iii]", (json_int_t)v[0], (json_int_t)v[1], (json_int_t)v[2]);
}

/* A duration as whole nanoseconds; what no int64 holds (NaN, negative,
 * huge: only a damaged file gives these) is clamped rather than cast (UB). */
static json_int_t whole_ns(double v)
{
	if (!(v >= 0))
		return 0;
	if (v >= 9e18)
		return (json_int_t)9e18;
	return (json_int_t)(v + 0.5);
}

/* The autotune table of a kernel (optional in the file: older sessions
 * have none). */
/* The launches each duration stands for (written when sampling left some
 * untraced; absent: 1 each), and read back: NULL unless one per duration. */
static json_t *weights_json(const double *w, size_t n)
{
	json_t *a = json_array();
	for (size_t j = 0; j < n; j++)
		json_array_append_new(a, json_integer((json_int_t)w[j]));
	return a;
}

static double *weights_read(json_t *a, size_t n)
{
	if (n == 0 || json_array_size(a) != n)
		return NULL;
	double *w = ta_xcalloc(n, sizeof *w);
	size_t x;
	json_t *v;
	json_array_foreach(a, x, v) {
		double d = json_is_integer(v) ? (double)json_integer_value(v) : 1;
		w[x] = d >= 1 ? d : 1;
	}
	return w;
}

static json_t *tune_json(const ta_autotune_table *t)
{
	json_t *rows = json_array();
	for (size_t i = 0; i < t->n_rows; i++) {
		const ta_autotune_row *r = &t->rows[i];
		json_t *o = json_pack("{s:o, s:b, s:I, s:f, s:o, s:o, s:I, s:I, s:I}",
				      "config", jstr(r->config), "chosen", r->chosen,
				      "launches", (json_int_t)r->launches, "median_ns", r->median_ns,
				      "grid", ints3(r->grid), "block", ints3(r->block),
				      "regs", (json_int_t)r->regs, "smem_static", (json_int_t)r->smem_static,
				      "smem_dynamic", (json_int_t)r->smem_dynamic);
		if (r->has_occupancy)
			json_object_set_new(o, "occupancy",
					    json_pack("{s:f, s:s, s:i}", "theoretical", r->occupancy,
						      "limiter", r->limiter, "blocks_per_sm", r->blocks_per_sm));
		json_array_append_new(rows, o);
	}
	return json_pack("{s:o, s:f, s:I, s:I, s:o}", "key", jstr(t->key), "seconds", t->seconds,
			 "tunings", (json_int_t)t->tunings, "tried", (json_int_t)t->tried, "configs", rows);
}

static json_t *figures_json(const ta_run_figures *r)
{
	json_t *ks = json_array();
	for (size_t i = 0; i < r->n_kernels; i++) {
		const ta_kernel_figures *k = &r->kernels[i];
		json_t *d = json_array();
		for (size_t j = 0; j < k->n_durations; j++)
			json_array_append_new(d, json_integer(whole_ns(k->durations_ns[j])));
		json_t *o = json_pack("{s:s, s:I, s:I, s:I, s:{s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f}, s:o,"
				      " s:o, s:o, s:I, s:I, s:I, s:I}",
				      "name", k->name, "launches", (json_int_t)k->launches,
				      "autotune", (json_int_t)k->autotune_launches,
				      "warmup", (json_int_t)k->warmup_launches,
				      "summary", "n", (json_int_t)k->summary.count,
				      "median_ns", k->summary.median, "q1_ns", k->summary.q1,
				      "q3_ns", k->summary.q3, "p95_ns", k->summary.p95,
				      "min_ns", k->summary.min, "max_ns", k->summary.max,
				      "cv", k->summary.cv,
				      "durations_ns", d, "grid", ints3(k->grid), "block", ints3(k->block),
				      "regs", (json_int_t)k->regs, "local", (json_int_t)k->local_per_thread,
				      "smem_static", (json_int_t)k->smem_static,
				      "smem_dynamic", (json_int_t)k->smem_dynamic);
		/* The launches each duration stands for, when sampling left some
		 * untraced (absent: 1 each). */
		if (k->weights)
			json_object_set_new(o, "weights", weights_json(k->weights, k->n_durations));
		if (k->calls) {
			json_t *sh = json_array();
			for (size_t j = 0; j < k->n_shapes; j++) {
				const ta_shape_figures *x = &k->shapes[j];
				json_t *xo = json_pack("{s:o, s:o, s:I, s:I, s:I, s:f, s:f}", "grid",
						       ints3(x->grid), "block", ints3(x->block),
						       "regs", (json_int_t)x->regs, "smem", (json_int_t)x->smem,
						       "calls",
						       (json_int_t)x->calls, "median_ns", x->median_ns,
						       "share", x->share);
				if (x->period_ns > 0)
					json_object_set_new(xo, "period_ns", json_real(x->period_ns));
				if (x->n) {   /* optional: sessions before them have none */
					json_object_set_new(xo, "iqr_ns", json_real(x->iqr_ns));
					json_object_set_new(xo, "n", json_integer((json_int_t)x->n));
				}
				json_array_append_new(sh, xo);
			}
			json_object_set_new(o, "per_call_ns", json_real(k->per_call_ns));
			json_object_set_new(o, "calls", json_integer((json_int_t)k->calls));
			json_object_set_new(o, "shapes", sh);
		}
		if (k->n_period) {   /* optional: sessions before it load without */
			json_object_set_new(o, "period_ns", json_real(k->period_ns));
			json_object_set_new(o, "period_n", json_integer((json_int_t)k->n_period));
		}
		if (k->sampled)
			json_object_set_new(o, "sampled", json_true());
		if (k->n_phases) {
			json_t *st = json_array(), *ph = json_array();
			for (size_t j = 0; j < k->n_steady; j++)
				json_array_append_new(st, json_integer(whole_ns(k->steady_ns[j])));
			for (size_t j = 0; j < k->n_phases; j++)
				json_array_append_new(ph, json_integer((json_int_t)k->phase_start[j]));
			json_object_set_new(o, "steady_ns", st);
			json_object_set_new(o, "phase_start", ph);
			if (k->steady_w)
				json_object_set_new(o, "steady_w", weights_json(k->steady_w, k->n_steady));
		}
		if (k->has_occupancy)
			json_object_set_new(o, "occupancy",
					    json_pack("{s:f, s:s, s:i, s:f}", "theoretical", k->occupancy,
						      "limiter", k->limiter, "blocks_per_sm", k->blocks_per_sm,
						      "waves", k->waves));
		if (k->tune.n_rows)
			json_object_set_new(o, "autotune_table", tune_json(&k->tune));
		json_t *deep = ta_deep_figures_json(&k->deep);
		if (deep)
			json_object_set_new(o, "deep", deep);
		json_array_append_new(ks, o);
	}
	return json_pack("{s:o, s:o, s:I, s:o}", "label", jstr(r->label), "date", jstr(r->date),
			 "version", (json_int_t)r->version, "kernels", ks);
}

static json_t *walk_json(const ta_walk *w)
{
	json_t *ks = json_array();
	for (size_t i = 0; i < w->n_kernels; i++) {
		const ta_walk_kernel *k = &w->kernels[i];
		json_t *steps = json_array();
		for (size_t j = 0; j < k->n_steps; j++) {
			const ta_step *s = &k->steps[j];
			json_t *o = json_pack("{s:s, s:s}", "id", s->id, "status", ta_status_name(s->status));
			if (s->edit_kind != TA_STEP_EDIT_NONE)
				json_object_set_new(o, "edit", json_string(s->edit_kind == TA_STEP_EDIT_MECHANICAL
									   ? "mechanical" : "guided"));
			if (s->diff)
				json_object_set_new(o, "diff", jstr(s->diff));
			if (s->edit_title)
				json_object_set_new(o, "edit_title", jstr(s->edit_title));
			if (s->why_no_edit)
				json_object_set_new(o, "why_no_edit", jstr(s->why_no_edit));
			if (s->unsafe)
				json_object_set_new(o, "unsafe", jstr(s->unsafe));
			if (s->edit_line)
				json_object_set_new(o, "edit_line", json_integer(s->edit_line));
			if (s->silenced)   /* optional: older sessions have none */
				json_object_set_new(o, "silenced", json_true());
			if (s->ignored)    /* optional too */
				json_object_set_new(o, "ignored", json_true());
			if (s->n_findings) {
				json_t *fs = json_array();
				for (size_t f = 0; f < s->n_findings; f++) {
					const ta_walk_finding *wf = &s->findings[f];
					json_t *lines = json_array();
					for (size_t l = 0; l < wf->n_lines; l++)
						json_array_append_new(lines, json_integer(wf->lines[l]));
					json_t *fo = json_pack("{s:s, s:i, s:i, s:i, s:o}", "reason", wf->reason,
							       "line", (int)wf->line, "col", (int)wf->col,
							       "end_line", (int)wf->end_line, "lines", lines);
					if (wf->measure)
						json_object_set_new(fo, "measure", jstr(wf->measure));
					json_array_append_new(fs, fo);
				}
				json_object_set_new(o, "findings", fs);
			}
			json_array_append_new(steps, o);
		}
		json_t *ko = json_pack("{s:s, s:i, s:b, s:o}", "name", k->name, "line", (int)k->def_line, "helper",
				       k->helper, "steps", steps);
		if (k->syntax_error) {
			json_object_set_new(ko, "syntax_error", jstr(k->syntax_error));
			json_object_set_new(ko, "syntax_line", json_integer(k->syntax_line));
			json_object_set_new(ko, "syntax_col", json_integer(k->syntax_col));
		}
		json_array_append_new(ks, ko);
	}
	return json_pack("{s:o}", "kernels", ks);
}

static const char *test_name(ta_test_state t)
{
	return t == TA_TEST_PASSED ? "passed" : t == TA_TEST_FAILED ? "failed" : "none";
}

char *ta_session_to_json(const ta_session *s)
{
	json_t *root = json_object();
	json_object_set_new(root, "version", json_integer(TA_SESSION_VERSION));
	json_object_set_new(root, "tool", jstr(s->tool));
	json_object_set_new(root, "created", jstr(s->created));
	json_object_set_new(root, "updated", jstr(s->updated));
	json_object_set_new(root, "file", json_pack("{s:o, s:o, s:o, s:I}", "name", jstr(s->file_name),
						    "path", jstr(s->file_path), "hash", jhash(s->file_hash),
						    "size", (json_int_t)s->file_size));
	json_t *env = json_object();
	if (s->env.has_gpu) {
		json_object_set_new(env, "gpu", json_pack("{s:o, s:i, s:i, s:i}", "name", jstr(s->env.gpu),
							  "cc_major", s->env.cc_major, "cc_minor",
							  s->env.cc_minor, "sm_count", s->env.sm_count));
	} else {
		json_object_set_new(env, "gpu", json_null());
		json_object_set_new(env, "no_gpu", jstr(s->env.no_gpu));
	}
	if (s->env.driver)
		json_object_set_new(env, "driver", json_integer(s->env.driver));
	if (s->env.cupti)
		json_object_set_new(env, "cupti", json_integer(s->env.cupti));
	if (s->env.software)
		json_object_set_new(env, "software", jstr(s->env.software));
	if (s->env.host)
		json_object_set_new(env, "host", jstr(s->env.host));
	json_object_set_new(root, "env", env);
	json_t *cmd = json_array();
	for (size_t i = 0; s->command && s->command[i]; i++)
		json_array_append_new(cmd, jstr(s->command[i]));
	json_object_set_new(root, "command", cmd);
	json_object_set_new(root, "test", jstr(s->test_command));
	if (s->check_lines)
		json_object_set_new(root, "check_lines", jstr(s->check_lines));
	json_t *vs = json_array();
	for (size_t i = 0; i < s->n_versions; i++)
		json_array_append_new(vs, json_pack("{s:o, s:o, s:o}", "hash", jhash(s->versions[i].hash),
						     "label", jstr(s->versions[i].label), "text",
						     ta_json_rawn(s->versions[i].text, s->versions[i].len)));
	json_object_set_new(root, "versions", vs);
	json_object_set_new(root, "current", json_integer(s->current));
	json_t *runs = json_array();
	for (size_t i = 0; i < s->n_runs; i++)
		json_array_append_new(runs, figures_json(&s->runs[i]));
	json_object_set_new(root, "runs", runs);
	if (s->baseline) {
		json_t *bo = figures_json(s->baseline);
		json_object_set_new(bo, "source", jstr(s->baseline_source));
		json_object_set_new(root, "baseline", bo);
	}
	json_t *eds = json_array();
	for (size_t i = 0; i < s->n_edits; i++) {
		const ta_session_edit *e = &s->edits[i];
		json_array_append_new(eds, json_pack("{s:s, s:o, s:i, s:o, s:i, s:i, s:i, s:i, s:b, s:o,"
						     " s:s, s:o}",
						     "id", e->id, "kernel", jstr(e->kernel), "line", (int)e->line,
						     "date", jstr(e->date), "from_version", (int)e->from_version,
						     "to_version", (int)e->to_version, "before_run", e->before_run,
						     "after_run", e->after_run, "undone", e->undone,
						     "diff", jstr(e->diff), "test", test_name(e->test),
						     "test_note", jstr(e->test_note)));
		if (e->broken)
			json_object_set_new(json_array_get(eds, json_array_size(eds) - 1), "broken",
					    jstr(e->broken));
	}
	json_object_set_new(root, "edits", eds);
	json_t *sk = json_array();
	for (size_t i = 0; i < s->n_skips; i++)
		json_array_append_new(sk, json_pack("{s:o, s:s}", "kernel", jstr(s->skips[i].kernel), "id",
						    s->skips[i].id));
	json_object_set_new(root, "skipped", sk);
	json_object_set_new(root, "walk", s->walk ? walk_json(s->walk) : json_null());
	json_object_set_new(root, "position", json_pack("{s:o, s:s}", "kernel", jstr(s->pos_kernel),
							"step", s->pos_step));
	char *text = ta_json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(root);
	ta_buf b = TA_BUF_INIT;
	ta_buf_puts(&b, text ? text : "{}");
	ta_buf_putc(&b, '\n');
	free(text);
	return ta_buf_steal(&b);
}

int ta_session_save(ta_session *s, const char *path, char **err)
{
	free(s->updated);
	s->updated = ta_session_now();
	char *text = ta_session_to_json(s);
	char *why = NULL;
	int rc;
	/* Beside its kernel: through the state folder (no link followed, the
	 * kernel's owner and mode); elsewhere (--record-session OUT) where the
	 * user said. */
	char *kernel = ta_state_kernel_of(path, "session-", ".json");
	if (kernel) {
		ta_state_dir d;
		rc = ta_state_open(kernel, true, &d, &why);
		if (rc == 0)
			rc = ta_state_write(&d, ta_path_basename(path), text, strlen(text), &why);
		ta_state_close(&d);
		free(kernel);
	} else {
		rc = ta_write_atomic(path, text, strlen(text), 0644, (uid_t)-1, (gid_t)-1, &why);
	}
	free(text);
	if (rc != 0) {
		*err = ta_xasprintf("%s: cannot save the session: %s", path, why ? why : "write failed");
		free(why);
	}
	return rc;
}

/* ---- from JSON ----------------------------------------------------------------- */

typedef struct reader {
	const char *name;
	char *err;
} reader;

static bool bad(reader *r, const char *what)
{
	if (!r->err)
		r->err = ta_xasprintf("%s: not a usable session: %s", r->name, what);
	return false;
}

static char *get_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? ta_xstrndup(json_string_value(v), json_string_length(v)) : NULL;
}

static long long get_int(json_t *o, const char *key, long long dflt)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? (long long)json_integer_value(v) : dflt;
}

static double get_num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : 0.0;
}

/* Grid or block sizes, kept within CUDA's limits (max) so that the screen's
 * products of them cannot overflow whatever a session file says. */
static void get_ints3(json_t *o, const char *key, int32_t out[3], json_int_t max)
{
	json_t *a = json_object_get(o, key);
	for (size_t i = 0; i < 3; i++) {
		json_t *v = json_array_get(a, i);
		json_int_t x = json_is_integer(v) ? json_integer_value(v) : 0;
		out[i] = (int32_t)(x < 0 ? 0 : x > max ? max : x);
	}
}

/* Shared memory per block, in bytes: at most 1 MiB on any GPU so far. */
static int32_t get_smem(json_t *o, const char *key)
{
	json_int_t x = get_int(o, key, 0);
	return (int32_t)(x < 0 ? 0 : x > (1 << 20) ? (1 << 20) : x);
}

static void tune_from_json(ta_autotune_table *t, json_t *o)
{
	memset(t, 0, sizeof *t);
	t->seconds = -1;
	json_t *rows = json_object_get(o, "configs");
	if (!json_is_object(o) || !json_array_size(rows))
		return;
	t->key = get_str(o, "key");
	t->seconds = json_is_number(json_object_get(o, "seconds")) ? get_num(o, "seconds") : -1;
	t->tunings = (size_t)get_int(o, "tunings", 0);
	t->tried = (size_t)get_int(o, "tried", 0);
	t->rows = ta_xcalloc(json_array_size(rows), sizeof *t->rows);
	size_t i;
	json_t *x;
	json_array_foreach(rows, i, x) {
		ta_autotune_row *r = &t->rows[t->n_rows++];
		r->config = get_str(x, "config");
		r->chosen = json_is_true(json_object_get(x, "chosen"));
		r->launches = (size_t)get_int(x, "launches", 0);
		r->median_ns = json_is_number(json_object_get(x, "median_ns")) ? get_num(x, "median_ns") : -1;
		get_ints3(x, "grid", r->grid, INT32_MAX);
		get_ints3(x, "block", r->block, 1024);
		r->regs = (uint32_t)get_int(x, "regs", 0);
		r->smem_static = get_smem(x, "smem_static");
		r->smem_dynamic = get_smem(x, "smem_dynamic");
		json_t *oc = json_object_get(x, "occupancy");
		if (json_is_object(oc)) {
			r->has_occupancy = true;
			r->occupancy = get_num(oc, "theoretical");
			const char *lim = json_string_value(json_object_get(oc, "limiter"));
			snprintf(r->limiter, sizeof r->limiter, "%s", lim ? lim : "?");
			r->blocks_per_sm = (int)get_int(oc, "blocks_per_sm", 0);
		}
	}
}

static bool hash_of(json_t *o, const char *key, uint64_t *h)
{
	const char *x = json_string_value(json_object_get(o, key));
	if (!x)
		return false;
	char *end;
	*h = strtoull(x, &end, 16);
	return *end == '\0';
}

static bool read_figures(reader *r, json_t *ro, ta_run_figures *f);

static bool read_runs(reader *r, json_t *arr, ta_session *s)
{
	size_t i;
	json_t *ro;
	json_array_foreach(arr, i, ro) {
		if (!json_is_object(ro))
			return bad(r, "a run is not an object");
		if (!read_figures(r, ro, TA_APPEND(s->runs, s->n_runs)))
			return false;
	}
	return true;
}

/* The baseline (optional): a run of its own, with where it came from. */
static bool read_baseline(reader *r, json_t *bo, ta_session *s)
{
	if (!bo || json_is_null(bo))
		return true;
	if (!json_is_object(bo))
		return bad(r, "the baseline is not an object");
	s->baseline = ta_xcalloc(1, sizeof *s->baseline);
	s->baseline_source = get_str(bo, "source");
	return read_figures(r, bo, s->baseline);
}

static bool read_figures(reader *r, json_t *ro, ta_run_figures *f)
{
	f->label = get_str(ro, "label");
	f->date = get_str(ro, "date");
	f->version = (unsigned)get_int(ro, "version", 0);
	json_t *ks = json_object_get(ro, "kernels");
	size_t j;
	json_t *ko;
	json_array_foreach(ks, j, ko) {
		char *name = get_str(ko, "name");
		if (!name)
			return bad(r, "a measured kernel has no name");
		ta_kernel_figures *k = TA_APPEND(f->kernels, f->n_kernels);
		k->name = name;
		k->launches = (size_t)get_int(ko, "launches", 0);
		k->autotune_launches = (size_t)get_int(ko, "autotune", 0);
		k->warmup_launches = (size_t)get_int(ko, "warmup", 0);
		/* Phases (optional: sessions before them compare main groups). */
		json_t *st = json_object_get(ko, "steady_ns"), *ph = json_object_get(ko, "phase_start");
		if (json_array_size(st) && json_array_size(ph)) {
			size_t ns = json_array_size(st), np = json_array_size(ph), x;
			json_t *v;
			bool ok = true;
			k->steady_ns = ta_xcalloc(ns, sizeof(double));
			k->phase_start = ta_xcalloc(np, sizeof(size_t));
			json_array_foreach(st, x, v)
				k->steady_ns[x] = (double)whole_ns(json_number_value(v));
			json_array_foreach(ph, x, v) {
				json_int_t at = json_integer_value(v);
				/* Starts must rise and stay inside the sample. */
				ok &= json_is_integer(v) && at >= 0 && (size_t)at < ns &&
				      (x == 0 ? at == 0 : (size_t)at > k->phase_start[x - 1]);
				k->phase_start[x] = ok ? (size_t)at : 0;
			}
			if (ok) {
				k->n_steady = ns;
				k->n_phases = np;
				k->steady_w = weights_read(json_object_get(ko, "steady_w"), ns);
			} else {
				free(k->steady_ns);
				free(k->phase_start);
				k->steady_ns = NULL;
				k->phase_start = NULL;
			}
		}
		json_t *d = json_object_get(ko, "durations_ns");
		if (json_array_size(d)) {
			k->durations_ns = ta_xcalloc(json_array_size(d), sizeof(double));
			size_t x;
			json_t *dv;
			/* Stored as whole ns: read back as written (a fixed point). */
			json_array_foreach(d, x, dv)
				k->durations_ns[k->n_durations++] = (double)whole_ns(json_number_value(dv));
			k->weights = weights_read(json_object_get(ko, "weights"), k->n_durations);
			k->summary = ta_stats_summarize_weighted(k->durations_ns, k->weights, k->n_durations);
		} else {
			json_t *sm = json_object_get(ko, "summary");
			k->summary.count = (size_t)get_int(sm, "n", 0);
			k->summary.median = get_num(sm, "median_ns");
			k->summary.q1 = get_num(sm, "q1_ns");
			k->summary.q3 = get_num(sm, "q3_ns");
			k->summary.iqr = k->summary.q3 - k->summary.q1;
			k->summary.p95 = get_num(sm, "p95_ns");
			k->summary.min = get_num(sm, "min_ns");
			k->summary.max = get_num(sm, "max_ns");
			k->summary.cv = get_num(sm, "cv");
		}
		get_ints3(ko, "grid", k->grid, INT32_MAX);
		get_ints3(ko, "block", k->block, 1024);
		k->regs = (uint32_t)get_int(ko, "regs", 0);
		k->local_per_thread = (uint32_t)get_int(ko, "local", 0);
		k->smem_static = get_smem(ko, "smem_static");
		k->smem_dynamic = get_smem(ko, "smem_dynamic");
		json_t *oc = json_object_get(ko, "occupancy");
		if (json_is_object(oc)) {
			k->has_occupancy = true;
			k->occupancy = get_num(oc, "theoretical");
			const char *lim = json_string_value(json_object_get(oc, "limiter"));
			snprintf(k->limiter, sizeof k->limiter, "%s", lim ? lim : "?");
			k->blocks_per_sm = (int)get_int(oc, "blocks_per_sm", 0);
			k->waves = get_num(oc, "waves");
		}
		/* The workload's shapes (optional: older sessions show the main group). */
		long long calls = get_int(ko, "calls", 0);
		k->calls = calls > 0 ? (size_t)calls : 0;
		k->per_call_ns = get_num(ko, "per_call_ns");
		json_t *sh = json_object_get(ko, "shapes"), *sv;
		size_t si;
		if (!(k->per_call_ns >= 0))
			k->calls = 0;
		json_array_foreach(sh, si, sv) {
			ta_shape_figures *x = TA_APPEND(k->shapes, k->n_shapes);
			get_ints3(sv, "grid", x->grid, INT32_MAX);
			get_ints3(sv, "block", x->block, 1024);
			long long xr = get_int(sv, "regs", 0);
			x->regs = (uint32_t)(xr < 0 ? 0 : xr > 65536 ? 65536 : xr);
			x->smem = get_smem(sv, "smem");
			long long xc = get_int(sv, "calls", 0);
			x->calls = xc > 0 ? (size_t)xc : 0;
			x->median_ns = get_num(sv, "median_ns");
			x->share = get_num(sv, "share");
			if (!(x->share >= 0 && x->share <= 1))
				x->share = 0;
			x->period_ns = get_num(sv, "period_ns");
			if (!(x->period_ns > 0 && x->period_ns < 1e15))
				x->period_ns = 0;
			long long xn = get_int(sv, "n", 0);
			x->iqr_ns = get_num(sv, "iqr_ns");
			x->n = xn > 0 && x->iqr_ns >= 0 && x->iqr_ns < 1e15 ? (size_t)xn : 0;
			if (!x->n)
				x->iqr_ns = 0;
		}
		/* The host period per call (optional: newer sessions). */
		long long pn = get_int(ko, "period_n", 0);
		k->period_ns = get_num(ko, "period_ns");
		k->n_period = pn > 0 && k->period_ns > 0 && k->period_ns < 1e15 ? (size_t)pn : 0;
		if (!k->n_period)
			k->period_ns = 0;
		k->sampled = json_is_true(json_object_get(ko, "sampled"));
		tune_from_json(&k->tune, json_object_get(ko, "autotune_table"));
		ta_deep_figures_from_json(&k->deep, json_object_get(ko, "deep"));
	}
	return true;
}

static bool parse_status(const char *name, ta_status *out)
{
	for (int i = 0; i < TA_STATUS__COUNT; i++)
		if (name && !strcmp(name, ta_status_name((ta_status)i))) {
			*out = (ta_status)i;
			return true;
		}
	return false;
}

static bool read_walk(reader *r, json_t *wo, ta_session *s)
{
	if (json_is_null(wo) || !wo)
		return true;
	json_t *ks = json_object_get(wo, "kernels");
	if (!json_is_array(ks))
		return bad(r, "\"walk\" has no kernels");
	ta_walk *w = ta_walk_new();
	s->walk = w;
	size_t i;
	json_t *ko;
	json_array_foreach(ks, i, ko) {
		const char *name = json_string_value(json_object_get(ko, "name"));
		if (!name)
			return bad(r, "a kernel of the walk has no name");
		ta_walk_kernel *k = ta_walk_add_kernel(w, name);
		k->def_line = (uint32_t)get_int(ko, "line", 0);
		k->helper = json_is_true(json_object_get(ko, "helper"));
		const char *se = json_string_value(json_object_get(ko, "syntax_error"));
		k->syntax_error = se ? ta_xstrdup(se) : NULL;
		k->syntax_line = (uint32_t)get_int(ko, "syntax_line", 0);
		k->syntax_col = (uint32_t)get_int(ko, "syntax_col", 0);
		size_t j;
		json_t *so;
		json_array_foreach(json_object_get(ko, "steps"), j, so) {
			const char *id = json_string_value(json_object_get(so, "id"));
			if (!id || strlen(id) > 7)
				return bad(r, "a step has no id");
			ta_step *st = ta_walk_add_step(k, id);
			if (!parse_status(json_string_value(json_object_get(so, "status")), &st->status))
				return bad(r, "a step has an unknown status");
			st->mark = st->status == TA_STATUS_APPLIES ? TA_MARK_APPLIES
				 : st->status == TA_STATUS_SATISFIED ? TA_MARK_SATISFIED
				 : st->status == TA_STATUS_NEEDS_PROFILE ? TA_MARK_NEEDS_PROFILE
				 : st->status == TA_STATUS_NEEDS_BASELINE ? TA_MARK_NEEDS_BASELINE
				 : TA_MARK_NOT_APPLICABLE;
			const char *ek = json_string_value(json_object_get(so, "edit"));
			st->edit_kind = !ek ? TA_STEP_EDIT_NONE : !strcmp(ek, "mechanical")
				      ? TA_STEP_EDIT_MECHANICAL : TA_STEP_EDIT_GUIDED;
			st->diff = get_str(so, "diff");
			st->edit_title = get_str(so, "edit_title");
			st->why_no_edit = get_str(so, "why_no_edit");
			st->unsafe = get_str(so, "unsafe");
			st->edit_line = (uint32_t)get_int(so, "edit_line", 0);
			st->silenced = json_is_true(json_object_get(so, "silenced"));
			st->ignored = json_is_true(json_object_get(so, "ignored"));
			size_t f;
			json_t *fo;
			json_array_foreach(json_object_get(so, "findings"), f, fo) {
				ta_walk_finding *wf = TA_APPEND(st->findings, st->n_findings);
				wf->reason = get_str(fo, "reason");
				if (!wf->reason)
					wf->reason = ta_xstrdup("");
				wf->line = (uint32_t)get_int(fo, "line", 0);
				wf->col = (uint32_t)get_int(fo, "col", 0);
				wf->end_line = (uint32_t)get_int(fo, "end_line", wf->line);
				wf->measure = get_str(fo, "measure");
				json_t *ls = json_object_get(fo, "lines");
				if (json_array_size(ls)) {
					wf->lines = ta_xcalloc(json_array_size(ls), sizeof *wf->lines);
					size_t l;
					json_t *lv;
					json_array_foreach(ls, l, lv)
						wf->lines[wf->n_lines++] = (uint32_t)json_integer_value(lv);
				}
			}
		}
	}
	/* Sessions recorded before the walk put its notes last keep them
	 * where they were stored; a replay shows them as a walk built now
	 * would. Runs and edits refer to steps by id, so nothing measured
	 * moves with them. */
	ta_walk_notes_last(w);
	return true;
}

static bool read_session(reader *r, json_t *root, ta_session *s)
{
	if (!json_is_object(root))
		return bad(r, "the top level is not an object");
	json_t *v = json_object_get(root, "version");
	if (!json_is_integer(v))
		return bad(r, "no format version");
	if (json_integer_value(v) > TA_SESSION_VERSION || json_integer_value(v) < 1) {
		r->err = ta_xasprintf("%s: session format version %lld is not one this tileadvise reads "
				      "(it reads version %d); open it with the tileadvise that wrote it",
				      r->name, (long long)json_integer_value(v), TA_SESSION_VERSION);
		return false;
	}
	s->tool = get_str(root, "tool");
	s->created = get_str(root, "created");
	s->updated = get_str(root, "updated");
	json_t *file = json_object_get(root, "file");
	s->file_name = get_str(file, "name");
	s->file_path = get_str(file, "path");
	if (!s->file_name)
		return bad(r, "no file name");
	if (!s->file_path)
		s->file_path = ta_xstrdup(s->file_name);
	hash_of(file, "hash", &s->file_hash);
	s->file_size = (uint64_t)get_int(file, "size", 0);
	json_t *env = json_object_get(root, "env");
	json_t *gpu = json_object_get(env, "gpu");
	if (json_is_object(gpu)) {
		s->env.has_gpu = true;
		s->env.gpu = get_str(gpu, "name");
		s->env.cc_major = (int)get_int(gpu, "cc_major", 0);
		s->env.cc_minor = (int)get_int(gpu, "cc_minor", 0);
		s->env.sm_count = (int)get_int(gpu, "sm_count", 0);
	}
	s->env.no_gpu = get_str(env, "no_gpu");
	s->env.driver = (int)get_int(env, "driver", 0);
	s->env.cupti = (unsigned)get_int(env, "cupti", 0);
	s->env.software = get_str(env, "software");
	s->env.host = get_str(env, "host");
	json_t *cmd = json_object_get(root, "command");
	if (json_array_size(cmd)) {
		s->command = ta_xcalloc(json_array_size(cmd) + 1, sizeof *s->command);
		for (size_t i = 0; i < json_array_size(cmd); i++) {
			const char *a = json_string_value(json_array_get(cmd, i));
			s->command[i] = ta_xstrdup(a ? a : "");
		}
	}
	s->test_command = get_str(root, "test");
	s->check_lines = get_str(root, "check_lines");
	size_t i;
	json_t *vo;
	json_array_foreach(json_object_get(root, "versions"), i, vo) {
		json_t *t = json_object_get(vo, "text");
		if (!json_is_string(t))
			return bad(r, "a version has no text");
		ta_session_version *ver = TA_APPEND(s->versions, s->n_versions);
		ver->len = json_string_length(t);
		ver->text = ta_xstrndup(json_string_value(t), ver->len);
		ver->hash = ta_hash_bytes(ver->text, ver->len);
		ver->label = get_str(vo, "label");
	}
	if (s->n_versions == 0)
		return bad(r, "it holds no version of the file");
	long long cur = get_int(root, "current", (long long)s->n_versions - 1);
	if (cur < 0 || (size_t)cur >= s->n_versions)
		return bad(r, "\"current\" names no stored version");
	s->current = (unsigned)cur;
	if (!read_runs(r, json_object_get(root, "runs"), s))
		return false;
	if (!read_baseline(r, json_object_get(root, "baseline"), s))
		return false;
	json_t *eo;
	json_array_foreach(json_object_get(root, "edits"), i, eo) {
		const char *id = json_string_value(json_object_get(eo, "id"));
		if (!id || strlen(id) > 7)
			return bad(r, "an edit has no id");
		ta_session_edit *e = TA_APPEND(s->edits, s->n_edits);
		snprintf(e->id, sizeof e->id, "%s", id);
		e->kernel = get_str(eo, "kernel");
		e->line = (uint32_t)get_int(eo, "line", 0);
		e->date = get_str(eo, "date");
		e->from_version = (unsigned)get_int(eo, "from_version", 0);
		e->to_version = (unsigned)get_int(eo, "to_version", 0);
		e->before_run = (int)get_int(eo, "before_run", -1);
		e->after_run = (int)get_int(eo, "after_run", -1);
		if (e->before_run >= (int)s->n_runs || e->after_run >= (int)s->n_runs ||
		    e->from_version >= s->n_versions || e->to_version >= s->n_versions)
			return bad(r, "an edit refers to a run or version that is not there");
		e->undone = json_is_true(json_object_get(eo, "undone"));
		e->diff = get_str(eo, "diff");
		const char *t = json_string_value(json_object_get(eo, "test"));
		e->test = t && !strcmp(t, "passed") ? TA_TEST_PASSED
			: t && !strcmp(t, "failed") ? TA_TEST_FAILED : TA_TEST_NONE;
		e->test_note = get_str(eo, "test_note");
		e->broken = get_str(eo, "broken");
	}
	json_t *ko;
	json_array_foreach(json_object_get(root, "skipped"), i, ko) {
		const char *k = json_string_value(json_object_get(ko, "kernel"));
		const char *id = json_string_value(json_object_get(ko, "id"));
		if (k && id && strlen(id) < 8)
			ta_session_set_skip(s, k, id, true);
	}
	if (!read_walk(r, json_object_get(root, "walk"), s))
		return false;
	json_t *pos = json_object_get(root, "position");
	s->pos_kernel = get_str(pos, "kernel");
	const char *ps = json_string_value(json_object_get(pos, "step"));
	snprintf(s->pos_step, sizeof s->pos_step, "%s", ps ? ps : "");
	return true;
}

int ta_session_from_json(const char *text, size_t len, const char *name, ta_session **out,
			 char **err)
{
	*out = NULL;
	json_error_t je;
	json_t *root = ta_json_loadb(text, len, 0, &je);
	if (root && ta_json_take_bytes(root) != 0) {
		json_decref(root);
		*err = ta_xasprintf("%s: a field's exact bytes (_bytes) in the session are not base64", name);
		return -1;
	}
	if (!root) {
		/* jansson quotes the bad bytes: keep the message one line. */
		for (char *p = je.text; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = ' ';
		*err = ta_xasprintf("%s:%d:%d: the session is not valid JSON (%s)",
				    name, je.line, je.column, je.text);
		return -1;
	}
	ta_session *s = ta_xcalloc(1, sizeof *s);
	reader r = { .name = name };
	bool ok = read_session(&r, root, s);
	json_decref(root);
	if (!ok) {
		ta_session_free(s);
		*err = r.err;
		return -1;
	}
	*out = s;
	return 0;
}

int ta_session_load(const char *path, ta_session **out, char **err)
{
	char *data, *why = NULL;
	size_t len;
	char *kernel = ta_state_kernel_of(path, "session-", ".json");
	if (kernel) {
		/* beside its kernel: read through the state folder, which refuses
		 * a link (another folder's sessions) */
		ta_state_dir d;
		int rc = ta_state_open(kernel, false, &d, &why);
		if (rc == 0)
			rc = ta_state_read(&d, ta_path_basename(path), SESSION_MAX_BYTES, &data, &len, &why);
		ta_state_close(&d);
		free(kernel);
		if (rc != 0) {
			*err = rc < 0 ? why : ta_xasprintf("%s: no such file", path);
			return -1;
		}
	} else if (ta_read_file(path, SESSION_MAX_BYTES, &data, &len, &why) != 0) {
		*err = ta_xasprintf("%s: %s", path, why);
		free(why);
		return -1;
	}
	int rc = ta_session_from_json(data, len, path, out, err);
	free(data);
	return rc;
}
