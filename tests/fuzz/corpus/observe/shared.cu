/*
 * fake_pairs for shared.yaml: pairs.cu's kernel, with SPREAD seen only by an #if (1 apart
 * from the rest), so that SPREAD 2 and 3 preprocess alike and are compiled once. The fake
 * driver runs its own host copy of fake_pairs by name.
 */
#if SPREAD == 1
#define LAYOUT 0
#else
#define LAYOUT 1
#endif

extern "C" __global__ void __launch_bounds__(BLOCK) fake_pairs(float *out, const float *in,
                                                                 int n, int tail)
{
	const long long i = 2 * ((long long)blockIdx.x * blockDim.x + threadIdx.x);

	if (tail != TAIL || LAYOUT < 0)
		return;
	if (i + 1 < n) {
		out[i] = 2.0f * in[i] + 1.0f;
		out[i + 1] = 2.0f * in[i + 1] + 1.0f;
	} else if (tail && i < n) {
		out[i] = 2.0f * in[i] + 1.0f;
	}
}
