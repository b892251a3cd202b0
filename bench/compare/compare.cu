/*
 * compare: the tuner's winners against their baselines, timed in ONE process with the tuner's
 * method: CUDA events around each launch (or launch sequence), warm-up launches first, then
 * SAMPLES samples each preceded by an L2 flush (a kernel reading a buffer of 3 x L2 bytes, so
 * no line of the previous sample, dirty or clean, stays cached), median reported.
 *
 * Lines timed (problem sizes as in the shipped configs):
 *   copy          float4 copy, grid-stride, best of several grid sizes (the tuner's roofline)
 *   read          float4 read-only sum, grid-stride, best of several grid sizes
 *   filter21.*    naive: textbook shared-memory filter, one output per thread; win: the winner
 *   transpose.*   naive: unpadded 32 x 32 tile; win: the winner
 *   reduction.*   naive: classic interleaved shared-memory tree (tid % (2 d) == 0), one element
 *                 per thread, relaunched on the partials; win: the winner; cub: DeviceReduce::Sum
 * Each timed kernel's output is checked against the reference kernel (templates/<kernel>_ref.cu) at the
 * timed size, and at small sizes the reference kernels, the naive kernels and the winners are
 * checked against the plain-C references of tests/ref.
 *
 * With COMPARE_PROBE=1 in the environment it runs only reduction_probe (below): why the
 * reduction's winner can time slower here than in the tuner.
 *
 * Build (bench/compare/roofline.sh does it): nvcc -O3 -arch=native bench/compare/compare.cu tests/ref/[a-z]*.c
 * [winner objects, with -DHAVE_WIN_FILTER21 etc.]. Output: "check ..." lines, then one
 * "time NAME BYTES MEDIAN_MS MIN_MS SPREAD GB/s" line per timed kernel. Exit status 1 when a
 * check failed.
 */
#include <cuda_runtime.h>
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "../../tests/ref/ref.h"
#include "winner.h"

/* the GPU reference kernels, as the tuner compiles them (filter21_ref.cu defines coef) */
#include "../../templates/filter21_ref.cu"
#include "../../templates/reduction_ref.cu"
#include "../../templates/transpose_ref.cu"

#define WARMUP 3
#define SAMPLES 50
#define F21_N (1 << 26)
#define T_ROWS 8192
#define T_COLS 8192
#define RED_N (1 << 26)

static int failures;

#define CK(call) do {                                                                   \
		cudaError_t e_ = (call);                                                \
		if (e_ != cudaSuccess) {                                                \
			fprintf(stderr, "compare: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
			        cudaGetErrorString(e_));                                \
			exit(2);                                                        \
		}                                                                       \
	} while (0)

/* as configs/filter21.yaml */
static const float coef_values[21] = {
	-0.0019728f, -0.0031318f, 0.0002438f, 0.0108729f, 0.0150697f, -0.0092899f,
	-0.0501733f, -0.0437475f, 0.0652666f, 0.2393250f, 0.3549006f, 0.3178545f,
	0.1611306f, 0.0084351f, -0.0509532f, -0.0302688f, 0.0036315f, 0.0123846f,
	0.0045787f, -0.0015188f, -0.0026375f};

/* ---- kernels ---- */

__global__ void k_copy(const float4 *__restrict__ in, float4 *__restrict__ out, size_t n)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		out[i] = in[i];
}

/* reads in[0 .. n), four independent float4 loads per thread in flight */
__global__ void k_read(const float4 *__restrict__ in, size_t n, float *sink)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	for (; i + 3 * stride < n; i += 4 * stride) {
		float4 a = __ldg(in + i), b = __ldg(in + i + stride), c = __ldg(in + i + 2 * stride),
		       d = __ldg(in + i + 3 * stride);
		s0 += (a.x + a.y) + (a.z + a.w);
		s1 += (b.x + b.y) + (b.z + b.w);
		s2 += (c.x + c.y) + (c.z + c.w);
		s3 += (d.x + d.y) + (d.z + d.w);
	}
	for (; i < n; i += stride) {
		float4 a = __ldg(in + i);
		s0 += (a.x + a.y) + (a.z + a.w);
	}
	if ((s0 + s1) + (s2 + s3) == -1.0f) /* never (inputs >= 0): keeps the loads */
		*sink = s0;
}

