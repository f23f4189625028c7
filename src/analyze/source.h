/* A kernel file as read from disk: its bytes, line table and fingerprint.
 * Loading validates what the rest of the program relies on (UTF-8 text, no NUL
 * bytes, a size limit) and turns every failure into a message for the user. */
#ifndef TA_ANALYZE_SOURCE_H
#define TA_ANALYZE_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define TA_SOURCE_MAX_BYTES ((size_t)16 << 20)

typedef struct ta_source {
	char *path;            /* as given by the user */
	char *text;            /* content without the UTF-8 BOM, NUL-terminated */
	size_t len;
	bool had_bom;          /* a BOM preceded text in the file */
	bool crlf;             /* the file's lines end in CRLF (most of them) */
	bool cr_only;          /* the file's lines end in a lone CR (classic Mac OS),
				  which Python accepts and tree-sitter does not: text
				  holds LF in their place (same offsets); an edit
				  writes CR back */
	size_t *line_starts;   /* byte offset of each line in text */
	size_t line_count;
	uint64_t hash;         /* FNV-1a 64 of the file's bytes, BOM included */
	uint64_t size;         /* file size on disk when read */
	struct timespec mtime; /* modification time when read */
	uint32_t *cp_index;    /* code points before each TA_SOURCE_CP_STEP-byte block:
				  keeps column lookups on very long lines cheap */
} ta_source;

#define TA_SOURCE_CP_STEP 1024

/* Reads and validates path. On success returns 0 and *out (free with
 * ta_source_free). On failure returns -1 and *err (caller frees): a one-line
 * message that names the file and says what to do. */
int ta_source_load(const char *path, ta_source **out, char **err);

/* Builds a source from memory (tests, fuzzing, re-parsing an edit). Validates
 * like ta_source_load. name is used in messages. */
int ta_source_from_bytes(const char *name, const char *bytes, size_t len,
			 ta_source **out, char **err);

void ta_source_free(ta_source *src);

/* 1-based line holding byte offset off. */
size_t ta_source_line_of(const ta_source *src, size_t off);
/* Start offset and length (without the line ending) of 1-based line. */
const char *ta_source_line(const ta_source *src, size_t line, size_t *len);
/* 1-based column of byte offset off, counted in code points. */
size_t ta_source_column_of(const ta_source *src, size_t off);

/* FNV-1a 64 of a byte range (used for fingerprints). */
uint64_t ta_hash_bytes(const void *data, size_t len);

#endif
