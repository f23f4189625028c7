/* Opening the advisor on a file or a recorded session, the selection in
 * its walk, and its events turned into messages and questions. */
#include "config.h"
#include "ui/tui/app.h"
#include "ui/tui/script.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/fsutil.h"

void ta_app_set_message(ta_app *app, bool error, const char *fmt, ...)
{
	free(app->message);
	app->message = NULL;
	if (!fmt)
		return;
	ta_buf b = TA_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	ta_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	app->message = ta_buf_steal(&b);
	app->message_error = error;
}

const ta_walk_kernel *ta_app_kernel(const ta_app *app)
{
	const ta_walk *w = ta_advisor_walk(app->adv);
	if (!w || app->kernel < 0 || (size_t)app->kernel >= w->n_kernels)
		return NULL;
	return &w->kernels[app->kernel];
}

const ta_step *ta_app_step(const ta_app *app)
{
	const ta_walk_kernel *k = ta_app_kernel(app);
	if (!k || app->step < 0 || (size_t)app->step >= k->n_steps)
		return NULL;
	return &k->steps[app->step];
}

const ta_step *ta_app_step_ready(ta_app *app)
{
	if (ta_app_step(app))
		ta_advisor_step_ready(app->adv, (size_t)app->kernel, (size_t)app->step);
	return ta_app_step(app);
}

/* A lazy walk's kernel gets its steps when it is shown. */
static void kernel_ready(ta_app *app)
{
	if (app->kernel >= 0)
		ta_advisor_kernel_ready(app->adv, (size_t)app->kernel);
}

/* Rows: the steps that apply (or were acted on) in walk order, then one
 * fold row for the rest, which follow it when unfolded. */
void ta_app_rebuild_rows(ta_app *app)
{
	kernel_ready(app);
	free(app->rows);
	app->rows = NULL;
	app->n_rows = 0;
	const ta_walk_kernel *k = ta_app_kernel(app);
	if (!k)
		return;
	size_t folded = 0;
	for (size_t i = 0; i < k->n_steps; i++) {
		if (ta_step_is_open(&k->steps[i])) {
			ta_row *r = TA_APPEND(app->rows, app->n_rows);
			r->kind = TA_ROW_STEP;
			r->step = (int)i;
		} else {
			folded++;
		}
	}
	if (folded) {
		ta_row *r = TA_APPEND(app->rows, app->n_rows);
		r->kind = TA_ROW_FOLD;
		r->step = -1;
	}
	if (app->unfold)
		for (size_t i = 0; i < k->n_steps; i++)
			if (!ta_step_is_open(&k->steps[i])) {
				ta_row *r = TA_APPEND(app->rows, app->n_rows);
				r->kind = TA_ROW_STEP;
				r->step = (int)i;
			}
	/* Keep the selection on a visible step. */
	bool visible = false;
	for (size_t i = 0; i < app->n_rows; i++)
		if ((app->rows[i].kind == TA_ROW_STEP && app->rows[i].step == app->step) ||
		    (app->rows[i].kind == TA_ROW_FOLD && app->step == -1))
			visible = true;
	if (!visible) {
		app->step = app->n_rows && app->rows[0].kind == TA_ROW_STEP ? app->rows[0].step : -1;
		app->page_top = 0;
	}
}

static void select_position(ta_app *app, const char *kernel, const char *step)
{
	const ta_walk *w = ta_advisor_walk(app->adv);
	app->kernel = 0;
	app->step = -2;   /* none: the first row */
	int k = -1;
	/* A kernel that does not parse first: nothing else of it is shown
	 * until it does. */
	for (size_t i = 0; w && i < w->n_kernels && k < 0; i++)
		if (w->kernels[i].syntax_error)
			k = (int)i;
	if (k < 0)
		k = ta_walk_find_kernel(w, kernel);
	/* Start on a kernel that is launched rather than a helper. */
	if (k < 0 && w)
		for (size_t i = 0; i < w->n_kernels; i++)
			if (!w->kernels[i].helper) {
				k = (int)i;
				break;
			}
	if (k >= 0)
		app->kernel = k;
	kernel_ready(app);
	const ta_walk_kernel *wk = ta_app_kernel(app);
	if (wk && step && *step)
		for (size_t i = 0; i < wk->n_steps; i++)
			if (!strcmp(wk->steps[i].id, step)) {
				app->step = (int)i;
				if (!ta_step_is_open(&wk->steps[i]))
					app->unfold = true;
			}
	/* No place kept: the first step to act on, past the trigger notes
	 * (they order the walk; they are no edit to make). */
	for (size_t i = 0; wk && app->step == -2 && i < wk->n_steps; i++)
		if (wk->steps[i].id[0] != 'T' && wk->steps[i].mark == TA_MARK_APPLIES && ta_step_is_open(&wk->steps[i]))
			app->step = (int)i;
	ta_app_rebuild_rows(app);
}

