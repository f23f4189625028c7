#include "config.h"
#include "ui/explain.h"
#include "advise/edit.h"
#include "util/json.h"
#include "util/text.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


/* Columns of a UTF-8 string: one per code point (continuation bytes do not
 * count). Wide CJK glyphs would take two; the catalog has none. */
static size_t columns(const char *s, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			c++;
	return c;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void pad(ta_buf *b, int n)
{
	for (int i = 0; i < n; i++)
		ta_buf_putc(b, ' ');
}

void ta_explain_wrap(ta_buf *b, const char *text, int indent, int width)
{
	size_t avail = width > indent + 10 ? (size_t)(width - indent) : 10;
	const char *p = text;
	bool first_para = true;
	while (*p) {
		/* A paragraph runs up to a blank line (two newlines, maybe with spaces). */
		while (*p && is_space(*p))
			p++;
		if (!*p)
			break;
		if (!first_para)
			ta_buf_putc(b, '\n');
		first_para = false;
		size_t col = 0;
		for (;;) {
			const char *w = p;
			while (*p && !is_space(*p))
				p++;
			size_t wlen = (size_t)(p - w), wcol = columns(w, wlen);
			if (col > 0 && col + 1 + wcol > avail) {
				ta_buf_putc(b, '\n');
				col = 0;
			}
			if (col == 0)
				pad(b, indent);
			else
				ta_buf_putc(b, ' ');
			ta_buf_append(b, w, wlen);
			col += (col ? 1 : 0) + wcol;
			int newlines = 0;
			while (*p && is_space(*p)) {
				if (*p == '\n')
					newlines++;
				p++;
			}
			if (!*p || newlines >= 2)
				break;
		}
		ta_buf_putc(b, '\n');
	}
}

/* Code lines, kept as written, indented. */
static void put_code(ta_buf *b, const char *code, int indent)
{
	const char *p = code;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (n)
			pad(b, indent);
		ta_buf_append(b, p, n);
		ta_buf_putc(b, '\n');
		p += n + (nl ? 1 : 0);
	}
}

static void heading(ta_buf *b, const char *title)
{
	ta_buf_putc(b, '\n');
	ta_buf_puts(b, title);
	ta_buf_putc(b, '\n');
}

static const char *edit_label(const ta_entry *e)
{
	return ta_edit_kind_name(e->edit);
}

/* How an entry's findings are fixed: "safe", "unsafe" or "safe/unsafe"
 * (by site) for the entries the tool writes, "guided" for a template
 * finished by hand, "-" for triggers. One word: the column's. */
static const char *fix_label(const ta_entry *e)
{
	if (e->edit == TA_EDIT_NONE)
		return "-";
	ta_entry_fix rw = { 0 };
	if (e->edit == TA_EDIT_MECHANICAL)
		rw = ta_entry_fix_of(e->id);
	if (!rw.written || rw.demoted)
		return "guided";
	return rw.safety == TA_ENTRY_FIX_SAFE ? "safe" : rw.safety == TA_ENTRY_FIX_UNSAFE ? "unsafe" : "safe/unsafe";
}

static void para(ta_buf *b, const char *title, const char *text)
{
	heading(b, title);
	ta_explain_wrap(b, text, 2, TA_EXPLAIN_WIDTH);
}

/* head (ASCII, its length the hanging indent) then text wrapped under it. */
static void hang(ta_buf *b, const char *head, const char *text)
{
	int n = (int)strlen(head);
	ta_buf tmp = TA_BUF_INIT;
	ta_explain_wrap(&tmp, text, n, TA_EXPLAIN_WIDTH);
	ta_buf_puts(b, head);
	ta_buf_puts(b, tmp.len > (size_t)n ? ta_buf_str(&tmp) + n : "\n");
	ta_buf_free(&tmp);
}

/* "    Label:   value" */
static void field(ta_buf *b, const char *label, const char *value)
{
	char head[32];
	snprintf(head, sizeof head, "    %-9s", label);
	hang(b, head, value);
}

static const char *needs_words(ta_needs n)
{
	switch (n) {
	case TA_NEEDS_STATIC:
		return "static (decided from the source alone)";
	case TA_NEEDS_PROFILE:
		return "profile (decided from a measured run of the kernel)";
	case TA_NEEDS_BASELINE:
		return "baseline (decided against a reference run measured in the same session: --baseline)";
	}
	return "?";
}

