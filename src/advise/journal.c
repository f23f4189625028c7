#include "config.h"
#include "advise/journal.h"
#include "advise/json_read.h"
#include "analyze/source.h"
#include "util/buf.h"
#include "util/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- fault injection ----------------------------------------------------- */

static ta_fault_fn fault_fn;

void ta_fault_set(ta_fault_fn fn)
{
	fault_fn = fn;
}

/* errno to fail step with, or 0. */
static int fault(const char *step)
{
	if (fault_fn)
		return fault_fn(step);
	const char *env = getenv("TILEADVISE_FAULT");
	if (!env || !*env)
		return 0;
	size_t n = strcspn(env, ":");
	if (strlen(step) != n || strncmp(env, step, n) != 0)
		return 0;
	/* Count per process: the Nth such step fails. */
	static unsigned seen[8];
	static const char *const steps[] = { "open", "write", "fsync", "rename", "dirsync" };
	char *end = NULL;
	unsigned want = env[n] == ':' ? (unsigned)strtoul(env + n + 1, &end, 10) : 1;
	/* STEP:N+ fails the Nth and every later one (a disk that stays full). */
	bool onward = end && *end == '+';
	for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
		if (!strcmp(steps[i], step)) {
			++seen[i];
			return seen[i] == want || (onward && seen[i] > want) ? ENOSPC : 0;
		}
	return 0;
}

/* ---- careful writes ------------------------------------------------------ */

static int fsync_dir(const char *dir)
{
	int e = fault("dirsync");
	if (e) {
		errno = e;
		return -1;
	}
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	/* Some file systems cannot sync a directory; the rename stands. */
	if (rc != 0 && (errno == EINVAL || errno == ENOTSUP))
		rc = 0;
	int saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

/* Whether path still has the size, mtime, inode and bytes in *was. */
static bool still_as(const char *path, const ta_file_state *was)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != was->size ||
	    st.st_ino != was->ino || st.st_dev != was->dev ||
	    st.st_mtim.tv_sec != was->mtime.tv_sec || st.st_mtim.tv_nsec != was->mtime.tv_nsec)
		return false;
	char *data, *why;
	size_t len;
	if (ta_read_file(path, TA_SOURCE_MAX_BYTES + 3, &data, &len, &why) != 0) {
		free(why);
		return false;
	}
	bool same = len == was->size && ta_hash_bytes(data, len) == was->hash;
	free(data);
	return same;
}

int ta_file_state_of(const char *path, ta_file_state *out, const char *bytes, size_t len)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -1;
	out->size = (uint64_t)st.st_size;
	out->ino = st.st_ino;
	out->dev = st.st_dev;
	out->mtime = st.st_mtim;
	out->hash = ta_hash_bytes(bytes, len);
	return out->size == len ? 0 : -1;
}

int ta_write_atomic(const char *path, const void *bytes, size_t len, mode_t mode,
		    uid_t uid, gid_t gid, char **err)
{
	return ta_write_atomic_over(path, bytes, len, mode, uid, gid, NULL, err);
}

