/* The walk: for each kernel of a file, the checklist's steps in the order
 * the triggers decide, each with its status, findings, suggested edit and,
 * once applied, the measured change. Plus the figures of the runs.
 *
 * A walk owns all its data (strings are copies): it can be built from an
 * analysis (ta_walk_build) or read back from a recorded session
 * (session.h), and a front end draws either the same way. */
#ifndef TA_ADVISE_WALK_H
#define TA_ADVISE_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "advise/deep_figures.h"
#include "analyze/model.h"
#include "checklist/rules.h"
#include "profile/autotune.h"
#include "profile/gpu.h"
#include "profile/measure.h"
#include "profile/stats.h"

struct ta_catalog;
struct ta_filter;

/* ---- figures of a run ------------------------------------------------------ */

/* What one run showed of one kernel: its main (steady-state) configuration. */
/* One launch shape of the workload (a steady configuration). */
typedef struct ta_shape_figures {
	int32_t grid[3], block[3];
	uint32_t regs;               /* with shared memory: configurations the autotuner */
	int32_t smem;                /* or a mode chose differ here (static + dynamic) */
	size_t calls;                /* steady launches */
	double median_ns;
	double share;                /* of the kernel's steady GPU time, 0..1 */
	double period_ns;            /* host time per call (see below); 0: not known */
	double iqr_ns;               /* the spread of its timed launches, and how many were */
	size_t n;                    /* timed: what a comparison's interval needs (0: not known,
	                              * sessions before them) */
} ta_shape_figures;

typedef struct ta_kernel_figures {
	char *name;
	size_t launches, autotune_launches, warmup_launches;
	/* The workload: GPU time per call over every steady launch of every
	 * shape (calls 0: not known, older sessions), and its shapes, the
	 * dominant one (most GPU time) first; the fields below describe it. */
	double per_call_ns;
	size_t calls;
	ta_shape_figures *shapes;    /* owned */
	size_t n_shapes;
	/* Time per call of the user's program for the dominant shape: the
	 * median host time between successive launches of the kernel, so the
	 * wrapper's Python and the autotuner's work are in it (a period, not a
	 * measured wrapper call). n_period 0: not known (older sessions, runs
	 * with TILEADVISE_TRACE=plain). sampled: adaptive tracing timed only
	 * some of the launches. */
	double period_ns;
	size_t n_period;
	bool sampled;
	ta_summary summary;          /* of durations_ns, weighed */
	double *durations_ns;        /* steady-state launches (owned), for comparisons */
	double *weights;             /* the launches each stands for (owned); NULL: 1 each */
	size_t n_durations;
	double *steady_ns;           /* every steady launch in time order (owned) */
	double *steady_w;            /* the launches each stands for (owned); NULL: 1 each */
	size_t n_steady;
	size_t *phase_start;         /* its phases (owned; see ta_kernel_measure) */
	size_t n_phases;
	int32_t grid[3], block[3];
	uint32_t regs, local_per_thread;
	int32_t smem_static, smem_dynamic;
	bool has_occupancy;
	double occupancy;            /* 0..1 */
	char limiter[16];            /* "registers", "shared memory", ... */
	int blocks_per_sm;
	double waves;
	ta_autotune_table tune;      /* the configs its autotuner tried (n_rows 0: none) */
	ta_deep_figures deep;        /* --deep: hot lines, speed of light (empty: none) */
} ta_kernel_figures;

/* One measured run of the file (a version of it). */
typedef struct ta_run_figures {
	char *label;                 /* "first run", "after S3" */
	char *date;                  /* ISO 8601 UTC */
	unsigned version;            /* the file version measured (session.h) */
	ta_kernel_figures *kernels;  /* owned */
	size_t n_kernels;
} ta_run_figures;

/* Copies the file's kernels out of a measurement. label and date are
 * copied (date NULL: now). Free with ta_run_figures_clear. */
void ta_run_figures_from_measure(ta_run_figures *out, const ta_measurement *m,
				 const char *label, const char *date, unsigned version);
void ta_run_figures_clear(ta_run_figures *f);
void ta_run_figures_copy(ta_run_figures *dst, const ta_run_figures *src);
const ta_kernel_figures *ta_run_figures_find(const ta_run_figures *f, const char *kernel);
/* Gives each kernel of f what --deep found for it in d (may be NULL). */
void ta_run_figures_attach_deep(ta_run_figures *f, const ta_deep *d);

