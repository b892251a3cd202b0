/* The tuner's winners behind host functions (bench/compare/winner.cu), for bench/compare/compare.cu. */
#ifndef TUNER_BENCH_WINNER_H
#define TUNER_BENCH_WINNER_H

#include <cuda_runtime.h>

extern "C" {
/* filter21 winner: out[0 .. n) from in[0 .. n + 20), coefficients of configs/filter21.yaml */
cudaError_t win_filter21(float *out, const float *in, int n, cudaStream_t st);
/* transpose winner: out (cols x rows) = in (rows x cols)^T */
cudaError_t win_transpose(float *out, const float *in, int rows, int cols, cudaStream_t st);
/* reduction winner: blocks it launches for n */
unsigned win_reduction_blocks(int n);
/* reduction winner: its launch for n (best.h's reduction_launch on this GPU) */
void win_reduction_geometry(int n, unsigned block[3], unsigned grid[3], unsigned *smem);
/* reduction winner: floats of partials and unsigned counters it needs for n */
void win_reduction_scratch(int n, size_t *partials, size_t *counters);
/* reduction winner: out[0] = sum in[0 .. n); the counters must start at 0 (the kernel resets
   them) */
cudaError_t win_reduction(float *out, const float *in, float *partials, unsigned *counter, int n,
                          cudaStream_t st);
}

#endif
