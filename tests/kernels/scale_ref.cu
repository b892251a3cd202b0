/* scale_ref: reference for scale.cu, one thread per element, double arithmetic. */

__constant__ float bias;

extern "C" __global__ void scale_ref(float *out, const float *in, int n)
{
	const int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = (float)(3.0 * (double)in[i] + (double)bias);
}
