/* Sessions: JSON round trip, saving and loading from .tileadvise/, the
 * format-version checks, recording one from an H200 record stream, and the
 * markdown report. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "advise/session.h"
#include "analyze/model.h"
#include "ui/record_session.h"
#include "ui/session_report.h"
#include "util/buf.h"
#include "util/fsutil.h"

static char tmpdir[] = "/tmp/ta-test-session-XXXXXX";

static const char *srcdir(void)
{
	const char *s = getenv("TA_SRCDIR");
	return s && *s ? s : TA_BUILD_SRCDIR;
}

static int group_setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	char *cmd = ta_xasprintf("rm -rf '%s'", tmpdir);
	int rc = system(cmd);
	free(cmd);
	ta_model_shutdown();
	return rc == 0 ? 0 : -1;
}

static ta_session *sample(void)
{
	ta_session *s = ta_session_new("dir/k.py", "def f():\n    pass\n", 18);
	ta_gpu_info g;
	ta_gpu_preset("h200", &g);
	ta_session_set_env_gpu(s, &g);
	s->env.driver = 13000;
	s->env.software = ta_xstrdup("Triton 3.6.0");
	s->test_command = ta_xstrdup("python3 -c 'pass'");
	ta_run_figures r = { 0 };
	r.label = ta_xstrdup("first run");
	r.date = ta_xstrdup("2026-11-29T10:00:00Z");
	r.kernels = ta_xcalloc(1, sizeof *r.kernels);
	r.n_kernels = 1;
	r.kernels[0].name = ta_xstrdup("k");
	r.kernels[0].launches = 10;
	r.kernels[0].n_durations = 3;
	r.kernels[0].durations_ns = ta_xcalloc(3, sizeof(double));
	r.kernels[0].durations_ns[0] = 100;
	r.kernels[0].durations_ns[1] = 120;
	r.kernels[0].durations_ns[2] = 110;
	/* the second a sampled launch standing for 5 */
	r.kernels[0].weights = ta_xcalloc(3, sizeof(double));
	r.kernels[0].weights[0] = r.kernels[0].weights[2] = 1;
	r.kernels[0].weights[1] = 5;
	r.kernels[0].summary = ta_stats_summarize_weighted(r.kernels[0].durations_ns, r.kernels[0].weights, 3);
	/* one phase of those launches, weighed alike */
	r.kernels[0].n_steady = 3;
	r.kernels[0].steady_ns = ta_xmemdup(r.kernels[0].durations_ns, 3 * sizeof(double));
	r.kernels[0].steady_w = ta_xmemdup(r.kernels[0].weights, 3 * sizeof(double));
	r.kernels[0].n_phases = 1;
	r.kernels[0].phase_start = ta_xcalloc(1, sizeof(size_t));
	r.kernels[0].grid[0] = 64;
	r.kernels[0].has_occupancy = true;
	r.kernels[0].occupancy = 0.5;
	snprintf(r.kernels[0].limiter, sizeof r.kernels[0].limiter, "registers");
	assert_int_equal(ta_session_add_run(s, &r), 0);
	ta_session_edit *e = ta_session_add_edit(s, "D12", "k", 2, "--- a\n+++ b\n", s->current);
	assert_int_equal(e->before_run, 0);
	assert_int_equal(ta_session_add_version(s, "def f():\n    return 1\n", 22, "after D12"), 1);
	e->to_version = 1;
	e->test = TA_TEST_FAILED;
	e->test_note = ta_xstrdup("exited with status 1");
	ta_session_set_skip(s, "k", "P1", true);
	ta_walk *w = ta_walk_new();
	ta_walk_kernel *k = ta_walk_add_kernel(w, "k");
	k->def_line = 1;
	ta_step *st = ta_walk_add_step(k, "D12");
	st->status = TA_STATUS_APPLIES;
	st->edit_kind = TA_STEP_EDIT_MECHANICAL;
	st->diff = ta_xstrdup("--- a\n+++ b\n");
	ta_walk_finding *f = TA_APPEND(st->findings, st->n_findings);
	f->reason = ta_xstrdup("hand-written \"ceil\"");
	f->line = 2;
	f->end_line = 2;
	f->lines = ta_xcalloc(2, sizeof *f->lines);
	f->lines[0] = 2;
	f->lines[1] = 5;
	f->n_lines = 2;
	ta_walk_add_step(k, "T2");
	ta_session_set_walk(s, w);
	s->pos_kernel = ta_xstrdup("k");
	snprintf(s->pos_step, sizeof s->pos_step, "D12");
	return s;
}

