/* Opening a file or a recorded session, re-analysing, the walk's rows. */
#include "config.h"
#include "ui/tui/app.h"
#include "advise/trust.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "advise/checklist.h"
#include "advise/device.h"
#include "advise/run.h"
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
	const ta_walk *w = app->walk;
	if (!w || app->kernel < 0 || (size_t)app->kernel >= w->n_kernels)
		return NULL;
	return &w->kernels[app->kernel];
}

ta_step *ta_app_step(const ta_app *app)
{
	const ta_walk_kernel *k = ta_app_kernel(app);
	if (!k || app->step < 0 || (size_t)app->step >= k->n_steps)
		return NULL;
	return &k->steps[app->step];
}

ta_step *ta_app_step_ready(ta_app *app)
{
	ta_step *s = ta_app_step(app);
	ta_walk_step_ready(app->walk, s);
	return s;
}

const ta_run_figures *ta_app_last_run(const ta_app *app)
{
	if (!app->sess || !app->sess->n_runs)
		return NULL;
	int r = ta_session_run_of(app->sess, app->sess->current);
	return r >= 0 ? &app->sess->runs[r] : &app->sess->runs[app->sess->n_runs - 1];
}

/* Rows: the steps that apply (or were acted on) in walk order, then one
 * fold row for the rest, which follow it when unfolded. */
/* A lazy walk's kernel gets its steps when it is shown; what the session
 * says of them (applied, skipped) is marked then. */
static void kernel_ready(ta_app *app)
{
	ta_walk *w = app->walk;
	if (!w || app->kernel < 0 || (size_t)app->kernel >= w->n_kernels ||
	    !w->kernels[app->kernel].steps_pending)
		return;
	ta_walk_kernel_ready(w, (size_t)app->kernel);
	if (app->sess)
		ta_session_annotate(app->sess, w);
}

size_t ta_app_ready_one(ta_app *app)
{
	ta_walk *w = app->walk;
	size_t kernels = w ? w->n_kernels_pending : 0;
	size_t left = ta_walk_ready_one(w);
	if (w && w->n_kernels_pending != kernels && app->sess)
		ta_session_annotate(app->sess, w);
	return left;
}

void ta_app_walk_complete(ta_app *app)
{
	while (ta_app_ready_one(app))
		;
}

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
	app->kernel = 0;
	app->step = -2;   /* none: the first row */
	int k = ta_walk_find_kernel(app->walk, kernel);
	/* Start on a kernel that is launched rather than a helper. */
	if (k < 0 && app->walk)
		for (size_t i = 0; i < app->walk->n_kernels; i++)
			if (!app->walk->kernels[i].helper) {
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
	ta_app_rebuild_rows(app);
}

void ta_app_rebuild_walk(ta_app *app)
{
	if (!app->an)
		return;
	char kernel[256] = "", step[8] = "";
	const ta_walk_kernel *k = ta_app_kernel(app);
	const ta_step *s = ta_app_step(app);
	if (k)
		snprintf(kernel, sizeof kernel, "%s", k->name);
	if (s)
		snprintf(step, sizeof step, "%s", s->id);
	int r = ta_session_run_of(app->sess, app->sess->current);
	/* Diffs are made when a step is shown or the loop is idle: the first
	 * frame does not wait for every step's edit. */
	ta_walk *w = ta_walk_build_lazy(app->an->model, app->cat, r >= 0 ? &app->sess->runs[r] : NULL,
					app->sess->baseline, app->has_gpu ? &app->gpu : NULL,
					app->sess->file_name);
	ta_session_annotate(app->sess, w);
	ta_session_set_walk(app->sess, w);
	app->walk = w;
	app->shown_src = app->an->src;
	select_position(app, kernel, step);
}

static void remember_stat(ta_app *app)
{
	struct stat st;
	if (app->path && stat(app->path, &st) == 0) {
		app->file_mtime = st.st_mtim;
		app->file_size = st.st_size;
	}
}

int ta_app_reanalyse(ta_app *app, const char *label)
{
	ta_analysis *a;
	char *err;
	if (ta_analysis_open(app->path, &a, &err) != 0) {
		ta_app_set_message(app, true, "%s", err);
		free(err);
		remember_stat(app);
		return -1;
	}
	ta_analysis_free(app->an);
	app->an = a;
	remember_stat(app);
	int known = ta_session_find_version(app->sess, a->src->hash);
	if (known >= 0) {
		app->sess->current = (unsigned)known;
		app->sess->file_hash = a->src->hash;
		app->sess->file_size = a->src->len;
	} else {
		ta_session_add_version(app->sess, a->src->text, a->src->len, label);
	}
	ta_app_rebuild_walk(app);
	return 0;
}

