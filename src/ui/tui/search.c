/* `/` search, as tig, less and htop have it: the text typed after `/` is
 * looked for, without regard to case, in the steps of every kernel's walk
 * (id, title and what was found), then in the kernels' names and the
 * file's lines; Enter goes to the first match after the selection, `n`
 * and `N` to the next and previous one. A step found is selected (its
 * folded row opened); a line of the file is named in the message line. */
#include "config.h"
#include "ui/tui/app.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/buf.h"

static bool has(const char *hay, const char *needle)
{
	return hay && strcasestr(hay, needle) != NULL;
}

/* Whether step s of kernel k matches: its id, its entry's title, a
 * finding's reason. */
static bool step_matches(const ta_app *app, const ta_step *s, const char *q)
{
	const ta_entry *e = ta_catalog_find(ta_advisor_catalog(app->adv), s->id);
	if (has(s->id, q) || (e && has(e->title, q)))
		return true;
	for (size_t i = 0; i < s->n_findings; i++)
		if (has(s->findings[i].reason, q))
			return true;
	return false;
}

/* Every place in order: kernel k's name (step -1), then its steps. */
typedef struct place {
	int kernel, step;
} place;

static size_t places(const ta_walk *w, place **out)
{
	size_t n = 0;
	for (size_t k = 0; w && k < w->n_kernels; k++)
		n += 1 + w->kernels[k].n_steps;
	place *v = ta_xcalloc(n + 1, sizeof *v);
	size_t i = 0;
	for (size_t k = 0; w && k < w->n_kernels; k++) {
		v[i++] = (place){ (int)k, -1 };
		for (size_t s = 0; s < w->kernels[k].n_steps; s++)
			v[i++] = (place){ (int)k, (int)s };
	}
	*out = v;
	return n;
}

static void select_place(ta_app *app, place p)
{
	const ta_walk *w = ta_advisor_walk(app->adv);
	app->kernel = p.kernel;
	ta_advisor_kernel_ready(app->adv, (size_t)p.kernel);
	app->step = p.step >= 0 ? p.step : -2;
	if (p.step >= 0 && !ta_step_is_open(&w->kernels[p.kernel].steps[p.step]))
		app->unfold = true;
	app->page_top = 0;
	app->hscroll = 0;
	ta_app_rebuild_rows(app);
}

unsigned ta_app_search(ta_app *app, bool backward)
{
	const char *q = app->search;
	if (!q || !*q) {
		ta_app_set_message(app, false, "no search yet: / and the text to look for");
		return TA_REACT_REDRAW;
	}
	/* every kernel's steps are made first: a lazy walk has not made them */
	ta_advisor_walk_complete(app->adv);
	const ta_walk *w = ta_advisor_walk(app->adv);
	place *v;
	size_t n = places(w, &v), at = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].kernel == app->kernel && (v[i].step == app->step || (v[i].step == -1 && app->step < 0)))
			at = i;
	for (size_t d = 1; d <= n; d++) {
		size_t i = backward ? (at + n - d) % n : (at + d) % n;
		const ta_walk_kernel *k = &w->kernels[v[i].kernel];
		bool hit = v[i].step < 0 ? has(k->name, q) : step_matches(app, &k->steps[v[i].step], q);
		if (!hit)
			continue;
		select_place(app, v[i]);
		ta_app_set_message(app, false, "/%s: %s%s%s", q, k->name, v[i].step >= 0 ? ", " : "",
				   v[i].step >= 0 ? k->steps[v[i].step].id : "");
		free(v);
		return TA_REACT_REDRAW | TA_REACT_SAVE_SOON;
	}
	free(v);
	/* not in the walk: a line of the file */
	const ta_source *src = ta_advisor_source(app->adv);
	for (size_t l = 1; src && l <= src->line_count; l++) {
		size_t len;
		const char *t = ta_source_line(src, l, &len);
		char *line = ta_xstrndup(t ? t : "", len);
		bool hit = has(line, q);
		free(line);
		if (hit) {
			ta_app_set_message(app, false, "/%s: no step or kernel; line %zu of the file has it", q, l);
			return TA_REACT_REDRAW;
		}
	}
	ta_app_set_message(app, true, "/%s: not found", q);
	return TA_REACT_REDRAW;
}

unsigned ta_app_search_key(ta_app *app, int key)
{
	size_t len = strlen(app->search_input);
	if (key == 27) {                                   /* Esc: no search */
		app->searching = false;
		ta_app_set_message(app, false, NULL);
		return TA_REACT_REDRAW;
	}
	if (key == '\r' || key == '\n' || key == KEY_ENTER) {
		app->searching = false;
		free(app->search);
		app->search = ta_xstrdup(app->search_input);
		return ta_app_search(app, false);
	}
	if (key == KEY_BACKSPACE || key == 127 || key == 8) {
		if (len)
			app->search_input[len - 1] = '\0';
	} else if (key >= 0x20 && key < 0x7f && len + 1 < sizeof app->search_input) {
		app->search_input[len] = (char)key;
		app->search_input[len + 1] = '\0';
	}
	ta_app_set_message(app, false, "/%s", app->search_input);
	return TA_REACT_REDRAW;
}
