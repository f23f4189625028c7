/* The walk of a file: steps per kernel in trigger order, with statuses,
 * findings, edits and measured changes. */
#include "config.h"
#include "advise/walk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "advise/checklist.h"
#include "advise/walk_edit.h"
#include "checklist/filter.h"
#include "profile/autotune.h"
#include "util/buf.h"

/* ---- figures ------------------------------------------------------------------ */

static char *iso_now(void)
{
	char buf[32];
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return ta_xstrdup(buf);
}

void ta_run_figures_from_measure(ta_run_figures *out, const ta_measurement *m,
				 const char *label, const char *date, unsigned version)
{
	memset(out, 0, sizeof *out);
	out->label = ta_xstrdup(label ? label : "run");
	out->date = date ? ta_xstrdup(date) : iso_now();
	out->version = version;
	if (!m || m->n_kernels == 0)
		return;
	out->kernels = ta_xcalloc(m->n_kernels, sizeof *out->kernels);
	for (size_t i = 0; i < m->n_kernels; i++) {
		const ta_kernel_measure *km = &m->kernels[i];
		ta_kernel_figures *kf = &out->kernels[out->n_kernels++];
		kf->name = ta_xstrdup(km->name);
		kf->launches = km->launches;
		kf->autotune_launches = km->autotune_launches;
		kf->warmup_launches = km->warmup_launches;
		ta_autotune_table_copy(&kf->tune, &km->tune);
		if (km->n_groups == 0)
			continue;
		const ta_kernel_group *g = &km->groups[km->main_group];
		kf->calls = km->steady_calls;
		kf->per_call_ns = km->steady_calls ? km->steady_total_ns / (double)km->steady_calls : 0;
		kf->shapes = ta_xcalloc(km->n_groups, sizeof *kf->shapes);
		for (size_t s = 0; s < km->n_groups; s++) {
			/* the dominant shape first, then the others as grouped */
			size_t gi = s == 0 ? km->main_group : s <= km->main_group ? s - 1 : s;
			const ta_kernel_group *x = &km->groups[gi];
			if (!x->n_durations)
				continue;
			ta_shape_figures *sf = &kf->shapes[kf->n_shapes++];
			memcpy(sf->grid, x->cfg.grid, sizeof sf->grid);
			memcpy(sf->block, x->cfg.block, sizeof sf->block);
			sf->regs = x->cfg.regs;
			sf->smem = x->cfg.smem_static + x->cfg.smem_dynamic;
			sf->calls = x->steady;
			sf->median_ns = x->summary.median;
			sf->share = x->share;
			sf->period_ns = x->n_period ? x->period_ns : 0;
			sf->iqr_ns = x->summary.iqr;
			sf->n = x->n_durations;
		}
		kf->period_ns = km->n_period ? km->period_ns : 0;
		kf->n_period = (size_t)km->n_period;
		kf->sampled = km->sampled;
		kf->summary = g->summary;
		kf->durations_ns = ta_xmemdup(g->durations_ns, g->n_durations * sizeof(double));
		kf->weights = ta_xmemdup(g->weights, g->n_durations * sizeof(double));
		kf->n_durations = g->n_durations;
		if (km->n_phases) {
			kf->steady_ns = ta_xmemdup(km->steady_ns, km->n_steady * sizeof(double));
			kf->steady_w = ta_xmemdup(km->steady_w, km->n_steady * sizeof(double));
			kf->n_steady = km->n_steady;
			kf->phase_start = ta_xmemdup(km->phase_start, km->n_phases * sizeof(size_t));
			kf->n_phases = km->n_phases;
		}
		memcpy(kf->grid, g->cfg.grid, sizeof kf->grid);
		memcpy(kf->block, g->cfg.block, sizeof kf->block);
		kf->regs = g->cfg.regs;
		kf->local_per_thread = g->cfg.local_per_thread;
		kf->smem_static = g->cfg.smem_static;
		kf->smem_dynamic = g->cfg.smem_dynamic;
		if (g->has_occupancy) {
			kf->has_occupancy = true;
			kf->occupancy = g->occ.occupancy;
			snprintf(kf->limiter, sizeof kf->limiter, "%s", ta_limiter_name(g->occ.limiter));
			kf->blocks_per_sm = g->occ.blocks_per_sm;
			kf->waves = g->occ.waves;
		}
	}
}

void ta_run_figures_clear(ta_run_figures *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n_kernels; i++) {
		free(f->kernels[i].name);
		free(f->kernels[i].durations_ns);
		free(f->kernels[i].weights);
		free(f->kernels[i].steady_ns);
		free(f->kernels[i].steady_w);
		free(f->kernels[i].phase_start);
		free(f->kernels[i].shapes);
		ta_autotune_table_clear(&f->kernels[i].tune);
		ta_deep_figures_clear(&f->kernels[i].deep);
	}
	free(f->kernels);
	free(f->label);
	free(f->date);
	memset(f, 0, sizeof *f);
}

