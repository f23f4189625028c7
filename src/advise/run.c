/* A profiled run of the user's command, and its result as the session's
 * measurement. */
#include "config.h"
#include "advise/run.h"

#include <stdlib.h>
#include <string.h>

#include "advise/session.h"
#include "analyze/source.h"
#include "profile/autotune.h"
#include "profile/protocol.h"
#include "util/buf.h"
#include "util/datadir.h"
#include "util/fsutil.h"

struct ta_run {
	char *file;
	const char **names;          /* the file's kernels (owned strings); n_names 0: every kernel */
	bool *autotuned;             /* NULL: any may be autotuned */
	size_t n_names;
	char **argv;                 /* NULL-terminated (owned) */
	char *injector;
	double timeout_s;
	FILE *tee;
	bool read_tune;              /* from the timed children's output and loaded streams */
	bool tune_first;             /* see ta_run_opts */
	bool warming;                /* the child in flight is the uninjected tuning run */
	bool cancelled;              /* ta_run_cancel during it: no measured run follows */
	bool after_warm;             /* the child in flight is the measured run after one, */
	bool tuned_in_run;           /* and its output said it tuned a key all the same */
	bool warm_whole;             /* the tuning run before it exited, status 0 */
	bool again;                  /* the child in flight is that measured run made again */
	bool made_again;             /* this run's measured child was made again once */
	bool has_tune;               /* the autotuning table is attached to the measurement */
	void (*output_line)(void *ctx, const char *line, size_t len);
	void *output_ctx;

	ta_records recs;
	ta_autotune_log tune;
	bool feeding_tune;           /* the child in flight is a timed run read for autotuning */
	size_t tune_blocks_before;   /* the log's blocks when the tuning run began */
	ta_runner *child;            /* running, or the last one (its log and outcome) */
	ta_run_mode mode;            /* of child */
	bool noted;                  /* child's end is noted */
	int started[3];              /* children started per injected mode: their run index */
};

static char *dup_or_null(const char *s)
{
	return s ? ta_xstrdup(s) : NULL;
}

ta_run *ta_run_new(const ta_run_opts *o)
{
	ta_run *r = ta_xcalloc(1, sizeof *r);
	r->file = dup_or_null(o->file);
	r->tune_first = o->tune_first;
	if (o->model) {
		const ta_model *m = o->model;
		r->n_names = m->kernel_count;
		r->names = ta_xcalloc(m->kernel_count + 1, sizeof *r->names);
		r->autotuned = ta_xcalloc(m->kernel_count + 1, sizeof *r->autotuned);
		for (size_t i = 0; i < m->kernel_count; i++) {
			r->names[i] = ta_xstrdup(m->kernels[i].name);
			r->autotuned[i] = m->kernels[i].autotune != NULL;
		}
	} else if (o->n_kernel_names) {
		r->n_names = o->n_kernel_names;
		r->names = ta_xcalloc(r->n_names + 1, sizeof *r->names);
		for (size_t i = 0; i < r->n_names; i++)
			r->names[i] = ta_xstrdup(o->kernel_names[i]);
		if (o->autotuned) {
			r->autotuned = ta_xcalloc(r->n_names + 1, sizeof *r->autotuned);
			memcpy(r->autotuned, o->autotuned, r->n_names * sizeof *r->autotuned);
		}
	}
	char *def[4] = { NULL };
	char *const *argv = o->argv;
	if (!argv || !argv[0]) {
		ta_runner_python_argv(r->file ? r->file : "", def);
		argv = def;
	}
	size_t n = 0;
	while (argv[n])
		n++;
	r->argv = ta_xcalloc(n + 1, sizeof *r->argv);
	for (size_t i = 0; i < n; i++)
		r->argv[i] = ta_xstrdup(argv[i]);
	r->injector = o->injector ? ta_xstrdup(o->injector) : ta_path_join(ta_libdir(), "libtileadvise-cupti.so");
	r->timeout_s = o->timeout_s > 0 ? o->timeout_s : TA_RUNNER_DEFAULT_TIMEOUT_S;
	r->tee = o->tee;
	r->read_tune = o->read_tune;
	r->has_tune = o->read_tune;
	r->output_line = o->output_line;
	r->output_ctx = o->output_ctx;
	ta_records_init(&r->recs);
	ta_autotune_log_init(&r->tune);
	return r;
}

void ta_run_free(ta_run *r)
{
	if (!r)
		return;
	ta_runner_free(r->child);
	ta_records_clear(&r->recs);
	ta_autotune_log_clear(&r->tune);
	for (size_t i = 0; i < r->n_names; i++)
		free((char *)r->names[i]);
	free(r->names);
	free(r->autotuned);
	for (size_t i = 0; r->argv && r->argv[i]; i++)
		free(r->argv[i]);
	free(r->argv);
	free(r->injector);
	free(r->file);
	free(r);
}

