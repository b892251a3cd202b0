/*
 * scale bundle: the winners of 3 tuned GPUs and a portable default, side by side, and the
 * selection of the entry for the GPU an application runs on. Emitted by tuner 0.1 on 2026-01-01T00:00:00Z
 * from TMP/scale (each GPU's results.json and the config and template tuned with).
 * config: tests/kernels/scale.yaml (fnv1a64 1122c91597482699), template: tests/kernels/scale.cu (fnv1a64 3a663a8754132da2)
 *
 * entry  GPU, compute capability, multiprocessors: variant (parameters), median, GB/s, % of copy
 *     0  NVIDIA H100 80GB HBM3, 9.0, 132: v1d0b1d02 (BLOCK=256 UNROLL=1), 0.8000 ms, 0.0 GB/s, 0.0 %
 *     1  NVIDIA H200, 9.0, 132: v21e58637 (BLOCK=64 UNROLL=1), 0.8000 ms, 0.0 GB/s, 0.0 %
 *     2  NVIDIA A100-SXM4-80GB, 8.0, 108: v21eefa88 (BLOCK=64 UNROLL=2), 0.8000 ms, 0.0 GB/s, 0.0 %
 *     3  portable default: v4f76e4c1 (BLOCK=128 UNROLL=2), at least 95.2 % of each tuned GPU's best
 *
 * Compile scale_bundle.cu once into the application, for every architecture it holds:
 * nvcc flags: -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90
 * The last adds PTX that the driver compiles for GPUs newer than sm_90; a GPU older than
 * sm_80 runs the portable default only with its own, e.g. -gencode arch=compute_75,code=sm_75.
 * Use: scale_bundle_select_current(&choice) picks the entry for the current device (scale_bundle_select
 * for a description); scale_bundle_setup(entry) once per device; allocate the buffers (scale_bundle_BUF_count);
 * then scale_bundle_launch(entry, ...).
 */
#ifndef TUNER_SCALE_BUNDLE_H
#define TUNER_SCALE_BUNDLE_H

#include <stdio.h>
#include <string.h>

#ifndef TUNER_HELPERS
#define TUNER_HELPERS
static inline long long tuner_ceil_div(long long a, long long b)
{
	return a / b + ((a % b != 0) && ((a < 0) == (b < 0)));
}
static inline long long tuner_min(long long a, long long b) { return a < b ? a : b; }
static inline long long tuner_max(long long a, long long b) { return a > b ? a : b; }
static inline long long tuner_log2(long long a)
{
	long long r = -1;
	while (a > 0) {
		a >>= 1;
		r++;
	}
	return r;
}
/* what a buffer is to the kernel */
enum tuner_role {
	TUNER_ROLE_IN,      /* its input: the application's data */
	TUNER_ROLE_OUT,     /* written by the kernel */
	TUNER_ROLE_SCRATCH  /* the kernel's own: it must hold given values before the first launch */
};
#endif
#if defined(__CUDACC__) && !defined(TUNER_HELPERS_CUDA)
#define TUNER_HELPERS_CUDA
/* the multiprocessor count of the current device (0 if the runtime cannot tell) */
static inline long long tuner_device_sms(void)
{
	int d = 0, n = 0;

	if (cudaGetDevice(&d) != cudaSuccess ||
	    cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, d) != cudaSuccess)
		return 0;
	return n;
}
#endif

#ifndef TUNER_BUNDLE_COMMON
#define TUNER_BUNDLE_COMMON
/* a GPU as the selection sees it */
struct tuner_gpu {
	const char *name;         /* as the runtime reports it (cudaDeviceProp.name) */
	int cc_major, cc_minor;   /* compute capability */
	int sms;                  /* multiprocessor count */
};
/* an entry of a bundle: a tuned GPU's winner (at a point, if it was tuned at several), the
   variant for the sizes between two points of a GPU (lo, hi > 0), or (gpu NULL) the portable
   default */
