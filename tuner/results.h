/* results: a run's results files: results.json, written and read back (merge, bundle,
   re-tuning), results.csv, and the copies of the sources kept beside them. */
#ifndef TUNER_RESULTS_H
#define TUNER_RESULTS_H

#include <stdint.h>
#include <stdio.h>
#include "result.h" /* enum status */

struct buf;
struct config;
struct space;

/* the copies of the config and the template a run keeps beside its results (tuner bundle
   regenerates the winners from them, tuner merge expands the shards' space again) */
#define RESULTS_CONFIG_COPY "config.yaml"
#define RESULTS_TEMPLATE_COPY "template.cu"
/* the most bytes of a results.json results_load reads, checked before it is parsed: about
   100 000 timed variants (the tests' largest, 40 000 variants, are 20 MB; a full
   stencil2d, 16 440, about 12 MB), while parsing it stays within about 1.5 GB */
#define RESULTS_MAX ((size_t)64 << 20)

/* results.json: every variant tried (the skipped ones are only counted, the dropped ones
   counted by rule unless ri->list_dropped) with parameters, status and reason, statistics,
   resources, error; the winner; appended to b, or with out (may be NULL) written to out as
   it goes, b serving as the buffer. Its schema: docs/results.schema.json */
void results_write(struct buf *b, FILE *out, const struct config *c, const struct space *s,
                   const struct result *r, const size_t *order, const struct runinfo *ri);

/* one parameter of a variant, or one size */
struct results_val {
	const char *name;         /* the results' own (results_free frees it) */
	int64_t val;
};

/* a variant as results.json lists it. A number the file gives as null (written for one that
   was not finite) reads as NaN; a number, flag or string it does not give as 0 or NULL. */
struct results_variant {
	char *id;
	enum status status;       /* ST_NOTRUN where the word is none this tuner knows */
	char *unknown;            /* that word (a newer tuner's?); NULL where it is known */
	struct results_val *params;
	size_t nparams;
	char *reason;             /* NULL: none */
	char *twin_of;            /* twins and collapsed variants: the id of the one timed for them */
	char *log;                /* compile errors: the compiler's log */
	int resumed, tie, cache_hit;
	int compiled;             /* registers, spill_stores, spill_loads, stack, shared_static
	                             are given */
	int regs, spill_stores, spill_loads, stack, smem_static;
	int checked;              /* max_abs_err is given (with max_rel_err) */
	double max_abs_err, max_rel_err;
	int device;               /* the CUDA device that ran it (-1: not given) */
	int timed;                /* median_ms is given (with the other statistics) */
	int samples;
	double median_ms, min_ms, max_ms, mean_ms, spread, gbs, pct_copy, pct_read;
	double launch_us;         /* the host's cost of a launch (0: not given; NAN: null) */
	int64_t resident;         /* resident_blocks */
	int geometry;             /* block, grid, shared_dynamic and bytes are given */
	int64_t block[3], grid[3], shared, bytes;
};

/* the copy of the config or the template a run kept beside its results */
struct results_copy {
	char *copy;               /* its file name in the results' directory */
	char *fnv1a64;            /* the hash of its text (16 hex digits) */
	char *path;               /* the template's path as the run found it (NULL: the config's) */
};

/* one of search.phases: where the run's time went (struct runphase) */
struct results_phase {
	char *name;
	char *kind;               /* "serial", "span" or "total" */
	double start_s, s;        /* start_s: 0 when not given (a total) */
};

/* what results.json says of the run */
struct results {
	char *kernel;
	char *config;             /* the config's path as the run was given it */
	int timed;                /* a GPU verified and timed the variants */
	char *why_untimed;
	char *gpu;                /* timed: the GPU's name */
	int cc_major, cc_minor;   /* timed: its compute capability (0 0: not given) */
	int sms, driver;
	double copy_gbs, read_gbs;
	int bank_ignored;
	int l2;                   /* "l2" is given: the policy the run timed under */
	char *l2_policy, *l2_why; /* its word (auto, flush, resident), why in words */
	int l2_flush;             /* samples flushed the L2 first */
	char *arch, *nvrtc, *date;
	int copies;               /* "sources" is given: the copies of the config and template */
	struct results_copy cfg, tmpl;
	struct results_val *sizes;
	size_t nsizes;
	int limits;               /* "limits" is given */
	int max_threads;
	int64_t smem_block, smem_optin, lim_sms;
	int shard_k, shard_n;     /* --shard K/N (0 0: not a shard) */
	int midpoint;             /* "midpoint" is given: a run at the midpoint of two points,
	                             of a few candidates (points.h) */
	char *strategy;           /* the search's */
	int64_t budget, seed, ntimed;
	double first_timed_s, wall_s;
	double run_s;             /* search.run_s: the serial phases' sum (0: not given) */
	struct results_phase *phases; /* search.phases (none: not given) */
	size_t nphases;
	char *winner;             /* its id (NULL: none, or not given) */
	size_t ndropped;          /* variants dropped by a constraint or a limit */
	int dropped_listed;       /* they are among v (--list-dropped), else only counted */
	struct results_variant *v;
	size_t n;
};

/* why results_load failed: at line:column of the text where JSON is malformed, else (0:0) in
   what it holds ("variants[3]: no 'id'"); text is never empty, and what it quotes of the file
   has been through buf_safe */
struct results_error {
	int line, column;
	char text[512];
};

/* read the results.json at path (a regular file of at most RESULTS_MAX bytes); complete: the
   keys every tuner has written are required (else a missing one reads as absent). NULL, with
   why, when it cannot be read, is not JSON, lacks a required key, has one of the wrong type, or
   a compute capability that is not MAJOR.MINOR */
struct results *results_load(const char *path, int complete, struct results_error *why);
/* a phase's kind as results.json names it (results.c writes it, resultsread.c reads it) */
extern const char *const results_phase_kinds[PHASE_KINDS];
/* the same from the text of a results.json already in memory (len bytes) */
struct results *results_parse(const char *text, size_t len, int complete,
                              struct results_error *why);
/* the GPU directory's results.json of a run at several points (points.h): the points'
   and the midpoints' directory names, *n of them (malloc'd, each too); NULL where path is not such a file (then
   results_load tells what it is; why->text is empty), or where it names something that is not
   a point's directory (why->text says so) */
char **results_points(const char *path, size_t *n, struct results_error *why);
/* "PATH:LINE:COLUMN: why" (or "PATH: why" where e has no place) into out */
void results_say(char *out, size_t len, const char *path, const struct results_error *e);
/* free what results_load returned (NULL: nothing) */
void results_free(struct results *r);
/* the one called name of v[0 .. n) (a variant's params, the results' sizes), or NULL */
const struct results_val *results_find(const struct results_val *v, size_t n, const char *name);
/* 1 if a and b were tuned with the same sizes */
int results_same_sizes(const struct results *a, const struct results *b);

#endif
