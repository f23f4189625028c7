/* The injector's book of launch shapes (libc only, so that it is unit-tested
 * apart from CUPTI): per shape (kernel name, grid, block, dynamic shared
 * memory) it counts launches from the launch callback, keeps the host time
 * between successive launches of the same kernel (the period of the user's
 * calls, wrapper and autotuner included), and decides, launch by launch,
 * whether CUPTI should record that launch's GPU time.
 *
 * Adaptive tracing: a shape is traced in full for its first
 * TA_ADAPT_FULL_LAUNCHES launches (while the run's traced total is under
 * TA_ADAPT_FULL_TOTAL), and after that until the 95% interval of the
 * median of its GPU times is within +-half_width of the median over at
 * least min_samples launches; from then on only one launch per sample_ns of
 * host time is traced (so its figures keep following the run), and it goes
 * back to full tracing when that interval widens again. A shape never seen
 * is traced in full. Not thread-safe: the caller holds a lock. */
#ifndef TA_INJECT_ADAPT_H
#define TA_INJECT_ADAPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TA_ADAPT_RING 2048          /* GPU times kept per shape (most recent) */
/* A shape's first launches are timed in full, settled or not, while the
 * run has timed fewer than TA_ADAPT_FULL_TOTAL in all: a script's modes that
 * launch one shape in turn (a full attention pass, then a causal one) are
 * enqueued far ahead of the GPU, so their records come too late to unsettle
 * the shape, and sampled by host time each later mode would be timed a few
 * times against the first mode's settling launches, which would then stand
 * for the shape's every launch. */
#define TA_ADAPT_FULL_LAUNCHES 4096
#define TA_ADAPT_FULL_TOTAL 65536
#define TA_ADAPT_MAX_SHAPES 1024
#define TA_ADAPT_SLOTS 4096          /* hash slots, a power of two > 2 x shapes */
/* Host periods are counted in bins 1% wide from 64 ns up (about 20 min). */
#define TA_PERIOD_BINS 2400
#define TA_PERIOD_MIN_NS 64.0
#define TA_PERIOD_STEP 1.01
/* Pending weights of sampled launches by correlation id (a power of two):
 * one entry per launch that stands for others, held until its record comes. */
#define TA_ADAPT_WEIGHT_SLOTS 8192

typedef struct ta_adapt_config {
	bool adaptive;               /* false: trace every launch (still count them) */
	size_t min_samples;          /* 30 */
	double half_width;           /* 0.01: the interval within +-1% of the median */
	uint64_t sample_ns;          /* a converged shape: one traced launch per this */
} ta_adapt_config;

void ta_adapt_config_default(ta_adapt_config *c);

typedef struct ta_adapt_shape {
	char *name;                  /* owned */
	const void *func;            /* the driver's function handle */
	int32_t grid[3], block[3];
	int32_t smem_dynamic;
	uint64_t launches;           /* seen by the callback */
	uint64_t traced;             /* of which launched while tracing was asked for */
	uint64_t samples;            /* GPU times received (records) */
	uint64_t last_traced_ns;
	uint64_t untraced;           /* launches not traced since the last traced one */
	bool converged;
	size_t kernel;               /* index into the kernels (by name) */
	double *ring;                /* TA_ADAPT_RING GPU times (owned), after the first */
	size_t n_ring, ring_next;
	bool dirty;                  /* new samples since the last decision */
	uint32_t *period;            /* TA_PERIOD_BINS counts (owned, lazily) */
	uint64_t n_period;
} ta_adapt_shape;

typedef struct ta_adapt_kernel {
	char *name;                  /* owned */
	uint64_t last_ns;            /* host time of its last launch; 0: none yet */
} ta_adapt_kernel;

typedef struct ta_adapt {
	ta_adapt_config cfg;
	ta_adapt_shape *shapes;      /* TA_ADAPT_MAX_SHAPES (owned) */
	size_t n_shapes;
	ta_adapt_kernel *kernels;    /* TA_ADAPT_MAX_SHAPES (owned) */
	size_t n_kernels;
	int32_t by_func[TA_ADAPT_SLOTS];   /* shape index + 1; 0: empty */
	int32_t by_name[TA_ADAPT_SLOTS];
	uint64_t overflow;           /* launches of shapes that did not fit (traced) */
	uint64_t traced;             /* launches traced, every shape */
	ta_adapt_shape *last;        /* the shape of the last launch; NULL: overflow */
	/* The launches the last traced launch stands for: itself and those of
	 * its shape left untraced since the shape's previous traced launch
	 * (1 while a shape is traced in full). Its inverse is the launch's
	 * chance of being traced: the reader weighs each GPU time by it, so a
	 * shape's first launches, traced in full, do not stand for the later
	 * ones that were only sampled (Horvitz-Thompson). */
	uint64_t last_weight;
	/* Weights above 1 waiting for their records, keyed by correlation id
	 * (open addressing, linear probing; key 0: empty, so ids are stored + 1),
	 * and the ids in the order they were kept: a record that never comes
	 * with that id (a kernel the runtime API launched: its record carries
	 * the runtime call's id) would otherwise hold its slot for good, so
	 * the oldest give way when the table is three quarters full. */
	uint64_t *weight_key, *weight_val;
	size_t n_weights;
	uint32_t *weight_order;      /* TA_ADAPT_WEIGHT_SLOTS ids, a ring */
	size_t order_head, order_len;
	uint64_t weights_lost;       /* weights given way before their record came */
} ta_adapt;

/* False when out of memory. */
bool ta_adapt_init(ta_adapt *a, const ta_adapt_config *cfg);
void ta_adapt_free(ta_adapt *a);

/* A launch at host time now_ns of func (named name, which is copied the
 * first time) with this shape: counts it, notes the period since the
 * kernel's previous launch, and returns whether to trace it. */
bool ta_adapt_launch(ta_adapt *a, const void *func, const char *name, const int32_t grid[3],
		     const int32_t block[3], int32_t smem_dynamic, uint64_t now_ns);

/* Keeps the weight of a traced launch (ta_adapt_launch's last_weight) for
 * its record, found by the launch's correlation id. Weights of 1 are not
 * kept. When the table is three quarters full the oldest kept weights give
 * way (counted in weights_lost; their records, if they come, weigh 1). */
void ta_adapt_keep_weight(ta_adapt *a, uint32_t correlation, uint64_t weight);

/* The weight kept for a record's correlation id, removed from the table;
 * 1 when none was kept. */
uint64_t ta_adapt_take_weight(ta_adapt *a, uint32_t correlation);

/* A GPU time from an activity record; ignored when the shape is unknown. */
void ta_adapt_sample(ta_adapt *a, const char *name, const int32_t grid[3], const int32_t block[3],
		     int32_t smem_dynamic, double gpu_ns);

/* Decides again for every shape with new samples. Returns how many shapes
 * changed state. */
size_t ta_adapt_settle(ta_adapt *a);

/* Whether the sorted sample x[n] has the 95% interval of its median (order
 * statistics, binomial) within +-half_width of the median, with n >=
 * min_n; *lo and *hi (may be NULL) get the interval. */
bool ta_adapt_median_tight(const double *x, size_t n, size_t min_n, double half_width,
			   double *lo, double *hi);

/* Quantile q (0..1) of a shape's host periods, in ns; 0 when none. */
double ta_adapt_period_quantile(const ta_adapt_shape *s, double q);

/* The bin of a period, and the middle of a bin (geometric), for tests. */
size_t ta_adapt_period_bin(double ns);
double ta_adapt_period_bin_ns(size_t bin);

#endif
