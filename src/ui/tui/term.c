/* Terminal ownership (see term.h). */
#include "config.h"
#include "ui/tui/term.h"
#include "util/text.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <wchar.h>

#include "util/buf.h"

static SCREEN *screen;
static volatile sig_atomic_t active;
static bool utf8, color;
static int role_attr[TA_ROLE__COUNT];

static const char *const glyph_utf8[TA_G__COUNT] = {
	[TA_G_APPLIES] = "●", [TA_G_SATISFIED] = "✓", [TA_G_NA] = "·",
	[TA_G_NEEDS_PROFILE] = "◔", [TA_G_NEEDS_BASELINE] = "◑", [TA_G_APPLIED] = "★",
	[TA_G_SKIPPED] = "»", [TA_G_CURSOR] = "▶", [TA_G_FOLD] = "▸", [TA_G_VBAR] = "│",
	[TA_G_ARROW] = "→", [TA_G_DOT] = "·", [TA_G_EMDASH] = "—", [TA_G_TIMES] = "×",
	[TA_G_MU] = "µ", [TA_G_ELLIPSIS] = "…",
	[TA_G_HEAT1] = "░", [TA_G_HEAT2] = "▒", [TA_G_HEAT3] = "▓", [TA_G_HEAT4] = "█",
	[TA_G_BROKEN] = "✗", [TA_G_BAR] = "█", [TA_G_SLOWER] = "▼", [TA_G_NOISE] = "≈",
	[TA_G_PENDING] = "◌",
};
static const char *const glyph_ascii[TA_G__COUNT] = {
	[TA_G_APPLIES] = "*", [TA_G_SATISFIED] = "+", [TA_G_NA] = ".",
	[TA_G_NEEDS_PROFILE] = "?", [TA_G_NEEDS_BASELINE] = "b", [TA_G_APPLIED] = "A",
	[TA_G_SKIPPED] = "s", [TA_G_CURSOR] = ">", [TA_G_FOLD] = "+", [TA_G_VBAR] = "|",
	[TA_G_ARROW] = "->", [TA_G_DOT] = "-", [TA_G_EMDASH] = "-", [TA_G_TIMES] = "x",
	[TA_G_PENDING] = "a",
	[TA_G_MU] = "u", [TA_G_ELLIPSIS] = "~",
	[TA_G_HEAT1] = ".", [TA_G_HEAT2] = ":", [TA_G_HEAT3] = "*", [TA_G_HEAT4] = "#",
	[TA_G_BROKEN] = "X", [TA_G_BAR] = "#", [TA_G_SLOWER] = "v", [TA_G_NOISE] = "=",
};

bool ta_term_utf8(void) { return utf8; }
bool ta_term_color(void) { return color; }

const char *ta_glyph_str(ta_glyph g)
{
	return (utf8 ? glyph_utf8 : glyph_ascii)[g];
}

int ta_role_attr(ta_role r)
{
	return role_attr[r];
}

/* ---- restoring ----------------------------------------------------------------- */

/* The virtual screen's streams (a key script): frames go nowhere. */
static FILE *virtual_out, *virtual_in;

void ta_term_stop(void)
{
	if (!active)
		return;
	active = 0;
	endwin();
	if (screen) {
		delscreen(screen);
		screen = NULL;
	}
	if (virtual_out) {
		fclose(virtual_out);
		fclose(virtual_in);
		virtual_out = virtual_in = NULL;
	}
	fflush(stdout);
}

/* A fatal signal: give the terminal back first, then die of the signal so
 * the parent sees the real cause. endwin is not async-signal-safe, but a
 * broken terminal is the worse outcome (htop makes the same choice). */
