/* A whole step: the edit of one entry made on every site of the current
 * version, as `--apply ID` repeated until no site is left; in a recording
 * (--record-session --step) the new version is measured by a record
 * stream saved on the GPU, and the session gets the edit entry the advisor
 * would have written had it applied the step itself. */
#include "config.h"
#include "advise/advisor_internal.h"

#include <stdlib.h>
#include <string.h>

#include "advise/edit.h"
#include "checklist/filter.h"
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

/* The first reported finding of id on m whose rewrite makes an edit the
 * request allows (unsafe ones only with unsafe_ok; none a suppression
 * comment silences), as ta_rewrite_first finds it. Returns 1 with *e
 * (caller clears), or 0 with *why: the first refusal, or that id does not
 * apply. */
static int next_site(const ta_model *m, const char *id, bool unsafe_ok, ta_edit *e, char **why)
{
	ta_rules_result *r = ta_rules_run(m, NULL);
	ta_suppressions *sup = ta_suppressions_read(m->src);
	const ta_finding *f;
	bool any = false;
	int got = 0;
	*why = NULL;
	for (size_t n = 0; !got && (f = ta_rules_find(r, id, 0, n)); n++) {
		if (ta_suppressions_silence_finding(sup, r, f))
			continue;
		char *w = NULL;
		if (ta_rewrite_at(m, f, e, &w) == 0 && (!e->unsafe || unsafe_ok)) {
			got = 1;
			break;
		}
		if (!w && e->unsafe)
			w = ta_xasprintf("unsafe: it %s (--unsafe-fixes makes it)", e->unsafe);
		ta_edit_clear(e);
		if (!any)
			*why = w;
		else
			free(w);
		any = true;
	}
	if (got) {
		free(*why);
		*why = NULL;
	} else if (!any) {
		const ta_entry_def *d = ta_entry_find(id);
		*why = ta_xasprintf("%s does not apply to this file", d ? d->id : id);
	}
	ta_suppressions_free(sup);
	ta_rules_result_free(r);
	return got;
}

/* Today's edit of id on every site of an's text. Returns 0 with *text
 * (caller frees), *len and the first site's line, or -1 with *err. */
