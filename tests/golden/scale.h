/*
 * scale variant v21e58637, emitted by tuner 0.1 on 2026-01-01T00:00:00Z.
 * config: tests/kernels/scale.yaml
 * parameters: BLOCK=64 UNROLL=1
 * sizes: n=4099
 * NVRTC 13.0, compiled for sm_90: 12 registers, 0 bytes spilled, 0 bytes static + 0 bytes dynamic shared memory
 * NOT TIMED and NOT VERIFIED: libcuda.so.1 not found (no NVIDIA driver installed)
 */
#ifndef TUNER_SCALE_V21E58637_H
#define TUNER_SCALE_V21E58637_H

/* parameters of this variant */
#define SCALE_BLOCK 64
#define SCALE_UNROLL 1

#ifndef TUNER_HELPERS
#define TUNER_HELPERS
static inline long long tuner_ceil_div(long long a, long long b)
{
	return a / b + ((a % b != 0) && ((a < 0) == (b < 0)));
}
static inline long long tuner_min(long long a, long long b) { return a < b ? a : b; }
static inline long long tuner_max(long long a, long long b) { return a > b ? a : b; }
static inline long long tuner_log2(long long a)
{
	long long r = -1;
	while (a > 0) {
		a >>= 1;
		r++;
	}
	return r;
}
/* what a buffer is to the kernel */
enum tuner_role {
	TUNER_ROLE_IN,      /* its input: the application's data */
	TUNER_ROLE_OUT,     /* written by the kernel */
	TUNER_ROLE_SCRATCH  /* the kernel's own: it must hold given values before the first launch */
};
#endif
#if defined(__CUDACC__) && !defined(TUNER_HELPERS_CUDA)
#define TUNER_HELPERS_CUDA
/* the multiprocessor count of the current device (0 if the runtime cannot tell) */
static inline long long tuner_device_sms(void)
{
	int d = 0, n = 0;

	if (cudaGetDevice(&d) != cudaSuccess ||
	    cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, d) != cudaSuccess)
		return 0;
	return n;
}
#endif

/* launch geometry of scale for the given problem size on a GPU with sms multiprocessors
   (cudaDevAttrMultiProcessorCount; tuner_device_sms() reads the current device's):
     scale<<<dim3(grid[0], grid[1], grid[2]), dim3(block[0], block[1], block[2]), shared_bytes>>>(out, in, n);
   above 48 KiB of dynamic shared memory, first call cudaFuncSetAttribute(kernel,
   cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes). */
static inline void scale_launch(long long n, long long sms, unsigned block[3], unsigned grid[3], unsigned *shared_bytes)
{
	const long long SMS = sms;

	(void)n;
	(void)SMS;
	block[0] = (unsigned)64LL;
	block[1] = (unsigned)1LL;
	block[2] = (unsigned)1LL;
	grid[0] = (unsigned)tuner_ceil_div(n, (64LL * 1LL));
	grid[1] = (unsigned)1LL;
	grid[2] = (unsigned)1LL;
	*shared_bytes = (unsigned)0LL;
}

/* the buffers, in the config's order: for each buffer BUF, scale_BUF_count() is its element count
   for the problem size and the multiprocessor count, SCALE_BUF_ROLE its role (enum tuner_role)
   and SCALE_BUF_ZERO 1 when it must be all zero before the first launch */

/* in (float, argument 2): in, the kernel's input: the application's data */
#define SCALE_IN_ROLE TUNER_ROLE_IN
#define SCALE_IN_ZERO 0
static inline long long scale_in_count(long long n, long long sms)
{
	const long long SMS = sms;

	(void)n;
	(void)SMS;
	return n;
}

/* out (float, argument 1): out, written by the kernel */
#define SCALE_OUT_ROLE TUNER_ROLE_OUT
#define SCALE_OUT_ZERO 0
static inline long long scale_out_count(long long n, long long sms)
{
	const long long SMS = sms;

	(void)n;
	(void)SMS;
	return n;
}

/* values of __constant__ bias, to set before the first launch:
   cudaMemcpyToSymbol(bias, scale_bias_values, sizeof scale_bias_values) */
static const float scale_bias_values[1] = {
	0.25f
};

#endif
