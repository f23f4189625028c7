#include "config.h"
#include "advise/journal.h"
#include "advise/json_read.h"
#include "advise/statedir.h"
#include "analyze/source.h"
#include "util/buf.h"
#include "util/fsutil.h"
#include "util/json.h"

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

static int fsync_dirfd(int dfd)
{
	int e = fault("dirsync");
	if (e) {
		errno = e;
		return -1;
	}
	int rc = fsync(dfd);
	/* Some file systems cannot sync a directory; the rename stands. */
	if (rc != 0 && (errno == EINVAL || errno == ENOTSUP))
		rc = 0;
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
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (dfd < 0) {
		*err = ta_xasprintf("cannot open the folder of %s: %s", path, strerror(errno));
		return -1;
	}
	ta_write_at w = { .dirfd = dfd, .name = ta_path_basename(path), .shown = path, .mode = mode,
			  .uid = uid, .gid = gid, .was = was };
	int rc = ta_write_atomic_at(&w, bytes, len, err);
	close(dfd);
	return rc;
}

/* Why an existing name a careful write would replace is refused, or NULL. */
static const char *not_plain(int dirfd, const char *name)
{
	struct stat st;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return NULL;
	if (S_ISLNK(st.st_mode))
		return "is a symlink";
	if (S_ISFIFO(st.st_mode))
		return "is a FIFO, not a regular file";
	if (S_ISDIR(st.st_mode))
		return "is a folder";
	if (!S_ISREG(st.st_mode))
		return "is not a regular file";
	return NULL;
}

