/* Grouping, autotuning and warm-up rules, pooling of runs, comparison. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profile/measure.h"

static uint64_t clock_ns;

static void launch_weighed(ta_records *r, const char *name, int run, int block, uint32_t regs, int grid,
			   uint64_t dur, uint64_t weight)
{
	char line[1024];
	ta_proto_kernel k;
	memset(&k, 0, sizeof k);
	k.weight = weight;
	k.name = name;
	k.start_ns = clock_ns;
	k.end_ns = clock_ns + dur;
	clock_ns += dur + 1000;
	k.grid[0] = grid;
	k.grid[1] = k.grid[2] = 1;
	k.block[0] = block;
	k.block[1] = k.block[2] = 1;
	k.regs = regs;
	size_t n = ta_proto_encode_kernel(line, sizeof line, 1, &k);
	assert_true(ta_proto_decode_line(r, line, n - 1, run));
}

static void launch(ta_records *r, const char *name, int run, int block, uint32_t regs, int grid,
		   uint64_t dur)
{
	launch_weighed(r, name, run, block, regs, grid, dur, 1);
}

/* One run of an autotuned kernel: 3 configurations tried 5 times each, then
 * the winner (the second) launched 11 times, the first one slow. */
static void autotuned_run(ta_records *r, int run, uint64_t base)
{
	for (int c = 0; c < 3; c++)
		for (int i = 0; i < 5; i++)
			launch(r, "matmul_kernel", run, 128 << c, 64 + 32 * (uint32_t)c, 64, base * 2);
	launch(r, "matmul_kernel", run, 256, 96, 64, base * 10);   /* warm-up */
	for (int i = 0; i < 10; i++)
		launch(r, "matmul_kernel", run, 256, 96, 64, base + (uint64_t)i);
	launch(r, "vectorized_elementwise_kernel", run, 128, 16, 8, 5000);
	launch(r, "add_kernel_0d1d2d", run, 128, 16, 8, 700);
}

static void test_autotune_and_warmup(void **state)
{
	(void)state;
	ta_records r;
	ta_records_init(&r);
	autotuned_run(&r, 0, 50000);
	const char *names[] = { "matmul_kernel", "add_kernel", "add" };
	ta_gpu_info g;
	ta_gpu_preset("h200", &g);
	ta_measurement *m = ta_measure_build(&r, names, NULL, 3, &g);
	assert_int_equal(m->n_kernels, 2);
	assert_int_equal(m->runs, 1);
	const ta_kernel_measure *k = ta_measure_find(m, "matmul_kernel");
	assert_non_null(k);
	assert_int_equal(k->launches, 26);
	/* configurations 0 and 2 came before the winner: autotuning. The
	 * winner's own 5 tuning launches stay: they are the same kernel. */
	assert_int_equal(k->autotune_launches, 10);
	assert_int_equal(k->warmup_launches, 1);
	assert_int_equal(k->n_groups, 3);
	const ta_kernel_group *mg = &k->groups[k->main_group];
	assert_int_equal(k->main_group, 0);
	assert_int_equal(mg->cfg.block[0], 256);
	assert_int_equal(mg->launches, 16);
	/* the first launch of the final configuration (its first tuning
	 * launch) is the warm-up: 4 x 100000, 500000, 50000..50009 remain */
	assert_int_equal(mg->n_durations, 15);
	assert_float_equal(mg->summary.median, 50007, 1e-9);
	assert_true(mg->has_occupancy);
	assert_true(k->groups[1].autotune == k->groups[1].launches);
	assert_true(k->groups[2].autotune == k->groups[2].launches);
	/* the suffixed name matched add_kernel (longest), a lone launch is kept */
	const ta_kernel_measure *a = ta_measure_find(m, "add_kernel");
	assert_non_null(a);
	assert_int_equal(a->groups[0].n_durations, 1);
	assert_int_equal(a->warmup_launches, 0);
	assert_null(ta_measure_find(m, "add"));
	assert_int_equal(m->other_launches, 1);
	assert_int_equal(m->n_others, 1);
	assert_string_equal(m->others[0].name, "vectorized_elementwise_kernel");
	ta_measurement_free(m);
	ta_records_clear(&r);
}

