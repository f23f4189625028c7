/* What the rewrites share: how one is defined, and the helpers they use.
 * Internal to src/checklist: the rest of the program uses rewrite.h. */
#ifndef TA_CHECKLIST_REWRITE_INTERNAL_H
#define TA_CHECKLIST_REWRITE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#include "analyze/diff.h"
#include "analyze/index.h"
#include "analyze/model.h"
#include "checklist/rewrite.h"

/* Opens the definition of entry ID's rewrite: declares the ta_rewrite
 * object rewrite.h names (demoted: NULL, or why the tool only shows it;
 * then whether its edits are safe: TA_SAFE, TA_UNSAFE("assumes ...") or
 * TA_MIXED("assumes ...")) and starts the function that makes it, whose
 * parameters are those of ta_rewrite_fn. An unsafe edit also says so
 * itself (ta_edit_set_unsafe), with the site's names; tests/rules/agree.sh
 * checks each edit against its rewrite's declaration.
 * Use: TA_REWRITE(S3, NULL, TA_SAFE) { ... } */
#define TA_SAFE TA_FIX_SAFE, NULL
#define TA_UNSAFE(assumes) TA_FIX_UNSAFE, assumes
#define TA_MIXED(assumes) TA_FIX_MIXED, assumes
#define TA_REWRITE(ID, demoted, ...) \
	static int make_##ID(const ta_model *m, int kernel_or_host, uint32_t line, \
			     ta_edit *out, char **why_not); \
	const ta_rewrite ta_rewrite_##ID = { #ID, make_##ID, demoted, __VA_ARGS__ }; \
	static int make_##ID(const ta_model *m, int kernel_or_host, uint32_t line, \
			     ta_edit *out, char **why_not)

/* The guided template of id (guided.c): comment lines separated by
 * "\n", with {0}, {1}... for the user's names; NULL when id has none. */
const char *ta_edits_guided_template(const char *id);

/* ---- helpers (rewrite_common.c) ---- */

/* The name this file uses for module ("triton.language", "triton",
 * "torch"): its alias, or the alias of a parent module plus the rest
 * ("triton" imported: "triton.language"). NULL when not imported. Caller
 * frees. */
char *ta_edits_module(const ta_model *m, const char *module);
/* The node whose byte range is exactly s (the outermost such), or a null
 * node. */
TSNode ta_edits_node(const ta_model *m, ta_span s);
/* Source text of a byte range / node; caller frees. */
char *ta_edits_text(const ta_model *m, uint32_t start, uint32_t end);
/* Offset of the start of the line holding off, and of the next line
 * (after the line ending; the text's end on the last line). */
uint32_t ta_edits_line_start(const ta_model *m, uint32_t off);
uint32_t ta_edits_line_next(const ta_model *m, uint32_t off);
/* The leading whitespace of the line holding off; caller frees. */
char *ta_edits_indent_at(const ta_model *m, uint32_t off);
/* One indentation level to add under a line indented with `base`: the
 * first kernel's indent when it uses the same character, else a tab for
 * tab-indented lines, else four spaces. Static or borrowed. */
const char *ta_edits_indent_unit(const ta_model *m, const char *base);
/* True when only whitespace precedes node on its line and only
 * whitespace (or a comment when allow_comment) follows it. */
bool ta_edits_alone_on_line(const ta_model *m, TSNode n, bool allow_comment);
/* The statement holding n directly (expression_statement), or null. */
TSNode ta_edits_statement(TSNode n);
/* True when site spans line (line 0 matches everything). */
bool ta_edits_at_line(ta_span site, uint32_t line);
/* Removes an argument (positional or keyword) with its comma. */
int ta_edits_drop_arg(const ta_model *m, ta_edit *e, TSNode arg);
/* The identifiers n reads (not names after a dot, not keyword names), each
 * once. Free with ta_edits_names_free. */
size_t ta_edits_names(const ta_model *m, TSNode n, char ***out);
void ta_edits_names_free(char **v, size_t n);
/* text with unit put before every line that is not blank. Caller frees. */
char *ta_edits_reindent(const char *text, const char *unit);
/* The whole lines of a statement: returns the start of its first line and
 * sets *end past its last line (a trailing comment included), or returns
 * UINT32_MAX when other code shares those lines. */
uint32_t ta_edits_stmt_lines(const ta_model *m, TSNode stmt, uint32_t *end);
/* Adds `name: tl.constexpr` after the kernel's last parameter without a
 * default, or `name: tl.constexpr = dflt` when dflt is given (a flag the
 * rewritten launches pass: a launch in another file, which the edit cannot
 * see, then keeps the old behaviour). With late_dflt, where parameters
 * with defaults follow that one, it goes after them instead, as `name:
 * tl.constexpr = late_dflt` (a launch elsewhere may pass them by position:
 * P2's EVEN_K, which its heuristic always sets). Returns 0, or -1 with *why
 * when the signature or a positional launch of the kernel in this file
 * does not allow it. */
int ta_edits_add_constexpr(const ta_model *m, const ta_kernel *k, const char *name, const char *dflt,
			   const char *late_dflt, ta_edit *out, char **why);