int ta_write_atomic_over(const char *path, const void *bytes, size_t len, mode_t mode,
			 uid_t uid, gid_t gid, const ta_file_state *was, char **err)
{
	char *dir = ta_path_dirname(path);
	const char *base = ta_path_basename(path);
	char *tmp = NULL;
	int fd = -1, e = 0;
	const char *step = "open";
	/* O_EXCL with a fresh name: never reuse or follow anything there. */
	for (int tries = 0; tries < 100 && fd < 0; tries++) {
		free(tmp);
		tmp = ta_xasprintf("%s/.%s.tileadvise-%ld-%d", dir, base, (long)getpid(), tries);
		if ((e = fault("open")) != 0)
			break;
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0 && errno != EEXIST) {
			e = errno;
			break;
		}
	}
	if (fd < 0) {
		if (!e)
			e = EEXIST;
		goto fail_noclean;
	}
	if (uid != (uid_t)-1 && fchown(fd, uid, gid) != 0) {
		/* Not ours to give away: the file keeps our ownership. */
	}
	step = "set the mode of";
	if (fchmod(fd, mode & 07777) != 0) {
		e = errno;
		goto fail;
	}
	step = "write";
	const char *p = bytes;
	size_t left = len;
	while (left > 0) {
		if ((e = fault("write")) != 0)
			goto fail;
		ssize_t w = write(fd, p, left);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			goto fail;
		}
		p += w;
		left -= (size_t)w;
	}
	step = "fsync";
	if ((e = fault("fsync")) != 0 || fsync(fd) != 0) {
		if (!e)
			e = errno;
		goto fail;
	}
	if (close(fd) != 0) {
		fd = -1;
		e = errno;
		goto fail;
	}
	fd = -1;
	/* Last look before the rename: a save made meanwhile (an editor) wins. */
	if (was && !still_as(path, was)) {
		unlink(tmp);
		*err = ta_xasprintf("%s changed on disk while tileadvise worked on it; nothing was written: "
				    "run tileadvise again on the current file", path);
		free(tmp);
		free(dir);
		return -2;
	}
	step = "rename";
	if ((e = fault("rename")) != 0 || rename(tmp, path) != 0) {
		if (!e)
			e = errno;
		goto fail;
	}
	step = "sync the folder of";
	if (fsync_dir(dir) != 0) {
		/* The new bytes are in place; only their durability is in doubt. */
		*err = ta_xasprintf("cannot sync the folder of %s: %s", path, strerror(errno));
		free(tmp);
		free(dir);
		return -1;
	}
	free(tmp);
	free(dir);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
fail_noclean:
	*err = ta_xasprintf("cannot %s %s: %s", step,
			    !strcmp(step, "open") ? "a temporary file beside" : path, strerror(e));
	free(tmp);
	free(dir);
	return -1;
}

static int make_dir(const char *dir, char **err)
{
	if (mkdir(dir, 0700) == 0 || errno == EEXIST) {
		struct stat st;
		if (lstat(dir, &st) == 0 && S_ISDIR(st.st_mode))
			return 0;
		*err = ta_xasprintf("%s exists and is not a folder; move it away", dir);
		return -1;
	}
	*err = ta_xasprintf("cannot create %s: %s", dir, strerror(errno));
	return -1;
}

/* ---- the journal --------------------------------------------------------- */

char *ta_hash_hex(uint64_t h)
{
	return ta_xasprintf("%016" PRIx64, h);
}

static bool hex_hash(const char *s, uint64_t *out)
{
	if (!s || strlen(s) != 16)
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 16);
	if (*end || errno)
		return false;
	*out = (uint64_t)v;
	return true;
}

/* A field that ends up in messages: printable, no line breaks or escapes. */
static bool plain_text(const char *s, size_t max)
{
	size_t n = 0;
	for (; s[n]; n++)
		if ((unsigned char)s[n] < 0x20 || s[n] == 0x7f)
			return false;
	return n > 0 && n <= max;
}

