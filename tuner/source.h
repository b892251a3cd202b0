/* source: template + parameter values -> CUDA source text. */
#ifndef TUNER_SOURCE_H
#define TUNER_SOURCE_H

struct buf;
struct config;
struct observe;
struct variant;

/* append one '#define NAME VALUE' line per parameter of v */
void source_defines(struct buf *b, const struct config *c, const struct variant *v);
/* the text NVRTC compiles for v: the defines, a #line directive (the template's path as a C
   string literal: \\ and \" escaped, control characters and bytes of no valid UTF-8 sequence
   as octal escapes), then the template (malloc'd) */
char *source_variant(const struct config *c, const struct variant *v, const char *tmpl);
/* the text to compile v with: source_variant of v with its values as observe_values gives
   them (o NULL: v's own), so that variants that preprocess alike share the text */
char *source_compiled(const struct config *c, const struct variant *v, const char *tmpl,
                      const struct observe *o);

#endif
