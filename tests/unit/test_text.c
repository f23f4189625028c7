/* util/json.h and util/text.h (issue 31): text that is not UTF-8 in a JSON
 * document keeps its exact bytes beside it and reads back; a KEY_bytes that
 * is data (a count) is left alone; the escaping policy shows controls, bare
 * carriage returns, format characters and stray bytes visibly, and its
 * stream gives the same answer whatever the pieces it is written in. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/json.h"
#include "util/text.h"

static void test_bytes_round_trip(void **state)
{
	(void)state;
	const char name[] = "k\xe9.py", arg[] = "a\xff\xfe";
	json_t *o = json_object();
	json_object_set_new(o, "file", ta_json_raw(name));
	json_object_set_new(o, "size", json_integer(3));
	json_t *cmd = json_array();
	json_array_append_new(cmd, ta_json_raw("python3"));
	json_array_append_new(cmd, ta_json_raw(arg));
	json_object_set_new(o, "command", cmd);
	json_object_set_new(o, "dram_bytes", json_integer(4096));
	json_object_set_new(o, "plain", ta_json_raw("caf\xc3\xa9"));
	char *text = ta_json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT);
	json_decref(o);
	assert_non_null(text);
	/* the readable text, its bytes right after it; UTF-8 as it was */
	assert_string_equal(text, "{\"file\":\"k\xef\xbf\xbd.py\",\"file_bytes\":\"a+kucHk=\",\"size\":3,"
				  "\"command\":[\"python3\",\"a\xef\xbf\xbd\xef\xbf\xbd\"],"
				  "\"command_bytes\":[null,\"Yf/+\"],\"dram_bytes\":4096,\"plain\":\"caf\xc3\xa9\"}");
	json_t *back = json_loads(text, 0, NULL);
	free(text);
	assert_non_null(back);
	assert_int_equal(ta_json_take_bytes(back), 0);
	assert_string_equal(json_string_value(json_object_get(back, "file")), name);
	assert_string_equal(json_string_value(json_array_get(json_object_get(back, "command"), 1)), arg);
	assert_null(json_object_get(back, "file_bytes"));
	assert_null(json_object_get(back, "command_bytes"));
	/* a count of bytes is data, not ours */
	assert_int_equal(json_integer_value(json_object_get(back, "dram_bytes")), 4096);
	json_decref(back);
	json_t *bad = json_loads("{\"file\":\"x\",\"file_bytes\":\"***=\"}", 0, NULL);
	assert_int_equal(ta_json_take_bytes(bad), -1);
	json_decref(bad);
}

static void test_base64_lengths(void **state)
{
	(void)state;
	/* every padding: 1, 2, 3 bytes past a multiple of three */
	for (size_t n = 1; n <= 7; n++) {
		char raw[8];
		for (size_t i = 0; i < n; i++)
			raw[i] = (char)(0xf0 + i);
		json_t *o = json_object();
		json_object_set_new(o, "k", ta_json_rawn(raw, n));
		char *text = ta_json_dumps(o, JSON_COMPACT);
		json_decref(o);
		json_t *back = json_loads(text, 0, NULL);
		free(text);
		assert_int_equal(ta_json_take_bytes(back), 0);
		json_t *k = json_object_get(back, "k");
		assert_int_equal(json_string_length(k), n);
		assert_memory_equal(json_string_value(k), raw, n);
		json_decref(back);
	}
}

static char *escaped(const char *s, unsigned flags)
{
	ta_buf b = TA_BUF_INIT;
	ta_text_escape(&b, s, strlen(s), flags);
	return ta_buf_steal(&b);
}

static void test_policy(void **state)
{
	(void)state;
	char *e = escaped("a\x1b]0;T\x07 b\r\nc\rd \xe2\x80\xae x\xe2\x81\xa6 \xc2\x9b \x9b caf\xc3\xa9\tz\n", 0);
	assert_string_equal(e, "a?]0;T? b??c?d \\u202e x\\u2066 ? \\x9b caf\xc3\xa9?z?");
	free(e);
	e = escaped("l1\r\nl2\rx\tt\n", TA_TEXT_LINES | TA_TEXT_CRLF);
	assert_string_equal(e, "l1\r\nl2?x\tt\n");
	free(e);
	e = escaped("a\r\nb\nc\td", TA_TEXT_SPACES);
	assert_string_equal(e, "a b c d");
	free(e);
	assert_true(ta_text_format_char(0x202e) && ta_text_format_char(0x200b) && ta_text_format_char(0xfeff));
	assert_false(ta_text_format_char(0x00e9) || ta_text_format_char(0x2010));
	assert_string_equal(ta_text_name("k\n::error x"), "k?::error x");
}

/* The stream: written whole, byte by byte, or split inside a sequence, the
 * same bytes come out. */
static void test_stream_pieces(void **state)
{
	(void)state;
	const char in[] = "x\xe2\x80\xae y\r\nz\rw \xc3\xa9 \xf0\x9f\x98\x80 \xe2\x80 end\xc2";
	char *want = NULL;
	for (size_t step = 0; step <= 3; step++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&buf, &len);
		FILE *f = ta_text_safe_stream(mem, true);
		assert_non_null(f);
		size_t n = sizeof in - 1;
		if (step == 0)
			fwrite(in, 1, n, f);
		else
			for (size_t i = 0; i < n; i += step) {
				fwrite(in + i, 1, i + step <= n ? step : n - i, f);
				fflush(f);
			}
		fclose(f);
		fclose(mem);
		if (!want) {
			want = buf;
			assert_string_equal(want, "x\\u202e y\r\nz?w \xc3\xa9 \xf0\x9f\x98\x80 \\xe2\\x80 end\\xc2");
		} else {
			assert_string_equal(buf, want);
			free(buf);
		}
	}
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes_round_trip),
		cmocka_unit_test(test_base64_lengths),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_stream_pieces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
