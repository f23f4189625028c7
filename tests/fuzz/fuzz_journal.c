/* Fuzz target (c): what tileadvise reads back from `.tileadvise/`. Byte 0
 * chooses (even: the edit journal, odd: a session); the rest is the file.
 *
 * Journal (journal.h): the bytes become .tileadvise/journal-k.py.json beside
 * a kernel k.py, with two saved versions present (versions/k.py/0.py and
 * 1.py, whose hashes the seeds name), then:
 *   - ta_journal_open either loads it or refuses in one line;
 *   - a loaded journal is consistent (position <= count, fields set), saves,
 *     and loads back the same;
 *   - --undo and --redo through it either refuse in one line and leave the
 *     kernel's bytes alone, or write exactly a saved version whose hash
 *     the journal names.
 * Session (session.h): ta_session_from_json either loads or refuses in one
 * line; a loaded session writes JSON that loads again and writes the same
 * text (a fixed point); its markdown report is written without a crash. */
#include "config.h"
#include "fuzz.h"

#include "advise/edit.h"
#include "advise/journal.h"
#include "advise/session.h"
#include "analyze/source.h"
#include "ui/session_report.h"

#include <sys/stat.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *dir, *kernel, *tdir, *jpath, *v0, *v1;
static const char K0[] = "x = 1\n", K1[] = "x = 2\n";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_init_env();
	dir = fuzz_tmpdir();
	kernel = ta_path_join(dir, "k.py");
	tdir = ta_path_join(dir, ".tileadvise");
	jpath = ta_path_join(tdir, "journal-k.py.json");
	v0 = ta_path_join(tdir, "versions/k.py/0.py");
	v1 = ta_path_join(tdir, "versions/k.py/1.py");
	atexit(fuzz_cleanup);
	return 0;
}

static char *slurp(const char *path, size_t *len)
{
	char *data, *err;
	if (ta_read_file(path, (size_t)64 << 20, &data, len, &err) != 0) {
		fprintf(stderr, "fuzz: cannot read %s: %s\n", path, err);
		abort();
	}
	return data;
}

static void same_journal(const ta_journal *a, const ta_journal *b)
{
	FUZZ_CHECK(a->count == b->count && a->position == b->position, "journal round trip: counts");
	for (size_t i = 0; i < a->count; i++) {
		const ta_journal_entry *x = &a->entries[i], *y = &b->entries[i];
		FUZZ_CHECK(!strcmp(x->id, y->id) && x->line == y->line && !strcmp(x->time, y->time) &&
			   x->before_hash == y->before_hash && x->after_hash == y->after_hash &&
			   !strcmp(x->before, y->before) && !strcmp(x->after, y->after),
			   "journal round trip: entry %zu", i);
	}
}

static void journal(const uint8_t *data, size_t size)
{
	fuzz_rm_rf(tdir);
	FUZZ_CHECK(mkdir(tdir, 0700) == 0, "mkdir");
	char *vd = ta_path_join(tdir, "versions");
	mkdir(vd, 0700);
	free(vd);
	vd = ta_path_join(tdir, "versions/k.py");
	mkdir(vd, 0700);
	free(vd);
	fuzz_write_file(v0, K0, sizeof K0 - 1);
	fuzz_write_file(v1, K1, sizeof K1 - 1);
	fuzz_write_file(kernel, K0, sizeof K0 - 1);
	fuzz_write_file(jpath, data, size);

	ta_journal *j = NULL;
	char *err = NULL;
	if (ta_journal_open(kernel, &j, &err) != 0) {
		fuzz_check_message(err);
		free(err);
		FUZZ_CHECK(j == NULL, "a refused journal was returned");
	} else {
		FUZZ_CHECK(j->position <= j->count, "position %zu past %zu entries", j->position, j->count);
		for (size_t i = 0; i < j->count; i++) {
			const ta_journal_entry *e = &j->entries[i];
			FUZZ_CHECK(e->id && e->time && e->before && e->after, "entry %zu has a NULL field", i);
			FUZZ_CHECK(!strstr(e->before, "..") && !strstr(e->after, "..") && e->before[0] != '/' &&
				   e->after[0] != '/', "entry %zu leads out of .tileadvise/", i);
			char *bytes = NULL, *e2 = NULL;
			size_t len;
			if (ta_journal_get_version(j, e->before, &bytes, &len, &e2) == 0)
				free(bytes);
			else
				free(e2);
		}
		ta_journal_reconcile(j, ta_hash_bytes(K0, sizeof K0 - 1));
		FUZZ_CHECK(j->position <= j->count, "reconcile moved position past the end");
		/* Saves and loads back the same. */
		if (ta_journal_save(j, &err) != 0) {
			fuzz_check_message(err);
			free(err);
		} else {
			ta_journal *k = NULL;
			FUZZ_CHECK(ta_journal_open(kernel, &k, &err) == 0, "a saved journal does not load: %s", err);
			same_journal(j, k);
			ta_journal_free(k);
		}
		ta_journal_free(j);
		fuzz_write_file(jpath, data, size);
	}

	/* Undo and redo through it, from the file as K0. */
	for (int back = 0; back < 2; back++) {
		fuzz_write_file(kernel, K0, sizeof K0 - 1);
		fuzz_write_file(jpath, data, size);
		char *d = NULL, *msg = NULL;
		int rc = back ? ta_edit_undo(kernel, &d, &msg) : ta_edit_redo(kernel, &d, &msg);
		fuzz_check_message(msg);
		size_t len;
		char *now = slurp(kernel, &len);
		if (rc != 0) {
			FUZZ_CHECK(len == sizeof K0 - 1 && !memcmp(now, K0, len),
				   "a refused %s changed the kernel: %s", back ? "undo" : "redo", msg);
		} else {
			FUZZ_CHECK((len == sizeof K0 - 1 && !memcmp(now, K0, len)) ||
				   (len == sizeof K1 - 1 && !memcmp(now, K1, len)),
				   "%s wrote bytes that are no saved version: %s", back ? "undo" : "redo", msg);
			/* The journal it left loads. */
			ta_journal *k = NULL;
			char *e2 = NULL;
			FUZZ_CHECK(ta_journal_open(kernel, &k, &e2) == 0, "the journal left by %s does not load: %s",
				   back ? "undo" : "redo", e2);
			ta_journal_free(k);
		}
		free(now);
		free(d);
		free(msg);
	}
}

static void session(const uint8_t *data, size_t size)
{
	ta_session *s = NULL;
	char *err = NULL;
	if (ta_session_from_json((const char *)data, size, "fuzz.json", &s, &err) != 0) {
		fuzz_check_message(err);
		free(err);
		FUZZ_CHECK(s == NULL, "a refused session was returned");
		return;
	}
	char *t1 = ta_session_to_json(s);
	ta_session *s2 = NULL;
	FUZZ_CHECK(ta_session_from_json(t1, strlen(t1), "again.json", &s2, &err) == 0,
		   "a session's own JSON does not load: %s\n%s", err, t1);
	char *t2 = ta_session_to_json(s2);
	FUZZ_CHECK(!strcmp(t1, t2), "session JSON is not a fixed point:\n%s\n----\n%s", t1, t2);
	free(t2);
	free(t1);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	if (s->walk) {
		ta_session_annotate(s, s->walk);
		ta_session_report(s, s->walk, out);
	}
	fclose(out);
	free(buf);
	ta_session_free(s2);
	ta_session_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		session(data + 1, size - 1);
	else
		journal(data + 1, size - 1);
	return 0;
}
