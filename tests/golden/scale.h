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
#endif

/* launch geometry of scale for the given problem size:
     scale<<<dim3(grid[0], grid[1], grid[2]), dim3(block[0], block[1], block[2]), shared_bytes>>>(out, in, n);
   above 48 KiB of dynamic shared memory, first call cudaFuncSetAttribute(kernel,
   cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes). */
static inline void scale_launch(long long n, unsigned block[3], unsigned grid[3], unsigned *shared_bytes)
{
	(void)n;
	block[0] = (unsigned)64LL;
	block[1] = (unsigned)1LL;
	block[2] = (unsigned)1LL;
	grid[0] = (unsigned)tuner_ceil_div(n, (64LL * 1LL));
	grid[1] = (unsigned)1LL;
	grid[2] = (unsigned)1LL;
	*shared_bytes = (unsigned)0LL;
}

/* values of __constant__ bias (cudaMemcpyToSymbol) */
static const float scale_bias_values[1] = {
	0.25f
};

#endif
