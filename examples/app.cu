/*
 * An application that ships to more than one GPU generation: it carries the filter21 and
 * reduction bundles (tuner bundle), picks each kernel's entry for the GPU it runs on, says which
 * and why, runs it twice and checks both results against a CPU reference (tests/ref).
 *
 * Build: ninja examples (examples/build.sh says how the bundles are made; the GPU results in
 * them are synthetic unless you bundle your own: tuner bundle out/<kernel>).
 * Run: out/examples/app [n]. Exit status: 0 every check passed, 1 a result mismatched,
 * 2 no GPU or a CUDA error.
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "filter21_bundle.h"
#include "reduction_bundle.h"
#include "ref.h"

/* stop with status 2 when a CUDA call fails */
#define CUDA(call)                                                                           \
	do {                                                                                 \
		cudaError_t e_ = (call);                                                     \
		if (e_ != cudaSuccess) {                                                     \
			fprintf(stderr, "app: %s: %s\n", #call, cudaGetErrorString(e_));     \
			exit(2);                                                             \
		}                                                                            \
	} while (0)

/* seeded values in [lo, hi) */
static void fill(std::vector<float> &v, unsigned seed, float lo, float hi)
{
	for (size_t i = 0; i < v.size(); i++) {
		seed = seed * 1664525u + 1013904223u;
		v[i] = lo + (hi - lo) * (float)(seed >> 8) / 16777216.0f;
	}
}

/* a buffer of count elements on the device, zeroed when zero */
template <typename T> static T *alloc(long long count, int zero)
{
	T *p;

	CUDA(cudaMalloc(&p, (size_t)count * sizeof *p));
	if (zero)
		CUDA(cudaMemset(p, 0, (size_t)count * sizeof *p));
	return p;
}

/* print the entry chosen for this GPU and why; its index */
static int choose(const char *kernel, int entry, const struct tuner_entry *e,
                  const struct tuner_choice *c)
{
	if (entry < 0) {
		fprintf(stderr, "app: %s: %s\n", kernel, c->reason);
		exit(2);
	}
	printf("%s: entry %d, variant %s (%s): %s\n", kernel, entry, e[entry].id, e[entry].params,
	       c->reason);
	return entry;
}

static int filter21(long long n, long long sms)
{
	struct tuner_choice c;
	int e = choose("filter21", filter21_bundle_select_current(&c), filter21_bundle_entries, &c);
	std::vector<float> in((size_t)filter21_bundle_in_count(e, n, sms)), out((size_t)n),
		ref((size_t)n);
	float *din = alloc<float>((long long)in.size(), FILTER21_BUNDLE_IN_ZERO);
	float *dout = alloc<float>(filter21_bundle_out_count(e, n, sms), FILTER21_BUNDLE_OUT_ZERO);
	int bad = 0;

	fill(in, 1, -1, 1);
	ref_filter21(ref.data(), in.data(), filter21_bundle_coef_values, (size_t)n);
	CUDA(cudaMemcpy(din, in.data(), in.size() * sizeof in[0], cudaMemcpyHostToDevice));
	CUDA(filter21_bundle_setup(e));
	for (int run = 0; run < 2; run++) {
		CUDA(cudaMemset(dout, 0xff, (size_t)n * sizeof *dout)); /* NaN: unwritten shows */
		CUDA(filter21_bundle_launch(e, dout, din, n, 0));
		CUDA(cudaMemcpy(out.data(), dout, out.size() * sizeof out[0], cudaMemcpyDeviceToHost));
		for (long long i = 0; i < n; i++)
			if (!(std::fabs(out[i] - ref[i]) <= 1e-5f + 1e-5f * std::fabs(ref[i])) && !bad++)
				printf("filter21: launch %d: out[%lld] = %.9g, the CPU says %.9g\n", run + 1, i,
				       out[i], ref[i]);
	}
	printf("filter21: n = %lld, two launches: %s\n", n, bad ? "MISMATCH" : "match the CPU");
	CUDA(cudaFree(din));
	CUDA(cudaFree(dout));
	return bad != 0;
}

static int reduction(long long n, long long sms)
{
	struct tuner_choice c;
	int e = choose("reduction", reduction_bundle_select_current(&c), reduction_bundle_entries, &c);
	std::vector<float> in((size_t)reduction_bundle_in_count(e, n, sms));
	float *din = alloc<float>((long long)in.size(), REDUCTION_BUNDLE_IN_ZERO);
	float *dout = alloc<float>(reduction_bundle_out_count(e, n, sms), REDUCTION_BUNDLE_OUT_ZERO);
	/* scratch: as the header says, zero before the first launch (the kernel restores it) */
	float *part = alloc<float>(reduction_bundle_partials_count(e, n, sms),
	                           REDUCTION_BUNDLE_PARTIALS_ZERO);
	unsigned *cnt = alloc<unsigned>(reduction_bundle_counter_count(e, n, sms),
	                                REDUCTION_BUNDLE_COUNTER_ZERO);
	double ref;
	int bad = 0;

	fill(in, 3, 0, 1);
	ref = ref_sum(in.data(), (size_t)n);
	CUDA(cudaMemcpy(din, in.data(), in.size() * sizeof in[0], cudaMemcpyHostToDevice));
	CUDA(reduction_bundle_setup(e));
	for (int run = 0; run < 2; run++) {
		float got;
		CUDA(reduction_bundle_launch(e, dout, din, part, cnt, n, 0));
		CUDA(cudaMemcpy(&got, dout, sizeof got, cudaMemcpyDeviceToHost));
		if (!(std::fabs(got - ref) <= 1e-5 + 1e-5 * std::fabs(ref)) && !bad++)
			printf("reduction: launch %d: %.9g, the CPU says %.9g\n", run + 1, got, ref);
	}
	printf("reduction: n = %lld, two launches: %s\n", n, bad ? "MISMATCH" : "match the CPU");
	CUDA(cudaFree(din));
	CUDA(cudaFree(dout));
	CUDA(cudaFree(part));
	CUDA(cudaFree(cnt));
	return bad != 0;
}

int main(int argc, char **argv)
{
	long long n = argc > 1 ? atoll(argv[1]) : (1 << 24) + 3, sms = tuner_device_sms();

	if (n < 1 || n > (1LL << 30)) {
		fprintf(stderr, "usage: app [n], 1 <= n <= 2^30\n");
		return 2;
	}
	if (sms < 1) {
		fprintf(stderr, "app: no CUDA device\n");
		return 2;
	}
	return filter21(n, sms) | reduction(n, sms);
}
