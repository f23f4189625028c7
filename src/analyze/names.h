/* Names kernel engineers give to things the checklist looks for, shared by
 * the detectors and the edits so that both recognise the same code. */
#ifndef TA_ANALYZE_NAMES_H
#define TA_ANALYZE_NAMES_H

#include <stdbool.h>

/* Whether name is one of the NULL-terminated names, ignoring case. */
bool ta_name_among(const char *name, const char *const *names);

/* GQA: parameters holding the query group size (H // it is the K/V head
 * count), parameters holding the K/V head count itself, and the query head
 * count. NULL-terminated. */
extern const char *const ta_gqa_group_sizes[];
extern const char *const ta_gqa_kv_head_counts[];
extern const char *const ta_gqa_head_counts[];

/* Whether a variable name reads as a K or V tensor or descriptor: k, v,
 * k_desc, desc_v, kv_cache... (NULL: false). */
bool ta_gqa_kv_name(const char *s);

#endif
