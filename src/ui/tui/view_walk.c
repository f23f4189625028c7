/* The left pane: the file's kernels with their measured time, then the
 * selected kernel's walk with a status mark per step; steps that do not
 * apply are folded into one row. */
#include "config.h"
#include "ui/tui/app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/tui/term.h"
#include "util/buf.h"

static ta_glyph mark_glyph(ta_mark m)
{
	switch (m) {
	case TA_MARK_APPLIES: return TA_G_APPLIES;
	case TA_MARK_SATISFIED: return TA_G_SATISFIED;
	case TA_MARK_NEEDS_PROFILE: return TA_G_NEEDS_PROFILE;
	case TA_MARK_NEEDS_BASELINE: return TA_G_NEEDS_BASELINE;
	case TA_MARK_APPLIED: return TA_G_APPLIED;
	case TA_MARK_SKIPPED: return TA_G_SKIPPED;
	case TA_MARK_NOT_APPLICABLE:
	default: return TA_G_NA;
	}
}

static ta_role mark_role(ta_mark m)
{
	switch (m) {
	case TA_MARK_APPLIES: return TA_ROLE_APPLIES;
	case TA_MARK_SATISFIED: return TA_ROLE_OK;
	case TA_MARK_APPLIED: return TA_ROLE_FASTER;
	case TA_MARK_NEEDS_PROFILE:
	case TA_MARK_NEEDS_BASELINE: return TA_ROLE_WARN;
	default: return TA_ROLE_DIM;
	}
}

static size_t folded_count(const ta_walk_kernel *k)
{
	size_t n = 0;
	for (size_t i = 0; i < k->n_steps; i++)
		n += !ta_step_is_open(&k->steps[i]);
	return n;
}

static int selected_row(const ta_app *app)
{
	for (size_t i = 0; i < app->n_rows; i++) {
		const ta_row *r = &app->rows[i];
		if ((r->kind == TA_ROW_STEP && r->step == app->step) ||
		    (r->kind == TA_ROW_FOLD && app->step < 0))
			return (int)i;
	}
	return -1;
}

/* An applied step's glyph and colour say its verdict: faster, slower,
 * within noise, broken (never a star), or none yet (not measured). */
static ta_glyph step_glyph(const ta_step *s)
{
	if (s->mark != TA_MARK_APPLIED)
		return mark_glyph(s->mark);
	if (s->broken)
		return TA_G_BROKEN;
	if (!s->has_change)   /* a verdict only once measured */
		return TA_G_PENDING;
	if (s->change.cmp.verdict == TA_VERDICT_FASTER)
		return TA_G_APPLIED;
	return s->change.cmp.verdict == TA_VERDICT_SLOWER ? TA_G_SLOWER : TA_G_NOISE;
}

static ta_role step_role(const ta_step *s)
{
	if (s->mark != TA_MARK_APPLIED)
		return mark_role(s->mark);
	if (s->broken)
		return TA_ROLE_ERROR;
	if (!s->has_change)
		return TA_ROLE_DIM;
	return s->change.cmp.verdict == TA_VERDICT_FASTER ? TA_ROLE_FASTER
	     : s->change.cmp.verdict == TA_VERDICT_SLOWER ? TA_ROLE_SLOWER
	     : s->change.cmp.verdict == TA_VERDICT_NOISE ? TA_ROLE_NOISE : TA_ROLE_DIM;
}

