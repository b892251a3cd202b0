/*
 * dispatch: a size-dispatching best.cu (tuner --size n=a,b,...) as an application uses it.
 * At each size it asks <k>_bundle_at_size for the entry of this GPU, then verifies against the
 * CPU reference (tests/ref) and times, interleaved sample by sample, every entry's kernel (each
 * variant once, with the bundle's launch), the single-size winners linked in (dispatch_one.cu)
 * whose size is this one and, with -c, cub::DeviceReduce::Sum. A working set below the L2: a
 * sample replays a CUDA graph of R launches (R times the fastest >= 20 us, R >= 20), timed by
 * events inside it, and, interleaved with those, R launches queued behind a kernel that holds
 * the stream until they are all enqueued (as the tuner times them: docs/how-it-works.md), timed
 * by events around them ("held"); above: one launch after a kernel reads a buffer of 2 x L2
 * (clean lines).
 * Build (tests/gpu/dispatch.sh): nvcc -DKERNEL_FILTER21 (_TRANSPOSE, _REDUCTION)
 *   -DBEST_H='"RUN/best.h"' tests/gpu/dispatch.cu RUN/best.cu [dispatch_one objects] tests/ref/KERNEL.c
 * Usage: dispatch [-s SAMPLES] [-c] [-P PLACES [-G MIB]] KIND:SIZE...   KIND p (a tuned point), b (between
 *   points), c (the pick and CUB only); SIZE n, or ROWSxCOLS for the transpose. -P: every size
 *   timed on PLACES copies of the buffers (the reduction's scratch too), each its own allocation
 *   (SAMPLES on each, interleaved; a graph per copy): where the buffers land in memory can move
 *   a kernel's time, and an application's buffers land anywhere. The copies lie after spacers
 *   of odd multiples of MIB (-G, default 1) mebibytes: -G 1024 spreads them over gigabytes.
 * Prints "time KIND LABEL NAME VARIANT MEDIAN_US MIN_US MODE CHECK PICK" per size and
 * candidate (MODE graph, held or flushed; PICK: pick or -; with -P, MEDIAN_US the mean of the
 * copies' medians) and with -P "place KIND LABEL NAME VARIANT COPY MEDIAN_US" per copy; exits 1
 * when a check failed, 2 on a CUDA error.
 */
#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <vector>

#include "dispatch.h"
#include "../ref/ref.h"
#include BEST_H

#if defined(KERNEL_FILTER21)
#define KNAME "filter21"
#define AT(e, p) filter21_bundle_at_size(e, (p)->n, (p)->sms)
#define LAUNCH(e, p, s) filter21_bundle_launch(e, (p)->out, (p)->in, (p)->n, s)
#define SETUP filter21_bundle_setup
#define SELECT filter21_bundle_select_current
#define ENTRIES filter21_bundle_entries
#define NENTRIES FILTER21_BUNDLE_ENTRIES
#elif defined(KERNEL_TRANSPOSE)
#define KNAME "transpose"
#define AT(e, p) transpose_bundle_at_size(e, (p)->rows, (p)->cols, (p)->sms)
#define LAUNCH(e, p, s) transpose_bundle_launch(e, (p)->out, (p)->in, (p)->rows, (p)->cols, s)
#define SETUP transpose_bundle_setup
#define SELECT transpose_bundle_select_current
#define ENTRIES transpose_bundle_entries
#define NENTRIES TRANSPOSE_BUNDLE_ENTRIES
#elif defined(KERNEL_REDUCTION)
#include <cub/device/device_reduce.cuh>
#define KNAME "reduction"
#define AT(e, p) reduction_bundle_at_size(e, (p)->n, (p)->sms)
#define LAUNCH(e, p, s) \
	reduction_bundle_launch(e, (p)->out, (p)->in, (p)->partials, (p)->counter, (p)->n, s)
