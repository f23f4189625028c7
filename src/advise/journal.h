/* What tileadvise changed in a kernel file, kept on disk so undo and redo
 * survive a restart; and the careful file writes all edits go through.
 *
 * Beside the kernel, in `.tileadvise/` (created 0700, written only through
 * advise/statedir.h: no link followed, the kernel's owner and mode kept):
 *   journal-NAME.json    {"version":1,"file":"NAME","entries":[...],"position":k}
 *   versions/NAME/N.py   the file's bytes before and after each entry
 * Entry i takes the file from its "before" version to its "after" version;
 * `position` is how many entries are in effect (undo moves it down, redo up).
 * Hashes are FNV-1a 64 of the whole file (BOM included), 16 hex digits. */
#ifndef TA_ADVISE_JOURNAL_H
#define TA_ADVISE_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define TA_JOURNAL_VERSION 1

typedef struct ta_journal_entry {
	char *id;                 /* "D12" */
	uint32_t line;
	char *time;               /* ISO 8601, UTC */
	uint64_t before_hash, after_hash;
	char *before, *after;     /* paths relative to .tileadvise/ */
	bool pending;             /* recorded before the file was written; the
				     file's hash settles it (ta_journal_reconcile) */
} ta_journal_entry;

typedef struct ta_journal {
	char *dir;                /* the .tileadvise folder */
	char *path;               /* the journal file */
	char *file;               /* kernel file name (basename of the real file; any bytes:
				     in the file, "file_bytes" keeps them when not UTF-8) */
	char *kernel;             /* the real file's path: its .tileadvise/ is written
				     through advise/statedir.h */
	ta_journal_entry *entries;
	size_t count, cap;
	size_t position;
	unsigned next_version;    /* number of the next versions/NAME/N.py */
} ta_journal;

/* Opens the journal of the kernel file real_path (already resolved, see
 * ta_edit_target). A missing journal is an empty one (nothing is created
 * until ta_journal_save). Returns 0 and *out (free with ta_journal_free),
 * or -1 with *err (caller frees) for a corrupted or newer journal. */
int ta_journal_open(const char *real_path, ta_journal **out, char **err);
void ta_journal_free(ta_journal *j);

/* Writes the journal atomically, creating .tileadvise/ (0700) as needed. */
int ta_journal_save(const ta_journal *j, char **err);

/* Stores bytes as a new version file; *rel (caller frees) is its path
 * relative to .tileadvise/. */
int ta_journal_put_version(ta_journal *j, const char *bytes, size_t len, char **rel, char **err);
/* Reads a version file back; caller frees *bytes. */
int ta_journal_get_version(const ta_journal *j, const char *rel, char **bytes, size_t *len, char **err);

/* Drops entries past position (a new edit after undo forgets the redo
 * history) and appends one; it takes ownership of nothing (copies). */
void ta_journal_push(ta_journal *j, const char *id, uint32_t line, uint64_t before_hash,
		     uint64_t after_hash, const char *before, const char *after);

/* Marks the last entry as recorded before its file write (see pending). */
void ta_journal_mark_pending(ta_journal *j, bool pending);

/* Forgets the last entry (an apply whose file write failed). */
void ta_journal_drop_last(ta_journal *j);

/* Makes position agree with the file's current hash when an apply, undo
 * or redo was interrupted between writing the journal and the file: the
 * file then matches the neighbouring state. A pending last entry is kept
 * when the file holds its result and dropped when the file is still as
 * before it (the write never happened, and the rollback of the journal
 * could not be saved). Returns true when it moved. */
bool ta_journal_reconcile(ta_journal *j, uint64_t file_hash);

char *ta_hash_hex(uint64_t h);  /* caller frees */

/* ---- one writer per kernel file ------------------------------------------ */

/* An exclusive lock on the kernel file real_path, held by every apply,
 * undo and redo from its read of the file to its rename: an flock on
 * .tileadvise/lock-NAME (created, with the folder, when create is true).
 * Waits up to TA_JOURNAL_LOCK_WAIT_S seconds for another tileadvise, then
 * refuses. Taking it again in the same process only counts. Returns the
 * lock (release with ta_journal_unlock), or NULL: with *err (caller frees)
 * when it could not be taken, without when create is false and there is
 * no .tileadvise/ yet (nothing to protect). Holding it, stale temporary
 * files that killed runs left beside the kernel and in .tileadvise/ are
 * removed. */
#define TA_JOURNAL_LOCK_WAIT_S 30
typedef struct ta_journal_lock ta_journal_lock;
ta_journal_lock *ta_journal_lock_take(const char *real_path, bool create, char **err);
void ta_journal_unlock(ta_journal_lock *l);

/* ---- careful writes ---------------------------------------------------- */

/* Replaces path with bytes: a temporary file in the same folder (O_EXCL,
 * the given mode, owner kept where allowed), written, fsync'ed, renamed
 * over path, then the folder fsync'ed. path is never partly written.
 * Returns 0, or -1 with *err (caller frees) naming the step that failed. */
int ta_write_atomic(const char *path, const void *bytes, size_t len, mode_t mode,
		    uid_t uid, gid_t gid, char **err);

/* What a file was when read: compared again just before a rename over it. */
typedef struct ta_file_state {
	uint64_t size, hash;
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
} ta_file_state;

/* Fills *out from path's status and the bytes read from it. Returns 0, or
 * -1 when path cannot be stat'ed or its size is not len (changed already). */
int ta_file_state_of(const char *path, ta_file_state *out, const char *bytes, size_t len);

/* ta_write_atomic that, when was is non-NULL, checks just before the
 * rename that path is still as *was (size, inode, mtime, bytes) and
 * otherwise writes nothing and returns -2 with *err ("changed on disk"). */
int ta_write_atomic_over(const char *path, const void *bytes, size_t len, mode_t mode,
			 uid_t uid, gid_t gid, const ta_file_state *was, char **err);

/* The careful write itself, into an open folder: name in dirfd (shown as
 * shown in messages), with mode and owner (uid (uid_t)-1: ours), checked
 * against was when non-NULL (-2, as above). refuse_special: an existing
 * name that is a symlink, a FIFO, a folder or any other file that is not
 * regular is left as it is and refused (-1 with *err), also when it
 * appears between the check and the rename. The temporary file is made
 * with O_EXCL and O_NOFOLLOW in the same folder. */
typedef struct ta_write_at {
	int dirfd;
	const char *name;
	const char *shown;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	const ta_file_state *was;
	bool refuse_special;
} ta_write_at;
int ta_write_atomic_at(const ta_write_at *w, const void *bytes, size_t len, char **err);

/* Test hook: when set, called before each step of a careful write ("open",
 * "write", "fsync", "rename", "dirsync") and the step fails with the errno
 * it returns when non-zero. The environment variable TILEADVISE_FAULT=STEP
 * or STEP:N (fail the Nth such step, counted from 1) does the same for the
 * command line. */
typedef int (*ta_fault_fn)(const char *step);
void ta_fault_set(ta_fault_fn fn);

#endif
