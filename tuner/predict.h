/* predict: the bank model's prediction for every kept variant, and `tuner explain`. */
#ifndef TUNER_PREDICT_H
#define TUNER_PREDICT_H

#include "config.h"
#include "space.h"
#include "result.h"

/* 1 if the bank model's prediction of a variant can change with the sizes: a declared access
   or a block dimension uses one */
int predict_sees_sizes(const struct config *c);
/* the bank model's prediction for every kept variant into r[i].bank, bank8 and bank_ratio:
   under the rules of compute capability cc in the variant's bank mode, and under Kepler's
   8-byte mode. Variants the model cannot tell apart are evaluated once, spread over up to
   `workers` processes. An evaluation error is a config error, reported (the first, in variant
   order) where the failing expression is. */
void predict_bank(const struct config *c, const struct space *s, int cc, struct result *r,
                  int workers);
/* tuner explain: print each kept variant's accesses as the bank model predicts them for arch */
void predict_explain(const struct config *c, const struct space *s, const struct result *r,
                     const char *arch);

#endif
