/* The advisor's rules, without a GPU: a test double for the runner gives
 * each run of the file a record stream saved on an H200 (the attention
 * example's walk, tests/recordings/h200-2026-11-29-attention-v*.jsonl:
 * v2 -> v3 measured slower, v4 -> v5 faster, a stream against itself within
 * noise), on a copy of examples/attention/attention.py in a folder of its
 * own. Checked: broken is never a win; slower offers a revert (advisor) and
 * reverts (--walk); a failing test reverts; the baseline is kept; the
 * figures chain; measuring (--profile) repeats, joins and writes nothing. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "advise/advisor.h"
#include "advise/autowalk.h"
#include "util/buf.h"
#include "util/fsutil.h"

static char tmpdir[] = "/tmp/ta-test-advisor-XXXXXX";
static char *kernel;                 /* the copy of attention.py */
static char *original;               /* its bytes */
static size_t original_len;

static const char *srcdir(void)
{
	const char *s = getenv("TA_SRCDIR");
	return s && *s ? s : TA_BUILD_SRCDIR;
}

static char *recording(const char *name)
{
	return ta_xasprintf("%s/tests/recordings/h200-2026-11-29-%s.jsonl", srcdir(), name);
}

/* The runner's double: run n reads streams[n], the last one ever after. */
typedef struct streams {
	char *path[4];
	size_t n;
} streams;

static const char *records_for(void *ctx, size_t n)
{
	const streams *s = ctx;
	return s->path[n < s->n ? n : s->n - 1];
}

static void streams_of(streams *s, const char *a, const char *b)
{
	memset(s, 0, sizeof *s);
	s->path[s->n++] = recording(a);
	if (b)
		s->path[s->n++] = recording(b);
}

static void streams_free(streams *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->path[i]);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	/* Allowed commands are remembered there, not in the user's home. */
	setenv("XDG_DATA_HOME", tmpdir, 1);
	char *from = ta_xasprintf("%s/examples/attention/attention.py", srcdir()), *why = NULL;
	if (ta_read_file(from, 1 << 20, &original, &original_len, &why) != 0) {
		fprintf(stderr, "%s\n", why);
		return -1;
	}
	free(from);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char *cmd = ta_xasprintf("rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	free(cmd);
	free(kernel);
	free(original);
	ta_advisor_shutdown();
	return 0;
}

