/* counters: hardware counters of kernel launches through CUPTI's range profiler (dlopen'd). */
#ifndef TUNER_COUNTERS_H
#define TUNER_COUNTERS_H

#include <stddef.h>
#include <cuda.h> /* types only */

/* the shared-memory counters --counters reads, in this order (COUNTERS_SMEM of them):
   load requests, load wavefronts, load bank conflicts, then the same three for stores.
   Two sets: requests as warp instructions executed with an active lane (the SASS counter
   Nsight Compute shows), and, where that one is not offered, as instructions issued. */
#define COUNTERS_SMEM 6
#define COUNTERS_SETS 2
extern const char *const counters_smem[COUNTERS_SETS][COUNTERS_SMEM];

struct counters;

/* load libcupti (TUNER_CUPTI, else the toolkit's copy beside NVRTC, else the loader's search)
   and set up the range profiler on ctx, the current context of device `ordinal`, for the
   metrics names[0..n) (every kernel launched between counters_start and counters_stop is one
   range; the profiler replays a kernel when the metrics need several passes).
   NULL with why if CUPTI is missing, the GPU is not supported or profiling is not allowed. */
struct counters *counters_open(CUcontext ctx, int ordinal, const char *const *names, size_t n,
                               char *why, size_t whylen);
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
