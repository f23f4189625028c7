/* The checklist catalog (data/checklist.json), its loader and the explain
 * pages. The real catalog comes from TA_SRCDIR (set by make check), else from
 * the tree the test was built in. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "advise/checklist.h"
#include "ui/explain.h"
#include "util/buf.h"

static const char *const walk_order[] = {
	"T1", "T2", "T3", "T4", "T5",
	"L1", "L2", "L3", "L4",
	"P1", "P2", "P3", "P4", "P5", "P6", "P7",
	"S1", "S2", "S3", "S4", "S5", "S6", "S7", "S8",
	"G1", "G2", "G3", "G4", "G5", "G6", "G7", "G8",
	"D1", "D2", "D3", "D4", "D5", "D6", "D7", "D8", "D9", "D10", "D11", "D12", "D13", "D14",
	"D15", "D16",
};
#define N_WALK (sizeof walk_order / sizeof *walk_order)

static char catalog_path[4096];
static char tmpdir[] = "/tmp/ta-test-checklist-XXXXXX";

static const char *srcdir(void)
{
	const char *s = getenv("TA_SRCDIR");
	return s && *s ? s : TA_BUILD_SRCDIR;
}

static int group_setup(void **state)
{
	snprintf(catalog_path, sizeof catalog_path, "%s/data/checklist.json", srcdir());
	if (!mkdtemp(tmpdir))
		return -1;
	char *err = NULL;
	ta_catalog *cat = ta_catalog_load(catalog_path, &err);
	if (!cat) {
		fprintf(stderr, "%s\n", err);
		free(err);
		return -1;
	}
	*state = cat;
	return 0;
}

static int group_teardown(void **state)
{
	ta_catalog_free(*state);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* ---- the real catalog ------------------------------------------------------ */

static void test_walk_order(void **state)
{
	const ta_catalog *cat = *state;
	/* T1–T5, L1–L4, P1–P7, S1–S8, G1–G8, D1–D16: 48 entries. */
	assert_int_equal(ta_catalog_count(cat), N_WALK);
	for (size_t i = 0; i < N_WALK; i++)
		assert_string_equal(ta_catalog_at(cat, i)->id, walk_order[i]);
	assert_null(ta_catalog_at(cat, N_WALK));
}

static void assert_filled(const char *s)
{
	assert_non_null(s);
	assert_true(strspn(s, " \t\n") < strlen(s));
}

static void test_fields(void **state)
{
	const ta_catalog *cat = *state;
	static const char letters[TA_SECTION_COUNT] = "TLPSGD";
	for (size_t i = 0; i < ta_catalog_count(cat); i++) {
		const ta_entry *e = ta_catalog_at(cat, i);
		assert_filled(e->seed_ref);
		assert_filled(e->title);
		assert_filled(e->summary);
		assert_filled(e->means);
		assert_filled(e->applies_when);
		assert_filled(e->satisfied_when);
		assert_filled(e->impact);
		assert_filled(e->edit_summary);
		assert_filled(e->detector);
		assert_filled(e->example_slow);
		assert_filled(e->example_fast);
		assert_non_null(e->evidence);
		assert_int_equal(letters[e->section], e->id[0]);
		/* One line, as the list and the TUI expect. */
		assert_null(strchr(e->summary, '\n'));
		assert_null(strchr(e->title, '\n'));
		bool trigger = e->section == TA_SECTION_TRIGGERS;
		assert_int_equal(trigger, e->edit == TA_EDIT_NONE);
		assert_int_equal(trigger, e->n_opens > 0);
		/* An entry that needs a measurement says what it must show. */
		if (e->needs != TA_NEEDS_STATIC)
			assert_filled(e->evidence);
	}
}

static void assert_detector(const ta_catalog *cat, const char *id, const char *detector)
{
	const ta_entry *e = ta_catalog_find(cat, id);
	assert_non_null(e);
	assert_string_equal(e->detector, detector);
}

static void assert_serves(const ta_catalog *cat, const char *id, size_t n, ...)
{
	const ta_entry *e = ta_catalog_find(cat, id);
	assert_non_null(e);
	assert_int_equal(e->n_serves, n);
	va_list ap;
	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(e->serves[i], va_arg(ap, const char *));
	va_end(ap);
}

