/* The registry: entries.def expanded into the table of entries (with each
 * one's detector), the names of sections, statuses and edit kinds, running
 * the detectors over a model, and the walk order. */
#include "config.h"
#include "checklist/entry.h"
#include "checklist/rewrite.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The guided "rewrite": entries whose REWRITE column says NONE point here. */
const ta_rewrite ta_rewrite_NONE = { "NONE", NULL, NULL, TA_FIX_SAFE, NULL };

#define ENTRY(ID, det, SEC, NEEDS, RW, SCOPE, SERVED, OPENS, FLAGS)                          \
	{ #ID, TA_SECTION_##SEC, TA_NEEDS_##NEEDS, &ta_rewrite_##RW, TA_SCOPE_##SCOPE, SERVED, \
	  OPENS, FLAGS },
static const ta_entry_def defs[] = {
#include "checklist/entries.def"
};
#undef ENTRY

#define ENTRY(ID, det, SEC, NEEDS, RW, SCOPE, SERVED, OPENS, FLAGS) ta_detect_##det,
static ta_detector const detectors[] = {
#include "checklist/entries.def"
};
#undef ENTRY

#define ENTRY_COUNT ((size_t)TA_ENTRY__COUNT)
_Static_assert(sizeof defs / sizeof *defs == TA_ENTRY__COUNT, "one row per entry");

static const struct {
	const char *name;
	const char *title;
	char letter;
} sections[TA_SECTION_COUNT] = {
	[TA_SECTION_TRIGGERS] = { "triggers", "Trigger table", 'T' },
	[TA_SECTION_LAYOUT] = { "layout", "§1 Layout flags → structure", 'L' },
	[TA_SECTION_PRIORITIES] = { "priorities", "§2 Post-TMA priority list", 'P' },
	[TA_SECTION_PATTERNS] = { "patterns", "§3 Fast vs slow patterns", 'S' },
	[TA_SECTION_ATTENTION] = { "attention", "§4 Attention / FMHA checklist", 'G' },
	[TA_SECTION_DEEPER] = { "deeper", "Deeper entries", 'D' },
};

/* ---- the table ------------------------------------------------------------ */

size_t ta_entry_count(void) { return ENTRY_COUNT; }

const ta_entry_def *ta_entry_at(size_t i) { return i < ENTRY_COUNT ? &defs[i] : NULL; }

int ta_entry_index_of(const char *id)
{
	for (size_t i = 0; id && i < ENTRY_COUNT; i++)
		if (!strcasecmp(defs[i].id, id))
			return (int)i;
	return -1;
}

const ta_entry_def *ta_entry_find(const char *id)
{
	int i = ta_entry_index_of(id);
	return i < 0 ? NULL : &defs[i];
}

ta_edit_kind ta_entry_edit_kind(const ta_entry_def *e)
{
	if (e->section == TA_SECTION_TRIGGERS)
		return TA_EDIT_NONE;
	return e->rewrite->make && !e->rewrite->demoted ? TA_EDIT_MECHANICAL : TA_EDIT_GUIDED;
}

bool ta_entry_is_preview(const ta_entry_def *e)
{
	return e && (e->flags & TA_ENTRY_PREVIEW);
}

const char *ta_entry_status_name(const ta_entry_def *e)
{
	return ta_entry_is_preview(e) ? "preview" : "default";
}

const char *ta_section_title(ta_section s)
{
	return (unsigned)s < TA_SECTION_COUNT ? sections[s].title : "?";
}

const char *ta_section_name(ta_section s)
{
	return (unsigned)s < TA_SECTION_COUNT ? sections[s].name : "?";
}

char ta_section_letter(ta_section s)
{
	return (unsigned)s < TA_SECTION_COUNT ? sections[s].letter : '?';
}

bool ta_section_from_name(const char *name, ta_section *out)
{
	for (int s = 0; s < TA_SECTION_COUNT; s++) {
		if (strcmp(name, sections[s].name) == 0) {
			*out = (ta_section)s;
			return true;
		}
	}
	return false;
}

const char *ta_edit_kind_name(ta_edit_kind k)
{
	static const char *const names[] = {
		[TA_EDIT_NONE] = "none", [TA_EDIT_MECHANICAL] = "mechanical", [TA_EDIT_GUIDED] = "guided",
	};
	return (unsigned)k <= TA_EDIT_GUIDED ? names[k] : "?";
}