/* One launch shape found in both runs, with its medians. */
typedef struct ta_shape_change {
	int32_t grid[3], block[3];
	uint32_t regs;
	int32_t smem;
	double before_ns, after_ns;
	double share;                /* of the earlier run's steady GPU time */
} ta_shape_change;

#define TA_CHANGE_SHAPES 4

/* The measured change of one kernel between two runs.
 *
 * The figures chain: before_ns and after_ns are each run's workload, its
 * GPU time per call over every steady launch of every launch shape, and
 * the ratio is after_ns over before_ns, so that a step's before is the
 * previous step's after when they share a run, and a walk's step ratios
 * multiply to the ratio of its first run to its last. The interval comes
 * from the spread of each configuration's launches. The runs are
 * comparable when they launched some shape (a grid and a block; the
 * registers and shared memory an edit changes do not count) in both: the
 * shapes in both are listed shape by shape, the earlier run's largest share
 * first. When they share none (other tiles, an autotuned choice) but
 * made as many launches, the script's calls were the same and the
 * workloads compare; else the verdict is not comparable, with no
 * interval. gone and fresh say which shapes changed. A script that runs
 * in several parts (sizes, modes; the same number in both runs) compares
 * by parts instead, whatever the shapes: the figures are each run's
 * parts' geometric mean and the ratio the geometric mean of the parts'
 * ratios, which chain the same way. Sessions recorded before the
 * workload's figures compare the dominant shapes' launches. */
typedef struct ta_change {
	bool measured;               /* both runs had the kernel */
	double before_ns, after_ns;  /* GPU time per call (sessions before that: medians) */
	ta_comparison cmp;           /* ratio after/before, 95% interval, verdict */
	/* Time per call (host period) on both sides; 0: not in both runs. */
	double period_before_ns, period_after_ns;
	/* The shapes in both runs, the earlier run's largest shares first (at
	 * most TA_CHANGE_SHAPES of n_shared), and those only one run has. */
	ta_shape_change shapes[TA_CHANGE_SHAPES];
	size_t n_shapes, n_shared;
	ta_shape_figures gone[TA_CHANGE_SHAPES], fresh[TA_CHANGE_SHAPES];
	size_t n_gone, n_fresh;      /* all of them; the arrays hold the first ones */
	double shared_share;         /* the shared shapes' share of the earlier run's time */
	bool by_parts;               /* the runs' phases paired (several parts, or one and
	                              * no shape shared); figures: their geometric means */
} ta_change;

/* How two runs compare. PARTS pairs the runs' parts when they have as many
 * (else as SHAPES); SHAPES compares the shapes both launched and the time
 * per call, pairing parts only when no shape is shared; WORKLOAD never
 * pairs parts: the figures are always the time per call, so that every
 * comparison of a session chains, however the runs' parts differ. AUTO is
 * PARTS for runs of several parts alike, else SHAPES. */
typedef enum ta_pairing { TA_PAIR_AUTO, TA_PAIR_PARTS, TA_PAIR_SHAPES, TA_PAIR_WORKLOAD } ta_pairing;

ta_change ta_change_compare(const ta_run_figures *before, const ta_run_figures *after, const char *kernel,
			    ta_pairing how);
/* The figure a comparison reads of one run's kernel: its parts' geometric
 * mean when by_parts (and it has parts), else what the program pays per
 * call when per_call (and the run counted calls), else its median launch. */
double ta_kernel_figure(const ta_kernel_figures *k, bool by_parts, bool per_call);
/* ta_change_compare with TA_PAIR_AUTO. */
ta_change ta_change_between(const ta_run_figures *before, const ta_run_figures *after,
			    const char *kernel);

/* ---- steps ------------------------------------------------------------------- */

/* The mark a step shows: the rule's status, or what the user did. */
typedef enum ta_mark {
	TA_MARK_APPLIES,
	TA_MARK_SATISFIED,
	TA_MARK_NOT_APPLICABLE,
	TA_MARK_NEEDS_PROFILE,
	TA_MARK_NEEDS_BASELINE,
	TA_MARK_APPLIED,             /* an edit for it was applied (see change) */
	TA_MARK_SKIPPED,
	TA_MARK__COUNT
} ta_mark;

