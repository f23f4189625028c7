/* Header (file, GPU, run state), footer (message and the keys that work
 * here) and the too-small screen. */
#include "config.h"
#include "ui/tui/app.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "ui/tui/term.h"

const char *ta_fmt_ns(double ns, char *buf, size_t n)
{
	const char *mu = ta_glyph_str(TA_G_MU);
	if (ns >= 1e7)
		snprintf(buf, n, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, n, "%.1f %ss", ns / 1e3, mu);
	return buf;
}

static void gpu_text(const ta_app *app, char *buf, size_t n)
{
	const ta_session *ss = ta_advisor_session(app->adv);
	const ta_session_env *e = &ss->env;
	if (ta_advisor_read_only(app->adv)) {
		const char *date = ss->n_runs && ss->runs[0].date ? ss->runs[0].date : ss->created;
		char day[11] = "";
		if (date)
			snprintf(day, sizeof day, "%s", date);
		if (e->has_gpu)
			snprintf(buf, n, "recorded on %s %s replay, read-only %s %s, sm_%d%d, %d SMs",
				 e->gpu ? e->gpu : "?", ta_glyph_str(TA_G_EMDASH), ta_glyph_str(TA_G_VBAR), day,
				 e->cc_major, e->cc_minor, e->sm_count);
		else
			snprintf(buf, n, "recorded without a GPU %s replay, read-only %s %s",
				 ta_glyph_str(TA_G_EMDASH), ta_glyph_str(TA_G_VBAR), day);
		return;
	}
	const ta_gpu_info *g = ta_advisor_gpu(app->adv);
	const char *why = ta_advisor_why_no_run(app->adv);
	if (g)
		snprintf(buf, n, "GPU %s (sm_%d%d, %d SMs)", g->name, g->cc_major, g->cc_minor, g->sm_count);
	else
		snprintf(buf, n, "%s", why ? why : "no GPU");
}

void ta_chrome_header(ta_app *app, int w)
{
	ta_term_fill(0, 0, w, TA_ROLE_BAR);
	char gpu[320];
	gpu_text(app, gpu, sizeof gpu);
	const ta_advisor *adv = app->adv;
	const ta_session *ss = ta_advisor_session(adv);
	ta_term_printf_clipped(0, 0, w, TA_ROLE_BAR, " tileadvise %s %s %s %s", ta_glyph_str(TA_G_VBAR),
		       ss->file_name, ta_glyph_str(TA_G_VBAR), gpu);

	/* Row 1: the run state. */
	char state[512];
	ta_run_kind kind = ta_advisor_run_kind(adv);
	if (kind != TA_RUN_NONE) {
		char *log = ta_advisor_run_output(adv);
		const char *last = "";
		if (log) {
			size_t len = strlen(log);
			while (len && (log[len - 1] == '\n' || log[len - 1] == '\r'))
				log[--len] = '\0';
			const char *nl = strrchr(log, '\n');
			last = nl ? nl + 1 : log;
		}
		const char *label = ta_advisor_run_label(adv);
		if (kind == TA_RUN_TEST)
			snprintf(state, sizeof state, "testing (%s) %.1f s  %s %s", ss->test_command,
				 ta_advisor_run_elapsed(adv), ta_glyph_str(TA_G_VBAR), last);
		else
			snprintf(state, sizeof state, "running (%s) %.1f s, %zu launches of the file's kernels  %s %s",
				 label ? label : "run", ta_advisor_run_elapsed(adv),
				 ta_advisor_run_launches(adv), ta_glyph_str(TA_G_VBAR), last);
		free(log);
		ta_term_printf_clipped(1, 0, w, TA_ROLE_WARN, " %s", state);
		return;
	}
	const ta_run_figures *run = ta_advisor_last_run(adv);
	const ta_session_env *e = &ss->env;
	bool ro = ta_advisor_read_only(adv);
	const char *note = ta_advisor_last_note(adv), *why = ta_advisor_why_no_run(adv);
	char drv[64] = "";
	if (ro && e->driver)
		snprintf(drv, sizeof drv, "; CUDA %d.%d driver", e->driver / 1000, (e->driver % 1000) / 10);
	if (run)
		snprintf(state, sizeof state, "measured: %s, %s%s%s%s%s%s", run->label ? run->label : "run",
			 run->date ? run->date : "?", note ? "; last run " : "", note ? note : "", drv,
			 ro && e->software ? "; " : "", ro && e->software ? e->software : "");
	else if (ro)
		snprintf(state, sizeof state, "no measurement in this session");
	else if (why && !ta_advisor_uses_records(adv))
		snprintf(state, sizeof state, "static analysis only: %s", why);
	else
		snprintf(state, sizeof state, "static analysis; no measurement yet (r runs the file)");
	ta_term_printf_clipped(1, 0, w, TA_ROLE_DIM, " %s", state);
}

/* A key and what it does, whole or not at all: a key that does not fit
 * leaves a '…' saying that more keys exist (? lists them all). */
static int put_key(int y, int x, int w, const char *key, const char *what)
{
	if (x >= w)
		return x;
	int need = ta_term_width(key, (size_t)-1) + 1 + ta_term_width(what, (size_t)-1);
	if (x + need > w - 1) {
		ta_term_put(y, x, w - x, ta_glyph_str(TA_G_ELLIPSIS), (size_t)-1, TA_ROLE_BAR);
		return w;
	}
	x += ta_term_put(y, x, w - x, key, (size_t)-1, TA_ROLE_BAR_KEY);
	x += ta_term_put(y, x, w - x, " ", 1, TA_ROLE_BAR);
	x += ta_term_put(y, x, w - x, what, (size_t)-1, TA_ROLE_BAR);
	x += ta_term_put(y, x, w - x, "  ", 2, TA_ROLE_BAR);
	return x;
}