#define SETUP reduction_bundle_setup
#define SELECT reduction_bundle_select_current
#define ENTRIES reduction_bundle_entries
#define NENTRIES REDUCTION_BUNDLE_ENTRIES
#else
#error "define KERNEL_FILTER21, KERNEL_TRANSPOSE or KERNEL_REDUCTION"
#endif

#define CK(call) ck((call), #call, __LINE__)

static void ck(cudaError_t e, const char *what, int line)
{
	if (e != cudaSuccess) {
		fprintf(stderr, "dispatch: line %d: %s: %s\n", line, what, cudaGetErrorString(e));
		exit(2);
	}
}

static const struct one *ones[64];
static int nones;

void one_add(const struct one *o)
{
	if (nones < 64)
		ones[nones++] = o;
}

/* a candidate at one size: an entry of the bundle, a single-size winner or CUB */
struct cand {
	char name[32];
	const char *id;
	int entry;               /* >= 0: the bundle's entry */
	const struct one *one;   /* else a single-size winner, else (both unset) CUB */
	std::vector<float> us, held; /* graph or flushed samples; held ones */
	std::vector<std::vector<float> > at; /* with -P: the samples on each copy */
	cudaGraph_t g[16];       /* below the L2: a graph per copy of the buffers */
	cudaGraphExec_t x[16];
};

static cudaStream_t st;
static cudaEvent_t ev0, ev1;
static const uint4 *flushbuf;
static size_t flushn;
static unsigned *sink;
static volatile unsigned *hflag; /* the hold's word, in mapped host memory */
static unsigned *dflag;
#ifdef KERNEL_REDUCTION
static void *cubtmp;
static size_t cubbytes;
#endif

/* reads every line of p[0 .. n): the L2 then holds clean lines only */
__global__ void read_flush(const uint4 *__restrict__ p, size_t n, unsigned *out)
{
	unsigned a = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		uint4 v = p[i];
		a ^= v.x ^ v.y ^ v.z ^ v.w;
	}
	if (a == 0x9e3779b9u)
		*out = a;
}

/* spins until the host stores a non-zero *f (at most 2 s): the launches queued behind it meet
   the GPU all at once, as the tuner's held samples do */
__global__ void hold(const volatile unsigned *f)
{
	unsigned long long t0, t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while (!*f && t - t0 < 2000000000ull);
}

static cudaError_t launch(const struct cand *c, const struct prob *p, cudaStream_t s)
{
	if (c->entry >= 0)
		return LAUNCH(c->entry, p, s);
	if (c->one)
		return c->one->launch(p, s);
#ifdef KERNEL_REDUCTION
	return cub::DeviceReduce::Sum(cubtmp, cubbytes, p->in, p->out, (int)p->n, s);
#else
	return cudaErrorInvalidValue;
#endif
}

/* c's output at p against the reference ref (the host's result): "ok" or why not */
static const char *check(const struct cand *c, const struct prob *p, const float *ref,
                         long long nout, float *host, char *why, size_t len)
{
	/* NaN: unwritten elements fail (on the launches' stream: a memset on the legacy one may
	   still run under the kernel, which does not wait for it) */
	CK(cudaMemsetAsync(p->out, 0xff, nout * sizeof(float), st));
	CK(launch(c, p, st));
	CK(cudaStreamSynchronize(st));
	CK(cudaMemcpy(host, p->out, nout * sizeof(float), cudaMemcpyDeviceToHost));
	for (long long i = 0; i < nout; i++) {
#if defined(KERNEL_TRANSPOSE)
		int ok = host[i] == ref[i];
#else
		int ok = fabs((double)host[i] - ref[i]) <= 1e-5 + 1e-5 * fabs((double)ref[i]);
#endif
		if (!ok) {
			snprintf(why, len, "FAIL@%lld:%g/%g", i, host[i], ref[i]);
			return why;
		}
	}
	return "ok";
}

