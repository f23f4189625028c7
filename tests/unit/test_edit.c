/* The edit engine: the diff of an edit, careful apply and undo/redo, the
 * refusals, injected write failures, a full tmpfs, and a process killed at
 * random points while applying (the file is always old or new, whole). */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/diff.h"
#include "advise/edit.h"
#include "advise/journal.h"
#include "analyze/analysis.h"
#include "advise/edit_cmd.h"
#include "util/buf.h"
#include "util/fsutil.h"

/* The cases of tests/entries/ID.md as files (tests/entries/README.md): make
 * check writes them and passes the folder as TA_CASES. */
static const char *cases_dir(void)
{
	const char *c = getenv("TA_CASES");
	return c && *c ? c : TA_BUILD_BUILDDIR "/tests/entry-cases";
}

/* NAME.before.py, NAME.after.py: a case with an edit; preconditions/NAME:
 * tests/fixtures/edits/preconditions; else a case with no edit. */
static char *fixture(const char *name, size_t *len)
{
	const char *root = getenv("TA_SRCDIR");
	char *p;
	if (!strncmp(name, "preconditions/", 14))
		p = ta_xasprintf("%s/tests/fixtures/edits/%s", root ? root : TA_BUILD_SRCDIR, name);
	else if (strstr(name, ".before.py") || strstr(name, ".after.py"))
		p = ta_xasprintf("%s/edits/%s", cases_dir(), name);
	else
		p = ta_xasprintf("%s/rules/%s", cases_dir(), name);
	char *data, *err;
	if (ta_read_file(p, 1 << 20, &data, len, &err) != 0)
		fail_msg("%s: %s", p, err);
	free(p);
	return data;
}

static void write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static bool file_is(const char *path, const char *data, size_t len)
{
	char *d, *err;
	size_t n;
	if (ta_read_file(path, 1 << 20, &d, &n, &err) != 0) {
		free(err);
		return false;
	}
	bool same = n == len && !memcmp(d, data, n);
	free(d);
	return same;
}

static char *tmpdir_new(void)
{
	const char *t = getenv("TMPDIR");
	char *p = ta_xasprintf("%s/ta-edit-XXXXXX", t && *t ? t : "/tmp");
	assert_non_null(mkdtemp(p));
	return p;
}

static void rm_rf(const char *p)
{
	char *cmd = ta_xasprintf("rm -rf '%s'", p);
	if (system(cmd) != 0)
		fprintf(stderr, "# could not remove %s\n", p);
	free(cmd);
}

/* ---- diff ------------------------------------------------------------- */

static void test_diff_hunks(void **state)
{
	(void)state;
	const char *old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n";
	ta_edit e;
	ta_edit_init(&e, "T1", false);
	/* line 2 -> "two"; line 9 -> "nine" (7 lines apart: merged hunk);
	 * insertion before line 19 (separate hunk). */
	assert_int_equal(ta_edit_replace(&e, 2, 3, "two"), 0);
	const char *p9 = strstr(old, "\n9\n") + 1;
	assert_int_equal(ta_edit_replace(&e, (uint32_t)(p9 - old), (uint32_t)(p9 - old + 1), "nine"), 0);
	const char *p19 = strstr(old, "\n19\n") + 1;
	assert_int_equal(ta_edit_replace(&e, (uint32_t)(p19 - old), (uint32_t)(p19 - old), "new\n"), 0);
	/* overlapping ranges are refused */
	assert_int_equal(ta_edit_replace(&e, 2, 4, "x"), -1);
	char *d = ta_edit_diff(&e, "f.py", old, strlen(old));
	assert_string_equal(d,
		"--- a/f.py\n+++ b/f.py\n"
		"@@ -1,12 +1,12 @@\n 1\n-2\n+two\n 3\n 4\n 5\n 6\n 7\n 8\n-9\n+nine\n 10\n 11\n 12\n"
		"@@ -16,5 +16,6 @@\n 16\n 17\n 18\n+new\n 19\n 20\n");
	free(d);
	ta_edit_clear(&e);
}

static void test_diff_no_newline_crlf(void **state)
{
	(void)state;
	const char *old = "a\r\nb\r\nc";
	ta_edit e;
	ta_edit_init(&e, "T2", true);
	assert_int_equal(ta_edit_replace(&e, 6, 7, "C\nD"), 0);
	assert_string_equal(e.repls[0].text, "C\r\nD");
	char *d = ta_edit_diff(&e, "w.py", old, strlen(old));
	assert_string_equal(d,
		"--- a/w.py\n+++ b/w.py\n@@ -1,3 +1,4 @@\n a\r\n b\r\n-c\n\\ No newline at end of file\n"
		"+C\r\n+D\n\\ No newline at end of file\n");
	free(d);
	/* A deleted whole line shows as one '-' line. */
	ta_edit_clear(&e);
	assert_int_equal(ta_edit_replace(&e, 3, 6, ""), 0);
	d = ta_edit_diff(&e, "w.py", old, strlen(old));
	assert_string_equal(d, "--- a/w.py\n+++ b/w.py\n@@ -1,3 +1,2 @@\n a\r\n-b\r\n c\n\\ No newline at end of file\n");
	free(d);
	ta_edit_clear(&e);
}

/* Two whole texts that differ in two far-apart lines and one line moved:
 * a line diff shows those lines only, the equal lines between them as
 * context (a prefix/suffix cut showed every line from the first change to
 * the last as removed and added). */
