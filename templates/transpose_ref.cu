/*
 * transpose_ref: reference for transpose.cu, one thread per element, no shared memory:
 * out[j * rows + i] = in[i * cols + j]. Compiled without parameter macros; any 2-D launch
 * works (the loops cover what the grid does not).
 */

extern "C" __global__ void transpose_ref(float *out, const float *in, int rows, int cols)
{
	for (long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y; i < rows;
	     i += (long long)gridDim.y * blockDim.y)
		for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < cols;
		     j += (long long)gridDim.x * blockDim.x)
			out[j * rows + i] = in[i * cols + j];
}
