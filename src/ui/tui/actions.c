/* The requests that change something: apply, undo, redo, edit, skip,
 * runs, reports; and the dispatch of every request. */
#include "config.h"
#include "ui/tui/app.h"
#include "advise/trust.h"

#include <curses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "advise/edit.h"
#include "advise/walk_edit.h"
#include "checklist/rules.h"
#include "ui/session_report.h"
#include "ui/tui/term.h"
#include "util/buf.h"
#include "util/fsutil.h"

static bool busy(ta_app *app)
{
	if (app->run_kind == TA_RUN_NONE)
		return false;
	ta_app_set_message(app, true, "a run is in progress: wait for it or press Esc to cancel it");
	return true;
}

/* a: the step's edit; when more than one of its sites can be rewritten,
 * the list of them, to pick one (as --apply ID:LINE does). */
static unsigned do_apply(ta_app *app)
{
	ta_step *s = ta_app_step_ready(app);
	const ta_walk_kernel *k = ta_app_kernel(app);
	if (!s || !k || busy(app))
		return TA_REACT_REDRAW;
	if (s->mark == TA_MARK_APPLIED) {
		ta_app_set_message(app, false, "%s is applied already (u undoes it)", s->id);
		return TA_REACT_REDRAW;
	}
	if (!s->diff) {
		if (s->edit_kind == TA_STEP_EDIT_GUIDED)
			ta_app_set_message(app, false, "%s is a guided change: press e to make it in your editor",
					   s->id);
		else
			ta_app_set_message(app, true, "%s has no edit to apply here%s%s", s->id,
					   s->why_no_edit ? ": " : "", s->why_no_edit ? s->why_no_edit : "");
		return TA_REACT_REDRAW;
	}
	if (s->n_edit_sites > 1) {
		app->overlay = &ta_view_sites;
		app->overlay_top = 0;
		app->overlay_left = 0;
		app->pick = -1;
		for (size_t i = 0; i < s->n_findings && app->pick < 0; i++)
			if (s->findings[i].edit_ok)
				app->pick = (int)i;
		return TA_REACT_REDRAW;
	}
	return ta_app_apply_at(app, s->edit_line);
}

unsigned ta_app_apply_at(ta_app *app, uint32_t line)
{
	ta_step *s = ta_app_step(app);
	const ta_walk_kernel *k = ta_app_kernel(app);
	if (!s || !k || !s->diff || busy(app))
		return TA_REACT_REDRAW;
	/* An unsafe edit keeps the meaning only under the assumption it
	 * states: applied once y answers the question that says it. */
	char *unsafe = app->unsafe_ok ? NULL : ta_walk_edit_unsafe(app->an->model, s->id, k->name, line);
	if (unsafe) {
		free(app->prompt_text);
		/* The question first: a narrow footer cuts the end, and the step
		 * page states the assumption too. */
		app->prompt_text = ta_xasprintf("Apply %s's unsafe edit at line %u? (y/n) It %s.", s->id,
						(unsigned)line, unsafe);
		app->prompt = TA_PROMPT_UNSAFE;
		app->prompt_line = line;
		free(unsafe);
		return TA_REACT_REDRAW;
	}
	char id[8];
	snprintf(id, sizeof id, "%s", s->id);
	unsigned prev = app->sess->current;
	/* The diff the session keeps is the one of the site applied. */
	char *diff = NULL, *title = NULL, *why = NULL;
	if (line == s->edit_line) {
		diff = ta_xstrdup(s->diff);
	} else if (ta_walk_edit_diff_at(app->an->model, id, k->name, line, app->sess->file_name, &diff, &title,
					&why) != 0) {
		ta_app_set_message(app, true, "%s", why ? why : "the edit could not be made there");
		free(why);
		return TA_REACT_REDRAW;
	}
	free(title);
	char *msg = NULL;
	if (ta_walk_edit_apply(app->an->src, app->an->syn, app->an->model, id, k->name, line, &msg) != 0) {
		ta_app_set_message(app, true, "%s", msg ? msg : "the edit could not be applied");
		free(msg);
		free(diff);
		return TA_REACT_REDRAW;
	}
	char *kernel = ta_xstrdup(k->name);
	char label[32];
	snprintf(label, sizeof label, "after %s", id);
	bool unfold = app->unfold;
	ta_app_reanalyse(app, label);
	app->unfold = unfold;
	ta_session_edit *se = ta_session_add_edit(app->sess, id, kernel, line, diff);
	se->from_version = prev;
	se->to_version = app->sess->current;
	se->before_run = ta_session_run_of(app->sess, prev);
	app->pending_edit = (int)(app->sess->n_edits - 1);
	ta_app_rebuild_walk(app);
	ta_app_set_message(app, false, "%s", msg);
	free(msg);
	free(diff);
	free(kernel);
	if (!app->opt.no_profile && (app->opt.records || !app->why_no_profile))
		ta_app_start_profile(app, label);
	else if (app->sess->test_command && (!app->opt.no_profile || app->opt.test_command))
		/* --no-profile runs nothing but a --test given with it. */
		ta_app_start_test(app);
	else
		app->pending_edit = -1;
	return TA_REACT_REDRAW | TA_REACT_SAVE;
}

