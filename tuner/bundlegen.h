/* bundlegen: a bundle's header and source text from the entries bundle.c chose (the bundle's
   own types, shared by the two). */
#ifndef TUNER_BUNDLEGEN_H
#define TUNER_BUNDLEGEN_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"
#include "vars.h"

struct config;
struct results_variant;
struct tuned;

/* the entry for the sizes strictly between two points of one GPU, next to each other by the
   bytes moved: the variant timed at both whose worse ratio to the fastest there is best */
struct between {
	size_t lo_g, hi_g;        /* the two points' entries (indices in the bundle's g) */
	size_t k;                 /* its kernel, in the bundle's k */
	const struct results_variant *r; /* its row at the lower point */
	double lo, hi;            /* the bytes it moves at the two points */
	double worst;             /* its lower ratio of the two: fastest / its median */
	long v;                   /* its row in the first GPU's rows (the med table's column) */
};

/* one distinct kernel of the bundle */
struct kvar {
	const char *id;
	int64_t *vals;            /* one per config parameter */
	char *params;             /* "BLOCK=256 PAD=1" */
};

struct bundle {
	const char *dir;
	char *kernel;
	struct tuned *g;          /* the timed GPUs, ordered by compute capability (newest first),
	                             then name */
	size_t ng;
	struct config *c;         /* the first GPU's config: every GPU's is the same text */
	struct vars sizes;        /* the sizes tuned with (the first GPU's) */
	struct kvar *k;
	size_t nk;
	size_t *win;              /* per GPU: its winner's index in its rows */
	size_t *kof;              /* per GPU: its winner's index in k */
	size_t kportable;
	double *work;             /* per GPU: the bytes its winner moves at the sizes tuned at */
	double *rel;              /* per pair of entries a, k of one GPU (a * ng + k): k's winner's
	                             median at a's sizes over the fastest there (0: not timed
	                             there, or another GPU) */
	struct between *bt;       /* the entries for sizes between two points */
	size_t nbt;
	double *relb;             /* per point entry a and between entry j (a * nbt + j): j's
	                             kernel's median at a's sizes over the fastest there (0: not
	                             timed there, or another GPU) */
	int sized;                /* a GPU was tuned at several points */
	const char *base;         /* the files' name: "<kernel>_bundle", or "best" */
	double worst;             /* the portable default's worst ratio to a GPU's best (0: none
	                             timed on every GPU) */
	struct buf flags;         /* what the header comment must say: changed files, ... */
};

/* v: the sizes g was tuned with (as its results.json records them) */
void bundlegen_sizes(const struct bundle *b, const struct tuned *g, struct vars *v);
/* "n=4099 m=7" (malloc'd): the same as text */
char *bundlegen_sizes_str(const struct bundle *b, const struct tuned *g);
/* the comment that opens both files: what the bundle holds, where from, how to use it */
void bundlegen_provenance(struct buf *o, const struct bundle *b, const char *date);
/* the header: the entries, the selection, geometry, buffers, the launch's declaration */
void bundlegen_header(struct buf *o, const struct bundle *b);
/* the source: each kernel in its namespace, the setup and launch by entry */
void bundlegen_source(struct buf *o, const struct bundle *b);

/* the alignment of every __constant__ of a bundle's namespaces, as text */
#define BUNDLE_CONSTANT_ALIGN "64"
/* tmpl as it goes into a namespace of the bundle, appended to body: extern "C" linkage becomes
   extern "C++" (each copy's kernel is then its namespace's own), each __constant__ is aligned
   to BUNDLE_CONSTANT_ALIGN bytes, #include lines are commented out and appended to includes
   (once, for above the namespaces), and one "#undef NAME" line per macro the template defines
   is appended to undefs */
void bundle_template(const char *tmpl, struct buf *body, struct buf *includes,
                     struct buf *undefs);

#endif
