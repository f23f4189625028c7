/* The injector's adaptive tracing decision and host periods (adapt.c),
 * with synthetic launches and GPU times: no CUPTI needed. */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profile/inject/adapt.h"

static const int32_t G1[3] = { 4, 1, 1 }, G2[3] = { 8, 1, 1 }, BL[3] = { 128, 1, 1 };
static int fa, fb, fc;   /* function handles */

/* A deterministic spread: uniform in [1-w, 1+w] around m. */
static double jitter(unsigned *seed, double m, double w)
{
	*seed = *seed * 1103515245u + 12345u;
	return m * (1 - w + 2 * w * ((*seed >> 8) & 0xffff) / 65535.0);
}

static void test_interval(void **state)
{
	(void)state;
	double x[100];
	for (int i = 0; i < 100; i++)
		x[i] = 1100 + i;   /* sorted, median 1149.5 */
	double lo, hi;
	/* n=100: ranks 50 -+ 9.8 -> [40, 60], within 1149.5 -+ 11.5 */
	assert_true(ta_adapt_median_tight(x, 100, 30, 0.01, &lo, &hi));
	assert_float_equal(lo, 1140, 1e-9);
	assert_float_equal(hi, 1160, 1e-9);
	/* 1000 + i: x[60] = 1060 is just past 1049.5 x 1.01 */
	for (int i = 0; i < 100; i++)
		x[i] = 1000 + i;
	assert_false(ta_adapt_median_tight(x, 100, 30, 0.01, NULL, NULL));
	/* the same spread around a smaller median is not tight */
	for (int i = 0; i < 100; i++)
		x[i] = 100 + i;
	assert_false(ta_adapt_median_tight(x, 100, 30, 0.01, NULL, NULL));
	/* too few samples, however tight */
	for (int i = 0; i < 20; i++)
		x[i] = 500;
	assert_false(ta_adapt_median_tight(x, 20, 30, 0.01, NULL, NULL));
	assert_true(ta_adapt_median_tight(x, 20, 10, 0.01, NULL, NULL));
	assert_false(ta_adapt_median_tight(x, 0, 0, 0.01, NULL, NULL));
}

/* Launches every 10 µs; each launch's GPU time arrives (as if from its
 * record) right away; decisions after every 16 launches, as buffers do. */
static void test_converges_then_samples(void **state)
{
	(void)state;
	ta_adapt a;
	assert_true(ta_adapt_init(&a, NULL));
	unsigned seed = 7;
	uint64_t t = 1000000000u;
	size_t traced = 0, first_untraced = 0;
	for (size_t i = 0; i < 20000; i++, t += 10000) {
		bool tr = ta_adapt_launch(&a, &fa, "k", G1, BL, 0, t);
		if (tr) {
			traced++;
			ta_adapt_sample(&a, "k", G1, BL, 0, jitter(&seed, 3000, 0.005));
		} else if (!first_untraced) {
			first_untraced = i;
		}
		if (i % 16 == 15)
			ta_adapt_settle(&a);
	}
	assert_int_equal(a.n_shapes, 1);
	const ta_adapt_shape *s = &a.shapes[0];
	assert_true(s->converged);
	assert_int_equal(s->launches, 20000);
	assert_int_equal(s->traced, traced);
	/* full for the first TA_ADAPT_FULL_LAUNCHES, settled long before */
	assert_int_equal(first_untraced, TA_ADAPT_FULL_LAUNCHES);
	/* then one per ms of 10 µs launches: 1 in 100 */
	assert_true(traced > TA_ADAPT_FULL_LAUNCHES + 100 && traced < TA_ADAPT_FULL_LAUNCHES + 200);
	assert_int_equal(a.traced, traced);
	/* the period: every launch 10 µs after the previous one */
	assert_int_equal(s->n_period, 19999);
	assert_true(fabs(ta_adapt_period_quantile(s, 0.5) - 10000) < 0.01 * 10000);
	ta_adapt_free(&a);
}

/* Each traced launch stands for itself and the launches of its shape left
 * untraced before it: the weights of the traced launches add up to the
 * launches up to the last traced one, 1 each while traced in full. */
