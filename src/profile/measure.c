#include "config.h"
#include "profile/measure.h"
#include "profile/autotune.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

bool ta_kernel_name_matches(const char *launch, const char *kname)
{
	size_t n = strlen(kname);
	if (strncmp(launch, kname, n) != 0)
		return false;
	if (launch[n] == '\0')
		return true;
	if (launch[n] != '_' || !isdigit((unsigned char)launch[n + 1]))
		return false;
	for (const char *p = launch + n + 1; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return false;
	return true;
}

/* The index of the file kernel a launch belongs to, or -1; n == 0: the
 * launch is its own kernel (0). Exact names win. */
static long own_index(const char *launch, const char *const *names, size_t n)
{
	if (n == 0)
		return 0;
	long best = -1;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(launch, names[i]) == 0)
			return (long)i;
		if (ta_kernel_name_matches(launch, names[i]) &&
		    (best < 0 || strlen(names[i]) > strlen(names[best])))
			best = (long)i;
	}
	return best;
}

static ta_launch_config config_of(const ta_kernel_rec *k)
{
	ta_launch_config c;
	memset(&c, 0, sizeof c);
	memcpy(c.grid, k->grid, sizeof c.grid);
	memcpy(c.block, k->block, sizeof c.block);
	c.regs = k->regs;
	c.smem_static = k->smem_static;
	c.smem_dynamic = k->smem_dynamic;
	c.local_per_thread = k->local_per_thread;
	return c;
}

