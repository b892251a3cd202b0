/*
 * fake_pairs for pairs.yaml (its reference: fake_ref.cu): out[i] = 2 in[i] + 1, two elements
 * per thread; the last element of an odd n is written only with TAIL (the bug the extra
 * verification sizes find). NVRTC compiles it as for a GPU; the fake driver (cuda.c) runs its
 * own host copy of it by name.
 */

/* tail repeats TAIL, for the fake driver, which sees arguments and not macros */
extern "C" __global__ void fake_pairs(float *out, const float *in, int n, int tail)
{
	const long long i = 2 * ((long long)blockIdx.x * blockDim.x + threadIdx.x);

	if (tail != TAIL)
		return;
	if (i + 1 < n) {
		out[i] = 2.0f * in[i] + 1.0f;
		out[i + 1] = 2.0f * in[i + 1] + 1.0f;
	} else if (tail && i < n) {
		out[i] = 2.0f * in[i] + 1.0f;
	}
}