/* One "  ID   title" line per related entry, the title wrapped under itself. */
static void ref_line(ta_buf *b, const ta_entry *e, const char *note)
{
	char head[32];
	snprintf(head, sizeof head, "  %-4s ", e->id);
	ta_buf line = TA_BUF_INIT;
	ta_buf_printf(&line, "%s%s", e->title, note ? note : "");
	hang(b, head, ta_buf_str(&line));
	ta_buf_free(&line);
}

static bool lists(const char *const *ids, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(ids[i], id) == 0)
			return true;
	return false;
}

/* Whether trigger t brings entry e forward, by id or by its section. */
static bool opens_entry(const ta_entry *t, const ta_entry *e)
{
	for (size_t k = 0; k < t->n_opens; k++) {
		const ta_open *o = &t->opens[k];
		if (o->is_section ? o->section == e->section : strcasecmp(o->id, e->id) == 0)
			return true;
	}
	return false;
}

static void render_entry(const ta_catalog *cat, const ta_entry *e, ta_buf *b)
{
	bool trigger = e->section == TA_SECTION_TRIGGERS;

	ta_buf_printf(b, "%s  %s\n", e->id, e->title);
	field(b, "Section:", ta_section_title(e->section));
	field(b, "Needs:", needs_words(e->needs));
	ta_buf_putc(b, '\n');
	ta_explain_wrap(b, e->summary, 2, TA_EXPLAIN_WIDTH);

	para(b, "What it means", e->means);
	para(b, trigger ? "When it fires" : "When it applies", e->applies_when);
	para(b, trigger ? "When it stays silent" : "When it is satisfied", e->satisfied_when);
	para(b, "Typical impact", e->impact);
	if (e->evidence[0])
		para(b, "Evidence from the profile", e->evidence);
	if (e->edit == TA_EDIT_NONE) {
		para(b, "The edit (none)", e->edit_summary);
	} else {
		char title[96];
		snprintf(title, sizeof title, "The edit (%s)", ta_edit_kind_name(e->edit));
		para(b, title, e->edit_summary);
		/* Whether --apply makes it, and under what assumption. */
		ta_entry_fix rw = { 0 };
		if (e->edit == TA_EDIT_MECHANICAL)
			rw = ta_entry_fix_of(e->id);
		if (rw.written && !rw.demoted) {
			ta_buf fx = TA_BUF_INIT;
			if (rw.safety == TA_ENTRY_FIX_SAFE)
				ta_buf_puts(&fx, "Safe: the edit keeps what the program computes for every input it "
					    "accepts today; --apply makes it.");
			else
				ta_buf_printf(&fx, "%s: the edit %s. --apply makes it only with --unsafe-fixes; "
					      "--diff and the advisor state the assumption with the site's names "
					      "first.", rw.safety == TA_ENTRY_FIX_UNSAFE ? "Unsafe" :
					      "Safe at some sites, unsafe at others", rw.assumes);
			para(b, "Fix", ta_buf_str(&fx));
			ta_buf_free(&fx);
		} else if (e->edit == TA_EDIT_GUIDED) {
			para(b, "Fix", "Guided: the tool writes a template at the finding; you finish it by hand "
			     "(e in the advisor, or --diff to see it). --apply does not make it.");
		}
	}

	heading(b, trigger ? "Fires on" : "Slow");
	put_code(b, e->example_slow, 4);
	heading(b, trigger ? "Stays silent on" : "Fast");
	put_code(b, e->example_fast, 4);

	if (e->n_opens) {
		heading(b, "Brings forward");
		for (size_t k = 0; k < e->n_opens; k++) {
			const ta_open *o = &e->opens[k];
			if (o->is_section) {
				ta_buf line = TA_BUF_INIT;
				ta_buf_printf(&line, "%s (all of its entries)", ta_section_title(o->section));
				ta_explain_wrap(b, ta_buf_str(&line), 2, TA_EXPLAIN_WIDTH);
				ta_buf_free(&line);
			} else {
				const ta_entry *t = ta_catalog_find(cat, o->id);
				if (t)
					ref_line(b, t, NULL);
			}
		}
	}

	const ta_entry *det = ta_catalog_find(cat, e->detector);
	if (det && det != e) {
		heading(b, "Served by");
		ta_buf line = TA_BUF_INIT;
		ta_buf_printf(&line, "The detector of %s (%s) reports this entry; its findings appear "
			      "under both ids.", det->id, det->title);
		ta_explain_wrap(b, ta_buf_str(&line), 2, TA_EXPLAIN_WIDTH);
		ta_buf_free(&line);
	}

	/* See also: what this entry points to, what points to it, and the
	 * triggers that bring it forward. */
	bool any = false;
	size_t n = ta_catalog_count(cat);
	for (size_t i = 0; i < n; i++) {
		const ta_entry *o = ta_catalog_at(cat, i);
		if (o == e || o == det)
			continue;
		const char *note = NULL;
		if (lists(e->serves, e->n_serves, o->id))
			note = "";
		else if (lists(o->serves, o->n_serves, e->id) || strcasecmp(o->detector, e->id) == 0)
			note = " (points here)";
		else if (o->section == TA_SECTION_TRIGGERS && opens_entry(o, e))
			note = " (brings this entry forward)";
		if (!note)
			continue;
		if (!any)
			heading(b, "See also");
		any = true;
		ref_line(b, o, note);
	}
}

