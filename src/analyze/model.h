/* The Triton model of a kernel file: what the checklist reasons about.
 *
 * Built from the syntax tree: import aliases, the @triton.jit functions with
 * their decorators (autotune, heuristics), parameters, loops and the Triton
 * operations inside them, launches kernel[grid](...), and the host-side
 * calls that matter (allocations, .contiguous(), descriptors, allocator).
 * Every item keeps its byte range so rules can point at it and edits can
 * rewrite it. Names of called functions are canonical: `tl.load` with
 * `import triton.language as tl` is "triton.language.load". */
#ifndef TA_ANALYZE_MODEL_H
#define TA_ANALYZE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#include "analyze/namemap.h"
#include "analyze/source.h"
#include "analyze/syntax.h"

typedef struct ta_span {
	uint32_t start, end;      /* byte range in source->text */
	uint32_t line, col;       /* 1-based start (col in code points) */
	uint32_t end_line;        /* 1-based, inclusive */
} ta_span;

/* A keyword argument or a name/value pair as written. */
typedef struct ta_kwarg {
	char *name;
	char *value;              /* source text of the value */
	ta_span span;             /* the whole `name=value` */
	ta_span value_span;
} ta_kwarg;

typedef struct ta_import {
	char *alias;              /* name bound in the file: "tl" */
	char *target;             /* what it stands for: "triton.language" */
	char *from;               /* the module of `from M import x` as written
				     ("..util", "pkg.util"); NULL for `import M` */
	uint32_t line;
} ta_import;

typedef enum ta_op_kind {
	TA_OP_LOAD, TA_OP_STORE, TA_OP_DOT, TA_OP_TRANS, TA_OP_PERMUTE,
	TA_OP_RESHAPE, TA_OP_ZEROS, TA_OP_ARANGE, TA_OP_EXPAND_DIMS,
	TA_OP_BROADCAST_TO, TA_OP_PROGRAM_ID, TA_OP_NUM_PROGRAMS,
	TA_OP_MAKE_DESCRIPTOR, TA_OP_MAKE_BLOCK_PTR, TA_OP_ADVANCE,
	TA_OP_DESC_LOAD, TA_OP_DESC_STORE, TA_OP_TANH, TA_OP_EXP, TA_OP_EXP2,
	TA_OP_MAX, TA_OP_MAXIMUM, TA_OP_SUM, TA_OP_WHERE, TA_OP_ASSUME,
	TA_OP_MULTIPLE_OF, TA_OP_ATOMIC, TA_OP_CDIV, TA_OP_INLINE_ASM,
	TA_OP_HELPER_CALL,        /* a call to another @jit function of the file */
	TA_OP_OTHER,              /* any other triton.language call */
	TA_OP__COUNT
} ta_op_kind;

/* Shape of a load/store pointer as judged from the expression. */
typedef enum ta_ptr_shape {
	TA_PTR_UNKNOWN, TA_PTR_SCALAR, TA_PTR_1D, TA_PTR_2D, TA_PTR_BLOCK_PTR
} ta_ptr_shape;

typedef struct ta_op {
	ta_op_kind kind;
	char *callee;             /* canonical name, or the method for DESC_* */
	ta_span span;             /* the call */
	int loop;                 /* innermost enclosing loop index, -1 none */
	int loop_depth;           /* 0 outside loops */
	char *target;             /* variable assigned the result, or NULL */
	bool augmented;           /* `target += call` */
	ta_kwarg *kwargs;
	size_t kwarg_count;
	ta_span *args;            /* positional arguments */
	size_t arg_count;
	/* loads and stores */
	ta_ptr_shape ptr_shape;
	int ptr_rank;             /* 2 for [:, None] + [None, :], 3 for 3D */
	bool has_mask;
	bool gather;              /* rows come from a loaded index tensor */
	uint32_t gather_at[4];    /* where the loads of that index start, + 1 (one per caller
				     of a helper that passes a gathered tile; 0: none more) */
	bool lookup;              /* a gather whose every dimension comes from the
				     loaded index (`tl.load(code + idx)`), or whose
				     index is itself a 2D tile: element-wise, not
				     rows of a tile */
	/* dot: acc given as third argument or acc= */
	bool has_acc;
	char *receiver;           /* DESC_LOAD/DESC_STORE: the descriptor variable */
	int helper;               /* HELPER_CALL: index of the called kernel */
} ta_op;

