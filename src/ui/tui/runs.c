/* Profiling runs and test runs, driven from the loop without blocking. */
#include "config.h"
#include "ui/tui/app.h"

#include <stdlib.h>
#include <string.h>

#include "checklist/rules.h"
#include "profile/autotune.h"
#include "profile/deep.h"
#include "profile/measure.h"
#include "util/buf.h"
#include "util/datadir.h"
#include "util/fsutil.h"

static double since(const struct timespec *t0)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

double ta_app_run_elapsed(const ta_app *app)
{
	return app->run_kind == TA_RUN_NONE ? 0.0 : since(&app->run_start);
}

/* Launches of the file's own kernels seen so far (names may carry a
 * Triton suffix). */
size_t ta_app_run_launches(const ta_app *app)
{
	size_t n = 0;
	const ta_walk *w = app->walk;
	for (size_t i = 0; i < app->recs.n_kernels; i++) {
		const char *name = app->recs.kernels[i].name;
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

static void ask_revert(ta_app *app, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ask_revert(ta_app *app, const char *fmt, ...)
{
	ta_buf b = TA_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	ta_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	ta_buf_puts(&b, " Revert it? (y/n)");
	free(app->prompt_text);
	app->prompt_text = ta_buf_steal(&b);
	app->prompt = TA_PROMPT_REVERT;
}

/* The file's kernel names and which of them it autotunes (caller frees
 * both), as the measurement and the --deep view take them. */
static const char **kernel_names(const ta_model *m, bool **autotuned)
{
	const char **names = ta_xcalloc(m->kernel_count + 1, sizeof *names);
	*autotuned = ta_xcalloc(m->kernel_count + 1, sizeof **autotuned);
	for (size_t i = 0; i < m->kernel_count; i++) {
		names[i] = m->kernels[i].name;
		(*autotuned)[i] = m->kernels[i].autotune != NULL;
	}
	return names;
}

static void finish_profile(ta_app *app)
{
	const ta_model *m = app->an->model;
	bool *autotuned;
	const char **names = kernel_names(m, &autotuned);
	ta_measurement *meas = ta_measure_build(&app->recs, names, autotuned, m->kernel_count,
						app->has_gpu ? &app->gpu : NULL);
	/* A recorded stream may hold --deep runs too. */
	ta_deep *deep = ta_deep_build(&app->recs, app->path, names, m->kernel_count, meas);
	free(names);
	free(autotuned);
	/* Triton's autotuning report, from the run's output (profile/autotune.h). */
	ta_autotune_log tl;
	ta_autotune_log_init(&tl);
	if (app->last_log)
		ta_autotune_log_text(&tl, app->last_log, strlen(app->last_log));
	ta_autotune_log_finish(&tl);
	ta_autotune_attach(meas, &tl);
	ta_autotune_log_clear(&tl);
	if (app->recs.driver_version > 0)
		app->sess->env.driver = app->recs.driver_version;
	if (app->recs.cupti_version)
		app->sess->env.cupti = app->recs.cupti_version;
	if (meas->n_kernels == 0) {
		ta_app_set_message(app, true, "the run launched none of the file's kernels (%zu other "
				   "launches): press l for its output", meas->other_launches);
		ta_measurement_free(meas);
		ta_deep_free(deep);
		app->pending_edit = -1;
		return;
	}
	ta_run_figures f;
	ta_run_figures_from_measure(&f, meas, app->run_label, NULL, app->sess->current);
	ta_run_figures_attach_deep(&f, deep);
	ta_deep_free(deep);
	ta_measurement_free(meas);
	int idx = ta_session_add_run(app->sess, &f);
	app->deep_run = idx;
	ta_app_rebuild_walk(app);
	if (app->pending_edit < 0 || (size_t)app->pending_edit >= app->sess->n_edits) {
		ta_app_set_message(app, false, "measured %zu kernels (%s)", app->sess->runs[idx].n_kernels,
				   app->run_label);
		app->pending_edit = -1;
		return;
	}
	ta_session_edit *e = &app->sess->edits[app->pending_edit];
	e->after_run = idx;
	ta_app_rebuild_walk(app);
	/* The verdict per kernel: the first that got slower asks to revert. */
	const ta_run_figures *before = e->before_run >= 0 ? &app->sess->runs[e->before_run] : NULL;
	const ta_run_figures *after = &app->sess->runs[idx];
	ta_buf b = TA_BUF_INIT;
	bool slower = false;
	for (size_t k = 0; before && k < after->n_kernels; k++) {
		ta_change c = ta_change_between(before, after, after->kernels[k].name);
		if (!c.measured)
			continue;
		ta_buf_printf(&b, "%s%s %.3f [%.3f, %.3f] %s", b.len ? "; " : "", after->kernels[k].name,
			      c.cmp.ratio, c.cmp.lo, c.cmp.hi, ta_verdict_name(c.cmp.verdict));
		if (c.cmp.verdict == TA_VERDICT_SLOWER && !slower) {
			slower = true;
			ask_revert(app, "%s made %s slower (%.3f times the time).", e->id,
				   after->kernels[k].name, c.cmp.ratio);
		}
	}
	ta_app_set_message(app, false, "after %s: %s", e->id, b.len ? ta_buf_str(&b) : "no earlier run to compare with");
	ta_buf_free(&b);
	if (!slower && app->sess->test_command)
		ta_app_start_test(app);
	else
		app->pending_edit = -1;
}

static bool can_profile(ta_app *app)
{
	if (app->read_only || app->opt.no_profile)
		return false;
	return app->opt.records || !app->why_no_profile;
}

/* The names of the file's kernels, comma-separated (caller frees). */
static char *kernel_list(const ta_app *app)
{
	ta_buf b = TA_BUF_INIT;
	const ta_model *m = app->an->model;
	for (size_t i = 0; i < m->kernel_count; i++)
		ta_buf_printf(&b, "%s%s", i ? "," : "", m->kernels[i].name);
	return ta_buf_steal(&b);
}

/* Starts a run of argv in the background: under the injector when recs is
 * given (its records go there; deep names a --deep mode), else plainly (a
 * test). On failure says so (what: "the run") and returns false. */
static bool start_run(ta_app *app, ta_run_kind kind, const char *label, char *const *argv,
		      ta_records *recs, const char *deep, const char *what)
{
	char *injector = recs ? ta_path_join(ta_libdir(), "libtileadvise-cupti.so") : NULL;
	char *kernels = deep ? kernel_list(app) : NULL;
	ta_runner_opts ro = {
		.argv = argv,
		.injector = injector,
		.timeout_s = app->opt.timeout_s > 0 ? app->opt.timeout_s : TA_RUNNER_DEFAULT_TIMEOUT_S,
		.records = recs,
		.deep = deep,
		.deep_kernels = kernels,
	};
	char *err = NULL;
	app->runner = ta_runner_start(&ro, &err);
	free(injector);
	free(kernels);
	if (!app->runner) {
		ta_app_set_message(app, true, "cannot start %s: %s", what, err ? err : "?");
		free(err);
		return false;
	}
	char *copy = ta_xstrdup(label);   /* label may be app->run_label itself */
	free(app->run_label);
	app->run_label = copy;
	app->run_kind = kind;
	clock_gettime(CLOCK_MONOTONIC, &app->run_start);
	return true;
}

void ta_app_start_profile(ta_app *app, const char *label)
{
	if (!can_profile(app)) {
		ta_app_set_message(app, true, "cannot run: %s", app->why_no_profile ? app->why_no_profile
											: "read-only");
		return;
	}
	if (app->runner) {
		ta_app_set_message(app, true, "a run is in progress (Esc cancels it)");
		return;
	}
	free(app->run_label);
	app->run_label = ta_xstrdup(label);
	ta_records_clear(&app->recs);
	ta_records_init(&app->recs);
	if (app->opt.records) {
		/* A recorded stream stands in for the run (tests, demos). */
		char *err;
		if (ta_records_load_file(&app->recs, app->opt.records, &err) != 0) {
			ta_app_set_message(app, true, "%s: %s", app->opt.records, err);
			free(err);
			app->pending_edit = -1;
			return;
		}
		free(app->last_run_note);
		app->last_run_note = ta_xasprintf("replayed %s", app->opt.records);
		finish_profile(app);
		return;
	}
	char *argv_default[4];
	ta_runner_python_argv(app->path, argv_default);
	char *const *argv = app->sess->command ? app->sess->command : argv_default;
	if (!start_run(app, TA_RUN_PROFILE, label, argv, &app->recs, NULL, "the run"))
		app->pending_edit = -1;
}


/* One --deep run of the file's command: PC sampling or the counters. Its
 * records go to deep_recs; the timed run stays apart from it. */
static bool start_deep(ta_app *app, ta_run_kind kind)
{
	char *argv_default[4];
	ta_runner_python_argv(app->path, argv_default);
	char *const *argv = app->sess->command ? app->sess->command : argv_default;
	bool pc = kind == TA_RUN_DEEP_PC;
	return start_run(app, kind, pc ? "--deep: PC sampling" : "--deep: counters", argv,
			 &app->deep_recs, pc ? "pc" : "sol", "the --deep run");
}

/* After a measured run: the --deep runs, when asked for and nothing else
 * (a question, a test) waits. */
static void maybe_start_deep(ta_app *app, double timed_wall_s)
{
	if (!app->opt.deep || app->opt.records || app->runner || app->prompt != TA_PROMPT_NONE ||
	    app->pending_edit >= 0 || app->deep_run < 0)
		return;
	ta_records_clear(&app->deep_recs);
	ta_records_init(&app->deep_recs);
	ta_records_note_run(&app->deep_recs, TA_RUN_KIND_TIMED, timed_wall_s, NULL);
	start_deep(app, TA_RUN_DEEP_PC);
}

/* Both --deep runs are in: their view joins the run they followed. */
static void finish_deep(ta_app *app)
{
	if (app->deep_run < 0 || (size_t)app->deep_run >= app->sess->n_runs)
		return;
	const ta_model *m = app->an->model;
	bool *autotuned;
	const char **names = kernel_names(m, &autotuned);
	/* The timed run's records are still in recs: their steady grids pick
	 * the counters of the launches the timing describes. */
	ta_measurement *meas = ta_measure_build(&app->recs, names, autotuned, m->kernel_count, NULL);
	ta_deep *d = ta_deep_build(&app->deep_recs, app->path, names, m->kernel_count, meas);
	ta_measurement_free(meas);
	free(names);
	free(autotuned);
	if (!d) {
		ta_app_set_message(app, true, "--deep collected nothing%s (press l for the output)",
				   app->deep_recs.n_errors ? ": CUPTI refused" : "");
		return;
	}
	ta_run_figures_attach_deep(&app->sess->runs[app->deep_run], d);
	ta_app_set_message(app, false, "--deep: %llu stall samples, counters %s; PC sampling run %.1f×, "
			   "counters run %.1f× the timed run", (unsigned long long)d->pc_samples,
			   d->has_sol ? "read" : "not read", d->pc_overhead, d->sol_overhead);
	ta_deep_free(d);
	ta_app_rebuild_walk(app);
}

void ta_app_start_baseline(ta_app *app)
{
	if (!app->baseline_pending || app->runner || !app->opt.baseline)
		return;
	app->baseline_pending = false;
	if (!can_profile(app) || app->why_no_profile) {
		ta_app_set_message(app, true, "cannot measure the baseline: %s (--baseline-records FILE "
				   "takes a recorded one)", app->why_no_profile ? app->why_no_profile
										: "read-only");
		return;
	}
	ta_records_clear(&app->recs);
	ta_records_init(&app->recs);
	char *argv[] = { "/bin/sh", "-c", (char *)app->opt.baseline, NULL };
	start_run(app, TA_RUN_BASELINE, "baseline", argv, &app->recs, NULL, "the baseline");
}

/* Every kernel the baseline launched counts: a reference implementation
 * runs kernels of its own. */
static void finish_baseline(ta_app *app)
{
	ta_measurement *meas = ta_measure_build(&app->recs, NULL, NULL, 0, app->has_gpu ? &app->gpu : NULL);
	ta_run_figures f;
	ta_run_figures_from_measure(&f, meas, "baseline", NULL, 0);
	ta_measurement_free(meas);
	if (f.n_kernels == 0) {
		ta_run_figures_clear(&f);
		ta_app_set_message(app, true, "the baseline launched no kernel (press l for its output)");
		return;
	}
	size_t n = f.n_kernels;
	ta_session_set_baseline(app->sess, &f, app->opt.baseline);
	ta_app_rebuild_walk(app);
	ta_app_set_message(app, false, "baseline measured (%zu kernel%s): T4 and T5 compare with it", n,
			   n == 1 ? "" : "s");
}

void ta_app_start_test(ta_app *app)
{
	if (!app->sess->test_command || app->runner)
		return;
	char *argv[] = { "/bin/sh", "-c", app->sess->test_command, NULL };
	start_run(app, TA_RUN_TEST, "test", argv, NULL, NULL, "the test");
}

static void finish_test(ta_app *app, const ta_run_result *res, const char *how)
{
	bool ok = res->state == TA_RUN_EXITED && res->exit_status == 0;
	ta_session_edit *e = app->pending_edit >= 0 && (size_t)app->pending_edit < app->sess->n_edits
			   ? &app->sess->edits[app->pending_edit] : ta_session_last_edit(app->sess);
	app->pending_edit = -1;
	if (e) {
		e->test = ok ? TA_TEST_PASSED : TA_TEST_FAILED;
		free(e->test_note);
		e->test_note = ta_xstrdup(how);
	}
	if (ok) {
		ta_app_set_message(app, false, "test passed%s%s", e ? " after " : "", e ? e->id : "");
	} else if (e) {
		ask_revert(app, "The test failed after %s (%s).", e->id, how);
	} else {
		ta_app_set_message(app, true, "test failed (%s)", how);
	}
}

unsigned ta_app_run_poll(ta_app *app)
{
	if (!app->runner)
		return 0;
	if (!ta_runner_poll(app->runner, 0))
		return TA_REACT_REDRAW;
	ta_run_kind kind = app->run_kind;
	free(app->last_log);
	app->last_log = ta_runner_log(app->runner, NULL);
	char *how = ta_runner_describe(app->runner);
	ta_run_result res = *ta_runner_result(app->runner);
	ta_runner_free(app->runner);
	app->runner = NULL;
	app->run_kind = TA_RUN_NONE;
	free(app->last_run_note);
	app->last_run_note = ta_xstrdup(how);
	if (kind == TA_RUN_TEST) {
		finish_test(app, &res, how);
	} else if (kind == TA_RUN_DEEP_PC || kind == TA_RUN_DEEP_SOL) {
		ta_records_note_run(&app->deep_recs, kind == TA_RUN_DEEP_PC ? TA_RUN_KIND_PC : TA_RUN_KIND_SOL,
				    res.elapsed_s, NULL);
		if (res.state == TA_RUN_CANCELLED)
			ta_app_set_message(app, false, "--deep run cancelled");
		else if (kind == TA_RUN_DEEP_PC)
			start_deep(app, TA_RUN_DEEP_SOL);
		else
			finish_deep(app);
	} else if (kind == TA_RUN_BASELINE) {
		if (res.state == TA_RUN_CANCELLED || res.state == TA_RUN_EXEC_FAILED)
			ta_app_set_message(app, true, "the baseline %s", how);
		else
			finish_baseline(app);
	} else if (res.state == TA_RUN_CANCELLED) {
		ta_app_set_message(app, false, "run cancelled");
		app->pending_edit = -1;
	} else if (res.state == TA_RUN_EXEC_FAILED || (app->recs.n_kernels == 0 && res.state != TA_RUN_EXITED)) {
		ta_app_set_message(app, true, "the run failed: %s (press l for its output)", how);
		app->pending_edit = -1;
	} else {
		if (res.state != TA_RUN_EXITED || res.exit_status != 0)
			ta_app_set_message(app, true, "the run %s", how);
		finish_profile(app);
	}
	free(how);
	if (kind == TA_RUN_PROFILE && res.state != TA_RUN_CANCELLED)
		maybe_start_deep(app, res.elapsed_s);
	/* The baseline waits for the file's own run (and its --deep runs) and
	 * any question. */
	if ((kind == TA_RUN_PROFILE || kind == TA_RUN_DEEP_SOL) && res.state != TA_RUN_CANCELLED &&
	    !app->runner && app->prompt == TA_PROMPT_NONE && app->pending_edit < 0)
		ta_app_start_baseline(app);
	return TA_REACT_REDRAW | TA_REACT_SAVE;
}

void ta_app_cancel_run(ta_app *app)
{
	if (app->runner)
		ta_runner_cancel(app->runner);
}