void ta_run_figures_copy(ta_run_figures *dst, const ta_run_figures *src)
{
	*dst = *src;
	dst->label = src->label ? ta_xstrdup(src->label) : NULL;
	dst->date = src->date ? ta_xstrdup(src->date) : NULL;
	dst->kernels = src->n_kernels ? ta_xcalloc(src->n_kernels, sizeof *dst->kernels) : NULL;
	for (size_t i = 0; i < src->n_kernels; i++) {
		dst->kernels[i] = src->kernels[i];
		dst->kernels[i].name = ta_xstrdup(src->kernels[i].name);
		ta_autotune_table_copy(&dst->kernels[i].tune, &src->kernels[i].tune);
		dst->kernels[i].shapes = NULL;
		if (src->kernels[i].n_shapes) {
			size_t n = src->kernels[i].n_shapes * sizeof(ta_shape_figures);
			dst->kernels[i].shapes = ta_xmalloc(n);
			memcpy(dst->kernels[i].shapes, src->kernels[i].shapes, n);
		}
		ta_deep_figures_copy(&dst->kernels[i].deep, &src->kernels[i].deep);
		const ta_kernel_figures *k = &src->kernels[i];
		dst->kernels[i].durations_ns = ta_xmemdup(k->durations_ns, k->n_durations * sizeof(double));
		dst->kernels[i].weights = ta_xmemdup(k->weights, k->n_durations * sizeof(double));
		dst->kernels[i].steady_ns = ta_xmemdup(k->steady_ns, k->n_steady * sizeof(double));
		dst->kernels[i].steady_w = ta_xmemdup(k->steady_w, k->n_steady * sizeof(double));
		dst->kernels[i].phase_start = ta_xmemdup(k->phase_start, k->n_phases * sizeof(size_t));
	}
}

void ta_run_figures_attach_deep(ta_run_figures *f, const ta_deep *d)
{
	for (size_t i = 0; d && f && i < f->n_kernels; i++) {
		const ta_deep_kernel *k = ta_deep_find(d, f->kernels[i].name);
		if (k && (k->samples || k->has_sol)) {
			ta_deep_figures_clear(&f->kernels[i].deep);
			ta_deep_figures_set(&f->kernels[i].deep, k);
		}
	}
}

const ta_kernel_figures *ta_run_figures_find(const ta_run_figures *f, const char *kernel)
{
	if (!f || !kernel)
		return NULL;
	for (size_t i = 0; i < f->n_kernels; i++)
		if (!strcmp(f->kernels[i].name, kernel))
			return &f->kernels[i];
	return NULL;
}

/* A launch shape of the workload: a grid and a block, the problem as the
 * program splits it. Configurations that differ only in registers or
 * shared memory (what an edit or the autotuner's num_stages changes in the
 * compiled kernel) are one shape: its time per launch is their medians
 * weighted by their launches. */
typedef struct shape {
	const ta_shape_figures *lead;    /* the configuration with the most time */
	double calls, ns, share;
	double var;                       /* of ns, from the configurations' spreads; < 0: not known */
} shape;

static bool same_launch(const ta_shape_figures *x, const ta_shape_figures *y)
{
	return !memcmp(x->grid, y->grid, sizeof x->grid) && !memcmp(x->block, y->block, sizeof x->block);
}

/* The relative standard error of a configuration's median from the
 * spread of its launches (a normal sample's: 1.2533 sigma / sqrt(n), sigma
 * = IQR/1.349); negative when not known. */
static double median_rse(const ta_shape_figures *x)
{
	if (!x->n || !(x->median_ns > 0))
		return -1;
	return 1.2533 * (x->iqr_ns / 1.349) / sqrt((double)x->n) / x->median_ns;
}

/* k's shapes (caller frees; *n of them). */
static shape *shapes_of(const ta_kernel_figures *k, size_t *n)
{
	shape *out = ta_xcalloc(k->n_shapes + 1, sizeof *out);
	*n = 0;
	for (size_t i = 0; i < k->n_shapes; i++) {
		const ta_shape_figures *x = &k->shapes[i];
		shape *sh = NULL;
		for (size_t j = 0; j < *n && !sh; j++)
			if (same_launch(out[j].lead, x))
				sh = &out[j];
		if (!sh) {
			sh = &out[(*n)++];
			sh->lead = x;
		}
		if (x->share > sh->lead->share)
			sh->lead = x;
		double c = x->calls ? (double)x->calls : 1, rse = median_rse(x);
		sh->ns += c * x->median_ns;
		sh->var = sh->var < 0 || rse < 0 ? -1 : sh->var + c * c * (rse * x->median_ns) * (rse * x->median_ns);
		sh->calls += c;
		sh->share += x->share;
	}
	for (size_t j = 0; j < *n; j++) {
		out[j].ns /= out[j].calls;
		if (out[j].var >= 0)
			out[j].var /= out[j].calls * out[j].calls;
	}
	return out;
}

static const shape *find_launch(const shape *v, size_t n, const shape *x)
{
	for (size_t i = 0; i < n; i++)
		if (same_launch(v[i].lead, x->lead))
			return &v[i];
	return NULL;
}

static int by_share(const void *p, const void *q)
{
	const ta_shape_change *a = p, *b = q;
	return (a->share < b->share) - (a->share > b->share);
}

