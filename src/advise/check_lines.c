/* The check lines of a run and whether a re-run agrees with the first. */
#include "config.h"
#include "advise/check_lines.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/fsutil.h"

/* Units that make the number before them a timing or a throughput. */
static const char *const timing_units[] = {
	"ns", "us", "µs", "ms", "s", "sec", "secs", "second", "seconds", "min",
	"GB/s", "GiB/s", "TB/s", "TiB/s", "MB/s", "TFLOPS", "TFLOP/s", "GFLOPS", "GFLOP/s",
	"it/s", "x", "×",
};

static bool word_char(unsigned char c)
{
	return isalnum(c) || c == '_' || c >= 0x80;
}

/* The length of a number at s (digits, a point, an exponent), or 0. */
static size_t number_len(const char *s, const char *end)
{
	const char *p = s;
	while (p < end && isdigit((unsigned char)*p))
		p++;
	if (p < end && *p == '.') {
		const char *q = p + 1;
		while (q < end && isdigit((unsigned char)*q))
			q++;
		if (q > p + 1 || p > s)
			p = q;
	}
	if (p == s)
		return 0;
	if (p < end && (*p == 'e' || *p == 'E')) {
		const char *q = p + 1;
		if (q < end && (*q == '+' || *q == '-'))
			q++;
		const char *d = q;
		while (q < end && isdigit((unsigned char)*q))
			q++;
		if (q > d)
			p = q;
	}
	return (size_t)(p - s);
}

bool ta_check_is_timing(const char *line, unsigned long len)
{
	const char *end = line + len;
	for (const char *p = line; p < end;) {
		if (!isdigit((unsigned char)*p) || (p > line && word_char((unsigned char)p[-1]))) {
			p++;
			continue;
		}
		size_t n = number_len(p, end);
		if (!n) {
			p++;
			continue;
		}
		const char *u = p + n;
		if (u < end && *u == ' ')
			u++;
		for (size_t i = 0; i < sizeof timing_units / sizeof *timing_units; i++) {
			size_t ul = strlen(timing_units[i]);
			if ((size_t)(end - u) >= ul && !memcmp(u, timing_units[i], ul) &&
			    (u + ul == end || !word_char((unsigned char)u[ul])))
				return true;
		}
		p += n;
	}
	return false;
}

/* Lines that are not the script's own verdicts: Triton's autotuning report
 * and Python's warnings (with the source line Python prints after one). */
static bool noise(const char *line, size_t len)
{
	static const char *const prefixes[] = { "Autotuning kernel ", "Triton autotuning for function ",
						"  warnings.warn(" };
	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
		if (len >= strlen(prefixes[i]) && !memcmp(line, prefixes[i], strlen(prefixes[i])))
			return true;
	const char *w = memmem(line, len, "Warning: ", 9);
	return w != NULL || memmem(line, len, "best config selected", 20) != NULL;
}

static bool starts(const char *line, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return len >= n && !memcmp(line, prefix, n);
}

/* Lines that continue Triton's autotuning report: since Triton 3.3 it is
 * four lines ("Triton autotuning for function NAME,", "with key as KEY,",
 * "finished after T.TTs,", "best config selected: CONFIG;"); the middle two
 * are noise only right after the header, so that a script's own "with key
 * as" line still counts. */
static bool report_continues(const char *line, size_t len)
{
	return starts(line, len, "with key as ") || starts(line, len, "finished after ");
}

char *ta_check_lines(const char *output)
{
	ta_buf b = TA_BUF_INIT;
	ta_buf_puts(&b, "");
	bool in_report = false; /* the line before began or continued an autotuning report */
	for (const char *s = output; s && *s;) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		size_t l = len;
		while (l && (s[l - 1] == '\r' || s[l - 1] == ' ' || s[l - 1] == '\t'))
			l--;
		bool blank = true;
		for (size_t i = 0; i < l && blank; i++)
			blank = isspace((unsigned char)s[i]);
		bool skip = blank || noise(s, l) || (in_report && report_continues(s, l));
		in_report = !blank && (starts(s, l, "Triton autotuning for function ") ||
				       (in_report && report_continues(s, l)));
		if (!skip && !ta_check_is_timing(s, l)) {
			if (b.len)
				ta_buf_putc(&b, '\n');
			ta_buf_append(&b, s, l);
		}
		s = nl ? nl + 1 : s + len;
	}
	return ta_buf_steal(&b);
}

