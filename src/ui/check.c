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

#include "analyze/analysis.h"
#include "analyze/split.h"
#include "ui/discover.h"
#include "checklist/filter.h"
#include "checklist/rewrite.h"
#include "checklist/rules.h"
#include "util/buf.h"
#include "util/fsutil.h"

typedef struct diag {
	const char *file;         /* borrowed from the file list */
	uint32_t line, col, end_line;
	bool error;               /* syntax error rather than a finding */
	char id[8];
	char *message;
	char *kernel;
	int fix;                  /* entries the tool writes: 1 the edit can be made
				     here, -1 it cannot (fix_why says why); else 0 */
	char *fix_why;
	char *fix_unsafe;         /* fix 1: the edit's assumption when it is unsafe */
} diag;

typedef struct diags {
	diag *items;
	size_t count, cap;
	/* The current file's diagnostics by place, id and message, to drop a
	 * repeat without comparing it with every one before: item index + 1,
	 * 0 empty; stale indexes (dropped, another file's) are checked away.
	 * Its own table: the key has four parts and one message may stand at
	 * many places, which analyze/namemap.h's one name, one value does not
	 * hold. */
	size_t *seen;
	size_t seen_cap, seen_used;
	size_t run;               /* the current file's first item */
} diags;

/* ---- collecting files ------------------------------------------------------ */

typedef struct file_list {
	char **paths;
	size_t count, cap;
} file_list;

/* ---- diagnostics --------------------------------------------------------------- */

/* One line: newlines and tabs in quoted code become spaces. */
static char *one_line(const char *s)
{
	char *t = ta_xstrdup(s);
	char *w = t;
	for (const char *r = t; *r; r++) {
		char ch = (*r == '\n' || *r == '\r' || *r == '\t') ? ' ' : *r;
		if (ch == ' ' && w > t && w[-1] == ' ')
			continue;
		*w++ = ch;
	}
	*w = '\0';
	return t;
}

static size_t diag_hash(uint32_t line, uint32_t col, const char *id, const char *message)
{
	uint64_t h = ta_hash_bytes(message, strlen(message)) ^ ta_hash_bytes(id, strlen(id));
	return (size_t)(h ^ ((uint64_t)line * 0x9e3779b97f4a7c15u) ^ ((uint64_t)col << 32));
}

/* Whether the current file has a diagnostic with this place, id and
 * message (as stored: one line). */
static bool seen(const diags *d, const char *file, uint32_t line, uint32_t col, const char *id,
		 const char *message)
{
	if (!d->seen_cap)
		return false;
	for (size_t h = diag_hash(line, col, id, message) & (d->seen_cap - 1); d->seen[h];
	     h = (h + 1) & (d->seen_cap - 1)) {
		size_t i = d->seen[h] - 1;
		if (i < d->run || i >= d->count)
			continue;
		const diag *o = &d->items[i];
		if (o->file == file && o->line == line && o->col == col && !strcmp(o->id, id) &&
		    !strcmp(o->message, message))
			return true;
	}
	return false;
}

static void seen_put(diags *d, size_t i)
{
	const diag *o = &d->items[i];
	size_t h = diag_hash(o->line, o->col, o->id, o->message) & (d->seen_cap - 1);
	while (d->seen[h])
		h = (h + 1) & (d->seen_cap - 1);
	d->seen[h] = i + 1;
	d->seen_used++;
}

static diag *add_diag(diags *d, const char *file, uint32_t line, uint32_t col, uint32_t end_line,
		      bool error, const char *id, const char *message, const char *kernel)
{
	if (!d->count || d->items[d->count - 1].file != file) {
		/* a new file: earlier ones are never compared again */
		d->run = d->count;
		if (d->seen)
			memset(d->seen, 0, d->seen_cap * sizeof *d->seen);
		d->seen_used = 0;
	}
	if (seen(d, file, line, col, id, message))
		return NULL;   /* one host line found for two kernels */
	diag *x = TA_PUSH(d->items, d->count, d->cap);
	x->file = file;
	x->line = line;
	x->col = col ? col : 1;
	x->end_line = end_line >= line ? end_line : line;
	x->error = error;
	snprintf(x->id, sizeof x->id, "%s", id);
	x->message = one_line(message);
	x->kernel = kernel ? ta_xstrdup(kernel) : NULL;
	x->fix = 0;
	x->fix_why = NULL;
	x->fix_unsafe = NULL;
	if ((d->seen_used + 1) * 2 > d->seen_cap) {
		free(d->seen);
		d->seen_cap = d->seen_cap ? d->seen_cap * 2 : 256;
		d->seen = ta_xcalloc(d->seen_cap, sizeof *d->seen);
		d->seen_used = 0;
		for (size_t i = d->run; i + 1 < d->count; i++)
			seen_put(d, i);
	}
	seen_put(d, d->count - 1);
	return x;
}