static void test_repeat_pooling_and_compare(void **state)
{
	(void)state;
	ta_records before, after;
	ta_records_init(&before);
	ta_records_init(&after);
	for (int run = 0; run < 3; run++) {
		autotuned_run(&before, run, 50000);
		autotuned_run(&after, run, 40000);
	}
	const char *names[] = { "matmul_kernel" };
	ta_measurement *b = ta_measure_build(&before, names, NULL, 1, NULL);
	ta_measurement *a = ta_measure_build(&after, names, NULL, 1, NULL);
	assert_int_equal(b->runs, 3);
	const ta_kernel_measure *k = ta_measure_find(b, "matmul_kernel");
	assert_int_equal(k->warmup_launches, 3);     /* one per run */
	assert_int_equal(k->autotune_launches, 30);
	assert_int_equal(k->groups[k->main_group].n_durations, 45);
	assert_false(k->groups[0].has_occupancy);
	ta_kernel_comparison *cs;
	size_t n = ta_measure_compare(b, a, &cs);
	assert_int_equal(n, 1);
	assert_true(cs[0].in_before && cs[0].in_after && cs[0].same_config);
	assert_true(cs[0].cmp.ratio < 0.9);
	assert_int_equal(cs[0].cmp.verdict, TA_VERDICT_FASTER);
	free(cs);
	ta_measurement_free(a);
	ta_measurement_free(b);
	ta_records_clear(&before);
	ta_records_clear(&after);
}

/* Size sweeps: same compiled variant, different grids, all kept. */
static void test_size_sweep(void **state)
{
	(void)state;
	ta_records r;
	ta_records_init(&r);
	for (int s = 0; s < 3; s++)
		for (int i = 0; i < 4; i++)
			launch(&r, "k", 0, 128, 32, 64 << s, 1000u << s);
	const char *names[] = { "k" };
	const bool tuned[] = { false };
	ta_measurement *m = ta_measure_build(&r, names, tuned, 1, NULL);
	const ta_kernel_measure *k = ta_measure_find(m, "k");
	assert_int_equal(k->n_groups, 3);
	assert_int_equal(k->autotune_launches, 0);
	assert_int_equal(k->warmup_launches, 3);
	assert_int_equal(k->groups[k->main_group].cfg.grid[0], 256);
	ta_measurement_free(m);
	/* the same launches with autotuning possible: the earlier sizes, each
	 * one unbroken block before the last, look like tuning */
	m = ta_measure_build(&r, NULL, NULL, 0, NULL);
	k = ta_measure_find(m, "k");
	assert_int_equal(k->autotune_launches, 8);
	assert_int_equal(k->warmup_launches, 1);
	ta_measurement_free(m);
	/* ... unless the run is known to have tuned nothing (the measured run
	 * after a tuning run, as its "run" line says): every size is steady */
	const char run_line[] = "{\"type\":\"run\",\"mode\":\"timed\",\"wall_s\":1.5,\"tuned\":false}";
	assert_true(ta_proto_decode_line(&r, run_line, sizeof run_line - 1, 0));
	assert_true(ta_records_run_untuned(&r, 0));
	assert_false(ta_records_run_untuned(&r, 1));
	m = ta_measure_build(&r, NULL, NULL, 0, NULL);
	k = ta_measure_find(m, "k");
	assert_int_equal(k->autotune_launches, 0);
	assert_int_equal(k->warmup_launches, 3);
	assert_int_equal(k->n_phases, 3);    /* each size a part: the configuration changed */
	ta_measurement_free(m);
	ta_records_clear(&r);
}

/* A workload of three shapes (98 long launches, 114 shorter ones, then one
 * tiny check): the headline is the shape with the most GPU time, not the
 * last one seen, and the per-call time weighs every steady launch. */
