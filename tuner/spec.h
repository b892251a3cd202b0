/* spec: what a config says, as every module reads it: struct config and its parts. */
#ifndef TUNER_SPEC_H
#define TUNER_SPEC_H

#include <stddef.h>
#include <stdint.h>

struct bank_access;
struct expr;

/* a position in the config file, 1-based (0 = unknown) */
struct loc {
	int line, col;
};

/* a buffer's element: a scalar, or (buffers only) a vector of 2 or 4 floats or 2 doubles,
   filled and compared per component as the scalar array of its components */
enum elem { EL_F32, EL_F64, EL_I32, EL_U32, EL_I64, EL_U64, EL_F32X2, EL_F32X4, EL_F64X2 };
enum role { ROLE_IN, ROLE_OUT, ROLE_SCRATCH };
enum fill_kind { FILL_RANDOM, FILL_RANGE, FILL_CONST, FILL_LIST };
/* when a buffer gets its fill again (refill:): REFILL_ROLE as its role says (in: once, before
   the reference; scratch: before each variant; out: poisoned instead), REFILL_VARIANT before
   each variant's first launch, REFILL_LAUNCH before every launch */
enum refill { REFILL_ROLE, REFILL_VARIANT, REFILL_LAUNCH };

struct fill {
	enum fill_kind kind;
	uint64_t seed;        /* random */
	double lo, hi;        /* random: uniform in [lo, hi) */
	double start, step;   /* range: start + i*step */
	double value;         /* const */
	double *list;         /* list: values, repeated cyclically */
	size_t nlist;
};

struct buffer {
	char *name;
	enum elem type;
	struct expr *count;   /* element count: sizes only, except scratch buffers (sizes and params) */
	enum role role;
	struct fill fill;     /* in and scratch, and out with REFILL_LAUNCH; other out buffers
	                         are poisoned */
	enum refill refill;
	struct loc loc;
};

/* a __constant__ symbol set through the driver API before launches */
struct constant {
	char *name;
	enum elem type;
	struct expr *count;
	struct fill fill;
	struct loc loc;
};

/* a parameter's value, or a bound of its range, as written: an integer, or an expression of
   the sizes */
struct pval {
	struct expr *e;       /* NULL: the integer v */
	int64_t v;
	int set;              /* a range's step and times: given */
	struct loc loc;       /* of its node */
};

/* a range's bounds in param.items */
enum { PR_FROM, PR_TO, PR_STEP, PR_TIMES, PR_N };

struct param {
	char *name;
	int64_t *vals;        /* the values, in order; where they are expressions of the sizes,
	                         under the sizes as cfg_eval_params found them, NULL before */
	size_t nvals;
	struct loc loc;
	int range;            /* {from, to, step or times}, else a list */
	struct pval *items;   /* as written, when one is an expression (else NULL: vals are the
	                         literals): the list's values, or a range's PR_N bounds */
	size_t nitems;
	struct loc at;        /* of the list or range */
	int dep;              /* an item uses an earlier parameter: its values are worked out per
	                         combination of those (cfg_param_walk); vals are their union */
};

/* at most this many variants in a space (combinations of parameter values) */
#define CFG_VARIANTS_MAX 1000000

struct constraint {
	struct expr *e;
	struct loc loc;
};

/* a kernel argument: a buffer (device pointer) or a scalar expression */
struct arg {
	int buffer;           /* index into config.buffers, or -1 for a scalar */
	struct expr *value;   /* scalar */
	enum elem type;       /* scalar type, default EL_I32 */
	struct loc loc;
};

struct launch {
	struct expr *block[3], *grid[3]; /* missing dimensions are the constant 1 */
	struct expr *shared;             /* dynamic shared memory bytes, default 0 */
	struct expr *bank_bytes;         /* shared-memory bank mode, 4 or 8; NULL = leave as is */
};

struct kernel {
	char *source;         /* resolved path */
	char *entry;
	struct launch launch;
	struct arg *args;
	size_t nargs;
};

struct size {
	char *name;
	int64_t val;
	struct loc loc;
};

/* an extra size every variant is also verified at (verify.sizes) */
struct vsize {
	int64_t *vals;        /* every size's value, in config order: the entry's, else the one
	                         the file's sizes give (not --size's) */
	char *label;          /* every size: "n=1 m=64" */
	struct loc loc;       /* of the entry */
};

