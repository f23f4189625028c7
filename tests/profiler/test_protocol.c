/* The record protocol: encoder/decoder round trip, partial and bad input. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profile/protocol.h"

static ta_proto_kernel sample_kernel(void)
{
	ta_proto_kernel k;
	memset(&k, 0, sizeof k);
	k.name = "matmul_kernel \"q\" \\ \t\xc3\xa9";   /* quote, backslash, tab, é */
	k.start_ns = 1764400000123456789ull;
	k.end_ns = 1764400000123556789ull;
	k.grid[0] = 132; k.grid[1] = 2; k.grid[2] = 1;
	k.block[0] = 256; k.block[1] = 1; k.block[2] = 1;
	k.regs = 168;
	k.smem_static = 0;
	k.smem_dynamic = 98304;
	k.local_per_thread = 16;
	k.device = 0;
	k.stream = 7;
	k.correlation = 4242;
	k.graph_id = 3;
	k.graph_node_id = 1ull << 40;
	return k;
}

static void test_round_trip(void **state)
{
	(void)state;
	char line[4096];
	ta_records r;
	ta_records_init(&r);
	ta_proto_kernel k = sample_kernel();
	size_t n = ta_proto_encode_hello(line, sizeof line, 42, 130001, 13000);
	assert_true(n > 0 && line[n - 1] == '\n');
	assert_true(ta_proto_decode_line(&r, line, n - 1, 0));
	n = ta_proto_encode_kernel(line, sizeof line, 42, &k);
	assert_true(n > 0);
	assert_null(strstr(line, "\"w\""));           /* a weight of 1 is not written */
	assert_true(ta_proto_decode_line(&r, line, n - 1, 3));
	n = ta_proto_encode_error(line, sizeof line, 42, "cuptiActivityEnable", 17, "not \"allowed\"\n");
	assert_true(ta_proto_decode_line(&r, line, n - 1, 0));
	/* code 0: the injector saying what it did instead, not a failure */
	n = ta_proto_encode_error(line, sizeof line, 42, "TILEADVISE_CAPTURE", 0, "the whole run is recorded");
	assert_true(ta_proto_decode_line(&r, line, n - 1, 0));
	n = ta_proto_encode_bye(line, sizeof line, 42, 10, 2, 1);
	assert_true(ta_proto_decode_line(&r, line, n - 1, 0));

	assert_int_equal(r.n_notes, 1);
	assert_string_equal(r.notes[0], "TILEADVISE_CAPTURE: the whole run is recorded");
	assert_int_equal(r.n_hello, 1);
	assert_int_equal(r.cupti_version, 130001);
	assert_int_equal(r.driver_version, 13000);
	assert_int_equal(r.n_kernels, 1);
	const ta_kernel_rec *d = &r.kernels[0];
	assert_string_equal(d->name, k.name);
	assert_int_equal(d->pid, 42);
	assert_int_equal(d->run, 3);
	assert_true(d->start_ns == k.start_ns && d->end_ns == k.end_ns);
	assert_int_equal(d->grid[0], 132);
	assert_int_equal(d->grid[1], 2);
	assert_int_equal(d->block[0], 256);
	assert_int_equal(d->regs, 168);
	assert_int_equal(d->smem_dynamic, 98304);
	assert_int_equal(d->local_per_thread, 16);
	assert_int_equal(d->stream, 7);
	assert_int_equal(d->correlation, 4242);
	assert_int_equal(d->graph_id, 3);
	assert_true(d->graph_node_id == (1ull << 40));
	assert_int_equal(d->weight, 1);                 /* no "w": itself */
	assert_int_equal(r.n_errors, 1);
	assert_string_equal(r.errors[0], "cuptiActivityEnable: not \"allowed\"\n (code 17)");
	assert_int_equal(r.n_bye, 1);
	assert_true(r.written == 10 && r.dropped == 2 && r.lost == 1);
	assert_int_equal(r.n_malformed, 0);
	/* a sampled launch's record says how many launches it stands for */
	k.weight = 37;
	n = ta_proto_encode_kernel(line, sizeof line, 42, &k);
	assert_non_null(strstr(line, ",\"w\":37}"));
	assert_true(ta_proto_decode_line(&r, line, n - 1, 0));
	assert_int_equal(r.kernels[1].weight, 37);
	ta_records_clear(&r);
}

