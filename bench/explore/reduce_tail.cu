/*
 * reduce_tail: where a one-launch float sum loses its time against cub::DeviceReduce::Sum in
 * the L2 (2^16 .. 2^22 floats), and what templates/reduction.cu's finish does about it.
 * Kernels: the template itself (GRID 0 tiles of BLOCK x EPT, VEC per load, warp shuffles; and
 * the 2^21 winner's GRID 1), as "new/..."; with -DOLD_TEMPLATE='"path"' an older copy of it
 * beside, as "old/..."; and, from the 256x16v4 instance's tile loop and block combine (up to
 * 39b5678 a copy of them in this file, which the figures in bench/data were timed with)
 *   none    each block writes its partial; nothing adds them (a lower bound, out unwritten)
 *   two     "none", then a second launch of one block adds the partials (CUB's shape)
 * and CUB itself. A sample replays a CUDA graph of 20 launches, samples interleaved; prints the
 * median us per launch. Checks each result against the host's double sum, the input changed
 * from launch to launch (a stale partial of the launch before would show), and prints %gridid
 * of a graph replayed twice (it repeats: it cannot tell one launch from the next).
 * Usage: reduce_tail [SAMPLES [big|small [addr]]]  (big: the buffers as tests/gpu/dispatch.cu
 * allocates them; addr: then the time at 2^20 with the scratch at 8 places); RT_ONLY=a,b,...
 * times only the candidates named (the last must be cub)
 * Build: nvcc -O3 -arch=sm_90 [-DOLD_TEMPLATE='"OLDTREE/templates/reduction.cu"'] \
 *          -o reduce_tail bench/explore/reduce_tail.cu
 * The first version (commit 2d328c5) timed hand-written finishes: acq_rel, release-only, a
 * %gridid tag (bench/data/reduce-tail-h200-2db2411.txt).
 */
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <vector>

#define CK(x) ck((x), #x, __LINE__)
static void ck(cudaError_t e, const char *w, int l)
{
	if (e != cudaSuccess) {
		fprintf(stderr, "line %d: %s: %s\n", l, w, cudaGetErrorString(e));
		exit(2);
	}
}


/* ---- the template (and an older copy): one instance per namespace (reduce_tail_one.h) ---- */
#define METHOD 2
#define BANK_BYTES 4
#define SPLIT 0
#define TEMPLATE "../../templates/reduction.cu"
#define NS n1
#define reduction new_256x16v4
#define BLOCK 256
#define EPT 16
#define VEC 4
#define GRID 0
#include "reduce_tail_one.h"
/* ---- "none" and "two", built from the 256x16v4 instance's own tile loop and block combine ---- */
namespace own {
__global__ void __launch_bounds__(256) none(float *out, const float *in, float *partials,
                                            unsigned *counter, int n)
{
	extern __shared__ float s[];
	const long long base = (long long)blockIdx.x * 256 * 16;
	const float v = n1::block_sum(n1::tile_sum(in + base, n - base), s);

	if (threadIdx.x == 0)
		partials[blockIdx.x] = v;
}

__global__ void __launch_bounds__(256) finish(float *out, const float *p, unsigned m)
{
	extern __shared__ float s[];
	double d = 0.0;

	for (unsigned b = threadIdx.x; b < m; b += 256)
		d += (double)__ldcg(p + b);
	const float v = n1::block_sum((float)d, s);
	if (threadIdx.x == 0)
		out[0] = v;
}
} /* namespace own */

#define NS n2
#define reduction new_512x16v2
#define BLOCK 512
#define EPT 16
#define VEC 2
#define GRID 0
#include "reduce_tail_one.h"
#define NS n3
#define reduction new_128x16v4
#define BLOCK 128
#define EPT 16
#define VEC 4
#define GRID 0
#include "reduce_tail_one.h"
#define NS n4
#define reduction new_g1_1024x16v4
#define BLOCK 1024
#define EPT 16
#define VEC 4
#define GRID 1
#include "reduce_tail_one.h"
#define NS n5
#define reduction new_128x64v4
#define BLOCK 128
#define EPT 64
#define VEC 4
#define GRID 0
#include "reduce_tail_one.h"
#undef TEMPLATE
#ifdef OLD_TEMPLATE
#define TEMPLATE OLD_TEMPLATE
#define NS o1
#define reduction old_256x16v4
#define BLOCK 256
#define EPT 16
#define VEC 4
#define GRID 0
#include "reduce_tail_one.h"
#define NS o2
#define reduction old_512x16v2
#define BLOCK 512
#define EPT 16
#define VEC 2
#define GRID 0
#include "reduce_tail_one.h"
#define NS o3
#define reduction old_128x16v4
#define BLOCK 128
#define EPT 16
#define VEC 4
#define GRID 0
#include "reduce_tail_one.h"
#define NS o4
#define reduction old_g1_1024x16v4
#define BLOCK 1024
#define EPT 16
#define VEC 4
#define GRID 1
#include "reduce_tail_one.h"
#endif

