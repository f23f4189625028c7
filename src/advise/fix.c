/* `--fix`: every edit --apply would make in a file (see fix.h). */
#include "config.h"
#include "advise/fix.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "advise/edit.h"
#include "advise/findings.h"
#include "advise/journal.h"
#include "analyze/analysis.h"
#include "analyze/diff.h"
#include "analyze/source.h"
#include "checklist/entry.h"
#include "checklist/rewrite.h"
#include "checklist/rules.h"
#include "util/buf.h"
#include "util/fsutil.h"
#include "util/text.h"

/* A place --apply=ID:LINE names: a finding's, or one of S1's sites. */
typedef struct site {
	int entry;                /* index in the checklist's order */
	uint32_t line;
	char id[8];
} site;

static int cmp_site(const void *pa, const void *pb)
{
	const site *a = pa, *b = pb;
	if (a->entry != b->entry)
		return a->entry < b->entry ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

/* The sites of the findings whose entry the tool writes an edit for, in
 * the checklist's order, then by line. */
static site *sites_of(const ta_diag *d, size_t n, size_t *count)
{
	size_t cap = n, k = 0;
	for (size_t i = 0; i < n; i++)
		cap += d[i].site_count;
	site *v = ta_xcalloc(cap + 1, sizeof *v);
	for (size_t i = 0; i < n; i++) {
		const ta_rewrite *rw = d[i].error ? NULL : ta_rewrite_find(d[i].id);
		if (!rw || rw->demoted)
			continue;
		int e = ta_entry_index_of(d[i].id);
		for (size_t s = 0; s < (d[i].site_count ? d[i].site_count : 1); s++) {
			v[k] = (site){ .entry = e, .line = d[i].site_count ? d[i].sites[s].line : d[i].line };
			snprintf(v[k].id, sizeof v[k].id, "%s", d[i].id);
			k++;
		}
	}
	qsort(v, k, sizeof *v, cmp_site);
	*count = k;
	return v;
}

/* An edit by what it does, not where: its id, and each replacement's old
 * bytes and new text (line numbers move as earlier edits land). */
static uint64_t edit_key(const ta_edit *e, const ta_source *src)
{
	ta_buf b = TA_BUF_INIT;
	ta_buf_append(&b, e->id, strlen(e->id) + 1);
	for (size_t i = 0; i < e->repl_count; i++) {
		const ta_repl *r = &e->repls[i];
		ta_buf_append(&b, src->text + r->start, r->end - r->start);
		ta_buf_append(&b, "\0", 1);
		if (r->text)
			ta_buf_append(&b, r->text, strlen(r->text) + 1);
	}
	uint64_t h = ta_hash_bytes(b.len ? ta_buf_str(&b) : "", b.len);
	ta_buf_free(&b);
	return h;
}

static bool has_key(const uint64_t *v, size_t n, uint64_t k)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == k)
			return true;
	return false;
}

/* One pass's state over the file. */
typedef struct fixer {
	const char *path;
	const ta_fix_options *o;
	FILE *err;
	char *bytes;              /* the file as it stands (dry run: in memory) */
	size_t len;
	uint64_t *refused;        /* edits checked and refused (edit_key) */
	size_t n_refused;
	uint64_t *seen;           /* hashes of the texts the file has had */
	size_t n_seen;
	ta_buf made;
	size_t made_count;
} fixer;

/* quiet: the first read, whose failure the check after --fix reports */
static int read_bytes(fixer *f, bool quiet)
{
	char *why = NULL;
	free(f->bytes);
	f->bytes = NULL;
	if (ta_read_file(f->path, TA_SOURCE_MAX_BYTES + 3, &f->bytes, &f->len, &why) != 0) {
		if (!quiet)
			fprintf(f->err, "tileadvise: %s: %s\n", ta_text_name(f->path), why);
		free(why);
		return -1;
	}
	return 0;
}

/* The sites --check reports in the file as analysed, or -1 when it has
 * syntax errors. */
static int current_sites(fixer *f, const ta_analysis *a, site **sites, size_t *n)
{
	ta_findings *fd = ta_findings_new(f->o->select, f->o->ignore, f->o->extend, f->o->preview, false, f->err);
	if (!fd)
		return -1;
	ta_findings_check_analysis(fd, f->path, a);
	size_t nd;
	const ta_diag *d = ta_findings_sorted(fd, &nd);
	int rc = 0;
	for (size_t i = 0; i < nd && !rc; i++)
		if (d[i].error) {
			fprintf(f->err, "tileadvise: %s:%u:%u: not fixed: %s (fix it first)\n", ta_text_name(f->path),
				d[i].line, d[i].col, d[i].message);
			rc = -1;
		}
	if (!rc)
		*sites = sites_of(d, nd, n);
	ta_findings_free(fd);
	return rc;
}

/* Makes e: in memory for a dry run, else on disk (journaled). Returns 0,
 * or -1 with *msg. */
