/* The advisor's state, shared by the loop, the actions and the views.
 * Internal to src/ui/tui. */
#ifndef TA_UI_TUI_APP_H
#define TA_UI_TUI_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "advise/run.h"
#include "advise/session.h"
#include "advise/walk.h"
#include "analyze/analysis.h"
#include "profile/gpu.h"
#include "ui/tui/keymap.h"
#include "ui/tui/tui.h"

struct ta_catalog;
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

typedef enum ta_run_kind {
	TA_RUN_NONE, TA_RUN_PROFILE, TA_RUN_BASELINE, TA_RUN_TEST,
	TA_RUN_DEEP_PC, TA_RUN_DEEP_SOL,     /* --deep: PC sampling, then the counters */
} ta_run_kind;
/* UNSAFE: a on a step whose edit is unsafe, asking before it is applied. */
typedef enum ta_prompt { TA_PROMPT_NONE, TA_PROMPT_REVERT, TA_PROMPT_TRUST, TA_PROMPT_UNSAFE } ta_prompt;

/* One row of the walk pane. */
typedef struct ta_row {
	enum { TA_ROW_STEP, TA_ROW_FOLD } kind;
	int step;                 /* index in the kernel's steps */
} ta_row;

struct ta_app {
	ta_tui_options opt;
	bool read_only;           /* --replay */
	char *path;               /* the kernel file */
	char *session_path;
	struct ta_catalog *cat;
	ta_analysis *an;          /* NULL in replay */
	ta_source *shown_src;     /* replay: the recorded text; else an->src */
	ta_session *sess;
	ta_walk *walk;            /* what is shown (owned) */

	/* device */
	bool has_gpu;
	ta_gpu_info gpu;
	char *why_no_profile;     /* NULL when runs can be made */

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

	/* a run in progress */
	ta_run_kind run_kind;
	ta_run *active;           /* the one of run, deep and test with a child going; NULL */
	ta_run *run;              /* the timed run or the baseline (owned) */
	struct timespec run_start;
	char *run_label;          /* "first run", "after S3" */
	int pending_edit;         /* session edit waiting for its after-run; -1 */
	bool baseline_pending;    /* --baseline CMD still to be measured */
	ta_run *deep;             /* --deep: the two extra runs (owned) */
	ta_run *test;             /* the test command (owned) */
	int deep_run;             /* the session run they add to; -1 none */
	char *last_log;           /* output of the last run (owned) */
	char *last_run_note;      /* how it ended */

	/* messages and questions */
	char *message;
	bool message_error;
	ta_prompt prompt;
	uint32_t prompt_line;      /* TA_PROMPT_UNSAFE: the line of the edit asked about */
	bool unsafe_ok;            /* set while applying an unsafe edit y answered for */
	char *prompt_text;
	/* Commands the session file stores that this command line did not
	 * give, held back until the user allows them (advise/trust.h). */
	char **stored_command;
	char *stored_test;
	bool first_run_waits;     /* the first run waits for that answer */

	/* overlays */
	const ta_view_ops *overlay;
	int overlay_top;
	int overlay_lines;
	int overlay_left;         /* the overlay's sideways scroll, in columns */
	int pick;                 /* the sites overlay: the finding picked */

	/* file watch */
	struct timespec file_mtime;
	off_t file_size;

	bool quit;
	bool too_small;
	int bench_fd;             /* TILEADVISE_BENCH: timing lines go here; -1 */
};

/* state.c: loading and re-analysing */
int ta_app_open(ta_app *app, char **err);
void ta_app_close(ta_app *app);
/* Re-reads the file, re-analyses it and rebuilds the walk (label names
 * the version when the text changed). Returns 0, or -1 with a message. */
int ta_app_reanalyse(ta_app *app, const char *label);
/* Rebuilds the walk from the analysis and the session's last run. */
void ta_app_rebuild_walk(ta_app *app);
void ta_app_rebuild_rows(ta_app *app);
void ta_app_set_message(ta_app *app, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ta_app_save(ta_app *app);
/* Whether the first run can start now (not read-only, profiling on, no
 * question pending); ta_tui_run starts it, and the trust answer. */
bool ta_app_first_run_due(const ta_app *app);
const ta_walk_kernel *ta_app_kernel(const ta_app *app);
ta_step *ta_app_step(const ta_app *app);
/* The same, with its edit made if the walk had left it for later. */
ta_step *ta_app_step_ready(ta_app *app);
/* Makes one of the walk's pending kernels or edits (marking what the
 * session says of a kernel made); returns how many are left. */
size_t ta_app_ready_one(ta_app *app);
/* Makes all of them (before the walk is written out). */
void ta_app_walk_complete(ta_app *app);
const ta_run_figures *ta_app_last_run(const ta_app *app);
/* Checks whether the file changed on disk; re-analyses when it did. */
unsigned ta_app_watch_file(ta_app *app);

/* actions.c: the requests that change things */
unsigned ta_app_request(ta_app *app, ta_req req);
/* Applies the selected step's edit at the site on line, then re-runs. */
unsigned ta_app_apply_at(ta_app *app, uint32_t line);

/* runs.c: profiling and test runs */
void ta_app_start_profile(ta_app *app, const char *label);
void ta_app_start_test(ta_app *app);
/* Measures the --baseline command (once; T4/T5 compare with it). */
void ta_app_start_baseline(ta_app *app);
/* Feeds the run going; returns reaction bits. */
unsigned ta_app_run_poll(ta_app *app);
void ta_app_cancel_run(ta_app *app);
double ta_app_run_elapsed(const ta_app *app);
size_t ta_app_run_launches(const ta_app *app);

/* chrome.c: header, footer, the too-small screen */
void ta_chrome_header(ta_app *app, int w);
void ta_chrome_footer(ta_app *app, int y, int w);
void ta_chrome_too_small(int h, int w);

/* Formats a duration in ns as "1932.2 µs" / "1.93 ms" into buf. */
const char *ta_fmt_ns(double ns, char *buf, size_t n);

#endif
