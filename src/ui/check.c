/* `tileadvise --check`: runs the rules over files and directories and
 * prints what applies as diagnostics (gcc style, json or SARIF). */
#include "config.h"
#include "ui/check.h"
#include "advise/checklist.h"

#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "advise/findings.h"
#include "advise/fix.h"
#include "ui/discover.h"
#include "util/buf.h"
#include "util/datadir.h"
#include "util/text.h"
#include "util/json.h"
#include "util/fsutil.h"

typedef ta_diag diag;

/* ---- collecting files ------------------------------------------------------ */

typedef struct file_list {
	char **paths;
	size_t count, cap;
} file_list;


/* ---- writers ------------------------------------------------------------------- */

/* Triggers decide the walk order; they are not defects, so they print as
 * notes and do not make the exit status 1; nor do findings read for
 * information on the GPU they are read for. */
static bool is_note(const diag *x)
{
	return !x->error && (x->note || x->id[0] == 'T');
}

static const char *severity(const diag *x)
{
	return x->error ? "error" : is_note(x) ? "note" : "warning";
}

/* One finding: a place and a reason, with every id that reports it
 * (entries that share a detector: S3 and G4, P1 and S4/G2...). */
typedef struct finding {
	const diag *lead;         /* the entry whose detector it is (or the error) */
	char *message;            /* without " (as ID)"; owned */
	const char **ids;         /* the lead's first; owned array, borrowed strings */
	size_t n_ids;
} finding;

/* Groups the sorted diagnostics into findings (caller frees with
 * free_findings). */
static finding *group_findings(const diag *items, size_t n_items, size_t *count)
{
	finding *out = ta_xcalloc(n_items + 1, sizeof *out);
	bool *done = ta_xcalloc(n_items + 1, sizeof *done);
	size_t n = 0;
	for (size_t i = 0; i < n_items; i++) {
		const diag *x = &items[i];
		if (done[i])
			continue;
		finding *f = &out[n++];
		/* members share x's place: the run of diagnostics there */
		size_t run = i + 1;
		while (run < n_items && items[run].line == x->line && items[run].col == x->col &&
		       !strcmp(items[run].file, x->file))
			run++;
		f->ids = ta_xcalloc(run - i + 1, sizeof *f->ids);
		if (x->error) {
			f->lead = x;
			f->message = ta_xstrdup(x->message);
			continue;
		}
		size_t bl = ta_diag_base_len(x->message), server = i, m = 0;
		size_t *members = ta_xcalloc(run - i + 1, sizeof *members);
		for (size_t j = i; j < run; j++) {
			const diag *y = &items[j];
			if (done[j] || y->error || ta_diag_base_len(y->message) != bl || strncmp(y->message, x->message, bl))
				continue;
			done[j] = true;
			members[m++] = j;
			if (strlen(y->message) == bl)
				server = j;
		}
		f->lead = &items[server];
		f->message = ta_xstrndup(x->message, bl);
		f->ids[f->n_ids++] = items[server].id;
		for (size_t k = 0; k < m; k++)
			if (members[k] != server)
				f->ids[f->n_ids++] = items[members[k]].id;
		free(members);
	}
	free(done);
	*count = n;
	return out;
}

static void free_findings(finding *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].message);
		free(f[i].ids);
	}
	free(f);
}

/* "file:line:col: " in bold, as gcc prints a diagnostic's place. */
static void write_place(const diag *x, bool color, FILE *out)
{
	ta_text_style(out, color, TA_STYLE_BOLD);
	fprintf(out, "%s:%u:%u:", ta_text_name(x->file), x->line, x->col);
	ta_text_style(out, color, TA_STYLE_RESET);
	fputc(' ', out);
}

/* "warning: " (or error, note) in its colour. */
static void write_severity(const char *what, ta_style style, bool color, FILE *out)
{
	ta_text_style(out, color, style);
	fprintf(out, "%s:", what);
	ta_text_style(out, color, TA_STYLE_RESET);
	fputc(' ', out);
}

