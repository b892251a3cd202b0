/*
 * scale: out[i] = 3 * in[i] + bias, a minimal kernel for the tests: it needs no change to the
 * tuner's C code, only this template, its reference and scale.yaml.
 * Parameters (prepended by the tuner; no defaults): BLOCK threads per block, UNROLL elements
 * per thread (BLOCK apart). Launch: block BLOCK, grid ceil_div(n, BLOCK * UNROLL).
 */

#if !defined(BLOCK) || !defined(UNROLL)
#error "scale.cu: BLOCK and UNROLL must be defined"
#endif

__constant__ float bias;

extern "C" __global__ void __launch_bounds__(BLOCK)
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