static ta_shape_figures as_figures(const shape *x)
{
	ta_shape_figures f = *x->lead;
	f.calls = (size_t)x->calls;
	f.median_ns = x->ns;
	f.share = x->share;
	return f;
}

static ta_verdict verdict_of(double lo, double hi)
{
	return hi < 1.0 - TA_STATS_NOISE_BAND ? TA_VERDICT_FASTER
	     : lo > 1.0 + TA_STATS_NOISE_BAND ? TA_VERDICT_SLOWER : TA_VERDICT_NOISE;
}

/* The squared relative standard error of k's time per call: each
 * configuration's median weighted by its launches (their counts taken as
 * fixed: the script's loop sets them); negative when a spread is not known. */
static double per_call_rse2(const ta_kernel_figures *k)
{
	double calls = 0, var = 0, t = 0;
	for (size_t i = 0; i < k->n_shapes; i++) {
		const ta_shape_figures *x = &k->shapes[i];
		double rse = median_rse(x), c = (double)x->calls;
		if (rse < 0)
			return -1;
		calls += c;
		t += c * x->median_ns;
		var += c * c * (rse * x->median_ns) * (rse * x->median_ns);
	}
	return calls > 0 && t > 0 ? var / (t * t) : -1;
}

/* The shapes both runs have (into c, the earlier run's largest share
 * first) and those only one has. */
static void compare_shapes(const ta_kernel_figures *b, const ta_kernel_figures *a, ta_change *c)
{
	size_t nb, na;
	shape *sb = shapes_of(b, &nb), *sa = shapes_of(a, &na);
	ta_shape_change *shared = ta_xcalloc(nb + 1, sizeof *shared);
	for (size_t i = 0; i < nb; i++) {
		const shape *y = find_launch(sa, na, &sb[i]);
		if (!y) {
			if (c->n_gone < TA_CHANGE_SHAPES)
				c->gone[c->n_gone] = as_figures(&sb[i]);
			c->n_gone++;
			continue;
		}
		ta_shape_change *sc = &shared[c->n_shared++];
		memcpy(sc->grid, sb[i].lead->grid, sizeof sc->grid);
		memcpy(sc->block, sb[i].lead->block, sizeof sc->block);
		sc->regs = y->lead->regs;
		sc->smem = y->lead->smem;
		sc->before_ns = sb[i].ns;
		sc->after_ns = y->ns;
		sc->share = sb[i].share;
		c->shared_share += sb[i].share;
	}
	for (size_t i = 0; i < na; i++)
		if (!find_launch(sb, nb, &sa[i])) {
			if (c->n_fresh < TA_CHANGE_SHAPES)
				c->fresh[c->n_fresh] = as_figures(&sa[i]);
			c->n_fresh++;
		}
	qsort(shared, c->n_shared, sizeof *shared, by_share);
	c->n_shapes = c->n_shared < TA_CHANGE_SHAPES ? c->n_shared : TA_CHANGE_SHAPES;
	memcpy(c->shapes, shared, c->n_shapes * sizeof *shared);
	free(shared);
	free(sb);
	free(sa);
}

/* A kernel's steady launches by phase, and its dominant shape's launches,
 * each as weighed. */
static ta_sample steady_sample(const ta_kernel_figures *k)
{
	return (ta_sample){ .x = k->steady_ns, .w = k->steady_w, .n = k->n_steady, .starts = k->phase_start,
			    .phases = k->n_phases };
}

static ta_sample launch_sample(const ta_kernel_figures *k)
{
	return (ta_sample){ .x = k->durations_ns, .w = k->weights, .n = k->n_durations };
}

double ta_kernel_figure(const ta_kernel_figures *k, bool by_parts, bool per_call)
{
	if (by_parts && k->n_phases) {
		ta_sample s = steady_sample(k);
		return ta_stats_sample_geomean(&s);
	}
	if (per_call && k->calls && k->per_call_ns > 0)
		return k->per_call_ns;
	return k->summary.median;
}

/* The workloads' ratio, after over before time per call, so that a walk's
 * step ratios multiply to its whole figure; its interval from the spreads
 * of both runs' configurations (a ratio of medians is near log-normal),
 * else base's interval carried over to it (sessions before the spreads). */
static void workload_ratio(const ta_kernel_figures *b, const ta_kernel_figures *a, const ta_comparison *base,
			   ta_comparison *out)
{
	double r = a->per_call_ns / b->per_call_ns;
	double eb = per_call_rse2(b), ea = per_call_rse2(a);
	*out = *base;
	out->ratio = r;
	if (eb >= 0 && ea >= 0) {
		double sd = sqrt(eb + ea);
		out->lo = r * exp(-1.96 * sd);
		out->hi = r * exp(1.96 * sd);
	} else if (base->ratio > 0) {
		out->lo = r * base->lo / base->ratio;
		out->hi = r * base->hi / base->ratio;
	} else {
		out->lo = out->hi = r;
	}
	out->verdict = verdict_of(out->lo, out->hi);
}

