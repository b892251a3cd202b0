/*
 * scale bundle: the winners of 3 tuned GPUs and a portable default, side by side, and the
 * selection of the entry for the GPU an application runs on. Emitted by tuner 0.1 on 2026-01-01T00:00:00Z
 * from TMP/scale (each GPU's results.json and the config and template tuned with).
 * config: tests/kernels/scale.yaml (fnv1a64 1122c91597482699), template: tests/kernels/scale.cu (fnv1a64 3a663a8754132da2)
 *
 * entry  GPU, compute capability, multiprocessors: variant (parameters), median, GB/s, % of copy
 *     0  NVIDIA H100 80GB HBM3, 9.0, 132: v1d0b1d02 (BLOCK=256 UNROLL=1), 0.8000 ms, 0.0 GB/s, 0.0 %
 *     1  NVIDIA H200, 9.0, 132: v21e58637 (BLOCK=64 UNROLL=1), 0.8000 ms, 0.0 GB/s, 0.0 %
 *     2  NVIDIA A100-SXM4-80GB, 8.0, 108: v21eefa88 (BLOCK=64 UNROLL=2), 0.8000 ms, 0.0 GB/s, 0.0 %
 *     3  portable default: v4f76e4c1 (BLOCK=128 UNROLL=2), at least 95.2 % of each tuned GPU's best
 *
 * Compile scale_bundle.cu once into the application, for every architecture it holds:
 * nvcc flags: -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90
 * The last adds PTX that the driver compiles for GPUs newer than sm_90; a GPU older than
 * sm_80 runs the portable default only with its own, e.g. -gencode arch=compute_75,code=sm_75.
 * Use: scale_bundle_select_current(&choice) picks the entry for the current device (scale_bundle_select
 * for a description); scale_bundle_setup(entry) once per device; allocate the buffers (scale_bundle_BUF_count);
 * then scale_bundle_launch(entry, ...).
 */
#include "scale_bundle.h"

/* v1d0b1d02 (BLOCK=256 UNROLL=1): the winner on NVIDIA H100 80GB HBM3 */
namespace tuner_scale_v1d0b1d02 {
#define BLOCK 256
#define UNROLL 1
/*
 * scale: out[i] = 3 * in[i] + bias, a minimal kernel for the tests: it needs no change to the
 * tuner's C code, only this template, its reference and scale.yaml.
 * Parameters (prepended by the tuner; no defaults): BLOCK threads per block, UNROLL elements
 * per thread (BLOCK apart). Launch: block BLOCK, grid ceil_div(n, BLOCK * UNROLL).
 */

#if !defined(BLOCK) || !defined(UNROLL)
#error "scale.cu: BLOCK and UNROLL must be defined"
#endif

__constant__ __align__(64) float bias;

extern "C++" __global__ void __launch_bounds__(BLOCK)
scale(float *out, const float *in, int n)
{
	const int base = blockIdx.x * (BLOCK * UNROLL) + threadIdx.x;
#pragma unroll
	for (int u = 0; u < UNROLL; u++) {
		const int i = base + u * BLOCK;
		if (i < n)
			out[i] = 3.0f * in[i] + bias;
	}
}
#undef BLOCK
#undef UNROLL
} /* namespace tuner_scale_v1d0b1d02 */

/* v21e58637 (BLOCK=64 UNROLL=1): the winner on NVIDIA H200 */
namespace tuner_scale_v21e58637 {
#define BLOCK 64
#define UNROLL 1
/*
 * scale: out[i] = 3 * in[i] + bias, a minimal kernel for the tests: it needs no change to the
 * tuner's C code, only this template, its reference and scale.yaml.
 * Parameters (prepended by the tuner; no defaults): BLOCK threads per block, UNROLL elements
 * per thread (BLOCK apart). Launch: block BLOCK, grid ceil_div(n, BLOCK * UNROLL).
 */

#if !defined(BLOCK) || !defined(UNROLL)
#error "scale.cu: BLOCK and UNROLL must be defined"
#endif

__constant__ __align__(64) float bias;

extern "C++" __global__ void __launch_bounds__(BLOCK)
scale(float *out, const float *in, int n)
{
	const int base = blockIdx.x * (BLOCK * UNROLL) + threadIdx.x;
#pragma unroll
	for (int u = 0; u < UNROLL; u++) {
		const int i = base + u * BLOCK;
		if (i < n)
			out[i] = 3.0f * in[i] + bias;
	}
}
#undef BLOCK
#undef UNROLL
} /* namespace tuner_scale_v21e58637 */

