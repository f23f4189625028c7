/* Statistics on data with known answers. */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profile/measure.h"
#include "profile/stats.h"

#define EPS 1e-9

static void test_quantiles(void **state)
{
	(void)state;
	double x[] = { 10, 1, 9, 2, 8, 3, 7, 4, 6, 5 };   /* 1..10 shuffled */
	ta_summary s = ta_stats_summarize(x, 10);
	assert_int_equal(s.count, 10);
	/* numpy.percentile([1..10], [50, 25, 75, 95]) = 5.5, 3.25, 7.75, 9.55 */
	assert_float_equal(s.median, 5.5, EPS);
	assert_float_equal(s.q1, 3.25, EPS);
	assert_float_equal(s.q3, 7.75, EPS);
	assert_float_equal(s.iqr, 4.5, EPS);
	assert_float_equal(s.p95, 9.55, EPS);
	assert_float_equal(s.min, 1, EPS);
	assert_float_equal(s.max, 10, EPS);
	assert_float_equal(s.mean, 5.5, EPS);
	assert_float_equal(x[0], 10, EPS);   /* input untouched */
}

static void test_cv_and_edges(void **state)
{
	(void)state;
	double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	ta_summary s = ta_stats_summarize(x, 8);
	/* mean 5, sample variance 32/7 */
	assert_float_equal(s.cv, 0.42761798705987, 1e-12);
	assert_float_equal(s.median, 4.5, EPS);
	double one = 3;
	s = ta_stats_summarize(&one, 1);
	assert_float_equal(s.median, 3, EPS);
	assert_float_equal(s.p95, 3, EPS);
	assert_float_equal(s.cv, 0, EPS);
	s = ta_stats_summarize(NULL, 0);
	assert_int_equal(s.count, 0);
}

/* A weighted summary is the summary of the sample with each value repeated
 * its weight's times; weights of 1 (or none) give the plain summary. */
static void test_weighted(void **state)
{
	(void)state;
	double x[] = { 9, 2, 4, 7 }, w[] = { 1, 3, 2, 1 };
	double rep[] = { 9, 2, 2, 2, 4, 4, 7 };
	ta_summary a = ta_stats_summarize_weighted(x, w, 4), b = ta_stats_summarize(rep, 7);
	assert_int_equal(a.count, 4);
	assert_float_equal(a.median, b.median, EPS);
	assert_float_equal(a.q1, b.q1, EPS);
	assert_float_equal(a.q3, b.q3, EPS);
	assert_float_equal(a.p95, b.p95, EPS);
	assert_float_equal(a.mean, b.mean, EPS);
	assert_float_equal(a.fenced_mean, b.fenced_mean, EPS);
	assert_float_equal(a.cv, b.cv, 1e-12);
	assert_float_equal(a.min, 2, EPS);
	assert_float_equal(a.max, 9, EPS);
	/* A shape timed in full at 1000 ns for 4 launches, then sampled once
	 * for 96 launches at 3000 ns: it ran 3000 ns nearly always. */
	double d[] = { 1000, 1000, 1000, 1000, 3000 }, dw[] = { 1, 1, 1, 1, 96 };
	ta_summary s = ta_stats_summarize_weighted(d, dw, 5);
	assert_float_equal(s.median, 3000, EPS);
	assert_float_equal(s.mean, (4000.0 + 96 * 3000) / 100, EPS);
	assert_float_equal(ta_stats_summarize(d, 5).median, 1000, EPS);
	double ones[] = { 1, 1, 1, 1 };
	ta_summary p = ta_stats_summarize_weighted(x, ones, 4), q = ta_stats_summarize(x, 4);
	assert_memory_equal(&p, &q, sizeof p);
	p = ta_stats_summarize_weighted(x, NULL, 4);
	assert_memory_equal(&p, &q, sizeof p);
}

/* n values around `center` with +-2% deterministic jitter. */
static double *sample(size_t n, double center, uint64_t seed)
{
	double *v = malloc(n * sizeof *v);
	for (size_t i = 0; i < n; i++)
		v[i] = center * (0.98 + 0.04 * (double)(ta_stats_rand(&seed) % 1000) / 999.0);
	return v;
}

