/* The edit generators (one file per group) and the helpers they share.
 * Internal to src/advise: front ends go through advise/edit.h. */
#ifndef TA_ADVISE_EDITS_H
#define TA_ADVISE_EDITS_H

#include <stdbool.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#include "advise/diff.h"
#include "analyze/model.h"

/* Generators: see ta_edit_maker in advise/edit.h. */
#define TA_EDIT_MAKER(ID) \
	int ta_edit_make_##ID(const ta_model *m, int kernel_or_host, uint32_t line, \
			      ta_edit *out, char **why_not)
TA_EDIT_MAKER(D12);   /* host.c */
TA_EDIT_MAKER(S7);
TA_EDIT_MAKER(G7);
TA_EDIT_MAKER(D4);    /* kernel.c */
TA_EDIT_MAKER(S3);
TA_EDIT_MAKER(D6);
TA_EDIT_MAKER(D1);
TA_EDIT_MAKER(S8);    /* autotune.c */
TA_EDIT_MAKER(L2);
TA_EDIT_MAKER(P2);    /* evenk.c */
TA_EDIT_MAKER(S5);    /* attention.c */
TA_EDIT_MAKER(G8);
TA_EDIT_MAKER(S6);
TA_EDIT_MAKER(D13);   /* deeper.c */
TA_EDIT_MAKER(D14);
TA_EDIT_MAKER(D15);
TA_EDIT_MAKER(P3);    /* layout.c */
TA_EDIT_MAKER(S1);
TA_EDIT_MAKER(L1);    /* split.c */
TA_EDIT_MAKER(P1);    /* tuning.c */
TA_EDIT_MAKER(P5);
TA_EDIT_MAKER(P6);    /* assume.c */

/* The guided template of id (edits/guided.c): comment lines separated by
 * "\n", with {0}, {1}... for the user's names; NULL when id has none. */
const char *ta_edits_guided_template(const char *id);

/* ---- helpers (edits/common.c) ---- */

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
int ta_edits_drop_arg(ta_edit *e, TSNode arg);
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
 * default. Returns 0, or -1 with *why when the signature or a positional
 * launch of the kernel in this file does not allow it. */
int ta_edits_add_constexpr(const ta_model *m, const ta_kernel *k, const char *name, ta_edit *out, char **why);
/* Sets *why_not to a formatted message and returns -1 (a site whose
 * precondition fails) or -2 (ta_edits_none: no site at all). */
int ta_edits_refuse(char **why_not, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ta_edits_none(char **why_not, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* While trying the sites of an entry one by one: keeps the first site's
 * reason for refusing in *why and frees later ones (takes now). */
void ta_edits_keep_why(char **why, char *now);
/* Inserts the host allocator for in-kernel descriptors (an alloc function
 * and triton.set_allocator) before the launch `first`, or before the host
 * loop around it (edits/host.c; G7 and S1). Returns 0, or -1 with *why_not. */
int ta_edits_set_allocator(const ta_model *m, const ta_launch *first, ta_edit *out, char **why_not);
/* A call's argument: the keyword argument kw (when kw is given and
 * present), else the positional one at index; a null node when neither. */
TSNode ta_edits_call_arg(const ta_model *m, TSNode call, uint32_t index, const char *kw);

#endif
