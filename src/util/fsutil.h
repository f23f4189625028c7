/* File-system helpers with errors returned as messages a user can act on. */
#ifndef TA_UTIL_FSUTIL_H
#define TA_UTIL_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>

/* Reads a whole regular file of at most max_bytes. On success returns 0 and
 * sets *data (caller frees; NUL-terminated) and *len. On failure returns -1
 * and sets *err (caller frees) to a one-line reason without the file name. */
int ta_read_file(const char *path, size_t max_bytes, char **data, size_t *len, char **err);

/* The same for an open file descriptor, which it closes. */
int ta_read_fd(int fd, size_t max_bytes, char **data, size_t *len, char **err);
/* The one-line reason ta_read_file gives for open's errno e (caller frees). */
char *ta_open_error(int e);

/* Directory part of path ("." when none); caller frees. */
char *ta_path_dirname(const char *path);
/* Last component of path; points into path. */
const char *ta_path_basename(const char *path);
/* a "/" b; caller frees. */
char *ta_path_join(const char *a, const char *b);
bool ta_path_is_dir(const char *path);
bool ta_path_exists(const char *path);

#endif
