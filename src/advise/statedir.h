/* `.tileadvise/` beside a kernel file, and every read and write under it:
 * the journal and its saved versions (journal.h), the lock, the session
 * (session.h) and the advisor's report.
 *
 * The folder may come with a cloned repository, so nothing in it is
 * trusted: each component is opened with O_NOFOLLOW (a symlinked
 * `.tileadvise`, `versions` or file is refused, never followed), a file is
 * read only when regular (opened O_NONBLOCK, so a FIFO cannot hang us),
 * and written by ta_write_atomic_at, which refuses to replace a link or a
 * file that is not regular. What is made here takes the kernel file's
 * owner (when tileadvise may give it: as root) and its read and write
 * bits; folders are 0700. So root's --apply on a user's file leaves a
 * `.tileadvise/` the user can undo from and remove, and a 0600 kernel's
 * text is never copied into a 0644 file. */
#ifndef TA_ADVISE_STATEDIR_H
#define TA_ADVISE_STATEDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct ta_state_dir {
	int fd;                   /* the folder, open; -1 when there is none */
	bool made;                /* ta_state_open made it (with its .gitignore) */
	int dfd_parent;           /* the kernel's folder, kept open while made */
	char *path;               /* KERNELDIR/.tileadvise, for messages */
	uid_t uid;                /* the kernel file's owner and group */
	gid_t gid;
	mode_t mode;              /* its read and write bits, for files made here */
} ta_state_dir;

/* Opens the state folder of the kernel file at kernel_path (its folder as
 * given; the kernel's status gives the owner and mode). create: makes it
 * when missing, with a .gitignore that keeps the whole folder out of
 * version control (as ruff's cache folder carries one). Returns 0; 1 when it is missing and create is false (fd
 * -1, path set); -1 with *err (caller frees) when it is a symlink, not a
 * folder, or cannot be opened or made. Always ta_state_close it. */
int ta_state_open(const char *kernel_path, bool create, ta_state_dir *d, char **err);
void ta_state_close(ta_state_dir *d);

/* The folder rel under d ("versions/NAME"), each component opened without
 * following a link and made when create. Returns its fd (caller closes),
 * -1 with *err, or -1 without when it is missing and create is false. */
int ta_state_subdir(const ta_state_dir *d, const char *rel, bool create, char **err);

/* Replaces rel (a name, or folders and a name: made as needed) with bytes,
 * atomically, with the kernel's owner and mode. Returns 0, or -1 with *err
 * naming the file (a link or a file not regular there is refused). */
int ta_state_write(const ta_state_dir *d, const char *rel, const void *bytes, size_t len, char **err);

/* Reads rel (at most max bytes) without following a link. Returns 0 with
 * *data (caller frees, NUL-terminated) and *len, 1 when it is not there,
 * -1 with *err naming the file. */
int ta_state_read(const ta_state_dir *d, const char *rel, size_t max, char **data, size_t *len,
		  char **err);

/* Opens (creating, with the kernel's owner and mode) the regular file name
 * in d for a lock. Returns the fd (caller closes) or -1 with *err. */
int ta_state_lock_file(const ta_state_dir *d, const char *name, char **err);

/* Removes the folder d if ta_state_open made it and it holds nothing but
 * its .gitignore (a run that wrote nothing leaves nothing behind). */
void ta_state_drop_if_unused(ta_state_dir *d);

/* The kernel file a session path DIR/.tileadvise/session-NAME.json is
 * kept for (DIR/NAME, caller frees), or NULL when path is not one. */
char *ta_state_kernel_of(const char *path, const char *prefix, const char *suffix);

#endif
