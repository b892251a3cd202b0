/* report: the variant list, the ranked table, the ties and the bank model's checks. */
#ifndef TUNER_REPORT_H
#define TUNER_REPORT_H

#include <stdio.h>
#include "config.h"
#include "space.h"
#include "result.h"

/* --dry-run: every variant with its parameters, launch geometry and whether it was kept */
void report_variants(FILE *f, const struct config *c, const struct space *s);
/* order of results, best first: verified by median time, then the rest by status and index,
   untimed variants with a bank prediction by the predicted ratio and then their spills;
   returns a malloc'd array of n indices */
size_t *report_rank(const struct result *r, size_t n);
/* the variants whose timings cannot be told apart from the fastest's: verified ones whose
   median exceeds the fastest's by at most twice the standard error of the difference, or by
   c->tie of the fastest's median if that is more. With a play-off (r[i].po_n > 0) only its
   variants take part, with their rounds' medians and standard errors, and the fastest is the
   play-off's; without one, each median's standard error is estimated from its samples' 10-90 %
   spread and count. When there are two or more, marks them (r[i].tie); moves the winner to
   order[0]: variant keep (an earlier run's winner; SIZE_MAX: none) if it is one of the ties,
   for which its band is REPORT_KEEP_BANDS times as wide (so that a winner near the band's edge
   does not come and go from run to run), else the one the tie rule REPORT_TIE_RULE prefers
   among them, else the fastest. elsewhere (NULL: none) is retune_elsewhere's score of each
   variant on the other GPUs tuned beside this one, the rule's first key; where it puts the
   rule's choice more than c->tie ahead of keep (known there), keep gives way. *why (why may be
   NULL) gets the rule's key that set the winner apart from the best of the other ties
   (TIE_NONE: fewer than two ties, or keep stayed). Returns how many ties there are (0 when
   nothing was verified). */
enum tie_key { TIE_NONE, TIE_ELSEWHERE, TIE_WORK, TIE_SMEM, TIE_REGS, TIE_ORDER };
size_t report_ties(struct result *r, size_t n, const struct config *c, const struct space *s,
                   size_t *order, size_t keep, const double *elsewhere, enum tie_key *why);
/* each key's words ("shared memory"), by enum tie_key */
extern const char *const report_tie_keys[];
#define REPORT_KEEP_BANDS 2
#define REPORT_TIE_RULE "the best worst ratio to the fastest on the other GPUs tuned beside " \
                        "it (where their results have it), then the most work resident on a " \
                        "multiprocessor (the bytes its blocks there move, where the driver " \
                        "told how many fit), then the least shared memory, then the fewest " \
                        "registers, then the first in the config's order"
/* the parameters at whose smallest or largest value the variant v sits ("OUT=4 is the largest
   value tried"), one per line into b; returns how many (parameters with one value do not count) */
size_t report_edges(struct buf *b, const struct config *c, const struct variant *v);
/* "max abs error 2e-07, max rel error 3.1e-07 (where |ref| > 1e-06)": x's errors against the
   reference, the relative one over the elements beyond c's absolute tolerance (tuner/cmp.h) */
void report_errors(struct buf *b, const struct run_result *x, const struct config *c);
/* predicted wavefronts over conflict-free wavefronts, summed over the accesses of st (n of c's
   accesses); 0 when none is present */
double report_bank_ratio(const struct bank_stats *st, size_t n);
/* a variant's predicted shared-memory cost beside the counters --counters read, for the
   loads (op 0) or the stores (op 1) */
struct bank_check {
	double pred;              /* predicted wavefronts per request over the declared accesses */
	double meas;              /* measured: the wavefronts the instructions' addresses need
	                             (SASS-level counter; the pipeline's where there is none) */
	double meas_pipe;         /* the L1 data pipeline's wavefronts per request: meas plus
	                             those lost to other L1 traffic at the same time */
	double pred_ideal, meas_ideal; /* the same without bank conflicts */
	double pred_requests;     /* predicted requests per block */
	double meas_requests;     /* measured requests per block (over the grid's blocks) */
	int match;                /* meas within REPORT_BANK_TOL of pred */
};
/* relative tolerance of a match: counts that differ by less are taken as equal */
#define REPORT_BANK_TOL 0.01
/* fill k for op of variant v; 1, 0 when there is nothing to compare (no counters, or
   neither the declarations nor the GPU have requests of that kind), -1 when the counters are
   incomplete (no requests counted where the pipeline saw wavefronts) */
int report_bank_check(const struct config *c, const struct variant *v, const struct result *x,
                      int op, struct bank_check *k);
/* measured wavefronts (as the addresses need them) over conflict-free wavefronts, loads and
   stores together, of x's counters (0: none) */
double report_meas_ratio(const struct result *x);
/* print the ranked table */
void report_table(FILE *f, const struct config *c, const struct space *s, const struct result *r,
                  const size_t *order, const struct runinfo *ri);

#endif
