#include "config.h"
#include "analyze/query.h"
#include "util/buf.h"
#include "util/datadir.h"
#include "util/fsutil.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

typedef enum { PRED_EQ, PRED_MATCH, PRED_ANY_OF } pred_kind;

typedef struct predicate {
	pred_kind kind;
	bool negate;
	uint32_t capture;
	int other_capture;      /* #eq? @a @b; -1 when comparing with strings */
	char **strings;
	size_t nstrings;
	regex_t re;
	bool has_re;
} predicate;

typedef struct pattern_preds {
	predicate *items;
	size_t n, cap;
} pattern_preds;

struct ta_query {
	TSQuery *ts;
	pattern_preds *patterns;
	uint32_t pattern_count;
};

static const char *error_name(TSQueryError e)
{
	switch (e) {
	case TSQueryErrorSyntax: return "syntax error";
	case TSQueryErrorNodeType: return "unknown node type";
	case TSQueryErrorField: return "unknown field";
	case TSQueryErrorCapture: return "unknown capture";
	case TSQueryErrorStructure: return "impossible pattern";
	case TSQueryErrorLanguage: return "language mismatch";
	default: return "error";
	}
}

static char *located_error(const char *name, const char *text, size_t len, uint32_t off,
			   const char *what)
{
	size_t row = 1, line_start = 0;
	for (size_t i = 0; i < off && i < len; i++)
		if (text[i] == '\n') {
			row++;
			line_start = i + 1;
		}
	size_t line_end = line_start;
	while (line_end < len && text[line_end] != '\n')
		line_end++;
	size_t col = off - line_start;
	ta_buf b = TA_BUF_INIT;
	ta_buf_printf(&b, "%s:%zu:%zu: %s\n  %.*s\n  ", name, row, col + 1, what,
		      (int)(line_end - line_start), text + line_start);
	for (size_t i = 0; i < col; i++)
		ta_buf_putc(&b, ' ');
	ta_buf_putc(&b, '^');
	return ta_buf_steal(&b);
}

static void free_pred(predicate *p)
{
	for (size_t i = 0; i < p->nstrings; i++)
		free(p->strings[i]);
	free(p->strings);
	if (p->has_re)
		regfree(&p->re);
}

/* Turns one predicate's steps into a predicate; returns NULL on success or
 * an error message. */
static char *compile_predicate(TSQuery *ts, const TSQueryPredicateStep *s, uint32_t n,
			       predicate *out)
{
	memset(out, 0, sizeof *out);
	out->other_capture = -1;
	if (n < 2 || s[0].type != TSQueryPredicateStepTypeString)
		return ta_xstrdup("malformed predicate");
	uint32_t l;
	const char *op = ts_query_string_value_for_id(ts, s[0].value_id, &l);
	if (!strcmp(op, "eq?") || !strcmp(op, "not-eq?"))
		out->kind = PRED_EQ;
	else if (!strcmp(op, "match?") || !strcmp(op, "not-match?"))
		out->kind = PRED_MATCH;
	else if (!strcmp(op, "any-of?") || !strcmp(op, "not-any-of?"))
		out->kind = PRED_ANY_OF;
	else
		return ta_xasprintf("unsupported predicate #%s", op);
	out->negate = !strncmp(op, "not-", 4);
	if (s[1].type != TSQueryPredicateStepTypeCapture)
		return ta_xasprintf("#%s needs a capture first", op);
	out->capture = s[1].value_id;
	for (uint32_t i = 2; i < n; i++) {
		if (s[i].type == TSQueryPredicateStepTypeCapture) {
			if (out->kind != PRED_EQ || out->other_capture >= 0)
				return ta_xasprintf("#%s: unexpected capture argument", op);
			out->other_capture = (int)s[i].value_id;
		} else {
			const char *v = ts_query_string_value_for_id(ts, s[i].value_id, &l);
			size_t cap = out->nstrings;
			out->strings = ta_xrealloc(out->strings, (cap + 1) * sizeof(char *));
			out->strings[out->nstrings++] = ta_xstrndup(v, l);
		}
	}
	if (out->kind == PRED_MATCH) {
		if (out->nstrings != 1)
			return ta_xasprintf("#%s needs one regular expression", op);
		if (regcomp(&out->re, out->strings[0], REG_EXTENDED | REG_NOSUB) != 0)
			return ta_xasprintf("#%s: bad regular expression \"%s\"", op, out->strings[0]);
		out->has_re = true;
	} else if (out->kind == PRED_EQ && out->other_capture < 0 && out->nstrings != 1) {
		return ta_xasprintf("#%s needs one string or capture to compare with", op);
	}
	return NULL;
}