static void write_text(const finding *fs, size_t n, bool fix_notes, bool color, FILE *out)
{
	for (size_t i = 0; i < n; i++) {
		const diag *x = fs[i].lead;
		write_place(x, color, out);
		if (x->error) {
			write_severity("error", TA_STYLE_ERROR, color, out);
			fprintf(out, "%s\n", fs[i].message);
			continue;
		}
		write_severity(severity(x), is_note(x) ? TA_STYLE_NOTE : TA_STYLE_WARNING, color, out);
		fprintf(out, "%s [", fs[i].message);
		for (size_t k = 0; k < fs[i].n_ids; k++) {
			fputs(k ? ", " : "", out);
			ta_text_style(out, color, TA_STYLE_ID);
			fputs(fs[i].ids[k], out);
			ta_text_style(out, color, TA_STYLE_RESET);
		}
		fputs("]\n", out);
		if (!fix_notes)
			continue;
		/* An entry the tool writes whose rewrite cannot change this site:
		 * say why here, as --diff and --apply will. */
		char *note = NULL;
		if (x->fix_where)   /* a finding for several sites: which of them */
			note = ta_xasprintf("%s [%s]", x->fix_where, x->id);
		else if (x->fix < 0)
			note = ta_xasprintf("no mechanical %s edit here: %s [%s]", x->id, x->fix_why, x->id);
		else if (x->fix > 0 && x->fix_unsafe)
			note = ta_xasprintf("unsafe %s edit here (--apply needs --unsafe-fixes): it %s [%s]", x->id,
					    x->fix_unsafe, x->id);
		else if (x->fix > 0)
			note = ta_xasprintf("safe %s edit here (--apply=%s:%u makes it) [%s]", x->id, x->id, x->line, x->id);
		if (!note)
			continue;
		write_place(x, color, out);
		write_severity("note", TA_STYLE_NOTE, color, out);
		fprintf(out, "%s\n", note);
		free(note);
	}
}

/* Whether the tool writes entry e's edit (safe or unsafe, not guided). */
static bool writes_edit(const ta_entry *e)
{
	if (!e || e->edit != TA_EDIT_MECHANICAL)
		return false;
	ta_entry_fix rw = ta_entry_fix_of(e->id);
	return rw.written && !rw.demoted;
}

/* --statistics: how many findings each entry has, most first, with the
 * entry's title (errors count under "syntax"), [*] before the title of an
 * entry whose edit the tool writes (ruff's fixable mark), and a last line
 * with the total: with fixes, how many can be edited at their site. */
static void write_statistics(const finding *fs, size_t n, bool fixes, FILE *out)
{
	const char **ids = ta_xcalloc(n + 1, sizeof *ids);
	size_t *counts = ta_xcalloc(n + 1, sizeof *counts), nid = 0;
	for (size_t i = 0; i < n; i++) {
		const char *id = fs[i].lead->error ? "syntax" : fs[i].lead->id;
		size_t k = 0;
		while (k < nid && strcmp(ids[k], id))
			k++;
		if (k == nid)
			ids[nid++] = id;
		counts[k]++;
	}
	/* most first, then by id: a small insertion sort */
	for (size_t i = 1; i < nid; i++)
		for (size_t j = i; j > 0 && (counts[j] > counts[j - 1] ||
					     (counts[j] == counts[j - 1] && strcmp(ids[j], ids[j - 1]) < 0)); j--) {
			size_t c = counts[j];
			const char *t = ids[j];
			counts[j] = counts[j - 1];
			ids[j] = ids[j - 1];
			counts[j - 1] = c;
			ids[j - 1] = t;
		}
	char *cat_err = NULL;
	ta_catalog *cat = ta_catalog_load(NULL, &cat_err);
	free(cat_err);
	size_t total = 0, marked = 0, editable = 0;
	for (size_t k = 0; k < nid; k++) {
		const ta_entry *e = cat ? ta_catalog_find(cat, ids[k]) : NULL;
		const char *title = e ? e->title : !strcmp(ids[k], "syntax") ? "syntax errors"
			: !strcmp(ids[k], TA_CHECK_SUPPRESSION_ID) ? "unknown id in a suppression comment" : "";
		bool w = writes_edit(e);
		fprintf(out, "%5zu  %-6s %s %s\n", counts[k], ids[k], w ? "[*]" : "   ", title);
		total += counts[k];
		marked += w ? counts[k] : 0;
	}
	for (size_t i = 0; i < n; i++)
		editable += fs[i].lead->fix > 0;
	if (fixes)
		fprintf(out, "%5zu  findings; %zu of them can be edited at their site (--apply=ID:LINE)\n", total,
			editable);
	else
		fprintf(out, "%5zu  findings; %zu of them of entries marked [*], whose edit the tool writes "
			"(--fixes says at which sites it can be made)\n", total, marked);
	ta_catalog_free(cat);
	free(ids);
	free(counts);
}