ta_change ta_change_compare(const ta_run_figures *before, const ta_run_figures *after, const char *kernel,
			    ta_pairing how)
{
	ta_change c = { 0 };
	const ta_kernel_figures *b = ta_run_figures_find(before, kernel);
	const ta_kernel_figures *a = ta_run_figures_find(after, kernel);
	if (!a || !b || !a->n_durations || !b->n_durations)
		return c;
	c.measured = true;
	if (a->n_period && b->n_period) {
		c.period_before_ns = b->period_ns;
		c.period_after_ns = a->period_ns;
	}
	/* The base comparison: the same parts of the script paired, or the
	 * dominant shapes' launches. */
	bool phased = b->n_phases && b->n_phases == a->n_phases;
	ta_sample sb = phased ? steady_sample(b) : launch_sample(b);
	ta_sample sa = phased ? steady_sample(a) : launch_sample(a);
	c.cmp = ta_stats_compare_samples(&sb, &sa);
	/* the base comparison's own figures (the parts' geometric means when
	 * phased), before the workloads stand in for them */
	c.before_ns = ta_kernel_figure(b, phased, false);
	c.after_ns = ta_kernel_figure(a, phased, false);
	double base_before_ns = c.before_ns, base_after_ns = c.after_ns;
	bool workloads = b->calls && a->calls && b->per_call_ns > 0 && a->per_call_ns > 0;
	if (workloads) {
		/* The workloads: what the user's program pays per call. */
		c.before_ns = ta_kernel_figure(b, false, true);
		c.after_ns = ta_kernel_figure(a, false, true);
	}
	if (!a->n_shapes || !b->n_shapes) {
		/* Sessions before shapes: the dominant launches stand for it. */
		if ((memcmp(a->grid, b->grid, sizeof a->grid) || memcmp(a->block, b->block, sizeof a->block)) &&
		    c.cmp.verdict != TA_VERDICT_NONE)
			c.cmp.verdict = TA_VERDICT_CHANGED;
		return c;
	}
	ta_comparison base = c.cmp;
	compare_shapes(b, a, &c);
	if (how == TA_PAIR_AUTO)
		how = phased && b->n_phases >= 2 ? TA_PAIR_PARTS : TA_PAIR_SHAPES;
	if (base.verdict == TA_VERDICT_NONE)
		return c;
	if (phased && (how == TA_PAIR_PARTS || (!c.n_shared && how == TA_PAIR_SHAPES))) {
		/* The parts compare, whatever their launch counts and shapes: a
		 * mode that launches the same grid as another would otherwise
		 * mix into one shape's median, and a benchmark timed by duration
		 * launches a faster kernel more often. The figures are the parts'
		 * geometric means, which the ratio is of. */
		c.cmp = base;
		c.by_parts = true;
		c.before_ns = base_before_ns;
		c.after_ns = base_after_ns;
	} else if (workloads && (c.n_shared || phased || a->calls == b->calls)) {
		/* Shapes launched alike, parts that pair, or as many launches:
		 * what the program pays per call compares, its interval from
		 * the runs' spreads (else the base comparison's, carried). */
		workload_ratio(b, a, &base, &c.cmp);
	} else if (!c.n_shared) {
		/* Nothing launched alike and nothing to pair: no verdict, and
		 * the page says what changed. */
		c.cmp.ratio = c.before_ns > 0 ? c.after_ns / c.before_ns : 0;
		c.cmp.lo = c.cmp.hi = c.cmp.ratio;
		c.cmp.verdict = TA_VERDICT_CHANGED;
	}
	return c;
}

ta_change ta_change_between(const ta_run_figures *before, const ta_run_figures *after,
			    const char *kernel)
{
	return ta_change_compare(before, after, kernel, TA_PAIR_AUTO);
}

/* ---- marks --------------------------------------------------------------------- */

static ta_mark mark_of_status(ta_status s)
{
	switch (s) {
	case TA_STATUS_APPLIES: return TA_MARK_APPLIES;
	case TA_STATUS_SATISFIED: return TA_MARK_SATISFIED;
	case TA_STATUS_NEEDS_PROFILE: return TA_MARK_NEEDS_PROFILE;
	case TA_STATUS_NEEDS_BASELINE: return TA_MARK_NEEDS_BASELINE;
	case TA_STATUS_NOT_APPLICABLE:
	default: return TA_MARK_NOT_APPLICABLE;
	}
}

/* A mark that is a status is named as the status (ta_status_name); the two
 * the walk adds have their own names. */
const char *ta_mark_name(ta_mark m)
{
	if (m == TA_MARK_APPLIED)
		return "applied";
	if (m == TA_MARK_SKIPPED)
		return "skipped";
	for (int s = 0; s < TA_STATUS__COUNT; s++)
		if (mark_of_status((ta_status)s) == m)
			return ta_status_name((ta_status)s);
	return "?";
}

bool ta_mark_parse(const char *name, ta_mark *out)
{
	for (int i = 0; i < TA_MARK__COUNT; i++)
		if (name && !strcmp(name, ta_mark_name((ta_mark)i))) {
			*out = (ta_mark)i;
			return true;
		}
	return false;
}

