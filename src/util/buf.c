#include "config.h"
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(void)
{
	fputs("tileadvise: out of memory\n", stderr);
	abort();
}

void *ta_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *ta_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *ta_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *ta_xstrdup(const char *s)
{
	return ta_xstrndup(s, strlen(s));
}

void *ta_xmemdup(const void *p, size_t n)
{
	if (!p || n == 0)
		return NULL;
	void *q = ta_xmalloc(n);
	memcpy(q, p, n);
	return q;
}

char *ta_xstrndup(const char *s, size_t n)
{
	char *p = ta_xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

int ta_strptr_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *ta_xasprintf(const char *fmt, ...)
{
	ta_buf b = TA_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	ta_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return ta_buf_steal(&b);
}

void ta_grow(void **items, size_t *cap, size_t need, size_t elem_size)
{
	if (need <= *cap)
		return;
	size_t ncap = *cap ? *cap * 2 : 8;
	while (ncap < need)
		ncap *= 2;
	*items = ta_xrealloc(*items, ncap * elem_size);
	*cap = ncap;
}

void ta_grow_implied(void **items, size_t count, size_t elem_size)
{
	if (count == 0)
		*items = ta_xrealloc(*items, 8 * elem_size);
	else if (count >= 8 && (count & (count - 1)) == 0)
		*items = ta_xrealloc(*items, 2 * count * elem_size);
}

static void reserve(ta_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	size_t ncap = b->cap ? b->cap * 2 : 64;
	while (ncap < need)
		ncap *= 2;
	b->data = ta_xrealloc(b->data, ncap);
	b->cap = ncap;
}

void ta_buf_append(ta_buf *b, const char *s, size_t n)
{
	reserve(b, n);
	if (n)
		memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void ta_buf_puts(ta_buf *b, const char *s)
{
	ta_buf_append(b, s, strlen(s));
}

void ta_buf_putc(ta_buf *b, char c)
{
	ta_buf_append(b, &c, 1);
}

void ta_buf_vprintf(ta_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	reserve(b, (size_t)n);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void ta_buf_printf(ta_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ta_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void ta_buf_json_escaped(ta_buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': ta_buf_puts(b, "\\\""); break;
		case '\\': ta_buf_puts(b, "\\\\"); break;
		case '\n': ta_buf_puts(b, "\\n"); break;
		case '\r': ta_buf_puts(b, "\\r"); break;
		case '\t': ta_buf_puts(b, "\\t"); break;
		default:
			if (c < 0x20)
				ta_buf_printf(b, "\\u%04x", c);
			else
				ta_buf_putc(b, (char)c);
		}
	}
}

void ta_buf_clear(ta_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

char *ta_buf_steal(ta_buf *b)
{
	char *p = b->data ? b->data : ta_xstrdup("");
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

void ta_buf_free(ta_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

const char *ta_buf_str(const ta_buf *b)
{
	return b->data ? b->data : "";
}
