/* The steps of a recorded walk (`--record-session OUT --step ID=RECORDS`):
 * today's edit made on the session's current version in memory, the new
 * version measured by a record stream saved on the GPU, and the edit
 * entry the advisor would have written had it applied the step itself. */
#include "config.h"
#include "advise/session.h"

#include <stdlib.h>
#include <string.h>

#include "advise/edit.h"
#include "advise/run.h"
#include "analyze/analysis.h"
#include "util/buf.h"
#include "util/fsutil.h"

/* As tests/gpu/edits.sh: `--apply ID` again until no site is left. */
#define STEP_MAX_SITES 12
#define STEP_MAX_BYTES ((size_t)64 << 20)

/* The kernel an edit at line belongs to: the one whose definition
 * (decorators included) holds the line, else the file's only launched
 * kernel (a host-side edit of a one-kernel file), else none. */
static const char *kernel_at(const ta_model *m, uint32_t line)
{
	const char *only = NULL;
	size_t launched = 0;
	for (size_t i = 0; i < m->kernel_count; i++) {
		const ta_kernel *k = &m->kernels[i];
		if (k->span.line <= line && line <= k->span.end_line)
			return k->name;
		if (!k->is_helper) {
			only = k->name;
			launched++;
		}
	}
	return launched == 1 ? only : NULL;
}

/* Why id cannot be a step at all: no generator, or one the tool only shows. */
static char *refusal(const char *id)
{
	const ta_rewrite *g = ta_rewrite_find(id);
	if (!g)
		return ta_xasprintf("%s has no mechanical edit", id);
	if (g->demoted)
		return ta_xasprintf("%s is a guided edit, not applied by tileadvise: %s", id, g->demoted);
	return NULL;
}

/* One site: cur (which m analyses) with id's next edit made. Returns 1
 * with *next, 0 when no site is left (*why says why), -1 on an error. */
static int make_site(const ta_model *m, const char *id, const char *cur, size_t len, char **next,
		     size_t *next_len, uint32_t *line, char **why)
{
	ta_edit e;
	ta_rules_result *r = ta_rules_run(m, NULL);
	const ta_finding *at;
	int made = ta_rewrite_first(m, r, id, 0, false, &e, &at, why);
	ta_rules_result_free(r);
	if (made != 0)
		return 0;
	*line = e.line;
	int rc = ta_edit_apply_text(&e, cur, len, next, next_len, why) == 0 ? 1 : -1;
	ta_edit_clear(&e);
	return rc;
}

/* Today's edit of id on every site of a's text. Returns 0 with *text
 * (caller frees), *len and the first site's line, or -1 with *err. */
static int make_step_text(const ta_analysis *a, const char *name, const char *id, char **text,
			  size_t *len, uint32_t *line, char **err)
{
	if ((*err = refusal(id)) != NULL)
		return -1;
	char *cur = ta_xstrndup(a->src->text, a->src->len);
	size_t cl = a->src->len, sites = 0;
	ta_analysis *an = NULL;
	const ta_model *m = a->model;
	int rc = 0;
	while (sites < STEP_MAX_SITES) {
		char *next = NULL, *why = NULL;
		size_t nl = 0;
		uint32_t at = 0;
		int got = make_site(m, id, cur, cl, &next, &nl, &at, &why);
		if (got <= 0 || (nl == cl && !memcmp(next, cur, cl))) {
			if (got < 0 || sites == 0)
				*err = ta_xasprintf("no %s edit to make: %s", id,
						    why ? why : "the edit changes nothing");
			rc = got < 0 || sites == 0 ? -1 : 0;
			free(why);
			free(next);
			break;
		}
		free(why);
		if (sites++ == 0)
			*line = at;
		free(cur);
		cur = next;
		cl = nl;
		/* The next site is found on the text as it is now. */
		ta_analysis_free(an);
		if (ta_analysis_from_bytes(name, cur, cl, &an, err) != 0) {
			an = NULL;
			rc = -1;
			break;
		}
		m = an->model;
	}
	ta_analysis_free(an);
	if (rc != 0) {
		free(cur);
		return -1;
	}
	*text = cur;
	*len = cl;
	return 0;
}