struct tuner_entry {
	const char *gpu;
	int cc_major, cc_minor, sms;
	int variant;              /* which of the bundle's kernels it launches */
	const char *id, *params;  /* that kernel's variant and its parameters */
	double median_ms, gbs, pct_copy; /* its timing on that GPU */
	double worst;             /* the portable default: its lowest ratio to a tuned GPU's
	                             best, in % (0: none was timed on every GPU); a between
	                             entry: its lower ratio to the fastest at its two points */
	double work;              /* bytes it moves at the sizes it was tuned at (0: unknown, or
	                             a between entry) */
	double lo, hi;            /* a between entry: the bytes it moves at its two points */
};
/* why an entry was chosen, in the order the selection tries them */
enum tuner_rule { TUNER_EXACT, TUNER_SAME_CC, TUNER_LOWER_CC, TUNER_PORTABLE };
struct tuner_choice {
	int entry;
	enum tuner_rule rule;
	char reason[320];
};
/* the entry of e[0 .. n) for GPU g: the same GPU by name; else a tuned GPU of the same
   compute capability (the nearest multiprocessor count); else the nearest lower compute
   capability (likewise); else the portable default. Returns the entry, also in c. */
static inline int tuner_select(const struct tuner_entry *e, int n, const struct tuner_gpu *g,
                               struct tuner_choice *c)
{
	const char *name = g->name ? g->name : "";
	int cc = g->cc_major * 10 + g->cc_minor, i, best = -1, bcc = -1, bd = 0, portable = n - 1;

	for (i = 0; i < n; i++) {
		if (e[i].gpu && !strcmp(e[i].gpu, name)) {
			c->entry = i;
			c->rule = TUNER_EXACT;
			snprintf(c->reason, sizeof c->reason, "exact GPU %s", name);
			return i;
		}
	}
	for (i = 0; i < n; i++) {
		int ecc = e[i].cc_major * 10 + e[i].cc_minor;
		int d = e[i].sms > g->sms ? e[i].sms - g->sms : g->sms - e[i].sms;

		if (!e[i].gpu) {
			portable = i;
			continue;
		}
		if (ecc > cc || ecc < bcc || (ecc == bcc && d >= bd))
			continue;
		best = i;
		bcc = ecc;
		bd = d;
	}
	if (best >= 0 && bcc == cc) {
		c->rule = TUNER_SAME_CC;
		snprintf(c->reason, sizeof c->reason, "same compute capability %d.%d as %s (%d "
		         "multiprocessors; this GPU has %d)", g->cc_major, g->cc_minor, e[best].gpu,
		         e[best].sms, g->sms);
	} else if (best >= 0) {
		c->rule = TUNER_LOWER_CC;
		snprintf(c->reason, sizeof c->reason, "nearest lower compute capability %d.%d (%s) "
		         "to %d.%d, which no tuned GPU has", e[best].cc_major, e[best].cc_minor,
		         e[best].gpu, g->cc_major, g->cc_minor);
	} else {
		best = portable;
		c->rule = TUNER_PORTABLE;
		if (e[best].worst > 0)
			snprintf(c->reason, sizeof c->reason, "portable default: no tuned GPU has compute "
			         "capability %d.%d or lower; %s is the variant whose worst ratio to each "
			         "GPU's best is highest (%.1f %%)", g->cc_major, g->cc_minor, e[best].id,
			         e[best].worst);
		else
			snprintf(c->reason, sizeof c->reason, "portable default: no tuned GPU has compute "
			         "capability %d.%d or lower; %s, the oldest GPU's winner (no variant was "
			         "timed on every GPU)", g->cc_major, g->cc_minor, e[best].id);
	}
	c->entry = best;
	return best;
}
/* strictly between the two points of between entry j (of the GPU of entry i): of that GPU's
   entries timed at both points, the one whose median, interpolated linearly in the bytes moved
   between its medians at the two (rel[a * n + k] times the fastest's, entry a's median_ms),
   is lowest at w[j] (j among equals, else the first): a kernel's time is about a fixed cost
   plus its bytes over a rate. j itself without rel, or where a point's entry is not found. */
