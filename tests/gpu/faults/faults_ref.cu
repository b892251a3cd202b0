/* Reference for faults.cu: out[b*1024 + t] = in[b*1024 + 1023 - t] where that exists. */
extern "C" __global__ void reverse_ref(float *out, const float *in, int n)
{
	const int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n) {
		const int b = i / 1024, t = i % 1024, j = b * 1024 + 1023 - t;
		out[i] = j < n ? in[j] : 0.0f;
	}
}
