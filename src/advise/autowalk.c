/* The measured walk without a terminal (see autowalk.h): the advisor
 * driven step by step, each step kept or reverted by its measurement. */
#include "config.h"
#include "advise/autowalk.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "checklist/filter.h"
#include "util/buf.h"
#include "util/fsutil.h"

typedef struct walk {
	ta_advisor *a;
	const ta_autowalk_options *o;
	ta_autowalk_result *res;
	struct timespec t0;
	ta_filter *filter;            /* the steps tried: the advisor's scope, never an entry in
	                               * preview that --select does not name (unless preview) */
	char (*tried)[8];             /* ids tried (or found without an edit) */
	size_t n_tried;
	const char *stop_reason;      /* why the walk stops early; NULL: it does not */
	char *run_failed;             /* what the last run that measured nothing said */
	char budget_text[64];
} walk;

static void emit(const walk *w, const ta_walk_event *ev)
{
	if (w->o->event)
		w->o->event(w->o->ctx, ev);
}

static double elapsed(const walk *w)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - w->t0.tv_sec) + (double)(now.tv_nsec - w->t0.tv_nsec) / 1e9;
}

/* Whether to stop now: a signal, or the budget spent. */
static bool must_stop(walk *w)
{
	if (!w->stop_reason && w->o->stop && *w->o->stop)
		w->stop_reason = "interrupted";
	if (!w->stop_reason && w->o->budget_s > 0 && elapsed(w) >= w->o->budget_s) {
		snprintf(w->budget_text, sizeof w->budget_text, "the budget of %g s is spent", w->o->budget_s);
		w->stop_reason = w->budget_text;
	}
	return w->stop_reason != NULL;
}

/* The advisor's events, as notes; a run that measured nothing says why. */
static void drain(walk *w)
{
	ta_advisor_event ev;
	while (ta_advisor_next_event(w->a, &ev)) {
		if (ev.kind == TA_ADVISOR_RUN_FAILED) {
			free(w->run_failed);
			w->run_failed = ta_xstrdup(ev.text);
		}
		ta_walk_event we = { .kind = TA_WALK_NOTE, .text = ev.text, .error = ev.error,
				     .run_before = -1, .run_after = ev.run };
		emit(w, &we);
	}
}

/* Feeds the advisor until nothing runs; a signal or the budget cancels
 * the run in flight. */
static void wait_idle(walk *w)
{
	bool cancelled = false;
	while (ta_advisor_busy(w->a)) {
		struct pollfd fds[8];
		size_t n = ta_advisor_fds(w->a, fds, 8);
		int t = ta_advisor_deadline_ms(w->a);
		if (t < 0 || t > 100)
			t = 100;   /* the signal and the budget are looked at this often */
		poll(fds, (nfds_t)n, t);
		if (!cancelled && must_stop(w)) {
			cancelled = true;
			ta_advisor_cancel(w->a);
		}
		ta_advisor_poll(w->a);
		drain(w);
	}
	drain(w);
}

static bool was_tried(const walk *w, const char *id)
{
	for (size_t i = 0; i < w->n_tried; i++)
		if (!strcasecmp(w->tried[i], id))
			return true;
	return false;
}

/* The next step to try: the first mechanical step that applies, in walk
 * order (kernels in file order), selected and not tried yet. */
static bool next_step(walk *w, char id[8])
{
	ta_advisor_walk_complete(w->a);
	const ta_walk *wk = ta_advisor_walk(w->a);
	for (size_t k = 0; wk && k < wk->n_kernels; k++)
		for (size_t i = 0; i < wk->kernels[k].n_steps; i++) {
			const ta_step *s = &wk->kernels[k].steps[i];
			if (s->mark != TA_MARK_APPLIES || s->edit_kind != TA_STEP_EDIT_MECHANICAL ||
			    !ta_filter_wants(w->filter, s->id) || was_tried(w, s->id))
				continue;
			snprintf(id, 8, "%s", s->id);
			return true;
		}
	return false;
}

/* The verdict over the kernels the step changed: slower if one got
 * slower, faster if one got faster and none slower, else within noise
 * (or not comparable when no kernel could be compared). */
