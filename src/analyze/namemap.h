/* A table from names to small integers, by open addressing: the model's
 * kernel names and the whole-file lookups of analyze/index.h. A name is a
 * byte range the caller keeps alive as long as the table (the file's text,
 * or a string the caller owns); nothing is copied. */
#ifndef TA_ANALYZE_NAMEMAP_H
#define TA_ANALYZE_NAMEMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ta_namemap_slot {
	const char *name;         /* NULL: empty */
	uint32_t len;
	uint32_t value;
} ta_namemap_slot;

typedef struct ta_namemap {
	ta_namemap_slot *slots;   /* cap of them, cap a power of two */
	size_t cap, used;
} ta_namemap;

#define TA_NAMEMAP_INIT { NULL, 0, 0 }

/* The slot of name, or NULL. */
ta_namemap_slot *ta_namemap_find(const ta_namemap *t, const char *name, size_t len);
/* Adds name with value unless it is there (the first value stays); true
 * when added. */
bool ta_namemap_add(ta_namemap *t, const char *name, size_t len, uint32_t value);
/* Sets name's value, adding it when absent. */
void ta_namemap_set(ta_namemap *t, const char *name, size_t len, uint32_t value);
/* Frees the slots, not the names. */
void ta_namemap_free(ta_namemap *t);

#endif
