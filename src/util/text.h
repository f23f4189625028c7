/* Text from outside (file names, a session's fields, kernel names, quoted
 * source) on its way to a terminal or a markdown report: control
 * characters must not reach the terminal (they set titles, clear screens),
 * and markup must not change the report's structure. */
#ifndef TA_UTIL_TEXT_H
#define TA_UTIL_TEXT_H

#include <stdbool.h>
#include <stdio.h>

/* One policy for everything a person reads (names, source, messages,
 * records), on the terminal, in the text and markdown reports and in the
 * advisor:
 *   - control characters (C0 but tab and newline, DEL, C1) as '?';
 *   - a carriage return as '?' unless it ends a line before its line feed
 *     where lines are kept (a bare CR moves the cursor back: what follows
 *     it would hide what comes before);
 *   - bidirectional and zero-width format characters (U+202A-202E,
 *     U+2066-2069, U+200B-200F, U+2028-2029, U+061C, U+FEFF ...) as
 *     `\u202e`: they reorder or hide text (Trojan source);
 *   - a byte that is not UTF-8 as `\xe9` (a lone 0x9b is CSI to some
 *     terminals).
 * Machine formats (JSON, SARIF, a diff to a file or pipe) keep the exact
 * bytes, escaped as their format requires. */
#include <stddef.h>
#include <stdint.h>

/* Whether the UTF-8 byte c, after prev (the byte before it, 0 at the
 * start), is or ends a control character: C0 but tab and newline, DEL, and
 * C1 (U+0080-U+009F, bytes C2 80-9F). */
bool ta_text_is_control(unsigned char prev, unsigned char c);
/* A character of a Python identifier (ASCII). */
static inline bool ta_text_ident_char(char ch)
{
	return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
}
/* Whether code point cp is a bidirectional or zero-width format character. */
bool ta_text_format_char(uint32_t cp);

/* What ta_text_escape keeps: line feeds (and tabs), tabs alone, line
 * breaks and tabs as spaces (a CRLF as one), a CR that ends a line. */
#define TA_TEXT_LINES 1u
#define TA_TEXT_TABS 2u
#define TA_TEXT_SPACES 4u
#define TA_TEXT_CRLF 8u
struct ta_buf;
/* Appends s[0..n) to b as the policy shows it; without flags a line feed
 * and a tab are '?' too (a name inside a line). */
void ta_text_escape(struct ta_buf *b, const char *s, size_t n, unsigned flags);

/* Source code written over several lines, in place, as one line: each run
 * of white space one space, none after an opening or before a closing
 * bracket (`min(\n    128, n\n)` reads `min(128, n)`). Returns t. */
char *ta_text_one_line(char *t);

/* Writes s on out with control characters (newlines too) as '?'. */
void ta_text_put(FILE *out, const char *s);
/* s as ta_text_put writes it, for a printf argument: valid until eight
 * more calls (a name inside a message or a diagnostic line). */
const char *ta_text_name(const char *s);

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
void ta_md_buf_code(struct ta_buf *b, const char *s, size_t n);
void ta_md_buf_text(struct ta_buf *b, const char *s);

/* A stream that writes through to real as the policy shows text, tabs
 * and line feeds kept (and a carriage return before its line feed when
 * keep_cr: a diff of a CRLF file).
 * Unbuffered when real is stderr. Closing it flushes it and leaves real
 * open. NULL when the C library cannot make one (write to real then). */
FILE *ta_text_safe_stream(FILE *real, bool keep_cr);

/* Terminal styles of text output (SGR sequences): bold, and the colours
 * of a diagnostic's parts as gcc prints them. */
typedef enum ta_style {
	TA_STYLE_RESET,
	TA_STYLE_BOLD,            /* a location, a header */
	TA_STYLE_ERROR,           /* bold red */
	TA_STYLE_WARNING,         /* bold magenta */
	TA_STYLE_NOTE,            /* bold cyan */
	TA_STYLE_ID,              /* bold yellow: a checklist id */
} ta_style;

/* Starts style s on f (TA_STYLE_RESET ends it) when color; else nothing.
 * The sequence goes out as it is, also through a stream from
 * ta_text_safe_stream, which shows an ESC of the text it is given as '?'
 * (it is flushed and the sequence written to the stream beneath). */
void ta_text_style(FILE *f, bool color, ta_style s);

/* Whether output to fd is coloured under --color=when: "always", "never",
 * or "auto" (and NULL): fd is a terminal, TERM is not "dumb" and NO_COLOR
 * is unset or empty (no-color.org). -1 for another word. */
int ta_text_color_wanted(const char *when, int fd);

#endif
