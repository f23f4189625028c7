#include "config.h"
#include "profile/stats.h"
#include "util/buf.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double ta_stats_quantile_sorted(const double *sorted, size_t n, double q)
{
	if (n == 0)
		return 0;
	if (q <= 0)
		return sorted[0];
	if (q >= 1)
		return sorted[n - 1];
	double h = (double)(n - 1) * q;
	size_t lo = (size_t)floor(h);
	double frac = h - (double)lo;
	if (lo + 1 >= n)
		return sorted[n - 1];
	return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

ta_summary ta_stats_summarize(const double *x, size_t n)
{
	ta_summary s;
	memset(&s, 0, sizeof s);
	if (n == 0)
		return s;
	double *v = ta_xmalloc(n * sizeof *v);
	memcpy(v, x, n * sizeof *v);
	qsort(v, n, sizeof *v, cmp_double);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	s.count = n;
	s.min = v[0];
	s.max = v[n - 1];
	s.mean = sum / (double)n;
	s.median = ta_stats_quantile_sorted(v, n, 0.5);
	s.q1 = ta_stats_quantile_sorted(v, n, 0.25);
	s.q3 = ta_stats_quantile_sorted(v, n, 0.75);
	s.iqr = s.q3 - s.q1;
	s.p95 = ta_stats_quantile_sorted(v, n, 0.95);
	/* Tukey's far fences: what lies beyond is an outlier (a preempted
	 * launch), what lies within counts at its value, modes and all. */
	double lo = s.q1 - 3 * s.iqr, hi = s.q3 + 3 * s.iqr, fsum = 0;
	size_t fn = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i] >= lo && v[i] <= hi) {
			fsum += v[i];
			fn++;
		}
	s.fenced_mean = fn ? fsum / (double)fn : s.median;
	if (n >= 2 && s.mean != 0) {
		double ss = 0;
		for (size_t i = 0; i < n; i++)
			ss += (v[i] - s.mean) * (v[i] - s.mean);
		s.cv = sqrt(ss / (double)(n - 1)) / fabs(s.mean);
	}
	free(v);
	return s;
}

typedef struct weighed {
	double x, w;
} weighed;

static int cmp_weighed(const void *a, const void *b)
{
	double x = ((const weighed *)a)->x, y = ((const weighed *)b)->x;
	return (x > y) - (x < y);
}

/* The value at rank r (0-based) of the sample with each v[i].x repeated
 * v[i].w times; cum[i] is the weight of v[0..i]. */
static double weighed_at(const weighed *v, const double *cum, size_t n, double r)
{
	size_t lo = 0, hi = n - 1;
	while (lo < hi) {   /* the first i with cum[i] > r */
		size_t mid = lo + (hi - lo) / 2;
		if (cum[mid] > r)
			hi = mid;
		else
			lo = mid + 1;
	}
	return v[lo].x;
}

/* Type 7 over the repeated sample: rank h = (W - 1) q, between its floor
 * and the next rank. */
static double weighed_quantile(const weighed *v, const double *cum, size_t n, double q)
{
	double h = (cum[n - 1] - 1) * q, f = floor(h);
	double a = weighed_at(v, cum, n, f), b = weighed_at(v, cum, n, f + 1 <= cum[n - 1] - 1 ? f + 1 : f);
	return a + (h - f) * (b - a);
}

ta_summary ta_stats_summarize_weighted(const double *x, const double *w, size_t n)
{
	bool all_one = true;
	for (size_t i = 0; w && i < n && all_one; i++)
		all_one = w[i] == 1;
	if (!w || all_one)
		return ta_stats_summarize(x, n);
	ta_summary s;
	memset(&s, 0, sizeof s);
	if (n == 0)
		return s;
	weighed *v = ta_xmalloc(n * sizeof *v);
	double *cum = ta_xmalloc(n * sizeof *cum);
	for (size_t i = 0; i < n; i++) {
		v[i].x = x[i];
		v[i].w = w[i] >= 1 ? w[i] : 1;
	}
	qsort(v, n, sizeof *v, cmp_weighed);
	double total = 0, sum = 0;
	for (size_t i = 0; i < n; i++) {
		total += v[i].w;
		cum[i] = total;
		sum += v[i].w * v[i].x;
	}
	s.count = n;
	s.min = v[0].x;
	s.max = v[n - 1].x;
	s.mean = sum / total;
	s.median = weighed_quantile(v, cum, n, 0.5);
	s.q1 = weighed_quantile(v, cum, n, 0.25);
	s.q3 = weighed_quantile(v, cum, n, 0.75);
	s.iqr = s.q3 - s.q1;
	s.p95 = weighed_quantile(v, cum, n, 0.95);
	double lo = s.q1 - 3 * s.iqr, hi = s.q3 + 3 * s.iqr, fsum = 0, fw = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].x >= lo && v[i].x <= hi) {
			fsum += v[i].w * v[i].x;
			fw += v[i].w;
		}
	s.fenced_mean = fw > 0 ? fsum / fw : s.median;
	if (total > 1 && s.mean != 0) {
		double ss = 0;
		for (size_t i = 0; i < n; i++)
			ss += v[i].w * (v[i].x - s.mean) * (v[i].x - s.mean);
		s.cv = sqrt(ss / (total - 1)) / fabs(s.mean);
	}
	free(v);
	free(cum);
	return s;
}

