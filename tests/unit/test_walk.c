/* The walk: steps in trigger order with statuses, findings and diffs, the
 * figures of a recorded H200 run, measured changes, marks from a session. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise/checklist.h"
#include "advise/session.h"
#include "advise/walk.h"
#include "analyze/analysis.h"
#include "checklist/filter.h"
#include "profile/measure.h"
#include "profile/protocol.h"
#include "util/buf.h"

typedef struct fixture {
	ta_catalog *cat;
	ta_analysis *an;
	ta_run_figures run;
	ta_gpu_info gpu;
} fixture;

static const char *srcdir(void)
{
	const char *s = getenv("TA_SRCDIR");
	return s && *s ? s : TA_BUILD_SRCDIR;
}

static int setup(void **state)
{
	fixture *f = ta_xcalloc(1, sizeof *f);
	char *err = NULL;
	f->cat = ta_catalog_load(NULL, &err);
	char *path = ta_xasprintf("%s/examples/attention/attention.py", srcdir());
	if (!f->cat || ta_analysis_open(path, &f->an, &err) != 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	free(path);
	ta_records recs;
	ta_records_init(&recs);
	char *rec = ta_xasprintf("%s/tests/recordings/h200-2026-11-29-example-attention.jsonl", srcdir());
	if (ta_records_load_file(&recs, rec, &err) != 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	free(rec);
	ta_gpu_preset("h200", &f->gpu);
	const char *names[] = { "gemma_attn_fwd" };
	bool tuned[] = { true };
	ta_measurement *m = ta_measure_build(&recs, names, tuned, 1, &f->gpu);
	ta_run_figures_from_measure(&f->run, m, "recorded", "2026-11-29T00:00:00Z", 0);
	ta_measurement_free(m);
	ta_records_clear(&recs);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	ta_run_figures_clear(&f->run);
	ta_analysis_free(f->an);
	ta_catalog_free(f->cat);
	free(f);
	ta_model_shutdown();
	return 0;
}

static void test_static_walk(void **state)
{
	fixture *f = *state;
	ta_walk *w = ta_walk_build(f->an->model, f->cat, NULL, NULL, "attention.py");
	assert_int_equal(w->n_kernels, 1);
	const ta_walk_kernel *k = &w->kernels[0];
	assert_string_equal(k->name, "gemma_attn_fwd");
	assert_int_equal(k->n_steps, ta_rules_count());
	/* Triggers first; T1 fired, so section 4 opens right after them. T5
	 * waits for a baseline the static walk has not got: it comes last,
	 * as a note, and the walk does not open on it. */
	assert_string_equal(k->steps[0].id, "T1");
	assert_int_equal(k->steps[0].mark, TA_MARK_APPLIES);
	assert_string_equal(k->steps[4].id, "G1");
	assert_string_equal(k->steps[k->n_steps - 1].id, "T5");
	assert_int_equal(k->steps[k->n_steps - 1].mark, TA_MARK_NEEDS_BASELINE);
	for (size_t i = 0; i + 1 < k->n_steps; i++)
		assert_int_not_equal(k->steps[i].mark, TA_MARK_NEEDS_BASELINE);
	ta_step *s3 = ta_walk_find_step(w, "gemma_attn_fwd", "S3");
	assert_non_null(s3);
	assert_int_equal(s3->mark, TA_MARK_APPLIES);
	assert_int_equal(s3->edit_kind, TA_STEP_EDIT_MECHANICAL);
	assert_int_equal(s3->n_findings, 1);
	assert_int_equal(s3->findings[0].line, 77);
	assert_int_equal(ta_step_line(s3), 77);
	assert_non_null(s3->diff);
	assert_non_null(strstr(s3->diff, "+        qk = tl.dot(q, k.T)\n"));
	assert_non_null(strstr(s3->diff, "--- a/attention.py"));
	/* G4 is served by S3's detector and edit. */
	ta_step *g4 = ta_walk_find_step(w, "gemma_attn_fwd", "g4");
	assert_non_null(g4);
	assert_non_null(g4->diff);
	/* Without a profile, profile-backed steps wait for one. */
	ta_step *p7 = ta_walk_find_step(w, "gemma_attn_fwd", "P7");
	assert_int_equal(p7->mark, TA_MARK_NEEDS_PROFILE);
	assert_true(ta_step_is_open(p7));
	ta_step *t2 = ta_walk_find_step(w, "gemma_attn_fwd", "T2");
	assert_int_equal(t2->mark, TA_MARK_NOT_APPLICABLE);
	assert_false(ta_step_is_open(t2));
	assert_null(ta_walk_find_step(w, "nope", "S3"));
	ta_walk_free(w);
}

