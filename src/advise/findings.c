/* The findings --check reports, file by file (see findings.h). */
#include "config.h"
#include "advise/findings.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "analyze/analysis.h"
#include "analyze/source.h"
#include "analyze/split.h"
#include "checklist/filter.h"
#include "checklist/rewrite.h"
#include "checklist/rules.h"
#include "util/buf.h"
#include "util/text.h"
#include "util/fsutil.h"

struct ta_findings {
	ta_filter *filter;
	bool fixes;
	const char *stdin_name;   /* "-" is reported under this name (NULL: "-") */
	ta_diag *items;
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
	bool sorted;
};

typedef struct ta_findings diags;
typedef ta_diag diag;

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
	x->note = false;
	snprintf(x->id, sizeof x->id, "%s", id);
	x->message = one_line(message);
	x->kernel = kernel ? ta_xstrdup(kernel) : NULL;
	x->fix = 0;
	x->fix_why = NULL;
	x->fix_unsafe = NULL;
	x->sites = NULL;
	x->site_count = 0;
	x->fix_where = NULL;
	x->end_col = 0;
	x->edits = NULL;
	x->edit_count = 0;
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

/* The replacements of edit e as lines and columns of src (caller frees
 * with free_edits). */
static ta_diag_edit *edits_of(const ta_source *src, const ta_edit *e, size_t *n)
{
	ta_diag_edit *v = ta_xcalloc(e->repl_count + 1, sizeof *v);
	for (size_t i = 0; i < e->repl_count; i++) {
		const ta_repl *r = &e->repls[i];
		v[i] = (ta_diag_edit){ .line = (uint32_t)ta_source_line_of(src, r->start),
				       .col = (uint32_t)ta_source_column_of(src, r->start),
				       .end_line = (uint32_t)ta_source_line_of(src, r->end),
				       .end_col = (uint32_t)ta_source_column_of(src, r->end),
				       .content = ta_xstrdup(r->text ? r->text : "") };
	}
	*n = e->repl_count;
	return v;
}

static void free_edits(ta_diag_edit *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].content);
	free(v);
}

/* What the rewrite of f makes at its site, the same rewrite --diff and
 * --apply make there: *fix 1 with the edit's assumption (NULL: safe) and
 * its replacements, or -1 with why not. */
static void site_fix(const ta_model *m, const ta_finding *f, int *fix, char **unsafe, char **why,
		     ta_diag_edit **edits, size_t *edit_count)
{
	ta_edit e;
	char *w = NULL;
	if (ta_rewrite_at(m, f, &e, &w) == 0) {
		*fix = 1;
		*unsafe = e.unsafe ? one_line(e.unsafe) : NULL;
		*edits = edits_of(m->src, &e, edit_count);
		ta_edit_clear(&e);
	} else {
		*fix = -1;
		*why = one_line(w ? w : "its preconditions do not hold");
	}
	free(w);
}

/* Whether the edit of a finding the tool writes can be made at its site. */
static void note_fix(diag *x, const ta_model *m, const ta_finding *f)
{
	const ta_rewrite *rw = ta_rewrite_find(f->id);
	if (!x || !rw || rw->demoted)
		return;
	site_fix(m, f, &x->fix, &x->fix_unsafe, &x->fix_why, &x->edits, &x->edit_count);
}

/* "-": the file on standard input, read whole. Reading stops one chunk
 * past the size limit of a file, which loading then refuses. */