bool ta_step_is_open(const ta_step *s)
{
	return s->mark != TA_MARK_SATISFIED && s->mark != TA_MARK_NOT_APPLICABLE;
}

uint32_t ta_step_line(const ta_step *s)
{
	if (s->n_findings)
		return s->findings[0].line;
	return s->edit_line;
}

/* ---- building -------------------------------------------------------------------- */

ta_walk *ta_walk_new(void)
{
	return ta_xcalloc(1, sizeof(ta_walk));
}

ta_walk_kernel *ta_walk_add_kernel(ta_walk *w, const char *name)
{
	ta_walk_kernel *k = TA_APPEND(w->kernels, w->n_kernels);
	k->name = ta_xstrdup(name);
	return k;
}

ta_step *ta_walk_add_step(ta_walk_kernel *k, const char *id)
{
	ta_step *s = TA_APPEND(k->steps, k->n_steps);
	snprintf(s->id, sizeof s->id, "%s", id);
	s->mark = TA_MARK_NOT_APPLICABLE;
	s->status = TA_STATUS_NOT_APPLICABLE;
	return s;
}

static void step_free(ta_step *s)
{
	for (size_t i = 0; i < s->n_findings; i++) {
		free(s->findings[i].reason);
		free(s->findings[i].lines);
		free(s->findings[i].measure);
		free(s->findings[i].why_no_edit);
	}
	free(s->findings);
	free(s->diff);
	free(s->edit_title);
	free(s->why_no_edit);
	free(s->broken);
	free(s->unsafe);
}

void ta_walk_free(ta_walk *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n_kernels; i++) {
		for (size_t j = 0; j < w->kernels[i].n_steps; j++)
			step_free(&w->kernels[i].steps[j]);
		free(w->kernels[i].steps);
		free(w->kernels[i].name);
		free(w->kernels[i].syntax_error);
	}
	free(w->kernels);
	ta_rules_result_free(w->rules);
	ta_suppressions_free(w->sup);
	free(w->edit_of);
	free(w->name);
	free(w);
}

int ta_walk_find_kernel(const ta_walk *w, const char *name)
{
	for (size_t i = 0; w && name && i < w->n_kernels; i++)
		if (!strcmp(w->kernels[i].name, name))
			return (int)i;
	return -1;
}

ta_step *ta_walk_find_step(const ta_walk *w, const char *kernel, const char *id)
{
	int k = ta_walk_find_kernel(w, kernel);
	if (k < 0 || !id)
		return NULL;
	for (size_t j = 0; j < w->kernels[k].n_steps; j++)
		if (!strcasecmp(w->kernels[k].steps[j].id, id))
			return &w->kernels[k].steps[j];
	return NULL;
}

void ta_walk_evidence(const ta_run_figures *f, const ta_gpu_info *gpu,
		      ta_kernel_evidence *ev_kernels, ta_evidence *ev)
{
	memset(ev, 0, sizeof *ev);
	if (gpu) {
		ev->device = gpu->name;
		ev->sm_count = (uint32_t)gpu->sm_count;
		ev->peak_bytes_per_s = gpu->peak_dram_gbs * 1e9;
	}
	for (size_t i = 0; f && i < f->n_kernels; i++) {
		const ta_kernel_figures *kf = &f->kernels[i];
		ta_kernel_evidence *ke = &ev_kernels[i];
		memset(ke, 0, sizeof *ke);
		ke->name = kf->name;
		ke->launches = kf->summary.count;
		ke->median_ns = kf->summary.median;
		for (int d = 0; d < 3; d++) {
			ke->grid[d] = kf->grid[d] > 0 ? (uint32_t)kf->grid[d] : 0;
			ke->block[d] = kf->block[d] > 0 ? (uint32_t)kf->block[d] : 0;
		}
		ke->registers = kf->regs;
		ke->local_bytes = kf->local_per_thread;
		ke->static_smem = kf->smem_static > 0 ? (uint32_t)kf->smem_static : 0;
		ke->dynamic_smem = kf->smem_dynamic > 0 ? (uint32_t)kf->smem_dynamic : 0;
		ke->occupancy = kf->occupancy;
		ke->occupancy_limiter = kf->has_occupancy ? kf->limiter : NULL;
		ke->waves = kf->waves;
		if (kf->deep.has_sol) {
			ke->has_sol = true;
			ke->dram_pct = kf->deep.sol.dram_pct;
			ke->sm_pct = kf->deep.sol.sm_pct;
		}
	}
	ev->kernels = ev_kernels;
	ev->kernel_count = f ? f->n_kernels : 0;
}

static ta_step_edit step_edit_of(const ta_entry *e)
{
	if (!e)
		return TA_STEP_EDIT_NONE;
	switch (e->edit) {
	case TA_EDIT_MECHANICAL: return TA_STEP_EDIT_MECHANICAL;
	case TA_EDIT_GUIDED: return TA_STEP_EDIT_GUIDED;
	case TA_EDIT_NONE:
	default: return TA_STEP_EDIT_NONE;
	}
}

