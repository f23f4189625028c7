/* JSON documents of our own (the checklist catalog, sessions, the edit
 * journal) read faster than jansson's json_loadb reads them.
 *
 * json_loadb takes about 145 instructions a byte: 16 M of the advisor's
 * 194 M before its first frame on a 2,045-line file went to the 107 KB
 * catalog, and 82 M more to its 556 KB session when one was resumed.
 * Most of that is its lexer taking the text a character at a time. The
 * reader here builds the same jansson values from a plain scan of the
 * text; where it meets anything it does not take (any error, a duplicate
 * key under JSON_REJECT_DUPLICATES, bytes that are not UTF-8, \u0000, a
 * number out of range, nesting over 512), it gives the whole text to
 * json_loadb, whose result and message stand. So the answer is always
 * json_loadb's. */
#ifndef TA_ADVISE_JSON_READ_H
#define TA_ADVISE_JSON_READ_H

#include <jansson.h>
#include <stddef.h>

/* json_loadb(text, len, flags, error), faster: a new reference the caller
 * json_decref's, or NULL with *error filled by json_loadb. flags other
 * than 0 and JSON_REJECT_DUPLICATES go to json_loadb directly. */
json_t *ta_json_loadb(const char *text, size_t len, size_t flags, json_error_t *error);

/* The scan alone: the document (a new reference), or NULL where
 * ta_json_loadb would hand the text to json_loadb (for tests: what the
 * scan takes and declines). */
json_t *ta_json_scan(const char *text, size_t len, size_t flags);

#endif