/* GitHub Actions workflow commands: each finding becomes an annotation
 * on the pull request's diff. Properties escape %, CR, LF, ':' and ','. */
static void gh_escape(FILE *out, const char *s, bool property)
{
	for (; *s; s++) {
		if (*s == '%')
			fputs("%25", out);
		else if (*s == '\r')
			fputs("%0D", out);
		else if (*s == '\n')
			fputs("%0A", out);
		else if (property && *s == ':')
			fputs("%3A", out);
		else if (property && *s == ',')
			fputs("%2C", out);
		else
			fputc(*s, out);
	}
}

static void write_github(const finding *fs, size_t n, FILE *out)
{
	for (size_t i = 0; i < n; i++) {
		const diag *x = fs[i].lead;
		fprintf(out, "::%s file=", x->error ? "error" : is_note(x) ? "notice" : "warning");
		gh_escape(out, x->file, true);
		fprintf(out, ",line=%u,endLine=%u,col=%u,title=", x->line, x->end_line, x->col);
		ta_buf t = TA_BUF_INIT;
		ta_buf_puts(&t, "tileadvise");
		for (size_t k = 0; k < fs[i].n_ids; k++)
			ta_buf_printf(&t, "%s%s", k ? ", " : " ", fs[i].ids[k]);
		gh_escape(out, ta_buf_str(&t), true);
		ta_buf_free(&t);
		fputs("::", out);
		gh_escape(out, fs[i].message, false);
		fputc('\n', out);
	}
}

static json_t *ids_json(const finding *f)
{
	json_t *a = json_array();
	for (size_t k = 0; k < f->n_ids; k++)
		json_array_append_new(a, json_string(f->ids[k]));
	return a;
}

static void dump(json_t *root, FILE *out)
{
	ta_json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(root);
}

/* A fix's replacements: what --apply=ID:LINE writes, for an editor or an
 * agent to apply (start inclusive, end exclusive, 1-based lines and
 * columns in code points). */
static json_t *edits_json(const ta_diag_edit *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:{s:I, s:I}, s:{s:I, s:I}, s:o}", "start", "line",
						   (json_int_t)v[i].line, "column", (json_int_t)v[i].col, "end",
						   "line", (json_int_t)v[i].end_line, "column", (json_int_t)v[i].end_col,
						   "content", ta_json_raw(v[i].content)));
	return a;
}

/* A fix object: whether --apply=ID:LINE makes the edit (fix 1 or -1; 0:
 * the entry's edit is not the tool's, NULL), safe or with its assumption,
 * and its replacements; or why not. */
static json_t *fix_json(int fix, const char *unsafe, const char *why, const ta_diag_edit *edits, size_t n)
{
	json_t *o;
	if (fix > 0 && unsafe)
		o = json_pack("{s:b, s:s, s:s}", "available", 1, "safety", "unsafe", "assumes", unsafe);
	else if (fix > 0)
		o = json_pack("{s:b, s:s}", "available", 1, "safety", "safe");
	else if (fix < 0)
		return json_pack("{s:b, s:s}", "available", 0, "reason", why);
	else
		return NULL;
	if (n)
		json_object_set_new(o, "edits", edits_json(edits, n));
	return o;
}

