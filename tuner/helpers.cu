/* tuner: helper kernels: copy and read rooflines, L2 flush, fills, output comparison */
typedef unsigned long long tuner_u64;

/* device copy roofline, 16-byte accesses, grid-stride */
extern "C" __global__ void tuner_copy(const float4 *__restrict__ in,
                                        float4 *__restrict__ out, size_t n)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		out[i] = in[i];
}

/* sum of v over the block (blockDim.x a multiple of 32), valid in thread 0 */
static __device__ float tuner_block_sum(float v)
{
	__shared__ float s[32];
	for (int d = 16; d > 0; d >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, d);
	if ((threadIdx.x & 31) == 0)
		s[threadIdx.x >> 5] = v;
	__syncthreads();
	v = threadIdx.x < (blockDim.x >> 5) ? s[threadIdx.x] : 0.0f;
	if (threadIdx.x < 32)
		for (int d = 16; d > 0; d >>= 1)
			v += __shfl_xor_sync(0xffffffffu, v, d);
	return v;
}

/* device read roofline: sums n float4, four 16-byte loads in flight per thread. With check,
   block b writes its sum to out[b]; without (the timed launches), nothing is written for
   inputs >= 0, so a grid of one float4 a thread is not timed with a block sum a block.
   Launched with 256 threads a block: the bounds hold it to 32 registers, so that 8 blocks fit
   on a multiprocessor (38 registers without them, 6 blocks: 1.4 % slower on the H100) */
extern "C" __global__ void __launch_bounds__(256, 8)
tuner_read(const float4 *__restrict__ in, size_t n, float *__restrict__ out, int check)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	float a = 0.0f, b = 0.0f, c = 0.0f, d = 0.0f;
	for (; i + 3 * stride < n; i += 4 * stride) {
		float4 x = __ldg(in + i), y = __ldg(in + i + stride);
		float4 z = __ldg(in + i + 2 * stride), w = __ldg(in + i + 3 * stride);
		a += (x.x + x.y) + (x.z + x.w);
		b += (y.x + y.y) + (y.z + y.w);
		c += (z.x + z.y) + (z.z + z.w);
		d += (w.x + w.y) + (w.z + w.w);
	}
	for (; i < n; i += stride) {
		float4 x = __ldg(in + i);
		a += (x.x + x.y) + (x.z + x.w);
	}
	a = (a + b) + (c + d);
	if (!check) {
		if (a == -1.0f) /* never (inputs >= 0): keeps the loads */
			out[blockIdx.x] = a;
		return;
	}
	a = tuner_block_sum(a);
	if (threadIdx.x == 0)
		out[blockIdx.x] = a;
}

/* holds the stream while the host queues a sample's launches, so that they reach the GPU back
   to back, without the host's launch cost between them: spins until flag[0] reaches want (the
   host's store to mapped memory); after timeout_ns of the GPU's clock it gives up and sets
   flag[1] to want, so that a host that never releases it cannot hang the run */
extern "C" __global__ void tuner_hold(volatile unsigned *flag, unsigned want, tuner_u64 timeout_ns)
{
	tuner_u64 t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	while ((int)(flag[0] - want) < 0) {
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
		if (t - t0 > timeout_ns) {
			flag[1] = want;
			return;
		}
	}
}

/* L2 flush by reading: afterwards the L2 holds clean lines of p, so evicting them costs the
   next kernel nothing. Writes *sink only if the xor of p equals magic (never, for p zeroed
   and magic 1), which keeps the loads. */
extern "C" __global__ void tuner_flush(const uint4 *__restrict__ p, size_t n,
                                         unsigned *sink, unsigned magic)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	unsigned x = 0;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		uint4 v = __ldcg(p + i);
		x ^= (v.x ^ v.y) ^ (v.z ^ v.w);
	}
	if (x == magic)
		*sink = x;
}

/* bench.c's put(): x stored as type t (0 float, 1 double, 2 int, 3 unsigned, 4 long long,
   5 unsigned long long), saturating; unsigned types wrap negatives as C does */
static __device__ long long tuner_sat(double x)
{
	if (x != x)
		return 0;
	if (x >= 9223372036854775807.0)
		return 0x7fffffffffffffffll;
	if (x <= -9223372036854775808.0)
		return -0x7fffffffffffffffll - 1;
	return (long long)x;
}

static __device__ void tuner_put(void *p, size_t i, int t, double x)
{
	long long v;
	switch (t) {
	case 0:
		((float *)p)[i] = x > 3.4028234663852886e38 ? __int_as_float(0x7f800000)
		                 : x < -3.4028234663852886e38 ? __int_as_float((int)0xff800000u)
		                 : __double2float_rn(x);
		break;
	case 1:
		((double *)p)[i] = x;
		break;
	case 2:
		v = tuner_sat(x);
		((int *)p)[i] = (int)(v > 2147483647ll ? 2147483647ll : v < -2147483648ll ? -2147483648ll : v);
		break;
	case 3:
		v = tuner_sat(x);
		((unsigned *)p)[i] = v > 4294967295ll ? 4294967295u : (unsigned)v;
		break;
	case 4:
		((long long *)p)[i] = tuner_sat(x);
		break;
	default:
		((tuner_u64 *)p)[i] = x >= 18446744073709551615.0 ? ~0ull
		                     : x >= 9223372036854775807.0 ? (tuner_u64)x
		                     : (tuner_u64)tuner_sat(x);
	}
}