static void test_detectors(void **state)
{
	const ta_catalog *cat = *state;
	assert_detector(cat, "G4", "S3");
	assert_detector(cat, "S4", "P1");
	assert_detector(cat, "G2", "P1");
	assert_detector(cat, "G3", "S8");
	assert_detector(cat, "G1", "S5");
	/* Everything else has its own. */
	static const char *const shared[] = { "G4", "S4", "G2", "G3", "G1" };
	for (size_t i = 0; i < ta_catalog_count(cat); i++) {
		const ta_entry *e = ta_catalog_at(cat, i);
		bool is_shared = false;
		for (size_t k = 0; k < sizeof shared / sizeof *shared; k++)
			is_shared = is_shared || strcmp(e->id, shared[k]) == 0;
		if (!is_shared)
			assert_string_equal(e->detector, e->id);
	}
	assert_serves(cat, "G1", 1, "S5");
	assert_serves(cat, "G2", 1, "P1");
	assert_serves(cat, "G3", 1, "S8");
	assert_serves(cat, "G4", 1, "S3");
	assert_serves(cat, "G5", 1, "S6");
	assert_serves(cat, "G7", 2, "L3", "S7");
	assert_serves(cat, "S4", 1, "P1");
	assert_serves(cat, "S3", 0);
}

static void test_opens_and_needs(void **state)
{
	const ta_catalog *cat = *state;
	const ta_entry *t1 = ta_catalog_find(cat, "T1");
	assert_int_equal(t1->n_opens, 1);
	assert_true(t1->opens[0].is_section);
	assert_int_equal(t1->opens[0].section, TA_SECTION_ATTENTION);

	const ta_entry *t2 = ta_catalog_find(cat, "T2");
	assert_true(t2->opens[0].is_section);
	assert_int_equal(t2->opens[0].section, TA_SECTION_LAYOUT);

	const ta_entry *t3 = ta_catalog_find(cat, "T3");
	assert_int_equal(t3->n_opens, 2);
	assert_false(t3->opens[0].is_section);
	assert_string_equal(t3->opens[0].id, "P1");
	assert_string_equal(t3->opens[1].id, "L2");

	const ta_entry *t4 = ta_catalog_find(cat, "T4");
	assert_int_equal(t4->n_opens, 2);
	assert_int_equal(t4->opens[0].section, TA_SECTION_PATTERNS);
	assert_int_equal(t4->opens[1].section, TA_SECTION_DEEPER);

	const ta_entry *t5 = ta_catalog_find(cat, "T5");
	assert_int_equal(t5->n_opens, 3);
	assert_string_equal(t5->opens[0].id, "S1");
	assert_string_equal(t5->opens[1].id, "S2");
	assert_string_equal(t5->opens[2].id, "P1");

	assert_int_equal(t4->needs, TA_NEEDS_BASELINE);
	assert_int_equal(t5->needs, TA_NEEDS_BASELINE);
	assert_int_equal(ta_catalog_find(cat, "P7")->needs, TA_NEEDS_PROFILE);
	assert_int_equal(ta_catalog_find(cat, "D1")->needs, TA_NEEDS_PROFILE);
	assert_int_equal(ta_catalog_find(cat, "S3")->needs, TA_NEEDS_STATIC);
	assert_int_equal(ta_catalog_find(cat, "S3")->edit, TA_EDIT_MECHANICAL);
	assert_int_equal(ta_catalog_find(cat, "S2")->edit, TA_EDIT_GUIDED);
}

static void test_find(void **state)
{
	const ta_catalog *cat = *state;
	const ta_entry *s3 = ta_catalog_find(cat, "S3");
	assert_non_null(s3);
	assert_ptr_equal(ta_catalog_find(cat, "s3"), s3);
	assert_string_equal(ta_catalog_find(cat, "d15")->id, "D15");
	assert_string_equal(ta_catalog_find(cat, "g4")->id, "G4");
	assert_null(ta_catalog_find(cat, "S33"));
	assert_null(ta_catalog_find(cat, "S"));
	assert_null(ta_catalog_find(cat, ""));
	assert_null(ta_catalog_find(cat, NULL));
	assert_string_equal(ta_catalog_path(cat), catalog_path);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(ta_section_title(TA_SECTION_TRIGGERS), "Trigger table");
	assert_string_equal(ta_section_title(TA_SECTION_PATTERNS), "§3 Fast vs slow patterns");
	assert_string_equal(ta_section_name(TA_SECTION_ATTENTION), "attention");
	ta_section s;
	assert_true(ta_section_from_name("deeper", &s));
	assert_int_equal(s, TA_SECTION_DEEPER);
	assert_false(ta_section_from_name("Deeper", &s));
	assert_string_equal(ta_edit_kind_name(TA_EDIT_GUIDED), "guided");
	assert_string_equal(ta_needs_name(TA_NEEDS_BASELINE), "baseline");
}

