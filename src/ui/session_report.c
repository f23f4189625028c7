/* The markdown report of a session, and recording a session without a
 * terminal (`--record-session`). */
#include "config.h"
#include "ui/session_report.h"

#include <stdlib.h>
#include <string.h>

#include "advise/checklist.h"
#include "advise/device.h"
#include "advise/run.h"
#include "analyze/analysis.h"
#include "util/buf.h"
#include "util/fsutil.h"
#include "util/text.h"

static void put_us(FILE *out, double ns)
{
	fprintf(out, "%.1f µs", ns / 1000.0);
}

/* What T4 and T5 compared the last run with. */
static void baseline_section(const ta_session *s, FILE *out)
{
	if (!s->baseline)
		return;
	fprintf(out, "## Baseline (");
	ta_md_put_text(out, s->baseline_source ? s->baseline_source : "recorded");
	fprintf(out, ")\n\n");
	const ta_run_figures *r = s->n_runs ? &s->runs[s->n_runs - 1] : NULL;
	if (!r) {
		fprintf(out, "Measured; no run of the file to compare with yet.\n\n");
		return;
	}
	fprintf(out, "| kernel | median | compared with | baseline | ratio |\n|---|---|---|---|---|\n");
	for (size_t i = 0; i < r->n_kernels; i++) {
		const ta_kernel_figures *k = &r->kernels[i];
		double base_ns;
		double ratio = ta_baseline_ratio(r, s->baseline, k->name, &base_ns);
		fprintf(out, "| ");
		ta_md_put_code(out, k->name);
		fprintf(out, " | ");
		put_us(out, k->summary.median);
		fprintf(out, " | %s | ", ta_run_figures_find(s->baseline, k->name) ? "the same kernel"
										: "its kernels per call");
		put_us(out, base_ns);
		fprintf(out, " | %.2f |\n", ratio);
	}
	fprintf(out, "\n");
}

/* The measured first-to-last change of each kernel over the walk. */
static void whole_walk(const ta_session *s, const ta_walk *w, FILE *out)
{
	bool any = false;
	for (size_t k = 0; w && k < w->n_kernels; k++) {
		ta_change c;
		int a, b;
		if (!ta_session_walk_change(s, w->kernels[k].name, &c, &a, &b))
			continue;
		if (!any)
			fprintf(out, "## The whole walk\n\n| kernel | first run | last run | ratio | verdict |\n"
				"|---|---|---|---|---|\n");
		any = true;
		fprintf(out, "| ");
		ta_md_put_code(out, w->kernels[k].name);
		fprintf(out, " | ");
		put_us(out, c.before_ns);
		fprintf(out, " (");
		ta_md_put_text(out, s->runs[a].label ? s->runs[a].label : "run");
		fprintf(out, ") | ");
		put_us(out, c.after_ns);
		fprintf(out, " (");
		ta_md_put_text(out, s->runs[b].label ? s->runs[b].label : "run");
		if (c.cmp.lo == c.cmp.hi)   /* per call over every shape: two totals */
			fprintf(out, ") | %.3f (GPU time per call) | %s |\n", c.cmp.ratio,
				ta_verdict_name(c.cmp.verdict));
		else
			fprintf(out, ") | %.3f [%.3f, %.3f] | %s |\n", c.cmp.ratio, c.cmp.lo, c.cmp.hi,
				ta_verdict_name(c.cmp.verdict));
	}
	if (any)
		fprintf(out, "\n");
}

