/* The fast JSON reader (advise/json_read.c) against jansson's json_loadb:
 * for every text, ta_json_loadb gives what json_loadb gives (the same
 * values in the same order, or the same error at the same place), and its
 * own scan takes the documents we write (the catalog, escapes, numbers)
 * and declines, for json_loadb to judge, everything else. */
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

#include "advise/json_read.h"
#include "util/fsutil.h"

static const char *srcdir(void)
{
	const char *s = getenv("TA_SRCDIR");
	return s && *s ? s : TA_BUILD_SRCDIR;
}

/* Both readers on text[0..len): equal values (and dumps, which show key
 * order and how reals print), or both failing with the same message. */
static void agree_n(const char *text, size_t len, size_t flags)
{
	json_error_t je, te;
	json_t *j = json_loadb(text, len, flags, &je);
	json_t *t = ta_json_loadb(text, len, flags, &te);
	if (!j) {
		if (t)
			fail_msg("json_loadb rejects but ta_json_loadb takes: %.*s", (int)len, text);
		assert_string_equal(je.text, te.text);
		assert_int_equal(je.line, te.line);
		assert_int_equal(je.column, te.column);
		assert_int_equal(je.position, te.position);
		return;
	}
	if (!t)
		fail_msg("json_loadb takes but ta_json_loadb rejects: %.*s", (int)len, text);
	assert_true(json_equal(j, t));
	char *dj = json_dumps(j, JSON_ENCODE_ANY), *dt = json_dumps(t, JSON_ENCODE_ANY);
	assert_string_equal(dj, dt);
	free(dj);
	free(dt);
	assert_int_equal(je.line, te.line);
	assert_string_equal(je.text, te.text);
	json_decref(j);
	json_decref(t);
}

static void agree(const char *text, size_t flags)
{
	agree_n(text, strlen(text), flags);
}

/* Texts the scan itself must read (the speed is in not handing them on). */
static void taken(const char *text, size_t flags)
{
	json_t *v = ta_json_scan(text, strlen(text), flags);
	if (!v)
		fail_msg("the scan declines: %s", text);
	json_decref(v);
	agree(text, flags);
}

/* Texts the scan must leave to json_loadb (errors, and what it does not
 * judge itself). */
static void declined_n(const char *text, size_t len, size_t flags)
{
	json_t *v = ta_json_scan(text, len, flags);
	if (v)
		fail_msg("the scan takes: %.*s", (int)len, text);
	agree_n(text, len, flags);
}

static void declined(const char *text, size_t flags)
{
	declined_n(text, strlen(text), flags);
}

static void test_catalog_is_read_by_the_scan(void **state)
{
	(void)state;
	char path[4096], *text, *why;
	size_t len;
	snprintf(path, sizeof path, "%s/data/checklist.json", srcdir());
	assert_int_equal(ta_read_file(path, 4u << 20, &text, &len, &why), 0);
	json_t *v = ta_json_scan(text, len, JSON_REJECT_DUPLICATES);
	assert_non_null(v);
	json_decref(v);
	agree_n(text, len, JSON_REJECT_DUPLICATES);
	free(text);
}

static void test_values(void **state)
{
	(void)state;
	taken("{}", 0);
	taken("[]", 0);
	taken(" \t\r\n[ ]\n", 0);
	taken("{\"a\": 1, \"b\": [true, false, null], \"c\": {\"d\": \"e\"}}", 0);
	taken("[0, -0, 7, -12, 123456789012345678, -123456789012345678]", 0);
	taken("[1.5, -0.25e-3, 1E10, 2e+2, 0.1, 3.14159265358979323846]", 0);
	agree("[1e-320, 4.9e-324, 2.2250738585072014e-308]", 0);   /* subnormal: either reads it */
	taken("[\"\", \"plain\", \"§4 QKᵀ ✓ 😀\"]", 0);
	taken("{\"\": \"empty key\", \"k\\u00e9y\": 1}", JSON_REJECT_DUPLICATES);
	taken("[[[[[[[[[[1]]]]]]]]]]", 0);
}

static void test_escapes(void **state)
{
	(void)state;
	taken("[\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\"]", 0);
	taken("[\"\\u0041\\u00e9\\u20AC\\uFFFF\\u0001\"]", 0);
	taken("[\"\\ud83d\\ude00 pair\", \"\\uD834\\uDD1E\"]", 0);
	taken("{\"line\\none\": \"x\\ny\", \"plain\": \"no escape after one\"}", 0);
	/* A key with escapes stays right while its value's strings are decoded. */
	taken("{\"k\\n1\": {\"k\\t2\": \"v\\u00e9\", \"k3\": [\"\\\\\"]}, \"k\\n4\": 2}", 0);
	/* A key longer than the small buffer. */
	char big[600];
	snprintf(big, sizeof big, "{\"%0200d\": 1, \"%0200d\\n\": 2}", 0, 1);
	taken(big, JSON_REJECT_DUPLICATES);
}

static void test_duplicates(void **state)
{
	(void)state;
	/* Without the flag the last value wins, at the first one's place. */
	taken("{\"a\": 1, \"b\": 2, \"a\": 3}", 0);
	declined("{\"a\": 1, \"b\": 2, \"a\": 3}", JSON_REJECT_DUPLICATES);
	declined("{\"x\": {\"a\": 1, \"a\": 1}}", JSON_REJECT_DUPLICATES);
}

static void test_errors_are_jansson_s(void **state)
{
	(void)state;
	const char *bad[] = {
		"", "   ", "1", "\"s\"", "true", "{", "[", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a: 1}",
		"[1 2]", "[\"unterminated]", "[01]", "[1.]", "[-]", "[1e]", "[1e+]", "[.5]", "[+1]",
		"[truex]", "[nul]", "[True]", "[1] x", "[1]]", "{} {}", "[\"\\x\"]", "[\"\\u12\"]",
		"[\"\\u00zz\"]", "[\"\\ud800\"]", "[\"\\udc00\"]", "[\"\\ud800\\u0041\"]", "[\"\\u0000\"]",
		"{\"\\u0000\": 1}", "[\"tab\there\"]", "[\"\x01\"]", "[\"\xc0\x80\"]", "[\"\xed\xa0\x80\"]",
		"[\"\xf5\x80\x80\x80\"]", "[\"\xe2\x82\"]", "[\"\x80\"]", "\xef\xbb\xbf[]",
		"[1e999]", "[-1e999]", "[12345678901234567890]", "[9223372036854775807]",
		"[-9223372036854775808]", "[NaN]", "[Infinity]", "[1.5e]",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		declined(bad[i], 0);
	/* A NUL inside the length. */
	declined_n("[\"a\0b\"]", 7, 0);
	declined_n("[1]\0", 4, 0);
	/* Flags the scan does not handle go to json_loadb as they are. */
	declined("[1]", JSON_DECODE_ANY);
	declined("\"s\"", JSON_DECODE_ANY);
	declined("[\"\\u0000\"]", JSON_ALLOW_NUL);
}

static void test_depth(void **state)
{
	(void)state;
	size_t n = 3000;
	char *deep = malloc(2 * n + 1);
	for (size_t i = 0; i < n; i++) {
		deep[i] = '[';
		deep[n + i] = ']';
	}
	deep[2 * n] = '\0';
	declined(deep, 0);   /* past jansson's limit: its error */
	deep[2000] = '\0';
	memset(deep + 1000, ']', 1000);
	declined(deep, 0);   /* past the scan's, within jansson's: read by it */
	free(deep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalog_is_read_by_the_scan),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_errors_are_jansson_s),
		cmocka_unit_test(test_depth),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