static void draw_step_row(ta_app *app, const ta_step *s, int y, int x, int w, bool sel)
{
	ta_role base = sel ? TA_ROLE_SELECT : TA_ROLE_NORMAL;
	ta_term_fill(y, x, w, base);
	int c = x + 1;
	c += ta_term_put(y, c, w - (c - x), ta_glyph_str(step_glyph(s)), (size_t)-1,
			 sel ? base : step_role(s));
	c += ta_term_printf(y, c, w - (c - x), base, " %-3s ", s->id);
	char right[32] = "";
	if (s->mark == TA_MARK_APPLIED && s->broken)
		snprintf(right, sizeof right, " broken");
	else if (s->has_change)
		snprintf(right, sizeof right, " %.2f%s", s->change.cmp.ratio, ta_glyph_str(TA_G_TIMES));
	else if (s->mark == TA_MARK_APPLIED)
		snprintf(right, sizeof right, " applied");
	else if (s->mark == TA_MARK_SKIPPED)
		snprintf(right, sizeof right, " skipped");
	const ta_entry *e = ta_catalog_find(ta_advisor_catalog(app->adv), s->id);
	/* An entry in preview (precision below 90%) finds hints, not verdicts. */
	if (!right[0] && e && ta_entry_is_preview(e->def) && s->mark == TA_MARK_APPLIES)
		snprintf(right, sizeof right, " hint");
	int rw = ta_term_width(right, (size_t)-1);
	ta_term_put_clipped(y, c, w - (c - x) - rw, e ? e->title : "", base);
	if (rw) {
		ta_role rr = sel ? base : s->mark == TA_MARK_APPLIED && (s->broken || s->has_change)
			   ? step_role(s) : TA_ROLE_DIM;
		ta_term_put(y, x + w - rw, rw, right, (size_t)-1, rr);
	}
}