static void test_dominant_shape(void **state)
{
	(void)state;
	ta_records r;
	ta_records_init(&r);
	for (int i = 0; i < 98; i++)
		launch(&r, "k", 0, 128, 32, 4096, 3900000);
	for (int i = 0; i < 114; i++)
		launch(&r, "k", 0, 128, 32, 2048, 2200000);
	launch(&r, "k", 0, 128, 32, 16, 160000);
	const char *names[] = { "k" };
	const bool tuned[] = { false };
	ta_measurement *m = ta_measure_build(&r, names, tuned, 1, NULL);
	const ta_kernel_measure *k = ta_measure_find(m, "k");
	assert_int_equal(k->n_groups, 3);
	const ta_kernel_group *g = &k->groups[k->main_group];
	assert_int_equal(g->cfg.grid[0], 4096);
	assert_int_equal(g->n_durations, 97);
	assert_int_equal(k->steady_calls, 97 + 113 + 1);
	double total = 97 * 3900000.0 + 113 * 2200000.0 + 160000.0;
	assert_float_equal(k->steady_total_ns, total, 1);
	assert_float_equal(g->share, 97 * 3900000.0 / total, 1e-9);
	double shares = 0;
	for (size_t i = 0; i < k->n_groups; i++)
		shares += k->groups[i].share;
	assert_float_equal(shares, 1, 1e-9);
	ta_measurement_free(m);
	ta_records_clear(&r);
}

/* Two variants used in alternation are both real use, not tuning. */
static void test_alternating_variants(void **state)
{
	(void)state;
	ta_records r;
	ta_records_init(&r);
	for (int i = 0; i < 6; i++)
		launch(&r, "k", 0, i % 2 ? 256 : 128, 32, 64, 1000 + (uint64_t)i);
	ta_measurement *m = ta_measure_build(&r, NULL, NULL, 0, NULL);
	const ta_kernel_measure *k = ta_measure_find(m, "k");
	assert_int_equal(k->autotune_launches, 0);
	assert_int_equal(k->n_groups, 2);
	assert_int_equal(k->warmup_launches, 2);
	assert_int_equal(k->groups[k->main_group].cfg.block[0], 256);
	ta_measurement_free(m);
	ta_records_clear(&r);
}

/* Configs that differ in num_stages alone launch alike: the autotuner's
 * blocks run 4 warps, 8, 4 again, then 8, which wins and goes on. The 4-warp
 * blocks are tuning although the winner's block comes between them. */
static void test_tuning_blocks_apart_by_the_winner(void **state)
{
	(void)state;
	ta_records r;
	ta_records_init(&r);
	for (int c = 0; c < 4; c++)
		for (int i = 0; i < 8; i++)
			launch(&r, "k", 0, c % 2 ? 256 : 128, c % 2 ? 34 : 54, 64, 2000);
	for (int i = 0; i < 20; i++)
		launch(&r, "k", 0, 256, 34, 64, 1000 + (uint64_t)i);
	ta_measurement *m = ta_measure_build(&r, NULL, NULL, 0, NULL);
	const ta_kernel_measure *k = ta_measure_find(m, "k");
	assert_int_equal(k->autotune_launches, 16);
	assert_int_equal(k->groups[k->main_group].cfg.block[0], 256);
	ta_measurement_free(m);
	ta_records_clear(&r);
}

/* Long blocks of two shapes with a third between them (three modes timed
 * in turn, each with its own tuned config): the first shape's blocks are
 * not all tuning, since another config separates them, so they stay. */
static void test_long_blocks_apart_by_another_config(void **state)
{
	(void)state;
	ta_records r;
	ta_records_init(&r);
	int order[] = { 128, 512, 128, 256 };
	for (int b = 0; b < 4; b++)
		for (int i = 0; i < 10; i++)
			launch(&r, "k", 0, order[b], 32, 64, 1000 + (uint64_t)i);
	ta_measurement *m = ta_measure_build(&r, NULL, NULL, 0, NULL);
	const ta_kernel_measure *k = ta_measure_find(m, "k");
	/* 512's one block is tuning by the older rule; 128's are not. */
	assert_int_equal(k->autotune_launches, 10);
	ta_measurement_free(m);
	ta_records_clear(&r);
}

