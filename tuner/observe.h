/* observe: which parameter values a template's code can tell apart, so that variants the
   compiler would see as one program are compiled once (docs/how-it-works.md, "One compile
   per program").

   A parameter is hidden when its name occurs, outside comments and literals, only in
   conditional directives (#if, #elif, #ifdef, #ifndef) and #error or #warning lines, and in
   none of the config's NVRTC options. Its value reaches the program only through the
   outcomes of those conditionals. Each #if and #elif expression that names a hidden
   parameter is evaluated as far as the values allow (a macro the tuner does not define stays a
   name, as do its `defined`); two variants whose other values and whose residual expressions
   are equal preprocess to the same tokens. A template with an #include, or a conditional this
   reader cannot parse (a function-like macro, an unsigned literal, more than 200 operators
   nested or 4000 in all), leaves the parameters it names visible; where the conditionals on
   hidden parameters hold more than 20 000 operators and operands in all, none is hidden. */
#ifndef TUNER_OBSERVE_H
#define TUNER_OBSERVE_H

#include <stddef.h>
#include <stdint.h>

struct config;
struct space;

struct observe;

/* the template text tmpl of config c, with c's NVRTC options, analysed */
struct observe *observe_new(const struct config *c, const char *tmpl);
/* the values to compile a variant of values in with (c->nparams of them, into out): each
   hidden parameter set to the first of its config values that leaves every conditional's
   residual as in's, in config order; the others as in */
void observe_values(const struct observe *o, const int64_t *in, int64_t *out);
/* two hashes of the values observe_values gives in: equal for two value sets where those
   are, different (but for a chance of 2^-128) where not */
void observe_id(const struct observe *o, const int64_t *in, uint64_t id[2]);
/* the programs the kept variants of s compile as: how many distinct observe_values */
size_t observe_programs(const struct observe *o, const struct space *s);
/* 1 if parameter i is hidden */
int observe_hidden(const struct observe *o, size_t i);
void observe_free(struct observe *o);

#endif
