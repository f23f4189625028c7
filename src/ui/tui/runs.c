/* Profiling runs and test runs, driven from the loop without blocking. */
#include "config.h"
#include "ui/tui/app.h"

#include <stdlib.h>
#include <string.h>

#include "advise/check_lines.h"
#include "checklist/rules.h"
#include "util/buf.h"
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

/* Launches of the file's own kernels seen so far. */
size_t ta_app_run_launches(const ta_app *app)
{
	return app->run ? ta_run_launches(app->run, app->walk) : 0;
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

/* A run of argv (NULL: the file's command) for the file's kernels, or for
 * every kernel it launches (a baseline). */
static ta_run *new_run(const ta_app *app, char *const *argv, bool file_kernels)
{
	ta_run_opts o = {
		.file = app->path,
		.model = file_kernels ? app->an->model : NULL,
		.argv = argv,
		.timeout_s = app->opt.timeout_s,
	};
	return ta_run_new(&o);
}

static void finish_profile(ta_app *app)
{
	/* Triton's autotuning report, from the run's output. */
	ta_run_read_tune(app->run, app->last_log, app->last_log ? strlen(app->last_log) : 0);
	ta_run_figures f;
	size_t other = 0;
	ta_run_finish(app->run, app->has_gpu ? &app->gpu : NULL, app->run_label, NULL, app->sess->current,
		      &f, &other);
	if (ta_run_driver(app->run) > 0)
		app->sess->env.driver = ta_run_driver(app->run);
	if (ta_run_cupti(app->run))
		app->sess->env.cupti = ta_run_cupti(app->run);
	if (f.n_kernels == 0) {
		ta_app_set_message(app, true, "the run launched none of the file's kernels (%zu other "
				   "launches): press l for its output", other);
		ta_run_figures_clear(&f);
		app->pending_edit = -1;
		return;
	}
	int idx = ta_session_add_run(app->sess, &f);
	app->deep_run = idx;
	ta_app_rebuild_walk(app);
	if (app->pending_edit < 0 || (size_t)app->pending_edit >= app->sess->n_edits) {
		size_t nk = app->sess->runs[idx].n_kernels;
		ta_app_set_message(app, false, "measured %zu kernel%s (%s)", nk, nk == 1 ? "" : "s", app->run_label);
		app->pending_edit = -1;
		return;
	}
	ta_session_edit *e = &app->sess->edits[app->pending_edit];
	e->after_run = idx;
	ta_app_rebuild_walk(app);
	if (e->broken) {
		/* No verdict: a broken program's time says nothing of the edit. */
		ta_app_set_message(app, true, "after %s: broken: %s", e->id, e->broken);
		app->pending_edit = -1;
		return;
	}
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

/* Starts a child of run (app->run, deep or test) in mode in the background.
 * On failure says so (what: "the run") and returns false. */
static bool start_run(ta_app *app, ta_run *run, ta_run_kind kind, const char *label, ta_run_mode mode,
		      const char *what)
{
	char *err = NULL;
	if (ta_run_start(run, mode, &err) != 0) {
		ta_app_set_message(app, true, "cannot start %s: %s", what, err ? err : "?");
		free(err);
		return false;
	}
	app->active = run;
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
	if (app->active) {
		ta_app_set_message(app, true, "a run is in progress (Esc cancels it)");
		return;
	}
	free(app->run_label);
	app->run_label = ta_xstrdup(label);
	ta_run_free(app->run);
	app->run = new_run(app, app->sess->command, true);
	if (app->opt.records) {
		/* A recorded stream stands in for the run (tests, demos). */
		char *err;
		if (ta_run_load(app->run, app->opt.records, &err) != 0) {
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
	if (!start_run(app, app->run, TA_RUN_PROFILE, label, TA_RUN_MODE_TIMED, "the run"))
		app->pending_edit = -1;
}


/* One --deep run of the file's command: PC sampling or the counters. Its
 * records go to app->deep; the timed run stays apart from it. */
static bool start_deep(ta_app *app, ta_run_kind kind)
{
	bool pc = kind == TA_RUN_DEEP_PC;
	return start_run(app, app->deep, kind, pc ? "--deep: PC sampling" : "--deep: counters",
			 pc ? TA_RUN_MODE_PC : TA_RUN_MODE_SOL, "the --deep run");
}

/* After a measured run: the --deep runs, when asked for and nothing else
 * (a question, a test) waits. */
static void maybe_start_deep(ta_app *app, double timed_wall_s)
{
	if (!app->opt.deep || app->opt.records || app->active || app->prompt != TA_PROMPT_NONE ||
	    app->pending_edit >= 0 || app->deep_run < 0)
		return;
	ta_run_free(app->deep);
	app->deep = new_run(app, app->sess->command, true);
	ta_run_note(app->deep, TA_RUN_MODE_TIMED, timed_wall_s);
	start_deep(app, TA_RUN_DEEP_PC);
}

/* Both --deep runs are in: their view joins the run they followed. */
static void finish_deep(ta_app *app)
{
	if (app->deep_run < 0 || (size_t)app->deep_run >= app->sess->n_runs)
		return;
	/* The timed run is still app->run: its steady grids pick the counters
	 * of the launches the timing describes. */
	ta_measurement *meas = ta_run_measure(app->run, NULL);
	ta_deep *d = ta_run_deep(app->deep, meas);
	ta_measurement_free(meas);
	if (!d) {
		ta_app_set_message(app, true, "--deep collected nothing%s (press l for the output)",
				   ta_run_errors(app->deep) ? ": CUPTI refused" : "");
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
	if (!app->baseline_pending || app->active || !app->opt.baseline)
		return;
	app->baseline_pending = false;
	if (!can_profile(app) || app->why_no_profile) {
		ta_app_set_message(app, true, "cannot measure the baseline: %s (--baseline-records FILE "
				   "takes a recorded one)", app->why_no_profile ? app->why_no_profile
										: "read-only");
		return;
	}
	char *argv[] = { "/bin/sh", "-c", (char *)app->opt.baseline, NULL };
	ta_run_free(app->run);
	app->run = new_run(app, argv, false);
	start_run(app, app->run, TA_RUN_BASELINE, "baseline", TA_RUN_MODE_TIMED, "the baseline");
}

/* Every kernel the baseline launched counts: a reference implementation
 * runs kernels of its own. */
static void finish_baseline(ta_app *app)
{
	ta_run_figures f;
	ta_run_finish(app->run, app->has_gpu ? &app->gpu : NULL, "baseline", NULL, 0, &f, NULL);
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
	if (!app->sess->test_command || app->active)
		return;
	char *argv[] = { "/bin/sh", "-c", app->sess->test_command, NULL };
	ta_run_free(app->test);
	app->test = new_run(app, argv, false);
	start_run(app, app->test, TA_RUN_TEST, "test", TA_RUN_MODE_PLAIN, "the test");
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
		ta_app_rebuild_walk(app);   /* a failed test marks the step broken */
	}
	if (ok) {
		ta_app_set_message(app, false, "test passed%s%s", e ? " after " : "", e ? e->id : "");
	} else if (e) {
		ask_revert(app, "The test failed after %s (%s).", e->id, how);
	} else {
		ta_app_set_message(app, true, "test failed (%s)", how);
	}
}

/* The user's own run is a test too: a re-run after an edit that fails, or
 * whose check lines differ from the first run's, marks the edit broken and
 * offers to revert it. A first run that exits 0 gives the check lines. */
static void judge_run(ta_app *app, const ta_run_result *res, const char *how)
{
	ta_session_edit *e = app->pending_edit >= 0 && (size_t)app->pending_edit < app->sess->n_edits
			   ? &app->sess->edits[app->pending_edit] : NULL;
	if (!e) {
		if (!app->sess->check_lines && res->state == TA_RUN_EXITED && res->exit_status == 0)
			app->sess->check_lines = ta_check_lines(app->last_log);
		return;
	}
	char *why = ta_check_rerun(res, how, app->sess->check_lines, app->last_log);
	if (!why)
		return;
	free(e->broken);
	e->broken = why;
	ta_app_rebuild_walk(app);
	/* The footer has one line: a long reason stays on the step page. */
	if (strlen(why) <= 60)
		ask_revert(app, "%s broke the program: %s.", e->id, why);
	else
		ask_revert(app, "%s broke the program (its step page says how).", e->id);
}

unsigned ta_app_run_poll(ta_app *app)
{
	ta_run *run = app->active;
	if (!run)
		return 0;
	if (!ta_run_poll(run, 0))
		return TA_REACT_REDRAW;
	ta_run_kind kind = app->run_kind;
	free(app->last_log);
	app->last_log = ta_run_log(run, NULL);
	char *how = ta_run_describe(run);
	ta_run_result res = *ta_run_outcome(run);
	app->active = NULL;
	app->run_kind = TA_RUN_NONE;
	free(app->last_run_note);
	app->last_run_note = ta_xstrdup(how);
	if (kind == TA_RUN_PROFILE && res.state != TA_RUN_CANCELLED)
		judge_run(app, &res, how);
	if (kind == TA_RUN_TEST) {
		finish_test(app, &res, how);
	} else if (kind == TA_RUN_DEEP_PC || kind == TA_RUN_DEEP_SOL) {
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
	} else if (res.state == TA_RUN_EXEC_FAILED || (!ta_run_recorded(app->run) && res.state != TA_RUN_EXITED)) {
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
	    !app->active && app->prompt == TA_PROMPT_NONE && app->pending_edit < 0)
		ta_app_start_baseline(app);
	return TA_REACT_REDRAW | TA_REACT_SAVE;
}

void ta_app_cancel_run(ta_app *app)
{
	if (app->active)
		ta_run_cancel(app->active);
}