const char *ta_needs_name(ta_needs n)
{
	static const char *const names[] = {
		[TA_NEEDS_STATIC] = "static", [TA_NEEDS_PROFILE] = "profile", [TA_NEEDS_BASELINE] = "baseline",
	};
	return (unsigned)n <= TA_NEEDS_BASELINE ? names[n] : "?";
}

/* ---- the rules' view of it ------------------------------------------------ */

size_t ta_rules_count(void) { return ENTRY_COUNT; }
const char *ta_rules_id(size_t e) { return e < ENTRY_COUNT ? defs[e].id : NULL; }
const char *ta_rules_section(size_t e) { return e < ENTRY_COUNT ? ta_section_name(defs[e].section) : NULL; }
const char *ta_rules_served_by(size_t e) { return e < ENTRY_COUNT ? defs[e].served_by : NULL; }
int ta_rules_index(const char *id) { return ta_entry_index_of(id); }

const char *ta_status_name(ta_status s)
{
	static const char *const names[] = {
#define TA_STATUS_NAME(name, text) [TA_STATUS_##name] = text,
		TA_STATUS_TABLE(TA_STATUS_NAME)
#undef TA_STATUS_NAME
	};
	return s < TA_STATUS__COUNT ? names[s] : "?";
}

/* ---- running ------------------------------------------------------------ */

ta_rules_result *ta_rules_start(const ta_model *m, const ta_evidence *ev)
{
	ta_rules_result *r = ta_xcalloc(1, sizeof *r);
	r->model = m;
	r->ev = ev;
	r->kernel_count = m->kernel_count;
	r->status = ta_xcalloc(m->kernel_count ? m->kernel_count * ENTRY_COUNT : 1, sizeof(ta_status));
	return r;
}

size_t ta_rules_run_next(ta_rules_result *r)
{
	if (r->kernels_run >= r->kernel_count)
		return 0;
	size_t ki = r->kernels_run++;
	const ta_model *m = r->model;
	ta_rule_ctx c = { .m = m, .ev = r->ev, .res = r, .kernel = (int)ki, .k = &m->kernels[ki],
			  .first_finding = r->finding_count };
	for (size_t e = 0; e < ENTRY_COUNT; e++) {
		c.entry = e;
		c.id = defs[e].id;
		ta_status s = detectors[e](&c);
		r->status[ki * ENTRY_COUNT + e] = s;
		if (e == TA_ENTRY_T1)
			c.attention = s == TA_STATUS_APPLIES;
	}
	ta_rule_ctx_release(&c);
	return r->kernel_count - r->kernels_run;
}

ta_rules_result *ta_rules_run(const ta_model *m, const ta_evidence *ev)
{
	ta_rules_result *r = ta_rules_start(m, ev);
	while (ta_rules_run_next(r))
		;
	r->ev = NULL;   /* the caller's evidence may not outlive the call */
	return r;
}

void ta_rules_result_free(ta_rules_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->finding_count; i++)
		ta_finding_release(&r->findings[i]);
	free(r->findings);
	free(r->status);
	for (size_t i = 0; r->withheld && i < r->kernel_count * ENTRY_COUNT; i++)
		free(r->withheld[i]);
	free(r->withheld);
	free(r);
}

const char *ta_rules_withheld(const ta_rules_result *r, const char *id)
{
	int e = ta_rules_index(id);
	for (size_t k = 0; r && r->withheld && e >= 0 && k < r->kernel_count; k++)
		if (r->withheld[k * ENTRY_COUNT + (size_t)e])
			return r->withheld[k * ENTRY_COUNT + (size_t)e];
	return NULL;
}

ta_status ta_rule_withhold(ta_rule_ctx *c, char *why)
{
	ta_rules_result *r = c->res;
	if (!r->withheld)
		r->withheld = ta_xcalloc(r->kernel_count * ENTRY_COUNT, sizeof *r->withheld);
	char **slot = &r->withheld[(size_t)c->kernel * ENTRY_COUNT + c->entry];
	free(*slot);
	*slot = why;
	return TA_STATUS_NOT_APPLICABLE;
}

ta_status ta_rules_status(const ta_rules_result *r, int kernel, size_t entry)
{
	if (!r || kernel < 0 || (size_t)kernel >= r->kernel_count || entry >= ENTRY_COUNT)
		return TA_STATUS_NOT_APPLICABLE;
	return r->status[(size_t)kernel * ENTRY_COUNT + entry];
}

bool ta_rules_reported(const ta_rules_result *r, const ta_finding *f)
{
	int e = ta_entry_index_of(f->id);
	return e >= 0 && ta_rules_status(r, f->kernel, (size_t)e) == TA_STATUS_APPLIES;
}