static int open_stdin(const char *name, ta_source **src, char **msg)
{
	ta_buf b = TA_BUF_INIT;
	char chunk[65536];
	size_t n;
	while (b.len <= TA_SOURCE_MAX_BYTES && (n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
		ta_buf_append(&b, chunk, n);
	int rc = ferror(stdin) ? -1 : 0;
	if (rc)
		*msg = ta_xasprintf("%s: cannot read standard input", name);
	else
		rc = ta_source_from_bytes(name, b.len ? ta_buf_str(&b) : "", b.len, src, msg);
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
		for (size_t k = 0; k < d->items[i].site_count; k++) {
			free(d->items[i].sites[k].why);
			free(d->items[i].sites[k].unsafe);
			free_edits(d->items[i].sites[k].edits, d->items[i].sites[k].edit_count);
		}
		free_edits(d->items[i].edits, d->items[i].edit_count);
		free(d->items[i].sites);
		free(d->items[i].fix_where);
	}
	d->count = from;
}

size_t ta_diag_base_len(const char *message)
{
	return ta_reason_base_len(message);
}

/* ---- S1 once per kernel ------------------------------------------------------- */

/* A raw tile S1 calls plain (not a gather, nor an interleaved tile: those
 * are guided edits of their own and stay findings of their own). */
static bool s1_plain(const ta_finding *f)
{
	return !strcmp(f->id, "S1") && !(f->tags & TA_TAG_GUIDED);
}

/* "12, 30 and 41" (caller frees). */
static char *line_list(const uint32_t *v, size_t n)
{
	ta_buf b = TA_BUF_INIT;
	for (size_t i = 0; i < n; i++)
		ta_buf_printf(&b, "%s%u", i == 0 ? "" : i + 1 == n ? " and " : ", ", v[i]);
	return ta_buf_steal(&b);
}

/* The sites whose tiles have contiguous rows and strided columns, from the
 * parts the detector keeps ("col_stride", "col_why"): " (at lines 12 and
 * 30 the columns step by `S` and the rows are contiguous: ...)", or ""
 * (caller frees). */
static char *s1_columns_strided(const ta_finding *const *fs, size_t n)
{
	uint32_t lines[8];
	size_t nl = 0;
	const char *stride = NULL, *why = NULL;
	bool same = true;
	for (size_t i = 0; i < n; i++) {
		const char *s = ta_finding_part_of(fs[i], "col_stride");
		if (!s)
			continue;
		if (!stride) {
			stride = s;
			why = ta_finding_part_of(fs[i], "col_why");
		} else {
			same &= !strcmp(stride, s);
		}
		if (nl < 8 && (nl == 0 || lines[nl - 1] != fs[i]->span.line))
			lines[nl++] = fs[i]->span.line;
	}
	if (!stride)
		return ta_xstrdup("");
	char *at = line_list(lines, nl);
	char *out = ta_xasprintf(" (at line%s %s the columns step by %s%s%s and the rows are contiguous%s%s)",
				 nl > 1 ? "s" : "", at, same ? "`" : "", same ? stride : "",
				 same ? "`" : "their strides", why ? ": " : "", why ? why : "");
	free(at);
	return out;
}

/* What makes two S1 sites one tile: the name the load binds (none for a
 * store), load or store, and the pointer expression (`k_ptrs + start_n *
 * stride_kt` loaded masked in one arm of an if and unmasked in the other)
 * and, for a store, the loop it is made in. Another expression, another
 * tensor under the same name, or a store in another loop is another tile;
 * a site whose reason names no pointer is a tile of its own. */
static char *s1_site_key(const ta_finding *f, size_t i)
{
	const char *r = f->reason;
	const char *e = r[0] == '`' ? strchr(r + 1, '`') : NULL;
	const char *p = strstr(r, "pointer `"), *pe = p ? strchr(p + 9, '`') : NULL;
	if (!pe)
		return ta_xasprintf("\002%zu", i);
	/* stores through one pointer in two loops: two tiles */
	const char *loop = ta_finding_part_of(f, "store_loop");
	return ta_xasprintf("%.*s\001%c\001%.*s\001%s", e ? (int)(e - r) : 0, r, strstr(r, " stored ") ? 's' : 'l',
			    (int)(pe - (p + 9)), p + 9, loop ? loop : "");
}

typedef struct s1_key {
	char *key;
	size_t i;
} s1_key;

/* By key, then by site: a group's first member opens it. */
static int cmp_s1_key(const void *x, const void *y)
{
	const s1_key *a = x, *b = y;
	int c = strcmp(a->key, b->key);
	return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* The name of a @jit helper k calls that moves plain raw 2D tiles itself,
 * or NULL. */
static const char *s1_raw_helper(const ta_model *m, const ta_kernel *k)
{
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *call = &k->ops[i];
		if (call->kind != TA_OP_HELPER_CALL || call->helper < 0 || (size_t)call->helper >= m->kernel_count ||
		    &m->kernels[call->helper] == k)
			continue;
		const ta_kernel *h = &m->kernels[call->helper];
		for (size_t j = 0; j < h->op_count; j++)
			if ((h->ops[j].kind == TA_OP_LOAD || h->ops[j].kind == TA_OP_STORE) &&
			    h->ops[j].ptr_shape == TA_PTR_2D && !h->ops[j].gather)
				return h->name;
	}
	return NULL;
}

/* One diagnostic for the n (>= 2) plain raw tiles fs of one kernel: the
 * first one's place, every site listed ("`q` at line 12"), with fixes
 * which sites --apply rewrites. apart[0]: the kernel's other S1 sites
 * (interleaved or gathered tiles), each reported on its own line, that
 * are warnings; apart[1]: all of them, notes too. */
static void add_s1_kernel(diags *d, const char *path, const ta_model *m, const ta_finding *const *fs, size_t n,
			  const size_t apart[2])
{
	const ta_kernel *k = &m->kernels[fs[0]->kernel];
	size_t loads = 0, stores = 0;
	bool all_2d = true;
	/* A tile is counted once however many loads fill it: `k` loaded
	 * through one pointer, masked in one arm of an if and unmasked in the
	 * other, is one tile, named with all its lines. Sites are grouped by
	 * (name, load or store, pointer text, the loop a store is made in),
	 * sorted: n log n for a kernel of
	 * thousands of loads. first[i]: the site that opens i's group. */
	size_t *first = ta_xmalloc(n * sizeof *first), groups = 0;
	s1_key *keys = ta_xmalloc(n * sizeof *keys);
	for (size_t i = 0; i < n; i++) {
		const char *r = fs[i]->reason;
		/* the site's own access, not the accesses its reason names as
		 * left out */
		const char *raw2d = strstr(r, " raw 2D "), *lo = strstr(r, " (left out: ");
		all_2d &= raw2d && (!lo || raw2d < lo);
		keys[i].key = s1_site_key(fs[i], i);
		keys[i].i = i;
	}
	qsort(keys, n, sizeof *keys, cmp_s1_key);
	for (size_t a = 0; a < n;) {
		size_t b = a;
		while (b < n && !strcmp(keys[b].key, keys[a].key))
			first[keys[b++].i] = keys[a].i;
		groups++;
		strstr(fs[keys[a].i]->reason, " stored ") ? stores++ : loads++;
		a = b;
	}
	for (size_t i = 0; i < n; i++)
		free(keys[i].key);
	free(keys);
	ta_buf sites = TA_BUF_INIT;
	size_t shown = 0;
	for (size_t i = 0; i < n; i++) {
		if (first[i] != i)
			continue;
		if (shown == 6) {
			ta_buf_printf(&sites, " and %zu more", groups - shown);
			break;
		}
		const char *r = fs[i]->reason;
		ta_buf_puts(&sites, shown == 0 ? "" : shown + 1 == groups ? " and " : ", ");
		shown++;
		const char *e = r[0] == '`' ? strchr(r + 1, '`') : NULL;
		/* a site with no name: its pointer, when short, tells it apart */
		const char *pp = e ? NULL : strstr(r, "pointer `"), *pe = pp ? strchr(pp + 9, '`') : NULL;
		bool st = strstr(r, " stored ") != NULL;
		if (e)
			ta_buf_printf(&sites, "%.*s", (int)(e - r + 1), r);
		else if (pe && pe - (pp + 9) <= 32)
			ta_buf_printf(&sites, "%s `%.*s`", st ? "a store to" : "a load of", (int)(pe - (pp + 9)), pp + 9);
		else
			ta_buf_puts(&sites, st ? "a store" : "a load");
		size_t more = 0;
		for (size_t j = i + 1; j < n; j++)
			more += first[j] == i;
		ta_buf_printf(&sites, " at line%s %u", more ? "s" : "", fs[i]->span.line);
		for (size_t j = i + 1, left = more; j < n; j++)
			if (first[j] == i)
				ta_buf_printf(&sites, "%s%u", --left ? ", " : " and ", fs[j]->span.line);
	}
	free(first);
	const char *how = all_2d ? "raw 2D pointers" : "raw pointers";
	char *what = loads && stores ? ta_xasprintf("loads %zu tile%s and stores %zu through %s", loads,
						    loads > 1 ? "s" : "", stores, how)
		     : ta_xasprintf("%s %zu tile%s through %s", loads ? "loads" : "stores", groups,
				    groups > 1 ? "s" : "", how);
	/* each of them once per program, outside the kernel's loop: a note
	 * (the detector's reasons say where the loop is) */
	bool notes = true;
	for (size_t i = 0; i < n; i++)
		notes &= (fs[i]->tags & TA_TAG_NOTE) != 0;
	/* the detector's reasons end in ", but this tile is loaded once per
	 * program, WHERE: little to gain there" (or "once per output tile of
	 * the loop at line N, WHERE" in a persistent kernel) */
	const char *where = notes ? strstr(fs[0]->reason, " once per ") : NULL;
	bool one_place = true;
	for (size_t i = 1; i < n && where; i++) {
		const char *w = strstr(fs[i]->reason, " once per ");
		one_place &= w && !strcmp(w, where);
	}
	const char *outside = where ? strstr(where, ", ") : NULL;
	char *once = !where || !outside ? ta_xstrdup("")
		     : one_place ? ta_xasprintf(", but each is moved%s", where)
				 : ta_xasprintf(", but each is moved once per program or once per output tile%s", outside);
	/* the raw accesses the detector left out, as its reasons name them */
	const char *lo = ta_finding_part_of(fs[0], "left_out");
	char *left = ta_xstrdup(lo ? lo : "");
	char *cols = s1_columns_strided(fs, n);
	/* the tiles a helper moves for it are that helper's finding: say so,
	 * so that the count is not read as all the kernel's raw traffic */
	const char *helper = s1_raw_helper(m, k);
	char *also = helper ? ta_xasprintf("; `%s`, which it calls, moves raw 2D tiles too", helper)
			    : ta_xstrdup("");
	/* so that the count is not read as all the kernel's raw tiles: the
	 * others shown where this line is (a note's beside notes) */
	size_t others = apart[where != NULL];
	if (others) {
		char *more = ta_xasprintf("%s; %zu more, interleaved or gathered, %s reported on %s own line%s", also,
					  others, others > 1 ? "are" : "is", others > 1 ? "their" : "its",
					  others > 1 ? "s" : "");
		free(also);
		also = more;
	}
	char *msg = ta_xasprintf("`%s` %s (%s): tensor descriptor %s the fast form%s%s%s%s", k->name, what,
				 ta_buf_str(&sites), loads && stores ? "loads and stores are" : loads ? "loads are" : "stores are",
				 cols, left, once, also);
	free(also);
	free(cols);
	free(left);
	free(once);
	diag *x = add_diag(d, path, fs[0]->span.line, fs[0]->span.col, fs[0]->span.end_line, false, "S1", msg, k->name);
	if (x)
		x->note = where != NULL;
	free(msg);
	free(what);
	ta_buf_free(&sites);
	if (!x)
		return;
	if (fs[0]->span.end)
		x->end_col = (uint32_t)ta_source_column_of(m->src, fs[0]->span.end);
	x->sites = ta_xcalloc(n, sizeof *x->sites);
	x->site_count = n;
	for (size_t i = 0; i < n; i++)
		x->sites[i].line = fs[i]->span.line;
	if (!d->fixes)
		return;
	/* Which sites the rewrite makes: the same question --apply=S1:LINE asks. */
	uint32_t *ok = ta_xcalloc(n, sizeof *ok), *no = ta_xcalloc(n, sizeof *no);
	size_t nok = 0, nno = 0;
	const char *unsafe = NULL, *why = NULL;   /* the first site's */
	for (size_t i = 0; i < n; i++) {
		struct ta_diag_site *st = &x->sites[i];
		site_fix(m, fs[i], &st->fix, &st->unsafe, &st->why, &st->edits, &st->edit_count);
		if (st->fix > 0) {
			ok[nok++] = st->line;
			if (st->unsafe && !unsafe)
				unsafe = st->unsafe;
		} else {
			no[nno++] = st->line;
			if (!why)
				why = st->why;
		}
	}
	x->fix = nok ? 1 : -1;
	x->fix_unsafe = unsafe ? ta_xstrdup(unsafe) : NULL;
	x->fix_why = why ? ta_xstrdup(why) : NULL;
	char *okl = line_list(ok, nok), *nol = line_list(no, nno);
	const char *es = nok > 1 ? "s" : "";
	ta_buf note = TA_BUF_INIT;
	/* the sites' assumptions differ: the first one's, and where to read
	 * each (--diff states it) */
	bool same = true;
	for (size_t i = 0; i < n; i++)
		if (x->sites[i].unsafe)
			same &= !strcmp(x->sites[i].unsafe, unsafe);
	if (nok && unsafe)
		ta_buf_printf(&note, "unsafe S1 edit%s at line%s %s (--apply needs --unsafe-fixes): %s assumes %s%s",
			      es, es, okl, same ? "it" : "the first", unsafe + (strncmp(unsafe, "assumes ", 8) ? 0 : 8),
			      same ? "" : " (--diff=S1:LINE states each site's)");
	else if (nok)
		ta_buf_printf(&note, "safe S1 edit%s at line%s %s (--apply=S1:%u makes %s)", es, es, okl, ok[0],
			      nok > 1 ? "the first" : "it");
	if (nno)
		ta_buf_printf(&note, "%sno mechanical S1 edit at line%s %s: %s", nok ? "; " : "", nno > 1 ? "s" : "",
			      nol, why);
	x->fix_where = ta_buf_steal(&note);
	free(okl);
	free(nol);
	free(ok);
	free(no);
}

/* The findings of one model (the file's, or a part's) as diagnostics. */
static void check_model(const char *path, diags *d, const ta_model *m, ta_suppressions *sup)
{
	const ta_filter *f = d->filter;
	ta_rules_result *r = ta_rules_run(m, NULL);
	/* S1's plain raw tiles, by kernel: a kernel with several is reported
	 * once, its sites listed (issue 29: one load per finding made S1 most
	 * of what --check printed on public code). */
	const ta_finding **s1 = ta_xcalloc(r->finding_count + 1, sizeof *s1);
	size_t *s1_count = ta_xcalloc(m->kernel_count + 1, sizeof *s1_count);
	/* per kernel, its interleaved or gathered S1 sites: warnings, all */
	size_t (*s1_apart)[2] = ta_xcalloc(m->kernel_count + 1, sizeof *s1_apart);
	bool *wanted = ta_xcalloc(r->finding_count + 1, sizeof *wanted);
	/* what a comment silences: one id silences the finding it names,
	 * whatever other ids it shows ([P1, G2]: ignore[G2] alone) */
	bool *silenced = ta_suppressions_silenced(sup, r);
	ta_suppressions_note_used(sup, r);
	for (size_t i = 0; i < r->finding_count; i++) {
		const ta_finding *fd = &r->findings[i];
		int e = ta_rules_index(fd->id);
		if (ta_rules_status(r, fd->kernel, (size_t)e) != TA_STATUS_APPLIES || !ta_filter_wants(f, fd->id))
			continue;
		wanted[i] = !(silenced && silenced[i]);
	}
	for (size_t i = 0; i < r->finding_count; i++) {
		const ta_finding *fd = &r->findings[i];
		if (!wanted[i] || strcmp(fd->id, "S1"))
			continue;
		if (s1_plain(fd)) {
			s1_count[fd->kernel]++;
		} else {
			s1_apart[fd->kernel][0] += !(fd->tags & TA_TAG_NOTE);
			s1_apart[fd->kernel][1]++;
		}
	}
	for (size_t i = 0; i < r->finding_count; i++) {
		const ta_finding *fd = &r->findings[i];
		if (!wanted[i])
			continue;
		const ta_kernel *k = &m->kernels[fd->kernel];
		if (s1_plain(fd) && s1_count[fd->kernel] > 1) {
			size_t n = 0;
			for (size_t j = i; j < r->finding_count; j++)
				if (wanted[j] && s1_plain(&r->findings[j]) && r->findings[j].kernel == fd->kernel) {
					s1[n++] = &r->findings[j];
					wanted[j] = j == i;
				}
			add_s1_kernel(d, path, m, s1, n, s1_apart[fd->kernel]);
			continue;
		}
		diag *x = add_diag(d, path, fd->span.line, fd->span.col, fd->span.end_line, false, fd->id,
				   fd->reason, k->name);
		if (x && fd->span.end)
			x->end_col = (uint32_t)ta_source_column_of(m->src, fd->span.end);
		if (x)
			x->note = (fd->tags & TA_TAG_NOTE) != 0;
		if (d->fixes)
			note_fix(x, m, fd);
	}
	free(wanted);
	free(silenced);
	free(s1_count);
	free(s1_apart);
	free(s1);
	ta_rules_result_free(r);
}

/* A large file part by part, each part's tree freed before the next; false
 * (and nothing added) when a part does not parse cleanly, which the
 * whole file's analysis then reports. */
static bool check_parts(const char *path, diags *d, const ta_source *src, ta_suppressions *sup)
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
			check_model(path, d, m, sup);
		free(msg);
		ta_model_free(m);
		ta_syntax_free(syn);
	}
	ta_split_free(parts, n);
	if (!ok)
		drop_diags(d, mark);
	return ok;
}

