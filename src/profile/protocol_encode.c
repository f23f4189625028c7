/* The encoder half of the record protocol. libc only, no allocation: it is
 * compiled into the injector, which must not depend on anything the user's
 * process might not have. */
#include "config.h"
#include "profile/protocol.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct cursor {
	char *p;
	size_t cap, len;
	int overflow;
} cursor;

static void put_raw(cursor *c, const char *s, size_t n)
{
	if (c->overflow || c->len + n + 1 > c->cap) {
		c->overflow = 1;
		return;
	}
	memcpy(c->p + c->len, s, n);
	c->len += n;
	c->p[c->len] = '\0';
}

static void put_fmt(cursor *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_fmt(cursor *c, const char *fmt, ...)
{
	char tmp[96];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof tmp) {
		c->overflow = 1;
		return;
	}
	put_raw(c, tmp, (size_t)n);
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid. */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;
	if (s[0] < 0x80)
		return 1;
	else if ((s[0] & 0xE0) == 0xC0) {
		len = 2;
		cp = s[0] & 0x1F;
	} else if ((s[0] & 0xF0) == 0xE0) {
		len = 3;
		cp = s[0] & 0x0F;
	} else if ((s[0] & 0xF8) == 0xF0) {
		len = 4;
		cp = s[0] & 0x07;
	} else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	/* Reject overlong forms, surrogates and out-of-range code points:
	 * jansson refuses them, and the whole line would be lost. */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
		return 0;
	return len;
}

static void put_json_string(cursor *c, const char *s)
{
	put_raw(c, "\"", 1);
	const unsigned char *u = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)u);
	for (size_t i = 0; i < n && !c->overflow;) {
		unsigned char ch = u[i];
		if (ch == '"' || ch == '\\') {
			char esc[2] = { '\\', (char)ch };
			put_raw(c, esc, 2);
			i++;
		} else if (ch < 0x20 || ch == 0x7F) {
			put_fmt(c, "\\u%04x", ch);
			i++;
		} else {
			size_t l = utf8_seq_len(u + i, n - i);
			if (l == 0) {
				put_raw(c, "?", 1);
				i++;
			} else {
				put_raw(c, (const char *)u + i, l);
				i += l;
			}
		}
	}
	put_raw(c, "\"", 1);
}

static size_t finish(cursor *c)
{
	put_raw(c, "}\n", 2);
	return c->overflow ? 0 : c->len;
}

size_t ta_proto_encode_hello(char *out, size_t cap, long pid, uint32_t cupti_version,
			     int driver_version)
{
	cursor c = { out, cap, 0, 0 };
	put_fmt(&c, "{\"type\":\"hello\",\"v\":%d,\"pid\":%ld,\"cupti\":%" PRIu32,
		TA_PROTO_VERSION, pid, cupti_version);
	if (driver_version >= 0)
		put_fmt(&c, ",\"driver\":%d", driver_version);
	return finish(&c);
}

size_t ta_proto_encode_kernel(char *out, size_t cap, long pid, const ta_proto_kernel *k)
{
	cursor c = { out, cap, 0, 0 };
	put_fmt(&c, "{\"type\":\"kernel\",\"pid\":%ld,\"name\":", pid);
	put_json_string(&c, k->name);
	put_fmt(&c, ",\"start\":%" PRIu64 ",\"end\":%" PRIu64, k->start_ns, k->end_ns);
	put_fmt(&c, ",\"grid\":[%" PRId32 ",%" PRId32 ",%" PRId32 "]", k->grid[0], k->grid[1], k->grid[2]);
	put_fmt(&c, ",\"block\":[%" PRId32 ",%" PRId32 ",%" PRId32 "]", k->block[0], k->block[1], k->block[2]);
	put_fmt(&c, ",\"regs\":%" PRIu32 ",\"smem_static\":%" PRId32 ",\"smem_dynamic\":%" PRId32,
		k->regs, k->smem_static, k->smem_dynamic);
	put_fmt(&c, ",\"local\":%" PRIu32 ",\"device\":%" PRIu32 ",\"stream\":%" PRIu32,
		k->local_per_thread, k->device, k->stream);
	put_fmt(&c, ",\"corr\":%" PRIu32 ",\"graph\":%" PRIu32 ",\"graph_node\":%" PRIu64,
		k->correlation, k->graph_id, k->graph_node_id);
	if (k->weight > 1)
		put_fmt(&c, ",\"w\":%" PRIu64, k->weight);
	return finish(&c);
}

size_t ta_proto_encode_error(char *out, size_t cap, long pid, const char *where,
			     int code, const char *message)
{
	cursor c = { out, cap, 0, 0 };
	put_fmt(&c, "{\"type\":\"error\",\"pid\":%ld,\"where\":", pid);
	put_json_string(&c, where);
	put_fmt(&c, ",\"code\":%d,\"message\":", code);
	put_json_string(&c, message);
	return finish(&c);
}

size_t ta_proto_encode_bye(char *out, size_t cap, long pid, uint64_t written,
			   uint64_t dropped, uint64_t lost)
{
	cursor c = { out, cap, 0, 0 };
	put_fmt(&c, "{\"type\":\"bye\",\"pid\":%ld,\"written\":%" PRIu64 ",\"dropped\":%" PRIu64
		",\"lost\":%" PRIu64, pid, written, dropped, lost);
	return finish(&c);
}