void ta_app_hold(ta_app *app)
{
	const ta_walk_kernel *k = ta_app_kernel(app);
	const ta_step *s = ta_app_step(app);
	snprintf(app->held_kernel, sizeof app->held_kernel, "%s", k ? k->name : "");
	snprintf(app->held_step, sizeof app->held_step, "%s", s ? s->id : "");
}

/* The advisor's events: an offered revert is a question, the rest are
 * messages (the last one stays). */
static void take_events(ta_app *app)
{
	ta_advisor_event ev;
	while (ta_advisor_next_event(app->adv, &ev)) {
		if (ev.offers_revert) {
			free(app->prompt_text);
			app->prompt_text = ta_xasprintf("%s Revert it? (y/n)", ev.text);
			app->prompt = TA_PROMPT_REVERT;
		} else {
			ta_app_set_message(app, ev.error, "%s%s", ev.text,
					   ev.see_log ? " (press l for its output)" : "");
		}
	}
}

void ta_app_follow(ta_app *app)
{
	unsigned v = ta_advisor_walk_version(app->adv);
	if (v != app->walk_version) {
		app->walk_version = v;
		select_position(app, app->held_kernel, app->held_step);
	}
	take_events(app);
}

unsigned ta_app_poll(ta_app *app)
{
	ta_app_hold(app);
	int r = ta_advisor_poll(app->adv);
	ta_app_follow(app);
	return r == TA_ADVISOR_ENDED ? TA_REACT_REDRAW | TA_REACT_SAVE
	     : r == TA_ADVISOR_RUNNING ? TA_REACT_REDRAW : 0;
}

void ta_app_save(ta_app *app)
{
	const ta_walk_kernel *k = ta_app_kernel(app);
	const ta_step *s = ta_app_step(app);
	char *err = NULL;
	/* The names are copied: saving makes every kernel's steps. */
	char *kernel = k ? ta_xstrdup(k->name) : NULL;
	char step[8] = "";
	if (s)
		snprintf(step, sizeof step, "%s", s->id);
	if (ta_advisor_save(app->adv, kernel, step, &err) != 0) {
		ta_app_set_message(app, true, "%s", err);
		free(err);
	}
	free(kernel);
}

int ta_app_open(ta_app *app, const ta_tui_options *o, char **err)
{
	ta_advisor_options ao = {
		.file = o->file,
		.replay = o->replay,
		.no_profile = o->no_profile,
		.test_command = o->test_command,
		.command = o->command,
		.records = o->records,
		.gpu_preset = o->gpu_preset,
		.timeout_s = o->timeout_s,
		.baseline = o->baseline,
		.baseline_records = o->baseline_records,
		.deep = o->deep,
		.select = o->select,
		.ignore = o->ignore,
		.isolated = o->isolated,
	};
	if (ta_advisor_open(&ao, &app->adv, err) != 0)
		return -1;
	const ta_session *s = ta_advisor_session(app->adv);
	app->walk_version = ta_advisor_walk_version(app->adv);
	select_position(app, s->pos_kernel, s->pos_step);
	const char *q = ta_advisor_trust_question(app->adv);
	if (q) {
		app->prompt = TA_PROMPT_TRUST;
		app->prompt_text = ta_xstrdup(q);
	}
	take_events(app);
	return 0;
}

void ta_app_close(ta_app *app)
{
	ta_script_close(app->script);
	app->script = NULL;
	ta_advisor_free(app->adv);
	free(app->rows);
	free(app->message);
	free(app->prompt_text);
	free(app->search);
}
