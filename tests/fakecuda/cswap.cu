/*
 * fake_cswap for cswap.yaml (its reference: fake_ref.cu): out[i] = (in[i].y, 2 in[i].x) on
 * float2 elements; with BUG 1 the .y component is in[i].x, a mismatch in one component only.
 * NVRTC compiles it as for a GPU; the fake driver (cuda.c) runs its own host copy of it by name.
 */

/* bug repeats BUG, for the fake driver, which sees arguments and not macros */
extern "C" __global__ void fake_cswap(float2 *out, const float2 *in, int n, int bug)
{
	const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;

	if (bug != BUG || i >= n)
		return;
	out[i] = make_float2(in[i].y, bug ? in[i].x : 2.0f * in[i].x);
}