static void test_encode_small_buffer_and_bad_utf8(void **state)
{
	(void)state;
	char line[4096];
	ta_proto_kernel k = sample_kernel();
	assert_int_equal(ta_proto_encode_kernel(line, 40, 1, &k), 0);
	k.name = "bad\xff\xfe utf8 \xc3";   /* invalid bytes and a cut sequence */
	size_t n = ta_proto_encode_kernel(line, sizeof line, 1, &k);
	assert_true(n > 0);
	ta_records r;
	ta_records_init(&r);
	assert_true(ta_proto_decode_line(&r, line, n - 1, 0));
	assert_string_equal(r.kernels[0].name, "bad?? utf8 ?");
	ta_records_clear(&r);
}

/* A stream fed one byte at a time decodes like one fed whole. */
static void test_partial_feeds(void **state)
{
	(void)state;
	char stream[8192];
	size_t len = 0;
	ta_proto_kernel k = sample_kernel();
	len += ta_proto_encode_hello(stream + len, sizeof stream - len, 1, 1, -1);
	for (int i = 0; i < 5; i++) {
		k.correlation = (uint32_t)i;
		len += ta_proto_encode_kernel(stream + len, sizeof stream - len, 1, &k);
	}
	len += ta_proto_encode_bye(stream + len, sizeof stream - len, 1, 7, 0, 0);
	ta_records r;
	ta_records_init(&r);
	ta_proto_decoder d;
	ta_proto_decoder_init(&d, &r, 0);
	for (size_t i = 0; i < len; i++)
		ta_proto_decoder_feed(&d, stream + i, 1);
	ta_proto_decoder_finish(&d);
	assert_int_equal(r.n_kernels, 5);
	assert_int_equal(r.kernels[4].correlation, 4);
	assert_int_equal(r.driver_version, -1);
	assert_int_equal(r.n_bye, 1);
	assert_int_equal(r.n_malformed + r.n_truncated + r.n_overlong, 0);
	ta_records_clear(&r);
}

static void test_malformed_and_truncated(void **state)
{
	(void)state;
	const char *s =
		"not json at all\n"
		"[1,2,3]\n"
		"{\"type\":\"kernel\",\"name\":\"k\"}\n"                 /* missing fields */
		"{\"type\":\"kernel\",\"name\":\"k\",\"start\":5,\"end\":4,\"grid\":[1,1,1],\"block\":[1,1,1]}\n"
		"{\"type\":\"someday\"}\n"
		"\r\n"
		"{\"type\":\"kernel\",\"name\":\"k\",\"start\":1,\"end\":4,\"grid\":[1,1,1],\"block\":[32,1,1]}\r\n"
		"{\"type\":\"kernel\",\"name\":\"k\",\"start\":1,\"end\"";   /* cut off */
	ta_records r;
	ta_records_init(&r);
	ta_proto_decoder d;
	ta_proto_decoder_init(&d, &r, 0);
	ta_proto_decoder_feed(&d, s, strlen(s));
	ta_proto_decoder_finish(&d);
	assert_int_equal(r.n_kernels, 1);
	assert_int_equal(r.kernels[0].end_ns - r.kernels[0].start_ns, 3);
	assert_int_equal(r.n_malformed, 4);
	assert_int_equal(r.n_unknown, 1);
	assert_int_equal(r.n_truncated, 1);
	ta_records_clear(&r);
}