static void test_default_path(void **state)
{
	(void)state;
	/* main() pointed TILEADVISE_DATADIR at the source tree's data/. */
	char *err = NULL;
	ta_catalog *cat = ta_catalog_load(NULL, &err);
	assert_non_null(cat);
	assert_null(err);
	assert_int_equal(ta_catalog_count(cat), N_WALK);
	ta_catalog_free(cat);
}

/* ---- loader errors ----------------------------------------------------------- */

static char *write_temp(const char *name, const char *text)
{
	char *path = ta_xasprintf("%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* The real catalog with one change, written with one key per line. */
typedef void (*mutator)(json_t *entries);

static char *load_error_after(const char *name, mutator m, char **path_out)
{
	json_error_t jerr;
	json_t *root = json_load_file(catalog_path, 0, &jerr);
	assert_non_null(root);
	m(json_object_get(root, "entries"));
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	char *path = write_temp(name, text);
	free(text);
	char *err = NULL;
	ta_catalog *cat = ta_catalog_load(path, &err);
	assert_null(cat);
	assert_non_null(err);
	if (path_out)
		*path_out = path;
	else
		free(path);
	return err;
}

static json_t *entry_by_id(json_t *entries, const char *id)
{
	size_t i;
	json_t *e;
	json_array_foreach(entries, i, e) {
		if (strcmp(json_string_value(json_object_get(e, "id")), id) == 0)
			return e;
	}
	fail_msg("no entry %s", id);
	return NULL;
}

/* "path:LINE:COL: ..." -> the text of line LINE of the file. */
static char *reported_line(const char *err, const char *path)
{
	size_t lp = strlen(path);
	assert_memory_equal(err, path, lp);
	assert_int_equal(err[lp], ':');
	int line = atoi(err + lp + 1);
	assert_true(line > 0);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char buf[4096];
	char *out = NULL;
	for (int n = 1; fgets(buf, sizeof buf, f); n++) {
		if (n == line) {
			out = ta_xstrdup(buf);
			break;
		}
	}
	fclose(f);
	assert_non_null(out);
	return out;
}

static void drop_title_of_s3(json_t *entries)
{
	json_object_del(entry_by_id(entries, "S3"), "title");
}

static void test_missing_field(void **state)
{
	(void)state;
	char *path;
	char *err = load_error_after("missing.json", drop_title_of_s3, &path);
	assert_non_null(strstr(err, "missing \"title\" in entry S3"));
	/* Points at the entry that lacks it. */
	char *line = reported_line(err, path);
	assert_non_null(strchr(line, '{'));
	free(line);
	free(err);
	free(path);
}

static void title_of_s3_not_string(json_t *entries)
{
	json_object_set_new(entry_by_id(entries, "S3"), "title", json_integer(5));
}

static void test_wrong_type_position(void **state)
{
	(void)state;
	char *path;
	char *err = load_error_after("type.json", title_of_s3_not_string, &path);
	assert_non_null(strstr(err, "expected a string for \"title\" in entry S3"));
	char *line = reported_line(err, path);
	assert_non_null(strstr(line, "\"title\": 5"));
	/* The column is that of the value. */
	const char *c = err + strlen(path) + 1;
	c = strchr(c, ':') + 1;
	int col = atoi(c);
	assert_int_equal(col, (int)(strstr(line, "5") - line) + 1);
	free(line);
	free(err);
	free(path);
}

static void duplicate_s3(json_t *entries)
{
	json_object_set_new(entry_by_id(entries, "S4"), "id", json_string("S3"));
}

static void test_duplicate_id(void **state)
{
	(void)state;
	char *err = load_error_after("dup.json", duplicate_s3, NULL);
	assert_non_null(strstr(err, "duplicate id \"S3\""));
	assert_non_null(strstr(err, "first defined at line"));
	free(err);
}

/* What only entries.def knows may not come back into the prose. */
static void detector_in_prose(json_t *entries)
{
	json_object_set_new(entry_by_id(entries, "G4"), "detector", json_string("S3"));
}

static void test_table_fields_rejected(void **state)
{
	(void)state;
	char *err = load_error_after("det.json", detector_in_prose, NULL);
	assert_non_null(strstr(err, "unknown field \"detector\" in entry G4"));
	free(err);
}

/* The prose may not promise a rewrite the build does not have. */
static void l3_said_mechanical(json_t *entries)
{
	json_object_set_new(entry_by_id(entries, "L3"), "edit", json_string("mechanical"));
}

static void test_edit_kind_mismatch(void **state)
{
	(void)state;
	char *err = load_error_after("kind.json", l3_said_mechanical, NULL);
	assert_non_null(strstr(err, "entry L3 says its edit is \"mechanical\", but this tileadvise's is "
				    "\"guided\" (no rewrite writes it)"));
	free(err);
}

static void unknown_serves(json_t *entries)
{
	json_array_append_new(json_object_get(entry_by_id(entries, "G7"), "serves"),
			      json_string("X1"));
}

static void test_unknown_serves(void **state)
{
	(void)state;
	char *err = load_error_after("serves.json", unknown_serves, NULL);
	assert_non_null(strstr(err, "\"X1\", which is not an entry"));
	free(err);
}

/* Same section, other order than the table. */
static void s2_before_s1(json_t *entries)
{
	size_t i;
	json_t *e;
	json_array_foreach(entries, i, e) {
		if (strcmp(json_string_value(json_object_get(e, "id")), "S1") == 0)
			break;
	}
	json_t *s1 = json_incref(json_array_get(entries, i));
	json_array_remove(entries, i);
	json_array_insert_new(entries, i + 1, s1);
}

static void test_order_of_table(void **state)
{
	(void)state;
	char *err = load_error_after("table.json", s2_before_s1, NULL);
	assert_non_null(strstr(err, "entry #17 is S2, but this tileadvise's entry #17 is S1"));
	free(err);
}

static void misspelt_field(json_t *entries)
{
	json_object_set_new(entry_by_id(entries, "P2"), "summery", json_string("x"));
}

static void test_unknown_field(void **state)
{
	(void)state;
	char *path;
	char *err = load_error_after("field.json", misspelt_field, &path);
	assert_non_null(strstr(err, "unknown field \"summery\" in entry P2"));
	char *line = reported_line(err, path);
	assert_non_null(strstr(line, "\"summery\""));
	free(line);
	free(err);
	free(path);
}

static void bad_id(json_t *entries)
{
	json_object_set_new(entry_by_id(entries, "D15"), "id", json_string("D015"));
}

static void test_bad_id(void **state)
{
	(void)state;
	char *err = load_error_after("id.json", bad_id, NULL);
	assert_non_null(strstr(err, "invalid id \"D015\""));
	free(err);
}

static void out_of_order(json_t *entries)
{
	json_t *t1 = json_incref(json_array_get(entries, 0));
	json_array_remove(entries, 0);
	json_array_append_new(entries, t1);
}

static void test_walk_order_enforced(void **state)
{
	(void)state;
	char *err = load_error_after("order.json", out_of_order, NULL);
	assert_non_null(strstr(err, "must be in walk order"));
	free(err);
}

static void edit_none_outside_triggers(json_t *entries)
{
	json_object_set_new(entry_by_id(entries, "S7"), "edit", json_string("none"));
}

static void test_edit_none(void **state)
{
	(void)state;
	char *err = load_error_after("edit.json", edit_none_outside_triggers, NULL);
	assert_non_null(strstr(err, "entry S7 says its edit is \"none\", but this tileadvise's is \"mechanical\""));
	free(err);
}

static void test_invalid_json(void **state)
{
	(void)state;
	char *path = write_temp("syntax.json",
				"{\n"
				"  \"version\": 1,\n"
				"  \"entries\": [\n"
				"    {\"id\": \"T1\",, \"title\": \"x\"}\n"
				"  ]\n"
				"}\n");
	char *err = NULL;
	assert_null(ta_catalog_load(path, &err));
	assert_non_null(err);
	char *want = ta_xasprintf("%s:4:", path);
	assert_memory_equal(err, want, strlen(want));
	assert_null(strchr(err, '\n'));
	free(want);
	free(err);
	free(path);
}

static void test_version(void **state)
{
	(void)state;
	char *path = write_temp("v2.json", "{\"version\": 2, \"entries\": []}\n");
	char *err = NULL;
	assert_null(ta_catalog_load(path, &err));
	assert_non_null(strstr(err, "version 2 is not supported"));
	free(err);
	free(path);
	path = write_temp("noentries.json", "{\"version\": 1}\n");
	assert_null(ta_catalog_load(path, &err));
	assert_non_null(strstr(err, "missing \"entries\""));
	free(err);
	free(path);
	path = write_temp("array.json", "[1, 2]\n");
	assert_null(ta_catalog_load(path, &err));
	assert_non_null(strstr(err, "expected a JSON object"));
	free(err);
	free(path);
}

static void test_missing_file(void **state)
{
	(void)state;
	char *path = ta_xasprintf("%s/nowhere/checklist.json", tmpdir);
	char *err = NULL;
	assert_null(ta_catalog_load(path, &err));
	char *want = ta_xasprintf("cannot read %s: no such file", path);
	assert_string_equal(err, want);
	free(want);
	free(err);
	free(path);
}

/* ---- explain ------------------------------------------------------------------ */

static char *render(const ta_catalog *cat, const char *id, int *rc)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	*rc = ta_explain_entry(cat, id, f);
	fclose(f);
	return text;
}

static size_t utf8_columns(const char *s, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			c++;
	return c;
}

static bool is_code_heading(const char *line, size_t n)
{
	static const char *const h[] = { "Slow", "Fast", "Fires on", "Stays silent on" };
	for (size_t i = 0; i < sizeof h / sizeof *h; i++)
		if (n == strlen(h[i]) && memcmp(line, h[i], n) == 0)
			return true;
	return false;
}

/* Every line but the code examples (kept as written) fits in 78 columns. */
static void assert_prose_width(const char *page)
{
	bool in_code = false;
	for (const char *p = page; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (n > 0 && p[0] != ' ')
			in_code = is_code_heading(p, n);
		else if (!in_code && utf8_columns(p, n) > TA_EXPLAIN_WIDTH)
			fail_msg("line over %d columns: %.*s", TA_EXPLAIN_WIDTH, (int)n, p);
		if (n > 0 && p[0] != ' ' && utf8_columns(p, n) > TA_EXPLAIN_WIDTH)
			fail_msg("line over %d columns: %.*s", TA_EXPLAIN_WIDTH, (int)n, p);
		p += n + (nl ? 1 : 0);
	}
}

static void test_explain_s3(void **state)
{
	const ta_catalog *cat = *state;
	int rc;
	char *page = render(cat, "s3", &rc);
	assert_int_equal(rc, 0);
	const ta_entry *s3 = ta_catalog_find(cat, "S3");
	assert_memory_equal(page, "S3  ", 4);
	assert_non_null(strstr(page, s3->title));
	assert_non_null(strstr(page, ta_section_title(TA_SECTION_PATTERNS)));
	assert_non_null(strstr(page, "Typical impact"));
	assert_non_null(strstr(page, s3->impact));
	assert_non_null(strstr(page, "The edit (mechanical)"));
	assert_non_null(strstr(page, "\n    qk = tl.dot(q, k)\n"));
	/* G4 shares S3's detector: the page points to it. */
	assert_non_null(strstr(page, "G4   "));
	free(page);

	page = render(cat, "G4", &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(page, "Served by"));
	assert_non_null(strstr(page, "The detector of S3"));
	free(page);

	page = render(cat, "T4", &rc);
	assert_non_null(strstr(page, "Evidence from the profile"));
	assert_non_null(strstr(page, "When it fires"));
	assert_non_null(strstr(page, "Brings forward"));
	free(page);
}

static void test_explain_every_entry(void **state)
{
	const ta_catalog *cat = *state;
	for (size_t i = 0; i < ta_catalog_count(cat); i++) {
		int rc;
		char *page = render(cat, ta_catalog_at(cat, i)->id, &rc);
		assert_int_equal(rc, 0);
		assert_prose_width(page);
		free(page);
	}
}

static void test_explain_unknown(void **state)
{
	const ta_catalog *cat = *state;
	int rc;
	char *page = render(cat, "S33", &rc);
	assert_int_equal(rc, 2);
	assert_string_equal(page, "");
	free(page);
}

static void assert_suggests(const ta_catalog *cat, const char *id, const char *want)
{
	char *s = ta_explain_suggest(cat, id);
	if (!want) {
		assert_null(s);
		return;
	}
	assert_non_null(s);
	assert_string_equal(s, want);
	free(s);
}

static void test_suggest(void **state)
{
	const ta_catalog *cat = *state;
	assert_suggests(cat, "s33", "S3");
	assert_suggests(cat, "3S", "S3");
	char *d = ta_explain_suggest(cat, "D17");
	assert_non_null(d);
	assert_memory_equal(d, "one of D1, D2, ", 15);
	assert_non_null(strstr(d, ", D16"));
	free(d);
	assert_suggests(cat, "P8", "one of P1, P2, P3, P4, P5, P6, P7");
	assert_suggests(cat, "xyzzy", NULL);
	char *s = ta_explain_suggest(cat, "tanh");
	assert_non_null(s);
	assert_non_null(strstr(s, "S6 (Precise tanh"));
	free(s);
}

static void test_list(void **state)
{
	const ta_catalog *cat = *state;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ta_explain_list(cat, f, false);
	fclose(f);
	assert_null(strchr(text, '\033'));
	for (int s = 0; s < TA_SECTION_COUNT; s++) {
		char *hdr = ta_xasprintf("\n%s\n", ta_section_title((ta_section)s));
		assert_non_null(strstr(text, hdr));
		free(hdr);
	}
	/* One line per entry, titles in one column. */
	long title_col = -1;
	size_t rows = 0;
	for (size_t i = 0; i < ta_catalog_count(cat); i++) {
		const ta_entry *e = ta_catalog_at(cat, i);
		char *prefix = ta_xasprintf("\n%s ", e->id);
		const char *row = strstr(text, prefix);
		assert_non_null(row);
		row++;
		const char *t = strstr(row, e->title);
		assert_non_null(t);
		assert_true(t < strchr(row, '\n'));
		if (title_col < 0)
			title_col = t - row;
		assert_int_equal(t - row, title_col);
		assert_non_null(strstr(row, ta_section_name(e->section)));
		rows++;
		free(prefix);
	}
	assert_int_equal(rows, N_WALK);
	free(text);

	f = open_memstream(&text, &len);
	ta_explain_list(cat, f, true);
	fclose(f);
	assert_non_null(strstr(text, "\033[1m"));
	free(text);
}

static void test_wrap(void **state)
{
	(void)state;
	ta_buf b = TA_BUF_INIT;
	/* 30 three-byte/one-column words: wrap by columns, not bytes. */
	ta_buf words = TA_BUF_INIT;
	for (int i = 0; i < 30; i++)
		ta_buf_puts(&words, "§→§ ");
	ta_explain_wrap(&b, ta_buf_str(&words), 2, 20);
	const char *out = ta_buf_str(&b);
	size_t nwords = 0;
	for (const char *p = out; *p;) {
		const char *nl = strchr(p, '\n');
		assert_non_null(nl);
		size_t n = (size_t)(nl - p);
		assert_true(utf8_columns(p, n) <= 20);
		assert_memory_equal(p, "  ", 2);
		/* Full lines: 4 words of 3 columns plus spaces = 17, a fifth would make 21. */
		if (nl[1])
			assert_int_equal(utf8_columns(p, n), 17);
		for (const char *w = strstr(p, "§→§"); w && w < nl; w = strstr(w + 1, "§→§"))
			nwords++;
		p = nl + 1;
	}
	assert_int_equal(nwords, 30);
	ta_buf_free(&words);

	/* Paragraphs, and a word longer than the line. */
	ta_buf_clear(&b);
	ta_explain_wrap(&b, "one two\n\nthree averyveryverylongword four", 0, 10);
	assert_string_equal(ta_buf_str(&b), "one two\n\nthree\naveryveryverylongword\nfour\n");
	ta_buf_free(&b);
}

int main(void)
{
	/* ta_datadir() reads this once; point it at the source tree's data/. */
	char *dir = ta_xasprintf("%s/data", srcdir());
	setenv("TILEADVISE_DATADIR", dir, 1);
	free(dir);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_order),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_detectors),
		cmocka_unit_test(test_opens_and_needs),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_default_path),
		cmocka_unit_test(test_missing_field),
		cmocka_unit_test(test_wrong_type_position),
		cmocka_unit_test(test_duplicate_id),
		cmocka_unit_test(test_table_fields_rejected),
		cmocka_unit_test(test_edit_kind_mismatch),
		cmocka_unit_test(test_unknown_serves),
		cmocka_unit_test(test_order_of_table),
		cmocka_unit_test(test_unknown_field),
		cmocka_unit_test(test_bad_id),
		cmocka_unit_test(test_walk_order_enforced),
		cmocka_unit_test(test_edit_none),
		cmocka_unit_test(test_invalid_json),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_explain_s3),
		cmocka_unit_test(test_explain_every_entry),
		cmocka_unit_test(test_explain_unknown),
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_wrap),
	};
	return cmocka_run_group_tests_name("checklist", tests, group_setup, group_teardown);
}