static void test_diff_texts_minimal(void **state)
{
	(void)state;
	ta_buf a = TA_BUF_INIT, b = TA_BUF_INIT;
	for (int i = 1; i <= 40; i++) {
		ta_buf_printf(&a, "line %d\n", i);
		if (i == 5)
			ta_buf_puts(&b, "line five\n");
		else if (i == 30)
			ta_buf_puts(&b, "inserted\nline 30\n");
		else
			ta_buf_printf(&b, "line %d\n", i);
	}
	char *d = ta_edit_diff_texts("f.py", ta_buf_str(&a), a.len, ta_buf_str(&b), b.len);
	assert_string_equal(d,
		"--- a/f.py\n+++ b/f.py\n"
		"@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+line five\n line 6\n line 7\n line 8\n"
		"@@ -27,6 +27,7 @@\n line 27\n line 28\n line 29\n+inserted\n line 30\n line 31\n line 32\n");
	free(d);
	/* equal texts: nothing */
	d = ta_edit_diff_texts("f.py", ta_buf_str(&a), a.len, ta_buf_str(&a), a.len);
	assert_string_equal(d, "");
	free(d);
	/* every line different: one block of removals then additions */
	d = ta_edit_diff_texts("f.py", "a\nb\n", 4, "c\nd\n", 4);
	assert_string_equal(d, "--- a/f.py\n+++ b/f.py\n@@ -1,2 +1,2 @@\n-a\n-b\n+c\n+d\n");
	free(d);
	ta_buf_free(&a);
	ta_buf_free(&b);
}

static void test_spec(void **state)
{
	(void)state;
	char id[8];
	uint32_t line;
	assert_int_equal(ta_edit_parse_spec("d12:37", id, &line), 0);
	assert_string_equal(id, "D12");
	assert_int_equal(line, 37);
	assert_int_equal(ta_edit_parse_spec("S3", id, &line), 0);
	assert_int_equal(line, 0);
	assert_int_equal(ta_edit_parse_spec("S3:", id, &line), -1);
	assert_int_equal(ta_edit_parse_spec("S3:0", id, &line), -1);
	assert_int_equal(ta_edit_parse_spec(":3", id, &line), -1);
	assert_int_equal(ta_edit_parse_spec("S3:4x", id, &line), -1);
}

/* What --apply ID makes: the first reported finding of id whose rewrite
 * yields an edit (the same contract as ta_rewrite_first). */
static int make_first(const ta_model *m, const char *id, ta_edit *e, char **why)
{
	ta_rules_result *r = ta_rules_run(m, NULL);
	const ta_finding *at;
	int rc = ta_rewrite_first(m, r, id, 0, true, e, &at, why);
	ta_rules_result_free(r);
	return rc;
}

static void test_guided(void **state)
{
	(void)state;
	size_t len;
	char *src = fixture("s3_carried.py", &len);
	ta_analysis *a;
	char *err;
	assert_int_equal(ta_analysis_from_bytes("s3_carried.py", src, len, &a, &err), 0);
	ta_edit e;
	char *why = NULL;
	/* The accumulator is carried across iterations: S3 does not apply, and
	 * no edit is made for a site --check does not report. */
	assert_int_equal(make_first(a->model, "S3", &e, &why), -2);
	assert_non_null(strstr(why, "S3 does not apply to this file"));
	free(why);
	const char *names[] = { "mm_kernel" };
	assert_int_equal(ta_rewrite_guided(a->model, "D2", 12, names, 1, &e, &err), 0);
	char *d = ta_edit_diff(&e, "s3_carried.py", a->src->text, a->src->len);
	assert_non_null(strstr(d, "+        # tileadvise [D2]: tl.dot on 16-wide tiles in mm_kernel:"));
	free(d);
	ta_edit_clear(&e);
	ta_analysis_free(a);
	free(src);
}

/* D1 waits for a profile: --check lists nothing without one, so --apply
 * refuses with a sentence saying so, while the advisor (which has the
 * profile) makes the edit at the finding: d1.after.py's bytes. */
static void test_profile_edit(void **state)
{
	(void)state;
	size_t len, after_len;
	char *src = fixture("d1.before.py", &len), *after = fixture("d1.after.py", &after_len);
	ta_analysis *a;
	char *err, *why = NULL;
	assert_int_equal(ta_analysis_from_bytes("d1.py", src, len, &a, &err), 0);
	ta_edit e;
	assert_int_equal(make_first(a->model, "D1", &e, &why), -1);
	assert_non_null(strstr(why, "line 9: D1 needs a profile to tell whether it applies to unroll_kernel, so "
				    "--check does not offer it and --apply does not make it"));
	assert_null(strchr(why, '\n'));
	free(why);
	why = NULL;
	ta_rules_result *r = ta_rules_run(a->model, NULL);
	const ta_finding *f = ta_rules_find(r, "D1", 0, 0);
	assert_non_null(f);
	assert_false(ta_rules_reported(r, f));
	assert_int_equal(ta_rewrite_at(a->model, f, &e, &why), 0);
	/* nothing declared: the advisor's edit states the version it needs */
	assert_non_null(e.unsafe);
	assert_non_null(strstr(e.unsafe, "Triton 3.2 or newer (tl.range's loop_unroll_factor)"));
	char *out;
	size_t out_len;
	assert_int_equal(ta_edit_apply_text(&e, src, len, &out, &out_len, &err), 0);
	assert_int_equal(out_len, after_len);
	assert_memory_equal(out, after, after_len);
	free(out);
	ta_edit_clear(&e);
	ta_rules_result_free(r);
	ta_analysis_free(a);
	free(src);
	free(after);
	/* the true case beside the traps of tests/fixtures/edits/preconditions:
	 * the index only moves an address, so the advisor still makes it */
	src = fixture("preconditions/d1_index_arith.py", &len);
	assert_int_equal(ta_analysis_from_bytes("d1_index_arith.py", src, len, &a, &err), 0);
	r = ta_rules_run(a->model, NULL);
	f = ta_rules_find(r, "D1", 0, 0);
	assert_non_null(f);
	assert_int_equal(ta_rewrite_at(a->model, f, &e, &why), 0);
	char *d = ta_edit_diff(&e, "d1_index_arith.py", a->src->text, a->src->len);
	assert_non_null(strstr(d, "+    for i in tl.range(N_STEPS, loop_unroll_factor=1):\n"));
	free(d);
	ta_edit_clear(&e);
	ta_rules_result_free(r);
	ta_analysis_free(a);
	free(src);
}

