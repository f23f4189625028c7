/* The advisor's runs: the file's timed runs, the test, the --deep runs
 * and the baseline, one at a time, fed from the front end's loop without
 * blocking; and what each run's end means for the edit before it. */
#include "config.h"
#include "advise/advisor_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "advise/check_lines.h"
#include "util/buf.h"
#include "util/fsutil.h"

static double since(const struct timespec *t0)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

double ta_advisor_run_elapsed(const ta_advisor *a)
{
	return a->run_kind == TA_RUN_NONE ? 0.0 : since(&a->run_start);
}

size_t ta_advisor_run_launches(const ta_advisor *a)
{
	return a->run ? ta_run_launches(a->run, a->walk) : 0;
}

ta_run_kind ta_advisor_run_kind(const ta_advisor *a)
{
	return a->run_kind;
}

const char *ta_advisor_run_label(const ta_advisor *a)
{
	return a->run_label;
}

char *ta_advisor_run_output(const ta_advisor *a)
{
	return a->active ? ta_run_log(a->active, NULL) : NULL;
}

const char *ta_advisor_last_output(const ta_advisor *a)
{
	return a->last_log;
}

const char *ta_advisor_last_note(const ta_advisor *a)
{
	return a->last_run_note;
}

bool ta_advisor_busy(const ta_advisor *a)
{
	return a->run_kind != TA_RUN_NONE;
}

size_t ta_advisor_fds(const ta_advisor *a, struct pollfd *fds, size_t max)
{
	return a->active ? ta_run_fds(a->active, fds, max) : 0;
}

int ta_advisor_deadline_ms(const ta_advisor *a)
{
	return a->active ? ta_run_deadline_ms(a->active) : -1;
}

void ta_advisor_cancel(ta_advisor *a)
{
	if (a->active)
		ta_run_cancel(a->active);
}

bool ta_advisor_offers_revert(const ta_advisor *a)
{
	return a->offer;
}

void ta_advisor_keep(ta_advisor *a)
{
	a->offer = false;
}

void adv_runs_free(ta_advisor *a)
{
	ta_run_free(a->run);
	ta_run_free(a->deep);
	ta_run_free(a->test);
	a->run = a->deep = a->test = a->active = NULL;
}

