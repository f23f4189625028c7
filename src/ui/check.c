/* `tileadvise --check`: runs the rules over files and directories and
 * prints what applies as diagnostics (gcc style, json or SARIF). */
#include "config.h"
#include "ui/check.h"
#include "advise/checklist.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "analyze/analysis.h"
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
} diag;

typedef struct diags {
	diag *items;
	size_t count, cap;
} diags;

typedef struct filter {
	bool *select;             /* NULL: everything */
	bool *ignore;
	bool ignore_x0, select_x0;
} filter;

/* ---- collecting files ------------------------------------------------------ */

typedef struct file_list {
	char **paths;
	size_t count, cap;
} file_list;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_py_suffix(const char *name)
{
	size_t n = strlen(name);
	return n > 3 && !strcmp(name + n - 3, ".py");
}

/* A link is followed only when its target stays inside root. */
static bool inside(const char *root_real, const char *path)
{
	char *real = realpath(path, NULL);
	if (!real)
		return false;
	size_t n = strlen(root_real);
	bool yes = !strncmp(real, root_real, n) && (real[n] == '/' || real[n] == '\0' || !strcmp(root_real, "/"));
	free(real);
	return yes;
}

/* Deeper folders are not walked (a link loop made of bind mounts, a
 * generated tree): said on err, and the run ends in an error. */
#define MAX_DEPTH 64

static void walk_dir(const char *dir, const char *root_real, file_list *out, int depth, FILE *err,
		     ta_exit *rc)
{
	if (depth > MAX_DEPTH) {
		fprintf(err, "tileadvise: %s: not checked: more than %d folders deep (check it on its own)\n",
			dir, MAX_DEPTH);
		*rc = TA_EXIT_ERROR;
		return;
	}
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(err, "tileadvise: %s: cannot read the folder: %s\n", dir, strerror(errno));
		*rc = TA_EXIT_ERROR;
		return;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;   /* hidden files and folders, . and .. */
		*TA_PUSH(names, n, cap) = ta_xstrdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, cmp_str);
	for (size_t i = 0; i < n; i++) {
		char *p = ta_path_join(dir, names[i]);
		struct stat st;
		bool ok = lstat(p, &st) == 0;
		if (ok && S_ISLNK(st.st_mode)) {
			ok = inside(root_real, p) && stat(p, &st) == 0 && !S_ISDIR(st.st_mode);
		}
		if (ok && S_ISDIR(st.st_mode)) {
			walk_dir(p, root_real, out, depth + 1, err, rc);
		} else if (ok && S_ISREG(st.st_mode) && has_py_suffix(names[i]) && st.st_size > 0) {
			/* An empty file met in a folder is a package's __init__.py:
			 * no kernel, nothing to say. Named on the command line, it
			 * is still an error. */
			*TA_PUSH(out->paths, out->count, out->cap) = p;
			p = NULL;
		}
		free(p);
		free(names[i]);
	}
	free(names);
}

static void collect(char *const *paths, int count, file_list *out, FILE *err, ta_exit *rc)
{
	for (int i = 0; i < count; i++) {
		if (ta_path_is_dir(paths[i])) {
			char *real = realpath(paths[i], NULL);
			walk_dir(paths[i], real ? real : paths[i], out, 0, err, rc);
			free(real);
		} else {
			*TA_PUSH(out->paths, out->count, out->cap) = ta_xstrdup(paths[i]);
		}
	}
}

/* ---- suppression comments ----------------------------------------------------- */

typedef struct suppression {
	uint32_t line, col;
	char **ids;
	size_t id_count;
} suppression;

