/* A growable byte buffer; the building block of every text the program prints. */
#ifndef TA_UTIL_BUF_H
#define TA_UTIL_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct ta_buf {
	char *data;     /* always NUL-terminated when len > 0 or after any append */
	size_t len;
	size_t cap;
} ta_buf;

#define TA_BUF_INIT { NULL, 0, 0 }

/* Appends; on allocation failure the program aborts (out of memory is not a
 * user error we can report meaningfully). */
void ta_buf_append(ta_buf *b, const char *s, size_t n);
void ta_buf_puts(ta_buf *b, const char *s);
void ta_buf_putc(ta_buf *b, char c);
void ta_buf_printf(ta_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ta_buf_vprintf(ta_buf *b, const char *fmt, va_list ap);
/* Appends s with JSON string escaping (no surrounding quotes). */
void ta_buf_json_escaped(ta_buf *b, const char *s, size_t n);
void ta_buf_clear(ta_buf *b);
/* Returns the data (caller frees) and resets the buffer. Never NULL. */
char *ta_buf_steal(ta_buf *b);
void ta_buf_free(ta_buf *b);
/* The current contents as a C string (never NULL; "" when empty). */
const char *ta_buf_str(const ta_buf *b);

/* Allocation helpers that abort on failure. */
void *ta_xmalloc(size_t n);
void *ta_xcalloc(size_t n, size_t size);
void *ta_xrealloc(void *p, size_t n);
char *ta_xstrdup(const char *s);
char *ta_xstrndup(const char *s, size_t n);
/* qsort and bsearch over an array of strings: by strcmp of the pointees. */
int ta_strptr_cmp(const void *a, const void *b);
/* A copy of n bytes at p (caller frees); NULL when p is NULL or n is 0. */
void *ta_xmemdup(const void *p, size_t n);
char *ta_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grows a typed array *items (count *n, capacity *cap) by one element and
 * returns a pointer to the new, zeroed element. */
#define TA_PUSH(items, n, cap) \
	(ta_grow((void **)&(items), &(cap), (n) + 1, sizeof(*(items))), \
	 memset(&(items)[(n)], 0, sizeof(*(items))), &(items)[(n)++])
void ta_grow(void **items, size_t *cap, size_t need, size_t elem_size);

/* Like TA_PUSH for arrays that keep no capacity: the capacity is implied by
 * the count (the next power of two, at least 8). */
#define TA_APPEND(items, n) \
	(ta_grow_implied((void **)&(items), (n), sizeof(*(items))), \
	 memset(&(items)[(n)], 0, sizeof(*(items))), &(items)[(n)++])
void ta_grow_implied(void **items, size_t count, size_t elem_size);

#endif