int ta_journal_open(const char *real_path, ta_journal **out, char **err)
{
	*out = NULL;
	ta_journal *j = ta_xcalloc(1, sizeof *j);
	char *folder = ta_path_dirname(real_path);
	j->dir = ta_path_join(folder, ".tileadvise");
	free(folder);
	j->file = ta_xstrdup(ta_path_basename(real_path));
	char *name = ta_xasprintf("journal-%s.json", j->file);
	j->path = ta_path_join(j->dir, name);
	free(name);
	if (!ta_path_exists(j->path)) {
		*out = j;
		return 0;
	}
	char *data, *why;
	size_t len;
	if (ta_read_file(j->path, (size_t)4 << 20, &data, &len, &why) != 0) {
		*err = ta_xasprintf("%s: %s", j->path, why);
		free(why);
		ta_journal_free(j);
		return -1;
	}
	json_error_t jerr;
	json_t *root = ta_json_loadb(data, len, 0, &jerr);
	free(data);
	const char *bad = NULL;
	json_t *v = root ? json_object_get(root, "version") : NULL;
	if (!root) {
		/* jansson quotes the bad bytes: keep the message one line. */
		for (char *p = jerr.text; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = ' ';
		bad = jerr.text;
	} else if (!json_is_integer(v)) {
		bad = "no \"version\"";
	} else if (json_integer_value(v) > TA_JOURNAL_VERSION) {
		*err = ta_xasprintf("%s was written by a newer tileadvise (journal version %lld); "
				    "use that version, or move the folder away to start afresh",
				    j->path, (long long)json_integer_value(v));
		json_decref(root);
		ta_journal_free(j);
		return -1;
	} else if (json_integer_value(v) < 1) {
		bad = "bad \"version\"";
	}
	json_t *entries = root ? json_object_get(root, "entries") : NULL;
	json_t *pos = root ? json_object_get(root, "position") : NULL;
	json_t *file = root ? json_object_get(root, "file") : NULL;
	json_t *next = root ? json_object_get(root, "next_version") : NULL;
	if (!bad && (!json_is_array(entries) || !json_is_integer(pos) || !json_is_string(file)))
		bad = "missing \"entries\", \"position\" or \"file\"";
	if (!bad && strcmp(json_string_value(file), j->file) != 0)
		bad = "it belongs to another file";
	size_t i;
	json_t *e;
	if (!bad) {
		json_array_foreach(entries, i, e) {
			ta_journal_entry *en = TA_PUSH(j->entries, j->count, j->cap);
			const char *id = json_string_value(json_object_get(e, "id"));
			const char *t = json_string_value(json_object_get(e, "time"));
			const char *b = json_string_value(json_object_get(e, "before"));
			const char *a = json_string_value(json_object_get(e, "after"));
			json_t *line = json_object_get(e, "line");
			if (!id || !b || !a || !json_is_integer(line) ||
			    !hex_hash(json_string_value(json_object_get(e, "before_hash")), &en->before_hash) ||
			    !hex_hash(json_string_value(json_object_get(e, "after_hash")), &en->after_hash) ||
			    strstr(b, "..") || strstr(a, "..") || b[0] == '/' || a[0] == '/' ||
			    !plain_text(id, 7) || !plain_text(b, 4096) || !plain_text(a, 4096)) {
				bad = "an entry lacks a field or has a bad one";
				break;
			}
			en->id = ta_xstrdup(id);
			en->time = ta_xstrdup(t ? t : "");
			en->before = ta_xstrdup(b);
			en->after = ta_xstrdup(a);
			en->line = (uint32_t)json_integer_value(line);
			en->pending = json_is_true(json_object_get(e, "pending"));
		}
	}
	if (!bad && (json_integer_value(pos) < 0 || (size_t)json_integer_value(pos) > j->count))
		bad = "\"position\" is out of range";
	if (bad) {
		*err = ta_xasprintf("%s is corrupted (%s); the kernel file was not touched. "
				    "Move the journal away to start afresh", j->path, bad);
		json_decref(root);
		ta_journal_free(j);
		return -1;
	}
	j->position = (size_t)json_integer_value(pos);
	j->next_version = json_is_integer(next) ? (unsigned)json_integer_value(next) : (unsigned)(2 * j->count);
	json_decref(root);
	*out = j;
	return 0;
}

void ta_journal_free(ta_journal *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->count; i++) {
		ta_journal_entry *e = &j->entries[i];
		free(e->id);
		free(e->time);
		free(e->before);
		free(e->after);
	}
	free(j->entries);
	free(j->dir);
	free(j->path);
	free(j->file);
	free(j);
}

