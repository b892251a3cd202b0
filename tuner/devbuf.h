/* devbuf: a config's buffers on the device: allocation, fills, poison, and the comparison of
   the outputs with the reference's. */
#ifndef TUNER_DEVBUF_H
#define TUNER_DEVBUF_H

#include <stddef.h>

#include "gpu.h"
#include "spec.h" /* enum elem */

struct vars;

/* one config buffer on the device */
struct dbuf {
	CUdeviceptr d;
	CUdeviceptr ref;          /* out: the reference's outputs */
	CUdeviceptr list;         /* in, scratch: a list fill's values as doubles */
	size_t count;             /* elements in use */
	size_t bytes;             /* allocated */
};

/* a config's buffers, and the helper kernels that fill and compare them */
struct devbufs {
	const struct config *c;
	int sms;                  /* the device's multiprocessors, for grid sizes */
	struct dbuf *buf;         /* one per config buffer */
	CUdeviceptr res;          /* the comparison's results, one per config buffer */
	CUfunction fill;          /* the helpers' tuner_fill */
	CUfunction cmp[EL_U64 + 1]; /* the helpers' comparison kernels, by element type */
};

/* what devbuf_compare found over the out buffers */
struct cmp_sum {
	size_t bad, total;        /* elements outside tolerance, elements compared */
	double maxabs, maxrel;    /* the largest absolute and relative errors */
	char first[200];          /* the first failing element: "out[7]: 0.5 vs 0.25" */
	const char *unwritten;    /* an output of which every element still holds the poison */
};

/* allocate `bytes` of GPU memory for `what` into *d (0 when bytes is 0); 0, or -1 with why */
int devbuf_alloc(CUdeviceptr *d, size_t bytes, const char *what, char *why, size_t whylen);
/* free *d (while the driver is loaded) and zero it */
void devbuf_free(CUdeviceptr *d);
/* element count and bytes of a buffer or constant (kind "buffer" or "constant") whose count is
   e under v; 0, or -1 with why */
int devbuf_count(const char *kind, const char *name, const struct expr *e, enum elem t,
                 const struct vars *v, size_t *count, size_t *bytes, char *why, size_t whylen);
/* allocate c's buffers at sizes (out buffers twice: the second for the reference's outputs),
   scratch buffers excepted, the fill lists and the comparison's results; 0, or -1 with why and
   nothing left allocated */
int devbuf_open(struct devbufs *d, const struct config *c, const struct vars *sizes, int sms,
                char *why, size_t whylen);
/* fill the in buffers on the device, wait, and check elements 0, n/2 and n-1 of each against
   bench_fill_host; 0, or -1 with why (*rc: the failing call's CUresult, or success) */
int devbuf_fill(struct devbufs *d, CUresult *rc, char *why, size_t whylen);
/* (re)allocate the scratch buffers that args use, with their counts under v, and enqueue their
   fills, and those of the in buffers they use with refill: variant; 0, or -1 with why (*rc as
   for devbuf_fill) */
int devbuf_scratch(struct devbufs *d, const struct arg *args, size_t nargs,
                   const struct vars *v, CUresult *rc, char *why, size_t whylen);
/* enqueue buffer k's fill over the elements in use (its refill: launch) */
CUresult devbuf_refill(const struct devbufs *d, size_t k);
/* enqueue 0xFF bytes over the out buffers: NaN for floats, -1 / max for integers */
CUresult devbuf_poison(const struct devbufs *d);
/* copy the out buffers to the reference's copies, and wait */
CUresult devbuf_keep(const struct devbufs *d);
/* compare every out buffer with the reference's copy on the device into *s; a failing call
   returns its CUresult with msg set */
CUresult devbuf_compare(const struct devbufs *d, struct cmp_sum *s, char *msg, size_t msglen);
/* free the buffers (harmless twice) */
void devbuf_close(struct devbufs *d);

/* host formula of the device fill: elements [first, first + n) of fill f as type t into p
   (p[0] is element `first`); element i of a random fill is lo + (hi - lo) * u, u the top 53
   bits of splitmix64's output for state seed + (i + 1) * 0x9e3779b97f4a7c15, over 2^53 */
void bench_fill_host(void *p, size_t first, size_t n, enum elem t, const struct fill *f);

#endif
