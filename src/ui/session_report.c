/* The markdown report of a session. */
#include "config.h"
#include "ui/session_report.h"

#include <stdlib.h>
#include <string.h>

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
			const ta_run_figures *a = &s->runs[e->after_run];
			for (size_t k = 0; k < a->n_kernels; k++) {
				ta_change c = ta_session_change(s, e->before_run, e->after_run, a->kernels[k].name);
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