const char *ta_mark_name(ta_mark m);   /* "applies", "not applicable"... */
bool ta_mark_parse(const char *name, ta_mark *out);

/* How a step's change is made (the catalog's edit kind; kept apart from
 * checklist.h so that this header mixes with advise/edit.h). */
typedef enum ta_step_edit {
	TA_STEP_EDIT_NONE, TA_STEP_EDIT_MECHANICAL, TA_STEP_EDIT_GUIDED
} ta_step_edit;

typedef struct ta_walk_finding {
	char *reason;
	uint32_t line, col, end_line;
	uint32_t *lines;             /* evidence lines, 1-based */
	size_t n_lines;
	char *measure;               /* what the profile showed/must show; may be NULL */
	/* A mechanical step: whether the rewrite makes an edit at this
	 * finding's site, and why not (NULL when it does, or not tried). */
	bool edit_ok;
	char *why_no_edit;
} ta_walk_finding;

typedef struct ta_step {
	char id[8];
	ta_status status;            /* as the rules decided */
	ta_mark mark;                /* what is shown */
	ta_walk_finding *findings;   /* owned */
	size_t n_findings;
	ta_step_edit edit_kind;      /* from the catalog */
	char *diff;                  /* mechanical edit ready: its unified diff; else NULL */
	char *edit_title;            /* one line, with diff */
	char *why_no_edit;           /* why no diff could be made; may be NULL */
	char *unsafe;                /* with diff: the edit's assumption when it is
					unsafe (a asks before applying); else NULL */
	uint32_t edit_line;          /* the line the edit was made for */
	size_t n_edit_sites;         /* findings whose site the rewrite can change (edit_ok):
	                              * more than one, and `a` lets the user pick */
	bool edit_pending;           /* lazy walk: diff, edit_title, why_no_edit and
					edit_line not made yet (ta_walk_step_ready) */
	bool silenced;               /* every finding silenced by a `# tileadvise: ignore`
	                              * comment (checklist/filter.h): not applicable here */
	bool ignored;                /* the entry is one --select/--ignore or the project's
	                              * [tool.tileadvise] leaves out (checklist/filter.h), as
	                              * --check leaves it out: not applicable here */
	bool has_change;             /* applied and re-measured */
	ta_change change;
	char *broken;                /* applied, and the run after it or the test
	                              * failed: why (then change is no verdict) */
} ta_step;

typedef struct ta_walk_kernel {
	char *name;
	uint32_t def_line;
	bool helper;                 /* only called from other kernels */
	ta_step *steps;              /* owned, in walk order */
	size_t n_steps;
	bool steps_pending;          /* lazy walk: not checked yet, no steps
	                              * (ta_walk_kernel_ready) */
	char *syntax_error;          /* the first syntax error inside the kernel
	                              * ("line 12, column 9: missing `)`"), which
	                              * leaves it with no steps: nothing is advised
	                              * on a tree the parser had to guess; NULL: none */
	uint32_t syntax_line, syntax_col; /* where (1-based); 0 when not known */
} ta_walk_kernel;

typedef struct ta_walk {
	ta_walk_kernel *kernels;     /* owned, in file order */
	size_t n_kernels;
	/* A lazy walk's edits still to make: the model (borrowed: it must
	 * outlive them), the rules' findings and the diff's label (owned). */
	size_t n_pending;
	size_t n_kernels_pending;    /* kernels whose steps are not made yet */
	const ta_model *model;
	ta_rules_result *rules;
	struct ta_suppressions *sup; /* the file's suppression comments, while pending */
	const struct ta_filter *filter; /* the entries reported (borrowed), while pending */
	char *name;
	ta_step_edit *edit_of;       /* each entry's edit kind, from the catalog */
} ta_walk;

/* Builds the walk of a model: rules with the evidence of `run` (NULL: no
 * profile, gpu may then be NULL too), statuses, the catalog's edit kind and,
 * for every step that applies and has a mechanical edit, its diff (name
 * labels the diff). The file's suppression comments are honoured as
 * --check honours them: a silenced finding is not in the walk, and a step
 * whose every finding is silenced is not applicable (silenced). Never
 * fails; free with ta_walk_free. */
ta_walk *ta_walk_build(const ta_model *m, const struct ta_catalog *cat, const ta_run_figures *run,
		       const ta_gpu_info *gpu, const char *name);
