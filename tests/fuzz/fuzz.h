/* Shared helpers of the fuzz targets (libFuzzer entry points; see
 * tests/fuzz/README in tests/ROBUSTNESS.md). Each target is one .c file that
 * includes this header once. */
#ifndef TA_FUZZ_H
#define TA_FUZZ_H

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/fsutil.h"

/* Stops the run with a message: libFuzzer records the input as a crash. */
#define FUZZ_CHECK(cond, ...)                                                     \
	do {                                                                      \
		if (!(cond)) {                                                    \
			fprintf(stderr, "fuzz: check failed at %s:%d: %s\n", __FILE__, \
				__LINE__, #cond);                                 \
			fprintf(stderr, "fuzz: " __VA_ARGS__);                    \
			fputc('\n', stderr);                                      \
			abort();                                                  \
		}                                                                 \
	} while (0)

/* A private folder for targets that need files (removed at exit by nobody:
 * it lives under TMPDIR and is reused within one process). */
static inline char *fuzz_tmpdir(void)
{
	static char *dir;
	if (dir)
		return dir;
	const char *t = getenv("TMPDIR");
	/* /dev/shm keeps the many small writes off the disk where it exists. */
	if (!t || !*t)
		t = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	dir = ta_xasprintf("%s/ta-fuzz-%ld-XXXXXX", t, (long)getpid());
	if (!mkdtemp(dir)) {
		perror("fuzz: mkdtemp");
		abort();
	}
	return dir;
}

static inline int fuzz_rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(p);
	return 0;
}

/* Removes path and everything under it (no process started). */
static inline void fuzz_rm_rf(const char *path)
{
	nftw(path, fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static inline void fuzz_cleanup(void)
{
	char *d = fuzz_tmpdir();
	fuzz_rm_rf(d);
}

/* Data files from the source tree unless the caller said otherwise; the
 * injector and python3 are never run from a fuzz target. */
static inline void fuzz_init_env(void)
{
	setenv("TILEADVISE_DATADIR", TA_FUZZ_SRCDIR "/data", 0);
	setenv("PYTHON3", "/nonexistent/python3-not-for-fuzzing", 1);
}

static inline void fuzz_write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	FUZZ_CHECK(f != NULL, "cannot write %s", path);
	if (len)
		FUZZ_CHECK(fwrite(data, 1, len, f) == len, "short write to %s", path);
	FUZZ_CHECK(fclose(f) == 0, "cannot close %s", path);
}

/* A message for the user: one line, not empty. */
static inline void fuzz_check_message(const char *msg)
{
	FUZZ_CHECK(msg != NULL && *msg, "an error without a message");
	FUZZ_CHECK(strchr(msg, '\n') == NULL, "a message of several lines: %s", msg);
}

#endif