/* one sample of c: one launch after a flush, or a replay of its graph of r launches on copy j
   of the buffers */
static float sample(struct cand *c, const struct prob *p, int r, int j)
{
	float ms;

	if (!r) {
		unsigned blocks = (unsigned)std::min<long long>(p->sms * 8, (flushn + 255) / 256);
		read_flush<<<blocks, 256, 0, st>>>(flushbuf, flushn, sink);
		CK(cudaEventRecord(ev0, st));
		CK(launch(c, p, st));
		CK(cudaEventRecord(ev1, st));
		CK(cudaEventSynchronize(ev1));
		CK(cudaEventElapsedTime(&ms, ev0, ev1));
		return ms * 1000;
	}
	CK(cudaGraphLaunch(c->x[j], st));
	CK(cudaStreamSynchronize(st));
	CK(cudaEventElapsedTime(&ms, ev0, ev1));
	return ms * 1000 / r;
}

/* one held sample of c: r launches queued behind the hold, timed by events around them */
static float held(struct cand *c, const struct prob *p, int r)
{
	float ms;

	*hflag = 0;
	hold<<<1, 1, 0, st>>>(dflag);
	CK(cudaEventRecord(ev0, st));
	for (int i = 0; i < r; i++)
		CK(launch(c, p, st));
	CK(cudaEventRecord(ev1, st));
	__sync_synchronize();
	*hflag = 1;
	CK(cudaEventSynchronize(ev1));
	CK(cudaEventElapsedTime(&ms, ev0, ev1));
	return ms * 1000 / r;
}

/* c's graph on copy j of the buffers (p's): events around r launches, recorded inside it */
static void capture(struct cand *c, const struct prob *p, int r, int j)
{
	if (c->x[j]) {
		CK(cudaGraphExecDestroy(c->x[j]));
		CK(cudaGraphDestroy(c->g[j]));
	}
	CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed));
	CK(cudaEventRecordWithFlags(ev0, st, cudaEventRecordExternal));
	for (int i = 0; i < r; i++)
		CK(launch(c, p, st));
	CK(cudaEventRecordWithFlags(ev1, st, cudaEventRecordExternal));
	CK(cudaStreamEndCapture(st, &c->g[j]));
	CK(cudaGraphInstantiate(&c->x[j], c->g[j], 0));
}

/* p on copy j of the buffers (-P) */
static void use_copy(struct prob *p, int j, const std::vector<float *> &ins,
                     const std::vector<float *> &outs, const std::vector<float *> &parts,
                     const std::vector<unsigned *> &cnts)
{
	p->in = ins[j];
	p->out = outs[j];
	if (!parts.empty()) {
		p->partials = parts[j];
		p->counter = cnts[j];
	}
}

static double median(std::vector<float> v)
{
	std::sort(v.begin(), v.end());
	return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2.0;
}

/* fills h[0 .. n) with uniform values in [lo, hi) (a fixed LCG) */
static void fill(float *h, size_t n, float lo, float hi)
{
	unsigned long long x = 0x2545f4914f6cdd1dULL;
	for (size_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		h[i] = lo + (hi - lo) * (float)((x >> 40) * (1.0 / 16777216.0));
	}
}

