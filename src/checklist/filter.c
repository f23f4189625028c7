/* Which findings are reported: id lists, preview, suppression comments
 * (see filter.h). */
#include "config.h"
#include "checklist/filter.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "checklist/rules.h"
#include "util/buf.h"
#include "util/fsutil.h"

struct ta_filter {
	bool *select;             /* NULL: everything */
	bool *ignore;
	bool *extend;             /* added to the selection (--extend-select), or NULL */
	bool *named;              /* ids select or extend names one by one (not by section or ALL) */
	bool ignore_x0, select_x0, extend_x0;
	bool ignore_x1, select_x1; /* X1, off unless named */
	bool preview;             /* entries in preview are reported too */
};

ta_filter *ta_filter_new(bool preview)
{
	ta_filter *f = ta_xcalloc(1, sizeof *f);
	f->ignore = ta_xcalloc(ta_rules_count(), sizeof(bool));
	f->preview = preview;
	return f;
}

static bool *copy_flags(const bool *v)
{
	if (!v)
		return NULL;
	bool *c = ta_xcalloc(ta_rules_count(), sizeof(bool));
	memcpy(c, v, ta_rules_count() * sizeof(bool));
	return c;
}

ta_filter *ta_filter_copy(const ta_filter *f)
{
	ta_filter *c = ta_xcalloc(1, sizeof *c);
	*c = *f;
	c->select = copy_flags(f->select);
	c->ignore = copy_flags(f->ignore);
	c->extend = copy_flags(f->extend);
	c->named = copy_flags(f->named);
	return c;
}

void ta_filter_free(ta_filter *f)
{
	if (!f)
		return;
	free(f->select);
	free(f->named);
	free(f->ignore);
	free(f->extend);
	free(f);
}

static bool is_section_letter(char c)
{
	c = (char)toupper((unsigned char)c);
	for (size_t e = 0; e < ta_rules_count(); e++)
		if (ta_rules_id(e)[0] == c)
			return true;
	return false;
}

/* Parses an id list where X0, X1, a section's letter (S: every S entry)
 * and ALL are allowed too. named (may be NULL) gets the ids written out one
 * by one. */
static int parse_list(const char *list, bool *on, bool *named, bool *x0, bool *x1, char **err)
{
	ta_buf rest = TA_BUF_INIT, plain = TA_BUF_INIT;
	const char *p = list;
	while (*p) {
		size_t len = strcspn(p, ",");
		char *id = ta_xstrndup(p, len);
		size_t n = ta_rules_count();
		if (!strcasecmp(id, TA_FILTER_SUPPRESSION_ID)) {
			*x0 = true;
		} else if (!strcasecmp(id, TA_FILTER_UNUSED_ID)) {
			*x1 = true;
		} else if (!strcasecmp(id, "ALL")) {
			/* every entry, X0 and X1 */
			*x0 = *x1 = true;
			for (size_t e = 0; e < n; e++)
				ta_buf_printf(&rest, "%s%s", rest.len ? "," : "", ta_rules_id(e));
		} else if (strlen(id) == 1 && is_section_letter(id[0])) {
			/* a section: its letter is the first of its ids */
			for (size_t e = 0; e < n; e++)
				if (ta_rules_id(e)[0] == (char)toupper((unsigned char)id[0]))
					ta_buf_printf(&rest, "%s%s", rest.len ? "," : "", ta_rules_id(e));
		} else {
			ta_buf_printf(&rest, "%s%s", rest.len ? "," : "", id);
			ta_buf_printf(&plain, "%s%s", plain.len ? "," : "", id);
		}
		free(id);
		p += len;
		if (*p == ',')
			p++;
	}
	*err = NULL;
	int rc = ta_rules_parse_ids(ta_buf_str(&rest), on, err);
	if (rc == 0 && named && ta_rules_parse_ids(ta_buf_str(&plain), named, err) != 0)
		rc = -1;   /* cannot happen: the same ids parsed above */
	ta_buf_free(&rest);
	ta_buf_free(&plain);
	return rc;
}

