/*
 * fake_hist for hist.yaml (its reference: fake_ref.cu): bins[v] += the elements of data equal
 * to v (mod 256), onto what bins holds. NVRTC compiles it as for a GPU; the fake driver
 * (cuda.c) runs its own host copy of it by name.
 */

extern "C" __global__ void fake_hist(unsigned int *bins, const unsigned int *data, int n)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (long long)gridDim.x * blockDim.x)
		atomicAdd(&bins[data[i] & 255u], 1u);
}
