/*
 * reduction_ref: reference for reduction.cu. One block of 1024 threads: each thread sums a
 * strided slice in double, then a double tree in shared memory; out[0] = (float)sum.
 * Compiled without parameter macros; launch with block 1024, grid 1.
 */

extern "C" __global__ void reduction_ref(float *out, const float *in, int n)
{
	__shared__ double s[1024];
	const int t = threadIdx.x;
	double acc = 0.0;
	for (long long i = t; i < n; i += 1024)
		acc += (double)in[i];
	s[t] = acc;
	__syncthreads();
	for (int d = 512; d > 0; d >>= 1) {
		if (t < d)
			s[t] += s[t + d];
		__syncthreads();
	}
	if (t == 0)
		out[0] = (float)s[0];
}