static bool same_config(const ta_launch_config *a, const ta_launch_config *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

static int cmp_launch(const void *x, const void *y)
{
	const ta_kernel_rec *a = *(const ta_kernel_rec *const *)x, *b = *(const ta_kernel_rec *const *)y;
	if (a->run != b->run)
		return a->run < b->run ? -1 : 1;
	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	return (a->correlation > b->correlation) - (a->correlation < b->correlation);
}

typedef struct group_acc {
	ta_launch_config cfg;
	size_t launches, warmup, autotune;
	double *d;
	size_t nd, cap;
	double *w;                   /* the launches each d stands for; NULL: 1 each */
	size_t capw;
	double *tune;                /* autotuning durations */
	size_t nt, capt;
	size_t first_seq, last_seq, steady_seq;
	int last_run;                /* run whose first launch was already seen */
	size_t runs_launches;        /* launches in last_run (for the warm-up rule) */
	double first_of_run;         /* the candidate warm-up duration of last_run */
	bool pending_first;
} group_acc;

static group_acc *find_group(group_acc **gs, size_t *n, size_t *cap, const ta_launch_config *c)
{
	for (size_t i = 0; i < *n; i++)
		if (same_config(&(*gs)[i].cfg, c))
			return &(*gs)[i];
	group_acc *g = TA_PUSH(*gs, *n, *cap);
	g->cfg = *c;
	g->last_run = -1;
	g->first_seq = SIZE_MAX;
	g->steady_seq = SIZE_MAX;
	return g;
}

/* A steady duration and the launches it stands for (a sampled record's
 * weight): the weights are kept only once one is above 1. */
static void group_push(group_acc *g, double dur, uint64_t weight)
{
	if (weight > 1 && !g->w) {
		g->capw = g->cap ? g->cap : 16;
		g->w = ta_xmalloc(g->capw * sizeof *g->w);
		for (size_t i = 0; i < g->nd; i++)
			g->w[i] = 1;
	}
	if (g->w && g->nd == g->capw) {
		g->capw = g->capw * 2;
		g->w = ta_xrealloc(g->w, g->capw * sizeof *g->w);
	}
	if (g->w)
		g->w[g->nd] = weight > 1 ? (double)weight : 1;
	double *slot = TA_PUSH(g->d, g->nd, g->cap);
	*slot = dur;
}

/* A run's first launch of a configuration is held back until a second one
 * shows it was a warm-up; a lone launch is kept as the measurement. */
static void group_close_run(group_acc *g)
{
	if (g->pending_first) {
		group_push(g, g->first_of_run, 1);
		g->pending_first = false;
	}
}

static void group_add(group_acc *g, const ta_kernel_rec *k)
{
	double dur = (double)(k->end_ns - k->start_ns);
	g->launches++;
	if (k->run != g->last_run) {
		group_close_run(g);
		g->last_run = k->run;
		g->pending_first = true;
		g->first_of_run = dur;
		return;
	}
	if (g->pending_first) {
		g->warmup++;
		g->pending_first = false;
	}
	group_push(g, dur, k->weight);
}

static int cmp_group(const void *x, const void *y)
{
	const ta_kernel_group *a = x, *b = y;
	bool ta_ = a->autotune == a->launches, tb = b->autotune == b->launches;
	if (ta_ != tb)
		return ta_ ? 1 : -1;
	return (a->launches < b->launches) - (a->launches > b->launches);
}

/* The fewest launches one config gets while the autotuner benchmarks it:
 * do_bench times 5 launches to estimate, then at least one warm-up and one
 * measured launch. */
#define TUNE_MIN_STRETCH 7

/* Whether the launches of config c (other than the final one fc) before the
 * final stretch starts at fs are tuning: one unbroken block; or blocks apart
 * only by blocks of the final config, each a benchmark's worth, as when
 * configs that differ in num_stages alone launch alike (4 warps, 8, 4 again,
 * 8 the winner). Short alternations are a workload calling two shapes in
 * turn, and other configs between its blocks are other keys' tunings. */
static bool is_tuning_block(const ta_kernel_rec **ls, size_t i, size_t fs, const ta_launch_config *c,
			    const ta_launch_config *fc)
{
	size_t first = fs, last = 0;
	for (size_t t = i; t < fs; t++) {
		ta_launch_config x = config_of(ls[t]);
		if (same_config(&x, c)) {
			if (first == fs)
				first = t;
			last = t;
		}
	}
	if (first == fs)
		return false;   /* it also runs after the final stretch began */
	bool broken = false;
	for (size_t t = first; t <= last && !broken; t++) {
		ta_launch_config x = config_of(ls[t]);
		broken = !same_config(&x, c);
	}
	if (!broken)
		return true;
	for (size_t t = first; t <= last;) {
		ta_launch_config x = config_of(ls[t]);
		size_t e = t;
		while (e <= last) {
			ta_launch_config y = config_of(ls[e]);
			if (!same_config(&x, &y))
				break;
			e++;
		}
		if (e - t < TUNE_MIN_STRETCH || !(same_config(&x, c) || same_config(&x, fc)))
			return false;
		t = e;
	}
	return true;
}

/* Whether a "calls" record belongs to the file kernel kname. */
static bool calls_of(const ta_calls_rec *c, const char *kname, const char *const *names, size_t n_names)
{
	if (n_names == 0)
		return strcmp(c->name, kname) == 0;
	long k = own_index(c->name, names, n_names);
	return k >= 0 && strcmp(names[k], kname) == 0;
}

static bool calls_shape(const ta_calls_rec *c, const ta_launch_config *cfg)
{
	return !memcmp(c->grid, cfg->grid, sizeof c->grid) && !memcmp(c->block, cfg->block, sizeof c->block) &&
	       c->smem_dynamic == cfg->smem_dynamic;
}

/* Gives each group what the launch callback counted for its shape. Groups
 * that launch alike (configs apart in registers only) share a count in
 * proportion to their records; periods are pooled over processes and runs,
 * weighted by their number. */
static void attach_calls(group_acc *gs, size_t ng, uint64_t *counted, double *period, double *q1, double *q3,
			 uint64_t *n_period, const ta_records *recs, const char *kname, const char *const *names,
			 size_t n_names)
{
	for (size_t c = 0; recs && c < recs->n_calls; c++) {
		const ta_calls_rec *cr = &recs->calls[c];
		if (!calls_of(cr, kname, names, n_names))
			continue;
		size_t recs_in = 0;
		for (size_t t = 0; t < ng; t++)
			if (calls_shape(cr, &gs[t].cfg))
				recs_in += gs[t].launches;
		for (size_t t = 0; t < ng && recs_in; t++) {
			if (!calls_shape(cr, &gs[t].cfg))
				continue;
			double part = (double)gs[t].launches / (double)recs_in;
			counted[t] += (uint64_t)((double)cr->launches * part + 0.5);
			if (cr->n_period) {
				double w = (double)cr->n_period;
				double tot = (double)n_period[t] + w;
				period[t] = (period[t] * (double)n_period[t] + cr->median_ns * w) / tot;
				q1[t] = (q1[t] * (double)n_period[t] + cr->p25_ns * w) / tot;
				q3[t] = (q3[t] * (double)n_period[t] + cr->p75_ns * w) / tot;
				n_period[t] += cr->n_period;
			}
		}
	}
}

static void build_kernel(ta_kernel_measure *km, const ta_kernel_rec **ls, size_t n, bool may_autotune,
			 const ta_gpu_info *gpu, const ta_records *recs, const char *const *names, size_t n_names)
{
	group_acc *gs = NULL;
	size_t ng = 0, capg = 0;
	ta_launch_config main_cfg = config_of(ls[n - 1]);
	/* Steady launches in time order, for the phases. */
	double *dur = ta_xmalloc(n * sizeof *dur), *wts = ta_xmalloc(n * sizeof *wts);
	uint64_t *t0 = ta_xmalloc(n * sizeof *t0), *t1 = ta_xmalloc(n * sizeof *t1);
	int *runs = ta_xmalloc(n * sizeof *runs);
	size_t *cfgs = ta_xmalloc(n * sizeof *cfgs);
	size_t ns = 0;
	for (size_t i = 0; i < n;) {
		/* one run at a time: [i, j) */
		size_t j = i;
		while (j < n && ls[j]->run == ls[i]->run)
			j++;
		ta_launch_config final_cfg = config_of(ls[j - 1]);
		/* A run that read the autotuner's choices from the cache tuned
		 * nothing: every launch of it is the workload's. */
		bool tuning = may_autotune && !(recs && ta_records_run_untuned(recs, ls[i]->run));
		size_t fs = j;   /* start of the final stretch */
		while (fs > i) {
			ta_launch_config x = config_of(ls[fs - 1]);
			if (!same_config(&x, &final_cfg))
				break;
			fs--;
		}
		for (size_t t = i; t < j; t++) {
			ta_launch_config c = config_of(ls[t]);
			group_acc *g = find_group(&gs, &ng, &capg, &c);
			if (g->first_seq == SIZE_MAX)
				g->first_seq = t;
			g->last_seq = t;
			if (tuning && t < fs && !same_config(&c, &final_cfg) &&
			    is_tuning_block(ls, i, fs, &c, &final_cfg)) {
				g->launches++;
				g->autotune++;
				km->autotune_launches++;
				/* Kept for the autotune table, apart from the steady state. */
				double *slot = TA_PUSH(g->tune, g->nt, g->capt);
				*slot = (double)(ls[t]->end_ns - ls[t]->start_ns);
			} else {
				if (g->steady_seq == SIZE_MAX)
					g->steady_seq = t;
				bool first_of_run = ls[t]->run != g->last_run;
				group_add(g, ls[t]);
				if (!first_of_run) {
					dur[ns] = (double)(ls[t]->end_ns - ls[t]->start_ns);
					wts[ns] = ls[t]->weight > 1 ? (double)ls[t]->weight : 1;
					t0[ns] = ls[t]->start_ns;
					t1[ns] = ls[t]->end_ns;
					cfgs[ns] = (size_t)(g - gs);
					runs[ns++] = ls[t]->run;
				}
			}
		}
		for (size_t t = 0; t < ng; t++)
			group_close_run(&gs[t]);
		i = j;
	}
	km->launches = 0;
	km->groups = ta_xcalloc(ng, sizeof *km->groups);
	km->n_groups = ng;
	uint64_t *counted = ta_xcalloc(ng ? ng : 1, sizeof *counted), *n_period = ta_xcalloc(ng ? ng : 1, sizeof *n_period);
	double *period = ta_xcalloc(ng ? ng : 1, sizeof *period), *q1 = ta_xcalloc(ng ? ng : 1, sizeof *q1),
	       *q3 = ta_xcalloc(ng ? ng : 1, sizeof *q3);
	attach_calls(gs, ng, counted, period, q1, q3, n_period, recs, km->name, names, n_names);
	for (size_t t = 0; t < ng; t++) {
		ta_kernel_group *kg = &km->groups[t];
		kg->cfg = gs[t].cfg;
		kg->launches = gs[t].launches;
		kg->warmup = gs[t].warmup;
		kg->autotune = gs[t].autotune;
		kg->durations_ns = gs[t].d;
		kg->weights = gs[t].w;
		kg->n_durations = gs[t].nd;
		/* Weighed by the launches each record stands for: a shape timed in
		 * full for its first launches and sampled later is summarised over
		 * all its launches, not mostly over the first ones. */
		kg->summary = ta_stats_summarize_weighted(kg->durations_ns, kg->weights, kg->n_durations);
		kg->counted = counted[t];
		kg->n_period = n_period[t];
		kg->period_ns = period[t];
		kg->period_q1_ns = q1[t];
		kg->period_q3_ns = q3[t];
		/* Steady launches: the recorded ones, or with adaptive tracing the
		 * counted ones less those set apart (a sampled autotuning config
		 * stays all autotuning). */
		size_t steady = kg->n_durations;
		if (kg->counted > kg->launches) {
			kg->sampled = true;
			km->sampled = true;
			if (kg->autotune == kg->launches)
				kg->autotune = (size_t)kg->counted;
			else
				steady = (size_t)kg->counted - kg->warmup - kg->autotune;
			km->autotune_launches += kg->autotune - gs[t].autotune;
			kg->launches = (size_t)kg->counted;
		}
		km->launches += kg->launches;
		/* launches x the mean within the far fences: an outlier does not
		 * move a shape's weight, and modes of a script that launch one
		 * shape (a causal and a full pass) each count, where the median
		 * would stand for the middle one alone */
		kg->steady = steady;
		kg->total_ns = (double)steady * kg->summary.fenced_mean;
		km->steady_total_ns += kg->total_ns;
		km->steady_calls += steady;
		kg->tune_ns = gs[t].tune;
		kg->n_tune = gs[t].nt;
		kg->tune_summary = ta_stats_summarize(kg->tune_ns, kg->n_tune);
		kg->first_seq = gs[t].first_seq;
		kg->last_seq = gs[t].last_seq;
		kg->steady_seq = gs[t].steady_seq;
		km->warmup_launches += kg->warmup;
		if (gpu) {
			ta_launch_shape s = {
				.block_threads = kg->cfg.block[0] * kg->cfg.block[1] * kg->cfg.block[2],
				.regs_per_thread = (int)kg->cfg.regs,
				.smem_static = kg->cfg.smem_static,
				.smem_dynamic = kg->cfg.smem_dynamic,
				.grid_blocks = (long long)kg->cfg.grid[0] * kg->cfg.grid[1] * kg->cfg.grid[2],
			};
			kg->occ = ta_gpu_occupancy(gpu, &s);
			kg->has_occupancy = true;
		}
	}
	free(gs);
	free(counted);
	free(n_period);
	free(period);
	free(q1);
	free(q3);
	km->n_phases = ta_measure_phases(dur, wts, t0, t1, runs, cfgs, ns, &km->steady_ns, &km->steady_w,
					 &km->n_steady, &km->phase_start);
	free(dur);
	free(wts);
	free(t0);
	free(t1);
	free(runs);
	free(cfgs);
	if (ng)
		qsort(km->groups, ng, sizeof *km->groups, cmp_group);
	for (size_t t = 0; t < ng; t++)
		if (same_config(&km->groups[t].cfg, &main_cfg))
			km->main_group = t;
	/* The dominant shape: where the workload spends its GPU time, not the
	 * shape that happened to run last (a final check on a tiny input). */
	double best = km->groups && km->main_group < ng ? km->groups[km->main_group].total_ns : 0;
	for (size_t t = 0; t < ng; t++) {
		ta_kernel_group *kg = &km->groups[t];
		kg->share = km->steady_total_ns > 0 ? kg->total_ns / km->steady_total_ns : 0;
		if (kg->total_ns > best) {
			best = kg->total_ns;
			km->main_group = t;
		}
	}
	if (ng && km->groups[km->main_group].n_period) {
		km->n_period = km->groups[km->main_group].n_period;
		km->period_ns = km->groups[km->main_group].period_ns;
	}
}

/* Appends launches [lo, hi) (their durations, and weights when kept) to
 * the steady sample of *n launches. */
static void keep_segment(const double *dur, const double *w, size_t lo, size_t hi, double *steady,
			 double *steady_w, size_t *n)
{
	memcpy(steady + *n, dur + lo, (hi - lo) * sizeof *dur);
	if (steady_w)
		memcpy(steady_w + *n, w + lo, (hi - lo) * sizeof *w);
	*n += hi - lo;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a > b) - (a < b);
}

