/* Occupancy by the CUDA occupancy calculator's rules, with H200 facts.
 * Expected values worked out by hand (see each row's comment); the GPU
 * script (tests/gpu) checks the same rules against CUDA's occupancy API. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profile/gpu.h"

typedef struct row {
	int threads, regs, smem_static, smem_dynamic;
	int blocks;
	ta_limiter limiter;
	double occupancy;
} row;

/* H200: 64 warps/SM, 32 blocks/SM, 65536 regs/SM in 4 subpartitions (16384
 * each), registers per warp rounded up to 256, 228 KiB shared per SM, 1 KiB
 * reserved per block, 128-byte shared allocation unit, 227 KiB opt-in. */
static const row rows[] = {
	/* 8 warps: 64/8 = 8; 32 regs -> 1024/warp -> 16 warps/sub -> 64 -> 8. Tie: threads. */
	{ 256, 32, 0, 0, 8, TA_LIMIT_THREADS, 1.0 },
	/* 4 warps; 128 regs -> 4096/warp -> 4/sub -> 16 warps -> 4 blocks */
	{ 128, 128, 0, 0, 4, TA_LIMIT_REGISTERS, 0.25 },
	/* 255 regs -> 8160 -> 8192/warp -> 2/sub -> 8 warps -> 2 blocks */
	{ 128, 255, 0, 0, 2, TA_LIMIT_REGISTERS, 0.125 },
	/* 40 regs -> 12 blocks; smem 64 KiB + 1 KiB = 66560 -> 233472/66560 = 3 */
	{ 128, 40, 0, 65536, 3, TA_LIMIT_SHARED, 0.1875 },
	/* 32 warps; 64 regs -> 2048/warp -> 8/sub -> 32 warps -> 1 block */
	{ 1024, 64, 0, 0, 1, TA_LIMIT_REGISTERS, 0.5 },
	/* 65 regs -> 2080 -> 2304/warp x 32 warps = 73728 > 65536/block: cannot run */
	{ 1024, 65, 0, 0, 0, TA_LIMIT_NONE, 0.0 },
	/* 1 warp: 64 by threads, 32 by blocks, 128 by registers */
	{ 32, 16, 0, 0, 32, TA_LIMIT_BLOCKS, 0.5 },
	/* 3 warps; 168 regs -> 5376/warp -> 3/sub -> 12 warps -> 4 blocks */
	{ 96, 168, 0, 0, 4, TA_LIMIT_REGISTERS, 0.1875 },
	/* static 48 KiB + 1 KiB = 50176 -> 4 blocks (5 would need 250880) */
	{ 256, 32, 49152, 0, 4, TA_LIMIT_SHARED, 0.5 },
	/* 227 KiB opt-in + 1 KiB = the whole 228 KiB: 1 block */
	{ 128, 32, 0, 232448, 1, TA_LIMIT_SHARED, 0.0625 },
	/* one byte more does not fit per block */
	{ 128, 32, 0, 232449, 0, TA_LIMIT_NONE, 0.0 },
	/* more threads than a block may have */
	{ 2048, 16, 0, 0, 0, TA_LIMIT_NONE, 0.0 },
	/* Triton matmul-like: 8 warps, 128 regs -> 2 blocks; 96 KiB + 1 KiB -> 2. Tie: registers. */
	{ 256, 128, 0, 98304, 2, TA_LIMIT_REGISTERS, 0.25 },
	/* 20 warps: 64/20 = 3 by threads; 32 regs -> 64 warps -> 3 */
	{ 640, 32, 0, 0, 3, TA_LIMIT_THREADS, 0.9375 },
	/* 5 warps, 200 regs -> 6400/warp -> 2/sub -> 8 warps -> 1 block */
	{ 160, 200, 0, 0, 1, TA_LIMIT_REGISTERS, 0.078125 },
	/* 12 warps, 80 regs -> 2560/warp -> 6/sub -> 24 warps -> 2 blocks */
	{ 384, 80, 0, 0, 2, TA_LIMIT_REGISTERS, 0.375 },
	/* 100 threads round up to 4 warps: 16 by threads */
	{ 100, 32, 0, 0, 16, TA_LIMIT_THREADS, 1.0 },
};

