/*
 * stencil2d_ref: reference for stencil2d.cu. One thread per cell, global memory only:
 *   out[y][x] = sum_{a=0..4} sum_{b=0..4} coef[a * 5 + b] * in[y + a - 2][x + b - 2]
 * with the cells outside the grid read as 0. The sum is the template's: fmaf from 0.0f, a outer,
 * b inner, the outside cells included as zeros, so every variant matches it exactly.
 * Compiled without parameter macros; any 2-D launch works (the loops cover what the grid does
 * not).
 */

__constant__ float coef[25];

extern "C" __global__ void stencil2d_ref(float *out, const float *in, int nx, int ny)
{
	for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < ny; y += gridDim.y * blockDim.y)
		for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < nx; x += gridDim.x * blockDim.x) {
			float acc = 0.0f;
			for (int a = 0; a < 5; a++)
				for (int b = 0; b < 5; b++) {
					const int yy = y + a - 2, xx = x + b - 2;
					const float v = yy >= 0 && yy < ny && xx >= 0 && xx < nx
					                        ? in[(long long)yy * nx + xx] : 0.0f;
					acc = fmaf(coef[a * 5 + b], v, acc);
				}
			out[(long long)y * nx + x] = acc;
		}
}