/* The walk honours the file's suppression comments as --check does: a
 * silenced finding is left out, and a step with no finding left is not
 * applicable (silenced), offers no edit, and says so in the session. */
static void test_suppressed(void **state)
{
	fixture *f = *state;
	const ta_source *src = f->an->src;
	const char *at = strstr(src->text, "qk = tl.dot(q, k.T, qk)");
	assert_non_null(at);
	const char *eol = strchr(at, '\n');
	ta_buf b = TA_BUF_INIT;
	ta_buf_append(&b, src->text, (size_t)(eol - src->text));
	ta_buf_puts(&b, "  # tileadvise: ignore[S3]");
	ta_buf_puts(&b, eol);
	ta_analysis *a;
	char *err = NULL;
	assert_int_equal(ta_analysis_from_bytes("attention.py", ta_buf_str(&b), b.len, &a, &err), 0);
	ta_walk *w = ta_walk_build(a->model, f->cat, NULL, NULL, "attention.py");
	ta_step *s3 = ta_walk_find_step(w, "gemma_attn_fwd", "S3");
	assert_true(s3->silenced);
	assert_int_equal(s3->status, TA_STATUS_NOT_APPLICABLE);
	assert_int_equal(s3->mark, TA_MARK_NOT_APPLICABLE);
	assert_false(ta_step_is_open(s3));
	assert_int_equal(s3->n_findings, 0);
	assert_null(s3->diff);
	/* G4 shares S3's detector: --check shows the finding as [S3, G4], and
	 * one id silences the finding it names (issue 30), so G4's goes too. */
	ta_step *g4 = ta_walk_find_step(w, "gemma_attn_fwd", "G4");
	assert_true(g4->silenced);
	assert_null(g4->diff);
	/* A session keeps it. */
	ta_session *s = ta_session_new("attention.py", ta_buf_str(&b), b.len);
	ta_session_set_walk(s, w);
	char *json = ta_session_to_json(s);
	ta_session *back;
	assert_int_equal(ta_session_from_json(json, strlen(json), "s.json", &back, &err), 0);
	assert_true(ta_walk_find_step(back->walk, "gemma_attn_fwd", "S3")->silenced);
	assert_true(ta_walk_find_step(back->walk, "gemma_attn_fwd", "G4")->silenced);
	ta_session_free(back);
	free(json);
	ta_session_free(s);
	/* ignore-file with no ids silences every entry in the whole file. */
	ta_buf_free(&b);
	ta_buf_puts(&b, "# tileadvise: ignore-file\n");
	ta_buf_append(&b, src->text, src->len);
	ta_analysis_free(a);
	assert_int_equal(ta_analysis_from_bytes("attention.py", ta_buf_str(&b), b.len, &a, &err), 0);
	w = ta_walk_build(a->model, f->cat, NULL, NULL, "attention.py");
	const ta_walk_kernel *k = &w->kernels[0];
	for (size_t i = 0; i < k->n_steps; i++)
		assert_int_not_equal(k->steps[i].mark, TA_MARK_APPLIES);
	assert_true(ta_walk_find_step(w, "gemma_attn_fwd", "T1")->silenced);
	ta_walk_free(w);
	ta_analysis_free(a);
	ta_buf_free(&b);
}

/* The walk honours --check's filter (--select, --ignore, the project's
 * [tool.tileadvise]): a step of an entry it leaves out has no findings and
 * no edit, and one that would be open is not applicable (ignored), in the
 * session too; a satisfied one stays satisfied; the others are untouched. */
