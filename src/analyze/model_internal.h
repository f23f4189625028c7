/* Shared between model.c and model_build.c; not part of the interface. */
#ifndef TA_ANALYZE_MODEL_INTERNAL_H
#define TA_ANALYZE_MODEL_INTERNAL_H

#include "analyze/model.h"

ta_span ta_span_of(const ta_source *src, TSNode n);
/* Frees an autotune and what it owns (NULL: nothing). */
void ta_autotune_free(ta_autotune *a);
void ta_kwargs_free(ta_kwarg *kw, size_t n);
void ta_strv_free(char **v, size_t n);

/* Enters a kernel name or alias (the first binding of a name wins). */
/* Indexes kernel under name. An earlier binding of the name stays, unless
 * rebinds: a later definition at the module's top level, which Python
 * binds over the earlier one before any launch runs. */
void ta_model_index_kernel(ta_model *m, const char *name, int kernel, bool rebinds);

#endif