static void copy_finding(ta_step *s, const ta_finding *f)
{
	ta_walk_finding *wf = TA_APPEND(s->findings, s->n_findings);
	wf->reason = ta_xstrdup(f->reason ? f->reason : "");
	wf->line = f->span.line;
	wf->col = f->span.col;
	wf->end_line = f->span.end_line ? f->span.end_line : f->span.line;
	if (f->line_count) {
		wf->lines = ta_xmalloc(f->line_count * sizeof *wf->lines);
		memcpy(wf->lines, f->lines, f->line_count * sizeof *wf->lines);
		wf->n_lines = f->line_count;
	}
	wf->measure = f->measure ? ta_xstrdup(f->measure) : NULL;
}

/* The per-call time of a baseline that shares no kernel name with the
 * run: the sum of the medians of its steady kernels. Kernels launched less
 * than half as often as its busiest one are set-up work (inputs, copies). */
static double baseline_call_ns(const ta_run_figures *base)
{
	size_t most = 0;
	for (size_t i = 0; i < base->n_kernels; i++)
		if (base->kernels[i].summary.count > most)
			most = base->kernels[i].summary.count;
	double sum = 0;
	for (size_t i = 0; i < base->n_kernels; i++)
		if (base->kernels[i].summary.count * 2 >= most)
			sum += base->kernels[i].summary.median;
	return sum;
}

double ta_baseline_ratio(const ta_run_figures *run, const ta_run_figures *base, const char *kernel,
			 double *base_ns)
{
	const ta_kernel_figures *k = ta_run_figures_find(run, kernel);
	if (base_ns)
		*base_ns = 0;
	if (!base || !k || k->summary.median <= 0)
		return 0;
	/* A previous version of the kernel compares by name; a reference
	 * with kernels of its own compares per call. */
	const ta_kernel_figures *same = ta_run_figures_find(base, kernel);
	double b = same && same->summary.median > 0 ? same->summary.median : baseline_call_ns(base);
	double mine = k->summary.median;
	if (!(same && same->summary.median > 0)) {
		mine = 0;
		for (size_t i = 0; i < run->n_kernels; i++)
			mine += run->kernels[i].summary.median;
	}
	if (base_ns)
		*base_ns = b;
	return b > 0 ? mine / b : 0;
}

void ta_walk_baseline_ratios(const ta_run_figures *run, const ta_run_figures *base,
			     ta_kernel_evidence *ev_kernels, ta_evidence *ev)
{
	if (!base || !run || !ev)
		return;
	double call_ns = baseline_call_ns(base), run_ns = 0;
	for (size_t i = 0; i < run->n_kernels; i++)
		run_ns += run->kernels[i].summary.median;
	ev->has_baseline = call_ns > 0;
	ev->baseline_ratio = call_ns > 0 ? run_ns / call_ns : 0;
	for (size_t i = 0; i < ev->kernel_count; i++)
		ev_kernels[i].baseline_ratio = ta_baseline_ratio(run, base, ev_kernels[i].name, NULL);
}

static void baseline_steps_last(ta_walk_kernel *k)
{
	size_t n = k->n_steps, at = 0;
	if (n < 2)
		return;
	ta_step *sorted = ta_xcalloc(n, sizeof *sorted);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++)
			if ((k->steps[i].status == TA_STATUS_NEEDS_BASELINE) == (pass == 1))
				sorted[at++] = k->steps[i];
	memcpy(k->steps, sorted, n * sizeof *sorted);
	free(sorted);
}

void ta_walk_notes_last(ta_walk *w)
{
	for (size_t ki = 0; w && ki < w->n_kernels; ki++)
		baseline_steps_last(&w->kernels[ki]);
}

ta_walk *ta_walk_build(const ta_model *m, const struct ta_catalog *cat, const ta_run_figures *run,
		       const ta_gpu_info *gpu, const char *name)
{
	return ta_walk_build_vs(m, cat, run, NULL, gpu, name);
}

/* Whether a `# tileadvise: ignore` comment silences f, as in --check (by
 * any id the finding is shown with). */
static bool silenced(const ta_rules_result *r, const ta_suppressions *sup, const ta_finding *f)
{
	return ta_suppressions_silence_finding(sup, r, f);
}

/* The step's edit: every site is tried, as --apply ID tries them (the user
 * may pick any that can be rewritten); the diff shown is the first site's
 * whose rewrite can change it (a served entry's rewrite is its server's),
 * else why the first one cannot be. */
static void make_step_edit(const ta_model *m, const ta_rules_result *r, const ta_suppressions *sup,
			   int ki, const char *name, ta_step *s)
{
	size_t wi = 0;
	for (size_t f = 0; f < r->finding_count; f++) {
		const ta_finding *fd = &r->findings[f];
		if (fd->kernel != ki || strcmp(fd->id, s->id) || silenced(r, sup, fd))
			continue;
		ta_walk_finding *wf = wi < s->n_findings ? &s->findings[wi] : NULL;
		wi++;
		char *why = NULL, *diff = NULL, *title = NULL, *unsafe = NULL;
		if (ta_walk_edit_diff(m, fd, name, &diff, &title, &unsafe, &why) == 0) {
			s->n_edit_sites++;
			if (wf)
				wf->edit_ok = true;
			if (!s->diff) {
				s->diff = diff;
				s->edit_title = title;
				s->unsafe = unsafe;
				s->edit_line = fd->span.line;
				free(s->why_no_edit);
				s->why_no_edit = NULL;
				continue;
			}
			free(diff);
			free(title);
			free(unsafe);
		} else {
			if (wf)
				wf->why_no_edit = ta_xstrdup(why ? why : "no edit here");
			if (!s->diff && !s->why_no_edit)
				s->why_no_edit = why;
			else
				free(why);
		}
	}
}

