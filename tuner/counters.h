/* counters: hardware counters of kernel launches through CUPTI's range profiler (dlopen'd). */
#ifndef TUNER_COUNTERS_H
#define TUNER_COUNTERS_H

#include <stddef.h>
#include <cuda.h> /* types only */

/*
 * The shared-memory counters --counters reads, in this order (up to COUNTERS_SMEM):
 *   0-2 loads: requests, wavefronts of the L1 data pipeline, its bank conflicts;
 *   3-5 the same for stores;
 *   6-7 wavefronts of loads and stores as the instructions' addresses need them (SASS-level:
 *       what Nsight Compute's source view shows), where the GPU offers them.
 * Requests are warp instructions executed (SASS-level) or, in the second set, where those are
 * not offered, instructions issued. The pipeline's counts include wavefronts lost to other L1
 * traffic at the same time (docs/bank-model.md); the SASS-level ones are the addresses' own.
 * A set ends at its first NULL.
 */
#define COUNTERS_SMEM 8
/* the slots of those values: per op (0 loads, 1 stores) CNT_SLOT(op, CNT_REQUESTS) and so on,
   then CNT_SASS(op); every set has the first CNT_BASE */
enum { CNT_REQUESTS, CNT_WAVEFRONTS, CNT_CONFLICTS, CNT_PER_OP };
#define CNT_SLOT(op, what) ((op) * CNT_PER_OP + (what))
#define CNT_BASE (2 * CNT_PER_OP)
#define CNT_SASS(op) (CNT_BASE + (op))
_Static_assert(CNT_SASS(1) + 1 == COUNTERS_SMEM, "the slots name every counter");
#define COUNTERS_SETS 2
extern const char *const counters_smem[COUNTERS_SETS][COUNTERS_SMEM];
/* the number of names in set (0-based) */
int counters_set_len(int set);

struct counters;

/* load libcupti (TUNER_CUPTI, else the toolkit's copy beside NVRTC, else the loader's search)
   and set up the range profiler on ctx, the current context of device `ordinal`, for the
   metrics names[0..n) (every kernel launched between counters_start and counters_stop is one
   range; the profiler replays a kernel when the metrics need several passes).
   NULL with why if CUPTI is missing, the GPU is not supported or profiling is not allowed. */
struct counters *counters_open(CUcontext ctx, int ordinal, const char *const *names, size_t n,
                               char *why, size_t whylen);
/* the number of metrics k reads */
int counters_count(const struct counters *k);
/* passes the metrics need per kernel (1: no replay) */
int counters_passes(const struct counters *k);
/* begin counting; 0 or -1 with why */
int counters_start(struct counters *k, char *why, size_t whylen);
/* end counting (after the launches have finished): vals[0..n) summed over the kernels launched
   since counters_start; returns how many kernels were counted, or -1 with why */
int counters_stop(struct counters *k, double *vals, char *why, size_t whylen);
/* disable the profiler and free k (NULL is fine) */
void counters_close(struct counters *k);

#endif
