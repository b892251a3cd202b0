/*
 * winner.cu: the tuner's emitted winner of one kernel, behind a plain host function, so that
 * bench/compare/compare.cu can time it in the same process as its baselines. Built once per kernel:
 *   nvcc -c -DWIN_FILTER21 -DWIN_SRC='"out/.../best.cu"' -DWIN_HDR='"out/.../best.h"' winner.cu
 * (or WIN_TRANSPOSE, WIN_REDUCTION). best.cu defines the kernel, its parameter macros and its
 * __constant__ symbols; best.h the launch geometry (for the multiprocessor count of the GPU it
 * runs on) and the buffers' sizes; each lives in its own translation unit
 * because the three kernels' macros (BLOCK, VEC, ...) clash.
 */
#include <cuda_runtime.h>

#include "winner.h"

#include WIN_SRC
#include WIN_HDR

static cudaError_t allow_smem(const void *f, unsigned smem)
{
	if (smem <= 48 * 1024)
		return cudaSuccess;
	return cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
}

#if defined(WIN_FILTER21)
extern "C" cudaError_t win_filter21(float *out, const float *in, int n, cudaStream_t st)
{
	static int coef_set;
	unsigned b[3], g[3], smem;
	cudaError_t e;

	if (!coef_set) {
		if ((e = cudaMemcpyToSymbol(coef, filter21_coef_values, sizeof filter21_coef_values)) != cudaSuccess)
			return e;
		coef_set = 1;
	}
	filter21_launch(n, tuner_device_sms(), b, g, &smem);
	if ((e = allow_smem((const void *)filter21, smem)) != cudaSuccess)
		return e;
	filter21<<<dim3(g[0], g[1], g[2]), dim3(b[0], b[1], b[2]), smem, st>>>(out, in, n);
	return cudaGetLastError();
}
#elif defined(WIN_TRANSPOSE)
extern "C" cudaError_t win_transpose(float *out, const float *in, int rows, int cols, cudaStream_t st)
{
	unsigned b[3], g[3], smem;
	cudaError_t e;

	transpose_launch(rows, cols, tuner_device_sms(), b, g, &smem);
	if ((e = allow_smem((const void *)transpose, smem)) != cudaSuccess)
		return e;
	transpose<<<dim3(g[0], g[1], g[2]), dim3(b[0], b[1], b[2]), smem, st>>>(out, in, rows, cols);
	return cudaGetLastError();
}
#elif defined(WIN_REDUCTION)
extern "C" unsigned win_reduction_blocks(int n)
{
	unsigned b[3], g[3], smem;

	reduction_launch(n, tuner_device_sms(), b, g, &smem);
	return g[0];
}

extern "C" void win_reduction_geometry(int n, unsigned block[3], unsigned grid[3], unsigned *smem)
{
	reduction_launch(n, tuner_device_sms(), block, grid, smem);
}

extern "C" void win_reduction_scratch(int n, size_t *partials, size_t *counters)
{
	const long long sms = tuner_device_sms();

	*partials = (size_t)reduction_partials_count(n, sms); /* as best.h says: both zeroed */
	*counters = (size_t)reduction_counter_count(n, sms);
}

extern "C" cudaError_t win_reduction(float *out, const float *in, float *partials,
                                     unsigned *counter, int n, cudaStream_t st)
{
	unsigned b[3], g[3], smem;
	cudaError_t e;

	reduction_launch(n, tuner_device_sms(), b, g, &smem);
	if ((e = allow_smem((const void *)reduction, smem)) != cudaSuccess)
		return e;
	reduction<<<dim3(g[0], g[1], g[2]), dim3(b[0], b[1], b[2]), smem, st>>>(out, in, partials,
	                                                                          counter, n);
	return cudaGetLastError();
}
#else
#error "winner.cu: define WIN_FILTER21, WIN_TRANSPOSE or WIN_REDUCTION"
#endif
