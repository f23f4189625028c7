/* The --deep view: PC samples folded onto the user's source lines, and the
 * speed-of-light counters folded into one set of figures per kernel. */
#include "config.h"
#include "profile/deep.h"
#include "util/buf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- words ----------------------------------------------------------------- */

static const struct {
	const char *name, *words;
} stall_words[] = {
	{ "long_scoreboard", "waiting for global or local memory" },
	{ "short_scoreboard", "waiting for shared memory or special math" },
	{ "wait", "a fixed-latency dependency" },
	{ "math_pipe_throttle", "the math pipe is busy" },
	{ "mio_throttle", "the shared-memory queue is full" },
	{ "lg_throttle", "the global-memory queue is full" },
	{ "tex_throttle", "the texture unit is busy" },
	{ "barrier", "waiting at a barrier" },
	{ "membar", "waiting on a memory fence" },
	{ "branch_resolving", "resolving a branch" },
	{ "no_instructions", "instruction cache miss" },
	{ "dispatch_stall", "dispatch stall" },
	{ "drain", "draining stores at exit" },
	{ "sleeping", "sleeping" },
	{ "selected", "issuing (not stalled)" },
	{ "not_selected", "ready, another warp issued" },
	{ "imc_miss", "constant cache miss" },
	{ "gmma", "waiting for a warpgroup MMA" },
	{ "misc", "other" },
};

const char *ta_stall_words(const char *reason)
{
	if (!reason)
		return "";
	size_t n = strlen(reason);
	static const char suffix[] = "_not_issued";
	if (n > sizeof suffix - 1 && strcmp(reason + n - (sizeof suffix - 1), suffix) == 0)
		n -= sizeof suffix - 1;
	for (size_t i = 0; i < sizeof stall_words / sizeof *stall_words; i++)
		if (strlen(stall_words[i].name) == n && strncmp(stall_words[i].name, reason, n) == 0)
			return stall_words[i].words;
	return reason;
}

const char *ta_bound_name(ta_bound b)
{
	switch (b) {
	case TA_BOUND_MEMORY:
		return "memory-bound";
	case TA_BOUND_COMPUTE:
		return "compute-bound";
	case TA_BOUND_LATENCY:
		return "latency-bound";
	case TA_BOUND_BALANCED:
		return "balanced";
	default:
		return "unknown";
	}
}

/* ---- hot lines ------------------------------------------------------------- */

/* Reasons summed over records, before the top ones are kept. */
typedef struct reason_acc {
	const char *name;
	uint64_t samples;
} reason_acc;

typedef struct line_acc {
	uint32_t line;
	uint64_t samples;
	reason_acc *reasons;
	size_t n_reasons, cap_reasons;
} line_acc;

/* The recorded path names the user's file when it is the same file, or
 * when its name is the same: a replay elsewhere, or a copy of the file, has
 * the path of the machine and folder where it ran. The code of a kernel
 * comes from its own file, helper modules and Triton's: one of those with
 * the kernel file's very name is not a case worth a wrong answer for. */
static bool same_file(const char *recorded, const char *file, const char *file_real)
{
	if (!recorded || !*recorded || !file)
		return false;
	if (file_real && strcmp(recorded, file_real) == 0)
		return true;
	const char *a = strrchr(recorded, '/'), *b = strrchr(file, '/');
	return strcmp(a ? a + 1 : recorded, b ? b + 1 : file) == 0;
}

static line_acc *line_slot(line_acc **ls, size_t *n, size_t *cap, uint32_t line)
{
	for (size_t i = 0; i < *n; i++)
		if ((*ls)[i].line == line)
			return &(*ls)[i];
	line_acc *l = TA_PUSH(*ls, *n, *cap);
	memset(l, 0, sizeof *l);
	l->line = line;
	return l;
}

static void add_reason(line_acc *l, const char *name, uint64_t samples)
{
	for (size_t i = 0; i < l->n_reasons; i++)
		if (strcmp(l->reasons[i].name, name) == 0) {
			l->reasons[i].samples += samples;
			return;
		}
	reason_acc *r = TA_PUSH(l->reasons, l->n_reasons, l->cap_reasons);
	r->name = name;
	r->samples = samples;
}

