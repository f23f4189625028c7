/* What a name holds: the layer through which rules and edits read values,
 * not spellings. A grid, a tile, a launch option, a mask or a
 * pointer reached through a local name, a tuple, a positional argument or
 * a loop increment is the same value as one written inline:
 *
 *	nq = triton.cdiv(seq_len, BLOCK_M)
 *	grid = (batch * heads, nq)          # grid's value reads BLOCK_M
 *	kv_mask = kv_offs < seq_len
 *	tl.load(p, mask=kv_mask & d_mask)   # the mask's value is that comparison
 *
 * Python scoping, kept simple and sound: a name's value at a use is the one
 * binding of it that reaches the use in straight-line code of the same
 * function (the last binding before the use, not inside a branch or a loop
 * that does not also hold the use, and no binding after the use in a loop
 * around it), else the module's only binding when the function binds none
 * and has no parameter of that name. Anything else (a parameter, a for
 * target, `x += 1`, a tuple unpacked from a call, two branches) has no
 * known value and reads as the name itself.
 *
 * Every lookup is a binary search in a table built once per model
 * (ta_index_cached), so rules may ask per identifier. */
#ifndef TA_ANALYZE_VALUES_H
#define TA_ANALYZE_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <tree_sitter/api.h>

#include "analyze/model.h"

/* One binding of a name: the statement that binds it (an assignment, an
 * augmented assignment, a for statement, a `:=`), the identifier it binds,
 * and where the binding takes effect (the statement's end; a for target's
 * end). mutation: the identifier is the base of a subscript or attribute
 * assigned (`x[i] = v`, `x.a = v`). */
typedef struct ta_values_binding {
	const char *name;         /* into the file's text */
	uint32_t len;
	uint32_t scope;           /* 0: the module, else the function's start + 1 */
	uint32_t point;           /* where the binding takes effect */
	TSNode binding, target;
	bool mutation;
} ta_values_binding;

/* The bindings of the name (len bytes) in function fn (a null node: the
 * module level), not those of functions nested in it, sorted by point:
 * *count of them, NULL when none. */
const ta_values_binding *ta_values_bindings(const ta_model *m, TSNode fn, const char *name, size_t len,
					    size_t *count);

/* Every binding of the name id (an identifier node) in function fn (a null
 * node: the function around id) that takes effect before id, in order:
 * visit gets each one and the assignment's right side (a null node for a
 * binding that is no assignment: a for target, an augmented assignment),
 * and stops the walk by returning false. Returns whether the walk ran to
 * the end; *seen (when given) counts the bindings visited. One loop for the
 * readers of a name bound on each arm of an if or rebound (`if flag: q =
 * a else: q = b`), whose ta_values_def is null. */
typedef bool (*ta_values_binding_fn)(const ta_model *m, const ta_values_binding *b, TSNode value, void *ctx);
bool ta_values_bindings_before(const ta_model *m, TSNode fn, TSNode id, ta_values_binding_fn visit, void *ctx,
			       size_t *seen);
/* A binding that assigns the whole name (`x = v`): not unpacked from a
 * tuple, not a mutation. */
bool ta_values_binding_plain(const ta_values_binding *b);

/* The expression the identifier node id stands for where it is read, or a
 * null node when it has no known value. *binding, when given, gets the
 * binding statement (an assignment or named expression), else a null
 * node. The value of `a, b = x, y` for b is the node y. */
TSNode ta_values_def(const ta_model *m, TSNode id, TSNode *binding);

/* When the reaching definition of the name id unpacks an expression that
 * is not written as a tuple (`B, H, N, D = q.shape`, `m, n = x.size()`,
 * `a, b = f()`): that expression, with the target's place in *index (may
 * be NULL); else a null node (also when a target is starred). */
TSNode ta_values_unpacked(const ta_model *m, TSNode id, uint32_t *index);

/* n without parentheses, followed through its definitions while it is an
 * identifier with a known value (at most 16 steps), or, in an autograd
 * Function's backward, `ctx.NAME` that forward sets once (`ctx.BLOCK =
 * BLOCK`): its value there. ta_values_walk follows the same. */
TSNode ta_values_follow(const ta_model *m, TSNode n);
/* The same through names only: stops at backward's `ctx.NAME`. */
TSNode ta_values_follow_names(const ta_model *m, TSNode n);

/* A walk over the value tree of n: the nodes of n in document order, where
 * each identifier with a known value is visited and then stands for its
 * value, which is walked in its place (depth at most 16). via: the
 * identifier whose value the node belongs to, or a null node for n's own
 * nodes. The visitor answers whether to go into the node's children (an
 * identifier's children: its value), skip them, or stop the walk. */
typedef enum ta_values_step { TA_VALUES_DESCEND, TA_VALUES_SKIP, TA_VALUES_STOP } ta_values_step;
typedef ta_values_step (*ta_values_visit)(const ta_model *m, TSNode n, TSNode via, void *ctx);
/* Returns false when the visitor stopped the walk. */
bool ta_values_walk(const ta_model *m, TSNode n, ta_values_visit visit, void *ctx);