static void check_sample(const ta_session *s)
{
	assert_string_equal(s->file_name, "k.py");
	assert_string_equal(s->file_path, "dir/k.py");
	assert_true(s->env.has_gpu);
	assert_string_equal(s->env.gpu, "NVIDIA H200");
	assert_int_equal(s->env.sm_count, 132);
	assert_int_equal(s->env.cc_major, 9);
	assert_int_equal(s->env.driver, 13000);
	assert_string_equal(s->env.software, "Triton 3.6.0");
	assert_string_equal(s->test_command, "python3 -c 'pass'");
	assert_int_equal(s->n_versions, 2);
	assert_int_equal(s->current, 1);
	assert_string_equal(s->versions[0].text, "def f():\n    pass\n");
	assert_string_equal(s->versions[1].label, "after D12");
	assert_int_equal(s->n_runs, 1);
	assert_int_equal(s->runs[0].kernels[0].n_durations, 3);
	/* 100, 110 and 120 x 5: the weights kept (unweighed it would be 110) */
	assert_non_null(s->runs[0].kernels[0].weights);
	assert_true(s->runs[0].kernels[0].weights[1] == 5.0);
	assert_true(s->runs[0].kernels[0].summary.median == 120.0);
	assert_int_equal(s->runs[0].kernels[0].n_phases, 1);
	assert_non_null(s->runs[0].kernels[0].steady_w);
	assert_true(s->runs[0].kernels[0].steady_w[1] == 5.0 && s->runs[0].kernels[0].steady_w[2] == 1.0);
	assert_string_equal(s->runs[0].kernels[0].limiter, "registers");
	assert_int_equal(s->runs[0].kernels[0].grid[0], 64);
	assert_int_equal(s->n_edits, 1);
	assert_string_equal(s->edits[0].id, "D12");
	assert_int_equal(s->edits[0].to_version, 1);
	assert_int_equal(s->edits[0].test, TA_TEST_FAILED);
	assert_true(ta_session_skipped(s, "k", "p1"));
	assert_non_null(s->walk);
	const ta_step *st = ta_walk_find_step(s->walk, "k", "D12");
	assert_non_null(st);
	assert_int_equal(st->status, TA_STATUS_APPLIES);
	assert_string_equal(st->findings[0].reason, "hand-written \"ceil\"");
	assert_int_equal(st->findings[0].n_lines, 2);
	assert_int_equal(st->findings[0].lines[1], 5);
	assert_string_equal(st->diff, "--- a\n+++ b\n");
	assert_string_equal(s->pos_step, "D12");
}

static void test_round_trip(void **state)
{
	(void)state;
	ta_session *s = sample();
	char *json = ta_session_to_json(s);
	ta_session *back;
	char *err = NULL;
	assert_int_equal(ta_session_from_json(json, strlen(json), "mem", &back, &err), 0);
	check_sample(back);
	/* Saving the loaded one gives the same text. */
	char *again = ta_session_to_json(back);
	assert_string_equal(json, again);
	free(again);
	free(json);
	ta_session_free(back);
	ta_session_free(s);
}

static void test_save_load(void **state)
{
	(void)state;
	char *kernel = ta_xasprintf("%s/k.py", tmpdir);
	char *path = ta_session_path_for(kernel);
	char *want = ta_xasprintf("%s/.tileadvise/session-k.py.json", tmpdir);
	assert_string_equal(path, want);
	ta_session *s = sample();
	char *err = NULL;
	assert_int_equal(ta_session_save(s, path, &err), 0);
	struct stat st;
	char *dir = ta_xasprintf("%s/.tileadvise", tmpdir);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	ta_session *back;
	assert_int_equal(ta_session_load(path, &back, &err), 0);
	check_sample(back);
	ta_session_free(back);
	ta_session_free(s);
	free(dir);
	free(want);
	free(path);
	free(kernel);
}

static void expect_error(const char *json, const char *fragment)
{
	ta_session *s = NULL;
	char *err = NULL;
	assert_int_equal(ta_session_from_json(json, strlen(json), "x.json", &s, &err), -1);
	assert_null(s);
	assert_non_null(err);
	if (!strstr(err, fragment))
		fail_msg("'%s' does not say '%s'", err, fragment);
	assert_non_null(strstr(err, "x.json"));
	free(err);
}

static void test_version_checks(void **state)
{
	(void)state;
	expect_error("{\"version\": 2, \"file\": {\"name\": \"k.py\"}}", "format version 2");
	expect_error("{\"file\": {\"name\": \"k.py\"}}", "no format version");
	expect_error("{\"version\": 1, \"file\": ", "not valid JSON");
	expect_error("[1]", "top level");
	expect_error("{\"version\": 1, \"file\": {\"name\": \"k.py\"}, \"versions\": []}", "no version of the file");
	expect_error("{\"version\": 1, \"file\": {\"name\": \"k.py\"}, \"versions\": [{\"text\": \"x\"}],"
		     " \"current\": 3}", "\"current\"");
	expect_error("{\"version\": 1, \"file\": {\"name\": \"k.py\"}, \"versions\": [{\"text\": \"x\"}],"
		     " \"edits\": [{\"id\": \"S3\", \"after_run\": 4}]}", "not there");
	/* The smallest usable session. */
	const char *ok = "{\"version\": 1, \"file\": {\"name\": \"k.py\"}, \"versions\": [{\"text\": \"x\"}]}";
	ta_session *s;
	char *err;
	assert_int_equal(ta_session_from_json(ok, strlen(ok), "x", &s, &err), 0);
	assert_null(s->walk);
	assert_int_equal(s->current, 0);
	ta_session_free(s);
}