/* Generators that refuse name the precondition that failed. */
static void expect_result(const char *name, const char *src, const char *id, int rc, const char *why_part)
{
	ta_analysis *a;
	char *err, *why = NULL;
	assert_int_equal(ta_analysis_from_bytes(name, src, strlen(src), &a, &err), 0);
	ta_edit e;
	int got = make_first(a->model, id, &e, &why);
	if (got != rc)
		fail_msg("%s %s: rc %d, '%s'", name, id, got, why ? why : "");
	if (!strstr(why, why_part))
		fail_msg("%s: '%s' does not say '%s'", id, why, why_part);
	assert_null(strchr(why, '\n'));
	free(why);
	ta_analysis_free(a);
}

/* -1: a site whose precondition fails, with the reason. */
static void expect_refusal(const char *name, const char *src, const char *id, const char *why_part)
{
	expect_result(name, src, id, -1, why_part);
}

static void test_new_refusals(void **state)
{
	(void)state;
	/* P2: a loop that does not start at 0 (split-K) keeps its masks. */
	expect_refusal("p2.py",
		"import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
		"def k(a_ptr, o_ptr, K, S, BLOCK_K: tl.constexpr):\n"
		"    acc = tl.zeros([BLOCK_K], dtype=tl.float32)\n"
		"    for k0 in range(tl.program_id(0) * BLOCK_K, K, BLOCK_K * S):\n"
		"        offs = k0 + tl.arange(0, BLOCK_K)\n"
		"        acc += tl.load(a_ptr + offs, mask=offs < K)\n"
		"    tl.store(o_ptr + tl.arange(0, BLOCK_K), acc)\n",
		"P2", "does not start at 0");
	/* P2: a mask term mixing K with another size. */
	expect_refusal("p2m.py",
		"import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
		"def k(a_ptr, o_ptr, M, K, BLOCK_K: tl.constexpr):\n"
		"    acc = tl.zeros([BLOCK_K], dtype=tl.float32)\n"
		"    for k0 in range(0, K, BLOCK_K):\n"
		"        offs = k0 + tl.arange(0, BLOCK_K)\n"
		"        acc += tl.load(a_ptr + offs, mask=offs < M * K)\n"
		"    tl.store(o_ptr + tl.arange(0, BLOCK_K), acc)\n",
		"P2", "mixes K (the loop bound) with another dimension");
	/* D14: the configs come from the host function's own argument. */
	expect_refusal("d14.py",
		"import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
		"def k(x_ptr, n, BLOCK: tl.constexpr):\n"
		"    tl.store(x_ptr + tl.arange(0, BLOCK), 0.0)\n\n\n"
		"def run(x, configs):\n"
		"    kk = triton.autotune(configs=configs, key=[\"n\"])(k)\n"
		"    kk[(1,)](x, x.numel())\n",
		"D14", "`configs` is not a module-level name");
	/* S6: no launch in the file, so nowhere to set the flag. */
	expect_refusal("s6.py",
		"import triton\nimport triton.language as tl\nfrom triton.language.extra import libdevice\n\n\n"
		"@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n"
		"    for i in range(n):\n"
		"        x = libdevice.tanh(tl.load(x_ptr + i + tl.arange(0, BLOCK)))\n"
		"        tl.store(x_ptr + i + tl.arange(0, BLOCK), x)\n",
		"S6", "nowhere to set FAST_TANH");
	/* D15: the CPU tensor is filled before the copy. */
	expect_refusal("d15.py",
		"import torch\nimport triton\nimport triton.language as tl\n\n\n@triton.jit\n"
		"def k(x_ptr, s_ptr, BLOCK: tl.constexpr):\n"
		"    tl.store(x_ptr + tl.arange(0, BLOCK), tl.load(s_ptr + tl.arange(0, BLOCK)))\n\n\n"
		"def run(x):\n"
		"    s = torch.empty(8)\n"
		"    s.fill_(2.0)\n"
		"    s = s.to(x.device)\n"
		"    k[(1,)](x, s, BLOCK=8)\n",
		"D15", "used on the CPU before the copy");
}

/* P1, P5, P6: a failed precondition gives -1 and a reason, and the walk
 * falls back to the guided template. */