unsigned ta_app_watch_file(ta_app *app)
{
	if (app->read_only || !app->path || app->run_kind != TA_RUN_NONE)
		return 0;
	struct stat st;
	if (stat(app->path, &st) != 0)
		return 0;
	if (st.st_size == app->file_size && st.st_mtim.tv_sec == app->file_mtime.tv_sec &&
	    st.st_mtim.tv_nsec == app->file_mtime.tv_nsec)
		return 0;
	if (ta_app_reanalyse(app, "changed on disk") == 0)
		ta_app_set_message(app, false, "%s changed on disk: analysed again", app->sess->file_name);
	return TA_REACT_REDRAW | TA_REACT_SAVE;
}

void ta_app_save(ta_app *app)
{
	if (app->read_only || !app->sess)
		return;
	const ta_walk_kernel *k = ta_app_kernel(app);
	const ta_step *s = ta_app_step(app);
	free(app->sess->pos_kernel);
	app->sess->pos_kernel = k ? ta_xstrdup(k->name) : NULL;
	snprintf(app->sess->pos_step, sizeof app->sess->pos_step, "%s", s ? s->id : "");
	ta_app_walk_complete(app);   /* the file holds every kernel's steps and diffs */
	char *err;
	if (ta_session_save(app->sess, app->session_path, &err) != 0) {
		ta_app_set_message(app, true, "%s", err);
		free(err);
	}
}

static int open_replay(ta_app *app, char **err)
{
	if (ta_session_load(app->opt.replay, &app->sess, err) != 0)
		return -1;
	ta_session *s = app->sess;
	app->read_only = true;
	const ta_session_version *v = &s->versions[s->current];
	if (ta_source_from_bytes(s->file_name, v->text, v->len, &app->shown_src, err) != 0)
		return -1;
	if (!s->walk) {
		/* An older recording without steps: analyse the recorded text. */
		ta_analysis *a;
		if (ta_analysis_from_bytes(s->file_name, v->text, v->len, &a, err) != 0)
			return -1;
		int r = ta_session_run_of(s, s->current);
		ta_session_set_walk(s, ta_walk_build_vs(a->model, app->cat, r >= 0 ? &s->runs[r] : NULL,
							s->baseline, NULL, s->file_name));
		ta_analysis_free(a);
	}
	ta_session_annotate(s, s->walk);
	app->walk = s->walk;
	app->why_no_profile = ta_xstrdup("replay: read-only");
	select_position(app, s->pos_kernel, s->pos_step);
	return 0;
}

static int find_device(ta_app *app, char **err)
{
	ta_device d;
	ta_device_request r = { .preset = app->opt.gpu_preset, .records = app->opt.records != NULL,
				.no_profile = app->opt.no_profile };
	if (ta_device_resolve(&r, &d, err) != 0)
		return -1;
	app->has_gpu = d.has_gpu;
	app->gpu = d.gpu;
	app->why_no_profile = d.why_not;
	if (app->has_gpu)
		ta_session_set_env_gpu(app->sess, &app->gpu);
	else if (app->why_no_profile && !app->sess->env.has_gpu) {
		free(app->sess->env.no_gpu);
		app->sess->env.no_gpu = ta_xstrdup(app->why_no_profile);
	}
	return 0;
}

/* --baseline-records is read now; --baseline CMD is measured after the
 * file's own run, unless the session already holds that command's run. */
static int open_baseline(ta_app *app, char **err)
{
	ta_session *s = app->sess;
	if (app->opt.baseline_records) {
		ta_run_figures f;
		char *why;
		if (ta_run_figures_from_records(app->an->model, app->opt.baseline_records,
						app->has_gpu ? &app->gpu : NULL, true, "baseline", &f,
						NULL, &why) != 0) {
			*err = ta_xasprintf("cannot read the baseline records: %s", why);
			free(why);
			return -1;
		}
		ta_session_set_baseline(s, &f, app->opt.baseline_records);
	} else if (app->opt.baseline) {
		app->baseline_pending = !s->baseline || !s->baseline_source ||
					strcmp(s->baseline_source, app->opt.baseline) != 0;
	}
	return 0;
}

/* A command the session file stores, and this command line does not
 * replace, runs only once allowed (advise/trust.h): until then it is held
 * here and the user is asked. Under --no-profile nothing of it would run:
 * it is kept in the session, unasked. */
