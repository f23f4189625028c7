#include "config.h"
#include "advise/statedir.h"
#include "advise/journal.h"
#include "util/buf.h"
#include "util/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the folder's .gitignore says: everything in it stays out. */
static const char GITIGNORE[] = "# Made by tileadvise: its journal, saved versions, sessions and locks.\n*\n";

/* Why the name in dirfd cannot be opened as a folder (after ELOOP or
 * ENOTDIR from an O_NOFOLLOW open), for a message. */
static const char *not_folder(int dirfd, const char *name)
{
	struct stat st;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		return "is a symlink; tileadvise keeps its state only in a real folder: remove the link";
	return "exists and is not a folder; move it away";
}

/* Opens (making it when create) the folder name in dirfd without following
 * a link; made 0700 with the owner given. -1 with *err, or -1 without when
 * it is missing and create is false. */
static int open_folder(int dirfd, const char *name, const char *shown, bool create, uid_t uid,
		       gid_t gid, bool *made, char **err)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(dirfd, name, 0700) == 0) {
			if (made)
				*made = true;
		} else if (errno != EEXIST) {
			*err = ta_xasprintf("cannot create %s: %s", shown, strerror(errno));
			return -1;
		}
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && uid != (uid_t)-1 && fchown(fd, uid, gid) != 0) {
			/* not ours to give away: it stays ours */
		}
	}
	if (fd >= 0)
		return fd;
	if (errno == ENOENT && !create)
		return -1;
	if (errno == ELOOP || errno == ENOTDIR)
		*err = ta_xasprintf("%s %s", shown, not_folder(dirfd, name));
	else
		*err = ta_xasprintf("cannot open %s: %s", shown, strerror(errno));
	return -1;
}

int ta_state_open(const char *kernel_path, bool create, ta_state_dir *d, char **err)
{
	*d = (ta_state_dir){ .fd = -1, .dfd_parent = -1, .uid = (uid_t)-1, .gid = (gid_t)-1, .mode = 0600 };
	char *folder = ta_path_dirname(kernel_path);
	d->path = ta_path_join(folder, ".tileadvise");
	struct stat st;
	if (stat(kernel_path, &st) == 0) {
		d->uid = st.st_uid;
		d->gid = st.st_gid;
		/* read and write bits only, and always the owner's */
		d->mode = (st.st_mode & 0666) | 0600;
	}
	int dfd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(folder);
	if (dfd < 0) {
		*err = ta_xasprintf("cannot open the folder of %s: %s", kernel_path, strerror(errno));
		return -1;
	}
	*err = NULL;
	d->fd = open_folder(dfd, ".tileadvise", d->path, create, d->uid, d->gid, &d->made, err);
	if (d->fd >= 0 && d->made) {
		/* made here: keep it out of `git status` (journal, versions,
		 * sessions, locks); a folder that was there is left as it is */
		char *ignored = NULL;
		if (ta_state_write(d, ".gitignore", GITIGNORE, strlen(GITIGNORE), &ignored) != 0) {
			/* a folder that takes no file takes no journal either: the
			 * write that follows says why */
		}
		free(ignored);
	}
	if (d->fd < 0)
		d->made = false;
	if (d->made)
		d->dfd_parent = dfd;
	else
		close(dfd);
	if (d->fd >= 0)
		return 0;
	return *err ? -1 : 1;
}

void ta_state_drop_if_unused(ta_state_dir *d)
{
	if (!d->made || d->fd < 0 || d->dfd_parent < 0)
		return;
	int fd = dup(d->fd);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	bool only_ignore = true;
	struct dirent *e;
	while (only_ignore && (e = readdir(dir)) != NULL)
		only_ignore = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".gitignore");
	closedir(dir);
	if (only_ignore && unlinkat(d->fd, ".gitignore", 0) == 0 && unlinkat(d->dfd_parent, ".tileadvise", AT_REMOVEDIR) != 0) {
		/* something came meanwhile: the folder stays, without the file */
		char *ignored = NULL;
		if (ta_state_write(d, ".gitignore", GITIGNORE, strlen(GITIGNORE), &ignored) != 0) {
			/* as at making */
		}
		free(ignored);
	}
}

void ta_state_close(ta_state_dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	if (d->dfd_parent >= 0)
		close(d->dfd_parent);
	d->dfd_parent = -1;
	d->fd = -1;
	free(d->path);
	d->path = NULL;
}