/* X0: an id a suppression comment names that the checklist does not know. */
static void add_unknown_ids(diags *d, const char *path, const ta_suppressions *sup)
{
	if (!ta_filter_wants(d->filter, TA_FILTER_SUPPRESSION_ID))
		return;
	ta_unknown_id *u;
	size_t n = ta_suppressions_unknown(sup, &u);
	for (size_t i = 0; i < n; i++) {
		char *m = ta_xasprintf("unknown checklist id '%s' in a suppression comment", u[i].id);
		add_diag(d, path, u[i].line, u[i].col, u[i].line, false, TA_FILTER_SUPPRESSION_ID, m, NULL);
		free(m);
	}
	free(u);
}

/* X1 (when asked for): a suppression comment that silenced no finding,
 * after every part of the file was checked. */
static void add_unused(diags *d, const char *path, const ta_suppressions *sup)
{
	if (!ta_filter_wants(d->filter, TA_FILTER_UNUSED_ID))
		return;
	ta_unknown_id *u;
	size_t n = ta_suppressions_unused(sup, &u);
	for (size_t i = 0; i < n; i++) {
		char *m = u[i].id ? ta_xasprintf("unused suppression: this comment silences no %s finding", u[i].id)
				  : ta_xstrdup("unused suppression: this comment silences no finding");
		add_diag(d, path, u[i].line, u[i].col, u[i].line, false, TA_FILTER_UNUSED_ID, m, NULL);
		free(m);
	}
	free(u);
}