int main(int argc, char **argv)
{
	int samples = 30, cub = 0, places = 1, gap = 1, dev, l2, sms, i, failed = 0;
	struct tuner_choice choice;
	struct cudaDeviceProp prop;
	std::vector<char *> args;
	long long maxin = 1, maxout = 1;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-s") && i + 1 < argc)
			samples = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-c"))
			cub = 1;
		else if (!strcmp(argv[i], "-P") && i + 1 < argc)
			places = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-G") && i + 1 < argc)
			gap = atoi(argv[++i]);
		else
			args.push_back(argv[i]);
	}
	if (args.empty() || samples < 1 || places < 1 || places > 16 || gap < 1 || gap > 4096) {
		fprintf(stderr, "usage: dispatch [-s SAMPLES] [-c] [-P 1..16 [-G 1..4096]] KIND:SIZE...\n");
		return 2;
	}
	CK(cudaGetDevice(&dev));
	CK(cudaGetDeviceProperties(&prop, dev));
	CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
	sms = prop.multiProcessorCount;
	CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	CK(cudaEventCreate(&ev0));
	CK(cudaEventCreate(&ev1));
	flushn = 2 * (size_t)l2 / sizeof(uint4);
	CK(cudaMalloc(&flushbuf, flushn * sizeof(uint4)));
	CK(cudaMemset((void *)flushbuf, 1, flushn * sizeof(uint4)));
	CK(cudaMalloc(&sink, sizeof *sink));
	CK(cudaHostAlloc((void **)&hflag, sizeof *hflag, cudaHostAllocMapped));
	CK(cudaHostGetDevicePointer((void **)&dflag, (void *)hflag, 0));
	/* the problems: sizes from the arguments, buffers for the largest */
	std::vector<struct prob> ps(args.size());
	std::vector<char> kinds(args.size());
	for (size_t a = 0; a < args.size(); a++) {
		struct prob *p = &ps[a];
		char *s = args[a];
		if (strlen(s) < 3 || s[1] != ':' || !strchr("pmbc", s[0])) {
			fprintf(stderr, "dispatch: %s: not KIND:SIZE\n", s);
			return 2;
		}
		kinds[a] = s[0];
		memset(p, 0, sizeof *p);
		p->sms = sms;
#ifdef KERNEL_TRANSPOSE
		if (sscanf(s + 2, "%lldx%lld", &p->rows, &p->cols) != 2) {
			fprintf(stderr, "dispatch: %s: not ROWSxCOLS\n", s);
			return 2;
		}
		maxin = std::max(maxin, p->rows * p->cols);
		maxout = std::max(maxout, p->rows * p->cols);
#else
		p->n = atoll(s + 2);
		maxin = std::max(maxin, p->n + 20);
		maxout = std::max(maxout, KNAME[0] == 'f' ? p->n : 1LL);
#endif
	}
	float *in, *out, *partials = NULL;
	unsigned *counter = NULL;
	std::vector<float> hin(maxin), hout(maxout), ref(maxout);
	fill(hin.data(), maxin, KNAME[0] == 'r' ? 0.0f : -1.0f, 1.0f);
	CK(cudaMalloc(&in, maxin * sizeof(float)));
	CK(cudaMalloc(&out, maxout * sizeof(float)));
	CK(cudaMemcpy(in, hin.data(), maxin * sizeof(float), cudaMemcpyHostToDevice));
	/* -P: more copies of the buffers, each after a spacer of a different size, the inputs
	   first, then the outputs; copy j pairs input j with output (PLACES - j) % PLACES, so that
	   the copies differ in where the output lies from the input too */
	std::vector<float *> ins(1, in), outs(1, out);
	for (int o = 0; o < 2; o++)
		for (i = 1; i < places; i++) {
			void *spacer;
			float *b;
			CK(cudaMalloc(&spacer, (size_t)(2 * i - 1 + o) * gap << 20));
			CK(cudaMalloc(&b, (o ? maxout : maxin) * sizeof(float)));
			if (!o)
				CK(cudaMemcpy(b, hin.data(), maxin * sizeof(float), cudaMemcpyHostToDevice));
			(o ? outs : ins).push_back(b);
		}
	for (i = 1; i < places; i++)
		if (places - i > i)
			std::swap(outs[i], outs[places - i]);
	long long np = maxin / 64 + 65536, nc = maxin / 64 + 65536;
	std::vector<float *> parts;
	std::vector<unsigned *> cnts;