static void test_tuning_refusals(void **state)
{
	(void)state;
	/* P1: only a tile fixed at the launch, no autotune, and the grid divides
	 * by the same literal: which number is the tile is not known. */
	expect_refusal("p1.py",
		"import torch\nimport triton\nimport triton.language as tl\n\n\n@triton.jit\n"
		"def k(x_ptr, n, BLOCK: tl.constexpr):\n"
		"    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
		"    tl.store(x_ptr + offs, 0.0, mask=offs < n)\n\n\n"
		"def run(x):\n"
		"    k[(triton.cdiv(x.numel(), 256),)](x, x.numel(), BLOCK=256)\n",
		"P1", "holds the literal 256");
	/* P1: a persistent kernel whose configs have no occupancy. */
	expect_refusal("p1p.py",
		"import torch\nimport triton\nimport triton.language as tl\n\n\n"
		"@triton.autotune(configs=[triton.Config({\"BLOCK\": 128}, num_warps=4)], key=[\"n\"])\n"
		"@triton.jit\ndef k(x_ptr, n, NUM_SMS: tl.constexpr, BLOCK: tl.constexpr):\n"
		"    start = tl.program_id(0)\n"
		"    for t in tl.range(start, tl.cdiv(n, BLOCK), NUM_SMS):\n"
		"        offs = t * BLOCK + tl.arange(0, BLOCK)\n"
		"        tl.store(x_ptr + offs, 0.0, mask=offs < n)\n",
		"P1", "persistent k: occupancy");
	/* P5: the descriptor comes from the host, its box cannot follow the flag. */
	expect_refusal("p5.py",
		"import triton\nimport triton.language as tl\n\n\n"
		"@triton.autotune(configs=[triton.Config({\"BLOCK_M\": 128, \"BLOCK_N\": 256})], key=[\"M\"])\n"
		"@triton.jit\ndef k(c_desc, M, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):\n"
		"    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)\n"
		"    acc = tl.dot(tl.zeros((BLOCK_M, 16), dtype=tl.float16), tl.zeros((16, BLOCK_N), dtype=tl.float16), acc)\n"
		"    c_desc.store([tl.program_id(0) * BLOCK_M, 0], acc.to(tl.float16))\n",
		"P5", "not built once in the kernel");
	/* P6: the stride table is built inside the launch, nothing to assert on. */
	expect_refusal("p6.py",
		"import torch\nimport triton\nimport triton.language as tl\n\n\n@triton.jit\n"
		"def k(x_ptr, lds, BLOCK: tl.constexpr):\n"
		"    g = tl.program_id(0)\n"
		"    ld = tl.load(lds + g)\n"
		"    tl.store(x_ptr + g * ld + tl.arange(0, BLOCK), 0.0)\n\n\n"
		"def run(x, rows):\n"
		"    k[(len(rows),)](x, torch.tensor(rows, device=x.device), BLOCK=64)\n",
		"P6", "is built inside the launch");
	/* P1 writes no CUDA capability branch for other back-ends: a ROCm
	 * folder, or a file that tests torch.version.hip. */
	const char *p1be =
		"import torch\nimport triton\nimport triton.language as tl\n\n\n@triton.jit\n"
		"def k(x_ptr, n, BLOCK: tl.constexpr):\n"
		"    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
		"    tl.store(x_ptr + offs, 0.0, mask=offs < n)\n\n\n"
		"def run(x):\n"
		"    k[(triton.cdiv(x.numel(), 256),)](x, x.numel(), BLOCK=256, num_warps=4)\n";
	/* in a back-end's own folder P1 does not apply at all (the folder is
	 * the project's split by back-end): no edit to refuse */
	expect_result("ops/rocm/p1.py", p1be, "P1", -2, "P1 does not apply to this file");
	expect_result("ops/_ascend/p1.py", p1be, "P1", -2, "P1 does not apply to this file");
	expect_refusal("p1hip.py",
		"import torch\nimport triton\nimport triton.language as tl\n\n\n@triton.jit\n"
		"def k(x_ptr, n, BLOCK: tl.constexpr):\n"
		"    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
		"    tl.store(x_ptr + offs, 0.0, mask=offs < n)\n\n\n"
		"def run(x):\n"
		"    w = 8 if torch.version.hip else 4\n"
		"    k[(triton.cdiv(x.numel(), 256),)](x, x.numel(), BLOCK=256, num_warps=w)\n",
		"P1", "line 13: the file tests torch.version.hip");
	/* P1: a load and a store through one pointer loaded from a table: what
	 * autotuning would update in place cannot be named in restore_value
	 * (a store alone there is tuned under a stated assumption). */
	expect_refusal("p1tab.py",
		"import torch\nimport triton\nimport triton.language as tl\n\n\n@triton.jit\n"
		"def k(tab_ptr, n, BLOCK: tl.constexpr):\n"
		"    offs = tl.arange(0, BLOCK)\n"
		"    p = tl.load(tab_ptr + tl.program_id(0)).to(tl.pointer_type(tl.float32))\n"
		"    tl.store(p + offs, tl.load(p + offs, mask=offs < n) * 2, mask=offs < n)\n\n\n"
		"def run(tab, n):\n"
		"    k[(tab.numel(),)](tab, n, BLOCK=256, num_warps=4)\n",
		"P1", "line 10: k reads and writes through a pointer it loads from memory");
	/* P1 keys on sizes only: never a tensor (keyed by identity) nor an
	 * argument kept from specialisation; none left, no autotune. */
	expect_refusal("p1key.py",
		"import torch\nimport triton\nimport triton.language as tl\n\n\n"
		"@triton.jit(do_not_specialize=[\"n\"])\n"
		"def k(x_ptr, lens, n, BLOCK: tl.constexpr):\n"
		"    offs = tl.arange(0, BLOCK)\n"
		"    for i in range(n):\n"
		"        tl.store(x_ptr + i * BLOCK + offs, 0.0, mask=offs < tl.load(lens + i))\n\n\n"
		"def run(x, lens):\n"
		"    k[(x.shape[0],)](x, lens, lens.numel(), BLOCK=256, num_warps=4)\n",
		"P1", "line 7: of what k reads in a mask, range or cdiv, lens is a tensor, n is in do_not_specialize");
	/* S8: the key holds the length rounded on purpose (seqlen // 32): no
	 * finding, so no edit adds the raw length. */
	expect_result("s8r.py",
		"import torch\nimport triton\nimport triton.language as tl\n\n\n"
		"@triton.autotune(configs=[triton.Config({\"BLOCK_N\": 64})], key=[\"LEN_BUCKET\"])\n"
		"@triton.jit\ndef k(x_ptr, o_ptr, SEQ_LEN, LEN_BUCKET, BLOCK_N: tl.constexpr):\n"
		"    acc = tl.zeros([BLOCK_N], dtype=tl.float32)\n"
		"    for s in range(0, SEQ_LEN, BLOCK_N):\n"
		"        offs = s + tl.arange(0, BLOCK_N)\n"
		"        acc += tl.load(x_ptr + offs, mask=offs < SEQ_LEN, other=0.0)\n"
		"    tl.store(o_ptr + tl.arange(0, BLOCK_N), acc)\n\n\n"
		"def run(x, o):\n"
		"    k[(1,)](x, o, x.numel(), x.numel() // 32)\n",
		"S8", -2, "S8 does not apply to this file");
	/* P6: a loaded row offset is neither a stride nor a pointer: no site. */
	expect_result("p6o.py",
		"import torch\nimport triton\nimport triton.language as tl\n\n\n@triton.jit\n"
		"def k(x_ptr, starts, BLOCK: tl.constexpr):\n"
		"    row = tl.load(starts + tl.program_id(0))\n"
		"    tl.store(x_ptr + row + tl.arange(0, BLOCK), 0.0)\n\n\n"
		"def run(x, starts):\n"
		"    k[(starts.numel(),)](x, starts, BLOCK=64)\n",
		"P6", -2, "P6 does not apply to this file");
}