/* Replay of streams recorded on the H200 (tests/recordings/README.md). The
 * expected figures were computed independently from the raw lines (a few
 * lines of Python: same final-configuration and first-launch rules, numpy's
 * default percentiles) and agree with do_bench on that run within 1%. */
static ta_measurement *replay(const char *file, const char *kernel, ta_records *r)
{
	const char *src = getenv("TA_SRCDIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/recordings/%s", src ? src : ".", file);
	ta_records_init(r);
	char *err = NULL;
	if (ta_records_load_file(r, path, &err) != 0) {
		print_message("%s\n", err);
		free(err);
		fail();
	}
	assert_int_equal(r->n_malformed + r->n_truncated + r->n_overlong + r->n_unknown, 0);
	assert_int_equal(r->n_hello, 1);
	assert_int_equal(r->n_bye, 1);
	assert_true(r->dropped == 0 && r->lost == 0);
	ta_gpu_info g;
	ta_gpu_preset("h200", &g);
	const char *names[] = { kernel };
	return ta_measure_build(r, names, NULL, 1, &g);
}

static void test_replay_h200_matmul(void **state)
{
	(void)state;
	ta_records r;
	ta_measurement *m = replay("h200-2026-11-29-matmul.jsonl", "matmul_kernel", &r);
	assert_int_equal(r.n_kernels, 1567);
	assert_int_equal(r.written, 1569);
	const ta_kernel_measure *k = ta_measure_find(m, "matmul_kernel");
	assert_non_null(k);
	assert_int_equal(k->launches, 821);
	assert_int_equal(k->autotune_launches, 95);   /* two other configs: 51 + 44 */
	assert_int_equal(k->warmup_launches, 1);
	assert_int_equal(k->n_groups, 3);
	const ta_kernel_group *g = &k->groups[k->main_group];
	assert_int_equal(g->cfg.grid[0], 2048);
	assert_int_equal(g->cfg.block[0], 256);
	assert_int_equal(g->cfg.regs, 204);
	assert_int_equal(g->cfg.smem_dynamic, 147456);
	assert_int_equal(g->summary.count, 725);
	assert_float_equal(g->summary.median, 1886704, 1e-6);
	assert_float_equal(g->summary.q1, 1863984, 1e-6);
	assert_float_equal(g->summary.q3, 1912816, 1e-6);
	assert_float_equal(g->summary.p95, 2118734, 1e-6);
	assert_float_equal(g->summary.cv, 0.0644245913, 1e-8);
	/* the driver's occupancy API on this very kernel said 1 block/SM */
	assert_int_equal(g->occ.blocks_per_sm, 1);
	assert_int_equal(g->occ.limiter, TA_LIMIT_REGISTERS);
	assert_float_equal(g->occ.waves, 2048.0 / 132, 1e-9);
	assert_int_equal(m->other_launches, 746);
	ta_measurement_free(m);
	ta_records_clear(&r);
}

static void test_replay_h200_others(void **state)
{
	(void)state;
	static const struct {
		const char *file, *kernel;
		size_t launches, count;
		double median, q1, q3;
		int blocks;
	} want[] = {
		{ "h200-2026-11-29-vector-add.jsonl", "add_kernel", 516, 515, 370653, 369548.5, 371261, 16 },
		{ "h200-2026-11-29-softmax.jsonl", "softmax_kernel", 832, 831, 260670, 259806, 261214, 6 },
		{ "h200-2026-11-29-attention.jsonl", "attn_fwd", 482, 481, 760889, 751065, 763962, 2 },
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		ta_records r;
		ta_measurement *m = replay(want[i].file, want[i].kernel, &r);
		const ta_kernel_measure *k = ta_measure_find(m, want[i].kernel);
		assert_non_null(k);
		assert_int_equal(k->launches, want[i].launches);
		assert_int_equal(k->autotune_launches, 0);
		const ta_kernel_group *g = &k->groups[k->main_group];
		assert_int_equal(g->summary.count, want[i].count);
		assert_float_equal(g->summary.median, want[i].median, 1e-6);
		assert_float_equal(g->summary.q1, want[i].q1, 1e-6);
		assert_float_equal(g->summary.q3, want[i].q3, 1e-6);
		assert_int_equal(g->occ.blocks_per_sm, want[i].blocks);
		ta_measurement_free(m);
		ta_records_clear(&r);
	}
}

