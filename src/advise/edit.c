#include "config.h"
#include "advise/edit.h"
#include "advise/journal.h"
#include "analyze/analysis.h"
#include "util/buf.h"
#include "util/fsutil.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- where we may write ------------------------------------------------- */

static bool inside(const char *dir, const char *path)
{
	size_t n = strlen(dir);
	return !strncmp(dir, path, n) && (path[n] == '/' || (n == 1 && dir[0] == '/'));
}

int ta_edit_target(const char *path, char **real, struct stat *st, char **err)
{
	*real = NULL;
	struct stat lst;
	if (lstat(path, &lst) != 0) {
		*err = ta_xasprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	char *dir = ta_path_dirname(path);
	char *rdir = realpath(dir, NULL);
	free(dir);
	if (!rdir) {
		*err = ta_xasprintf("%s: cannot resolve its folder: %s", path, strerror(errno));
		return -1;
	}
	char *r;
	if (S_ISLNK(lst.st_mode)) {
		r = realpath(path, NULL);
		if (!r) {
			*err = ta_xasprintf("%s is a symlink that leads nowhere (%s)", path, strerror(errno));
			free(rdir);
			return -1;
		}
		if (!inside(rdir, r)) {
			*err = ta_xasprintf("%s is a symlink to %s, outside its folder; tileadvise writes only inside "
					    "the kernel's folder: give %s itself", path, r, r);
			free(r);
			free(rdir);
			return -1;
		}
	} else {
		r = ta_path_join(rdir, ta_path_basename(path));
	}
	free(rdir);
	if (stat(r, st) != 0 || !S_ISREG(st->st_mode)) {
		*err = ta_xasprintf("%s is not a regular file", path);
		free(r);
		return -1;
	}
	if ((st->st_mode & 0222) == 0 || access(r, W_OK) != 0) {
		*err = ta_xasprintf("%s is read-only; make it writable (chmod u+w) to apply edits", path);
		free(r);
		return -1;
	}
	char *rd = ta_path_dirname(r);
	struct stat dst;
	if (stat(rd, &dst) != 0 || (dst.st_mode & 0222) == 0 || access(rd, W_OK) != 0) {
		*err = ta_xasprintf("the folder %s is read-only; tileadvise writes a temporary file beside %s",
				    rd, ta_path_basename(r));
		free(rd);
		free(r);
		return -1;
	}
	free(rd);
	*real = r;
	return 0;
}

/* ---- verification --------------------------------------------------------- */

/* Byte-compiles bytes with python3 (from a private temporary copy, so no
 * __pycache__ lands in the user's folder). 0 compiles, 1 does not (*why),
 * -1 no python3 to ask. */
static int py_compile(const char *name, const char *bytes, size_t len, char **why)
{
	const char *py = getenv("PYTHON3");
	if (!py || !*py)
		py = "python3";
	const char *tmpdir = getenv("TMPDIR");
	char *tmp = ta_xasprintf("%s/tileadvise-check-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	int fd = mkstemp(tmp);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	bool ok = true;
	for (size_t off = 0; off < len && ok;) {
		ssize_t w = write(fd, bytes + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		ok = w > 0;
		off += w > 0 ? (size_t)w : 0;
	}
	close(fd);
	int pfd[2];
	if (!ok || pipe(pfd) != 0) {
		unlink(tmp);
		free(tmp);
		return -1;
	}
	static const char script[] =
		"import sys\n"
		"try:\n"
		"    compile(open(sys.argv[1], 'rb').read(), sys.argv[2], 'exec')\n"
		"except (SyntaxError, ValueError) as e:\n"
		"    sys.stderr.write('line %s: %s' % (getattr(e, 'lineno', '?'), getattr(e, 'msg', e)))\n"
		"    sys.exit(1)\n";
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 2);
		int null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
		}
		close(pfd[0]);
		setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
		execlp(py, py, "-I", "-S", "-c", script, tmp, name, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	ta_buf out = TA_BUF_INIT;
	char chunk[512];
	ssize_t r;
	while ((r = read(pfd[0], chunk, sizeof chunk)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		if (out.len < 4096)
			ta_buf_append(&out, chunk, (size_t)r);
	}
	close(pfd[0]);
	int status = 0;
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	unlink(tmp);
	free(tmp);
	int rc = pid < 0 ? -1 : WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 :
		 WIFEXITED(status) && WEXITSTATUS(status) == 1 ? 1 : -1;
	if (rc == 1) {
		char *nl = strchr(ta_buf_str(&out), '\n');
		if (nl)
			*nl = '\0';
		*why = ta_xstrdup(ta_buf_str(&out));
	}
	ta_buf_free(&out);
	return rc;
}

/* The new bytes parse no worse than the old and compile where the old did.
 * Returns 0, or -1 with *why. */
static int verify(const ta_source *old_src, const ta_syntax *old_syn, const char *bytes, size_t len,
		  const char *old_bytes, size_t old_len, char **why)
{
	ta_source *ns;
	char *err;
	if (ta_source_from_bytes(old_src->path, bytes, len, &ns, &err) != 0) {
		*why = err;
		return -1;
	}
	ta_syntax *nsyn = ta_syntax_parse(ns, &err);
	if (!nsyn) {
		*why = err;
		ta_source_free(ns);
		return -1;
	}
	int rc = 0;
	size_t before = old_syn ? old_syn->error_count : 0;
	if (nsyn->error_count > before) {
		/* Report the first error region the old text did not have. */
		size_t line = nsyn->errors[0].line;
		*why = ta_xasprintf("the edited text does not parse (line %zu: %s)", line,
				    nsyn->errors[0].what ? nsyn->errors[0].what : "syntax error");
		rc = -1;
	}
	ta_syntax_free(nsyn);
	ta_source_free(ns);
	if (rc != 0)
		return rc;
	char *pywhy = NULL;
	if (py_compile(old_src->path, bytes, len, &pywhy) == 1) {
		char *ow = NULL;
		/* Only the edit's fault when the old text compiled. */
		if (py_compile(old_src->path, old_bytes, old_len, &ow) == 0) {
			*why = ta_xasprintf("python3 does not compile the edited text (%s)", pywhy);
			rc = -1;
		}
		free(ow);
	}
	free(pywhy);
	return rc;
}

int ta_edit_checked_bytes(const ta_source *src, const ta_syntax *syn, const ta_edit *e, const char *old,
			  size_t old_len, char **bytes, size_t *len, char **msg)
{
	char *text;
	size_t text_len;
	*bytes = NULL;
	if (ta_edit_apply_text(e, src->text, src->len, &text, &text_len, msg) != 0)
		return -1;
	ta_buf nb = TA_BUF_INIT;
	if (src->had_bom)
		ta_buf_append(&nb, "\xEF\xBB\xBF", 3);
	if (src->cr_only)
		for (size_t i = 0; i < text_len; i++)
			if (text[i] == '\n')
				text[i] = '\r';  /* the file's own line endings */
	ta_buf_append(&nb, text, text_len);
	free(text);
	text_len = nb.len;
	text = ta_buf_steal(&nb);
	char *why = NULL;
	if (text_len == old_len && !memcmp(text, old, old_len)) {
		*msg = ta_xasprintf("%s: the %s edit changes nothing", src->path, e->id);
	} else if (verify(src, syn, text, text_len, old, old_len, &why) != 0) {
		*msg = ta_xasprintf("%s: %s not applied: %s", src->path, e->id, why);
		free(why);
	} else {
		*bytes = text;
		*len = text_len;
		return 0;
	}
	free(text);
	return -1;
}

/* ---- apply, undo, redo --------------------------------------------------- */

static int read_all(const char *path, char **data, size_t *len, char **err)
{
	char *why;
	if (ta_read_file(path, TA_SOURCE_MAX_BYTES + 3, data, len, &why) != 0) {
		*err = ta_xasprintf("%s: %s", path, why);
		free(why);
		return -1;
	}
	return 0;
}

/* Puts old back after a failed step; the message says how that went. */
static char *restore(const char *real, const struct stat *st, const char *old, size_t old_len,
		     const char *path, char *why)
{
	char *cur, *e2 = NULL;
	size_t cl;
	bool same = read_all(real, &cur, &cl, &e2) == 0 && cl == old_len && !memcmp(cur, old, cl);
	if (e2 == NULL)
		free(cur);
	free(e2);
	e2 = NULL;
	char *msg;
	if (same)
		msg = ta_xasprintf("%s; %s is unchanged", why, path);
	else if (ta_write_atomic(real, old, old_len, st->st_mode, st->st_uid, st->st_gid, &e2) == 0)
		msg = ta_xasprintf("%s; the prior bytes of %s were restored", why, path);
	else
		msg = ta_xasprintf("%s; restoring %s failed too (%s): its prior bytes are in .tileadvise/", why, path, e2);
	free(e2);
	free(why);
	return msg;
}

/* A rename gives the file a new inode: its other hard links keep the old text. */
static const char links_note[] = "; it had other hard links, which keep the old text";

static bool same_mtime(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

int ta_edit_apply(const ta_source *src, const ta_syntax *syn, const ta_edit *e, char **msg)
{
	char *real, *err = NULL;
	struct stat st;
	*msg = NULL;
	if (e->guided) {
		*msg = ta_xasprintf("%s is a guided edit: finish it by hand (see --diff)", e->id);
		return -1;
	}
	if (ta_edit_target(src->path, &real, &st, &err) != 0) {
		*msg = err;
		return -1;
	}
	char *old = NULL, *text = NULL, *rel_b = NULL, *rel_a = NULL;
	size_t old_len, text_len;
	ta_journal *j = NULL;
	int rc = -1;
	/* From this read to the rename, no other tileadvise writes the file. */
	ta_journal_lock *lock = ta_journal_lock_take(real, true, msg);
	if (!lock)
		goto out;
	if (stat(real, &st) != 0 || read_all(real, &old, &old_len, msg) != 0) {
		if (!*msg)
			*msg = ta_xasprintf("%s: %s", src->path, strerror(errno));
		goto out;
	}
	bool stale = old_len != src->size || ta_hash_bytes(old, old_len) != src->hash ||
		     ((src->mtime.tv_sec || src->mtime.tv_nsec) && !same_mtime(&st.st_mtim, &src->mtime));
	if (stale) {
		*msg = ta_xasprintf("%s changed on disk since it was read; run tileadvise again on the current file",
				    src->path);
		goto out;
	}
	if (ta_edit_checked_bytes(src, syn, e, old, old_len, &text, &text_len, msg) != 0)
		goto out;
	/* The journal first: an interruption after it is reconciled by hash. */
	if (ta_journal_open(real, &j, msg) != 0)
		goto out;
	uint64_t oh = ta_hash_bytes(old, old_len), nh = ta_hash_bytes(text, text_len);
	ta_journal_reconcile(j, oh);
	if (j->position > 0 && j->entries[j->position - 1].after_hash == oh)
		rel_b = ta_xstrdup(j->entries[j->position - 1].after);
	else if (ta_journal_put_version(j, old, old_len, &rel_b, &err) != 0)
		goto journal_fail;
	if (ta_journal_put_version(j, text, text_len, &rel_a, &err) != 0)
		goto journal_fail;
	ta_journal_push(j, e->id, e->line, oh, nh, rel_b, rel_a);
	ta_journal_mark_pending(j, true);
	if (ta_journal_save(j, &err) != 0)
		goto journal_fail;
	ta_file_state was;
	int w = ta_file_state_of(real, &was, old, old_len) != 0 ? -2 :
		ta_write_atomic_over(real, text, text_len, st.st_mode, st.st_uid, st.st_gid, &was, &err);
	if (w != 0) {
		ta_journal_drop_last(j);
		char *e2 = NULL;
		ta_journal_save(j, &e2);
		free(e2);
		if (w == -2) {
			/* Someone else's bytes are there now: leave them be. */
			free(err);
			*msg = ta_xasprintf("%s changed on disk while the %s edit was checked; nothing was "
					    "written: run tileadvise again on the current file", src->path, e->id);
		} else {
			*msg = restore(real, &st, old, old_len, src->path, err);
		}
		goto out;
	}
	/* Written: the entry stands (if this save fails, the hash settles it). */
	ta_journal_mark_pending(j, false);
	char *e3 = NULL;
	ta_journal_save(j, &e3);
	free(e3);
	/* What is on disk now is what we meant to write. */
	char *back = NULL;
	size_t bl = 0;
	if (read_all(real, &back, &bl, &err) != 0 || bl != text_len || memcmp(back, text, bl) != 0) {
		free(back);
		free(err);
		ta_journal_drop_last(j);
		char *e2 = NULL;
		ta_journal_save(j, &e2);
		free(e2);
		*msg = restore(real, &st, old, old_len, src->path,
			       ta_xstrdup("the written file did not read back as written"));
		goto out;
	}
	free(back);
	*msg = ta_xasprintf("applied %s at line %u of %s (tileadvise --undo %s reverts it)%s", e->id, e->line,
			    src->path, src->path, st.st_nlink > 1 ? links_note : "");
	rc = 0;
	goto out;
journal_fail:
	*msg = ta_xasprintf("cannot record the edit in .tileadvise/ (%s); %s is unchanged", err, src->path);
	free(err);
out:
	ta_journal_free(j);
	ta_journal_unlock(lock);
	free(rel_a);
	free(rel_b);
	free(text);
	free(old);
	free(real);
	return rc;
}

static int step(const char *path, bool back, char **diff, char **msg)
{
	char *real, *err = NULL;
	struct stat st;
	*msg = NULL;
	if (diff)
		*diff = NULL;
	if (ta_edit_target(path, &real, &st, msg) != 0)
		return -1;
	char *cur = NULL, *want = NULL;
	size_t cl, wl;
	ta_journal *j = NULL;
	int rc = -1;
	/* No .tileadvise/ yet: nothing to undo, and nothing to lock. */
	ta_journal_lock *lock = ta_journal_lock_take(real, false, msg);
	if (!lock && *msg)
		goto out;
	if (stat(real, &st) != 0 || read_all(real, &cur, &cl, msg) != 0) {
		if (!*msg)
			*msg = ta_xasprintf("%s: %s", path, strerror(errno));
		goto out;
	}
	if (ta_journal_open(real, &j, msg) != 0)
		goto out;
	uint64_t ch = ta_hash_bytes(cur, cl);
	ta_journal_reconcile(j, ch);
	if (back ? j->position == 0 : j->position >= j->count) {
		*msg = ta_xasprintf("%s: nothing to %s", path, back ? "undo" : "redo");
		goto out;
	}
	ta_journal_entry *en = &j->entries[back ? j->position - 1 : j->position];
	if (ch != (back ? en->after_hash : en->before_hash)) {
		*msg = ta_xasprintf("%s changed since tileadvise %s %s (line %u); %s would lose those changes: "
				    "revert them by hand first", path, back ? "applied" : "undid", en->id, en->line,
				    back ? "undo" : "redo");
		goto out;
	}
	if (ta_journal_get_version(j, back ? en->before : en->after, &want, &wl, msg) != 0)
		goto out;
	if (ta_hash_bytes(want, wl) != (back ? en->before_hash : en->after_hash)) {
		*msg = ta_xasprintf("the saved version %s does not match its journal entry; %s is untouched",
				    back ? en->before : en->after, path);
		goto out;
	}
	size_t was = j->position;
	j->position = back ? was - 1 : was + 1;
	if (ta_journal_save(j, &err) != 0) {
		*msg = ta_xasprintf("cannot update .tileadvise/ (%s); %s is untouched", err, path);
		free(err);
		goto out;
	}
	ta_file_state before;
	int w = ta_file_state_of(real, &before, cur, cl) != 0 ? -2 :
		ta_write_atomic_over(real, want, wl, st.st_mode, st.st_uid, st.st_gid, &before, &err);
	if (w != 0) {
		j->position = was;
		char *e2 = NULL;
		ta_journal_save(j, &e2);
		free(e2);
		if (w == -2) {
			free(err);
			*msg = ta_xasprintf("%s changed on disk during the %s; nothing was written: "
					    "run it again on the current file", path, back ? "undo" : "redo");
		} else {
			*msg = restore(real, &st, cur, cl, path, err);
		}
		goto out;
	}
	if (diff)
		*diff = ta_edit_diff_texts(path, cur, cl, want, wl);
	*msg = ta_xasprintf("%s %s (line %u) in %s%s", back ? "undid" : "redid", en->id, en->line, path,
			    st.st_nlink > 1 ? links_note : "");
	rc = 0;
out:
	ta_journal_free(j);
	ta_journal_unlock(lock);
	free(want);
	free(cur);
	free(real);
	return rc;
}

int ta_edit_undo(const char *path, char **diff, char **msg)
{
	return step(path, true, diff, msg);
}

int ta_edit_redo(const char *path, char **diff, char **msg)
{
	return step(path, false, diff, msg);
}