static void on_fatal(int sig)
{
	if (active) {
		active = 0;
		endwin();
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* SIGINT, SIGTERM, SIGHUP: the loop ends as after q (the session saved,
 * the run ended, the terminal restored). A second one is fatal. */
static volatile sig_atomic_t quit_signal;

static void on_quit(int sig)
{
	quit_signal = sig;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_fatal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	sigaction(sig, &sa, NULL);
}

int ta_term_quit_signal(void)
{
	return quit_signal;
}

static void install_handlers(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE,
				    SIGILL, SIGABRT };
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_fatal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		sigaction(sigs[i], &sa, NULL);
	/* No SA_RESTART: the loop's poll returns and sees the flag. */
	sa.sa_handler = on_quit;
	sa.sa_flags = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void setup_roles(void)
{
	const char *nc = getenv("NO_COLOR");
	color = has_colors() && !(nc && *nc);
	if (color) {
		start_color();
		use_default_colors();
		static const struct { ta_role r; short fg, bg; int extra; } pairs[] = {
			{ TA_ROLE_BAR, COLOR_BLACK, COLOR_CYAN, 0 },
			{ TA_ROLE_BAR_KEY, COLOR_BLACK, COLOR_CYAN, A_BOLD },
			{ TA_ROLE_TITLE, COLOR_CYAN, -1, A_BOLD },
			{ TA_ROLE_DIM, COLOR_BLUE, -1, 0 },
			{ TA_ROLE_SELECT, COLOR_BLACK, COLOR_WHITE, 0 },
			{ TA_ROLE_HILITE, COLOR_BLACK, COLOR_YELLOW, 0 },
			{ TA_ROLE_LINENO, COLOR_BLUE, -1, 0 },
			{ TA_ROLE_ADD, COLOR_GREEN, -1, 0 },
			{ TA_ROLE_DEL, COLOR_RED, -1, 0 },
			{ TA_ROLE_HUNK, COLOR_MAGENTA, -1, 0 },
			{ TA_ROLE_APPLIES, COLOR_YELLOW, -1, A_BOLD },
			{ TA_ROLE_OK, COLOR_GREEN, -1, 0 },
			{ TA_ROLE_WARN, COLOR_MAGENTA, -1, 0 },
			{ TA_ROLE_FASTER, COLOR_GREEN, -1, A_BOLD },
			{ TA_ROLE_SLOWER, COLOR_RED, -1, A_BOLD },
			{ TA_ROLE_NOISE, COLOR_YELLOW, -1, 0 },
			{ TA_ROLE_ERROR, COLOR_WHITE, COLOR_RED, A_BOLD },
		};
		for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
			init_pair((short)(i + 1), pairs[i].fg, pairs[i].bg);
			role_attr[pairs[i].r] = (int)COLOR_PAIR(i + 1) | pairs[i].extra;
		}
		role_attr[TA_ROLE_NORMAL] = A_NORMAL;
		return;
	}
	/* Monochrome: what matters must survive without colour. */
	role_attr[TA_ROLE_NORMAL] = A_NORMAL;
	role_attr[TA_ROLE_BAR] = A_REVERSE;
	role_attr[TA_ROLE_BAR_KEY] = A_REVERSE | A_BOLD;
	role_attr[TA_ROLE_TITLE] = A_BOLD;
	role_attr[TA_ROLE_DIM] = A_DIM;
	role_attr[TA_ROLE_SELECT] = A_REVERSE;
	role_attr[TA_ROLE_HILITE] = A_REVERSE;
	role_attr[TA_ROLE_LINENO] = A_DIM;
	role_attr[TA_ROLE_ADD] = A_BOLD;
	role_attr[TA_ROLE_DEL] = A_DIM;
	role_attr[TA_ROLE_HUNK] = A_UNDERLINE;
	role_attr[TA_ROLE_APPLIES] = A_BOLD;
	role_attr[TA_ROLE_OK] = A_NORMAL;
	role_attr[TA_ROLE_WARN] = A_BOLD;
	role_attr[TA_ROLE_FASTER] = A_BOLD;
	role_attr[TA_ROLE_SLOWER] = A_BOLD | A_UNDERLINE;
	role_attr[TA_ROLE_ERROR] = A_REVERSE | A_BOLD;
}

static int start(const char *term, FILE *out, FILE *in, char **err);

int ta_term_start(char **err)
{
	const char *term = getenv("TERM");
	return start(term && *term ? term : NULL, stdout, stdin, err);
}

int ta_term_start_virtual(int w, int h, char **err)
{
	virtual_out = fopen("/dev/null", "w");
	virtual_in = fopen("/dev/null", "r");
	if (!virtual_out || !virtual_in) {
		*err = ta_xasprintf("cannot open /dev/null for the key script's screen");
		return -1;
	}
	/* the user's terminal type when it can draw, else a common one: the
	 * screen is read back as text, whatever the type */
	const char *term = getenv("TERM");
	if (!term || !*term || !strcmp(term, "dumb"))
		term = "xterm-256color";
	if (start(term, virtual_out, virtual_in, err) != 0)
		return -1;
	resizeterm(h, w);
	return 0;
}

int ta_term_resize(int w, int h)
{
	return resizeterm(h, w) == OK ? 0 : -1;
}

int ta_term_dump(const char *path, char **err)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		*err = ta_xasprintf("cannot write the screen to %s: %s", path, strerror(errno));
		return -1;
	}
	int h, w;
	getmaxyx(stdscr, h, w);
	wchar_t *row = ta_xcalloc((size_t)w + 1, sizeof *row);
	for (int y = 0; y < h; y++) {
		int n = mvwinnwstr(stdscr, y, 0, row, w);
		if (n == ERR)
			n = 0;
		row[n] = L'\0';
		while (n > 0 && row[n - 1] == L' ')
			row[--n] = L'\0';
		fprintf(f, "%ls\n", row);
	}
	free(row);
	if (fclose(f) != 0) {
		*err = ta_xasprintf("cannot write the screen to %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int start(const char *term, FILE *out, FILE *in, char **err)
{
	setlocale(LC_ALL, "");
	const char *cs = nl_langinfo(CODESET);
	utf8 = cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
	screen = newterm(term, out, in);
	if (!screen) {
		*err = ta_xasprintf("cannot use the terminal (TERM=%s); set TERM to your terminal's type, "
				    "or use --report or --check", term ? term : "unset");
		return -1;
	}
	set_term(screen);
	/* A terminal that cannot move the cursor (TERM=dumb) would show the
	 * frames one after the other: unreadable. */
	const char *cup = tigetstr("cup");
	if (!cup || cup == (const char *)-1) {
		endwin();
		delscreen(screen);
		screen = NULL;
		*err = ta_xasprintf("the terminal type TERM=%s cannot move the cursor, so the advisor cannot "
				    "draw on it; set TERM to your terminal's type (e.g. xterm-256color), or use "
				    "--report or --check", term ? term : "unset");
		return -1;
	}
	active = 1;
	atexit(ta_term_stop);
	install_handlers();
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	/* Clicks and the wheel where the terminal reports them; elsewhere
	 * mousemask gives nothing and the keys do it all. */
	mmask_t mask = BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED;
#ifdef BUTTON5_PRESSED
	mask |= BUTTON5_PRESSED;
#endif
	mousemask(mask, NULL);
	mouseinterval(0);
	setup_roles();
	return 0;
}

void ta_term_suspend(void)
{
	def_prog_mode();
	endwin();
}

void ta_term_resume(void)
{
	reset_prog_mode();
	clearok(curscr, TRUE);
	refresh();
}

/* ---- text ---------------------------------------------------------------------- */

/* Without UTF-8: one ASCII stand-in per code point of the UTF-8 text (our
 * catalog's texts use a few typographic characters). */
static wchar_t ascii_of(const char *s, size_t n, size_t *len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t k = u[0] >= 0xf0 ? 4 : u[0] >= 0xe0 ? 3 : u[0] >= 0xc0 ? 2 : 1;
	if (k > n)
		k = n;
	unsigned cp = k == 1 ? u[0] : u[0] & (0x7f >> k);
	for (size_t i = 1; i < k; i++) {
		if ((u[i] & 0xc0) != 0x80) {
			*len = i;
			return L'?';
		}
		cp = (cp << 6) | (u[i] & 0x3f);
	}
	*len = k;
	static const struct { unsigned cp; char c; } map[] = {
		{ 0xa7, '#' }, { 0xd7, 'x' }, { 0xb5, 'u' }, { 0xb7, '-' }, { 0xb2, '2' }, { 0xb3, '3' },
		{ 0x2013, '-' }, { 0x2014, '-' }, { 0x2018, '\'' }, { 0x2019, '\'' }, { 0x201c, '"' },
		{ 0x201d, '"' }, { 0x2026, '~' }, { 0x2192, '>' }, { 0x2190, '<' }, { 0x2264, '<' },
		{ 0x2265, '>' }, { 0x2248, '~' }, { 0x1d40, 'T' }, { 0x2212, '-' }, { 0xa0, ' ' },
	};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (map[i].cp == cp)
			return (wchar_t)map[i].c;
	return L'?';
}

/* Decodes one character: its wide value and width; *len bytes used. */
static wchar_t next_char(const char *s, size_t n, size_t *len, int *w)
{
	if (*s == '\t') {
		*len = 1;
		*w = -2;   /* the caller expands */
		return L' ';
	}
	if (!utf8) {
		unsigned char c = (unsigned char)*s;
		*w = 1;
		if (c < 0x80) {
			*len = 1;
			return c >= 0x20 && c < 0x7f ? (wchar_t)c : L'?';
		}
		return ascii_of(s, n, len);
	}
	mbstate_t st;
	memset(&st, 0, sizeof st);
	wchar_t wc;
	size_t k = mbrtowc(&wc, s, n, &st);
	if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
		*len = 1;
		*w = 1;
		return L'?';
	}
	*len = k;
	int cw = wcwidth(wc);
	/* a bidirectional or zero-width format character (width 0) would
	 * reorder or hide what the screen shows: '?' (util/text.h) */
	if (cw < 0 || ta_text_format_char((uint32_t)wc)) {
		*w = 1;
		return L'?';
	}
	*w = cw;
	return wc;
}

int ta_term_width(const char *s, size_t n)
{
	if (n == (size_t)-1)
		n = strlen(s);
	int col = 0;
	size_t i = 0;
	while (i < n && s[i]) {
		size_t len;
		int w;
		next_char(s + i, n - i, &len, &w);
		col += w == -2 ? 4 - col % 4 : w;
		i += len;
	}
	return col;
}

int ta_term_put(int y, int x, int maxw, const char *s, size_t n, ta_role role)
{
	if (maxw <= 0 || !s)
		return 0;
	if (n == (size_t)-1)
		n = strlen(s);
	wchar_t buf[512];
	size_t nb = 0;
	int col = 0;
	size_t i = 0;
	while (i < n && s[i] && s[i] != '\n' && s[i] != '\r') {
		size_t len;
		int w;
		wchar_t wc = next_char(s + i, n - i, &len, &w);
		if (w == -2) {
			int spaces = 4 - col % 4;
			if (col + spaces > maxw)
				spaces = maxw - col;
			for (int k = 0; k < spaces && nb < 511; k++)
				buf[nb++] = L' ';
			col += spaces;
		} else {
			if (col + w > maxw || nb >= 511)
				break;
			buf[nb++] = wc;
			col += w;
		}
		i += len;
		if (col >= maxw)
			break;
	}
	buf[nb] = 0;
	attr_t a = (attr_t)role_attr[role];
	attron(a);
	mvaddnwstr(y, x, buf, (int)nb);
	attroff(a);
	return col;
}

int ta_term_put_clipped(int y, int x, int maxw, const char *s, ta_role role)
{
	if (maxw <= 0 || !s)
		return 0;
	size_t n = strcspn(s, "\r\n");
	if (ta_term_width(s, n) <= maxw)
		return ta_term_put(y, x, maxw, s, n, role);
	int col = ta_term_put(y, x, maxw - 1, s, n, role);
	return col + ta_term_put(y, x + col, 1, ta_glyph_str(TA_G_ELLIPSIS), (size_t)-1, role);
}

int ta_term_put_scrolled(int y, int x, int maxw, const char *s, size_t n, int skip, ta_role role)
{
	if (maxw <= 0 || !s)
		return 0;
	if (n == (size_t)-1)
		n = strlen(s);
	n = strcspn(s, "\r\n") < n ? strcspn(s, "\r\n") : n;
	int col = 0, used = 0;
	size_t i = 0;
	if (skip > 0) {
		/* Drop whole characters until `skip` columns are gone. */
		while (i < n && col < skip) {
			size_t len;
			int w;
			next_char(s + i, n - i, &len, &w);
			col += w == -2 ? 4 - col % 4 : w;
			i += len;
		}
		if (i >= n)
			return 0;   /* the line ends left of the view */
		if (maxw < 2)
			return ta_term_put(y, x, maxw, ta_glyph_str(TA_G_ELLIPSIS), (size_t)-1, TA_ROLE_DIM);
		used = ta_term_put(y, x, 1, ta_glyph_str(TA_G_ELLIPSIS), (size_t)-1, TA_ROLE_DIM);
	}
	const char *rest = s + i;
	size_t rn = n - i;
	int room = maxw - used;
	if (ta_term_width(rest, rn) <= room)
		return used + ta_term_put(y, x + used, room, rest, rn, role);
	used += ta_term_put(y, x + used, room - 1, rest, rn, role);
	return used + ta_term_put(y, x + used, 1, ta_glyph_str(TA_G_ELLIPSIS), (size_t)-1, TA_ROLE_DIM);
}

int ta_term_printf(int y, int x, int maxw, ta_role role, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return ta_term_put(y, x, maxw, buf, (size_t)-1, role);
}

int ta_term_printf_clipped(int y, int x, int maxw, ta_role role, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	/* trailing spaces are padding: cutting them is no loss */
	size_t n = strlen(buf);
	while (n && buf[n - 1] == ' ')
		buf[--n] = '\0';
	return ta_term_put_clipped(y, x, maxw, buf, role);
}

void ta_term_fill(int y, int x, int w, ta_role role)
{
	if (w <= 0)
		return;
	attr_t a = (attr_t)role_attr[role];
	attron(a);
	mvhline(y, x, ' ', w);
	attroff(a);
}