/* The same, with T4/T5 decided against a baseline run (NULL: none). */
ta_walk *ta_walk_build_vs(const ta_model *m, const struct ta_catalog *cat, const ta_run_figures *run,
			  const ta_run_figures *base, const ta_gpu_info *gpu, const char *name);
/* The same, but each step's edit is made only when asked for
 * (ta_walk_step_ready, ta_walk_ready_one, ta_walk_ready_all), so that the
 * advisor can draw before every diff is made; m must live until then.
 * Without a run (run NULL) the kernels' steps are left to make too: a
 * kernel has none (steps_pending) until ta_walk_kernel_ready; the walk's
 * kernels, names and lines are there from the start. */
ta_walk *ta_walk_build_lazy(const ta_model *m, const struct ta_catalog *cat,
			    const ta_run_figures *run, const ta_run_figures *base,
			    const ta_gpu_info *gpu, const char *name);
/* The lazy walk of the entries filter reports (NULL: every entry), the
 * filter --check builds from --select, --ignore and the project's
 * [tool.tileadvise]: a step of an entry it leaves out has no findings, and
 * one that would be open (applies, needs a profile or a baseline) is not
 * applicable (ignored). filter must live as long as m. */
ta_walk *ta_walk_build_filtered(const ta_model *m, const struct ta_catalog *cat,
				const ta_run_figures *run, const ta_run_figures *base,
				const ta_gpu_info *gpu, const char *name, const struct ta_filter *filter);
/* A step that waits for a baseline (T5 without --baseline) is one the user
 * cannot act on from this walk: it goes after every other step of its
 * kernel, as a note, so the walk never opens on it; the others keep their
 * order. Every built walk is so ordered; a walk read back from a session
 * recorded before that is reordered the same way when loaded (the order
 * follows the rules' status, not what the user did). */
void ta_walk_notes_last(ta_walk *w);
/* Makes the step's edit if it is still pending (s belongs to w). */
void ta_walk_step_ready(ta_walk *w, ta_step *s);
/* Makes kernel k's steps if they are still pending (its edits stay
 * pending); kernels before it are checked first, as ta_rules_run would. */
void ta_walk_kernel_ready(ta_walk *w, size_t k);
/* Kernels and edits still to make. */
size_t ta_walk_pending(const ta_walk *w);
/* Makes one pending kernel's steps, else one pending edit; returns how
 * many of either are left. */
size_t ta_walk_ready_one(ta_walk *w);
/* Makes every pending kernel and edit: the walk is then as
 * ta_walk_build_vs makes it. */
void ta_walk_ready_all(ta_walk *w);
/* An empty walk to fill by hand (session loading). */
ta_walk *ta_walk_new(void);
ta_walk_kernel *ta_walk_add_kernel(ta_walk *w, const char *name);
ta_step *ta_walk_add_step(ta_walk_kernel *k, const char *id);
void ta_walk_free(ta_walk *w);

int ta_walk_find_kernel(const ta_walk *w, const char *name);
ta_step *ta_walk_find_step(const ta_walk *w, const char *kernel, const char *id);

/* The step is worth a row of its own (not folded away). */
bool ta_step_is_open(const ta_step *s);
/* The first line a step points at (0 when none). */
uint32_t ta_step_line(const ta_step *s);

/* Evidence for the rules, from a run's figures; the arrays point into f
 * and ev_kernels[f->n_kernels] (the caller's storage). */
void ta_walk_evidence(const ta_run_figures *f, const ta_gpu_info *gpu,
		      ta_kernel_evidence *ev_kernels, ta_evidence *ev);
/* Sets each kernel's time over the baseline's in ev (filled by
 * ta_walk_evidence from run): by name when the baseline ran a kernel of that name (a
 * previous version), else the file's kernels together over the baseline's
 * per-call time, the sum of its steady kernels' medians (a reference
 * implementation with kernels of its own). */
void ta_walk_baseline_ratios(const ta_run_figures *run, const ta_run_figures *base,
			     ta_kernel_evidence *ev_kernels, ta_evidence *ev);
/* That ratio for one kernel of run (0: not measured or no baseline);
 * base_ns (may be NULL) gets the baseline time it was divided by. */
double ta_baseline_ratio(const ta_run_figures *run, const ta_run_figures *base, const char *kernel,
			 double *base_ns);

#endif
