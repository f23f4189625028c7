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

int ta_rewrite_make(const ta_model *m, const char *id, uint32_t line, ta_edit *out, char **why_not)
{
	const ta_entry_def *d = ta_entry_find(id);
	ta_edit_init(out, d ? d->id : id, m->src->crlf);
	if (!d || !d->rewrite->make)
		return ta_edits_refuse(why_not, "%s has no mechanical edit", id);
	int rc = d->rewrite->make(m, -1, line, out, why_not);
	if (rc != 0) {
		ta_edit_clear(out);
		return rc < -1 ? -2 : -1;
	}
	return 0;
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