static unsigned do_undo_redo(ta_app *app, bool undo)
{
	if (busy(app))
		return TA_REACT_REDRAW;
	char *diff = NULL, *msg = NULL;
	int rc = undo ? ta_edit_undo(app->path, &diff, &msg) : ta_edit_redo(app->path, &diff, &msg);
	free(diff);
	if (rc != 0) {
		ta_app_set_message(app, true, "%s", msg ? msg : "nothing to do");
		free(msg);
		return TA_REACT_REDRAW;
	}
	ta_session_edit *e = undo ? ta_session_last_edit(app->sess) : ta_session_next_undone(app->sess);
	if (e)
		e->undone = undo;
	ta_app_reanalyse(app, undo ? "undone" : "redone");
	ta_app_set_message(app, false, "%s", msg ? msg : undo ? "undone" : "redone");
	free(msg);
	return TA_REACT_REDRAW | TA_REACT_SAVE;
}

/* Runs $VISUAL/$EDITOR (vi) on the file at line, the way system() would:
 * the advisor ignores ^C while the editor has the terminal. */
static unsigned do_editor(ta_app *app)
{
	if (busy(app))
		return TA_REACT_REDRAW;
	const ta_step *s = ta_app_step(app);
	uint32_t line = s ? ta_step_line(s) : 0;
	/* An applied step has no finding left: go where its edit was made. */
	for (size_t i = app->sess->n_edits; !line && s && i-- > 0;)
		if (!strcmp(app->sess->edits[i].id, s->id) && !app->sess->edits[i].undone)
			line = app->sess->edits[i].line;
	if (!line) {
		const ta_walk_kernel *k = ta_app_kernel(app);
		line = k ? k->def_line : 1;
	}
	char plus[24];
	snprintf(plus, sizeof plus, "+%u", (unsigned)(line ? line : 1));
	struct sigaction ign, old_int, old_quit;
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	ta_term_suspend();
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		execl("/bin/sh", "sh", "-c", "exec ${VISUAL:-${EDITOR:-vi}} \"$@\"", "sh", plus, app->path,
		      (char *)NULL);
		_exit(127);
	}
	int status = 0;
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0)
			;
	ta_term_resume();
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) == 127)
		ta_app_set_message(app, true, "the editor did not run (set EDITOR)");
	uint64_t before = app->an ? app->an->src->hash : 0;
	ta_app_reanalyse(app, "edited by hand");
	if (app->an && app->an->src->hash != before)
		ta_app_set_message(app, false, "analysed again after your edit");
	return TA_REACT_REDRAW | TA_REACT_SAVE;
}

static unsigned do_skip(ta_app *app)
{
	const ta_step *s = ta_app_step(app);
	const ta_walk_kernel *k = ta_app_kernel(app);
	if (!s || !k)
		return TA_REACT_REDRAW;
	bool on = !ta_session_skipped(app->sess, k->name, s->id);
	char id[8];
	snprintf(id, sizeof id, "%s", s->id);
	ta_session_set_skip(app->sess, k->name, id, on);
	ta_app_rebuild_walk(app);
	ta_app_set_message(app, false, "%s %s", id, on ? "skipped" : "no longer skipped");
	if (on)
		ta_view_walk.request(app, TA_REQ_NEXT_STEP);
	return TA_REACT_REDRAW | TA_REACT_SAVE;
}

static unsigned do_write(ta_app *app)
{
	char *path;
	if (app->read_only) {
		path = ta_xasprintf("tileadvise-report-%s.md", app->sess->file_name);
	} else {
		char *dir = ta_path_dirname(app->session_path);
		char *name = ta_xasprintf("report-%s.md", app->sess->file_name);
		path = ta_path_join(dir, name);
		free(dir);
		free(name);
		ta_app_save(app);   /* creates .tileadvise/ */
	}
	ta_app_walk_complete(app);   /* the report covers every kernel */
	FILE *f = fopen(path, "w");
	if (!f || ta_session_report(app->sess, app->walk, f) != 0) {
		ta_app_set_message(app, true, "cannot write %s", path);
	} else {
		ta_app_set_message(app, false, "report written to %s", path);
	}
	if (f)
		fclose(f);
	free(path);
	return TA_REACT_REDRAW;
}

/* The session file's stored commands: allowed (and remembered), or
 * dropped; then the first run, which waited for this answer. */