static ta_verdict step_verdict(walk *w, const ta_session_edit *e, const char *id)
{
	const ta_session *s = ta_advisor_session(w->a);
	const ta_run_figures *after = &s->runs[e->after_run];
	bool faster = false, slower = false, noise = false;
	for (size_t k = 0; k < after->n_kernels; k++) {
		ta_change c = ta_session_change(s, e->before_run, e->after_run, after->kernels[k].name);
		if (!c.measured)
			continue;
		ta_walk_event ev = { .kind = TA_WALK_MEASURED, .id = id, .kernel = after->kernels[k].name,
				     .change = &c, .run_before = e->before_run, .run_after = e->after_run };
		emit(w, &ev);
		faster |= c.cmp.verdict == TA_VERDICT_FASTER;
		slower |= c.cmp.verdict == TA_VERDICT_SLOWER;
		noise |= c.cmp.verdict == TA_VERDICT_NOISE;
	}
	return slower ? TA_VERDICT_SLOWER : faster ? TA_VERDICT_FASTER : noise ? TA_VERDICT_NOISE
							 : TA_VERDICT_CHANGED;
}

/* Why the step is not kept (caller frees), or NULL when it is. */
static char *judge(walk *w, int ei, const char *id)
{
	const ta_session *s = ta_advisor_session(w->a);
	const ta_session_edit *e = &s->edits[ei];
	if (e->test != TA_TEST_NONE) {
		ta_walk_event ev = { .kind = TA_WALK_TEST, .id = id, .passed = e->test == TA_TEST_PASSED,
				     .text = e->test_note, .run_before = -1, .run_after = -1 };
		emit(w, &ev);
	}
	char *broken = ta_session_edit_broken(e);
	if (broken) {
		char *why = ta_xasprintf("broken: %s", broken);
		free(broken);
		return why;
	}
	if (e->after_run < 0 || e->before_run < 0) {
		if (w->stop_reason)
			return ta_xasprintf("not measured: %s", w->stop_reason);
		return ta_xasprintf("not measured%s%s", w->run_failed ? ": " : "", w->run_failed ? w->run_failed : "");
	}
	ta_verdict v = step_verdict(w, e, id);
	if (v == TA_VERDICT_FASTER || (w->o->keep_neutral && v != TA_VERDICT_SLOWER))
		return NULL;
	return ta_xstrdup(v == TA_VERDICT_SLOWER ? "slower" : v == TA_VERDICT_NOISE ? "within noise"
										   : "not comparable");
}

static void try_step(walk *w, const char *id)
{
	snprintf(w->tried[w->n_tried++], 8, "%s", id);
	ta_walk_event ev = { .kind = TA_WALK_STEP, .id = id, .run_before = -1, .run_after = -1 };
	emit(w, &ev);
	ta_step_request r = { .id = id, .unsafe_ok = w->o->unsafe_ok };
	char *err = NULL;
	free(w->run_failed);
	w->run_failed = NULL;
	if (ta_advisor_apply_step(w->a, &r, &err) != 0) {
		drain(w);
		ev = (ta_walk_event){ .kind = TA_WALK_NOT_MADE, .id = id, .text = err, .run_before = -1,
				      .run_after = -1 };
		emit(w, &ev);
		free(err);
		w->res->not_made++;
		return;
	}
	w->res->tried++;
	const ta_session *s = ta_advisor_session(w->a);
	int ei = (int)s->n_edits - 1;
	ev = (ta_walk_event){ .kind = TA_WALK_DIFF, .id = id, .text = s->edits[ei].diff, .line = s->edits[ei].line,
			      .run_before = -1, .run_after = -1 };
	emit(w, &ev);
	drain(w);
	wait_idle(w);
	char *why = judge(w, ei, id);
	if (!why) {
		ta_advisor_keep(w->a);
		const ta_session_edit *e = &ta_advisor_session(w->a)->edits[ei];
		ev = (ta_walk_event){ .kind = TA_WALK_KEPT, .id = id, .text = "correct and faster",
				      .run_before = e->before_run, .run_after = e->after_run };
		if (w->o->keep_neutral)
			ev.text = "correct and not slower (--keep-neutral)";
		emit(w, &ev);
		w->res->kept++;
		return;
	}
	/* An offered revert is taken; a step within noise is undone the same way. */
	ta_advisor_revert(w->a);
	drain(w);
	ev = (ta_walk_event){ .kind = TA_WALK_REVERTED, .id = id, .text = why, .run_before = -1, .run_after = -1 };
	emit(w, &ev);
	free(why);
	w->res->reverted++;
}

