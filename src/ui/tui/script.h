/* Key scripts (TILEADVISE_SCRIPT, tig's TIG_SCRIPT model): the advisor
 * reads its keys from a file instead of the terminal, each one when the
 * advisor is idle (no run in flight, nothing left to fill in), so that a
 * screen test is a script and the screens it saves, with no terminal
 * multiplexer and no polling.
 *
 * One entry per line; blank lines and lines starting with `#` are skipped:
 *   KEYS            each character is a key; <Name> names one:
 *                   <Enter> <Esc> <Tab> <Shift-Tab> <Space> <Backspace>
 *                   <Up> <Down> <Left> <Right> <PgUp> <PgDn> <Home> <End>
 *                   <F1> <Ctrl-X> <lt> (a literal `<`)
 *   :screen PATH    write the screen as text to PATH (one line per row,
 *                   trailing blanks trimmed; PATH relative to the script's
 *                   working directory)
 *   :size W H       resize the screen to W columns and H rows
 * The advisor quits (as after q) at the end of the script. */
#ifndef TA_UI_TUI_SCRIPT_H
#define TA_UI_TUI_SCRIPT_H

#include <stdio.h>
#include <wchar.h>

typedef struct ta_script ta_script;

typedef enum ta_script_kind {
	TA_SCRIPT_KEY,       /* code (OK or KEY_CODE_YES) and ch, as get_wch gives */
	TA_SCRIPT_SCREEN,    /* path */
	TA_SCRIPT_SIZE,      /* w, h */
	TA_SCRIPT_END
} ta_script_kind;

typedef struct ta_script_step {
	ta_script_kind kind;
	int code;
	wint_t ch;
	const char *path;    /* owned by the script, valid until the next call */
	int w, h;
} ta_script_step;

/* Opens the script at path. NULL with *err (caller frees) when it cannot
 * be read or a line does not parse (every line is checked first: a typo
 * fails before the advisor starts). */
ta_script *ta_script_open(const char *path, char **err);
/* The next step; TA_SCRIPT_END after the last (and then again). */
void ta_script_next(ta_script *s, ta_script_step *out);
void ta_script_close(ta_script *s);

#endif