/* P3, S1 and L1 fall back to the guided template, naming the precondition. */
static void test_layout_refusals(void **state)
{
	(void)state;
	const char *head = "import torch\nimport triton\nimport triton.language as tl\n\n\n@triton.jit\n";
	const char *s1_body =
		"def k(x_ptr, y_ptr, M, N, stride_xm, stride_xn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):\n"
		"    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)\n"
		"    offs_n = tl.arange(0, BLOCK_N)\n"
		"    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn,\n"
		"                mask=%s, other=%s)\n"
		"    tl.store(y_ptr + offs_m, tl.sum(x, 1), mask=offs_m < M)\n\n\n"
		"def run(x, y):\n"
		"    M, N = x.shape\n"
		"    k[(triton.cdiv(M, 32),)](x, y, M, N, x.stride(0), x.stride(%s), BLOCK_M=32, BLOCK_N=64)\n";
	char *src = ta_xasprintf("%s%s", head, s1_body);
	/* S1: the last stride is not known to be 1 and the launch does not say
	 * whose stride it passes, so no host assert can check it. */
	char *t = ta_xasprintf(src, "(offs_m[:, None] < M) & (offs_n[None, :] < N)", "0.0", "1");
	char *u = ta_xstrdup(t);
	char *at = strstr(u, "x.stride(1)");
	memcpy(at, "N // N     ", 11);
	expect_refusal("s1a.py", u, "S1", "does not pass stride_xn as x.stride(d)");
	/* ... or passes the strides of another tensor than the base's. */
	at = strstr(u, "N // N     ");
	memcpy(at, "y.stride(1)", 11);
	expect_refusal("s1b.py", u, "S1", "passes x for x_ptr but the strides of y");
	free(u);
	free(t);
	/* S1: a descriptor pads with zeros, not with other=. */
	t = ta_xasprintf(src, "(offs_m[:, None] < M) & (offs_n[None, :] < N)", "float(\"-inf\")", "-1");
	expect_refusal("s1c.py", t, "S1", "pads out-of-bounds elements with 0");
	free(t);
	/* S1: a mask that is more than the bounds. */
	t = ta_xasprintf(src, "(offs_m[:, None] < M) & (offs_n[None, :] < N) & (offs_n[None, :] != 3)", "0.0", "-1");
	expect_refusal("s1d.py", t, "S1", "not the bounds mask");
	free(t);
	free(src);
	/* P3: the loaded tile is also used as it is. */
	src = ta_xasprintf("%s%s", head,
		"def k(a_ptr, b_ptr, c_ptr, N, K, stride_bn, stride_bk, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):\n"
		"    offs_n = tl.arange(0, BLOCK_N)\n"
		"    acc = tl.zeros((BLOCK_N, BLOCK_N), dtype=tl.float32)\n"
		"    for k0 in range(0, K, BLOCK_K):\n"
		"        offs_k = k0 + tl.arange(0, BLOCK_K)\n"
		"        b = tl.load(b_ptr + offs_n[:, None] * stride_bn + offs_k[None, :] * stride_bk)\n"
		"        acc += tl.dot(b, tl.trans(b))\n"
		"    tl.store(c_ptr + offs_n[:, None] * BLOCK_N + offs_n[None, :], acc)\n");
	/* P3 is not reported there at all (the detector asks the same question),
	 * so there is no site to refuse. */
	expect_result("p3.py", src, "P3", -2, "P3 does not apply");
	free(src);
	/* L1: the flag is not a constexpr, so the branch is taken at run time. */
	const char *l1_body =
		"def k(x_ptr, y_ptr, n, TRANS_B%s, BLOCK: tl.constexpr):\n"
		"    offs = tl.arange(0, BLOCK)\n"
		"    for i in range(0, n, BLOCK):\n"
		"        x = tl.load(x_ptr + (i + offs)[:, None] * BLOCK + offs[None, :])\n"
		"        if TRANS_B:\n"
		"            x = tl.trans(x)\n"
		"%s"
		"        tl.store(y_ptr + (i + offs)[:, None] * BLOCK + offs[None, :], x)\n\n\n"
		"def run(x, y, t):\n"
		"    k[(1,)](x, y, x.numel(), TRANS_B=t, BLOCK=32)\n";
	src = ta_xasprintf("%s%s", head, l1_body);
	t = ta_xasprintf(src, "", "");
	expect_refusal("l1a.py", t, "L1", "TRANS_B is not a tl.constexpr");
	free(t);
	/* L1: an elif would need the two branches merged by hand. */
	t = ta_xasprintf(src, ": tl.constexpr", "        elif BLOCK > 16:\n            x = x * 2\n");
	expect_refusal("l1b.py", t, "L1", "has an elif");
	free(t);
	/* L1: the flag is read other than by a test. */
	t = ta_xasprintf(src, ": tl.constexpr", "        x = x * TRANS_B\n");
	expect_refusal("l1c.py", t, "L1", "TRANS_B is read other than by");
	free(t);
	free(src);
}

