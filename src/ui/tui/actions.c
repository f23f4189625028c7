/* The requests that change something: apply, undo, redo, edit, skip,
 * runs, reports; and the dispatch of every request. */
#include "config.h"
#include "ui/tui/app.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "advise/journal.h"
#include "advise/statedir.h"
#include "ui/session_report.h"
#include "ui/tui/term.h"
#include "util/buf.h"
#include "util/fsutil.h"

static bool busy(ta_app *app)
{
	if (!ta_advisor_busy(app->adv))
		return false;
	ta_app_set_message(app, true, "a run is in progress: wait for it or press Esc to cancel it");
	return true;
}

/* a: the step's edit; when more than one of its sites can be rewritten,
 * the list of them, to pick one (as --apply ID:LINE does). */
static unsigned do_apply(ta_app *app)
{
	const ta_step *s = ta_app_step_ready(app);
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
	return ta_app_apply_at(app, s->edit_line, false);
}

unsigned ta_app_apply_at(ta_app *app, uint32_t line, bool unsafe_ok)
{
	const ta_step *s = ta_app_step(app);
	const ta_walk_kernel *k = ta_app_kernel(app);
	if (!s || !k || !s->diff || busy(app))
		return TA_REACT_REDRAW;
	char id[8], *kernel = ta_xstrdup(k->name), *unsafe = NULL;
	snprintf(id, sizeof id, "%s", s->id);
	bool unfold = app->unfold;
	ta_app_hold(app);
	ta_apply_result r = ta_advisor_apply(app->adv, kernel, id, line, unsafe_ok, &unsafe);
	free(kernel);
	if (r == TA_APPLY_UNSAFE) {
		/* An unsafe edit keeps the meaning only under the assumption it
		 * states: applied once y answers the question that says it. The
		 * question first: a narrow footer cuts the end, and the step page
		 * states the assumption too. */
		free(app->prompt_text);
		app->prompt_text = ta_xasprintf("Apply %s's unsafe edit at line %u? (y/n) It %s.", id,
						(unsigned)line, unsafe);
		app->prompt = TA_PROMPT_UNSAFE;
		app->prompt_line = line;
		free(unsafe);
		return TA_REACT_REDRAW;
	}
	app->unfold = unfold;
	ta_app_follow(app);
	return r == TA_APPLY_DONE ? TA_REACT_REDRAW | TA_REACT_SAVE : TA_REACT_REDRAW;
}

static unsigned do_undo_redo(ta_app *app, bool undo)
{
	if (busy(app))
		return TA_REACT_REDRAW;
	ta_app_hold(app);
	int rc = undo ? ta_advisor_undo(app->adv) : ta_advisor_redo(app->adv);
	ta_app_follow(app);
	return rc == 0 ? TA_REACT_REDRAW | TA_REACT_SAVE : TA_REACT_REDRAW;
}

/* Runs $VISUAL/$EDITOR (vi) on the file at line, the way system() would:
 * the advisor ignores ^C while the editor has the terminal. */
static unsigned do_editor(ta_app *app)
{
	if (busy(app))
		return TA_REACT_REDRAW;
	const ta_step *s = ta_app_step(app);
	const ta_session *ss = ta_advisor_session(app->adv);
	uint32_t line = s ? ta_step_line(s) : 0;
	/* An applied step has no finding left: go where its edit was made. */
	for (size_t i = ss->n_edits; !line && s && i-- > 0;)
		if (!strcmp(ss->edits[i].id, s->id) && !ss->edits[i].undone)
			line = ss->edits[i].line;
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
		execl("/bin/sh", "sh", "-c", "exec ${VISUAL:-${EDITOR:-vi}} \"$@\"", "sh", plus,
		      ta_advisor_path(app->adv), (char *)NULL);
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
	ta_app_hold(app);
	int changed = ta_advisor_reread(app->adv, "edited by hand");
	ta_app_follow(app);
	if (changed == 1)
		ta_app_set_message(app, false, "analysed again after your edit");
	return TA_REACT_REDRAW | TA_REACT_SAVE;
}

static unsigned do_skip(ta_app *app)
{
	const ta_step *s = ta_app_step(app);
	const ta_walk_kernel *k = ta_app_kernel(app);
	if (!s || !k)
		return TA_REACT_REDRAW;
	char id[8];
	snprintf(id, sizeof id, "%s", s->id);
	ta_app_hold(app);
	bool on = ta_advisor_skip(app->adv, k->name, id);
	ta_app_follow(app);
	ta_app_set_message(app, false, "%s %s", id, on ? "skipped" : "no longer skipped");
	if (on)
		ta_view_walk.request(app, TA_REQ_NEXT_STEP);
	return TA_REACT_REDRAW | TA_REACT_SAVE;
}

