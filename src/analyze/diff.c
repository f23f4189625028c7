#include "config.h"
#include "analyze/diff.h"
#include "util/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ta_edit_init(ta_edit *e, const char *id, bool crlf)
{
	memset(e, 0, sizeof *e);
	snprintf(e->id, sizeof e->id, "%s", id ? id : "");
	e->crlf = crlf;
}

void ta_edit_clear(ta_edit *e)
{
	for (size_t i = 0; i < e->repl_count; i++)
		free(e->repls[i].text);
	free(e->repls);
	free(e->title);
	free(e->unsafe);
	char id[sizeof e->id];
	memcpy(id, e->id, sizeof id);
	bool crlf = e->crlf;
	memset(e, 0, sizeof *e);
	memcpy(e->id, id, sizeof id);
	e->crlf = crlf;
}

/* Replaces *field with the formatted text. */
__attribute__((format(printf, 2, 0))) static void set_text(char **field, const char *fmt, va_list ap)
{
	ta_buf b = TA_BUF_INIT;
	ta_buf_vprintf(&b, fmt, ap);
	free(*field);
	*field = ta_buf_steal(&b);
}

void ta_edit_set_title(ta_edit *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_text(&e->title, fmt, ap);
	va_end(ap);
}

void ta_edit_set_unsafe(ta_edit *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_text(&e->unsafe, fmt, ap);
	va_end(ap);
}

int ta_edit_replace(ta_edit *e, uint32_t start, uint32_t end, const char *text)
{
	if (end < start)
		return -1;
	/* Position: after every replacement starting at or before start. */
	size_t at = e->repl_count;
	while (at > 0 && e->repls[at - 1].start > start)
		at--;
	if (at > 0 && e->repls[at - 1].end > start)
		return -1;
	if (at < e->repl_count && e->repls[at].start < end)
		return -1;
	/* Two replacements of real ranges may not share a start either. */
	if (at > 0 && e->repls[at - 1].start == start && (e->repls[at - 1].end > start || end > start))
		return -1;
	ta_buf b = TA_BUF_INIT;
	for (const char *p = text; *p; p++) {
		if (*p == '\n' && e->crlf && (p == text || p[-1] != '\r'))
			ta_buf_putc(&b, '\r');
		ta_buf_putc(&b, *p);
	}
	ta_grow((void **)&e->repls, &e->repl_cap, e->repl_count + 1, sizeof *e->repls);
	memmove(&e->repls[at + 1], &e->repls[at], (e->repl_count - at) * sizeof *e->repls);
	e->repls[at] = (ta_repl){ start, end, ta_buf_steal(&b) };
	e->repl_count++;
	return 0;
}

int ta_edit_apply_text(const ta_edit *e, const char *old, size_t old_len,
		       char **out, size_t *out_len, char **err)
{
	ta_buf b = TA_BUF_INIT;
	size_t at = 0;
	for (size_t i = 0; i < e->repl_count; i++) {
		const ta_repl *r = &e->repls[i];
		if (r->start < at || r->end > old_len) {
			ta_buf_free(&b);
			*err = ta_xasprintf("edit %s: replacement %zu (bytes %u-%u) is outside the text or out of order",
					    e->id, i, r->start, r->end);
			return -1;
		}
		ta_buf_append(&b, old + at, r->start - at);
		ta_buf_puts(&b, r->text);
		at = r->end;
	}
	ta_buf_append(&b, old + at, old_len - at);
	*out_len = b.len;
	*out = ta_buf_steal(&b);
	return 0;
}

/* ---- unified diff --------------------------------------------------------- */

/* A header's file name: as it is, or, when it holds a line break, another
 * control character, a quote or a backslash, quoted as git quotes it ("a/k\nx.py",
 * other bytes in octal), which GNU patch and git apply read back. A name
 * with a line break written bare would end the header and start a line of
 * the patch's own. */
