#include "config.h"
#include "advise/checklist.h"
#include "advise/json_read.h"
#include "checklist/entry.h"
#include "checklist/rewrite.h"
#include "util/buf.h"
#include "util/datadir.h"
#include "util/fsutil.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct ta_catalog {
	char *path;
	json_t *root;      /* every const char * of the entries points into it */
	ta_entry *entries;
	size_t n;
};

/* The catalog is small text; anything larger is not ours. */
#define CATALOG_MAX_BYTES (4u << 20)


/* ---- positions ------------------------------------------------------------
 * jansson reports positions only for syntax errors; a value has none. To give
 * "file:line:col" for a wrong field too, this small scanner walks the text
 * (already known to be valid JSON) to the value in question. */

typedef struct {
	const char *p, *end;
} scan;

static void skip_ws(scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

/* At a '"': moves past the closing quote; sets the raw contents. */
static bool scan_string(scan *s, const char **raw, size_t *len)
{
	if (s->p >= s->end || *s->p != '"')
		return false;
	const char *start = ++s->p;
	while (s->p < s->end && *s->p != '"') {
		if (*s->p == '\\')
			s->p++;
		s->p++;
	}
	if (s->p >= s->end)
		return false;
	*raw = start;
	*len = (size_t)(s->p - start);
	s->p++;
	return true;
}

static bool skip_value(scan *s)
{
	skip_ws(s);
	if (s->p >= s->end)
		return false;
	char c = *s->p;
	if (c == '"') {
		const char *r;
		size_t n;
		return scan_string(s, &r, &n);
	}
	if (c == '{' || c == '[') {
		char close = c == '{' ? '}' : ']';
		s->p++;
		skip_ws(s);
		if (s->p < s->end && *s->p == close) {
			s->p++;
			return true;
		}
		for (;;) {
			if (c == '{') {
				const char *r;
				size_t n;
				skip_ws(s);
				if (!scan_string(s, &r, &n))
					return false;
				skip_ws(s);
				if (s->p >= s->end || *s->p != ':')
					return false;
				s->p++;
			}
			if (!skip_value(s))
				return false;
			skip_ws(s);
			if (s->p < s->end && *s->p == ',') {
				s->p++;
				continue;
			}
			if (s->p < s->end && *s->p == close) {
				s->p++;
				return true;
			}
			return false;
		}
	}
	/* number, true, false, null */
	while (s->p < s->end && !strchr(",]} \t\r\n", *s->p))
		s->p++;
	return true;
}

/* At an object's '{': moves to the value of member key (or, with want_key, to
 * the key itself). Keys with escapes are compared raw, which is fine for the
 * plain ASCII names of the catalog. */
static bool scan_member(scan *s, const char *key, bool want_key)
{
	skip_ws(s);
	if (s->p >= s->end || *s->p != '{')
		return false;
	s->p++;
	size_t klen = strlen(key);
	for (;;) {
		skip_ws(s);
		const char *at = s->p, *r;
		size_t n;
		if (!scan_string(s, &r, &n))
			return false;
		skip_ws(s);
		if (s->p >= s->end || *s->p != ':')
			return false;
		s->p++;
		skip_ws(s);
		if (n == klen && memcmp(r, key, n) == 0) {
			if (want_key)
				s->p = at;
			return true;
		}
		if (!skip_value(s))
			return false;
		skip_ws(s);
		if (s->p >= s->end || *s->p != ',')
			return false;
		s->p++;
	}
}

/* At an array's '[': moves to element i. */
static bool scan_element(scan *s, size_t i)
{
	skip_ws(s);
	if (s->p >= s->end || *s->p != '[')
		return false;
	s->p++;
	for (size_t k = 0; k < i; k++) {
		if (!skip_value(s))
			return false;
		skip_ws(s);
		if (s->p >= s->end || *s->p != ',')
			return false;
		s->p++;
	}
	skip_ws(s);
	return true;
}

/* Where a problem lies: the top-level member top (NULL: the document), its
 * element index (SIZE_MAX: none), then member key of that element (NULL: the
 * element itself); want_key points at the key rather than its value. */
typedef struct {
	const char *top;
	size_t index;
	const char *key;
	bool want_key;
} where;

static bool locate(const char *text, size_t len, where w, int *line, int *col)
{
	scan s = { text, text + len };
	skip_ws(&s);
	if (w.top) {
		if (!scan_member(&s, w.top, w.want_key && w.index == SIZE_MAX))
			return false;
		if (w.index != SIZE_MAX) {
			if (!scan_element(&s, w.index))
				return false;
			if (w.key && !scan_member(&s, w.key, w.want_key))
				return false;
		}
	}
	*line = 1;
	*col = 1;
	for (const char *q = text; q < s.p; q++) {
		if (*q == '\n') {
			++*line;
			*col = 1;
		} else if (((unsigned char)*q & 0xC0) != 0x80) {
			++*col; /* columns count code points, as jansson's do */
		}
	}
	return true;
}

/* ---- loading ------------------------------------------------------------ */

typedef struct {
	const char *path;
	const char *text;
	size_t len;
	char *err;   /* first error; later ones are dropped */
} loader;

static void fail(loader *L, where w, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fail(loader *L, where w, const char *fmt, ...)
{
	if (L->err)
		return;
	ta_buf b = TA_BUF_INIT;
	int line, col;
	if (locate(L->text, L->len, w, &line, &col))
		ta_buf_printf(&b, "%s:%d:%d: ", L->path, line, col);
	else
		ta_buf_printf(&b, "%s: ", L->path);
	va_list ap;
	va_start(ap, fmt);
	ta_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	L->err = ta_buf_steal(&b);
}

static const char *const entry_fields[] = {
	"id", "section", "seed_ref", "title", "summary", "means", "applies_when",
	"satisfied_when", "impact", "edit", "edit_summary", "evidence", "serves",
	"example_slow", "example_fast",
};

static bool is_blank(const char *s)
{
	for (; *s; s++)
		if (!strchr(" \t\r\n", *s))
			return false;
	return true;
}

/* A section letter, then 1–99 without a leading zero. */
static bool valid_id(const char *id)
{
	if (!id[0] || !strchr("TLPSGD", id[0]))
		return false;
	if (id[1] < '1' || id[1] > '9')
		return false;
	if (id[2] == '\0')
		return true;
	return id[2] >= '0' && id[2] <= '9' && id[3] == '\0';
}

/* Label of entry i in messages: its id when it has a usable one. */
static void entry_label(char *out, size_t n, json_t *obj, size_t i)
{
	json_t *id = json_object_get(obj, "id");
	if (json_is_string(id) && valid_id(json_string_value(id)))
		snprintf(out, n, "entry %s", json_string_value(id));
	else
		snprintf(out, n, "entry #%zu", i + 1);
}

static const char *get_string(loader *L, json_t *obj, size_t i, const char *key, bool may_be_empty,
			      const char *label)
{
	where w = { "entries", i, key, false };
	json_t *v = json_object_get(obj, key);
	if (!v) {
		w.key = NULL;
		fail(L, w, "missing \"%s\" in %s", key, label);
		return NULL;
	}
	if (!json_is_string(v)) {
		fail(L, w, "expected a string for \"%s\" in %s", key, label);
		return NULL;
	}
	const char *s = json_string_value(v);
	if (!may_be_empty && is_blank(s)) {
		fail(L, w, "empty \"%s\" in %s", key, label);
		return NULL;
	}
	return s;
}

/* Reads an array of strings into out[]; NULL array allowed when optional. */
static size_t get_refs(loader *L, json_t *obj, size_t i, const char *key, const char *label,
		       const char **out)
{
	where w = { "entries", i, key, false };
	json_t *arr = json_object_get(obj, key);
	if (!arr)
		return 0;
	if (!json_is_array(arr)) {
		fail(L, w, "expected an array of ids for \"%s\" in %s", key, label);
		return 0;
	}
	if (json_array_size(arr) > TA_ENTRY_MAX_REFS) {
		fail(L, w, "\"%s\" in %s lists %zu items; at most %d are allowed", key, label,
		     json_array_size(arr), TA_ENTRY_MAX_REFS);
		return 0;
	}
	size_t n = 0, k;
	json_t *v;
	json_array_foreach(arr, k, v) {
		if (!json_is_string(v)) {
			fail(L, w, "expected an array of strings for \"%s\" in %s", key, label);
			return 0;
		}
		out[n++] = json_string_value(v);
	}
	return n;
}

static void load_entry(loader *L, json_t *obj, size_t i, ta_entry *e)
{
	char label[48];
	where w = { "entries", i, NULL, false };
	if (!json_is_object(obj)) {
		fail(L, w, "expected an object for entry #%zu", i + 1);
		return;
	}
	entry_label(label, sizeof label, obj, i);

	const char *key;
	json_t *v;
	json_object_foreach(obj, key, v) {
		bool known = false;
		for (size_t f = 0; f < sizeof entry_fields / sizeof *entry_fields; f++)
			known = known || strcmp(key, entry_fields[f]) == 0;
		if (!known) {
			where wk = { "entries", i, key, true };
			fail(L, wk, "unknown field \"%s\" in %s", key, label);
			return;
		}
	}

	e->id = get_string(L, obj, i, "id", false, label);
	if (e->id && !valid_id(e->id)) {
		where wi = { "entries", i, "id", false };
		fail(L, wi, "invalid id \"%s\" (a section letter T, L, P, S, G or D, then a number 1-99)",
		     e->id);
		return;
	}
	const char *section = get_string(L, obj, i, "section", false, label);
	if (section && !ta_section_from_name(section, &e->section)) {
		where ws = { "entries", i, "section", false };
		fail(L, ws, "unknown section \"%s\" in %s (one of triggers, layout, priorities, "
		     "patterns, attention, deeper)", section, label);
		return;
	}
	if (e->id && section && e->id[0] != ta_section_letter(e->section)) {
		where ws = { "entries", i, "section", false };
		fail(L, ws, "%s is in section \"%s\", but %c ids belong to another section", label,
		     section, e->id[0]);
		return;
	}
	e->seed_ref = get_string(L, obj, i, "seed_ref", false, label);
	e->title = get_string(L, obj, i, "title", false, label);
	e->summary = get_string(L, obj, i, "summary", false, label);
	e->means = get_string(L, obj, i, "means", false, label);
	e->applies_when = get_string(L, obj, i, "applies_when", false, label);
	e->satisfied_when = get_string(L, obj, i, "satisfied_when", false, label);
	e->impact = get_string(L, obj, i, "impact", false, label);

	const char *edit = get_string(L, obj, i, "edit", false, label);
	if (edit) {
		where we = { "entries", i, "edit", false };
		if (strcmp(edit, "none") == 0)
			e->edit = TA_EDIT_NONE;
		else if (strcmp(edit, "mechanical") == 0)
			e->edit = TA_EDIT_MECHANICAL;
		else if (strcmp(edit, "guided") == 0)
			e->edit = TA_EDIT_GUIDED;
		else
			fail(L, we, "unknown edit kind \"%s\" in %s (mechanical, guided, or none for "
			     "triggers)", edit, label);
	}
	e->edit_summary = get_string(L, obj, i, "edit_summary", false, label);
	e->evidence = get_string(L, obj, i, "evidence", true, label);

	if (!json_object_get(obj, "serves")) {
		fail(L, w, "missing \"serves\" in %s (use [] when it serves no other entry)", label);
		return;
	}
	e->n_serves = get_refs(L, obj, i, "serves", label, e->serves);

	e->example_slow = get_string(L, obj, i, "example_slow", false, label);
	e->example_fast = get_string(L, obj, i, "example_fast", false, label);
}

static const ta_entry *find_in(const ta_entry *entries, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(entries[i].id, id) == 0)
			return &entries[i];
	return NULL;
}

/* Cross-entry checks, once every entry has loaded. */
static void check_refs(loader *L, ta_catalog *cat)
{
	for (size_t i = 0; i < cat->n && !L->err; i++) {
		const ta_entry *e = &cat->entries[i];
		for (size_t j = 0; j < i; j++) {
			if (strcasecmp(cat->entries[j].id, e->id) == 0) {
				int line = 0, col = 0;
				locate(L->text, L->len, (where){ "entries", j, NULL, false }, &line, &col);
				fail(L, (where){ "entries", i, "id", false },
				     "duplicate id \"%s\" (first defined at line %d)", e->id, line);
				return;
			}
		}
		if (i > 0 && e->section < cat->entries[i - 1].section) {
			fail(L, (where){ "entries", i, "section", false },
			     "entry %s (%s) comes after entry %s (%s): entries must be in walk order",
			     e->id, ta_section_name(e->section), cat->entries[i - 1].id,
			     ta_section_name(cat->entries[i - 1].section));
			return;
		}
	}
	for (size_t i = 0; i < cat->n && !L->err; i++) {
		const ta_entry *e = &cat->entries[i];
		for (size_t k = 0; k < e->n_serves; k++) {
			if (!find_in(cat->entries, cat->n, e->serves[k])) {
				fail(L, (where){ "entries", i, "serves", false },
				     "\"serves\" of entry %s names \"%s\", which is not an entry", e->id,
				     e->serves[k]);
				return;
			}
		}
	}
}

/* The prose must describe the entries this build has: the same ids in the
 * same order as entries.def, each in its section and with the edit kind
 * its rewrite gives. What only the table knows (detector, needs, what a
 * trigger opens) is filled in from it. */
static void join_table(loader *L, ta_catalog *cat)
{
	if (cat->n != ta_entry_count()) {
		fail(L, (where){ "entries", SIZE_MAX, NULL, false },
		     "%zu entries, but this tileadvise has %zu checklist entries (reinstall, or set "
		     "TILEADVISE_DATADIR to a matching data folder)", cat->n, ta_entry_count());
		return;
	}
	for (size_t i = 0; i < cat->n && !L->err; i++) {
		ta_entry *e = &cat->entries[i];
		const ta_entry_def *d = ta_entry_at(i);
		if (strcmp(e->id, d->id) != 0) {
			fail(L, (where){ "entries", i, "id", false },
			     "entry #%zu is %s, but this tileadvise's entry #%zu is %s: the prose must "
			     "follow the checklist's order", i + 1, e->id, i + 1, d->id);
			return;
		}
		if (e->section != d->section) {
			fail(L, (where){ "entries", i, "section", false },
			     "entry %s is in section \"%s\" here but \"%s\" in this tileadvise", e->id,
			     ta_section_name(e->section), ta_section_name(d->section));
			return;
		}
		ta_edit_kind k = ta_entry_edit_kind(d);
		if (e->edit != k) {
			fail(L, (where){ "entries", i, "edit", false },
			     "entry %s says its edit is \"%s\", but this tileadvise's is \"%s\"%s", e->id,
			     ta_edit_kind_name(e->edit), ta_edit_kind_name(k),
			     k == TA_EDIT_GUIDED && d->rewrite->demoted ? " (its rewrite is only shown)" :
			     k == TA_EDIT_GUIDED ? " (no rewrite writes it)" : "");
			return;
		}
		e->def = d;
		e->needs = d->needs;
		e->detector = d->served_by ? d->served_by : d->id;
		e->n_opens = 0;
		for (const char *p = d->opens; p && *p && e->n_opens < TA_ENTRY_MAX_REFS;) {
			size_t len = strcspn(p, " ");
			ta_open *o = &e->opens[e->n_opens++];
			o->is_section = false;
			for (int sec = 0; sec < TA_SECTION_COUNT; sec++) {
				const char *name = ta_section_name((ta_section)sec);
				if (strlen(name) == len && !strncmp(name, p, len)) {
					o->is_section = true;
					o->section = (ta_section)sec;
					o->id = name;
				}
			}
			if (!o->is_section) {
				const ta_entry_def *t = NULL;
				for (size_t j = 0; j < ta_entry_count() && !t; j++) {
					const ta_entry_def *c = ta_entry_at(j);
					if (strlen(c->id) == len && !strncmp(c->id, p, len))
						t = c;
				}
				o->id = t ? t->id : "?";
			}
			p += len;
			while (*p == ' ')
				p++;
		}
	}
}

static void load_root(loader *L, ta_catalog *cat)
{
	json_t *root = cat->root;
	where doc = { NULL, SIZE_MAX, NULL, false };
	if (!json_is_object(root)) {
		fail(L, doc, "expected a JSON object with \"version\" and \"entries\"");
		return;
	}
	const char *key;
	json_t *v;
	json_object_foreach(root, key, v) {
		if (strcmp(key, "version") != 0 && strcmp(key, "entries") != 0) {
			fail(L, (where){ key, SIZE_MAX, NULL, true }, "unknown field \"%s\"", key);
			return;
		}
	}
	json_t *version = json_object_get(root, "version");
	if (!version) {
		fail(L, doc, "missing \"version\"");
		return;
	}
	if (!json_is_integer(version)) {
		fail(L, (where){ "version", SIZE_MAX, NULL, false }, "expected an integer for \"version\"");
		return;
	}
	if (json_integer_value(version) != 1) {
		fail(L, (where){ "version", SIZE_MAX, NULL, false },
		     "catalog version %lld is not supported: this tileadvise reads version 1 "
		     "(reinstall, or set TILEADVISE_DATADIR to a matching data folder)",
		     (long long)json_integer_value(version));
		return;
	}
	json_t *entries = json_object_get(root, "entries");
	if (!entries) {
		fail(L, doc, "missing \"entries\"");
		return;
	}
	if (!json_is_array(entries) || json_array_size(entries) == 0) {
		fail(L, (where){ "entries", SIZE_MAX, NULL, false },
		     "expected a non-empty array for \"entries\"");
		return;
	}
	cat->n = json_array_size(entries);
	cat->entries = ta_xcalloc(cat->n, sizeof *cat->entries);
	for (size_t i = 0; i < cat->n && !L->err; i++)
		load_entry(L, json_array_get(entries, i), i, &cat->entries[i]);
	if (!L->err)
		check_refs(L, cat);
	if (!L->err)
		join_table(L, cat);
}

ta_catalog *ta_catalog_load(const char *path, char **err)
{
	*err = NULL;
	char *file = path ? ta_xstrdup(path) : ta_path_join(ta_datadir(), "checklist.json");
	char *text = NULL, *why = NULL;
	size_t len = 0;
	if (ta_read_file(file, CATALOG_MAX_BYTES, &text, &len, &why) != 0) {
		/* Only the default location is ours to explain. */
		*err = path ? ta_xasprintf("cannot read %s: %s", file, why)
			    : ta_xasprintf("cannot read %s: %s (reinstall, or set TILEADVISE_DATADIR)",
					   file, why);
		free(why);
		free(file);
		return NULL;
	}
	json_error_t jerr;
	json_t *root = ta_json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		*err = jerr.line > 0 ? ta_xasprintf("%s:%d:%d: %s", file, jerr.line, jerr.column, jerr.text)
				     : ta_xasprintf("%s: %s", file, jerr.text);
		free(text);
		free(file);
		return NULL;
	}
	ta_catalog *cat = ta_xcalloc(1, sizeof *cat);
	cat->path = file;
	cat->root = root;
	loader L = { file, text, len, NULL };
	load_root(&L, cat);
	free(text);
	if (L.err) {
		*err = L.err;
		ta_catalog_free(cat);
		return NULL;
	}
	return cat;
}

