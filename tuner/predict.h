/* predict: the bank model's prediction for every kept variant, and `tuner explain`. */
#ifndef TUNER_PREDICT_H
#define TUNER_PREDICT_H

#include "config.h"
#include "space.h"
#include "result.h"

struct ahead;

/* 1 if the bank model's prediction of a variant can change with the sizes: a declared access
   or a block dimension uses one */
int predict_sees_sizes(const struct config *c);
/* the bank model's prediction for every kept variant into r[i].bank, bank8 and bank_ratio:
   under the rules of compute capability cc in the variant's bank mode, and under Kepler's
   8-byte mode. Variants the model cannot tell apart are evaluated once, spread over up to
   `workers` processes. An evaluation error is a config error, reported (the first, in variant
   order) where the failing expression is. What `ahead` (may be NULL) evaluated beside the
   stream is taken from it, not evaluated again. */
void predict_bank(const struct config *c, const struct space *s, int cc, struct result *r,
                  int workers, struct ahead *ahead);
/* the bank model's compute capability for a run: the GPU's, else the target architecture's */
int predict_cc(const struct runinfo *ri);

struct pool_task;
/* the bank model beside the stream, for a run that predicts only what it tried: evaluate the
   classes of the variants it plans to try, plan[0..n) (kept; the first is the likeliest), in up
   to `workers` processes, as a pool task the stream runs with its own (task is filled in).
   NULL, with no task, when there is too little to evaluate. A variant whose evaluation fails
   is left to predict_bank, which reports it in order. */
struct ahead *predict_ahead(const struct config *c, const struct space *s, int cc,
                            const size_t *plan, size_t n, int workers, struct pool_task *task);
/* the bank model for the variants which[0..n) (kept), now, in up to `workers` processes: what
   the guided start's prior needs (predict_ahead_ratio), kept for predict_bank. An evaluation
   error is a config error, reported (the first of them, in variant order). NULL when the
   config declares no accesses. */
struct ahead *predict_sample(const struct config *c, const struct space *s, int cc,
                             const size_t *which, size_t n, int workers);
/* the bank ratio a predicted for variant i's class (report_bank_ratio), -1 if none (a may be
   NULL) */
double predict_ahead_ratio(struct ahead *a, size_t i);
/* when it began, and when its last answer came (now_s's clock): 0, or -1 if it did not run
   beside the stream (predict_sample) */
int predict_ahead_span(const struct ahead *a, double *start, double *end);
void predict_ahead_free(struct ahead *a);
/* tuner explain: print each kept variant's accesses as the bank model predicts them for arch */
void predict_explain(const struct config *c, const struct space *s, const struct result *r,
                     const char *arch);

#endif
