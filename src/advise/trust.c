#include "config.h"
#include "advise/trust.h"
#include "advise/journal.h"
#include "analyze/source.h"
#include "util/buf.h"
#include "util/fsutil.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The folder of remembered yeses; caller frees; NULL without a home. */
static char *allow_dir(void)
{
	const char *x = getenv("XDG_DATA_HOME");
	if (x && x[0] == '/')
		return ta_xasprintf("%s/tileadvise/allow", x);
	const char *h = getenv("HOME");
	if (h && h[0] == '/')
		return ta_xasprintf("%s/.local/share/tileadvise/allow", h);
	return NULL;
}

/* What is allowed, as text: the file and each command word on a line of
 * its own (NUL-separated in the hash, so no two lists look alike). */
static void describe(ta_buf *b, const char *kernel_path, char *const *command, const char *test)
{
	char *abs = realpath(kernel_path, NULL);
	ta_buf_puts(b, abs ? abs : kernel_path);
	free(abs);
	ta_buf_putc(b, '\0');
	ta_buf_puts(b, "command");
	for (size_t i = 0; command && command[i]; i++) {
		ta_buf_putc(b, '\0');
		ta_buf_puts(b, command[i]);
	}
	ta_buf_putc(b, '\0');
	ta_buf_puts(b, "test");
	ta_buf_putc(b, '\0');
	ta_buf_puts(b, test ? test : "");
}

static char *allow_path(const char *kernel_path, char *const *command, const char *test, char **dir)
{
	*dir = allow_dir();
	if (!*dir)
		return NULL;
	ta_buf b = TA_BUF_INIT;
	describe(&b, kernel_path, command, test);
	char *h = ta_hash_hex(ta_hash_bytes(b.data, b.len));
	ta_buf_free(&b);
	char *p = ta_path_join(*dir, h);
	free(h);
	return p;
}

bool ta_trust_allowed(const char *kernel_path, char *const *command, const char *test)
{
	char *dir;
	char *p = allow_path(kernel_path, command, test, &dir);
	struct stat st;
	bool yes = p && lstat(p, &st) == 0 && S_ISREG(st.st_mode);
	free(p);
	free(dir);
	return yes;
}

/* mkdir -p for the folders under a home. */
static int make_dirs(const char *dir, char **err)
{
	char *d = ta_xstrdup(dir);
	for (char *s = d + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(d, 0700) != 0 && errno != EEXIST) {
			*err = ta_xasprintf("cannot create %s: %s", d, strerror(errno));
			free(d);
			return -1;
		}
		if (c == '\0')
			break;
		*s = c;
	}
	free(d);
	return 0;
}

int ta_trust_allow(const char *kernel_path, char *const *command, const char *test, char **err)
{
	char *dir;
	char *p = allow_path(kernel_path, command, test, &dir);
	if (!p) {
		*err = ta_xstrdup("neither XDG_DATA_HOME nor HOME is set: allowed for this time only");
		return -1;
	}
	int rc = make_dirs(dir, err);
	if (rc == 0) {
		/* Readable by people: what was allowed, one item a line. */
		ta_buf b = TA_BUF_INIT;
		describe(&b, kernel_path, command, test);
		for (size_t i = 0; i < b.len; i++)
			if (b.data[i] == '\0')
				b.data[i] = '\n';
		ta_buf_putc(&b, '\n');
		rc = ta_write_atomic(p, b.data, b.len, 0600, (uid_t)-1, (gid_t)-1, err);
		ta_buf_free(&b);
	}
	free(p);
	free(dir);
	return rc;
}