int ta_state_subdir(const ta_state_dir *d, const char *rel, bool create, char **err)
{
	*err = NULL;
	int fd = dup(d->fd);
	if (fd < 0) {
		*err = ta_xasprintf("cannot open %s: %s", d->path, strerror(errno));
		return -1;
	}
	ta_buf shown = TA_BUF_INIT;
	ta_buf_puts(&shown, d->path);
	for (const char *p = rel; *p && fd >= 0;) {
		size_t n = strcspn(p, "/");
		char *name = ta_xstrndup(p, n);
		ta_buf_printf(&shown, "/%s", name);
		int next = n && strcmp(name, ".") && strcmp(name, "..")
			   ? open_folder(fd, name, ta_buf_str(&shown), create, d->uid, d->gid, NULL, err) : -1;
		if (next < 0 && !*err && (!n || !strcmp(name, ".") || !strcmp(name, "..")))
			*err = ta_xasprintf("%s: not a folder of %s", rel, d->path);
		free(name);
		close(fd);
		fd = next;
		p += n;
		if (*p == '/')
			p++;
	}
	ta_buf_free(&shown);
	return fd;
}

/* The folder of rel's last component (opened, caller closes) and that
 * component; -1 as ta_state_subdir. */
static int parent_of(const ta_state_dir *d, const char *rel, bool create, const char **name, char **err)
{
	const char *slash = strrchr(rel, '/');
	*name = slash ? slash + 1 : rel;
	if (!**name || !strcmp(*name, ".") || !strcmp(*name, "..")) {
		*err = ta_xasprintf("%s: not a file of %s", rel, d->path);
		return -1;
	}
	if (!slash) {
		*err = NULL;
		int fd = dup(d->fd);
		if (fd < 0)
			*err = ta_xasprintf("cannot open %s: %s", d->path, strerror(errno));
		return fd;
	}
	char *dir = ta_xstrndup(rel, (size_t)(slash - rel));
	int fd = ta_state_subdir(d, dir, create, err);
	free(dir);
	return fd;
}

int ta_state_write(const ta_state_dir *d, const char *rel, const void *bytes, size_t len, char **err)
{
	const char *name;
	int dfd = parent_of(d, rel, true, &name, err);
	if (dfd < 0)
		return -1;
	char *shown = ta_path_join(d->path, rel);
	ta_write_at w = { .dirfd = dfd, .name = name, .shown = shown, .mode = d->mode, .uid = d->uid,
			  .gid = d->gid, .refuse_special = true };
	int rc = ta_write_atomic_at(&w, bytes, len, err);
	free(shown);
	close(dfd);
	return rc;
}

int ta_state_read(const ta_state_dir *d, const char *rel, size_t max, char **data, size_t *len,
		  char **err)
{
	*data = NULL;
	*len = 0;
	if (d->fd < 0)
		return 1;
	const char *name;
	int dfd = parent_of(d, rel, false, &name, err);
	if (dfd < 0)
		return *err ? -1 : 1;
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	int e = errno;
	close(dfd);
	char *shown = ta_path_join(d->path, rel);
	if (fd < 0 && e == ENOENT) {
		free(shown);
		return 1;
	}
	char *why = NULL;
	int rc = fd < 0 ? (why = ta_open_error(e), -1) : ta_read_fd(fd, max, data, len, &why);
	if (rc != 0)
		*err = ta_xasprintf("%s: %s", shown, why);
	free(why);
	free(shown);
	return rc;
}

int ta_state_lock_file(const ta_state_dir *d, const char *name, char **err)
{
	char *shown = ta_path_join(d->path, name);
	int fd = openat(d->fd, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		fd = openat(d->fd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, d->mode);
		if (fd >= 0 && d->uid != (uid_t)-1 && fchown(fd, d->uid, d->gid) != 0) {
			/* not ours to give away */
		}
		if (fd < 0 && errno == EEXIST)   /* made meanwhile by another tileadvise */
			fd = openat(d->fd, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	}
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		*err = ta_xasprintf("the lock %s is not a regular file; move it away", shown);
		free(shown);
		return -1;
	}
	if (fd < 0) {
		*err = errno == ELOOP ? ta_xasprintf("the lock %s is a symlink; tileadvise writes nothing through it: "
						     "remove it", shown)
				      : ta_xasprintf("cannot open the lock %s: %s", shown, strerror(errno));
		free(shown);
		return -1;
	}
	free(shown);
	return fd;
}

char *ta_state_kernel_of(const char *path, const char *prefix, const char *suffix)
{
	char *dir = ta_path_dirname(path);
	const char *base = ta_path_basename(path);
	size_t bl = strlen(base), pl = strlen(prefix), sl = strlen(suffix);
	char *kernel = NULL;
	if (!strcmp(ta_path_basename(dir), ".tileadvise") && bl > pl + sl && !strncmp(base, prefix, pl) &&
	    !strcmp(base + bl - sl, suffix)) {
		char *top = ta_path_dirname(dir);
		char *name = ta_xstrndup(base + pl, bl - pl - sl);
		kernel = ta_path_join(top, name);
		free(name);
		free(top);
	}
	free(dir);
	return kernel;
}