static void test_launch_weights(void **state)
{
	(void)state;
	ta_adapt a;
	assert_true(ta_adapt_init(&a, NULL));
	unsigned seed = 3;
	uint64_t t = 1000000000u, sum = 0, last_traced_at = 0, heavy = 0;
	for (size_t i = 0; i < 20000; i++, t += 10000) {
		if (ta_adapt_launch(&a, &fa, "k", G1, BL, 0, t)) {
			sum += a.last_weight;
			last_traced_at = i + 1;
			if (i < TA_ADAPT_FULL_LAUNCHES)
				assert_int_equal(a.last_weight, 1);
			else if (a.last_weight > 1)
				heavy++;
			ta_adapt_sample(&a, "k", G1, BL, 0, jitter(&seed, 3000, 0.005));
		}
		if (i % 16 == 15)
			ta_adapt_settle(&a);
	}
	assert_int_equal(sum, last_traced_at);
	/* one in about 100 launches traced past the full stretch (1 ms of
	 * 10 µs launches): those stand for about 100 each */
	assert_true(heavy > 100);
	ta_adapt_free(&a);
}

/* The pending weights by correlation id: kept, found once, gone after;
 * ids that collide in the table, removed in any order. */
static void test_weight_table(void **state)
{
	(void)state;
	ta_adapt a;
	assert_true(ta_adapt_init(&a, NULL));
	ta_adapt_keep_weight(&a, 7, 1);   /* a weight of 1 is not kept */
	assert_int_equal(a.n_weights, 0);
	assert_int_equal(ta_adapt_take_weight(&a, 7), 1);
	/* ids a table's width apart: many land in one run of slots */
	for (uint32_t i = 0; i < 500; i++)
		ta_adapt_keep_weight(&a, i * 3 + 1, 2 + i);
	assert_int_equal(a.n_weights, 500);
	for (uint32_t i = 0; i < 500; i += 2)
		assert_int_equal(ta_adapt_take_weight(&a, i * 3 + 1), 2 + i);
	for (uint32_t i = 1; i < 500; i += 2)
		assert_int_equal(ta_adapt_take_weight(&a, i * 3 + 1), 2 + i);
	assert_int_equal(a.n_weights, 0);
	assert_int_equal(ta_adapt_take_weight(&a, 4), 1);
	/* Records that never come (a kernel the runtime launched, its record
	 * under another id): the oldest give way, the table stays bounded and
	 * the newest are still found. */
	size_t cap = TA_ADAPT_WEIGHT_SLOTS / 4 * 3;
	for (uint32_t i = 0; i < 5 * TA_ADAPT_WEIGHT_SLOTS; i++) {
		ta_adapt_keep_weight(&a, 100000 + i, 5);
		assert_true(a.n_weights <= cap);
	}
	assert_true(a.weights_lost > 0);
	uint32_t last = 100000 + 5 * TA_ADAPT_WEIGHT_SLOTS - 1;
	assert_int_equal(ta_adapt_take_weight(&a, last), 5);
	assert_int_equal(ta_adapt_take_weight(&a, last - 100), 5);
	assert_int_equal(ta_adapt_take_weight(&a, 100000), 1);   /* given way long ago */
	ta_adapt_free(&a);
}

/* Noisy GPU times never settle: every launch stays traced. */
static void test_noisy_stays_full(void **state)
{
	(void)state;
	ta_adapt a;
	assert_true(ta_adapt_init(&a, NULL));
	unsigned seed = 3;
	uint64_t t = 1;
	for (size_t i = 0; i < 3000; i++, t += 5000) {
		assert_true(ta_adapt_launch(&a, &fa, "k", G1, BL, 0, t));
		ta_adapt_sample(&a, "k", G1, BL, 0, jitter(&seed, 3000, 0.5));
		ta_adapt_settle(&a);
	}
	assert_false(a.shapes[0].converged);
	assert_int_equal(a.shapes[0].traced, 3000);
	ta_adapt_free(&a);
}

/* A new shape is traced in full while a converged one is sampled; a shape
 * whose times move away from its median goes back to full tracing. */
static void test_new_shape_and_drift(void **state)
{
	(void)state;
	ta_adapt a;
	assert_true(ta_adapt_init(&a, NULL));
	unsigned seed = 11;
	uint64_t t = 1;
	for (size_t i = 0; i < TA_ADAPT_FULL_LAUNCHES + 200; i++, t += 10000) {
		if (ta_adapt_launch(&a, &fa, "k", G1, BL, 0, t))
			ta_adapt_sample(&a, "k", G1, BL, 0, jitter(&seed, 3000, 0.002));
		if (i % 16 == 15)
			ta_adapt_settle(&a);
	}
	assert_true(a.shapes[0].converged);
	assert_false(ta_adapt_launch(&a, &fa, "k", G1, BL, 0, t += 10000));
	/* the same kernel with another grid: new, traced */
	assert_true(ta_adapt_launch(&a, &fa, "k", G2, BL, 0, t += 10000));
	assert_int_equal(a.n_shapes, 2);
	/* the same name and shape under another function handle (the kernel
	 * loaded again) is the same shape */
	assert_false(ta_adapt_launch(&a, &fb, "k", G1, BL, 0, t += 10000));
	assert_int_equal(a.n_shapes, 2);
	/* dynamic shared memory tells shapes apart too */
	assert_true(ta_adapt_launch(&a, &fa, "k", G1, BL, 4096, t += 10000));
	assert_int_equal(a.n_shapes, 3);
	/* drift: the sampled launches now take twice as long */
	for (size_t i = 0; i < 5000 && a.shapes[0].converged; i++) {
		t += 1000000;   /* one launch per ms: each one traced */
		if (ta_adapt_launch(&a, &fa, "k", G1, BL, 0, t))
			ta_adapt_sample(&a, "k", G1, BL, 0, jitter(&seed, 6000, 0.002));
		ta_adapt_settle(&a);
	}
	assert_false(a.shapes[0].converged);
	assert_true(ta_adapt_launch(&a, &fa, "k", G1, BL, 0, t += 10000));
	ta_adapt_free(&a);
}

