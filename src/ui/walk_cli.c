/* `tileadvise --walk` (see walk_cli.h): the advisor opened on the file,
 * walked by advise/autowalk, its events written as they come. */
#include "config.h"
#include "ui/walk_cli.h"

#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise/autowalk.h"
#include "util/buf.h"
#include "util/fsutil.h"
#include "util/json.h"
#include "util/text.h"

/* One row of the final table: a kernel's change after a step, or a step
 * with no figure. */
typedef struct row {
	char id[8];
	char *kernel;                 /* NULL: no figure */
	ta_change change;
	char *outcome;                /* "kept: ...", "reverted: ..." */
} row;

typedef struct sink {
	const ta_walk_cli_options *o;
	ta_advisor *a;
	row *rows;
	size_t n_rows;
	size_t step_first;            /* the current step's first row */
	ta_change *whole;             /* the whole walk per kernel */
	char **whole_kernel;
	size_t n_whole;
	char *stop_reason;            /* why the walk stopped early; NULL: it did not */
} sink;

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void us(char *b, size_t n, double ns)
{
	snprintf(b, n, "%.1f µs", ns / 1e3);
}

static const char *verdict_text(const ta_change *c)
{
	return c->cmp.verdict == TA_VERDICT_NOISE ? "within noise" : ta_verdict_name(c->cmp.verdict);
}

/* ---- jsonl ---------------------------------------------------------------------- */

static json_t *change_json(const ta_change *c)
{
	json_t *o = json_pack("{s:f, s:f, s:f, s:[f, f], s:s}", "before_ns", c->before_ns, "after_ns", c->after_ns,
			      "ratio", c->cmp.ratio, "ci95", c->cmp.lo, c->cmp.hi, "verdict",
			      ta_verdict_name(c->cmp.verdict));
	if (c->n_shapes) {
		json_t *sh = json_array();
		for (size_t i = 0; i < c->n_shapes; i++) {
			const ta_shape_change *x = &c->shapes[i];
			json_array_append_new(sh, json_pack("{s:[i, i, i], s:[i, i, i], s:f, s:f, s:f}", "grid",
							    x->grid[0], x->grid[1], x->grid[2], "block", x->block[0],
							    x->block[1], x->block[2], "before_ns", x->before_ns,
							    "after_ns", x->after_ns, "share", x->share));
		}
		json_object_set_new(o, "shapes", sh);
	}
	if (c->by_parts)    /* the runs' parts paired */
		json_object_set_new(o, "paired_parts", json_true());
	return o;
}

static json_t *run_json(const ta_session *s, int r)
{
	json_t *ks = json_array();
	for (size_t k = 0; r >= 0 && k < s->runs[r].n_kernels; k++) {
		const ta_kernel_figures *f = &s->runs[r].kernels[k];
		json_t *o = json_pack("{s:o, s:f, s:I}", "name", ta_json_raw(f->name), "median_ns", f->summary.median, "launches",
				      (json_int_t)f->launches);
		if (f->calls)
			json_object_set_new(o, "per_call_ns", json_real(f->per_call_ns));
		/* the figure the steps' before and after are (their parts' mean) */
		size_t parts;
		json_object_set_new(o, "figure_ns", json_real(ta_session_figure(s, r, f->name, &parts)));
		if (parts)
			json_object_set_new(o, "parts", json_integer((json_int_t)parts));
		json_array_append_new(ks, o);
	}
	return ks;
}

static void put_json(json_t *o)
{
	/* Names and a program's output are bytes: not UTF-8, they keep a
	 * KEY_bytes beside them (util/json.h) rather than vanish. */
	ta_json_dumpf(o, stdout, JSON_COMPACT | JSON_REAL_PRECISION(10));
	fputc('\n', stdout);
	fflush(stdout);
	json_decref(o);
}

