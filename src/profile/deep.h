/* What --deep found, per kernel of the user's file: stall samples by source
 * line (hot spots) and the speed-of-light counters of its steady launches
 * (how close it runs to the DRAM and SM ceilings, and which one bounds it).
 * Built from the records of the pc and sol runs (profile/protocol.h). */
#ifndef TA_PROFILE_DEEP_H
#define TA_PROFILE_DEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/measure.h"
#include "profile/protocol.h"

#define TA_HOT_REASONS 3

/* One source line of the user's file with stall samples. */
typedef struct ta_hot_line {
	uint32_t line;
	uint64_t samples;
	double share;                      /* of the kernel's samples on known lines, 0..1 */
	const char *reason[TA_HOT_REASONS]; /* short CUPTI names, most first (point into
					     * the records); NULL past the last */
	uint64_t reason_samples[TA_HOT_REASONS];
} ta_hot_line;

typedef enum ta_bound {
	TA_BOUND_UNKNOWN,
	TA_BOUND_MEMORY,                   /* DRAM throughput is the higher, and high */
	TA_BOUND_COMPUTE,                  /* SM throughput is the higher, and high */
	TA_BOUND_LATENCY,                  /* neither near its ceiling */
	TA_BOUND_BALANCED,                 /* both fairly high */
} ta_bound;

typedef struct ta_sol {
	size_t launches;                   /* profiled launches the figures are medians of */
	bool main_config;                  /* they have the steady configuration's grid */
	size_t passes;
	double duration_ns;
	double dram_pct, sm_pct;           /* throughput, % of peak */
	double occupancy_pct;              /* achieved */
	double l2_pct;                     /* < 0: not measured */
	double tensor_pct;                 /* tensor pipe busy; < 0: not measured */
	double dram_bytes, bandwidth, peak_bandwidth;    /* bytes, bytes/s; peak < 0: unknown */
	double tensor_ops_pct;             /* tensor operations vs their peak; < 0: unknown */
	ta_bound bound;
} ta_sol;

typedef struct ta_deep_kernel {
	const char *name;                  /* points into the records */
	uint64_t samples;                  /* all of its stall samples */
	uint64_t on_lines;                 /* of which on lines of the user's file */
	uint64_t elsewhere;                /* on lines of other files (Triton's own) */
	const char *elsewhere_file;        /* the other file with the most; NULL: none */
	uint64_t unattributed;             /* no line information */
	ta_hot_line *lines;                /* owned, by line number */
	size_t n_lines;
	bool has_sol;
	ta_sol sol;
} ta_deep_kernel;

typedef struct ta_deep {
	ta_deep_kernel *kernels;           /* owned, in the order of kernel_names */
	size_t n_kernels;
	bool has_pc, has_sol;
	uint64_t pc_samples, pc_dropped;
	uint32_t pc_period;                /* 2^period cycles between samples; 0: unknown */
	bool pc_hw_full;
	/* Wall time of each deep run over the timed run's; < 0: unknown. */
	double pc_overhead, sol_overhead;
} ta_deep;

/* Builds the view. file is the kernel file (its lines are matched by real
 * path, or by name when the recorded path does not exist here: a replay);
 * names[n] the file's kernels (n == 0: every kernel in the records); m
 * (may be NULL) gives each kernel's steady configuration, to prefer the
 * counters of launches with that grid. Returns NULL when the records hold
 * no deep data. Free with ta_deep_free. */
ta_deep *ta_deep_build(const ta_records *recs, const char *file, const char *const *names,
		       size_t n, const ta_measurement *m);
void ta_deep_free(ta_deep *d);

const ta_deep_kernel *ta_deep_find(const ta_deep *d, const char *name);

/* A stall reason in words ("waiting for global memory"); the short name
 * itself when unknown. Static string or name. */
const char *ta_stall_words(const char *reason);
const char *ta_bound_name(ta_bound b);


#endif