__global__ void gridid_probe(unsigned long long *o, int i)
{
	unsigned long long g;
	asm volatile("mov.u64 %0, %%gridid;" : "=l"(g));
	if (threadIdx.x == 0 && blockIdx.x == 0)
		o[i] = g;
}

static float *d_in, *d_in2, *d_out;
static void *cubtmp;
static size_t cubbytes;
static cudaStream_t st;
static int sms;

typedef void (*kernel_t)(float *, const float *, float *, unsigned *, int);

/* a candidate: a template instance (grid 0: a block a tile, 1: at most one a multiprocessor),
   "none" (f unset) or "two" (f set), or CUB (k unset); its own scratch */
struct cand {
	const char *name;
	int block, tilee, grid;
	kernel_t k;
	void (*f)(float *, const float *, unsigned);
	int check;
	float *part;
	unsigned *cnt;
	std::vector<float> us;
	cudaGraphExec_t x;
};

static void launch(const cand &c, const float *in, int n)
{
	if (!c.k) {
		CK(cub::DeviceReduce::Sum(cubtmp, cubbytes, in, d_out, n, st));
		return;
	}
	unsigned nb = (unsigned)((n + c.tilee - 1) / c.tilee);
	if (c.grid)
		nb = std::min(nb, (unsigned)sms);
	c.k<<<nb, c.block, c.block / 32 * 4, st>>>(d_out, in, c.part, c.cnt, n);
	if (c.f)
		c.f<<<1, c.block, c.block / 32 * 4, st>>>(d_out, c.part, nb);
	CK(cudaGetLastError());
}

#define T(name, B, E, G, k) {name, B, B * E, G, k, NULL, 1, NULL, NULL, {}, 0}

/* "addr": the same kernel at 2^20 with its scratch (CUB's temporary storage, the template's
   slots and counters) at 8 places 65 KiB + 256 B apart: does where the finish's few hundred
   bytes live move the time? */
static int addr_sweep(std::vector<cand> &cs, int samples, cudaEvent_t e0, cudaEvent_t e1)
{
	const int n = 1 << 20, R = 20, places = 8;
	char *base, *base2;
	size_t step = 65536 + 256;
	CK(cudaMalloc(&base, places * step + cubbytes));
	CK(cudaMalloc(&base2, places * step + 65536));
	CK(cudaMemset(base, 0, places * step + cubbytes));
	CK(cudaMemset(base2, 0, places * step + 65536));
	void *keep = cubtmp;
	printf("scratch place at n=%d:", n);
	for (int i = 0; i < places; i++)
		printf(" %9d", i);
	printf("\n");
	for (auto &c : cs) {
		if (strcmp(c.name, "cub") && strcmp(c.name, "new/512x16v2") && strcmp(c.name, "new/256x16v4"))
			continue;
		printf("%-18s", c.name);
		float *part = c.part;
		unsigned *cnt = c.cnt;
		for (int i = 0; i < places; i++) {
			cudaGraph_t g;
			std::vector<float> us;
			cubtmp = base + i * step;
			c.part = (float *)(base + i * step);
			c.cnt = (unsigned *)(base2 + i * step);
			CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed));
			CK(cudaEventRecordWithFlags(e0, st, cudaEventRecordExternal));
			for (int r = 0; r < R; r++)
				launch(c, d_in, n);
			CK(cudaEventRecordWithFlags(e1, st, cudaEventRecordExternal));
			CK(cudaStreamEndCapture(st, &g));
			CK(cudaGraphInstantiate(&c.x, g, 0));
			CK(cudaGraphDestroy(g));
			for (int s = -3; s < samples; s++) {
				float ms;
				CK(cudaGraphLaunch(c.x, st));
				CK(cudaStreamSynchronize(st));
				CK(cudaEventElapsedTime(&ms, e0, e1));
				if (s >= 0)
					us.push_back(ms * 1000 / R);
			}
			CK(cudaGraphExecDestroy(c.x));
			std::sort(us.begin(), us.end());
			printf(" %9.3f", us[us.size() / 2]);
		}
		printf("\n");
		c.part = part;
		c.cnt = cnt;
	}
	cubtmp = keep;
	return 0;
}

