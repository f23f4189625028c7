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

static bool all_one(const double *w, size_t n)
{
	for (size_t i = 0; w && i < n; i++)
		if (w[i] != 1)
			return false;
	return true;
}

/* Draws from x[n] with replacement: uniformly, or in proportion to w[i]
 * through Walker's alias table (one draw costs what a uniform one does, so
 * a weighted bootstrap of 20,000 launches stays as fast as a plain one). */
typedef struct drawer {
	const double *x;
	size_t n;
	double *prob;   /* NULL: uniform */
	size_t *alias;
} drawer;

static void drawer_init(drawer *d, const double *x, const double *w, size_t n)
{
	d->x = x;
	d->n = n;
	d->prob = NULL;
	d->alias = NULL;
	if (n == 0 || all_one(w, n))
		return;
	d->prob = ta_xmalloc(n * sizeof *d->prob);
	d->alias = ta_xmalloc(n * sizeof *d->alias);
	size_t *small = ta_xmalloc(n * sizeof *small), *large = ta_xmalloc(n * sizeof *large);
	size_t ns = 0, nl = 0;
	double total = 0;
	for (size_t i = 0; i < n; i++)
		total += w[i] >= 1 ? w[i] : 1;
	for (size_t i = 0; i < n; i++) {
		d->prob[i] = (w[i] >= 1 ? w[i] : 1) * (double)n / total;
		d->alias[i] = i;
		if (d->prob[i] < 1)
			small[ns++] = i;
		else
			large[nl++] = i;
	}
	while (ns && nl) {
		size_t s = small[--ns], l = large[nl - 1];
		d->alias[s] = l;
		d->prob[l] -= 1 - d->prob[s];
		if (d->prob[l] < 1) {
			nl--;
			small[ns++] = l;
		}
	}
	/* What rounding leaves on either list keeps its own slot. */
	while (nl)
		d->prob[large[--nl]] = 1;
	while (ns)
		d->prob[small[--ns]] = 1;
	free(small);
	free(large);
}

static void drawer_free(drawer *d)
{
	free(d->prob);
	free(d->alias);
}

static double drawer_draw(const drawer *d, uint64_t *rng)
{
	size_t i = ta_stats_rand(rng) % d->n;
	if (!d->prob)
		return d->x[i];
	double u = (double)(ta_stats_rand(rng) >> 11) * 0x1.0p-53;
	return d->x[u < d->prob[i] ? i : d->alias[i]];
}

/* Median (type 7) of a resample of d's sample drawn into tmp[n]. */
static double resampled_median(const drawer *d, double *tmp, uint64_t *rng)
{
	size_t n = d->n;
	for (size_t i = 0; i < n; i++)
		tmp[i] = drawer_draw(d, rng);
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

/* Phase k of a sample: [starts[k], starts[k + 1] or n); one phase when it
 * has none. */
static size_t sample_phases(const ta_sample *s)
{
	return s->starts && s->phases ? s->phases : 1;
}

static size_t phase_at(const ta_sample *s, size_t k)
{
	return s->starts && s->phases ? s->starts[k] : 0;
}

static size_t phase_len(const ta_sample *s, size_t k)
{
	return (k + 1 < sample_phases(s) ? phase_at(s, k + 1) : s->n) - phase_at(s, k);
}

static double phase_median(const ta_sample *s, size_t k)
{
	size_t at = phase_at(s, k);
	return ta_stats_summarize_weighted(s->x + at, s->w ? s->w + at : NULL, phase_len(s, k)).median;
}

ta_comparison ta_stats_compare_samples(const ta_sample *before, const ta_sample *after)
{
	ta_comparison c;
	memset(&c, 0, sizeof c);
	size_t phases = sample_phases(before);
	c.n_before = before->n;
	c.n_after = after->n;
	c.phases = phases;
	c.verdict = TA_VERDICT_NONE;
	if (before->n == 0 || after->n == 0 || sample_phases(after) != phases)
		return c;
	/* The ratio is the geometric mean of the phases' ratios of medians:
	 * each part of the script counts once, however many launches it made. */
	double logsum = 0;
	bool enough = true;
	for (size_t k = 0; k < phases; k++) {
		size_t lb = phase_len(before, k), la = phase_len(after, k);
		if (lb == 0 || la == 0)
			return c;
		double mb = phase_median(before, k), ma = phase_median(after, k);
		if (mb <= 0 || ma <= 0)
			return c;
		logsum += log(ma / mb);
		enough &= lb >= 3 && la >= 3;
	}
	c.ratio = exp(logsum / (double)phases);
	c.lo = c.hi = c.ratio;
	if (!enough)
		return c;

	drawer *db = ta_xmalloc(phases * sizeof *db), *da = ta_xmalloc(phases * sizeof *da);
	for (size_t k = 0; k < phases; k++) {
		size_t ab = phase_at(before, k), aa = phase_at(after, k);
		drawer_init(&db[k], before->x + ab, before->w ? before->w + ab : NULL, phase_len(before, k));
		drawer_init(&da[k], after->x + aa, after->w ? after->w + aa : NULL, phase_len(after, k));
	}
	uint64_t rng = 0x74696c65ull;   /* fixed: same data, same interval */
	double *tb = ta_xmalloc(before->n * sizeof *tb), *ta = ta_xmalloc(after->n * sizeof *ta);
	double *ratios = ta_xmalloc(TA_STATS_BOOTSTRAP * sizeof *ratios);
	size_t nr = 0;
	for (int i = 0; i < TA_STATS_BOOTSTRAP; i++) {
		double ls = 0;
		bool ok = true;
		for (size_t k = 0; k < phases && ok; k++) {
			double b = resampled_median(&db[k], tb, &rng);
			double a = resampled_median(&da[k], ta, &rng);
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
	for (size_t k = 0; k < phases; k++) {
		drawer_free(&db[k]);
		drawer_free(&da[k]);
	}
	free(db);
	free(da);
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

ta_comparison ta_stats_compare_phased(const double *before, size_t nb, const size_t *bstart,
				      const double *after, size_t na, const size_t *astart,
				      size_t phases)
{
	ta_sample b = { .x = before, .n = nb, .starts = bstart, .phases = phases };
	ta_sample a = { .x = after, .n = na, .starts = astart, .phases = phases };
	if (phases == 0) {
		ta_comparison c;
		memset(&c, 0, sizeof c);
		c.n_before = nb;
		c.n_after = na;
		c.verdict = TA_VERDICT_NONE;
		return c;
	}
	return ta_stats_compare_samples(&b, &a);
}

double ta_stats_sample_geomean(const ta_sample *s)
{
	if (s->n == 0)
		return 0;
	double ls = 0;
	size_t phases = sample_phases(s);
	for (size_t k = 0; k < phases; k++) {
		double m = phase_median(s, k);
		ls += log(m > 0 ? m : 1);
	}
	return exp(ls / (double)phases);
}

double ta_stats_phase_geomean(const double *x, size_t n, const size_t *starts, size_t phases)
{
	if (phases == 0)
		return 0;
	ta_sample s = { .x = x, .n = n, .starts = starts, .phases = phases };
	return ta_stats_sample_geomean(&s);
}

ta_comparison ta_stats_compare(const double *before, size_t nb, const double *after, size_t na)
{
	static const size_t whole = 0;
	return ta_stats_compare_phased(before, nb, &whole, after, na, &whole, 1);
}