/* out[i] = uniform [lo, hi) from a hash of (seed, i) */
__global__ void k_fill(float *out, size_t n, unsigned seed, float lo, float hi)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		unsigned long long z = i * 0x9e3779b97f4a7c15ULL + seed * 0xbf58476d1ce4e5b9ULL + 1;
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		z ^= z >> 31;
		out[i] = lo + (float)(z >> 40) * 0x1p-24f * (hi - lo);
	}
}

#define NB 256
/* the textbook shared-memory filter: one output per thread */
__global__ void k_filter21_naive(float *out, const float *in, int n)
{
	__shared__ float s[NB + 20];
	const long long i = (long long)blockIdx.x * NB + threadIdx.x;
	const long long avail = (long long)n + 20;
	s[threadIdx.x] = i < avail ? in[i] : 0.0f;
	if (threadIdx.x < 20)
		s[NB + threadIdx.x] = i + NB < avail ? in[i + NB] : 0.0f;
	__syncthreads();
	if (i < n) {
		float acc = 0.0f;
		for (int k = 0; k < 21; k++)
			acc += coef[k] * s[threadIdx.x + k];
		out[i] = acc;
	}
}

/* the classic tiled transpose: 32 x 32 tile, unpadded (column reads conflict 32 ways) */
__global__ void k_transpose_naive(float *out, const float *in, int rows, int cols)
{
	__shared__ float tile[32][32];
	int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
	for (int j = 0; j < 32; j += 8)
		if (x < cols && y + j < rows)
			tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
	__syncthreads();
	x = blockIdx.y * 32 + threadIdx.x;
	y = blockIdx.x * 32 + threadIdx.y;
	for (int j = 0; j < 32; j += 8)
		if (x < rows && y + j < cols)
			out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

/* diagnostic for the transpose: moves T x T tiles with float4 accesses through registers (block
   T / 4 x 16 threads), no shared memory, each tile's rows unchanged. TRANSPOSED_PLACE 0: to the
   same place (a copy in 4 T-byte row segments, as the transpose reads and writes); 1: to the
   transposed tile position, the DRAM access pattern of a transpose without its in-tile shuffle.
   GROUP: block order in bands of GROUP tile rows, 0 column after column, as
   templates/transpose.cu. rows, cols multiples of T. */
template <int T, int TRANSPOSED_PLACE, int GROUP>
__global__ void k_tilecopy(float *__restrict__ out, const float *__restrict__ in, int rows, int cols)
{
	int bx = blockIdx.x, by = blockIdx.y;
	if (GROUP != 1) {
		const int g = GROUP ? GROUP : (int)gridDim.y;
		const long long L = (long long)blockIdx.y * gridDim.x + blockIdx.x;
		const long long per = (long long)g * gridDim.x;
		const int band = (int)(L / per), first = band * g;
		const int h = min((int)gridDim.y - first, g), w = (int)(L - band * per);
		by = first + w % h;
		bx = w / h;
	}
	const int i0 = by * T, j0 = bx * T, c = threadIdx.x * 4;
	float4 v[T / 16];
#pragma unroll
	for (int k = 0; k < T / 16; k++)
		v[k] = __ldg(reinterpret_cast<const float4 *>(in + (size_t)(i0 + threadIdx.y + 16 * k) * cols + j0 + c));
#pragma unroll
	for (int k = 0; k < T / 16; k++) {
		const int r = threadIdx.y + 16 * k;
		float *d = TRANSPOSED_PLACE ? out + (size_t)(j0 + r) * rows + i0 + c
		                            : out + (size_t)(i0 + r) * cols + j0 + c;
		*reinterpret_cast<float4 *>(d) = v[k];
	}
}

/* the classic interleaved shared-memory tree (divergent branch), one element per thread */
__global__ void k_reduce_naive(float *out, const float *in, unsigned n)
{
	__shared__ float s[NB];
	const unsigned t = threadIdx.x, i = blockIdx.x * NB + t;
	s[t] = i < n ? in[i] : 0.0f;
	__syncthreads();
	for (unsigned d = 1; d < NB; d *= 2) {
		if (t % (2 * d) == 0)
			s[t] += s[t + d];
		__syncthreads();
	}
	if (t == 0)
		out[blockIdx.x] = s[0];
}

/* ---- timing ---- */

struct tstat {
	double median, min, spread;
};

static float *g_flush, *g_sink;
static size_t g_flush_n; /* float4 elements */
static int g_sms;

static float *g_zeros;     /* 2 x L2 of zeros, for the tuner's flush */
static size_t g_zeros_n;   /* uint4 elements */
static int g_tuner_flush;  /* flush as the tuner does (tuner/helpers.cu tuner_flush) */

__global__ void k_flush_cg(const uint4 *__restrict__ p, size_t n, unsigned *sink)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	unsigned x = 0;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		uint4 v = __ldcg(p + i);
		x ^= (v.x ^ v.y) ^ (v.z ^ v.w);
	}
	if (x == 1)
		*sink = x;
}

