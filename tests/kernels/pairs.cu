/*
 * pairs: out[i] = 2 * in[i] + 1, each thread two neighbouring elements. Parameters: BLOCK
 * threads per block; TAIL 1 writes the last element of an odd n alone, TAIL 0 leaves it out
 * (the bug the extra verification sizes find). Launch: block BLOCK, grid ceil_div(n, 2 * BLOCK).
 */

#if !defined(BLOCK) || !defined(TAIL)
#error "pairs.cu: BLOCK and TAIL must be defined"
#endif

extern "C" __global__ void __launch_bounds__(BLOCK)
pairs(float *out, const float *in, int n)
{
	const long long i = 2 * ((long long)blockIdx.x * BLOCK + threadIdx.x);

	if (i + 1 < n) {
		out[i] = 2.0f * in[i] + 1.0f;
		out[i + 1] = 2.0f * in[i + 1] + 1.0f;
	}
#if TAIL
	else if (i < n) {
		out[i] = 2.0f * in[i] + 1.0f;
	}
#endif
}