int ta_write_atomic_at(const ta_write_at *w, const void *bytes, size_t len, char **err)
{
	char *tmp = NULL;
	int fd = -1, e = 0;
	const char *step = "open";
	if (w->refuse_special) {
		const char *why = not_plain(w->dirfd, w->name);
		if (why) {
			*err = ta_xasprintf("%s %s; tileadvise writes nothing through it: remove it", w->shown, why);
			return -1;
		}
	}
	/* O_EXCL with a fresh name: never reuse or follow anything there. */
	for (int tries = 0; tries < 100 && fd < 0; tries++) {
		free(tmp);
		tmp = ta_xasprintf(".%s.tileadvise-%ld-%d", w->name, (long)getpid(), tries);
		if ((e = fault("open")) != 0)
			break;
		fd = openat(w->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
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
	if (w->uid != (uid_t)-1 && fchown(fd, w->uid, w->gid) != 0) {
		/* Not ours to give away: the file keeps our ownership. */
	}
	step = "set the mode of";
	if (fchmod(fd, w->mode & 07777) != 0) {
		e = errno;
		goto fail;
	}
	step = "write";
	const char *p = bytes;
	size_t left = len;
	while (left > 0) {
		if ((e = fault("write")) != 0)
			goto fail;
		ssize_t n = write(fd, p, left);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			goto fail;
		}
		p += n;
		left -= (size_t)n;
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
	if (w->was && !still_as(w->shown, w->was)) {
		unlinkat(w->dirfd, tmp, 0);
		*err = ta_xasprintf("%s changed on disk while tileadvise worked on it; nothing was written: "
				    "run tileadvise again on the current file", w->shown);
		free(tmp);
		return -2;
	}
	/* Again just before the rename: nothing planted meanwhile is replaced. */
	if (w->refuse_special && not_plain(w->dirfd, w->name)) {
		unlinkat(w->dirfd, tmp, 0);
		*err = ta_xasprintf("%s %s; tileadvise writes nothing through it: remove it", w->shown,
				    not_plain(w->dirfd, w->name));
		free(tmp);
		return -1;
	}
	step = "rename";
	if ((e = fault("rename")) != 0 || renameat(w->dirfd, tmp, w->dirfd, w->name) != 0) {
		if (!e)
			e = errno;
		goto fail;
	}
	step = "sync the folder of";
	if (fsync_dirfd(w->dirfd) != 0) {
		/* The new bytes are in place; only their durability is in doubt. */
		*err = ta_xasprintf("cannot sync the folder of %s: %s", w->shown, strerror(errno));
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	unlinkat(w->dirfd, tmp, 0);
fail_noclean:
	*err = ta_xasprintf("cannot %s %s: %s", step,
			    !strcmp(step, "open") ? "a temporary file beside" : w->shown, strerror(e));
	free(tmp);
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

/* A saved version's path as ta_journal_put_version makes it:
 * versions/NAME/N.py, NAME the journal's file (any bytes), N a number. */
static bool version_path(const ta_journal *j, const char *rel)
{
	size_t fl = strlen(j->file);
	if (strncmp(rel, "versions/", 9) || strncmp(rel + 9, j->file, fl) || rel[9 + fl] != '/')
		return false;
	const char *n = rel + 10 + fl;
	size_t digits = strspn(n, "0123456789");
	return digits > 0 && digits <= 10 && !strcmp(n + digits, ".py");
}

int ta_journal_open(const char *real_path, ta_journal **out, char **err)
{
	*out = NULL;
	ta_journal *j = ta_xcalloc(1, sizeof *j);
	char *folder = ta_path_dirname(real_path);
	j->dir = ta_path_join(folder, ".tileadvise");
	free(folder);
	j->kernel = ta_xstrdup(real_path);
	j->file = ta_xstrdup(ta_path_basename(real_path));
	char *name = ta_xasprintf("journal-%s.json", j->file);
	j->path = ta_path_join(j->dir, name);
	/* Read through the state folder: a link there is refused, not followed. */
	ta_state_dir d;
	char *data = NULL;
	size_t len = 0;
	int rc = ta_state_open(real_path, false, &d, err);
	if (rc == 0)
		rc = ta_state_read(&d, name, (size_t)4 << 20, &data, &len, err);
	ta_state_close(&d);
	free(name);
	if (rc != 0) {
		if (rc < 0) {
			ta_journal_free(j);
			return -1;
		}
		*out = j;   /* no journal yet: an empty one */
		return 0;
	}
	json_error_t jerr;
	json_t *root = ta_json_loadb(data, len, 0, &jerr);
	free(data);
	const char *bad = NULL;
	json_t *v = root ? json_object_get(root, "version") : NULL;
	if (root && ta_json_take_bytes(root) != 0) {
		bad = "a field's exact bytes (_bytes) are not base64";
	} else if (!root) {
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
			    !version_path(j, b) || !version_path(j, a) || !plain_text(id, 7)) {
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
	free(j->kernel);
	free(j);
}

int ta_journal_save(const ta_journal *j, char **err)
{
	json_t *root = json_object();
	json_object_set_new(root, "version", json_integer(TA_JOURNAL_VERSION));
	json_object_set_new(root, "file", ta_json_raw(j->file));
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
		json_object_set_new(o, "before", ta_json_raw(e->before));
		json_object_set_new(o, "after", ta_json_raw(e->after));
		if (e->pending)
			json_object_set_new(o, "pending", json_true());
		free(bh);
		free(ah);
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "entries", arr);
	json_object_set_new(root, "position", json_integer((json_int_t)j->position));
	json_object_set_new(root, "next_version", json_integer(j->next_version));
	/* Every field whole, or nothing written: a name that is not UTF-8
	 * keeps its bytes beside it (util/json.h). */
	char *text = ta_json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (!text) {
		*err = ta_xasprintf("cannot write %s: the journal could not be made whole", j->path);
		return -1;
	}
	ta_buf b = TA_BUF_INIT;
	ta_buf_puts(&b, text);
	ta_buf_putc(&b, '\n');
	free(text);
	ta_state_dir d;
	int rc = ta_state_open(j->kernel, true, &d, err);
	if (rc == 0)
		rc = ta_state_write(&d, ta_path_basename(j->path), b.data, b.len, err);
	ta_state_close(&d);
	ta_buf_free(&b);
	return rc;
}

int ta_journal_put_version(ta_journal *j, const char *bytes, size_t len, char **rel, char **err)
{
	ta_state_dir d;
	int rc = ta_state_open(j->kernel, true, &d, err);
	if (rc == 0) {
		*rel = ta_xasprintf("versions/%s/%u.py", j->file, j->next_version);
		rc = ta_state_write(&d, *rel, bytes, len, err);
		if (rc == 0)
			j->next_version++;
		else {
			free(*rel);
			*rel = NULL;
		}
	}
	ta_state_close(&d);
	return rc;
}

int ta_journal_get_version(const ta_journal *j, const char *rel, char **bytes, size_t *len, char **err)
{
	char *full = ta_path_join(j->dir, rel);
	char *why = NULL;
	ta_state_dir d;
	int rc = ta_state_open(j->kernel, false, &d, &why);
	if (rc == 0)
		rc = ta_state_read(&d, rel, TA_SOURCE_MAX_BYTES + 3, bytes, len, &why);
	ta_state_close(&d);
	if (rc != 0) {
		*err = ta_xasprintf("the saved version %s is missing or unreadable (%s)", full,
				    why ? why : "no such file");
		free(why);
		rc = -1;
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
	char *name;               /* its name in sd */
	ta_state_dir sd;          /* the state folder, open while held */
	int fd;
	unsigned depth;
};

/* One kernel file is edited at a time per process: one lock is enough. */
static ta_journal_lock held;

/* Removes the entries of the folder dfd (closed here) named like a careful
 * write's temporary file (".NAME.tileadvise-PID-N") whose PID no longer
 * runs; only names starting with prefix when it is non-NULL. */
static void clean_stale(int dfd, const char *prefix)
{
	if (dfd < 0)
		return;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
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
		struct stat st;
		if (fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
			unlinkat(dirfd(d), n, 0);
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
	*err = NULL;
	ta_state_dir sd = { .fd = -1, .dfd_parent = -1 };
	if (held.path && !strcmp(held.path, path)) {
		held.depth++;
		free(name);
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
	if (ta_state_open(real_path, create, &sd, err) != 0)
		goto done;   /* refused (*err), or no .tileadvise/ and none wanted */
	int fd;
	int waited = 0;
	for (;;) {
		fd = ta_state_lock_file(&sd, name, err);
		if (fd < 0)
			goto done;
		struct timespec nap = { 0, 20 * 1000 * 1000 };
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
		/* The holder before us removes the lock file as it lets go (so
		 * that no run leaves one behind): ours counts only if it is
		 * still the file of that name, else take the one there now. */
		struct stat locked, named;
		if (fstat(fd, &locked) == 0 && fstatat(sd.fd, name, &named, AT_SYMLINK_NOFOLLOW) == 0 &&
		    locked.st_ino == named.st_ino && locked.st_dev == named.st_dev)
			break;
		close(fd);
	}
	held.path = path;
	held.name = name;
	held.fd = fd;
	held.depth = 1;
	path = NULL;
	name = NULL;
	out = &held;
	/* Ours alone now: what killed runs left behind can go. */
	char *prefix = ta_xasprintf(".%s.tileadvise-", base);
	clean_stale(open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC), prefix);
	free(prefix);
	clean_stale(dup(sd.fd), NULL);
	char *vrel = ta_xasprintf("versions/%s", base);
	char *ignored = NULL;
	clean_stale(ta_state_subdir(&sd, vrel, false, &ignored), NULL);
	free(ignored);
	free(vrel);
	held.sd = sd;   /* kept open until the unlock */
	sd = (ta_state_dir){ .fd = -1, .dfd_parent = -1 };
done:
	ta_state_close(&sd);
	free(name);
	free(path);
	free(dir);
	free(folder);
	return out;
}

void ta_journal_unlock(ta_journal_lock *l)
{
	if (!l || --l->depth > 0)
		return;
	/* Ours while held (see the take): removed before the flock goes, so a
	 * refused --apply or a run that changed nothing leaves no lock, and a
	 * state folder this run made and left empty goes too. */
	unlinkat(l->sd.fd, l->name, 0);
	close(l->fd);
	ta_state_drop_if_unused(&l->sd);
	ta_state_close(&l->sd);
	free(l->path);
	free(l->name);
	l->path = NULL;
	l->name = NULL;
	l->fd = -1;
}