static void flush_l2(void)
{
	if (g_tuner_flush)
		k_flush_cg<<<(unsigned)std::min<size_t>(g_sms * 8, (g_zeros_n + 255) / 256), 256>>>(
			(const uint4 *)g_zeros, g_zeros_n, (unsigned *)g_sink);
	else
		k_read<<<g_sms * 8, 256>>>((const float4 *)g_flush, g_flush_n, g_sink);
}

/* warm-up, then SAMPLES x (flush, event, launch, event); median, min, (p90 - p10) / median */
static tstat time_it(const std::function<void()> &launch)
{
	static cudaEvent_t ev[2 * SAMPLES];
	static int made;
	std::vector<double> ms(SAMPLES);
	tstat s;

	if (!made) {
		for (int i = 0; i < 2 * SAMPLES; i++)
			CK(cudaEventCreate(&ev[i]));
		made = 1;
	}
	for (int i = 0; i < WARMUP; i++)
		launch();
	for (int i = 0; i < SAMPLES; i++) {
		flush_l2();
		CK(cudaEventRecord(ev[2 * i]));
		launch();
		CK(cudaEventRecord(ev[2 * i + 1]));
	}
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
	for (int i = 0; i < SAMPLES; i++) {
		float f;
		CK(cudaEventElapsedTime(&f, ev[2 * i], ev[2 * i + 1]));
		ms[i] = f;
	}
	std::sort(ms.begin(), ms.end());
	auto q = [&](double p) {
		double pos = p * (SAMPLES - 1);
		int i = (int)pos;
		return i >= SAMPLES - 1 ? ms[SAMPLES - 1] : ms[i] + (pos - i) * (ms[i + 1] - ms[i]);
	};
	s.median = q(0.5);
	s.min = ms[0];
	s.spread = (q(0.9) - q(0.1)) / s.median;
	return s;
}

static void report(const char *name, double bytes, tstat s)
{
	printf("time %-16s %12.0f %10.4f %10.4f %6.1f%% %9.1f\n", name, bytes, s.median, s.min,
	       100 * s.spread, bytes / (s.median * 1e6));
	fflush(stdout);
}

/* best median over grid sizes of blocks-per-SM (0: one element per thread) */
static tstat time_grid(const std::function<void(unsigned)> &launch, size_t n4)
{
	static const int per_sm[] = {2, 4, 8, 16, 32, 0};
	tstat best = {0, 0, 0};
	for (int p : per_sm) {
		size_t g = p ? (size_t)g_sms * p : (n4 + 255) / 256;
		tstat s = time_it([&] { launch((unsigned)std::min<size_t>(g, 0x7fffffff)); });
		printf("diag   grid %8zu blocks of 256: median %.4f ms\n", g, s.median);
		if (best.median == 0 || s.median < best.median)
			best = s;
	}
	return best;
}

/* ---- checks ---- */

static void check(bool ok, const char *what, const char *fmt, ...)
{
	va_list ap;
	printf("check %-44s %s", what, ok ? "ok" : "FAIL");
	if (fmt) {
		printf(" (");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf(")");
	}
	printf("\n");
	fflush(stdout);
	if (!ok)
		failures++;
}

/* |x - y| <= atol + rtol |y| everywhere; returns the count outside and the max abs error */
static size_t cmp(const float *x, const float *y, size_t n, double atol, double rtol, double *maxerr)
{
	size_t bad = 0;
	*maxerr = 0;
	for (size_t i = 0; i < n; i++) {
		double e = fabs((double)x[i] - (double)y[i]);
		if (!(e <= atol + rtol * fabs((double)y[i])))
			bad++;
		if (e > *maxerr || e != e)
			*maxerr = e;
	}
	return bad;
}

static std::vector<float> fetch(const float *d, size_t n)
{
	std::vector<float> h(n);
	CK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
	return h;
}

