#include "config.h"
#include "util/text.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool ta_text_is_control(unsigned char prev, unsigned char c)
{
	if (c < 0x20)
		return c != '\t' && c != '\n';
	if (c == 0x7f)
		return true;
	return prev == 0xc2 && c >= 0x80 && c <= 0x9f;
}

bool ta_text_format_char(uint32_t cp)
{
	return cp == 0x061c || cp == 0x180e || (cp >= 0x200b && cp <= 0x200f) ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2064) ||
	       (cp >= 0x2066 && cp <= 0x206f) || cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb);
}

/* The UTF-8 sequence at s[0..n): its length and code point, 0 when s[0]
 * starts none (a stray or bad byte), or when n is too short for it and
 * more may come (*more then, for a stream). */
static size_t utf8_at(const unsigned char *s, size_t n, uint32_t *cp, bool *more)
{
	unsigned c = s[0];
	*more = false;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	if (!len)
		return 0;
	uint32_t v = c & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if (i >= n) {
			*more = true;
			return 0;
		}
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && v < 0x800) || (len == 4 && v < 0x10000) || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

/* The policy, once: what s[i..n) starts, shown for a person. Writes the
 * shown form to out (at most 12 bytes) and returns how many bytes of s it
 * takes; 0 when s ends inside a sequence that more bytes may complete
 * (only when partial: a stream). */
static size_t shown_unit(const char *str, size_t n, size_t i, unsigned flags, bool partial, char *out,
			 size_t *out_len)
{
	const unsigned char *s = (const unsigned char *)str + i;
	size_t left = n - i;
	unsigned char c = s[0];
	*out_len = 1;
	if (c == '\n') {
		out[0] = flags & TA_TEXT_LINES ? '\n' : flags & TA_TEXT_SPACES ? ' ' : '?';
		return 1;
	}
	if (c == '\t') {
		out[0] = flags & (TA_TEXT_LINES | TA_TEXT_TABS) ? '\t' : flags & TA_TEXT_SPACES ? ' ' : '?';
		return 1;
	}
	if (c == '\r') {
		/* a CR that ends a line with its LF stays where lines do; a bare
		 * one (it moves the cursor back over the line) never */
		if (left < 2 && partial)
			return 0;
		if (left >= 2 && s[1] == '\n' && (flags & (TA_TEXT_LINES | TA_TEXT_SPACES)) &&
		    (flags & TA_TEXT_CRLF)) {
			out[0] = '\r';
			return 1;
		}
		if (left >= 2 && s[1] == '\n' && (flags & TA_TEXT_SPACES)) {
			*out_len = 0;   /* the LF after it makes the one space */
			return 1;
		}
		out[0] = '?';
		return 1;
	}
	if (c < 0x20 || c == 0x7f) {
		out[0] = '?';
		return 1;
	}
	uint32_t cp;
	bool more;
	size_t len = utf8_at(s, left, &cp, &more);
	if (!len && more && partial)
		return 0;
	if (!len) {
		/* not UTF-8: the byte by its value (a lone 0x9b is CSI to some
		 * terminals) */
		*out_len = (size_t)snprintf(out, 12, "\\x%02x", c);
		return 1;
	}
	if (cp >= 0x80 && cp <= 0x9f) {
		out[0] = '?';      /* C1 controls */
		return len;
	}
	if (ta_text_format_char(cp)) {
		/* bidirectional and zero-width format characters: they reorder or
		 * hide what is shown (Trojan source) */
		*out_len = (size_t)snprintf(out, 12, "\\u%04x", (unsigned)cp);
		return len;
	}
	memcpy(out, s, len);
	*out_len = len;
	return len;
}

void ta_text_escape(ta_buf *b, const char *s, size_t n, unsigned flags)
{
	char out[12];
	for (size_t i = 0; i < n;) {
		size_t ol;
		i += shown_unit(s, n, i, flags, false, out, &ol);
		ta_buf_append(b, out, ol);
	}
}

void ta_text_put(FILE *out, const char *s)
{
	ta_buf b = TA_BUF_INIT;
	if (s)
		ta_text_escape(&b, s, strlen(s), 0);
	fwrite(ta_buf_str(&b), 1, b.len, out);
	ta_buf_free(&b);
}

