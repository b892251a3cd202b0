/*
 * filter21_ref: reference for filter21.cu. One thread per output, double accumulation:
 * out[i] = (float) sum_{k=0..20} coef[k] * in[i + k], 0 <= i < n; `in` holds n + 20 elements.
 * Compiled without parameter macros; launch with any 1-D geometry covering n.
 */

__constant__ float coef[21];

extern "C" __global__ void filter21_ref(float *out, const float *in, int n)
{
	const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	double acc = 0.0;
	for (int k = 0; k < 21; k++)
		acc += (double)coef[k] * (double)in[i + k];
	out[i] = (float)acc;
}
