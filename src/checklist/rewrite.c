/* Making an entry's edit: its rewrite from the table, or its guided
 * template (see rewrite.h). */
#include "config.h"
#include "checklist/rewrite_internal.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const ta_rewrite *ta_rewrite_find(const char *id)
{
	const ta_entry_def *d = ta_entry_find(id);
	return d && d->rewrite->make ? d->rewrite : NULL;
}

int ta_rewrite_at(const ta_model *m, const ta_finding *f, ta_edit *out, char **why_not)
{
	const ta_entry_def *d = ta_entry_find(f->id);
	ta_edit_init(out, d ? d->id : f->id, m->src->crlf);
	if (!d || !d->rewrite->make)
		return ta_edits_refuse(why_not, "%s has no mechanical edit", f->id);
	int site = d->scope == TA_SCOPE_HOST ? f->host : f->kernel;
	int rc = d->rewrite->make(m, site, f->span.line, out, why_not);
	if (rc != 0) {
		ta_edit_clear(out);
		return rc < -1 ? -2 : -1;
	}
	/* A rewrite declared unsafe whose edit names no assumption of its own
	 * states the rewrite's. */
	if (d->rewrite->safety == TA_FIX_UNSAFE && !out->unsafe && d->rewrite->assumes)
		out->unsafe = ta_xstrdup(d->rewrite->assumes);
	return 0;
}

const char *ta_fix_safety_name(ta_fix_safety s)
{
	return s == TA_FIX_SAFE ? "safe" : s == TA_FIX_UNSAFE ? "unsafe" : "safe or unsafe";
}

int ta_rewrite_at_line(const ta_model *m, const char *id, int kernel, uint32_t line, ta_edit *out,
		       char **why_not)
{
	ta_finding f = { .kernel = kernel, .host = -1, .id = id };
	f.span.line = line;
	if (line >= 1 && line <= m->src->line_count)
		f.host = ta_rules_host_at(m, (uint32_t)m->src->line_starts[line - 1]);
	return ta_rewrite_at(m, &f, out, why_not);
}

/* The sentence for an edit that f's rewrite makes where --check offers
 * nothing: f's entry waits for a measurement to decide. Caller frees. */
static char *not_offered(const ta_rules_result *r, const ta_finding *f)
{
	int e = ta_entry_index_of(f->id);
	ta_status s = e < 0 ? TA_STATUS_NOT_APPLICABLE : ta_rules_status(r, f->kernel, (size_t)e);
	const char *what = s == TA_STATUS_NEEDS_BASELINE ? "a baseline" : "a profile";
	return ta_xasprintf("line %u: %s needs %s to tell whether it applies to %s, so --check does not offer it "
			    "and --apply does not make it (the advisor, with %s, does)", f->span.line, f->id, what,
			    r->model->kernels[f->kernel].name, what);
}

int ta_rewrite_first(const ta_model *m, const ta_rules_result *r, const char *id, uint32_t line, bool offered,
		     ta_edit *out, const ta_finding **at, char **why_not)
{
	*at = NULL;
	*why_not = NULL;
	const ta_finding *f;
	for (size_t n = 0; (f = ta_rules_find(r, id, line, n)); n++) {
		char *why = NULL;
		if (ta_rewrite_at(m, f, out, &why) == 0) {
			if (offered && !ta_rules_reported(r, f)) {
				/* the rewrite would edit a site --check does not list */
				ta_edit_clear(out);
				why = not_offered(r, f);
			} else {
				free(*why_not);
				*why_not = NULL;
				*at = f;
				return 0;
			}
		}
		if (!*at) {
			*at = f;
			*why_not = why;
		} else {
			free(why);
		}
	}
	ta_edit_init(out, id, m->src->crlf);
	if (*at)
		return -1;
	const ta_entry_def *d = ta_entry_find(id);
	const char *withheld = line ? NULL : ta_rules_withheld(r, id);
	if (withheld)
		return ta_edits_none(why_not, "%s does not apply to this file: %s", d ? d->id : id, withheld);
	return ta_edits_none(why_not, line ? "%s does not apply on line %u (tileadvise --check lists where it does)"
				       : "%s does not apply to this file", d ? d->id : id, line);
}

int ta_rewrite_guided(const ta_model *m, const char *id, uint32_t line,
		      const char *const *names, size_t name_count, ta_edit *out, char **err)
{
	ta_edit_init(out, id, m->src->crlf);
	out->guided = true;
	if (line == 0 || line > m->src->line_count) {
		*err = ta_xasprintf("line %u is outside %s (%zu lines)", line, m->src->path, m->src->line_count);
		return -1;
	}
	uint32_t at = (uint32_t)m->src->line_starts[line - 1];
	char *ind = ta_edits_indent_at(m, at);
	const char *t = ta_edits_guided_template(id);
	ta_buf b = TA_BUF_INIT;
	ta_buf_printf(&b, "%s# tileadvise [%s]: ", ind, id);
	for (const char *p = t; *p; p++) {
		if (*p == '{' && isdigit((unsigned char)p[1]) && p[2] == '}') {
			size_t i = (size_t)(p[1] - '0');
			ta_buf_puts(&b, i < name_count && names[i] ? names[i] : "?");
			p += 2;
		} else if (!strncmp(p, "{id}", 4)) {
			ta_buf_puts(&b, id);
			p += 3;
		} else if (*p == '\n') {
			ta_buf_printf(&b, "\n%s#   ", ind);
		} else {
			ta_buf_putc(&b, *p);
		}
	}
	ta_buf_putc(&b, '\n');
	ta_edit_replace(out, at, at, ta_buf_str(&b));
	ta_edit_set_title(out, "%s: a template to finish by hand at line %u", id, line);
	out->line = line;
	ta_buf_free(&b);
	free(ind);
	return 0;
}