/* fill p[0, n) as bench_fill_host does: kind 0 random in [lo, hi) (floored for integer
   types), 1 range start + i * step, 2 const value, 3 list[i % nlist] */
extern "C" __global__ void tuner_fill(void *p, size_t n, int t, int kind, tuner_u64 seed,
                                        double lo, double hi, double start, double step,
                                        double value, const double *list, size_t nlist)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		double x;
		if (kind == 0) {
			tuner_u64 z = seed + (tuner_u64)(i + 1) * 0x9e3779b97f4a7c15ull;
			z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
			z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
			z ^= z >> 31;
			double u = __dmul_rn(__ull2double_rn(z >> 11), 1.0 / 9007199254740992.0);
			x = __dadd_rn(lo, __dmul_rn(u, __dsub_rn(hi, lo)));
			if (t >= 2)
				x = floor(x);
		} else if (kind == 1) {
			x = __dadd_rn(start, __dmul_rn(__ull2double_rn(i), step));
		} else if (kind == 2) {
			x = value;
		} else {
			x = nlist ? list[i % nlist] : 0.0;
		}
		tuner_put(p, i, t, x);
	}
}

/* one element against the reference's: cmp_elem */
#include "cmp.h"

/* what a comparison found; maxabs and maxrel are the bits of non-negative doubles (ordered as
   integers; maxrel over the elements where |ref| > atol), nfirst the complement of the first
   failing index (0: none) */
struct tuner_cmpres {
	tuner_u64 bad, maxabs, maxrel, nfirst;
};

template <typename T> struct __align__(16) tuner_vec {
	T v[16 / sizeof(T)];
};

/* compare got[0, n) with ref[0, n) into *res (zeroed beforehand); blockDim.x % 32 == 0 */
template <typename T, bool FLT>
static __device__ void tuner_cmp(const T *__restrict__ got, const T *__restrict__ ref, size_t n,
                                 double atol, double rtol, tuner_cmpres *res)
{
	const size_t W = 16 / sizeof(T), nv = n / W;
	const size_t stride = (size_t)gridDim.x * blockDim.x;
	const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	const tuner_vec<T> *gv = (const tuner_vec<T> *)got, *rv = (const tuner_vec<T> *)ref;
	struct cmp_acc acc = CMP_ACC0;
	for (size_t v = t; v < nv; v += stride) {
		tuner_vec<T> a = gv[v], b = rv[v];
#pragma unroll
		for (size_t k = 0; k < W; k++)
			cmp_elem(&acc, (double)a.v[k], (double)b.v[k], a.v[k] == b.v[k], FLT, v * W + k,
			         atol, rtol);
	}
	for (size_t j = nv * W + t; j < n; j += stride)
		cmp_elem(&acc, (double)got[j], (double)ref[j], got[j] == ref[j], FLT, j, atol, rtol);
	tuner_u64 bad = acc.bad, first = acc.first;
	double ma = acc.maxabs, mr = acc.maxrel;
	for (int d = 16; d > 0; d >>= 1) {
		bad += __shfl_xor_sync(0xffffffffu, bad, d);
		tuner_u64 f = __shfl_xor_sync(0xffffffffu, first, d);
		first = f < first ? f : first;
		double x = __shfl_xor_sync(0xffffffffu, ma, d);
		ma = x > ma ? x : ma;
		x = __shfl_xor_sync(0xffffffffu, mr, d);
		mr = x > mr ? x : mr;
	}
	if ((threadIdx.x & 31) != 0)
		return;
	if (bad) {
		atomicAdd(&res->bad, bad);
		atomicMax(&res->nfirst, ~first);
	}
	if (ma > 0.0)
		atomicMax(&res->maxabs, (tuner_u64)__double_as_longlong(ma));
	if (mr > 0.0)
		atomicMax(&res->maxrel, (tuner_u64)__double_as_longlong(mr));
}

#define TUNER_CMP(name, T, FLT)                                                         \
	extern "C" __global__ void name(const T *got, const T *ref, size_t n, double atol,   \
	                                 double rtol, tuner_cmpres *res)                      \
	{                                                                                     \
		tuner_cmp<T, FLT>(got, ref, n, atol, rtol, res);                                   \
	}
TUNER_CMP(tuner_cmp_f32, float, true)
TUNER_CMP(tuner_cmp_f64, double, true)
TUNER_CMP(tuner_cmp_i32, int, false)
TUNER_CMP(tuner_cmp_u32, unsigned, false)
TUNER_CMP(tuner_cmp_i64, long long, false)
TUNER_CMP(tuner_cmp_u64, tuner_u64, false)
