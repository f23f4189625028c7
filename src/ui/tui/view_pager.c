/* The full-screen overlays: the help (from the key table), the whole diff
 * of the step, and the output log of the last run. They share a pager. */
#include "config.h"
#include "ui/tui/app.h"

#include <stdlib.h>
#include <string.h>

#include "ui/tui/term.h"
#include "util/buf.h"

static void pager(ta_app *app, const ta_rect *r, const char *title, const char *t, bool diff)
{
	ta_term_fill(r->y, r->x, r->w, TA_ROLE_TITLE);
	ta_term_printf(r->y, r->x, r->w, TA_ROLE_TITLE, " %s", title);
	int y = r->y + 1, bottom = r->y + r->h;
	int n = 0;
	const char *s = t ? t : "";
	while (*s) {
		const char *end = strchr(s, '\n');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		if (n >= app->overlay_top && y < bottom) {
			ta_role role = TA_ROLE_NORMAL;
			if (diff && (!strncmp(s, "+++", 3) || !strncmp(s, "---", 3)))
				role = TA_ROLE_TITLE;
			else if (diff && *s == '+')
				role = TA_ROLE_ADD;
			else if (diff && *s == '-')
				role = TA_ROLE_DEL;
			else if (diff && *s == '@')
				role = TA_ROLE_HUNK;
			ta_term_put_scrolled(y++, r->x + 1, r->w - 1, s, len, app->overlay_left, role);
		}
		n++;
		s = end ? end + 1 : s + len;
	}
	app->overlay_lines = n;
}

static unsigned request(ta_app *app, ta_req req)
{
	switch (req) {
	case TA_REQ_NEXT_STEP:
		if (app->overlay_top + 1 < app->overlay_lines)
			app->overlay_top++;
		return TA_REACT_REDRAW;
	case TA_REQ_PREV_STEP:
		if (app->overlay_top > 0)
			app->overlay_top--;
		return TA_REACT_REDRAW;
	case TA_REQ_PAGE_DOWN:
		if (app->overlay_top + 20 < app->overlay_lines)
			app->overlay_top += 20;
		return TA_REACT_REDRAW;
	case TA_REQ_PAGE_UP:
		app->overlay_top = app->overlay_top > 20 ? app->overlay_top - 20 : 0;
		return TA_REACT_REDRAW;
	case TA_REQ_FIRST:
		app->overlay_top = 0;
		return TA_REACT_REDRAW;
	case TA_REQ_RIGHT:
		app->overlay_left += TA_HSCROLL_STEP;
		return TA_REACT_REDRAW;
	case TA_REQ_LEFT:
		app->overlay_left = app->overlay_left > TA_HSCROLL_STEP ? app->overlay_left - TA_HSCROLL_STEP : 0;
		return TA_REACT_REDRAW;
	case TA_REQ_CANCEL:
	case TA_REQ_QUIT:
	case TA_REQ_HELP:
	case TA_REQ_DIFF:
	case TA_REQ_LOG:
		if ((req == TA_REQ_DIFF && app->overlay != &ta_view_diff) ||
		    (req == TA_REQ_LOG && app->overlay != &ta_view_log) ||
		    (req == TA_REQ_HELP && app->overlay != &ta_view_help))
			return TA_REACT_UNHANDLED;   /* switch to the other overlay */
		app->overlay = NULL;
		return TA_REACT_REDRAW;
	default:
		/* Anything else closes the overlay and acts on the step. */
		app->overlay = NULL;
		return TA_REACT_UNHANDLED;
	}
}

static void draw_help(ta_app *app, const ta_rect *r)
{
	char *t = ta_keymap_help_text();
	ta_buf b = TA_BUF_INIT;
	ta_buf_printf(&b, "Marks in the walk:\n"
		      "  %s %s   %s %s   %s %s   %s %s   %s %s\n"
		      "  %s %s and faster   %s slower   %s within noise   %s broken   %s not measured yet\n"
		      "  %s %s\n\n"
		      "Keys:\n%s", ta_glyph_str(TA_G_APPLIES), ta_mark_name(TA_MARK_APPLIES),
		      ta_glyph_str(TA_G_SATISFIED), ta_mark_name(TA_MARK_SATISFIED),
		      ta_glyph_str(TA_G_NA), ta_mark_name(TA_MARK_NOT_APPLICABLE),
		      ta_glyph_str(TA_G_NEEDS_PROFILE), ta_mark_name(TA_MARK_NEEDS_PROFILE),
		      ta_glyph_str(TA_G_NEEDS_BASELINE), ta_mark_name(TA_MARK_NEEDS_BASELINE),
		      ta_glyph_str(TA_G_APPLIED), ta_mark_name(TA_MARK_APPLIED),
		      ta_glyph_str(TA_G_SLOWER), ta_glyph_str(TA_G_NOISE), ta_glyph_str(TA_G_BROKEN),
		      ta_glyph_str(TA_G_PENDING),
		      ta_glyph_str(TA_G_SKIPPED), ta_mark_name(TA_MARK_SKIPPED), t);
	pager(app, r, "Help: tileadvise keys (Esc closes)", ta_buf_str(&b), false);
	ta_buf_free(&b);
	free(t);
}

static void draw_diff(ta_app *app, const ta_rect *r)
{
	const ta_step *s = ta_app_step(app);
	const char *d = NULL;
	char title[96];
	snprintf(title, sizeof title, "Diff of %s (Esc closes)", s ? s->id : "-");
	if (s && s->diff)
		d = s->diff;
	const ta_session *ss = ta_advisor_session(app->adv);
	if (s && !d && s->mark == TA_MARK_APPLIED)
		for (size_t i = ss->n_edits; i-- > 0;)
			if (!strcmp(ss->edits[i].id, s->id) && ss->edits[i].diff) {
				d = ss->edits[i].diff;
				break;
			}
	pager(app, r, title, d ? d : (s && s->why_no_edit ? s->why_no_edit : "This step has no diff."), true);
}

static void draw_log(ta_app *app, const ta_rect *r)
{
	char *live = ta_advisor_run_output(app->adv);
	const char *t = live ? live : ta_advisor_last_output(app->adv);
	const char *note = ta_advisor_last_note(app->adv);
	char title[160];
	snprintf(title, sizeof title, "Output of the %s run%s%s (Esc closes)", live ? "current" : "last",
		 !live && note ? ": " : "", !live && note ? note : "");
	const char *none = ta_advisor_read_only(app->adv)
		? "No output here: a replayed session keeps its runs' figures, not what they printed."
		: "No output yet: nothing has run in this session.";
	pager(app, r, title, t && *t ? t : none, false);
	free(live);
}

const ta_view_ops ta_view_help = { "help", draw_help, request, NULL };
const ta_view_ops ta_view_diff = { "diff", draw_diff, request, NULL };
const ta_view_ops ta_view_log = { "log", draw_log, request, NULL };