static void test_compare_verdicts(void **state)
{
	(void)state;
	double *a = sample(200, 100.0, 1), *b = sample(200, 80.0, 2), *c = sample(200, 100.0, 3);
	double *d = sample(201, 125.0, 4);
	ta_comparison x = ta_stats_compare(a, 200, b, 200);
	assert_int_equal(x.verdict, TA_VERDICT_FASTER);
	assert_true(x.ratio > 0.79 && x.ratio < 0.81);
	assert_true(x.lo <= x.ratio && x.ratio <= x.hi);
	assert_true(x.hi - x.lo < 0.02);
	x = ta_stats_compare(a, 200, d, 201);
	assert_int_equal(x.verdict, TA_VERDICT_SLOWER);
	assert_true(x.ratio > 1.24 && x.ratio < 1.26);
	x = ta_stats_compare(a, 200, c, 200);
	assert_int_equal(x.verdict, TA_VERDICT_NOISE);
	assert_true(x.lo < 1.0 + TA_STATS_NOISE_BAND && x.hi > 1.0 - TA_STATS_NOISE_BAND);
	/* the same data give the same interval (fixed seed) */
	ta_comparison y = ta_stats_compare(a, 200, c, 200);
	assert_float_equal(x.lo, y.lo, 0);
	assert_float_equal(x.hi, y.hi, 0);
	/* identical samples: ratio 1 */
	x = ta_stats_compare(a, 200, a, 200);
	assert_float_equal(x.ratio, 1.0, EPS);
	assert_int_equal(x.verdict, TA_VERDICT_NOISE);
	/* too few values: a ratio but no verdict */
	x = ta_stats_compare(a, 2, b, 200);
	assert_int_equal(x.verdict, TA_VERDICT_NONE);
	assert_true(x.ratio > 0);
	x = ta_stats_compare(a, 0, b, 200);
	assert_int_equal(x.verdict, TA_VERDICT_NONE);
	assert_float_equal(x.ratio, 0, EPS);
	assert_string_equal(ta_verdict_name(TA_VERDICT_NOISE), "within noise");
	free(a);
	free(b);
	free(c);
	free(d);
}

/* A known case for the interval: before all 10, after all 9 (no spread):
 * every resample gives 0.9 exactly. Even sizes exercise the two-middle
 * median of the selection path. */
static void test_compare_degenerate(void **state)
{
	(void)state;
	double b[6] = { 10, 10, 10, 10, 10, 10 }, a[4] = { 9, 9, 9, 9 };
	ta_comparison x = ta_stats_compare(b, 6, a, 4);
	assert_float_equal(x.ratio, 0.9, EPS);
	assert_float_equal(x.lo, 0.9, EPS);
	assert_float_equal(x.hi, 0.9, EPS);
	assert_int_equal(x.verdict, TA_VERDICT_FASTER);
}

/* Large samples stay fast (selection, not sorting, per resample). */
/* A script that measures two modes in turn: an edit speeds one up 2.5x and
 * leaves the other. Pooled medians depend on how many launches each mode
 * made; phase by phase, the ratio is the geometric mean sqrt(0.4 * 1). */
static void test_compare_phased(void **state)
{
	(void)state;
	double b[60], a[90];
	for (int i = 0; i < 30; i++) {
		b[i] = 2000 + i % 5;          /* mode 1 */
		b[30 + i] = 1400 + i % 3;     /* mode 2 */
	}
	for (int i = 0; i < 60; i++)
		a[i] = 800 + i % 5;           /* mode 1, faster: more launches in the same time */
	for (int i = 0; i < 30; i++)
		a[60 + i] = 1400 + i % 3;
	size_t bs[2] = { 0, 30 }, as[2] = { 0, 60 };
	ta_comparison c = ta_stats_compare_phased(b, 60, bs, a, 90, as, 2);
	assert_int_equal(c.phases, 2);
	assert_float_equal(c.ratio, sqrt((802.0 / 2002.0) * 1.0), 1e-3);
	assert_true(c.lo <= c.ratio && c.ratio <= c.hi);
	assert_int_equal(c.verdict, TA_VERDICT_FASTER);
	assert_float_equal(ta_stats_phase_geomean(b, 60, bs, 2), sqrt(2002.0 * 1401.0), 1e-6);
	/* one sample with a phase of fewer than 3 values: a ratio, no verdict */
	size_t short_b[2] = { 0, 58 };
	c = ta_stats_compare_phased(b, 60, short_b, a, 90, as, 2);
	assert_int_equal(c.verdict, TA_VERDICT_NONE);
}