/* ---- apply / undo / redo in process ------------------------------------ */

typedef struct kfile {
	char *dir, *path;
	char *before, *after;
	size_t blen, alen;
} kfile;

static void kfile_setup(kfile *k, const char *name)
{
	k->dir = tmpdir_new();
	k->path = ta_path_join(k->dir, "k.py");
	char *b = ta_xasprintf("%s.before.py", name), *a = ta_xasprintf("%s.after.py", name);
	k->before = fixture(b, &k->blen);
	k->after = fixture(a, &k->alen);
	free(b);
	free(a);
	write_file(k->path, k->before, k->blen);
}

static void kfile_teardown(kfile *k)
{
	rm_rf(k->dir);
	free(k->dir);
	free(k->path);
	free(k->before);
	free(k->after);
}

/* Opens, makes id's edit and applies it; returns ta_edit_apply's result. */
static int apply_once(const char *path, const char *id, char **msg)
{
	ta_analysis *a;
	char *err, *why = NULL;
	if (ta_analysis_open(path, &a, &err) != 0) {
		*msg = err;
		return -1;
	}
	ta_edit e;
	int rc = make_first(a->model, id, &e, &why);
	if (rc == 0)
		rc = ta_edit_apply(a->src, a->syn, &e, msg);
	else
		*msg = why;
	ta_edit_clear(&e);
	ta_analysis_free(a);
	return rc;
}