static void write_json(const finding *fs, size_t n, FILE *out)
{
	json_t *list = json_array();
	for (size_t i = 0; i < n; i++) {
		const diag *x = fs[i].lead;
		json_t *o = json_pack("{s:o, s:I, s:I, s:I, s:s}", "file", ta_json_raw(x->file), "line", (json_int_t)x->line,
				      "column", (json_int_t)x->col, "end_line", (json_int_t)x->end_line,
				      "severity", severity(x));
		if (x->end_col)
			json_object_set_new(o, "end_column", json_integer(x->end_col));
		json_object_set_new(o, "id", x->error ? json_null() : json_string(x->id));
		json_object_set_new(o, "ids", ids_json(&fs[i]));
		json_object_set_new(o, "kernel", x->kernel ? json_string(x->kernel) : json_null());
		json_object_set_new(o, "message", json_string(fs[i].message));
		if (x->site_count > 1) {   /* S1 once per kernel: every site, with fixes each one's outcome */
			json_t *sites = json_array();
			for (size_t k = 0; k < x->site_count; k++) {
				const struct ta_diag_site *st = &x->sites[k];
				json_t *so = json_pack("{s:I}", "line", (json_int_t)st->line);
				json_t *fix = fix_json(st->fix, st->unsafe, st->why, st->edits, st->edit_count);
				if (fix)
					json_object_set_new(so, "fix", fix);
				json_array_append_new(sites, so);
			}
			json_object_set_new(o, "sites", sites);
		}
		/* Entries the tool writes: whether --apply=ID:LINE makes the edit. */
		json_t *fix = fix_json(x->fix, x->fix_unsafe, x->fix_why, x->edits, x->edit_count);
		if (fix && x->fix_where)
			json_object_set_new(fix, "sites", json_string(x->fix_where));
		if (fix)
			json_object_set_new(o, "fix", fix);
		json_array_append_new(list, o);
	}
	dump(json_pack("{s:s, s:s, s:o}", "tool", "tileadvise", "version", PACKAGE_VERSION, "diagnostics", list), out);
}

/* A path as a URI reference: unreserved characters and '/' kept. An
 * absolute path becomes a file:// URI; a relative one is relative to the
 * %SRCROOT% base (the folder the check ran in). */
/* path as a URI: file:// before an absolute one, every byte outside the
 * unreserved set and '/' percent-encoded. */
static void uri_path(ta_buf *b, const char *path)
{
	if (path[0] == '/')
		ta_buf_puts(b, "file://");
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p))
			ta_buf_putc(b, (char)*p);
		else
			ta_buf_printf(b, "%%%02X", *p);
	}
}

static json_t *artifact(const char *path)
{
	ta_buf b = TA_BUF_INIT;
	bool absolute = path[0] == '/';
	uri_path(&b, path);
	json_t *o = json_pack("{s:s}", "uri", ta_buf_str(&b));
	if (!absolute)
		json_object_set_new(o, "uriBaseId", json_string("%SRCROOT%"));
	ta_buf_free(&b);
	return o;
}

static json_t *text_obj(const char *s)
{
	return json_pack("{s:s}", "text", s ? s : "");
}

/* A rule's descriptions: the catalog's title and summary, and as help what
 * --explain prints; without the catalog, plain pointers to --explain. */