static void draw(ta_app *app, const ta_rect *r)
{
	int y = r->y, x = r->x, w = r->w, bottom = r->y + r->h;
	const ta_walk *wk = ta_advisor_walk(app->adv);
	const ta_run_figures *run = ta_advisor_last_run(app->adv);
	ta_term_printf(y++, x, w, TA_ROLE_TITLE, " Kernels");
	/* At most a third of the pane for kernels. */
	size_t max_k = (size_t)(r->h / 3 > 1 ? r->h / 3 : 1);
	app->kernel_y0 = y;
	app->n_kernel_rows = 0;
	/* the selected kernel always in view: the list scrolls to it */
	size_t first = app->kernel >= 0 && (size_t)app->kernel >= max_k ? (size_t)app->kernel - max_k + 1 : 0;
	app->kernel_first = (int)first;
	for (size_t i = first; wk && i < wk->n_kernels && i < first + max_k && y < bottom; i++) {
		const ta_walk_kernel *k = &wk->kernels[i];
		bool sel = (int)i == app->kernel;
		char t[80] = "";
		const ta_kernel_figures *f = ta_run_figures_find(run, k->name);
		if (f && f->calls)   /* the workload's GPU time per call, every shape */
			ta_fmt_ns(f->per_call_ns, t, sizeof t);
		else if (f && f->summary.count)
			ta_fmt_ns(f->summary.median, t, sizeof t);
		else if (k->syntax_error)
			snprintf(t, sizeof t, "does not parse");
		else if (k->helper)
			snprintf(t, sizeof t, "helper");
		else
			snprintf(t, sizeof t, "not measured");
		if (f && f->n_period && (f->calls || f->summary.count)) {
			/* next to it the period of the user's calls (host time
			 * between launches): what the wrapper's work adds */
			char pc[32];
			size_t len = strlen(t);
			snprintf(t + len, sizeof t - len, " GPU / %s call", ta_fmt_ns(f->period_ns, pc, sizeof pc));
		}
		int tw = ta_term_width(t, (size_t)-1);
		ta_term_fill(y, x, w, sel ? TA_ROLE_TITLE : TA_ROLE_NORMAL);
		/* the name, cut with an ellipsis, then a space before the time */
		int cw = ta_term_printf(y, x, 2, sel ? TA_ROLE_TITLE : TA_ROLE_NORMAL, "%s ",
					sel ? ta_glyph_str(TA_G_CURSOR) : " ");
		ta_term_put_clipped(y, x + cw, w - cw - tw - 2, k->name, sel ? TA_ROLE_TITLE : TA_ROLE_NORMAL);
		ta_term_put(y, x + w - tw - 1, tw, t, (size_t)-1,
			    k->syntax_error ? TA_ROLE_ERROR : f ? TA_ROLE_NORMAL : TA_ROLE_DIM);
		y++;
		app->n_kernel_rows++;
	}
	if (wk && wk->n_kernels > max_k && y < bottom) {
		size_t below = wk->n_kernels - first - max_k;
		if (first && below)
			ta_term_printf(y++, x, w, TA_ROLE_DIM, "  (%zu above, %zu below: Tab)", first, below);
		else
			ta_term_printf(y++, x, w, TA_ROLE_DIM, "  (%zu %s: Tab)", first ? first : below,
				       first ? "above" : "more");
	}
	if (y >= bottom)
		return;
	const ta_walk_kernel *k = ta_app_kernel(app);
	y++;
	if (!k) {
		ta_term_printf(y, x, w, TA_ROLE_DIM, " No @triton.jit kernel in this file.");
		return;
	}
	if (y < bottom) {
		/* where the selection is in the list: "3/12" */
		int at = selected_row(app);
		char where[32] = "";
		if (at >= 0 && app->n_rows > 1)
			snprintf(where, sizeof where, "%d/%zu", at + 1, app->n_rows);
		int ww = ta_term_width(where, (size_t)-1);
		ta_term_fill(y, x, w, TA_ROLE_NORMAL);
		char *title = ta_xasprintf(" Walk of %s", k->name);
		ta_term_put_clipped(y, x, w - ww - 1, title, TA_ROLE_TITLE);
		free(title);
		if (ww)
			ta_term_put(y, x + w - ww - 1, ww, where, (size_t)-1, TA_ROLE_DIM);
		y++;
	}
	if (k->syntax_error) {
		/* no walk on a tree the parser had to guess */
		char *l1 = ta_xasprintf(" Syntax error, %s.", k->syntax_error);
		if (y < bottom)
			ta_term_put_clipped(y++, x, w, l1, TA_ROLE_ERROR);
		if (y < bottom)
			ta_term_put_clipped(y++, x, w, " Nothing is advised on this kernel until it parses:", TA_ROLE_NORMAL);
		if (y < bottom)
			ta_term_put_clipped(y++, x, w, " fix the file; the advisor reads it again on save.", TA_ROLE_NORMAL);
		free(l1);
		app->row_y0 = y;
		return;
	}
	/* The whole walk so far: first run to last, in the verdict's colour. */
	ta_change wc;
	if (y < bottom && ta_session_walk_change(ta_advisor_session(app->adv), k->name, &wc, NULL, NULL)) {
		char b[32], a[32];
		ta_role role = wc.cmp.verdict == TA_VERDICT_FASTER ? TA_ROLE_FASTER
			     : wc.cmp.verdict == TA_VERDICT_SLOWER ? TA_ROLE_SLOWER : TA_ROLE_NOISE;
		/* the ratio first: a narrow pane cuts the times, not it; one unit */
		ta_fmt_ns(wc.before_ns, b, sizeof b);
		ta_fmt_ns(wc.after_ns, a, sizeof a);
		char *ub = strrchr(b, ' '), *ua = strrchr(a, ' ');
		if (ub && ua && !strcmp(ub, ua))
			*ub = '\0';
		char *line = ta_xasprintf(" whole walk %.2f%s %s %s %s %s", wc.cmp.ratio, ta_glyph_str(TA_G_TIMES),
					  ta_glyph_str(TA_G_DOT), b, ta_glyph_str(TA_G_ARROW), a);
		ta_term_put_clipped(y++, x, w, line, role);
		free(line);
	}
	int avail = bottom - y;
	if (avail <= 0)
		return;
	int sel = selected_row(app);
	if (sel >= 0) {
		if (sel < app->list_top)
			app->list_top = sel;
		if (sel >= app->list_top + avail)
			app->list_top = sel - avail + 1;
	}
	if (app->list_top > (int)app->n_rows - 1)
		app->list_top = 0;
	app->row_y0 = y;
	for (size_t i = (size_t)app->list_top; i < app->n_rows && y < bottom; i++, y++) {
		const ta_row *row = &app->rows[i];
		if (row->kind == TA_ROW_FOLD) {
			bool s = app->step < 0;
			ta_term_fill(y, x, w, s ? TA_ROLE_SELECT : TA_ROLE_NORMAL);
			ta_term_printf(y, x + 1, w - 1, s ? TA_ROLE_SELECT : TA_ROLE_DIM, "%s %zu %s or %s%s (Enter)",
				       ta_glyph_str(TA_G_FOLD), folded_count(k), ta_mark_name(TA_MARK_SATISFIED),
				       ta_mark_name(TA_MARK_NOT_APPLICABLE), app->unfold ? ", shown below" : "");
			continue;
		}
		draw_step_row(app, &k->steps[row->step], y, x, w, row->step == app->step);
	}
}