/* v21eefa88 (BLOCK=64 UNROLL=2): the winner on NVIDIA A100-SXM4-80GB */
namespace tuner_scale_v21eefa88 {
#define BLOCK 64
#define UNROLL 2
/*
 * scale: out[i] = 3 * in[i] + bias, a minimal kernel for the tests: it needs no change to the
 * tuner's C code, only this template, its reference and scale.yaml.
 * Parameters (prepended by the tuner; no defaults): BLOCK threads per block, UNROLL elements
 * per thread (BLOCK apart). Launch: block BLOCK, grid ceil_div(n, BLOCK * UNROLL).
 */

#if !defined(BLOCK) || !defined(UNROLL)
#error "scale.cu: BLOCK and UNROLL must be defined"
#endif

__constant__ __align__(64) float bias;

extern "C++" __global__ void __launch_bounds__(BLOCK)
scale(float *out, const float *in, int n)
{
	const int base = blockIdx.x * (BLOCK * UNROLL) + threadIdx.x;
#pragma unroll
	for (int u = 0; u < UNROLL; u++) {
		const int i = base + u * BLOCK;
		if (i < n)
			out[i] = 3.0f * in[i] + bias;
	}
}
#undef BLOCK
#undef UNROLL
} /* namespace tuner_scale_v21eefa88 */

/* v4f76e4c1 (BLOCK=128 UNROLL=2): the portable default */
namespace tuner_scale_v4f76e4c1 {
#define BLOCK 128
#define UNROLL 2
/*
 * scale: out[i] = 3 * in[i] + bias, a minimal kernel for the tests: it needs no change to the
 * tuner's C code, only this template, its reference and scale.yaml.
 * Parameters (prepended by the tuner; no defaults): BLOCK threads per block, UNROLL elements
 * per thread (BLOCK apart). Launch: block BLOCK, grid ceil_div(n, BLOCK * UNROLL).
 */

#if !defined(BLOCK) || !defined(UNROLL)
#error "scale.cu: BLOCK and UNROLL must be defined"
#endif

__constant__ __align__(64) float bias;

extern "C++" __global__ void __launch_bounds__(BLOCK)
scale(float *out, const float *in, int n)
{
	const int base = blockIdx.x * (BLOCK * UNROLL) + threadIdx.x;
#pragma unroll
	for (int u = 0; u < UNROLL; u++) {
		const int i = base + u * BLOCK;
		if (i < n)
			out[i] = 3.0f * in[i] + bias;
	}
}
#undef BLOCK
#undef UNROLL
} /* namespace tuner_scale_v4f76e4c1 */

extern "C" int scale_bundle_select_current(struct tuner_choice *c)
{
	struct cudaDeviceProp p;
	struct tuner_gpu g;
	int dev;
	cudaError_t e;

	if ((e = cudaGetDevice(&dev)) != cudaSuccess ||
	    (e = cudaGetDeviceProperties(&p, dev)) != cudaSuccess) {
		c->entry = -1;
		c->rule = TUNER_PORTABLE;
		snprintf(c->reason, sizeof c->reason, "no device: %s", cudaGetErrorString(e));
		return -1;
	}
	g.name = p.name;
	g.cc_major = p.major;
	g.cc_minor = p.minor;
	g.sms = p.multiProcessorCount;
	return scale_bundle_select(&g, c);
}