size_t ta_measure_phases(const double *dur, const double *w, const uint64_t *start, const uint64_t *end,
			 const int *run, const size_t *cfg, size_t n, double **steady, double **steady_w,
			 size_t *n_steady, size_t **starts)
{
	bool weighed = false;
	for (size_t i = 0; w && i < n && !weighed; i++)
		weighed = w[i] != 1;
	*steady = ta_xmalloc((n ? n : 1) * sizeof **steady);
	*steady_w = weighed ? ta_xmalloc(n * sizeof **steady_w) : NULL;
	*starts = ta_xmalloc((n ? n : 1) * sizeof **starts);
	*n_steady = 0;
	if (n == 0)
		return 0;
	/* The usual pause between two launches of the kernel, within a run. */
	uint64_t *gaps = ta_xmalloc(n * sizeof *gaps);
	size_t ngaps = 0;
	for (size_t i = 1; i < n; i++)
		if (run[i] == run[i - 1])
			gaps[ngaps++] = start[i] > end[i - 1] ? start[i] - end[i - 1] : 0;
	uint64_t median_gap = 0;
	if (ngaps) {
		qsort(gaps, ngaps, sizeof *gaps, cmp_u64);
		median_gap = gaps[ngaps / 2];
	}
	free(gaps);
	uint64_t limit = 50 * median_gap;
	if (limit < 10000000u)
		limit = 10000000u;
	/* Segments [seg_lo, seg_hi) of at least 3 launches, run by run. */
	size_t *seg_lo = ta_xmalloc(n * sizeof *seg_lo), *seg_hi = ta_xmalloc(n * sizeof *seg_hi);
	int *seg_run = ta_xmalloc(n * sizeof *seg_run);
	size_t nseg = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && run[j] == run[j - 1] &&
		       (start[j] > end[j - 1] ? start[j] - end[j - 1] : 0) <= limit)
			j++;
		/* A change of launch configuration (another size, another mode)
		 * with no pause between (a warm compile cache) ends a part too,
		 * when every piece it leaves has 3 launches: a loop alternating
		 * between configurations stays one part. */
		size_t k = i;
		bool pieces_ok = cfg != NULL;
		for (size_t t = i + 1; t <= j && pieces_ok; t++)
			if (t == j || cfg[t] != cfg[t - 1]) {
				pieces_ok = t - k >= 3;
				k = t;
			}
		for (size_t lo = i, t = i + 1; t <= j; t++) {
			if (t < j && (!pieces_ok || cfg[t] == cfg[t - 1]))
				continue;
			if (t - lo >= 3) {
				seg_lo[nseg] = lo;
				seg_hi[nseg] = t;
				seg_run[nseg++] = run[lo];
			}
			lo = t;
		}
		i = j;
	}
	/* Runs of one --repeat repeat the same parts: when every run has the
	 * same number of segments, the k-th segments of all runs form phase k. */
	size_t per_run = 0, nruns = 0;
	bool uniform = nseg > 0;
	for (size_t i = 0; i < nseg && uniform;) {
		size_t j = i;
		while (j < nseg && seg_run[j] == seg_run[i])
			j++;
		if (nruns++ == 0)
			per_run = j - i;
		uniform = j - i == per_run;
		i = j;
	}
	size_t phases = 0;
	if (uniform && nruns > 1) {
		for (size_t k = 0; k < per_run; k++) {
			(*starts)[phases++] = *n_steady;
			for (size_t r = 0; r < nruns; r++) {
				size_t sgi = r * per_run + k;
				keep_segment(dur, w, seg_lo[sgi], seg_hi[sgi], *steady, *steady_w, n_steady);
			}
		}
	} else {
		for (size_t g = 0; g < nseg; g++) {
			(*starts)[phases++] = *n_steady;
			keep_segment(dur, w, seg_lo[g], seg_hi[g], *steady, *steady_w, n_steady);
		}
	}
	free(seg_lo);
	free(seg_hi);
	free(seg_run);
	return phases;
}

