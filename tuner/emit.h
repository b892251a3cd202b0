/* emit: a variant as standalone CUDA source plus a launch header. */
#ifndef TUNER_EMIT_H
#define TUNER_EMIT_H

#include "config.h"
#include "report.h"
#include "space.h"

/* write DIR/BASE.cu (provenance comment, #defines, template) and DIR/BASE.h (parameters,
   launch geometry as functions of the sizes, constant values) atomically; 0 or -1 with errno */
int emit_variant(const char *dir, const char *base, const struct config *c,
                 const struct variant *v, const struct result *r, const struct runinfo *ri,
                 const char *tmpl);

#endif