static void select_row(ta_app *app, int i)
{
	if (i < 0 || (size_t)i >= app->n_rows)
		return;
	app->step = app->rows[i].kind == TA_ROW_STEP ? app->rows[i].step : -1;
	app->page_top = 0;
	app->hscroll = 0;
}

static void show_kernel(ta_app *app, int k)
{
	app->kernel = k;
	app->step = -2;   /* not a row: rebuild picks the first */
	app->list_top = 0;
	app->page_top = 0;
	app->hscroll = 0;
	ta_app_rebuild_rows(app);
}

static unsigned request(ta_app *app, ta_req req)
{
	const ta_walk *w = ta_advisor_walk(app->adv);
	int sel = selected_row(app);
	switch (req) {
	case TA_REQ_NEXT_STEP:
		select_row(app, sel + 1);
		break;
	case TA_REQ_PREV_STEP:
		select_row(app, sel > 0 ? sel - 1 : 0);
		break;
	case TA_REQ_FIRST:
		select_row(app, 0);
		break;
	case TA_REQ_LAST:
		select_row(app, (int)app->n_rows - 1);
		break;
	case TA_REQ_NEXT_KERNEL:
	case TA_REQ_PREV_KERNEL: {
		if (!w || w->n_kernels < 2)
			return TA_REACT_NONE;
		/* a helper (a @jit function only other kernels call) is passed
		 * over: its walk is its callers'; a click still shows it */
		size_t n = w->n_kernels, step = req == TA_REQ_NEXT_KERNEL ? 1 : n - 1, k = (size_t)app->kernel;
		for (size_t tries = 0; tries < n; tries++) {
			k = (k + step) % n;
			if (!w->kernels[k].helper)
				break;
		}
		if ((int)k == app->kernel)
			return TA_REACT_NONE;
		show_kernel(app, (int)k);
		break;
	}
	case TA_REQ_FOLD:
		app->unfold = !app->unfold;
		ta_app_rebuild_rows(app);
		break;
	default:
		return TA_REACT_UNHANDLED;
	}
	return TA_REACT_REDRAW;
}

static unsigned click(ta_app *app, const ta_rect *r, int y, int x)
{
	(void)r;
	(void)x;
	int ki = y - app->kernel_y0;
	if (ki >= 0 && ki < app->n_kernel_rows) {
		ki += app->kernel_first;
		if (ki == app->kernel)
			return TA_REACT_NONE;
		show_kernel(app, ki);
		return TA_REACT_REDRAW | TA_REACT_SAVE_SOON;
	}
	int i = app->list_top + (y - app->row_y0);
	if (y < app->row_y0 || i < 0 || (size_t)i >= app->n_rows)
		return TA_REACT_NONE;
	if (app->rows[i].kind == TA_ROW_FOLD && app->step < 0) {
		app->unfold = !app->unfold;
		ta_app_rebuild_rows(app);
		app->step = -1;
	} else {
		select_row(app, i);
	}
	return TA_REACT_REDRAW | TA_REACT_SAVE_SOON;
}

const ta_view_ops ta_view_walk = { "walk", draw, request, click };