static json_t *sarif_rule(const ta_catalog *cat, const char *help_page, size_t e, size_t n)
{
	const char *id = e < n ? ta_entry_at(e)->id : TA_CHECK_SUPPRESSION_ID;
	const ta_entry *entry = e < n && cat ? ta_catalog_find(cat, id) : NULL;
	char *shortd, *full, *help;
	if (e == n) {
		shortd = ta_xstrdup("Unknown checklist id in a suppression comment");
		full = ta_xstrdup("A `# tileadvise: ignore[...]` comment names an id that the checklist does "
				  "not have, so it silences nothing: a typo would otherwise keep a finding "
				  "alive unnoticed.");
		help = ta_xstrdup("Correct the id (tileadvise --list-rules lists them) or remove it from the "
				  "comment. --ignore X0 silences these reports.");
	} else if (entry) {
		shortd = ta_xstrdup(entry->title);
		full = ta_xstrdup(entry->summary && *entry->summary ? entry->summary : entry->title);
		help = ta_xasprintf("%s\n\nRun `tileadvise --explain %s` for the whole entry, or "
				    "`tileadvise FILE` to walk through it.", full, id);
	} else {
		shortd = ta_xasprintf("tileadvise checklist entry %s (section %s)", id, ta_section_name(ta_entry_at(e)->section));
		full = ta_xstrdup(shortd);
		help = ta_xasprintf("See tileadvise --explain %s.", id);
	}
	json_t *r = json_pack("{s:s, s:o, s:o, s:o, s:{s:s}}", "id", id, "shortDescription", text_obj(shortd),
			      "fullDescription", text_obj(full), "help", text_obj(help),
			      "defaultConfiguration", "level", id[0] == 'T' ? "note" : "warning");
	/* the entry's page: the checklist's HTML beside the catalog (installed
	 * with it, or the source tree's when run from the build tree) */
	if (entry && help_page) {
		ta_buf u = TA_BUF_INIT;
		uri_path(&u, help_page);
		ta_buf_printf(&u, "#%s", id);
		json_object_set_new(r, "helpUri", json_string(ta_buf_str(&u)));
		ta_buf_free(&u);
	}
	/* How the entry's findings are fixed, from the table: a property of the
	 * rule, true of every finding without running a rewrite. */
	const ta_entry_def *d = e < n ? ta_entry_find(id) : NULL;
	if (d) {
		ta_edit_kind k = ta_entry_edit_kind(d);
		ta_entry_fix rw = { 0 };
		if (k == TA_EDIT_MECHANICAL)
			rw = ta_entry_fix_of(id);
		const char *fix = k == TA_EDIT_NONE ? "none" : !rw.written ? "guided"
				  : rw.safety == TA_ENTRY_FIX_SAFE ? "safe"
				  : rw.safety == TA_ENTRY_FIX_UNSAFE ? "unsafe" : "safe/unsafe";
		json_t *p = json_pack("{s:s}", "fix", fix);
		if (rw.written && rw.assumes)
			json_object_set_new(p, "fixAssumes", json_string(rw.assumes));
		json_object_set_new(r, "properties", p);
	}
	free(shortd);
	free(full);
	free(help);
	return r;
}

static json_t *location(const diag *x, bool end)
{
	json_t *region = json_pack("{s:I, s:I}", "startLine", (json_int_t)x->line, "startColumn", (json_int_t)x->col);
	if (end)
		json_object_set_new(region, "endLine", json_integer(x->end_line));
	return json_pack("{s:{s:o, s:o}}", "physicalLocation", "artifactLocation", artifact(x->file),
			 "region", region);
}

