/* result: what a run learned of each variant (struct result, its status), and the facts of
   the run as a whole (struct runinfo) that every report and the emitted source state. */
#ifndef TUNER_RESULT_H
#define TUNER_RESULT_H

#include <stddef.h>
#include <stdint.h>
#include "gpu.h"    /* struct gpu_info */
#include "nvrtc.h"  /* struct compile_out */
#include "space.h"  /* struct limits */
#include "stats.h"  /* struct stats */
#include "util.h"   /* struct buf */

struct bank_rules;
struct bank_stats;

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
	ST_SKIPPED,       /* kept, but not tried: another shard's, or beyond the budget */
};

/* what a GPU worker found of one variant (bench.h), and the values of its probe */
#define BENCH_PROBE_MAX 12

enum run_status { RUN_OK, RUN_MISMATCH, RUN_FAULT, RUN_LAUNCH_ERROR };

struct run_result {
	enum run_status status;
	char reason[256];         /* why not ok */
	double max_abs_err, max_rel_err;
	size_t bad;               /* elements outside tolerance */
	struct stats t;
	int bank_applied;         /* bank mode read back after setting it (0 if not set) */
	int nprobe;               /* values the probe returned: 0 none ran, -1 it failed */
	double probe[BENCH_PROBE_MAX];
	char probe_why[160];      /* why it failed */
	int device;               /* the CUDA device that ran it (-1: not known) */
	int resident;             /* its blocks on a multiprocessor at once at the tuning sizes: as
	                             many as fit (the driver's occupancy calculator), or fewer
	                             where the grid has fewer a multiprocessor (0: not known) */
	double verify_s, extra_s, timing_s; /* the worker's seconds on it: loading and verifying
	                             at the tuning sizes, verifying at the extra sizes, timing
	                             (not journaled) */
};

/* the status as a short word ("ok", "compile-error", ...), as results.json and the table say it */
const char *result_status(enum status s);

struct result {
	enum status status;
	char *reason;             /* malloc'd, NULL when there is nothing to say */
	struct compile_out co;
	int cache_hit;
	int resumed;              /* the GPU result came from the journal of an earlier run */
	long twin;                /* index of the variant whose cubin and timing this one shares, or -1 */
	struct run_result *run;   /* malloc'd (result_set_run) for ST_OK, ST_MISMATCH, ST_FAULT,
	                             ST_LAUNCH_ERROR and timed twins; NULL otherwise: read it
	                             through result_run */
	double gbs, pct_copy;     /* when timed */
	double pct_read;          /* of the read-only kernel's bandwidth */
	struct bank_stats *bank;  /* per config access: the bank model's prediction under
	                             bank_rules (NULL: dropped, or no accesses declared) */
	struct bank_stats *bank8; /* the same under Kepler's 8-byte mode */
	int bank_shared;          /* bank and bank8 are another variant's (not freed with it) */
	const struct bank_rules *bank_rules;
	double bank_ratio;        /* report_bank_ratio of bank; 0 without a prediction */
	uint64_t build;           /* hash of its cubin and launch (0: it did not build) */
	int tie;                  /* verified, and not to be told apart from the fastest
	                             (winner_ties); the winner is chosen among these */
	int po_n;                 /* play-off rounds it was timed in (0: not in the play-off) */
	double po_ms, po_se;      /* the median of its rounds' medians, and its standard error */
};

/* x's GPU result, or one of zeros when it has none */
const struct run_result *result_run(const struct result *x);
/* give x a copy of run (replacing the one it had) */
void result_set_run(struct result *x, const struct run_result *run);

/* where a run's wall time went (run.h: run_phase, run_span, run_total; search.phases in
   results.json) */
enum phase_kind {
	PHASE_SERIAL,             /* one of the run's consecutive phases: together, its wall time */
	PHASE_SPAN,               /* an interval beside other work (compiling beside timing) */
	PHASE_TOTAL,              /* a sum of many short intervals (every variant's verification) */
	PHASE_KINDS
};
struct runphase {
	const char *name;         /* a string literal ("load", "extra-size verification") */
	enum phase_kind kind;
	double start_s;           /* seconds after the run began (not for PHASE_TOTAL) */
	double s;                 /* how long */
	int said;                 /* printed with -v */
};
#define RUN_PHASES_MAX 48

/* facts about the run, for the report and the provenance comment */
struct runinfo {
	const char *arch;         /* "sm_90" */
	int arch_default;         /* arch is only NVRTC's newest: nothing named one */
	const char *nvrtc;        /* "13.0" */
	int timed;                /* 1 if a GPU verified and timed the variants */
	const char *why_untimed;  /* why not, when timed == 0 */
	struct gpu_info gpu;      /* valid when timed */
	char slug[128];           /* output directory name under out/<kernel>/ */
	double copy_gbs, read_gbs;  /* rooflines timed in the same run */
	int l2_flush;             /* samples (and rooflines) flush the L2 first (timing_l2_flush) */
	char l2_why[240];         /* why, in words */
	struct stats copy, read;
	int bank_ignored;         /* 1 if the GPU reported 4-byte banks after asking for 8 */
	char date[32];            /* UTC, ISO 8601 */
	struct limits lim;        /* what a block may use, the variants were expanded under */
	int64_t sms;              /* SMS as the expressions saw it */
	double compile_s;         /* wall time of compiling and timing (they overlap) */
	double first_timed_s;     /* from the start of compiling to the first timed result (0:
	                             none) */
	size_t ntimed;            /* variants the GPU ran in this run */
	size_t nskipped;          /* kept variants not tried (ST_SKIPPED) */
	size_t playoff;           /* variants in the play-off (0: none) */
	int kept_winner;          /* the winner is the earlier run's, kept because it ties */
	int playoff_rounds;
	double playoff_net;       /* its candidates' medians were within this fraction */
	int playoff_earlier;      /* the winner of the results already there took part */
	size_t playoff_left;      /* candidates that left it early (their rounds beyond another's) */
	size_t tie_gpus;          /* other GPUs' results the tie rule read (retune_elsewhere) */
	int tie_key;              /* enum tie_key (report.h): the rule's key that chose the winner */
	const char *strategy;     /* --strategy */
	size_t budget;            /* --budget (0: none) */
	uint64_t seed;
	int shard_k, shard_n;     /* --shard K/N (0/0: none) */
	const char *mid_lo, *mid_hi; /* a midpoint's run: the labels of the two points it lies
	                             between (NULL: not a midpoint) */
	int list_dropped;         /* --list-dropped: results.json and .csv list the dropped variants
	                             (else they count them by rule) */
	int table_all;            /* --all: the table shows every row, not the first
	                             REPORT_TABLE_ROWS */
	int counters;             /* --counters: 1 + the set of counters_smem read, -1 unavailable
	                             (counters_why), 0 not asked (or every result resumed) */
	int counter_passes;       /* the profiler's passes per kernel */
	char counters_why[240];
	size_t compiled, cache_hits;
	size_t shared;            /* variants given another's compile of the same text */
	int sources_copied;       /* RESULTS_CONFIG_COPY and RESULTS_TEMPLATE_COPY (results.h) are
	                             beside the results */
	uint64_t config_hash, template_hash; /* hash_bytes of the texts tuned with */
	struct buf retune_text;   /* retune_compare's lines and JSON array (empty: none) */
	struct buf retune_json;
	struct runphase phases[RUN_PHASES_MAX]; /* in the order they began (serial) or were first
	                             recorded */
	int nphases;
	double run_s;             /* the serial phases' sum so far: the run's wall time up to the
	                             end of the last phase recorded */
};

#endif