typedef enum ta_loop_kind {
	TA_LOOP_RANGE, TA_LOOP_TL_RANGE, TA_LOOP_STATIC_RANGE, TA_LOOP_FOR_OTHER, TA_LOOP_WHILE
} ta_loop_kind;

typedef struct ta_loop {
	ta_loop_kind kind;
	ta_span span;             /* the whole statement */
	ta_span header;           /* `for ... in ...:` line */
	ta_span iter;             /* the iterable / condition */
	char *var;                /* loop variable (for) */
	int parent;               /* enclosing loop, -1 none */
	int depth;                /* 1 for outermost */
	ta_kwarg *kwargs;         /* of tl.range(...): num_stages, loop_unroll_factor... */
	size_t kwarg_count;
	char **args;              /* positional args of the range call, as text */
	size_t arg_count;
} ta_loop;

typedef struct ta_param {
	char *name;
	char *annotation;         /* text or NULL */
	char *default_value;      /* text or NULL */
	bool constexpr_;          /* annotated tl.constexpr (any alias) */
	ta_span span;
} ta_param;

typedef enum ta_configs_kind {
	TA_CONFIGS_NONE, TA_CONFIGS_LIST, TA_CONFIGS_COMPREHENSION,
	TA_CONFIGS_FUNCTION,      /* get_configs() defined in this file */
	TA_CONFIGS_NAME,          /* a module variable holding a list */
	TA_CONFIGS_UNRESOLVED
} ta_configs_kind;

typedef struct ta_config {
	ta_span span;
	ta_kwarg *params;         /* the dict's entries: "BLOCK_M": 128 */
	size_t param_count;
	ta_kwarg *options;        /* num_warps=, num_stages=, num_ctas=, maxnreg=, pre_hook= */
	size_t option_count;
} ta_config;

typedef struct ta_autotune {
	ta_span span;             /* the decorator or the wrapping call */
	ta_configs_kind configs_kind;
	ta_span configs_span;
	char *configs_function;   /* name of the function building the list */
	ta_config *configs;       /* literal configs found (all branches) */
	size_t config_count;
	char **varies;            /* names whose value differs across configs, or that
				     a comprehension iterates over; includes num_warps... */
	size_t vary_count;
	bool branches_on_capability; /* the list depends on the GPU or backend */
	char **builder_params;    /* meta-parameters a config builder of another module is
				     handed by name (`generate_configs({"BLOCK_D": [64, 128],
				     "num_warps": [4, 8]})`): the configs set them */
	size_t builder_param_count;
	char **key;               /* key=[...] names */
	size_t key_count;
	ta_span key_span;         /* the list, or zero when no key= */
	bool has_prune;           /* prune_configs_by */
	ta_span prune_span;
	bool has_pre_hook;        /* on autotune or on any config */
	ta_kwarg *kwargs;         /* every keyword of the autotune call */
	size_t kwarg_count;
	int tuners;               /* 1; more when several tuners wrap the kernel (their configs
				     are all here, the first one's place, key and keywords) */
} ta_autotune;

typedef struct ta_heuristic {
	char *name;
	char *expr;
	ta_span span;
} ta_heuristic;