static void parse_suppressions(const ta_source *src, suppression **out, size_t *n)
{
	static const char mark[] = "tileadvise:";
	for (size_t l = 1; l <= src->line_count; l++) {
		size_t len;
		const char *s = ta_source_line(src, l, &len);
		const char *hash = memchr(s, '#', len);
		if (!hash)
			continue;
		const char *end = s + len;
		const char *p = hash + 1;
		while (p < end && *p == ' ')
			p++;
		if ((size_t)(end - p) < sizeof mark - 1 || memcmp(p, mark, sizeof mark - 1))
			continue;
		p += sizeof mark - 1;
		while (p < end && *p == ' ')
			p++;
		if ((size_t)(end - p) < 7 || memcmp(p, "ignore[", 7))
			continue;
		p += 7;
		const char *close = memchr(p, ']', (size_t)(end - p));
		if (!close)
			continue;
		suppression *sp = TA_APPEND(*out, *n);
		sp->line = (uint32_t)l;
		sp->col = (uint32_t)ta_source_column_of(src, (size_t)(hash - src->text));
		while (p < close) {
			const char *comma = memchr(p, ',', (size_t)(close - p));
			const char *q = comma ? comma : close;
			const char *a = p, *b = q;
			while (a < b && *a == ' ')
				a++;
			while (b > a && b[-1] == ' ')
				b--;
			if (b > a)
				*TA_APPEND(sp->ids, sp->id_count) = ta_xstrndup(a, (size_t)(b - a));
			p = q + (comma ? 1 : 0);
		}
	}
}

static bool suppressed_at(const suppression *s, size_t n, uint32_t line, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].line == line)
			for (size_t j = 0; j < s[i].id_count; j++)
				if (!strcasecmp(s[i].ids[j], id))
					return true;
	return false;
}

/* ---- diagnostics --------------------------------------------------------------- */

static bool wanted(const filter *f, const char *id)
{
	if (!strcmp(id, TA_CHECK_SUPPRESSION_ID))
		return !f->ignore_x0 && (!f->select || f->select_x0);
	int e = ta_rules_index(id);
	if (e < 0)
		return false;
	if (f->select && !f->select[e])
		return false;
	return !f->ignore[e];
}

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

static diag *add_diag(diags *d, const char *file, uint32_t line, uint32_t col, uint32_t end_line,
		      bool error, const char *id, const char *message, const char *kernel)
{
	for (size_t i = d->count; i-- > 0 && d->items[i].file == file;) {
		const diag *o = &d->items[i];
		if (o->file == file && o->line == line && o->col == col && !strcmp(o->id, id) &&
		    !strcmp(o->message, message))
			return NULL;   /* one host line found for two kernels */
	}
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
		ta_edit_clear(&e);
	} else {
		x->fix = -1;
		x->fix_why = why ? one_line(why) : ta_xstrdup("its preconditions do not hold");
		free(why);
	}
}

