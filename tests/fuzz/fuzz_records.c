/* Fuzz target (d): the profiler's record stream. The input's first 8 bytes
 * seed the split points; the rest is the stream as the injector's pipe
 * would deliver it.
 *
 * Properties:
 *   - fed whole, fed one byte at a time, and fed in random pieces, the
 *     decoder gives the same records (every count, kernel and error);
 *   - decoding never fails hard: bad lines are counted;
 *   - the measurement built from the records (with and without H200 facts,
 *     with and without the file's kernel names), its comparison with
 *     itself, and --profile's text and JSON output never crash, and the
 *     JSON parses;
 *   - so does the --deep view (hot lines, counters) and its text and JSON. */
#include "config.h"
#include "fuzz.h"

#include <jansson.h>

#include "advise/deep_figures.h"
#include "profile/deep_report.h"
#include "profile/gpu.h"
#include "profile/measure.h"
#include "profile/protocol.h"
#include "advise/profile_cmd.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_init_env();
	return 0;
}

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static void same_records(const ta_records *a, const ta_records *b, const char *how)
{
	FUZZ_CHECK(a->n_kernels == b->n_kernels && a->n_errors == b->n_errors && a->n_hello == b->n_hello &&
		   a->n_bye == b->n_bye && a->cupti_version == b->cupti_version &&
		   a->driver_version == b->driver_version && a->written == b->written &&
		   a->dropped == b->dropped && a->lost == b->lost && a->n_lines == b->n_lines &&
		   a->n_malformed == b->n_malformed && a->n_unknown == b->n_unknown &&
		   a->n_overlong == b->n_overlong && a->n_truncated == b->n_truncated &&
		   a->n_pclines == b->n_pclines && a->n_sols == b->n_sols && a->pc_samples == b->pc_samples,
		   "fed %s, the counts differ (kernels %zu/%zu lines %zu/%zu malformed %zu/%zu overlong %zu/%zu "
		   "truncated %zu/%zu)", how, a->n_kernels, b->n_kernels, a->n_lines, b->n_lines, a->n_malformed,
		   b->n_malformed, a->n_overlong, b->n_overlong, a->n_truncated, b->n_truncated);
	for (size_t i = 0; i < a->n_kernels; i++) {
		const ta_kernel_rec *x = &a->kernels[i], *y = &b->kernels[i];
		FUZZ_CHECK(str_eq(x->name, y->name) && x->start_ns == y->start_ns && x->end_ns == y->end_ns &&
			   !memcmp(x->grid, y->grid, sizeof x->grid) && !memcmp(x->block, y->block, sizeof x->block) &&
			   x->regs == y->regs && x->correlation == y->correlation,
			   "fed %s, kernel %zu differs", how, i);
	}
	for (size_t i = 0; i < a->n_errors; i++)
		FUZZ_CHECK(str_eq(a->errors[i], b->errors[i]), "fed %s, error %zu differs", how, i);
}

static void print_all(const ta_measurement *m, const ta_gpu_info *gpu)
{
	for (int f = 0; f < 2; f++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);
		ta_profile_print(m, gpu, f ? TA_PROFILE_JSON : TA_PROFILE_TEXT, out);
		fclose(out);
		if (f) {
			json_error_t je;
			json_t *j = json_loadb(buf, len, 0, &je);
			FUZZ_CHECK(j != NULL, "--profile json output is not JSON (%s): %.300s", je.text, buf);
			json_decref(j);
		}
		free(buf);
	}
}

static void print_deep(const ta_records *r, const char *const *names, size_t n,
		       const ta_measurement *m)
{
	ta_deep *d = ta_deep_build(r, "/nonexistent/kernel.py", names, n, m);
	if (!d)
		return;
	ta_buf b = TA_BUF_INIT;
	ta_deep_text(&b, d, "kernel.py", 8);
	ta_buf_free(&b);
	json_t *j = ta_deep_json(d);
	char *text = json_dumps(j, 0);
	FUZZ_CHECK(text != NULL, "--deep JSON does not serialise");
	json_error_t je;
	json_t *back = json_loads(text, 0, &je);
	FUZZ_CHECK(back != NULL, "--deep JSON does not parse (%s)", je.text);
	json_decref(back);
	free(text);
	json_decref(j);
	uint32_t lines[40];
	for (uint32_t l = 0; l < 40; l++)
		lines[l] = l + 1;
	for (size_t i = 0; i < d->n_kernels; i++) {
		ta_deep_figures f;
		ta_deep_figures_set(&f, &d->kernels[i]);
		char *sentence = ta_deep_figures_sentence(&f, lines, 40);
		char *sol = ta_deep_figures_sol_line(&f);
		free(sentence);
		free(sol);
		ta_deep_figures_clear(&f);
	}
	ta_deep_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 8)
		return 0;
	uint64_t seed;
	memcpy(&seed, data, 8);
	seed |= 1;
	const char *s = (const char *)data + 8;
	size_t n = size - 8;

	/* Whole. */
	ta_records whole = TA_RECORDS_INIT;
	ta_records_init(&whole);
	ta_proto_decoder d;
	ta_proto_decoder_init(&d, &whole, 0);
	ta_proto_decoder_feed(&d, s, n);
	ta_proto_decoder_finish(&d);

	/* Random pieces (from a private copy of each piece, so ASan sees any
	 * read past it), empty pieces included. */
	ta_records pieces = TA_RECORDS_INIT;
	ta_records_init(&pieces);
	ta_proto_decoder_init(&d, &pieces, 0);
	for (size_t at = 0; at < n;) {
		size_t k = (size_t)(rng(&seed) % 97);
		if (rng(&seed) % 8 == 0)
			k = (size_t)(rng(&seed) % (n + 1));
		if (k > n - at)
			k = n - at;
		char *piece = ta_xmalloc(k ? k : 1);
		memcpy(piece, s + at, k);
		ta_proto_decoder_feed(&d, piece, k);
		free(piece);
		at += k;
	}
	ta_proto_decoder_finish(&d);
	same_records(&whole, &pieces, "in random pieces");
	ta_records_clear(&pieces);

	/* One byte at a time (short inputs: it is slow). */
	if (n <= 4096) {
		ta_records bytes = TA_RECORDS_INIT;
		ta_records_init(&bytes);
		ta_proto_decoder_init(&d, &bytes, 0);
		for (size_t i = 0; i < n; i++)
			ta_proto_decoder_feed(&d, s + i, 1);
		ta_proto_decoder_finish(&d);
		same_records(&whole, &bytes, "one byte at a time");
		ta_records_clear(&bytes);
	}

	/* What the tool does with them. */
	ta_gpu_info h200;
	bool have = ta_gpu_preset("h200", &h200);
	FUZZ_CHECK(have, "no h200 preset");
	const char *names[] = { "add_kernel", "matmul_kernel", "softmax_kernel", "_attn_fwd" };
	bool tuned[] = { false, true, false, true };
	ta_measurement *m1 = ta_measure_build(&whole, NULL, NULL, 0, NULL);
	ta_measurement *m2 = ta_measure_build(&whole, names, tuned, 4, &h200);
	print_all(m1, NULL);
	print_all(m2, &h200);
	print_deep(&whole, NULL, 0, m1);
	print_deep(&whole, names, 4, m2);
	ta_kernel_comparison *cmp = NULL;
	size_t nc = ta_measure_compare(m1, m2, &cmp);
	FUZZ_CHECK(nc == 0 || cmp != NULL, "comparison");
	free(cmp);
	ta_measurement_free(m1);
	ta_measurement_free(m2);
	ta_records_clear(&whole);
	return 0;
}
