/* Triton's autotuning report (parser) and the autotune table. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profile/autotune.h"

static void feed(ta_autotune_log *l, const char *text)
{
	ta_autotune_log_text(l, text, strlen(text));
	ta_autotune_log_finish(l);
}

/* The Triton >= 3.3 format, two kernels, the per-config lines. */
static void test_parse_new_format(void **state)
{
	(void)state;
	ta_autotune_log l;
	ta_autotune_log_init(&l);
	feed(&l, "step 1\n"
	     "Autotuning kernel matmul_kernel with config BLOCK_M: 128, num_warps: 8, num_ctas: 1, num_stages: 3, maxnreg: None\n"
	     "Autotuning kernel matmul_kernel with config BLOCK_M: 64, num_warps: 4, num_ctas: 1, num_stages: 4, maxnreg: None\n"
	     "Autotuning failed with out of resource: shared memory\n"
	     "Autotuning kernel matmul_kernel with config BLOCK_M: 32, num_warps: 2, num_ctas: 1, num_stages: 2, maxnreg: None\n"
	     "Triton autotuning for function matmul_kernel,\n"
	     "with key as (8192, 8192, 'torch.float16'),\n"
	     "finished after 1.25s,\n"
	     "best config selected: BLOCK_M: 128, num_warps: 8, num_ctas: 1, num_stages: 3, maxnreg: None;\n"
	     "Triton autotuning for function add_kernel,\r\n"
	     "with key as (1024,),\r\n"
	     "finished after 0.02s,\r\n"
	     "best config selected: BLOCK: 1024, EVEN: True, num_warps: 4, num_ctas: 1, num_stages: 3, maxnreg: None, ir_override: None;\r\n");
	assert_int_equal(l.n_blocks, 2);
	assert_int_equal(l.n_truncated, 0);
	const ta_tune_block *b = &l.blocks[0];
	assert_string_equal(b->kernel, "matmul_kernel");
	assert_string_equal(b->key, "(8192, 8192, 'torch.float16')");
	assert_true(b->seconds > 1.24 && b->seconds < 1.26);
	assert_int_equal(b->best.num_warps, 8);
	assert_int_equal(b->best.num_stages, 3);
	assert_string_equal(ta_tune_config_get(&b->best, "BLOCK_M"), "128");
	assert_string_equal(ta_tune_config_get(&b->best, "maxnreg"), "None");
	assert_int_equal(b->n_tried, 3);
	assert_false(b->tried[0].failed);
	assert_true(b->tried[1].failed);
	assert_int_equal(b->tried[2].num_warps, 2);
	b = &l.blocks[1];
	assert_string_equal(b->kernel, "add_kernel");
	assert_string_equal(b->key, "(1024,)");
	assert_int_equal(b->n_tried, 0);
	assert_string_equal(ta_tune_config_get(&b->best, "EVEN"), "True");
	assert_string_equal(ta_tune_config_get(&b->best, "ir_override"), "None");
	char *s = ta_autotune_short_config(b->best.text);
	assert_string_equal(s, "BLOCK: 1024, EVEN: True, num_warps: 4, num_stages: 3");
	free(s);
	ta_autotune_log_clear(&l);
}

/* Triton 3.0-3.2: one line, no key; values with commas. */
static void test_parse_old_format(void **state)
{
	(void)state;
	ta_autotune_log l;
	ta_autotune_log_init(&l);
	feed(&l, "Triton autotuning for function k finished after 0.50s; best config selected: "
	     "SHAPE: (16, 32), num_warps: 4, num_ctas: 1, num_stages: 2, maxnreg: None;\n");
	assert_int_equal(l.n_blocks, 1);
	assert_null(l.blocks[0].key);
	assert_true(l.blocks[0].seconds > 0.49 && l.blocks[0].seconds < 0.51);
	assert_string_equal(ta_tune_config_get(&l.blocks[0].best, "SHAPE"), "(16, 32)");
	assert_int_equal(l.blocks[0].best.num_warps, 4);
	ta_autotune_log_clear(&l);
}

