/* Fuzz target (b): the edit engine. The input is a list of byte-range
 * replacements followed by a file:
 *
 *   byte 0        flags: bit 0 CRLF edit, bits 1, 2, 4, 5 all set: also apply on disk
 *                 (one input in 16: it forks for python3), bit 3 the
 *                 file is given a BOM
 *   byte 1        number of replacements (mod 17)
 *   per replacement: start (2 bytes), length (1 byte), text length (1 byte,
 *                 mod 24), then the text (NUL bytes read as 'x')
 *   the rest      the file's bytes
 *
 * Properties:
 *   - ta_edit_replace accepts exactly the non-overlapping replacements, and
 *     ta_edit_apply_text gives what a plain reference implementation gives;
 *   - the unified diff of the edit, applied to the old text by the small
 *     patcher below, gives back the new text exactly (and its hunk headers
 *     count the lines they hold);
 *   - on disk (when the flags say so and the file loads): ta_edit_apply
 *     either refuses and leaves the file's bytes as they were, or writes
 *     exactly the new bytes, which parse with no more syntax errors than
 *     the old; undo then gives back the old bytes, redo the new ones. */
#include "config.h"
#include "fuzz.h"

#include "analyze/diff.h"
#include "advise/edit.h"
#include "advise/journal.h"
#include "analyze/analysis.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct ref_repl {
	uint32_t start, end;
	char *text;
	size_t order;
} ref_repl;

static char *dir, *file;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_init_env();
	dir = fuzz_tmpdir();
	file = ta_path_join(dir, "k.py");
	atexit(fuzz_cleanup);
	return 0;
}

static int cmp_ref(const void *pa, const void *pb)
{
	const ref_repl *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	/* Same start: an insertion (accepted first) before the range. */
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Would [s, e) overlap one of the accepted ones? The rule of diff.h: real
 * ranges may not intersect, an insertion may not fall strictly inside a
 * range, and nothing may share its start with a range (several insertions
 * at one offset are fine, kept in call order). */
static bool overlaps(const ref_repl *acc, size_t n, uint32_t s, uint32_t e)
{
	for (size_t i = 0; i < n; i++) {
		const ref_repl *q = &acc[i];
		bool qins = q->start == q->end, ins = s == e;
		if (!qins && !ins && s < q->end && q->start < e)
			return true;
		if (ins && !qins && s > q->start && s < q->end)
			return true;
		if (qins && !ins && q->start > s && q->start < e)
			return true;
		if (s == q->start && !(ins && qins))
			return true;
	}
	return false;
}

static char *crlf_text(const char *t, bool crlf)
{
	ta_buf b = TA_BUF_INIT;
	for (const char *p = t; *p; p++) {
		if (*p == '\n' && crlf && (p == t || p[-1] != '\r'))
			ta_buf_putc(&b, '\r');
		ta_buf_putc(&b, *p);
	}
	return ta_buf_steal(&b);
}

/* ---- a small unified-diff patcher ------------------------------------------ */

typedef struct lines {
	const char **p;
	size_t *len;
	size_t n;
} lines;

static void split(lines *l, const char *t, size_t len)
{
	memset(l, 0, sizeof *l);
	size_t cap = 0, cap2 = 0;
	size_t s = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i == len || t[i] == '\n') {
			size_t e = i < len ? i + 1 : i;
			if (e > s) {
				ta_grow((void **)&l->p, &cap, l->n + 1, sizeof *l->p);
				ta_grow((void **)&l->len, &cap2, l->n + 1, sizeof *l->len);
				l->p[l->n] = t + s;
				l->len[l->n] = e - s;
				l->n++;
			}
			s = e;
		}
	}
}

static void lines_free(lines *l)
{
	free(l->p);
	free(l->len);
}

/* Applies diff to old; returns the new text (caller frees) or NULL with
 * *why when the diff is malformed or does not fit old. */
