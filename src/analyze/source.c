#include "config.h"
#include "analyze/source.h"
#include "util/buf.h"
#include "util/fsutil.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

uint64_t ta_hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* Returns the offset of the first invalid UTF-8 sequence, or len when valid.
 * Overlong forms, surrogates and code points past U+10FFFF are invalid. */
/* No byte of s[0, n) has its high bit set. Eight bytes at a time: files are
 * mostly ASCII, and a byte at a time was a tenth of loading them. */
static bool all_ascii(const unsigned char *s, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		if (w & 0x8080808080808080ULL)
			return false;
	}
	for (; i < n; i++)
		if (s[i] & 0x80)
			return false;
	return true;
}

static size_t utf8_invalid_at(const unsigned char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		unsigned char c = s[i];
		if (c < 0x80) {
			if (i + 8 <= len && all_ascii(s + i, 8))
				i += 8;
			else
				i++;
			continue;
		}
		size_t n;
		uint32_t cp, min;
		if ((c & 0xE0) == 0xC0) { n = 2; cp = c & 0x1F; min = 0x80; }
		else if ((c & 0xF0) == 0xE0) { n = 3; cp = c & 0x0F; min = 0x800; }
		else if ((c & 0xF8) == 0xF0) { n = 4; cp = c & 0x07; min = 0x10000; }
		else return i;
		if (i + n > len)
			return i;
		for (size_t k = 1; k < n; k++) {
			if ((s[i + k] & 0xC0) != 0x80)
				return i;
			cp = (cp << 6) | (s[i + k] & 0x3F);
		}
		if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return i;
		i += n;
	}
	return len;
}