static int cmp_other(const void *x, const void *y)
{
	const ta_other_kernel *a = x, *b = y;
	return (a->total_ns < b->total_ns) - (a->total_ns > b->total_ns);
}

ta_measurement *ta_measure_build(const ta_records *recs, const char *const *names,
				 const bool *autotuned, size_t n_names, const ta_gpu_info *gpu)
{
	ta_measurement *m = ta_xcalloc(1, sizeof *m);
	m->n_errors = recs->n_errors;
	m->dropped = recs->dropped;
	m->lost = recs->lost;
	m->n_malformed = recs->n_malformed + recs->n_overlong;
	m->n_truncated = recs->n_truncated;
	m->n_hello = recs->n_hello;
	m->n_bye = recs->n_bye;
	if (gpu) {
		m->has_gpu = true;
		m->gpu = *gpu;
	}
	size_t nk = recs->n_kernels;
	const ta_kernel_rec **ls = ta_xcalloc(nk, sizeof *ls);
	const char **own = ta_xcalloc(nk, sizeof *own);
	bool *tuned = ta_xcalloc(nk, sizeof *tuned);
	for (size_t i = 0; i < nk; i++) {
		ls[i] = &recs->kernels[i];
		long k = own_index(ls[i]->name, names, n_names);
		own[i] = k < 0 ? NULL : n_names ? names[k] : ls[i]->name;
		tuned[i] = k >= 0 && (!autotuned || !n_names || autotuned[k]);
	}
	/* runs */
	int max_run = -1;
	for (size_t i = 0; i < nk; i++)
		if (ls[i]->run > max_run)
			max_run = ls[i]->run;
	m->runs = max_run + 1;

	/* own kernels in first-launch order (records arrive roughly in order;
	 * sorting each kernel's launches below fixes the rest) */
	size_t capk = 0, capo = 0;
	for (size_t i = 0; i < nk; i++) {
		if (!own[i]) {
			m->other_launches++;
			ta_other_kernel *o = NULL;
			for (size_t t = 0; t < m->n_others && !o; t++)
				if (strcmp(m->others[t].name, ls[i]->name) == 0)
					o = &m->others[t];
			if (!o) {
				o = TA_PUSH(m->others, m->n_others, capo);
				o->name = ta_xstrdup(ls[i]->name);
			}
			/* each record for the launches it stands for */
			uint64_t w = ls[i]->weight > 1 ? ls[i]->weight : 1;
			o->launches += (size_t)w;
			o->total_ns += (double)w * (double)(ls[i]->end_ns - ls[i]->start_ns);
			continue;
		}
		bool seen = false;
		for (size_t t = 0; t < m->n_kernels && !seen; t++)
			seen = strcmp(m->kernels[t].name, own[i]) == 0;
		if (!seen) {
			ta_kernel_measure *km = TA_PUSH(m->kernels, m->n_kernels, capk);
			km->name = ta_xstrdup(own[i]);
		}
	}
	/* Adaptive tracing samples other kernels too: their counts and GPU
	 * time follow the launch callback's count where it is higher. */
	for (size_t t = 0; t < m->n_others; t++) {
		ta_other_kernel *o = &m->others[t];
		uint64_t counted = 0;
		for (size_t c = 0; c < recs->n_calls; c++)
			if (!strcmp(recs->calls[c].name, o->name))
				counted += recs->calls[c].launches;
		if (counted > o->launches) {
			m->other_launches += (size_t)counted - o->launches;
			o->total_ns *= (double)counted / (double)o->launches;
			o->launches = (size_t)counted;
		}
	}
	if (m->n_others > 1)
		qsort(m->others, m->n_others, sizeof *m->others, cmp_other);

	const ta_kernel_rec **mine = ta_xcalloc(nk, sizeof *mine);
	for (size_t t = 0; t < m->n_kernels; t++) {
		size_t n = 0;
		bool may_autotune = false;
		for (size_t i = 0; i < nk; i++) {
			if (own[i] && strcmp(own[i], m->kernels[t].name) == 0) {
				mine[n++] = ls[i];
				may_autotune |= tuned[i];
			}
		}
		if (n)
			qsort(mine, n, sizeof *mine, cmp_launch);
		build_kernel(&m->kernels[t], mine, n, may_autotune, gpu, recs, names, n_names);
	}
	free(mine);
	free(tuned);
	free(own);
	free(ls);
	ta_autotune_attach(m, NULL);
	return m;
}

