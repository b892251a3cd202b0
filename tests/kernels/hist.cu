/*
 * hist: bins[v] += the number of elements of data equal to v (0 <= v < 256), counted with
 * atomicAdd onto what bins holds: the config has the tuner zero bins before every launch.
 * Parameters: BLOCK threads per block, PRIVATE 1 for a per-block histogram in shared memory
 * merged with one atomicAdd per bin, 0 for an atomicAdd per element. Any grid: the threads
 * stride over data.
 */

#if !defined(BLOCK) || !defined(PRIVATE)
#error "hist.cu: BLOCK and PRIVATE must be defined"
#endif

extern "C" __global__ void __launch_bounds__(BLOCK)
hist(unsigned int *bins, const unsigned int *data, int n)
{
	const long long step = (long long)gridDim.x * BLOCK;
	long long i = (long long)blockIdx.x * BLOCK + threadIdx.x;
#if PRIVATE
	__shared__ unsigned int s[256];

	for (int b = threadIdx.x; b < 256; b += BLOCK)
		s[b] = 0;
	__syncthreads();
	for (; i < n; i += step)
		atomicAdd(&s[data[i] & 255u], 1u);
	__syncthreads();
	for (int b = threadIdx.x; b < 256; b += BLOCK)
		if (s[b])
			atomicAdd(&bins[b], s[b]);
#else
	for (; i < n; i += step)
		atomicAdd(&bins[data[i] & 255u], 1u);
#endif
}
