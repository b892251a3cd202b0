/* predict: the bank model's prediction for every kept variant, and `tuner explain`. */
#ifndef TUNER_PREDICT_H
#define TUNER_PREDICT_H

#include <stddef.h>

struct config;
struct result;
struct runinfo;
struct space;

struct ahead;
struct pool_task;

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

/* The bank model for the variants a run tries, as its search picks them (a run on a budget or
   a shard, which predicts only what it tried): an ahead takes variants (predict_ahead_add),
   evaluates their classes in up to `workers` processes beside the stream (predict_ahead_task)
   or at once (predict_ahead_run), and predict_bank takes what it evaluated. */
/* an ahead for up to n different variants of s, under the rules of compute capability cc;
   NULL when the config declares no accesses */
struct ahead *predict_ahead_new(const struct config *c, const struct space *s, int cc,
                                size_t n, int workers);
/* variant i (kept) is picked (a may be NULL) */
void predict_ahead_add(struct ahead *a, size_t i);
/* no more variants come (a may be NULL) */
void predict_ahead_end(struct ahead *a);
/* the pool task that evaluates them beside the stream, handing out each class as it is added,
   ending once predict_ahead_end was called; -1 (no task) without processes */
int predict_ahead_task(struct ahead *a, struct pool_task *task);
/* evaluate every class added so far, now; an evaluation error is a config error, reported
   (the first failing variant in config order) */
void predict_ahead_run(struct ahead *a);
/* the bank ratio a predicted for variant i's class (report_bank_ratio), -1 if none (a may be
   NULL) */
double predict_ahead_ratio(struct ahead *a, size_t i);
/* when its task began and its last answer came (now_s's clock): 0, or -1 if no task ran
   beside the stream */
int predict_ahead_span(const struct ahead *a, double *start, double *end);
void predict_ahead_free(struct ahead *a);
/* tuner explain: print each kept variant's accesses as the bank model predicts them for arch
   (chosen as `why` says: "as --arch says") at the sizes `label` ("n=4096"; "": the config has
   none), wrapped to WRAP_WIDTH */
void predict_explain(const struct config *c, const struct space *s, const struct result *r,
                     const char *arch, const char *why, const char *label);

#endif
