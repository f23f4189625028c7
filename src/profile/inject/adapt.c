/* The injector's book of launch shapes: counts, host periods, and the
 * adaptive tracing decision (see adapt.h). */
#include "config.h"
#include "profile/inject/adapt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ta_adapt_config_default(ta_adapt_config *c)
{
	c->adaptive = true;
	c->min_samples = 30;
	c->half_width = 0.01;
	c->sample_ns = 1000000;   /* 1 ms: a steady sample without long pauses */
}

bool ta_adapt_init(ta_adapt *a, const ta_adapt_config *cfg)
{
	memset(a, 0, sizeof *a);
	if (cfg)
		a->cfg = *cfg;
	else
		ta_adapt_config_default(&a->cfg);
	a->shapes = calloc(TA_ADAPT_MAX_SHAPES, sizeof *a->shapes);
	a->kernels = calloc(TA_ADAPT_MAX_SHAPES, sizeof *a->kernels);
	a->weight_key = calloc(TA_ADAPT_WEIGHT_SLOTS, sizeof *a->weight_key);
	a->weight_val = calloc(TA_ADAPT_WEIGHT_SLOTS, sizeof *a->weight_val);
	a->weight_order = calloc(TA_ADAPT_WEIGHT_SLOTS, sizeof *a->weight_order);
	if (!a->shapes || !a->kernels || !a->weight_key || !a->weight_val || !a->weight_order) {
		ta_adapt_free(a);
		return false;
	}
	return true;
}