static float *dalloc(size_t n)
{
	float *p;
	CK(cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(float)));
	return p;
}

static void fill(float *d, size_t n, unsigned seed, float lo, float hi)
{
	k_fill<<<g_sms * 8, 256>>>(d, n, seed, lo, hi);
	CK(cudaGetLastError());
}

static void poison(float *d, size_t n)
{
	CK(cudaMemset(d, 0xFF, n * sizeof(float))); /* NaN */
}

/* ---- filter21 ---- */

static void filter21_checks(void)
{
	const int sizes[] = {1, 97, 4099, 1000003};
	for (int n : sizes) {
		float *in = dalloc(n + 20), *out = dalloc(n);
		std::vector<float> want(n);
		char what[64];
		double err;
		size_t bad;
		fill(in, n + 20, 11, -1, 1);
		std::vector<float> hin = fetch(in, n + 20);
		ref_filter21(want.data(), hin.data(), coef_values, n);

		poison(out, n);
		filter21_ref<<<(n + 255) / 256, 256>>>(out, in, n);
		bad = cmp(fetch(out, n).data(), want.data(), n, 1e-7, 1e-6, &err);
		snprintf(what, sizeof what, "filter21_ref.cu vs C at n=%d", n);
		check(!bad, what, "%zu bad, max err %.2g", bad, err);

		poison(out, n);
		k_filter21_naive<<<(n + NB - 1) / NB, NB>>>(out, in, n);
		bad = cmp(fetch(out, n).data(), want.data(), n, 1e-5, 1e-5, &err);
		snprintf(what, sizeof what, "filter21 naive vs C at n=%d", n);
		check(!bad, what, "%zu bad, max err %.2g", bad, err);
#ifdef HAVE_WIN_FILTER21
		poison(out, n);
		CK(win_filter21(out, in, n, 0));
		bad = cmp(fetch(out, n).data(), want.data(), n, 1e-5, 1e-5, &err);
		snprintf(what, sizeof what, "filter21 winner vs C at n=%d", n);
		check(!bad, what, "%zu bad, max err %.2g", bad, err);
#endif
		CK(cudaFree(in));
		CK(cudaFree(out));
	}
}

static void filter21_bench(void)
{
	const int n = F21_N;
	const double bytes = 8.0 * n + 80;
	float *in = dalloc((size_t)n + 20), *out = dalloc(n);
	double err;
	size_t bad;

	fill(in, (size_t)n + 20, 1, -1, 1);
	poison(out, n);
	filter21_ref<<<(n + 255) / 256, 256>>>(out, in, n);
	std::vector<float> ref = fetch(out, n);

	poison(out, n);
	k_filter21_naive<<<(n + NB - 1) / NB, NB>>>(out, in, n);
	bad = cmp(fetch(out, n).data(), ref.data(), n, 1e-5, 1e-5, &err);
	check(!bad, "filter21 naive vs filter21_ref at 2^26", "%zu bad, max err %.2g", bad, err);
	report("filter21.naive", bytes,
	       time_it([&] { k_filter21_naive<<<(n + NB - 1) / NB, NB>>>(out, in, n); }));
#ifdef HAVE_WIN_FILTER21
	poison(out, n);
	CK(win_filter21(out, in, n, 0));
	bad = cmp(fetch(out, n).data(), ref.data(), n, 1e-5, 1e-5, &err);
	check(!bad, "filter21 winner vs filter21_ref at 2^26", "%zu bad, max err %.2g", bad, err);
	report("filter21.win", bytes, time_it([&] { win_filter21(out, in, n, 0); }));
#endif
	CK(cudaFree(in));
	CK(cudaFree(out));
}

/* ---- transpose ---- */