/* Phases: a long pause or a new run starts one; short ones are dropped;
 * runs of the same shape pool their k-th phases. */
static void test_measure_phases(void **state)
{
	(void)state;
	enum { N = 22 };
	double d[N];
	uint64_t st[N], en[N];
	int run[N];
	uint64_t t = 0;
	for (int i = 0; i < N; i++) {
		run[i] = i < 11 ? 0 : 1;
		int k = i % 11;
		/* in each run: 5 launches, a 1 s pause, 1 lone launch, a pause, 5 more */
		if (k == 5 || k == 6)
			t += 1000000000ull;
		d[i] = k < 5 ? 100 : k == 5 ? 999 : 200;
		st[i] = t;
		en[i] = t + (uint64_t)d[i];
		t = en[i] + 1000;
	}
	double *steady, *steady_w;
	size_t n_steady, *starts;
	size_t p = ta_measure_phases(d, NULL, st, en, run, NULL, N, &steady, &steady_w, &n_steady, &starts);
	assert_int_equal(p, 2);            /* the lone launch is no phase */
	assert_int_equal(n_steady, 20);
	assert_null(steady_w);             /* no weights: 1 each */
	assert_int_equal(starts[0], 0);
	assert_int_equal(starts[1], 10);   /* phase 0 pools both runs' first parts */
	for (size_t i = 0; i < 10; i++) {
		assert_float_equal(steady[i], 100, 0);
		assert_float_equal(steady[10 + i], 200, 0);
	}
	free(steady);
	free(starts);
}

/* A change of configuration with no pause between (a warm compile cache)
 * splits a part when both pieces keep 3 launches; a loop alternating
 * between two configurations stays one part. */
static void test_phases_by_config(void **state)
{
	(void)state;
	enum { N = 12 };
	double d[N];
	uint64_t st[N], en[N];
	int run[N] = { 0 };
	size_t cfg[N], alt[N];
	for (int i = 0; i < N; i++) {
		d[i] = i < 8 ? 100 : 300;
		cfg[i] = i < 8 ? 0 : 1;
		alt[i] = (size_t)(i % 2);
		st[i] = (uint64_t)i * 2000;
		en[i] = st[i] + (uint64_t)d[i];
	}
	double *steady, *steady_w;
	size_t n_steady, *starts;
	size_t p = ta_measure_phases(d, NULL, st, en, run, cfg, N, &steady, &steady_w, &n_steady, &starts);
	assert_int_equal(p, 2);
	assert_int_equal(starts[1], 8);
	assert_int_equal(n_steady, N);
	free(steady);
	free(starts);
	p = ta_measure_phases(d, NULL, st, en, run, alt, N, &steady, &steady_w, &n_steady, &starts);
	assert_int_equal(p, 1);
	assert_int_equal(n_steady, N);
	free(steady);
	free(starts);
	cfg[10] = cfg[11] = 2;        /* a last piece of 2 launches: no split */
	p = ta_measure_phases(d, NULL, st, en, run, cfg, N, &steady, &steady_w, &n_steady, &starts);
	assert_int_equal(p, 1);
	free(steady);
	free(starts);
}

/* Weighted comparison: with every weight 1 it is the plain one, to the
 * bit; a record that stands for k launches compares as k copies of it (the
 * medians exactly, the interval nearly); and a shape that slows down after
 * its first launches, timed in full early and sampled later, is compared
 * over all its launches, where the records alone stand for the early ones. */
