/* report: the ranked table, results.json and results.csv. */
#ifndef TUNER_REPORT_H
#define TUNER_REPORT_H

#include <stdio.h>
#include "bench.h"
#include "config.h"
#include "nvrtc.h"
#include "space.h"

enum status {
	ST_OK,            /* verified and timed */
	ST_UNTIMED,       /* compiled; no GPU to verify or time on */
	ST_COMPILE_ERROR,
	ST_RESOURCES,     /* compiled, but static + dynamic shared memory exceed the limit */
	ST_MISMATCH,
	ST_FAULT,         /* the kernel faulted, or its worker process died */
	ST_TIMEOUT,       /* no result within the time limit: the worker was killed */
	ST_LAUNCH_ERROR,
	ST_TWIN,          /* byte-identical cubin and launch as another variant: timed once */
	ST_COLLAPSED,     /* differs only in a bank mode the GPU does not apply */
	ST_NOTRUN,        /* interrupted before it ran */
	ST_DROPPED,       /* by a constraint or a device limit; never compiled */
};

struct result {
	enum status status;
	char *reason;             /* malloc'd, NULL when there is nothing to say */
	struct compile_out co;
	int cache_hit;
	int resumed;              /* the GPU result came from the journal of an earlier run */
	long twin;                /* index of the variant whose cubin and timing this one shares, or -1 */
	struct run_result run;    /* valid for ST_OK, ST_MISMATCH, ST_FAULT, ST_LAUNCH_ERROR, and twins */
	double gbs, pct_copy;     /* when timed */
	double pct_read;          /* of the read-only kernel's bandwidth */
	struct bank_stats *bank;  /* per config access: the bank model's prediction under
	                             bank_rules (NULL: dropped, or no accesses declared) */
	struct bank_stats *bank8; /* the same under Kepler's 8-byte mode */
	const struct bank_rules *bank_rules;
	double bank_ratio;        /* report_bank_ratio of bank; 0 without a prediction */
};

/* facts about the run, for the report and the provenance comment */
struct runinfo {
	const char *arch;         /* "sm_90" */
	const char *nvrtc;        /* "13.0" */
	int timed;                /* 1 if a GPU verified and timed the variants */
	const char *why_untimed;  /* why not, when timed == 0 */
	struct gpu_info gpu;      /* valid when timed */
	char slug[128];           /* output directory name under out/<kernel>/ */
	double copy_gbs, read_gbs;  /* rooflines timed in the same run */
	struct stats copy, read;
	int bank_ignored;         /* 1 if the GPU reported 4-byte banks after asking for 8 */
	char date[32];            /* UTC, ISO 8601 */
	double compile_s;         /* wall time of the compile phase */
	int counters;             /* --counters: 1 + the set of counters_smem read, -1 unavailable
	                             (counters_why), 0 not asked (or every result resumed) */
	int counter_passes;       /* the profiler's passes per kernel */
	char counters_why[240];
	size_t compiled, cache_hits;
};

/* order of results, best first: verified by median time, then the rest by status and index,
   untimed variants with a bank prediction by the predicted ratio and then their spills;
   returns a malloc'd array of n indices */
size_t *report_rank(const struct result *r, size_t n);
/* the status as a short word ("ok", "compile-error", ...) */
const char *report_status(enum status s);
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
/* print the ranked table */
void report_table(FILE *f, const struct config *c, const struct space *s, const struct result *r,
                  const size_t *order, const struct runinfo *ri);
/* results.json: every variant with parameters, status and reason, statistics, resources, error */
void report_json(struct buf *b, const struct config *c, const struct space *s,
                 const struct result *r, const size_t *order, const struct runinfo *ri);
/* results.csv: one row per variant */
void report_csv(struct buf *b, const struct config *c, const struct space *s,
                const struct result *r, const size_t *order);

#endif
