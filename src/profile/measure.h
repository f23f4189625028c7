/* A measurement: the decoded launches of the file's own kernels grouped by
 * launch configuration, with the steady-state statistics of each group.
 *
 * Rules (per kernel, per run, launches in start order):
 *  - the final configuration is that of the run's last launch, and the
 *    final stretch the run's last launches that all have it;
 *  - for a kernel that may be autotuned: a configuration other than the
 *    final one whose launches form one unbroken block before the final
 *    stretch is autotuning (Triton benchmarks each config in turn): counted,
 *    set apart. Configurations that alternate with others are real use;
 *  - the first launch of each remaining configuration in each run is the
 *    warm-up (compile, cold caches): set apart when that configuration has
 *    more than one launch in the run;
 *  - the main group is the dominant shape: the steady configuration with
 *    the most GPU time in all (steady launches times median), the final
 *    configuration of the last run on a tie or when none is steady.
 * Limitation: for a kernel marked as possibly autotuned, a script that
 * benchmarks sizes one after the other looks like autotuning; pass
 * autotuned = false for kernels the file does not autotune. */
#ifndef TA_PROFILE_MEASURE_H
#define TA_PROFILE_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/gpu.h"
#include "profile/protocol.h"
#include "profile/stats.h"

typedef struct ta_launch_config {
	int32_t grid[3], block[3];
	uint32_t regs;
	int32_t smem_static, smem_dynamic;
	uint32_t local_per_thread;   /* > 0 with registers at the cap usually means spills */
} ta_launch_config;

typedef struct ta_kernel_group {
	ta_launch_config cfg;
	size_t launches;             /* all launches with this configuration */
	size_t warmup;               /* of which first-of-run launches set apart */
	size_t autotune;             /* of which autotuning launches set apart */
	double *durations_ns;        /* the steady-state launches (owned) */
	double *weights;             /* the launches each stands for (owned; with
					adaptive tracing a sampled launch stands for
					those left untraced before it); NULL: 1 each */
	size_t n_durations;
	ta_summary summary;          /* of durations_ns weighed by weights, in ns */
	size_t steady;               /* steady launches: n_durations, or counted less
					those set apart when sampled */
	double total_ns;             /* its GPU time: steady x fenced mean */
	double share;                /* total_ns / the kernel's steady_total_ns (0..1) */
	bool has_occupancy;          /* when device facts were given */
	ta_occupancy occ;
	double *tune_ns;             /* the autotuning launches set apart (owned) */
	size_t n_tune;
	ta_summary tune_summary;     /* of tune_ns, in ns */
	/* Positions in the kernel's launches sorted by (run, start): the first
	 * and last launch, the first steady one (SIZE_MAX: none). The autotune
	 * table orders configurations by them. */
	size_t first_seq, last_seq, steady_seq;
	/* From the launch callback ("calls" records), when the stream has
	 * them: every launch of the shape counted (with adaptive tracing only
	 * some have a GPU time: `launches` and the GPU total are then scaled
	 * to the counted launches), and the host period between a launch of
	 * this shape and the previous launch of the kernel: the time per call
	 * of the user's loop, wrapper and autotuner included. */
	uint64_t counted;            /* 0: not counted (older streams) */
	bool sampled;                /* fewer GPU times than counted launches */
	uint64_t n_period;           /* 0: no period */
	double period_ns, period_q1_ns, period_q3_ns;
} ta_kernel_group;

/* One row of an autotune table: a configuration the autotuner tried. */
typedef struct ta_autotune_row {
	char *config;                /* Triton's text of it ("BLOCK_M: 64, ..., num_warps: 4,
	                              * ..."); NULL when the run did not print it */
	int32_t grid[3], block[3];
	uint32_t regs;
	int32_t smem_static, smem_dynamic;
	size_t launches;             /* its tuning launches (the chosen one: its steady ones) */
	double median_ns;            /* of those launches; < 0: none */
	bool chosen;
	bool has_occupancy;
	double occupancy;            /* 0..1 */
	int blocks_per_sm;
	char limiter[16];
} ta_autotune_row;

/* Per autotuned kernel: every configuration tried, in the order it ran,
 * apart from the steady-state figures (profile/autotune.h builds it). */
typedef struct ta_autotune_table {
	char *key;                   /* the last key Triton printed; NULL: not known */
	double seconds;              /* tuning time printed, summed over keys; < 0: not known */
	size_t tunings;              /* "best config selected" blocks read for the kernel */
	size_t tried;                /* configs Triton says it benchmarked, over all keys;
					0: not known. Can exceed n_rows: configs that
					differ in num_stages alone launch alike */
	ta_autotune_row *rows;       /* owned; n_rows == 0: no table */
	size_t n_rows;
} ta_autotune_table;