size_t ta_proto_encode_calls(char *out, size_t cap, long pid, const ta_proto_calls *k)
{
	cursor c = { out, cap, 0, 0 };
	put_fmt(&c, "{\"type\":\"calls\",\"pid\":%ld,\"name\":", pid);
	put_json_string(&c, k->name);
	put_fmt(&c, ",\"grid\":[%" PRId32 ",%" PRId32 ",%" PRId32 "]", k->grid[0], k->grid[1], k->grid[2]);
	put_fmt(&c, ",\"block\":[%" PRId32 ",%" PRId32 ",%" PRId32 "]", k->block[0], k->block[1], k->block[2]);
	put_fmt(&c, ",\"smem_dynamic\":%" PRId32 ",\"launches\":%" PRIu64 ",\"traced\":%" PRIu64,
		k->smem_dynamic, k->launches, k->traced);
	put_fmt(&c, ",\"converged\":%s", k->converged ? "true" : "false");
	if (k->n_period)
		put_fmt(&c, ",\"period\":{\"n\":%" PRIu64 ",\"p25\":%.0f,\"median\":%.0f,\"p75\":%.0f}",
			k->n_period, k->p25_ns, k->median_ns, k->p75_ns);
	return finish(&c);
}

size_t ta_proto_encode_pcline(char *out, size_t cap, long pid, const ta_proto_pcline *p)
{
	cursor c = { out, cap, 0, 0 };
	put_fmt(&c, "{\"type\":\"pcline\",\"pid\":%ld,\"kernel\":", pid);
	put_json_string(&c, p->kernel);
	put_raw(&c, ",\"file\":", 8);
	put_json_string(&c, p->file);
	put_fmt(&c, ",\"line\":%" PRIu32 ",\"samples\":%" PRIu64 ",\"stalls\":[", p->line,
		p->samples);
	/* The most frequent reasons come first; stop before the line overflows
	 * so that a kernel with many reasons still gets its line through. */
	for (size_t i = 0; i < p->n_reasons; i++) {
		size_t mark = c.len;
		if (i > 0)
			put_raw(&c, ",", 1);
		put_raw(&c, "[", 1);
		put_json_string(&c, p->reasons[i]);
		put_fmt(&c, ",%" PRIu64 "]", p->counts[i]);
		if (c.overflow || c.len + 8 > c.cap) {
			c.overflow = 0;
			c.len = mark;
			c.p[c.len] = '\0';
			break;
		}
	}
	put_raw(&c, "]", 1);
	return finish(&c);
}

size_t ta_proto_encode_pctotal(char *out, size_t cap, long pid, uint64_t samples,
			       uint64_t dropped, uint64_t unattributed, uint64_t other,
			       uint32_t period, int hw_full)
{
	cursor c = { out, cap, 0, 0 };
	put_fmt(&c, "{\"type\":\"pctotal\",\"pid\":%ld,\"samples\":%" PRIu64, pid, samples);
	put_fmt(&c, ",\"dropped\":%" PRIu64 ",\"unattributed\":%" PRIu64, dropped, unattributed);
	put_fmt(&c, ",\"other\":%" PRIu64 ",\"period\":%" PRIu32 ",\"hw_full\":%s", other, period,
		hw_full ? "true" : "false");
	return finish(&c);
}

size_t ta_proto_encode_sol(char *out, size_t cap, long pid, const char *kernel, uint32_t corr,
			   size_t passes, const char *const *names, const double *values, size_t n,
			   const int32_t grid[3], const int32_t block[3])
{
	cursor c = { out, cap, 0, 0 };
	put_fmt(&c, "{\"type\":\"sol\",\"pid\":%ld,\"kernel\":", pid);
	put_json_string(&c, kernel);
	put_fmt(&c, ",\"corr\":%" PRIu32 ",\"passes\":%zu", corr, passes);
	if (grid && block) {
		put_fmt(&c, ",\"grid\":[%" PRId32 ",%" PRId32 ",%" PRId32 "]", grid[0], grid[1], grid[2]);
		put_fmt(&c, ",\"block\":[%" PRId32 ",%" PRId32 ",%" PRId32 "]", block[0], block[1],
			block[2]);
	}
	put_raw(&c, ",\"metrics\":{", 12);
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			put_raw(&c, ",", 1);
		put_json_string(&c, names[i]);
		/* JSON has no NaN or infinity: a value CUPTI could not evaluate
		 * is written as null. */
		if (values[i] == values[i] && values[i] < 1e300 && values[i] > -1e300)
			put_fmt(&c, ":%.17g", values[i]);
		else
			put_raw(&c, ":null", 5);
	}
	put_raw(&c, "}", 1);
	return finish(&c);
}

int ta_proto_capture_mode(const char *value)
{
	if (!value || !*value)
		return 0;
	return strcmp(value, "profiler-api") == 0 || strcmp(value, "cudaProfilerApi") == 0 ? 1 : -1;
}
