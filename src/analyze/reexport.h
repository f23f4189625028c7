/* Triton re-exported by a project's own module. vLLM-style projects import
 * Triton through a module of their package, which binds it only where it
 * is installed:
 *
 *	from aphrodite.triton_utils import tl, triton      # the kernel file
 *
 *	if HAS_TRITON:                                       # triton_utils/__init__.py
 *	    import triton
 *	    import triton.language as tl
 *
 * Read as written, the kernel file imports no Triton and none of its
 * kernels is seen. The model asks here what such a name stands for: the
 * module's file is found beside the importing file (a relative import) or
 * in a folder above it (an absolute one: a/b/c.py or a/b/c/__init__.py),
 * read (as any file: size-bounded, regular files only) and its module-level
 * imports (those under if, else, try and except too) searched for the name;
 * a name it imports from another module of the project is followed there,
 * two modules deep. Results are kept for the process (a folder's files
 * import the same module). */
#ifndef TA_ANALYZE_REEXPORT_H
#define TA_ANALYZE_REEXPORT_H

#include <stdbool.h>
#include <tree_sitter/api.h>

/* What `from module import name`, written in the file at importer, binds
 * name to when the module re-exports it from Triton ("triton",
 * "triton.language", "triton.language.extra.libdevice"...); NULL when the
 * module is not found, does not bind it, or binds something else. Caller
 * frees. Only the names by which Triton is re-exported are looked up
 * (triton, tl, language, jit, autotune, heuristics, Config, libdevice). */
char *ta_reexport_target(const char *importer, const char *module, const char *name);

/* The same for a name used as a decorator, whatever it is called: the
 * project's own function around triton.jit or triton.autotune (`def
 * jit_kernel(fn): return triton.jit(fn)`) stands for that decorator. */
char *ta_reexport_wrapper(const char *importer, const char *module, const char *name);

/* Whether the module imported as `module` from the file at importer, or a
 * module of the project it imports (two imports deep, at most 16 files),
 * holds needle in its text: a call the package makes once for all its
 * kernels (`triton.set_allocator(...)` at import time) that the importing
 * file need not make itself. */
bool ta_reexport_package_mentions(const char *importer, const char *module, const char *needle);

/* Whether the function name, imported from module by the file at importer,
 * is defined in the project (in that module, or one it imports it from) as
 * arithmetic of its arguments alone: every name it reads is a parameter, a
 * local, a builtin or math (`def next_power_of_two(x): return 2 **
 * math.ceil(math.log(x, 2))`). Equal arguments then give equal results. */
bool ta_reexport_pure_function(const char *importer, const char *module, const char *name);

/* The same test of a function definition the caller holds (in its own file). */
struct ta_source;
bool ta_reexport_pure_def(const struct ta_source *src, TSNode def);

#endif