/* The file the step's records measured, without a UTF-8 BOM (versions are
 * kept as analysed). NULL path: none. */
static int read_measured(const char *path, char **text, size_t *len, char **err)
{
	*text = NULL;
	*len = 0;
	if (!path)
		return 0;
	char *why;
	if (ta_read_file(path, STEP_MAX_BYTES, text, len, &why) != 0) {
		*err = ta_xasprintf("%s: %s", path, why);
		free(why);
		return -1;
	}
	if (*len >= 3 && !memcmp(*text, "\xEF\xBB\xBF", 3)) {
		memmove(*text, *text + 3, *len - 3);
		*len -= 3;
		(*text)[*len] = '\0';
	}
	return 0;
}

/* The first line (1-based) where b differs from a. */
static uint32_t first_changed_line(const char *a, size_t al, const char *b, size_t bl)
{
	uint32_t line = 1;
	for (size_t i = 0; i < al && i < bl && a[i] == b[i]; i++)
		if (a[i] == '\n')
			line++;
	return line;
}

/* The version and its run, the edit between the previous version and it. */
static void add_step(ta_session *s, const ta_record_step *st, const char *kernel, uint32_t line,
		     const char *text, size_t len, const char *label, ta_run_figures *run,
		     char *date)
{
	unsigned prev = s->current;
	const ta_session_version *pv = &s->versions[prev];
	char *diff = ta_edit_diff_texts(s->file_name, pv->text, pv->len, text, len);
	ta_session_add_version(s, text, len, label);
	ta_session_edit *e = ta_session_add_edit(s, st->id, kernel, line, diff, prev);
	/* When it was measured, not when this file was written. */
	free(e->date);
	e->date = date;
	run->version = s->current;
	e->after_run = ta_session_add_run(s, run);
	free(diff);
}

int ta_session_apply_step(ta_session *s, ta_analysis **a, const ta_record_step *st,
			  const ta_gpu_info *gpu, char **err)
{
	char *made = NULL, *measured = NULL, *why_none = NULL;
	size_t made_len = 0, measured_len;
	uint32_t line = 0;
	if (read_measured(st->measured, &measured, &measured_len, err) != 0)
		return -1;
	if (make_step_text(*a, s->file_name, st->id, &made, &made_len, &line, &why_none) != 0) {
		/* A recorded step today's checklist no longer makes (its finding is
		 * gone): the measured text still stands, labelled so; without it
		 * there is nothing to pair the figures with. */
		if (!measured || refusal(st->id)) {
			*err = why_none;
			free(measured);
			return -1;
		}
		line = first_changed_line((*a)->src->text, (*a)->src->len, measured, measured_len);
	}
	/* The figures belong to the measured bytes: when today's edit gives
	 * others, keep those and say so rather than pair them with new text. */
	bool differs = measured && (!made || measured_len != made_len || memcmp(measured, made, made_len));
	const char *text = differs ? measured : made;
	size_t len = differs ? measured_len : made_len;
	char *label = !made ? ta_xasprintf("after %s, as measured; today's tileadvise makes no %s edit there",
					   st->id, st->id)
		      : differs ? ta_xasprintf("after %s, as measured; today's %s edit differs", st->id, st->id)
				: ta_xasprintf("after %s", st->id);
	free(why_none);
	ta_analysis *next = NULL;
	ta_run_figures run = { 0 };
	ta_records_meta meta = { 0 };
	int rc = -1;
	if (ta_analysis_from_bytes(s->file_name, text, len, &next, err) != 0)
		goto out;
	if (ta_run_figures_from_records(next->model, st->records, gpu, false, label, &run, &meta, err) != 0)
		goto out;
	add_step(s, st, kernel_at((*a)->model, line), line, text, len, label, &run, meta.date);
	ta_analysis_free(*a);
	*a = next;
	next = NULL;
	rc = differs ? 1 : 0;
out:
	ta_run_figures_clear(&run);
	ta_analysis_free(next);
	free(label);
	free(made);
	free(measured);
	return rc;
}
