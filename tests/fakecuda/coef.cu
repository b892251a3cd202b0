/*
 * fake_coef for coef.yaml (its reference: fake_ref.cu): out[i] = a * in[i] + b, a float and b
 * a double argument. NVRTC compiles it as for a GPU; the fake driver (cuda.c) runs its own
 * host copy of it by name.
 */

extern "C" __global__ void fake_coef(float *out, const float *in, int n, float a, double b)
{
	const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = (float)(a * in[i] + b);
}