static void transpose_checks(void)
{
	const int sizes[][2] = {{1, 1}, {7, 5}, {100, 77}, {1000, 777}, {64, 4100}, {4099, 33}};
	for (auto &sz : sizes) {
		const int rows = sz[0], cols = sz[1];
		const size_t n = (size_t)rows * cols;
		float *in = dalloc(n), *out = dalloc(n);
		std::vector<float> want(n);
		char what[64];
		double err;
		size_t bad;
		fill(in, n, 12, -1, 1);
		std::vector<float> hin = fetch(in, n);
		ref_transpose(want.data(), hin.data(), rows, cols);

		poison(out, n);
		transpose_ref<<<dim3((cols + 31) / 32, std::min((rows + 7) / 8, 65535)), dim3(32, 8)>>>(
			out, in, rows, cols);
		bad = cmp(fetch(out, n).data(), want.data(), n, 0, 0, &err);
		snprintf(what, sizeof what, "transpose_ref.cu vs C at %dx%d", rows, cols);
		check(!bad, what, "%zu bad", bad);

		poison(out, n);
		k_transpose_naive<<<dim3((cols + 31) / 32, (rows + 31) / 32), dim3(32, 8)>>>(out, in, rows, cols);
		bad = cmp(fetch(out, n).data(), want.data(), n, 0, 0, &err);
		snprintf(what, sizeof what, "transpose naive vs C at %dx%d", rows, cols);
		check(!bad, what, "%zu bad", bad);
#ifdef HAVE_WIN_TRANSPOSE
		poison(out, n);
		CK(win_transpose(out, in, rows, cols, 0));
		bad = cmp(fetch(out, n).data(), want.data(), n, 0, 0, &err);
		snprintf(what, sizeof what, "transpose winner vs C at %dx%d", rows, cols);
		check(!bad, what, "%zu bad", bad);
#endif
		CK(cudaFree(in));
		CK(cudaFree(out));
	}
}

static void transpose_bench(void)
{
	const int rows = T_ROWS, cols = T_COLS;
	const size_t n = (size_t)rows * cols;
	const double bytes = 8.0 * n;
	float *in = dalloc(n), *out = dalloc(n);
	const dim3 ng((cols + 31) / 32, (rows + 31) / 32), nb(32, 8);
	double err;
	size_t bad;

	fill(in, n, 2, -1, 1);
	poison(out, n);
	transpose_ref<<<dim3((cols + 31) / 32, std::min((rows + 7) / 8, 65535)), dim3(32, 8)>>>(
		out, in, rows, cols);
	std::vector<float> ref = fetch(out, n);

	poison(out, n);
	k_transpose_naive<<<ng, nb>>>(out, in, rows, cols);
	bad = cmp(fetch(out, n).data(), ref.data(), n, 0, 0, &err);
	check(!bad, "transpose naive vs transpose_ref at 8192^2", "%zu bad", bad);
	report("transpose.naive", bytes, time_it([&] { k_transpose_naive<<<ng, nb>>>(out, in, rows, cols); }));
	if (rows % 128 == 0 && cols % 128 == 0) {
		const dim3 g64(cols / 64, rows / 64), b64(16, 16), g128(cols / 128, rows / 128), b128(32, 16);
		report("tilecopy.same64", bytes, time_it([&] { k_tilecopy<64, 0, 1><<<g64, b64>>>(out, in, rows, cols); }));
		report("tilecopy.tr64", bytes, time_it([&] { k_tilecopy<64, 1, 1><<<g64, b64>>>(out, in, rows, cols); }));
		report("tilecopy.tr64g8", bytes, time_it([&] { k_tilecopy<64, 1, 8><<<g64, b64>>>(out, in, rows, cols); }));
		report("tilecopy.same128", bytes, time_it([&] { k_tilecopy<128, 0, 1><<<g128, b128>>>(out, in, rows, cols); }));
		report("tilecopy.tr128", bytes, time_it([&] { k_tilecopy<128, 1, 1><<<g128, b128>>>(out, in, rows, cols); }));
		/* column after column, as the transpose's GROUP 0 */
		report("tilecopy.tr64c", bytes, time_it([&] { k_tilecopy<64, 1, 0><<<g64, b64>>>(out, in, rows, cols); }));
		report("tilecopy.tr128c", bytes, time_it([&] { k_tilecopy<128, 1, 0><<<g128, b128>>>(out, in, rows, cols); }));
	}
#ifdef HAVE_WIN_TRANSPOSE
	poison(out, n);
	CK(win_transpose(out, in, rows, cols, 0));
	bad = cmp(fetch(out, n).data(), ref.data(), n, 0, 0, &err);
	check(!bad, "transpose winner vs transpose_ref at 8192^2", "%zu bad", bad);
	report("transpose.win", bytes, time_it([&] { win_transpose(out, in, rows, cols, 0); }));
#endif
	CK(cudaFree(in));
	CK(cudaFree(out));
}

/* ---- reduction ---- */