static void header_name(ta_buf *b, const char *pre, const char *name)
{
	bool quote = false;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		quote |= *p < 0x20 || *p == 0x7f || *p == '"' || *p == '\\';
	if (!quote) {
		ta_buf_printf(b, "%s%s", pre, name);
		return;
	}
	ta_buf_printf(b, "\"%s", pre);
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (*p == '\n')
			ta_buf_puts(b, "\\n");
		else if (*p == '\t')
			ta_buf_puts(b, "\\t");
		else if (*p == '"' || *p == '\\')
			ta_buf_printf(b, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			ta_buf_printf(b, "\\%03o", *p);
		else
			ta_buf_putc(b, (char)*p);
	}
	ta_buf_putc(b, '"');
}

typedef struct lines {
	const char *text;
	size_t len;
	size_t *start;            /* start of each line; start[count] = len */
	size_t count;
} lines;

static void lines_build(lines *l, const char *text, size_t len)
{
	size_t cap = 0;
	l->text = text;
	l->len = len;
	l->count = 0;
	l->start = NULL;
	/* memchr, not a test per byte: the advisor diffs the whole file once
	 * per suggested edit. */
	for (const char *p = text, *end = text + len; p < end;) {
		*(size_t *)TA_PUSH(l->start, l->count, cap) = (size_t)(p - text);
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	ta_grow((void **)&l->start, &cap, l->count + 1, sizeof *l->start);
	l->start[l->count] = len;
}

/* Index of the line holding offset off (the last line for off == len). */
static size_t lines_index(const lines *l, size_t off)
{
	size_t lo = 0, hi = l->count;
	if (hi == 0)
		return 0;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (l->start[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* End offset of the line holding off. */
static size_t lines_end_of(const lines *l, size_t off)
{
	return l->count ? l->start[lines_index(l, off) + 1] : 0;
}

static bool line_eq(const lines *a, size_t i, const lines *b, size_t j)
{
	size_t na = a->start[i + 1] - a->start[i], nb = b->start[j + 1] - b->start[j];
	return na == nb && memcmp(a->text + a->start[i], b->text + b->start[j], na) == 0;
}

typedef struct change {
	size_t oa, on, na, nn;    /* first line and count, old and new, 0-based */
} change;

static void emit_line(ta_buf *out, char mark, const lines *l, size_t i)
{
	size_t s = l->start[i], e = l->start[i + 1];
	ta_buf_putc(out, mark);
	ta_buf_append(out, l->text + s, e - s);
	if (e == s || l->text[e - 1] != '\n')
		ta_buf_puts(out, "\n\\ No newline at end of file\n");
}

/* The changed line ranges, from the replacements: each replacement covers
 * the whole lines it touches, grown until both sides end on a line
 * boundary, then trimmed of lines equal on both sides. */
static change *compute_changes(const ta_edit *e, const lines *o, const lines *n, size_t *count)
{
	change *v = NULL;
	size_t nv = 0, cap = 0;
	long long delta = 0;      /* bytes added before the current region */
	size_t i = 0;
	while (i < e->repl_count) {
		const ta_repl *r = &e->repls[i];
		size_t ob0 = o->start[lines_index(o, r->start)];
		size_t ob1 = lines_end_of(o, r->end > r->start ? r->end - 1 : r->start);
		long long d = 0;
		size_t j = i;
		for (;;) {
			while (j < e->repl_count && e->repls[j].start <= ob1) {
				const ta_repl *q = &e->repls[j];
				size_t qe = lines_end_of(o, q->end > q->start ? q->end - 1 : q->start);
				if (qe > ob1)
					ob1 = qe;
				d += (long long)strlen(q->text) - (long long)(q->end - q->start);
				j++;
			}
			size_t nb1 = (size_t)((long long)ob1 + delta + d);
			if (nb1 > 0 && nb1 < n->len && n->text[nb1 - 1] != '\n' && ob1 < o->len) {
				ob1 = lines_end_of(o, ob1);
				continue;
			}
			break;
		}
		size_t nb0 = (size_t)((long long)ob0 + delta);
		size_t nb1 = (size_t)((long long)ob1 + delta + d);
		change c;
		c.oa = lines_index(o, ob0);
		c.on = ob1 > ob0 ? lines_index(o, ob1 - 1) - c.oa + 1 : 0;
		c.na = nb0 < n->len ? lines_index(n, nb0) : n->count;
		c.nn = nb1 > nb0 ? lines_index(n, nb1 - 1) - c.na + 1 : 0;
		while (c.on && c.nn && line_eq(o, c.oa, n, c.na))
			c.oa++, c.na++, c.on--, c.nn--;
		while (c.on && c.nn && line_eq(o, c.oa + c.on - 1, n, c.na + c.nn - 1))
			c.on--, c.nn--;
		if (c.on || c.nn)
			*(change *)TA_PUSH(v, nv, cap) = c;
		delta += d;
		i = j;
	}
	*count = nv;
	return v;
}

/* Past this many differing lines in one region, the region is shown as one
 * replacement: Myers' search keeps every step's frontier (quadratic in it:
 * 1000 lines, 8 MB). */
#define MYERS_MAX_D 1000

/* Appends to *v the changes that turn old lines [oa, oa+on) into new lines
 * [na, na+nn) with the fewest lines deleted and added (Myers' greedy
 * O((N+M)D) search, then its trace walked back). */
static void line_diff(const lines *o, size_t oa, size_t on, const lines *n, size_t na, size_t nn,
		      change **v, size_t *nv, size_t *cap)
{
	long N = (long)on, M = (long)nn, max = N + M;
	if (max > MYERS_MAX_D)
		max = MYERS_MAX_D;
	/* trace[d] holds the furthest x of each diagonal k in [-d, d] */
	long **trace = ta_xcalloc((size_t)max + 2, sizeof *trace);
	long *prev = NULL, d = 0;
	bool found = N == 0 && M == 0;
	for (d = 0; d <= max && !found; d++) {
		long *cur = ta_xcalloc((size_t)(2 * d + 1), sizeof *cur);
		trace[d] = cur;
		for (long k = -d; k <= d; k += 2) {
			long x;
			if (d == 0)
				x = 0;
			else if (k == -d || (k != d && prev[k - 1 + (d - 1)] < prev[k + 1 + (d - 1)]))
				x = prev[k + 1 + (d - 1)];        /* down: an added line */
			else
				x = prev[k - 1 + (d - 1)] + 1;    /* right: a deleted line */
			long y = x - k;
			while (x < N && y < M && line_eq(o, oa + (size_t)x, n, na + (size_t)y))
				x++, y++;
			cur[k + d] = x;
			if (x >= N && y >= M) {
				found = true;
				break;
			}
		}
		prev = cur;
	}
	if (!found) {
		/* Too different: one replacement of the whole region. */
		change c = { oa, on, na, nn };
		*(change *)TA_PUSH(*v, *nv, *cap) = c;
	} else {
		/* Walk back from (N, M), collecting the edit as runs of
		 * deleted and added lines, from the end. */
		d--;
		change *rev = NULL;
		size_t nr = 0, rcap = 0;
		long x = N, y = M;
		for (long e = d; e > 0; e--) {
			long *pv = trace[e - 1], k = x - y;
			long pk = (k == -e || (k != e && pv[k - 1 + (e - 1)] < pv[k + 1 + (e - 1)])) ? k + 1 : k - 1;
			long px = pv[pk + (e - 1)], py = px - pk;
			while (x > px && y > py)
				x--, y--;                   /* the snake: equal lines */
			change c = { oa + (size_t)px, 0, na + (size_t)py, 0 };
			if (x == px)
				c.nn = 1;                   /* one added line: new[py] */
			else
				c.on = 1;                   /* one deleted line: old[px] */
			/* Merge with the run that follows (already collected). */
			change *last = nr ? &rev[nr - 1] : NULL;
			if (last && last->oa == c.oa + c.on && last->na == c.na + c.nn) {
				last->oa = c.oa;
				last->na = c.na;
				last->on += c.on;
				last->nn += c.nn;
			} else {
				*(change *)TA_PUSH(rev, nr, rcap) = c;
			}
			x = px;
			y = py;
		}
		for (size_t i = nr; i-- > 0;)
			*(change *)TA_PUSH(*v, *nv, *cap) = rev[i];
		free(rev);
	}
	for (long i = 0; i <= max + 1 && i < d + 2; i++)
		free(trace[i]);
	free(trace);
}

/* Each change region made minimal: lines equal on both sides inside it are
 * context, not a deletion and an addition. */
static change *refine_changes(change *c, size_t nc, const lines *o, const lines *n, size_t *count)
{
	change *v = NULL;
	size_t nv = 0, cap = 0;
	for (size_t i = 0; i < nc; i++)
		line_diff(o, c[i].oa, c[i].on, n, c[i].na, c[i].nn, &v, &nv, &cap);
	free(c);
	*count = nv;
	return v;
}

char *ta_edit_diff(const ta_edit *e, const char *name, const char *old, size_t old_len)
{
	char *nt, *err;
	size_t nlen;
	if (ta_edit_apply_text(e, old, old_len, &nt, &nlen, &err) != 0) {
		free(err);
		return ta_xstrdup("");
	}
	lines o, n;
	lines_build(&o, old, old_len);
	lines_build(&n, nt, nlen);
	size_t nc;
	change *c = compute_changes(e, &o, &n, &nc);
	c = refine_changes(c, nc, &o, &n, &nc);
	ta_buf out = TA_BUF_INIT;
	const size_t ctx = 3;
	/* git's a/ b/ prefixes for relative names; an absolute path as it is. */
	if (nc) {
		const char *pre = name[0] == '/' ? "" : "a/";
		ta_buf_puts(&out, "--- ");
		header_name(&out, pre, name);
		ta_buf_puts(&out, "\n+++ ");
		header_name(&out, name[0] == '/' ? "" : "b/", name);
		ta_buf_putc(&out, '\n');
	}
	for (size_t i = 0; i < nc;) {
		/* A hunk: changes i..j-1, close enough to share context. */
		size_t j = i + 1;
		while (j < nc && c[j].oa <= c[j - 1].oa + c[j - 1].on + 2 * ctx)
			j++;
		size_t os = c[i].oa > ctx ? c[i].oa - ctx : 0;
		size_t oe = c[j - 1].oa + c[j - 1].on + ctx;
		if (oe > o.count)
			oe = o.count;
		size_t ns = c[i].na - (c[i].oa - os);
		size_t ne = c[j - 1].na + c[j - 1].nn + (oe - (c[j - 1].oa + c[j - 1].on));
		size_t ocount = oe - os, ncount = ne - ns;
		ta_buf_printf(&out, "@@ -%zu,%zu +%zu,%zu @@\n", ocount ? os + 1 : os, ocount,
			      ncount ? ns + 1 : ns, ncount);
		size_t at = os;
		for (size_t k = i; k < j; k++) {
			for (; at < c[k].oa; at++)
				emit_line(&out, ' ', &o, at);
			for (size_t x = 0; x < c[k].on; x++)
				emit_line(&out, '-', &o, c[k].oa + x);
			for (size_t x = 0; x < c[k].nn; x++)
				emit_line(&out, '+', &n, c[k].na + x);
			at = c[k].oa + c[k].on;
		}
		for (; at < oe; at++)
			emit_line(&out, ' ', &o, at);
		i = j;
	}
	free(c);
	free(o.start);
	free(n.start);
	free(nt);
	return ta_buf_steal(&out);
}

char *ta_edit_diff_texts(const char *name, const char *a, size_t al, const char *b, size_t bl)
{
	size_t p = 0;
	while (p < al && p < bl && a[p] == b[p])
		p++;
	size_t s = 0;
	while (s < al - p && s < bl - p && a[al - 1 - s] == b[bl - 1 - s])
		s++;
	ta_edit e;
	ta_edit_init(&e, "texts", false);
	char *mid = ta_xstrndup(b + p, bl - p - s);
	ta_edit_replace(&e, (uint32_t)p, (uint32_t)(al - s), mid);
	free(mid);
	char *d = ta_edit_diff(&e, name, a, al);
	ta_edit_clear(&e);
	return d;
}
