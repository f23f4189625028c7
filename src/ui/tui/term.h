/* The terminal, owned by one module: start and stop curses, restore the
 * terminal on every way out (normal exit, fatal signal, exit()), the
 * glyph set (UTF-8 or ASCII), display roles mapped to colours or to plain
 * attributes (NO_COLOR, monochrome), and clipped text output. */
#ifndef TA_UI_TUI_TERM_H
#define TA_UI_TUI_TERM_H

#include <stdbool.h>
#include <stddef.h>

/* What a piece of text is; term.c decides how it looks. */
typedef enum ta_role {
	TA_ROLE_NORMAL,
	TA_ROLE_BAR,          /* header and footer */
	TA_ROLE_BAR_KEY,      /* a key in the footer */
	TA_ROLE_TITLE,        /* headings */
	TA_ROLE_DIM,
	TA_ROLE_SELECT,       /* the selected row */
	TA_ROLE_HILITE,       /* source lines a step points at */
	TA_ROLE_LINENO,
	TA_ROLE_ADD,          /* diff */
	TA_ROLE_DEL,
	TA_ROLE_HUNK,
	TA_ROLE_APPLIES,      /* status marks */
	TA_ROLE_OK,
	TA_ROLE_WARN,
	TA_ROLE_FASTER,
	TA_ROLE_SLOWER,
	TA_ROLE_NOISE,        /* a measured change within noise */
	TA_ROLE_ERROR,
	TA_ROLE__COUNT
} ta_role;

/* Glyphs with their ASCII fallback. */
typedef enum ta_glyph {
	TA_G_APPLIES, TA_G_SATISFIED, TA_G_NA, TA_G_NEEDS_PROFILE, TA_G_NEEDS_BASELINE,
	TA_G_APPLIED, TA_G_SKIPPED, TA_G_CURSOR, TA_G_FOLD, TA_G_VBAR, TA_G_ARROW,
	TA_G_DOT, TA_G_EMDASH, TA_G_TIMES, TA_G_MU, TA_G_ELLIPSIS,
	TA_G_HEAT1, TA_G_HEAT2, TA_G_HEAT3, TA_G_HEAT4,   /* --deep gutter, coolest first */
	TA_G_BROKEN,          /* an applied edit that broke the program */
	TA_G_SLOWER, TA_G_NOISE,   /* applied and measured slower, within noise */
	TA_G_PENDING,         /* applied, not measured yet: no verdict shown */
	TA_G_BAR,             /* a before/after bar */
	TA_G__COUNT
} ta_glyph;

/* Starts curses on the terminal. Returns 0, or -1 with *err (caller
 * frees). Installs the handlers that restore the terminal. */
int ta_term_start(char **err);
/* Starts curses on a virtual screen of w x h characters, for a key script
 * (TILEADVISE_SCRIPT): frames go to /dev/null, ta_term_dump reads the
 * screen back. Returns 0, or -1 with *err (caller frees). */
int ta_term_start_virtual(int w, int h, char **err);
/* Resizes the screen to w x h characters (a key script's :size). */
int ta_term_resize(int w, int h);
/* Writes the screen as text to path: one line per row, trailing blanks
 * trimmed. Returns 0, or -1 with *err (caller frees). */
int ta_term_dump(const char *path, char **err);
/* The SIGINT, SIGTERM or SIGHUP received since ta_term_start, or 0: the
 * loop then ends as after q. */
int ta_term_quit_signal(void);
/* Restores the terminal; safe to call twice and from atexit. */
void ta_term_stop(void);
/* Leaves curses for a child that uses the terminal ($EDITOR) and comes
 * back. */
void ta_term_suspend(void);
void ta_term_resume(void);

bool ta_term_utf8(void);
bool ta_term_color(void);
const char *ta_glyph_str(ta_glyph g);
int ta_role_attr(ta_role r);

/* Writes at most maxw columns of the UTF-8 text s[n] (n == (size_t)-1:
 * up to NUL) at y, x in role; tabs become spaces, bytes that are not
 * printable in this locale become '?'. Returns the columns used. */
int ta_term_put(int y, int x, int maxw, const char *s, size_t n, ta_role role);
/* The same for one line of s, ending in an ellipsis when it is cut. */
int ta_term_put_clipped(int y, int x, int maxw, const char *s, ta_role role);
/* One line of code or diff: s[n] from display column `skip` on (a
 * sideways scroll), at most maxw columns, with an ellipsis on each side
 * where text is hidden. Returns the columns used. */
int ta_term_put_scrolled(int y, int x, int maxw, const char *s, size_t n, int skip, ta_role role);
/* printf into a line, clipped. */
int ta_term_printf(int y, int x, int maxw, ta_role role, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* printf into a line that ends in an ellipsis when it is cut (headers,
 * messages: a cut there must show). */
int ta_term_printf_clipped(int y, int x, int maxw, ta_role role, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Fills columns [x, x+w) of row y with spaces in role. */
void ta_term_fill(int y, int x, int w, ta_role role);
/* Display width of UTF-8 text (as ta_term_put would draw it). */
int ta_term_width(const char *s, size_t n);

#endif