static void test_versions_and_undo(void **state)
{
	(void)state;
	ta_session *s = ta_session_new("k.py", "a", 1);
	assert_int_equal(ta_session_add_version(s, "a", 1, "same"), 0);
	assert_int_equal(ta_session_add_version(s, "b", 1, "b"), 1);
	assert_int_equal(ta_session_find_version(s, s->versions[0].hash), 0);
	ta_session_edit *e = ta_session_add_edit(s, "S3", "k", 1, NULL, s->current);
	assert_ptr_equal(ta_session_last_edit(s), e);
	e->undone = true;
	assert_null(ta_session_last_edit(s));
	assert_ptr_equal(ta_session_next_undone(s), e);
	/* A new edit after an undo forgets the undone one. */
	ta_session_add_edit(s, "D4", "k", 1, NULL, s->current);
	assert_int_equal(s->n_edits, 1);
	assert_string_equal(s->edits[0].id, "D4");
	ta_session_set_skip(s, "k", "S1", true);
	ta_session_set_skip(s, "k", "S1", true);
	assert_int_equal(s->n_skips, 1);
	ta_session_set_skip(s, "k", "S1", false);
	assert_false(ta_session_skipped(s, "k", "S1"));
	ta_session_free(s);
}

static void test_record_and_report(void **state)
{
	(void)state;
	char *file = ta_xasprintf("%s/examples/attention/attention.py", srcdir());
	char *rec = ta_xasprintf("%s/tests/recordings/h200-2026-11-29-example-attention.jsonl", srcdir());
	char *out = ta_xasprintf("%s/rec.json", tmpdir);
	char *err = NULL;
	assert_int_equal(ta_session_record_walk(&(ta_record_options){ .file = file, .records = rec, .baseline_records = rec,
									  .gpu_preset = "h200", .out = out }, &err), 0);
	ta_session *s;
	assert_int_equal(ta_session_load(out, &s, &err), 0);
	assert_string_equal(s->env.gpu, "NVIDIA H200");
	assert_int_equal(s->env.driver, 13000);
	assert_int_equal(s->n_runs, 1);
	/* The same stream as its own baseline: T5 decided, ratio 1. */
	assert_non_null(s->baseline);
	assert_string_equal(s->baseline_source, rec);
	double r = ta_baseline_ratio(&s->runs[0], s->baseline, "gemma_attn_fwd", NULL);
	assert_true(r > 0.999 && r < 1.001);
	assert_int_equal(ta_walk_find_step(s->walk, "gemma_attn_fwd", "T5")->status, TA_STATUS_SATISFIED);
	const ta_kernel_figures *k = ta_run_figures_find(&s->runs[0], "gemma_attn_fwd");
	assert_non_null(k);
	assert_int_equal(k->summary.count, 284);
	assert_true(k->summary.median > 1932100 && k->summary.median < 1932300);
	assert_non_null(s->walk);
	assert_non_null(ta_walk_find_step(s->walk, "gemma_attn_fwd", "S3")->diff);
	assert_int_equal(strncmp(s->created, "2026-11-29", 10), 0);
	char *md = ta_xasprintf("%s/r.md", tmpdir);
	FILE *f = fopen(md, "w");
	assert_int_equal(ta_session_report(s, s->walk, f), 0);
	fclose(f);
	char *text;
	size_t len;
	assert_int_equal(ta_read_file(md, 1 << 20, &text, &len, &err), 0);
	assert_non_null(strstr(text, "# tileadvise session: attention.py"));
	assert_non_null(strstr(text, "NVIDIA H200 (sm_90, 132 SMs)"));
	assert_non_null(strstr(text, "| `gemma_attn_fwd` | 392 | 1932.2 µs"));
	assert_non_null(strstr(text, "- **S3** — applies: line 77"));
	assert_non_null(strstr(text, "| `gemma_attn_fwd` | 1932.2 µs | the same kernel | 1932.2 µs | 1.00 |"));
	free(text);
	free(md);
	ta_session_free(s);
	/* A missing record stream is an error, not a session. */
	assert_int_equal(ta_session_record_walk(&(ta_record_options){ .file = file, .records = "/nonexistent.jsonl",
									  .gpu_preset = "h200", .out = out }, &err), -1);
	free(err);
	assert_int_equal(ta_session_record_walk(&(ta_record_options){ .file = file, .records = rec,
									  .baseline_records = "/nonexistent.jsonl",
									  .gpu_preset = "h200", .out = out }, &err), -1);
	free(err);
	free(file);
	free(rec);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_save_load),
		cmocka_unit_test(test_version_checks),
		cmocka_unit_test(test_versions_and_undo),
		cmocka_unit_test(test_record_and_report),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
