/* The advisor's entry point and its one loop: the keyboard, the run's
 * pipes and a timer, polled together; handlers return reactions and only
 * the loop acts on them. */
#include "config.h"
#include "ui/tui/app.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "ui/tui/script.h"
#include "ui/tui/term.h"
#include "util/buf.h"

#define MIN_W 80
#define MIN_H 24

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The process's CPU time so far (user and system), which a loaded machine
 * stretches less than the wall clock. */
static double cpu_ms(void)
{
	struct rusage u;
	if (getrusage(RUSAGE_SELF, &u) != 0)
		return 0;
	return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
	       (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

/* The width of the left pane: a third of the screen, within bounds. */
static int left_width(int w)
{
	int lw = w * 34 / 100;
	return lw < 34 ? 34 : lw > 48 ? 48 : lw;
}

static void draw(ta_app *app)
{
	int h, w;
	getmaxyx(stdscr, h, w);
	ta_app_step_ready(app);   /* the step page, its diff and the footer's 'a' */
	erase();
	app->too_small = h < MIN_H || w < MIN_W;
	if (app->too_small) {
		ta_chrome_too_small(h, w);
		refresh();
		return;
	}
	ta_chrome_header(app, w);
	ta_rect body = { 2, 0, h - 4, w };
	if (app->overlay) {
		app->overlay->draw(app, &body);
	} else {
		int lw = left_width(w);
		ta_rect left = { body.y, 0, body.h, lw };
		ta_rect right = { body.y, lw + 1, body.h, w - lw - 1 };
		ta_view_walk.draw(app, &left);
		for (int y = body.y; y < body.y + body.h; y++)
			ta_term_put(y, lw, 1, ta_glyph_str(TA_G_VBAR), (size_t)-1, TA_ROLE_DIM);
		ta_view_step.draw(app, &right);
	}
	ta_chrome_footer(app, h - 1, w);
	refresh();
}

/* Moves *top by d lines, kept within [0, lines - 1]. */
static unsigned scroll_by(int *top, int lines, int d)
{
	int t = *top + d;
	if (t > lines - 1)
		t = lines - 1;
	if (t < 0)
		t = 0;
	if (t == *top)
		return TA_REACT_NONE;
	*top = t;
	return TA_REACT_REDRAW;
}

/* The wheel: -1 up, 1 down, 0 neither (terminals without a wheel report
 * no button 4 or 5). */
static int wheel_of(mmask_t b)
{
	if (b & BUTTON4_PRESSED)
		return -1;
#ifdef BUTTON5_PRESSED
	if (b & BUTTON5_PRESSED)
		return 1;
#endif
	return 0;
}

/* Clicks pick a kernel or a step in the left pane; the wheel moves
 * between steps there and scrolls the step page or an overlay. */
static unsigned on_mouse(ta_app *app)
{
	MEVENT ev;
	if (getmouse(&ev) != OK || app->too_small)
		return TA_REACT_NONE;
	int wheel = wheel_of(ev.bstate);
	bool click = (ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) != 0;
	if (app->overlay)
		return wheel ? scroll_by(&app->overlay_top, app->overlay_lines, 3 * wheel) : TA_REACT_NONE;
	int h, w;
	getmaxyx(stdscr, h, w);
	int lw = left_width(w);
	ta_rect left = { 2, 0, h - 4, lw };
	if (ev.y < left.y || ev.y >= left.y + left.h)
		return TA_REACT_NONE;
	if (ev.x < lw) {
		if (wheel)
			return ta_view_walk.request(app, wheel > 0 ? TA_REQ_NEXT_STEP : TA_REQ_PREV_STEP) |
			       TA_REACT_SAVE_SOON;
		return click ? ta_view_walk.click(app, &left, ev.y, ev.x) : TA_REACT_NONE;
	}
	return wheel ? scroll_by(&app->page_top, app->page_lines, 3 * wheel) : TA_REACT_NONE;
}

static unsigned on_key(ta_app *app, int code, wint_t ch)
{
	if (code == KEY_CODE_YES) {
		if (ch == KEY_RESIZE)
			return TA_REACT_REDRAW;
		if (ch == KEY_MOUSE)
			return on_mouse(app);
	}
	int key = (int)ch;
	/* typing after `/`: every key is text until Enter or Esc */
	if (app->searching && !app->too_small)
		return ta_app_search_key(app, code == KEY_CODE_YES && ch == KEY_BACKSPACE ? KEY_BACKSPACE
					  : code == KEY_CODE_YES && ch == KEY_ENTER ? KEY_ENTER : key);
	/* The too-small screen only knows how to quit. */
	ta_req req = ta_keymap_lookup(key);
	if (app->too_small)
		return req == TA_REQ_QUIT ? TA_REACT_QUIT : TA_REACT_NONE;
	if (req == TA_REQ_NONE)
		return TA_REACT_NONE;
	/* A message stays until the next key. */
	if (app->message && req != TA_REQ_NONE && app->prompt == TA_PROMPT_NONE) {
		free(app->message);
		app->message = NULL;
	}
	return ta_app_request(app, req);
}

/* One step of the key script, taken while the advisor is idle: a key as
 * the terminal would give it, a screen written out (the frame drawn at
 * the top of the loop is the one after the last key's work), a resize;
 * its end quits as q does. */
static unsigned script_step(ta_app *app)
{
	ta_script_step st;
	ta_script_next(app->script, &st);
	switch (st.kind) {
	case TA_SCRIPT_KEY:
		return on_key(app, st.code, st.ch);
	case TA_SCRIPT_SCREEN: {
		char *err = NULL;
		if (ta_term_dump(st.path, &err) != 0) {
			ta_app_set_message(app, true, "%s", err);
			free(err);
			return TA_REACT_REDRAW;
		}
		return TA_REACT_NONE;
	}
	case TA_SCRIPT_SIZE:
		ta_term_resize(st.w, st.h);
		return TA_REACT_REDRAW;
	case TA_SCRIPT_END:
		break;
	}
	return TA_REACT_QUIT;
}

static void bench_mark(ta_app *app, const char *what, double ms)
{
	if (app->bench_fd < 0)
		return;
	char line[96];
	int n = snprintf(line, sizeof line, "%s %.3f\n", what, ms);
	if (write(app->bench_fd, line, (size_t)n) < 0)
		app->bench_fd = -1;
}

/* The first frame is drawn (and marked) before the loop; every draw here
 * is a redraw. */
static ta_exit loop(ta_app *app)
{
	bool dirty = true;
	double last_watch = now_ms();
	double save_due = 0;   /* a position to write at this time; 0: none */
	while (!app->quit) {
		if (dirty) {
			double t0 = now_ms();
			draw(app);
			dirty = false;
			bench_mark(app, "redraw_ms", now_ms() - t0);
		}
		struct pollfd fds[8];
		/* a key script's keys come when the advisor is idle, not from
		 * the terminal */
		fds[0] = (struct pollfd){ .fd = app->script ? -1 : STDIN_FILENO, .events = POLLIN };
		size_t nfds = 1;
		int timeout = 1000;   /* the file watch */
		if (ta_advisor_busy(app->adv)) {
			nfds += ta_advisor_fds(app->adv, fds + 1, 7);
			int d = ta_advisor_deadline_ms(app->adv);
			timeout = 250;   /* the elapsed time on screen */
			if (d >= 0 && d < timeout)
				timeout = d;
		}
		/* Kernels' steps and steps' diffs left for later are made one
		 * at a time while no key is waiting. */
		if (save_due > 0) {
			double d = save_due - now_ms();
			if (d < timeout)
				timeout = d > 0 ? (int)d + 1 : 0;
		}
		bool filling = ta_advisor_walk_pending(app->adv) > 0;
		bool scripted = app->script && !filling && !ta_advisor_busy(app->adv);
		if (filling || scripted)
			timeout = 0;
		int n = poll(fds, (nfds_t)nfds, timeout);
		if (filling && n == 0)
			ta_advisor_ready_one(app->adv);
		if (n < 0 && errno != EINTR)
			break;
		if (ta_term_quit_signal())
			break;    /* killed or hung up: saved below, like q */
		/* The terminal gone without a SIGHUP reaching us (its window
		 * closed while a run's process group held the foreground): poll
		 * reports the hangup at once, every time, and reading keys would
		 * spin. Saved below, like q. */
		if (n > 0 && fds[0].fd >= 0 && (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL)))
			break;
		unsigned react = 0;
		if (ta_advisor_busy(app->adv))
			react |= ta_app_poll(app);
		if (scripted)
			react |= script_step(app);
		/* Drain every key curses has (it may have buffered some). */
		for (;;) {
			wint_t ch;
			int code = get_wch(&ch);
			if (code == ERR)
				break;
			double tk = now_ms();
			unsigned r = on_key(app, code, ch);
			react |= r;
			if (r & TA_REACT_QUIT)
				break;
			if (app->bench_fd >= 0 && (r & TA_REACT_REDRAW)) {
				draw(app);
				bench_mark(app, "key_to_frame_ms", now_ms() - tk);
				react &= ~(unsigned)TA_REACT_REDRAW;
			}
		}
		if (now_ms() - last_watch >= 1000) {
			ta_app_hold(app);
			if (ta_advisor_watch(app->adv))
				react |= TA_REACT_REDRAW | TA_REACT_SAVE;
			ta_app_follow(app);
			last_watch = now_ms();
		}
		if (react & TA_REACT_SAVE) {
			ta_app_save(app);
			save_due = 0;
		} else if (react & TA_REACT_SAVE_SOON) {
			save_due = now_ms() + 1000;
		} else if (save_due > 0 && now_ms() >= save_due) {
			ta_app_save(app);
			save_due = 0;
		}
		if (react & TA_REACT_REDRAW)
			dirty = true;
		if (react & TA_REACT_QUIT)
			app->quit = true;
	}
	return TA_EXIT_OK;
}

ta_exit ta_tui_run(const ta_tui_options *o)
{
	double t_start = now_ms();
	const char *script = getenv("TILEADVISE_SCRIPT");
	ta_script *keys = NULL;
	if (script && *script) {
		char *why = NULL;
		keys = ta_script_open(script, &why);
		if (!keys) {
			fprintf(stderr, "tileadvise: %s\n", why);
			free(why);
			return TA_EXIT_ERROR;
		}
	} else if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		fprintf(stderr, "tileadvise: the interactive advisor needs a terminal; for scripts and CI "
				"use 'tileadvise --check %s' (diagnostics) or 'tileadvise --report %s' (the model)\n",
			o->file ? o->file : "FILE", o->file ? o->file : "FILE");
		return TA_EXIT_ERROR;
	}
	ta_app *app = ta_xcalloc(1, sizeof *app);
	app->bench_fd = -1;
	app->script = keys;
	const char *bench = getenv("TILEADVISE_BENCH");
	if (bench && *bench)
		app->bench_fd = open(bench, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	char *err = NULL;
	if (ta_app_open(app, o, &err) != 0) {
		fprintf(stderr, "tileadvise: %s\n", err ? err : "cannot open");
		free(err);
		ta_app_close(app);
		free(app);
		return TA_EXIT_ERROR;
	}
	if ((app->script ? ta_term_start_virtual(80, 24, &err) : ta_term_start(&err)) != 0) {
		fprintf(stderr, "tileadvise: %s\n", err);
		free(err);
		ta_app_close(app);
		free(app);
		return TA_EXIT_ERROR;
	}
	/* Draw the static analysis first; the profile fills in as it comes. */
	draw(app);
	bench_mark(app, "first_frame_ms", now_ms() - t_start);
	bench_mark(app, "first_frame_cpu_ms", cpu_ms());
	ta_app_hold(app);
	ta_advisor_start(app->adv);
	ta_app_follow(app);
	ta_exit rc = loop(app);
	ta_app_save(app);
	ta_term_stop();
	if (app->bench_fd >= 0)
		close(app->bench_fd);
	ta_app_close(app);
	free(app);
	return rc;
}