void ta_measurement_free(ta_measurement *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n_kernels; i++) {
		for (size_t g = 0; g < m->kernels[i].n_groups; g++) {
			free(m->kernels[i].groups[g].durations_ns);
			free(m->kernels[i].groups[g].weights);
			free(m->kernels[i].groups[g].tune_ns);
		}
		ta_autotune_table_clear(&m->kernels[i].tune);
		free(m->kernels[i].groups);
		free(m->kernels[i].steady_ns);
		free(m->kernels[i].steady_w);
		free(m->kernels[i].phase_start);
		free(m->kernels[i].name);
	}
	free(m->kernels);
	for (size_t i = 0; i < m->n_others; i++)
		free(m->others[i].name);
	free(m->others);
	free(m);
}

const ta_kernel_measure *ta_measure_find(const ta_measurement *m, const char *name)
{
	for (size_t i = 0; i < m->n_kernels; i++)
		if (strcmp(m->kernels[i].name, name) == 0)
			return &m->kernels[i];
	return NULL;
}

static const ta_kernel_group *main_of(const ta_kernel_measure *k)
{
	return k && k->n_groups > 0 ? &k->groups[k->main_group] : NULL;
}

/* Whether every steady configuration of a is one of b's. */
static bool shapes_within(const ta_kernel_measure *a, const ta_kernel_measure *b)
{
	for (size_t i = 0; i < a->n_groups; i++) {
		if (!a->groups[i].n_durations)
			continue;
		bool found = false;
		for (size_t j = 0; j < b->n_groups && !found; j++)
			found = b->groups[j].n_durations && same_config(&a->groups[i].cfg, &b->groups[j].cfg);
		if (!found)
			return false;
	}
	return true;
}