static void write_sarif(const finding *fs, size_t nf, FILE *out)
{
	size_t n = ta_entry_count();
	char *cat_err = NULL;
	ta_catalog *cat = ta_catalog_load(NULL, &cat_err);
	free(cat_err);
	json_t *rules = json_array();
	char *page = ta_xasprintf("%s/checklist.html", ta_datadir());
	char *help_page = realpath(page, NULL);
	free(page);
	for (size_t e = 0; e <= n; e++)
		json_array_append_new(rules, sarif_rule(cat, help_page, e, n));
	free(help_page);
	ta_catalog_free(cat);
	json_t *results = json_array(), *notes = json_array();
	for (size_t i = 0; i < nf; i++) {
		const diag *x = fs[i].lead;
		if (x->error) {   /* syntax errors are the tool's notifications */
			json_array_append_new(notes, json_pack("{s:s, s:o, s:[o]}", "level", "error", "message",
							       text_obj(fs[i].message), "locations",
							       location(x, false)));
			continue;
		}
		int e = ta_entry_index_of(x->id);
		json_t *r = json_pack("{s:s, s:I, s:s, s:o, s:[o]}", "ruleId", x->id, "ruleIndex",
				      (json_int_t)(e >= 0 ? (size_t)e : n), "level", severity(x), "message",
				      text_obj(fs[i].message), "locations", location(x, true));
		if (x->site_count > 1) {   /* S1 once per kernel: the other sites */
			json_t *rel = json_array();
			for (size_t k = 1; k < x->site_count; k++)
				json_array_append_new(rel, json_pack("{s:{s:o, s:{s:I}}}", "physicalLocation",
								     "artifactLocation", artifact(x->file), "region",
								     "startLine", (json_int_t)x->sites[k].line));
			json_object_set_new(r, "relatedLocations", rel);
		}
		json_t *props = json_object();
		if (fs[i].n_ids > 1)   /* the other entries this finding answers */
			json_object_set_new(props, "ids", ids_json(&fs[i]));
		/* --fixes: whether --apply makes the edit here, safe or not. */
		if (x->fix > 0)
			json_object_set_new(props, "fix", json_string(x->fix_unsafe ? "unsafe" : "safe"));
		else if (x->fix < 0)
			json_object_set_new(props, "fix", json_string("none"));
		if (x->fix_unsafe)
			json_object_set_new(props, "fixAssumes", json_string(x->fix_unsafe));
		if (x->fix < 0)
			json_object_set_new(props, "fixRefused", json_string(x->fix_why));
		if (json_object_size(props))
			json_object_set_new(r, "properties", props);
		else
			json_decref(props);
		json_array_append_new(results, r);
	}
	json_t *driver = json_pack("{s:s, s:s, s:s, s:o}", "name", "tileadvise", "version", PACKAGE_VERSION,
				   "semanticVersion", PACKAGE_VERSION, "rules", rules);
	json_t *run = json_pack("{s:{s:o}, s:o, s:[{s:b, s:o}]}", "tool", "driver", driver, "results", results,
				"invocations", "executionSuccessful", 1, "toolExecutionNotifications", notes);
	/* Relative paths are relative to the folder the check ran in. */
	char *cwd = getcwd(NULL, 0);
	if (cwd) {
		ta_buf b = TA_BUF_INIT;
		json_t *base = artifact(cwd);
		ta_buf_printf(&b, "%s/", json_string_value(json_object_get(base, "uri")));
		json_object_set_new(run, "originalUriBaseIds",
				    json_pack("{s:{s:s}}", "%SRCROOT%", "uri", ta_buf_str(&b)));
		json_decref(base);
		ta_buf_free(&b);
		free(cwd);
	}
	dump(json_pack("{s:s, s:s, s:[o]}", "$schema", "https://json.schemastore.org/sarif-2.1.0.json",
		       "version", "2.1.0", "runs", run), out);
}

/* ---- the front end -------------------------------------------------------------- */

/* The line ruff ends its text with: how many findings, how many --fix
 * made, and (their edits known: --fixes) how many it can make. On
 * standard error, as clang-tidy's "N warnings generated": standard output
 * stays diagnostics alone for the scripts and editors that read it. */