/* A script's modes launch one shape in turn (a full pass, then a causal
 * one 30% faster), enqueued far ahead of the GPU, so that their records
 * come after the decisions: each mode is timed launch by launch, not
 * sampled on the first mode's settled median; past the first launches, or
 * once the run has timed enough in all, sampling resumes. */
static void test_modes_of_one_shape(void **state)
{
	(void)state;
	ta_adapt a;
	assert_true(ta_adapt_init(&a, NULL));
	unsigned seed = 5;
	uint64_t t = 1;
	const double mode[3] = { 1900000, 1330000, 2500000 };
	size_t traced[3] = { 0, 0, 0 };
	for (int m = 0; m < 3; m++)
		for (size_t i = 0; i < 1000; i++, t += 80000) {   /* 80 µs of host time per launch */
			if (ta_adapt_launch(&a, &fa, "k", G1, BL, 0, t)) {
				traced[m]++;
				ta_adapt_sample(&a, "k", G1, BL, 0, jitter(&seed, mode[m], 0.003));
			}
			if (i % 16 == 15)
				ta_adapt_settle(&a);
		}
	for (int m = 0; m < 3; m++)
		assert_int_equal(traced[m], 1000);
	/* the last mode goes on past the shape's first launches: it settles
	 * on its own times, then is sampled, 1 launch in 12.5 */
	size_t late = 0;
	for (size_t i = 0; i < 6000; i++, t += 80000) {
		if (ta_adapt_launch(&a, &fa, "k", G1, BL, 0, t)) {
			late++;
			ta_adapt_sample(&a, "k", G1, BL, 0, jitter(&seed, mode[2], 0.003));
		}
		if (i % 16 == 15)
			ta_adapt_settle(&a);
	}
	assert_true(a.shapes[0].converged);
	assert_true(late > 1096 && late < 6000 - 2000);
	/* the run's total: a new shape is sampled once settled past it */
	a.traced = TA_ADAPT_FULL_TOTAL;
	size_t other = 0;
	for (size_t i = 0; i < 200; i++, t += 10000) {
		if (ta_adapt_launch(&a, &fa, "k", G2, BL, 0, t)) {
			other++;
			ta_adapt_sample(&a, "k", G2, BL, 0, jitter(&seed, 3000, 0.002));
		}
		ta_adapt_settle(&a);
	}
	assert_true(other < 100);
	ta_adapt_free(&a);
}

/* Full tracing (TILEADVISE_TRACE=full) traces every launch and still
 * counts and times them. */
static void test_full_mode(void **state)
{
	(void)state;
	ta_adapt_config c;
	ta_adapt_config_default(&c);
	c.adaptive = false;
	ta_adapt a;
	assert_true(ta_adapt_init(&a, &c));
	uint64_t t = 1;
	for (size_t i = 0; i < 500; i++, t += 20000) {
		assert_true(ta_adapt_launch(&a, &fa, "k", G1, BL, 0, t));
		ta_adapt_sample(&a, "k", G1, BL, 0, 3000);
		ta_adapt_settle(&a);
	}
	assert_true(a.shapes[0].converged);   /* decided, but not acted on */
	assert_int_equal(a.shapes[0].traced, 500);
	ta_adapt_free(&a);
}

/* The period is per kernel: two shapes of one kernel alternating each get
 * the time since the other; a second kernel in between does not cut it. */