/* An edit whose run or test says it should go: the revert is offered. */
static void offer_revert(ta_advisor *a, ta_advisor_event_kind kind, int edit, int run, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void offer_revert(ta_advisor *a, ta_advisor_event_kind kind, int edit, int run, const char *fmt, ...)
{
	ta_buf b = TA_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	ta_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	adv_event *e = adv_push(a, kind, true, ta_buf_steal(&b));
	e->offers_revert = true;
	e->edit = edit;
	e->run = run;
	a->offer = true;
}

/* A run of argv (NULL: the file's command) for the file's kernels, or for
 * every kernel it launches (a baseline). */
static ta_run *new_run(const ta_advisor *a, char *const *argv, bool file_kernels)
{
	ta_run_opts o = {
		.file = a->path,
		.model = file_kernels ? a->an->model : NULL,
		.argv = argv,
		.timeout_s = a->opt.timeout_s,
		/* a re-run of a file that autotunes tunes first, uninjected */
		.tune_first = file_kernels && !a->opt.records && !a->opt.records_for,
	};
	return ta_run_new(&o);
}

static bool pending_ok(const ta_advisor *a)
{
	return a->pending_edit >= 0 && (size_t)a->pending_edit < a->sess->n_edits;
}

static void finish_profile(ta_advisor *a)
{
	ta_session *s = a->sess;
	/* Triton's autotuning report, from the run's output. */
	ta_run_read_tune(a->run, a->last_log, a->last_log ? strlen(a->last_log) : 0);
	ta_run_figures f;
	size_t other = 0;
	ta_run_finish(a->run, a->has_gpu ? &a->gpu : NULL, a->run_label, NULL, s->current, &f, &other);
	if (ta_run_driver(a->run) > 0)
		s->env.driver = ta_run_driver(a->run);
	if (ta_run_cupti(a->run))
		s->env.cupti = ta_run_cupti(a->run);
	if (f.n_kernels == 0) {
		adv_event *e = adv_push(a, TA_ADVISOR_RUN_FAILED, true,
					ta_xasprintf("the run launched none of the file's kernels, only %zu other "
						     "launches", other));
		e->see_log = true;
		e->edit = pending_ok(a) ? a->pending_edit : -1;
		ta_run_figures_clear(&f);
		a->pending_edit = -1;
		return;
	}
	int idx = ta_session_add_run(s, &f);
	a->deep_run = idx;
	adv_rebuild_walk(a);
	if (!pending_ok(a)) {
		size_t nk = s->runs[idx].n_kernels;
		adv_event *e = adv_push(a, TA_ADVISOR_MEASURED, false,
					ta_xasprintf("measured %zu kernel%s (%s)", nk, nk == 1 ? "" : "s", a->run_label));
		e->run = idx;
		a->pending_edit = -1;
		return;
	}
	int ei = a->pending_edit;
	ta_session_edit *e = &s->edits[ei];
	e->after_run = idx;
	adv_rebuild_walk(a);
	if (e->broken) {
		/* No verdict: a broken program's time says nothing of the edit. */
		adv_event *x = adv_push(a, TA_ADVISOR_MEASURED, true, ta_xasprintf("after %s: broken: %s", e->id,
										   e->broken));
		x->edit = ei;
		x->run = idx;
		a->pending_edit = -1;
		return;
	}
	/* The verdict per kernel: the first that got slower offers the revert. */
	const ta_run_figures *before = e->before_run >= 0 ? &s->runs[e->before_run] : NULL;
	const ta_run_figures *after = &s->runs[idx];
	ta_buf b = TA_BUF_INIT;
	bool slower = false;
	for (size_t k = 0; before && k < after->n_kernels; k++) {
		ta_change c = ta_session_change(s, e->before_run, idx, after->kernels[k].name);
		if (!c.measured)
			continue;
		ta_buf_printf(&b, "%s%s %.3f [%.3f, %.3f] %s", b.len ? "; " : "", after->kernels[k].name,
			      c.cmp.ratio, c.cmp.lo, c.cmp.hi, ta_verdict_name(c.cmp.verdict));
		if (c.cmp.verdict == TA_VERDICT_SLOWER && !slower) {
			slower = true;
			offer_revert(a, TA_ADVISOR_SLOWER, ei, idx, "%s made %s slower (%.3f times the time).", e->id,
				     after->kernels[k].name, c.cmp.ratio);
		}
	}
	adv_event *x = adv_push(a, TA_ADVISOR_MEASURED, false,
				ta_xasprintf("after %s: %s", e->id, b.len ? ta_buf_str(&b)
									  : "no earlier run to compare with"));
	x->edit = ei;
	x->run = idx;
	ta_buf_free(&b);
	if (!slower && s->test_command)
		adv_start_test(a);
	else
		a->pending_edit = -1;
}

/* Starts a child of run (a->run, deep or test) in mode in the background.
 * On failure says so (what: "the run") and returns false. */
static bool start_run(ta_advisor *a, ta_run *run, ta_run_kind kind, const char *label, ta_run_mode mode,
		      const char *what)
{
	char *err = NULL;
	if (ta_run_start(run, mode, &err) != 0) {
		adv_note(a, TA_ADVISOR_NOTE, true, "cannot start %s: %s", what, err ? err : "?");
		free(err);
		return false;
	}
	a->active = run;
	char *copy = ta_xstrdup(label);   /* label may be a->run_label itself */
	free(a->run_label);
	a->run_label = copy;
	a->run_kind = kind;
	clock_gettime(CLOCK_MONOTONIC, &a->run_start);
	return true;
}

/* The recorded stream that stands for this run of the file: --records, or
 * the test double's. */
static const char *stream_for(ta_advisor *a)
{
	const char *r = a->opt.records_for ? a->opt.records_for(a->opt.records_ctx, a->runs_made) : NULL;
	return r ? r : a->opt.records;
}

void adv_start_profile(ta_advisor *a, const char *label)
{
	if (!ta_advisor_can_run(a)) {
		adv_note(a, TA_ADVISOR_NOTE, true, "cannot run: %s", a->why_no_profile ? a->why_no_profile
										  : "read-only");
		return;
	}
	if (a->active) {
		adv_note(a, TA_ADVISOR_NOTE, true, "a run is in progress");
		return;
	}
	if (a->opt.recording) {
		/* Saved on the GPU: its date, its driver and Triton's report are
		 * the stream's. */
		adv_record_first_run(a, a->opt.records, label);
		return;
	}
	free(a->run_label);
	a->run_label = ta_xstrdup(label);
	ta_run_free(a->run);
	a->run = new_run(a, a->sess->command, true);
	const char *records = stream_for(a);
	a->runs_made++;
	if (records) {
		/* A recorded stream stands in for the run (tests, demos). */
		char *err;
		if (ta_run_load(a->run, records, &err) != 0) {
			adv_note(a, TA_ADVISOR_RUN_FAILED, true, "%s: %s", records, err);
			free(err);
			a->pending_edit = -1;
			return;
		}
		free(a->last_run_note);
		a->last_run_note = ta_xasprintf("replayed %s", records);
		finish_profile(a);
		return;
	}
	if (!start_run(a, a->run, TA_RUN_PROFILE, label, TA_RUN_MODE_TIMED, "the run"))
		a->pending_edit = -1;
}

void ta_advisor_rerun(ta_advisor *a, const char *label)
{
	adv_start_profile(a, label);
}

/* One --deep run of the file's command: PC sampling or the counters. Its
 * records go to a->deep; the timed run stays apart from it. */
static bool start_deep(ta_advisor *a, ta_run_kind kind)
{
	bool pc = kind == TA_RUN_DEEP_PC;
	return start_run(a, a->deep, kind, pc ? "--deep: PC sampling" : "--deep: counters",
			 pc ? TA_RUN_MODE_PC : TA_RUN_MODE_SOL, "the --deep run");
}

/* After a measured run: the --deep runs, when asked for and nothing else
 * (an offer, a test) waits. */
static void maybe_start_deep(ta_advisor *a, double timed_wall_s)
{
	if (!a->opt.deep || a->opt.records || a->opt.records_for || a->active || a->offer || a->pending_edit >= 0 || a->deep_run < 0)
		return;
	ta_run_free(a->deep);
	a->deep = new_run(a, a->sess->command, true);
	ta_run_note(a->deep, TA_RUN_MODE_TIMED, timed_wall_s);
	start_deep(a, TA_RUN_DEEP_PC);
}

/* Both --deep runs are in: their view joins the run they followed. */
static void finish_deep(ta_advisor *a)
{
	ta_session *s = a->sess;
	if (a->deep_run < 0 || (size_t)a->deep_run >= s->n_runs)
		return;
	/* The timed run is still a->run: its steady grids pick the counters
	 * of the launches the timing describes. */
	ta_measurement *meas = ta_run_measure(a->run, NULL);
	ta_deep *d = ta_run_deep(a->deep, meas);
	ta_measurement_free(meas);
	if (!d) {
		adv_event *e = adv_push(a, TA_ADVISOR_RUN_FAILED, true,
					ta_xasprintf("--deep collected nothing%s", ta_run_errors(a->deep)
										      ? ": CUPTI refused" : ""));
		e->see_log = true;
		return;
	}
	ta_run_figures_attach_deep(&s->runs[a->deep_run], d);
	adv_event *e = adv_push(a, TA_ADVISOR_DEEP_DONE, false,
				ta_xasprintf("--deep: %llu stall samples, counters %s; PC sampling run %.1f×, "
					     "counters run %.1f× the timed run", (unsigned long long)d->pc_samples,
					     d->has_sol ? "read" : "not read", d->pc_overhead, d->sol_overhead));
	e->run = a->deep_run;
	ta_deep_free(d);
	adv_rebuild_walk(a);
}

void adv_start_baseline(ta_advisor *a)
{
	if (!a->baseline_pending || a->active || !a->opt.baseline)
		return;
	a->baseline_pending = false;
	if (!ta_advisor_can_run(a) || a->why_no_profile) {
		adv_note(a, TA_ADVISOR_NOTE, true, "cannot measure the baseline: %s (--baseline-records FILE "
			 "takes a recorded one)", a->why_no_profile ? a->why_no_profile : "read-only");
		return;
	}
	char *argv[] = { "/bin/sh", "-c", (char *)a->opt.baseline, NULL };
	ta_run_free(a->run);
	a->run = new_run(a, argv, false);
	start_run(a, a->run, TA_RUN_BASELINE, "baseline", TA_RUN_MODE_TIMED, "the baseline");
}

/* Every kernel the baseline launched counts: a reference implementation
 * runs kernels of its own. */
static void finish_baseline(ta_advisor *a)
{
	ta_run_figures f;
	ta_run_finish(a->run, a->has_gpu ? &a->gpu : NULL, "baseline", NULL, 0, &f, NULL);
	if (f.n_kernels == 0) {
		ta_run_figures_clear(&f);
		adv_event *e = adv_push(a, TA_ADVISOR_RUN_FAILED, true, ta_xstrdup("the baseline launched no kernel"));
		e->see_log = true;
		return;
	}
	size_t n = f.n_kernels;
	ta_session_set_baseline(a->sess, &f, a->opt.baseline);
	adv_rebuild_walk(a);
	adv_note(a, TA_ADVISOR_BASELINE_DONE, false, "baseline measured (%zu kernel%s): T4 and T5 compare with it",
		 n, n == 1 ? "" : "s");
}

void adv_start_test(ta_advisor *a)
{
	if (!a->sess->test_command || a->active)
		return;
	char *argv[] = { "/bin/sh", "-c", a->sess->test_command, NULL };
	ta_run_free(a->test);
	a->test = new_run(a, argv, false);
	start_run(a, a->test, TA_RUN_TEST, "test", TA_RUN_MODE_PLAIN, "the test");
}

static void finish_test(ta_advisor *a, const ta_run_result *res, const char *how)
{
	ta_session *s = a->sess;
	bool ok = res->state == TA_RUN_EXITED && res->exit_status == 0;
	int ei = pending_ok(a) ? a->pending_edit : -1;
	ta_session_edit *e = ei >= 0 ? &s->edits[ei] : ta_session_last_edit(s);
	if (e && ei < 0)
		ei = (int)(e - s->edits);
	a->pending_edit = -1;
	if (e) {
		e->test = ok ? TA_TEST_PASSED : TA_TEST_FAILED;
		free(e->test_note);
		e->test_note = ta_xstrdup(how);
		adv_rebuild_walk(a);   /* a failed test marks the step broken */
	}
	if (ok) {
		adv_event *x = adv_push(a, TA_ADVISOR_TEST_PASSED, false,
					ta_xasprintf("test passed%s%s", e ? " after " : "", e ? e->id : ""));
		x->edit = ei;
	} else if (e) {
		offer_revert(a, TA_ADVISOR_TEST_FAILED, ei, e->after_run, "The test failed after %s (%s).", e->id, how);
	} else {
		adv_note(a, TA_ADVISOR_TEST_FAILED, true, "test failed (%s)", how);
	}
}

/* The user's own run is a test too: a re-run after an edit that fails, or
 * whose check lines differ from the first run's, marks the edit broken and
 * offers to revert it. A first run that exits 0 gives the check lines. */
static void judge_run(ta_advisor *a, const ta_run_result *res, const char *how)
{
	ta_session *s = a->sess;
	ta_session_edit *e = pending_ok(a) ? &s->edits[a->pending_edit] : NULL;
	if (!e) {
		if (!s->check_lines && res->state == TA_RUN_EXITED && res->exit_status == 0)
			s->check_lines = ta_check_lines(a->last_log);
		return;
	}
	char *why = ta_check_rerun(res, how, s->check_lines, a->last_log);
	if (!why)
		return;
	free(e->broken);
	e->broken = why;
	adv_rebuild_walk(a);
	/* A front end's one line: a long reason stays on the step page. */
	if (strlen(why) <= 60)
		offer_revert(a, TA_ADVISOR_BROKEN, a->pending_edit, -1, "%s broke the program: %s.", e->id, why);
	else
		offer_revert(a, TA_ADVISOR_BROKEN, a->pending_edit, -1, "%s broke the program (its step page says how).",
			     e->id);
}

int ta_advisor_poll(ta_advisor *a)
{
	if (a->opt.measuring)
		return adv_measure_poll(a);
	ta_run *run = a->active;
	if (!run)
		return TA_ADVISOR_IDLE;
	if (!ta_run_poll(run, 0))
		return TA_ADVISOR_RUNNING;
	ta_run_kind kind = a->run_kind;
	free(a->last_log);
	a->last_log = ta_run_log(run, NULL);
	char *how = ta_run_describe(run);
	ta_run_result res = *ta_run_outcome(run);
	a->active = NULL;
	a->run_kind = TA_RUN_NONE;
	free(a->last_run_note);
	a->last_run_note = ta_xstrdup(how);
	if (kind == TA_RUN_PROFILE && res.state != TA_RUN_CANCELLED)
		judge_run(a, &res, how);
	if (kind == TA_RUN_TEST) {
		finish_test(a, &res, how);
	} else if (kind == TA_RUN_DEEP_PC || kind == TA_RUN_DEEP_SOL) {
		if (res.state == TA_RUN_CANCELLED)
			adv_note(a, TA_ADVISOR_RUN_FAILED, false, "--deep run cancelled");
		else if (kind == TA_RUN_DEEP_PC)
			start_deep(a, TA_RUN_DEEP_SOL);
		else
			finish_deep(a);
	} else if (kind == TA_RUN_BASELINE) {
		if (res.state == TA_RUN_CANCELLED || res.state == TA_RUN_EXEC_FAILED)
			adv_note(a, TA_ADVISOR_RUN_FAILED, true, "the baseline %s", how);
		else
			finish_baseline(a);
	} else if (res.state == TA_RUN_CANCELLED) {
		adv_note(a, TA_ADVISOR_RUN_FAILED, false, "run cancelled");
		a->pending_edit = -1;
	} else if (res.state == TA_RUN_EXEC_FAILED || (!ta_run_recorded(a->run) && res.state != TA_RUN_EXITED)) {
		adv_event *e = adv_push(a, TA_ADVISOR_RUN_FAILED, true, ta_xasprintf("the run failed: %s", how));
		e->see_log = true;
		a->pending_edit = -1;
	} else {
		if (res.state != TA_RUN_EXITED || res.exit_status != 0)
			adv_note(a, TA_ADVISOR_NOTE, true, "the run %s", how);
		finish_profile(a);
	}
	free(how);
	if (kind == TA_RUN_PROFILE && res.state != TA_RUN_CANCELLED)
		maybe_start_deep(a, res.elapsed_s);
	/* The baseline waits for the file's own run (and its --deep runs) and
	 * any offer. */
	if ((kind == TA_RUN_PROFILE || kind == TA_RUN_DEEP_SOL) && res.state != TA_RUN_CANCELLED &&
	    !a->active && !a->offer && a->pending_edit < 0)
		adv_start_baseline(a);
	return TA_ADVISOR_ENDED;
}