static char *patch(const char *diff, const char *old, size_t old_len, size_t *out_len, const char **why)
{
	lines o, d;
	split(&o, old, old_len);
	split(&d, diff, strlen(diff));
	ta_buf out = TA_BUF_INIT;
	size_t oi = 0, di = 0;
	char *res = NULL;
	*why = NULL;
	if (d.n == 0)
		goto rest;
	if (d.n < 2 || strncmp(d.p[0], "--- ", 4) || strncmp(d.p[1], "+++ ", 4)) {
		*why = "no ---/+++ header";
		goto fail;
	}
	di = 2;
	while (di < d.n) {
		unsigned long os, oc, ns, nc;
		char tail[8];
		char head[128];
		size_t hl = d.len[di] < sizeof head - 1 ? d.len[di] : sizeof head - 1;
		memcpy(head, d.p[di], hl);
		head[hl] = '\0';
		if (sscanf(head, "@@ -%lu,%lu +%lu,%lu @@%7s", &os, &oc, &ns, &nc, tail) < 4) {
			*why = "bad hunk header";
			goto fail;
		}
		di++;
		/* os is 1-based (0 when the hunk removes nothing from an empty start). */
		size_t first = oc ? os - 1 : os;
		if (first < oi || first > o.n) {
			*why = "hunk out of order or past the end";
			goto fail;
		}
		for (; oi < first; oi++)
			ta_buf_append(&out, o.p[oi], o.len[oi]);
		size_t seen_o = 0, seen_n = 0;
		while (di < d.n && d.p[di][0] != '@') {
			char mark = d.p[di][0];
			const char *body = d.p[di] + 1;
			size_t bl = d.len[di] - 1;
			/* "\ No newline at end of file" ends the line before it. */
			bool nonl = di + 1 < d.n && d.p[di + 1][0] == '\\';
			if (nonl) {
				if (bl == 0 || body[bl - 1] != '\n') {
					*why = "no-newline marker after a line without one";
					goto fail;
				}
				bl--;
			} else if (bl == 0 || body[bl - 1] != '\n') {
				*why = "a diff line without its newline";
				goto fail;
			}
			if (mark == ' ' || mark == '-') {
				if (oi >= o.n || o.len[oi] != bl || memcmp(o.p[oi], body, bl)) {
					*why = "context or removed line does not match the old text";
					goto fail;
				}
				oi++;
				seen_o++;
			}
			if (mark == ' ' || mark == '+') {
				ta_buf_append(&out, body, bl);
				seen_n++;
			}
			if (mark != ' ' && mark != '-' && mark != '+') {
				*why = "a line in a hunk that is not context, removed or added";
				goto fail;
			}
			di += nonl ? 2 : 1;
		}
		if (seen_o != oc || seen_n != nc) {
			*why = "hunk header counts do not match its lines";
			goto fail;
		}
		if (nc && ns == 0) {
			*why = "new start 0 with lines";
			goto fail;
		}
	}
rest:
	for (; oi < o.n; oi++)
		ta_buf_append(&out, o.p[oi], o.len[oi]);
	*out_len = out.len;
	res = ta_buf_steal(&out);
	goto done;
fail:
	ta_buf_free(&out);
done:
	lines_free(&o);
	lines_free(&d);
	return res;
}

/* ---- on disk ------------------------------------------------------------------ */

static char *slurp(const char *path, size_t *len)
{
	char *data, *err;
	if (ta_read_file(path, (size_t)64 << 20, &data, len, &err) != 0) {
		fprintf(stderr, "fuzz: cannot read %s: %s\n", path, err);
		abort();
	}
	return data;
}

