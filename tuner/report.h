/* report: the variant list, the ranked table, the ties and the bank model's checks. */
#ifndef TUNER_REPORT_H
#define TUNER_REPORT_H

#include <stddef.h>
#include <stdio.h>

struct bank_stats;
struct buf;
struct config;
struct observe;
struct result;
struct run_result;
struct runinfo;
struct space;
struct variant;

/* the ranked table shows this many rows (every one with --all or -v), in at most this many
   columns (but with -v): the status, then the parameters, are cut to fit */
#define REPORT_TABLE_ROWS 20
#define REPORT_TABLE_WIDTH 120
/* "nothing was timed: why; compiled for sm_XX only": what a run without a GPU says, even
   with -q */
void report_untimed(FILE *f, const struct runinfo *ri);
/* the parameters of more than two values at whose smallest or largest the timed variant w
   sits while its neighbour inward (the next value, all else the same) ran slower: a better
   variant may lie beyond ("OUT=8 is the largest value tried, and OUT=4 is 3.0 % slower"), one
   per line into b; returns how many */
size_t report_edges(struct buf *b, const struct config *c, const struct space *s,
                    const struct result *r, size_t w);
/* "max abs error 2e-07, max rel error 3.1e-07 (where |ref| > 1e-06)": x's errors against the
   reference, the relative one over the elements beyond c's absolute tolerance (tuner/cmp.h) */
void report_errors(struct buf *b, const struct run_result *x, const struct config *c);
/* what an application does about a launch-bound kernel, in one sentence */
extern const char report_launch_advice[];
/* "the host launches it in 4.05 us, the GPU runs it in 1.62 us: launch-bound (2.5x)" (or "not
   launch-bound") into b, from x's timing; nothing where the launch cost was not measured.
   Returns 1 if launch-bound */
int report_launch(struct buf *b, const struct run_result *x);
/* results.json's "launch" line of the winner x (nothing where its launch was not measured) */
void report_launch_json(struct buf *b, const struct run_result *x);
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
/* one point's rows (report_table's, every one of them) for report_points */
struct report_rows;
/* the rows of a point's run, its label (not copied: it must outlive them) */
struct report_rows *report_rows_new(const struct config *c, const struct space *s,
                                    const struct result *r, const size_t *order,
                                    const char *label);
void report_rows_free(struct report_rows *p);
/* the table of a compile-only run at np points (docs/search.md, "Several sizes"): each variant
   once, in the first point's order; a column that differs between the points once per point
   (its place in a point's order and the grid only then), one the same in every row said
   above it; within REPORT_TABLE_WIDTH (but with -v): a status cut, then the parameters, then
   the later points' columns left out (said); then report_untimed and the bank model's note */
void report_points(FILE *f, const struct config *c, struct report_rows *const *p, size_t np,
                   const struct runinfo *ri);
/* print the ranked table */
void report_table(FILE *f, const struct config *c, const struct space *s, const struct result *r,
                  const size_t *order, const struct runinfo *ri);

#endif
