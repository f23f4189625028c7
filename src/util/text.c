#include "config.h"
#include "util/text.h"
#include "util/buf.h"

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

/* Writes s[0..n) on out, each control character as '?' (a C1 one's lead
 * byte is held back until the next byte says what it starts). */
static void put_clean(FILE *out, const char *s, bool keep_newline)
{
	unsigned char prev = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; prev = *p++) {
		if (*p == 0xc2)
			continue;
		if (ta_text_is_control(prev, *p) || (*p == '\n' && !keep_newline)) {
			putc('?', out);
			continue;
		}
		if (prev == 0xc2)
			putc(0xc2, out);
		putc(*p, out);
	}
	if (prev == 0xc2)
		putc(0xc2, out);
}

void ta_text_put(FILE *out, const char *s)
{
	put_clean(out, s ? s : "", false);
}

/* What both markdown writers do first with byte c after prev: hold back a
 * 0xc2 (a C1 control's lead byte) until the next byte, write the held one
 * before a byte that makes no control with it, and write a control or a
 * newline as '?' and a tab as ' '. True when that is all c takes. */
static bool md_put_plain(FILE *out, unsigned char prev, unsigned char c)
{
	if (c == 0xc2)
		return true;
	if (prev == 0xc2 && !ta_text_is_control(prev, c))
		putc(0xc2, out);
	if (ta_text_is_control(prev, c) || c == '\n' || c == '\t') {
		putc(c == '\t' ? ' ' : '?', out);
		return true;
	}
	return false;
}

/* all: escape every markdown character, else only those that change the
 * structure (a table cell, HTML). */
static void put_md(FILE *out, const char *s, bool all)
{
	unsigned char prev = 0;
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; prev = *p++) {
		if (md_put_plain(out, prev, *p))
			continue;
		if (*p == '<')
			fputs("&lt;", out);
		else if (*p == '>')
			fputs("&gt;", out);
		else if (*p == '&')
			fputs("&amp;", out);
		else if (*p == '|' || (all && strchr("\\`*_[]#", *p)))
			fprintf(out, "\\%c", *p);
		else
			putc(*p, out);
	}
	if (prev == 0xc2)
		putc(0xc2, out);
}

void ta_md_put_text(FILE *out, const char *s)
{
	put_md(out, s, true);
}

void ta_md_put_prose(FILE *out, const char *s)
{
	put_md(out, s, false);
}

void ta_md_put_code(FILE *out, const char *s)
{
	putc('`', out);
	unsigned char prev = 0;
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; prev = *p++) {
		if (md_put_plain(out, prev, *p))
			continue;
		if (*p == '|')
			fputs("\\|", out);  /* GFM reads it before the code span */
		else if (*p == '`')
			putc('\'', out);
		else
			putc(*p, out);
	}
	if (prev == 0xc2)
		putc(0xc2, out);
	putc('`', out);
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
	unsigned char prev = 0;
	for (size_t i = 0; i < n; prev = (unsigned char)s[i++]) {
		unsigned char c = (unsigned char)s[i];
		if (c == 0xc2)
			continue;
		if (prev == 0xc2 && !ta_text_is_control(prev, c))
			ta_buf_putc(b, (char)0xc2);
		if (c == '\r' && i + 1 < n && s[i + 1] == '\n')
			continue;   /* the LF after it makes the one space */
		if (c == '\n' || c == '\t')
			ta_buf_putc(b, ' ');
		else if (ta_text_is_control(prev, c))
			ta_buf_putc(b, '?');
		else
			ta_buf_putc(b, (char)c);
	}
	if (prev == 0xc2)
		ta_buf_putc(b, (char)0xc2);
	if (pad)
		ta_buf_putc(b, ' ');
	for (size_t i = 0; i <= longest; i++)
		ta_buf_putc(b, '`');
}

void ta_md_buf_text(ta_buf *b, const char *s)
{
	char *m = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&m, &len);
	if (!f)
		return;
	put_md(f, s, true);
	fclose(f);
	ta_buf_append(b, m, len);
	free(m);
}

/* ---- a filtering stream ---------------------------------------------------- */

typedef struct safe_cookie {
	FILE *real;
	unsigned char prev;       /* last byte seen (a C2 held back) */
	bool keep_cr;
} safe_cookie;

static ssize_t safe_write(void *c, const char *buf, size_t size)
{
	safe_cookie *k = c;
	for (size_t i = 0; i < size; i++) {
		unsigned char b = (unsigned char)buf[i];
		if (k->prev == 0xc2 && !ta_text_is_control(0xc2, b))
			putc(0xc2, k->real);
		if (b != 0xc2)
			putc(ta_text_is_control(k->prev, b) && !(b == '\r' && k->keep_cr) ? '?' : b, k->real);
		k->prev = b;
	}
	if (k->real == stderr)
		fflush(k->real);
	return ferror(k->real) ? -1 : (ssize_t)size;
}

static int safe_close(void *c)
{
	safe_cookie *k = c;
	if (k->prev == 0xc2)
		putc(0xc2, k->real);
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
	k->keep_cr = keep_cr;
	cookie_io_functions_t io = { .write = safe_write, .close = safe_close };
	FILE *f = fopencookie(k, "w", io);
	if (!f) {
		free(k);
		return NULL;
	}
	if (real == stderr)
		setvbuf(f, NULL, _IONBF, 0);
	return f;
}