int ta_journal_save(const ta_journal *j, char **err)
{
	if (make_dir(j->dir, err) != 0)
		return -1;
	json_t *root = json_object();
	json_object_set_new(root, "version", json_integer(TA_JOURNAL_VERSION));
	json_object_set_new(root, "file", json_string(j->file));
	json_t *arr = json_array();
	for (size_t i = 0; i < j->count; i++) {
		const ta_journal_entry *e = &j->entries[i];
		json_t *o = json_object();
		char *bh = ta_hash_hex(e->before_hash), *ah = ta_hash_hex(e->after_hash);
		json_object_set_new(o, "id", json_string(e->id));
		json_object_set_new(o, "line", json_integer(e->line));
		json_object_set_new(o, "time", json_string(e->time));
		json_object_set_new(o, "before_hash", json_string(bh));
		json_object_set_new(o, "after_hash", json_string(ah));
		json_object_set_new(o, "before", json_string(e->before));
		json_object_set_new(o, "after", json_string(e->after));
		if (e->pending)
			json_object_set_new(o, "pending", json_true());
		free(bh);
		free(ah);
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "entries", arr);
	json_object_set_new(root, "position", json_integer((json_int_t)j->position));
	json_object_set_new(root, "next_version", json_integer(j->next_version));
	char *text = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(root);
	ta_buf b = TA_BUF_INIT;
	ta_buf_puts(&b, text);
	ta_buf_putc(&b, '\n');
	free(text);
	int rc = ta_write_atomic(j->path, b.data, b.len, 0600, (uid_t)-1, (gid_t)-1, err);
	ta_buf_free(&b);
	return rc;
}

int ta_journal_put_version(ta_journal *j, const char *bytes, size_t len, char **rel, char **err)
{
	if (make_dir(j->dir, err) != 0)
		return -1;
	char *vdir = ta_path_join(j->dir, "versions");
	int rc = make_dir(vdir, err);
	char *fdir = ta_path_join(vdir, j->file);
	if (rc == 0)
		rc = make_dir(fdir, err);
	if (rc == 0) {
		*rel = ta_xasprintf("versions/%s/%u.py", j->file, j->next_version);
		char *full = ta_path_join(j->dir, *rel);
		rc = ta_write_atomic(full, bytes, len, 0600, (uid_t)-1, (gid_t)-1, err);
		free(full);
		if (rc == 0)
			j->next_version++;
		else {
			free(*rel);
			*rel = NULL;
		}
	}
	free(fdir);
	free(vdir);
	return rc;
}

int ta_journal_get_version(const ta_journal *j, const char *rel, char **bytes, size_t *len, char **err)
{
	char *full = ta_path_join(j->dir, rel);
	char *why;
	int rc = ta_read_file(full, TA_SOURCE_MAX_BYTES + 3, bytes, len, &why);
	if (rc != 0) {
		*err = ta_xasprintf("the saved version %s is missing or unreadable (%s)", full, why);
		free(why);
	}
	free(full);
	return rc;
}

void ta_journal_push(ta_journal *j, const char *id, uint32_t line, uint64_t before_hash,
		     uint64_t after_hash, const char *before, const char *after)
{
	while (j->count > j->position) {
		ta_journal_entry *e = &j->entries[--j->count];
		free(e->id);
		free(e->time);
		free(e->before);
		free(e->after);
	}
	ta_journal_entry *e = TA_PUSH(j->entries, j->count, j->cap);
	e->id = ta_xstrdup(id);
	e->line = line;
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	e->time = ta_xstrdup(when);
	e->before_hash = before_hash;
	e->after_hash = after_hash;
	e->before = ta_xstrdup(before);
	e->after = ta_xstrdup(after);
	j->position = j->count;
}

void ta_journal_mark_pending(ta_journal *j, bool pending)
{
	if (j->count)
		j->entries[j->count - 1].pending = pending;
}

void ta_journal_drop_last(ta_journal *j)
{
	if (j->count == 0)
		return;
	ta_journal_entry *e = &j->entries[--j->count];
	free(e->id);
	free(e->time);
	free(e->before);
	free(e->after);
	if (j->position > j->count)
		j->position = j->count;
}