/* the naive sum: k_reduce_naive on the input, then on its partials, until one value is left */
struct naive_sum {
	std::vector<float *> level;
	std::vector<unsigned> count;
	naive_sum(unsigned n)
	{
		do {
			n = (n + NB - 1) / NB;
			level.push_back(dalloc(n));
			count.push_back(n);
		} while (n > 1);
	}
	~naive_sum()
	{
		for (float *p : level)
			cudaFree(p);
	}
	void run(const float *in, unsigned n)
	{
		for (size_t l = 0; l < level.size(); l++) {
			k_reduce_naive<<<count[l], NB>>>(level[l], l ? level[l - 1] : in, l ? count[l - 1] : n);
			n = count[l];
		}
	}
	float *result() { return level.back(); }
};

static float one(const float *d)
{
	float x;
	CK(cudaMemcpy(&x, d, sizeof x, cudaMemcpyDeviceToHost));
	return x;
}

static bool close_sum(float got, double want)
{
	return fabs((double)got - want) <= 1e-5 + 1e-5 * fabs(want);
}

static void reduction_checks(void)
{
	const int sizes[] = {1, 3, 1000, 4099, 1000003, 16777259};
	float *out = dalloc(1);
	for (int n : sizes) {
		float *in = dalloc(n);
		char what[64];
		fill(in, n, 13, 0, 1);
		std::vector<float> hin = fetch(in, n);
		const double want = ref_sum(hin.data(), n);

		poison(out, 1);
		reduction_ref<<<1, 1024>>>(out, in, n);
		float got = one(out);
		snprintf(what, sizeof what, "reduction_ref.cu vs C at n=%d", n);
		check(fabs((double)got - (double)(float)want) <= 0x1p-23 * fabs(want), what,
		      "%.9g vs %.9g", got, want);

		naive_sum ns(n);
		ns.run(in, n);
		got = one(ns.result());
		snprintf(what, sizeof what, "reduction naive vs C at n=%d", n);
		check(close_sum(got, want), what, "%.9g vs %.9g", got, want);
#ifdef HAVE_WIN_REDUCTION
		{
			size_t np, nc;
			win_reduction_scratch(n, &np, &nc);
			float *partials = dalloc(np);
			unsigned *counter;
			CK(cudaMalloc(&counter, nc * sizeof *counter));
			CK(cudaMemset(counter, 0, nc * sizeof *counter));
			poison(out, 1);
			CK(win_reduction(out, in, partials, counter, n, 0));
			got = one(out);
			snprintf(what, sizeof what, "reduction winner vs C at n=%d", n);
			check(close_sum(got, want), what, "%.9g vs %.9g", got, want);
			CK(cudaFree(partials));
			CK(cudaFree(counter));
		}
#endif
		CK(cudaFree(in));
	}
	CK(cudaFree(out));
}

static void reduction_bench(double *read_gbs)
{
	const int n = RED_N;
	const double bytes = 4.0 * n + 4;
	float *in = dalloc(n), *out = dalloc(1);
	float ref;
	char msg[64];

	fill(in, n, 3, 0, 1);
	reduction_ref<<<1, 1024>>>(out, in, n);
	ref = one(out);

	/* the read-only roofline over the same input */
	tstat rs = time_grid([&](unsigned g) { k_read<<<g, 256>>>((const float4 *)in, n / 4, g_sink); }, n / 4);
	report("read", 4.0 * n, rs);
	*read_gbs = 4.0 * n / (rs.median * 1e6);

	{
		naive_sum ns(n);
		poison(ns.result(), 1);
		ns.run(in, n);
		float got = one(ns.result());
		snprintf(msg, sizeof msg, "%.9g vs %.9g", got, ref);
		check(close_sum(got, ref), "reduction naive vs reduction_ref at 2^26", "%s", msg);
		report("reduction.naive", bytes, time_it([&] { ns.run(in, n); }));
	}
	{
		size_t temp = 0;
		void *dtemp;
		CK(cub::DeviceReduce::Sum(nullptr, temp, in, out, n));
		CK(cudaMalloc(&dtemp, std::max<size_t>(temp, 1)));
		poison(out, 1);
		CK(cub::DeviceReduce::Sum(dtemp, temp, in, out, n));
		float got = one(out);
		snprintf(msg, sizeof msg, "%.9g vs %.9g", got, ref);
		check(close_sum(got, ref), "reduction CUB vs reduction_ref at 2^26", "%s", msg);
		report("reduction.cub", bytes, time_it([&] { cub::DeviceReduce::Sum(dtemp, temp, in, out, n); }));
		CK(cudaFree(dtemp));
	}
#ifdef HAVE_WIN_REDUCTION
	{
		size_t np, nc;
		win_reduction_scratch(n, &np, &nc);
		float *partials = dalloc(np);
		unsigned *counter;
		CK(cudaMalloc(&counter, nc * sizeof *counter));
		CK(cudaMemset(counter, 0, nc * sizeof *counter));
		poison(out, 1);
		CK(win_reduction(out, in, partials, counter, n, 0));
		float got = one(out);
		snprintf(msg, sizeof msg, "%.9g vs %.9g", got, ref);
		check(close_sum(got, ref), "reduction winner vs reduction_ref at 2^26", "%s", msg);
		report("reduction.win", bytes, time_it([&] { win_reduction(out, in, partials, counter, n, 0); }));
		/* deterministic: the timed launches gave the same value */
		float again = one(out);
		check(again == got, "reduction winner repeatable", "%.9g then %.9g", got, again);
		CK(cudaFree(partials));
		CK(cudaFree(counter));
	}
#endif
	CK(cudaFree(in));
	CK(cudaFree(out));
}

