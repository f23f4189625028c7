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

/* The hosts (indexes in m->hosts, ascending, each once) with a launch of
 * kernel k among their launches. */
const int *ta_index_kernel_hosts(const ta_model *m, int kernel, size_t *count);

/* The launches of kernel k (indexes in m->launches, ascending). */
const int *ta_index_kernel_launches(const ta_model *m, int kernel, size_t *count);

/* The model owns one (ta_model_build, ta_model_free). */
struct ta_model_index *ta_index_new(void);
void ta_index_free(struct ta_model_index *x);

#endif