static void hold_stored_commands(ta_app *app)
{
	ta_session *s = app->sess;
	bool cmd = s->command && !app->opt.command;
	bool test = s->test_command && !app->opt.test_command;
	if ((!cmd && !test) || app->opt.no_profile ||
	    ta_trust_allowed(app->path, cmd ? s->command : NULL, test ? s->test_command : NULL))
		return;
	ta_buf b = TA_BUF_INIT;
	ta_buf_puts(&b, "This session file stores");
	if (cmd) {
		ta_buf_puts(&b, " the command '");
		for (size_t i = 0; s->command[i]; i++)
			ta_buf_printf(&b, "%s%s", i ? " " : "", s->command[i]);
		ta_buf_puts(&b, "'");
		app->stored_command = s->command;
		s->command = NULL;
	}
	if (test) {
		ta_buf_printf(&b, "%s the test '%s'", cmd ? " and" : "", s->test_command);
		app->stored_test = s->test_command;
		s->test_command = NULL;
	}
	ta_buf_puts(&b, ", not given on this command line. Run them? (y: yes, remembered for this "
		    "file; n: no)");
	app->prompt = TA_PROMPT_TRUST;
	app->prompt_text = ta_buf_steal(&b);
}

bool ta_app_first_run_due(const ta_app *app)
{
	return !app->read_only && app->prompt != TA_PROMPT_TRUST &&
	       ta_session_run_of(app->sess, app->sess->current) < 0 && !app->opt.no_profile &&
	       (app->opt.records || !app->why_no_profile);
}

int ta_app_open(ta_app *app, char **err)
{
	app->cat = ta_catalog_load(NULL, err);
	if (!app->cat)
		return -1;
	if (app->opt.replay)
		return open_replay(app, err);
	app->path = ta_xstrdup(app->opt.file);
	if (ta_analysis_open(app->path, &app->an, err) != 0)
		return -1;
	remember_stat(app);
	app->session_path = ta_session_path_for(app->path);
	const ta_source *src = app->an->src;
	if (ta_path_exists(app->session_path)) {
		char *why;
		if (ta_session_load(app->session_path, &app->sess, &why) != 0) {
			*err = ta_xasprintf("%s\n(the kernel file was not touched; move the session file "
					    "away to start a new session)", why);
			free(why);
			return -1;
		}
		int known = ta_session_find_version(app->sess, src->hash);
		if (known >= 0)
			app->sess->current = (unsigned)known;
		else
			ta_session_add_version(app->sess, src->text, src->len, "changed outside tileadvise");
		app->sess->file_hash = src->hash;
		app->sess->file_size = src->len;
		ta_app_set_message(app, false, "resumed the session of %s (%zu edits, %zu runs)",
				   app->sess->created ? app->sess->created : "before", app->sess->n_edits,
				   app->sess->n_runs);
	} else {
		app->sess = ta_session_new(app->path, src->text, src->len);
	}
	hold_stored_commands(app);
	if (app->opt.command) {
		for (size_t i = 0; app->sess->command && app->sess->command[i]; i++)
			free(app->sess->command[i]);
		free(app->sess->command);
		size_t n = 0;
		while (app->opt.command[n])
			n++;
		app->sess->command = ta_xcalloc(n + 1, sizeof(char *));
		for (size_t i = 0; i < n; i++)
			app->sess->command[i] = ta_xstrdup(app->opt.command[i]);
	}
	if (app->opt.test_command) {
		free(app->sess->test_command);
		app->sess->test_command = ta_xstrdup(app->opt.test_command);
	}
	if (find_device(app, err) != 0 || open_baseline(app, err) != 0)
		return -1;
	app->walk = NULL;
	ta_app_rebuild_walk(app);
	select_position(app, app->sess->pos_kernel, app->sess->pos_step);
	return 0;
}

void ta_app_close(ta_app *app)
{
	ta_run_free(app->run);
	ta_run_free(app->deep);
	ta_run_free(app->test);
	ta_session_free(app->sess);
	if (!app->an)
		ta_source_free(app->shown_src);
	ta_analysis_free(app->an);
	ta_catalog_free(app->cat);
	free(app->path);
	free(app->session_path);
	free(app->why_no_profile);
	free(app->rows);
	free(app->run_label);
	free(app->last_log);
	free(app->last_run_note);
	free(app->message);
	free(app->prompt_text);
	for (size_t i = 0; app->stored_command && app->stored_command[i]; i++)
		free(app->stored_command[i]);
	free(app->stored_command);
	free(app->stored_test);
}