/* Whether the edit of a finding the tool writes can be made at its site:
 * the same rewrite, for the same site, as --diff and --apply make. */
static void note_fix(diag *x, const ta_model *m, const ta_finding *f)
{
	const ta_rewrite *rw = ta_rewrite_find(f->id);
	if (!x || !rw || rw->demoted)
		return;
	ta_edit e;
	char *why = NULL;
	if (ta_rewrite_at(m, f, &e, &why) == 0) {
		x->fix = 1;
		x->fix_unsafe = e.unsafe ? one_line(e.unsafe) : NULL;
		ta_edit_clear(&e);
	} else {
		x->fix = -1;
		x->fix_why = why ? one_line(why) : ta_xstrdup("its preconditions do not hold");
		free(why);
	}
}

/* "-": the file on standard input, read whole. Reading stops one chunk
 * past the size limit of a file, which loading then refuses. */
static int open_stdin(ta_source **src, char **msg)
{
	ta_buf b = TA_BUF_INIT;
	char chunk[65536];
	size_t n;
	while (b.len <= TA_SOURCE_MAX_BYTES && (n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
		ta_buf_append(&b, chunk, n);
	int rc = ferror(stdin) ? -1 : 0;
	if (rc)
		*msg = ta_xstrdup("-: cannot read standard input");
	else
		rc = ta_source_from_bytes("-", b.len ? ta_buf_str(&b) : "", b.len, src, msg);
	ta_buf_free(&b);
	return rc;
}

/* Files larger than this are analysed in parts of this size
 * (analyze/split.h): tree-sitter's tree of a whole 13 MB file took over a
 * gigabyte. TILEADVISE_PART_BYTES sets it (tests compare both ways on
 * small files). */
static size_t part_bytes(void)
{
	const char *e = getenv("TILEADVISE_PART_BYTES");
	char *end;
	unsigned long long v = e && *e ? strtoull(e, &end, 10) : 0;
	return e && *e && !*end && v ? (size_t)v : (size_t)256 << 10;
}

static void drop_diags(diags *d, size_t from)
{
	for (size_t i = from; i < d->count; i++) {
		free(d->items[i].message);
		free(d->items[i].kernel);
		free(d->items[i].fix_why);
		free(d->items[i].fix_unsafe);
	}
	d->count = from;
}

/* The findings of one model (the file's, or a part's) as diagnostics. */
static void check_model(const char *path, const ta_filter *f, bool fixes, diags *d, const ta_model *m,
			const ta_suppressions *sup)
{
	ta_rules_result *r = ta_rules_run(m, NULL);
	for (size_t i = 0; i < r->finding_count; i++) {
		const ta_finding *fd = &r->findings[i];
		int e = ta_rules_index(fd->id);
		if (ta_rules_status(r, fd->kernel, (size_t)e) != TA_STATUS_APPLIES || !ta_filter_wants(f, fd->id))
			continue;
		const ta_kernel *k = &m->kernels[fd->kernel];
		if (ta_suppressions_silence(sup, fd->span.line, k->def_line, fd->id))
			continue;
		diag *x = add_diag(d, path, fd->span.line, fd->span.col, fd->span.end_line, false, fd->id,
				   fd->reason, k->name);
		if (fixes)
			note_fix(x, m, fd);
	}
	ta_rules_result_free(r);
}

/* A large file part by part, each part's tree freed before the next; false
 * (and nothing added) when a part does not parse cleanly, which the
 * whole file's analysis then reports. */
static bool check_parts(const char *path, const ta_filter *f, bool fixes, diags *d, const ta_source *src,
			const ta_suppressions *sup)
{
	size_t part = part_bytes();
	ta_split_part *parts;
	size_t n = src->len > part ? ta_split(src, part, &parts) : 0;
	if (!n)
		return false;
	size_t mark = d->count;
	bool ok = true;
	for (size_t p = 0; ok && p < n; p++) {
		char *msg = NULL;
		ta_syntax *syn = ta_syntax_parse_ranges(src, parts[p].ranges, parts[p].range_count, &msg);
		ta_model *m = syn && !syn->error_count ? ta_model_build(src, syn, &msg) : NULL;
		ok = m != NULL;
		if (ok)
			check_model(path, f, fixes, d, m, sup);
		free(msg);
		ta_model_free(m);
		ta_syntax_free(syn);
	}
	ta_split_free(parts, n);
	if (!ok)
		drop_diags(d, mark);
	return ok;
}

static void check_file(const char *path, const ta_filter *f, bool fixes, diags *d, FILE *err, ta_exit *rc)
{
	ta_source *src;
	char *msg;
	if ((!strcmp(path, "-") ? open_stdin(&src, &msg) : ta_source_load(path, &src, &msg)) != 0) {
		fprintf(err, "tileadvise: %s\n", msg);
		free(msg);
		*rc = TA_EXIT_ERROR;
		return;
	}
	ta_suppressions *sup = ta_suppressions_read(src);
	ta_unknown_id u;
	for (size_t i = 0; ta_filter_wants(f, TA_CHECK_SUPPRESSION_ID) && ta_suppressions_unknown(sup, i, &u); i++) {
		char *m = ta_xasprintf("unknown checklist id '%s' in a suppression comment", u.id);
		add_diag(d, path, u.line, u.col, u.line, false, TA_CHECK_SUPPRESSION_ID, m, NULL);
		free(m);
	}
	if (check_parts(path, f, fixes, d, src, sup)) {
		ta_source_free(src);
	} else {
		ta_analysis *a;
		if (ta_analysis_of_source(src, &a, &msg) != 0) {
			fprintf(err, "tileadvise: %s\n", msg);
			free(msg);
			*rc = TA_EXIT_ERROR;
		} else {
			for (size_t i = 0; i < a->syn->error_count; i++) {
				const ta_syntax_error *e = &a->syn->errors[i];
				char *m = ta_xasprintf("syntax error: %s", e->what ? e->what : "cannot parse");
				add_diag(d, path, (uint32_t)e->line, (uint32_t)e->column, (uint32_t)e->end_line, true, "", m, NULL);
				free(m);
			}
			check_model(path, f, fixes, d, a->model, sup);
			ta_analysis_free(a);
		}
	}
	ta_suppressions_free(sup);
}

static int cmp_diag(const void *pa, const void *pb)
{
	const diag *a = pa, *b = pb;
	int c = strcmp(a->file, b->file);
	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->col != b->col)
		return a->col < b->col ? -1 : 1;
	return strcmp(a->id, b->id);
}

/* ---- writers ------------------------------------------------------------------- */

/* Triggers decide the walk order; they are not defects, so they print as
 * notes and do not make the exit status 1. */
static bool is_note(const diag *x)
{
	return !x->error && x->id[0] == 'T';
}

static const char *severity(const diag *x)
{
	return x->error ? "error" : is_note(x) ? "note" : "warning";
}

/* Length of message without the " (as ID)" that served entries append. */
static size_t base_len(const char *message)
{
	size_t n = strlen(message);
	const char *as = strstr(message, " (as ");
	if (as && message[n - 1] == ')' && !strchr(as + 5, ' '))
		return (size_t)(as - message);
	return n;
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
static finding *group_findings(const diags *d, size_t *count)
{
	finding *out = ta_xcalloc(d->count + 1, sizeof *out);
	bool *done = ta_xcalloc(d->count + 1, sizeof *done);
	size_t n = 0;
	for (size_t i = 0; i < d->count; i++) {
		const diag *x = &d->items[i];
		if (done[i])
			continue;
		finding *f = &out[n++];
		/* members share x's place: the run of diagnostics there */
		size_t run = i + 1;
		while (run < d->count && d->items[run].line == x->line && d->items[run].col == x->col &&
		       !strcmp(d->items[run].file, x->file))
			run++;
		f->ids = ta_xcalloc(run - i + 1, sizeof *f->ids);
		if (x->error) {
			f->lead = x;
			f->message = ta_xstrdup(x->message);
			continue;
		}
		size_t bl = base_len(x->message), server = i, m = 0;
		size_t *members = ta_xcalloc(run - i + 1, sizeof *members);
		for (size_t j = i; j < run; j++) {
			const diag *y = &d->items[j];
			if (done[j] || y->error || base_len(y->message) != bl || strncmp(y->message, x->message, bl))
				continue;
			done[j] = true;
			members[m++] = j;
			if (strlen(y->message) == bl)
				server = j;
		}
		f->lead = &d->items[server];
		f->message = ta_xstrndup(x->message, bl);
		f->ids[f->n_ids++] = d->items[server].id;
		for (size_t k = 0; k < m; k++)
			if (members[k] != server)
				f->ids[f->n_ids++] = d->items[members[k]].id;
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

static void write_text(const finding *fs, size_t n, FILE *out)
{
	for (size_t i = 0; i < n; i++) {
		const diag *x = fs[i].lead;
		if (x->error) {
			fprintf(out, "%s:%u:%u: error: %s\n", x->file, x->line, x->col, fs[i].message);
			continue;
		}
		fprintf(out, "%s:%u:%u: %s: %s [", x->file, x->line, x->col, severity(x), fs[i].message);
		for (size_t k = 0; k < fs[i].n_ids; k++)
			fprintf(out, "%s%s", k ? ", " : "", fs[i].ids[k]);
		fputs("]\n", out);
		/* An entry the tool writes whose rewrite cannot change this site:
		 * say why here, as --diff and --apply will. */
		if (x->fix < 0)
			fprintf(out, "%s:%u:%u: note: no mechanical %s edit here: %s [%s]\n", x->file, x->line,
				x->col, x->id, x->fix_why, x->id);
		else if (x->fix > 0 && x->fix_unsafe)
			fprintf(out, "%s:%u:%u: note: unsafe %s edit here (--apply needs --unsafe-fixes): it %s [%s]\n",
				x->file, x->line, x->col, x->id, x->fix_unsafe, x->id);
		else if (x->fix > 0)
			fprintf(out, "%s:%u:%u: note: safe %s edit here (--apply=%s:%u makes it) [%s]\n", x->file,
				x->line, x->col, x->id, x->id, x->line, x->id);
	}
}

/* --statistics: how many findings each entry has, most first, with the
 * entry's title (errors count under "syntax"). */
static void write_statistics(const finding *fs, size_t n, FILE *out)
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
	for (size_t k = 0; k < nid; k++) {
		const ta_entry *e = cat ? ta_catalog_find(cat, ids[k]) : NULL;
		const char *title = e ? e->title : !strcmp(ids[k], "syntax") ? "syntax errors"
			: !strcmp(ids[k], TA_CHECK_SUPPRESSION_ID) ? "unknown id in a suppression comment" : "";
		fprintf(out, "%5zu  %-6s %s\n", counts[k], ids[k], title);
	}
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
	json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(root);
}

static void write_json(const finding *fs, size_t n, FILE *out)
{
	json_t *list = json_array();
	for (size_t i = 0; i < n; i++) {
		const diag *x = fs[i].lead;
		json_t *o = json_pack("{s:s, s:I, s:I, s:I, s:s}", "file", x->file, "line", (json_int_t)x->line,
				      "column", (json_int_t)x->col, "end_line", (json_int_t)x->end_line,
				      "severity", severity(x));
		json_object_set_new(o, "id", x->error ? json_null() : json_string(x->id));
		json_object_set_new(o, "ids", ids_json(&fs[i]));
		json_object_set_new(o, "kernel", x->kernel ? json_string(x->kernel) : json_null());
		json_object_set_new(o, "message", json_string(fs[i].message));
		/* Entries the tool writes: whether --apply=ID:LINE makes the edit. */
		if (x->fix > 0 && x->fix_unsafe)
			json_object_set_new(o, "fix", json_pack("{s:b, s:s, s:s}", "available", 1, "safety", "unsafe",
								"assumes", x->fix_unsafe));
		else if (x->fix > 0)
			json_object_set_new(o, "fix", json_pack("{s:b, s:s}", "available", 1, "safety", "safe"));
		else if (x->fix < 0)
			json_object_set_new(o, "fix", json_pack("{s:b, s:s}", "available", 0, "reason", x->fix_why));
		json_array_append_new(list, o);
	}
	dump(json_pack("{s:s, s:s, s:o}", "tool", "tileadvise", "version", PACKAGE_VERSION, "diagnostics", list), out);
}

/* A path as a URI reference: unreserved characters and '/' kept. An
 * absolute path becomes a file:// URI; a relative one is relative to the
 * %SRCROOT% base (the folder the check ran in). */
static json_t *artifact(const char *path)
{
	ta_buf b = TA_BUF_INIT;
	bool absolute = path[0] == '/';
	if (absolute)
		ta_buf_puts(&b, "file://");
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p))
			ta_buf_putc(&b, (char)*p);
		else
			ta_buf_printf(&b, "%%%02X", *p);
	}
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
static json_t *sarif_rule(const ta_catalog *cat, size_t e, size_t n)
{
	const char *id = e < n ? ta_rules_id(e) : TA_CHECK_SUPPRESSION_ID;
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
		shortd = ta_xasprintf("tileadvise checklist entry %s (section %s)", id, ta_rules_section(e));
		full = ta_xstrdup(shortd);
		help = ta_xasprintf("See tileadvise --explain %s.", id);
	}
	json_t *r = json_pack("{s:s, s:o, s:o, s:o, s:{s:s}}", "id", id, "shortDescription", text_obj(shortd),
			      "fullDescription", text_obj(full), "help", text_obj(help),
			      "defaultConfiguration", "level", id[0] == 'T' ? "note" : "warning");
	/* How the entry's findings are fixed, from the table: a property of the
	 * rule, true of every finding without running a rewrite. */
	const ta_entry_def *d = e < n ? ta_entry_find(id) : NULL;
	if (d) {
		ta_edit_kind k = ta_entry_edit_kind(d);
		const ta_rewrite *rw = k == TA_EDIT_MECHANICAL ? ta_rewrite_find(id) : NULL;
		const char *fix = k == TA_EDIT_NONE ? "none" : !rw ? "guided" : rw->safety == TA_FIX_SAFE ? "safe" :
				  rw->safety == TA_FIX_UNSAFE ? "unsafe" : "safe/unsafe";
		json_t *p = json_pack("{s:s}", "fix", fix);
		if (rw && rw->assumes)
			json_object_set_new(p, "fixAssumes", json_string(rw->assumes));
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
	size_t n = ta_rules_count();
	char *cat_err = NULL;
	ta_catalog *cat = ta_catalog_load(NULL, &cat_err);
	free(cat_err);
	json_t *rules = json_array();
	for (size_t e = 0; e <= n; e++)
		json_array_append_new(rules, sarif_rule(cat, e, n));
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
		int e = ta_rules_index(x->id);
		json_t *r = json_pack("{s:s, s:I, s:s, s:o, s:[o]}", "ruleId", x->id, "ruleIndex",
				      (json_int_t)(e >= 0 ? (size_t)e : n), "level", severity(x), "message",
				      text_obj(fs[i].message), "locations", location(x, true));
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

ta_exit ta_check_run(char *const *paths, int count, const ta_check_options *o, FILE *out, FILE *err)
{
	ta_filter *f = ta_filter_new(o->preview);
	ta_exit rc = TA_EXIT_OK;
	char *e = NULL;
	if (o->select && ta_filter_select(f, o->select, &e) != 0) {
		fprintf(err, "tileadvise: %s\n", e);
		free(e);
		rc = TA_EXIT_ERROR;
	}
	if (o->ignore && ta_filter_ignore(f, o->ignore, &e) != 0) {
		fprintf(err, "tileadvise: %s\n", e);
		free(e);
		rc = TA_EXIT_ERROR;
	}
	if (rc != TA_EXIT_OK) {
		ta_filter_free(f);
		return rc;
	}
	file_list files = { 0 };
	ta_discover disc = { .exclude = o->exclude, .n_exclude = o->n_exclude,
			     .respect_gitignore = !o->no_gitignore };
	ta_discover_files(paths, count, &disc, &files.paths, &files.count, &files.cap, err, &rc);
	diags d = { 0 };
	for (size_t i = 0; i < files.count; i++)
		check_file(files.paths[i], f, o->fixes, &d, err, &rc);
	if (d.count)
		qsort(d.items, d.count, sizeof *d.items, cmp_diag);
	size_t nf;
	finding *fs = group_findings(&d, &nf);
	if (o->format == TA_FORMAT_JSON)
		write_json(fs, nf, out);
	else if (o->format == TA_FORMAT_SARIF)
		write_sarif(fs, nf, out);
	else if (o->format == TA_FORMAT_GITHUB)
		write_github(fs, nf, out);
	else if (o->statistics)
		write_statistics(fs, nf, out);
	else
		write_text(fs, nf, out);
	free_findings(fs, nf);
	for (size_t i = 0; i < d.count && rc == 0 && !o->exit_zero; i++)
		if (!is_note(&d.items[i]))
			rc = TA_EXIT_FINDINGS;
	for (size_t i = 0; i < d.count; i++) {
		free(d.items[i].message);
		free(d.items[i].kernel);
		free(d.items[i].fix_why);
		free(d.items[i].fix_unsafe);
	}
	free(d.items);
	free(d.seen);
	for (size_t i = 0; i < files.count; i++)
		free(files.paths[i]);
	free(files.paths);
	ta_filter_free(f);
	return rc;
}