/* A site an edit may be made for: a reported finding, or one whose entry
 * waits for a measurement to decide (D1 without a profile): its site is
 * known, only the verdict is not. */
static bool editable(const ta_rules_result *r, const ta_finding *f)
{
	int e = ta_entry_index_of(f->id);
	if (e < 0)
		return false;
	ta_status s = ta_rules_status(r, f->kernel, (size_t)e);
	return s == TA_STATUS_APPLIES || s == TA_STATUS_NEEDS_PROFILE || s == TA_STATUS_NEEDS_BASELINE;
}

const ta_finding *ta_rules_find(const ta_rules_result *r, const char *id, uint32_t line, size_t n)
{
	for (size_t i = 0; i < r->finding_count; i++) {
		const ta_finding *f = &r->findings[i];
		if (strcasecmp(f->id, id) || (line && f->span.line != line) || !editable(r, f))
			continue;
		if (n-- == 0)
			return f;
	}
	return NULL;
}

/* ---- the walk order -------------------------------------------------------- */

static void emit(const char **out, size_t *n, bool *done, size_t e)
{
	if (done[e])
		return;
	done[e] = true;
	out[(*n)++] = defs[e].id;
}

/* Emits what trigger t opens: each word of its OPENS is a section's data
 * name (all of its entries) or an id. */
static void emit_opened(const ta_entry_def *t, const char **out, size_t *n, bool *done)
{
	const char *p = t->opens;
	while (p && *p) {
		size_t len = strcspn(p, " ");
		char word[16];
		snprintf(word, sizeof word, "%.*s", (int)len, p);
		ta_section s;
		if (ta_section_from_name(word, &s)) {
			for (size_t e = 0; e < ENTRY_COUNT; e++)
				if (defs[e].section == s)
					emit(out, n, done, e);
		} else {
			int e = ta_entry_index_of(word);
			if (e >= 0)
				emit(out, n, done, (size_t)e);
		}
		p += len;
		while (*p == ' ')
			p++;
	}
}

size_t ta_rules_walk_order(const ta_rules_result *r, int kernel, const char **out)
{
	bool done[ENTRY_COUNT] = { false };
	size_t n = 0;
	for (size_t e = 0; e < ENTRY_COUNT; e++)
		if (defs[e].section == TA_SECTION_TRIGGERS)
			emit(out, &n, done, e);
	/* What fired triggers open, the urgent ones' first (a catastrophic
	 * regression), then in the table's order; then the rest. */
	for (int urgent = 1; urgent >= 0; urgent--)
		for (size_t e = 0; e < ENTRY_COUNT; e++)
			if (defs[e].section == TA_SECTION_TRIGGERS &&
			    !!(defs[e].flags & TA_ENTRY_URGENT) == urgent &&
			    ta_rules_status(r, kernel, e) == TA_STATUS_APPLIES)
				emit_opened(&defs[e], out, &n, done);
	for (size_t e = 0; e < ENTRY_COUNT; e++)
		emit(out, &n, done, e);
	return n;
}
/* The ids the checklist knows, as ranges by section in the table's order
 * ("T1-T5, L1-L4, ..."), made from entries.def so that it never lags. */
static char *id_ranges(void)
{
	ta_buf b = TA_BUF_INIT;
	size_t n = ta_entry_count();
	for (size_t i = 0; i < n; i++) {
		const char *id = ta_entry_at(i)->id;
		size_t j = i;
		while (j + 1 < n && ta_entry_at(j + 1)->id[0] == id[0])
			j++;
		ta_buf_printf(&b, "%s%s", b.len ? ", " : "", id);
		if (j > i)
			ta_buf_printf(&b, "-%s", ta_entry_at(j)->id);
		i = j;
	}
	return ta_buf_steal(&b);
}


int ta_rules_parse_ids(const char *list, bool *on, char **err)
{
	const char *p = list;
	while (*p) {
		size_t len = strcspn(p, ",");
		char *id = ta_xstrndup(p, len);
		/* allow spaces around ids */
		char *s = id;
		while (*s == ' ')
			s++;
		char *e = s + strlen(s);
		while (e > s && e[-1] == ' ')
			*--e = '\0';
		if (*s) {
			int i = ta_rules_index(s);
			if (i < 0) {
				char *known = id_ranges();
				*err = ta_xasprintf("unknown checklist id '%s' (%s)", s, known);
				free(known);
				free(id);
				return -1;
			}
			on[i] = true;
		}
		free(id);
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}