/* Each line of a child's output: to the autotuning reader (timed runs)
 * and to the caller's own reader (a CUPTI client refused, say), both. */
static void feed_output(void *ctx, const char *line, size_t len)
{
	ta_run *r = ctx;
	if (r->after_warm && !r->warming && ta_autotune_line_tuned(line, len))
		r->tuned_in_run = true;
	if (r->feeding_tune)
		ta_autotune_log_line(&r->tune, line, len);
	/* the tuning run's output is not the measured run's */
	if (r->output_line && !r->warming)
		r->output_line(r->output_ctx, line, len);
}

/* Whether the file autotunes one of the kernels measured. */
static bool file_autotunes(const ta_run *r)
{
	for (size_t i = 0; r->autotuned && i < r->n_names; i++)
		if (r->autotuned[i])
			return true;
	return false;
}

/* Triton keeps the autotuner's choices in its cache: the tuning run fills
 * it, the measured run reads it (a Triton with knobs.autotuning.cache, whose
 * autotuner then keeps NAME.autotune.json in its cache; older ones ignore
 * the variable and tune in the measured run, as before). */
static const char *const tune_cache_env[] = { "TRITON_CACHE_AUTOTUNING=1", NULL };

/* The mode as the records name it (TA_RUN_KIND_*), or -1. */
static int kind_of(ta_run_mode mode)
{
	switch (mode) {
	case TA_RUN_MODE_TIMED:
		return TA_RUN_KIND_TIMED;
	case TA_RUN_MODE_PC:
		return TA_RUN_KIND_PC;
	case TA_RUN_MODE_SOL:
		return TA_RUN_KIND_SOL;
	default:
		return -1;
	}
}

int ta_run_start(ta_run *r, ta_run_mode mode, char **err)
{
	if (r->child && !ta_runner_done(r->child)) {
		*err = ta_xstrdup("a run is in progress");
		return -1;
	}
	int kind = kind_of(mode);
	bool deep = mode == TA_RUN_MODE_PC || mode == TA_RUN_MODE_SOL;
	ta_buf names = TA_BUF_INIT;
	for (size_t i = 0; deep && i < r->n_names; i++)
		ta_buf_printf(&names, "%s%s", i ? "," : "", r->names[i]);
	/* A timed run of a file that autotunes: first once as it is, uninjected,
	 * so that the autotuner tunes there (ta_run_poll then starts the
	 * measured run). Its configs' benchmarks are no launches of the
	 * workload, and with several keys tuned in turn they cannot be told
	 * from it by their order alone. */
	bool cache = mode == TA_RUN_MODE_TIMED && r->tune_first && file_autotunes(r);
	bool warm = cache && !r->warming && !r->again;
	if (!r->warming && !r->again)
		r->made_again = false;
	bool tune = r->read_tune && mode == TA_RUN_MODE_TIMED;
	ta_runner_opts ro = {
		.argv = r->argv,
		.injector = kind >= 0 && !warm ? r->injector : NULL,
		.timeout_s = r->timeout_s,
		.records = kind >= 0 && !warm ? &r->recs : NULL,
		.run_index = kind >= 0 ? r->started[kind] : 0,
		.records_tee = kind >= 0 ? r->tee : NULL,   /* the tuning run's output too: a replay's report */
		/* a measured run after a tuning run is read for whether it tuned
		 * all the same, whoever asked for the run (a walk's re-run too) */
		.output_line = tune || cache || r->output_line ? feed_output : NULL,
		.output_ctx = r,
		.extra_env = cache ? tune_cache_env : NULL,
		.tee_output = kind >= 0 && r->tee != NULL,
		.deep = mode == TA_RUN_MODE_PC ? "pc" : mode == TA_RUN_MODE_SOL ? "sol" : NULL,
		.deep_kernels = deep ? ta_buf_str(&names) : NULL,
	};
	/* the report is read from the tuning run; from the measured one only
	 * when the tuning run printed none (a Triton without the cache) */
	r->feeding_tune = tune && (warm || !r->warming || r->tune.n_blocks == r->tune_blocks_before);
	if (warm)
		r->tune_blocks_before = r->tune.n_blocks;
	ta_runner *child = ta_runner_start(&ro, err);
	ta_buf_free(&names);
	if (!child)
		return -1;
	ta_runner_free(r->child);
	r->child = child;
	r->mode = mode;
	r->noted = false;
	r->after_warm = cache && !warm;
	r->tuned_in_run = false;
	r->warming = warm;
	r->again = false;
	r->cancelled = false;
	if (kind >= 0 && !warm)
		r->started[kind]++;
	return 0;
}

/* After the tuning run: the measured run, now (true), or none when it
 * cannot start or the run was cancelled (false: the tuning run's end
 * stands for the run's). */