ta_exit ta_explain_entry(const ta_catalog *cat, const char *id, FILE *out)
{
	const ta_entry *e = ta_catalog_find(cat, id);
	if (!e) {
		fprintf(stderr, "tileadvise: unknown checklist id '%s' (see --list-rules)\n", id);
		char *s = ta_explain_suggest(cat, id);
		if (s)
			fprintf(stderr, "tileadvise: did you mean %s?\n", s);
		free(s);
		return TA_EXIT_ERROR;
	}
	ta_buf b = TA_BUF_INIT;
	render_entry(cat, e, &b);
	fputs(ta_buf_str(&b), out);
	ta_buf_free(&b);
	return TA_EXIT_OK;
}

/* ---- did you mean ---------------------------------------------------------- */

/* Edit distance with adjacent transpositions, case-insensitive; ids are short. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 16 || lb > 16)
		return 99;
	size_t d[17][17];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			int ca = toupper((unsigned char)a[i - 1]), cb = toupper((unsigned char)b[j - 1]);
			size_t best = d[i - 1][j - 1] + (ca != cb);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && ca == toupper((unsigned char)b[j - 2]) &&
			    toupper((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[la][lb];
}

static bool contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return true;
	return false;
}

char *ta_explain_suggest(const ta_catalog *cat, const char *id)
{
	size_t n = ta_catalog_count(cat);
	size_t best = 99, at_best = 0;
	const ta_entry *pick = NULL;
	for (size_t i = 0; i < n; i++) {
		const ta_entry *e = ta_catalog_at(cat, i);
		size_t d = distance(id, e->id);
		if (d < best) {
			best = d;
			at_best = 1;
			pick = e;
		} else if (d == best) {
			at_best++;
		}
	}
	/* One clear neighbour: "s33" -> S3, "3S" -> S3. */
	if (best <= 1 && at_best == 1)
		return ta_xstrdup(pick->id);

	ta_buf b = TA_BUF_INIT;
	size_t found = 0;
	/* A known letter with a number out of range: "P8" -> the P ids. */
	char letter = (char)toupper((unsigned char)id[0]);
	if (letter && strspn(id + 1, "0123456789") == strlen(id + 1)) {
		for (size_t i = 0; i < n; i++) {
			const ta_entry *e = ta_catalog_at(cat, i);
			if (e->id[0] != letter)
				continue;
			ta_buf_printf(&b, "%s%s", found ? ", " : "", e->id);
			found++;
		}
	}
	/* Several neighbours of other letters. */
	if (!found && best <= 1) {
		for (size_t i = 0; i < n; i++) {
			const ta_entry *e = ta_catalog_at(cat, i);
			if (distance(id, e->id) == best) {
				ta_buf_printf(&b, "%s%s", found ? ", " : "", e->id);
				found++;
			}
		}
	}
	/* A word instead of an id: "tanh" -> S6 (Precise tanh in the inner loop). */
	if (!found && strlen(id) >= 3) {
		for (size_t i = 0; i < n && found < 5; i++) {
			const ta_entry *e = ta_catalog_at(cat, i);
			if (contains_nocase(e->title, id) || contains_nocase(e->summary, id)) {
				ta_buf_printf(&b, "%s%s (%s)", found ? ", " : "", e->id, e->title);
				found++;
			}
		}
	}
	if (!found) {
		ta_buf_free(&b);
		return NULL;
	}
	if (found == 1)
		return ta_buf_steal(&b);
	char *list = ta_buf_steal(&b);
	char *s = ta_xasprintf("one of %s", list);
	free(list);
	return s;
}