static int cmp_reason(const void *x, const void *y)
{
	const reason_acc *a = x, *b = y;
	return a->samples < b->samples ? 1 : a->samples > b->samples ? -1 : strcmp(a->name, b->name);
}

static int cmp_line(const void *x, const void *y)
{
	const ta_hot_line *a = x, *b = y;
	return a->line < b->line ? -1 : a->line > b->line;
}

/* CUPTI reports each stall reason twice: all samples of it, and the subset
 * taken in cycles when the scheduler issued nothing ("..._not_issued").
 * Only the first kind adds up to the line's samples. */
static bool is_not_issued(const char *reason)
{
	static const char suffix[] = "_not_issued";
	size_t n = strlen(reason);
	return n > sizeof suffix - 1 && strcmp(reason + n - (sizeof suffix - 1), suffix) == 0;
}

/* The samples of a line record: its reasons without the subsets, or its
 * own count when it lists none. */
static uint64_t own_samples(const ta_pcline_rec *p)
{
	uint64_t sum = 0;
	bool any = false;
	for (size_t r = 0; r < p->n_reasons; r++)
		if (!is_not_issued(p->reasons[r])) {
			sum += p->counts[r];
			any = true;
		}
	return any ? sum : p->samples;
}

/* Other files' samples, to name the one with the most. */
typedef struct file_acc {
	const char *file;
	uint64_t samples;
} file_acc;

static void fold_lines(ta_deep_kernel *k, const ta_records *recs, const char *name,
		       const char *file, const char *file_real)
{
	line_acc *ls = NULL;
	size_t n = 0, cap = 0;
	file_acc *fs = NULL;
	size_t n_fs = 0, cap_fs = 0;
	for (size_t i = 0; i < recs->n_pclines; i++) {
		const ta_pcline_rec *p = &recs->pclines[i];
		if (!ta_kernel_name_matches(p->kernel, name))
			continue;
		uint64_t samples = own_samples(p);
		k->samples += samples;
		if (p->line == 0 || !*p->file) {
			k->unattributed += samples;
			continue;
		}
		if (!same_file(p->file, file, file_real)) {
			k->elsewhere += samples;
			size_t j = 0;
			while (j < n_fs && strcmp(fs[j].file, p->file) != 0)
				j++;
			if (j == n_fs) {
				file_acc *f = TA_PUSH(fs, n_fs, cap_fs);
				f->file = p->file;
				f->samples = 0;
			}
			fs[j].samples += samples;
			continue;
		}
		line_acc *l = line_slot(&ls, &n, &cap, p->line);
		k->on_lines += samples;
		l->samples += samples;
		for (size_t r = 0; r < p->n_reasons; r++)
			if (!is_not_issued(p->reasons[r]))
				add_reason(l, p->reasons[r], p->counts[r]);
	}
	uint64_t most = 0;
	for (size_t j = 0; j < n_fs; j++)
		if (fs[j].samples > most) {
			most = fs[j].samples;
			k->elsewhere_file = fs[j].file;
		}
	free(fs);
	k->lines = ta_xcalloc(n ? n : 1, sizeof *k->lines);
	k->n_lines = n;
	for (size_t i = 0; i < n; i++) {
		ta_hot_line *h = &k->lines[i];
		h->line = ls[i].line;
		h->samples = ls[i].samples;
		h->share = k->on_lines ? (double)ls[i].samples / (double)k->on_lines : 0;
		if (ls[i].n_reasons > 1)   /* none: no array to give qsort */
			qsort(ls[i].reasons, ls[i].n_reasons, sizeof *ls[i].reasons, cmp_reason);
		for (size_t r = 0; r < ls[i].n_reasons && r < TA_HOT_REASONS; r++) {
			h->reason[r] = ls[i].reasons[r].name;
			h->reason_samples[r] = ls[i].reasons[r].samples;
		}
		free(ls[i].reasons);
	}
	free(ls);
	qsort(k->lines, k->n_lines, sizeof *k->lines, cmp_line);
}

/* ---- speed of light ---------------------------------------------------------- */

static double metric(const ta_sol_rec *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->names[i], name) == 0)
			return s->values[i];
	return NAN;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