static void jsonl_event(sink *k, const ta_walk_event *ev)
{
	const ta_session *s = ta_advisor_session(k->a);
	static const char *const names[] = {
		[TA_WALK_FIRST_RUN] = "first_run", [TA_WALK_STEP] = "step", [TA_WALK_DIFF] = "diff",
		[TA_WALK_MEASURED] = "measured", [TA_WALK_TEST] = "test", [TA_WALK_KEPT] = "kept",
		[TA_WALK_REVERTED] = "reverted", [TA_WALK_NOT_MADE] = "not_made", [TA_WALK_NOTE] = "note",
		[TA_WALK_SUMMARY] = "summary",
	};
	json_t *o = json_pack("{s:s}", "event", names[ev->kind]);
	if (ev->id)
		json_object_set_new(o, "id", json_string(ev->id));
	switch (ev->kind) {
	case TA_WALK_FIRST_RUN:
		json_object_set_new(o, "run", json_integer(ev->run_after));
		json_object_set_new(o, "kernels", run_json(s, ev->run_after));
		break;
	case TA_WALK_DIFF:
		json_object_set_new(o, "line", json_integer(ev->line));
		json_object_set_new(o, "diff", ta_json_raw(ev->text ? ev->text : ""));
		break;
	case TA_WALK_MEASURED: {
		json_object_set_new(o, "scope", json_string(ev->id ? "step" : "walk"));
		json_object_set_new(o, "kernel", ta_json_raw(ev->kernel));
		json_t *c = change_json(ev->change);
		json_object_update(o, c);
		json_decref(c);
		json_object_set_new(o, "run_before", json_integer(ev->run_before));
		json_object_set_new(o, "run_after", json_integer(ev->run_after));
		break;
	}
	case TA_WALK_TEST:
		json_object_set_new(o, "passed", json_boolean(ev->passed));
		json_object_set_new(o, "how", ta_json_raw(ev->text ? ev->text : ""));
		break;
	case TA_WALK_KEPT:
	case TA_WALK_REVERTED:
	case TA_WALK_NOT_MADE:
		json_object_set_new(o, "why", ta_json_raw(ev->text ? ev->text : ""));
		break;
	case TA_WALK_NOTE:
		json_object_set_new(o, "text", ta_json_raw(ev->text ? ev->text : ""));
		json_object_set_new(o, "error", json_boolean(ev->error));
		break;
	case TA_WALK_SUMMARY:
		json_object_set_new(o, "tried", json_integer((json_int_t)ev->tried));
		json_object_set_new(o, "kept", json_integer((json_int_t)ev->kept));
		json_object_set_new(o, "reverted", json_integer((json_int_t)ev->reverted));
		json_object_set_new(o, "not_made", json_integer((json_int_t)ev->not_made));
		json_object_set_new(o, "stopped", ta_json_raw(ev->stop_reason));
		json_object_set_new(o, "first_run", json_integer(ev->run_before));
		json_object_set_new(o, "last_run", json_integer(ev->run_after));
		json_object_set_new(o, "session", ta_json_raw(ta_advisor_session_path(k->a)));
		break;
	case TA_WALK_STEP:
		break;
	}
	put_json(o);
}

/* ---- text and markdown ---------------------------------------------------------------- */

static void add_row(sink *k, const char *id, const char *kernel, const ta_change *c)
{
	row *r = TA_APPEND(k->rows, k->n_rows);
	snprintf(r->id, sizeof r->id, "%s", id);
	r->kernel = kernel ? ta_xstrdup(kernel) : NULL;
	if (c)
		r->change = *c;
}

/* What happened, on stderr as it happens. */
static void progress(sink *k, const ta_walk_event *ev)
{
	char b[32], a[32];
	const ta_session *s = ta_advisor_session(k->a);
	switch (ev->kind) {
	case TA_WALK_FIRST_RUN:
		for (size_t i = 0; i < s->runs[ev->run_after].n_kernels; i++) {
			const ta_kernel_figures *f = &s->runs[ev->run_after].kernels[i];
			size_t parts;
			us(b, sizeof b, ta_session_figure(s, ev->run_after, f->name, &parts));
			if (parts)   /* the figure the steps compare: say which */
				fprintf(stderr, "tileadvise: first run: %s %s (the geometric mean of its %zu parts)\n",
					ta_text_name(f->name), b, parts);
			else
				fprintf(stderr, "tileadvise: first run: %s %s%s\n", ta_text_name(f->name), b,
					f->calls ? " per call" : "");
		}
		break;
	case TA_WALK_STEP:
		fprintf(stderr, "tileadvise: %s: trying it\n", ev->id);
		break;
	case TA_WALK_MEASURED:
		us(b, sizeof b, ev->change->before_ns);
		us(a, sizeof a, ev->change->after_ns);
		fprintf(stderr, "tileadvise: %s: %s %s -> %s, %.3f [%.3f, %.3f] %s\n", ev->id ? ev->id : "whole walk",
			ta_text_name(ev->kernel), b, a, ev->change->cmp.ratio, ev->change->cmp.lo, ev->change->cmp.hi,
			verdict_text(ev->change));
		break;
	case TA_WALK_TEST:
		fprintf(stderr, "tileadvise: %s: the test %s (%s)\n", ev->id, ev->passed ? "passed" : "failed",
			ev->text ? ev->text : "");
		break;
	case TA_WALK_KEPT:
	case TA_WALK_REVERTED:
	case TA_WALK_NOT_MADE:
		fprintf(stderr, "tileadvise: %s: %s: %s\n", ev->id, ev->kind == TA_WALK_KEPT ? "kept"
							   : ev->kind == TA_WALK_REVERTED ? "reverted" : "no edit",
			ev->text ? ev->text : "");
		break;
	case TA_WALK_NOTE:
		if (ev->error)
			fprintf(stderr, "tileadvise: %s\n", ev->text);
		break;
	case TA_WALK_DIFF:
	case TA_WALK_SUMMARY:
		break;
	}
}

