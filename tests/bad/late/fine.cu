// A template that compiles; compile_wrong_entry.yaml names a kernel it does not define.
extern "C" __global__ void good(float *out, const float *in, int n)
{
	int i = blockIdx.x * BLOCK + threadIdx.x + PAD * 0;
	if (i < n)
		out[i] = in[i];
}