/* A whole file's analysis: its syntax errors, then its findings. */
static void check_analysis(diags *d, const char *path, const ta_analysis *a, ta_suppressions *sup)
{
	for (size_t i = 0; i < a->syn->error_count; i++) {
		const ta_syntax_error *e = &a->syn->errors[i];
		char *m = ta_xasprintf("syntax error: %s", e->what ? e->what : "cannot parse");
		add_diag(d, path, (uint32_t)e->line, (uint32_t)e->column, (uint32_t)e->end_line, true, "", m, NULL);
		free(m);
	}
	check_model(path, d, a->model, sup);
}

void ta_findings_check(ta_findings *d, const char *file, FILE *err, ta_exit *rc)
{
	ta_source *src;
	char *msg;
	bool in = !strcmp(file, "-");
	const char *path = in && d->stdin_name ? d->stdin_name : file;   /* as the diagnostics name it */
	if ((in ? open_stdin(path, &src, &msg) : ta_source_load(file, &src, &msg)) != 0) {
		fprintf(err, "tileadvise: %s\n", ta_text_name(msg));
		free(msg);
		*rc = TA_EXIT_ERROR;
		return;
	}
	ta_suppressions *sup = ta_suppressions_read(src);
	add_unknown_ids(d, path, sup);
	if (check_parts(path, d, src, sup)) {
		ta_source_free(src);
	} else {
		ta_analysis *a;
		if (ta_analysis_of_source(src, &a, &msg) != 0) {
			fprintf(err, "tileadvise: %s\n", ta_text_name(msg));
			free(msg);
			*rc = TA_EXIT_ERROR;
		} else {
			check_analysis(d, path, a, sup);
			ta_analysis_free(a);
		}
	}
	add_unused(d, path, sup);
	ta_suppressions_free(sup);
}

