/* `--diff`, `--apply`, `--undo` and `--redo`: the command-line actions on
 * suggested edits (advise/edit.h makes and applies them). */
#include "config.h"
#include "advise/edit_cmd.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "advise/edit.h"
#include "advise/journal.h"
#include "analyze/analysis.h"
#include "util/buf.h"
#include "util/text.h"
#include "util/fsutil.h"

int ta_edit_parse_spec(const char *spec, char id[8], uint32_t *line)
{
	size_t n = 0;
	while (isalnum((unsigned char)spec[n]) && n < 7)
		n++;
	if (n == 0 || !isalpha((unsigned char)spec[0]) || (spec[n] && spec[n] != ':'))
		return -1;
	for (size_t i = 0; i < n; i++)
		id[i] = (char)toupper((unsigned char)spec[i]);
	id[n] = '\0';
	*line = 0;
	if (spec[n] == ':') {
		char *end;
		errno = 0;
		unsigned long v = strtoul(spec + n + 1, &end, 10);
		if (end == spec + n + 1 || *end || errno || v == 0 || v > UINT32_MAX)
			return -1;
		*line = (uint32_t)v;
	}
	return 0;
}

static ta_exit fail(FILE *err, char *msg)
{
	fprintf(err, "tileadvise: %s\n", ta_text_name(msg));
	free(msg);
	return TA_EXIT_ERROR;
}

static ta_exit run_locked(const char *action, const char *id, uint32_t line, const char *path,
			  bool unsafe_fixes, FILE *out, FILE *err);

ta_exit ta_edit_run(const char *action, const char *spec, const char *path, bool unsafe_fixes, FILE *out,
		    FILE *err)
{
	char *msg = NULL, *d = NULL;
	if (!strcmp(action, "undo") || !strcmp(action, "redo")) {
		int rc = (action[0] == 'u' ? ta_edit_undo : ta_edit_redo)(path, &d, &msg);
		if (rc != 0)
			return fail(err, msg);
		fputs(d, out);
		free(d);
		fprintf(err, "tileadvise: %s\n", ta_text_name(msg));
		free(msg);
		return TA_EXIT_OK;
	}
	char id[8];
	uint32_t line;
	if (!spec || ta_edit_parse_spec(spec, id, &line) != 0)
		return fail(err, ta_xasprintf("bad edit '%s': give a checklist id and optional line, e.g. D12 or D12:37",
					      spec ? spec : ""));
	/* --apply holds the lock from the analysis on: a second --apply on the
	 * same file waits, then edits what the first one wrote. */
	ta_journal_lock *lock = NULL;
	if (!strcmp(action, "apply")) {
		char *real = NULL;
		struct stat st;
		if (ta_edit_target(path, &real, &st, &msg) != 0)
			return fail(err, msg);
		lock = ta_journal_lock_take(real, true, &msg);
		free(real);
		if (!lock)
			return fail(err, msg);
	}
	ta_exit rc = run_locked(action, id, line, path, unsafe_fixes, out, err);
	ta_journal_unlock(lock);
	return rc;
}

/* ta_edit_run's make, diff and apply, with the file's lock held for apply. */
static ta_exit run_locked(const char *action, const char *id, uint32_t line, const char *path,
			  bool unsafe_fixes, FILE *out, FILE *err)
{
	char *msg = NULL, *d = NULL;
	ta_analysis *a;
	if (ta_analysis_open(path, &a, &msg) != 0)
		return fail(err, msg);
	if (ta_entry_index_of(id) < 0) {
		ta_analysis_free(a);
		return fail(err, ta_xasprintf("unknown checklist id '%s' (see tileadvise --list-rules)", id));
	}
	/* The line names a finding, as --check reported it; the edit is made
	 * for that finding's site, so --check, --diff and --apply agree. */
	ta_rules_result *r = ta_rules_run(a->model, NULL);
	ta_edit e;
	char *why = NULL;
	ta_exit rc = TA_EXIT_OK;
	const ta_finding *at = NULL;
	int made = ta_rewrite_first(a->model, r, id, line, true, &e, &at, &why);
	if (made != 0) {
		/* An entry the tool writes: its rewrite's refusal is the answer for
		 * --diff as for --apply, and so is the absence of a finding. Only
		 * guided entries show a template, at their finding. */
		const ta_rewrite *written = ta_rewrite_find(id);
		if (!strcmp(action, "apply") || (written && !written->demoted) || !at) {
			rc = fail(err, ta_xasprintf("%s: no %s edit to %s: %s", path, id,
						    !strcmp(action, "apply") ? "apply" : "show", why));
			free(why);
			ta_rules_result_free(r);
			ta_analysis_free(a);
			return rc;
		}
		const char *names[] = { a->model->kernels[at->kernel].name };
		if (ta_rewrite_guided(a->model, id, at->span.line, names, 1, &e, &msg) != 0) {
			free(why);
			ta_rules_result_free(r);
			ta_analysis_free(a);
			return fail(err, msg);
		}
		fprintf(err, "tileadvise: %s: %s; showing a guided template\n", id, why);
		free(why);
	}
	ta_rules_result_free(r);
	const ta_rewrite *rw = ta_rewrite_find(id);
	if (made == 0 && rw && rw->demoted) {
		e.guided = true;
		if (!strcmp(action, "apply")) {
			rc = fail(err, ta_xasprintf("%s is a guided edit: %s (tileadvise --diff=%s shows it)",
						    e.id, rw->demoted, e.id));
			ta_edit_clear(&e);
			ta_analysis_free(a);
			return rc;
		}
	}
	/* An unsafe edit keeps the program's meaning only under its stated
	 * assumption: shown with it, applied only when asked for. */
	if (e.unsafe && !strcmp(action, "apply") && !unsafe_fixes) {
		rc = fail(err, ta_xasprintf("%s: the %s edit at line %u is unsafe: it %s; --unsafe-fixes applies it "
					    "(--diff=%s:%u shows it)", path, e.id, e.line, e.unsafe, e.id, e.line));
		ta_edit_clear(&e);
		ta_analysis_free(a);
		return rc;
	}
	if (e.unsafe)
		fprintf(err, "tileadvise: unsafe edit: it %s\n", e.unsafe);
	d = ta_edit_diff(&e, path, a->src->text, a->src->len);
	if (!strcmp(action, "apply")) {
		/* The edit and its diff are made: the check of the new text
		 * parses it whole, so the old tree goes first (a 4 MB file held
		 * two trees, 423 MB). */
		ta_model_free(a->model);
		a->model = NULL;
		ta_syntax_drop_tree(a->syn);
		if (ta_edit_apply(a->src, a->syn, &e, &msg) != 0) {
			rc = fail(err, msg);
		} else {
			fputs(d, out);
			fprintf(err, "tileadvise: %s\n", ta_text_name(msg));
			free(msg);
		}
	} else {
		fputs(d, out);
	}
	free(d);
	ta_edit_clear(&e);
	ta_analysis_free(a);
	return rc;
}