/* Other output between the lines of a block, a second key, then a block
 * cut short by a new one and one cut by the end of the output. */
static void test_parse_interleaved_and_truncated(void **state)
{
	(void)state;
	ta_autotune_log l;
	ta_autotune_log_init(&l);
	feed(&l, "Triton autotuning for function k,\n"
	     "UserWarning: something\n"
	     "with key as (1,),\n"
	     "[rank0] progress 10%\n"
	     "finished after 0.10s,\n"
	     "noise best config selected: B: 1, num_warps: 1, num_ctas: 1, num_stages: 1, maxnreg: None;\n"
	     "Triton autotuning for function k,\n"
	     "with key as (2,),\n"
	     "finished after 0.20s,\n"
	     "best config selected: B: 2, num_warps: 2, num_ctas: 1, num_stages: 1, maxnreg: None;\n"
	     "Triton autotuning for function k,\n"
	     "with key as (3,),\n"
	     "Triton autotuning for function j,\n"
	     "with key as (4,),\n"
	     "finished after");
	assert_int_equal(l.n_blocks, 2);
	assert_int_equal(l.n_truncated, 2);
	assert_string_equal(l.blocks[0].key, "(1,)");
	assert_int_equal(l.blocks[0].best.num_warps, 1);
	assert_string_equal(l.blocks[1].key, "(2,)");
	assert_int_equal(l.blocks[1].best.num_warps, 2);
	ta_autotune_log_clear(&l);

	/* A fresh log after the cut ones reads a whole block. */
	const char *text = "Triton autotuning for function k,\nwith key as (5,),\nfinished after 0.30s,\n"
			   "best config selected: B: 5, num_warps: 8, num_ctas: 1, num_stages: 1, maxnreg: None;\n";
	ta_autotune_log_init(&l);
	feed(&l, text);
	assert_int_equal(l.n_blocks, 1);
	assert_int_equal(l.blocks[0].best.num_warps, 8);
	ta_autotune_log_clear(&l);
}

static uint64_t clock_ns;

static void launch(ta_records *r, const char *name, int block, uint32_t regs, uint64_t dur)
{
	char line[1024];
	ta_proto_kernel k;
	memset(&k, 0, sizeof k);
	k.name = name;
	k.start_ns = clock_ns;
	k.end_ns = clock_ns + dur;
	clock_ns += dur + 1000;
	k.grid[0] = 64;
	k.grid[1] = k.grid[2] = 1;
	k.block[0] = block;
	k.block[1] = k.block[2] = 1;
	k.regs = regs;
	size_t n = ta_proto_encode_kernel(line, sizeof line, 1, &k);
	assert_true(ta_proto_decode_line(r, line, n - 1, 0));
}

/* Three configs tried, the chosen one (the first) benchmarked first: the
 * table keeps the order they ran in and marks the printed choice. */
