/* Text from outside (file names, command arguments, a program's output) in
 * the JSON documents tileadvise writes and reads back: a file name is bytes,
 * and JSON strings hold UTF-8 only. jansson refuses the other bytes (its
 * string is NULL, and a field made from it is dropped without a word).
 *
 * Such text is kept as it is (ta_json_raw) until the document is written;
 * ta_json_dump then writes every string that is not UTF-8 twice: under its
 * key, as text a person can read (each byte of a bad sequence as U+FFFD),
 * and right after it under KEY_bytes, the exact bytes in base64 (RFC 4648):
 *
 *   "file": "k\ufffd.py", "file_bytes": "a+kucHk="
 *
 * An array of strings under KEY gets KEY_bytes, an array as long, with the
 * base64 of each element that is not UTF-8 and null for the others. A
 * reader (ta_json_take_bytes) puts the bytes back in KEY and drops
 * KEY_bytes. Text that is UTF-8 is written as before, with no _bytes. */
#ifndef TA_UTIL_JSON_H
#define TA_UTIL_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Whether s[0..n) is UTF-8 that jansson takes (no overlong forms, no
 * surrogates, nothing past U+10FFFF, no NUL). */
bool ta_json_utf8(const char *s, size_t n);

/* A string of the bytes as they are (json null for NULL): a new reference.
 * Only ta_json_dump and ta_json_fix may write a document holding one. */
json_t *ta_json_raw(const char *s);
json_t *ta_json_rawn(const char *s, size_t n);

/* Rewrites v in place as described above: afterwards every string in it is
 * UTF-8. Returns v. */
json_t *ta_json_fix(json_t *v);

/* ta_json_fix, then json_dumps / json_dumpf with flags. dumps: caller
 * frees, NULL only when out of memory. dumpf: json_dumpf's return. */
char *ta_json_dumps(json_t *v, size_t flags);
int ta_json_dumpf(json_t *v, FILE *out, size_t flags);

/* After reading: each KEY_bytes in v (at any depth) that is a string
 * beside the string KEY (or an array of strings and nulls beside an array
 * as long) replaces KEY's text with the bytes it holds, and goes; another
 * KEY_bytes (a number: a count of bytes) is left as data. Returns 0, or -1
 * when one is not base64 (a damaged document: the caller says so). */
int ta_json_take_bytes(json_t *v);

#endif