typedef struct ta_kernel_measure {
	char *name;                  /* owned */
	size_t launches, autotune_launches, warmup_launches;
	ta_kernel_group *groups;     /* owned; steady groups first, by launches, then autotuning ones */
	size_t n_groups;
	size_t main_group;           /* index into groups (the dominant shape); valid when n_groups > 0 */
	/* The workload as the script ran it: every steady launch of every
	 * configuration, so a call of a small shape weighs what it costs. */
	double steady_total_ns;      /* GPU time of the steady launches (sum of total_ns) */
	size_t steady_calls;         /* their number; per call: total / calls, which
					is the median for a kernel of one shape */
	/* The steady launches of every configuration in time order, split into
	 * phases: the parts of the run (a mode, a size) that a long pause, or a
	 * new run, separates. Phases of fewer than 3 launches (a correctness
	 * check between two benchmarks) are left out. */
	double *steady_ns;           /* owned */
	double *steady_w;            /* the launches each stands for (owned); NULL: 1 each */
	size_t n_steady;
	size_t *phase_start;         /* owned; index into steady_ns of each phase */
	size_t n_phases;
	ta_autotune_table tune;      /* when it was autotuned (n_rows > 0) */
	/* The host period per call of the dominant shape (see the group's);
	 * n_period 0: not known. */
	uint64_t n_period;
	double period_ns;
	bool sampled;                /* some shape was only sampled (adaptive tracing) */
} ta_kernel_measure;

typedef struct ta_other_kernel {
	char *name;                  /* owned */
	size_t launches;
	double total_ns;
} ta_other_kernel;

typedef struct ta_measurement {
	ta_kernel_measure *kernels;  /* the file's kernels that launched, in first-launch order */
	size_t n_kernels;
	ta_other_kernel *others;     /* kernels not in the file (torch's own), most time first */
	size_t n_others;
	size_t other_launches;
	int runs;                    /* distinct run indices seen */
	/* from the records, for notes */
	size_t n_errors;
	uint64_t dropped, lost;
	size_t n_malformed, n_truncated, n_hello, n_bye;
	bool has_gpu;
	ta_gpu_info gpu;
} ta_measurement;

/* Builds the measurement from the records. kernel_names[n_names] are the
 * kernels the file defines; a launch matches when its name equals one, or
 * starts with one followed by an '_' and a Triton signature suffix
 * (digits first). With n_names == 0 every kernel counts as the file's own.
 * autotuned[n_names] says which of them the file autotunes (NULL: any may
 * be). gpu may be NULL (no occupancy then). Never NULL; free with
 * ta_measurement_free. */
ta_measurement *ta_measure_build(const ta_records *recs, const char *const *kernel_names,
				 const bool *autotuned, size_t n_names, const ta_gpu_info *gpu);
void ta_measurement_free(ta_measurement *m);

/* A launch name matches a file kernel name exactly, or as name + "_" + a
 * signature suffix that starts with a digit (older Triton: add_kernel_0d1d2d). */
bool ta_kernel_name_matches(const char *launch, const char *kname);

/* The kernel named `name`, or NULL. */
const ta_kernel_measure *ta_measure_find(const ta_measurement *m, const char *name);

/* Before/after of one kernel: phase by phase when both runs have the same
 * number of phases, else the steady durations of the main groups. */
typedef struct ta_kernel_comparison {
	const char *name;            /* points into `after` (or `before` when missing there) */
	bool in_before, in_after;
	bool same_config;            /* main groups with the same launch configuration */
	bool by_phase;               /* compared phase by phase (cmp.phases of them) */
	double before_median_ns, after_median_ns;
	ta_comparison cmp;
} ta_kernel_comparison;

/* Compares every kernel found in either measurement. Returns the count and
 * sets *out (caller frees the array; names point into the measurements). */
size_t ta_measure_compare(const ta_measurement *before, const ta_measurement *after,
			  ta_kernel_comparison **out);

/* The phases of a time-ordered sample of steady launches (durations, start
 * and end times, run index): a new phase starts with a new run or after a
 * pause of more than 50 times the median pause (at least 10 ms), or with a
 * change of cfg (each launch's configuration, NULL: not known) when every
 * piece that leaves has at least 3 launches; phases of fewer than 3
 * launches are dropped; when every run (--repeat) has the same number of
 * phases, phase k pools the k-th of each run. Fills *steady (the kept
 * durations), *steady_w (their weights w, NULL when w is NULL or all 1) and
 * *starts (caller frees them); returns the number of phases. */
size_t ta_measure_phases(const double *dur, const double *w, const uint64_t *start, const uint64_t *end,
			 const int *run, const size_t *cfg, size_t n, double **steady, double **steady_w,
			 size_t *n_steady, size_t **starts);

#endif
