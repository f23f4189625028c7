/* Shared by the detector files and the registry; not part of the interface. */
#ifndef TA_CHECKLIST_RULES_INTERNAL_H
#define TA_CHECKLIST_RULES_INTERNAL_H

#include "analyze/index.h"
#include "analyze/model_internal.h"
#include "analyze/names.h"
#include "checklist/rules.h"

/* An assignment `name = value` (or `name op= value`) inside a kernel. */
typedef struct ta_assign {
	char *name;
	ta_span rhs;
	ta_span stmt;
	int loop;                 /* innermost kernel loop, -1 none */
	bool augmented;
} ta_assign;

typedef struct ta_rule_ctx {
	const ta_model *m;
	const ta_evidence *ev;
	ta_rules_result *res;
	int kernel;
	const ta_kernel *k;
	size_t entry;
	const char *id;
	bool attention;           /* T1 applies to this kernel */
	size_t first_finding;     /* this kernel's findings start here (or before) */
	ta_assign *assigns;       /* lazily, see ta_rule_assigns */
	size_t assign_count;
	bool assigns_done;
	struct ta_loop_vary *loop_vary; /* lazily, per loop of k: see ta_rule_varies_in_loop */
} ta_rule_ctx;

/* Frees what the context made lazily (its assignments, its loops' sets). */
void ta_rule_ctx_release(ta_rule_ctx *c);

typedef ta_status (*ta_detector)(ta_rule_ctx *c);

/* The entry's shape is there but the code relies on what its edit would
 * change (a scratch round trip under P1's configs): no finding, and why
 * (owned from here) for --diff and --apply to say. Returns
 * TA_STATUS_NOT_APPLICABLE. */
ta_status ta_rule_withhold(ta_rule_ctx *c, char *why);

/* Adds a finding of the current entry for the current kernel; the reason is
 * printf-formatted. The span's line is the first evidence line. */
