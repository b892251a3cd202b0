/*
 * reduce_tail: where a one-launch float sum loses its time against cub::DeviceReduce::Sum in
 * the L2 (2^16 .. 2^22 floats). One tile loop (block b sums tile b of BLOCK * EPT floats, VEC
 * per load, warp shuffles in the block) and five ways to finish:
 *   none    each block writes its partial; nothing adds them (a lower bound, out unwritten)
 *   acqrel  the last block by an acquire-release atomicInc adds the partials (templates/
 *           reduction.cu today: two levels of BLOCK)
 *   rel     a release atomicInc, the acquire fence in the last block only
 *   tag     each partial stored with a tag (the launch's %gridid) in one 8-byte store and a
 *           relaxed atomicInc: no fence, the last block waits for each partial's tag
 *   two     "none", then a second launch of one block adds the partials (CUB's shape)
 * and CUB itself. A sample replays a CUDA graph of 20 launches, samples interleaved; prints the
 * median us per launch. Checks each result against the host's double sum, with the input
 * changed between two checks (a stale partial of the launch before would show), and that
 * %gridid differs from one replayed launch to the next.
 * Build: nvcc -O3 -arch=sm_90 -o reduce_tail bench/explore/reduce_tail.cu
 */
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

#define CK(x) ck((x), #x, __LINE__)
static void ck(cudaError_t e, const char *w, int l)
{
	if (e != cudaSuccess) {
		fprintf(stderr, "line %d: %s: %s\n", l, w, cudaGetErrorString(e));
		exit(2);
	}
}

enum { NONE, ACQREL, REL, TAG };

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
	for (int d = 16; d > 0; d >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, d);
	return v;
}

template <int BLOCK> __device__ __forceinline__ float block_sum(float v)
{
	__shared__ float s[32];
	const int t = threadIdx.x;
	v = warp_sum(v);
	if ((t & 31) == 0)
		s[t >> 5] = v;
	__syncthreads();
	v = 0.0f;
	if (t < 32) {
		v = t < BLOCK / 32 ? s[t] : 0.0f;
		v = warp_sum(v);
	}
	__syncthreads();
	return v;
}

template <int BLOCK, int VEC, int EPT> __device__ __forceinline__ float tile(const float *in, int n)
{
	const int t = threadIdx.x;
	const long long base = (long long)blockIdx.x * BLOCK * EPT;
	const long long avail = n - base;
	const float *src = in + base;
	float v = 0.0f;
	if (avail >= BLOCK * EPT) {
		float acc[EPT / VEC];
#pragma unroll
		for (int k = 0; k < EPT / VEC; k++) {
			if (VEC == 4) {
				float4 q = __ldg(reinterpret_cast<const float4 *>(src + (k * BLOCK + t) * 4));
				acc[k] = (q.x + q.y) + (q.z + q.w);
			} else if (VEC == 2) {
				float2 q = __ldg(reinterpret_cast<const float2 *>(src + (k * BLOCK + t) * 2));
				acc[k] = q.x + q.y;
			} else
				acc[k] = __ldg(src + k * BLOCK + t);
		}
#pragma unroll
		for (int k = 0; k < EPT / VEC; k++)
			v += acc[k];
	} else {
		for (long long i = t; i < avail; i += BLOCK)
			v += __ldg(src + i);
	}
	return v;
}