const char *ta_text_name(const char *s)
{
	/* a few at a time, for the arguments of one printf */
	static char *pool[8];
	static unsigned next;
	char **slot = &pool[next++ % 8];
	free(*slot);
	ta_buf b = TA_BUF_INIT;
	if (s)
		ta_text_escape(&b, s, strlen(s), 0);
	*slot = ta_buf_steal(&b);
	return *slot;
}

/* What both markdown writers do first with s[i..n): write a control, a
 * line break, a stray byte or a format character as the policy shows it
 * (a tab as a space). Returns the bytes taken when that is all, else 0
 * (a plain character for the caller to escape). */
static size_t md_put_plain(ta_buf *b, const char *s, size_t n, size_t i)
{
	unsigned char c = (unsigned char)s[i];
	if (c >= 0x20 && c < 0x7f)
		return 0;
	if (c == '\n' || c == '\r' || c == '\t') {
		/* a line break ends the table row or paragraph */
		ta_buf_putc(b, c == '\t' ? ' ' : '?');
		return 1;
	}
	char out[12];
	size_t ol, took = shown_unit(s, n, i, 0, false, out, &ol);
	ta_buf_append(b, out, ol);
	return took;
}

/* all: escape every markdown character, else only those that change the
 * structure (a table cell, HTML). */
static void put_md(ta_buf *b, const char *s, bool all)
{
	size_t n = s ? strlen(s) : 0;
	for (size_t i = 0; i < n;) {
		size_t took = md_put_plain(b, s, n, i);
		if (took) {
			i += took;
			continue;
		}
		char c = s[i++];
		if (c == '<')
			ta_buf_puts(b, "&lt;");
		else if (c == '>')
			ta_buf_puts(b, "&gt;");
		else if (c == '&')
			ta_buf_puts(b, "&amp;");
		else if (c == '|' || (all && strchr("\\`*_[]#", c)))
			ta_buf_printf(b, "\\%c", c);
		else
			ta_buf_putc(b, c);
	}
}

static void put_buf(FILE *out, ta_buf *b)
{
	fwrite(ta_buf_str(b), 1, b->len, out);
	ta_buf_free(b);
}

void ta_md_put_text(FILE *out, const char *s)
{
	ta_buf b = TA_BUF_INIT;
	put_md(&b, s, true);
	put_buf(out, &b);
}

void ta_md_put_prose(FILE *out, const char *s)
{
	ta_buf b = TA_BUF_INIT;
	put_md(&b, s, false);
	put_buf(out, &b);
}

void ta_md_put_code(FILE *out, const char *s)
{
	ta_buf b = TA_BUF_INIT;
	ta_buf_putc(&b, '`');
	size_t n = s ? strlen(s) : 0;
	for (size_t i = 0; i < n;) {
		size_t took = md_put_plain(&b, s, n, i);
		if (took) {
			i += took;
			continue;
		}
		char c = s[i++];
		if (c == '|')
			ta_buf_puts(&b, "\\|");  /* GFM reads it before the code span */
		else if (c == '`')
			ta_buf_putc(&b, '\'');
		else
			ta_buf_putc(&b, c);
	}
	ta_buf_putc(&b, '`');
	put_buf(out, &b);
}