static void test_table_synthetic(void **state)
{
	(void)state;
	ta_records r;
	ta_records_init(&r);
	for (int i = 0; i < 6; i++)
		launch(&r, "k", 256, 90, 1000);
	for (int i = 0; i < 6; i++)
		launch(&r, "k", 128, 60, 3000 + (uint64_t)i);
	for (int i = 0; i < 6; i++)
		launch(&r, "k", 64, 40, 5000 + (uint64_t)i);
	for (int i = 0; i < 10; i++)
		launch(&r, "k", 256, 90, 1100);
	const char *names[] = { "k" };
	ta_measurement *m = ta_measure_build(&r, names, NULL, 1, NULL);
	const ta_autotune_table *t = &m->kernels[0].tune;
	/* Without a report: the steady state is the chosen one. */
	assert_int_equal(t->n_rows, 3);
	assert_int_equal(t->tunings, 0);
	assert_true(t->rows[0].chosen && !t->rows[1].chosen && !t->rows[2].chosen);
	assert_int_equal(t->rows[1].block[0], 128);
	assert_int_equal(t->rows[1].launches, 6);
	assert_true(t->rows[1].median_ns > 3001 && t->rows[1].median_ns < 3004);
	assert_null(t->rows[0].config);

	ta_autotune_log l;
	ta_autotune_log_init(&l);
	feed(&l, "Autotuning kernel k with config B: 3, num_warps: 8, num_ctas: 1, num_stages: 1, maxnreg: None\n"
	     "Autotuning kernel k with config B: 2, num_warps: 4, num_ctas: 1, num_stages: 1, maxnreg: None\n"
	     "Autotuning kernel k with config B: 1, num_warps: 2, num_ctas: 1, num_stages: 1, maxnreg: None\n"
	     "Triton autotuning for function k,\nwith key as (7,),\nfinished after 0.01s,\n"
	     "best config selected: B: 3, num_warps: 8, num_ctas: 1, num_stages: 1, maxnreg: None;\n");
	ta_autotune_attach(m, &l);
	assert_int_equal(t->n_rows, 3);
	assert_int_equal(t->tunings, 1);
	assert_string_equal(t->key, "(7,)");
	assert_true(t->rows[0].chosen);
	assert_int_equal(t->rows[0].launches, 15);   /* 16 steady-state launches, the first a warm-up */
	assert_non_null(t->rows[2].config);
	assert_true(strstr(t->rows[2].config, "B: 1,") == t->rows[2].config);
	assert_true(strstr(t->rows[1].config, "num_warps: 4") != NULL);
	ta_autotune_log_clear(&l);

	/* A printed choice with other warps than any steady group maps to none. */
	ta_autotune_log_init(&l);
	feed(&l, "Triton autotuning for function k,\nwith key as (7,),\nfinished after 0.01s,\n"
	     "best config selected: B: 9, num_warps: 16, num_ctas: 1, num_stages: 1, maxnreg: None;\n");
	ta_autotune_attach(m, &l);
	for (size_t i = 0; i < t->n_rows; i++)
		assert_false(t->rows[i].chosen);
	ta_autotune_log_clear(&l);
	ta_measurement_free(m);
	ta_records_clear(&r);
}

/* Two keys (two sizes), each tuned then used: each printed choice maps to
 * the steady group that follows its tuning. */
static void test_table_two_keys(void **state)
{
	(void)state;
	ta_records r;
	ta_records_init(&r);
	clock_ns = 0;
	for (int key = 0; key < 2; key++) {
		uint32_t regs = key ? 100 : 50;    /* each size its own kernels */
		for (int i = 0; i < 5; i++)
			launch(&r, "k", 128, regs, 4000);
		for (int i = 0; i < 5; i++)
			launch(&r, "k", 256, regs, 2000);
		for (int i = 0; i < 8; i++)
			launch(&r, "k", key ? 128 : 256, regs, key ? 3000 : 2000);
	}
	const char *names[] = { "k" };
	ta_measurement *m = ta_measure_build(&r, names, NULL, 1, NULL);
	ta_autotune_log l;
	ta_autotune_log_init(&l);
	feed(&l, "Triton autotuning for function k,\nwith key as (1,),\nfinished after 0.01s,\n"
	     "best config selected: B: 1, num_warps: 8, num_ctas: 1, num_stages: 1, maxnreg: None;\n"
	     "Triton autotuning for function k,\nwith key as (2,),\nfinished after 0.02s,\n"
	     "best config selected: B: 2, num_warps: 4, num_ctas: 1, num_stages: 1, maxnreg: None;\n");
	ta_autotune_attach(m, &l);
	const ta_autotune_table *t = &m->kernels[0].tune;
	assert_int_equal(t->tunings, 2);
	assert_string_equal(t->key, "(2,)");
	assert_true(t->seconds > 0.029 && t->seconds < 0.031);
	size_t chosen = 0;
	for (size_t i = 0; i < t->n_rows; i++) {
		if (!t->rows[i].chosen)
			continue;
		chosen++;
		/* The second size's choice: 128 threads, its steady launches. */
		assert_int_equal(t->rows[i].block[0], 128);
		assert_int_equal(t->rows[i].regs, 100);
	}
	/* The first size's steady launches look like tuning to the grouping
	 * (an unbroken block before the final stretch): no steady group is
	 * left for its choice. The second maps. */
	assert_int_equal(chosen, 1);
	ta_autotune_log_clear(&l);
	ta_measurement_free(m);
	ta_records_clear(&r);
}