static void check_file(const char *path, const filter *f, bool fixes, diags *d, FILE *err, ta_exit *rc)
{
	ta_analysis *a;
	char *msg;
	if (ta_analysis_open(path, &a, &msg) != 0) {
		fprintf(err, "tileadvise: %s\n", msg);
		free(msg);
		*rc = TA_EXIT_ERROR;
		return;
	}
	for (size_t i = 0; i < a->syn->error_count; i++) {
		const ta_syntax_error *e = &a->syn->errors[i];
		char *m = ta_xasprintf("syntax error: %s", e->what ? e->what : "cannot parse");
		add_diag(d, path, (uint32_t)e->line, (uint32_t)e->column, (uint32_t)e->end_line, true, "", m, NULL);
		free(m);
	}
	suppression *sup = NULL;
	size_t nsup = 0;
	parse_suppressions(a->src, &sup, &nsup);
	for (size_t i = 0; i < nsup; i++)
		for (size_t j = 0; j < sup[i].id_count; j++)
			if (ta_rules_index(sup[i].ids[j]) < 0 && strcasecmp(sup[i].ids[j], TA_CHECK_SUPPRESSION_ID) &&
			    wanted(f, TA_CHECK_SUPPRESSION_ID)) {
				char *m = ta_xasprintf("unknown checklist id '%s' in a suppression comment", sup[i].ids[j]);
				add_diag(d, path, sup[i].line, sup[i].col, sup[i].line, false, TA_CHECK_SUPPRESSION_ID, m, NULL);
				free(m);
			}
	ta_rules_result *r = ta_rules_run(a->model, NULL);
	for (size_t i = 0; i < r->finding_count; i++) {
		const ta_finding *fd = &r->findings[i];
		int e = ta_rules_index(fd->id);
		if (ta_rules_status(r, fd->kernel, (size_t)e) != TA_STATUS_APPLIES || !wanted(f, fd->id))
			continue;
		const ta_kernel *k = &a->model->kernels[fd->kernel];
		if (suppressed_at(sup, nsup, fd->span.line, fd->id) || suppressed_at(sup, nsup, k->def_line, fd->id))
			continue;
		diag *x = add_diag(d, path, fd->span.line, fd->span.col, fd->span.end_line, false, fd->id,
				   fd->reason, k->name);
		if (fixes)
			note_fix(x, a->model, fd);
	}
	ta_rules_result_free(r);
	for (size_t i = 0; i < nsup; i++) {
		for (size_t j = 0; j < sup[i].id_count; j++)
			free(sup[i].ids[j]);
		free(sup[i].ids);
	}
	free(sup);
	ta_analysis_free(a);
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

/* One line per finding: entries that share a detector (S3 and G4, P1 and
 * S4/G2...) report the same place and reason, so their ids are joined. */
static void write_text(const diags *d, FILE *out)
{
	bool *done = ta_xcalloc(d->count + 1, sizeof *done);
	size_t *group = ta_xcalloc(d->count + 1, sizeof *group);
	for (size_t i = 0; i < d->count; i++) {
		const diag *x = &d->items[i];
		if (done[i])
			continue;
		if (x->error) {
			fprintf(out, "%s:%u:%u: error: %s\n", x->file, x->line, x->col, x->message);
			continue;
		}
		size_t bl = base_len(x->message), n = 0, server = i;
		for (size_t j = i; j < d->count; j++) {
			const diag *y = &d->items[j];
			if (y->line != x->line || y->col != x->col || strcmp(y->file, x->file))
				break;
			if (done[j] || y->error || base_len(y->message) != bl ||
			    strncmp(y->message, x->message, bl))
				continue;
			done[j] = true;
			group[n++] = j;
			if (strlen(y->message) == bl)
				server = j;   /* the entry whose detector it is */
		}
		ta_buf ids = TA_BUF_INIT;
		ta_buf_puts(&ids, d->items[server].id);
		for (size_t k = 0; k < n; k++)
			if (group[k] != server)
				ta_buf_printf(&ids, ", %s", d->items[group[k]].id);
		fprintf(out, "%s:%u:%u: %s: %.*s [%s]\n", x->file, x->line, x->col, severity(x),
			(int)bl, x->message, ta_buf_str(&ids));
		/* An entry the tool writes whose rewrite cannot change this site:
		 * say why here, as --diff and --apply will. */
		const diag *sv = &d->items[server];
		if (sv->fix < 0)
			fprintf(out, "%s:%u:%u: note: no mechanical %s edit here: %s [%s]\n", x->file, x->line,
				x->col, sv->id, sv->fix_why, sv->id);
		ta_buf_free(&ids);
	}
	free(group);
	free(done);
}

static void json_str(ta_buf *b, const char *s)
{
	ta_buf_putc(b, '"');
	if (s)
		ta_buf_json_escaped(b, s, strlen(s));
	ta_buf_putc(b, '"');
}

static void write_json(const diags *d, FILE *out)
{
	ta_buf b = TA_BUF_INIT;
	ta_buf_printf(&b, "{\"tool\": \"tileadvise\", \"version\": \"%s\", \"diagnostics\": [", PACKAGE_VERSION);
	for (size_t i = 0; i < d->count; i++) {
		const diag *x = &d->items[i];
		ta_buf_puts(&b, i ? ",\n  {" : "\n  {");
		ta_buf_puts(&b, "\"file\": ");
		json_str(&b, x->file);
		ta_buf_printf(&b, ", \"line\": %u, \"column\": %u, \"end_line\": %u, \"severity\": \"%s\", \"id\": ",
			      x->line, x->col, x->end_line, severity(x));
		if (x->error)
			ta_buf_puts(&b, "null");
		else
			json_str(&b, x->id);
		ta_buf_puts(&b, ", \"kernel\": ");
		if (x->kernel)
			json_str(&b, x->kernel);
		else
			ta_buf_puts(&b, "null");
		ta_buf_puts(&b, ", \"message\": ");
		json_str(&b, x->message);
		/* Entries the tool writes: whether --apply=ID:LINE makes the edit. */
		if (x->fix > 0) {
			ta_buf_puts(&b, ", \"fix\": {\"available\": true}");
		} else if (x->fix < 0) {
			ta_buf_puts(&b, ", \"fix\": {\"available\": false, \"reason\": ");
			json_str(&b, x->fix_why);
			ta_buf_putc(&b, '}');
		}
		ta_buf_putc(&b, '}');
	}
	ta_buf_puts(&b, d->count ? "\n]}\n" : "]}\n");
	fputs(ta_buf_str(&b), out);
	ta_buf_free(&b);
}

/* A relative path as a URI reference: unreserved characters and '/' kept. */
static void uri(ta_buf *b, const char *path)
{
	if (path[0] == '.' && path[1] == '/')
		path += 2;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p))
			ta_buf_putc(b, (char)*p);
		else
			ta_buf_printf(b, "%%%02X", *p);
	}
}