static void build_lines(ta_source *src)
{
	size_t cap = 0, crlf = 0, lf = 0;
	src->line_count = 0;
	*(size_t *)TA_PUSH(src->line_starts, src->line_count, cap) = 0;
	for (const char *p = src->text, *end = src->text + src->len;
	     (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++) {
		size_t i = (size_t)(p - src->text);
		if (i > 0 && src->text[i - 1] == '\r')
			crlf++;
		else
			lf++;
		if (i + 1 < src->len)
			*(size_t *)TA_PUSH(src->line_starts, src->line_count, cap) = i + 1;
	}
	src->crlf = crlf > lf;
	/* Code points before each block start, so a column costs at most one
	 * block of scanning however long the line is. */
	size_t blocks = src->len / TA_SOURCE_CP_STEP + 1;
	src->cp_index = ta_xmalloc(blocks * sizeof *src->cp_index);
	uint32_t cps = 0;
	for (size_t at = 0; at < src->len; at += TA_SOURCE_CP_STEP) {
		src->cp_index[at / TA_SOURCE_CP_STEP] = cps;
		size_t n = src->len - at < TA_SOURCE_CP_STEP ? src->len - at : TA_SOURCE_CP_STEP;
		const unsigned char *t = (const unsigned char *)src->text + at;
		if (all_ascii(t, n)) {
			cps += (uint32_t)n;   /* every byte a code point */
			continue;
		}
		for (size_t i = 0; i < n; i++)
			cps += (t[i] & 0xC0) != 0x80;
	}
	if (src->len % TA_SOURCE_CP_STEP == 0)
		src->cp_index[src->len / TA_SOURCE_CP_STEP] = cps;
}

/* Code points in text[0, off). */
static size_t cps_before(const ta_source *src, size_t off)
{
	if (off > src->len)
		off = src->len;
	size_t block = off / TA_SOURCE_CP_STEP;
	size_t n = src->cp_index[block];
	for (size_t i = block * TA_SOURCE_CP_STEP; i < off; i++)
		n += ((unsigned char)src->text[i] & 0xC0) != 0x80;
	return n;
}

static int validate(const char *name, const char *bytes, size_t len, char **err)
{
	/* A lone BOM is an empty file too. */
	if (len == 0 || (len == 3 && memcmp(bytes, "\xEF\xBB\xBF", 3) == 0)) {
		*err = ta_xasprintf("%s: the file is empty (give a Python file with a Triton kernel)", name);
		return -1;
	}
	const char *nul = memchr(bytes, '\0', len);
	if (nul) {
		*err = ta_xasprintf("%s: binary file (NUL byte at offset %zu); give a Python source file",
				    name, (size_t)(nul - bytes));
		return -1;
	}
	size_t bad = utf8_invalid_at((const unsigned char *)bytes, len);
	if (bad < len) {
		size_t line = 1, col = 1;
		/* Columns as an editor shows them: the BOM takes none. */
		size_t from = len >= 3 && memcmp(bytes, "\xEF\xBB\xBF", 3) == 0 && bad >= 3 ? 3 : 0;
		for (size_t i = from; i < bad; i++) {
			if (bytes[i] == '\n') {
				line++;
				col = 1;
			} else if (((unsigned char)bytes[i] & 0xC0) != 0x80) {
				col++;
			}
		}
		*err = ta_xasprintf("%s:%zu:%zu: invalid UTF-8 (byte 0x%02x); save the file as UTF-8",
				    name, line, col, (unsigned char)bytes[bad]);
		return -1;
	}
	return 0;
}

int ta_source_from_bytes(const char *name, const char *bytes, size_t len,
			 ta_source **out, char **err)
{
	*out = NULL;
	*err = NULL;
	if (len > TA_SOURCE_MAX_BYTES) {
		*err = ta_xasprintf("%s: file is %.1f MiB, over the 16 MiB limit; give the kernel file alone",
				    name, len / 1048576.0);
		return -1;
	}
	if (validate(name, bytes, len, err) != 0)
		return -1;
	ta_source *src = ta_xcalloc(1, sizeof *src);
	src->path = ta_xstrdup(name);
	size_t skip = 0;
	if (len >= 3 && memcmp(bytes, "\xEF\xBB\xBF", 3) == 0) {
		src->had_bom = true;
		skip = 3;
	}
	src->text = ta_xstrndup(bytes + skip, len - skip);
	src->len = len - skip;
	src->hash = ta_hash_bytes(bytes, len);
	src->size = len;
	if (!memchr(src->text, '\n', src->len) && memchr(src->text, '\r', src->len)) {
		src->cr_only = true;
		for (size_t i = 0; i < src->len; i++)
			if (src->text[i] == '\r')
				src->text[i] = '\n';
	}
	build_lines(src);
	*out = src;
	return 0;
}

int ta_source_load(const char *path, ta_source **out, char **err)
{
	*out = NULL;
	*err = NULL;
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode) && S_ISREG(st.st_mode) &&
	    (size_t)st.st_size > TA_SOURCE_MAX_BYTES) {
		*err = ta_xasprintf("%s: file is %.1f MiB, over the 16 MiB limit; give the kernel file alone",
				    path, st.st_size / 1048576.0);
		return -1;
	}
	char *data, *why;
	size_t len;
	if (ta_read_file(path, TA_SOURCE_MAX_BYTES, &data, &len, &why) != 0) {
		*err = ta_xasprintf("%s: %s", path, why);
		free(why);
		return -1;
	}
	int rc = ta_source_from_bytes(path, data, len, out, err);
	free(data);
	if (rc == 0 && stat(path, &st) == 0)
		(*out)->mtime = st.st_mtim;
	return rc;
}

void ta_source_free(ta_source *src)
{
	if (!src)
		return;
	free(src->path);
	free(src->text);
	free(src->line_starts);
	free(src->cp_index);
	free(src);
}

size_t ta_source_line_of(const ta_source *src, size_t off)
{
	size_t lo = 0, hi = src->line_count;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (src->line_starts[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo + 1;
}

const char *ta_source_line(const ta_source *src, size_t line, size_t *len)
{
	if (line == 0 || line > src->line_count) {
		*len = 0;
		return "";
	}
	size_t start = src->line_starts[line - 1];
	size_t end = line < src->line_count ? src->line_starts[line] : src->len;
	while (end > start && (src->text[end - 1] == '\n' || src->text[end - 1] == '\r'))
		end--;
	*len = end - start;
	return src->text + start;
}

size_t ta_source_column_of(const ta_source *src, size_t off)
{
	size_t line = ta_source_line_of(src, off);
	size_t start = src->line_starts[line - 1];
	if (off <= start)
		return 1;
	if (off > src->len)
		off = src->len;
	if (off - start <= TA_SOURCE_CP_STEP) {   /* ordinary lines: count directly */
		size_t col = 1;
		for (size_t i = start; i < off; i++)
			col += ((unsigned char)src->text[i] & 0xC0) != 0x80;
		return col;
	}
	return cps_before(src, off) - cps_before(src, start) + 1;
}