static inline int tuner_between(const struct tuner_entry *e, int n, int i, int j,
                                const double *w, const double *rel)
{
	int k, lo = -1, hi = -1, pick = j;
	double f, tp = -1;

	if (!rel || !(e[j].hi > e[j].lo))
		return j;
	for (k = 0; k < n; k++) {
		if (!e[k].gpu || strcmp(e[k].gpu, e[i].gpu) || e[k].work <= 0 || !(e[k].median_ms > 0))
			continue;
		if ((e[k].work > e[j].lo ? e[k].work - e[j].lo : e[j].lo - e[k].work) <= 1e-9 * e[j].lo)
			lo = k;
		if ((e[k].work > e[j].hi ? e[k].work - e[j].hi : e[j].hi - e[k].work) <= 1e-9 * e[j].hi)
			hi = k;
	}
	if (lo < 0 || hi < 0)
		return j;
	f = (w[j] - e[j].lo) / (e[j].hi - e[j].lo);
	for (k = -1; k < n; k++) { /* j first: another replaces it only if predicted faster */
		const int x = k < 0 ? j : k;
		double t;
		if (!e[x].gpu || strcmp(e[x].gpu, e[i].gpu) || !(rel[lo * n + x] > 0) ||
		    !(rel[hi * n + x] > 0))
			continue;
		t = (1 - f) * rel[lo * n + x] * e[lo].median_ms + f * rel[hi * n + x] * e[hi].median_ms;
		if (tp < 0 || t < tp) {
			pick = x;
			tp = t;
		}
	}
	return pick;
}
/* among the entries of e[0 .. n) of the GPU of entry i (the same name), by the bytes the
   kernel moves at the application's sizes (w[j] for entry j's kernel): a point's entry at
   its sizes; strictly between two points next to each other, the entry tuner_between
   predicts fastest there from what was measured at the two, among their winners and their
   between entry (the variant timed at both whose worse ratio to the fastest there is best: a
   winner tuned to fit one point's size exactly can be slow at sizes beside it), which is
   taken where nothing else can be predicted; beyond the points tuned at,
   the nearest end's. Without a between entry, the point nearest on a log scale; where two or
   more are equally near (2^18 between 2^16 and 2^20), their entries are compared by what was
   measured at those points: rel[a * n + k] is entry k's kernel's median at entry a's sizes
   over the fastest there (0: not timed there), and the entry whose ratios summed over those
   points are lowest is chosen (by order where one is missing, or without rel). Entry i
   itself for the portable default or a GPU tuned at one point. */
static inline int tuner_at_size(const struct tuner_entry *e, int n, int i, const double *w,
                                const double *rel)
{
	int j, a, best = i, pick = -1;
	double bd = -1, ps = 0;

	if (i < 0 || i >= n || !e[i].gpu)
		return i;
	for (j = 0; j < n; j++) {
		double d;
		if (!e[j].gpu || strcmp(e[j].gpu, e[i].gpu) || e[j].work <= 0 || w[j] <= 0)
			continue;
		d = w[j] > e[j].work ? w[j] / e[j].work : e[j].work / w[j]; /* exp(|log ratio|) */
		if (bd < 0 || d < bd) {
			best = j;
			bd = d;
		}
	}
	if (bd < 0)
		return best;
	for (j = 0; bd > 1 + 1e-9 && j < n; j++) /* not at a point: between two? */
		if (e[j].gpu && !strcmp(e[j].gpu, e[i].gpu) && e[j].lo > 0 &&
		    w[j] > e[j].lo * (1 + 1e-9) && w[j] < e[j].hi * (1 - 1e-9))
			return tuner_between(e, n, i, j, w, rel);
	if (!rel)
		return best;
	/* the entries of the points as near as the nearest (within rounding) */
#define TUNER_NEAREST(j) (e[j].gpu && !strcmp(e[j].gpu, e[i].gpu) && e[j].work > 0 && \
	w[j] > 0 && (w[j] > e[j].work ? w[j] / e[j].work : e[j].work / w[j]) <= bd * (1 + 1e-9))
	for (j = 0; j < n; j++) {
		double sum = 0;
		if (!TUNER_NEAREST(j))
			continue;
		for (a = 0; a < n; a++) {
			if (!TUNER_NEAREST(a))
				continue;
			if (!(rel[a * n + j] > 0))
				return best; /* not timed at one of them: by order */
			sum += rel[a * n + j];
		}
		if (pick < 0 || sum < ps) {
			pick = j;
			ps = sum;
		}
	}