int ta_session_report(const ta_session *s, const ta_walk *w, FILE *out)
{
	/* Every string below comes from the session file: escaped for markdown. */
	fprintf(out, "# tileadvise session: ");
	ta_md_put_text(out, s->file_name);
	fprintf(out, "\n\n");
	if (s->env.has_gpu) {
		fprintf(out, "- GPU: ");
		ta_md_put_text(out, s->env.gpu ? s->env.gpu : "?");
		fprintf(out, " (sm_%d%d, %d SMs)\n", s->env.cc_major, s->env.cc_minor, s->env.sm_count);
	} else {
		fprintf(out, "- GPU: none (");
		ta_md_put_text(out, s->env.no_gpu ? s->env.no_gpu : "not profiled");
		fprintf(out, ")\n");
	}
	if (s->env.driver)
		fprintf(out, "- CUDA driver API: %d.%d\n", s->env.driver / 1000, (s->env.driver % 1000) / 10);
	if (s->env.software) {
		fprintf(out, "- software: ");
		ta_md_put_text(out, s->env.software);
		fprintf(out, "\n");
	}
	fprintf(out, "- session started ");
	ta_md_put_text(out, s->created ? s->created : "?");
	fprintf(out, ", last saved ");
	ta_md_put_text(out, s->updated ? s->updated : "?");
	fprintf(out, "\n");
	fprintf(out, "- file versions: %zu; measured runs: %zu\n\n", s->n_versions, s->n_runs);

	if (s->n_runs) {
		const ta_run_figures *r = &s->runs[s->n_runs - 1];
		fprintf(out, "## Last measurement (");
		ta_md_put_text(out, r->label ? r->label : "run");
		fprintf(out, ", ");
		ta_md_put_text(out, r->date ? r->date : "?");
		fprintf(out, ")\n\n");
		/* "time per call": the host period between launches of the kernel
		 * (wrapper and autotuner in it), next to the GPU time; a column
		 * only when the run has it (older sessions do not). */
		bool periods = false;
		for (size_t i = 0; i < r->n_kernels; i++)
			periods |= r->kernels[i].n_period > 0;
		if (periods)
			fprintf(out, "| kernel | launches | median | IQR | time per call | occupancy |\n"
				"|---|---|---|---|---|---|\n");
		else
			fprintf(out, "| kernel | launches | median | IQR | occupancy |\n|---|---|---|---|---|\n");
		for (size_t i = 0; i < r->n_kernels; i++) {
			const ta_kernel_figures *k = &r->kernels[i];
			fprintf(out, "| ");
			ta_md_put_code(out, k->name);
			fprintf(out, " | %zu | ", k->launches);
			put_us(out, k->summary.median);
			fprintf(out, " | ");
			put_us(out, k->summary.iqr);
			if (periods) {
				fprintf(out, " | ");
				if (k->n_period)
					put_us(out, k->period_ns);
				else
					fprintf(out, "-");
			}
			if (k->has_occupancy)
			{
				fprintf(out, " | %.1f%% (", k->occupancy * 100);
				ta_md_put_text(out, k->limiter);
				fprintf(out, ") |\n");
			}
			else
				fprintf(out, " | - |\n");
		}
		fprintf(out, "\n");
	}

	baseline_section(s, out);
	fprintf(out, "## Applied edits\n\n");
	size_t shown = 0;
	for (size_t i = 0; i < s->n_edits; i++) {
		const ta_session_edit *e = &s->edits[i];
		if (e->undone)
			continue;
		shown++;
		fprintf(out, "- **");
		ta_md_put_text(out, e->id);
		fprintf(out, "** at line %u (", (unsigned)e->line);
		ta_md_put_text(out, e->date ? e->date : "?");
		fprintf(out, ")");
		if (e->test != TA_TEST_NONE)
			fprintf(out, "; test %s", e->test == TA_TEST_PASSED ? "passed" : "FAILED");
		fprintf(out, "\n");
		char *broken = ta_session_edit_broken(e);
		if (broken) {
			/* No verdict: a broken program's time says nothing of the edit. */
			fprintf(out, "  - **broken**: ");
			ta_md_put_prose(out, broken);
			fprintf(out, "; not compared\n");
			free(broken);
		} else if (e->before_run >= 0 && e->after_run >= 0) {
			const ta_run_figures *b = &s->runs[e->before_run], *a = &s->runs[e->after_run];
			for (size_t k = 0; k < a->n_kernels; k++) {
				ta_change c = ta_change_between(b, a, a->kernels[k].name);
				if (!c.measured)
					continue;
				fprintf(out, "  - ");
				ta_md_put_code(out, a->kernels[k].name);
				fprintf(out, ": ");
				put_us(out, c.before_ns);
				fprintf(out, " → ");
				put_us(out, c.after_ns);
				fprintf(out, ", ratio %.3f [%.3f, %.3f]: %s", c.cmp.ratio, c.cmp.lo, c.cmp.hi,
					ta_verdict_name(c.cmp.verdict));
				if (c.period_before_ns > 0) {
					fprintf(out, "; time per call (host time between launches) ");
					put_us(out, c.period_before_ns);
					fprintf(out, " → ");
					put_us(out, c.period_after_ns);
					fprintf(out, " (%.3f)", c.period_after_ns / c.period_before_ns);
				}
				fprintf(out, "\n");
			}
		}
	}
	if (!shown)
		fprintf(out, "None yet.\n");
	fprintf(out, "\n");
	whole_walk(s, w, out);

	for (size_t k = 0; w && k < w->n_kernels; k++) {
		const ta_walk_kernel *wk = &w->kernels[k];
		fprintf(out, "## Kernel ");
		ta_md_put_code(out, wk->name);
		fprintf(out, " (line %u)\n\n", (unsigned)wk->def_line);
		size_t folded = 0;
		for (size_t j = 0; j < wk->n_steps; j++) {
			const ta_step *st = &wk->steps[j];
			if (!ta_step_is_open(st)) {
				folded++;
				continue;
			}
			fprintf(out, "- **");
			ta_md_put_text(out, st->id);
			fprintf(out, "** — %s%s", ta_mark_name(st->mark), st->broken ? ", broken" : "");
			if (st->n_findings) {
				fprintf(out, ": line %u: ", (unsigned)st->findings[0].line);
				ta_md_put_prose(out, st->findings[0].reason);
			}
			fprintf(out, "\n");
		}
		fprintf(out, "- %zu more steps %s or %s\n\n", folded, ta_mark_name(TA_MARK_SATISFIED),
			ta_mark_name(TA_MARK_NOT_APPLICABLE));
	}
	return ferror(out) ? -1 : 0;
}