static const char *short_what(ta_req r)
{
	switch (r) {
	case TA_REQ_NEXT_STEP: return "step";
	case TA_REQ_NEXT_KERNEL: return "kernel";
	case TA_REQ_APPLY: return "apply";
	case TA_REQ_RERUN: return "run";
	case TA_REQ_UNDO: return "undo/redo";
	case TA_REQ_EDITOR: return "edit";
	case TA_REQ_SKIP: return "skip";
	case TA_REQ_DIFF: return "diff";
	case TA_REQ_SEARCH: return "search";
	case TA_REQ_LOG: return "log";
	case TA_REQ_WRITE: return "report";
	case TA_REQ_CANCEL: return "cancel";
	case TA_REQ_HELP: return "help";
	case TA_REQ_QUIT: return "quit";
	default: return "";
	}
}

void ta_chrome_footer(ta_app *app, int y, int w)
{
	/* Row y-1: the message or question, row y: the keys. */
	ta_term_fill(y - 1, 0, w, TA_ROLE_NORMAL);
	if (app->prompt != TA_PROMPT_NONE && app->prompt_text)
		ta_term_printf_clipped(y - 1, 0, w, TA_ROLE_ERROR, " %s ", app->prompt_text);
	else if (app->message)
		ta_term_printf_clipped(y - 1, 0, w, app->message_error ? TA_ROLE_ERROR : TA_ROLE_OK, " %s ",
				       app->message);
	ta_term_fill(y, 0, w, TA_ROLE_BAR);
	int x = 1;
	if (app->prompt != TA_PROMPT_NONE) {
		bool unsafe = app->prompt == TA_PROMPT_UNSAFE;
		x = put_key(y, x, w, "y", unsafe ? "yes, apply it" : "yes, revert");
		put_key(y, x, w, "n", unsafe ? "no" : "no, keep it");
		return;
	}
	if (app->overlay == &ta_view_sites) {
		x = put_key(y, x, w, "j/k", "site");
		x = put_key(y, x, w, "Enter/a", "apply there");
		put_key(y, x, w, "Esc", "cancel");
		return;
	}
	if (app->overlay) {
		x = put_key(y, x, w, "j/k", "scroll");
		x = put_key(y, x, w, "Space/b", "page");
		put_key(y, x, w, "Esc/q", "close");
		return;
	}
	size_t n;
	const ta_keydef *keys = ta_keymap(&n);
	bool can_run = ta_advisor_can_run(app->adv), ro = ta_advisor_read_only(app->adv);
	/* help and quit keep their place at the right end, however narrow:
	 * the others give way first (a '…' says they are there) */
	int tail = 0;
	for (size_t i = 0; i < n; i++)
		if (keys[i].label && (keys[i].req == TA_REQ_HELP || keys[i].req == TA_REQ_QUIT))
			tail += ta_term_width(keys[i].label, (size_t)-1) + 1 + ta_term_width(short_what(keys[i].req), (size_t)-1) + 2;
	int room = w - tail - 1 > 0 ? w - tail - 1 : w;
	for (size_t i = 0; i < n; i++) {
		const ta_keydef *k = &keys[i];
		if (!k->label || k->req == TA_REQ_HELP || k->req == TA_REQ_QUIT)
			continue;
		if ((k->flags & TA_KEY_WRITES) && ro)
			continue;
		if ((k->flags & TA_KEY_PROFILES) && !can_run)
			continue;
		if (k->req == TA_REQ_CANCEL && !ta_advisor_busy(app->adv))
			continue;
		if (k->req == TA_REQ_APPLY) {
			const ta_step *s = ta_app_step(app);
			if (!s || !s->diff || s->mark == TA_MARK_APPLIED)
				continue;
		}
		if (x >= room - 1) {
			/* no room left at all: a '…' in the last column they have
			 * says more keys exist (? lists them all) */
			ta_term_put(y, room - 1, 1, ta_glyph_str(TA_G_ELLIPSIS), (size_t)-1, TA_ROLE_BAR);
			x = room + 1;
			break;
		}
		x = put_key(y, x, room, k->label, short_what(k->req));
		if (x >= room) {   /* it did not fit: put_key left its '…' */
			x = room + 1;
			break;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (keys[i].label && (keys[i].req == TA_REQ_HELP || keys[i].req == TA_REQ_QUIT))
			x = put_key(y, x, w + 1, keys[i].label, short_what(keys[i].req));
}

void ta_chrome_too_small(int h, int w)
{
	erase();
	const char *l1 = "Terminal too small";
	char l2[96], l3[96];
	snprintf(l2, sizeof l2, "%d x %d here; tileadvise needs at least 80 x 24.", w, h);
	snprintf(l3, sizeof l3, "Enlarge the window, or press q to quit.");
	int y = h / 2 - 1;
	if (y < 0)
		y = 0;
	const char *lines[] = { l1, l2, l3 };
	for (int i = 0; i < 3 && y + i < h; i++) {
		int len = (int)strlen(lines[i]);
		int x = (w - len) / 2;
		ta_term_put(y + i, x < 0 ? 0 : x, w, lines[i], (size_t)-1, i == 0 ? TA_ROLE_TITLE : TA_ROLE_NORMAL);
	}
}
