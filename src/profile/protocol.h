/* The record stream between the CUPTI injector and the tool: one JSON object
 * per line, "\n"-terminated, UTF-8.
 *
 *   {"type":"hello","v":1,"pid":P,"cupti":V,"driver":D}
 *   {"type":"kernel","pid":P,"name":"...","start":NS,"end":NS,"grid":[x,y,z],
 *    "block":[x,y,z],"regs":R,"smem_static":B,"smem_dynamic":B,"local":B,
 *    "device":D,"stream":S,"corr":C,"graph":G,"graph_node":N,"w":W}
 *   {"type":"error","pid":P,"where":"cuptiActivityEnable","code":C,"message":"..."}
 *   {"type":"bye","pid":P,"written":N,"dropped":N,"lost":N}
 *   {"type":"calls","pid":P,"name":"...","grid":[x,y,z],"block":[x,y,z],
 *    "smem_dynamic":B,"launches":N,"traced":T,"converged":B,
 *    "period":{"n":K,"p25":NS,"median":NS,"p75":NS}}
 *
 * A "calls" line (one per launch shape, written at exit) comes from the
 * launch callback: every launch of the shape counted, how many of them were
 * traced (activity records asked for: with adaptive tracing a converged
 * shape is only sampled), and the host time between a launch of that shape
 * and the previous launch of the same kernel (any shape): the period of the
 * user's calls, wrapper and autotuner work included, binned 1% wide.
 * "period" is absent when the shape launched once. Streams without "calls"
 * lines (older injectors, TILEADVISE_TRACE=plain) have every launch traced.
 *
 * With --deep the injector runs once more in one of two modes
 * (TILEADVISE_DEEP=pc or =sol) and adds:
 *   {"type":"pcline","pid":P,"kernel":"...","file":"...","line":L,"samples":N,
 *    "stalls":[["long_scoreboard",N],...]}       stall samples on one source line
 *   {"type":"pctotal","pid":P,"samples":N,"dropped":N,"unattributed":N,
 *    "other":N,"period":E,"hw_full":B}           PC sampling totals
 *   {"type":"sol","pid":P,"kernel":"...","corr":C,"passes":N,"grid":[x,y,z],
 *    "block":[x,y,z],"metrics":{"dram__throughput.avg.pct_of_peak_sustained_elapsed":X,...}}
 *                                                counters of one profiled launch
 * and the tool itself writes, into a saved stream, one line per run:
 *   {"type":"run","mode":"timed"|"pc"|"sol","wall_s":X}
 * "period" is the sampling interval as a power of two of cycles; "other"
 * counts samples in kernels that are not the user's (CUPTI's own count).
 *
 * "w" (absent: 1) is how many launches of its shape a kernel record stands
 * for: with adaptive tracing a sampled launch stands for itself and those
 * of its shape left untraced since the shape's previous traced launch, so
 * that sums and means over records weigh each by it (Horvitz-Thompson).
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
#include <stdio.h>

#define TA_PROTO_VERSION 1
/* Longest line the decoder accepts; longer ones are counted and skipped. */
#define TA_PROTO_MAX_LINE 65536

/* ---- encoder (libc only) ------------------------------------------------- */

/* TILEADVISE_CAPTURE, read by the injector and by the tool: "profiler-api"
 * (nsys's spelling "cudaProfilerApi" too) records only the launches between
 * cuProfilerStart and cuProfilerStop (cudaProfilerStart/Stop,
 * torch.cuda.profiler.start/stop); outside them the injector turns its launch
 * callbacks and kernel activity off. 1 for that, 0 when value is NULL or
 * empty, -1 for anything else. libc only. */
int ta_proto_capture_mode(const char *value);


typedef struct ta_proto_kernel {
	const char *name;
	uint64_t start_ns, end_ns;
	int32_t grid[3], block[3];
	uint32_t regs;              /* registers per thread */
	int32_t smem_static, smem_dynamic;   /* bytes per block */
	uint32_t local_per_thread;  /* bytes of local memory per thread */
	uint32_t device, stream, correlation, graph_id;
	uint64_t graph_node_id;
	uint64_t weight;            /* launches this one stands for; 0 or 1: itself */
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

/* Launch counts and host periods of one shape (the "calls" line). */
typedef struct ta_proto_calls {
	const char *name;
	int32_t grid[3], block[3];
	int32_t smem_dynamic;
	uint64_t launches, traced;
	bool converged;
	uint64_t n_period;          /* 0: no period */
	double p25_ns, median_ns, p75_ns;
} ta_proto_calls;

size_t ta_proto_encode_calls(char *out, size_t cap, long pid, const ta_proto_calls *k);

/* The stall samples of one source line: reasons[n] with counts[n], most
 * first (the encoder keeps the first ones that fit). */
typedef struct ta_proto_pcline {
	const char *kernel, *file;
	uint32_t line;              /* 0: no line information */
	uint64_t samples;
	const char *const *reasons;
	const uint64_t *counts;
	size_t n_reasons;
} ta_proto_pcline;

size_t ta_proto_encode_pcline(char *out, size_t cap, long pid, const ta_proto_pcline *p);
size_t ta_proto_encode_pctotal(char *out, size_t cap, long pid, uint64_t samples,
			       uint64_t dropped, uint64_t unattributed, uint64_t other,
			       uint32_t period, int hw_full);
/* Metric names[n] with values[n] of one profiled launch; grid and block
 * may be NULL (not known). */
size_t ta_proto_encode_sol(char *out, size_t cap, long pid, const char *kernel, uint32_t corr,
			   size_t passes, const char *const *names, const double *values, size_t n,
			   const int32_t grid[3], const int32_t block[3]);

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
	uint64_t weight;            /* launches it stands for ("w"), 1 when absent */
} ta_kernel_rec;