static void calls(ta_records *r, const char *name, int run, int block, int grid, uint64_t launches,
		  uint64_t traced, double period)
{
	ta_proto_calls c = { .name = name, .grid = { grid, 1, 1 }, .block = { block, 1, 1 },
			     .launches = launches, .traced = traced, .n_period = launches - 1,
			     .p25_ns = period * 0.9, .median_ns = period, .p75_ns = period * 1.1 };
	char line[1024];
	size_t n = ta_proto_encode_calls(line, sizeof line, 1, &c);
	assert_true(ta_proto_decode_line(r, line, n - 1, run));
}

/* Adaptive tracing: 101 GPU times recorded of 10,001 counted launches. The
 * counts come from the "calls" line, the median from the records, the GPU
 * total from both; the host period is the kernel's time per call. */
static void test_sampled_launches_and_period(void **state)
{
	(void)state;
	ta_records r;
	ta_records_init(&r);
	launch(&r, "tiny_add", 0, 128, 16, 4, 9000);   /* warm-up */
	for (int i = 0; i < 100; i++)
		launch(&r, "tiny_add", 0, 128, 16, 4, 2000 + (uint64_t)(i % 5));
	calls(&r, "tiny_add", 0, 128, 4, 10001, 101, 18000);
	/* a kernel without a calls line (an older stream) is as before */
	for (int i = 0; i < 10; i++)
		launch(&r, "other_kernel", 0, 256, 16, 8, 5000);
	ta_measurement *m = ta_measure_build(&r, NULL, NULL, 0, NULL);
	const ta_kernel_measure *k = ta_measure_find(m, "tiny_add");
	assert_non_null(k);
	assert_true(k->sampled);
	assert_int_equal(k->launches, 10001);
	assert_int_equal(k->warmup_launches, 1);
	const ta_kernel_group *g = &k->groups[k->main_group];
	assert_true(g->sampled);
	assert_int_equal(g->counted, 10001);
	assert_int_equal(g->n_durations, 100);
	assert_int_equal(g->steady, 10000);
	assert_int_equal(k->steady_calls, 10000);
	assert_float_equal(g->summary.median, 2002, 1e-9);
	assert_float_equal(k->steady_total_ns, 10000.0 * 2002, 1e-6);
	assert_int_equal(k->n_period, 10000);
	assert_float_equal(k->period_ns, 18000, 1e-9);
	assert_float_equal(g->period_q1_ns, 16200, 1e-9);
	const ta_kernel_measure *o = ta_measure_find(m, "other_kernel");
	assert_false(o->sampled);
	assert_int_equal(o->launches, 10);
	assert_int_equal(o->n_period, 0);
	assert_int_equal(o->steady_calls, 9);
	ta_measurement_free(m);
	ta_records_clear(&r);
}

/* Timed in full for its first launches, then sampled while it ran three
 * times slower: each sampled record weighs the launches it stands for, so
 * the shape's median and GPU time are those of its every launch, not of
 * the launches timed in full. */