static void write_summary(const finding *fs, size_t n, const ta_check_options *o, size_t fixed, ta_exit rc,
			  FILE *out)
{
	size_t found = 0, errors = 0, notes = 0, fixable = 0, unsafe = 0;
	for (size_t i = 0; i < n; i++) {
		const diag *x = fs[i].lead;
		if (x->error) {
			errors++;
			continue;
		}
		if (is_note(x)) {
			notes++;
			continue;
		}
		found++;
		for (size_t k = 0; k < (x->site_count ? x->site_count : 1); k++) {
			int fix = x->site_count ? x->sites[k].fix : x->fix;
			const char *uns = x->site_count ? x->sites[k].unsafe : x->fix_unsafe;
			fixable += fix > 0 && (!uns || o->unsafe_fixes);
			unsafe += fix > 0 && uns && !o->unsafe_fixes;
		}
	}
	if (!found && !errors && !fixed && rc == TA_EXIT_ERROR)
		return;   /* the lines that say why are the whole story */
	if (!found && !errors && !fixed) {
		fprintf(out, "All checks passed%s", notes ? " (" : ".\n");
		if (notes)
			fprintf(out, "%zu note%s).\n", notes, notes == 1 ? "" : "s");
		return;
	}
	fprintf(out, "Found %zu finding%s", found + fixed, found + fixed == 1 ? "" : "s");
	if (fixed)
		fprintf(out, " (%zu fixed, %zu remaining)", fixed, found);
	if (errors)
		fprintf(out, " and %zu syntax error%s", errors, errors == 1 ? "" : "s");
	if (notes)
		fprintf(out, ", with %zu note%s", notes, notes == 1 ? "" : "s");
	fputs(rc == TA_EXIT_ERROR ? "; some paths could not be checked (see above).\n" : ".\n", out);
	if (fixable || unsafe) {
		fprintf(out, "%zu fixable with --fix", fixable);
		if (unsafe)
			fprintf(out, " (%zu more with --unsafe-fixes)", unsafe);
		fputs(".\n", out);
	}
}

/* The ids per-file-ignores leaves out of path, comma-separated (caller
 * frees), or NULL. */
static char *file_ignores_of(const ta_check_options *o, const char *path)
{
	ta_buf b = TA_BUF_INIT;
	if (!strcmp(path, "-"))
		path = o->stdin_filename;
	for (size_t i = 0; path && i < o->n_file_ignores; i++)
		if (ta_discover_matches(&o->file_ignores[i].match, path))
			ta_buf_printf(&b, "%s%s", b.len ? "," : "", o->file_ignores[i].ids);
	return b.len ? ta_buf_steal(&b) : (ta_buf_free(&b), NULL);
}

/* --fix, and --diff alone: every file's edits before the check (diffs on
 * out instead with fix_diff). Returns how many were made. */
static size_t fix_files(char *const *paths, size_t n, const ta_check_options *o, FILE *out, FILE *err,
			ta_exit *rc)
{
	ta_fix_options fo = { .select = o->select, .extend = o->extend_select, .preview = o->preview,
			      .unsafe_fixes = o->unsafe_fixes, .dry_run = o->fix_diff };
	size_t made = 0, files = 0, unsafe = 0;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(paths[i], "-")) {
			fprintf(err, "tileadvise: -: standard input is not edited: --fix and --diff take files\n");
			*rc = TA_EXIT_ERROR;
			continue;
		}
		ta_fix_outcome fx;
		char *also = file_ignores_of(o, paths[i]), *ign = NULL;
		if (also && o->ignore)
			ign = ta_xasprintf("%s,%s", o->ignore, also);
		fo.ignore = ign ? ign : also ? also : o->ignore;
		if (ta_fix_file(paths[i], &fo, &fx, err) != 0)
			*rc = TA_EXIT_ERROR;
		free(ign);
		free(also);
		made += fx.applied;
		files += fx.applied > 0;
		unsafe += fx.unsafe_left;
		if (o->fix_diff && fx.diff)
			fputs(fx.diff, out);
		else if (fx.made)
			fprintf(err, "tileadvise: %s: made %s (tileadvise --undo %s takes back one at a time)\n",
				ta_text_name(paths[i]), fx.made, ta_text_name(paths[i]));
		ta_fix_outcome_clear(&fx);
	}
	if (o->fix_diff) {
		fprintf(err, "tileadvise: %s %zu edit%s in %zu file%s", made ? "--fix would make" : "--fix has",
			made, made == 1 ? "" : "s", files, files == 1 ? "" : "s");
		if (unsafe)
			fprintf(err, " (and %zu unsafe one%s with --unsafe-fixes)", unsafe, unsafe == 1 ? "" : "s");
		fputs(made ? "; nothing was changed\n" : " to make\n", err);
	}
	return made;
}