#ifdef KERNEL_REDUCTION
	for (i = 0; i < places; i++) { /* the scratch, a copy each, after a spacer of its own */
		if (i) {
			void *spacer;
			CK(cudaMalloc(&spacer, (size_t)(2 * i + 1) * gap << 20));
		}
		CK(cudaMalloc(&partials, np * sizeof(float)));
		CK(cudaMalloc(&counter, nc * sizeof(unsigned)));
		CK(cudaMemset(partials, 0, np * sizeof(float)));
		CK(cudaMemset(counter, 0, nc * sizeof(unsigned)));
		parts.push_back(partials);
		cnts.push_back(counter);
	}
	partials = parts[0];
	counter = cnts[0];
	CK(cub::DeviceReduce::Sum(NULL, cubbytes, in, out, (int)(maxin - 20), st));
	CK(cudaMalloc(&cubtmp, cubbytes));
#endif
	CK(cudaDeviceSynchronize()); /* the memsets above, before the first launch on st */
	printf("dispatch: %s on %s, %d SMs, L2 %d MiB; %d samples\n", KNAME, prop.name, sms,
	       l2 >> 20, samples);
	/* the entry for this GPU, as an application picks it */
	int gpu = SELECT(&choice);
	if (gpu < 0) {
		fprintf(stderr, "dispatch: no entry: %s\n", choice.reason);
		return 2;
	}
	printf("dispatch: entry %d: %s\n", gpu, choice.reason);
	for (i = 0; i < NENTRIES; i++)
		CK(SETUP(i));
	for (i = 0; i < nones; i++)
		CK(ones[i]->setup());

	for (size_t a = 0; a < args.size(); a++) {
		struct prob *p = &ps[a];
		std::vector<struct cand> cs;
		char label[64], why[64];
		const struct one *pickone = NULL;
		int pick, r = 0;

		p->in = in;
		p->out = out;
		p->partials = partials;
		p->counter = counter;
		p->npartials = np;
		p->ncounter = nc;
#ifdef KERNEL_TRANSPOSE
		snprintf(label, sizeof label, "rows=%lld_cols=%lld", p->rows, p->cols);
		long long nout = p->rows * p->cols;
		double bytes = 8.0 * nout;
		ref_transpose(ref.data(), hin.data(), p->rows, p->cols);
#elif defined(KERNEL_FILTER21)
		snprintf(label, sizeof label, "n=%lld", p->n);
		long long nout = p->n;
		double bytes = 8.0 * p->n;
		ref_filter21(ref.data(), hin.data(), filter21_bundle_coef_values, p->n);
#else
		snprintf(label, sizeof label, "n=%lld", p->n);
		long long nout = 1;
		double bytes = 4.0 * p->n;
		ref[0] = (float)ref_sum(hin.data(), p->n);
#endif
		pick = AT(gpu, p);
		for (i = 0; i < nones; i++)
			if (!strcmp(ones[i]->name, "pick") && !strcmp(ones[i]->at, "*"))
				pickone = ones[i];
		/* the candidates: each variant of the entries once (the pick's as the pick), the
		   single-size winners of this size, CUB */
		for (i = 0; i < NENTRIES; i++) {
			int e = ENTRIES[i].variant == ENTRIES[pick].variant ? pick : i, dup = 0;
			for (size_t k = 0; k < cs.size(); k++)
				dup |= cs[k].entry >= 0 && ENTRIES[cs[k].entry].variant == ENTRIES[e].variant;
			if (dup || (kinds[a] == 'c' && (e != pick || pickone)))
				continue;
#ifdef KERNEL_REDUCTION
			if (reduction_bundle_partials_count(e, p->n, p->sms) > np ||
			    reduction_bundle_counter_count(e, p->n, p->sms) > nc) {
				fprintf(stderr, "dispatch: entry %d needs more scratch at %s\n", e, label);
				return 2;
			}
#endif
			struct cand c = {};
			snprintf(c.name, sizeof c.name, "entry%d", e);
			c.id = ENTRIES[e].id;
			c.entry = e;
			cs.push_back(c);
		}
		for (i = 0; i < nones; i++) {
			if (strcmp(ones[i]->at, label) && strcmp(ones[i]->at, "*"))
				continue;
			if (kinds[a] == 'c' && ones[i] != pickone)
				continue;
			struct cand c = {};
			snprintf(c.name, sizeof c.name, "%s", ones[i]->name);
			c.id = ones[i]->id;
			c.entry = -1;
			c.one = ones[i];
			cs.push_back(c);
		}
		if (cub) {
			struct cand c = {};
			snprintf(c.name, sizeof c.name, "cub");
			c.id = "cub::DeviceReduce::Sum";
			c.entry = -1;
			cs.push_back(c);
		}
		std::vector<std::string> checks;
		for (size_t k = 0; k < cs.size(); k++) {
			checks.push_back(check(&cs[k], p, ref.data(), nout, hout.data(), why, sizeof why));
			failed |= checks[k] != "ok" && strcmp(cs[k].name, "cub");
		}
		/* below the L2: graphs of r launches, r * the fastest >= 20 us */
		if (bytes < l2) {
			float fastest = 1e30f;
			r = 20;
			for (size_t k = 0; k < cs.size(); k++) {
				capture(&cs[k], p, r, 0);
				sample(&cs[k], p, r, 0);
				fastest = std::min(fastest, sample(&cs[k], p, r, 0));
			}
			bool longer = fastest * r < 20;
			if (longer)
				r = std::min(2000, (int)ceil(20 / fastest));
			for (int j = 0; j < places; j++) /* each copy's graphs (copy 0's again if longer) */
				for (size_t k = 0; k < cs.size(); k++) {
					use_copy(p, j, ins, outs, parts, cnts);
					if (j || longer)
						capture(&cs[k], p, r, j);
				}
		}
		for (size_t k = 0; k < cs.size(); k++)
			cs[k].at.resize(places);
		for (int s = -2; s < samples; s++) /* interleaved, after 2 rounds of warm-up */
			for (int j = 0; j < places; j++)
				for (size_t k = 0; k < cs.size(); k++) {
					use_copy(p, j, ins, outs, parts, cnts);
					float us = sample(&cs[k], p, r, j), h = r ? held(&cs[k], p, r) : 0;
					if (s >= 0) {
						cs[k].at[j].push_back(us);
						cs[k].us.push_back(us);
						if (r)
							cs[k].held.push_back(h);
					}
				}
		use_copy(p, 0, ins, outs, parts, cnts);
		for (size_t k = 0; k < cs.size(); k++) {
			struct cand *c = &cs[k];
			int ispick = pickone ? c->one == pickone : c->entry == pick;
			double mean = 0;
			for (size_t j = 0; j < c->at.size(); j++) {
				mean += median(c->at[j]) / c->at.size();
				if (c->at.size() > 1)
					printf("place %c %s %s %s %zu %.3f\n", kinds[a], label, c->name, c->id, j,
					       median(c->at[j]));
			}
			printf("time %c %s %s %s %.3f %.3f %s %s %s\n", kinds[a], label, c->name, c->id,
			       mean, *std::min_element(c->us.begin(), c->us.end()),
			       r ? "graph" : "flushed", checks[k].c_str(), ispick ? "pick" : "-");
			if (r)
				printf("time %c %s %s %s %.3f %.3f held %s %s\n", kinds[a], label, c->name,
				       c->id, median(c->held),
				       *std::min_element(c->held.begin(), c->held.end()), checks[k].c_str(),
				       ispick ? "pick" : "-");
			for (int j = 0; j < places; j++)
				if (c->x[j]) {
					CK(cudaGraphExecDestroy(c->x[j]));
					CK(cudaGraphDestroy(c->g[j]));
				}
		}
		if (r)
			printf("size %s: graphs of %d launches\n", label, r);
		fflush(stdout);
	}
	return failed;
}
