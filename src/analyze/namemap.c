/* Names to integers, by open addressing (see namemap.h). */
#include "config.h"
#include "analyze/namemap.h"
#include "analyze/source.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

static size_t home(const char *name, size_t len, size_t cap)
{
	return (size_t)ta_hash_bytes(name, len) & (cap - 1);
}

ta_namemap_slot *ta_namemap_find(const ta_namemap *t, const char *name, size_t len)
{
	if (!t->cap)
		return NULL;
	for (size_t h = home(name, len, t->cap); t->slots[h].name; h = (h + 1) & (t->cap - 1))
		if (t->slots[h].len == len && !memcmp(t->slots[h].name, name, len))
			return &t->slots[h];
	return NULL;
}

static void grow(ta_namemap *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 64;
	ta_namemap_slot *ns = ta_xcalloc(ncap, sizeof *ns);
	for (size_t i = 0; i < t->cap; i++) {
		const ta_namemap_slot *o = &t->slots[i];
		if (!o->name)
			continue;
		size_t h = home(o->name, o->len, ncap);
		while (ns[h].name)
			h = (h + 1) & (ncap - 1);
		ns[h] = *o;
	}
	free(t->slots);
	t->slots = ns;
	t->cap = ncap;
}

bool ta_namemap_add(ta_namemap *t, const char *name, size_t len, uint32_t value)
{
	if ((t->used + 1) * 2 > t->cap)
		grow(t);
	size_t h = home(name, len, t->cap);
	for (; t->slots[h].name; h = (h + 1) & (t->cap - 1))
		if (t->slots[h].len == len && !memcmp(t->slots[h].name, name, len))
			return false;
	t->slots[h] = (ta_namemap_slot){ .name = name, .len = (uint32_t)len, .value = value };
	t->used++;
	return true;
}

void ta_namemap_set(ta_namemap *t, const char *name, size_t len, uint32_t value)
{
	ta_namemap_add(t, name, len, value);
	ta_namemap_find(t, name, len)->value = value;
}

void ta_namemap_free(ta_namemap *t)
{
	free(t->slots);
	*t = (ta_namemap)TA_NAMEMAP_INIT;
}