/* ---- copy ---- */

static void copy_bench(void)
{
	const size_t each = (size_t)256 << 20; /* as the tuner's copy for 2^26-float kernels */
	const size_t n4 = each / 16;
	float *src = dalloc(each / 4), *dst = dalloc(each / 4);
	fill(src, each / 4, 5, 0, 1);
	tstat s = time_grid([&](unsigned g) { k_copy<<<g, 256>>>((const float4 *)src, (float4 *)dst, n4); }, n4);
	double err;
	size_t bad = cmp(fetch(dst, 1 << 20).data(), fetch(src, 1 << 20).data(), 1 << 20, 0, 0, &err);
	check(!bad, "copy copied", "%zu bad in the first 2^20", bad);
	report("copy", 2.0 * each, s);
	CK(cudaFree(src));
	CK(cudaFree(dst));
}

/* ---- the reduction probe (COMPARE_PROBE=1) ---- */

#ifdef HAVE_WIN_REDUCTION
/* the winner compiled by NVRTC as the tuner compiles it (bench/compare/rtc.c), from $COMPARE_CUBIN */
static cudaKernel_t rtc_kernel(void)
{
	const char *path = getenv("COMPARE_CUBIN");
	cudaLibrary_t lib;
	cudaKernel_t k;

	if (!path || !*path)
		return NULL;
	CK(cudaLibraryLoadFromFile(&lib, path, NULL, NULL, 0, NULL, NULL, 0));
	CK(cudaLibraryGetKernel(&k, lib, "reduction"));
	return k;
}

/* The read-only kernel and the winner on 4 separately allocated copies of one input, 3 rounds
   of each, with compare's flush and with the tuner's; and the NVRTC build of the winner beside
   nvcc's. Prints one "probe" line per measurement: GB/s of each, the winner's % of read. */