static void table_event(sink *k, const ta_walk_event *ev)
{
	progress(k, ev);
	switch (ev->kind) {
	case TA_WALK_STEP:
		k->step_first = k->n_rows;
		break;
	case TA_WALK_MEASURED:
		if (ev->id) {
			add_row(k, ev->id, ev->kernel, ev->change);
		} else {
			*TA_APPEND(k->whole, k->n_whole) = *ev->change;
			k->whole_kernel = ta_xrealloc(k->whole_kernel, k->n_whole * sizeof *k->whole_kernel);
			k->whole_kernel[k->n_whole - 1] = ta_xstrdup(ev->kernel);
		}
		break;
	case TA_WALK_SUMMARY:
		if (ev->stop_reason)
			k->stop_reason = ta_xstrdup(ev->stop_reason);
		break;
	case TA_WALK_KEPT:
	case TA_WALK_REVERTED:
	case TA_WALK_NOT_MADE:
		if (k->step_first == k->n_rows)
			add_row(k, ev->id, NULL, NULL);
		for (size_t i = k->step_first; i < k->n_rows; i++)
			k->rows[i].outcome = ta_xasprintf("%s%s%s", ev->kind == TA_WALK_KEPT ? "kept"
								: ev->kind == TA_WALK_REVERTED ? "reverted" : "no edit",
							  ev->text ? ": " : "", ev->text ? ev->text : "");
		break;
	default:
		break;
	}
}

static void on_event(void *ctx, const ta_walk_event *ev)
{
	sink *k = ctx;
	if (k->o->format == TA_FORMAT_JSONL)
		jsonl_event(k, ev);
	else
		table_event(k, ev);
}

/* The outcome column of the text table: a long reason is cut (stderr and
 * --format=jsonl have it whole). */
#define OUTCOME_WIDTH 72

static void cell(FILE *out, bool md, const char *s, int width)
{
	if (!md && !width && strlen(s) > OUTCOME_WIDTH) {
		fprintf(out, "%.*s...  ", OUTCOME_WIDTH - 3, ta_text_name(s));
		return;
	}
	if (md) {
		fputs("| ", out);
		ta_md_put_text(out, s);
		fputc(' ', out);
	} else {
		fprintf(out, "%-*s  ", width, ta_text_name(s));
	}
}

static void write_table(const sink *k, const ta_autowalk_result *res, FILE *out)
{
	bool md = k->o->format == TA_FORMAT_MARKDOWN;
	static const char *const head[] = { "step", "kernel", "before", "after", "ratio", "interval",
					    "verdict", "outcome" };
	static const int width[] = { 4, 20, 10, 10, 6, 15, 13, 0 };
	for (size_t i = 0; i < 8; i++)
		cell(out, md, head[i], width[i]);
	fputs(md ? "|\n|---|---|---|---|---|---|---|---|\n" : "\n", out);
	for (size_t i = 0; i < k->n_rows; i++) {
		const row *r = &k->rows[i];
		char b[32] = "-", a[32] = "-", ratio[16] = "-", iv[40] = "-";
		const char *v = "-";
		if (r->kernel) {
			us(b, sizeof b, r->change.before_ns);
			us(a, sizeof a, r->change.after_ns);
			snprintf(ratio, sizeof ratio, "%.3f", r->change.cmp.ratio);
			snprintf(iv, sizeof iv, "[%.3f, %.3f]", r->change.cmp.lo, r->change.cmp.hi);
			v = verdict_text(&r->change);
		}
		const char *cells[] = { r->id, r->kernel ? r->kernel : "-", b, a, ratio, iv, v,
					r->outcome ? r->outcome : "-" };
		for (size_t c = 0; c < 8; c++)
			cell(out, md, cells[c], width[c]);
		fputs(md ? "|\n" : "\n", out);
	}
	fputc('\n', out);
	for (size_t i = 0; i < k->n_whole; i++) {
		char b[32], a[32];
		us(b, sizeof b, k->whole[i].before_ns);
		us(a, sizeof a, k->whole[i].after_ns);
		fprintf(out, "%swhole walk: %s %s -> %s, %.3f (first run to last)\n", md ? "- " : "",
			k->whole_kernel[i], b, a, k->whole[i].cmp.ratio);
	}
	fprintf(out, "%skept %zu of %zu steps tried (%zu reverted, %zu without an edit)%s%s\n", md ? "- " : "",
		res->kept, res->tried, res->reverted, res->not_made, k->stop_reason ? "; stopped early: " : "",
		k->stop_reason ? k->stop_reason : "");
	/* The path holds the file's name: a line break of it would make a line
	 * of its own (a CI log reads "::error ..." as a command). */
	if (md) {
		fputs("- the session: ", out);
		ta_md_put_code(out, ta_advisor_session_path(k->a));
		fputs(" (tileadvise --replay shows it)\n", out);
	} else {
		fprintf(out, "the session: %s (tileadvise --replay shows it)\n",
			ta_text_name(ta_advisor_session_path(k->a)));
	}
}

