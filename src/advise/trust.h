/* Commands a session file stores (the profiled command, the test) come
 * from whoever wrote `.tileadvise/`, perhaps a repository: they run only
 * once the user has said yes to exactly them for this kernel file. The
 * yes is remembered, as direnv's `allow` does, in
 * $XDG_DATA_HOME/tileadvise/allow/HASH (default ~/.local/share/...), HASH
 * being of the kernel's absolute path and the commands: a changed command
 * or another file asks again. */
#ifndef TA_ADVISE_TRUST_H
#define TA_ADVISE_TRUST_H

#include <stdbool.h>

/* Whether the user allowed command (NULL-terminated, may be NULL) and test
 * (may be NULL) for kernel_path before. */
bool ta_trust_allowed(const char *kernel_path, char *const *command, const char *test);

/* Remembers that they are allowed. Returns 0, or -1 with *err (caller
 * frees) when there is nowhere to write (they are allowed this time only). */
int ta_trust_allow(const char *kernel_path, char *const *command, const char *test, char **err);

#endif