void ta_catalog_free(ta_catalog *cat)
{
	if (!cat)
		return;
	json_decref(cat->root);
	free(cat->entries);
	free(cat->path);
	free(cat);
}

const char *ta_catalog_path(const ta_catalog *cat)
{
	return cat->path;
}

size_t ta_catalog_count(const ta_catalog *cat)
{
	return cat->n;
}

const ta_entry *ta_catalog_at(const ta_catalog *cat, size_t i)
{
	return i < cat->n ? &cat->entries[i] : NULL;
}

const ta_entry *ta_catalog_find(const ta_catalog *cat, const char *id)
{
	return id ? find_in(cat->entries, cat->n, id) : NULL;
}

bool ta_entry_known(const char *id)
{
	return ta_entry_index_of(id) >= 0;
}

ta_entry_fix ta_entry_fix_of(const char *id)
{
	const ta_rewrite *rw = ta_rewrite_find(id);
	ta_entry_fix f = { 0 };
	if (!rw)
		return f;
	f.written = true;
	f.demoted = rw->demoted != NULL;
	f.safety = rw->safety == TA_FIX_SAFE ? TA_ENTRY_FIX_SAFE : rw->safety == TA_FIX_UNSAFE ? TA_ENTRY_FIX_UNSAFE
										   : TA_ENTRY_FIX_BY_SITE;
	f.assumes = rw->assumes;
	return f;
}