void ta_findings_check_ignoring(ta_findings *d, const char *path, const char *also_ignore, FILE *err, ta_exit *rc)
{
	if (!also_ignore) {
		ta_findings_check(d, path, err, rc);
		return;
	}
	ta_filter *all = d->filter, *mine = ta_filter_copy(all);
	char *e = NULL;
	if (ta_filter_ignore(mine, also_ignore, &e) != 0) {
		fprintf(err, "tileadvise: %s: per-file-ignores: %s\n", ta_text_name(path), ta_text_name(e));
		free(e);
		ta_filter_free(mine);
		*rc = TA_EXIT_ERROR;
		return;
	}
	d->filter = mine;
	ta_findings_check(d, path, err, rc);
	d->filter = all;
	ta_filter_free(mine);
}

void ta_findings_check_analysis(ta_findings *d, const char *path, const ta_analysis *a)
{
	ta_suppressions *sup = ta_suppressions_read(a->src);
	add_unknown_ids(d, path, sup);
	check_analysis(d, path, a, sup);
	add_unused(d, path, sup);
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

ta_findings *ta_findings_new(const char *select, const char *ignore, const char *extend, bool preview, bool fixes,
			     FILE *err)
{
	ta_filter *flt = ta_filter_new(preview);
	bool ok = true;
	char *e = NULL;
	if (select && ta_filter_select(flt, select, &e) != 0) {
		fprintf(err, "tileadvise: %s\n", ta_text_name(e));
		free(e);
		ok = false;
	}
	if (ignore && ta_filter_ignore(flt, ignore, &e) != 0) {
		fprintf(err, "tileadvise: %s\n", ta_text_name(e));
		free(e);
		ok = false;
	}
	if (extend && ta_filter_extend(flt, extend, &e) != 0) {
		fprintf(err, "tileadvise: %s\n", ta_text_name(e));
		free(e);
		ok = false;
	}
	if (!ok) {
		ta_filter_free(flt);
		return NULL;
	}
	ta_findings *d = ta_xcalloc(1, sizeof *d);
	d->filter = flt;
	d->fixes = fixes;
	return d;
}

const ta_diag *ta_findings_sorted(ta_findings *d, size_t *n)
{
	if (!d->sorted && d->count)
		qsort(d->items, d->count, sizeof *d->items, cmp_diag);
	d->sorted = true;
	*n = d->count;
	return d->items;
}

void ta_findings_free(ta_findings *d)
{
	if (!d)
		return;
	drop_diags(d, 0);
	free(d->items);
	free(d->seen);
	ta_filter_free(d->filter);
	free(d);
}

void ta_findings_stdin_name(ta_findings *d, const char *name)
{
	d->stdin_name = name;
}

int ta_findings_project(const char *first, bool isolated, const char *config, ta_project *p, FILE *warn, char **err)
{
	if (config) {
		/* --config: this file's table and no other */
		memset(p, 0, sizeof *p);
		p->respect_gitignore = p->preview = -1;
		*err = NULL;
		char *real = realpath(config, NULL);
		int rc = real ? ta_project_parse(config, p, warn, err) : -1;
		if (!real)
			*err = ta_xasprintf("%s: %s", config, strerror(errno));
		else if (rc == 0 && ta_project_reads_toml())
			*err = ta_xasprintf("%s: no [tool.tileadvise] table to read", config), rc = -1;
		if (rc < 0) {
			free(real);
			ta_project_free(p);
			return -1;
		}
		p->path = real;
		p->dir = ta_path_dirname(real);
		return 0;
	}
	if (isolated) {
		memset(p, 0, sizeof *p);
		p->respect_gitignore = p->preview = -1;
		return 0;
	}
	/* From the first path's folder up (standard input: the current folder). */
	const char *at = first && strcmp(first, "-") ? first : ".";
	char *start = ta_path_is_dir(at) ? ta_xstrdup(at) : ta_path_dirname(at);
	int rc = ta_project_find(start, p, warn, err);
	free(start);
	return rc;
}

bool ta_findings_read_toml(void)
{
	return ta_project_reads_toml();
}
