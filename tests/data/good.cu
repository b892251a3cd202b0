// A tiny template for the config loader's tests: out[i] = scale * sum of a window of in.
extern "C" __global__ void good(float *out, const float *in, int n, long long scale)
{
	int i = blockIdx.x * BLOCK + threadIdx.x;
	if (i < n) {
		float s = 0;
		for (int k = 0; k < 3 + PAD; k++)
			s += in[i + k];
		out[i] = (float)scale * s;
	}
}

extern "C" __global__ void good_ref(float *out, const float *in, int n, long long scale)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		double s = 0;
		for (int k = 0; k < 3; k++)
			s += in[i + k];
		out[i] = (float)((double)scale * s);
	}
}