/* The report of the session, written whole or not at all: beside the
 * kernel through its state folder (advise/statedir.h: a link, a FIFO or a
 * folder planted at .tileadvise/report-NAME.md is refused, never written
 * through or waited on); for a replay, tileadvise-report-NAME.md in the
 * current folder, refused the same way. */
static int write_report(ta_app *app, const char *path, char **err)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc = !f || ta_session_report(ta_advisor_session(app->adv), ta_advisor_walk(app->adv), f) != 0 ? -1 : 0;
	if (f && fclose(f) != 0)
		rc = -1;
	if (rc != 0) {
		*err = ta_xstrdup("the report could not be made");
		free(text);
		return -1;
	}
	if (ta_advisor_read_only(app->adv)) {
		int dfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ta_write_at w = { .dirfd = dfd, .name = path, .shown = path, .mode = 0644,
				  .uid = (uid_t)-1, .gid = (gid_t)-1, .refuse_special = true };
		rc = dfd < 0 ? (*err = ta_xasprintf("cannot open the current folder: %s", strerror(errno)), -1)
			     : ta_write_atomic_at(&w, text, len, err);
		if (dfd >= 0)
			close(dfd);
	} else {
		ta_state_dir d;
		rc = ta_state_open(ta_advisor_path(app->adv), true, &d, err);
		if (rc == 0)
			rc = ta_state_write(&d, ta_path_basename(path), text, len, err);
		ta_state_close(&d);
	}
	free(text);
	return rc;
}

static unsigned do_write(ta_app *app)
{
	char *path;
	const ta_session *ss = ta_advisor_session(app->adv);
	if (ta_advisor_read_only(app->adv)) {
		path = ta_xasprintf("tileadvise-report-%s.md", ss->file_name);
		/* the session's name is its own: never a path out of this folder */
		for (char *p = path; *p; p++)
			if (*p == '/')
				*p = '_';
	} else {
		char *dir = ta_path_dirname(ta_advisor_session_path(app->adv));
		char *name = ta_xasprintf("report-%s.md", ss->file_name);
		path = ta_path_join(dir, name);
		free(dir);
		free(name);
		ta_app_save(app);   /* creates .tileadvise/ */
	}
	ta_advisor_walk_complete(app->adv);   /* the report covers every kernel */
	char *err = NULL;
	if (write_report(app, path, &err) != 0)
		ta_app_set_message(app, true, "cannot write %s: %s", path, err ? err : "failed");
	else
		ta_app_set_message(app, false, "report written to %s", path);
	free(err);
	free(path);
	return TA_REACT_REDRAW;
}

/* The session file's stored commands: allowed or not; then the first
 * run, which waited for this answer. */
static unsigned answer_trust(ta_app *app, bool yes)
{
	ta_app_hold(app);
	ta_advisor_trust(app->adv, yes);
	ta_app_follow(app);
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
		if (req == TA_REQ_YES)
			return ta_app_apply_at(app, app->prompt_line, true);
		ta_app_set_message(app, false, "not applied");
		return TA_REACT_REDRAW;
	}
	if (req == TA_REQ_YES) {
		if (busy(app))
			return TA_REACT_REDRAW;
		ta_app_hold(app);
		int rc = ta_advisor_revert(app->adv);
		ta_app_follow(app);
		return rc == 0 ? TA_REACT_REDRAW | TA_REACT_SAVE : TA_REACT_REDRAW;
	}
	ta_advisor_keep(app->adv);
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
		if (keys[i].req == req && (keys[i].flags & TA_KEY_WRITES) && ta_advisor_read_only(app->adv)) {
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
		if (!busy(app)) {
			ta_app_hold(app);
			ta_advisor_rerun(app->adv, "re-run");
			ta_app_follow(app);
		}
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
	case TA_REQ_SEARCH:
		app->searching = true;
		app->search_input[0] = '\0';
		ta_app_set_message(app, false, "/");
		return TA_REACT_REDRAW;
	case TA_REQ_NO:       /* n with no question asked: the next match */
		return app->search ? ta_app_search(app, false) : TA_REACT_NONE;
	case TA_REQ_PREV_MATCH:
		return ta_app_search(app, true);
	case TA_REQ_CANCEL:
		if (ta_advisor_busy(app->adv)) {
			ta_advisor_cancel(app->adv);
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