static void test_overlong_line(void **state)
{
	(void)state;
	size_t big = TA_PROTO_MAX_LINE + 100;
	char *junk = malloc(big);
	memset(junk, 'x', big);
	const char *good = "{\"type\":\"hello\",\"v\":1,\"pid\":1,\"cupti\":2}\n";
	ta_records r;
	ta_records_init(&r);
	ta_proto_decoder d;
	ta_proto_decoder_init(&d, &r, 0);
	/* the long line arrives in pieces, then ends, then a good line */
	for (size_t i = 0; i < big; i += 1000)
		ta_proto_decoder_feed(&d, junk + i, big - i < 1000 ? big - i : 1000);
	ta_proto_decoder_feed(&d, "\n", 1);
	ta_proto_decoder_feed(&d, good, strlen(good));
	ta_proto_decoder_finish(&d);
	assert_int_equal(r.n_overlong, 1);
	assert_int_equal(r.n_hello, 1);
	assert_int_equal(r.n_truncated, 0);
	free(junk);
	ta_records_clear(&r);
}

/* The --deep records survive the trip, with grid and block, NaN as null
 * (left out when decoded) and the run lines the tool writes itself. */
static void test_deep_records(void **state)
{
	(void)state;
	char line[4096];
	ta_records r;
	ta_records_init(&r);
	const char *reasons[] = { "long_scoreboard", "wait" };
	const uint64_t counts[] = { 90, 10 };
	ta_proto_pcline pl = { .kernel = "k", .file = "/x/k.py", .line = 21, .samples = 100,
			       .reasons = reasons, .counts = counts, .n_reasons = 2 };
	size_t n = ta_proto_encode_pcline(line, sizeof line, 7, &pl);
	assert_true(n > 0);
	assert_true(ta_proto_decode_line(&r, line, n - 1, 0));
	n = ta_proto_encode_pctotal(line, sizeof line, 7, 120, 3, 5, 20, 11, 1);
	assert_true(ta_proto_decode_line(&r, line, n - 1, 0));
	const char *names[] = { "dram__throughput.avg.pct_of_peak_sustained_elapsed", "bad" };
	const double values[] = { 91.5, NAN };
	const int32_t grid[3] = { 4096, 1, 1 }, block[3] = { 128, 1, 1 };
	n = ta_proto_encode_sol(line, sizeof line, 7, "k", 44, 9, names, values, 2, grid, block);
	assert_non_null(strstr(line, "\"bad\":null"));
	assert_true(ta_proto_decode_line(&r, line, n - 1, 0));
	FILE *tee = tmpfile();
	ta_records_note_run(&r, TA_RUN_KIND_PC, 6.5, false, tee);
	rewind(tee);
	assert_non_null(fgets(line, sizeof line, tee));
	fclose(tee);
	assert_true(ta_proto_decode_line(&r, line, strlen(line) - 1, 0));

	assert_int_equal(r.n_pclines, 1);
	assert_string_equal(r.pclines[0].file, "/x/k.py");
	assert_int_equal(r.pclines[0].line, 21);
	assert_int_equal(r.pclines[0].n_reasons, 2);
	assert_string_equal(r.pclines[0].reasons[1], "wait");
	assert_int_equal(r.pclines[0].counts[0], 90);
	assert_true(r.has_pc_total);
	assert_int_equal(r.pc_dropped, 3);
	assert_int_equal(r.pc_period, 11);
	assert_true(r.pc_hw_full);
	assert_int_equal(r.n_sols, 1);
	assert_true(r.sols[0].has_shape);
	assert_int_equal(r.sols[0].grid[0], 4096);
	assert_int_equal(r.sols[0].n, 1);          /* the null one is left out */
	assert_true(r.sols[0].values[0] == 91.5);
	assert_int_equal(r.run_count[TA_RUN_KIND_PC], 2);   /* noted, then decoded */
	assert_true(r.run_wall_s[TA_RUN_KIND_PC] == 13.0);
	assert_int_equal(r.n_malformed, 0);
	ta_records_clear(&r);
}

