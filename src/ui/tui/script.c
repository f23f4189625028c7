/* Key scripts: parsed whole at open, handed out one step at a time. */
#include "config.h"
#include "ui/tui/script.h"
#include "util/buf.h"

#include <curses.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct ta_script {
	ta_script_step *steps;
	size_t n, cap, next;
	char **paths;          /* the :screen paths, freed at close */
	size_t n_paths;
};

static const struct {
	const char *name;
	int code;
	int ch;
} named_keys[] = {
	{ "Enter", OK, '\r' },          { "Esc", OK, 27 },             { "Tab", OK, '\t' },
	{ "Space", OK, ' ' },           { "lt", OK, '<' },             { "Shift-Tab", KEY_CODE_YES, KEY_BTAB },
	{ "Backspace", KEY_CODE_YES, KEY_BACKSPACE }, { "Up", KEY_CODE_YES, KEY_UP },
	{ "Down", KEY_CODE_YES, KEY_DOWN }, { "Left", KEY_CODE_YES, KEY_LEFT },
	{ "Right", KEY_CODE_YES, KEY_RIGHT }, { "PgUp", KEY_CODE_YES, KEY_PPAGE },
	{ "PgDn", KEY_CODE_YES, KEY_NPAGE }, { "Home", KEY_CODE_YES, KEY_HOME },
	{ "End", KEY_CODE_YES, KEY_END },   { "F1", KEY_CODE_YES, KEY_F(1) },
};

static ta_script_step *add(ta_script *s, ta_script_kind kind)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->steps = ta_xrealloc(s->steps, s->cap * sizeof *s->steps);
	}
	ta_script_step *st = &s->steps[s->n++];
	*st = (ta_script_step){ .kind = kind };
	return st;
}

/* One UTF-8 character at p (at most n bytes): its code point and length,
 * or 0 for a malformed one. */
static size_t utf8_char(const unsigned char *p, size_t n, wint_t *out)
{
	size_t len = p[0] < 0x80 ? 1 : (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3 :
		     (p[0] & 0xF8) == 0xF0 ? 4 : 0;
	if (!len || len > n)
		return 0;
	wint_t c = len == 1 ? p[0] : p[0] & (0x7F >> len);
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (p[i] & 0x3F);
	}
	*out = c;
	return len;
}

/* The keys of one line; -1 with *err naming what does not parse. */
static int parse_keys(ta_script *s, const char *line, unsigned lineno, char **err)
{
	const unsigned char *p = (const unsigned char *)line;
	size_t n = strlen(line);
	for (size_t i = 0; i < n;) {
		if (p[i] == '<') {
			const char *end = strchr(line + i + 1, '>');
			size_t len = end ? (size_t)(end - (line + i + 1)) : 0;
			bool found = false;
			for (size_t k = 0; end && k < sizeof named_keys / sizeof *named_keys && !found; k++)
				if (strlen(named_keys[k].name) == len && !strncasecmp(named_keys[k].name, line + i + 1, len)) {
					ta_script_step *st = add(s, TA_SCRIPT_KEY);
					st->code = named_keys[k].code;
					st->ch = (wint_t)named_keys[k].ch;
					found = true;
				}
			if (!found && end && len == 6 && !strncasecmp(line + i + 1, "Ctrl-", 5) &&
			    ((line[i + 6] | 0x20) >= 'a' && (line[i + 6] | 0x20) <= 'z')) {
				ta_script_step *st = add(s, TA_SCRIPT_KEY);
				st->code = OK;
				st->ch = (wint_t)((line[i + 6] | 0x20) - 'a' + 1);
				found = true;
			}
			if (!found) {
				*err = ta_xasprintf("line %u: `%.*s` names no key (<Enter>, <Esc>, <Down>, <Ctrl-L>, "
						    "<lt> for a `<`, ...)", lineno, end ? (int)len + 2 : (int)(n - i),
						    line + i);
				return -1;
			}
			i += len + 2;
			continue;
		}
		wint_t c;
		size_t len = utf8_char(p + i, n - i, &c);
		if (!len) {
			*err = ta_xasprintf("line %u: a byte that is not UTF-8 (0x%02x)", lineno, p[i]);
			return -1;
		}
		ta_script_step *st = add(s, TA_SCRIPT_KEY);
		st->code = OK;
		st->ch = c;
		i += len;
	}
	return 0;
}

static int parse_line(ta_script *s, char *line, unsigned lineno, char **err)
{
	size_t n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	if (!n || line[0] == '#')
		return 0;
	if (line[0] != ':')
		return parse_keys(s, line, lineno, err);
	if (!strncmp(line, ":screen ", 8) && line[8]) {
		s->paths = ta_xrealloc(s->paths, (s->n_paths + 1) * sizeof *s->paths);
		s->paths[s->n_paths] = ta_xstrdup(line + 8);
		add(s, TA_SCRIPT_SCREEN)->path = s->paths[s->n_paths++];
		return 0;
	}
	int w, h, used = 0;
	if (sscanf(line, ":size %d %d%n", &w, &h, &used) == 2 && !line[used] && w > 0 && h > 0 && w <= 1000 &&
	    h <= 1000) {
		ta_script_step *st = add(s, TA_SCRIPT_SIZE);
		st->w = w;
		st->h = h;
		return 0;
	}
	*err = ta_xasprintf("line %u: `%s` is no script command (:screen PATH, :size W H)", lineno, line);
	return -1;
}

ta_script *ta_script_open(const char *path, char **err)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		*err = ta_xasprintf("cannot read the key script %s: %s", path, strerror(errno));
		return NULL;
	}
	ta_script *s = ta_xcalloc(1, sizeof *s);
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	int rc = 0;
	while (rc == 0 && getline(&line, &cap, f) >= 0)
		rc = parse_line(s, line, ++lineno, err);
	free(line);
	fclose(f);
	if (rc != 0) {
		char *why = *err;
		*err = ta_xasprintf("key script %s: %s", path, why);
		free(why);
		ta_script_close(s);
		return NULL;
	}
	return s;
}

void ta_script_next(ta_script *s, ta_script_step *out)
{
	if (s->next < s->n)
		*out = s->steps[s->next++];
	else
		*out = (ta_script_step){ .kind = TA_SCRIPT_END };
}

void ta_script_close(ta_script *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_paths; i++)
		free(s->paths[i]);
	free(s->paths);
	free(s->steps);
	free(s);
}