static void on_disk(const ta_edit *e, const char *bytes, size_t len, bool bom, const char *want,
		    size_t want_len)
{
	char *tdir = ta_path_join(dir, ".tileadvise");
	fuzz_rm_rf(tdir);
	free(tdir);
	ta_buf fb = TA_BUF_INIT;
	if (bom)
		ta_buf_append(&fb, "\xEF\xBB\xBF", 3);
	ta_buf_append(&fb, bytes, len);
	fuzz_write_file(file, fb.data ? fb.data : "", fb.len);
	ta_analysis *a;
	char *err = NULL, *msg = NULL;
	if (ta_analysis_open(file, &a, &err) != 0) {
		fuzz_check_message(err);
		free(err);
		ta_buf_free(&fb);
		return;
	}
	/* What the file should hold after: BOM (as read) + the new text, in
	 * the file's own line endings: a file of CR-only lines is read with
	 * LFs and written back with CRs, those of the edit's text too. */
	ta_buf nb = TA_BUF_INIT;
	if (a->src->had_bom)
		ta_buf_append(&nb, "\xEF\xBB\xBF", 3);
	size_t body = nb.len;
	ta_buf_append(&nb, want, want_len);
	if (a->src->cr_only)
		for (size_t i = body; i < nb.len; i++)
			if (nb.data[i] == '\n')
				nb.data[i] = '\r';
	size_t old_errors = a->syn->error_count;
	int rc = ta_edit_apply(a->src, a->syn, e, &msg);
	fuzz_check_message(msg);
	size_t got_len;
	char *got = slurp(file, &got_len);
	if (rc != 0) {
		FUZZ_CHECK(got_len == fb.len && !memcmp(got, fb.data, got_len),
			   "a refused apply changed the file: %s", msg);
	} else {
		FUZZ_CHECK(got_len == nb.len && !memcmp(got, nb.data, got_len),
			   "the applied file is not the new text: %s", msg);
		ta_analysis *b;
		char *err2 = NULL;
		FUZZ_CHECK(ta_analysis_open(file, &b, &err2) == 0, "the applied file does not load: %s", err2);
		FUZZ_CHECK(b->syn->error_count <= old_errors, "applied with more syntax errors (%zu > %zu)",
			   b->syn->error_count, old_errors);
		ta_analysis_free(b);
		char *d = NULL, *m2 = NULL;
		FUZZ_CHECK(ta_edit_undo(file, &d, &m2) == 0, "undo failed: %s", m2);
		free(d);
		free(m2);
		free(got);
		got = slurp(file, &got_len);
		FUZZ_CHECK(got_len == fb.len && !memcmp(got, fb.data, got_len), "undo did not restore the bytes");
		FUZZ_CHECK(ta_edit_redo(file, NULL, &m2) == 0, "redo failed: %s", m2);
		free(m2);
		free(got);
		got = slurp(file, &got_len);
		FUZZ_CHECK(got_len == nb.len && !memcmp(got, nb.data, got_len), "redo did not give the new text");
	}
	free(got);
	free(msg);
	ta_buf_free(&nb);
	ta_buf_free(&fb);
	ta_analysis_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	uint8_t flags = data[0];
	size_t nrep = data[1] % 17;
	size_t at = 2;
	typedef struct raw {
		uint16_t start;
		uint8_t len;
		char text[24];
	} raw;
	raw rs[17];
	size_t nr = 0;
	for (size_t i = 0; i < nrep && at + 4 <= size; i++) {
		raw *r = &rs[nr++];
		r->start = (uint16_t)(data[at] | data[at + 1] << 8);
		r->len = data[at + 2];
		size_t tl = data[at + 3] % 24;
		at += 4;
		if (tl > size - at)
			tl = size - at;
		for (size_t k = 0; k < tl; k++)
			r->text[k] = data[at + k] ? (char)data[at + k] : 'x';
		r->text[tl] = '\0';
		at += tl;
	}
	/* A private copy of exactly the file's size (ASan sees overreads); NUL
	 * bytes read as 'x': sources never hold any (loading refuses them), and
	 * the diff is C text. */
	size_t old_len = size - at;
	char *old = ta_xmalloc(old_len ? old_len : 1);
	for (size_t k = 0; k < old_len; k++)
		old[k] = data[at + k] ? (char)data[at + k] : 'x';
	bool crlf = flags & 1;

	ta_edit e;
	ta_edit_init(&e, "FZ", crlf);
	e.line = 1;
	ref_repl acc[17];
	size_t na = 0;
	for (size_t i = 0; i < nr; i++) {
		uint32_t s = (uint32_t)(rs[i].start % (old_len + 1));
		uint32_t en = s + rs[i].len % 32;
		if (en > old_len)
			en = (uint32_t)old_len;
		bool want_ok = !overlaps(acc, na, s, en);
		int rc = ta_edit_replace(&e, s, en, rs[i].text);
		FUZZ_CHECK((rc == 0) == want_ok, "ta_edit_replace(%u, %u) returned %d; expected %s", s, en, rc,
			   want_ok ? "accepted" : "refused");
		if (rc == 0)
			acc[na++] = (ref_repl){ s, en, crlf_text(rs[i].text, crlf), i };
	}
	FUZZ_CHECK(e.repl_count == na, "count");

	/* Reference application. */
	qsort(acc, na, sizeof *acc, cmp_ref);
	ta_buf ref = TA_BUF_INIT;
	size_t pos = 0;
	for (size_t i = 0; i < na; i++) {
		ta_buf_append(&ref, old + pos, acc[i].start - pos);
		ta_buf_puts(&ref, acc[i].text);
		pos = acc[i].end;
	}
	ta_buf_append(&ref, old + pos, old_len - pos);

	char *nt = NULL, *err = NULL;
	size_t nl = 0;
	FUZZ_CHECK(ta_edit_apply_text(&e, old, old_len, &nt, &nl, &err) == 0, "apply_text refused: %s", err);
	FUZZ_CHECK(nl == ref.len && (nl == 0 || !memcmp(nt, ref.data, nl)),
		   "apply_text differs from the reference");

	/* The diff, patched back. */
	char *d = ta_edit_diff(&e, "k.py", old, old_len);
	bool same = nl == old_len && !memcmp(nt, old, nl);
	if (same)
		FUZZ_CHECK(d[0] == '\0', "a diff for an edit that changes nothing:\n%s", d);
	size_t pl = 0;
	const char *why = NULL;
	char *pt = patch(d, old, old_len, &pl, &why);
	FUZZ_CHECK(pt != NULL, "the diff does not apply (%s):\n%s", why, d);
	FUZZ_CHECK(pl == nl && !memcmp(pt, nt, nl), "the patched diff is not the new text:\n%s", d);
	free(pt);
	free(d);

	/* On disk the offsets are into the text after a BOM: the input's own
	 * bytes must not start with one (flag 8 adds one in front instead). */
	if ((flags & 0x36) == 0x36 &&
	    !(old_len >= 3 && !memcmp(old, "\xEF\xBB\xBF", 3)))
		on_disk(&e, old, old_len, flags & 8, nt, nl);

	free(nt);
	free(old);
	ta_buf_free(&ref);
	for (size_t i = 0; i < na; i++)
		free(acc[i].text);
	ta_edit_clear(&e);
	return 0;
}
