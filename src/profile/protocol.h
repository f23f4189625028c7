/* The record stream between the CUPTI injector and the tool: one JSON object
 * per line, "\n"-terminated, UTF-8.
 *
 *   {"type":"hello","v":1,"pid":P,"cupti":V,"driver":D}
 *   {"type":"kernel","pid":P,"name":"...","start":NS,"end":NS,"grid":[x,y,z],
 *    "block":[x,y,z],"regs":R,"smem_static":B,"smem_dynamic":B,"local":B,
 *    "device":D,"stream":S,"corr":C,"graph":G,"graph_node":N}
 *   {"type":"error","pid":P,"where":"cuptiActivityEnable","code":C,"message":"..."}
 *   {"type":"bye","pid":P,"written":N,"dropped":N,"lost":N}
 *
 * "driver" is omitted when unknown. "dropped" counts records CUPTI dropped
 * (its buffers were full), "lost" counts lines the injector could not write
 * (the reader was gone or stalled). Unknown keys are ignored by the decoder,
 * so fields can be added without breaking older tools.
 *
 * The encoder half (ta_proto_encode_*) depends on libc only: it is compiled
 * into the injector. The decoder half needs jansson and util. */
#ifndef TA_PROFILE_PROTOCOL_H
#define TA_PROFILE_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TA_PROTO_VERSION 1
/* Longest line the decoder accepts; longer ones are counted and skipped. */
#define TA_PROTO_MAX_LINE 65536

/* ---- encoder (libc only) ------------------------------------------------- */

typedef struct ta_proto_kernel {
	const char *name;
	uint64_t start_ns, end_ns;
	int32_t grid[3], block[3];
	uint32_t regs;              /* registers per thread */
	int32_t smem_static, smem_dynamic;   /* bytes per block */
	uint32_t local_per_thread;  /* bytes of local memory per thread */
	uint32_t device, stream, correlation, graph_id;
	uint64_t graph_node_id;
} ta_proto_kernel;

/* Each writes one complete line (with its "\n" and a terminating NUL) into
 * out[cap] and returns its length without the NUL, or 0 when it does not
 * fit (out is then unspecified). Strings are escaped for JSON; bytes that
 * are not valid UTF-8 become '?'. No allocation. */
size_t ta_proto_encode_hello(char *out, size_t cap, long pid, uint32_t cupti_version,
			     int driver_version /* < 0: unknown */);
size_t ta_proto_encode_kernel(char *out, size_t cap, long pid, const ta_proto_kernel *k);
size_t ta_proto_encode_error(char *out, size_t cap, long pid, const char *where,
			     int code, const char *message);
size_t ta_proto_encode_bye(char *out, size_t cap, long pid, uint64_t written,
			   uint64_t dropped, uint64_t lost);

/* ---- decoder (tool side) ------------------------------------------------- */

/* One kernel launch as decoded. */
typedef struct ta_kernel_rec {
	char *name;                 /* owned by the ta_records holding it */
	long pid;
	int run;                    /* index of the run (for --repeat), set by the feeder */
	uint64_t start_ns, end_ns;
	int32_t grid[3], block[3];
	uint32_t regs;
	int32_t smem_static, smem_dynamic;
	uint32_t local_per_thread;
	uint32_t device, stream, correlation, graph_id;
	uint64_t graph_node_id;
} ta_kernel_rec;

/* Everything decoded from one or more record streams (runs are pooled). */
typedef struct ta_records {
	ta_kernel_rec *kernels;
	size_t n_kernels, cap_kernels;
	char **errors;              /* "where: message (code N)", owned */
	size_t n_errors, cap_errors;
	size_t n_hello, n_bye;      /* per process: several processes may report */
	uint32_t cupti_version;     /* from the last hello; 0 when none */
	int driver_version;         /* from the last hello; -1 when none */
	uint64_t written, dropped, lost;     /* summed over bye records */
	size_t n_lines;             /* complete lines seen */
	size_t n_malformed;         /* not JSON, not an object, or missing fields */
	size_t n_unknown;           /* well-formed but of an unknown type (skipped) */
	size_t n_overlong;          /* longer than TA_PROTO_MAX_LINE (skipped) */
	size_t n_truncated;         /* a last line without its "\n" */
} ta_records;

#define TA_RECORDS_INIT { .driver_version = -1 }

void ta_records_init(ta_records *r);
/* Frees what r holds and leaves it empty (reusable). */
void ta_records_clear(ta_records *r);

/* Assembles lines from a byte stream that arrives in arbitrary pieces and
 * decodes each into a ta_records. */
typedef struct ta_proto_decoder {
	ta_records *out;            /* not owned */
	int run;                    /* stamped on each kernel decoded */
	char *line;                 /* partial line so far (owned) */
	size_t len, cap;
	bool skipping;              /* inside an overlong line, discarding to "\n" */
} ta_proto_decoder;

void ta_proto_decoder_init(ta_proto_decoder *d, ta_records *out, int run);
/* Feeds n bytes; never fails (bad lines are counted in out). */
void ta_proto_decoder_feed(ta_proto_decoder *d, const char *bytes, size_t n);
/* Ends the stream: a pending partial line counts as truncated. Frees the
 * decoder's buffer; out stays valid. */
void ta_proto_decoder_finish(ta_proto_decoder *d);

/* Decodes one complete line (without "\n") into r; returns false (and counts
 * it) when the line is malformed or of an unknown type. */
bool ta_proto_decode_line(ta_records *r, const char *line, size_t len, int run);

/* Reads a recorded stream (a .jsonl fixture) into r. Returns 0, or -1 with
 * *err set (caller frees). */
int ta_records_load_file(ta_records *r, const char *path, char **err);

#endif