static bool measured_after_warm(ta_run *r)
{
	if (!r->warming)
		return false;
	if (r->cancelled) {
		r->warming = false;
		return false;
	}
	const ta_run_result *w = ta_runner_result(r->child);
	r->warm_whole = w && w->state == TA_RUN_EXITED && w->exit_status == 0;
	char *err = NULL;
	if (ta_run_start(r, r->mode, &err) != 0) {
		free(err);
		r->warming = false;
		return false;
	}
	return true;
}

/* Once the child has ended: the autotuning report's last block, and the
 * run's wall time in the records. */
static void child_ended(ta_run *r)
{
	if (r->noted || !r->child || !ta_runner_done(r->child))
		return;
	r->noted = true;
	if (r->read_tune && r->mode == TA_RUN_MODE_TIMED)
		ta_autotune_log_finish(&r->tune);
	/* The tuning run is no run of the records (its launches are not). */
	int kind = kind_of(r->mode);
	if (kind >= 0 && !r->warming)
		ta_records_note_run(&r->recs, kind, ta_runner_result(r->child)->elapsed_s,
				    r->after_warm && !r->tuned_in_run, r->tee);
}

/* A measured run that tuned all the same because the tuning run before it
 * stopped early (at its time limit: a tuner that compiles dozens of configs
 * can take minutes): its launches mix the tuner's trials with the
 * workload's, and where every launch has one shape (a persistent grid)
 * nothing tells them apart. Its records are dropped and it is made once
 * more, now that its own tuning has filled the cache. (Where the tuning run
 * ended well and the measured one tuned anyway, Triton keeps no cache: a
 * third run would tune again.) Returns whether the new child started. */
static bool measured_again(ta_run *r)
{
	const ta_run_result *res = r->child ? ta_runner_result(r->child) : NULL;
	if (!r->after_warm || r->warm_whole || !r->tuned_in_run || r->made_again || r->cancelled || !res ||
	    res->state != TA_RUN_EXITED || res->exit_status != 0)
		return false;
	int kind = kind_of(r->mode);
	if (kind < 0)
		return false;
	ta_records_drop_run(&r->recs, res->elapsed_s, r->tee);
	r->started[kind]--;
	r->made_again = r->again = true;
	char *err = NULL;
	if (ta_run_start(r, r->mode, &err) != 0) {
		free(err);
		r->again = false;
		return false;
	}
	return true;
}

int ta_run_load(ta_run *r, const char *records, char **err)
{
	if (ta_records_load_file(&r->recs, records, err) != 0)
		return -1;
	/* Saved runs carry the child's output as "output" records. */
	if (r->read_tune) {
		char *e = NULL;
		if (ta_autotune_log_load_records(&r->tune, records, &e) < 0)
			free(e);
		ta_autotune_log_finish(&r->tune);
	}
	return 0;
}

size_t ta_run_fds(const ta_run *r, struct pollfd *fds, size_t max)
{
	return ta_run_running(r) ? ta_runner_fds(r->child, fds, max) : 0;
}

int ta_run_deadline_ms(const ta_run *r)
{
	return ta_run_running(r) ? ta_runner_next_deadline_ms(r->child) : -1;
}

bool ta_run_poll(ta_run *r, int timeout_ms)
{
	if (!r->child)
		return true;
	bool done = ta_runner_poll(r->child, timeout_ms);
	if (done && r->warming && measured_after_warm(r))
		return false;
	if (done && measured_again(r))
		return false;
	if (done)
		child_ended(r);
	return done;
}

void ta_run_wait(ta_run *r)
{
	if (!r->child)
		return;
	ta_runner_wait(r->child);
	if (r->warming && measured_after_warm(r))
		ta_runner_wait(r->child);
	if (measured_again(r))
		ta_runner_wait(r->child);
	child_ended(r);
}

void ta_run_cancel(ta_run *r)
{
	if (ta_run_running(r)) {
		r->cancelled = true;
		ta_runner_cancel(r->child);
	}
}

bool ta_run_running(const ta_run *r)
{
	return r && r->child && !ta_runner_done(r->child);
}

const ta_run_result *ta_run_outcome(const ta_run *r)
{
	return r->child ? ta_runner_result(r->child) : NULL;
}

char *ta_run_describe(const ta_run *r)
{
	return r->child ? ta_runner_describe(r->child) : NULL;
}

char *ta_run_log(const ta_run *r, size_t *len)
{
	if (!r->child) {
		if (len)
			*len = 0;
		return NULL;
	}
	return ta_runner_log(r->child, len);
}

void ta_run_note(ta_run *r, ta_run_mode mode, double wall_s)
{
	ta_records_note_run(&r->recs, kind_of(mode), wall_s, false, NULL);
}