int ta_filter_select(ta_filter *f, const char *list, char **err)
{
	size_t n = ta_rules_count();
	if (!f->select) {
		f->select = ta_xcalloc(n, sizeof(bool));
		f->named = ta_xcalloc(n, sizeof(bool));
	}
	return parse_list(list, f->select, f->named, &f->select_x0, &f->select_x1, err);
}

int ta_filter_extend(ta_filter *f, const char *list, char **err)
{
	size_t n = ta_rules_count();
	if (!f->extend)
		f->extend = ta_xcalloc(n, sizeof(bool));
	if (!f->named)
		f->named = ta_xcalloc(n, sizeof(bool));
	return parse_list(list, f->extend, f->named, &f->extend_x0, &f->select_x1, err);
}

int ta_filter_ignore(ta_filter *f, const char *list, char **err)
{
	return parse_list(list, f->ignore, NULL, &f->ignore_x0, &f->ignore_x1, err);
}

bool ta_filter_wants(const ta_filter *f, const char *id)
{
	if (!strcmp(id, TA_FILTER_SUPPRESSION_ID))
		return !f->ignore_x0 && (!f->select || f->select_x0 || f->extend_x0);
	if (!strcmp(id, TA_FILTER_UNUSED_ID))
		return f->select_x1 && !f->ignore_x1;
	int e = ta_rules_index(id);
	if (e < 0)
		return false;
	if (f->select && !f->select[e] && !(f->extend && f->extend[e]))
		return false;
	/* An entry in preview speaks only when asked for: by --preview, or by
	 * its own id in --select. */
	if (ta_entry_is_preview(ta_entry_at((size_t)e)) && !f->preview && !(f->named && f->named[e]))
		return false;
	return !f->ignore[e];
}

/* ---- suppression comments ---------------------------------------------------- */

typedef enum suppression_scope { SUP_LINE, SUP_NEXT_LINE, SUP_FILE } suppression_scope;

typedef struct suppression {
	uint32_t line, col;
	suppression_scope scope;
	bool all;                 /* no id list: every id */
	char **ids;
	size_t id_count;
	bool *used;               /* per id (all: used[0]): it silenced a finding */
} suppression;

struct ta_suppressions {
	suppression *items;       /* in line order */
	size_t n;
	size_t *file_wide;        /* indexes of the ignore-file comments */
	size_t n_file_wide;
};

static bool take(const char **p, const char *end, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(end - *p) < n || memcmp(*p, word, n))
		return false;
	*p += n;
	return true;
}

ta_suppressions *ta_suppressions_read(const ta_source *src)
{
	ta_suppressions *out = ta_xcalloc(1, sizeof *out);
	for (size_t l = 1; l <= src->line_count; l++) {
		size_t len;
		const char *s = ta_source_line(src, l, &len);
		const char *hash = memchr(s, '#', len);
		if (!hash)
			continue;
		const char *end = s + len;
		while (end > hash && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
			end--;
		const char *p = hash + 1;
		while (p < end && *p == ' ')
			p++;
		if (!take(&p, end, "tileadvise:"))
			continue;
		while (p < end && *p == ' ')
			p++;
		if (!take(&p, end, "ignore"))
			continue;
		suppression_scope scope = take(&p, end, "-next-line") ? SUP_NEXT_LINE
					: take(&p, end, "-file") ? SUP_FILE : SUP_LINE;
		const char *close = NULL;
		if (p < end && *p == '[') {
			close = memchr(p, ']', (size_t)(end - p));
			if (!close)
				continue;
			p++;
		} else if (p < end && *p != ' ' && *p != '#') {
			continue;   /* "ignored", "ignore-files"...: not ours */
		}
		suppression *sp = TA_APPEND(out->items, out->n);
		sp->line = (uint32_t)l;
		sp->col = (uint32_t)ta_source_column_of(src, (size_t)(hash - src->text));
		sp->scope = scope;
		sp->all = close == NULL;
		while (close && p < close) {
			const char *comma = memchr(p, ',', (size_t)(close - p));
			const char *q = comma ? comma : close;
			const char *a = p, *b = q;
			while (a < b && *a == ' ')
				a++;
			while (b > a && b[-1] == ' ')
				b--;
			if (b > a)
				*TA_APPEND(sp->ids, sp->id_count) = ta_xstrndup(a, (size_t)(b - a));
			p = q + (comma ? 1 : 0);
		}
		if (close && !sp->id_count)
			sp->all = true;   /* "ignore[]" */
		sp->used = ta_xcalloc(sp->id_count + 1, sizeof *sp->used);
		if (scope == SUP_FILE)
			*TA_APPEND(out->file_wide, out->n_file_wide) = out->n - 1;
	}
	return out;
}

void ta_suppressions_free(ta_suppressions *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		for (size_t j = 0; j < s->items[i].id_count; j++)
			free(s->items[i].ids[j]);
		free(s->items[i].ids);
		free(s->items[i].used);
	}
	free(s->items);
	free(s->file_wide);
	free(s);
}