bool ta_journal_reconcile(ta_journal *j, uint64_t file_hash)
{
	bool moved = false;
	if (j->count && j->entries[j->count - 1].pending) {
		ta_journal_entry *last = &j->entries[j->count - 1];
		if (file_hash == last->after_hash) {
			last->pending = false;
			moved = j->position != j->count;
			j->position = j->count;
		} else if (file_hash == last->before_hash) {
			/* Never written: an edit nobody sees must not come back by --redo. */
			ta_journal_drop_last(j);
			j->position = j->count;
			return true;
		}
	}
	if (j->count == 0)
		return moved;
	uint64_t expect = j->position > 0 ? j->entries[j->position - 1].after_hash : j->entries[0].before_hash;
	if (file_hash == expect)
		return moved;
	if (j->position < j->count && j->entries[j->position].after_hash == file_hash) {
		j->position++;
		return true;
	}
	if (j->position > 0 && j->entries[j->position - 1].before_hash == file_hash) {
		j->position--;
		return true;
	}
	return moved;
}

/* ---- one writer per kernel file ------------------------------------------ */

struct ta_journal_lock {
	char *path;               /* the lock file */
	int fd;
	unsigned depth;
};

/* One kernel file is edited at a time per process: one lock is enough. */
static ta_journal_lock held;

/* Removes dir's entries named like a careful write's temporary file
 * (".NAME.tileadvise-PID-N") whose PID no longer runs; only names starting
 * with prefix when it is non-NULL. */
static void clean_stale(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		const char *n = de->d_name;
		if (n[0] != '.' || (prefix && strncmp(n, prefix, strlen(prefix)) != 0))
			continue;
		const char *t = strstr(n, ".tileadvise-");
		if (!t)
			continue;
		char *end;
		long pid = strtol(t + 12, &end, 10);
		if (pid <= 0 || *end != '-' || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		char *full = ta_path_join(dir, n);
		struct stat st;
		if (lstat(full, &st) == 0 && S_ISREG(st.st_mode))
			unlink(full);
		free(full);
	}
	closedir(d);
}

ta_journal_lock *ta_journal_lock_take(const char *real_path, bool create, char **err)
{
	char *folder = ta_path_dirname(real_path);
	const char *base = ta_path_basename(real_path);
	char *dir = ta_path_join(folder, ".tileadvise");
	char *name = ta_xasprintf("lock-%s", base);
	char *path = ta_path_join(dir, name);
	free(name);
	*err = NULL;
	if (held.path && !strcmp(held.path, path)) {
		held.depth++;
		free(path);
		free(dir);
		free(folder);
		return &held;
	}
	ta_journal_lock *out = NULL;
	if (held.path) {
		*err = ta_xasprintf("tileadvise is already editing another file (%s)", held.path);
		goto done;
	}
	if (!create && !ta_path_exists(dir))
		goto done;
	if (make_dir(dir, err) != 0)
		goto done;
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		*err = ta_xasprintf("cannot open the lock %s: %s", path, strerror(errno));
		goto done;
	}
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	int waited = 0;
	while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		if ((errno != EWOULDBLOCK && errno != EINTR) ||
		    waited++ >= TA_JOURNAL_LOCK_WAIT_S * 50) {
			*err = errno == EWOULDBLOCK
			       ? ta_xasprintf("another tileadvise has been editing %s for %d s (it holds %s); "
					      "try again when it is done", real_path, TA_JOURNAL_LOCK_WAIT_S, path)
			       : ta_xasprintf("cannot lock %s: %s", path, strerror(errno));
			close(fd);
			goto done;
		}
		nanosleep(&nap, NULL);
	}
	held.path = path;
	held.fd = fd;
	held.depth = 1;
	path = NULL;
	out = &held;
	/* Ours alone now: what killed runs left behind can go. */
	char *prefix = ta_xasprintf(".%s.tileadvise-", base);
	clean_stale(folder, prefix);
	free(prefix);
	clean_stale(dir, NULL);
	char *vdir = ta_path_join(dir, "versions");
	char *fdir = ta_path_join(vdir, base);
	clean_stale(fdir, NULL);
	free(fdir);
	free(vdir);
done:
	free(path);
	free(dir);
	free(folder);
	return out;
}

void ta_journal_unlock(ta_journal_lock *l)
{
	if (!l || --l->depth > 0)
		return;
	close(l->fd);  /* releases the flock */
	free(l->path);
	l->path = NULL;
	l->fd = -1;
}
