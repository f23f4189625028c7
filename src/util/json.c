#include "config.h"
#include "util/json.h"
#include "util/buf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The length of the UTF-8 sequence at s[0..n) when jansson takes it, else 0. */
static size_t seq_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	if (c < 0x80)
		return 1;
	size_t len;
	uint32_t cp;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

bool ta_json_utf8(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t l = seq_len(p + i, n - i);
		if (!l)
			return false;
		i += l;
	}
	return true;
}

json_t *ta_json_raw(const char *s)
{
	return s ? json_string_nocheck(s) : json_null();
}

json_t *ta_json_rawn(const char *s, size_t n)
{
	return s ? json_stringn_nocheck(s, n) : json_null();
}

static bool bad_string(const json_t *v)
{
	return json_is_string(v) && !ta_json_utf8(json_string_value(v), json_string_length(v));
}

/* The text of a string that is not UTF-8, each byte of a bad sequence as
 * U+FFFD: a new reference. */
static json_t *readable(const json_t *v)
{
	const unsigned char *s = (const unsigned char *)json_string_value(v);
	size_t n = json_string_length(v);
	ta_buf b = TA_BUF_INIT;
	for (size_t i = 0; i < n;) {
		size_t l = seq_len(s + i, n - i);
		if (l) {
			ta_buf_append(&b, (const char *)s + i, l);
			i += l;
		} else {
			ta_buf_puts(&b, "\xef\xbf\xbd");
			i++;
		}
	}
	json_t *r = json_stringn(ta_buf_str(&b), b.len);
	ta_buf_free(&b);
	return r;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static json_t *base64_of(const json_t *v)
{
	const unsigned char *s = (const unsigned char *)json_string_value(v);
	size_t n = json_string_length(v);
	ta_buf b = TA_BUF_INIT;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t x = (uint32_t)s[i] << 16 | (i + 1 < n ? (uint32_t)s[i + 1] << 8 : 0) |
			     (i + 2 < n ? s[i + 2] : 0);
		char q[4] = { b64[x >> 18], b64[x >> 12 & 63], i + 1 < n ? b64[x >> 6 & 63] : '=',
			      i + 2 < n ? b64[x & 63] : '=' };
		ta_buf_append(&b, q, 4);
	}
	json_t *r = json_stringn(ta_buf_str(&b), b.len);
	ta_buf_free(&b);
	return r;
}

/* The bytes a base64 string holds, as a raw string; NULL when it is none. */
static json_t *bytes_of(const json_t *v)
{
	if (!json_is_string(v))
		return NULL;
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);
	if (n % 4)
		return NULL;
	ta_buf b = TA_BUF_INIT;
	for (size_t i = 0; i < n; i += 4) {
		size_t pad = 0;
		if (i + 4 == n && s[i + 3] == '=')
			pad = s[i + 2] == '=' ? 2 : 1;
		uint32_t x = 0;
		for (size_t k = 0; k < 4; k++) {
			const char *at = k < 4 - pad && s[i + k] ? strchr(b64, s[i + k]) : NULL;
			if (k < 4 - pad && !at) {
				ta_buf_free(&b);
				return NULL;
			}
			x = x << 6 | (at ? (uint32_t)(at - b64) : 0);
		}
		char o[3] = { (char)(x >> 16), (char)(x >> 8), (char)x };
		ta_buf_append(&b, o, 3 - pad);
	}
	json_t *r = json_stringn_nocheck(b.data ? b.data : "", b.len);
	ta_buf_free(&b);
	return r;
}

static void fix_object(json_t *o);

/* Fixes what arr holds; returns the KEY_bytes array for its strings that
 * were not UTF-8 (a new reference), or NULL when there were none. */
static json_t *fix_array(json_t *arr)
{
	json_t *bytes = NULL;
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e) {
		if (json_is_object(e)) {
			fix_object(e);
		} else if (json_is_array(e)) {
			json_t *inner = fix_array(e);   /* no key to keep them under */
			json_decref(inner);
		} else if (bad_string(e)) {
			if (!bytes) {
				bytes = json_array();
				for (size_t k = 0; k < json_array_size(arr); k++)
					json_array_append_new(bytes, json_null());
			}
			json_array_set_new(bytes, i, base64_of(e));
			json_array_set_new(arr, i, readable(e));
		}
	}
	return bytes;
}