/* The entry of an id that ta_rules_walk_order gave: its strings are the
 * table's own, so the address finds it without comparing names. */
static int entry_of(const char *id, size_t n_entries)
{
	for (size_t e = 0; e < n_entries; e++)
		if (ta_rules_id(e) == id)
			return (int)e;
	return ta_rules_index(id);
}

/* Fills kernel ki's steps from the rules' result (its kernel must have
 * been checked): statuses, findings, edit kinds, and each mechanical
 * edit made now or left pending (lazy). */
static void fill_kernel(ta_walk *w, const ta_model *m, const ta_rules_result *r, size_t ki,
			const char *name, bool lazy)
{
	size_t n_entries = ta_rules_count();
	const char **order = ta_xcalloc(n_entries + 1, sizeof *order);
	/* The kernel's findings, in the order the rules gave them (a scan of
	 * every finding per step took 20 M instructions of the advisor's
	 * start on a file of 70 kernels). */
	size_t *mine = ta_xcalloc(r->finding_count + 1, sizeof *mine), n_mine = 0;
	for (size_t f = 0; f < r->finding_count; f++)
		if (r->findings[f].kernel == (int)ki)
			mine[n_mine++] = f;
	ta_walk_kernel *wk = &w->kernels[ki];
	size_t n = ta_rules_walk_order(r, (int)ki, order);
	for (size_t i = 0; i < n; i++) {
		int e = entry_of(order[i], n_entries);
		if (e < 0)
			continue;
		ta_step *s = ta_walk_add_step(wk, order[i]);
		s->status = ta_rules_status(r, (int)ki, (size_t)e);
		s->mark = mark_of_status(s->status);
		s->edit_kind = w->edit_of[e];
		/* An entry the filter leaves out, as --check leaves it out. */
		bool left_out = w->filter && !ta_filter_wants(w->filter, s->id);
		size_t quiet = 0;
		for (size_t j = 0; j < n_mine; j++) {
			const ta_finding *fd = &r->findings[mine[j]];
			if (strcmp(fd->id, s->id))
				continue;
			if (left_out || silenced(r, w->sup, fd))
				quiet++;
			else
				copy_finding(s, fd);
		}
		if (left_out && s->status != TA_STATUS_NOT_APPLICABLE && s->status != TA_STATUS_SATISFIED) {
			s->status = TA_STATUS_NOT_APPLICABLE;
			s->mark = TA_MARK_NOT_APPLICABLE;
			s->ignored = true;
		} else if (s->status == TA_STATUS_APPLIES && quiet && !s->n_findings) {
			s->status = TA_STATUS_NOT_APPLICABLE;
			s->mark = TA_MARK_NOT_APPLICABLE;
			s->silenced = true;
		}
		if (s->status != TA_STATUS_APPLIES || s->edit_kind != TA_STEP_EDIT_MECHANICAL)
			continue;
		s->edit_line = ta_step_line(s);
		if (lazy) {
			s->edit_pending = true;
			w->n_pending++;
		} else {
			make_step_edit(m, r, w->sup, (int)ki, name, s);
		}
	}
	baseline_steps_last(wk);
	free(mine);
	free(order);
}

/* A lazy walk keeps the model and the rules while it has kernels or edits
 * to make; with neither left they are let go. */
static void release_if_done(ta_walk *w)
{
	if (w->n_pending || w->n_kernels_pending)
		return;
	ta_rules_result_free(w->rules);
	ta_suppressions_free(w->sup);
	w->rules = NULL;
	w->sup = NULL;
	w->filter = NULL;
	w->model = NULL;
}

/* The first syntax error inside kernel k (its decorators to its last
 * line), said into wk ("line L, column C: what"); false when none. */
static bool syntax_error_in(const ta_model *m, const ta_kernel *k, ta_walk_kernel *wk)
{
	for (size_t i = 0; m->syn && i < m->syn->error_count; i++) {
		const ta_syntax_error *e = &m->syn->errors[i];
		if (e->line < k->span.line || e->line > k->span.end_line)
			continue;
		wk->syntax_error = ta_xasprintf("line %zu, column %zu: %s", e->line, e->column,
						e->what ? e->what : "cannot parse");
		wk->syntax_line = (uint32_t)e->line;
		wk->syntax_col = (uint32_t)e->column;
		return true;
	}
	return false;
}