__device__ __forceinline__ unsigned inc(unsigned *p, unsigned lim, int fin)
{
	unsigned old;
	if (fin == ACQREL)
		asm volatile("atom.acq_rel.gpu.global.inc.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(lim) : "memory");
	else if (fin == REL)
		asm volatile("atom.release.gpu.global.inc.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(lim) : "memory");
	else
		asm volatile("atom.relaxed.gpu.global.inc.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(lim) : "memory");
	return old;
}

__device__ __forceinline__ unsigned grid_tag()
{
	unsigned long long g;
	asm volatile("mov.u64 %0, %%gridid;" : "=l"(g));
	return (unsigned)g | 1u; /* never 0, the buffer's start */
}

__device__ __forceinline__ void put(float *p, unsigned i, float v, unsigned tag, int fin)
{
	if (fin == TAG) {
		unsigned long long x = ((unsigned long long)tag << 32) | __float_as_uint(v);
		asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"((unsigned long long *)p + i), "l"(x) : "memory");
	} else
		p[i] = v;
}

__device__ __forceinline__ float get(const float *p, unsigned i, unsigned tag, int fin)
{
	if (fin == TAG) {
		unsigned long long x;
		do
			asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(x) : "l"((const unsigned long long *)p + i) : "memory");
		while ((unsigned)(x >> 32) != tag);
		return __uint_as_float((unsigned)x);
	}
	return __ldcg(p + i);
}

template <int BLOCK> __device__ __forceinline__ float add(const float *p, unsigned m, unsigned tag, int fin)
{
	double d = 0.0;
	for (unsigned b = threadIdx.x; b < m; b += BLOCK)
		d += (double)get(p, b, tag, fin);
	return block_sum<BLOCK>((float)d);
}

template <int BLOCK, int VEC, int EPT, int FIN>
__global__ void __launch_bounds__(BLOCK) red(float *out, const float *in, float *partials, unsigned *counter, int n)
{
	__shared__ bool last;
	const int t = threadIdx.x;
	const unsigned tag = FIN == TAG ? grid_tag() : 0;
	float v = block_sum<BLOCK>(tile<BLOCK, VEC, EPT>(in, n));
	const unsigned nb = gridDim.x, ng = (nb + BLOCK - 1) / BLOCK;
	const unsigned g = blockIdx.x / BLOCK, first = g * BLOCK;
	const unsigned size = min(nb - first, (unsigned)BLOCK);
	if (FIN == NONE) {
		if (t == 0)
			partials[blockIdx.x] = v;
		return;
	}
	if (t == 0) {
		put(partials, blockIdx.x, v, tag, FIN);
		last = inc(&counter[g], size - 1, FIN) == size - 1;
		if (last && FIN == REL)
			asm volatile("fence.acq_rel.gpu;" ::: "memory");
	}
	__syncthreads();
	if (!last)
		return;
	v = add<BLOCK>(partials + (FIN == TAG ? 2 : 1) * first, size, tag, FIN);
	if (ng == 1) {
		if (t == 0)
			out[0] = v;
		return;
	}
	if (t == 0) {
		put(partials, nb + g, v, tag, FIN);
		last = inc(&counter[ng], ng - 1, FIN) == ng - 1;
		if (last && FIN == REL)
			asm volatile("fence.acq_rel.gpu;" ::: "memory");
	}
	__syncthreads();
	if (!last)
		return;
	v = add<BLOCK>(partials + (FIN == TAG ? 2 : 1) * nb, ng, tag, FIN);
	if (t == 0)
		out[0] = v;
}

/* the second launch of "two": one block adds m partials */
template <int BLOCK> __global__ void __launch_bounds__(BLOCK) finish(float *out, const float *partials, unsigned m)
{
	float v = add<BLOCK>(partials, m, 0, NONE);
	if (threadIdx.x == 0)
		out[0] = v;
}

__global__ void gridid_probe(unsigned long long *o, int i)
{
	unsigned long long g;
	asm volatile("mov.u64 %0, %%gridid;" : "=l"(g));
	if (threadIdx.x == 0 && blockIdx.x == 0)
		o[i] = g;
}

static float *d_in, *d_in2, *d_out, *d_part;
static unsigned *d_cnt;
static void *cubtmp;
static size_t cubbytes;
static cudaStream_t st;

struct cand {
	const char *name;
	int block, tilee, fin; /* fin: NONE.. TAG, 4 two, 5 cub */
	void (*k)(float *, const float *, float *, unsigned *, int);
	void (*f)(float *, const float *, unsigned);
	std::vector<float> us;
	cudaGraphExec_t x;
};

static void launch(const cand &c, const float *in, int n)
{
	if (c.fin == 5) {
		CK(cub::DeviceReduce::Sum(cubtmp, cubbytes, in, d_out, n, st));
		return;
	}
	unsigned nb = (unsigned)((n + c.tilee - 1) / c.tilee);
	c.k<<<nb, c.block, 0, st>>>(d_out, in, d_part, d_cnt, n);
	if (c.fin == 4)
		c.f<<<1, c.block, 0, st>>>(d_out, d_part, nb);
	CK(cudaGetLastError());
}

#define C(B, V, E, F, name) {name, B, B * E, F, red<B, V, E, (F == 4 ? NONE : F)>, finish<B>, {}, 0}
#define SET(B, V, E, tagname)                                                                      \
	C(B, V, E, NONE, "none/" tagname), C(B, V, E, ACQREL, "acqrel/" tagname),                     \
	    C(B, V, E, REL, "rel/" tagname), C(B, V, E, TAG, "tag/" tagname), C(B, V, E, 4, "two/" tagname)

int main(int argc, char **argv)
{
	const int R = 20, samples = argc > 1 ? atoi(argv[1]) : 30;
	const long long sizes[] = {65536, 262144, 524288, 1048576, 2097152, 3000000, 4194304};
	const long long maxn = 4194304;
	std::vector<cand> cs = {SET(256, 4, 16, "256x16v4"), SET(512, 2, 16, "512x16v2"),
	                        SET(1024, 4, 16, "1024x16v4"), SET(128, 4, 16, "128x16v4")};
	cs.push_back({"cub", 0, 1, 5, NULL, NULL, {}, 0});
	std::vector<float> h(maxn), h2(maxn);
	for (long long i = 0; i < maxn; i++) {
		h[i] = (float)((i * 2654435761u) % 1000003) / 1000003.0f;
		h2[i] = (float)((i * 40503u + 7) % 999983) / 999983.0f;
	}
	CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	CK(cudaMalloc(&d_in, maxn * 4));
	CK(cudaMalloc(&d_in2, maxn * 4));
	CK(cudaMalloc(&d_out, 4));
	CK(cudaMalloc(&d_part, 8 * 65536));
	CK(cudaMalloc(&d_cnt, 4 * 65536));
	CK(cudaMemset(d_part, 0, 8 * 65536));
	CK(cudaMemset(d_cnt, 0, 4 * 65536));
	CK(cudaMemcpy(d_in, h.data(), maxn * 4, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_in2, h2.data(), maxn * 4, cudaMemcpyHostToDevice));
	CK(cub::DeviceReduce::Sum(NULL, cubbytes, d_in, d_out, (int)maxn, st));
	CK(cudaMalloc(&cubtmp, cubbytes));
	cudaEvent_t e0, e1;
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));

	{ /* %gridid from launch to launch, in a graph replayed */
		unsigned long long *d, hg[8];
		cudaGraph_t g;
		cudaGraphExec_t x;
		CK(cudaMalloc(&d, sizeof hg));
		CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed));
		for (int i = 0; i < 4; i++)
			gridid_probe<<<1, 32, 0, st>>>(d, i);
		CK(cudaStreamEndCapture(st, &g));
		CK(cudaGraphInstantiate(&x, g, 0));
		CK(cudaGraphLaunch(x, st));
		CK(cudaStreamSynchronize(st));
		CK(cudaMemcpy(hg, d, 4 * 8, cudaMemcpyDeviceToHost));
		CK(cudaGraphLaunch(x, st));
		CK(cudaStreamSynchronize(st));
		CK(cudaMemcpy(hg + 4, d, 4 * 8, cudaMemcpyDeviceToHost));
		printf("gridid over two replays of 4:");
		for (int i = 0; i < 8; i++)
			printf(" %llu", hg[i]);
		printf("\n");
	}
	int bad = 0;
	printf("%-16s", "us per launch");
	for (long long n : sizes)
		printf(" %9lld", n);
	printf("\n");
	std::vector<std::vector<double>> med(cs.size(), std::vector<double>(7));
	int si = 0;
	for (long long n : sizes) {
		double r1 = 0, r2 = 0;
		for (long long i = 0; i < n; i++)
			r1 += h[i], r2 += h2[i];
		for (auto &c : cs) {
			if (c.fin == NONE)
				continue;
			float o[2];
			launch(c, d_in, (int)n);
			CK(cudaMemcpy(&o[0], d_out, 4, cudaMemcpyDeviceToHost));
			launch(c, d_in2, (int)n);
			CK(cudaMemcpy(&o[1], d_out, 4, cudaMemcpyDeviceToHost));
			if (fabs(o[0] - r1) > 1e-5 * r1 || fabs(o[1] - r2) > 1e-5 * r2) {
				printf("WRONG %s at %lld: %g/%g %g/%g\n", c.name, n, o[0], r1, o[1], r2);
				bad = 1;
			}
		}
		for (auto &c : cs) {
			cudaGraph_t g;
			c.us.clear();
			CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed));
			CK(cudaEventRecordWithFlags(e0, st, cudaEventRecordExternal));
			for (int i = 0; i < R; i++)
				launch(c, d_in, (int)n);
			CK(cudaEventRecordWithFlags(e1, st, cudaEventRecordExternal));
			CK(cudaStreamEndCapture(st, &g));
			CK(cudaGraphInstantiate(&c.x, g, 0));
			CK(cudaGraphDestroy(g));
		}
		for (int s = -3; s < samples; s++)
			for (auto &c : cs) {
				float ms;
				CK(cudaGraphLaunch(c.x, st));
				CK(cudaStreamSynchronize(st));
				CK(cudaEventElapsedTime(&ms, e0, e1));
				if (s >= 0)
					c.us.push_back(ms * 1000 / R);
			}
		for (size_t k = 0; k < cs.size(); k++) {
			std::sort(cs[k].us.begin(), cs[k].us.end());
			med[k][si] = cs[k].us[cs[k].us.size() / 2];
			CK(cudaGraphExecDestroy(cs[k].x));
		}
		si++;
	}
	for (size_t k = 0; k < cs.size(); k++) {
		printf("%-16s", cs[k].name);
		for (int i = 0; i < si; i++)
			printf(" %9.3f", med[k][i]);
		printf("\n");
	}
	printf("%-16s", "best/cub");
	for (int i = 0; i < si; i++) {
		double b = 1e30;
		for (size_t k = 0; k + 1 < cs.size(); k++)
			if (cs[k].fin != NONE && cs[k].fin != 4)
				b = std::min(b, med[k][i]);
		printf(" %9.3f", med.back()[i] / b);
	}
	printf("\n");
	return bad;
}