static int make_edit(fixer *f, const ta_analysis *a, const ta_edit *e, char **msg)
{
	if (f->o->dry_run) {
		char *nb;
		size_t nl;
		if (ta_edit_checked_bytes(a->src, a->syn, e, f->bytes, f->len, &nb, &nl, msg) != 0)
			return -1;
		free(f->bytes);
		f->bytes = nb;
		f->len = nl;
		return 0;
	}
	if (ta_edit_apply(a->src, a->syn, e, msg) != 0)
		return -1;
	free(*msg);
	*msg = NULL;
	return read_bytes(f, false);
}

/* One edit: the first site whose edit can be made. 1 made, 0 none left,
 * -1 failed. */
static int fix_one(fixer *f, ta_fix_outcome *out)
{
	site *sites = NULL;
	size_t n = 0;
	ta_analysis *a = NULL;
	char *msg = NULL;
	if (ta_analysis_from_bytes(f->path, f->bytes, f->len, &a, &msg) != 0) {
		fprintf(f->err, "tileadvise: %s\n", ta_text_name(msg));
		free(msg);
		return -1;
	}
	if (current_sites(f, a, &sites, &n) != 0) {
		ta_analysis_free(a);
		return -1;
	}
	ta_rules_result *r = n ? ta_rules_run(a->model, NULL) : NULL;
	int made = 0;
	size_t unsafe = 0;
	uint64_t *unsafe_keys = ta_xcalloc(n + 1, sizeof *unsafe_keys);
	for (size_t i = 0; i < n && !made; i++) {
		ta_edit e;
		const ta_finding *at = NULL;
		char *why = NULL;
		if (ta_rewrite_first(a->model, r, sites[i].id, sites[i].line, true, &e, &at, &why) != 0) {
			free(why);
			continue;
		}
		uint64_t key = edit_key(&e, a->src);
		if (e.unsafe && !f->o->unsafe_fixes) {
			/* entries that share a detector make one edit: count it once */
			if (!has_key(unsafe_keys, unsafe, key))
				unsafe_keys[unsafe++] = key;
		} else if (!has_key(f->refused, f->n_refused, key)) {
			if (make_edit(f, a, &e, &msg) == 0) {
				ta_buf_printf(&f->made, "%s%s at line %u", f->made_count++ ? ", " : "", e.id, e.line);
				made = 1;
			} else {
				/* refused here, so at every later pass too */
				fprintf(f->err, "tileadvise: %s\n", ta_text_name(msg));
				f->refused = ta_xrealloc(f->refused, (f->n_refused + 1) * sizeof *f->refused);
				f->refused[f->n_refused++] = key;
			}
			free(msg);
			msg = NULL;
		}
		ta_edit_clear(&e);
	}
	if (!made)
		out->unsafe_left = unsafe;
	free(unsafe_keys);
	ta_rules_result_free(r);
	ta_analysis_free(a);
	free(sites);
	return made;
}

int ta_fix_file(const char *path, const ta_fix_options *o, ta_fix_outcome *out, FILE *err)
{
	memset(out, 0, sizeof *out);
	fixer f = { .path = path, .o = o, .err = err, .made = TA_BUF_INIT };
	ta_journal_lock *lock = NULL;
	if (read_bytes(&f, true) != 0)
		return -1;
	if (!o->dry_run) {
		/* one writer from the first read to the last edit */
		char *real = NULL, *msg = NULL;
		struct stat st;
		if (ta_edit_target(path, &real, &st, &msg) == 0)
			lock = ta_journal_lock_take(real, true, &msg);
		free(real);
		if (!lock) {
			fprintf(err, "tileadvise: %s\n", ta_text_name(msg));
			free(msg);
			free(f.bytes);
			return -1;
		}
	}
	int rc = 0;
	size_t orig_len = f.len;
	char *orig = ta_xcalloc(f.len + 1, 1);
	memcpy(orig, f.bytes, f.len);
	while (rc == 0) {
		uint64_t h = ta_hash_bytes(f.bytes, f.len);
		if (has_key(f.seen, f.n_seen, h)) {
			fprintf(err, "tileadvise: %s: stopped: the last edits brought back an earlier text\n",
				ta_text_name(path));
			break;
		}
		if (out->applied >= TA_FIX_MAX_EDITS) {
			fprintf(err, "tileadvise: %s: stopped after %d edits\n", ta_text_name(path), TA_FIX_MAX_EDITS);
			break;
		}
		f.seen = ta_xrealloc(f.seen, (f.n_seen + 1) * sizeof *f.seen);
		f.seen[f.n_seen++] = h;
		int made = fix_one(&f, out);
		if (made < 0)
			rc = -1;
		if (made <= 0)
			break;
		out->applied++;
	}
	if (o->dry_run)
		out->diff = ta_edit_diff_texts(path, orig, orig_len, f.bytes ? f.bytes : "", f.bytes ? f.len : 0);
	out->made = f.made_count ? ta_buf_steal(&f.made) : NULL;
	ta_buf_free(&f.made);
	free(orig);
	free(f.bytes);
	free(f.refused);
	free(f.seen);
	ta_journal_unlock(lock);
	return rc;
}

void ta_fix_outcome_clear(ta_fix_outcome *out)
{
	free(out->diff);
	free(out->made);
	memset(out, 0, sizeof *out);
}
