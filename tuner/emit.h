/* emit: a variant as standalone CUDA source plus a launch header, and the pieces of a launch
   header that the bundle (bundle.c) shares. */
#ifndef TUNER_EMIT_H
#define TUNER_EMIT_H

#include <stddef.h>

struct buf;
struct config;
struct expr;
struct fileset;
struct result;
struct runinfo;
struct variant;
struct vars;

/* DIR/BASE.cu (provenance comment, #defines, template) and DIR/BASE.h (parameters, launch
   geometry as functions of the sizes and the multiprocessor count, every buffer's element
   count, role and initial contents, constant values) into set (fileset_put: written when the
   set is committed); vars: v's binding (space_bind); 0 or -1 with errno (set->failed: the
   file) */
int emit_variant(struct fileset *set, const char *dir, const char *base, const struct config *c,
                 const struct variant *v, const struct vars *vars, const struct result *r,
                 const struct runinfo *ri, const char *tmpl);

/* s (NULL: "") as a C string literal: quotes, backslashes, control characters and '?' (no
   trigraphs) escaped; every such text in generated code goes through here */
void emit_cstr(struct buf *b, const char *s);
/* the helpers every launch header uses (tuner_ceil_div, ..., enum tuner_role,
   tuner_device_sms), guarded so that several headers fit in one file */
void emit_helpers(struct buf *b);
/* "long long n, long long sms": the sizes and the multiprocessor count as parameters */
void emit_size_params(struct buf *b, const struct config *c);
/* the first statements of a function taking emit_size_params: SMS bound to sms, every
   parameter marked used; indent is the lines' leading whitespace */
void emit_size_prelude(struct buf *b, const struct config *c, const char *indent);
/* the statements setting block[3], grid[3] and *shared_bytes; subst binds the parameters */
void emit_geometry(struct buf *b, const struct config *c, const struct vars *subst,
                   const char *indent);
/* 1 if e (an element count) uses a parameter: it may differ between variants */
int emit_uses_params(const struct config *c, const struct expr *e);
/* buffer i described for an application: a comment (type, argument, role, what it must hold
   before the first launch) and the macros PREFIX_BUF_ROLE and PREFIX_BUF_ZERO, plus
   prefix_buf_init(i) where it must hold values other than zero (PREFIX: prefix upper-cased) */
void emit_buffer_doc(struct buf *b, const struct config *c, size_t i, const char *prefix);
/* "static const T name[n] = {...};" holding the values of constant k as the tuner sets them
   (v binds the sizes and parameters); 0, or -1 when its count does not evaluate under v */
int emit_constant_values(struct buf *b, const struct config *c, size_t k, const struct vars *v,
                         const char *name);
/* s upper-cased (malloc'd) */
char *emit_upper(const char *s);

#endif