static int make_step_text(const ta_analysis *an, const char *name, const char *id, bool unsafe_ok,
			  char **text, size_t *len, uint32_t *line, char **err)
{
	if ((*err = refusal(id)) != NULL)
		return -1;
	char *cur = ta_xstrndup(an->src->text, an->src->len);
	size_t cl = an->src->len, sites = 0;
	ta_analysis *next_an = NULL;
	const ta_model *m = an->model;
	int rc = 0;
	while (sites < STEP_MAX_SITES) {
		char *next = NULL, *why = NULL;
		size_t nl = 0;
		ta_edit e;
		int got = next_site(m, id, unsafe_ok, &e, &why);
		if (got && ta_edit_apply_text(&e, cur, cl, &next, &nl, &why) != 0)
			got = -1;
		uint32_t at = got ? e.line : 0;
		if (got)
			ta_edit_clear(&e);
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
		ta_analysis_free(next_an);
		if (ta_analysis_from_bytes(name, cur, cl, &next_an, err) != 0) {
			next_an = NULL;
			rc = -1;
			break;
		}
		m = next_an->model;
	}
	ta_analysis_free(next_an);
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
static void add_step(ta_session *s, const char *id, const char *kernel, uint32_t line, const char *text,
		     size_t len, const char *label, ta_run_figures *run, char *date)
{
	unsigned prev = s->current;
	const ta_session_version *pv = &s->versions[prev];
	char *diff = ta_edit_diff_texts(s->file_name, pv->text, pv->len, text, len);
	ta_session_add_version(s, text, len, label);
	ta_session_edit *e = ta_session_add_edit(s, id, kernel, line, diff, prev);
	/* When it was measured, not when this file was written. */
	free(e->date);
	e->date = date;
	run->version = s->current;
	e->after_run = ta_session_add_run(s, run);
	free(diff);
}

/* A recorded step: today's edit of the request's id made on the session's
 * current text, the version after it measured by the request's stream. */
static int record_step(ta_advisor *a, const ta_step_request *st, char **err)
{
	ta_session *s = a->sess;
	char *made = NULL, *measured = NULL, *why_none = NULL;
	size_t made_len = 0, measured_len;
	uint32_t line = 0;
	if (read_measured(st->measured, &measured, &measured_len, err) != 0)
		return -1;
	if (make_step_text(a->an, s->file_name, st->id, st->unsafe_ok, &made, &made_len, &line, &why_none) != 0) {
		/* A recorded step today's checklist no longer makes (its finding is
		 * gone): the measured text still stands, labelled so; without it
		 * there is nothing to pair the figures with. */
		if (!measured || refusal(st->id)) {
			*err = why_none;
			free(measured);
			return -1;
		}
		line = first_changed_line(a->an->src->text, a->an->src->len, measured, measured_len);
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
	if (ta_run_figures_from_records(next->model, st->records, a->has_gpu ? &a->gpu : NULL, false, label, &run,
					&meta, err) != 0)
		goto out;
	add_step(s, st->id, kernel_at(a->an->model, line), line, text, len, label, &run, meta.date);
	ta_analysis_free(a->an);
	a->an = next;
	next = NULL;
	adv_rebuild_walk(a);
	adv_event *e = adv_push(a, TA_ADVISOR_MEASURED, false, ta_xasprintf("%s measured (%s)", st->id, label));
	e->edit = (int)s->n_edits - 1;
	e->run = (int)s->n_runs - 1;
	rc = differs ? 1 : 0;
out:
	ta_run_figures_clear(&run);
	ta_analysis_free(next);
	free(label);
	free(made);
	free(measured);
	return rc;
}

/* The edit that takes src's text to text: one replacement of the part
 * that differs, so that the journal holds the whole step as one entry. */
static void whole_edit(const ta_source *src, const char *id, uint32_t line, const char *text, size_t len,
		       ta_edit *e)
{
	size_t p = 0, q = 0;
	while (p < src->len && p < len && src->text[p] == text[p])
		p++;
	while (q < src->len - p && q < len - p && src->text[src->len - 1 - q] == text[len - 1 - q])
		q++;
	/* The text's line endings are the edits' own already. */
	ta_edit_init(e, id, false);
	e->line = line;
	char *mid = ta_xstrndup(text + p, len - p - q);
	ta_edit_replace(e, (uint32_t)p, (uint32_t)(src->len - q), mid);
	free(mid);
}

/* A step on the file itself: written through the journal (undo takes the
 * whole step back), then measured as an edit of the advisor's is. */
static int file_step(ta_advisor *a, const ta_step_request *st, char **err)
{
	if (ta_advisor_busy(a)) {
		*err = ta_xstrdup("a run is in progress");
		return -1;
	}
	ta_session *s = a->sess;
	char *text = NULL;
	size_t len = 0;
	uint32_t line = 0;
	if (make_step_text(a->an, s->file_name, st->id, st->unsafe_ok, &text, &len, &line, err) != 0)
		return -1;
	const char *kernel = kernel_at(a->an->model, line);
	char *kname = kernel ? ta_xstrdup(kernel) : NULL;
	unsigned prev = s->current;
	ta_edit e;
	whole_edit(a->an->src, st->id, line, text, len, &e);
	char *msg = NULL;
	int rc = ta_edit_apply(a->an->src, a->an->syn, &e, &msg);
	ta_edit_clear(&e);
	if (rc != 0) {
		*err = msg ? msg : ta_xasprintf("the %s edit could not be applied", st->id);
		free(kname);
		free(text);
		return -1;
	}
	const ta_session_version *pv = &s->versions[prev];
	char *diff = ta_edit_diff_texts(s->file_name, pv->text, pv->len, text, len);
	char label[32];
	snprintf(label, sizeof label, "after %s", st->id);
	adv_reanalyse(a, label);
	ta_session_add_edit(s, st->id, kname, line, diff, prev);
	a->pending_edit = (int)(s->n_edits - 1);
	adv_rebuild_walk(a);
	adv_event *ev = adv_push(a, TA_ADVISOR_NOTE, false, msg);
	ev->edit = a->pending_edit;
	adv_measure_edit(a, label);
	free(diff);
	free(kname);
	free(text);
	return 0;
}

int ta_advisor_apply_step(ta_advisor *a, const ta_step_request *r, char **err)
{
	*err = NULL;
	if (a->read_only || !a->an) {
		*err = ta_xstrdup("a replay is read-only");
		return -1;
	}
	return a->opt.recording ? record_step(a, r, err) : file_step(a, r, err);
}

/* ---- the first run of a recording ------------------------------------------------ */

int adv_record_first_run(ta_advisor *a, const char *records, const char *label)
{
	ta_session *s = a->sess;
	ta_run_figures run;
	ta_records_meta meta;
	char *err = NULL;
	if (ta_run_figures_from_records(a->an->model, records, a->has_gpu ? &a->gpu : NULL, false, label, &run,
					&meta, &err) != 0) {
		adv_note(a, TA_ADVISOR_RUN_FAILED, true, "%s", err);
		free(err);
		return -1;
	}
	if (a->has_gpu && meta.driver > 0) {
		a->gpu.driver_version = meta.driver;
		s->env.driver = meta.driver;
	}
	s->env.cupti = meta.cupti;
	/* The session is as old as its first measurement. */
	free(s->created);
	s->created = meta.date;
	run.version = s->current;
	int idx = ta_session_add_run(s, &run);
	adv_rebuild_walk(a);
	adv_event *e = adv_push(a, TA_ADVISOR_MEASURED, false, ta_xasprintf("measured %zu kernel%s (%s)",
									 s->runs[idx].n_kernels,
									 s->runs[idx].n_kernels == 1 ? "" : "s", label));
	e->run = idx;
	return 0;
}