static void fix_object(json_t *o)
{
	const char *key;
	json_t *v;
	bool needs = false;
	json_object_foreach(o, key, v) {
		if (json_is_object(v))
			fix_object(v);
		if (bad_string(v))
			needs = true;
		else if (json_is_array(v)) {
			size_t i;
			json_t *e;
			json_array_foreach(v, i, e)
				needs |= bad_string(e);
		}
	}
	/* Arrays without bad strings of their own are fixed where they are;
	 * the others after the rebuild, which puts KEY_bytes after KEY. */
	json_object_foreach(o, key, v)
		if (json_is_array(v) && !needs)
			json_decref(fix_array(v));
	if (!needs)
		return;
	size_t n = json_object_size(o), k = 0;
	char **keys = ta_xcalloc(n, sizeof *keys);
	json_t **vals = ta_xcalloc(n, sizeof *vals);
	json_object_foreach(o, key, v) {
		keys[k] = ta_xstrdup(key);
		vals[k++] = json_incref(v);
	}
	json_object_clear(o);
	for (k = 0; k < n; k++) {
		char *bk = ta_xasprintf("%s_bytes", keys[k]);
		if (bad_string(vals[k])) {
			json_object_set_new(o, keys[k], readable(vals[k]));
			json_object_set_new(o, bk, base64_of(vals[k]));
			json_decref(vals[k]);
		} else if (json_is_array(vals[k])) {
			json_t *bytes = fix_array(vals[k]);
			json_object_set_new(o, keys[k], vals[k]);
			if (bytes)
				json_object_set_new(o, bk, bytes);
		} else {
			json_object_set_new(o, keys[k], vals[k]);
		}
		free(bk);
		free(keys[k]);
	}
	free(keys);
	free(vals);
}

json_t *ta_json_fix(json_t *v)
{
	if (json_is_object(v))
		fix_object(v);
	else if (json_is_array(v))
		json_decref(fix_array(v));
	else if (bad_string(v)) {
		json_t *r = readable(v);
		json_string_setn(v, json_string_value(r), json_string_length(r));
		json_decref(r);
	}
	return v;
}

char *ta_json_dumps(json_t *v, size_t flags)
{
	return json_dumps(ta_json_fix(v), flags);
}

int ta_json_dumpf(json_t *v, FILE *out, size_t flags)
{
	return json_dumpf(ta_json_fix(v), out, flags);
}

/* ---- reading ------------------------------------------------------------------ */

static int take_in(json_t *v);

static int take_object(json_t *o)
{
	const char *key;
	json_t *v;
	int rc = 0;
	json_object_foreach(o, key, v)
		if (take_in(v) != 0)
			rc = -1;
	/* the KEY_bytes members, collected first: they go as they are read */
	size_t n = 0;
	char **found = NULL;
	json_object_foreach(o, key, v) {
		size_t l = strlen(key);
		if (l > 6 && !strcmp(key + l - 6, "_bytes"))
			*TA_APPEND(found, n) = ta_xstrdup(key);
	}
	for (size_t i = 0; i < n; i++) {
		char *base = ta_xstrndup(found[i], strlen(found[i]) - 6);
		json_t *bytes = json_object_get(o, found[i]), *text = json_object_get(o, base);
		bool ours = false;
		/* only a string beside a string, or an array of strings and nulls
		 * beside one as long: another KEY_bytes (a count of bytes) is data */
		if (json_is_string(bytes) && json_is_string(text)) {
			ours = true;
			json_t *raw = bytes_of(bytes);
			if (raw)
				json_object_set_new(o, base, raw);
			else
				rc = -1;
		} else if (json_is_array(bytes) && json_is_array(text) &&
			   json_array_size(bytes) == json_array_size(text)) {
			ours = true;
			for (size_t k = 0; k < json_array_size(bytes) && ours; k++) {
				json_t *b = json_array_get(bytes, k);
				ours = json_is_null(b) || (json_is_string(b) && json_is_string(json_array_get(text, k)));
			}
			for (size_t k = 0; k < json_array_size(bytes) && ours; k++) {
				json_t *b = json_array_get(bytes, k);
				if (json_is_null(b))
					continue;
				json_t *raw = bytes_of(b);
				if (raw)
					json_array_set_new(text, k, raw);
				else
					rc = -1;
			}
		}
		if (ours)
			json_object_del(o, found[i]);
		free(base);
		free(found[i]);
	}
	free(found);
	return rc;
}

static int take_in(json_t *v)
{
	if (json_is_object(v))
		return take_object(v);
	int rc = 0;
	if (json_is_array(v)) {
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e)
			if (take_in(e) != 0)
				rc = -1;
	}
	return rc;
}

int ta_json_take_bytes(json_t *v)
{
	return take_in(v);
}
