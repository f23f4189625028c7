/* Device facts from the NVIDIA driver (libcuda through dlopen: no link-time
 * CUDA dependency) and the theoretical occupancy of a launch configuration. */
#ifndef TA_PROFILE_GPU_H
#define TA_PROFILE_GPU_H

#include <stdbool.h>
#include <stddef.h>

typedef struct ta_gpu_info {
	char name[256];
	int cc_major, cc_minor;
	int sm_count;
	int clock_khz;                 /* SM clock (max) */
	int mem_clock_khz;
	int mem_bus_bits;
	double peak_dram_gbs;          /* 2 x memory clock x bus width / 8, GB/s */
	int l2_bytes;
	int regs_per_sm, regs_per_block;
	int smem_per_sm;               /* bytes usable by blocks on one SM */
	int smem_per_block;            /* default per-block limit (48 KiB) */
	int smem_per_block_optin;      /* with the opt-in attribute */
	int smem_reserved_per_block;   /* taken by the driver per block (sm_80+) */
	int max_threads_per_sm, max_threads_per_block;
	int max_blocks_per_sm;
	int warp_size;
	int reg_alloc_unit;            /* registers per warp are allocated in these */
	int smem_alloc_unit;           /* shared memory per block is allocated in these */
	int subpartitions;             /* warp schedulers per SM (register file split) */
	int driver_version;            /* e.g. 13000; 0 when unknown */
} ta_gpu_info;

/* Fills *info for device `ordinal` from libcuda. Returns 0, or -1 with *err
 * (caller frees) set to one line such as "libcuda.so.1 not found: no NVIDIA
 * driver on this machine" or "no CUDA device: cuInit failed with
 * CUDA_ERROR_NO_DEVICE". Never exits. */
int ta_gpu_query(int ordinal, ta_gpu_info *info, char **err);

/* Facts of a known part for tests and for machines without a GPU, from
 * public specifications: h200, h100, b200, a100, l40s, rtx4090 (any case);
 * false when unknown. Clocks are nominal figures, not readings. */
bool ta_gpu_preset(const char *name, ta_gpu_info *info);
/* The names ta_gpu_preset knows, for messages: "h200, h100, ...". */
const char *ta_gpu_preset_names(void);

/* Fills the per-architecture allocation rules (units, reserved memory,
 * block limit) from cc_major/cc_minor. Used by ta_gpu_query and tests. */
void ta_gpu_fill_arch_rules(ta_gpu_info *info);

typedef enum ta_limiter {
	TA_LIMIT_NONE,          /* nothing fits: the launch could not run */
	TA_LIMIT_THREADS,       /* warps per SM */
	TA_LIMIT_BLOCKS,        /* blocks per SM */
	TA_LIMIT_REGISTERS,
	TA_LIMIT_SHARED,
} ta_limiter;

const char *ta_limiter_name(ta_limiter l);

typedef struct ta_launch_shape {
	int block_threads;      /* blockX * blockY * blockZ */
	int regs_per_thread;
	int smem_static, smem_dynamic;   /* bytes per block */
	long long grid_blocks;  /* gridX * gridY * gridZ, for waves; 0 if unknown */
} ta_launch_shape;

typedef struct ta_occupancy {
	int blocks_per_sm;      /* min of the four limits below; 0 = cannot run */
	int limit_threads, limit_blocks, limit_regs, limit_smem;
	ta_limiter limiter;     /* ties go to threads, blocks, registers, shared memory in that order */
	int warps_per_sm;
	double occupancy;       /* active warps / max warps per SM, 0..1 */
	int regs_per_block_alloc, smem_per_block_alloc;
	double waves;           /* grid_blocks / (sm_count * blocks_per_sm); 0 if unknown */
} ta_occupancy;

/* Theoretical occupancy by the CUDA occupancy calculator's rules: warps per
 * block rounded up; registers allocated per warp in units of reg_alloc_unit
 * and split across subpartitions; shared memory per block = static +
 * dynamic + the driver's reserved bytes, rounded up to smem_alloc_unit,
 * against the largest carveout (the driver's default preference). A kernel
 * that used more than the default per-block shared memory must have opted
 * in, so the opt-in limit applies. */
ta_occupancy ta_gpu_occupancy(const ta_gpu_info *info, const ta_launch_shape *shape);

#endif