extern "C" cudaError_t scale_bundle_setup(int entry)
{
	cudaError_t e;

	switch (entry >= 0 && entry < 4 ? scale_bundle_entries[entry].variant : -1) {
	case 0:
		if ((e = cudaMemcpyToSymbol(tuner_scale_v1d0b1d02::bias, scale_bundle_bias_values,
		                            sizeof scale_bundle_bias_values)) != cudaSuccess)
			return e;
		return cudaSuccess;
	case 1:
		if ((e = cudaMemcpyToSymbol(tuner_scale_v21e58637::bias, scale_bundle_bias_values,
		                            sizeof scale_bundle_bias_values)) != cudaSuccess)
			return e;
		return cudaSuccess;
	case 2:
		if ((e = cudaMemcpyToSymbol(tuner_scale_v21eefa88::bias, scale_bundle_bias_values,
		                            sizeof scale_bundle_bias_values)) != cudaSuccess)
			return e;
		return cudaSuccess;
	case 3:
		if ((e = cudaMemcpyToSymbol(tuner_scale_v4f76e4c1::bias, scale_bundle_bias_values,
		                            sizeof scale_bundle_bias_values)) != cudaSuccess)
			return e;
		return cudaSuccess;
	}
	return cudaErrorInvalidValue;
}

extern "C" cudaError_t scale_bundle_launch(int entry, float *out, float *in, long long n, cudaStream_t stream)
{
	const long long sms = tuner_device_sms(), SMS = sms;
	unsigned block[3], grid[3], smem;
	cudaError_t e;

	(void)SMS;
	if (sms < 1)
		return (e = cudaGetLastError()) != cudaSuccess ? e : cudaErrorNoDevice;
	scale_bundle_geometry(entry, n, sms, block, grid, &smem);
	switch (entry >= 0 && entry < 4 ? scale_bundle_entries[entry].variant : -1) {
	case 0:
		if (smem > 48 * 1024 &&
		    (e = cudaFuncSetAttribute(tuner_scale_v1d0b1d02::scale, cudaFuncAttributeMaxDynamicSharedMemorySize,
		                                  (int)smem)) != cudaSuccess)
			return e;
		tuner_scale_v1d0b1d02::scale<<<dim3(grid[0], grid[1], grid[2]), dim3(block[0], block[1], block[2]), smem,
			stream>>>(out, in, (int)(n));
		return cudaGetLastError();
	case 1:
		if (smem > 48 * 1024 &&
		    (e = cudaFuncSetAttribute(tuner_scale_v21e58637::scale, cudaFuncAttributeMaxDynamicSharedMemorySize,
		                                  (int)smem)) != cudaSuccess)
			return e;
		tuner_scale_v21e58637::scale<<<dim3(grid[0], grid[1], grid[2]), dim3(block[0], block[1], block[2]), smem,
			stream>>>(out, in, (int)(n));
		return cudaGetLastError();
	case 2:
		if (smem > 48 * 1024 &&
		    (e = cudaFuncSetAttribute(tuner_scale_v21eefa88::scale, cudaFuncAttributeMaxDynamicSharedMemorySize,
		                                  (int)smem)) != cudaSuccess)
			return e;
		tuner_scale_v21eefa88::scale<<<dim3(grid[0], grid[1], grid[2]), dim3(block[0], block[1], block[2]), smem,
			stream>>>(out, in, (int)(n));
		return cudaGetLastError();
	case 3:
		if (smem > 48 * 1024 &&
		    (e = cudaFuncSetAttribute(tuner_scale_v4f76e4c1::scale, cudaFuncAttributeMaxDynamicSharedMemorySize,
		                                  (int)smem)) != cudaSuccess)
			return e;
		tuner_scale_v4f76e4c1::scale<<<dim3(grid[0], grid[1], grid[2]), dim3(block[0], block[1], block[2]), smem,
			stream>>>(out, in, (int)(n));
		return cudaGetLastError();
	}
	return cudaErrorInvalidValue;
}