static void test_h200_table(void **state)
{
	(void)state;
	ta_gpu_info g;
	assert_true(ta_gpu_preset("h200", &g));
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const row *r = &rows[i];
		ta_launch_shape s = { r->threads, r->regs, r->smem_static, r->smem_dynamic, 0 };
		ta_occupancy o = ta_gpu_occupancy(&g, &s);
		print_message("row %zu: %d threads %d regs %d+%d smem -> %d blocks (%s), %.4f\n", i,
			      r->threads, r->regs, r->smem_static, r->smem_dynamic, o.blocks_per_sm,
			      ta_limiter_name(o.limiter), o.occupancy);
		assert_int_equal(o.blocks_per_sm, r->blocks);
		assert_int_equal(o.limiter, r->limiter);
		assert_float_equal(o.occupancy, r->occupancy, 1e-12);
	}
}

static void test_waves_and_names(void **state)
{
	(void)state;
	ta_gpu_info g;
	assert_true(ta_gpu_preset("h200", &g));
	ta_launch_shape s = { 256, 128, 0, 98304, 1024 };
	ta_occupancy o = ta_gpu_occupancy(&g, &s);
	assert_float_equal(o.waves, 1024.0 / (132 * 2), 1e-12);
	assert_int_equal(o.smem_per_block_alloc, 99328);
	assert_int_equal(o.regs_per_block_alloc, 4096 * 8);
	assert_string_equal(ta_limiter_name(TA_LIMIT_SHARED), "shared memory");
	assert_false(ta_gpu_preset("tpu", &g));
	/* peak DRAM: 2 x 3761 MHz x 5120 bits / 8 = 4814.08 GB/s (the H200's
	 * driver gave 4814.3 from its own clock figure) */
	assert_true(ta_gpu_preset("h200", &g));
	assert_float_equal(g.peak_dram_gbs, 2.0 * 3761e6 * 640 / 1e9, 1e-6);
}

/* The presets from public specifications (issue 30): each part's limits
 * decide occupancy as its compute capability does. */
static void test_presets(void **state)
{
	(void)state;
	ta_gpu_info g;
	/* A100, sm_80: 164 KiB per SM; 96 KiB + 1 KiB blocks: 1 fits (2 need 198656) */
	assert_true(ta_gpu_preset("a100", &g));
	assert_int_equal(g.sm_count, 108);
	assert_int_equal(g.max_blocks_per_sm, 32);
	ta_launch_shape s = { 256, 32, 0, 98304, 0 };
	assert_int_equal(ta_gpu_occupancy(&g, &s).blocks_per_sm, 1);
	assert_float_equal(g.peak_dram_gbs, 2.0 * 1593e6 * 640 / 1e9, 1e-6);   /* 2039 GB/s */
	/* L40S and RTX 4090, sm_89: 1536 threads and 24 blocks per SM */
	const char *ada[] = { "l40s", "RTX4090" };
	for (size_t i = 0; i < 2; i++) {
		assert_true(ta_gpu_preset(ada[i], &g));
		assert_int_equal(g.cc_major * 10 + g.cc_minor, 89);
		assert_int_equal(g.max_blocks_per_sm, 24);
		ta_launch_shape t = { 64, 16, 0, 0, 0 };   /* 2 warps: 24 blocks by the block limit */
		ta_occupancy o = ta_gpu_occupancy(&g, &t);
		assert_int_equal(o.blocks_per_sm, 24);
		assert_float_equal(o.occupancy, 48.0 / 48.0, 1e-12);
	}
	/* B200, sm_100: 148 SMs, Hopper's per-SM limits */
	assert_true(ta_gpu_preset("b200", &g));
	assert_int_equal(g.sm_count, 148);
	assert_int_equal(g.smem_per_block_optin, 227 * 1024);
	assert_true(ta_gpu_preset("h100", &g));
	assert_false(ta_gpu_preset("v100", &g));
	assert_string_equal(ta_gpu_preset_names(), "h200, h100, b200, a100, l40s, rtx4090");
}

/* No libcuda here (CI): a clear one-line reason, never a crash. When a
 * driver exists the query must succeed. */
static void test_query_without_gpu(void **state)
{
	(void)state;
	ta_gpu_info g;
	char *err = NULL;
	if (ta_gpu_query(0, &g, &err) == 0) {
		assert_true(g.sm_count > 0);
		assert_null(err);
	} else {
		assert_non_null(err);
		assert_null(strchr(err, '\n'));
		print_message("no GPU: %s\n", err);
		free(err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_h200_table),
		cmocka_unit_test(test_waves_and_names),
		cmocka_unit_test(test_presets),
		cmocka_unit_test(test_query_without_gpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
