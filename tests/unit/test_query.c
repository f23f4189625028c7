/* Queries: the predicates tree-sitter 0.20 only hands over (#eq?, #not-eq?,
 * #match?, #not-match?, #any-of?) are evaluated by our code; a bad query
 * names file:row:col and shows the line with a caret. */
#include "config.h"
/* ---- shared test helpers (kept in each file: one program per test) ---- */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/analysis.h"
#include "util/buf.h"

/* The source tree: TA_SRCDIR from the harness, else the tree we were built from. */
static inline const char *ta_test_srcdir(void)
{
	const char *s = getenv("TA_SRCDIR");
	return s && *s ? s : TA_BUILD_SRCDIR;
}

/* Queries come from the source tree's data/ wherever the test binary runs. */
static inline void ta_test_use_srcdir_data(void)
{
	char *d = ta_xasprintf("%s/data", ta_test_srcdir());
	setenv("TILEADVISE_DATADIR", d, 0);
	free(d);
}

#include "analyze/query.h"

static const char py[] =
	"import triton.language as tl\n"
	"a = tl.load(p)\n"
	"b = tl.store(p, a)\n"
	"c = tl.dot(a, b)\n"
	"d = d\n"
	"e = load_all(p)\n";

typedef struct fixture {
	ta_source *src;
	ta_syntax *syn;
} fixture;

static int setup(void **state)
{
	fixture *f = ta_xcalloc(1, sizeof *f);
	char *err = NULL;
	if (ta_source_from_bytes("q.py", py, sizeof py - 1, &f->src, &err) != 0)
		return -1;
	f->syn = ta_syntax_parse(f->src, &err);
	if (!f->syn)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	ta_syntax_free(f->syn);
	ta_source_free(f->src);
	free(f);
	return 0;
}

/* Runs query text over the fixture and returns the text of capture `cap` of
 * each match, joined by spaces. */
static char *run(const fixture *f, const char *text, const char *cap)
{
	char *err = NULL;
	ta_query *q = ta_query_new("t.scm", text, strlen(text), &err);
	if (!q)
		print_error("%s\n", err);
	assert_non_null(q);
	int c = ta_query_capture(q, cap);
	assert_true(c >= 0);
	ta_buf out = TA_BUF_INIT;
	ta_query_iter it;
	TSQueryMatch m;
	ta_query_exec(&it, q, f->src, ta_syntax_root(f->syn));
	while (ta_query_next(&it, &m)) {
		char *t = ta_node_text(f->src, ta_match_node(&m, c));
		ta_buf_printf(&out, "%s%s", out.len ? " " : "", t);
		free(t);
	}
	ta_query_iter_end(&it);
	ta_query_free(q);
	return ta_buf_steal(&out);
}

static void expect(const fixture *f, const char *query, const char *cap, const char *want)
{
	char *got = run(f, query, cap);
	if (strcmp(got, want))
		print_error("query %s\n got \"%s\"\nwant \"%s\"\n", query, got, want);
	assert_string_equal(got, want);
	free(got);
}

#define CALL "(call function: (attribute attribute: (identifier) @m)) @call "

static void test_no_predicate(void **state)
{
	expect(*state, CALL, "m", "load store dot");
}

static void test_eq(void **state)
{
	expect(*state, "(" CALL "(#eq? @m \"store\"))", "m", "store");
	expect(*state, "(" CALL "(#eq? @m \"stor\"))", "m", "");
}

static void test_not_eq(void **state)
{
	expect(*state, "(" CALL "(#not-eq? @m \"store\"))", "m", "load dot");
}

static void test_eq_captures(void **state)
{
	/* d = d: both sides equal */
	expect(*state, "((assignment left: (identifier) @l right: (identifier) @r) (#eq? @l @r))", "l", "d");
	expect(*state, "((assignment left: (identifier) @l right: (identifier) @r) (#not-eq? @l @r))", "l", "");
}

