/* bank: static shared-memory bank-conflict model (wavefronts per warp request). */
#ifndef TUNER_BANK_H
#define TUNER_BANK_H

#include <stddef.h>
#include <stdint.h>

struct expr;
struct vars;

/*
 * One warp request (a shared-memory load or store instruction executed by a warp) costs
 * `wavefronts` shared-memory cycles. The request is split into phases of consecutive lanes;
 * a phase costs the largest number of distinct bank words that its active lanes touch in one
 * bank (lanes touching the same word share it: broadcast on loads, one write on stores).
 * docs/bank-model.md gives the rules, their sources and the measurements behind them.
 */

#define BANK_LANES 32
#define BANK_COUNT 32

/* an architecture's bank rules */
struct bank_rules {
	const char *name;  /* for reports: "sm_70+", "kepler-8B" */
	int bank_bytes;    /* width of a bank word: 4, or 8 in Kepler's 8-byte mode */
	int pair_merge;    /* wide loads whose lane pairs (n, n^1) or (n, n^2) share addresses
	                      take half the phases (measured on sm_90, reported for sm_70-75) */
};

/* Volta and later (every GPU CUDA 13 supports): 32 banks of 4 bytes; an access wider than
   4 bytes is served in width / 4 phases (8 bytes: half-warps, 16 bytes: quarter-warps) */
extern const struct bank_rules bank_volta;
/* Kepler's 8-byte bank mode: 32 banks of 8 bytes, one phase up to 8 bytes, two for 16 */
extern const struct bank_rules bank_kepler8;

/* the rules a device of compute capability cc (major * 10 + minor) applies in a bank mode
   of bank_bytes (4 or 8; 0 = the default): Kepler (cc 30-37) honours 8, later GPUs ignore it */
const struct bank_rules *bank_rules_for(int cc, int bank_bytes);

/* one warp request */
struct bank_req {
	int64_t addr[BANK_LANES]; /* byte address of each lane in the shared window */
	uint32_t active;          /* lanes taking part (bit n: lane n) */
	int width;                /* bytes per lane: 1, 2, 4, 8 or 16 */
	int store;                /* 0 load, 1 store */
};

/* what a request costs */
struct bank_cost {
	int wavefronts; /* shared-memory cycles; 0 when no lane is active */
	int ideal;      /* cycles without bank conflicts: the phases holding an active lane */
	int degree;     /* worst conflict: most distinct words one bank serves in one phase
	                   (1: conflict-free, 32: the 32-way column read); 0 when no lane is active */
	int phases;     /* phases the warp was split into (after pair merging) */
};

/* the cost of q under r; 0, or -1 with msg (size n) saying why q is invalid
   (width, negative or misaligned address) */
int bank_cost(const struct bank_rules *r, const struct bank_req *q, struct bank_cost *c,
              char *msg, size_t n);

/* a loop around an access, run by each lane as in C: for (var = from; cond; var = next), or
   with count set (and the others NULL) for (var = 0; var < count; var++). A lane whose condition
   fails leaves the loop; the warp goes on while any of its lanes is in it (SIMT). */
struct bank_loop {
	char *var;
	struct expr *count;
	struct expr *from, *cond, *next;
};

/* a value computed per lane before the index, in declaration order: name = value */
struct bank_let {
	char *name;
	struct expr *value;
};

/*
 * A declared shared-memory access: every warp of the block executes it once per iteration of
 * its loops. Expressions may use the variant's sizes and parameters; the per-lane ones (loops,
 * lets, when, index) also the thread names tx, ty, tz (threadIdx), tid (linear thread index),
 * lane (tid % 32), warp (tid / 32), nthreads (threads in the block), the loop variables and lets.
 * Byte address of a lane: base + index * elem.
 */
struct bank_access {
	char *name;               /* shown in reports */
	char *array;              /* the shared array it touches (reports only) */
	struct expr *cond;        /* variant filter: the access exists when non-zero; NULL = always */
	struct expr *elem;        /* bytes per element of the array */
	struct expr *width;       /* bytes per lane and request; NULL = elem */
	struct expr *base;        /* byte offset of the array in shared memory; NULL = 0 */
	struct expr *index;       /* element index (per lane) */
	struct expr *when;        /* the lane takes part when non-zero (per lane); NULL = always */
	int store;                /* 0 load, 1 store */
	struct bank_loop *loops;  /* outermost first */
	size_t nloops;
	struct bank_let *lets;
	size_t nlets;
};

/* totals over the requests of one access in one block */
struct bank_stats {
	int64_t requests;   /* warp requests with an active lane */
	int64_t wavefronts; /* summed */
	int64_t ideal;      /* summed conflict-free wavefronts */
	int max;            /* most wavefronts of one request */
	int degree;         /* worst conflict of one request */
	int present;        /* 0 when cond excluded the access from this variant */
};

/* where and why an evaluation failed */
struct bank_err {
	char what[32];    /* the failing field as the config names it: "index", "when", "if",
	                     "loops[1]" (a count), "loops[1].while", "let[0]", "width", ... */
	int col;          /* 0-based column in that field's expression, -1 if none */
	char msg[240];
};

/* the loop iterations bank_eval lets a warp run for one access (at all levels): a loop that
   goes on is an error */
#define BANK_ITER_MAX 16384

/* the work bank_eval may do for one variant (all its accesses, under both rule sets): steps,
   each the evaluation of one expression for one lane, or one lane of a request's cost */
#define BANK_WORK_MAX ((int64_t)1 << 22)

/* the steps bank_eval takes for a under one rule set (block and v as there) when it succeeds,
   at least, and in *iters the loop iterations each warp runs, at least: known from the
   declared loops before any work, in time that does not grow with their trip counts (a loop
   is run on its variable alone for at most BANK_ITER_MAX iterations). Exact where no `when`
   leaves lanes out and every loop's expressions are the same for all threads (the variant's
   names, nthreads, the variables of the loops around it, a `while` loop's own); a loop whose
   trip count a thread may change counts its first test only, and nothing inside it, nor what
   a `when` may leave out. *iters above BANK_ITER_MAX: bank_eval fails on the first warp.
   0 where a is not in the variant (`if`) or its `if`, block or number of names make bank_eval
   fail; INT64_MAX where a count does not fit. */
int64_t bank_steps(const struct bank_access *a, const int64_t block[3], const struct vars *v,
                   int64_t *iters);

/* the shared-memory extent bank_eval takes for "not known": only a negative address is an error */
#define BANK_SHARED_ANY INT64_MAX

/* evaluate a for every warp of a block of block[0] x block[1] x block[2] threads under the
   variant's bindings v (sizes and parameters); 0, or -1 with *err. A lane's bytes (address
   to address + width) must lie in shared memory of `shared` bytes. *work is the steps left to
   the variant, decreased by those taken; running out is an error (err->what empty: the access
   as a whole). work NULL: BANK_WORK_MAX steps for this call. */
int bank_eval(const struct bank_access *a, const int64_t block[3], int64_t shared,
              const struct vars *v, const struct bank_rules *r, struct bank_stats *s, struct bank_err *err,
              int64_t *work);
/* mean wavefronts per request (0 without requests) */
double bank_mean(const struct bank_stats *s);
/* mean conflict-free wavefronts per request (0 without requests) */
double bank_mean_ideal(const struct bank_stats *s);
/* 1 if name is bound by bank_eval (tx, lane, ...): a config may not use it for its own names */
int bank_reserved(const char *name);
/* free what a owns (names, expressions, loops, lets), not a itself */
void bank_access_clear(struct bank_access *a);

#endif