/* Whether the value of n reads the identifier name (as the identifier
 * itself, not through a value it has): `grid` above reads BLOCK_M. */
bool ta_values_reads(const ta_model *m, TSNode n, const char *name);

/* The text of n, rewritten: for each identifier of n's value tree, subst
 * answers its replacement text (owned by the caller, valid until the call
 * returns), TA_VALUES_INLINE to write its value there instead
 * (parenthesised unless atomic, and rewritten by the same rule), or NULL
 * to keep it as written. Caller frees. */
extern const char TA_VALUES_INLINE[];
typedef const char *(*ta_values_subst)(const ta_model *m, TSNode id, void *ctx);
char *ta_values_text(const ta_model *m, TSNode n, ta_values_subst subst, void *ctx);

/* Whether every name the value tree of n reads would read the same
 * binding at offset at (in the same function) as where it is written: no
 * binding of it lies between the two. An edit that moves n's text to at
 * (a grid made a lambda, evaluated at the launch) asks first. */
bool ta_values_stable(const ta_model *m, TSNode n, uint32_t at);

/* A name stepped by a loop: bound once before the loop statement (its
 * value *init, when known) and rebound exactly once inside it, directly in
 * the loop's body (not under a branch or an inner loop), by `name +=
 * step` or `name = name + step` (*step, *update the statement). False
 * otherwise. */
bool ta_values_induction(const ta_model *m, TSNode loop, const char *name, TSNode *init, TSNode *step,
			 TSNode *update);

/* The argument launch l passes for parameter i of kernel k: a keyword of
 * that name, or the positional argument at i. Positions count through
 * starred sequences of known length (`*(a, b)`, `*x.stride()` of an x
 * whose rank ta_values_rank knows) from the front, and from the back of a
 * plain @triton.jit kernel's launch, which passes every parameter before
 * its first keyword one (the one just before it having no default). A null
 * node when the launch leaves it to its default, the position cannot be
 * told, or parameter i is an element of a starred sequence.
 * *keyword: whether it was passed by name. */
TSNode ta_values_launch_arg(const ta_model *m, const ta_launch *l, const ta_kernel *k, size_t i, bool *keyword);

/* A stride argument: x.stride(dim). */
typedef struct ta_values_stride {
	TSNode tensor;            /* the identifier x, read where it holds that tensor at the launch */
	long dim;                 /* as written (-1: the last), or the place in *x.stride() */
	size_t rank;              /* x's rank when known, else 0 */
	char *assume;             /* NULL, or the Python condition the mapping rests on: ranks
				     of starred strides guessed from the kernel's addresses or
				     by an even split, `k.dim() == v.dim() == 4 and lse.dim()
				     == 3`; an edit that relies on it checks it */
} ta_values_stride;

/* Whether launch l passes x.stride(d) for parameter i of kernel k: written
 * there, through local names (stride_qm = q.stride(2), x not bound again
 * before the launch), or as an element of `*x.stride()`. Positions between
 * starred strides of unknown rank are split among them by the parameters
 * the kernel reads as each pointer's strides, else evenly when the count
 * allows (assume says so). Free with ta_values_stride_free. */
bool ta_values_launch_stride(const ta_model *m, const ta_launch *l, const ta_kernel *k, size_t i,
			     ta_values_stride *out);
void ta_values_stride_free(ta_values_stride *s);

/* The number of dimensions of the tensor the identifier x holds where it is
 * read, when the host says it: a binding from torch.empty((M, N)),
 * torch.empty_like(y), y.view(a, b), y.contiguous() ...; or, before the
 * read in the same function and with x not bound since, `B, H, N, D =
 * x.shape`, or an assert of x.shape == (B, H, N, D), x.dim() == 4,
 * x.ndim == 4, len(x.shape) == 4 or x.shape == y.shape. 0 when unknown. */
size_t ta_values_rank(const ta_model *m, TSNode x);

/* Whether the statement stmt runs, and ends, before the code at offset at
 * whenever that runs: nothing between stmt and the innermost node holding
 * both branches or loops. */
bool ta_values_runs_before(TSNode stmt, uint32_t at);

/* Whether the name the identifier id spells is bound, in id's function,
 * by a binding taking effect in (lo, hi]. */
bool ta_values_bound_between(const ta_model *m, TSNode id, uint32_t lo, uint32_t hi);

/* The integer value of n when it is an integer literal, or a name whose
 * value is one (through ta_values_follow), or a unary minus of one; *out
 * gets it. */
bool ta_values_int(const ta_model *m, TSNode n, long *out);

/* The integers n may hold: one as ta_values_int reads it, or a conditional
 * expression (`4 if d <= 64 else 8`, nested, through names) each of whose
 * branches may only hold integers. The distinct values go to out (at most
 * max), *count of them. False when a branch holds anything else or there
 * are more than max. */
bool ta_values_int_choices(const ta_model *m, TSNode n, long *out, size_t max, size_t *count);

#endif
