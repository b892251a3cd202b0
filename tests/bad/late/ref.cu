// The reference kernel for tests/bad/late/no_compile.yaml: it compiles, the template does not.
extern "C" __global__ void good_ref(float *out, const float *in, int n, long long scale)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = (float)scale * (in[i] + in[i + 1] + in[i + 2]);
}
