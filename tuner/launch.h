/* launch: a kernel's arguments and geometry evaluated for one launch, and the launches. */
#ifndef TUNER_LAUNCH_H
#define TUNER_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include "gpu.h"

struct arg;
struct devbufs;
struct gpu_info;
struct vars;

/* a launch ready to go: function, geometry, parameters */
struct launchp {
	CUfunction f;
	unsigned grid[3], block[3], shared;
	void **params;
	union argval {
		CUdeviceptr p;
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		uint64_t u64;
		float f32;
		double f64;
		size_t z;
	} *vals;
	size_t nargs;
	const struct devbufs *bufs; /* where the buffers to refill are (launch_refill) */
	size_t *refill;           /* the config's buffers among the args with refill: launch */
	size_t nrefill;
};

/* f with args evaluated under v (a buffer argument is its device pointer in bufs) and the
   geometry checked, into lp, with the buffers launch_refill fills; shared memory beyond gpu's
   default per-block limit is opted into on f. 0, or -1 with why (*rc: the failing call's
   CUresult, or success) and lp empty */
int launch_make(struct launchp *lp, const struct devbufs *bufs, const struct gpu_info *gpu,
                CUfunction f, const struct arg *args, size_t nargs, const struct vars *v,
                const int64_t block[3], const int64_t grid[3], int64_t shared, CUresult *rc,
                char *why, size_t whylen);
/* enqueue lp on the default stream */
CUresult launch_run(const struct launchp *lp);
/* enqueue the fills of lp's buffers with refill: launch, to go before each launch_run of lp
   (and before any L2 flush and timing event of it) */
CUresult launch_refill(const struct launchp *lp);
/* free lp's parameters and zero it */
void launch_free(struct launchp *lp);

#endif