/* Launch counts and host periods of one shape of one process ("calls"). */
typedef struct ta_calls_rec {
	char *name;                 /* owned */
	long pid;
	int run;
	int32_t grid[3], block[3];
	int32_t smem_dynamic;
	uint64_t launches, traced;
	bool converged;
	uint64_t n_period;          /* 0: none */
	double p25_ns, median_ns, p75_ns;
} ta_calls_rec;

/* The stall samples of one source line of one kernel (--deep). */
typedef struct ta_pcline_rec {
	char *kernel, *file;        /* owned */
	uint32_t line;
	uint64_t samples;
	char **reasons;             /* owned, n_reasons of them, most first */
	uint64_t *counts;
	size_t n_reasons;
} ta_pcline_rec;

/* The counters of one profiled launch (--deep). */
typedef struct ta_sol_rec {
	char *kernel;               /* owned */
	uint32_t correlation;
	size_t passes;
	bool has_shape;             /* grid and block are known */
	int32_t grid[3], block[3];
	char **names;               /* owned, n of them */
	double *values;
	size_t n;
} ta_sol_rec;

/* Everything decoded from one or more record streams (runs are pooled). */
typedef struct ta_records {
	ta_kernel_rec *kernels;
	size_t n_kernels, cap_kernels;
	char **errors;              /* "where: message (code N)", owned */
	size_t n_errors, cap_errors;
	char **notes;               /* "where: message": error records with code 0, the
	                             * injector saying what it did instead; owned */
	size_t n_notes, cap_notes;
	size_t n_hello, n_bye;      /* per process: several processes may report */
	uint32_t cupti_version;     /* from the last hello; 0 when none */
	int driver_version;         /* from the last hello; -1 when none */
	uint64_t written, dropped, lost;     /* summed over bye records */
	size_t n_lines;             /* complete lines seen */
	size_t n_malformed;         /* not JSON, not an object, or missing fields */
	size_t n_unknown;           /* well-formed but of an unknown type (skipped) */
	size_t n_overlong;          /* longer than TA_PROTO_MAX_LINE (skipped) */
	size_t n_truncated;         /* a last line without its "\n" */
	ta_pcline_rec *pclines;     /* --deep: PC sampling by source line */
	size_t n_pclines, cap_pclines;
	bool has_pc_total;          /* a pctotal record was seen (summed below) */
	uint64_t pc_samples, pc_dropped, pc_unattributed, pc_other;
	uint32_t pc_period;
	bool pc_hw_full;
	ta_calls_rec *calls;        /* launch counts and host periods per shape */
	size_t n_calls, cap_calls;
	ta_sol_rec *sols;           /* --deep: counters per profiled launch */
	size_t n_sols, cap_sols;
	/* Wall time of the runs by kind (timed, pc, sol), from "run" lines;
	 * the overhead of --deep is their ratio. */
	double run_wall_s[3];
	size_t run_count[3];
	/* Timed runs known to have tuned nothing (a measured run after a
	 * tuning run whose choices it read from Triton's cache): their run
	 * indexes, in order. The measurement takes none of their launches for
	 * the autotuner's. */
	int *untuned;
	size_t n_untuned, cap_untuned;
	/* Kernel and calls records before the last "run" line: a dropped run's
	 * records are the ones after them. */
	size_t kernels_at_run, calls_at_run;
} ta_records;

enum { TA_RUN_KIND_TIMED, TA_RUN_KIND_PC, TA_RUN_KIND_SOL };

/* Notes a run of kind (TA_RUN_KIND_*) that took wall_s in r and, when tee
 * is non-NULL, writes its "run" line there; untuned: a timed run known to
 * have tuned nothing (its "run" line says "tuned": false). */
void ta_records_note_run(ta_records *r, int kind, double wall_s, bool untuned, FILE *tee);
/* Drops the records of the timed run that just ended (those since the
 * last "run" line): a measured run that tuned all the same after its
 * tuning run, made again. It counts as no run; when tee is non-NULL its
 * "run" line says "dropped": true, and loading the stream drops them too. */
void ta_records_drop_run(ta_records *r, double wall_s, FILE *tee);
/* Whether the timed run of that index tuned nothing (see untuned). */
bool ta_records_run_untuned(const ta_records *r, int run);

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