int main(int argc, char **argv)
{
	const int R = 20, samples = argc > 1 ? atoi(argv[1]) : 30;
	const long long all[] = {65536, 200000, 262144, 524288, 1048576, 2097152, 3000000, 4194304};
	/* RT_SIZES="a b ...": other sizes (at most 8, none above 4194304) */
	std::vector<long long> sizes(all, all + 8);
	if (getenv("RT_SIZES")) {
		sizes.clear();
		for (char *q = getenv("RT_SIZES"), *e; *q && sizes.size() < 8; q = e) {
			long long v = strtoll(q, &e, 10);
			if (e == q || v < 1 || v > 4194304)
				break;
			sizes.push_back(v);
		}
	}
	const long long maxn = 4194304;
	std::vector<cand> cs = {
		T("new/256x16v4", 256, 16, 0, n1::new_256x16v4), T("new/512x16v2", 512, 16, 0, n2::new_512x16v2),
		T("new/128x16v4", 128, 16, 0, n3::new_128x16v4),
		T("new/g1/1024x16v4", 1024, 16, 1, n4::new_g1_1024x16v4),
		T("new/128x64v4", 128, 64, 0, n5::new_128x64v4),
#ifdef OLD_TEMPLATE
		T("old/256x16v4", 256, 16, 0, o1::old_256x16v4), T("old/512x16v2", 512, 16, 0, o2::old_512x16v2),
		T("old/128x16v4", 128, 16, 0, o3::old_128x16v4),
		T("old/g1/1024x16v4", 1024, 16, 1, o4::old_g1_1024x16v4),
#endif
		{"none/256x16v4", 256, 4096, 0, own::none, NULL, 0, NULL, NULL, {}, 0},
		{"two/256x16v4", 256, 4096, 0, own::none, own::finish, 1, NULL, NULL, {}, 0},
		{"cub", 0, 1, 0, NULL, NULL, 1, NULL, NULL, {}, 0},
	};
	std::vector<float> h(maxn), h2(maxn);
	for (long long i = 0; i < maxn; i++) {
		h[i] = (float)((i * 2654435761u) % 1000003) / 1000003.0f;
		h2[i] = (float)((i * 40503u + 7) % 999983) / 999983.0f;
	}
	CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	/* "big": buffers as tests/gpu/dispatch.cu has them (a 2 x L2 flush buffer first, the input
	   sized for 2^27 floats, CUB's scratch for them) */
	const int big = argc > 2 && !strcmp(argv[2], "big");
	const long long alloc = big ? (1LL << 27) + 20 : maxn;
	if (big) {
		int l2;
		void *flush;
		CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
		CK(cudaMalloc(&flush, 2 * (size_t)l2));
		CK(cudaMemset(flush, 1, 2 * (size_t)l2));
	}
	CK(cudaMalloc(&d_in, alloc * 4));
	CK(cudaMalloc(&d_in2, alloc * 4));
	CK(cudaMalloc(&d_out, 4));
	if (getenv("RT_ONLY")) { /* a comma-separated list of the candidates to keep */
		std::vector<cand> keep;
		std::string only = std::string(",") + getenv("RT_ONLY") + ",";
		for (auto &c : cs)
			if (only.find(std::string(",") + c.name + ",") != std::string::npos)
				keep.push_back(c);
		cs = keep;
	}
	for (auto &c : cs) { /* more than any launch here needs, all 0 */
		CK(cudaMalloc(&c.part, 8 * 65536));
		CK(cudaMalloc(&c.cnt, 4 * 65536));
		CK(cudaMemset(c.part, 0, 8 * 65536));
		CK(cudaMemset(c.cnt, 0, 4 * 65536));
	}
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	CK(cudaMemcpy(d_in, h.data(), maxn * 4, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_in2, h2.data(), maxn * 4, cudaMemcpyHostToDevice));
	CK(cub::DeviceReduce::Sum(NULL, cubbytes, d_in, d_out, (int)(alloc - 20 * big), st));
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
	printf("%-18s", "us per launch");
	for (long long n : sizes)
		printf(" %9lld", n);
	printf("\n");
	std::vector<std::vector<double>> med(cs.size(), std::vector<double>(8));
	int si = 0;
	for (long long n : sizes) {
		double r1 = 0, r2 = 0;
		for (long long i = 0; i < n; i++)
			r1 += h[i], r2 += h2[i];
		for (auto &c : cs) { /* five launches, the input changed each time */
			for (int i = 0; c.check && i < 5; i++) {
				float o;
				double r = i % 2 ? r2 : r1;
				launch(c, i % 2 ? d_in2 : d_in, (int)n);
				CK(cudaStreamSynchronize(st));
				CK(cudaMemcpy(&o, d_out, 4, cudaMemcpyDeviceToHost));
				if (fabs(o - r) > 1e-5 * r) {
					printf("WRONG %s at %lld, launch %d: %.9g, the host %.9g\n", c.name, n, i, o, r);
					bad = 1;
				}
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
		printf("%-18s", cs[k].name);
		for (int i = 0; i < si; i++)
			printf(" %9.3f", med[k][i]);
		printf("\n");
	}
	printf("%-18s", "new best/cub");
	for (int i = 0; i < si; i++) {
		double b = 1e30;
		for (size_t k = 0; k < cs.size(); k++)
			if (!strncmp(cs[k].name, "new/", 4))
				b = std::min(b, med[k][i]);
		printf(" %9.3f", med.back()[i] / b);
	}
	printf("\n");
	if (argc > 3 && !strcmp(argv[3], "addr"))
		bad |= addr_sweep(cs, samples, e0, e1);
	return bad;
}
