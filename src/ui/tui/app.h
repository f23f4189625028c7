/* The interactive advisor's view state, shared by the loop, the actions and
 * the views; the advisor itself is advise/advisor.h.
 * Internal to src/ui/tui. */
#ifndef TA_UI_TUI_APP_H
#define TA_UI_TUI_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "advise/advisor.h"
#include "ui/tui/keymap.h"
#include "ui/tui/tui.h"

typedef struct ta_app ta_app;

/* What a handler asks the loop to do. */
enum {
	TA_REACT_NONE = 0,
	TA_REACT_REDRAW = 1 << 0,
	TA_REACT_SAVE = 1 << 1,       /* the session changed: write it */
	TA_REACT_QUIT = 1 << 2,
	TA_REACT_UNHANDLED = 1 << 3,  /* not this view's request */
	/* Only the position changed (a step or kernel picked): written once
	 * the keys stop for a second, or at the end, so that moving through
	 * the walk never waits on writing the session. */
	TA_REACT_SAVE_SOON = 1 << 4,
};

typedef struct ta_rect {
	int y, x, h, w;
} ta_rect;

/* A view: a pane or an overlay the loop draws and feeds requests. */
typedef struct ta_view_ops {
	const char *name;
	void (*draw)(ta_app *app, const ta_rect *r);
	unsigned (*request)(ta_app *app, ta_req req);    /* NULL: none of its own */
	unsigned (*click)(ta_app *app, const ta_rect *r, int y, int x); /* NULL: ignores */
} ta_view_ops;

extern const ta_view_ops ta_view_walk;    /* left: kernels and steps */
extern const ta_view_ops ta_view_step;    /* right: the step page */
extern const ta_view_ops ta_view_help;    /* overlays */
extern const ta_view_ops ta_view_log;
extern const ta_view_ops ta_view_diff;
extern const ta_view_ops ta_view_sites;   /* the sites of a step's edit, to pick one */

/* A question in the footer. REVERT: the advisor offers to revert an edit;
 * TRUST: run the commands the session file stores; UNSAFE: a on a step
 * whose edit is unsafe, asking before it is applied. */
typedef enum ta_prompt { TA_PROMPT_NONE, TA_PROMPT_REVERT, TA_PROMPT_TRUST, TA_PROMPT_UNSAFE } ta_prompt;

/* One row of the walk pane. */
typedef struct ta_row {
	enum { TA_ROW_STEP, TA_ROW_FOLD } kind;
	int step;                 /* index in the kernel's steps */
} ta_row;

/* The TUI's state is the view's: what is selected and scrolled, the
 * message, the question, the overlay. Everything else is the advisor's
 * (advise/advisor.h), read through it. */
struct ta_app {
	ta_advisor *adv;

	/* selection and scrolling */
	int kernel;
	int step;                 /* index into the kernel's steps; -1 none */
	bool unfold;              /* show the folded steps */
	int list_top;
	int page_top;
	int page_lines;           /* lines of the last drawn page */
	int hscroll;              /* columns of code and diffs scrolled off to the left */
#define TA_HSCROLL_STEP 8
	ta_row *rows;             /* rows of the walk pane, rebuilt on change */
	size_t n_rows;
	int row_y0;               /* screen row of rows[list_top] in the last frame */
	int kernel_y0;            /* screen row of the first kernel in the last frame */
	int n_kernel_rows;        /* kernels shown there */
	int kernel_first;         /* the first of them (the list scrolls to keep the selected one) */
	/* The selection by name, kept while the advisor builds its walk again
	 * (ta_app_hold, ta_app_follow). */
	char held_kernel[256];
	char held_step[8];
	unsigned walk_version;

	/* messages and questions */
	char *message;
	bool message_error;
	ta_prompt prompt;
	uint32_t prompt_line;      /* TA_PROMPT_UNSAFE: the line of the edit asked about */
	char *prompt_text;

	/* overlays */
	const ta_view_ops *overlay;
	int overlay_top;
	int overlay_lines;
	int overlay_left;         /* the overlay's sideways scroll, in columns */
	int pick;                 /* the sites overlay: the finding picked */

	/* `/` search (search.c) */
	bool searching;           /* typing the text after `/` */
	char search_input[128];
	char *search;             /* the last text searched for (n, N) */

	bool quit;
	bool too_small;
	int bench_fd;             /* TILEADVISE_BENCH: timing lines go here; -1 */
	struct ta_script *script; /* TILEADVISE_SCRIPT: keys from a file; NULL */
};

/* state.c: opening, the selection, the advisor's events */
int ta_app_open(ta_app *app, const ta_tui_options *o, char **err);
void ta_app_close(ta_app *app);
void ta_app_rebuild_rows(ta_app *app);
/* search.c: the next (backward: previous) match of app->search, and a key
 * typed while app->searching. Both return the reaction. */
unsigned ta_app_search(ta_app *app, bool backward);
unsigned ta_app_search_key(ta_app *app, int key);
void ta_app_set_message(ta_app *app, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ta_app_save(ta_app *app);
const ta_walk_kernel *ta_app_kernel(const ta_app *app);
const ta_step *ta_app_step(const ta_app *app);
/* The same, with its edit made if the walk had left it for later. */
const ta_step *ta_app_step_ready(ta_app *app);
/* Before a call of the advisor that may build its walk again: the
 * selection by name. After it: the selection found again in the new walk,
 * and the advisor's events as messages and questions. */
void ta_app_hold(ta_app *app);
void ta_app_follow(ta_app *app);
/* Feeds the advisor's run; returns reaction bits. */
unsigned ta_app_poll(ta_app *app);

/* actions.c: the requests that change things */
unsigned ta_app_request(ta_app *app, ta_req req);
/* Applies the selected step's edit at the site on line, then re-runs. */
unsigned ta_app_apply_at(ta_app *app, uint32_t line, bool unsafe_ok);

/* chrome.c: header, footer, the too-small screen */
void ta_chrome_header(ta_app *app, int w);
void ta_chrome_footer(ta_app *app, int y, int w);
void ta_chrome_too_small(int h, int w);

/* Formats a duration in ns as "1932.2 µs" / "1.93 ms" into buf. */
const char *ta_fmt_ns(double ns, char *buf, size_t n);

#endif