/* limits a config is checked against (docs/config.md lists them) */
#define CFG_NAME_MAX 64            /* characters of the config's name */
#define CFG_SAMPLES_MAX 10000      /* timing.samples: 1 .. this */
#define CFG_WARMUP_MAX 10000       /* timing.warmup: 0 .. this */
#define CFG_PLAYOFF_MAX 100        /* timing.playoff: 0 .. this */
#define CFG_TIE_MAX 0.5            /* timing.tie: 0 .. this */
#define CFG_BUDGET_MAX 1000000000  /* search.budget: 1 .. this, as --budget */
#define CFG_SOURCE_MAX (4 << 20)   /* bytes of a template or reference source */
#define CFG_BUFFER_MAX ((int64_t)1 << 40) /* bytes of one buffer */
#define CFG_CONSTANT_MAX 65536     /* bytes of one __constant__ symbol (the constant bank) */
#define CFG_VERIFY_MAX 16          /* entries of verify.sizes */
#define CFG_POINT_DIR_MAX 200      /* characters of a point's label, its directory's name */
#define CFG_POINTS_MAX 16          /* points of sizes (a list), or of --size's values */
#define CFG_ITEMS_MAX 1024         /* buffers, constants, args, accesses, loops or lets */

/* timing.l2: what the L2 holds when a sample starts */
enum cfg_l2 {
	CFG_L2_AUTO,          /* flushed where the buffers at the sizes exceed the GPU's L2 */
	CFG_L2_FLUSH,         /* flushed before every sample: data comes from memory */
	CFG_L2_RESIDENT,      /* not flushed: back-to-back launches find their inputs in L2 */
};
extern const char *const cfg_l2_words[]; /* "auto", "flush", "resident" */

struct config {
	char *path;           /* as given */
	char *name;
	struct kernel kernel;    /* the tuned kernel: source = template */
	struct kernel reference; /* the reference kernel (source defaults to the template's) */
	int has_reference;
	struct size *sizes;
	size_t nsizes;
	struct buffer *buffers;
	size_t nbuffers;
	struct constant *constants;
	size_t nconstants;
	struct param *params;
	size_t nparams;
	struct constraint *constraints;
	size_t nconstraints;
	char **options;       /* extra NVRTC options */
	size_t noptions;
	struct expr *bytes;   /* bytes moved per launch, for GB/s; may use sizes and params */
	double rtol, atol;    /* pass if |x - ref| <= atol + rtol * |ref| */
	int warmup, samples;
	int l2;               /* timing.l2 (enum cfg_l2) */
	double tie;           /* timing.tie: medians this close (a fraction) are a tie */
	int playoff;          /* timing.playoff: rounds of the play-off among the fastest */
	struct bank_access *accesses; /* declared shared-memory accesses, for the bank model */
	size_t naccesses;
	struct loc *access_loc;  /* of each access's mapping */
	uint64_t result_digest;  /* of every field that can change a variant's GPU result beyond
	                            its cubin, geometry and sizes (read.h: enum dig): the same
	                            for the same values in any key order or YAML style */
	struct cfg_at *at;    /* where each expression is in the file, for cfg_expr_loc */
	size_t nat;
	struct vsize *verify; /* the extra verification sizes */
	size_t nverify;
	struct vsize *points; /* sizes as a list: the points to tune at (the first in sizes[]) */
	size_t npoints;       /* 0: sizes is one mapping */
	size_t search_budget;  /* search.budget: the default --budget (0: none) */
	char *search_strategy; /* search.strategy: the default --strategy (NULL: none) */
	struct loc search_loc; /* of search.strategy */
};

/* an expression's place in the file: exact for text on one line */
struct cfg_at {
	const struct expr *e;
	int line, col;          /* of its first byte */
	int block;              /* a block scalar: every column is col */
};

/* the name every expression may use for the GPU's multiprocessor count (a size the tuner sets:
   the GPU's, or --sms without one); a config may not declare it */
#define CFG_SMS "SMS"
/* where byte col (0-based) of expression e is in the config file; 0 if e is not from the file */
int cfg_expr_loc(const struct config *c, const struct expr *e, int col, struct loc *out);
/* free everything */
void cfg_free(struct config *c);

#endif