/* Median of a metric over the chosen records; NAN when none has it. */
static double median_metric(const ta_sol_rec *const *recs, size_t n, const char *name)
{
	double *v = ta_xcalloc(n ? n : 1, sizeof *v);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		double x = metric(recs[i], name);
		if (!isnan(x))
			v[k++] = x;
	}
	double med = NAN;
	if (k > 0) {
		qsort(v, k, sizeof *v, cmp_double);
		med = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
	}
	free(v);
	return med;
}

/* The larger of several alternative metrics (a chip has one or the other). */
static double median_any(const ta_sol_rec *const *recs, size_t n, const char *const *names)
{
	double best = NAN;
	for (; *names; names++) {
		double x = median_metric(recs, n, *names);
		if (!isnan(x) && (isnan(best) || x > best))
			best = x;
	}
	return best;
}

static ta_bound classify(double dram, double sm)
{
	if (isnan(dram) || isnan(sm))
		return TA_BOUND_UNKNOWN;
	double hi = dram > sm ? dram : sm, lo = dram > sm ? sm : dram;
	if (hi >= 60)
		return dram >= sm ? TA_BOUND_MEMORY : TA_BOUND_COMPUTE;
	if (lo >= 40)
		return TA_BOUND_BALANCED;
	return TA_BOUND_LATENCY;
}

static double or_neg(double x)
{
	return isnan(x) ? -1 : x;
}

/* Tensor operations against their peak: each precision's count over its
 * own peak rate, summed (a kernel usually uses one). */
static double tensor_ops_pct(const ta_sol_rec *const *recs, size_t n, double duration_ns)
{
	static const char *const paths[] = {
		"sm__ops_path_tensor_src_fp16.sum",
		"sm__ops_path_tensor_src_bf16_dst_fp32.sum",
		"sm__ops_path_tensor_src_fp8.sum",
		"sm__ops_path_tensor_src_tf32_dst_fp32.sum",
	};
	double sm_hz = median_metric(recs, n, "sm__cycles_elapsed.avg.per_second");
	if (isnan(sm_hz) || !(duration_ns > 0))
		return -1;
	double pct = 0;
	bool any = false;
	for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
		char peak_name[128];
		snprintf(peak_name, sizeof peak_name, "%s.peak_sustained", paths[i]);
		double ops = median_metric(recs, n, paths[i]);
		double peak = median_metric(recs, n, peak_name);
		if (isnan(ops) || isnan(peak) || peak <= 0)
			continue;
		any = true;
		pct += 100.0 * ops / (peak * sm_hz * duration_ns * 1e-9);
	}
	return any ? pct : -1;
}