typedef struct ta_kernel {
	char *name;
	ta_span span;             /* decorated definition, decorators included */
	ta_span def_span;         /* the `def` statement */
	ta_span body_span;
	uint32_t def_line;
	ta_param *params;
	size_t param_count;
	ta_kwarg *jit_kwargs;     /* @triton.jit(do_not_specialize=...) */
	size_t jit_kwarg_count;
	ta_autotune *autotune;    /* NULL when not autotuned */
	ta_heuristic *heuristics;
	size_t heuristic_count;
	ta_span heuristics_span;
	bool wrapped;             /* jit/autotune applied by a call, not a decorator */
	char **aliases;           /* other names bound to this kernel */
	size_t alias_count;
	ta_loop *loops;
	size_t loop_count;
	ta_op *ops;
	size_t op_count;
	bool persistent;          /* loops over tiles with a stride of num_programs */
	bool is_helper;           /* called from another kernel and never launched */
	int launch_count;
	char *indent;             /* one level of the body's indentation */
	TSNode node;              /* function_definition */
} ta_kernel;

typedef enum ta_grid_kind {
	TA_GRID_TUPLE, TA_GRID_LAMBDA, TA_GRID_FUNCTION, TA_GRID_NAME, TA_GRID_CALL, TA_GRID_OTHER
} ta_grid_kind;

typedef struct ta_launch {
	int kernel;               /* index in model->kernels, -1 when unresolved */
	char *callee;             /* as written before [grid] */
	char *only_if;            /* NULL, or a Python test true exactly when this
				   * call runs `kernel`: the callee chooses among
				   * kernels (`fn = A if c else B`: "fn is A"; at the
				   * call: "c", "not c"), and the call has one
				   * launch per kernel it may run, at the same span */
	ta_span span;             /* the whole call */
	ta_span grid_span;        /* the grid as written inside [...] */
	ta_span grid_def_span;    /* where the grid was defined (the lambda/tuple), may equal grid_span */
	ta_grid_kind grid_kind;
	int grid_dims;            /* 0 when unknown */
	bool grid_uses_meta;      /* the grid reads the config (META[...] or a lambda param) */
	char **grid_dim_text;     /* text of each dimension when known */
	ta_kwarg *kwargs;
	size_t kwarg_count;
	ta_span *args;
	size_t arg_count;
	int host;                 /* index in model->hosts, -1 at module level */
	int loop_depth;           /* host loops around the launch */
	ta_span loop_span;        /* innermost host loop, when any */
	char *loop_var;
	char *loop_iter;          /* text of what the loop iterates over */
} ta_launch;

typedef enum ta_host_kind {
	TA_HOST_CONTIGUOUS, TA_HOST_ALLOC, TA_HOST_TO_DEVICE, TA_HOST_HAND_CDIV,
	TA_HOST_SET_ALLOCATOR, TA_HOST_TENSOR_DESCRIPTOR, TA_HOST_CLONE,
	TA_HOST_AUTOTUNE_CALL, TA_HOST_JIT_CALL, TA_HOST_CAPABILITY, TA_HOST_RESHAPE,
	TA_HOST_STRIDE_TEST, TA_HOST_CDIV, TA_HOST_ASSERT,
	TA_HOST__COUNT
} ta_host_kind;

typedef struct ta_host_op {
	ta_host_kind kind;
	ta_span span;
	char *text;               /* the expression as written */
	char *callee;             /* canonical name for calls */
	char *receiver;           /* `x` in x.contiguous(); NULL otherwise */
	char *target;             /* variable assigned, or NULL */
	bool has_device;          /* allocations: device= given */
	int loop_depth;
	ta_kwarg *kwargs;
	size_t kwarg_count;
} ta_host_op;

typedef struct ta_host {
	char *name;               /* function name; "<module>" for top level */
	ta_span span;
	ta_host_op *ops;
	size_t op_count;
	int *launches;            /* indexes into model->launches */
	size_t launch_count;
	char **params;
	size_t param_count;
} ta_host;

typedef struct ta_function {
	char *name;
	ta_span span;
	TSNode node;
	int parent;               /* enclosing function, -1 at module level */
	int kernel;               /* index in kernels when it is one, else -1 */
} ta_function;

/* A node the rules look for inside kernels, with the innermost function it
 * is in (index in functions, -1 at module level). */
