#include "config.h"
#include "util/fsutil.h"
#include "util/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ta_read_file(const char *path, size_t max_bytes, char **data, size_t *len, char **err)
{
	*data = NULL;
	*len = 0;
	*err = NULL;
	/* O_NONBLOCK: opening a FIFO (or a tty) must not wait for a writer;
	 * fstat then refuses it. Regular files ignore the flag. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		*err = ta_open_error(errno);
		return -1;
	}
	return ta_read_fd(fd, max_bytes, data, len, err);
}

char *ta_open_error(int e)
{
	if (e == ENOENT)
		return ta_xstrdup("no such file");
	if (e == EACCES)
		return ta_xstrdup("permission denied (check the file's read permission)");
	if (e == ELOOP)
		return ta_xstrdup("is a symlink; tileadvise does not read through it here");
	return ta_xasprintf("cannot open: %s", strerror(e));
}

int ta_read_fd(int fd, size_t max_bytes, char **data, size_t *len, char **err)
{
	*data = NULL;
	*len = 0;
	*err = NULL;
	struct stat st;
	if (fstat(fd, &st) != 0) {
		*err = ta_xasprintf("cannot stat: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		*err = ta_xstrdup("is a directory (give a .py file; --check accepts directories)");
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		*err = ta_xstrdup(S_ISFIFO(st.st_mode) ? "not a regular file (a FIFO)" : "not a regular file");
		close(fd);
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	if ((unsigned long long)st.st_size > max_bytes) {
		*err = ta_xasprintf("file is %.1f MiB, over the %.0f MiB limit",
				    st.st_size / 1048576.0, max_bytes / 1048576.0);
		close(fd);
		return -1;
	}
	/* Read to EOF rather than trusting st_size: the file may change under us. */
	size_t cap = (size_t)st.st_size + 1, n = 0;
	char *p = ta_xmalloc(cap + 1);
	for (;;) {
		if (n == cap) {
			if (n > max_bytes) {
				free(p);
				close(fd);
				*err = ta_xasprintf("file grew past the %.0f MiB limit while being read",
						    max_bytes / 1048576.0);
				return -1;
			}
			cap *= 2;
			p = ta_xrealloc(p, cap + 1);
		}
		ssize_t r = read(fd, p + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			*err = ta_xasprintf("read error: %s", strerror(errno));
			free(p);
			close(fd);
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (n > max_bytes) {
		free(p);
		*err = ta_xasprintf("file is over the %.0f MiB limit", max_bytes / 1048576.0);
		return -1;
	}
	p[n] = '\0';
	*data = p;
	*len = n;
	return 0;
}

char *ta_path_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return ta_xstrdup(".");
	if (slash == path)
		return ta_xstrdup("/");
	return ta_xstrndup(path, (size_t)(slash - path));
}

const char *ta_path_basename(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

char *ta_path_join(const char *a, const char *b)
{
	size_t la = strlen(a);
	if (la && a[la - 1] == '/')
		return ta_xasprintf("%s%s", a, b);
	return ta_xasprintf("%s/%s", a, b);
}

bool ta_path_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool ta_path_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}
