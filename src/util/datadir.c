#include "config.h"
#include "util/datadir.h"
#include "util/buf.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* True when /proc/self/exe lies inside the build tree this binary was made in. */
static bool running_from_build_tree(void)
{
	static int cached = -1;
	if (cached >= 0)
		return cached;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	cached = 0;
	if (n > 0) {
		exe[n] = '\0';
		size_t lb = strlen(TA_BUILD_BUILDDIR);
		if (strncmp(exe, TA_BUILD_BUILDDIR, lb) == 0 && exe[lb] == '/')
			cached = 1;
	}
	return cached;
}

const char *ta_datadir(void)
{
	static char *dir;
	if (dir)
		return dir;
	const char *env = getenv("TILEADVISE_DATADIR");
	if (env && *env)
		dir = ta_xstrdup(env);
	else if (running_from_build_tree())
		dir = ta_xstrdup(TA_BUILD_SRCDIR "/data");
	else
		dir = ta_xstrdup(TA_PKGDATADIR);
	return dir;
}

const char *ta_libdir(void)
{
	static char *dir;
	if (dir)
		return dir;
	const char *env = getenv("TILEADVISE_LIBDIR");
	if (env && *env)
		dir = ta_xstrdup(env);
	else if (running_from_build_tree())
		dir = ta_xstrdup(TA_BUILD_BUILDDIR "/src/profile/inject/.libs");
	else
		dir = ta_xstrdup(TA_PKGLIBDIR);
	return dir;
}