static ta_walk *build(const ta_model *m, const struct ta_catalog *cat, const ta_run_figures *run,
		      const ta_run_figures *base, const ta_gpu_info *gpu, const char *name, bool lazy,
		      const ta_filter *filter)
{
	ta_walk *w = ta_walk_new();
	w->filter = filter;
	ta_evidence ev;
	ta_kernel_evidence *evk = NULL;
	if (run) {
		evk = ta_xcalloc(run->n_kernels + 1, sizeof *evk);
		ta_walk_evidence(run, gpu, evk, &ev);
		ta_walk_baseline_ratios(run, base, evk, &ev);
	}
	/* Without a run the rules need nothing but the model, so a lazy walk
	 * checks its kernels when they are first shown (ta_walk_kernel_ready)
	 * or while the advisor is idle: the first frame waits for the rules of
	 * the kernel it shows (and those before it), not for all of them. */
	bool lazy_kernels = lazy && !run;
	w->sup = m->src ? ta_suppressions_read(m->src) : NULL;
	ta_rules_result *r = lazy_kernels ? ta_rules_start(m, NULL) : ta_rules_run(m, run ? &ev : NULL);
	/* Looked up once per build, not once per kernel and step. */
	size_t n_entries = ta_rules_count();
	w->edit_of = ta_xcalloc(n_entries + 1, sizeof *w->edit_of);
	for (size_t e = 0; e < n_entries; e++)
		w->edit_of[e] = step_edit_of(cat ? ta_catalog_find(cat, ta_rules_id(e)) : NULL);
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		const ta_kernel *mk = &m->kernels[ki];
		ta_walk_kernel *wk = ta_walk_add_kernel(w, mk->name);
		wk->def_line = mk->def_line;
		wk->helper = mk->is_helper;
		if (syntax_error_in(m, mk, wk)) {
			/* its model is the parser's guess: no steps (the rules of
			 * a lazy walk still count it, to keep kernels and rules
			 * in step) */
			if (lazy_kernels)
				w->n_kernels_pending++, wk->steps_pending = true;
		} else if (lazy_kernels) {
			wk->steps_pending = true;
			w->n_kernels_pending++;
		} else {
			fill_kernel(w, m, r, ki, name, lazy);
		}
	}
	free(evk);
	w->model = m;
	w->rules = r;
	w->name = name ? ta_xstrdup(name) : NULL;
	release_if_done(w);
	return w;
}

ta_walk *ta_walk_build_vs(const ta_model *m, const struct ta_catalog *cat, const ta_run_figures *run,
			  const ta_run_figures *base, const ta_gpu_info *gpu, const char *name)
{
	return build(m, cat, run, base, gpu, name, false, NULL);
}

ta_walk *ta_walk_build_lazy(const ta_model *m, const struct ta_catalog *cat,
			    const ta_run_figures *run, const ta_run_figures *base,
			    const ta_gpu_info *gpu, const char *name)
{
	return build(m, cat, run, base, gpu, name, true, NULL);
}

ta_walk *ta_walk_build_filtered(const ta_model *m, const struct ta_catalog *cat,
				const ta_run_figures *run, const ta_run_figures *base,
				const ta_gpu_info *gpu, const char *name, const ta_filter *filter)
{
	return build(m, cat, run, base, gpu, name, true, filter);
}

void ta_walk_kernel_ready(ta_walk *w, size_t k)
{
	if (!w || k >= w->n_kernels || !w->kernels[k].steps_pending)
		return;
	while (w->rules->kernels_run <= k && ta_rules_run_next(w->rules))
		;
	w->kernels[k].steps_pending = false;
	w->n_kernels_pending--;
	if (!w->kernels[k].syntax_error)
		fill_kernel(w, w->model, w->rules, k, w->name, true);
	release_if_done(w);
}

void ta_walk_step_ready(ta_walk *w, ta_step *s)
{
	if (!w || !s || !s->edit_pending)
		return;
	for (size_t k = 0; k < w->n_kernels; k++) {
		ta_walk_kernel *wk = &w->kernels[k];
		if (s < wk->steps || s >= wk->steps + wk->n_steps)
			continue;
		s->edit_pending = false;
		w->n_pending--;
		make_step_edit(w->model, w->rules, w->sup, (int)k, w->name, s);
		release_if_done(w);
		return;
	}
}

size_t ta_walk_pending(const ta_walk *w)
{
	return w ? w->n_pending + w->n_kernels_pending : 0;
}

size_t ta_walk_ready_one(ta_walk *w)
{
	for (size_t k = 0; w && w->n_kernels_pending && k < w->n_kernels; k++)
		if (w->kernels[k].steps_pending) {
			ta_walk_kernel_ready(w, k);
			return ta_walk_pending(w);
		}
	for (size_t k = 0; w && w->n_pending && k < w->n_kernels; k++)
		for (size_t j = 0; j < w->kernels[k].n_steps; j++)
			if (w->kernels[k].steps[j].edit_pending) {
				ta_walk_step_ready(w, &w->kernels[k].steps[j]);
				return ta_walk_pending(w);
			}
	return ta_walk_pending(w);
}

void ta_walk_ready_all(ta_walk *w)
{
	while (ta_walk_ready_one(w))
		;
}