static bool names(const suppression *s, const char *id)
{
	if (s->all)
		return true;
	for (size_t j = 0; j < s->id_count; j++)
		if (!strcasecmp(s->ids[j], id))
			return true;
	return false;
}

size_t ta_suppressions_unknown(const ta_suppressions *sup, ta_unknown_id **out)
{
	size_t n = 0;
	*out = NULL;
	for (size_t k = 0; sup && k < sup->n; k++) {
		const suppression *s = &sup->items[k];
		for (size_t j = 0; j < s->id_count; j++)
			if (ta_rules_index(s->ids[j]) < 0 && strcasecmp(s->ids[j], TA_FILTER_SUPPRESSION_ID) &&
			    strcasecmp(s->ids[j], TA_FILTER_UNUSED_ID))
				*TA_APPEND(*out, n) = (ta_unknown_id){ s->ids[j], s->line, s->col };
	}
	return n;
}

/* Marks which of s's ids (or its every-id form) names id. */
static void mark(suppression *s, const char *id)
{
	if (s->all) {
		s->used[0] = true;
		return;
	}
	for (size_t j = 0; j < s->id_count; j++)
		if (!strcasecmp(s->ids[j], id))
			s->used[j] = true;
}

/* The comments of scope on line: [*first, return) of sup->items, which
 * are in line order. */
static size_t on_line(const ta_suppressions *sup, uint32_t line, size_t *first)
{
	size_t lo = 0, hi = sup->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sup->items[mid].line < line)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (hi < sup->n && sup->items[hi].line == line)
		hi++;
	return hi;
}

static void mark_scope(ta_suppressions *sup, uint32_t line, suppression_scope scope, const char *id)
{
	size_t first, end = line ? on_line(sup, line, &first) : 0;
	for (size_t i = line ? first : 0; i < end; i++)
		if (sup->items[i].scope == scope)
			mark(&sup->items[i], id);
}

/* Whether a comment of scope on line names id (line 0: none). */
static bool names_at(const ta_suppressions *sup, uint32_t line, suppression_scope scope, const char *id)
{
	size_t first, end = line ? on_line(sup, line, &first) : 0;
	for (size_t i = line ? first : 0; i < end; i++)
		if (sup->items[i].scope == scope && names(&sup->items[i], id))
			return true;
	return false;
}

/* By line, with a binary search: a file of many comments and findings
 * stays n log n (the walk asks finding by finding). */
bool ta_suppressions_silence(const ta_suppressions *sup, uint32_t line, uint32_t def_line, const char *id)
{
	if (!sup || !sup->n)
		return false;
	for (size_t k = 0; k < sup->n_file_wide; k++)
		if (names(&sup->items[sup->file_wide[k]], id))
			return true;
	return names_at(sup, line, SUP_LINE, id) || names_at(sup, def_line, SUP_LINE, id) ||
	       names_at(sup, line ? line - 1 : 0, SUP_NEXT_LINE, id) ||
	       names_at(sup, def_line ? def_line - 1 : 0, SUP_NEXT_LINE, id);
}