/* ---- --list-rules ---------------------------------------------------------- */


void ta_explain_list(const ta_catalog *cat, FILE *out, bool color)
{
	size_t n = ta_catalog_count(cat);
	/* Column widths from the data, so a longer name never breaks alignment. */
	int wid = 2, wsec = 7, wedit = 4, wneeds = 5, wstat = 6, wfix = 3;
	for (size_t i = 0; i < n; i++) {
		const ta_entry *e = ta_catalog_at(cat, i);
		int l = (int)strlen(e->id);
		wid = l > wid ? l : wid;
		l = (int)strlen(ta_section_name(e->section));
		wsec = l > wsec ? l : wsec;
		l = (int)strlen(edit_label(e));
		wedit = l > wedit ? l : wedit;
		l = (int)strlen(ta_needs_name(e->needs));
		wneeds = l > wneeds ? l : wneeds;
		l = (int)strlen(ta_entry_status_name(e->def));
		wstat = l > wstat ? l : wstat;
		l = (int)strlen(fix_label(e));
		wfix = l > wfix ? l : wfix;
	}
	ta_text_style(out, color, TA_STYLE_BOLD);
	fprintf(out, "%-*s  %-*s  %-*s  %-*s  %-*s  %-*s  %s", wid, "ID", wsec, "SECTION", wedit,
		"EDIT", wneeds, "NEEDS", wstat, "STATUS", wfix, "FIX", "TITLE");
	ta_text_style(out, color, TA_STYLE_RESET);
	fputc('\n', out);
	int shown = -1;
	for (size_t i = 0; i < n; i++) {
		const ta_entry *e = ta_catalog_at(cat, i);
		if ((int)e->section != shown) {
			shown = (int)e->section;
			fputc('\n', out);
			ta_text_style(out, color, TA_STYLE_BOLD);
			fputs(ta_section_title(e->section), out);
			ta_text_style(out, color, TA_STYLE_RESET);
			fputc('\n', out);
		}
		ta_text_style(out, color, TA_STYLE_BOLD);
		fprintf(out, "%-*s", wid, e->id);
		ta_text_style(out, color, TA_STYLE_RESET);
		fprintf(out, "  %-*s  %-*s  %-*s  %-*s  %-*s  %s\n", wsec,
			ta_section_name(e->section), wedit, edit_label(e), wneeds,
			ta_needs_name(e->needs), wstat, ta_entry_status_name(e->def), wfix, fix_label(e), e->title);
	}
	fprintf(out, "\nSTATUS preview: measured precision below 90%% (tests/PRECISION.md); --check\n"
		     "reports it with --preview or --select ID, the advisor shows it as a hint.\n");
	fputs("FIX: safe, --apply makes it; unsafe, it keeps meaning only under an assumption it states, and\n"
	      "--apply needs --unsafe-fixes; safe/unsafe, which depends on the site; guided, a template\n"
	      "finished by hand.\n", out);
}

void ta_explain_list_json(const ta_catalog *cat, FILE *out)
{
	json_t *all = json_array();
	for (size_t i = 0; i < ta_catalog_count(cat); i++) {
		const ta_entry *e = ta_catalog_at(cat, i);
		ta_entry_fix rw = e->edit == TA_EDIT_MECHANICAL ? ta_entry_fix_of(e->id) : (ta_entry_fix){ 0 };
		json_t *o = json_object();
		json_object_set_new(o, "id", json_string(e->id));
		json_object_set_new(o, "section", json_string(ta_section_name(e->section)));
		json_object_set_new(o, "section_title", json_string(ta_section_title(e->section)));
		json_object_set_new(o, "title", json_string(e->title));
		json_object_set_new(o, "summary", json_string(e->summary ? e->summary : ""));
		json_object_set_new(o, "edit", json_string(edit_label(e)));
		json_object_set_new(o, "needs", json_string(ta_needs_name(e->needs)));
		json_object_set_new(o, "status", json_string(ta_entry_status_name(e->def)));
		json_object_set_new(o, "fix", json_string(fix_label(e)));
		json_object_set_new(o, "assumes", rw.written && !rw.demoted && rw.assumes ? json_string(rw.assumes)
											   : json_null());
		json_array_append_new(all, o);
	}
	ta_json_dumpf(all, out, JSON_INDENT(2));
	fputc('\n', out);
	json_decref(all);
}