/* The H200 run of the attention example (tests/recordings), with the report
 * Triton 3.6 prints for it (a synthetic log: the run did not keep its
 * output). Figures checked against the raw stream with Python. */
static void test_table_h200_attention(void **state)
{
	(void)state;
	const char *src = getenv("TA_SRCDIR");
	char path[4096], logp[4096];
	snprintf(path, sizeof path, "%s/tests/recordings/h200-2026-11-29-example-attention.jsonl", src ? src : ".");
	snprintf(logp, sizeof logp, "%s/tests/recordings/h200-2026-11-29-example-attention.autotune.log",
		 src ? src : ".");
	ta_records r;
	ta_records_init(&r);
	char *err = NULL;
	assert_int_equal(ta_records_load_file(&r, path, &err), 0);
	ta_gpu_info g;
	ta_gpu_preset("h200", &g);
	const char *names[] = { "gemma_attn_fwd" };
	ta_measurement *m = ta_measure_build(&r, names, NULL, 1, &g);
	FILE *f = fopen(logp, "r");
	assert_non_null(f);
	char buf[8192];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	ta_autotune_log l;
	ta_autotune_log_init(&l);
	ta_autotune_log_text(&l, buf, n);
	ta_autotune_log_finish(&l);
	assert_int_equal(l.n_blocks, 1);
	ta_autotune_attach(m, &l);
	const ta_autotune_table *t = &m->kernels[0].tune;
	assert_int_equal(t->n_rows, 3);
	/* In the order benchmarked: 128x64 (8 warps, 142 regs), 128x128
	 * (8 warps, 220 regs), then 64x64 (4 warps), chosen. */
	assert_int_equal(t->rows[0].regs, 142);
	assert_int_equal(t->rows[0].launches, 46);
	assert_true(t->rows[0].median_ns == 2159916.0);
	assert_int_equal(t->rows[0].smem_dynamic, 131128);
	assert_int_equal(t->rows[1].regs, 220);
	assert_int_equal(t->rows[1].launches, 61);
	assert_true(t->rows[1].median_ns == 2158235.0);
	assert_true(t->rows[2].chosen && !t->rows[0].chosen && !t->rows[1].chosen);
	assert_int_equal(t->rows[2].block[0], 128);
	assert_int_equal(t->rows[2].grid[0], 64);
	assert_int_equal(t->rows[2].launches, 284);
	assert_true(t->rows[2].median_ns > 1932204 && t->rows[2].median_ns < 1932206);
	assert_true(strstr(t->rows[0].config, "BLOCK_M: 128, BLOCK_N: 64, num_warps: 8") == t->rows[0].config);
	assert_true(strstr(t->rows[2].config, "BLOCK_M: 64, BLOCK_N: 64, num_warps: 4") == t->rows[2].config);
	assert_true(t->rows[1].has_occupancy);
	assert_string_equal(t->rows[1].limiter, "registers");
	assert_string_equal(t->rows[2].limiter, "shared memory");
	ta_autotune_log_clear(&l);
	ta_measurement_free(m);
	ta_records_clear(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_new_format),
		cmocka_unit_test(test_parse_old_format),
		cmocka_unit_test(test_parse_interleaved_and_truncated),
		cmocka_unit_test(test_table_synthetic),
		cmocka_unit_test(test_table_two_keys),
		cmocka_unit_test(test_table_h200_attention),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
