/* Lookups over a whole model, each built on its first use and kept with the
 * model (issue 18, item 7): rules and edits asked "is this name bound
 * anywhere", "which host functions launch this kernel" once per kernel or
 * per finding, and each question walked the file's tree or every host, so
 * their time grew with kernels times the file (a 40,000-line generated file
 * spent 70% of --check in such walks). Each answer here is the one the walk
 * gave, found in a table. */
#ifndef TA_ANALYZE_INDEX_H
#define TA_ANALYZE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/model.h"

/* Some identifier node of the tree spells name (a read, a binding, an
 * attribute's name: anything tree-sitter calls an identifier). */
bool ta_index_identifier(const ta_model *m, const char *name);

/* The start of the first module-level statement that binds name the way
 * rules look for it, or UINT32_MAX: a def or class (decorated or not:
 * the statement starts at its first decorator), or an expression statement
 * whose first child is an assignment whose whole left side reads name. */
uint32_t ta_index_module_def(const ta_model *m, const char *name);
uint32_t ta_index_module_assign(const ta_model *m, const char *name);

/* A function of the file (nested ones too) named name. */
bool ta_index_function(const ta_model *m, const char *name);

/* An import binds name in the file. */
bool ta_index_import_alias(const ta_model *m, const char *name);

/* What the last import so far (of m->imports[0 .. import_count)) binds
 * name to: its target, or NULL. The model asks while it is still reading
 * imports, so the table follows the count. */
const char *ta_index_import_target(const ta_model *m, const char *name, size_t len);

/* A host function's operation. */
typedef struct ta_host_op_ref {
	int host, op;
} ta_host_op_ref;

/* The triton.autotune(...)/triton.jit(...) calls made in host functions
 * (with a span and launches) whose text, or that of the call around them,
 * holds word as a whole word (a run of letters, digits and '_'): in host
 * and operation order. A superset of those that name a kernel (D14). */
const ta_host_op_ref *ta_index_wrap_calls(const ta_model *m, const char *word, size_t *count);

/* The alias of the first import whose target is module, or NULL (for
 * ta_edits_module). */
const char *ta_index_import_of(const ta_model *m, const char *module, const ta_import **im);

/* Whether off lies inside some kernel's span; and the innermost host
 * function holding off (the shortest span, the first of equal ones), the
 * module's host when none does, or -1: what ta_rules_host_at computes. */
bool ta_index_in_kernel(const ta_model *m, uint32_t off);
int ta_index_host_at(const ta_model *m, uint32_t off);

/* The first decorator, over the kernels in order, whose callee is not
 * Triton's (its canonical name does not start with "triton."): the kernel's
 * index and the decorator, or -1. */
int ta_index_foreign_decorator(const ta_model *m, TSNode *decorator);

/* A table a rule builds over the whole model, kept with it: build's result
 * on the first call with this build function, the same pointer after;
 * destroy frees it with the model. A few such tables per model. */
void *ta_index_cached(const ta_model *m, void *(*build)(const ta_model *m), void (*destroy)(void *));

/* The hosts (indexes in m->hosts, ascending, each once) with a launch of
 * kernel k among their launches. */
const int *ta_index_kernel_hosts(const ta_model *m, int kernel, size_t *count);

/* The same hosts in turn, asking the index once (as ta_launch_walk below). */
typedef struct ta_host_walk {
	const ta_host *hosts;
	const int *of;
	size_t n, next;
} ta_host_walk;

static inline ta_host_walk ta_index_host_walk(const ta_model *m, int kernel)
{
	ta_host_walk w = { .hosts = m->hosts };
	w.of = ta_index_kernel_hosts(m, kernel, &w.n);
	return w;
}

static inline const ta_host *ta_host_walk_next(ta_host_walk *w)
{
	return w->next < w->n ? &w->hosts[w->of[w->next++]] : NULL;
}

/* The launches of kernel k (indexes in m->launches, ascending). */
const int *ta_index_kernel_launches(const ta_model *m, int kernel, size_t *count);

/* A walk over those launches, in that order, asking the index once:
 *	ta_launch_walk w = ta_index_launch_walk(m, k);
 *	for (const ta_launch *l; (l = ta_launch_walk_next(&w));) ... */
typedef struct ta_launch_walk {
	const ta_launch *launches;
	const int *of;
	size_t n, next;
} ta_launch_walk;

static inline ta_launch_walk ta_index_launch_walk(const ta_model *m, int kernel)
{
	ta_launch_walk w = { .launches = m->launches };
	w.of = ta_index_kernel_launches(m, kernel, &w.n);
	return w;
}

/* The walk's next launch, or NULL after the last. */
static inline const ta_launch *ta_launch_walk_next(ta_launch_walk *w)
{
	return w->next < w->n ? &w->launches[w->of[w->next++]] : NULL;
}

/* The launch of kernel k that starts first in the file (of equal starts,
 * the first in the list), or NULL. */
const ta_launch *ta_index_first_launch(const ta_model *m, int kernel);

/* The model owns one (ta_model_build, ta_model_free). */
struct ta_model_index *ta_index_new(void);
void ta_index_free(struct ta_model_index *x);

#endif