typedef struct ta_node_ref {
	TSNode node;
	int function;
} ta_node_ref;

typedef struct ta_model {
	const ta_source *src;     /* borrowed */
	const ta_syntax *syn;     /* borrowed */
	ta_import *imports;
	size_t import_count;
	bool imports_triton;
	ta_kernel *kernels;
	size_t kernel_count;
	ta_launch *launches;
	size_t launch_count;
	ta_host *hosts;           /* host functions with something of interest, and <module> */
	size_t host_count;
	ta_function *functions;   /* every def of the file, for name resolution */
	size_t function_count;
	/* Every assignment (plain and augmented) and every comparison of the
	 * file, in document order: rules read a kernel's from here instead of
	 * walking its tree again. */
	ta_node_ref *assign_nodes;
	size_t assign_node_count;
	ta_node_ref *compare_nodes;
	size_t compare_node_count;
	/* Every statement or expression that may bind a name (assignments,
	 * augmented assignments, for loops, `:=`), in document order: edits
	 * look up a name's definitions here instead of walking the kernel. */
	ta_node_ref *bind_nodes;
	size_t bind_node_count;
	ta_namemap kernel_names;  /* kernel names and aliases -> index; names owned */
	struct ta_model_index *index; /* lookups built on first use (index.h) */
} ta_model;

/* Builds the model. src and syn are borrowed and must outlive it. Reads the
 * tree in code and needs no data files, so it returns a model and sets *err
 * to NULL (a failure would come back as NULL with *err, caller frees); a
 * file without kernels gives a model with kernel_count == 0. Time and memory
 * are linear in the file. */
ta_model *ta_model_build(const ta_source *src, const ta_syntax *syn, char **err);
void ta_model_free(ta_model *m);

/* The canonical dotted name of an identifier/attribute expression, resolving
 * import aliases ("tl.dot" -> "triton.language.dot"). Caller frees. */
char *ta_model_canonical(const ta_model *m, TSNode expr);

/* Lookups. */
int ta_model_find_kernel(const ta_model *m, const char *name);
/* The refs of v (n of them, document order) inside node `within`: returns
 * how many, the first at *first. */
size_t ta_model_refs_within(const ta_node_ref *v, size_t n, TSNode within, size_t *first);
const ta_param *ta_kernel_param(const ta_kernel *k, const char *name);
/* In an address expression of kernel k (`a_ptr + offs_am[:, None] * lda`),
 * does the identifier name play the part of a stride, multiplying offsets
 * (anything but a parameter of k or a literal), or of the base the sum
 * starts from? A loaded index that picks a row is multiplied by a stride
 * parameter (`stride_b * req_idx`) or added to offsets, and plays neither. */
bool ta_kernel_address_role(const ta_model *m, const ta_kernel *k, TSNode addr, const char *name);
/* Whether loop lp walks tiles persistently: a range from the program id
 * (`tl.program_id(0)`, or one of the pid_names bound from it) stepping by
 * a name, not a literal (`tl.range(start_pid, num_tiles, NUM_SMS)`). */
bool ta_loop_steps_by_programs(const ta_loop *lp, const char *const *pid_names, size_t npid);
/* ta_loop_steps_by_programs for loop l of k, its program id names read
 * from k's ops. */
bool ta_kernel_tile_loop(const ta_kernel *k, size_t l);
const ta_kwarg *ta_kwarg_find(const ta_kwarg *kw, size_t n, const char *name);
/* True when canonical name ends with ".suffix" or equals it. */
bool ta_name_is(const char *canonical, const char *full);
const char *ta_op_kind_name(ta_op_kind k);
const char *ta_loop_kind_name(ta_loop_kind k);
const char *ta_grid_kind_name(ta_grid_kind k);
const char *ta_ptr_shape_name(ta_ptr_shape s);
const char *ta_host_kind_name(ta_host_kind k);

/* Releases what the model caches between files: nothing today; tests and
 * leak checkers call it at exit. */
void ta_model_shutdown(void);

#endif
