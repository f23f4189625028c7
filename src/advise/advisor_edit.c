/* The advisor's edits: applying a step's edit and measuring it, undo,
 * redo, the answer to an offered revert, skipping a step. */
#include "config.h"
#include "advise/advisor_internal.h"

#include <stdlib.h>
#include <string.h>

#include "advise/edit.h"
#include "advise/walk_edit.h"
#include "util/buf.h"
#include "util/fsutil.h"

/* After an edit the file is run again; without profiling, a --test given
 * with --no-profile still runs. */
void adv_measure_edit(ta_advisor *a, const char *label)
{
	if (!a->opt.no_profile && (a->opt.records || a->opt.records_for || !a->why_no_profile))
		adv_start_profile(a, label);
	else if (a->sess->test_command && (!a->opt.no_profile || a->opt.test_command))
		adv_start_test(a);
	else
		a->pending_edit = -1;
}

ta_apply_result ta_advisor_apply(ta_advisor *a, const char *kernel, const char *id, uint32_t line,
				 bool unsafe_ok, char **assumption)
{
	if (assumption)
		*assumption = NULL;
	ta_step *s = a->read_only ? NULL : ta_walk_find_step(a->walk, kernel, id);
	ta_walk_step_ready(a->walk, s);
	if (!s || !s->diff || ta_advisor_busy(a))
		return TA_APPLY_REFUSED;
	/* An unsafe edit keeps the meaning only under the assumption it
	 * states: made once the front end allows it. */
	char *unsafe = unsafe_ok ? NULL : ta_walk_edit_unsafe(a->an->model, id, kernel, line);
	if (unsafe) {
		if (assumption)
			*assumption = unsafe;
		else
			free(unsafe);
		return TA_APPLY_UNSAFE;
	}
	/* The step is rebuilt below: what is needed of it is copied first. */
	char sid[8], *kname = ta_xstrdup(kernel);
	snprintf(sid, sizeof sid, "%s", s->id);
	ta_session *ss = a->sess;
	unsigned prev = ss->current;
	/* The diff the session keeps is the one of the site applied. */
	char *diff = NULL, *title = NULL, *why = NULL;
	if (line == s->edit_line) {
		diff = ta_xstrdup(s->diff);
	} else if (ta_walk_edit_diff_at(a->an->model, sid, kname, line, ss->file_name, &diff, &title, &why) != 0) {
		adv_note(a, TA_ADVISOR_NOTE, true, "%s", why ? why : "the edit could not be made there");
		free(why);
		free(kname);
		return TA_APPLY_REFUSED;
	}
	free(title);
	char *msg = NULL;
	if (ta_walk_edit_apply(a->an->src, a->an->syn, a->an->model, sid, kname, line, &msg) != 0) {
		adv_note(a, TA_ADVISOR_NOTE, true, "%s", msg ? msg : "the edit could not be applied");
		free(msg);
		free(diff);
		free(kname);
		return TA_APPLY_REFUSED;
	}
	char label[32];
	snprintf(label, sizeof label, "after %s", sid);
	adv_reanalyse(a, label);
	ta_session_add_edit(ss, sid, kname, line, diff, prev);
	a->pending_edit = (int)(ss->n_edits - 1);
	adv_rebuild_walk(a);
	adv_note(a, TA_ADVISOR_NOTE, false, "%s", msg);
	free(msg);
	free(diff);
	free(kname);
	adv_measure_edit(a, label);
	return TA_APPLY_DONE;
}

static int undo_redo(ta_advisor *a, bool undo)
{
	a->offer = false;
	if (a->read_only || ta_advisor_busy(a))
		return -1;
	char *diff = NULL, *msg = NULL;
	int rc = undo ? ta_edit_undo(a->path, &diff, &msg) : ta_edit_redo(a->path, &diff, &msg);
	free(diff);
	if (rc != 0) {
		adv_note(a, TA_ADVISOR_NOTE, true, "%s", msg ? msg : "nothing to do");
		free(msg);
		return -1;
	}
	ta_session_edit *e = undo ? ta_session_last_edit(a->sess) : ta_session_next_undone(a->sess);
	if (e)
		e->undone = undo;
	adv_reanalyse(a, undo ? "undone" : "redone");
	adv_note(a, TA_ADVISOR_NOTE, false, "%s", msg ? msg : undo ? "undone" : "redone");
	free(msg);
	return 0;
}

int ta_advisor_undo(ta_advisor *a)
{
	return undo_redo(a, true);
}

int ta_advisor_redo(ta_advisor *a)
{
	return undo_redo(a, false);
}

int ta_advisor_revert(ta_advisor *a)
{
	return undo_redo(a, true);
}

bool ta_advisor_skip(ta_advisor *a, const char *kernel, const char *id)
{
	if (a->read_only)
		return false;
	bool on = !ta_session_skipped(a->sess, kernel, id);
	char *k = ta_xstrdup(kernel);   /* kernel may be the walk's, rebuilt below */
	char sid[8];
	snprintf(sid, sizeof sid, "%s", id);
	ta_session_set_skip(a->sess, k, sid, on);
	adv_rebuild_walk(a);
	free(k);
	return on;
}
