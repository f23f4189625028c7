/* Robust summary statistics of durations and the comparison of two samples. */
#ifndef TA_PROFILE_STATS_H
#define TA_PROFILE_STATS_H

#include <stddef.h>
#include <stdint.h>

typedef struct ta_summary {
	size_t count;
	double min, max, mean;
	double median, q1, q3, iqr;  /* quartiles by linear interpolation (type 7) */
	double p95;
	double fenced_mean;          /* mean within q1 - 3 iqr .. q3 + 3 iqr: robust to
	                              * outliers, true to a mix of modes (the median is not) */
	double cv;                   /* sample standard deviation / mean; 0 when count < 2 */
} ta_summary;

/* Quantile q in [0,1] of sorted[n] by linear interpolation between closest
 * ranks (R's type 7, numpy's default). n > 0. */
double ta_stats_quantile_sorted(const double *sorted, size_t n, double q);

/* Summarises x[n] (not modified). All zero when n == 0. */
ta_summary ta_stats_summarize(const double *x, size_t n);

/* The same with x[i] standing for w[i] values (w[i] >= 1: a sampled launch
 * weighs the launches it stands for): quantiles, means and cv are those of
 * the sample with each x[i] repeated w[i] times; count stays n. w NULL:
 * ta_stats_summarize, and so when every weight is 1. */
ta_summary ta_stats_summarize_weighted(const double *x, const double *w, size_t n);

typedef enum ta_verdict {
	TA_VERDICT_NONE,             /* not enough data to say */
	TA_VERDICT_FASTER,
	TA_VERDICT_SLOWER,
	TA_VERDICT_NOISE,
	TA_VERDICT_CHANGED,          /* the runs launched it differently: not comparable */
} ta_verdict;

const char *ta_verdict_name(ta_verdict v);

/* Comparison of "after" against "before" (durations: lower is faster). */
typedef struct ta_comparison {
	double ratio;        /* median(after) / median(before) */
	double lo, hi;       /* bootstrap 95% percentile interval of the ratio */
	ta_verdict verdict;
	size_t n_before, n_after;
	size_t phases;       /* parts of the run compared pairwise (1: the whole sample) */
} ta_comparison;

/* Resamples used by ta_stats_compare, and the band around 1 inside which
 * a difference is called noise whatever the interval says. */
#define TA_STATS_BOOTSTRAP 2000
#define TA_STATS_NOISE_BAND 0.01

/* A sample of durations to compare: x[n], each standing for w[i] launches
 * (NULL: 1 each; adaptive tracing times one launch for those it left
 * untraced), split into `phases` parts starting at starts[] (phases 0 or
 * starts NULL: one part, the whole sample). */
typedef struct ta_sample {
	const double *x;
	const double *w;
	size_t n;
	const size_t *starts;
	size_t phases;
} ta_sample;

/* Ratio of medians with a bootstrap percentile interval (fixed seed, so the
 * same data always give the same answer). Verdict: faster when the whole
 * interval lies below 1 - band, slower when it lies above 1 + band, else
 * within noise. Each sample needs at least 3 values, else the verdict is
 * NONE (the ratio is still given when both are non-empty). */
ta_comparison ta_stats_compare(const double *before, size_t nb, const double *after, size_t na);

/* The same over samples split into `phases` parts (bstart/astart: the index
 * where each part starts), compared part by part: a script that measures
 * several modes or sizes in turn changes its mix of launches when an edit
 * changes one mode's speed or configuration, so the parts are matched in
 * order and the ratio is the geometric mean of their ratios of medians; the
 * interval resamples every part. */
ta_comparison ta_stats_compare_phased(const double *before, size_t nb, const size_t *bstart,
				      const double *after, size_t na, const size_t *astart,
				      size_t phases);

/* The comparison of two weighted samples, part by part as
 * ta_stats_compare_phased: the medians are those of the launches the
 * records stand for (ta_stats_summarize_weighted), and the bootstrap draws
 * each resample from that weighted distribution, so a shape timed in full
 * early and sampled later is compared over all its launches. With every
 * weight 1 it gives exactly what ta_stats_compare_phased gives. */
ta_comparison ta_stats_compare_samples(const ta_sample *before, const ta_sample *after);

/* The geometric mean of the phases' medians: the typical launch whose
 * before/after ratio ta_stats_compare_phased gives. */
double ta_stats_phase_geomean(const double *x, size_t n, const size_t *starts, size_t phases);

/* The same over a weighted sample (its phases' weighted medians). */
double ta_stats_sample_geomean(const ta_sample *s);

/* A small deterministic PRNG (splitmix64) for the bootstrap and tests. */
uint64_t ta_stats_rand(uint64_t *state);

#endif