static void test_apply_undo_redo(void **state)
{
	(void)state;
	kfile k;
	kfile_setup(&k, "s3");
	chmod(k.path, 0604);
	char *msg;
	assert_int_equal(apply_once(k.path, "S3", &msg), 0);
	free(msg);
	assert_true(file_is(k.path, k.after, k.alen));
	struct stat st;
	assert_int_equal(stat(k.path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0604);
	char *d;
	assert_int_equal(ta_edit_undo(k.path, &d, &msg), 0);
	assert_non_null(strstr(d, "-        qk = tl.dot(q, k)\n"));
	free(d);
	free(msg);
	assert_true(file_is(k.path, k.before, k.blen));
	assert_int_equal(ta_edit_undo(k.path, NULL, &msg), -1);
	assert_non_null(strstr(msg, "nothing to undo"));
	free(msg);
	assert_int_equal(ta_edit_redo(k.path, NULL, &msg), 0);
	free(msg);
	assert_true(file_is(k.path, k.after, k.alen));
	assert_int_equal(ta_edit_redo(k.path, NULL, &msg), -1);
	free(msg);
	kfile_teardown(&k);
}

static void test_stale_source(void **state)
{
	(void)state;
	kfile k;
	kfile_setup(&k, "d12");
	ta_analysis *a;
	char *err, *why, *msg;
	assert_int_equal(ta_analysis_open(k.path, &a, &err), 0);
	ta_edit e;
	assert_int_equal(make_first(a->model, "D12", &e, &why), 0);
	/* Same size, other bytes: the hash tells. */
	char *other = ta_xstrdup(k.before);
	other[0] = '#';
	write_file(k.path, other, k.blen);
	assert_int_equal(ta_edit_apply(a->src, a->syn, &e, &msg), -1);
	assert_non_null(strstr(msg, "changed on disk"));
	free(msg);
	assert_true(file_is(k.path, other, k.blen));
	free(other);
	ta_edit_clear(&e);
	ta_analysis_free(a);
	kfile_teardown(&k);
}

static void test_bad_edit_restores(void **state)
{
	(void)state;
	kfile k;
	kfile_setup(&k, "d12");
	ta_analysis *a;
	char *err, *msg;
	assert_int_equal(ta_analysis_open(k.path, &a, &err), 0);
	/* An edit that breaks the syntax is refused before anything is written. */
	ta_edit e;
	ta_edit_init(&e, "X1", false);
	ta_edit_replace(&e, 0, 0, "def (:\n");
	assert_int_equal(ta_edit_apply(a->src, a->syn, &e, &msg), -1);
	assert_non_null(strstr(msg, "does not parse"));
	free(msg);
	assert_true(file_is(k.path, k.before, k.blen));
	ta_edit_clear(&e);
	ta_analysis_free(a);
	kfile_teardown(&k);
}

static int fail_step_n;
static const char *fail_step;
static int fault_nth(const char *step)
{
	if (!strcmp(step, fail_step) && --fail_step_n == 0)
		return EIO;
	return 0;
}

/* A new .tileadvise/ gets a .gitignore; a fault in writing it does not
 * stop the edit (the file only keeps the folder out of git status). */
static void test_gitignore_fault(void **state)
{
	(void)state;
	kfile k;
	kfile_setup(&k, "d4");
	fail_step = "write";
	fail_step_n = 1;
	ta_fault_set(fault_nth);
	char *msg;
	int rc = apply_once(k.path, "D4", &msg);
	ta_fault_set(NULL);
	assert_true(fail_step_n <= 0);
	assert_int_equal(rc, 0);
	assert_true(file_is(k.path, k.after, k.alen));
	free(msg);
	char *ign = ta_path_join(k.dir, ".tileadvise/.gitignore");
	struct stat st;
	assert_int_equal(stat(ign, &st), -1);   /* the faulted write left none */
	free(ign);
	kfile_teardown(&k);
	/* without a fault: there, saying '*' */
	kfile_setup(&k, "d4");
	assert_int_equal(apply_once(k.path, "D4", &msg), 0);
	free(msg);
	ign = ta_path_join(k.dir, ".tileadvise/.gitignore");
	char *text = NULL;
	size_t len = 0;
	char *rerr = NULL;
	assert_int_equal(ta_read_file(ign, 4096, &text, &len, &rerr), 0);
	assert_non_null(strstr(text, "\n*\n"));
	free(text);
	free(ign);
	kfile_teardown(&k);
}

static void test_injected_faults(void **state)
{
	(void)state;
	static const char *const steps[] = { "open", "write", "fsync", "rename", "dirsync" };
	int tried = 0;
	for (size_t s = 0; s < sizeof steps / sizeof *steps; s++) {
		/* Each careful write in turn: version files, journal, kernel. */
		for (int nth = 1; nth <= 4; nth++) {
			kfile k;
			kfile_setup(&k, "d4");
			/* the folder there already: the faults fall on the writes
			 * an edit needs, not on the .gitignore a new folder gets
			 * (best effort: test_gitignore_fault) */
			char *folder = ta_path_join(k.dir, ".tileadvise");
			assert_int_equal(mkdir(folder, 0700), 0);
			free(folder);
			fail_step = steps[s];
			fail_step_n = nth;
			ta_fault_set(fault_nth);
			char *msg;
			int rc = apply_once(k.path, "D4", &msg);
			ta_fault_set(NULL);
			bool hit = fail_step_n <= 0;
			if (hit) {
				/* dirsync after the kernel rename: the bytes are restored. */
				assert_int_equal(rc, -1);
				assert_true(file_is(k.path, k.before, k.blen));
				tried++;
			} else {
				assert_int_equal(rc, 0);
				assert_true(file_is(k.path, k.after, k.alen));
			}
			free(msg);
			/* Whatever happened, undo/redo agree with the file. */
			char *m2;
			if (ta_edit_undo(k.path, NULL, &m2) == 0)
				assert_true(file_is(k.path, k.before, k.blen));
			else
				assert_true(file_is(k.path, k.before, k.blen));
			free(m2);
			kfile_teardown(&k);
		}
	}
	print_message("# %d injected failures, each left the file as it was\n", tried);
	assert_true(tried >= 15);
}

static void test_full_tmpfs(void **state)
{
	(void)state;
	char *dir = tmpdir_new();
	if (geteuid() != 0 || mount("tmpfs", dir, "tmpfs", 0, "size=16k") != 0) {
		rm_rf(dir);
		free(dir);
		skip();
	}
	/* Fill the file system so the temporary copy cannot be written. */
	size_t len;
	char *before = fixture("g7.before.py", &len);
	char *path = ta_path_join(dir, "k.py");
	write_file(path, before, len);
	char *pad = ta_path_join(dir, "pad");
	FILE *f = fopen(pad, "wb");
	char block[1024] = { 0 };
	while (f && fwrite(block, 1, sizeof block, f) == sizeof block && fflush(f) == 0)
		;
	if (f)
		fclose(f);
	char *msg;
	int rc = apply_once(path, "G7", &msg);
	assert_int_equal(rc, -1);
	print_message("# full tmpfs: %s\n", msg);
	free(msg);
	assert_true(file_is(path, before, len));
	free(before);
	free(pad);
	free(path);
	umount(dir);
	rm_rf(dir);
	free(dir);
}

/* ---- killed at random points -------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool parses(const char *path)
{
	ta_analysis *a;
	char *err;
	if (ta_analysis_open(path, &a, &err) != 0) {
		free(err);
		return false;
	}
	bool ok = a->syn->error_count == 0;
	ta_analysis_free(a);
	return ok;
}

/* The kill points come from fixed seeds (a small generator of our own, the
 * same on every libc), so a failure names its seed and round and happens
 * again: TA_KILL_SEED=N runs that seed alone, TA_KILL_SEEDS the count of
 * seeds (1..N, 12 by default), TA_KILL_ROUNDS the kills without the compile
 * check (a sixth of them with it). Each
 * seed's delays are spread over the whole apply: round i of n falls in the
 * i-th n-th of it, at a point the seed picks. */
static unsigned next_random(unsigned *state)
{
	*state = *state * 1103515245u + 12345u;
	return (*state >> 8) & 0xffffff;
}

/* One apply in a child killed after delay us: counts what the file holds
 * then, and returns how many things were wrong (torn bytes, a file that no
 * longer parses, an undo that does not give the old bytes back). */
static int kill_once(const kfile *k, const char *tad, useconds_t delay, int *old_seen, int *new_seen)
{
	int bad = 0;
	rm_rf(tad);
	write_file(k->path, k->before, k->blen);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *m;
		_exit(apply_once(k->path, "S3", &m) == 0 ? 0 : 3);
	}
	usleep(delay);
	kill(pid, SIGKILL);
	int st;
	waitpid(pid, &st, 0);
	if (file_is(k->path, k->before, k->blen))
		(*old_seen)++;
	else if (file_is(k->path, k->after, k->alen))
		(*new_seen)++;
	else
		bad++;
	if (!parses(k->path))
		bad++;
	/* The journal agrees after reconciling: undo gives the old bytes
	 * back when the new ones landed. */
	if (file_is(k->path, k->after, k->alen)) {
		char *m2 = NULL;
		if (ta_edit_undo(k->path, NULL, &m2) == 0 && !file_is(k->path, k->before, k->blen))
			bad++;
		free(m2);
	}
	return bad;
}