static void fold_sol(ta_deep_kernel *k, const ta_records *recs, const char *name,
		     const ta_measurement *m)
{
	const ta_kernel_measure *km = m ? ta_measure_find(m, name) : NULL;
	const ta_launch_config *main_cfg =
		km && km->n_groups > 0 ? &km->groups[km->main_group].cfg : NULL;
	const ta_sol_rec **mine = ta_xcalloc(recs->n_sols ? recs->n_sols : 1, sizeof *mine);
	size_t n_all = 0, n_main = 0;
	/* Launches with the steady grid first: those are the ones the timing
	 * figures describe. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < recs->n_sols; i++) {
			const ta_sol_rec *s = &recs->sols[i];
			if (!ta_kernel_name_matches(s->kernel, name))
				continue;
			bool is_main = main_cfg && s->has_shape &&
				       memcmp(s->grid, main_cfg->grid, sizeof s->grid) == 0 &&
				       memcmp(s->block, main_cfg->block, sizeof s->block) == 0;
			if (pass == 0 && is_main)
				mine[n_main++] = s;
			else if (pass == 1 && !is_main && n_main == 0)
				mine[n_all++] = s;
		}
	size_t n = n_main ? n_main : n_all;
	if (n == 0) {
		free(mine);
		return;
	}
	ta_sol *o = &k->sol;
	k->has_sol = true;
	o->launches = n;
	o->main_config = n_main > 0;
	o->passes = mine[0]->passes;
	o->duration_ns = median_metric(mine, n, "gpu__time_duration.sum");
	o->dram_pct = median_metric(mine, n, "dram__throughput.avg.pct_of_peak_sustained_elapsed");
	o->sm_pct = median_metric(mine, n, "sm__throughput.avg.pct_of_peak_sustained_elapsed");
	o->occupancy_pct = median_metric(mine, n, "sm__warps_active.avg.pct_of_peak_sustained_active");
	o->l2_pct = or_neg(median_metric(mine, n, "lts__t_sectors.avg.pct_of_peak_sustained_elapsed"));
	static const char *const tensor[] = {
		"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
		"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
		NULL,
	};
	o->tensor_pct = or_neg(median_any(mine, n, tensor));
	o->dram_bytes = median_metric(mine, n, "dram__bytes.sum");
	o->bandwidth = o->duration_ns > 0 ? o->dram_bytes / (o->duration_ns * 1e-9) : NAN;
	double peak_per_cycle = median_metric(mine, n, "dram__bytes.sum.peak_sustained");
	double dram_hz = median_metric(mine, n, "dram__cycles_elapsed.avg.per_second");
	o->peak_bandwidth = or_neg(peak_per_cycle * dram_hz);
	o->tensor_ops_pct = tensor_ops_pct(mine, n, o->duration_ns);
	o->bound = classify(o->dram_pct, o->sm_pct);
	free(mine);
}

/* ---- the view ------------------------------------------------------------------- */

static double overhead(const ta_records *r, int kind)
{
	if (!r->run_count[kind] || !r->run_count[TA_RUN_KIND_TIMED] || r->run_wall_s[TA_RUN_KIND_TIMED] <= 0)
		return -1;
	double timed = r->run_wall_s[TA_RUN_KIND_TIMED] / (double)r->run_count[TA_RUN_KIND_TIMED];
	return r->run_wall_s[kind] / (double)r->run_count[kind] / timed;
}

/* The distinct kernel names in the deep records (n == 0). */
static const char **names_in(const ta_records *recs, size_t *n)
{
	const char **out = ta_xcalloc(recs->n_pclines + recs->n_sols + 1, sizeof *out);
	size_t k = 0;
	for (size_t i = 0; i < recs->n_pclines + recs->n_sols; i++) {
		const char *name = i < recs->n_pclines ? recs->pclines[i].kernel
						       : recs->sols[i - recs->n_pclines].kernel;
		size_t j = 0;
		while (j < k && strcmp(out[j], name) != 0)
			j++;
		if (j == k)
			out[k++] = name;
	}
	*n = k;
	return out;
}

ta_deep *ta_deep_build(const ta_records *recs, const char *file, const char *const *names,
		       size_t n, const ta_measurement *m)
{
	if (recs->n_pclines == 0 && recs->n_sols == 0 && !recs->has_pc_total)
		return NULL;
	const char **own = NULL;
	if (n == 0) {
		own = names_in(recs, &n);
		names = own;
	}
	ta_deep *d = ta_xcalloc(1, sizeof *d);
	d->kernels = ta_xcalloc(n ? n : 1, sizeof *d->kernels);
	d->n_kernels = n;
	d->has_pc = recs->has_pc_total || recs->n_pclines > 0;
	d->has_sol = recs->n_sols > 0;
	for (size_t i = 0; i < recs->n_pclines; i++)
		d->pc_samples += own_samples(&recs->pclines[i]);
	d->pc_dropped = recs->pc_dropped;
	d->pc_period = recs->pc_period;
	d->pc_hw_full = recs->pc_hw_full;
	d->pc_overhead = overhead(recs, TA_RUN_KIND_PC);
	d->sol_overhead = overhead(recs, TA_RUN_KIND_SOL);
	char *file_real = file ? realpath(file, NULL) : NULL;
	for (size_t i = 0; i < n; i++) {
		ta_deep_kernel *k = &d->kernels[i];
		k->name = names[i];
		fold_lines(k, recs, names[i], file, file_real);
		fold_sol(k, recs, names[i], m);
	}
	free(file_real);
	free(own);
	return d;
}

void ta_deep_free(ta_deep *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n_kernels; i++)
		free(d->kernels[i].lines);
	free(d->kernels);
	free(d);
}

const ta_deep_kernel *ta_deep_find(const ta_deep *d, const char *name)
{
	for (size_t i = 0; d && i < d->n_kernels; i++)
		if (strcmp(d->kernels[i].name, name) == 0)
			return &d->kernels[i];
	return NULL;
}