/* Whether two numbers agree (see the header). */
static bool same_number(const char *a, size_t na, const char *b, size_t nb)
{
	bool whole_a = !memchr(a, '.', na) && !memchr(a, 'e', na) && !memchr(a, 'E', na);
	bool whole_b = !memchr(b, '.', nb) && !memchr(b, 'e', nb) && !memchr(b, 'E', nb);
	if (whole_a && whole_b)
		return na == nb && !memcmp(a, b, na);
	char ba[64], bb[64];
	snprintf(ba, sizeof ba, "%.*s", (int)na, a);
	snprintf(bb, sizeof bb, "%.*s", (int)nb, b);
	double x = strtod(ba, NULL), y = strtod(bb, NULL);
	double m = fmax(fabs(x), fabs(y));
	return m < 0.01 || fabs(x - y) <= 0.01 * m;
}

/* Whether two check lines agree: the same text between numbers, the
 * numbers agreeing. */
static bool same_line(const char *a, size_t na, const char *b, size_t nb)
{
	const char *ea = a + na, *eb = b + nb;
	while (a < ea && b < eb) {
		bool at_a = isdigit((unsigned char)*a) || (*a == '.' && a + 1 < ea && isdigit((unsigned char)a[1]));
		bool at_b = isdigit((unsigned char)*b) || (*b == '.' && b + 1 < eb && isdigit((unsigned char)b[1]));
		if (at_a && at_b) {
			size_t la = number_len(a, ea), lb = number_len(b, eb);
			if (la && lb) {
				if (!same_number(a, la, b, lb))
					return false;
				a += la;
				b += lb;
				continue;
			}
		}
		if (*a != *b)
			return false;
		a++;
		b++;
	}
	return a == ea && b == eb;
}

static char *quoted(const char *s, size_t n)
{
	if (n > 72)
		return ta_xasprintf("\"%.*s…\"", 72, s);
	return ta_xasprintf("\"%.*s\"", (int)n, s);
}

char *ta_check_lines_differ(const char *first, const char *now)
{
	const char *a = first ? first : "", *b = now ? now : "";
	for (size_t line = 1;; line++) {
		if (!*a && !*b)
			return NULL;
		const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
		size_t na = ea ? (size_t)(ea - a) : strlen(a), nb = eb ? (size_t)(eb - b) : strlen(b);
		char *out = NULL;
		if (!*b) {
			char *q = quoted(a, na);
			out = ta_xasprintf("its output no longer has the line %s that the first run printed", q);
			free(q);
		} else if (!*a) {
			char *q = quoted(b, nb);
			out = ta_xasprintf("it printed %s, which the first run did not", q);
			free(q);
		} else if (!same_line(a, na, b, nb)) {
			char *qa = quoted(a, na), *qb = quoted(b, nb);
			out = ta_xasprintf("it printed %s where the first run printed %s", qb, qa);
			free(qa);
			free(qb);
		}
		if (out)
			return out;
		a = ea ? ea + 1 : a + na;
		b = eb ? eb + 1 : b + nb;
	}
}

char *ta_check_rerun(const ta_run_result *res, const char *how, const char *first,
		     const char *output)
{
	if (!res)
		return NULL;
	if (res->state != TA_RUN_EXITED || res->exit_status != 0)
		return ta_xasprintf("the run after it %s", how && *how ? how : "failed");
	if (!first)
		return NULL;
	char *now = ta_check_lines(output);
	char *why = ta_check_lines_differ(first, now);
	free(now);
	return why;
}