#undef TUNER_NEAREST
	return pick >= 0 ? pick : best;
}
#endif

/* the tuned GPUs' entries, newest compute capability first, then the portable default */
#define SCALE_BUNDLE_ENTRIES 4
#define SCALE_BUNDLE_PORTABLE 3
/* the distinct kernels they launch */
#define SCALE_BUNDLE_VARIANTS 4
static const struct tuner_entry scale_bundle_entries[SCALE_BUNDLE_ENTRIES] = {
	{"NVIDIA H100 80GB HBM3", 9, 0, 132, 0, "v1d0b1d02", "BLOCK=256 UNROLL=1", 0.8, 0.04099, 0.00585571, 0, 32792, 0, 0},
	{"NVIDIA H200", 9, 0, 132, 1, "v21e58637", "BLOCK=64 UNROLL=1", 0.8, 0.04099, 0.00585571, 0, 32792, 0, 0},
	{"NVIDIA A100-SXM4-80GB", 8, 0, 108, 2, "v21eefa88", "BLOCK=64 UNROLL=2", 0.8, 0.04099, 0.00585571, 0, 32792, 0, 0},
	{NULL, 0, 0, 0, 3, "v4f76e4c1", "BLOCK=128 UNROLL=2", 0, 0, 0, 95.2381, 0, 0, 0},
};

/* the entry for GPU g (tuner_select), also in c */
static inline int scale_bundle_select(const struct tuner_gpu *g, struct tuner_choice *c)
{
	return tuner_select(scale_bundle_entries, SCALE_BUNDLE_ENTRIES, g, c);
}

/* launch geometry of entry's kernel for the problem size on a GPU with sms multiprocessors
   (all 0 for an entry out of range) */
static inline void scale_bundle_geometry(int entry, long long n, long long sms, unsigned block[3],
		unsigned grid[3], unsigned *shared_bytes)
{
	const long long SMS = sms;

	(void)n;
	(void)SMS;
	switch (entry >= 0 && entry < 4 ? scale_bundle_entries[entry].variant : -1) {
	case 0: /* v1d0b1d02 */
		block[0] = (unsigned)256LL;
		block[1] = (unsigned)1LL;
		block[2] = (unsigned)1LL;
		grid[0] = (unsigned)tuner_ceil_div(n, (256LL * 1LL));
		grid[1] = (unsigned)1LL;
		grid[2] = (unsigned)1LL;
		*shared_bytes = (unsigned)0LL;
		return;
	case 1: /* v21e58637 */
		block[0] = (unsigned)64LL;
		block[1] = (unsigned)1LL;
		block[2] = (unsigned)1LL;
		grid[0] = (unsigned)tuner_ceil_div(n, (64LL * 1LL));
		grid[1] = (unsigned)1LL;
		grid[2] = (unsigned)1LL;
		*shared_bytes = (unsigned)0LL;
		return;
	case 2: /* v21eefa88 */
		block[0] = (unsigned)64LL;
		block[1] = (unsigned)1LL;
		block[2] = (unsigned)1LL;
		grid[0] = (unsigned)tuner_ceil_div(n, (64LL * 2LL));
		grid[1] = (unsigned)1LL;
		grid[2] = (unsigned)1LL;
		*shared_bytes = (unsigned)0LL;
		return;
	case 3: /* v4f76e4c1 */
		block[0] = (unsigned)128LL;
		block[1] = (unsigned)1LL;
		block[2] = (unsigned)1LL;
		grid[0] = (unsigned)tuner_ceil_div(n, (128LL * 2LL));
		grid[1] = (unsigned)1LL;
		grid[2] = (unsigned)1LL;
		*shared_bytes = (unsigned)0LL;
		return;
	}
	block[0] = block[1] = block[2] = grid[0] = grid[1] = grid[2] = 0;
	*shared_bytes = 0;
}

