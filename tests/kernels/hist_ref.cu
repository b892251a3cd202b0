/* hist_ref: reference for hist.cu, one thread per element, an atomicAdd each. */

extern "C" __global__ void hist_ref(unsigned int *bins, const unsigned int *data, int n)
{
	const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		atomicAdd(&bins[data[i] & 255u], 1u);
}
