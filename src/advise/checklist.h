/* The checklist catalog: every entry of the walk (T1–T5, L1–L4, P1–P7,
 * S1–S8, G1–G8, D1–D16) with its texts, loaded from data/checklist.json.
 *
 * The catalog is read-only once loaded. Entries keep the file's order, which
 * is the walk order of the seed. Strings and arrays in a ta_entry belong to
 * the catalog and stay valid until ta_catalog_free. */
#ifndef TA_ADVISE_CHECKLIST_H
#define TA_ADVISE_CHECKLIST_H

#include <stdbool.h>
#include <stddef.h>

#include "checklist/entry.h"

/* The most ids one entry may list in serves or opens. */
#define TA_ENTRY_MAX_REFS 8

/* One item of a trigger's "opens": either a whole section or one entry. */
typedef struct ta_open {
	bool is_section;
	ta_section section; /* when is_section */
	const char *id;     /* the entry id when !is_section; the section's JSON
	                     * name otherwise */
} ta_open;

/* An entry's prose from data/checklist.json, joined with its row of
 * entries.def: needs, detector and opens come from the table. */
typedef struct ta_entry {
	const ta_entry_def *def;    /* the table's row (entry.h) */
	const char *id;             /* "S3": a section letter and 1–2 digits */
	ta_section section;
	const char *seed_ref;       /* where it comes from in the seed (for the
				       catalog's authors: never shown to users, it
				       names documents they do not have) */
	const char *title;
	const char *summary;        /* one line */
	const char *means;          /* paragraphs: what and why it is slow */
	const char *applies_when;   /* what the detector flags, and near-misses */
	const char *satisfied_when;
	const char *impact;         /* the typical figure */
	ta_edit_kind edit;
	const char *edit_summary;
	const char *evidence;       /* "" when the profile adds nothing */
	ta_needs needs;
	const char *detector;       /* id of the entry whose detector serves this
	                             * one (its own id when it has its own) */
	const char *serves[TA_ENTRY_MAX_REFS];
	size_t n_serves;
	ta_open opens[TA_ENTRY_MAX_REFS]; /* triggers only */
	size_t n_opens;
	const char *example_slow;   /* Triton lines, newline-separated */
	const char *example_fast;
} ta_entry;

typedef struct ta_catalog ta_catalog;

/* Loads and validates a catalog. path NULL means <ta_datadir()>/checklist.json.
 * Returns NULL on any problem and sets *err (caller frees) to one line a user
 * can act on, prefixed with the file name and, where known, line:column.
 * Checks: every required field and its type, the id format and its section
 * letter, unique ids, that every serves reference exists, and that the ids,
 * their order, sections and edit kinds are those of entries.def. The result
 * is freed with ta_catalog_free. */
ta_catalog *ta_catalog_load(const char *path, char **err);
void ta_catalog_free(ta_catalog *cat);

/* The file the catalog was loaded from (owned by the catalog). */
const char *ta_catalog_path(const ta_catalog *cat);
size_t ta_catalog_count(const ta_catalog *cat);
/* The i-th entry in walk order; NULL when i is out of range. */
const ta_entry *ta_catalog_at(const ta_catalog *cat, size_t i);
/* The entry with this id, compared without regard to case ("s3" finds S3);
 * NULL when there is none. */
const ta_entry *ta_catalog_find(const ta_catalog *cat, const char *id);

/* How an entry's findings are fixed, from the rewrite entries.def names
 * for it: the same for every finding, without running it. */
typedef enum ta_entry_fix_safety {
	TA_ENTRY_FIX_SAFE,            /* every edit it makes keeps the meaning */
	TA_ENTRY_FIX_UNSAFE,          /* each edit keeps it under a stated assumption */
	TA_ENTRY_FIX_BY_SITE,         /* safe at some sites, unsafe at others */
} ta_entry_fix_safety;

typedef struct ta_entry_fix {
	bool written;                 /* a rewrite is named for it */
	bool demoted;                 /* ... which the tool only shows: the entry is guided */
	ta_entry_fix_safety safety;
	const char *assumes;          /* what an unsafe edit assumes (static), or NULL */
} ta_entry_fix;

ta_entry_fix ta_entry_fix_of(const char *id);

/* Whether id (any case) is a checklist entry's, without loading the
 * catalog. */
bool ta_entry_known(const char *id);

#endif