/* Phase with_python: the python3 compile check runs (slow, most kills land
 * before the write); without it the kills land in the write itself. */
static void killed_during_apply(bool with_python, int rounds)
{
	kfile k;
	kfile_setup(&k, "s3");
	/* How long an uninterrupted apply takes, to spread the kills over it. */
	double t0 = now_s();
	char *msg;
	assert_int_equal(apply_once(k.path, "S3", &msg), 0);
	free(msg);
	double span_us = (now_s() - t0) * 1e6 * 1.3 + 50;
	int old_seen = 0, new_seen = 0, bad = 0, kills = 0;
	char *tad = ta_path_join(k.dir, ".tileadvise");
	const char *one = getenv("TA_KILL_SEED"), *count = getenv("TA_KILL_SEEDS");
	unsigned first_seed = one ? (unsigned)atoi(one) : 1;
	int n_seeds = one ? 1 : count ? atoi(count) : 12;
	if (n_seeds < 1)
		n_seeds = 1;
	int per_seed = rounds / n_seeds > 0 ? rounds / n_seeds : 1;
	double slot = span_us / per_seed;
	char first_bad[160] = "";
	for (int n = 0; n < n_seeds; n++) {
		unsigned seed = first_seed + (unsigned)n, state = seed;
		for (int r = 0; r < per_seed; r++, kills++) {
			useconds_t delay = (useconds_t)(slot * r + (double)next_random(&state) / 0x1000000 * slot);
			int b = kill_once(&k, tad, delay, &old_seen, &new_seen);
			if (b && !first_bad[0])
				snprintf(first_bad, sizeof first_bad, "; first at seed %u round %d, killed after %u us "
					 "(TA_KILL_SEED=%u repeats the seed)", seed, r, (unsigned)delay, seed);
			bad += b;
		}
	}
	print_message("# %s python3 check: %d kills spread over %.0f us, seeds %u-%u: %d old, %d new, "
		      "%d torn or unparsable%s\n", with_python ? "with" : "without", kills, span_us, first_seed,
		      first_seed + (unsigned)n_seeds - 1, old_seen, new_seen, bad, first_bad);
	assert_int_equal(bad, 0);
	assert_true(old_seen > 0);
	free(tad);
	kfile_teardown(&k);
}

static void test_killed_during_apply(void **state)
{
	(void)state;
	const char *env = getenv("TA_KILL_ROUNDS");
	/* 12 seeds: 2 kills each with the (slow) compile check, 12 without;
	 * a few seconds on a quiet machine, about 20 s on a loaded one. */
	int rounds = env ? atoi(env) : 144;
	killed_during_apply(true, rounds / 6);
	char *saved = getenv("PYTHON3") ? ta_xstrdup(getenv("PYTHON3")) : NULL;
	setenv("PYTHON3", "/nonexistent/python3", 1);
	killed_during_apply(false, rounds);
	if (saved)
		setenv("PYTHON3", saved, 1);
	else
		unsetenv("PYTHON3");
	free(saved);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff_hunks),
		cmocka_unit_test(test_diff_no_newline_crlf),
		cmocka_unit_test(test_diff_texts_minimal),
		cmocka_unit_test(test_spec),
		cmocka_unit_test(test_guided),
		cmocka_unit_test(test_profile_edit),
		cmocka_unit_test(test_new_refusals),
		cmocka_unit_test(test_layout_refusals),
		cmocka_unit_test(test_tuning_refusals),
		cmocka_unit_test(test_apply_undo_redo),
		cmocka_unit_test(test_stale_source),
		cmocka_unit_test(test_bad_edit_restores),
		cmocka_unit_test(test_gitignore_fault),
		cmocka_unit_test(test_injected_faults),
		cmocka_unit_test(test_full_tmpfs),
		cmocka_unit_test(test_killed_during_apply),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	ta_model_shutdown();
	return rc;
}