static void free_sink(sink *k)
{
	for (size_t i = 0; i < k->n_rows; i++) {
		free(k->rows[i].kernel);
		free(k->rows[i].outcome);
	}
	free(k->rows);
	for (size_t i = 0; i < k->n_whole; i++)
		free(k->whole_kernel[i]);
	free(k->whole_kernel);
	free(k->whole);
	free(k->stop_reason);
}

/* ---- the walk --------------------------------------------------------------------------- */

ta_exit ta_walk_cli_run(const ta_walk_cli_options *o)
{
	ta_advisor_options ao = {
		.file = o->file,
		.command = o->command,
		.test_command = o->test_command,
		.records = o->records,
		.gpu_preset = o->gpu_preset,
		.timeout_s = o->timeout_s,
		.select = o->select,
		.ignore = o->ignore,
		.preview = o->preview,
		.isolated = o->isolated,
	};
	ta_advisor *a;
	char *err = NULL;
	if (ta_advisor_open(&ao, &a, &err) != 0) {
		fprintf(stderr, "tileadvise: %s\n", err);
		free(err);
		return TA_EXIT_ERROR;
	}
	/* What opening said (a resumed session) is of no use here, but for
	 * what the project's pyproject.toml leaves out. */
	ta_advisor_event ev;
	while (ta_advisor_next_event(a, &ev))
		if (ev.kind == TA_ADVISOR_PROJECT)
			fprintf(stderr, "tileadvise: %s\n", ev.text);
	if (!ta_advisor_can_run(a)) {
		fprintf(stderr, "tileadvise: --walk measures every step and cannot here: %s\n",
			ta_advisor_why_no_run(a) ? ta_advisor_why_no_run(a) : "no GPU");
		ta_advisor_free(a);
		return TA_EXIT_ERROR;
	}
	struct sigaction sa, old_int, old_term;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;   /* no SA_RESTART: the wait wakes up */
	sigemptyset(&sa.sa_mask);
	stop_flag = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sink k = { .o = o, .a = a };
	ta_autowalk_options wo = { .unsafe_ok = o->unsafe_fixes, .keep_neutral = o->keep_neutral,
				   .budget_s = o->budget_s, .stop = &stop_flag, .event = on_event, .ctx = &k };
	ta_autowalk_result res;
	int rc = ta_autowalk_run(a, &wo, &res, &err);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	ta_exit status;
	if (rc != 0) {
		fprintf(stderr, "tileadvise: %s\n", err);
		free(err);
		status = TA_EXIT_ERROR;
	} else {
		if (o->format != TA_FORMAT_JSONL)
			write_table(&k, &res, stdout);
		status = stop_flag ? TA_EXIT_INTERRUPTED : res.kept ? TA_EXIT_OK : TA_EXIT_FINDINGS;
	}
	char *serr = NULL;
	const ta_walk *w = ta_advisor_walk(a);
	if (ta_advisor_save(a, w && w->n_kernels ? w->kernels[0].name : NULL, NULL, &serr) != 0) {
		fprintf(stderr, "tileadvise: %s\n", serr);
		free(serr);
		status = TA_EXIT_ERROR;
	}
	free_sink(&k);
	ta_advisor_free(a);
	return status;
}
