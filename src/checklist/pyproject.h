/* A project's settings for --check, read from the [tool.tileadvise] table
 * of its pyproject.toml (with toml++), as ruff reads [tool.ruff]:
 *
 *   [tool.tileadvise]
 *   select = ["S", "P1"]          # or "S,P1"; as --select
 *   ignore = ["D4"]               # as --ignore
 *   extend-select = ["X1"]        # as --extend-select (added to --extend-select's)
 *   [tool.tileadvise.per-file-ignores]
 *   "tests/test_*.py" = ["P1"]    # ids left out of the files a pattern matches
 *   exclude = ["gen/", "*_pb2.py"] # as --exclude, from this file's folder
 *   extend-exclude = [...]        # the same (added to exclude)
 *   output-format = "github"      # as --format
 *   respect-gitignore = false     # read folders' files .gitignore leaves out
 *   preview = true                # as --preview
 *
 * The command line's --select, --ignore and --format replace the file's;
 * --exclude patterns add to its; --preview turns preview on either way. */
#ifndef TA_CHECKLIST_PYPROJECT_H
#define TA_CHECKLIST_PYPROJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct ta_project {
	char *path;               /* the pyproject.toml read; NULL: none */
	char *dir;                /* its folder, absolute (anchors exclude) */
	char *select, *ignore;    /* comma-separated; NULL: not set */
	char *extend_select;      /* comma-separated; NULL: not set */
	char **pfi_patterns;      /* per-file-ignores: a pattern (as exclude's) ... */
	char **pfi_ids;           /* ... and its ids, comma-separated */
	size_t n_pfi;
	char **exclude;           /* exclude, then extend-exclude */
	size_t n_exclude;
	char *output_format;      /* NULL: not set */
	int respect_gitignore;    /* -1 not set, else 0 or 1 */
	int preview;              /* -1 not set, else 0 or 1 (as --preview) */
} ta_project;

/* Looks in start (a folder) and each folder above it for a pyproject.toml
 * with a [tool.tileadvise] table and reads the first found. Returns 0 (with
 * p->path NULL when there is none) or -1 when that file is not valid TOML or
 * a setting has the wrong type (*err: "FILE:LINE:COL: what", to free).
 * Keys it does not read are named on warn and left out. Built without
 * toml++, a pyproject.toml that mentions tileadvise is named on warn as not
 * read. */
int ta_project_find(const char *start, ta_project *p, FILE *warn, char **err);
void ta_project_free(ta_project *p);

/* Whether [tool.tileadvise] can be read (built with toml++). */
bool ta_project_reads_toml(void);

/* toml_read.cc: parses path; 1 with p filled when it has the table, 0 when
 * it has none, -1 on an error (as ta_project_find). */
int ta_project_parse(const char *path, ta_project *p, FILE *warn, char **err);

#endif