static void reduction_probe(void)
{
	const int n = RED_N, nbuf = 4, rounds = 3;
	const double bytes = 4.0 * n + 4;
	float *in[nbuf], *out = dalloc(1), ref = 0;
	size_t np, nc;
	unsigned block[3], grid[3], smem;
	cudaKernel_t k = rtc_kernel();

	win_reduction_scratch(n, &np, &nc);
	win_reduction_geometry(n, block, grid, &smem);
	float *partials = dalloc(np);
	unsigned *counter;
	CK(cudaMalloc(&counter, nc * sizeof *counter));
	CK(cudaMemset(counter, 0, nc * sizeof *counter));
	for (int b = 0; b < nbuf; b++) {
		in[b] = dalloc(n);
		fill(in[b], n, 3, 0, 1);
	}
	printf("probe: winner grid %u block %u shared %u; nvrtc cubin %s\n", grid[0], block[0], smem,
	       k ? getenv("COMPARE_CUBIN") : "(none)");
	/* the read-only kernel over random inputs and over 1.0f everywhere (the tuner's roofline) */
	for (int r = 0; r < 2; r++)
		for (int one = 0; one < 2; one++) {
			float *src = in[0];
			fill(src, n, 3, one ? 1 : 0, 1);
			tstat rs = time_grid([&](unsigned g) {
				k_read<<<g, 256>>>((const float4 *)src, n / 4, g_sink); }, n / 4);
			printf("probe read over %s: %7.1f GB/s\n", one ? "1.0f    " : "[0, 1)  ",
			       4.0 * n / (rs.median * 1e6));
		}
	fill(in[0], n, 3, 0, 1);
	for (int r = 0; r < rounds; r++)
		for (int f = 0; f < 2; f++)
			for (int b = 0; b < nbuf; b++) {
				float *src = in[b];
				g_tuner_flush = f;
				tstat rs = time_grid([&](unsigned g) {
					k_read<<<g, 256>>>((const float4 *)src, n / 4, g_sink); }, n / 4);
				tstat ws = time_it([&] { win_reduction(out, src, partials, counter, n, 0); });
				float got = one(out);
				if (r == 0 && f == 0 && b == 0)
					ref = got;
				check(got == ref, "probe: winner repeatable", "%.9g vs %.9g", got, ref);
				double rg = 4.0 * n / (rs.median * 1e6), wg = bytes / (ws.median * 1e6);
				printf("probe round %d flush %-7s buf %d read %7.1f nvcc %7.1f GB/s %5.1f %%",
				       r, f ? "tuner" : "compare", b, rg, wg, 100 * wg / rg);
				if (k) {
					void *args[] = {&out, &src, &partials, &counter, (void *)&n};
					tstat ks = time_it([&] {
						CK(cudaLaunchKernel((const void *)k, dim3(grid[0], grid[1], grid[2]),
						                    dim3(block[0], block[1], block[2]), args, smem, 0));
					});
					double kg = bytes / (ks.median * 1e6);
					printf(" nvrtc %7.1f GB/s %5.1f %%", kg, 100 * kg / rg);
					check(one(out) == ref, "probe: nvrtc winner agrees", "%.9g vs %.9g", one(out), ref);
				}
				printf("\n");
				fflush(stdout);
			}
	g_tuner_flush = 0;
	for (int b = 0; b < nbuf; b++)
		CK(cudaFree(in[b]));
	CK(cudaFree(partials));
	CK(cudaFree(counter));
	CK(cudaFree(out));
}
#endif

int main(void)
{
	cudaDeviceProp p;
	int dev = 0, l2 = 0, drv = 0, rt = 0;
	double read_gbs = 0;

	CK(cudaSetDevice(dev));
	CK(cudaGetDeviceProperties(&p, dev));
	CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
	CK(cudaDriverGetVersion(&drv));
	CK(cudaRuntimeGetVersion(&rt));
	g_sms = p.multiProcessorCount;
	printf("compare: %s, sm_%d%d, %d SMs, L2 %.0f MiB, driver API %d.%d, runtime %d.%d\n", p.name,
	       p.major, p.minor, g_sms, l2 / 1048576.0, drv / 1000, drv % 1000 / 10, rt / 1000,
	       rt % 1000 / 10);
	g_flush_n = std::max<size_t>(3 * (size_t)l2, (size_t)128 << 20) / 16;
	g_flush = dalloc(g_flush_n * 4);
	g_sink = dalloc(1);
	fill(g_flush, g_flush_n * 4, 9, 0, 1);
	printf("compare: %d warm-up launches, median of %d samples, L2 flushed before each by "
	       "reading %.0f MiB\n", WARMUP, SAMPLES, g_flush_n * 16 / 1048576.0);
	g_zeros_n = std::max<size_t>(2 * (size_t)l2, (size_t)64 << 20) / 16;
	g_zeros = dalloc(g_zeros_n * 4);
	CK(cudaMemset(g_zeros, 0, g_zeros_n * 16));
	CK(cudaMemcpyToSymbol(coef, coef_values, sizeof coef_values));
	if (getenv("COMPARE_PROBE")) {
#ifdef HAVE_WIN_REDUCTION
		reduction_probe();
#else
		printf("probe: no reduction winner built in\n");
#endif
		printf("compare: %d check(s) failed\n", failures);
		return failures != 0;
	}

	filter21_checks();
	transpose_checks();
	reduction_checks();
	printf("time %-16s %12s %10s %10s %7s %9s\n", "name", "bytes", "median_ms", "min_ms",
	       "spread", "GB/s");
	copy_bench();
	reduction_bench(&read_gbs);
	filter21_bench();
	transpose_bench();
	CK(cudaGetLastError());
	printf("compare: %d check(s) failed\n", failures);
	return failures != 0;
}