/* Sets *why_not to a formatted message and returns -1 (a site whose
 * precondition fails) or -2 (ta_edits_none: no site at all). */
int ta_edits_refuse(char **why_not, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ta_edits_none(char **why_not, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- trying an entry's sites in turn (rewrite_common.c) ----
 * The first site that yields an edit wins; when none does, the user reads
 * the first site's reason for refusing, or, without any, that there is no
 * site. Every rewrite ends this way:
 *
 *	ta_sites s = TA_SITES_INIT;
 *	for (each candidate site) {
 *		char *w = NULL;
 *		if (ta_sites_made(&s, one(..., out, &w), &w, out))
 *			return 0;
 *	}
 *	return ta_sites_end(&s, why_not, line, "no ... in a kernel");
 */
typedef struct ta_sites {
	char *why;                /* the first refusal, owned */
} ta_sites;
#define TA_SITES_INIT { NULL }

/* One site's attempt, rc and *w as a ta_rewrite_fn returns them. True when
 * rc is 0: the edit is in out, s is released, return 0. Otherwise out is
 * cleared and *w kept (the first refusal) or freed; rc -2 means it was not
 * a site after all. */
bool ta_sites_made(ta_sites *s, int rc, char **w, ta_edit *out);
/* The edit is made at the current site: releases s and returns 0. */
int ta_sites_done(ta_sites *s);
/* A site that refuses before any edit is begun; takes reason. */
void ta_sites_refuse(ta_sites *s, char *reason);
/* After the last site: -1 with the first refusal in *why_not, else -2 with
 * "none" (plus " on that line" when line is set). */
int ta_sites_end(ta_sites *s, char **why_not, uint32_t line, const char *none);
/* Inserts the host allocator for in-kernel descriptors (an alloc function
 * and triton.set_allocator) before the launch `first`, or before the host
 * loop around it (g7.c; G7 and S1). Returns 0, or -1 with *why_not. */
int ta_edits_set_allocator(const ta_model *m, const ta_launch *first, ta_edit *out, char **why_not);
/* Refuses (-1, *why_not) when launch l's call runs its kernel only under a
 * condition (`fn = A if c else B; fn[grid](...)`): an edit to the call's
 * grid or arguments would change the other kernel's launch as well. 0 for
 * a call that always runs l's kernel (rewrite_common.c). */
int ta_edits_launch_alone(const ta_model *m, const ta_launch *l, char **why_not);
/* Refuses (-1, *why_not naming the file, the declared requirement and the
 * minimum) when the project around the file declares a Triton older than
 * major.minor for what ("tl.make_tensor_descriptor"): the first
 * requirements*.txt, pyproject.toml or setup.py going up from the file
 * that names triton with a lower bound, up to the folder holding .git.
 * 0 when none is declared or it is new enough (rewrite_common.c). */
int ta_edits_triton_at_least(const ta_model *m, int major, int minor, const char *what, char **why_not);
/* The edit in out emits what, which Triton has from major.minor on
 * (tests/gpu/EDITS.md's notes say where each version was established):
 * refuses as ta_edits_triton_at_least does where the project declares an
 * older lower bound; where it declares none, the edit becomes unsafe, its
 * assumption (its own, or its rewrite's) naming that version; where one
 * new enough is declared, the edit stays as it is. Call it once the edit
 * is made. Returns 0, or -1 with *why_not. */
int ta_edits_need_triton(const ta_model *m, int major, int minor, const char *what, ta_edit *out, char **why_not);
/* A call's argument: the keyword argument kw (when kw is given and
 * present), else the positional one at index; a null node when neither. */
TSNode ta_edits_call_arg(const ta_model *m, TSNode call, uint32_t index, const char *kw);

/* ---- shared by several entries (rewrite_common.c) ---- */

/* The argument launch l passes for parameter idx of k (by keyword, or by
 * position, counting through a starred tuple of known length): its node, or
 * a null node (not passed, or after another *args). */
TSNode ta_edits_launch_arg_node(const ta_model *m, const ta_launch *l, const ta_kernel *k, size_t idx);

bool ta_edits_host_selected(int kernel_or_host, size_t h);

bool ta_edits_kernel_selected(int kernel_or_host, size_t k);

/* The sites of most rewrites are ops: of a kernel (a load, a transpose)
 * or of a host function (a .contiguous() call, a launch helper). These
 * try one(...) at each op that pick accepts, in the selected kernel or host
 * function, on line (0: anywhere), in the ta_sites way; none says what
 * no site means ("no tl.dot accumulating into fresh zeros"). */
typedef bool (*ta_edits_op_pick)(const ta_model *m, const ta_kernel *k, const ta_op *op);
typedef int (*ta_edits_op_fn)(const ta_model *m, const ta_kernel *k, const ta_op *op, ta_edit *out, char **why);
int ta_edits_each_op(const ta_model *m, int kernel_or_host, uint32_t line, ta_edits_op_pick pick, ta_edits_op_fn one,
		     ta_edit *out, char **why_not, const char *none);

typedef bool (*ta_edits_host_op_pick)(const ta_model *m, const ta_host *h, const ta_host_op *op);
typedef int (*ta_edits_host_op_fn)(const ta_model *m, const ta_host *h, const ta_host_op *op, ta_edit *out,
				   char **why);
int ta_edits_each_host_op(const ta_model *m, int kernel_or_host, uint32_t line, ta_edits_host_op_pick pick,
			  ta_edits_host_op_fn one, ta_edit *out, char **why_not, const char *none);

/* ---- S3 ------------------------------------------------------------------ */
bool ta_edits_word_in(const char *s, size_t n, const char *w);

/* The text of what launch l passes kernel k for parameter i (positional or
 * by keyword), or NULL; caller frees. */
char *ta_edits_launch_arg(const ta_model *m, const ta_launch *l, const ta_kernel *k, size_t i);

/* Every launch of kernel ki passes for parameter j a rounding of what it
 * passes for parameter si (`seqlen_q // 32`, a shift, next_power_of_2, a
 * round function): j is the author's coarse stand-in for si in a key. */
bool ta_edits_rounds(const ta_model *m, const ta_kernel *k, size_t ki, size_t si, size_t j);

/* A function or module-level name the file already defines. */
bool ta_edits_defined(const ta_model *m, const char *name);

/* Inserts text before the line of a module-level definition at off. */
int ta_edits_before_def(const ta_model *m, uint32_t off, const char *text, ta_edit *out);

/* The file is written for (or also for) a back-end other than CUDA (a
 * folder named rocm/, _ascend/..., or a test of torch.version.hip and the
 * like), where `what` does not fit: -1 with *why saying so, else 0 (p1.c). */
int ta_edits_other_backend(const ta_model *m, const char *what, char **why);
/* A triton.set_allocator call of the file runs before every launch of
 * kernel ki: at module level, or in the function of all its launches, in
 * that function's body (not under a branch or loop) before them (g7.c). */
bool ta_edits_allocator_dominates(const ta_model *m, size_t ki);

/* ---- L2, for P1 (l2.c) ---- */
/* The grid of launch l as a function of META: triton.cdiv(n, V) ->
 * META["NAME"] where V is what l passes for one of names. Returns how many
 * were mapped, or -1 when the grid is not a tuple or lambda of this file. */
int ta_l2_grid_meta(const ta_model *m, const ta_launch *l, const char *const *names, size_t n, ta_edit *out);

/* ---- shared ------------------------------------------------------------- */
/* The identifier name occurs as code in [start, end): a word in a comment
 * or a string is no use of it. */
bool ta_edits_reads_in(const ta_model *m, uint32_t start, uint32_t end, const char *name);
/* The node follows a spin lock taken in its function (`while
 * tl.atomic_cas(lock, 0, 1) == 1: pass`, then a read-modify-write, then
 * tl.atomic_xchg): the lock's atomics order what it guards, which TMA's
 * asynchronous copies are not, and which needs no barrier between
 * programs' or calls' turns. Returns the lock's line, or 0. */
uint32_t ta_edits_under_spin_lock(const ta_model *m, TSNode n);
/* name is bound or read anywhere in the file. */
bool ta_edits_name_taken(const ta_model *m, const char *name);

/* 1 for x[:, None] (rows), 2 for x[None, :] (columns), -1 for any other
 * subscript that adds an axis, 0 for anything else. */
int ta_edits_bcast_kind(const ta_model *m, TSNode n);

/* Calls that change a tile's shape or layout: the swap cannot see through. */
bool ta_edits_reshaping_call(const ta_model *m, TSNode call);

/* Which broadcasts n holds: bit 1 rows, bit 2 columns, bit 4 something
 * else two-dimensional (other axes, reshapes, transposes). */
int ta_edits_bcast_mask(const ta_model *m, TSNode n);

/* Occurrences of the identifier name in n (not after a dot, not keyword
 * names). */
size_t ta_edits_ident_count(const ta_model *m, TSNode n, const char *name);

/* The statements of a kernel that bind name: assignments (plain or
 * augmented) and for loops with name in their target. */
typedef struct ta_edits_defs {
	TSNode v[8];
	size_t n;
	bool more;                /* over eight */
} ta_edits_defs;

void ta_edits_find_defs(const ta_model *m, TSNode n, const char *name, ta_edits_defs *d);
/* The offset of the first whole-word occurrence of name in the file's text
 * at or after from, or SIZE_MAX: every identifier is one, so none means no
 * identifier of that name (a cheap test before a walk of the tree). */
size_t ta_edits_next_word(const ta_model *m, size_t from, const char *name);

/* The terms of a chain of one binary operator ("+", "&"), left to right;
 * a parenthesised term stays whole. */
size_t ta_edits_chain_rec(const ta_model *m, TSNode n, const char *op, TSNode *terms, size_t max);

size_t ta_edits_chain_terms(const ta_model *m, TSNode n, const char *op, TSNode *terms, size_t max);

/* The node that builds the autotune's configs: the list as written, or the
 * module's function or variable it names. Null when not found. */
TSNode ta_edits_configs_node(const ta_model *m, const ta_autotune *at);

#endif