/* The file measured as it is, before any step: a new run even when the
 * session already holds one of this text. */
static int first_run(walk *w, char **err)
{
	ta_advisor *a = w->a;
	if (ta_advisor_trust_question(a))
		ta_advisor_trust(a, false);   /* nobody to ask: stored commands do not run */
	size_t runs = ta_advisor_session(a)->n_runs;
	ta_advisor_start(a);
	if (ta_advisor_session(a)->n_runs == runs && !ta_advisor_busy(a))
		ta_advisor_rerun(a, "first run");
	drain(w);
	wait_idle(w);
	const ta_session *s = ta_advisor_session(a);
	int r = ta_session_run_of(s, s->current);
	if (s->n_runs == runs || r < 0 || (size_t)r < runs) {
		const char *why = w->stop_reason ? w->stop_reason : w->run_failed;
		*err = ta_xasprintf("the first run was not measured%s%s", why ? ": " : "", why ? why : "");
		return -1;
	}
	w->res->first_run = r;
	ta_walk_event ev = { .kind = TA_WALK_FIRST_RUN, .run_before = -1, .run_after = r };
	emit(w, &ev);
	return 0;
}

/* The whole walk, kernel by kernel: from its first run to the run of the
 * version it ends on. */
static void summary(walk *w)
{
	const ta_session *s = ta_advisor_session(w->a);
	int last = ta_session_run_of(s, s->current);
	w->res->last_run = last;
	w->res->stopped = w->stop_reason != NULL;
	const ta_autowalk_result *r = w->res;
	if (last >= 0 && last != r->first_run)
		for (size_t k = 0; k < s->runs[last].n_kernels; k++) {
			const char *name = s->runs[last].kernels[k].name;
			ta_change c = ta_session_change(s, r->first_run, last, name);
			if (!c.measured)
				continue;
			ta_walk_event ev = { .kind = TA_WALK_MEASURED, .kernel = name, .change = &c,
					     .run_before = r->first_run, .run_after = last };
			emit(w, &ev);
		}
	ta_walk_event ev = { .kind = TA_WALK_SUMMARY, .tried = r->tried, .kept = r->kept, .reverted = r->reverted,
			     .not_made = r->not_made, .stopped = r->stopped, .stop_reason = w->stop_reason,
			     .run_before = r->first_run, .run_after = last };
	emit(w, &ev);
}

int ta_autowalk_run(ta_advisor *a, const ta_autowalk_options *o, ta_autowalk_result *res, char **err)
{
	walk w = { .a = a, .o = o, .res = res };
	memset(res, 0, sizeof *res);
	res->first_run = res->last_run = -1;
	clock_gettime(CLOCK_MONOTONIC, &w.t0);
	/* The advisor's scope (--select, --ignore, the project's), whose
	 * ignored steps are not applicable anyway; entries in preview only
	 * when named or with preview. */
	const char *sel, *ign;
	bool preview;
	ta_advisor_scope(a, &sel, &ign, &preview);
	if (o->select)
		sel = o->select;
	w.filter = ta_filter_new(preview);
	if ((sel && ta_filter_select(w.filter, sel, err) != 0) || (ign && ta_filter_ignore(w.filter, ign, err) != 0)) {
		ta_filter_free(w.filter);
		return -1;
	}
	w.tried = ta_xcalloc(ta_entry_count() + 1, sizeof *w.tried);
	int rc = first_run(&w, err);
	char id[8];
	while (rc == 0 && !must_stop(&w) && next_step(&w, id))
		try_step(&w, id);
	if (rc == 0)
		summary(&w);
	ta_filter_free(w.filter);
	free(w.tried);
	free(w.run_failed);
	return rc;
}