/* A kernel's steady launches in time order, by phase, as weighed. */
static ta_sample steady_sample(const ta_kernel_measure *k)
{
	return (ta_sample){ .x = k->steady_ns, .w = k->steady_w, .n = k->n_steady, .starts = k->phase_start,
			    .phases = k->n_phases };
}

size_t ta_measure_compare(const ta_measurement *before, const ta_measurement *after,
			  ta_kernel_comparison **out)
{
	ta_kernel_comparison *v = NULL;
	size_t n = 0, cap = 0;
	for (int pass = 0; pass < 2; pass++) {
		const ta_measurement *m = pass == 0 ? after : before;
		for (size_t i = 0; i < m->n_kernels; i++) {
			const char *name = m->kernels[i].name;
			if (pass == 1 && ta_measure_find(after, name))
				continue;
			const ta_kernel_measure *kb = ta_measure_find(before, name);
			const ta_kernel_measure *ka = ta_measure_find(after, name);
			const ta_kernel_group *b = main_of(kb);
			const ta_kernel_group *a = main_of(ka);
			ta_kernel_comparison *c = TA_PUSH(v, n, cap);
			c->name = name;
			c->in_before = b != NULL;
			c->in_after = a != NULL;
			if (!a || !b)
				continue;
			/* The dominant shapes stand for the workload only when both
			 * runs launched the same set of shapes. */
			c->same_config = same_config(&a->cfg, &b->cfg) && shapes_within(kb, ka) && shapes_within(ka, kb);
			if (kb->n_phases && kb->n_phases == ka->n_phases) {
				c->by_phase = true;
				ta_sample sb = steady_sample(kb), sa = steady_sample(ka);
				c->cmp = ta_stats_compare_samples(&sb, &sa);
				c->before_median_ns = ta_stats_sample_geomean(&sb);
				c->after_median_ns = ta_stats_sample_geomean(&sa);
			} else {
				c->before_median_ns = b->summary.median;
				c->after_median_ns = a->summary.median;
				ta_sample sb = { .x = b->durations_ns, .w = b->weights, .n = b->n_durations };
				ta_sample sa = { .x = a->durations_ns, .w = a->weights, .n = a->n_durations };
				c->cmp = ta_stats_compare_samples(&sb, &sa);
				/* Other tiles or another autotune choice, and no phases to
				 * pair: the two medians do not measure the same work. */
				if (!c->same_config && c->cmp.verdict != TA_VERDICT_NONE)
					c->cmp.verdict = TA_VERDICT_CHANGED;
			}
		}
	}
	*out = v;
	return n;
}