/* ---- --record-session ---------------------------------------------------------- */

int ta_session_record(const char *file, const char *records, const char *baseline_records,
		      const char *gpu_preset, const char *out, char **err)
{
	return ta_session_record_walk(file, records, baseline_records, gpu_preset, NULL, 0, out, err);
}

/* Each step in order: how many kept the measured text, or -1 with *err
 * naming the step that failed. */
static int apply_steps(ta_session *s, ta_analysis **a, const ta_record_step *steps, size_t n,
		       const ta_gpu_info *gpu, char **err)
{
	int kept = 0;
	for (size_t i = 0; i < n; i++) {
		char *why = NULL;
		int rc = ta_session_apply_step(s, a, &steps[i], gpu, &why);
		if (rc < 0) {
			*err = ta_xasprintf("--step %s (step %zu of %zu): %s", steps[i].id, i + 1, n, why);
			free(why);
			return -1;
		}
		kept += rc;
	}
	return kept;
}

int ta_session_record_walk(const char *file, const char *records, const char *baseline_records,
			   const char *gpu_preset, const ta_record_step *steps, size_t n_steps,
			   const char *out, char **err)
{
	ta_analysis *a;
	if (ta_analysis_open(file, &a, err) != 0)
		return -1;
	ta_catalog *cat = ta_catalog_load(NULL, err);
	if (!cat) {
		ta_analysis_free(a);
		return -1;
	}
	const ta_model *m = a->model;
	ta_session *s = ta_session_new(file, a->src->text, a->src->len);
	ta_device dev;
	ta_device_request dr = { .preset = gpu_preset, .records = true };
	if (ta_device_resolve(&dr, &dev, err) != 0)
		goto fail;
	ta_gpu_info gpu = dev.gpu;
	bool has_gpu = dev.has_gpu;
	ta_device_clear(&dev);
	ta_run_figures run = { 0 }, *runp = NULL;
	if (records) {
		ta_records_meta meta;
		if (ta_run_figures_from_records(m, records, has_gpu ? &gpu : NULL, false, "recorded run",
						&run, &meta, err) != 0)
			goto fail;
		if (has_gpu && meta.driver > 0)
			gpu.driver_version = meta.driver;
		s->env.cupti = meta.cupti;
		free(s->created);
		s->created = meta.date;
		runp = &run;
	}
	if (baseline_records) {
		ta_run_figures base;
		if (ta_run_figures_from_records(m, baseline_records, has_gpu ? &gpu : NULL, true, "baseline",
						&base, NULL, err) != 0) {
			ta_run_figures_clear(&run);
			goto fail;
		}
		ta_session_set_baseline(s, &base, baseline_records);
	}
	if (has_gpu) {
		ta_session_set_env_gpu(s, &gpu);
		s->env.host = ta_xasprintf("recorded on an %s", gpu.name);
	} else {
		s->env.no_gpu = ta_xstrdup("no GPU was named for this recording");
	}
	const char *sw = getenv("TILEADVISE_SOFTWARE");
	if (sw && *sw)
		s->env.software = ta_xstrdup(sw);
	if (runp)
		ta_session_add_run(s, runp);
	ta_run_figures_clear(&run);
	int kept = apply_steps(s, &a, steps, n_steps, has_gpu ? &gpu : NULL, err);
	if (kept < 0)
		goto fail;
	/* The walk as the advisor shows it at the last version, with its run. */
	m = a->model;
	int last = ta_session_run_of(s, s->current);
	ta_walk *w = ta_walk_build_vs(m, cat, last >= 0 ? &s->runs[last] : NULL, s->baseline,
				      has_gpu ? &gpu : NULL, s->file_name);
	ta_session_set_walk(s, w);
	/* Open on a launched kernel: an edit may add a helper before it. */
	for (size_t i = 0; i < m->kernel_count && !s->pos_kernel; i++)
		if (!m->kernels[i].is_helper)
			s->pos_kernel = ta_xstrdup(m->kernels[i].name);
	if (m->kernel_count && !s->pos_kernel)
		s->pos_kernel = ta_xstrdup(m->kernels[0].name);
	int rc = ta_session_save(s, out, err);
	ta_session_free(s);
	ta_catalog_free(cat);
	ta_analysis_free(a);
	return rc == 0 ? kept : -1;
fail:
	ta_session_free(s);
	ta_catalog_free(cat);
	ta_analysis_free(a);
	return -1;
}
