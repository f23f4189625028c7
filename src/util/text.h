/* Text from outside (file names, a session's fields, kernel names, quoted
 * source) on its way to a terminal or a markdown report: control
 * characters must not reach the terminal (they set titles, clear screens),
 * and markup must not change the report's structure. */
#ifndef TA_UTIL_TEXT_H
#define TA_UTIL_TEXT_H

#include <stdbool.h>
#include <stdio.h>

/* Whether the UTF-8 byte c, after prev (the byte before it, 0 at the
 * start), is or ends a control character: C0 but tab and newline, DEL, and
 * C1 (U+0080-U+009F, bytes C2 80-9F). */
bool ta_text_is_control(unsigned char prev, unsigned char c);

/* Writes s on out with control characters (newlines too) as '?'. */
void ta_text_put(FILE *out, const char *s);

/* Markdown: s as inline text (printable; \ ` * _ [ ] | # escaped with a
 * backslash, < > & as entities), and as a code span with its backticks
 * (printable; | as \|, a backtick as '). */
void ta_md_put_text(FILE *out, const char *s);
void ta_md_put_code(FILE *out, const char *s);
/* Markdown prose that may hold its own code spans and emphasis (a
 * finding's reason): printable, | escaped, < > & as entities. */
void ta_md_put_prose(FILE *out, const char *s);

/* Markdown into a buffer, for a report built in memory. A code span holds
 * s[0..n) exactly as written (< & * _ stay literal inside one): its fence is
 * one backtick longer than the longest run of backticks in s, and a space
 * pads each side when s starts or ends with a backtick or a space (the
 * reader removes one each side); line breaks become spaces and control
 * characters '?'. Text is escaped as ta_md_put_text does. */
struct ta_buf;
void ta_md_buf_code(struct ta_buf *b, const char *s, size_t n);
void ta_md_buf_text(struct ta_buf *b, const char *s);

/* A stream that writes through to real with control characters but tab
 * and newline (and carriage return when keep_cr) replaced by '?'.
 * Unbuffered when real is stderr. Closing it flushes it and leaves real
 * open. NULL when the C library cannot make one (write to real then). */
FILE *ta_text_safe_stream(FILE *real, bool keep_cr);

#endif