static void write_sarif(const diags *d, FILE *out)
{
	ta_buf b = TA_BUF_INIT;
	ta_buf_puts(&b, "{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n"
		    "  \"version\": \"2.1.0\",\n  \"runs\": [{\n    \"tool\": {\"driver\": {\"name\": \"tileadvise\", ");
	ta_buf_printf(&b, "\"version\": \"%s\", \"semanticVersion\": \"%s\", \"rules\": [", PACKAGE_VERSION, PACKAGE_VERSION);
	size_t n = ta_rules_count();
	/* Rule titles come from the catalog; without it, a pointer to --explain. */
	char *cat_err = NULL;
	ta_catalog *cat = ta_catalog_load(NULL, &cat_err);
	free(cat_err);
	for (size_t e = 0; e <= n; e++) {
		const char *id = e < n ? ta_rules_id(e) : TA_CHECK_SUPPRESSION_ID;
		const ta_entry *entry = e < n && cat ? ta_catalog_find(cat, id) : NULL;
		char *desc = entry ? ta_xasprintf("%s (tileadvise --explain %s)", entry->title, id) :
			     e < n ? ta_xasprintf("tileadvise checklist entry %s (section %s); see tileadvise --explain %s",
						  id, ta_rules_section(e), id)
				   : ta_xstrdup("unknown checklist id in a tileadvise suppression comment");
		ta_buf_printf(&b, "%s\n      {\"id\": \"%s\", \"shortDescription\": {\"text\": ", e ? "," : "", id);
		json_str(&b, desc);
		if (entry) {
			ta_buf_puts(&b, "}, \"fullDescription\": {\"text\": ");
			json_str(&b, entry->summary);
		}
		ta_buf_printf(&b, "}, \"defaultConfiguration\": {\"level\": \"%s\"}}",
			      id[0] == 'T' ? "note" : "warning");
		free(desc);
	}
	ta_catalog_free(cat);
	ta_buf_puts(&b, "]}},\n    \"results\": [");
	bool first = true;
	for (size_t i = 0; i < d->count; i++) {
		const diag *x = &d->items[i];
		int e = x->error ? -1 : ta_rules_index(x->id);
		if (x->error)
			continue;   /* syntax errors go to invocation notifications below */
		ta_buf_puts(&b, first ? "\n      {" : ",\n      {");
		first = false;
		ta_buf_printf(&b, "\"ruleId\": \"%s\", \"ruleIndex\": %d, \"level\": \"%s\", \"message\": {\"text\": ",
			      x->id, e >= 0 ? e : (int)n, severity(x));
		json_str(&b, x->message);
		ta_buf_puts(&b, "}, \"locations\": [{\"physicalLocation\": {\"artifactLocation\": {\"uri\": \"");
		uri(&b, x->file);
		ta_buf_printf(&b, "\"}, \"region\": {\"startLine\": %u, \"startColumn\": %u, \"endLine\": %u}}}]}",
			      x->line, x->col, x->end_line);
	}
	ta_buf_puts(&b, first ? "],\n" : "\n    ],\n");
	ta_buf_puts(&b, "    \"invocations\": [{\"executionSuccessful\": true, \"toolExecutionNotifications\": [");
	first = true;
	for (size_t i = 0; i < d->count; i++) {
		const diag *x = &d->items[i];
		if (!x->error)
			continue;
		ta_buf_puts(&b, first ? "\n      {" : ",\n      {");
		first = false;
		ta_buf_puts(&b, "\"level\": \"error\", \"message\": {\"text\": ");
		json_str(&b, x->message);
		ta_buf_puts(&b, "}, \"locations\": [{\"physicalLocation\": {\"artifactLocation\": {\"uri\": \"");
		uri(&b, x->file);
		ta_buf_printf(&b, "\"}, \"region\": {\"startLine\": %u, \"startColumn\": %u}}}]}", x->line, x->col);
	}
	ta_buf_puts(&b, first ? "]}]\n  }]\n}\n" : "\n    ]}]\n  }]\n}\n");
	fputs(ta_buf_str(&b), out);
	ta_buf_free(&b);
}

