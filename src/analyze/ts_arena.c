/* Memory for tree-sitter's trees (see ts_arena.h).
 *
 * A parse makes and drops many small blocks of a few sizes (subtrees, stack
 * nodes, child arrays); glibc's malloc and free were about a tenth of
 * `--check`'s instructions, and deleting a tree walked it once more to free
 * every node. Here a parse takes its blocks from large chunks, a freed
 * block goes on a list for its size to be taken again, and the tree goes
 * with its chunks at once. */
#include "config.h"
#include "analyze/ts_arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "util/buf.h"

enum {
	ALIGN = 8,                /* tree-sitter's structures hold nothing wider */
	HEADER = 8,               /* the block's size, just before it */
	SMALL = 512,              /* blocks up to this size are reused by size */
	FIRST_CHUNK = 64 * 1024,
};

struct chunk {
	char *start, *end;
};

struct ta_ts_arena {
	struct chunk *chunks;     /* newest last */
	size_t n_chunks, cap_chunks;
	char *next;               /* free space of the newest chunk */
	size_t next_chunk;        /* the size of the chunk to come */
	void *free_lists[SMALL / ALIGN + 1];
	ta_ts_arena *older;       /* the list of live arenas */
};

static ta_ts_arena *current;  /* the arena of the parse under way, or NULL */
static ta_ts_arena *live;     /* every arena not yet freed */
static bool installed;

static bool in_arena(const ta_ts_arena *a, const void *p)
{
	for (size_t i = a->n_chunks; i-- > 0;)
		if ((const char *)p >= a->chunks[i].start && (const char *)p < a->chunks[i].end)
			return true;
	return false;
}

static bool in_any_arena(const void *p)
{
	for (const ta_ts_arena *a = live; a; a = a->older)
		if (in_arena(a, p))
			return true;
	return false;
}

static size_t block_size(const void *p)
{
	uint64_t h;
	memcpy(&h, (const char *)p - HEADER, sizeof h);
	return (size_t)h;
}

static void *arena_alloc(ta_ts_arena *a, size_t n)
{
	n = n ? (n + ALIGN - 1) & ~(size_t)(ALIGN - 1) : ALIGN;
	if (n <= SMALL && a->free_lists[n / ALIGN]) {
		void *p = a->free_lists[n / ALIGN];
		memcpy(&a->free_lists[n / ALIGN], p, sizeof(void *));
		return p;
	}
	size_t need = n + HEADER;
	struct chunk *c = a->n_chunks ? &a->chunks[a->n_chunks - 1] : NULL;
	if (!c || (size_t)(c->end - a->next) < need) {
		size_t size = a->next_chunk;
		while (size < need)
			size *= 2;
		a->next_chunk = size * 2;
		c = TA_PUSH(a->chunks, a->n_chunks, a->cap_chunks);
		c->start = ta_xmalloc(size);
		c->end = c->start + size;
		a->next = c->start;
	}
	char *p = a->next + HEADER;
	a->next += need;
	uint64_t h = n;
	memcpy(p - HEADER, &h, sizeof h);
	return p;
}

static void arena_release(ta_ts_arena *a, void *p)
{
	size_t n = block_size(p);
	if (n <= SMALL) {
		memcpy(p, &a->free_lists[n / ALIGN], sizeof(void *));
		a->free_lists[n / ALIGN] = p;
	}
	/* A larger block stays until the arena goes (a parse makes few). */
}

static void *ts_alloc(size_t n)
{
	return current ? arena_alloc(current, n) : ta_xmalloc(n ? n : 1);
}

static void *ts_zalloc(size_t count, size_t size)
{
	if (!current)
		return ta_xcalloc(count ? count : 1, size ? size : 1);
	if (size && count > SIZE_MAX / size)
		abort();
	void *p = arena_alloc(current, count * size);
	memset(p, 0, count * size);
	return p;
}

static void ts_release(void *p)
{
	if (!p)
		return;
	if (current && in_arena(current, p))
		arena_release(current, p);
	else if (!in_any_arena(p))
		free(p);
	/* else: a block of a finished parse, freed with its arena */
}

static void *ts_resize(void *p, size_t n)
{
	if (!p)
		return ts_alloc(n);
	bool mine = current && in_arena(current, p);
	if (!mine && !in_any_arena(p))
		return ta_xrealloc(p, n ? n : 1);
	size_t old = block_size(p);
	if (n <= old)
		return p;
	/* Only the parse under way grows its blocks; a finished tree is
	 * never resized, but were it, malloc would take the copy. */
	void *q = current ? arena_alloc(current, n) : ta_xmalloc(n);
	memcpy(q, p, old);
	if (mine)
		arena_release(current, p);
	return q;
}

ta_ts_arena *ta_ts_arena_begin(void)
{
	if (!installed) {
		ts_set_allocator(ts_alloc, ts_zalloc, ts_resize, ts_release);
		installed = true;
	}
	ta_ts_arena *a = ta_xcalloc(1, sizeof *a);
	a->next_chunk = FIRST_CHUNK;
	a->older = live;
	live = a;
	current = a;
	return a;
}

void ta_ts_arena_end(void)
{
	current = NULL;
}

void ta_ts_arena_free(ta_ts_arena *a)
{
	if (!a)
		return;
	for (ta_ts_arena **p = &live; *p; p = &(*p)->older)
		if (*p == a) {
			*p = a->older;
			break;
		}
	if (current == a)
		current = NULL;
	for (size_t i = 0; i < a->n_chunks; i++)
		free(a->chunks[i].start);
	free(a->chunks);
	free(a);
}