void ta_suppressions_note_used(ta_suppressions *sup, const ta_rules_result *r)
{
	if (!sup || !sup->n)
		return;
	for (size_t i = 0; i < r->finding_count; i++) {
		const ta_finding *f = &r->findings[i];
		uint32_t def = r->model->kernels[f->kernel].def_line;
		mark_scope(sup, f->span.line, SUP_LINE, f->id);
		mark_scope(sup, def, SUP_LINE, f->id);
		mark_scope(sup, f->span.line - 1, SUP_NEXT_LINE, f->id);
		mark_scope(sup, def ? def - 1 : 0, SUP_NEXT_LINE, f->id);
		for (size_t k = 0; k < sup->n_file_wide; k++)
			mark(&sup->items[sup->file_wide[k]], f->id);
	}
}

size_t ta_suppressions_unused(const ta_suppressions *sup, ta_unknown_id **out)
{
	size_t n = 0;
	*out = NULL;
	for (size_t k = 0; sup && k < sup->n; k++) {
		const suppression *s = &sup->items[k];
		if (s->all && !s->used[0])
			*TA_APPEND(*out, n) = (ta_unknown_id){ NULL, s->line, s->col };
		for (size_t j = 0; !s->all && j < s->id_count; j++)
			/* an unknown id is X0's to report */
			if (!s->used[j] && ta_rules_index(s->ids[j]) >= 0)
				*TA_APPEND(*out, n) = (ta_unknown_id){ s->ids[j], s->line, s->col };
	}
	return n;
}

/* Findings a and b are one finding shown with several ids: the same place
 * and the same reason but for a served entry's " (as ID)". */
static bool same_finding(const ta_finding *a, const ta_finding *b)
{
	size_t la = ta_reason_base_len(a->reason), lb = ta_reason_base_len(b->reason);
	return a->span.start == b->span.start && a->span.end == b->span.end && la == lb &&
	       !strncmp(a->reason, b->reason, la);
}

static bool silences_own(const ta_suppressions *sup, const ta_rules_result *r, const ta_finding *f)
{
	return ta_suppressions_silence(sup, f->span.line, r->model->kernels[f->kernel].def_line, f->id);
}

bool ta_suppressions_silence_finding(const ta_suppressions *sup, const ta_rules_result *r, const ta_finding *f)
{
	if (silences_own(sup, r, f))
		return true;
	if (!sup || !sup->n)
		return false;   /* no comment in the file: nothing more to ask */
	for (size_t i = 0; i < r->finding_count; i++) {
		const ta_finding *g = &r->findings[i];
		if (g != f && same_finding(f, g) && silences_own(sup, r, g))
			return true;
	}
	return false;
}

/* Findings (indexes into the array ctx) by where they start. */
static int by_start(const void *x, const void *y, void *ctx)
{
	const ta_finding *f = ctx;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	if (f[i].span.start != f[j].span.start)
		return f[i].span.start < f[j].span.start ? -1 : 1;
	return (i > j) - (i < j);
}

bool *ta_suppressions_silenced(const ta_suppressions *sup, const ta_rules_result *r)
{
	if (!sup || !sup->n)
		return NULL;
	size_t n = r->finding_count;
	bool *out = ta_xcalloc(n + 1, sizeof *out);
	size_t *by_place = ta_xcalloc(n + 1, sizeof *by_place);
	for (size_t i = 0; i < n; i++)
		by_place[i] = i;
	qsort_r(by_place, n, sizeof *by_place, by_start, r->findings);
	/* each finding a comment names, then those shown as the same one: at
	 * its place, found by a binary search */
	for (size_t i = 0; i < n; i++) {
		if (!silences_own(sup, r, &r->findings[i]))
			continue;
		out[i] = true;
		uint32_t at = r->findings[i].span.start;
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (r->findings[by_place[mid]].span.start < at)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t k = lo; k < n && r->findings[by_place[k]].span.start == at; k++)
			if (same_finding(&r->findings[i], &r->findings[by_place[k]]))
				out[by_place[k]] = true;
	}
	free(by_place);
	return out;
}