/* Whether select names the trigger id itself: the id, its section T, or ALL
 * (a notes' id list is the user asking for them). */
static bool selects_note(const char *select, const char *id)
{
	if (!select)
		return false;
	char *copy = ta_xstrdup(select), *save = NULL;
	bool yes = false;
	for (char *t = strtok_r(copy, ", ", &save); t && !yes; t = strtok_r(NULL, ", ", &save))
		yes = !strcasecmp(t, id) || (strlen(t) == 1 && toupper((unsigned char)*t) == id[0]) ||
		      !strcasecmp(t, "ALL");
	free(copy);
	return yes;
}

ta_exit ta_check_run(char *const *paths, int count, const ta_check_options *o, FILE *out, FILE *err)
{
	ta_findings *fd = ta_findings_new(o->select, o->ignore, o->extend_select, o->preview, o->fixes, err);
	if (!fd)
		return TA_EXIT_ERROR;
	ta_findings_stdin_name(fd, o->stdin_filename);
	ta_exit rc = TA_EXIT_OK;
	file_list files = { 0 };
	ta_discover disc = { .exclude = o->exclude, .n_exclude = o->n_exclude,
			     .respect_gitignore = !o->no_gitignore };
	ta_discover_files(paths, count, &disc, &files.paths, &files.count, &files.cap, err, &rc);
	size_t fixed = o->fix || o->fix_diff ? fix_files(files.paths, files.count, o, out, err, &rc) : 0;
	if (o->fix_diff) {
		/* ruff's --diff: the diffs alone, exit 1 when there are some */
		ta_findings_free(fd);
		for (size_t i = 0; i < files.count; i++)
			free(files.paths[i]);
		free(files.paths);
		return rc == TA_EXIT_OK && fixed && !o->exit_zero ? TA_EXIT_FINDINGS : rc;
	}
	for (size_t i = 0; i < files.count; i++) {
		char *also = file_ignores_of(o, files.paths[i]);
		ta_findings_check_ignoring(fd, files.paths[i], also, err, &rc);
		free(also);
	}
	size_t nd, nf;
	const diag *all = ta_findings_sorted(fd, &nd);
	/* the trigger notes only when asked for */
	diag *d = ta_xcalloc(nd + 1, sizeof *d);
	size_t kept = 0;
	for (size_t i = 0; i < nd; i++)
		if (!is_note(&all[i]) || o->show_notes || selects_note(o->select, all[i].id))
			d[kept++] = all[i];
	nd = kept;
	finding *fs = group_findings(d, nd, &nf);
	if (o->format == TA_FORMAT_JSON)
		write_json(fs, nf, out);
	else if (o->format == TA_FORMAT_SARIF)
		write_sarif(fs, nf, out);
	else if (o->format == TA_FORMAT_GITHUB)
		write_github(fs, nf, out);
	else if (o->statistics)
		write_statistics(fs, nf, o->fixes, out);
	else {
		write_text(fs, nf, o->fixes, o->color, out);
		fflush(out);   /* the findings before the summary, where both go to one place */
		write_summary(fs, nf, o, fixed, rc, err);
	}
	free_findings(fs, nf);
	for (size_t i = 0; i < nd && rc == 0 && !o->exit_zero; i++)
		if (!is_note(&d[i]))
			rc = TA_EXIT_FINDINGS;
	free(d);
	ta_findings_free(fd);
	for (size_t i = 0; i < files.count; i++)
		free(files.paths[i]);
	free(files.paths);
	return rc;
}