/* A line with more reasons than fit keeps the first ones, still valid. */
static void test_pcline_keeps_top_reasons_that_fit(void **state)
{
	(void)state;
	char line[200];
	const char *reasons[] = { "long_scoreboard", "wait", "math_pipe_throttle", "barrier",
				  "mio_throttle", "lg_throttle", "selected", "not_selected" };
	const uint64_t counts[] = { 8, 7, 6, 5, 4, 3, 2, 1 };
	ta_proto_pcline pl = { .kernel = "k", .file = "f.py", .line = 3, .samples = 36,
			       .reasons = reasons, .counts = counts, .n_reasons = 8 };
	size_t n = ta_proto_encode_pcline(line, sizeof line, 1, &pl);
	assert_true(n > 0 && n < sizeof line);
	ta_records r;
	ta_records_init(&r);
	assert_true(ta_proto_decode_line(&r, line, n - 1, 0));
	assert_true(r.pclines[0].n_reasons >= 2 && r.pclines[0].n_reasons < 8);
	assert_string_equal(r.pclines[0].reasons[0], "long_scoreboard");
	ta_records_clear(&r);
}

/* The launch book's "calls" line: encoded, decoded, and refused when its
 * counts contradict each other; an old stream without it decodes as before. */
static void test_calls_records(void **state)
{
	(void)state;
	ta_proto_calls c = {
		.name = "tiny_add", .grid = { 4, 1, 1 }, .block = { 128, 1, 1 }, .smem_dynamic = 0,
		.launches = 50001, .traced = 912, .converged = true,
		.n_period = 50000, .p25_ns = 17800, .median_ns = 18150, .p75_ns = 18600,
	};
	char line[1024];
	size_t n = ta_proto_encode_calls(line, sizeof line, 42, &c);
	assert_true(n > 0);
	ta_records r;
	ta_records_init(&r);
	assert_true(ta_proto_decode_line(&r, line, n - 1, 3));
	assert_int_equal(r.n_calls, 1);
	const ta_calls_rec *x = &r.calls[0];
	assert_string_equal(x->name, "tiny_add");
	assert_int_equal(x->pid, 42);
	assert_int_equal(x->run, 3);
	assert_int_equal(x->grid[0], 4);
	assert_int_equal(x->block[0], 128);
	assert_int_equal(x->launches, 50001);
	assert_int_equal(x->traced, 912);
	assert_true(x->converged);
	assert_int_equal(x->n_period, 50000);
	assert_float_equal(x->median_ns, 18150, 1e-9);
	assert_float_equal(x->p25_ns, 17800, 1e-9);
	assert_float_equal(x->p75_ns, 18600, 1e-9);
	/* a shape launched once has no period */
	c.n_period = 0;
	c.launches = c.traced = 1;
	n = ta_proto_encode_calls(line, sizeof line, 42, &c);
	assert_null(strstr(line, "period"));
	assert_true(ta_proto_decode_line(&r, line, n - 1, 0));
	assert_int_equal(r.calls[1].n_period, 0);
	/* more traced than launched, or quartiles out of order: malformed or
	 * no period */
	const char *bad = "{\"type\":\"calls\",\"pid\":1,\"name\":\"k\",\"grid\":[1,1,1],\"block\":[1,1,1],"
			  "\"launches\":3,\"traced\":4}";
	assert_false(ta_proto_decode_line(&r, bad, strlen(bad), 0));
	assert_int_equal(r.n_malformed, 1);
	const char *odd = "{\"type\":\"calls\",\"pid\":1,\"name\":\"k\",\"grid\":[1,1,1],\"block\":[1,1,1],"
			  "\"launches\":3,\"traced\":3,\"period\":{\"n\":2,\"p25\":9,\"median\":5,\"p75\":7}}";
	assert_true(ta_proto_decode_line(&r, odd, strlen(odd), 0));
	assert_int_equal(r.calls[2].n_period, 0);
	ta_records_clear(&r);
	assert_int_equal(r.n_calls, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_encode_small_buffer_and_bad_utf8),
		cmocka_unit_test(test_partial_feeds),
		cmocka_unit_test(test_malformed_and_truncated),
		cmocka_unit_test(test_overlong_line),
		cmocka_unit_test(test_deep_records),
		cmocka_unit_test(test_pcline_keeps_top_reasons_that_fit),
		cmocka_unit_test(test_calls_records),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
