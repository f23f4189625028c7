/* The right pane: the step page. Title and section, the reason in the
 * user's terms, the source with the concerned lines highlighted, the
 * evidence figures, the typical impact, the edit as a coloured diff, and
 * the measured before -> after once applied. */
#include "config.h"
#include "ui/tui/app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/tui/term.h"
#include "util/buf.h"

/* A page writer: lines go to the pane from `top` on, clipped. */
typedef struct page {
	const ta_rect *r;
	int line;                 /* next line number on the page */
	int top;
} page;

static bool visible(const page *p, int *y)
{
	int rel = p->line - p->top;
	if (rel < 0 || rel >= p->r->h)
		return false;
	*y = p->r->y + rel;
	return true;
}

static void text(page *p, int indent, ta_role role, const char *s, size_t n)
{
	int y;
	if (visible(p, &y)) {
		if (role == TA_ROLE_HILITE || role == TA_ROLE_SELECT)
			ta_term_fill(y, p->r->x, p->r->w, role);
		/* a word wider than the pane still shows that it goes on */
		ta_term_put_scrolled(y, p->r->x + indent, p->r->w - indent, s, n, 0, role);
	}
	p->line++;
}

static void textf(page *p, int indent, ta_role role, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void wrap(page *p, int indent, ta_role role, const char *s);

/* A line of prose or figures: word-wrapped, never cut. */
static void textf(page *p, int indent, ta_role role, const char *fmt, ...)
{
	ta_buf b = TA_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	ta_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	wrap(p, indent, role, ta_buf_str(&b));
	ta_buf_free(&b);
}

/* A line of code or diff: not wrapped (its layout is its meaning) but cut
 * with an ellipsis and scrolled sideways with the arrow keys. */
static void code(page *p, int indent, ta_role role, const char *s, size_t n, int skip)
{
	int y;
	if (visible(p, &y))
		ta_term_put_scrolled(y, p->r->x + indent, p->r->w - indent, s, n, skip, role);
	p->line++;
}

static void blank(page *p)
{
	p->line++;
}

/* Word-wraps s (paragraphs split on "\n") to the pane's width. */
static void wrap(page *p, int indent, ta_role role, const char *s)
{
	int width = p->r->w - indent - 1;
	if (width < 10)
		width = 10;
	while (*s) {
		const char *end = strchr(s, '\n');
		size_t plen = end ? (size_t)(end - s) : strlen(s);
		const char *q = s, *stop = s + plen;
		if (q == stop)
			blank(p);
		while (q < stop) {
			const char *line_start = q, *last_break = NULL;
			int col = 0;
			const char *c = q;
			while (c < stop) {
				/* the spaces before a word count as drawn */
				const char *gap = c;
				while (c < stop && *c == ' ')
					c++;
				const char *w = c;
				while (w < stop && *w != ' ')
					w++;
				int ww = ta_term_width(gap, (size_t)(w - gap));
				if (col && col + ww > width)
					break;
				col += ww;
				last_break = w;
				c = w;
			}
			if (!last_break)
				last_break = stop;
			text(p, indent, role, line_start, (size_t)(last_break - line_start));
			q = last_break;
			while (q < stop && *q == ' ')
				q++;
		}
		s = end ? end + 1 : stop;
	}
}

static bool line_concerned(const ta_step *s, uint32_t line)
{
	for (size_t i = 0; i < s->n_findings; i++) {
		const ta_walk_finding *f = &s->findings[i];
		if (line >= f->line && line <= f->end_line && f->end_line - f->line < 6)
			return true;
		if (line == f->line)
			return true;
		for (size_t l = 0; l < f->n_lines; l++)
			if (f->lines[l] == line)
				return true;
	}
	return false;
}

/* The kernel's --deep figures in the last run, or NULL. */
static const ta_deep_figures *deep_of(const ta_app *app, const ta_walk_kernel *k)
{
	const ta_kernel_figures *f = ta_run_figures_find(ta_advisor_last_run(app->adv), k->name);
	return f && (f->deep.samples || f->deep.has_sol) ? &f->deep : NULL;
}

/* The heat gutter: a glyph for the line's share of the kernel's stall
 * samples (blank under 0.1%) and the share itself from 1%. */
static int heat_cell(int y, int x, const ta_deep_figures *d, uint32_t line)
{
	const ta_hot_figure *h = ta_deep_figures_line(d, line);
	double share = h ? h->share : 0;
	ta_glyph g = share >= 0.20 ? TA_G_HEAT4 : share >= 0.05 ? TA_G_HEAT3
		   : share >= 0.01 ? TA_G_HEAT2 : TA_G_HEAT1;
	ta_role role = share >= 0.05 ? TA_ROLE_SLOWER : share >= 0.01 ? TA_ROLE_WARN : TA_ROLE_DIM;
	if (share < 0.001)
		return ta_term_printf(y, x, 6, TA_ROLE_DIM, "      ");
	if (share < 0.01)
		return ta_term_printf(y, x, 6, role, "%s     ", ta_glyph_str(g));
	return ta_term_printf(y, x, 6, role, "%s%4.0f%%", ta_glyph_str(g), share * 100);
}

/* The concerned lines of a step, for the hot-spot sentence (caller frees). */
static uint32_t *step_lines(const ta_step *s, size_t *n)
{
	size_t cap = 0;
	for (size_t i = 0; i < s->n_findings; i++)
		cap += 7 + s->findings[i].n_lines;   /* a span of at most 6, its line, the others */
	uint32_t *out = ta_xcalloc(cap + 1, sizeof *out);
	*n = 0;
	for (size_t i = 0; i < s->n_findings; i++) {
		const ta_walk_finding *f = &s->findings[i];
		for (uint32_t l = f->line; l <= f->end_line && l < f->line + 6; l++)
			out[(*n)++] = l;
		if (f->end_line < f->line)
			out[(*n)++] = f->line;
		for (size_t j = 0; j < f->n_lines && *n < cap; j++)
			out[(*n)++] = f->lines[j];
	}
	return out;
}

static void source_excerpt(page *p, const ta_app *app, const ta_walk_kernel *k, const ta_step *s)
{
	const ta_source *src = ta_advisor_source(app->adv);
	const ta_deep_figures *deep = deep_of(app, k);
	if (deep && !deep->samples)
		deep = NULL;
	if (!src || !s->n_findings)
		return;
	uint32_t lo = s->findings[0].line, hi = lo;
	for (size_t i = 0; i < s->n_findings; i++) {
		const ta_walk_finding *f = &s->findings[i];
		if (f->line && f->line < lo)
			lo = f->line;
		if (f->line > hi)
			hi = f->line;
		for (size_t l = 0; l < f->n_lines; l++) {
			if (f->lines[l] && f->lines[l] < lo)
				lo = f->lines[l];
			if (f->lines[l] > hi)
				hi = f->lines[l];
		}
	}
	/* Keep the excerpt short; the first concerned line leads. */
	if (hi > lo + 14)
		hi = lo + 14;
	uint32_t from = lo > 3 ? lo - 3 : 1, to = hi + 3;
	if (to > src->line_count)
		to = (uint32_t)src->line_count;
	textf(p, 1, TA_ROLE_TITLE, "Source %s %s, lines %u-%u", ta_glyph_str(TA_G_DOT),
	      ta_advisor_session(app->adv)->file_name, (unsigned)from, (unsigned)to);
	for (uint32_t l = from; l <= to; l++) {
		size_t len;
		const char *t = ta_source_line(src, l, &len);
		bool hot = line_concerned(s, l);
		int y;
		if (visible(p, &y)) {
			ta_role role = hot ? TA_ROLE_HILITE : TA_ROLE_NORMAL;
			if (hot)
				ta_term_fill(y, p->r->x, p->r->w, role);
			int x = p->r->x + 1;
			x += ta_term_printf(y, x, p->r->w - 1, hot ? role : TA_ROLE_LINENO, "%s%5u ",
					    hot ? ta_glyph_str(TA_G_CURSOR) : " ", (unsigned)l);
			if (deep)
				x += heat_cell(y, x, deep, l);
			x += ta_term_printf(y, x, p->r->x + p->r->w - x, hot ? role : TA_ROLE_LINENO, "%s ",
					    ta_glyph_str(TA_G_VBAR));
			ta_term_put_scrolled(y, x, p->r->x + p->r->w - x, t ? t : "", t ? len : 0, app->hscroll, role);
		}
		p->line++;
	}
}

/* Whether the step's entry has a flag of entries.def (TA_ENTRY_SHOWS_*). */
static bool entry_shows(const ta_step *s, unsigned flag)
{
	const ta_entry_def *d = ta_entry_find(s->id);
	return d && (d->flags & flag);
}

/* "BLOCK_M: 64, num_warps: 4" -> "BLOCK_M=64 warps=4": a row must fit. */
static char *compact_config(const char *text)
{
	char *c = ta_autotune_short_config(text);
	ta_buf b = TA_BUF_INIT;
	for (const char *q = c; *q;) {
		if (q[0] == ':' && q[1] == ' ') {
			ta_buf_putc(&b, '=');
			q += 2;
		} else if (q[0] == ',' && q[1] == ' ') {
			ta_buf_putc(&b, ' ');
			q += 2;
		} else if (strncmp(q, "num_", 4) == 0 && (q == c || q[-1] == ' ')) {
			q += 4;
		} else {
			ta_buf_putc(&b, *q++);
		}
	}
	free(c);
	return ta_buf_steal(&b);
}

static void autotune_table(page *p, const ta_autotune_table *t)
{
	blank(p);
	textf(p, 1, TA_ROLE_TITLE, "Autotune");
	wrap(p, 3, TA_ROLE_DIM, t->tunings ? "the configs Triton benchmarked (medians of their tuning launches; "
	     "the chosen one's of its steady state):" : "the configs benchmarked (Triton printed no report: "
	     "the chosen one is the steady state):");
	textf(p, 3, TA_ROLE_DIM, "  %8s %10s %5s %4s %5s %-11s %s", "launches", "median", "block", "regs",
	      "smem", "occupancy", "config");
	for (size_t i = 0; i < t->n_rows; i++) {
		const ta_autotune_row *r = &t->rows[i];
		char med[32] = "-", occ[40] = "-";
		if (r->median_ns >= 0)
			ta_fmt_ns(r->median_ns, med, sizeof med);
		if (r->has_occupancy) {
			const char *lim = !strcmp(r->limiter, "shared memory") ? "smem"
					  : !strcmp(r->limiter, "registers") ? "regs" : r->limiter;
			snprintf(occ, sizeof occ, "%.1f%% %s", r->occupancy * 100, lim);
		}
		char *cfg = r->config ? compact_config(r->config) : ta_autotune_config_from_shape(r);
		textf(p, 3, r->chosen ? TA_ROLE_OK : TA_ROLE_NORMAL, "%s %8zu %10s %5d %4u %4dK %-11s %s",
		      r->chosen ? ta_glyph_str(TA_G_SATISFIED) : " ", r->launches, med,
		      r->block[0] * r->block[1] * r->block[2], r->regs,
		      (r->smem_static + r->smem_dynamic + 1023) / 1024, occ, cfg);
		free(cfg);
	}
	wrap(p, 3, TA_ROLE_DIM, "smem: shared memory per block (K: 1024 B); occupancy: the share of an SM's "
	     "warp slots the config fills, and what limits it");
	if (t->tried > t->n_rows)
		wrap(p, 3, TA_ROLE_DIM, "Triton benchmarked more configs than there are rows: configs that "
		     "differ only in num_stages launch with the same shape, so their launches share a row");
	if (t->key)
		textf(p, 3, TA_ROLE_DIM, "key %s%s", t->key, t->tunings > 1 ? " (the last of several)" : "");
}

static const char *needs_baseline_text(const ta_app *app)
{
	if (ta_advisor_run_kind(app->adv) == TA_RUN_BASELINE || ta_advisor_baseline_pending(app->adv))
		return "This step compares the kernel with a baseline: it is measured after the file's run.";
	if (ta_advisor_session(app->adv)->baseline)
		return "This step compares the kernel with the baseline: it fills in when the kernel is measured.";
	return "This step compares the kernel with a baseline: give one with --baseline CMD "
	       "(or a recorded one with --baseline-records FILE).";
}

/* T4 and T5: what the kernel was compared with, and how. */
static void vs_baseline(page *p, const ta_app *app, const ta_run_figures *run, const char *kernel)
{
	const ta_session *ss = ta_advisor_session(app->adv);
	const ta_run_figures *base = ss->baseline;
	if (!base)
		return;
	double base_ns;
	double ratio = ta_baseline_ratio(run, base, kernel, &base_ns);
	char bt[32];
	/* A recorded stream is named by its file name (its folder says nothing
	 * here and can fill the line); a command is shown whole. */
	const char *source = ss->baseline_source ? ss->baseline_source : "(recorded)";
	const char *slash = strrchr(source, '/');
	if (slash && !strchr(source, ' '))
		source = slash + 1;
	char *line = ta_xasprintf("baseline %s: %s %s, ratio %.2f%s", source,
				  ta_run_figures_find(base, kernel) ? "same kernel" : "per call (its kernels' medians)",
				  ta_fmt_ns(base_ns, bt, sizeof bt), ratio, ta_glyph_str(TA_G_TIMES));
	wrap(p, 3, TA_ROLE_NORMAL, line);
	free(line);
}

/* What --deep says about this step: how hot its lines are, and where the
 * kernel stands against the ceilings. */
static void deep_evidence(page *p, const ta_kernel_figures *f, const ta_step *s)
{
	if (!f)
		return;
	size_t n;
	uint32_t *lines = step_lines(s, &n);
	char *hot = ta_deep_figures_sentence(&f->deep, lines, n);
	free(lines);
	if (hot)
		wrap(p, 3, TA_ROLE_WARN, hot);
	free(hot);
	char *sol = ta_deep_figures_sol_line(&f->deep);
	if (sol)
		wrap(p, 3, TA_ROLE_NORMAL, sol);
	free(sol);
}

#define SHAPES_SHOWN 5

/* The period of the user's calls next to the GPU time: what the host
 * (Python, the wrapper, the autotuner) adds, which CUPTI does not see. */
static void call_period(page *p, const ta_kernel_figures *f, double gpu_ns)
{
	if (f->sampled)
		wrap(p, 3, TA_ROLE_DIM, "GPU times from a sample of the launches (adaptive tracing: a shape "
		     "whose median had settled within 1% was then timed once a millisecond; every launch "
		     "counted)");
	if (!f->n_period)
		return;
	char pc[32], g[32], tail[96];
	if (gpu_ns <= f->period_ns)
		snprintf(tail, sizeof tail, "the GPU time %s is %.0f%% of it", ta_fmt_ns(gpu_ns, g, sizeof g),
			 100 * gpu_ns / f->period_ns);
	else   /* the host runs ahead: launches wait in the queue */
		snprintf(tail, sizeof tail, "shorter than the GPU time %s: the launches queue up",
			 ta_fmt_ns(gpu_ns, g, sizeof g));
	char *line = ta_xasprintf("time per call %s: the median host time between successive launches of "
				  "this kernel in your run (n=%zu), so your wrapper's Python and the autotuner "
				  "are in it; %s", ta_fmt_ns(f->period_ns, pc, sizeof pc), f->n_period, tail);
	wrap(p, 3, TA_ROLE_NORMAL, line);
	free(line);
}

/* A workload of several launch shapes: the time per call over all of them,
 * the dominant shape (the figures below describe it), every shape's share. */
static void shapes(page *p, const ta_kernel_figures *f)
{
	char pc[32], med[32], iqr[32];
	const char *x = ta_glyph_str(TA_G_TIMES);
	char *line = ta_xasprintf("%s per call over %zu steady launches of %zu shapes (%zu autotuning, "
				  "%zu warm-up set apart)", ta_fmt_ns(f->per_call_ns, pc, sizeof pc), f->calls,
				  f->n_shapes, f->autotune_launches, f->warmup_launches);
	wrap(p, 3, TA_ROLE_NORMAL, line);
	free(line);
	line = ta_xasprintf("dominant shape (most GPU time): median %s, IQR %s, n=%zu",
			    ta_fmt_ns(f->summary.median, med, sizeof med),
			    ta_fmt_ns(f->summary.iqr, iqr, sizeof iqr), f->summary.count);
	wrap(p, 3, TA_ROLE_NORMAL, line);
	free(line);
	/* The largest shares; the rest summed. */
	double rest = 0;
	size_t shown = 0;
	for (size_t i = 0; i < f->n_shapes; i++) {
		const ta_shape_figures *s = &f->shapes[i];
		if (i > 0 && shown >= SHAPES_SHOWN) {
			rest += s->share;
			continue;
		}
		shown++;
		textf(p, 5, TA_ROLE_NORMAL, "%3.0f%%  grid %d%s%d%s%d, block %d, %u regs, shared memory %d B: %zu %s, "
		      "median %s",
		      s->share * 100, s->grid[0], x, s->grid[1], x, s->grid[2], s->block[0], s->regs, s->smem,
		      s->calls, s->calls == 1 ? "launch" : "launches", ta_fmt_ns(s->median_ns, med, sizeof med));
	}
	if (shown < f->n_shapes)
		textf(p, 5, TA_ROLE_DIM, "and %zu more shape%s (%.0f%% of the time)", f->n_shapes - shown,
		      f->n_shapes - shown == 1 ? "" : "s", rest * 100);
}

static void figures(page *p, const ta_app *app, const ta_walk_kernel *k, const ta_step *s)
{
	const ta_run_figures *run = ta_advisor_last_run(app->adv);
	const ta_kernel_figures *f = ta_run_figures_find(run, k->name);
	bool any_measure = false;
	for (size_t i = 0; i < s->n_findings; i++)
		any_measure |= s->findings[i].measure != NULL;
	if (!f && !any_measure)
		return;
	blank(p);
	textf(p, 1, TA_ROLE_TITLE, "Evidence");
	if (f && f->n_shapes > 1) {
		shapes(p, f);
		call_period(p, f, f->summary.median);
	} else if (f) {
		char med[32], iqr[32];
		textf(p, 3, TA_ROLE_NORMAL, "%zu launches (%zu autotuning, %zu warm-up set apart); "
		      "median %s, IQR %s, n=%zu", f->launches, f->autotune_launches, f->warmup_launches,
		      ta_fmt_ns(f->summary.median, med, sizeof med), ta_fmt_ns(f->summary.iqr, iqr, sizeof iqr),
		      f->summary.count);
		call_period(p, f, f->summary.median);
	}
	if (f) {
		const char *x = ta_glyph_str(TA_G_TIMES);
		/* shared memory in words: the total per block, and how it splits
		 * when both kinds are used (static: declared in the kernel;
		 * dynamic: sized at launch, as Triton does) */
		char smem[96];
		if (f->smem_static && f->smem_dynamic)
			snprintf(smem, sizeof smem, "shared memory %d B per block (%d static + %d dynamic)",
				 f->smem_static + f->smem_dynamic, f->smem_static, f->smem_dynamic);
		else
			snprintf(smem, sizeof smem, "shared memory %d B per block",
				 f->smem_static + f->smem_dynamic);
		textf(p, 3, TA_ROLE_NORMAL, "grid %d%s%d%s%d, block %d, %u registers, %u B local/thread%s, %s",
		      f->grid[0], x, f->grid[1], x, f->grid[2], f->block[0], f->regs,
		      f->local_per_thread, f->local_per_thread ? " (spills)" : "", smem);
		if (f->has_occupancy)
			textf(p, 3, TA_ROLE_NORMAL, "occupancy %.1f%% (%d block%s/SM, limited by %s), %.2f waves "
			      "(the grid's blocks over what all SMs hold at once)",
			      f->occupancy * 100, f->blocks_per_sm, f->blocks_per_sm == 1 ? "" : "s", f->limiter, f->waves);
	}
	for (size_t i = 0; i < s->n_findings; i++)
		if (s->findings[i].measure)
			wrap(p, 3, TA_ROLE_NORMAL, s->findings[i].measure);
	deep_evidence(p, f, s);
	if (f && entry_shows(s, TA_ENTRY_SHOWS_BASELINE))
		vs_baseline(p, app, run, k->name);
	if (f && f->tune.n_rows && entry_shows(s, TA_ENTRY_SHOWS_AUTOTUNE))
		autotune_table(p, &f->tune);
}

static void diff_lines(page *p, const char *d, int max, int skip)
{
	int n = 0;
	while (*d) {
		const char *end = strchr(d, '\n');
		size_t len = end ? (size_t)(end - d) : strlen(d);
		if (max && n == max) {
			textf(p, 3, TA_ROLE_DIM, "%s (d shows the whole diff)", ta_glyph_str(TA_G_ELLIPSIS));
			return;
		}
		ta_role role = TA_ROLE_NORMAL;
		if (!strncmp(d, "+++", 3) || !strncmp(d, "---", 3))
			role = TA_ROLE_TITLE;
		else if (*d == '+')
			role = TA_ROLE_ADD;
		else if (*d == '-')
			role = TA_ROLE_DEL;
		else if (*d == '@')
			role = TA_ROLE_HUNK;
		code(p, 3, role, d, len, skip);
		n++;
		d = end ? end + 1 : d + len;
	}
}

/* Before and after as two bars on one scale, the after bar in the
 * verdict's colour. */
static void bars(page *p, double before, double after, ta_role role)
{
	int width = p->r->w - 20;
	if (width > 40)
		width = 40;
	if (width < 8 || before <= 0 || after <= 0)
		return;
	double top = before > after ? before : after;
	const char *labels[2] = { "before", "after" };
	double v[2] = { before, after };
	for (int i = 0; i < 2; i++) {
		int n = (int)(v[i] / top * width + 0.5);
		if (n < 1)
			n = 1;
		ta_buf b = TA_BUF_INIT;
		for (int j = 0; j < n; j++)
			ta_buf_puts(&b, ta_glyph_str(TA_G_BAR));
		int y;
		if (visible(p, &y)) {
			int x = p->r->x + 5;
			x += ta_term_printf(y, x, p->r->w - 5, TA_ROLE_DIM, "%-7s", labels[i]);
			ta_term_put(y, x, p->r->x + p->r->w - x, ta_buf_str(&b), (size_t)-1,
				    i ? role : TA_ROLE_DIM);
		}
		p->line++;
		ta_buf_free(&b);
	}
}

static void shape_list(page *p, const char *what, const ta_shape_figures *v, size_t shown, size_t n)
{
	const char *x = ta_glyph_str(TA_G_TIMES);
	char med[32];
	textf(p, 3, TA_ROLE_DIM, "%s:", what);
	for (size_t i = 0; i < shown; i++)
		textf(p, 5, TA_ROLE_DIM, "grid %d%s%d%s%d, block %d: %zu %s, median %s", v[i].grid[0], x, v[i].grid[1], x,
		      v[i].grid[2], v[i].block[0], v[i].calls, v[i].calls == 1 ? "launch" : "launches",
		      ta_fmt_ns(v[i].median_ns, med, sizeof med));
	if (n > shown)
		textf(p, 5, TA_ROLE_DIM, "and %zu more", n - shown);
}

/* The ratio compares launches of the same shapes: what it left out. */
static void changed_shapes(page *p, const ta_change *c)
{
	bool changed = c->n_gone || c->n_fresh;
	if (c->by_parts && c->cmp.phases >= 2) {
		/* said even when no shape changed: the times are not medians */
		char *t = ta_xasprintf("the script ran in %zu parts (a size, a mode), so the ratio pairs them, "
				       "each counted once, and the times are their geometric means%s",
				       c->cmp.phases, changed ? "; the launch shapes changed:" : "");
		wrap(p, 3, TA_ROLE_DIM, t);
		free(t);
	} else if (!changed) {
		return;
	} else if (c->by_parts) {
		wrap(p, 3, TA_ROLE_DIM, "no launch shape (grid and block) is in both runs, so the ratio pairs "
		     "the runs' parts (a size, a mode), each counted once:");
	} else if (c->n_shared) {
		textf(p, 3, TA_ROLE_DIM, "the ratio compares the %zu shape%s launched in both runs (%.0f%% of the "
		      "time before); the others changed:", c->n_shared, c->n_shared == 1 ? "" : "s",
		      c->shared_share * 100);
	} else if (c->cmp.verdict != TA_VERDICT_CHANGED) {
		wrap(p, 3, TA_ROLE_DIM, "no launch shape (grid and block) is in both runs, but both made as many "
		     "launches, so the ratio is the workloads' GPU time per call:");
	} else {
		wrap(p, 3, TA_ROLE_DIM, "not comparable: no launch shape (grid and block) is in both runs, nor "
		     "parts or launch counts to pair, so the ratio is the workloads' GPU time per call, with no "
		     "interval:");
	}
	if (c->n_gone)
		shape_list(p, "only before", c->gone, c->n_gone < TA_CHANGE_SHAPES ? c->n_gone : TA_CHANGE_SHAPES,
			   c->n_gone);
	if (c->n_fresh)
		shape_list(p, "only after", c->fresh, c->n_fresh < TA_CHANGE_SHAPES ? c->n_fresh : TA_CHANGE_SHAPES,
			   c->n_fresh);
}

static void measured(page *p, const ta_app *app, const ta_step *s)
{
	if (s->mark != TA_MARK_APPLIED)
		return;
	blank(p);
	textf(p, 1, TA_ROLE_TITLE, "Measured");
	if (s->broken) {
		/* A broken program's time is no measure of the edit. */
		wrap(p, 3, TA_ROLE_DIM, "not compared: the run after the edit shows it broke the program "
		     "(see above), so its time says nothing about the edit");
		return;
	}
	if (!s->has_change) {
		textf(p, 3, TA_ROLE_DIM, "applied; not measured yet%s",
		      ta_advisor_profiling_off(app->adv) ? " (profiling is off)" : "");
		return;
	}
	char b[32], a[32];
	const ta_comparison *c = &s->change.cmp;
	ta_role role = c->verdict == TA_VERDICT_FASTER ? TA_ROLE_FASTER
		     : c->verdict == TA_VERDICT_SLOWER ? TA_ROLE_SLOWER : TA_ROLE_NOISE;
	textf(p, 3, role, "%s %s %s   %.3f%s [%.3f, %.3f] 95%%   %s",
	      ta_fmt_ns(s->change.before_ns, b, sizeof b), ta_glyph_str(TA_G_ARROW),
	      ta_fmt_ns(s->change.after_ns, a, sizeof a), c->ratio, ta_glyph_str(TA_G_TIMES), c->lo, c->hi,
	      c->verdict == TA_VERDICT_NOISE ? "within noise" : ta_verdict_name(c->verdict));
	bars(p, s->change.before_ns, s->change.after_ns, role);
	const char *x = ta_glyph_str(TA_G_TIMES);
	for (size_t i = 0; i < s->change.n_shapes; i++) {
		const ta_shape_change *sc = &s->change.shapes[i];
		textf(p, 5, TA_ROLE_NORMAL, "%3.0f%%  grid %d%s%d%s%d, block %d, %u regs: %s %s %s   %.3f%s",
		      sc->share * 100, sc->grid[0], x, sc->grid[1], x, sc->grid[2], sc->block[0], sc->regs,
		      ta_fmt_ns(sc->before_ns, b, sizeof b),
		      ta_glyph_str(TA_G_ARROW), ta_fmt_ns(sc->after_ns, a, sizeof a),
		      sc->before_ns > 0 ? sc->after_ns / sc->before_ns : 0, x);
	}
	changed_shapes(p, &s->change);
	if (s->change.period_before_ns > 0)
		textf(p, 3, TA_ROLE_NORMAL, "time per call (host time between launches): %s %s %s   %.3f%s",
		      ta_fmt_ns(s->change.period_before_ns, b, sizeof b), ta_glyph_str(TA_G_ARROW),
		      ta_fmt_ns(s->change.period_after_ns, a, sizeof a),
		      s->change.period_after_ns / s->change.period_before_ns, x);
}

/* A kernel that does not parse: the parser's words and the lines around
 * the place, the column marked, as a compiler shows it. */
static void syntax_page(page *p, ta_app *app, const ta_walk_kernel *k)
{
	textf(p, 1, TA_ROLE_TITLE, "%s does not parse", k->name);
	blank(p);
	char *what = ta_xasprintf("Syntax error, %s.", k->syntax_error);
	wrap(p, 1, TA_ROLE_ERROR, what);
	free(what);
	wrap(p, 1, TA_ROLE_NORMAL, "The checklist reads the parsed file: on a kernel the parser had to guess "
				   "at it would advise on code that is not there, so nothing is advised on this "
				   "kernel until it parses. Fix the file: the advisor reads it again when it is "
				   "saved.");
	blank(p);
	const ta_source *src = ta_advisor_source(app->adv);
	uint32_t at = k->syntax_line;
	if (!src || !at || at > src->line_count)
		return;
	uint32_t from = at > 4 ? at - 4 : 1, to = at + 2 > src->line_count ? (uint32_t)src->line_count : at + 2;
	textf(p, 1, TA_ROLE_TITLE, "Source %s %s, lines %u-%u", ta_glyph_str(TA_G_DOT),
	      ta_advisor_session(app->adv)->file_name, (unsigned)from, (unsigned)to);
	for (uint32_t l = from; l <= to; l++) {
		size_t len;
		const char *t = ta_source_line(src, l, &len);
		char *row = ta_xasprintf("%s%5u %s %.*s", l == at ? ta_glyph_str(TA_G_CURSOR) : " ", (unsigned)l,
					 ta_glyph_str(TA_G_VBAR), (int)len, t ? t : "");
		code(p, 1, l == at ? TA_ROLE_ERROR : TA_ROLE_NORMAL, row, strlen(row), app->hscroll);
		free(row);
		if (l == at && k->syntax_col) {
			/* the caret under the column: 7 columns of mark and number, a bar and a space */
			char *caret = ta_xasprintf("%*s^", (int)(k->syntax_col + 8), "");
			code(p, 1, TA_ROLE_ERROR, caret, strlen(caret), app->hscroll);
			free(caret);
		}
	}
}

static void folded_page(page *p, ta_app *app, const ta_walk_kernel *k)
{
	textf(p, 1, TA_ROLE_TITLE, "Steps that do not apply to %s", k->name);
	blank(p);
	for (size_t i = 0; i < k->n_steps; i++) {
		const ta_step *s = &k->steps[i];
		if (ta_step_is_open(s))
			continue;
		const ta_entry *e = ta_catalog_find(ta_advisor_catalog(app->adv), s->id);
		/* a table row: cut with an ellipsis rather than wrapped */
		char *row = ta_xasprintf("%s %-3s %-15s %s",
					 ta_glyph_str(s->mark == TA_MARK_SATISFIED ? TA_G_SATISFIED : TA_G_NA),
					 s->id, s->silenced ? "silenced" : s->ignored ? "ignored" : ta_mark_name(s->mark), e ? e->title : "");
		code(p, 2, TA_ROLE_NORMAL, row, strlen(row), 0);
		free(row);
	}
	blank(p);
	textf(p, 1, TA_ROLE_DIM, "Enter shows them in the walk.");
}

static void draw_page(ta_app *app, const ta_rect *r);

/* The page, and where it is when it does not fit: a last row of its own
 * says "lines 1-23 of 61, Space for more" (less's prompt). */
static void draw(ta_app *app, const ta_rect *r)
{
	ta_rect in = *r;
	in.h--;
	/* the last frame's length decides; a page that grew past the screen
	 * is drawn again one row shorter */
	bool cut = app->page_lines > r->h && r->h >= 3;
	draw_page(app, cut ? &in : r);
	if (!cut && app->page_lines > r->h && r->h >= 3) {
		cut = true;
		draw_page(app, &in);
	}
	if (!cut)
		return;
	int last = app->page_top + in.h < app->page_lines ? app->page_top + in.h : app->page_lines;
	char mark[64];
	snprintf(mark, sizeof mark, " lines %d-%d of %d%s ", app->page_top + 1, last, app->page_lines,
		 last < app->page_lines ? ", Space for more" : "");
	int mw = ta_term_width(mark, (size_t)-1), y = r->y + r->h - 1;
	ta_term_fill(y, r->x, r->w, TA_ROLE_NORMAL);
	if (mw < r->w)
		ta_term_put(y, r->x + r->w - mw, mw, mark, (size_t)-1, TA_ROLE_DIM);
}

static void draw_page(ta_app *app, const ta_rect *r)
{
	/* a resize (or a shorter page) never leaves the page scrolled past
	 * its end: at most the last screenful */
	int max_top = app->page_lines - r->h > 0 ? app->page_lines - r->h : 0;
	if (app->page_top > max_top)
		app->page_top = max_top;
	page p = { .r = r, .top = app->page_top };
	const ta_walk_kernel *k = ta_app_kernel(app);
	const ta_step *s = ta_app_step(app);
	if (!k) {
		wrap(&p, 1, TA_ROLE_NORMAL, "This file defines no @triton.jit kernel: there is nothing to walk.");
		app->page_lines = p.line;
		return;
	}
	if (k->syntax_error) {
		syntax_page(&p, app, k);
		app->page_lines = p.line;
		return;
	}
	if (!s) {
		folded_page(&p, app, k);
		app->page_lines = p.line;
		return;
	}
	const ta_entry *e = ta_catalog_find(ta_advisor_catalog(app->adv), s->id);
	bool hint = e && ta_entry_is_preview(e->def), ro = ta_advisor_read_only(app->adv);
	textf(&p, 1, TA_ROLE_TITLE, "%s %s %s   [%s%s]", s->id, ta_glyph_str(TA_G_DOT), e ? e->title : "?",
	      ta_mark_name(s->mark), hint ? ", hint" : "");
	/* The section, in the checklist's own words (the entry's seed_ref names
	 * documents the user does not have: it is not shown). */
	if (e)
		textf(&p, 1, TA_ROLE_DIM, "%s %s kernel %s", ta_section_title(e->section),
		      ta_glyph_str(TA_G_DOT), k->name);
	if (hint)
		wrap(&p, 1, TA_ROLE_DIM, "A hint: this entry is in preview, its findings measured below 90% "
					 "precision (tests/PRECISION.md). Read the code before acting on it.");
	blank(&p);
	if (s->mark == TA_MARK_APPLIED && s->broken) {
		/* Said first: the edit broke the program, whatever its time. */
		textf(&p, 1, TA_ROLE_ERROR, "%s Broken: %s", ta_glyph_str(TA_G_BROKEN), s->broken);
		if (!ro)
			wrap(&p, 1, TA_ROLE_NORMAL, "u reverts the edit; the run's output is under l.");
		blank(&p);
	}
	if (s->n_findings) {
		for (size_t i = 0; i < s->n_findings && i < 6; i++) {
			char *line = ta_xasprintf("line %u: %s", (unsigned)s->findings[i].line, s->findings[i].reason);
			wrap(&p, 1, TA_ROLE_NORMAL, line);
			free(line);
		}
		if (s->n_findings > 6)
			textf(&p, 1, TA_ROLE_DIM, "and %zu more places", s->n_findings - 6);
		blank(&p);
		source_excerpt(&p, app, k, s);
	} else if (e) {
		const char *why = s->mark == TA_MARK_SATISFIED ? e->satisfied_when
				: s->mark == TA_MARK_NEEDS_PROFILE ? e->evidence
				: s->mark == TA_MARK_NEEDS_BASELINE ? needs_baseline_text(app)
				: e->summary;
		wrap(&p, 1, TA_ROLE_NORMAL, why && *why ? why : e->summary);
		if (s->silenced)
			wrap(&p, 1, TA_ROLE_DIM, "Silenced here: a `# tileadvise: ignore` comment in the file "
						 "leaves its findings out, as --check does.");
		if (s->ignored)
			wrap(&p, 1, TA_ROLE_DIM, "Left out here: --select, --ignore or the project's pyproject.toml "
						 "([tool.tileadvise]) leave this entry out, as they leave it out "
						 "of --check.");
		if (s->mark == TA_MARK_NEEDS_PROFILE)
			wrap(&p, 1, TA_ROLE_DIM, ta_advisor_why_no_run(app->adv) ? ta_advisor_why_no_run(app->adv)
										 : "It fills in when the run is measured.");
	}
	figures(&p, app, k, s);
	measured(&p, app, s);
	if (e && e->impact && *e->impact) {
		blank(&p);
		textf(&p, 1, TA_ROLE_TITLE, "Typical impact");
		wrap(&p, 3, TA_ROLE_NORMAL, e->impact);
	}
	if (s->diff && s->mark != TA_MARK_APPLIED) {
		blank(&p);
		textf(&p, 1, TA_ROLE_TITLE, "Suggested edit %s %s%s", ta_glyph_str(TA_G_DOT),
		      s->edit_title ? s->edit_title : "mechanical", ro ? "" : "  (a applies it)");
		if (s->unsafe) {
			char *u = ta_xasprintf("Unsafe: it %s (a asks before applying it).", s->unsafe);
			wrap(&p, 3, TA_ROLE_WARN, u);
			free(u);
		}
		if (s->n_edit_sites > 1) {
			char *sites = ta_xasprintf("This is the edit at line %u; %zu of the step's %zu sites can be "
						   "rewritten%s.", (unsigned)s->edit_line, s->n_edit_sites,
						   s->n_findings, ro ? "" : " (a lists them to pick one)");
			wrap(&p, 3, TA_ROLE_DIM, sites);
			free(sites);
		} else if (s->n_findings > 1 && s->edit_line != s->findings[0].line) {
			/* Said, so that the diff below is not read as the first line's. */
			const ta_walk_finding *f0 = &s->findings[0];
			char *only = ta_xasprintf("This is the edit at line %u, the only site of the step the "
						  "rewrite can change (%s).", (unsigned)s->edit_line,
						  f0->why_no_edit ? f0->why_no_edit : "the others refuse");
			wrap(&p, 3, TA_ROLE_DIM, only);
			free(only);
		}
		diff_lines(&p, s->diff, 40, app->hscroll);
	} else if (s->edit_kind == TA_STEP_EDIT_GUIDED && s->mark == TA_MARK_APPLIES && e) {
		blank(&p);
		textf(&p, 1, TA_ROLE_TITLE, "Guided change%s", ro ? "" : "  (e opens your editor here)");
		wrap(&p, 3, TA_ROLE_NORMAL, e->edit_summary);
	} else if (s->why_no_edit && s->mark == TA_MARK_APPLIES) {
		blank(&p);
		textf(&p, 1, TA_ROLE_TITLE, "No edit here");
		wrap(&p, 3, TA_ROLE_DIM, s->why_no_edit);
	}
	if (e && s->mark == TA_MARK_APPLIES && e->means && *e->means) {
		blank(&p);
		textf(&p, 1, TA_ROLE_TITLE, "What it means");
		wrap(&p, 3, TA_ROLE_NORMAL, e->means);
	}
	app->page_lines = p.line;
}

static unsigned request(ta_app *app, ta_req req)
{
	int step = 10;
	if (req == TA_REQ_RIGHT) {
		app->hscroll += TA_HSCROLL_STEP;
	} else if (req == TA_REQ_LEFT) {
		app->hscroll = app->hscroll > TA_HSCROLL_STEP ? app->hscroll - TA_HSCROLL_STEP : 0;
	} else if (req == TA_REQ_PAGE_DOWN) {
		if (app->page_top + step < app->page_lines)
			app->page_top += step;
	} else if (req == TA_REQ_PAGE_UP) {
		app->page_top = app->page_top > step ? app->page_top - step : 0;
	} else {
		return TA_REACT_UNHANDLED;
	}
	return TA_REACT_REDRAW;
}

const ta_view_ops ta_view_step = { "step", draw, request, NULL };