static void test_sampled_weights(void **state)
{
	(void)state;
	ta_records r;
	ta_records_init(&r);
	launch(&r, "drift", 0, 128, 16, 4, 9000);   /* warm-up */
	for (int i = 0; i < 100; i++)
		launch(&r, "drift", 0, 128, 16, 4, 1000);
	for (int i = 0; i < 6; i++)
		launch_weighed(&r, "drift", 0, 128, 16, 4, 3000, 50);
	calls(&r, "drift", 0, 128, 4, 401, 107, 5000);
	/* an other kernel, sampled alike */
	for (int i = 0; i < 4; i++)
		launch(&r, "fill", 0, 128, 16, 64, 500);
	launch_weighed(&r, "fill", 0, 128, 16, 64, 900, 6);
	calls(&r, "fill", 0, 128, 64, 10, 5, 9000);
	const char *names[] = { "drift" };
	ta_measurement *m = ta_measure_build(&r, names, NULL, 1, NULL);
	const ta_kernel_measure *k = ta_measure_find(m, "drift");
	const ta_kernel_group *g = &k->groups[k->main_group];
	assert_int_equal(g->n_durations, 106);
	assert_non_null(g->weights);
	assert_int_equal(g->steady, 400);
	/* unweighed, the median would be the first launches' 1000 ns */
	assert_float_equal(g->summary.median, 3000, 1e-9);
	/* 100 launches of 1000 ns and 300 of 3000 ns */
	assert_float_equal(k->steady_total_ns, 100 * 1000.0 + 300 * 3000.0, 1e-6);
	/* fill: 4 x 500 + 6 x 900 over 10 launches, the 10 counted */
	assert_int_equal(m->others[0].launches, 10);
	assert_float_equal(m->others[0].total_ns, 4 * 500.0 + 6 * 900.0, 1e-6);
	ta_measurement_free(m);
	ta_records_clear(&r);
}

/* A kernel not in the file, sampled: its launches and GPU time follow the
 * count. */
static void test_sampled_other_kernel(void **state)
{
	(void)state;
	ta_records r;
	ta_records_init(&r);
	for (int i = 0; i < 10; i++)
		launch(&r, "fill", 0, 128, 16, 64, 5000);
	calls(&r, "fill", 0, 128, 64, 40, 10, 9000);
	launch(&r, "mine", 0, 128, 16, 4, 700);
	const char *names[] = { "mine" };
	ta_measurement *m = ta_measure_build(&r, names, NULL, 1, NULL);
	assert_int_equal(m->n_others, 1);
	assert_int_equal(m->others[0].launches, 40);
	assert_int_equal(m->other_launches, 40);
	assert_float_equal(m->others[0].total_ns, 40 * 5000.0, 1e-6);
	ta_measurement_free(m);
	ta_records_clear(&r);
}

/* Fully traced with a calls line: counts agree, nothing scaled; the period
 * pools two runs weighted by their counts; autotuning configs alike in
 * grid and block share the count. */
static void test_calls_full_and_pooled(void **state)
{
	(void)state;
	ta_records r;
	ta_records_init(&r);
	for (int run = 0; run < 2; run++) {
		for (int i = 0; i < 20; i++)
			launch(&r, "k", run, 128, 32, 8, 3000);
		calls(&r, "k", run, 128, 8, 20, 20, run ? 30000 : 10000);
	}
	ta_measurement *m = ta_measure_build(&r, NULL, NULL, 0, NULL);
	const ta_kernel_measure *k = ta_measure_find(m, "k");
	assert_false(k->sampled);
	assert_int_equal(k->launches, 40);
	assert_int_equal(k->n_period, 38);
	assert_float_equal(k->period_ns, 20000, 1e-6);
	ta_measurement_free(m);
	ta_records_clear(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sampled_launches_and_period),
		cmocka_unit_test(test_calls_full_and_pooled),
		cmocka_unit_test(test_sampled_other_kernel),
		cmocka_unit_test(test_sampled_weights),
		cmocka_unit_test(test_autotune_and_warmup),
		cmocka_unit_test(test_repeat_pooling_and_compare),
		cmocka_unit_test(test_size_sweep),
		cmocka_unit_test(test_alternating_variants),
		cmocka_unit_test(test_dominant_shape),
		cmocka_unit_test(test_tuning_blocks_apart_by_the_winner),
		cmocka_unit_test(test_long_blocks_apart_by_another_config),
		cmocka_unit_test(test_replay_h200_matmul),
		cmocka_unit_test(test_replay_h200_others),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