ta_query *ta_query_new(const char *name, const char *text, size_t len, char **err)
{
	*err = NULL;
	uint32_t off = 0;
	TSQueryError qe = TSQueryErrorNone;
	TSQuery *ts = ts_query_new(tree_sitter_python(), text, (uint32_t)len, &off, &qe);
	if (!ts) {
		*err = located_error(name, text, len, off, error_name(qe));
		return NULL;
	}
	ta_query *q = ta_xcalloc(1, sizeof *q);
	q->ts = ts;
	q->pattern_count = ts_query_pattern_count(ts);
	q->patterns = ta_xcalloc(q->pattern_count, sizeof *q->patterns);
	for (uint32_t p = 0; p < q->pattern_count; p++) {
		uint32_t nsteps;
		const TSQueryPredicateStep *steps = ts_query_predicates_for_pattern(ts, p, &nsteps);
		uint32_t start = 0;
		for (uint32_t i = 0; i < nsteps; i++) {
			if (steps[i].type != TSQueryPredicateStepTypeDone)
				continue;
			pattern_preds *pp = &q->patterns[p];
			predicate *pr = TA_PUSH(pp->items, pp->n, pp->cap);
			char *why = compile_predicate(ts, steps + start, i - start, pr);
			if (why) {
				uint32_t at = ts_query_start_byte_for_pattern(ts, p);
				*err = located_error(name, text, len, at, why);
				free(why);
				ta_query_free(q);
				return NULL;
			}
			start = i + 1;
		}
	}
	return q;
}

ta_query *ta_query_load(const char *name, char **err)
{
	char *file = ta_xasprintf("%s/queries/%s.scm", ta_datadir(), name);
	char *text, *why;
	size_t len;
	if (ta_read_file(file, 1 << 20, &text, &len, &why) != 0) {
		*err = ta_xasprintf("%s: %s (reinstall tileadvise, or set TILEADVISE_DATADIR)", file, why);
		free(why);
		free(file);
		return NULL;
	}
	ta_query *q = ta_query_new(file, text, len, err);
	free(text);
	free(file);
	return q;
}

void ta_query_free(ta_query *q)
{
	if (!q)
		return;
	for (uint32_t p = 0; p < q->pattern_count; p++) {
		for (size_t i = 0; i < q->patterns[p].n; i++)
			free_pred(&q->patterns[p].items[i]);
		free(q->patterns[p].items);
	}
	free(q->patterns);
	ts_query_delete(q->ts);
	free(q);
}

int ta_query_capture(const ta_query *q, const char *name)
{
	uint32_t n = ts_query_capture_count(q->ts);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t l;
		const char *s = ts_query_capture_name_for_id(q->ts, i, &l);
		if (strlen(name) == l && !memcmp(s, name, l))
			return (int)i;
	}
	return -1;
}

TSNode ta_match_node(const TSQueryMatch *m, int cap)
{
	for (uint16_t i = 0; i < m->capture_count; i++)
		if ((int)m->captures[i].index == cap)
			return m->captures[i].node;
	TSNode null = { 0 };
	return null;
}

static bool pred_holds(const predicate *p, const TSQueryMatch *m, const ta_source *src)
{
	TSNode n = ta_match_node(m, (int)p->capture);
	if (ts_node_is_null(n))
		return true;   /* optional capture absent: nothing to test */
	char *text = ta_node_text(src, n);
	bool ok = false;
	switch (p->kind) {
	case PRED_EQ:
		if (p->other_capture >= 0) {
			char *other = ta_node_text(src, ta_match_node(m, p->other_capture));
			ok = strcmp(text, other) == 0;
			free(other);
		} else {
			ok = strcmp(text, p->strings[0]) == 0;
		}
		break;
	case PRED_MATCH:
		ok = regexec(&p->re, text, 0, NULL, 0) == 0;
		break;
	case PRED_ANY_OF:
		for (size_t i = 0; i < p->nstrings && !ok; i++)
			ok = strcmp(text, p->strings[i]) == 0;
		break;
	}
	free(text);
	return p->negate ? !ok : ok;
}

void ta_query_exec(ta_query_iter *it, const ta_query *q, const ta_source *src, TSNode node)
{
	it->q = q;
	it->src = src;
	it->cursor = ts_query_cursor_new();
	ts_query_cursor_exec(it->cursor, q->ts, node);
}

bool ta_query_next(ta_query_iter *it, TSQueryMatch *match)
{
	while (ts_query_cursor_next_match(it->cursor, match)) {
		const pattern_preds *pp = &it->q->patterns[match->pattern_index];
		bool ok = true;
		for (size_t i = 0; i < pp->n && ok; i++)
			ok = pred_holds(&pp->items[i], match, it->src);
		if (ok)
			return true;
	}
	return false;
}

void ta_query_iter_end(ta_query_iter *it)
{
	ts_query_cursor_delete(it->cursor);
	it->cursor = NULL;
}