static unsigned answer_trust(ta_app *app, bool yes)
{
	ta_session *s = app->sess;
	if (yes) {
		char *err = NULL;
		if (ta_trust_allow(app->path, app->stored_command, app->stored_test, &err) != 0) {
			ta_app_set_message(app, true, "%s", err);
			free(err);
		} else {
			ta_app_set_message(app, false, "allowed; remembered for this file and these commands");
		}
		if (app->stored_command)
			s->command = app->stored_command;
		if (app->stored_test)
			s->test_command = app->stored_test;
	} else {
		for (size_t i = 0; app->stored_command && app->stored_command[i]; i++)
			free(app->stored_command[i]);
		free(app->stored_command);
		free(app->stored_test);
		ta_app_set_message(app, false, "not run: python3 %s is profiled and no test runs (give a "
				   "command after -- or --test=CMD to choose)", s->file_name);
	}
	app->stored_command = NULL;
	app->stored_test = NULL;
	if (ta_app_first_run_due(app))
		ta_app_start_profile(app, s->n_runs ? "re-run" : "first run");
	return TA_REACT_REDRAW | TA_REACT_SAVE;
}

static unsigned answer(ta_app *app, ta_req req)
{
	if (req != TA_REQ_YES && req != TA_REQ_NO && req != TA_REQ_CANCEL && req != TA_REQ_QUIT)
		return TA_REACT_NONE;
	ta_prompt was = app->prompt;
	app->prompt = TA_PROMPT_NONE;
	free(app->prompt_text);
	app->prompt_text = NULL;
	if (was == TA_PROMPT_TRUST)
		return answer_trust(app, req == TA_REQ_YES);
	if (was == TA_PROMPT_UNSAFE) {
		if (req == TA_REQ_YES) {
			app->unsafe_ok = true;
			unsigned r = ta_app_apply_at(app, app->prompt_line);
			app->unsafe_ok = false;
			return r;
		}
		ta_app_set_message(app, false, "not applied");
		return TA_REACT_REDRAW;
	}
	if (req == TA_REQ_YES)
		return do_undo_redo(app, true);
	ta_app_set_message(app, false, "kept");
	return TA_REACT_REDRAW;
}

unsigned ta_app_request(ta_app *app, ta_req req)
{
	if (app->prompt != TA_PROMPT_NONE)
		return answer(app, req);
	if (app->overlay && app->overlay->request) {
		unsigned r = app->overlay->request(app, req);
		if (!(r & TA_REACT_UNHANDLED))
			return r;
	}
	size_t n;
	const ta_keydef *keys = ta_keymap(&n);
	for (size_t i = 0; i < n; i++)
		if (keys[i].req == req && (keys[i].flags & TA_KEY_WRITES) && app->read_only) {
			ta_app_set_message(app, true, "this is a recorded session, shown read-only: "
					   "open the kernel file itself to change it");
			return TA_REACT_REDRAW;
		}
	switch (req) {
	case TA_REQ_NEXT_STEP:
	case TA_REQ_PREV_STEP:
	case TA_REQ_NEXT_KERNEL:
	case TA_REQ_PREV_KERNEL:
	case TA_REQ_FIRST:
	case TA_REQ_LAST:
	case TA_REQ_FOLD:
		return ta_view_walk.request(app, req) | TA_REACT_SAVE_SOON;
	case TA_REQ_PAGE_DOWN:
	case TA_REQ_PAGE_UP:
	case TA_REQ_RIGHT:
	case TA_REQ_LEFT:
		return ta_view_step.request(app, req);
	case TA_REQ_APPLY:
		return do_apply(app);
	case TA_REQ_RERUN:
		if (!busy(app))
			ta_app_start_profile(app, "re-run");
		return TA_REACT_REDRAW | TA_REACT_SAVE;
	case TA_REQ_UNDO:
		return do_undo_redo(app, true);
	case TA_REQ_REDO:
		return do_undo_redo(app, false);
	case TA_REQ_EDITOR:
		return do_editor(app);
	case TA_REQ_SKIP:
		return do_skip(app);
	case TA_REQ_DIFF:
		app->overlay = &ta_view_diff;
		app->overlay_top = 0;
		app->overlay_left = 0;
		return TA_REACT_REDRAW;
	case TA_REQ_LOG:
		app->overlay = &ta_view_log;
		app->overlay_top = 0;
		app->overlay_left = 0;
		return TA_REACT_REDRAW;
	case TA_REQ_HELP:
		app->overlay = &ta_view_help;
		app->overlay_top = 0;
		app->overlay_left = 0;
		return TA_REACT_REDRAW;
	case TA_REQ_WRITE:
		return do_write(app);
	case TA_REQ_CANCEL:
		if (app->run_kind != TA_RUN_NONE) {
			ta_app_cancel_run(app);
			ta_app_set_message(app, false, "cancelling the run...");
		} else {
			ta_app_set_message(app, false, NULL);
		}
		return TA_REACT_REDRAW;
	case TA_REQ_REDRAW:
		clearok(curscr, TRUE);
		return TA_REACT_REDRAW;
	case TA_REQ_QUIT:
		return TA_REACT_QUIT;
	default:
		return TA_REACT_NONE;
	}
}