const char *ta_verdict_name(ta_verdict v)
{
	switch (v) {
	case TA_VERDICT_FASTER: return "faster";
	case TA_VERDICT_SLOWER: return "slower";
	case TA_VERDICT_NOISE: return "within noise";
	case TA_VERDICT_CHANGED: return "not comparable: the launch configuration changed";
	case TA_VERDICT_NONE: break;
	}
	return "not enough data";
}

uint64_t ta_stats_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* The k-th smallest of v[n] (reorders v): Hoare's selection, linear on
 * average, so bootstrapping 20,000 launches stays well under a second. */
static double select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	while (lo < hi) {
		double pivot = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				double t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return v[k];
}

/* Median (type 7) of a resample of x[n] drawn with replacement into tmp[n]. */
static double resampled_median(const double *x, size_t n, double *tmp, uint64_t *rng)
{
	for (size_t i = 0; i < n; i++)
		tmp[i] = x[ta_stats_rand(rng) % n];
	double m = select_kth(tmp, n, (n - 1) / 2);
	if (n % 2 == 1)
		return m;
	/* Even n: the next order statistic is the least of the upper part. */
	double up = tmp[n / 2];
	for (size_t i = n / 2 + 1; i < n; i++)
		if (tmp[i] < up)
			up = tmp[i];
	return (m + up) / 2;
}

/* Phase k of a sample split at starts[]: [starts[k], starts[k + 1] or n). */
static size_t phase_len(const size_t *starts, size_t phases, size_t n, size_t k)
{
	return (k + 1 < phases ? starts[k + 1] : n) - starts[k];
}

ta_comparison ta_stats_compare_phased(const double *before, size_t nb, const size_t *bstart,
				      const double *after, size_t na, const size_t *astart,
				      size_t phases)
{
	ta_comparison c;
	memset(&c, 0, sizeof c);
	c.n_before = nb;
	c.n_after = na;
	c.phases = phases;
	c.verdict = TA_VERDICT_NONE;
	if (nb == 0 || na == 0 || phases == 0)
		return c;
	/* The ratio is the geometric mean of the phases' ratios of medians:
	 * each part of the script counts once, however many launches it made. */
	double logsum = 0;
	bool enough = true;
	for (size_t k = 0; k < phases; k++) {
		size_t lb = phase_len(bstart, phases, nb, k), la = phase_len(astart, phases, na, k);
		if (lb == 0 || la == 0)
			return c;
		double mb = ta_stats_summarize(before + bstart[k], lb).median;
		double ma = ta_stats_summarize(after + astart[k], la).median;
		if (mb <= 0 || ma <= 0)
			return c;
		logsum += log(ma / mb);
		enough &= lb >= 3 && la >= 3;
	}
	c.ratio = exp(logsum / (double)phases);
	c.lo = c.hi = c.ratio;
	if (!enough)
		return c;

	uint64_t rng = 0x74696c65ull;   /* fixed: same data, same interval */
	double *tb = ta_xmalloc(nb * sizeof *tb), *ta = ta_xmalloc(na * sizeof *ta);
	double *ratios = ta_xmalloc(TA_STATS_BOOTSTRAP * sizeof *ratios);
	size_t nr = 0;
	for (int i = 0; i < TA_STATS_BOOTSTRAP; i++) {
		double ls = 0;
		bool ok = true;
		for (size_t k = 0; k < phases && ok; k++) {
			double b = resampled_median(before + bstart[k], phase_len(bstart, phases, nb, k), tb, &rng);
			double a = resampled_median(after + astart[k], phase_len(astart, phases, na, k), ta, &rng);
			ok = b > 0 && a > 0;
			if (ok)
				ls += log(a / b);
		}
		if (ok)
			ratios[nr++] = exp(ls / (double)phases);
	}
	qsort(ratios, nr, sizeof *ratios, cmp_double);
	c.lo = ta_stats_quantile_sorted(ratios, nr, 0.025);
	c.hi = ta_stats_quantile_sorted(ratios, nr, 0.975);
	free(tb);
	free(ta);
	free(ratios);
	if (c.hi < 1.0 - TA_STATS_NOISE_BAND)
		c.verdict = TA_VERDICT_FASTER;
	else if (c.lo > 1.0 + TA_STATS_NOISE_BAND)
		c.verdict = TA_VERDICT_SLOWER;
	else
		c.verdict = TA_VERDICT_NOISE;
	return c;
}

double ta_stats_phase_geomean(const double *x, size_t n, const size_t *starts, size_t phases)
{
	if (phases == 0 || n == 0)
		return 0;
	double ls = 0;
	for (size_t k = 0; k < phases; k++) {
		double m = ta_stats_summarize(x + starts[k], phase_len(starts, phases, n, k)).median;
		ls += log(m > 0 ? m : 1);
	}
	return exp(ls / (double)phases);
}

ta_comparison ta_stats_compare(const double *before, size_t nb, const double *after, size_t na)
{
	static const size_t whole = 0;
	return ta_stats_compare_phased(before, nb, &whole, after, na, &whole, 1);
}