static void test_compare_weighted(void **state)
{
	(void)state;
	enum { N = 60 };
	double b[N], a[N], ones[N];
	uint64_t rng = 7;
	for (int i = 0; i < N; i++) {
		b[i] = 100 + (double)(ta_stats_rand(&rng) % 10);
		a[i] = 90 + (double)(ta_stats_rand(&rng) % 10);
		ones[i] = 1;
	}
	ta_comparison plain = ta_stats_compare(b, N, a, N);
	ta_sample sb = { .x = b, .w = ones, .n = N }, sa = { .x = a, .n = N };
	ta_comparison w1 = ta_stats_compare_samples(&sb, &sa);
	assert_true(plain.ratio == w1.ratio && plain.lo == w1.lo && plain.hi == w1.hi);
	assert_int_equal(plain.verdict, w1.verdict);

	/* 40 early records of 100 ns timed in full, then 20 sampled records
	 * of 300 ns each standing for 10 launches: 240 launches, 200 at 300. */
	double early[N], w[N], expanded[240];
	size_t ne = 0;
	for (int i = 0; i < N; i++) {
		early[i] = i < 40 ? 100 + i % 3 : 300 + i % 3;
		w[i] = i < 40 ? 1 : 10;
		for (int k = 0; k < (int)w[i]; k++)
			expanded[ne++] = early[i];
	}
	assert_int_equal(ne, 240);
	double after[N];
	for (int i = 0; i < N; i++)
		after[i] = 290 + i % 5;
	ta_sample drift = { .x = early, .w = w, .n = N }, flat = { .x = after, .n = N };
	ta_sample full = { .x = expanded, .n = ne };
	ta_comparison cw = ta_stats_compare_samples(&drift, &flat);
	ta_comparison cf = ta_stats_compare_samples(&full, &flat);
	ta_comparison cu = ta_stats_compare(early, N, after, N);
	assert_float_equal(cw.ratio, cf.ratio, 1e-12);   /* the same medians */
	assert_true(cw.ratio > 0.95 && cw.ratio < 1.0);   /* ~300 against ~292 */
	assert_true(cu.ratio > 2.5);                      /* unweighted: 100 against 292 */
	assert_int_equal(cu.verdict, TA_VERDICT_SLOWER);
	assert_true(cw.verdict != TA_VERDICT_SLOWER);
	/* the weighted bootstrap's interval is near the expanded sample's */
	assert_true(fabs(log(cw.lo / cf.lo)) < 0.02 && fabs(log(cw.hi / cf.hi)) < 0.02);
	assert_float_equal(ta_stats_sample_geomean(&drift), ta_stats_sample_geomean(&full), 1e-9);
}

/* The phases keep each kept launch's weight beside it. */
static void test_phases_weighted(void **state)
{
	(void)state;
	enum { N = 8 };
	double d[N], w[N];
	uint64_t st[N], en[N];
	int run[N] = { 0 };
	for (int i = 0; i < N; i++) {
		d[i] = 100 + i;
		w[i] = i < 4 ? 1 : 5;
		st[i] = (uint64_t)i * 2000 + (i >= 4 ? 2000000000ull : 0);   /* a 2 s pause: two parts */
		en[i] = st[i] + 100;
	}
	double *steady, *steady_w;
	size_t n_steady, *starts;
	size_t p = ta_measure_phases(d, w, st, en, run, NULL, N, &steady, &steady_w, &n_steady, &starts);
	assert_int_equal(p, 2);
	assert_int_equal(n_steady, N);
	assert_non_null(steady_w);
	for (int i = 0; i < N; i++) {
		assert_float_equal(steady[i], d[i], 0);
		assert_float_equal(steady_w[i], w[i], 0);
	}
	free(steady);
	free(steady_w);
	free(starts);
}

static void test_compare_large(void **state)
{
	(void)state;
	double *a = sample(20000, 50.0, 5), *b = sample(20000, 50.5, 6);
	ta_comparison x = ta_stats_compare(a, 20000, b, 20000);
	assert_true(x.ratio > 1.005 && x.ratio < 1.015);
	assert_int_equal(x.verdict, TA_VERDICT_NOISE);   /* 1% is inside the band */
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quantiles),
		cmocka_unit_test(test_cv_and_edges),
		cmocka_unit_test(test_compare_verdicts),
		cmocka_unit_test(test_compare_degenerate),
		cmocka_unit_test(test_compare_large),
		cmocka_unit_test(test_compare_phased),
		cmocka_unit_test(test_weighted),
		cmocka_unit_test(test_measure_phases),
		cmocka_unit_test(test_phases_by_config),
		cmocka_unit_test(test_compare_weighted),
		cmocka_unit_test(test_phases_weighted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