/* A fresh copy of the example, with no session beside it. */
static void fresh_copy(void)
{
	char *cmd = ta_xasprintf("rm -rf '%s/w' && mkdir '%s/w'", tmpdir, tmpdir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(kernel);
	kernel = ta_xasprintf("%s/w/attention.py", tmpdir);
	FILE *f = fopen(kernel, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(original, 1, original_len, f), original_len);
	fclose(f);
}

static bool file_is_original(void)
{
	char *now, *why = NULL;
	size_t len;
	assert_int_equal(ta_read_file(kernel, 1 << 20, &now, &len, &why), 0);
	bool same = len == original_len && !memcmp(now, original, len);
	free(now);
	return same;
}

static ta_advisor *open_advisor(streams *s, const char *test, const char *baseline_records)
{
	fresh_copy();
	ta_advisor_options o = {
		.file = kernel,
		.gpu_preset = "h200",
		.test_command = test,
		.baseline_records = baseline_records,
		.records_for = records_for,
		.records_ctx = s,
	};
	ta_advisor *a;
	char *err = NULL;
	if (ta_advisor_open(&o, &a, &err) != 0)
		fail_msg("%s", err);
	return a;
}

/* Feeds the advisor until nothing runs (a test is a real child). */
static void wait_idle(ta_advisor *a)
{
	while (ta_advisor_busy(a)) {
		struct pollfd fds[8];
		size_t n = ta_advisor_fds(a, fds, 8);
		poll(fds, (nfds_t)n, 50);
		ta_advisor_poll(a);
	}
}

/* The events since the last call: whether one of kind came. */
static bool had_event(ta_advisor *a, ta_advisor_event_kind kind, bool *offers)
{
	ta_advisor_event ev;
	bool seen = false;
	while (ta_advisor_next_event(a, &ev))
		if (ev.kind == kind) {
			seen = true;
			if (offers)
				*offers = ev.offers_revert;
		}
	return seen;
}

static const ta_step *step_of(ta_advisor *a, const char *id)
{
	const ta_walk *w = ta_advisor_walk(a);
	int k = ta_walk_find_kernel(w, "gemma_attn_fwd");
	assert_true(k >= 0);
	ta_advisor_kernel_ready(a, (size_t)k);   /* a walk without a run makes its steps when asked */
	for (size_t i = 0; i < w->kernels[k].n_steps; i++)
		if (!strcmp(w->kernels[k].steps[i].id, id)) {
			ta_advisor_step_ready(a, (size_t)k, i);
			return &w->kernels[k].steps[i];
		}
	fail_msg("no step %s", id);
	return NULL;
}

/* Applies S3's edit (safe, one site) and waits for its run and test. */
static void apply_s3(ta_advisor *a)
{
	const ta_step *s = step_of(a, "S3");
	assert_non_null(s->diff);
	assert_int_equal(ta_advisor_apply(a, "gemma_attn_fwd", "S3", s->edit_line, false, NULL), TA_APPLY_DONE);
	wait_idle(a);
}

/* Slower offers a revert; taking it puts the file back. */
static void test_slower_offers_revert(void **state)
{
	(void)state;
	streams s;
	streams_of(&s, "attention-v5", "attention-v2");
	ta_advisor *a = open_advisor(&s, NULL, NULL);
	ta_advisor_start(a);
	assert_true(had_event(a, TA_ADVISOR_MEASURED, NULL));
	assert_false(ta_advisor_offers_revert(a));
	apply_s3(a);
	bool offers = false;
	assert_true(had_event(a, TA_ADVISOR_SLOWER, &offers));
	assert_true(offers);
	assert_true(ta_advisor_offers_revert(a));
	const ta_step *st = step_of(a, "S3");
	assert_int_equal(st->mark, TA_MARK_APPLIED);
	assert_true(st->has_change);
	assert_int_equal(st->change.cmp.verdict, TA_VERDICT_SLOWER);
	assert_false(file_is_original());
	assert_int_equal(ta_advisor_revert(a), 0);
	assert_false(ta_advisor_offers_revert(a));
	assert_true(file_is_original());
	const ta_session *ss = ta_advisor_session(a);
	assert_true(ss->edits[ss->n_edits - 1].undone);
	ta_advisor_free(a);
	streams_free(&s);
}

/* A faster step offers nothing; a failing test after it makes it broken
 * (no win, whatever its time) and offers the revert. */
static void test_broken_is_never_a_win(void **state)
{
	(void)state;
	streams s;
	streams_of(&s, "attention-v4", "attention-v5");
	ta_advisor *a = open_advisor(&s, "echo checking; exit 3", NULL);
	ta_advisor_start(a);
	apply_s3(a);
	bool offers = false;
	assert_true(had_event(a, TA_ADVISOR_TEST_FAILED, &offers));
	assert_true(offers);
	const ta_step *st = step_of(a, "S3");
	assert_non_null(st->broken);
	assert_non_null(strstr(st->broken, "the test exited with status 3"));
	const ta_session *ss = ta_advisor_session(a);
	const ta_session_edit *e = &ss->edits[ss->n_edits - 1];
	assert_int_equal(e->test, TA_TEST_FAILED);
	/* Measured faster, yet broken: the whole walk does not count its run. */
	assert_int_equal(ta_change_between(&ss->runs[e->before_run], &ss->runs[e->after_run],
					   "gemma_attn_fwd").cmp.verdict, TA_VERDICT_FASTER);
	ta_change wc;
	assert_false(ta_session_walk_change(ss, "gemma_attn_fwd", &wc, NULL, NULL));
	assert_int_equal(ta_advisor_revert(a), 0);
	assert_true(file_is_original());
	ta_advisor_free(a);
	streams_free(&s);
}

/* The user's own run is a test too: a re-run whose check lines differ
 * from the first run's marks the edit broken and offers the revert. A real
 * child here (no GPU needed: it launches no kernel): it prints how many
 * times the line S3's edit writes is in the file. */
static void test_broken_by_check_lines(void **state)
{
	(void)state;
	fresh_copy();
	char *script = ta_xasprintf("grep -c 'qk = tl.dot(q, k.T)$' '%s'; true", kernel);
	char *argv[] = { "/bin/sh", "-c", script, NULL };
	ta_advisor_options o = { .file = kernel, .gpu_preset = "h200", .command = argv, .timeout_s = 60 };
	ta_advisor *a;
	char *err = NULL;
	if (ta_advisor_open(&o, &a, &err) != 0)
		fail_msg("%s", err);
	if (!ta_advisor_can_run(a))
		skip();   /* built without CUPTI */
	ta_advisor_start(a);
	wait_idle(a);
	assert_non_null(ta_advisor_session(a)->check_lines);
	assert_string_equal(ta_advisor_session(a)->check_lines, "0");
	had_event(a, TA_ADVISOR_NOTE, NULL);
	apply_s3(a);
	bool offers = false;
	assert_true(had_event(a, TA_ADVISOR_BROKEN, &offers));
	assert_true(offers);
	assert_non_null(step_of(a, "S3")->broken);
	assert_int_equal(ta_advisor_revert(a), 0);
	assert_true(file_is_original());
	ta_advisor_free(a);
	free(script);
}

/* The baseline read at opening stays through runs, an edit and its revert. */
static void test_baseline_is_kept(void **state)
{
	(void)state;
	streams s;
	streams_of(&s, "attention-v5", "attention-v2");
	char *base = recording("example-attention");
	ta_advisor *a = open_advisor(&s, NULL, base);
	const ta_session *ss = ta_advisor_session(a);
	assert_non_null(ss->baseline);
	ta_advisor_start(a);
	apply_s3(a);
	assert_true(ta_advisor_offers_revert(a));
	assert_int_equal(ta_advisor_revert(a), 0);
	ss = ta_advisor_session(a);
	assert_non_null(ss->baseline);
	assert_string_equal(ss->baseline_source, base);
	assert_int_not_equal(step_of(a, "T5")->status, TA_STATUS_NEEDS_BASELINE);
	char *err = NULL;
	assert_int_equal(ta_advisor_save(a, "gemma_attn_fwd", "S3", &err), 0);
	ta_advisor_free(a);
	/* Reopened, the session still holds it. */
	ta_advisor_options o = { .file = kernel, .no_profile = true };
	assert_int_equal(ta_advisor_open(&o, &a, &err), 0);
	assert_non_null(ta_advisor_session(a)->baseline);
	ta_advisor_free(a);
	free(base);
	streams_free(&s);
}

/* --walk's rules, collected from its events. */
typedef struct seen {
	size_t kept, reverted;
	char why[8][96];
	size_t n_why;
	double before[8], after[8], ratio[8];
	size_t n_measured;
	double whole_ratio;
} seen;

static void on_walk(void *ctx, const ta_walk_event *ev)
{
	seen *s = ctx;
	if (ev->kind == TA_WALK_KEPT)
		s->kept++;
	if (ev->kind == TA_WALK_REVERTED && s->n_why < 8)
		snprintf(s->why[s->n_why++], sizeof s->why[0], "%s %s", ev->id, ev->text);
	if (ev->kind == TA_WALK_MEASURED && ev->id && s->n_measured < 8) {
		s->before[s->n_measured] = ev->change->before_ns;
		s->after[s->n_measured] = ev->change->after_ns;
		s->ratio[s->n_measured++] = ev->change->cmp.ratio;
	}
	if (ev->kind == TA_WALK_MEASURED && !ev->id)
		s->whole_ratio = ev->change->cmp.ratio;
}

static void walk(ta_advisor *a, const char *select, seen *out, ta_autowalk_result *res)
{
	memset(out, 0, sizeof *out);
	ta_autowalk_options o = { .select = select, .event = on_walk, .ctx = out };
	char *err = NULL;
	if (ta_autowalk_run(a, &o, res, &err) != 0)
		fail_msg("%s", err);
}

/* Every step measured slower is reverted: the file ends as it began. */
static void test_walk_reverts_slower(void **state)
{
	(void)state;
	streams s;
	streams_of(&s, "attention-v5", "attention-v2");
	ta_advisor *a = open_advisor(&s, NULL, NULL);
	seen w;
	ta_autowalk_result res;
	walk(a, "S3,S5", &w, &res);
	assert_int_equal(res.tried, 2);
	assert_int_equal(res.kept, 0);
	assert_int_equal(res.reverted, 2);
	/* Both slower: the second is measured on the version the first was
	 * reverted to, whose run is the first run's stream. */
	assert_string_equal(w.why[0], "S3 slower");
	assert_string_equal(w.why[1], "S5 slower");
	assert_true(file_is_original());
	ta_advisor_free(a);
	streams_free(&s);
}

/* A step measured faster but failing its test is reverted. */
static void test_walk_reverts_failing_test(void **state)
{
	(void)state;
	streams s;
	streams_of(&s, "attention-v4", "attention-v5");
	ta_advisor *a = open_advisor(&s, "exit 1", NULL);
	seen w;
	ta_autowalk_result res;
	walk(a, "S3", &w, &res);
	assert_int_equal(res.kept, 0);
	assert_int_equal(res.reverted, 1);
	assert_non_null(strstr(w.why[0], "S3 broken: the test exited with status 1"));
	assert_true(file_is_original());
	ta_advisor_free(a);
	streams_free(&s);
}

/* A faster step is kept; the next, measured against the run the first
 * ended on, is within noise and reverted; the figures chain: the second
 * step's before is the first's after, and the whole walk's ratio is the
 * product of the steps' (the one kept). */
static void test_walk_keeps_faster_and_chains(void **state)
{
	(void)state;
	streams s;
	streams_of(&s, "attention-v4", "attention-v5");
	ta_advisor *a = open_advisor(&s, NULL, NULL);
	seen w;
	ta_autowalk_result res;
	walk(a, "S3,S5", &w, &res);
	assert_int_equal(res.kept, 1);
	assert_int_equal(res.reverted, 1);
	assert_string_equal(w.why[0], "S5 within noise");
	assert_false(file_is_original());
	assert_int_equal(w.n_measured, 2);
	assert_true(w.ratio[0] < 0.9);
	assert_true(w.before[1] == w.after[0]);   /* the same run: the same figure */
	assert_true(w.whole_ratio > 0 && w.whole_ratio == w.ratio[0]);
	const ta_session *ss = ta_advisor_session(a);
	ta_change wc;
	assert_true(ta_session_walk_change(ss, "gemma_attn_fwd", &wc, NULL, NULL));
	assert_true(wc.cmp.ratio == w.ratio[0]);
	assert_int_equal(wc.cmp.verdict, TA_VERDICT_FASTER);
	ta_advisor_free(a);
	streams_free(&s);
}

/* Three steps in a row on the advisor: each before is the last after, and
 * the ratios multiply to the whole walk's. */
static void test_figures_chain(void **state)
{
	(void)state;
	streams s;
	memset(&s, 0, sizeof s);
	s.path[s.n++] = recording("attention-v2");
	s.path[s.n++] = recording("attention-v3");
	s.path[s.n++] = recording("attention-v4");
	s.path[s.n++] = recording("attention-v5");
	ta_advisor *a = open_advisor(&s, NULL, NULL);
	ta_advisor_start(a);
	const char *ids[] = { "S3", "S5", "S8" };
	for (size_t i = 0; i < 3; i++) {
		const ta_step *st = step_of(a, ids[i]);
		assert_non_null(st->diff);
		ta_apply_result r = ta_advisor_apply(a, "gemma_attn_fwd", ids[i], st->edit_line, true, NULL);
		assert_int_equal(r, TA_APPLY_DONE);
		wait_idle(a);
		ta_advisor_keep(a);   /* whatever the verdict: the figures are the point */
		had_event(a, TA_ADVISOR_NOTE, NULL);
	}
	const ta_session *ss = ta_advisor_session(a);
	assert_int_equal(ss->n_edits, 3);
	double product = 1, last_after = 0;
	for (size_t i = 0; i < 3; i++) {
		const ta_session_edit *e = &ss->edits[i];
		ta_change c = ta_session_change(ss, e->before_run, e->after_run, "gemma_attn_fwd");
		assert_true(c.measured);
		if (i)
			assert_true(c.before_ns == last_after);
		assert_true(c.cmp.ratio > 0 && c.cmp.lo <= c.cmp.ratio && c.cmp.ratio <= c.cmp.hi);
		last_after = c.after_ns;
		product *= c.cmp.ratio;
	}
	ta_change wc;
	assert_true(ta_session_walk_change(ss, "gemma_attn_fwd", &wc, NULL, NULL));
	assert_true(wc.before_ns == ta_session_change(ss, ss->edits[0].before_run, ss->edits[0].after_run,
						      "gemma_attn_fwd").before_ns);
	assert_true(wc.after_ns == last_after);
	assert_true(fabs(wc.cmp.ratio - product) < 1e-9 * product);
	ta_advisor_free(a);
	streams_free(&s);
}

/* Measuring (--profile): the file's command repeated into one run, the
 * baseline command run as often, nothing written beside the file, no walk,
 * no event; a child failing once is told, with its output's last lines. */
static void test_measuring(void **state)
{
	(void)state;
	fresh_copy();
	char *rec = recording("example-attention");
	char *count = ta_xasprintf("%s/w/count", tmpdir);
	char *flaky = ta_xasprintf("cat '%s' >&$TILEADVISE_RECORD_FD; n=$(cat '%s' 2>/dev/null || echo 0); "
				   "echo $((n + 1)) > '%s'; [ $n -ne 1 ] || { echo second; exit 3; }",
				   rec, count, count);
	char *base = ta_xasprintf("cat '%s' >&$TILEADVISE_RECORD_FD", rec);
	char *argv[] = { "/bin/sh", "-c", flaky, NULL };
	ta_advisor_options o = { .file = kernel, .gpu_preset = "h200", .measuring = true, .repeat = 3,
				 .command = argv, .baseline = base };
	ta_advisor *a;
	char *err = NULL;
	if (ta_advisor_open(&o, &a, &err) != 0)
		fail_msg("%s", err);
	ta_advisor_start(a);
	wait_idle(a);
	const ta_measured *m = ta_advisor_measured(a);
	assert_non_null(m->run);
	assert_int_equal(m->timed.children, 3);
	assert_true(m->timed.any_failed && m->timed.ran_ok);
	assert_non_null(strstr(m->timed.describe, "status 3"));
	assert_string_equal(m->timed.log_tail, "second\n");
	assert_non_null(m->baseline);
	assert_int_equal(m->base.children, 3);
	assert_false(m->base.any_failed);
	assert_false(m->deep_ran);
	assert_null(ta_advisor_walk(a));
	ta_advisor_event ev;
	assert_false(ta_advisor_next_event(a, &ev));
	assert_int_equal(ta_advisor_save(a, NULL, NULL, &err), 0);
	char *beside = ta_xasprintf("%s/w/.tileadvise", tmpdir);
	assert_false(ta_path_exists(beside));
	ta_advisor_free(a);
	/* A stream stands for the runs: no child, no baseline command. */
	o = (ta_advisor_options){ .file = kernel, .gpu_preset = "h200", .measuring = true, .records = rec,
				  .baseline = "exit 1" };
	assert_int_equal(ta_advisor_open(&o, &a, &err), 0);
	ta_advisor_start(a);
	assert_false(ta_advisor_busy(a));
	m = ta_advisor_measured(a);
	assert_non_null(m->run);
	assert_int_equal(m->timed.children, 0);
	assert_null(m->baseline);
	assert_null(m->records_error);
	ta_advisor_free(a);
	assert_false(ta_path_exists(beside));
	free(beside);
	free(base);
	free(flaky);
	free(count);
	free(rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slower_offers_revert),
		cmocka_unit_test(test_broken_is_never_a_win),
		cmocka_unit_test(test_broken_by_check_lines),
		cmocka_unit_test(test_baseline_is_kept),
		cmocka_unit_test(test_walk_reverts_slower),
		cmocka_unit_test(test_walk_reverts_failing_test),
		cmocka_unit_test(test_walk_keeps_faster_and_chains),
		cmocka_unit_test(test_figures_chain),
		cmocka_unit_test(test_measuring),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
