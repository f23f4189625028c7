/* Making a step's edit and its diff text (see walk_edit.h). */
#include "config.h"
#include "advise/walk_edit.h"

#include <stdlib.h>
#include <string.h>

#include "advise/edit.h"
#include "util/buf.h"

int ta_walk_edit_diff(const ta_model *m, const ta_finding *f, const char *name, char **diff,
		      char **title, char **unsafe, char **why_not)
{
	*diff = NULL;
	*title = NULL;
	*unsafe = NULL;
	*why_not = NULL;
	ta_edit e;
	if (ta_rewrite_at(m, f, &e, why_not) != 0) {
		if (!*why_not)
			*why_not = ta_xasprintf("no mechanical edit for %s here", f->id);
		return -1;
	}
	*diff = ta_edit_diff(&e, name ? name : "kernel.py", m->src->text, m->src->len);
	*title = ta_xstrdup(e.title ? e.title : f->id);
	*unsafe = e.unsafe ? ta_xstrdup(e.unsafe) : NULL;
	ta_edit_clear(&e);
	return 0;
}

static int kernel_index(const ta_model *m, const char *kernel)
{
	for (size_t i = 0; i < m->kernel_count && kernel; i++)
		if (!strcmp(m->kernels[i].name, kernel))
			return (int)i;
	return -1;
}

int ta_walk_edit_diff_at(const ta_model *m, const char *id, const char *kernel, uint32_t line,
			 const char *name, char **diff, char **title, char **why_not)
{
	*diff = NULL;
	*title = NULL;
	*why_not = NULL;
	ta_edit e;
	if (ta_rewrite_at_line(m, id, kernel_index(m, kernel), line, &e, why_not) != 0) {
		if (!*why_not)
			*why_not = ta_xasprintf("no mechanical edit for %s here", id);
		return -1;
	}
	*diff = ta_edit_diff(&e, name ? name : "kernel.py", m->src->text, m->src->len);
	*title = ta_xstrdup(e.title ? e.title : id);
	ta_edit_clear(&e);
	return 0;
}

int ta_walk_edit_apply(const ta_source *src, const ta_syntax *syn, const ta_model *m,
		       const char *id, const char *kernel, uint32_t line, char **msg)
{
	*msg = NULL;
	int k = kernel_index(m, kernel);
	ta_edit e;
	char *why = NULL;
	if (ta_rewrite_at_line(m, id, k, line, &e, &why) != 0) {
		*msg = why ? why : ta_xasprintf("no mechanical edit for %s here", id);
		return -1;
	}
	int rc = ta_edit_apply(src, syn, &e, msg);
	ta_edit_clear(&e);
	return rc;
}

char *ta_walk_edit_unsafe(const ta_model *m, const char *id, const char *kernel, uint32_t line)
{
	ta_edit e;
	char *why = NULL;
	if (ta_rewrite_at_line(m, id, kernel_index(m, kernel), line, &e, &why) != 0) {
		free(why);
		return NULL;
	}
	char *u = e.unsafe ? ta_xstrdup(e.unsafe) : NULL;
	ta_edit_clear(&e);
	return u;
}