static void test_match(void **state)
{
	/* extended regular expressions, anchored by the pattern only */
	expect(*state, "(" CALL "(#match? @m \"^(load|dot)$\"))", "m", "load dot");
	expect(*state, "((identifier) @id (#match? @id \"^load\"))", "id", "load load_all");
	expect(*state, "(" CALL "(#not-match? @m \"o\"))", "m", "");
}

static void test_any_of(void **state)
{
	expect(*state, "(" CALL "(#any-of? @m \"dot\" \"store\" \"atomic_add\"))", "m", "store dot");
	expect(*state, "(" CALL "(#not-any-of? @m \"dot\" \"store\"))", "m", "load");
}

static void test_two_predicates(void **state)
{
	/* all predicates of a pattern must hold */
	expect(*state, "(" CALL "(#match? @m \"o\") (#not-eq? @m \"dot\"))", "m", "load store");
}

static void test_missing_query_file(void **state)
{
	(void)state;
	/* a missing query file names the path and the way out */
	char *err = NULL;
	assert_null(ta_query_load("no-such-query", &err));
	assert_non_null(strstr(err, "queries/no-such-query.scm"));
	assert_non_null(strstr(err, "TILEADVISE_DATADIR"));
	free(err);
}

/* A compile error: "name:row:col: what", then the line, then a caret under col. */
static void expect_error(const char *text, size_t row, size_t col, const char *what)
{
	char *err = NULL;
	assert_null(ta_query_new("bad.scm", text, strlen(text), &err));
	assert_non_null(err);
	char *head = ta_xasprintf("bad.scm:%zu:%zu: %s\n", row, col, what);
	if (strncmp(err, head, strlen(head)))
		print_error("got:\n%s\nwant head: %s", err, head);
	assert_memory_equal(err, head, strlen(head));
	/* second line: the source line; third: spaces then the caret */
	const char *line = err + strlen(head);
	const char *nl = strchr(line, '\n');
	assert_non_null(nl);
	const char *caret = nl + 1;
	size_t spaces = strspn(caret, " ");
	assert_int_equal(spaces, 2 + col - 1);   /* two spaces of indent, then the column */
	assert_string_equal(caret + spaces, "^");
	free(head);
	free(err);
}

static void test_bad_queries(void **state)
{
	(void)state;
	expect_error("(call)\n(no_such_node) @x\n", 2, 2, "unknown node type");
	expect_error("(call\n  bogus_field: (identifier))\n", 2, 3, "unknown field");
	expect_error("(call) @c\n((identifier) @i (#eq? @nope \"x\"))\n", 2, 25, "unknown capture");
	expect_error("(call (", 1, 8, "syntax error");
	/* predicates we do not know, or malformed ones, point at their pattern */
	expect_error("(call)\n((identifier) @i (#frobnicate? @i \"x\"))\n", 2, 1,
		     "unsupported predicate #frobnicate?");
	expect_error("((identifier) @i (#match? @i \"(\"))\n", 1, 1, "#match?: bad regular expression \"(\"");
	expect_error("((identifier) @i (#eq?))\n", 1, 1, "malformed predicate");
	expect_error("((identifier) @i (#eq? \"x\" @i))\n", 1, 1, "#eq? needs a capture first");
	expect_error("((identifier) @i (#eq? @i))\n", 1, 1, "#eq? needs one string or capture to compare with");
	expect_error("((identifier) @i (#match? @i \"a\" \"b\"))\n", 1, 1, "#match? needs one regular expression");
	expect_error("((identifier) @i (#eq? @i \"a\" \"b\"))\n", 1, 1,
		     "#eq? needs one string or capture to compare with");
	expect_error("((identifier) @i (#any-of? @i @i))\n", 1, 1, "#any-of?: unexpected capture argument");
}

int main(void)
{
	ta_test_use_srcdir_data();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_predicate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eq, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_eq, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eq_captures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_match, setup, teardown),
		cmocka_unit_test_setup_teardown(test_any_of, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_predicates, setup, teardown),
		cmocka_unit_test(test_missing_query_file),
		cmocka_unit_test(test_bad_queries),
	};
	return cmocka_run_group_tests_name("query", tests, NULL, NULL);
}