static void test_periods(void **state)
{
	(void)state;
	ta_adapt a;
	assert_true(ta_adapt_init(&a, NULL));
	uint64_t t = 1000;
	for (size_t i = 0; i < 1000; i++) {
		ta_adapt_launch(&a, &fa, "k", i % 2 ? G2 : G1, BL, 0, t);
		ta_adapt_launch(&a, &fb, "other", G1, BL, 0, t + 3000);
		t += i % 2 ? 50000 : 20000;   /* k(G1) ... 20 µs ... k(G2) ... 50 µs ... k(G1) */
	}
	assert_int_equal(a.n_kernels, 2);
	const ta_adapt_shape *g1 = &a.shapes[0], *o = &a.shapes[1], *g2 = &a.shapes[2];
	assert_string_equal(o->name, "other");
	assert_true(fabs(ta_adapt_period_quantile(g2, 0.5) - 20000) < 200);
	assert_true(fabs(ta_adapt_period_quantile(g1, 0.5) - 50000) < 500);
	assert_true(fabs(ta_adapt_period_quantile(o, 0.5) - 35000) < 20000);
	assert_int_equal(g1->n_period, 499);   /* its first launch has none */
	/* bins: 1% wide, the middle within 0.5% of what fell in */
	for (double ns = 100; ns < 1e11; ns *= 3.7) {
		double mid = ta_adapt_period_bin_ns(ta_adapt_period_bin(ns));
		assert_true(fabs(mid / ns - 1) < 0.006);
	}
	assert_int_equal(ta_adapt_period_bin(1), 0);
	assert_int_equal(ta_adapt_period_bin(1e18), TA_PERIOD_BINS - 1);
	ta_adapt_free(&a);
}

/* More shapes than the book holds: the rest are traced, counted as overflow. */
static void test_overflow(void **state)
{
	(void)state;
	ta_adapt a;
	assert_true(ta_adapt_init(&a, NULL));
	for (int i = 0; i < TA_ADAPT_MAX_SHAPES + 10; i++) {
		int32_t g[3] = { i + 1, 1, 1 };
		assert_true(ta_adapt_launch(&a, &fa, "k", g, BL, 0, (uint64_t)i * 1000 + 1));
	}
	assert_int_equal(a.n_shapes, TA_ADAPT_MAX_SHAPES);
	assert_int_equal(a.overflow, 10);
	/* an unknown shape's record is ignored */
	int32_t g[3] = { TA_ADAPT_MAX_SHAPES + 5, 1, 1 };
	ta_adapt_sample(&a, "k", g, BL, 0, 100);
	ta_adapt_free(&a);
}

/* The previous launch's shape is tried first: a run of one shape, then
 * others between, a handle reloaded under the same name, and a shape that
 * differs from the previous one in one field only all land where the
 * hashed lookup puts them. */
static void test_repeat_fast_path(void **state)
{
	(void)state;
	ta_adapt a;
	assert_true(ta_adapt_init(&a, NULL));
	uint64_t t = 1;
	for (int i = 0; i < 100; i++)
		ta_adapt_launch(&a, &fa, "k", G1, BL, 0, t += 1000);
	ta_adapt_shape *s1 = a.last;
	ta_adapt_launch(&a, &fa, "k", G2, BL, 0, t += 1000);
	ta_adapt_shape *s2 = a.last;
	ta_adapt_launch(&a, &fa, "k", G1, BL, 64, t += 1000);    /* smem only differs */
	ta_adapt_shape *s3 = a.last;
	ta_adapt_launch(&a, &fb, "k", G1, BL, 0, t += 1000);     /* reloaded: same shape */
	assert_ptr_equal(a.last, s1);
	ta_adapt_launch(&a, &fb, "k", G1, BL, 0, t += 1000);
	ta_adapt_launch(&a, &fa, "k", G2, BL, 0, t += 1000);
	assert_ptr_equal(a.last, s2);
	assert_int_equal(a.n_shapes, 3);
	assert_true(s1 != s2 && s2 != s3 && s1 != s3);
	assert_int_equal(s1->launches, 102);
	assert_int_equal(s2->launches, 2);
	assert_int_equal(s3->launches, 1);
	/* a handle with no name that the book has not seen: traced, overflow */
	assert_true(ta_adapt_launch(&a, &fc, NULL, G1, BL, 0, t += 1000));
	assert_null(a.last);
	assert_int_equal(a.overflow, 1);
	ta_adapt_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interval),
		cmocka_unit_test(test_converges_then_samples),
		cmocka_unit_test(test_noisy_stays_full),
		cmocka_unit_test(test_new_shape_and_drift),
		cmocka_unit_test(test_modes_of_one_shape),
		cmocka_unit_test(test_full_mode),
		cmocka_unit_test(test_launch_weights),
		cmocka_unit_test(test_weight_table),
		cmocka_unit_test(test_periods),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_repeat_fast_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
