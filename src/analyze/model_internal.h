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
void ta_model_index_kernel(ta_model *m, const char *name, int kernel);

#endif
