#include "config.h"
#include "advise/json_read.h"

#include <errno.h>
#include <locale.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deeper documents go to json_loadb (its own limit is 2048). */
#define MAX_DEPTH 512

typedef struct {
	const unsigned char *p, *end;
	bool reject_dups;
	char *buf;        /* strings with escapes, decoded (one text long) */
	size_t text_len;
	int depth;
} scan;

static void skip_ws(scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\t' || *s->p == '\r'))
		s->p++;
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* The length of the UTF-8 sequence at p (its first byte >= 0x80) when it
 * is one json_loadb accepts (no overlong forms, no surrogates, nothing past
 * U+10FFFF); 0 otherwise. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0];
	size_t n;
	uint32_t v;
	if (c >= 0xC2 && c <= 0xDF) {
		n = 2;
		v = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		v = c & 0x0F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		v = c & 0x07;
	} else {
		return 0;
	}
	if ((size_t)(end - p) < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		v = (v << 6) | (p[i] & 0x3F);
	}
	if ((n == 3 && v < 0x800) || (n == 4 && v < 0x10000) || v > 0x10FFFF ||
	    (v >= 0xD800 && v <= 0xDFFF))
		return 0;
	return n;
}

/* Four hex digits at p: their value, or -1. */
static long hex4(const unsigned char *p, const unsigned char *end)
{
	if (end - p < 4)
		return -1;
	long v = 0;
	for (int i = 0; i < 4; i++) {
		unsigned char c = p[i];
		int d = is_digit(c) ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

static size_t utf8_put(char *o, uint32_t v)
{
	if (v < 0x80) {
		o[0] = (char)v;
		return 1;
	}
	if (v < 0x800) {
		o[0] = (char)(0xC0 | (v >> 6));
		o[1] = (char)(0x80 | (v & 0x3F));
		return 2;
	}
	if (v < 0x10000) {
		o[0] = (char)(0xE0 | (v >> 12));
		o[1] = (char)(0x80 | ((v >> 6) & 0x3F));
		o[2] = (char)(0x80 | (v & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | (v >> 18));
	o[1] = (char)(0x80 | ((v >> 12) & 0x3F));
	o[2] = (char)(0x80 | ((v >> 6) & 0x3F));
	o[3] = (char)(0x80 | (v & 0x3F));
	return 4;
}

/* The escape at *q (its backslash), decoded to *o; both move past it.
 * False declines. */
static bool read_escape(const unsigned char **q, const unsigned char *end, char **o)
{
	const unsigned char *p = *q;
	if (end - p < 2)
		return false;
	char e = (char)p[1], c;
	p += 2;
	switch (e) {
	case '"': case '\\': case '/': c = e; break;
	case 'b': c = '\b'; break;
	case 'f': c = '\f'; break;
	case 'n': c = '\n'; break;
	case 'r': c = '\r'; break;
	case 't': c = '\t'; break;
	case 'u': {
		long v = hex4(p, end);
		/* \u0000 would put a NUL in the string: json_loadb's call. */
		if (v <= 0 || (v >= 0xDC00 && v <= 0xDFFF))
			return false;
		p += 4;
		if (v >= 0xD800 && v <= 0xDBFF) {
			if (end - p < 6 || p[0] != '\\' || p[1] != 'u')
				return false;
			long lo = hex4(p + 2, end);
			if (lo < 0xDC00 || lo > 0xDFFF)
				return false;
			v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
			p += 6;
		}
		*o += utf8_put(*o, (uint32_t)v);
		*q = p;
		return true;
	}
	default:
		return false;
	}
	*(*o)++ = c;
	*q = p;
	return true;
}

/* At a '"': the string's bytes in *out, *n (no NUL in them). Text without
 * escapes is left in place, so *out is not terminated; once an escape
 * comes the string is decoded into s->buf. False declines. A decoded
 * string is never longer than its source, so one buffer of the text's
 * length holds any of them. */
static bool read_string(scan *s, const char **out, size_t *n)
{
	const unsigned char *start = ++s->p, *q = start, *end = s->end;
	char *o = NULL;
	for (;;) {
		/* A run of plain ASCII first, copied at once when decoding. */
		const unsigned char *run = q;
		while (q < end && *q >= 0x20 && *q < 0x80 && *q != '"' && *q != '\\')
			q++;
		if (o) {
			memcpy(o, run, (size_t)(q - run));
			o += q - run;
		}
		if (q >= end)
			return false;
		unsigned char c = *q;
		if (c == '"') {
			*out = o ? s->buf : (const char *)start;
			*n = o ? (size_t)(o - s->buf) : (size_t)(q - start);
			s->p = q + 1;
			return true;
		}
		if (c == '\\') {
			if (!o) {
				if (!s->buf && !(s->buf = malloc(s->text_len + 1)))
					return false;
				memcpy(s->buf, start, (size_t)(q - start));
				o = s->buf + (q - start);
			}
			if (!read_escape(&q, end, &o))
				return false;
			continue;
		}
		size_t k = c < 0x20 ? 0 : utf8_len(q, end);
		if (!k)
			return false;
		if (o) {
			memcpy(o, q, k);
			o += k;
		}
		q += k;
	}
}

/* The "C" locale, for reading reals as json_loadb does whatever the
 * program's locale (it swaps '.' for the locale's decimal point). */
static locale_t c_locale(void)
{
	static locale_t loc;
	if (!loc)
		loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	return loc;
}

/* JSON's number grammar; an integer of at most 18 digits (no overflow to
 * judge) or a real strtod reads without a range error. */
static json_t *read_number(scan *s)
{
	const unsigned char *start = s->p, *q = start, *end = s->end;
	bool neg = q < end && *q == '-', real = false;
	if (neg)
		q++;
	if (q >= end || !is_digit(*q))
		return NULL;
	if (*q == '0') {
		q++;
		if (q < end && is_digit(*q))
			return NULL;
	} else {
		while (q < end && is_digit(*q))
			q++;
	}
	const unsigned char *int_end = q;
	if (q < end && *q == '.') {
		real = true;
		if (++q >= end || !is_digit(*q))
			return NULL;
		while (q < end && is_digit(*q))
			q++;
	}
	if (q < end && (*q == 'e' || *q == 'E')) {
		real = true;
		q++;
		if (q < end && (*q == '+' || *q == '-'))
			q++;
		if (q >= end || !is_digit(*q))
			return NULL;
		while (q < end && is_digit(*q))
			q++;
	}
	if (!real) {
		if (int_end - start - neg > 18)
			return NULL;
		json_int_t v = 0;
		for (const unsigned char *d = start + neg; d < int_end; d++)
			v = v * 10 + (*d - '0');
		s->p = q;
		return json_integer(neg ? -v : v);
	}
	char tmp[64];
	size_t n = (size_t)(q - start);
	if (n >= sizeof tmp || !c_locale())
		return NULL;
	memcpy(tmp, start, n);
	tmp[n] = '\0';
	char *e;
	errno = 0;
	double d = strtod_l(tmp, &e, c_locale());
	if (errno == ERANGE || e != tmp + n)
		return NULL;
	s->p = q;
	return json_real(d);
}

static bool literal(scan *s, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0)
		return false;
	s->p += n;
	return true;
}

static json_t *read_value(scan *s);

/* One "key": value of an object, added to o; false declines. */
static bool read_member(scan *s, json_t *o)
{
	const char *k;
	size_t kn;
	if (s->p >= s->end || *s->p != '"' || !read_string(s, &k, &kn))
		return false;
	/* The key outlives the value's strings, which reuse s->buf. */
	char small[64];
	char *key = kn < sizeof small ? small : malloc(kn + 1);
	if (!key)
		return false;
	memcpy(key, k, kn);
	key[kn] = '\0';
	json_t *v = NULL;
	skip_ws(s);
	if (s->p < s->end && *s->p == ':') {
		s->p++;
		skip_ws(s);
		v = read_value(s);
	}
	bool ok = v && !(s->reject_dups && json_object_get(o, key));
	if (ok)
		ok = json_object_set_new_nocheck(o, key, v) == 0;
	else
		json_decref(v);
	if (key != small)
		free(key);
	return ok;
}

/* An object or an array, at its '{' or '['. */
static json_t *read_container(scan *s)
{
	bool object = *s->p == '{';
	char close = object ? '}' : ']';
	s->p++;
	json_t *c = object ? json_object() : json_array();
	if (!c)
		return NULL;
	skip_ws(s);
	if (s->p < s->end && *s->p == close) {
		s->p++;
		return c;
	}
	for (;;) {
		json_t *v;
		bool ok = object ? read_member(s, c)
			: (v = read_value(s)) != NULL && json_array_append_new(c, v) == 0;
		if (!ok)
			break;
		skip_ws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			skip_ws(s);
			continue;
		}
		if (s->p < s->end && *s->p == close) {
			s->p++;
			return c;
		}
		break;
	}
	json_decref(c);
	return NULL;
}

static json_t *read_value(scan *s)
{
	if (s->p >= s->end)
		return NULL;
	switch (*s->p) {
	case '{':
	case '[': {
		if (s->depth >= MAX_DEPTH)
			return NULL;
		s->depth++;
		json_t *v = read_container(s);
		s->depth--;
		return v;
	}
	case '"': {
		const char *t;
		size_t n;
		return read_string(s, &t, &n) ? json_stringn_nocheck(t, n) : NULL;
	}
	case 't':
		return literal(s, "true") ? json_true() : NULL;
	case 'f':
		return literal(s, "false") ? json_false() : NULL;
	case 'n':
		return literal(s, "null") ? json_null() : NULL;
	default:
		return read_number(s);
	}
}

json_t *ta_json_scan(const char *text, size_t len, size_t flags)
{
	if (!text || (flags & ~(size_t)JSON_REJECT_DUPLICATES))
		return NULL;
	scan s = {
		.p = (const unsigned char *)text,
		.end = (const unsigned char *)text + len,
		.reject_dups = flags & JSON_REJECT_DUPLICATES,
		.text_len = len,
	};
	skip_ws(&s);
	/* json_loadb wants an object or an array at the top. */
	json_t *root = NULL;
	if (s.p < s.end && (*s.p == '{' || *s.p == '['))
		root = read_value(&s);
	if (root) {
		skip_ws(&s);
		if (s.p != s.end) {
			json_decref(root);
			root = NULL;
		}
	}
	free(s.buf);
	return root;
}

json_t *ta_json_loadb(const char *text, size_t len, size_t flags, json_error_t *error)
{
	json_t *root = ta_json_scan(text, len, flags);
	if (!root)
		return json_loadb(text, len, flags, error);
	/* What json_loadb leaves in *error when it succeeds. */
	if (error) {
		error->text[0] = '\0';
		error->line = -1;
		error->column = -1;
		error->position = 0;
		snprintf(error->source, sizeof error->source, "%s", "<buffer>");
	}
	return root;
}