void ta_run_read_tune(ta_run *r, const char *text, size_t len)
{
	if (text)
		ta_autotune_log_text(&r->tune, text, len);
	ta_autotune_log_finish(&r->tune);
	r->has_tune = true;
}

bool ta_run_can_profile(void)
{
#ifdef HAVE_CUPTI
	return true;
#else
	return false;
#endif
}

char *ta_run_why_silent(void)
{
	const char *cupti = ta_runner_find_cupti(NULL);
	if (!cupti)
		return ta_xasprintf("the CUPTI injector could not load (no records): libcupti was not "
				    "found where the CUDA toolkit keeps it (%s, /usr/local/cuda); install CUPTI",
				    CUPTI_LIBDIR[0] ? CUPTI_LIBDIR : "none found at build time");
	if (!ta_runner_cupti_fits(cupti))
		return ta_xasprintf("the CUPTI injector could not load (no records): the CUPTI in %s "
				    "is another version than the one this build needs (%s); rebuild tileadvise "
				    "against that CUDA toolkit (./configure --with-cuda=DIR)",
				    cupti, CUPTI_SONAME);
	return ta_xstrdup("the CUPTI injector was not loaded (no records): the program did "
			  "not use CUDA, or its CUDA ignored CUDA_INJECTION64_PATH");
}

size_t ta_run_tune_truncated(const ta_run *r)
{
	return r->tune.n_truncated;
}

const ta_records *ta_run_records(const ta_run *r)
{
	return &r->recs;
}

bool ta_run_recorded(const ta_run *r)
{
	return r->recs.n_kernels > 0;
}

size_t ta_run_launches(const ta_run *r, const ta_walk *w)
{
	size_t n = 0;
	for (size_t i = 0; i < r->recs.n_kernels; i++) {
		const char *name = r->recs.kernels[i].name;
		for (size_t k = 0; w && k < w->n_kernels; k++) {
			size_t len = strlen(w->kernels[k].name);
			if (!strncmp(name, w->kernels[k].name, len) && (name[len] == '\0' || name[len] == '_')) {
				n++;
				break;
			}
		}
	}
	return n;
}

size_t ta_run_errors(const ta_run *r)
{
	return r->recs.n_errors;
}

int ta_run_driver(const ta_run *r)
{
	return r->recs.driver_version;
}

unsigned ta_run_cupti(const ta_run *r)
{
	return r->recs.cupti_version;
}

ta_measurement *ta_run_measure(const ta_run *r, const ta_gpu_info *gpu)
{
	ta_measurement *m = ta_measure_build(&r->recs, r->names, r->autotuned,
					     r->n_names, gpu);
	if (r->has_tune)
		ta_autotune_attach(m, &r->tune);
	return m;
}

ta_deep *ta_run_deep(const ta_run *r, const ta_measurement *timed)
{
	return ta_deep_build(&r->recs, r->file, r->names, r->n_names, timed);
}

void ta_run_finish(const ta_run *r, const ta_gpu_info *gpu, const char *label, const char *date,
		   unsigned version, ta_run_figures *out, size_t *other)
{
	ta_measurement *m = ta_run_measure(r, gpu);
	/* A recorded stream may hold --deep runs too. */
	ta_deep *deep = ta_run_deep(r, m);
	ta_run_figures_from_measure(out, m, label, date, version);
	ta_run_figures_attach_deep(out, deep);
	if (other)
		*other = m->other_launches;
	ta_deep_free(deep);
	ta_measurement_free(m);
}

/* ---- recorded streams ---------------------------------------------------- */

static uint64_t first_start_ns(const ta_records *r)
{
	uint64_t t = 0;
	for (size_t i = 0; i < r->n_kernels; i++)
		if (r->kernels[i].start_ns && (!t || r->kernels[i].start_ns < t))
			t = r->kernels[i].start_ns;
	return t;
}

int ta_run_figures_from_records(const ta_model *m, const char *records, const ta_gpu_info *gpu,
				bool every_kernel, const char *label, ta_run_figures *out,
				ta_records_meta *meta, char **err)
{
	ta_run_opts o = {
		.file = m->src ? m->src->path : NULL,
		.model = every_kernel ? NULL : m,
		.read_tune = true,
	};
	ta_run *r = ta_run_new(&o);
	if (ta_run_load(r, records, err) != 0) {
		ta_run_free(r);
		return -1;
	}
	uint64_t t0 = first_start_ns(&r->recs);
	char *date = t0 ? ta_session_date_ns(t0) : ta_session_now();
	ta_run_finish(r, gpu, label, date, 0, out, NULL);
	if (meta) {
		meta->date = date;
		meta->driver = r->recs.driver_version;
		meta->cupti = r->recs.cupti_version;
	} else {
		free(date);
	}
	ta_run_free(r);
	return 0;
}
