/* The checklist's entries as data: the table of entries.def expanded into
 * its enum and lookups. Every other part of the program that needs an
 * entry's section, scope, server, rewrite or place in the walk asks here.
 *
 * Everything returned is static. */
#ifndef TA_CHECKLIST_ENTRY_H
#define TA_CHECKLIST_ENTRY_H

#include <stdbool.h>
#include <stddef.h>

/* Sections in walk order. */
typedef enum ta_section {
	TA_SECTION_TRIGGERS,   /* "triggers":   trigger table, T ids */
	TA_SECTION_LAYOUT,     /* "layout":     §1, L ids */
	TA_SECTION_PRIORITIES, /* "priorities": §2, P ids */
	TA_SECTION_PATTERNS,   /* "patterns":   §3, S ids */
	TA_SECTION_ATTENTION,  /* "attention":  §4, G ids */
	TA_SECTION_DEEPER,     /* "deeper":     D ids */
	TA_SECTION_COUNT
} ta_section;

/* What deciding an entry takes. */
typedef enum ta_needs {
	TA_NEEDS_STATIC,   /* "static": the source alone */
	TA_NEEDS_PROFILE,  /* "profile": a measurement of the kernel */
	TA_NEEDS_BASELINE  /* "baseline": a second, reference measurement */
} ta_needs;

/* How its edit is made. */
typedef enum ta_edit_kind {
	TA_EDIT_NONE,       /* "none": triggers only; they reorder the walk */
	TA_EDIT_MECHANICAL, /* "mechanical": the tool writes the diff */
	TA_EDIT_GUIDED      /* "guided": a filled-in template, finished by hand */
} ta_edit_kind;

/* Where a rewrite looks for its sites: kernels, or host functions. */
typedef enum ta_scope { TA_SCOPE_KERNEL, TA_SCOPE_HOST } ta_scope;

enum {
	TA_ENTRY_URGENT = 1u << 0,          /* a trigger whose openings precede all others */
	TA_ENTRY_SHOWS_AUTOTUNE = 1u << 1,  /* its step shows every config the tuner tried */
	TA_ENTRY_SHOWS_BASELINE = 1u << 2,  /* its step shows the comparison with the baseline */
	TA_ENTRY_PREVIEW = 1u << 3,         /* measured precision below 90% (tests/PRECISION.md):
					       off in --check unless --preview or named by
					       --select; a hint in the advisor */
};

/* The entry ids as an enum: TA_ENTRY_T1 ... TA_ENTRY_D15, TA_ENTRY__COUNT. */
typedef enum ta_entry_index {
#define ENTRY(ID, det, SEC, NEEDS, RW, SCOPE, SERVED, OPENS, FLAGS) TA_ENTRY_##ID,
#include "checklist/entries.def"
#undef ENTRY
	TA_ENTRY__COUNT
} ta_entry_index;

typedef struct ta_rewrite ta_rewrite;   /* checklist/rewrite.h */

typedef struct ta_entry_def {
	const char *id;             /* "S1" */
	ta_section section;
	ta_needs needs;
	const ta_rewrite *rewrite;  /* who writes its edit; NULL: guided (or a trigger) */
	ta_scope scope;
	const char *served_by;      /* "P1", or NULL */
	const char *opens;          /* triggers: space-separated section names and ids */
	unsigned flags;             /* TA_ENTRY_* */
} ta_entry_def;

size_t ta_entry_count(void);
/* The i-th entry in the seed's order; NULL when out of range. */
const ta_entry_def *ta_entry_at(size_t i);
/* The entry with this id, without regard to case; NULL when none. */
const ta_entry_def *ta_entry_find(const char *id);
/* Index of an id (case-insensitive), or -1. */
int ta_entry_index_of(const char *id);
/* The edit kind the table gives: none for triggers, mechanical when a
 * rewrite writes it (and was not demoted after measuring), else guided. */
ta_edit_kind ta_entry_edit_kind(const ta_entry_def *e);
/* Whether the entry is in preview (TA_ENTRY_PREVIEW): its findings are
 * reported only on request. */
bool ta_entry_is_preview(const ta_entry_def *e);
/* "default" or "preview", as --list-rules and tests/PRECISION.md say it. */
const char *ta_entry_status_name(const ta_entry_def *e);

/* Static names. ta_section_title is the heading shown to users
 * ("§3 Fast vs slow patterns"); ta_section_name is the data name
 * ("patterns"); ta_section_letter the ids' letter ('S'). */
const char *ta_section_title(ta_section s);
const char *ta_section_name(ta_section s);
char ta_section_letter(ta_section s);
/* Parses a section's data name; false when it is not one. */
bool ta_section_from_name(const char *name, ta_section *out);
const char *ta_edit_kind_name(ta_edit_kind k);
const char *ta_needs_name(ta_needs n);

#endif
