/* The sites overlay: when a step's edit can be made at more than one of
 * its findings, `a` lists them all, the ones the rewrite refuses dimmed
 * with the reason, and the user picks the site to rewrite (the advisor's
 * --apply ID:LINE). */
#include "config.h"
#include "ui/tui/app.h"

#include <stdlib.h>

#include "ui/tui/term.h"
#include "util/buf.h"

static void draw(ta_app *app, const ta_rect *r)
{
	const ta_step *s = ta_app_step(app);
	ta_term_fill(r->y, r->x, r->w, TA_ROLE_TITLE);
	ta_term_printf(r->y, r->x, r->w, TA_ROLE_TITLE, " %s can be rewritten at %zu sites: pick one "
		       "(j/k move, Enter or a applies, Esc closes)", s ? s->id : "-", s ? s->n_edit_sites : 0);
	int y = r->y + 2, bottom = r->y + r->h;
	app->overlay_lines = 0;
	for (size_t i = 0; s && i < s->n_findings && y < bottom; i++) {
		const ta_walk_finding *f = &s->findings[i];
		bool sel = (int)i == app->pick;
		ta_buf b = TA_BUF_INIT;
		ta_buf_printf(&b, "%s line %u: %s", sel ? ta_glyph_str(TA_G_CURSOR) : " ", (unsigned)f->line,
			      f->reason);
		if (!f->edit_ok)
			ta_buf_printf(&b, " %s no edit here: %s", ta_glyph_str(TA_G_EMDASH),
				      f->why_no_edit ? f->why_no_edit : "the rewrite refuses");
		ta_role role = sel ? TA_ROLE_SELECT : f->edit_ok ? TA_ROLE_NORMAL : TA_ROLE_DIM;
		if (sel)
			ta_term_fill(y, r->x, r->w, role);
		ta_term_put_scrolled(y++, r->x + 1, r->w - 1, ta_buf_str(&b), b.len, app->overlay_left, role);
		ta_buf_free(&b);
		app->overlay_lines++;
	}
}

/* The next finding (dir +1 or -1) whose site can be rewritten. */
static void move(ta_app *app, const ta_step *s, int dir)
{
	for (int i = app->pick + dir; i >= 0 && (size_t)i < s->n_findings; i += dir)
		if (s->findings[i].edit_ok) {
			app->pick = i;
			return;
		}
}

static unsigned request(ta_app *app, ta_req req)
{
	const ta_step *s = ta_app_step(app);
	if (!s) {
		app->overlay = NULL;
		return TA_REACT_REDRAW;
	}
	switch (req) {
	case TA_REQ_NEXT_STEP:
		move(app, s, +1);
		return TA_REACT_REDRAW;
	case TA_REQ_PREV_STEP:
		move(app, s, -1);
		return TA_REACT_REDRAW;
	case TA_REQ_RIGHT:
		app->overlay_left += TA_HSCROLL_STEP;
		return TA_REACT_REDRAW;
	case TA_REQ_LEFT:
		app->overlay_left = app->overlay_left > TA_HSCROLL_STEP ? app->overlay_left - TA_HSCROLL_STEP : 0;
		return TA_REACT_REDRAW;
	case TA_REQ_FOLD:   /* Enter */
	case TA_REQ_APPLY:
		app->overlay = NULL;
		if (app->pick < 0 || (size_t)app->pick >= s->n_findings || !s->findings[app->pick].edit_ok)
			return TA_REACT_REDRAW;
		return ta_app_apply_at(app, s->findings[app->pick].line, false);
	case TA_REQ_CANCEL:
	case TA_REQ_QUIT:
		app->overlay = NULL;
		ta_app_set_message(app, false, "nothing applied");
		return TA_REACT_REDRAW;
	default:
		return TA_REACT_REDRAW;   /* the list waits for its answer */
	}
}

const ta_view_ops ta_view_sites = { "sites", draw, request, NULL };
