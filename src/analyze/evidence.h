/* Measurements the checklist can use: what the profiler saw of each kernel
 * of the file, and of the device. Filled by the advise layer from the
 * profile stage (analyze does not depend on src/profile); the rules only
 * read it. A NULL ta_evidence means "no profile": profile-backed entries
 * then report `needs profile` (or `needs baseline`). */
#ifndef TA_ANALYZE_EVIDENCE_H
#define TA_ANALYZE_EVIDENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Steady-state figures of one kernel, matched to the model by name (the
 * CUPTI name of a Triton kernel is its Python function name). Zero means
 * "not measured" for every field unless noted. */
typedef struct ta_kernel_evidence {
	const char *name;          /* borrowed; owner is whoever fills the array */
	uint64_t launches;         /* steady-state launches counted */
	double median_ns;          /* median duration of those launches */
	uint32_t grid[3];          /* grid of the steady-state configuration */
	uint32_t block[3];         /* threads per block */
	uint32_t registers;        /* registers per thread */
	uint32_t local_bytes;      /* local memory per thread: > 0 means spills */
	uint32_t static_smem;      /* static shared memory per block, bytes */
	uint32_t dynamic_smem;     /* dynamic shared memory per block, bytes */
	double occupancy;          /* theoretical occupancy, 0..1 */
	const char *occupancy_limiter; /* "registers", "shared memory", "blocks", "warps"; borrowed */
	double waves;              /* blocks / (SMs x blocks per SM) */
	double baseline_ratio;     /* kernel time / baseline time; <= 0 when no baseline */
	bool has_sol;              /* --deep counters were read */
	double dram_pct, sm_pct;   /* throughput as % of the device's peak */
} ta_kernel_evidence;

typedef struct ta_evidence {
	const char *device;        /* e.g. "NVIDIA H200"; borrowed */
	uint32_t sm_count;
	double peak_bytes_per_s;   /* device memory bandwidth */
	double peak_flops;         /* dense fp16/bf16 tensor FLOP/s */
	bool has_baseline;         /* a --baseline command was measured */
	double baseline_ratio;     /* whole run / baseline run; <= 0 when none */
	const ta_kernel_evidence *kernels; /* borrowed */
	size_t kernel_count;
} ta_evidence;

/* The entry for a kernel name, or NULL (also when ev is NULL). */
static inline const ta_kernel_evidence *ta_evidence_find(const ta_evidence *ev, const char *name)
{
	if (!ev || !name)
		return NULL;
	for (size_t i = 0; i < ev->kernel_count; i++) {
		const char *a = ev->kernels[i].name, *b = name;
		while (a && *a && *a == *b)
			a++, b++;
		if (a && *a == '\0' && *b == '\0')
			return &ev->kernels[i];
	}
	return NULL;
}

#endif