void ta_adapt_free(ta_adapt *a)
{
	for (size_t i = 0; a->shapes && i < a->n_shapes; i++) {
		free(a->shapes[i].name);
		free(a->shapes[i].ring);
		free(a->shapes[i].period);
	}
	for (size_t i = 0; a->kernels && i < a->n_kernels; i++)
		free(a->kernels[i].name);
	free(a->shapes);
	free(a->kernels);
	free(a->weight_key);
	free(a->weight_val);
	free(a->weight_order);
	memset(a, 0, sizeof *a);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

static uint64_t dims_hash(uint64_t h, const int32_t grid[3], const int32_t block[3], int32_t smem)
{
	for (int i = 0; i < 3; i++)
		h = mix(mix(h, (uint32_t)grid[i]), (uint32_t)block[i]);
	return mix(h, (uint32_t)smem);
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;   /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static bool same_dims(const ta_adapt_shape *s, const int32_t grid[3], const int32_t block[3], int32_t smem)
{
	return s->smem_dynamic == smem && !memcmp(s->grid, grid, sizeof s->grid) &&
	       !memcmp(s->block, block, sizeof s->block);
}

static size_t kernel_index(ta_adapt *a, const char *name)
{
	for (size_t i = 0; i < a->n_kernels; i++)
		if (!strcmp(a->kernels[i].name, name))
			return i;
	if (a->n_kernels == TA_ADAPT_MAX_SHAPES)
		return SIZE_MAX;
	char *copy = strdup(name);
	if (!copy)
		return SIZE_MAX;
	a->kernels[a->n_kernels].name = copy;
	a->kernels[a->n_kernels].last_ns = 0;
	return a->n_kernels++;
}

/* Inserts index i under hash h (linear probing; the table never fills:
 * slots outnumber shapes). */
static void slot_put(int32_t *slots, uint64_t h, size_t i)
{
	size_t k = (size_t)h & (TA_ADAPT_SLOTS - 1);
	while (slots[k])
		k = (k + 1) & (TA_ADAPT_SLOTS - 1);
	slots[k] = (int32_t)i + 1;
}

static ta_adapt_shape *find_by_func(ta_adapt *a, const void *func, const int32_t grid[3],
				    const int32_t block[3], int32_t smem, uint64_t h)
{
	for (size_t k = (size_t)h & (TA_ADAPT_SLOTS - 1); a->by_func[k]; k = (k + 1) & (TA_ADAPT_SLOTS - 1)) {
		ta_adapt_shape *s = &a->shapes[a->by_func[k] - 1];
		if (s->func == func && same_dims(s, grid, block, smem))
			return s;
	}
	return NULL;
}

static ta_adapt_shape *find_by_name(ta_adapt *a, const char *name, const int32_t grid[3],
				    const int32_t block[3], int32_t smem, uint64_t h)
{
	for (size_t k = (size_t)h & (TA_ADAPT_SLOTS - 1); a->by_name[k]; k = (k + 1) & (TA_ADAPT_SLOTS - 1)) {
		ta_adapt_shape *s = &a->shapes[a->by_name[k] - 1];
		if (same_dims(s, grid, block, smem) && !strcmp(s->name, name))
			return s;
	}
	return NULL;
}

size_t ta_adapt_period_bin(double ns)
{
	if (!(ns > TA_PERIOD_MIN_NS))
		return 0;
	double b = log(ns / TA_PERIOD_MIN_NS) / log(TA_PERIOD_STEP);
	return b >= TA_PERIOD_BINS - 1 ? TA_PERIOD_BINS - 1 : (size_t)b;
}

double ta_adapt_period_bin_ns(size_t bin)
{
	return TA_PERIOD_MIN_NS * pow(TA_PERIOD_STEP, (double)bin + 0.5);
}

/* The shape of a launch not like the previous one; NULL (counted as
 * overflow) when it does not fit in the book. */
static ta_adapt_shape *lookup_or_add(ta_adapt *a, const void *func, const char *name, const int32_t grid[3],
				     const int32_t block[3], int32_t smem, uint64_t hf)
{
	ta_adapt_shape *s = find_by_func(a, func, grid, block, smem, hf);
	if (!s) {
		if (a->n_shapes == TA_ADAPT_MAX_SHAPES || !name) {
			a->overflow++;
			return NULL;
		}
		/* A new function handle may still be a shape seen before (the
		 * same kernel loaded again): one shape per name and dims. */
		uint64_t hn = dims_hash(name_hash(name), grid, block, smem);
		s = find_by_name(a, name, grid, block, smem, hn);
		if (s) {
			s->func = func;
			slot_put(a->by_func, hf, (size_t)(s - a->shapes));
		} else {
			size_t kernel = kernel_index(a, name);
			char *copy = strdup(name);
			if (kernel == SIZE_MAX || !copy) {
				free(copy);
				a->overflow++;
				return NULL;
			}
			s = &a->shapes[a->n_shapes];
			memset(s, 0, sizeof *s);
			s->name = copy;
			s->func = func;
			memcpy(s->grid, grid, sizeof s->grid);
			memcpy(s->block, block, sizeof s->block);
			s->smem_dynamic = smem;
			s->kernel = kernel;
			slot_put(a->by_func, hf, a->n_shapes);
			slot_put(a->by_name, hn, a->n_shapes);
			a->n_shapes++;
		}
	}
	return s;
}

bool ta_adapt_launch(ta_adapt *a, const void *func, const char *name, const int32_t grid[3],
		     const int32_t block[3], int32_t smem, uint64_t now_ns)
{
	/* A launch-bound loop launches one shape over and over: the shape of
	 * the previous launch is tried before hashing (it is the one
	 * find_by_func would return: one shape holds a given handle and dims). */
	ta_adapt_shape *s = a->last;
	if (!s || s->func != func || !same_dims(s, grid, block, smem)) {
		uint64_t hf = dims_hash(mix(0, (uint64_t)(uintptr_t)func), grid, block, smem);
		s = lookup_or_add(a, func, name, grid, block, smem, hf);
	}
	a->last = s;
	a->last_weight = 1;
	if (!s)
		return true;
	s->launches++;
	ta_adapt_kernel *k = &a->kernels[s->kernel];
	if (k->last_ns && now_ns > k->last_ns) {
		if (!s->period)
			s->period = calloc(TA_PERIOD_BINS, sizeof *s->period);
		if (s->period) {
			s->period[ta_adapt_period_bin((double)(now_ns - k->last_ns))]++;
			s->n_period++;
		}
	}
	k->last_ns = now_ns;
	bool early = s->launches <= TA_ADAPT_FULL_LAUNCHES && a->traced < TA_ADAPT_FULL_TOTAL;
	bool trace = !a->cfg.adaptive || early || !s->converged || now_ns - s->last_traced_ns >= a->cfg.sample_ns;
	if (trace) {
		s->traced++;
		a->traced++;
		s->last_traced_ns = now_ns;
		a->last_weight = 1 + s->untraced;
		s->untraced = 0;
	} else {
		s->untraced++;
	}
	return trace;
}

static size_t weight_slot(uint32_t correlation)
{
	return (size_t)(mix(0, correlation) & (TA_ADAPT_WEIGHT_SLOTS - 1));
}

void ta_adapt_keep_weight(ta_adapt *a, uint32_t correlation, uint64_t weight)
{
	if (weight <= 1)
		return;
	const size_t mask = TA_ADAPT_WEIGHT_SLOTS - 1;
	/* At most three quarters full, so that probes stay short: the oldest
	 * give way (those already taken leave only their id in the ring). */
	while (a->order_len && (a->n_weights >= TA_ADAPT_WEIGHT_SLOTS / 4 * 3 || a->order_len == TA_ADAPT_WEIGHT_SLOTS)) {
		uint32_t old = a->weight_order[a->order_head];
		a->order_head = (a->order_head + 1) & mask;
		a->order_len--;
		if (ta_adapt_take_weight(a, old) > 1)
			a->weights_lost++;
	}
	uint64_t key = (uint64_t)correlation + 1;
	size_t i = weight_slot(correlation);
	while (a->weight_key[i] && a->weight_key[i] != key)
		i = (i + 1) & mask;
	if (!a->weight_key[i])
		a->n_weights++;
	a->weight_key[i] = key;
	a->weight_val[i] = weight;
	a->weight_order[(a->order_head + a->order_len) & mask] = correlation;
	a->order_len++;
}

uint64_t ta_adapt_take_weight(ta_adapt *a, uint32_t correlation)
{
	if (!a->n_weights)
		return 1;
	uint64_t key = (uint64_t)correlation + 1;
	size_t mask = TA_ADAPT_WEIGHT_SLOTS - 1, i = weight_slot(correlation);
	while (a->weight_key[i] && a->weight_key[i] != key)
		i = (i + 1) & mask;
	if (!a->weight_key[i])
		return 1;
	uint64_t w = a->weight_val[i];
	/* Backward-shift deletion: move up every later entry of the run whose
	 * home slot does not lie between the hole and it (cyclically). */
	size_t hole = i;
	for (size_t j = (i + 1) & mask; a->weight_key[j]; j = (j + 1) & mask) {
		size_t home = weight_slot((uint32_t)(a->weight_key[j] - 1));
		bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
		if (stays)
			continue;
		a->weight_key[hole] = a->weight_key[j];
		a->weight_val[hole] = a->weight_val[j];
		hole = j;
	}
	a->weight_key[hole] = 0;
	a->weight_val[hole] = 0;
	a->n_weights--;
	return w;
}

void ta_adapt_sample(ta_adapt *a, const char *name, const int32_t grid[3], const int32_t block[3],
		     int32_t smem, double gpu_ns)
{
	ta_adapt_shape *s = find_by_name(a, name, grid, block, smem,
					 dims_hash(name_hash(name), grid, block, smem));
	if (!s)
		return;
	/* The first launch (compile, cold caches) is not part of the sample. */
	if (s->samples++ == 0)
		return;
	if (!s->ring) {
		s->ring = malloc(TA_ADAPT_RING * sizeof *s->ring);
		if (!s->ring)
			return;
	}
	s->ring[s->ring_next] = gpu_ns;
	s->ring_next = (s->ring_next + 1) % TA_ADAPT_RING;
	if (s->n_ring < TA_ADAPT_RING)
		s->n_ring++;
	s->dirty = true;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

bool ta_adapt_median_tight(const double *x, size_t n, size_t min_n, double half_width,
			   double *lo, double *hi)
{
	if (n == 0 || n < min_n)
		return false;
	double med = n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
	/* Ranks of the distribution-free 95% interval of the median. */
	double d = 0.98 * sqrt((double)n);   /* 1.96 x sqrt(n) / 2 */
	long l = (long)floor((double)n / 2 - d), h = (long)ceil((double)n / 2 + d);
	if (l < 0)
		l = 0;
	if (h > (long)n - 1)
		h = (long)n - 1;
	if (lo)
		*lo = x[l];
	if (hi)
		*hi = x[h];
	return med > 0 && x[l] >= med * (1 - half_width) && x[h] <= med * (1 + half_width);
}

size_t ta_adapt_settle(ta_adapt *a)
{
	size_t changed = 0;
	double *tmp = NULL;
	for (size_t i = 0; i < a->n_shapes; i++) {
		ta_adapt_shape *s = &a->shapes[i];
		if (!s->dirty)
			continue;
		s->dirty = false;
		if (!tmp && !(tmp = malloc(TA_ADAPT_RING * sizeof *tmp)))
			return changed;
		memcpy(tmp, s->ring, s->n_ring * sizeof *tmp);
		qsort(tmp, s->n_ring, sizeof *tmp, cmp_double);
		bool tight = ta_adapt_median_tight(tmp, s->n_ring, a->cfg.min_samples, a->cfg.half_width,
						   NULL, NULL);
		if (tight != s->converged) {
			s->converged = tight;
			changed++;
		}
	}
	free(tmp);
	return changed;
}

double ta_adapt_period_quantile(const ta_adapt_shape *s, double q)
{
	if (!s->period || s->n_period == 0)
		return 0;
	/* The bin holding the q-th period (the lower one of a middle pair). */
	uint64_t want = (uint64_t)floor(q * (double)(s->n_period - 1)), seen = 0;
	for (size_t b = 0; b < TA_PERIOD_BINS; b++) {
		seen += s->period[b];
		if (seen > want)
			return ta_adapt_period_bin_ns(b);
	}
	return ta_adapt_period_bin_ns(TA_PERIOD_BINS - 1);
}