/* the bytes entry's kernel moves at the problem size (the config's bytes; 0 for an entry
   out of range) */
static inline double scale_bundle_work(int entry, long long n, long long sms)
{
	const long long SMS = sms;

	(void)n;
	(void)SMS;
	switch (entry >= 0 && entry < 4 ? scale_bundle_entries[entry].variant : -1) {
	case 0:
		return (double)((8LL * n));
	case 1:
		return (double)((8LL * n));
	case 2:
		return (double)((8LL * n));
	case 3:
		return (double)((8LL * n));
	}
	return 0;
}

/* the entry to launch at the problem size: of the entries of the GPU entry (a selection)
   was tuned on, by the bytes moved, a point's at its sizes, a between entry between two
   points, the nearest end's beyond them (tuner_at_size) */
static inline int scale_bundle_at_size(int entry, long long n, long long sms)
{
	double w[SCALE_BUNDLE_ENTRIES];
	int j;

	for (j = 0; j < SCALE_BUNDLE_ENTRIES; j++)
		w[j] = scale_bundle_work(j, n, sms);
	return tuner_at_size(scale_bundle_entries, SCALE_BUNDLE_ENTRIES, entry, w, NULL);
}

/* the buffers, in the config's order: for each buffer BUF, scale_bundle_BUF_count() is its element count
   for an entry, the problem size and the multiprocessor count, SCALE_BUNDLE_BUF_ROLE its role (enum
   tuner_role) and SCALE_BUNDLE_BUF_ZERO 1 when it must be all zero before the first launch */

/* in (float, argument 2): in, the kernel's input: the application's data */
#define SCALE_BUNDLE_IN_ROLE TUNER_ROLE_IN
#define SCALE_BUNDLE_IN_ZERO 0
static inline long long scale_bundle_in_count(int entry, long long n, long long sms)
{
	const long long SMS = sms;

	(void)n;
	(void)SMS;
	(void)entry;
	return n;
}

/* out (float, argument 1): out, written by the kernel */
#define SCALE_BUNDLE_OUT_ROLE TUNER_ROLE_OUT
#define SCALE_BUNDLE_OUT_ZERO 0
static inline long long scale_bundle_out_count(int entry, long long n, long long sms)
{
	const long long SMS = sms;

	(void)n;
	(void)SMS;
	(void)entry;
	return n;
}

/* the values of __constant__ bias (scale_bundle_setup sets them) */
static const float scale_bundle_bias_values[1] = {
	0.25f
};

#if defined(__CUDACC__) || defined(__CUDA_RUNTIME_API_H__)
#ifdef __cplusplus
extern "C" {
#endif
/* the entry for the current device (its name, compute capability and multiprocessor count);
   -1, with the runtime's error in c->reason, when there is none */
int scale_bundle_select_current(struct tuner_choice *c);
/* set entry's __constant__ values on the current device: once per device, before its first launch */
cudaError_t scale_bundle_setup(int entry);
/* launch entry's kernel on stream, with scale_bundle_geometry for the current device */
cudaError_t scale_bundle_launch(int entry, float *out, float *in, long long n, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif

#endif
