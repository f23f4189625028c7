/* The checklist's detectors over the rule cases of tests/entries/ID.md (each
 * case with no edit, extracted as a file): each states, in comments, the
 * statuses it expects and marks the lines where findings must be (see
 * tests/entries/README.md). Plus the profile-backed
 * entries with a hand-made evidence structure, and the walk order. */
#include "config.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cmocka.h>

#include "analyze/analysis.h"
#include "checklist/rules.h"
#include "util/buf.h"

/* The cases of tests/entries/ID.md as files (tests/entries/README.md): make
 * check writes them and passes the folder as TA_CASES. */
static const char *cases_dir(void)
{
	const char *c = getenv("TA_CASES");
	return c && *c ? c : TA_BUILD_BUILDDIR "/tests/entry-cases";
}

static const char *fixture_dir(void)
{
	static char dir[4096];
	snprintf(dir, sizeof dir, "%s/rules", cases_dir());
	return dir;
}

static int status_parse(const char *s)
{
	static const char *const names[] = { "n/a", "satisfied", "applies", "needs-profile", "needs-baseline" };
	for (int i = 0; i < 5; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static bool id_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* True when line text carries the marker @id (with `as_note`, @id:note). */
static bool marked_as(const char *line, size_t len, const char *id, bool as_note)
{
	const char *hash = NULL;
	for (size_t i = 0; i + 2 < len; i++)
		if (line[i] == '#' && line[i + 1] == ' ' && line[i + 2] == '@')
			hash = line + i;
	if (!hash)
		return false;
	size_t n = strlen(id);
	for (const char *p = hash; p < line + len; p++)
		if (*p == '@' && (size_t)(line + len - p - 1) >= n && !memcmp(p + 1, id, n) &&
		    (p + 1 + n == line + len || !id_char(p[1 + n])) &&
		    (!as_note || ((size_t)(line + len - p - 1 - n) >= 5 && !memcmp(p + 1 + n, ":note", 5))))
			return true;
	return false;
}

static bool marked(const char *line, size_t len, const char *id)
{
	return marked_as(line, len, id, false);
}

static int kernel_named(const ta_model *m, const char *name)
{
	if (!name) {
		/* the first kernel the file launches, else the first one */
		for (size_t i = 0; i < m->kernel_count; i++)
			if (m->kernels[i].launch_count > 0)
				return (int)i;
		return m->kernel_count ? 0 : -1;
	}
	return ta_model_find_kernel(m, name);
}

static void check_fixture(void **state)
{
	const char *path = *state;
	ta_analysis *a;
	char *err = NULL;
	if (ta_analysis_open(path, &a, &err) != 0)
		fail_msg("%s", err);
	ta_rules_result *r = ta_rules_run(a->model, NULL);
	const ta_source *src = a->src;
	int failures = 0;
	for (size_t l = 1; l <= src->line_count; l++) {
		size_t len;
		const char *s = ta_source_line(src, l, &len);
		char line[512];
		snprintf(line, sizeof line, "%.*s", (int)(len < 511 ? len : 511), s);
		char id[8], st[32], kname[128];
		int n;
		if ((n = sscanf(line, "# expect: %7s %31s %127s", id, st, kname)) >= 2) {
			int e = ta_rules_index(id), want = status_parse(st);
			int k = kernel_named(a->model, n == 3 ? kname : NULL);
			if (e < 0 || want < 0 || k < 0) {
				print_error("%s:%zu: bad expect line (id, status or kernel)\n", path, l);
				failures++;
				continue;
			}
			bool notes_marked = false;
			for (size_t ml = 1; ml <= src->line_count && !notes_marked; ml++) {
				size_t mlen;
				const char *mt = ta_source_line(src, ml, &mlen);
				notes_marked = marked_as(mt, mlen, id, true);
			}
			ta_status got = ta_rules_status(r, k, (size_t)e);
			if ((int)got != want) {
				print_error("%s:%zu: %s for %s: expected %s, got %s\n", path, l, id,
					    a->model->kernels[k].name, st, ta_status_name(got));
				failures++;
			}
			/* Reported findings of id sit exactly on the marked lines (a
			 * needs-profile entry's sites wait for a measurement). */
			for (size_t f = 0; f < r->finding_count; f++) {
				const ta_finding *fd = &r->findings[f];
				if (strcmp(fd->id, id) || !ta_rules_reported(r, fd))
					continue;
				size_t fl;
				const char *ft = ta_source_line(src, fd->span.line, &fl);
				if (!marked(ft, fl, id)) {
					print_error("%s:%u: unexpected %s finding: %s\n", path, fd->span.line, id, fd->reason);
					failures++;
				} else if (notes_marked && marked_as(ft, fl, id, true) != ((fd->tags & TA_TAG_NOTE) != 0)) {
					/* a file that marks notes (@ID:note) marks every one */
					print_error("%s:%u: %s finding should %sbe a note: %s\n", path, fd->span.line, id,
						    marked_as(ft, fl, id, true) ? "" : "not ", fd->reason);
					failures++;
				}
			}
			for (size_t ml = 1; ml <= src->line_count; ml++) {
				size_t mlen;
				const char *mt = ta_source_line(src, ml, &mlen);
				if (!marked(mt, mlen, id))
					continue;
				bool seen = false;
				for (size_t f = 0; f < r->finding_count && !seen; f++)
					seen = !strcmp(r->findings[f].id, id) && r->findings[f].span.line == ml;
				if (!seen) {
					print_error("%s:%zu: expected a %s finding here\n", path, ml, id);
					failures++;
				}
			}
		} else if (!strncmp(line, "# only-applies: ", 16)) {
			const char *allowed = line + 16;
			for (size_t f = 0; f < r->finding_count; f++) {
				const char *fid = r->findings[f].id;
				if (!ta_rules_reported(r, &r->findings[f]))
					continue;
				bool ok = false;
				const char *p = allowed;
				while (*p && !ok) {
					size_t w = strcspn(p, ",");
					ok = strlen(fid) == w && !strncmp(p, fid, w);
					p += w + (p[w] == ',');
				}
				if (!ok) {
					print_error("%s:%u: %s applies but the fixture allows only %s: %s\n", path,
						    r->findings[f].span.line, fid, allowed, r->findings[f].reason);
					failures++;
				}
			}
		}
	}
	ta_rules_result_free(r);
	ta_analysis_free(a);
	if (failures)
		fail_msg("%d expectation(s) not met in %s", failures, path);
}

/* ---- profile-backed entries -------------------------------------------------- */

static const char attention_src[] =
	"import triton\nimport triton.language as tl\n\n"
	"@triton.jit\n"
	"def attn(q_desc, k_desc, v_desc, o_desc, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):\n"
	"    q = q_desc.load([0, 0])\n"
	"    m_i = tl.zeros([BLOCK_M], dtype=tl.float32)\n"
	"    acc = tl.zeros([BLOCK_M, 64], dtype=tl.float32)\n"
	"    for start in tl.static_range(0, 4):\n"
	"        k = k_desc.load([start, 0])\n"
	"        qk = tl.dot(q, k.T)\n"
	"        m_ij = tl.maximum(m_i, tl.max(qk, 1))\n"
	"        p = tl.exp2(qk - m_ij[:, None])\n"
	"        acc = acc * tl.exp2(m_i - m_ij)[:, None]\n"
	"        acc = tl.dot(p.to(tl.float16), v_desc.load([start, 0]), acc)\n"
	"        m_i = m_ij\n"
	"    o_desc.store([0, 0], acc)\n\n"
	"def run(q, k, v, o):\n"
	"    attn[(1024, 1)](q, k, v, o, 64, BLOCK_M=64, BLOCK_N=64)\n";

static ta_rules_result *run_with(const char *text, const ta_evidence *ev, ta_analysis **out)
{
	char *err = NULL;
	assert_int_equal(ta_analysis_from_bytes("mem.py", text, strlen(text), out, &err), 0);
	return ta_rules_run((*out)->model, ev);
}

static ta_status status_of(const ta_rules_result *r, const char *id)
{
	return ta_rules_status(r, 0, (size_t)ta_rules_index(id));
}

/* An untuned copy launched with a fixed block: P1 applies either way; with
 * a profile of short launches its evidence says what tuning costs per call. */
static const char short_copy_src[] =
	"import triton\nimport triton.language as tl\n\n"
	"@triton.jit\n"
	"def copy_kernel(dst, src, n, BLOCK: tl.constexpr):\n"
	"    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
	"    tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)\n\n"
	"def copy(dst, src, n):\n"
	"    copy_kernel[(triton.cdiv(n, 1024),)](dst, src, n, BLOCK=1024, num_warps=4)\n";

static const char *p1_measure(const ta_rules_result *r)
{
	for (size_t i = 0; i < r->finding_count; i++)
		if (!strcmp(r->findings[i].id, "P1"))
			return r->findings[i].measure;
	return NULL;
}

static void test_p1_short_launches(void **state)
{
	(void)state;
	ta_kernel_evidence ke = { .name = "copy_kernel", .launches = 800, .median_ns = 5300,
				  .grid = { 1536, 1, 1 }, .block = { 128, 1, 1 }, .registers = 16 };
	ta_evidence ev = { .device = "test", .sm_count = 132, .kernels = &ke, .kernel_count = 1 };
	ta_analysis *a;
	ta_rules_result *r = run_with(short_copy_src, &ev, &a);
	assert_int_equal(status_of(r, "P1"), TA_STATUS_APPLIES);
	assert_non_null(p1_measure(r));
	assert_non_null(strstr(p1_measure(r), "each launch runs 5.3 µs on the GPU"));
	ta_rules_result_free(r);
	ta_analysis_free(a);
	/* A long kernel: no such note. */
	ke.median_ns = 400000;
	r = run_with(short_copy_src, &ev, &a);
	assert_int_equal(status_of(r, "P1"), TA_STATUS_APPLIES);
	assert_null(p1_measure(r));
	ta_rules_result_free(r);
	ta_analysis_free(a);
}

/* Rows gathered through a loaded index: TMA gathers rows on Blackwell only,
 * so read for Hopper (no profile, or an H200's) the finding is a note with
 * nothing to change; on a B200's profile it is a finding to act on. */
/* rows gathered in a loop over the embedding's columns: on Blackwell a
 * descriptor gather is the fast form (a warning), on Hopper the raw access
 * is (a note); a kernel with no loop would make it a note on every GPU */
static const char gather_src[] =
	"import triton\nimport triton.language as tl\n\n"
	"@triton.jit\n"
	"def embed(ids_ptr, emb_ptr, out_ptr, D, BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):\n"
	"    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)\n"
	"    d = tl.arange(0, BLOCK_D)\n"
	"    ids = tl.load(ids_ptr + r)\n"
	"    for k in range(0, D, BLOCK_D):\n"
	"        x = tl.load(emb_ptr + ids[:, None] * D + (k + d)[None, :])\n"
	"        tl.store(out_ptr + r[:, None] * D + (k + d)[None, :], x)\n";

static const ta_finding *gather_finding(const ta_rules_result *r)
{
	for (size_t i = 0; i < r->finding_count; i++)
		if (!strcmp(r->findings[i].id, "S1") && strstr(r->findings[i].reason, "gathered"))
			return &r->findings[i];
	return NULL;
}

static void test_s1_gather_by_gpu(void **state)
{
	(void)state;
	static const char *const devices[] = { NULL, "NVIDIA H200", "NVIDIA B200" };
	for (int i = 0; i < 3; i++) {
		ta_kernel_evidence ke = { .name = "embed", .launches = 10, .median_ns = 50000 };
		ta_evidence ev = { .device = devices[i], .sm_count = 132, .kernels = &ke, .kernel_count = 1 };
		ta_analysis *a;
		ta_rules_result *r = run_with(gather_src, devices[i] ? &ev : NULL, &a);
		const ta_finding *f = gather_finding(r);
		assert_non_null(f);
		bool blackwell = i == 2;
		assert_int_equal((f->tags & TA_TAG_NOTE) != 0, !blackwell);
		assert_int_equal(strstr(f->reason, "on Hopper this raw access is the form to keep") != NULL, !blackwell);
		ta_rules_result_free(r);
		ta_analysis_free(a);
	}
}

static void test_without_profile(void **state)
{
	(void)state;
	ta_analysis *a;
	ta_rules_result *r = run_with(attention_src, NULL, &a);
	assert_int_equal(status_of(r, "T1"), TA_STATUS_APPLIES);
	assert_int_equal(status_of(r, "T4"), TA_STATUS_NEEDS_BASELINE);
	assert_int_equal(status_of(r, "T5"), TA_STATUS_NEEDS_BASELINE);
	assert_int_equal(status_of(r, "P7"), TA_STATUS_NEEDS_PROFILE);
	assert_int_equal(status_of(r, "D1"), TA_STATUS_NEEDS_PROFILE);
	ta_rules_result_free(r);
	ta_analysis_free(a);
}

static void test_with_profile(void **state)
{
	(void)state;
	ta_kernel_evidence ke = { .name = "attn", .launches = 100, .median_ns = 2000, .grid = { 4096, 1, 1 },
				  .block = { 128, 1, 1 }, .registers = 255, .local_bytes = 64, .occupancy = 0.25,
				  .occupancy_limiter = "registers", .waves = 7.8, .baseline_ratio = 12.0 };
	ta_evidence ev = { .device = "test", .sm_count = 132, .has_baseline = true, .kernels = &ke, .kernel_count = 1 };
	ta_analysis *a;
	ta_rules_result *r = run_with(attention_src, &ev, &a);
	assert_int_equal(status_of(r, "T4"), TA_STATUS_APPLIES);
	assert_int_equal(status_of(r, "T5"), TA_STATUS_APPLIES);
	assert_int_equal(status_of(r, "P7"), TA_STATUS_APPLIES);
	assert_int_equal(status_of(r, "D1"), TA_STATUS_APPLIES);
	bool measured = false;
	for (size_t i = 0; i < r->finding_count; i++)
		if (!strcmp(r->findings[i].id, "D1"))
			measured = r->findings[i].measure != NULL;
	assert_true(measured);
	/* T5 opens S1, S2 and P1 first, T1 section 4 next. */
	const char *order[64];
	size_t n = ta_rules_walk_order(r, 0, order);
	assert_int_equal(n, ta_rules_count());
	assert_string_equal(order[5], "S1");
	assert_string_equal(order[6], "S2");
	assert_string_equal(order[7], "P1");
	assert_string_equal(order[8], "G1");
	ta_rules_result_free(r);
	ta_analysis_free(a);

	/* Within 20% of the baseline, no spills: satisfied. */
	ke.baseline_ratio = 1.1;
	ke.local_bytes = 0;
	ke.registers = 128;
	ke.grid[0] = 132;
	ke.waves = 1;
	r = run_with(attention_src, &ev, &a);
	assert_int_equal(status_of(r, "T4"), TA_STATUS_SATISFIED);
	assert_int_equal(status_of(r, "T5"), TA_STATUS_SATISFIED);
	assert_int_equal(status_of(r, "P7"), TA_STATUS_SATISFIED);
	assert_int_equal(status_of(r, "D1"), TA_STATUS_SATISFIED);
	ta_rules_result_free(r);
	ta_analysis_free(a);

	/* 200 registers or more without local memory: D1, and its sentence
	 * says there is no spill yet (issue 30: "spills (0 bytes ...)"). */
	ke.registers = 232;
	r = run_with(attention_src, &ev, &a);
	assert_int_equal(status_of(r, "D1"), TA_STATUS_APPLIES);
	const ta_finding *d1 = ta_rules_find(r, "D1", 0, 0);
	assert_non_null(d1);
	assert_null(strstr(d1->reason, "spills"));
	assert_non_null(strstr(d1->reason, "holds 232 registers per thread"));
	assert_non_null(strstr(d1->reason, "no local memory yet"));
	ta_rules_result_free(r);
	ta_analysis_free(a);
}

static void test_walk_order_default(void **state)
{
	(void)state;
	ta_analysis *a;
	ta_rules_result *r = run_with("import triton\n@triton.jit\ndef k(x):\n    pass\n", NULL, &a);
	const char *order[64];
	size_t n = ta_rules_walk_order(r, 0, order);
	assert_int_equal(n, ta_rules_count());
	for (size_t i = 0; i < n; i++)
		assert_string_equal(order[i], ta_rules_id(i));
	ta_rules_result_free(r);
	ta_analysis_free(a);
}

static void test_parse_ids(void **state)
{
	(void)state;
	bool on[64] = { false };
	char *err = NULL;
	assert_int_equal(ta_rules_parse_ids("s1, P3,D15", on, &err), 0);
	assert_true(on[ta_rules_index("S1")] && on[ta_rules_index("P3")] && on[ta_rules_index("D15")]);
	assert_false(on[ta_rules_index("S2")]);
	assert_int_equal(ta_rules_parse_ids("S1,Z9", on, &err), -1);
	assert_non_null(strstr(err, "Z9"));
	free(err);
	assert_int_equal(ta_rules_count(), 48);
	assert_string_equal(ta_rules_served_by((size_t)ta_rules_index("G4")), "S3");
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

int main(void)
{
	const char *dir = fixture_dir();
	DIR *d = opendir(dir);
	if (!d) {
		printf("1..0 # SKIP no fixtures at %s\n", dir);
		return 77;
	}
	char **paths = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len > 3 && !strcmp(e->d_name + len - 3, ".py")) {
			paths = realloc(paths, (n + 1) * sizeof *paths);
			paths[n++] = ta_xasprintf("%s/%s", dir, e->d_name);
		}
	}
	closedir(d);
	qsort(paths, n, sizeof *paths, cmp_str);
	struct CMUnitTest *tests = calloc(n + 6, sizeof *tests);
	for (size_t i = 0; i < n; i++) {
		tests[i].name = strrchr(paths[i], '/') + 1;
		tests[i].test_func = check_fixture;
		tests[i].initial_state = paths[i];
	}
	tests[n] = (struct CMUnitTest)cmocka_unit_test(test_without_profile);
	tests[n + 1] = (struct CMUnitTest)cmocka_unit_test(test_with_profile);
	tests[n + 2] = (struct CMUnitTest)cmocka_unit_test(test_walk_order_default);
	tests[n + 3] = (struct CMUnitTest)cmocka_unit_test(test_parse_ids);
	tests[n + 4] = (struct CMUnitTest)cmocka_unit_test(test_p1_short_launches);
	tests[n + 5] = (struct CMUnitTest)cmocka_unit_test(test_s1_gather_by_gpu);
	int rc = _cmocka_run_group_tests("rules", tests, n + 6, NULL, NULL);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	free(tests);
	ta_model_shutdown();
	return rc;
}
