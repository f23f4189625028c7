/* Which files `--check DIR` reads, as linters choose them: *.py files under
 * each folder, passing over hidden files and folders, virtual environments
 * (a folder with pyvenv.cfg or conda-meta/), installed packages
 * (site-packages, dist-packages), caches and build output (node_modules,
 * __pycache__, __pypackages__, build, dist, _build, buck-out, *.egg-info),
 * what the repository's .gitignore files leave out (with libgit2), and the
 * exclude patterns of the command line and of pyproject.toml. Paths named
 * on the command line are always read, whatever these rules say. */
#ifndef TA_UI_DISCOVER_H
#define TA_UI_DISCOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/exitcode.h"

/* A glob (fnmatch): without a '/', it matches a file or folder name at any
 * depth; with one, a path from base (an absolute folder: where the
 * pyproject.toml lies, or the current folder for --exclude). A trailing
 * '/' matches folders only; a leading "**" followed by '/' matches at any
 * depth under base, and a trailing '/' followed by "**" the folder and
 * everything in it. */
typedef struct ta_exclude {
	const char *pattern;
	const char *base;
} ta_exclude;

/* Whether path (a file: absolute, or from the current folder) matches e,
 * as a per-file-ignores key is read: a pattern without '/' matches the
 * file's name, one with '/' its path from base ("tests/test_*.py"; a
 * leading "**" and '/' at any depth), and "DIR/" followed by "**" every
 * file below DIR. */
bool ta_discover_matches(const ta_exclude *e, const char *path);

typedef struct ta_discover {
	const ta_exclude *exclude;
	size_t n_exclude;
	bool respect_gitignore;   /* read .gitignore (with libgit2) */
} ta_discover;

/* The files to check, in the order given (each folder's files sorted by
 * name): appended to *paths (count *n, capacity *cap), each allocated. "-"
 * (standard input) is kept once; a second one, and a folder that cannot be
 * read or lies more than 64 levels down, are named on err and set *rc to
 * TA_EXIT_ERROR. */
void ta_discover_files(char *const *args, int count, const ta_discover *d, char ***paths, size_t *n,
		       size_t *cap, FILE *err, ta_exit *rc);

/* Whether .gitignore files can be read (built with libgit2). */
bool ta_discover_reads_gitignore(void);

#endif