static void test_filtered(void **state)
{
	fixture *f = *state;
	ta_filter *flt = ta_filter_new(true);
	char *err = NULL;
	assert_int_equal(ta_filter_ignore(flt, "S3,T,G5", &err), 0);
	ta_walk *w = ta_walk_build_filtered(f->an->model, f->cat, &f->run, NULL, &f->gpu, "attention.py", flt);
	ta_walk_ready_all(w);
	ta_walk *all = ta_walk_build(f->an->model, f->cat, &f->run, &f->gpu, "attention.py");
	ta_step *s3 = ta_walk_find_step(w, "gemma_attn_fwd", "S3");
	assert_true(s3->ignored);
	assert_false(s3->silenced);
	assert_int_equal(s3->mark, TA_MARK_NOT_APPLICABLE);
	assert_false(ta_step_is_open(s3));
	assert_int_equal(s3->n_findings, 0);
	assert_null(s3->diff);
	/* T5 waits for a baseline: ignored as well (the section letter). */
	assert_int_equal(ta_walk_find_step(all, "gemma_attn_fwd", "T5")->mark, TA_MARK_NEEDS_BASELINE);
	assert_true(ta_walk_find_step(w, "gemma_attn_fwd", "T5")->ignored);
	/* G5 is satisfied: it says so still. */
	ta_step *g5 = ta_walk_find_step(w, "gemma_attn_fwd", "G5");
	assert_int_equal(g5->mark, TA_MARK_SATISFIED);
	assert_false(g5->ignored);
	/* G4 shares S3's detector but is not left out; nor is any other step. */
	const ta_walk_kernel *k = &w->kernels[0], *ka = &all->kernels[0];
	assert_int_equal(k->n_steps, ka->n_steps);
	for (size_t i = 0; i < k->n_steps; i++) {
		const ta_step *s = &k->steps[i];
		const ta_step *o = ta_walk_find_step(all, "gemma_attn_fwd", s->id);
		if (s->ignored || !strcmp(s->id, "G5"))
			continue;
		assert_int_equal(s->mark, o->mark);
		assert_int_equal(s->n_findings, o->n_findings);
		assert_true((s->diff == NULL) == (o->diff == NULL));
	}
	assert_non_null(ta_walk_find_step(w, "gemma_attn_fwd", "G4")->diff);
	/* A session keeps it. */
	const ta_source *src = f->an->src;
	ta_session *s = ta_session_new("attention.py", src->text, src->len);
	ta_session_set_walk(s, w);
	char *json = ta_session_to_json(s);
	ta_session *back;
	assert_int_equal(ta_session_from_json(json, strlen(json), "s.json", &back, &err), 0);
	assert_true(ta_walk_find_step(back->walk, "gemma_attn_fwd", "S3")->ignored);
	assert_false(ta_walk_find_step(back->walk, "gemma_attn_fwd", "G4")->ignored);
	ta_session_free(back);
	free(json);
	ta_session_free(s);
	ta_walk_free(all);
	ta_filter_free(flt);
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* A lazy walk (the advisor's) leaves every step's edit pending, makes the
 * one asked for, and once all are made is the walk ta_walk_build_vs makes. */
static void test_lazy_walk(void **state)
{
	fixture *f = *state;
	ta_walk *eager = ta_walk_build(f->an->model, f->cat, &f->run, &f->gpu, "attention.py");
	ta_walk *lazy = ta_walk_build_lazy(f->an->model, f->cat, &f->run, NULL, &f->gpu, "attention.py");
	assert_true(lazy->n_pending > 1);
	ta_step *s3 = ta_walk_find_step(lazy, "gemma_attn_fwd", "S3");
	assert_true(s3->edit_pending);
	assert_null(s3->diff);
	size_t before = lazy->n_pending;
	ta_walk_step_ready(lazy, s3);
	assert_false(s3->edit_pending);
	assert_int_equal(lazy->n_pending, before - 1);
	assert_non_null(strstr(s3->diff, "+        qk = tl.dot(q, k.T)\n"));
	ta_walk_step_ready(lazy, s3);   /* made once */
	assert_int_equal(lazy->n_pending, before - 1);
	assert_int_equal(ta_walk_ready_one(lazy), before - 2);
	ta_walk_ready_all(lazy);
	assert_int_equal(lazy->n_pending, 0);
	assert_null(lazy->rules);
	assert_int_equal(lazy->n_kernels, eager->n_kernels);
	size_t with_diff = 0;
	for (size_t k = 0; k < eager->n_kernels; k++) {
		assert_int_equal(lazy->kernels[k].n_steps, eager->kernels[k].n_steps);
		for (size_t j = 0; j < eager->kernels[k].n_steps; j++) {
			const ta_step *a = &eager->kernels[k].steps[j], *b = &lazy->kernels[k].steps[j];
			assert_string_equal(a->id, b->id);
			assert_false(b->edit_pending);
			assert_true(same_str(a->diff, b->diff));
			assert_true(same_str(a->edit_title, b->edit_title));
			assert_true(same_str(a->why_no_edit, b->why_no_edit));
			assert_int_equal(a->edit_line, b->edit_line);
			with_diff += a->diff != NULL;
		}
	}
	assert_true(with_diff > 1);
	ta_walk_free(eager);
	ta_walk_free(lazy);
	/* Freed with kernels still pending. */
	lazy = ta_walk_build_lazy(f->an->model, f->cat, NULL, NULL, NULL, "attention.py");
	assert_true(ta_walk_pending(lazy) > 0);
	ta_walk_free(lazy);
}

/* Without a run the advisor's walk also leaves its kernels' steps to make:
 * a kernel made when shown checks the kernels before it first (as
 * ta_rules_run does, in file order), and once all are made the walk is the
 * one ta_walk_build makes, finding for finding and diff for diff. */
static void test_lazy_kernels(void **state)
{
	fixture *f = *state;
	/* a case of tests/entries/L2.md, as make check writes it */
	const char *cases = getenv("TA_CASES");
	char *err = NULL, *path = ta_xasprintf("%s/rules/l2_grid_shapes.py",
					       cases && *cases ? cases : TA_BUILD_BUILDDIR "/tests/entry-cases");
	ta_analysis *an;
	assert_int_equal(ta_analysis_open(path, &an, &err), 0);
	free(path);
	ta_walk *eager = ta_walk_build(an->model, f->cat, NULL, NULL, "l2.py");
	ta_walk *lazy = ta_walk_build_lazy(an->model, f->cat, NULL, NULL, NULL, "l2.py");
	assert_true(lazy->n_kernels >= 4);
	assert_int_equal(lazy->n_kernels, eager->n_kernels);
	assert_int_equal(lazy->n_kernels_pending, lazy->n_kernels);
	assert_int_equal(lazy->n_pending, 0);
	for (size_t k = 0; k < lazy->n_kernels; k++) {
		assert_true(lazy->kernels[k].steps_pending);
		assert_int_equal(lazy->kernels[k].n_steps, 0);
		assert_string_equal(lazy->kernels[k].name, eager->kernels[k].name);
	}
	ta_walk_kernel_ready(lazy, 2);
	assert_false(lazy->kernels[2].steps_pending);
	assert_int_equal(lazy->kernels[2].n_steps, eager->kernels[2].n_steps);
	assert_true(lazy->kernels[0].steps_pending && lazy->kernels[1].steps_pending);
	assert_int_equal(lazy->rules->kernels_run, 3);
	assert_int_equal(lazy->n_kernels_pending, lazy->n_kernels - 1);
	ta_walk_kernel_ready(lazy, 2);   /* made once */
	assert_int_equal(lazy->n_kernels_pending, lazy->n_kernels - 1);
	ta_walk_ready_all(lazy);
	assert_int_equal(ta_walk_pending(lazy), 0);
	assert_null(lazy->rules);
	size_t findings = 0, diffs = 0;
	for (size_t k = 0; k < eager->n_kernels; k++) {
		const ta_walk_kernel *a = &eager->kernels[k], *b = &lazy->kernels[k];
		assert_false(b->steps_pending);
		assert_int_equal(a->n_steps, b->n_steps);
		for (size_t j = 0; j < a->n_steps; j++) {
			const ta_step *x = &a->steps[j], *y = &b->steps[j];
			assert_string_equal(x->id, y->id);
			assert_int_equal(x->status, y->status);
			assert_int_equal(x->mark, y->mark);
			assert_int_equal(x->edit_kind, y->edit_kind);
			assert_int_equal(x->n_findings, y->n_findings);
			for (size_t i = 0; i < x->n_findings; i++) {
				assert_string_equal(x->findings[i].reason, y->findings[i].reason);
				assert_int_equal(x->findings[i].line, y->findings[i].line);
				assert_int_equal(x->findings[i].edit_ok, y->findings[i].edit_ok);
			}
			assert_true(same_str(x->diff, y->diff));
			assert_true(same_str(x->edit_title, y->edit_title));
			assert_true(same_str(x->why_no_edit, y->why_no_edit));
			assert_true(same_str(x->unsafe, y->unsafe));
			assert_int_equal(x->edit_line, y->edit_line);
			assert_int_equal(x->n_edit_sites, y->n_edit_sites);
			findings += x->n_findings;
			diffs += x->diff != NULL;
		}
	}
	assert_true(findings > 4);
	assert_true(diffs > 0);
	ta_walk_free(eager);
	ta_walk_free(lazy);
	ta_analysis_free(an);
}

static void test_profiled_walk(void **state)
{
	fixture *f = *state;
	const ta_kernel_figures *kf = ta_run_figures_find(&f->run, "gemma_attn_fwd");
	assert_non_null(kf);
	/* tests/recordings/h200-2026-11-29-example-attention.text */
	assert_int_equal(kf->launches, 392);
	assert_int_equal(kf->autotune_launches, 107);
	assert_int_equal(kf->summary.count, 284);
	assert_true(kf->summary.median > 1932100 && kf->summary.median < 1932300);
	assert_int_equal(kf->regs, 138);
	assert_true(kf->has_occupancy);
	assert_string_equal(kf->limiter, "shared memory");
	assert_int_equal(kf->blocks_per_sm, 2);
	ta_walk *w = ta_walk_build(f->an->model, f->cat, &f->run, &f->gpu, "attention.py");
	ta_step *p7 = ta_walk_find_step(w, "gemma_attn_fwd", "P7");
	assert_int_not_equal(p7->mark, TA_MARK_NEEDS_PROFILE);
	ta_walk_free(w);
}

static void fill(ta_run_figures *r, const char *name, double base, unsigned version)
{
	memset(r, 0, sizeof *r);
	r->label = ta_xstrdup("x");
	r->version = version;
	r->kernels = ta_xcalloc(1, sizeof *r->kernels);
	r->n_kernels = 1;
	ta_kernel_figures *k = &r->kernels[0];
	k->name = ta_xstrdup(name);
	k->n_durations = 50;
	k->durations_ns = ta_xcalloc(50, sizeof(double));
	for (size_t i = 0; i < 50; i++)
		k->durations_ns[i] = base + (double)(i % 5);
	k->summary = ta_stats_summarize(k->durations_ns, 50);
}

static void test_change(void **state)
{
	(void)state;
	ta_run_figures a, b;
	fill(&a, "k", 1000, 0);
	fill(&b, "k", 900, 1);
	ta_change c = ta_change_between(&a, &b, "k");
	assert_true(c.measured);
	assert_true(c.cmp.ratio > 0.89 && c.cmp.ratio < 0.91);
	assert_int_equal(c.cmp.verdict, TA_VERDICT_FASTER);
	assert_false(ta_change_between(&a, &b, "other").measured);
	ta_run_figures copy;
	ta_run_figures_copy(&copy, &b);
	assert_int_equal(copy.kernels[0].n_durations, 50);
	assert_true(copy.kernels[0].durations_ns != b.kernels[0].durations_ns);
	ta_run_figures_clear(&copy);
	ta_run_figures_clear(&a);
	ta_run_figures_clear(&b);
}

/* Two shapes in both runs (one only before): compared shape by shape,
 * the later run's largest share first; the copy owns its shapes. */
static void add_shapes(ta_run_figures *r, double big, double small)
{
	ta_kernel_figures *k = &r->kernels[0];
	k->n_shapes = 3;
	k->shapes = ta_xcalloc(3, sizeof *k->shapes);
	int32_t grids[3] = { 4096, 2048, 16 };
	double med[3] = { big, small, 160 };
	for (int i = 0; i < 3; i++) {
		k->shapes[i].grid[0] = grids[i];
		k->shapes[i].grid[1] = k->shapes[i].grid[2] = 1;
		k->shapes[i].block[0] = 128;
		k->shapes[i].block[1] = k->shapes[i].block[2] = 1;
		k->shapes[i].calls = 10;
		k->shapes[i].median_ns = med[i];
		k->shapes[i].share = i == 0 ? 0.6 : i == 1 ? 0.4 : 0;
	}
	k->calls = 30;
	k->per_call_ns = (big + small + 160) / 3;
}

static void test_change_by_shape(void **state)
{
	(void)state;
	ta_run_figures a, b;
	fill(&a, "k", 1000, 0);
	fill(&b, "k", 900, 1);
	add_shapes(&a, 3900, 2200);
	add_shapes(&b, 3000, 2300);
	b.kernels[0].shapes[2].grid[0] = 32;   /* the tiny check changed its grid */
	ta_change c = ta_change_between(&a, &b, "k");
	assert_int_equal(c.n_shapes, 2);
	assert_int_equal(c.shapes[0].grid[0], 4096);
	assert_float_equal(c.shapes[0].before_ns, 3900, 1e-9);
	assert_float_equal(c.shapes[0].after_ns, 3000, 1e-9);
	assert_int_equal(c.shapes[1].grid[0], 2048);
	assert_float_equal(c.shapes[1].after_ns, 2300, 1e-9);
	ta_run_figures copy;
	ta_run_figures_copy(&copy, &b);
	assert_int_equal(copy.kernels[0].n_shapes, 3);
	assert_true(copy.kernels[0].shapes != b.kernels[0].shapes);
	ta_run_figures_clear(&copy);
	ta_run_figures_clear(&a);
	ta_run_figures_clear(&b);
}

/* Every shape changed (P1's tiles): with as many launches the workloads
 * compare, with an interval; with another number of launches they do not. */
static void test_change_new_shapes(void **state)
{
	(void)state;
	ta_run_figures a, b;
	fill(&a, "k", 1000, 0);
	fill(&b, "k", 900, 1);
	add_shapes(&a, 3900, 2200);
	add_shapes(&b, 1800, 1000);
	for (size_t i = 0; i < 3; i++) {
		a.kernels[0].shapes[i].n = b.kernels[0].shapes[i].n = 10;
		a.kernels[0].shapes[i].iqr_ns = a.kernels[0].shapes[i].median_ns * 0.02;
		b.kernels[0].shapes[i].iqr_ns = b.kernels[0].shapes[i].median_ns * 0.02;
		b.kernels[0].shapes[i].grid[0] /= 4;
	}
	ta_change c = ta_change_between(&a, &b, "k");
	assert_int_equal(c.n_shared, 0);
	assert_int_equal(c.n_gone, 3);
	assert_int_equal(c.cmp.verdict, TA_VERDICT_FASTER);
	assert_float_equal(c.cmp.ratio, b.kernels[0].per_call_ns / a.kernels[0].per_call_ns, 1e-9);
	assert_true(c.cmp.lo < c.cmp.ratio && c.cmp.hi > c.cmp.ratio);
	b.kernels[0].calls = 40;      /* one more launch per call: other work */
	c = ta_change_between(&a, &b, "k");
	assert_int_equal(c.cmp.verdict, TA_VERDICT_CHANGED);
	/* A benchmark timed by duration: the faster kernel launched more
	 * often, but the run's one part pairs with the other's. */
	ta_run_figures *r[2] = { &a, &b };
	for (int i = 0; i < 2; i++) {
		ta_kernel_figures *k = &r[i]->kernels[0];
		k->n_steady = i ? 40 : 20;
		k->steady_ns = ta_xcalloc(k->n_steady, sizeof(double));
		for (size_t j = 0; j < k->n_steady; j++)
			k->steady_ns[j] = (i ? 1800.0 : 3900.0) + (double)(j % 3);
		k->phase_start = ta_xcalloc(1, sizeof(size_t));
		k->n_phases = 1;
	}
	c = ta_change_between(&a, &b, "k");
	assert_int_equal(c.cmp.verdict, TA_VERDICT_FASTER);
	assert_float_equal(c.cmp.ratio, 1801.0 / 3901.0, 1e-9);
	assert_float_equal(c.before_ns, 3901.0, 1e-9);
	assert_float_equal(c.after_ns, 1801.0, 1e-9);
	ta_run_figures_clear(&a);
	ta_run_figures_clear(&b);
}

/* A run of a script in three parts (modes) that all launch one shape: the
 * shape's median is the middle mode's, whatever the others do. */
static void parts_run(ta_run_figures *r, const double mode[3], size_t parts, unsigned version)
{
	fill(r, "k", mode[1], version);
	ta_kernel_figures *k = &r->kernels[0];
	k->n_steady = 90;
	k->steady_ns = ta_xcalloc(90, sizeof(double));
	k->phase_start = ta_xcalloc(parts, sizeof(size_t));
	for (size_t j = 0; j < 90; j++)
		k->steady_ns[j] = mode[j / 30] + (double)(j % 3);
	for (size_t p = 0; p < parts; p++)
		k->phase_start[p] = p * 90 / parts;
	k->n_phases = parts;
	k->n_shapes = 1;
	k->shapes = ta_xcalloc(1, sizeof *k->shapes);
	k->shapes[0].grid[0] = 64;
	k->shapes[0].grid[1] = k->shapes[0].grid[2] = 1;
	k->shapes[0].block[0] = 128;
	k->shapes[0].block[1] = k->shapes[0].block[2] = 1;
	k->shapes[0].calls = 90;
	k->shapes[0].median_ns = mode[1];
	k->shapes[0].share = 1;
	k->calls = 90;
	k->per_call_ns = mode[1];
}

/* The steps of a walk chain and multiply to the whole walk, compared by
 * parts when every run has as many, else by the time per call. */
static void test_session_chain(void **state)
{
	(void)state;
	/* the middle mode moves little; the first one twice as fast */
	const double modes[4][3] = {
		{ 1900, 1400, 2500 }, { 1000, 1380, 2450 }, { 900, 1300, 2400 }, { 760, 1290, 2380 },
	};
	for (int uneven = 0; uneven < 2; uneven++) {
		ta_session *s = ta_session_new("k.py", "x", 1);
		for (unsigned v = 0; v < 4; v++) {
			ta_run_figures r;
			parts_run(&r, modes[v], uneven && v == 2 ? 2 : 3, v);
			if (v) {
				ta_session_add_edit(s, "S1", "k", 10 + v, "diff", s->current);
				char text[2] = { (char)('a' + v), 0 };
				ta_session_add_version(s, text, 1, "after");
			}
			ta_session_add_run(s, &r);
			if (v) {
				s->edits[v - 1].before_run = (int)v - 1;
				s->edits[v - 1].after_run = (int)v;
				s->edits[v - 1].to_version = v;
			}
		}
		assert_int_equal(ta_session_pairing(s, "k"), uneven ? TA_PAIR_WORKLOAD : TA_PAIR_PARTS);
		double product = 1, prev_after = 0;
		for (int e = 0; e < 3; e++) {
			ta_change c = ta_session_change(s, e, e + 1, "k");
			assert_true(c.measured);
			assert_int_equal(c.by_parts, !uneven);
			if (e)
				assert_float_equal(c.before_ns, prev_after, 1e-6);
			prev_after = c.after_ns;
			product *= c.cmp.ratio;
		}
		ta_change whole;
		int first, last;
		assert_true(ta_session_walk_change(s, "k", &whole, &first, &last));
		assert_int_equal(first, 0);
		assert_int_equal(last, 3);
		assert_float_equal(whole.cmp.ratio, product, 1e-9);
		assert_float_equal(whole.after_ns, prev_after, 1e-6);
		if (!uneven)   /* the parts' geometric mean, not the middle mode */
			assert_float_equal(whole.cmp.ratio, cbrt(761.0 / 1901.0 * 1291.0 / 1401.0 * 2381.0 / 2501.0),
					   1e-9);
		ta_session_free(s);
	}
}

static void test_marks(void **state)
{
	(void)state;
	for (int m = 0; m < TA_MARK__COUNT; m++) {
		ta_mark back;
		assert_true(ta_mark_parse(ta_mark_name((ta_mark)m), &back));
		assert_int_equal(back, m);
	}
	ta_mark x;
	assert_false(ta_mark_parse("bogus", &x));
}

static void test_annotate(void **state)
{
	fixture *f = *state;
	ta_walk *w = ta_walk_build(f->an->model, f->cat, NULL, NULL, "attention.py");
	ta_session *s = ta_session_new("attention.py", "x", 1);
	ta_session_set_skip(s, "gemma_attn_fwd", "S1", true);
	ta_run_figures a, b;
	fill(&a, "gemma_attn_fwd", 1000, 0);
	fill(&b, "gemma_attn_fwd", 1100, 1);
	ta_session_add_run(s, &a);
	ta_session_add_edit(s, "S3", "gemma_attn_fwd", 77, "diff", s->current);
	ta_session_add_version(s, "y", 1, "after S3");
	ta_session_add_run(s, &b);
	s->edits[0].after_run = 1;
	s->edits[0].to_version = 1;
	ta_session_annotate(s, w);
	assert_int_equal(ta_walk_find_step(w, "gemma_attn_fwd", "S1")->mark, TA_MARK_SKIPPED);
	ta_step *s3 = ta_walk_find_step(w, "gemma_attn_fwd", "S3");
	assert_int_equal(s3->mark, TA_MARK_APPLIED);
	assert_true(s3->has_change);
	assert_int_equal(s3->change.cmp.verdict, TA_VERDICT_SLOWER);
	/* An undone edit is no longer applied. */
	s->edits[0].undone = true;
	ta_walk_free(w);
	w = ta_walk_build(f->an->model, f->cat, NULL, NULL, "attention.py");
	ta_session_annotate(s, w);
	assert_int_equal(ta_walk_find_step(w, "gemma_attn_fwd", "S3")->mark, TA_MARK_APPLIES);
	ta_walk_free(w);
	ta_session_free(s);
}

/* T5 against a baseline: by name (a previous version of the kernel), else
 * per call against the baseline's steady kernels (set-up work left out). */
static void test_baseline(void **state)
{
	fixture *f = *state;
	ta_run_figures base;
	fill(&base, "gemma_attn_fwd", 150000, 0);
	assert_true(ta_baseline_ratio(&f->run, &base, "gemma_attn_fwd", NULL) > 12);
	ta_walk *w = ta_walk_build_vs(f->an->model, f->cat, &f->run, &base, &f->gpu, "attention.py");
	ta_step *t5 = ta_walk_find_step(w, "gemma_attn_fwd", "T5");
	assert_int_equal(t5->status, TA_STATUS_APPLIES);
	assert_int_equal(t5->n_findings, 1);
	assert_non_null(strstr(t5->findings[0].measure, "x the baseline"));
	ta_walk_free(w);
	ta_run_figures_clear(&base);

	/* A reference with kernels of its own, plus one launch of set-up. */
	fill(&base, "flash_fwd", 1000000, 0);
	base.kernels = realloc(base.kernels, 2 * sizeof *base.kernels);
	ta_kernel_figures *setup = &base.kernels[base.n_kernels++];
	memset(setup, 0, sizeof *setup);
	setup->name = ta_xstrdup("fill_inputs");
	setup->summary.count = 1;
	setup->summary.median = 5e6;
	double base_ns;
	double r = ta_baseline_ratio(&f->run, &base, "gemma_attn_fwd", &base_ns);
	assert_true(base_ns > 1000000 && base_ns < 1000005);
	assert_true(r > 1.9 && r < 2.0);
	w = ta_walk_build_vs(f->an->model, f->cat, &f->run, &base, &f->gpu, "attention.py");
	assert_int_equal(ta_walk_find_step(w, "gemma_attn_fwd", "T5")->status, TA_STATUS_SATISFIED);
	ta_walk_free(w);
	ta_run_figures_clear(&base);

	/* Without one it stays `needs baseline`. */
	w = ta_walk_build(f->an->model, f->cat, &f->run, &f->gpu, "attention.py");
	assert_int_equal(ta_walk_find_step(w, "gemma_attn_fwd", "T5")->mark, TA_MARK_NEEDS_BASELINE);
	ta_walk_free(w);
}

/* Without a baseline, T5 reads the --deep counters: far below both
 * ceilings fires, near one does not; and the figures survive a session. */
static void test_t5_from_ceilings(void **state)
{
	fixture *f = *state;
	ta_run_figures run;
	ta_run_figures_copy(&run, &f->run);
	ta_kernel_figures *k = NULL;
	for (size_t i = 0; i < run.n_kernels; i++)
		if (!strcmp(run.kernels[i].name, "gemma_attn_fwd"))
			k = &run.kernels[i];
	assert_non_null(k);
	k->deep.has_sol = true;
	k->deep.sol.dram_pct = 3.0;
	k->deep.sol.sm_pct = 6.5;
	ta_walk *w = ta_walk_build(f->an->model, f->cat, &run, &f->gpu, "attention.py");
	ta_step *t5 = ta_walk_find_step(w, "gemma_attn_fwd", "T5");
	assert_int_equal(t5->status, TA_STATUS_APPLIES);
	assert_non_null(strstr(t5->findings[0].measure, "DRAM 3.0%, SM 6.5% of peak"));
	ta_walk_free(w);

	k->deep.sol.sm_pct = 79.4;
	w = ta_walk_build(f->an->model, f->cat, &run, &f->gpu, "attention.py");
	assert_int_equal(ta_walk_find_step(w, "gemma_attn_fwd", "T5")->status, TA_STATUS_SATISFIED);
	ta_walk_free(w);

	/* Hot lines and counters through JSON and back. */
	ta_hot_figure hot[2] = { { .line = 37, .share = 0.68, .reason = "barrier", .reason_share = 0.3 },
				 { .line = 39, .share = 0.10, .reason = "long_scoreboard", .reason_share = 0.4 } };
	k->deep.samples = 1000;
	k->deep.hot = hot;
	k->deep.n_hot = 2;
	json_t *j = ta_deep_figures_json(&k->deep);
	k->deep.hot = NULL;
	k->deep.n_hot = 0;
	ta_deep_figures back;
	ta_deep_figures_from_json(&back, j);
	json_decref(j);
	assert_int_equal(back.samples, 1000);
	assert_int_equal(back.n_hot, 2);
	assert_string_equal(ta_deep_figures_line(&back, 39)->reason, "long_scoreboard");
	assert_null(ta_deep_figures_line(&back, 38));
	assert_true(back.has_sol && back.sol.sm_pct == 79.4);
	const uint32_t lines[] = { 39, 37, 37 };
	char *sentence = ta_deep_figures_sentence(&back, lines, 3);
	assert_string_equal(sentence, "78% of stall samples are on lines 37–39: barrier (waiting at a barrier)");
	free(sentence);
	ta_deep_figures_clear(&back);
	ta_run_figures_clear(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t5_from_ceilings),
		cmocka_unit_test(test_static_walk),
		cmocka_unit_test(test_suppressed),
		cmocka_unit_test(test_filtered),
		cmocka_unit_test(test_lazy_walk),
		cmocka_unit_test(test_lazy_kernels),
		cmocka_unit_test(test_profiled_walk),
		cmocka_unit_test(test_change),
		cmocka_unit_test(test_change_by_shape),
		cmocka_unit_test(test_change_new_shapes),
		cmocka_unit_test(test_session_chain),
		cmocka_unit_test(test_marks),
		cmocka_unit_test(test_annotate),
		cmocka_unit_test(test_baseline),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