ta_finding *ta_rule_add(ta_rule_ctx *c, ta_span span, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ta_finding_line(ta_finding *f, uint32_t line);
/* Keeps a piece of f's reason under key (static), for a line that merges
 * several findings to read instead of parsing the reason. */
void ta_finding_set_part(ta_finding *f, const char *key, const char *text);
/* The current entry has a finding for the current kernel whose span starts
 * at start (one site met again through another path). */
bool ta_rule_reported_at(const ta_rule_ctx *c, uint32_t start);

/* Serving: copies another entry's findings for this kernel (those with any
 * of tags, or all when tags == 0) under the current id; returns the status
 * the entry takes. */
ta_status ta_rule_serve(ta_rule_ctx *c, const char *from, unsigned tags);
/* As ta_rule_serve, taking every finding of from except those tagged with
 * one of the tags in without. */
ta_status ta_rule_serve_except(ta_rule_ctx *c, const char *from, unsigned without);
ta_status ta_rule_status_of(const ta_rule_ctx *c, const char *id);

/* Text of a span (caller frees) and identifier tests over source text. */
char *ta_rule_text(const ta_rule_ctx *c, ta_span s);
bool ta_text_mentions(const char *text, size_t len, const char *ident);
bool ta_rule_mentions(const ta_rule_ctx *c, ta_span s, const char *ident);
/* A test function (pytest's test_*): what it allocates or copies on every
 * call is not a cost the kernel's users pay, so host-cost entries skip it. */
bool ta_rule_host_is_test(const ta_host *h);
/* Kernel names for a message: "`a`", "`a` and `b`", "`a`, `b` and 3 more".
 * Duplicates (the same kernel twice) are listed once. Caller frees. */
char *ta_rule_kernel_list(const ta_kernel *const *ks, size_t n);
bool ta_rule_contains(const ta_rule_ctx *c, ta_span s, const char *needle);

/* Whether n is a call whose callee, as written, ends with suffix
 * (`tl.dot` and `dot` for "dot", `symm_mem.rendezvous` for "rendezvous"). */
bool ta_call_named(const ta_model *m, TSNode n, const char *suffix);
/* Whether k binds name to a clamp (`n = tl.minimum(n, cap)`, `len =
 * tl.maximum(lo, x)`): a length capped per sample, never a leading
 * dimension, whose alignment no host can promise. */
bool ta_rule_clamped(const ta_model *m, const ta_kernel *k, const char *name);
/* Whether k's body reads name (a parameter no statement reads, STAGE
 * kept in a signature for its callers, selects nothing). */
bool ta_rule_kernel_reads(const ta_model *m, const ta_kernel *k, const char *name);
/* Case-insensitive equality with one of the NULL-terminated names. */

/* A constexpr parameter named as a mode (HEAD_DIM, STAGE, IS_CAUSAL, ...)
 * that changes the best config: an autotune key holds it (S8; P1 writes
 * it into the key it makes). */
bool ta_s8_mode_param(const char *name);

/* The ops of kind of host h, as indexes into h's ops in order (a table
 * made once per model): rules that look for one kind of op per launch stay
 * linear when one host has thousands of ops and launches. */
const uint32_t *ta_rule_host_ops(const ta_rule_ctx *c, int host, ta_host_kind kind, size_t *n);

/* A call of a plain name in the file (`f(...)`): the name, in the file's
 * text, and the call node. */
typedef struct ta_name_call {
	const char *name;
	uint32_t len;
	TSNode call;
} ta_name_call;
/* The file's calls of the plain name (name, len), from a table built once
 * per model: *n of them from the pointer returned. */
const ta_name_call *ta_rule_calls_of(const ta_model *m, const char *name, size_t len, size_t *n);

/* The value of name (len bytes) when function fn binds it once, by a plain
 * `name = value` that takes effect before offset before (0: anywhere); a
 * null node otherwise. From the bindings' index (analyze/values.h). */
TSNode ta_rule_sole_value(const ta_model *m, TSNode fn, const char *name, size_t len, uint32_t before);

/* The kernel's assignments in document order (cached in c). */
const ta_assign *ta_rule_assigns(ta_rule_ctx *c, size_t *n);
/* Those of as[0 .. n) whose statement starts inside span s: [*first, return). */
size_t ta_rule_assigns_within(const ta_assign *as, size_t n, ta_span s, size_t *first);
/* Innermost loop of k holding byte offset off, or -1. */
int ta_kernel_loop_at(const ta_kernel *k, uint32_t off);
/* The loops of l's nest, l first: indexes [l, return). */
size_t ta_loop_nest_end(const ta_kernel *k, int l);
/* The ops inside loop l's statement, at any depth: [*first, return). */
size_t ta_loop_ops(const ta_kernel *k, int l, size_t *first);
/* True when loop `inner` is `outer` or nested in it. */
bool ta_loop_within(const ta_kernel *k, int inner, int outer);
/* One ta_op_kind as a bit of the kinds ta_kernel_reaches_op asks for. */
#define TA_OP_BIT(kind) ((uint64_t)1 << (kind))
/* Whether kernel ki (-1: none) has an op of kinds, itself or in the @jit
 * helpers it calls, down to depth 3 (ki itself at depth; a helper calling
 * itself is not followed). */
bool ta_kernel_reaches_op(const ta_model *m, int ki, uint64_t kinds, int depth);
/* Whether the program that runs kernel ki moves its data once: neither ki
 * nor the helpers it calls has a loop or a tl.dot, and no kernel calling
 * it (up to two levels) has either. */
bool ta_kernel_one_shot(const ta_model *m, int ki);
/* Kernel ki (or a @jit helper it calls) runs a tl.dot, or loads or stores
 * a tile or a row (not a scalar) inside a loop, or calls a @jit function of
 * another module: work whose best pipeline depth and tiles differ by GPU.
 * A kernel whose only loop walks scalars (a search of cu_seqlens) moves
 * each tile once per program. */
bool ta_kernel_streams(const ta_model *m, int ki);
/* True when the expression at s can change from one iteration of loop l to
 * the next: it mentions the variable of l or of a loop inside it, or a name
 * assigned inside l from such a value (or by `+=`), followed to a fixpoint. */
bool ta_rule_varies_in_loop(ta_rule_ctx *c, ta_span s, int l);
/* Whether op lies in code no run of the kernel reaches: a branch of `if
 * NAME == V` / `!=` that no autotune config takes (every config sets the
 * constexpr NAME), or a branch of a constexpr flag (`if USE_TMA_STORE:`,
 * `if not FLAG:`) that no config, launch keyword or default takes. */
bool ta_rule_op_unreached(ta_rule_ctx *c, const ta_op *op);
/* The ops of k named by the operand text (an identifier): ops whose target
 * is that name. */
const ta_op *ta_op_defining(const ta_kernel *k, const char *name, uint32_t before);
/* The tree node exactly covering a span (or the smallest containing it). */
TSNode ta_rule_node(const ta_rule_ctx *c, ta_span s);
/* Whether offsets a and b lie in different arms of one if statement (its
 * body, an elif, the else): no pass through it runs both. */
bool ta_rule_apart_arms(const ta_rule_ctx *c, uint32_t a, uint32_t b);
/* Positional argument i of an op as text (caller frees), or NULL. */
char *ta_op_arg(const ta_rule_ctx *c, const ta_op *op, size_t i);
/* Value of a kernel parameter's candidates: every literal integer given to
 * name by the autotune configs or by launch keywords; returns count written
 * into vals (at most max). */
size_t ta_rule_param_values(const ta_rule_ctx *c, const char *name, long *vals, size_t max);

/* The dimensions of a tile as the code writes them: the shape of a
 * reshape, broadcast_to or zeros, or the ranges of a load's pointer terms
 * (x[:, None] puts x's tl.arange on axis 0), following names bound before.
 * size[i] is the node giving axis i's extent (null: unknown). */
#define TA_TILE_MAX_RANK 4
typedef struct ta_tile_dims {
	int rank;                 /* 0: unknown */
	TSNode size[TA_TILE_MAX_RANK];
	bool broadcast;           /* made by tl.broadcast_to */
} ta_tile_dims;
/* The dimensions of the value at s as read at `before`; returns the rank. */
int ta_rule_tile_dims(ta_rule_ctx *c, ta_span s, uint32_t before, ta_tile_dims *d);
/* Whether a size is at most `most`: a literal, or a constexpr parameter
 * every known value of which is (*param names it then). */
bool ta_rule_size_at_most(ta_rule_ctx *c, TSNode size, long most, const char **param);

/* Whether the file is written for a back-end other than CUDA (ROCm, Ascend,
 * Cambricon, MUSA, Kunlunxin, XPU...): a folder of the path named for one
 * (FlagGems writes them _ascend), or a test of the back-end in the text
 * (torch.version.hip, is_hip()...), where the kernels run on CUDA and on
 * another back-end. b (when given) says which: the folder as named in the path,
 * or the test as written and its line. */
typedef enum ta_backend_kind { TA_BACKEND_CUDA, TA_BACKEND_FOLDER, TA_BACKEND_TEST } ta_backend_kind;
typedef struct ta_backend_fact {
	const char *text;         /* borrowed: the path up to the folder, or the test */
	int len;
	unsigned line;            /* the test's line */
} ta_backend_fact;
ta_backend_kind ta_file_other_backend(const ta_model *m, ta_backend_fact *b);

/* Whether the text tests for another back-end than CUDA: one of the
 * tests ta_file_other_backend looks for (torch.version.hip, is_hip(), a
 * quoted device name) or a read of a back-end flag (IS_AMD, ...). */
bool ta_text_backend_test(const char *t, size_t n);

/* Which parameters of k an autotuner must restore between its trial
 * launches (read and written, accumulated into with atomics, or written
 * through an alias of one read), as restore[i] (caller frees); *line: the
 * first such write, 0 when none. P1's edit lists them in restore_value;
 * S8's refuses to add a key that would tune such a kernel again. */
bool *ta_rule_tuner_restores(const ta_model *m, const ta_kernel *k, uint32_t *line);

/* The T2 layout-flag vocabulary (also used by L1). */
bool ta_is_layout_flag(const char *name);

/* The detectors, one per row of entries.def. */
#define ENTRY(ID, det, SEC, NEEDS, RW, SCOPE, SERVED, OPENS, FLAGS) ta_status ta_detect_##det(ta_rule_ctx *c);
#include "checklist/entries.def"
#undef ENTRY

/* ---- shared by several entries (rules.c) ---- */

int ta_rule_dots_in_loop(const ta_kernel *k, int l);

/* The next host function of a walk of those that launch a kernel
 * (ta_index_host_walk) that is neither the module level nor a test, or
 * NULL after the last. */
static inline const ta_host *ta_rule_next_host(ta_host_walk *w)
{
	for (const ta_host *h; (h = ta_host_walk_next(w));)
		if (h->span.end != 0 && !ta_rule_host_is_test(h))
			return h;
	return NULL;
}

/* Whether loop (an index in kernel ki's loops) has attention's shape, as
 * T1 reads it: two tl.dot with a running max and an exponential in it,
 * helpers it calls included. */
bool ta_rules_attention_at(const ta_model *m, int ki, size_t loop);

/* Whether op, a raw access through a pointer of two axes, reads no tile a
 * descriptor holds: an axis's offsets divided (`offs_k[:, None] // 8`,
 * packed rows read again) or an axis of length 1 wherever the kernel runs
 * (tl.arange(0, BLOCK_M) with BLOCK_M = 1 in every config). tile_shape.c */
bool ta_tile_not_2d(const ta_model *m, const ta_kernel *k, const ta_op *op);
/* ta_tile_not_2d, walking op's pointer once; *rows_repeat (may be NULL):
 * whether it indexes rows by a division of a range (`rows // heads`, or a
 * value computed from one), rows that repeat or are permuted, which no
 * descriptor box describes. */
bool ta_tile_shape(const ta_model *m, const ta_kernel *k, const ta_op *op, bool *rows_repeat);

/* The least and greatest values the configs under n give the constexpr
 * `name` (each `"name": v` of a dict; v an integer, a name holding one, or
 * the target of a `for v in [1, 2]` around it): false when one is not
 * known or none is. tile_shape.c */
bool ta_configs_range(const ta_model *m, TSNode n, const char *name, long *lo, long *hi);

#endif
