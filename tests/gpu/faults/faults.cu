/* Reverse each 1024-element block through shared memory, with a defect chosen by DEFECT. */
#ifndef DEFECT
#error "faults.cu: DEFECT must be defined"
#endif

extern "C" __global__ void reverse(float *out, const float *in, int n)
{
	extern __shared__ float s[];
	const int t = threadIdx.x, base = blockIdx.x * 1024;

	s[t] = base + t < n ? in[base + t] : 0.0f;
#if DEFECT == 2
	while (clock64() != 0) /* never ends */
		if (s[t] == 12345.0f)
			out[0] = s[t];
#endif
#if DEFECT != 3
	__syncthreads();
#endif
	if (base + t < n) {
		const long long i = base + t;
		const float v = base + 1023 - t < n ? s[1023 - t] : 0.0f;
#if DEFECT == 1
		out[i + (1LL << 36)] = v; /* 256 GiB past the buffer */
#elif DEFECT == 4
		(void)v; /* never writes its output */
#else
		out[i] = v;
#endif
	}
}