/* ---- the front end -------------------------------------------------------------- */

/* Parses an id list where X0 is allowed too. */
static int parse_list(const char *list, bool *on, bool *x0, FILE *err)
{
	ta_buf rest = TA_BUF_INIT;
	const char *p = list;
	while (*p) {
		size_t len = strcspn(p, ",");
		char *id = ta_xstrndup(p, len);
		if (!strcasecmp(id, TA_CHECK_SUPPRESSION_ID))
			*x0 = true;
		else
			ta_buf_printf(&rest, "%s%s", rest.len ? "," : "", id);
		free(id);
		p += len;
		if (*p == ',')
			p++;
	}
	char *e = NULL;
	int rc = ta_rules_parse_ids(ta_buf_str(&rest), on, &e);
	if (rc != 0) {
		fprintf(err, "tileadvise: %s\n", e);
		free(e);
	}
	ta_buf_free(&rest);
	return rc;
}

ta_exit ta_check_run(char *const *paths, int count, const ta_check_options *o, FILE *out, FILE *err)
{
	size_t n = ta_rules_count();
	filter f = { .ignore = ta_xcalloc(n, sizeof(bool)) };
	ta_exit rc = TA_EXIT_OK;
	if (o->select) {
		f.select = ta_xcalloc(n, sizeof(bool));
		if (parse_list(o->select, f.select, &f.select_x0, err) != 0)
			rc = TA_EXIT_ERROR;
	}
	if (o->ignore && parse_list(o->ignore, f.ignore, &f.ignore_x0, err) != 0)
		rc = TA_EXIT_ERROR;
	if (rc != TA_EXIT_OK) {
		free(f.select);
		free(f.ignore);
		return rc;
	}
	file_list files = { 0 };
	collect(paths, count, &files, err, &rc);
	diags d = { 0 };
	for (size_t i = 0; i < files.count; i++)
		check_file(files.paths[i], &f, o->fixes, &d, err, &rc);
	if (d.count)
		qsort(d.items, d.count, sizeof *d.items, cmp_diag);
	if (o->format == TA_FORMAT_JSON)
		write_json(&d, out);
	else if (o->format == TA_FORMAT_SARIF)
		write_sarif(&d, out);
	else
		write_text(&d, out);
	for (size_t i = 0; i < d.count && rc == 0; i++)
		if (!is_note(&d.items[i]))
			rc = TA_EXIT_FINDINGS;
	for (size_t i = 0; i < d.count; i++) {
		free(d.items[i].message);
		free(d.items[i].kernel);
		free(d.items[i].fix_why);
	}
	free(d.items);
	for (size_t i = 0; i < files.count; i++)
		free(files.paths[i]);
	free(files.paths);
	free(f.select);
	free(f.ignore);
	return rc;
}