void ta_md_buf_code(ta_buf *b, const char *s, size_t n)
{
	size_t run = 0, longest = 0;
	for (size_t i = 0; i < n; i++) {
		run = s[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	bool pad = n && (s[0] == '`' || s[0] == ' ' || s[n - 1] == '`' || s[n - 1] == ' ');
	for (size_t i = 0; i <= longest; i++)
		ta_buf_putc(b, '`');
	if (pad)
		ta_buf_putc(b, ' ');
	/* line breaks and tabs as spaces (a CRLF as one), the rest as the
	 * policy shows it */
	ta_text_escape(b, s, n, TA_TEXT_SPACES);
	if (pad)
		ta_buf_putc(b, ' ');
	for (size_t i = 0; i <= longest; i++)
		ta_buf_putc(b, '`');
}

void ta_md_buf_text(ta_buf *b, const char *s)
{
	put_md(b, s, true);
}

/* ---- a filtering stream ---------------------------------------------------- */

typedef struct safe_cookie {
	FILE *real;
	unsigned char held[8];    /* the start of a sequence not yet whole */
	size_t n_held;
	unsigned flags;
} safe_cookie;

/* The streams made here, so that a style can reach what is beneath one. */
static struct {
	FILE *f;
	safe_cookie *k;
} safe_streams[4];

/* Writes what k holds that the policy can decide now (all of it when
 * final). */
static void safe_drain(safe_cookie *k, bool final)
{
	size_t i = 0;
	char out[12];
	while (i < k->n_held) {
		size_t ol, took = shown_unit((const char *)k->held, k->n_held, i, k->flags, !final, out, &ol);
		if (!took)
			break;
		fwrite(out, 1, ol, k->real);
		i += took;
	}
	memmove(k->held, k->held + i, k->n_held - i);
	k->n_held -= i;
}

static ssize_t safe_write(void *c, const char *buf, size_t size)
{
	safe_cookie *k = c;
	for (size_t i = 0; i < size; i++) {
		unsigned char b = (unsigned char)buf[i];
		/* plain ASCII with nothing held: the common case, straight out */
		if (!k->n_held && b >= 0x20 && b < 0x7f) {
			putc(b, k->real);
			continue;
		}
		k->held[k->n_held++] = b;
		safe_drain(k, false);
		if (k->n_held >= sizeof k->held - 1)
			safe_drain(k, true);
	}
	/* This stream buffers already (a chunk per call): an fflush of it
	 * reaches the terminal or file, ahead of what goes to the other one. */
	fflush(k->real);
	return ferror(k->real) ? -1 : (ssize_t)size;
}

static int safe_close(void *c)
{
	safe_cookie *k = c;
	for (size_t i = 0; i < sizeof safe_streams / sizeof *safe_streams; i++)
		if (safe_streams[i].k == k)
			safe_streams[i].f = NULL, safe_streams[i].k = NULL;
	safe_drain(k, true);
	int rc = fflush(k->real);
	free(k);
	return rc;
}

FILE *ta_text_safe_stream(FILE *real, bool keep_cr)
{
	safe_cookie *k = calloc(1, sizeof *k);
	if (!k)
		return NULL;
	k->real = real;
	k->flags = TA_TEXT_LINES | (keep_cr ? TA_TEXT_CRLF : 0);
	cookie_io_functions_t io = { .write = safe_write, .close = safe_close };
	FILE *f = fopencookie(k, "w", io);
	if (!f) {
		free(k);
		return NULL;
	}
	if (real == stderr)
		setvbuf(f, NULL, _IONBF, 0);
	for (size_t i = 0; i < sizeof safe_streams / sizeof *safe_streams; i++)
		if (!safe_streams[i].f) {
			safe_streams[i].f = f;
			safe_streams[i].k = k;
			break;
		}
	return f;
}

void ta_text_style(FILE *f, bool color, ta_style s)
{
	static const char *const sgr[] = {
		[TA_STYLE_RESET] = "\033[0m", [TA_STYLE_BOLD] = "\033[1m", [TA_STYLE_ERROR] = "\033[1;31m",
		[TA_STYLE_WARNING] = "\033[1;35m", [TA_STYLE_NOTE] = "\033[1;36m", [TA_STYLE_ID] = "\033[1;33m",
	};
	if (!color)
		return;
	for (size_t i = 0; i < sizeof safe_streams / sizeof *safe_streams; i++)
		if (safe_streams[i].f == f) {
			fflush(f);
			fputs(sgr[s], safe_streams[i].k->real);
			return;
		}
	fputs(sgr[s], f);
}

int ta_text_color_wanted(const char *when, int fd)
{
	if (when && !strcmp(when, "always"))
		return 1;
	if (when && !strcmp(when, "never"))
		return 0;
	if (when && strcmp(when, "auto"))
		return -1;
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
	return isatty(fd) && !(nc && *nc) && !(term && !strcmp(term, "dumb"));
}

char *ta_text_one_line(char *t)
{
	if (!t)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; t[i]; i++) {
		if (!isspace((unsigned char)t[i])) {
			if ((t[i] == ')' || t[i] == ']') && o && t[o - 1] == ' ')
				o--;
			t[o++] = t[i];
			continue;
		}
		while (isspace((unsigned char)t[i + 1]))
			i++;
		if (o && t[o - 1] != '(' && t[o - 1] != '[' && t[i + 1])
			t[o++] = ' ';
	}
	t[o] = 0;
	return t;
}
