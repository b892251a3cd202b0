/* bench: load, verify and time variants on the GPU (driver API via gpu.c). */
#include "bench.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define MIB ((size_t)1 << 20)
#define DEAD_WHY "not run: GPU context lost after an earlier fault"
#define GOLDEN 0x9e3779b97f4a7c15ULL

/*
 * The helper kernels (tuner/helpers.cu, embedded by tuner/embed.py), compiled once by the
 * tuner's pool (entry "tuner_copy": the others are extern "C" and found by their plain names).
 * The fill replays bench_fill_host's arithmetic with explicitly rounded operations, so that no
 * contraction into FMA changes a value; the comparison keeps fill_host's rules: a float passes
 * if it equals the reference or lies within atol + rtol * |ref| of it, NaN never passes,
 * integers must be equal.
 */
extern const char helpers_cu[];

/* the comparison kernels by element type, in enum elem order */
static const char *const cmp_names[] = {"tuner_cmp_f32", "tuner_cmp_f64", "tuner_cmp_i32",
                                        "tuner_cmp_u32", "tuner_cmp_i64", "tuner_cmp_u64"};

/* struct tuner_cmpres as the device writes it */
struct cmpres {
	uint64_t bad, maxabs, maxrel, nfirst;
};

/* one config buffer on the device */
struct dbuf {
	CUdeviceptr d;
	CUdeviceptr ref;          /* out: the reference's outputs */
	CUdeviceptr list;         /* in, scratch: a list fill's values as doubles */
	size_t count;             /* elements in use */
	size_t bytes;             /* allocated */
};

/* host values of one __constant__ symbol */
struct hconst {
	void *data;
	size_t count;
	int valid;
};

/* the helper module and its kernels */
struct helpers {
	CUmodule m;
	CUfunction copy, read, flush, fill, cmp[LEN(cmp_names)];
};

/* time spent per variant, for TUNER_BENCH_PROFILE */
struct prof {
	int on;
	int n;
	double setup, verify, timing, unload;
};

struct bench {
	const struct config *c;
	struct vars sizes;
	struct gpu_info gpu;
	struct dbuf *buf;         /* one per config buffer */
	struct hconst *con;       /* one per config constant */
	struct helpers h;
	int have_helpers;
	CUdeviceptr cmp;          /* one struct cmpres per config buffer */
	CUdeviceptr sink;         /* the flush kernel's never-written word */
	CUdeviceptr flush;        /* read between samples to evict L2 (0: no flush) */
	size_t flush_bytes;
	CUevent *ev;              /* start/stop pairs */
	int nev;
	int have_ref;
	int dead;                 /* the context hit a sticky error */
	struct prof prof;
	struct bench_probe probe; /* around an extra launch of each verified variant */
	double cut_ms;            /* bench_set_cut */
	CUmodule *kept;           /* variants' modules kept loaded while probing */
	size_t nkept;
};

/* a launch ready to go: function, geometry, parameters */
struct launchp {
	CUfunction f;
	unsigned grid[3], block[3], shared;
	void **params;
	union argval {
		CUdeviceptr p;
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		uint64_t u64;
		float f32;
		double f64;
		size_t z;
	} *vals;
	size_t nargs;
};

static const char *human(size_t bytes, char *s, size_t n)
{
	if (bytes >= ((size_t)1 << 30))
		snprintf(s, n, "%.2f GiB", (double)bytes / (double)((size_t)1 << 30));
	else if (bytes >= MIB)
		snprintf(s, n, "%.1f MiB", (double)bytes / (double)MIB);
	else
		snprintf(s, n, "%zu bytes", bytes);
	return s;
}

/* errors after which the context is unusable */
static int sticky(CUresult r)
{
	switch (r) {
	case CUDA_ERROR_ILLEGAL_ADDRESS:
	case CUDA_ERROR_LAUNCH_TIMEOUT:
	case CUDA_ERROR_HARDWARE_STACK_ERROR:
	case CUDA_ERROR_ILLEGAL_INSTRUCTION:
	case CUDA_ERROR_MISALIGNED_ADDRESS:
	case CUDA_ERROR_INVALID_ADDRESS_SPACE:
	case CUDA_ERROR_INVALID_PC:
	case CUDA_ERROR_LAUNCH_FAILED:
	case CUDA_ERROR_ASSERT:
	case CUDA_ERROR_ECC_UNCORRECTABLE:
	case CUDA_ERROR_CONTEXT_IS_DESTROYED:
	case CUDA_ERROR_CONTAINED:
		return 1;
	default:
		return 0;
	}
}

/* after a failed call: 1 (and the bench marked dead) if the context no longer works */
static int lost(struct bench *b, CUresult r)
{
	if (r != CUDA_SUCCESS && (sticky(r) || cu.CtxSynchronize() != CUDA_SUCCESS))
		b->dead = 1;
	return b->dead;
}

/* ---- host values ---- */

/* splitmix64's output for state z (the state after the increment) */
static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int is_float(enum elem t)
{
	return t == EL_F32 || t == EL_F64;
}

static int64_t sat_i64(double x)
{
	if (x != x)
		return 0;
	if (x >= 9223372036854775807.0)
		return INT64_MAX;
	if (x <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)x;
}

/* store x at p[i] converted to t (saturating; unsigned types wrap negatives as C does) */
static void put(void *p, size_t i, enum elem t, double x)
{
	int64_t v;

	switch (t) {
	case EL_F32:
		if (x > FLT_MAX)
			x = INFINITY;
		else if (x < -FLT_MAX)
			x = -INFINITY;
		((float *)p)[i] = (float)x;
		break;
	case EL_F64:
		((double *)p)[i] = x;
		break;
	case EL_I32:
		v = sat_i64(x);
		((int32_t *)p)[i] = (int32_t)(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v);
		break;
	case EL_U32:
		v = sat_i64(x);
		((uint32_t *)p)[i] = v > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)v;
		break;
	case EL_I64:
		((int64_t *)p)[i] = sat_i64(x);
		break;
	case EL_U64:
		((uint64_t *)p)[i] = x >= 18446744073709551615.0 ? UINT64_MAX
		                     : x >= 9223372036854775807.0 ? (uint64_t)x
		                     : (uint64_t)sat_i64(x);
		break;
	}
}

/* "0.25", "-1", "18446744073709551615" */
static void fmt_elem(char *s, size_t n, const void *p, size_t i, enum elem t)
{
	switch (t) {
	case EL_F32: snprintf(s, n, "%.9g", (double)((const float *)p)[i]); break;
	case EL_F64: snprintf(s, n, "%.17g", ((const double *)p)[i]); break;
	case EL_I32: snprintf(s, n, "%" PRId32, ((const int32_t *)p)[i]); break;
	case EL_U32: snprintf(s, n, "%" PRIu32, ((const uint32_t *)p)[i]); break;
	case EL_I64: snprintf(s, n, "%" PRId64, ((const int64_t *)p)[i]); break;
	case EL_U64: snprintf(s, n, "%" PRIu64, ((const uint64_t *)p)[i]); break;
	}
}

void bench_fill_host(void *p, size_t first, size_t n, enum elem t, const struct fill *f)
{
	size_t k;

	for (k = 0; k < n; k++) {
		size_t i = first + k;
		double x = 0;
		switch (f->kind) {
		case FILL_RANDOM:
			/* splitmix64's (i+1)-th output from state seed, without the i steps */
			x = f->lo + (double)(mix64(f->seed + (uint64_t)(i + 1) * GOLDEN) >> 11) *
			            0x1p-53 * (f->hi - f->lo);
			if (!is_float(t))
				x = floor(x);
			break;
		case FILL_RANGE:
			x = f->start + (double)i * f->step;
			break;
		case FILL_CONST:
			x = f->value;
			break;
		case FILL_LIST:
			x = f->nlist ? f->list[i % f->nlist] : 0;
			break;
		}
		put(p, k, t, x);
	}
}

/* ---- expressions ---- */

static int eval(const struct expr *e, const struct vars *v, int64_t dflt, int64_t *out,
                const char *what, char *why, size_t whylen)
{
	struct expr_err err;

	if (!e) {
		*out = dflt;
		return 0;
	}
	if (expr_eval(e, v, out, &err) < 0) {
		say(why, whylen, "%s '%s': %s", what, expr_src(e), err.msg);
		return -1;
	}
	return 0;
}

/* element count and bytes of a buffer or constant */
static int count_of(const char *kind, const char *name, const struct expr *e, enum elem t,
                    const struct vars *v, size_t *count, size_t *bytes, char *why, size_t whylen)
{
	char what[160];
	int64_t n;
	size_t es = elem_size(t);

	snprintf(what, sizeof what, "%s '%s' count", kind, name);
	if (eval(e, v, 0, &n, what, why, whylen) < 0)
		return -1;
	if (n < 0 || (uint64_t)n > SIZE_MAX / es) {
		say(why, whylen, "%s = %" PRId64 " is out of range", what, n);
		return -1;
	}
	*count = (size_t)n;
	*bytes = (size_t)n * es;
	return 0;
}

static int dalloc(CUdeviceptr *d, size_t bytes, const char *what, char *why, size_t whylen)
{
	char h[32];
	CUresult r;

	*d = 0;
	if (!bytes)
		return 0;
	r = cu.MemAlloc(d, bytes);
	if (r != CUDA_SUCCESS) {
		*d = 0;
		say(why, whylen, "cannot allocate %s of GPU memory for %s: %s",
		    human(bytes, h, sizeof h), what, gpu_errname(r));
		return -1;
	}
	return 0;
}

static void dfree(CUdeviceptr *d)
{
	if (*d && gpu_ready())
		cu.MemFree(*d);
	*d = 0;
}

/* blocks for a grid-stride kernel over n items: one item per thread up to `cap` blocks */
static unsigned grid_for(const struct bench *b, size_t n, unsigned block, unsigned per_sm)
{
	size_t g = (n + block - 1) / block, cap = (size_t)(b->gpu.sms > 0 ? b->gpu.sms : 1) * per_sm;

	if (g > cap)
		g = cap;
	return g ? (unsigned)g : 1;
}

static CUresult launch1(CUfunction f, unsigned grid, unsigned block, void **params)
{
	return cu.LaunchKernel(f, grid, 1, 1, block, 1, 1, 0, NULL, params, NULL);
}

/* ---- open / close ---- */

const char *bench_method(const struct config *c)
{
	return c->flush_l2 ? "helpers 2, L2 flush read" : "helpers 2, L2 flush none";
}

struct bench *bench_open(const struct config *c, const struct vars *sizes,
                         const struct gpu_info *gpu, char *why, size_t whylen)
{
	struct bench *b;
	size_t i;
	CUresult r;
	const char *p = getenv("TUNER_BENCH_PROFILE");

	if (why && whylen)
		why[0] = 0;
	if (!gpu_ready()) {
		say(why, whylen, "no GPU open");
		return NULL;
	}
	b = xcalloc(1, sizeof *b);
	b->c = c;
	b->sizes = *sizes;
	b->gpu = *gpu;
	b->prof.on = p && *p && strcmp(p, "0");
	b->buf = xcalloc(c->nbuffers, sizeof *b->buf);
	b->con = xcalloc(c->nconstants, sizeof *b->con);
	for (i = 0; i < c->nbuffers; i++) {
		const struct buffer *bf = &c->buffers[i];
		struct dbuf *d = &b->buf[i];
		char what[160];
		size_t bytes;

		if (bf->role != ROLE_OUT && bf->fill.kind == FILL_LIST && bf->fill.nlist) {
			size_t lb = bf->fill.nlist * sizeof(double);
			snprintf(what, sizeof what, "the fill list of buffer '%s'", bf->name);
			if (dalloc(&d->list, lb, what, why, whylen) < 0)
				goto fail;
			if ((r = cu.MemcpyHtoD(d->list, bf->fill.list, lb)) != CUDA_SUCCESS) {
				gpu_err(why, whylen, "cuMemcpyHtoD(fill list)", r);
				goto fail;
			}
		}
		if (bf->role == ROLE_SCRATCH)
			continue; /* counts may use params: allocated per variant */
		if (count_of("buffer", bf->name, bf->count, bf->type, sizes, &d->count, &bytes,
		             why, whylen) < 0)
			goto fail;
		snprintf(what, sizeof what, "buffer '%s'", bf->name);
		if (dalloc(&d->d, bytes, what, why, whylen) < 0)
			goto fail;
		d->bytes = bytes;
		if (bf->role == ROLE_OUT) {
			snprintf(what, sizeof what, "the reference's copy of buffer '%s'", bf->name);
			if (dalloc(&d->ref, bytes, what, why, whylen) < 0)
				goto fail;
		}
	}
	if (dalloc(&b->cmp, (c->nbuffers ? c->nbuffers : 1) * sizeof(struct cmpres),
	           "comparison results", why, whylen) < 0 ||
	    dalloc(&b->sink, 16, "the flush kernel's sink", why, whylen) < 0)
		goto fail;
	if (c->flush_l2) {
		b->flush_bytes = 2 * (size_t)(gpu->l2_bytes > 0 ? gpu->l2_bytes : 0);
		if (b->flush_bytes < 64 * MIB)
			b->flush_bytes = 64 * MIB;
		b->flush_bytes &= ~(size_t)15;
		if (dalloc(&b->flush, b->flush_bytes, "the L2 flush buffer", why, whylen) < 0)
			goto fail;
		/* zeroed: the read flush's xor of it is 0, never its magic 1 */
		if ((r = cu.MemsetD32(b->flush, 0, b->flush_bytes / 4)) != CUDA_SUCCESS) {
			gpu_err(why, whylen, "cuMemsetD32(L2 flush buffer)", r);
			goto fail;
		}
	}
	return b;
fail:
	bench_close(b);
	return NULL;
}

void bench_close(struct bench *b)
{
	size_t i;
	int k;

	if (!b)
		return;
	for (i = 0; i < b->nkept; i++)
		if (gpu_ready())
			cu.ModuleUnload(b->kept[i]);
	free(b->kept);
	if (b->prof.on && b->prof.n)
		fprintf(stderr, "bench: %d variants, mean per variant: setup %.3f ms, verify %.3f ms, "
		        "timing %.3f ms, unload %.3f ms, total %.3f ms\n", b->prof.n,
		        1e3 * b->prof.setup / b->prof.n, 1e3 * b->prof.verify / b->prof.n,
		        1e3 * b->prof.timing / b->prof.n, 1e3 * b->prof.unload / b->prof.n,
		        1e3 * (b->prof.setup + b->prof.verify + b->prof.timing + b->prof.unload) /
		        b->prof.n);
	for (i = 0; i < b->c->nbuffers; i++) {
		dfree(&b->buf[i].d);
		dfree(&b->buf[i].ref);
		dfree(&b->buf[i].list);
	}
	for (i = 0; i < b->c->nconstants; i++)
		free(b->con[i].data);
	for (k = 0; k < b->nev; k++)
		if (gpu_ready())
			cu.EventDestroy(b->ev[k]);
	if (b->h.m && gpu_ready())
		cu.ModuleUnload(b->h.m);
	dfree(&b->flush);
	dfree(&b->cmp);
	dfree(&b->sink);
	free(b->ev);
	free(b->buf);
	free(b->con);
	free(b);
}

/* ---- modules, fills, constants, scratch, launches ---- */

/* load co and find its entry; on failure *rc is the failing CUresult (or success) */
static int load(const struct compile_out *co, const char *entry, CUmodule *m, CUfunction *f,
                CUresult *rc, char *why, size_t whylen)
{
	const char *name = co->lowered && *co->lowered ? co->lowered : entry;
	CUresult r;
	char call[300];

	*m = NULL;
	*rc = CUDA_SUCCESS;
	if (!co->ok || !co->cubin || !co->cubin_len) {
		say(why, whylen, "not compiled");
		return -1;
	}
	if ((r = cu.ModuleLoadData(m, co->cubin)) != CUDA_SUCCESS) {
		*m = NULL;
		*rc = r;
		gpu_err(why, whylen, "cuModuleLoadData", r);
		return -1;
	}
	if ((r = cu.ModuleGetFunction(f, *m, name)) != CUDA_SUCCESS) {
		*rc = r;
		snprintf(call, sizeof call, "cuModuleGetFunction(\"%s\")", name);
		gpu_err(why, whylen, call, r);
		cu.ModuleUnload(*m);
		*m = NULL;
		return -1;
	}
	return 0;
}

static void unload(CUmodule *m)
{
	if (*m && gpu_ready())
		cu.ModuleUnload(*m);
	*m = NULL;
}

/* enqueue the fill of buffer k's first n elements (d->d) with the fill kernel */
static CUresult dev_fill(struct bench *b, size_t k, size_t n)
{
	const struct buffer *bf = &b->c->buffers[k];
	const struct fill *f = &bf->fill;
	struct dbuf *d = &b->buf[k];
	CUdeviceptr p = d->d, list = d->list;
	size_t cnt = n, nlist = f->kind == FILL_LIST ? f->nlist : 0;
	int t = 0, kind = 0;
	unsigned long long seed = f->seed;
	double lo = f->lo, hi = f->hi, start = f->start, step = f->step, value = f->value;
	void *params[] = {&p, &cnt, &t, &kind, &seed, &lo, &hi, &start, &step, &value, &list,
	                  &nlist};

	if (!n)
		return CUDA_SUCCESS;
	switch (bf->type) { /* the kernel's numbering, independent of enum elem's */
	case EL_F32: t = 0; break;
	case EL_F64: t = 1; break;
	case EL_I32: t = 2; break;
	case EL_U32: t = 3; break;
	case EL_I64: t = 4; break;
	case EL_U64: t = 5; break;
	}
	switch (f->kind) {
	case FILL_RANDOM: kind = 0; break;
	case FILL_RANGE: kind = 1; break;
	case FILL_CONST: kind = 2; break;
	case FILL_LIST: kind = 3; break;
	}
	return launch1(b->h.fill, grid_for(b, n, 256, 32), 256, params);
}

/* elements 0, n/2 and n-1 of buffer k (filled on the device) against bench_fill_host */
static int check_fill(struct bench *b, size_t k, CUresult *rc, char *why, size_t whylen)
{
	const struct buffer *bf = &b->c->buffers[k];
	const struct dbuf *d = &b->buf[k];
	size_t es = elem_size(bf->type), idx[3], j;
	unsigned char got[8], want[8];
	CUresult r;

	if (!d->count)
		return 0;
	idx[0] = 0;
	idx[1] = d->count / 2;
	idx[2] = d->count - 1;
	for (j = 0; j < 3; j++) {
		char gs[64], ws[64];
		if ((r = cu.MemcpyDtoH(got, d->d + idx[j] * es, es)) != CUDA_SUCCESS) {
			*rc = r;
			gpu_err(why, whylen, "cuMemcpyDtoH(fill check)", r);
			return -1;
		}
		bench_fill_host(want, idx[j], 1, bf->type, &bf->fill);
		if (!memcmp(got, want, es))
			continue;
		if (bf->type == EL_F32 && isnan(*(float *)got) && isnan(*(float *)want))
			continue;
		if (bf->type == EL_F64 && isnan(*(double *)got) && isnan(*(double *)want))
			continue;
		fmt_elem(gs, sizeof gs, got, 0, bf->type);
		fmt_elem(ws, sizeof ws, want, 0, bf->type);
		say(why, whylen, "the device fill of buffer '%s' disagrees with the host formula at "
		    "element %zu: %s vs %s", bf->name, idx[j], gs, ws);
		return -1;
	}
	return 0;
}

/* upload every __constant__ of the config into module m */
static int set_constants(struct bench *b, CUmodule m, const struct vars *v, int is_ref,
                         CUresult *rc, char *why, size_t whylen)
{
	const struct config *c = b->c;
	size_t i;

	*rc = CUDA_SUCCESS;
	for (i = 0; i < c->nconstants; i++) {
		const struct constant *k = &c->constants[i];
		struct hconst *h = &b->con[i];
		size_t count, need, have = 0;
		CUdeviceptr d = 0;
		CUresult r;
		char call[200];

		if (count_of("constant", k->name, k->count, k->type, v, &count, &need,
		             why, whylen) < 0)
			return -1;
		r = cu.ModuleGetGlobal(&d, &have, m, k->name);
		if (r == CUDA_ERROR_NOT_FOUND) {
			if (is_ref)
				continue; /* the reference need not use every constant */
			say(why, whylen, "__constant__ '%s' not found in the module "
			    "(declared with that name and used by the kernel?)", k->name);
			return -1;
		}
		if (r != CUDA_SUCCESS) {
			*rc = r;
			snprintf(call, sizeof call, "cuModuleGetGlobal(\"%s\")", k->name);
			gpu_err(why, whylen, call, r);
			return -1;
		}
		if (have < need) {
			say(why, whylen, "__constant__ '%s' has %zu bytes; the config sets %zu x %zu "
			    "= %zu bytes", k->name, have, count, elem_size(k->type), need);
			return -1;
		}
		if (!h->valid || h->count != count) {
			free(h->data);
			h->data = xmalloc(need ? need : 1);
			bench_fill_host(h->data, 0, count, k->type, &k->fill);
			h->count = count;
			h->valid = 1;
		}
		if (need && (r = cu.MemcpyHtoD(d, h->data, need)) != CUDA_SUCCESS) {
			*rc = r;
			snprintf(call, sizeof call, "cuMemcpyHtoD(__constant__ %s)", k->name);
			gpu_err(why, whylen, call, r);
			return -1;
		}
	}
	return 0;
}

/* (re)allocate the scratch buffers the arguments use, with counts under v, and enqueue their
   fills */
static int prep_scratch(struct bench *b, const struct arg *args, size_t nargs,
                        const struct vars *v, CUresult *rc, char *why, size_t whylen)
{
	const struct config *c = b->c;
	size_t i, j;

	*rc = CUDA_SUCCESS;
	for (i = 0; i < nargs; i++) {
		int k = args[i].buffer;
		const struct buffer *bf;
		struct dbuf *d;
		size_t count, bytes;
		char what[160];
		CUresult r;
		int seen = 0;

		if (k < 0 || c->buffers[k].role != ROLE_SCRATCH)
			continue;
		for (j = 0; j < i; j++)
			seen |= args[j].buffer == k;
		if (seen)
			continue;
		bf = &c->buffers[k];
		d = &b->buf[k];
		if (count_of("buffer", bf->name, bf->count, bf->type, v, &count, &bytes,
		             why, whylen) < 0)
			return -1;
		snprintf(what, sizeof what, "scratch buffer '%s'", bf->name);
		if (bytes > d->bytes) {
			dfree(&d->d);
			d->bytes = 0;
			if (dalloc(&d->d, bytes, what, why, whylen) < 0)
				return -1;
			d->bytes = bytes;
		}
		d->count = count;
		if ((r = dev_fill(b, (size_t)k, count)) != CUDA_SUCCESS) {
			*rc = r;
			gpu_err(why, whylen, "cuLaunchKernel(fill scratch)", r);
			return -1;
		}
	}
	return 0;
}

static void lp_free(struct launchp *lp)
{
	free(lp->params);
	free(lp->vals);
	memset(lp, 0, sizeof *lp);
}

/* evaluate the arguments under v and check the geometry; shared memory beyond the default
   per-block limit is opted into on f */
static int lp_make(struct bench *b, struct launchp *lp, CUfunction f, const struct arg *args,
                   size_t nargs, const struct vars *v, const int64_t block[3],
                   const int64_t grid[3], int64_t shared, CUresult *rc, char *why, size_t whylen)
{
	size_t i;
	int d, stat = 0;
	CUresult r;

	*rc = CUDA_SUCCESS;
	memset(lp, 0, sizeof *lp);
	lp->f = f;
	lp->nargs = nargs;
	lp->params = xcalloc(nargs, sizeof *lp->params);
	lp->vals = xcalloc(nargs, sizeof *lp->vals);
	for (d = 0; d < 3; d++) {
		if (block[d] < 1 || block[d] > UINT32_MAX || grid[d] < 1 || grid[d] > UINT32_MAX) {
			say(why, whylen, "launch geometry out of range: block[%d] = %" PRId64
			    ", grid[%d] = %" PRId64, d, block[d], d, grid[d]);
			goto fail;
		}
		lp->block[d] = (unsigned)block[d];
		lp->grid[d] = (unsigned)grid[d];
	}
	for (i = 0; i < nargs; i++) {
		const struct arg *a = &args[i];
		union argval *u = &lp->vals[i];
		char what[64];
		int64_t x;

		if (a->buffer >= 0) {
			if ((size_t)a->buffer >= b->c->nbuffers)
				die("argument %zu names buffer %d of %zu", i + 1, a->buffer,
				    b->c->nbuffers);
			u->p = b->buf[a->buffer].d;
			lp->params[i] = &u->p;
			continue;
		}
		snprintf(what, sizeof what, "argument %zu", i + 1);
		if (eval(a->value, v, 0, &x, what, why, whylen) < 0)
			goto fail;
		switch (a->type) {
		case EL_I32:
			if (x < INT32_MIN || x > INT32_MAX)
				goto range;
			u->i32 = (int32_t)x;
			lp->params[i] = &u->i32;
			break;
		case EL_U32:
			if (x < 0 || x > (int64_t)UINT32_MAX)
				goto range;
			u->u32 = (uint32_t)x;
			lp->params[i] = &u->u32;
			break;
		case EL_I64:
			u->i64 = x;
			lp->params[i] = &u->i64;
			break;
		case EL_U64:
			if (x < 0)
				goto range;
			u->u64 = (uint64_t)x;
			lp->params[i] = &u->u64;
			break;
		case EL_F32:
			u->f32 = (float)x;
			lp->params[i] = &u->f32;
			break;
		case EL_F64:
			u->f64 = (double)x;
			lp->params[i] = &u->f64;
			break;
		}
		continue;
range:
		say(why, whylen, "argument %zu = %" PRId64 " does not fit %s", i + 1, x,
		    elem_name(a->type));
		goto fail;
	}
	if (shared < 0 || shared > INT32_MAX) {
		say(why, whylen, "dynamic shared memory %" PRId64 " bytes out of range", shared);
		goto fail;
	}
	lp->shared = (unsigned)shared;
	if ((r = cu.FuncGetAttribute(&stat, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f)) != CUDA_SUCCESS) {
		*rc = r;
		gpu_err(why, whylen, "cuFuncGetAttribute(SHARED_SIZE_BYTES)", r);
		goto fail;
	}
	if (shared + stat > b->gpu.smem_block) {
		if (shared + stat > b->gpu.smem_optin) {
			say(why, whylen, "needs %" PRId64 " bytes of shared memory per block "
			    "(%d static + %" PRId64 " dynamic); the device allows %d",
			    shared + stat, stat, shared, b->gpu.smem_optin);
			goto fail;
		}
		r = cu.FuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared);
		if (r != CUDA_SUCCESS) {
			*rc = r;
			gpu_err(why, whylen, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", r);
			goto fail;
		}
	}
	return 0;
fail:
	lp_free(lp);
	return -1;
}

static CUresult lp_launch(const struct launchp *lp)
{
	return cu.LaunchKernel(lp->f, lp->grid[0], lp->grid[1], lp->grid[2], lp->block[0],
	                       lp->block[1], lp->block[2], lp->shared, NULL, lp->params, NULL);
}

/* 0xFF bytes: NaN for floats, -1 / max for integers */
static CUresult poison(struct bench *b)
{
	size_t i;
	CUresult r;

	for (i = 0; i < b->c->nbuffers; i++)
		if (b->c->buffers[i].role == ROLE_OUT && b->buf[i].bytes &&
		    (r = cu.MemsetD8Async(b->buf[i].d, 0xFF, b->buf[i].bytes, NULL)) != CUDA_SUCCESS)
			return r;
	return CUDA_SUCCESS;
}

/* ---- statistics and timing ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* q-quantile of sorted x, linear interpolation */
static double quantile(const double *x, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)pos;

	if (i >= n - 1)
		return x[n - 1];
	return x[i] + (pos - i) * (x[i + 1] - x[i]);
}

void bench_stats(double *x, int n, struct stats *t)
{
	double sum = 0;
	int i;

	memset(t, 0, sizeof *t);
	if (n <= 0)
		return;
	qsort(x, (size_t)n, sizeof *x, cmp_double);
	for (i = 0; i < n; i++)
		sum += x[i];
	t->n = n;
	t->min_ms = x[0];
	t->max_ms = x[n - 1];
	t->mean_ms = sum / n;
	t->median_ms = quantile(x, n, 0.5);
	t->spread = t->median_ms > 0 ? (quantile(x, n, 0.9) - quantile(x, n, 0.1)) / t->median_ms : 0;
}

/* enqueue one L2 flush (by reading the flush buffer), if the config asks for one */
static CUresult flush_l2(struct bench *b, const char **call)
{
	size_t n = b->flush_bytes / 16;
	unsigned magic = 1;
	void *params[] = {&b->flush, &n, &b->sink, &magic};

	if (!b->c->flush_l2)
		return CUDA_SUCCESS;
	*call = "cuLaunchKernel(L2 flush)";
	return launch1(b->h.flush, grid_for(b, n, 256, 1u << 20), 256, params);
}

/* warm-up launches, then samples each bracketed by events (after an L2 flush if asked);
   one synchronization at the end. *in_launch tells a failing launch from a failing run. */
/* the times of samples [from, to) into ms; 0 or -1 with *rc and why */
static int elapsed(struct bench *b, int from, int to, double *ms, CUresult *rc, char *why,
                   size_t whylen)
{
	int i;

	for (i = from; i < to; i++) {
		float f = 0;
		CUresult r = cu.EventElapsedTime(&f, b->ev[2 * i], b->ev[2 * i + 1]);
		if (r != CUDA_SUCCESS) {
			*rc = r;
			gpu_err(why, whylen, "cuEventElapsedTime", r);
			return -1;
		}
		ms[i] = f;
	}
	return 0;
}

static int time_lp(struct bench *b, const struct launchp *lp, struct stats *t, CUresult *rc,
                   int *in_launch, char *why, size_t whylen)
{
	int warm = b->c->warmup > 0 ? b->c->warmup : 0;
	int n = b->c->samples > 0 ? b->c->samples : 1;
	int race = b->cut_ms > 0 && n > BENCH_RACE_SAMPLES, got = 0, part;
	double *ms;
	CUresult r;
	int i;

	*rc = CUDA_SUCCESS;
	*in_launch = 0;
	memset(t, 0, sizeof *t);
	if (b->nev < 2 * n) {
		b->ev = xreallocarray(b->ev, (size_t)2 * n, sizeof *b->ev);
		while (b->nev < 2 * n) {
			if ((r = cu.EventCreate(&b->ev[b->nev], CU_EVENT_DEFAULT)) != CUDA_SUCCESS) {
				*rc = r;
				gpu_err(why, whylen, "cuEventCreate", r);
				return -1;
			}
			b->nev++;
		}
	}
	ms = xcalloc((size_t)n, sizeof *ms);
	for (i = 0; i < warm; i++)
		if ((r = lp_launch(lp)) != CUDA_SUCCESS)
			goto launch_fail;
	/* the first BENCH_RACE_SAMPLES samples, then (unless they show the variant cannot win)
	   the rest; one synchronization per part */
	for (i = 0, part = 0; part < 2 && i < n; part++) {
		int end = part == 0 && race ? BENCH_RACE_SAMPLES : n;
		for (; i < end; i++) {
			const char *call = "";
			if ((r = flush_l2(b, &call)) != CUDA_SUCCESS) {
				*rc = r;
				gpu_err(why, whylen, call, r);
				goto fail;
			}
			if ((r = cu.EventRecord(b->ev[2 * i], NULL)) != CUDA_SUCCESS) {
				*rc = r;
				gpu_err(why, whylen, "cuEventRecord", r);
				goto fail;
			}
			if ((r = lp_launch(lp)) != CUDA_SUCCESS)
				goto launch_fail;
			if ((r = cu.EventRecord(b->ev[2 * i + 1], NULL)) != CUDA_SUCCESS) {
				*rc = r;
				gpu_err(why, whylen, "cuEventRecord", r);
				goto fail;
			}
		}
		if ((r = cu.EventSynchronize(b->ev[2 * i - 1])) != CUDA_SUCCESS ||
		    (r = cu.CtxSynchronize()) != CUDA_SUCCESS) {
			*rc = r;
			gpu_err(why, whylen, "kernel failed while timed", r);
			goto fail;
		}
		if (elapsed(b, got, i, ms, rc, why, whylen) < 0)
			goto fail;
		got = i;
		if (part == 0 && race) {
			struct stats early;
			double *x = xcalloc((size_t)got, sizeof *x);
			memcpy(x, ms, (size_t)got * sizeof *x);
			bench_stats(x, got, &early);
			free(x);
			if (early.median_ms > b->cut_ms)
				break;
		}
	}
	n = got;
	bench_stats(ms, n, t);
	free(ms);
	return 0;
fail:
	free(ms);
	return -1;
launch_fail:
	free(ms);
	*rc = r;
	*in_launch = 1;
	gpu_err(why, whylen, "cuLaunchKernel", r);
	return -1;
}

/* ---- helpers ---- */

const char *bench_helpers_source(void)
{
	return helpers_cu;
}

int bench_helpers(struct bench *b, const struct compile_out *helpers, char *why, size_t whylen)
{
	const struct config *c = b->c;
	struct helpers *h = &b->h;
	CUresult r = CUDA_SUCCESS;
	char msg[256];
	size_t i;
	double t0 = now_s();

	if (why && whylen)
		why[0] = 0;
	if (b->have_helpers)
		return 0;
	if (b->dead) {
		say(why, whylen, "helpers %s", DEAD_WHY);
		return -1;
	}
	if (load(helpers, "tuner_copy", &h->m, &h->copy, &r, msg, sizeof msg) < 0)
		goto fail;
	{
		struct { CUfunction *f; const char *name; } fns[3 + LEN(cmp_names)] = {
			{&h->read, "tuner_read"}, {&h->flush, "tuner_flush"}, {&h->fill, "tuner_fill"}};
		for (i = 0; i < LEN(cmp_names); i++) {
			fns[3 + i].f = &h->cmp[i];
			fns[3 + i].name = cmp_names[i];
		}
		for (i = 0; i < LEN(fns); i++)
			if ((r = cu.ModuleGetFunction(fns[i].f, h->m, fns[i].name)) != CUDA_SUCCESS) {
				char call[96];
				snprintf(call, sizeof call, "cuModuleGetFunction(\"%s\")", fns[i].name);
				gpu_err(msg, sizeof msg, call, r);
				goto fail;
			}
	}
	/* the inputs: filled on the device, then a few elements checked against the host */
	for (i = 0; i < c->nbuffers; i++)
		if (c->buffers[i].role == ROLE_IN && (r = dev_fill(b, i, b->buf[i].count)) != CUDA_SUCCESS) {
			gpu_err(msg, sizeof msg, "cuLaunchKernel(fill)", r);
			goto fail;
		}
	if ((r = cu.CtxSynchronize()) != CUDA_SUCCESS) {
		gpu_err(msg, sizeof msg, "fill kernel failed", r);
		goto fail;
	}
	for (i = 0; i < c->nbuffers; i++)
		if (c->buffers[i].role == ROLE_IN && check_fill(b, i, &r, msg, sizeof msg) < 0)
			goto fail;
	b->have_helpers = 1;
	if (b->prof.on)
		fprintf(stderr, "bench: helpers loaded and inputs filled in %.3f ms\n",
		        1e3 * (now_s() - t0));
	return 0;
fail:
	lost(b, r);
	unload(&h->m);
	say(why, whylen, "helper kernels: %s%s", msg, b->dead ? "; GPU context lost" : "");
	return -1;
}

/* ---- reference ---- */

static void kernel_args(const struct config *c, const struct kernel *k, const struct arg **args,
                        size_t *nargs)
{
	if (k->args || k->nargs) {
		*args = k->args;
		*nargs = k->nargs;
	} else { /* the reference defaults to the kernel's arguments */
		*args = c->kernel.args;
		*nargs = c->kernel.nargs;
	}
}

int bench_reference(struct bench *b, const struct compile_out *ref, char *why, size_t whylen)
{
	const struct config *c = b->c;
	const struct launch *L = &c->reference.launch;
	const struct arg *args;
	size_t nargs, i;
	struct launchp lp;
	int64_t block[3], grid[3], shared;
	CUmodule m = NULL;
	CUfunction f;
	CUresult r = CUDA_SUCCESS;
	char msg[256];
	int d;
	double t0 = now_s();

	if (why && whylen)
		why[0] = 0;
	b->have_ref = 0;
	if (b->dead) {
		say(why, whylen, "reference %s", DEAD_WHY);
		return -1;
	}
	if (!b->have_helpers) {
		say(why, whylen, "reference: the helper kernels are not loaded (call bench_helpers "
		    "after bench_open)");
		return -1;
	}
	kernel_args(c, &c->reference, &args, &nargs);
	if (load(ref, c->reference.entry, &m, &f, &r, msg, sizeof msg) < 0)
		goto fail;
	if (set_constants(b, m, &b->sizes, 1, &r, msg, sizeof msg) < 0)
		goto fail;
	for (d = 0; d < 3; d++) {
		char what[64];
		snprintf(what, sizeof what, "reference launch block[%d]", d);
		if (eval(L->block[d], &b->sizes, 1, &block[d], what, msg, sizeof msg) < 0)
			goto fail;
		snprintf(what, sizeof what, "reference launch grid[%d]", d);
		if (eval(L->grid[d], &b->sizes, 1, &grid[d], what, msg, sizeof msg) < 0)
			goto fail;
	}
	if (eval(L->shared, &b->sizes, 0, &shared, "reference launch shared", msg, sizeof msg) < 0)
		goto fail;
	if (prep_scratch(b, args, nargs, &b->sizes, &r, msg, sizeof msg) < 0)
		goto fail;
	if (lp_make(b, &lp, f, args, nargs, &b->sizes, block, grid, shared, &r, msg,
	            sizeof msg) < 0)
		goto fail;
	if ((r = poison(b)) != CUDA_SUCCESS) {
		gpu_err(msg, sizeof msg, "cuMemsetD8Async(poison)", r);
		lp_free(&lp);
		goto fail;
	}
	r = lp_launch(&lp);
	lp_free(&lp);
	if (r != CUDA_SUCCESS) {
		gpu_err(msg, sizeof msg, "cuLaunchKernel", r);
		goto fail;
	}
	if ((r = cu.CtxSynchronize()) != CUDA_SUCCESS) {
		gpu_err(msg, sizeof msg, "kernel failed", r);
		goto fail;
	}
	for (i = 0; i < c->nbuffers; i++) { /* keep the reference's outputs on the device */
		struct dbuf *db = &b->buf[i];
		if (c->buffers[i].role == ROLE_OUT && db->bytes &&
		    (r = cu.MemcpyDtoD(db->ref, db->d, db->bytes)) != CUDA_SUCCESS) {
			gpu_err(msg, sizeof msg, "cuMemcpyDtoD(reference outputs)", r);
			goto fail;
		}
	}
	if ((r = cu.CtxSynchronize()) != CUDA_SUCCESS) {
		gpu_err(msg, sizeof msg, "cuMemcpyDtoD(reference outputs)", r);
		goto fail;
	}
	unload(&m);
	b->have_ref = 1;
	if (b->prof.on)
		fprintf(stderr, "bench: reference in %.3f ms\n", 1e3 * (now_s() - t0));
	return 0;
fail:
	lost(b, r);
	unload(&m);
	say(why, whylen, "reference: %s%s", msg, b->dead ? "; GPU context lost" : "");
	return -1;
}

/* ---- variants ---- */

static int bank_of(CUsharedconfig s)
{
	switch (s) {
	case CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE: return 8;
	case CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE: return 4;
	case CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE: return 4; /* every CUDA 13 GPU: 4 bytes */
	}
	return 0;
}

static double bits_double(uint64_t u)
{
	double x;

	memcpy(&x, &u, sizeof x);
	return x;
}

/* compare every out buffer with the reference's copy on the device; fills r's error fields
   and status; a failing call returns its CUresult with msg set */
static CUresult compare(struct bench *b, struct run_result *r, char *msg, size_t msglen)
{
	const struct config *c = b->c;
	size_t i, total = 0, bad = 0;
	double maxabs = 0, maxrel = 0;
	char first[200] = "";
	struct cmpres *res;
	CUresult rc;

	if ((rc = cu.MemsetD8Async(b->cmp, 0, c->nbuffers * sizeof *res, NULL)) != CUDA_SUCCESS) {
		gpu_err(msg, msglen, "cuMemsetD8Async(comparison results)", rc);
		return rc;
	}
	for (i = 0; i < c->nbuffers; i++) {
		const struct buffer *bf = &c->buffers[i];
		struct dbuf *d = &b->buf[i];
		size_t n = d->count, w = 16 / elem_size(bf->type);
		double atol = c->atol, rtol = c->rtol;
		CUdeviceptr out = b->cmp + i * sizeof *res;
		void *params[] = {&d->d, &d->ref, &n, &atol, &rtol, &out};

		if (bf->role != ROLE_OUT || !n)
			continue;
		rc = launch1(b->h.cmp[bf->type], grid_for(b, (n + w - 1) / w, 256, 8), 256, params);
		if (rc != CUDA_SUCCESS) {
			gpu_err(msg, msglen, "cuLaunchKernel(compare)", rc);
			return rc;
		}
	}
	res = xcalloc(c->nbuffers, sizeof *res);
	if ((rc = cu.MemcpyDtoH(res, b->cmp, c->nbuffers * sizeof *res)) != CUDA_SUCCESS) {
		gpu_err(msg, msglen, "comparison failed", rc);
		free(res);
		return rc;
	}
	for (i = 0; i < c->nbuffers; i++) {
		const struct buffer *bf = &c->buffers[i];
		struct dbuf *d = &b->buf[i];
		double ma = bits_double(res[i].maxabs), mr = bits_double(res[i].maxrel);

		if (bf->role != ROLE_OUT)
			continue;
		total += d->count;
		if (ma > maxabs)
			maxabs = ma;
		if (mr > maxrel)
			maxrel = mr;
		if (res[i].bad && !bad) {
			size_t j = (size_t)~res[i].nfirst, es = elem_size(bf->type);
			unsigned char xv[8], rv[8];
			char xs[64] = "?", rs[64] = "?";
			if (j < d->count && cu.MemcpyDtoH(xv, d->d + j * es, es) == CUDA_SUCCESS &&
			    cu.MemcpyDtoH(rv, d->ref + j * es, es) == CUDA_SUCCESS) {
				fmt_elem(xs, sizeof xs, xv, 0, bf->type);
				fmt_elem(rs, sizeof rs, rv, 0, bf->type);
			}
			snprintf(first, sizeof first, "%s[%zu]: %s vs %s", bf->name, j, xs, rs);
		}
		bad += (size_t)res[i].bad;
	}
	free(res);
	r->max_abs_err = maxabs;
	r->max_rel_err = maxrel;
	r->bad = bad;
	if (bad) {
		r->status = RUN_MISMATCH;
		snprintf(r->reason, sizeof r->reason, "%zu of %zu elements differ; first at %s",
		         bad, total, first);
	}
	return CUDA_SUCCESS;
}

void bench_set_cut(struct bench *b, double ms)
{
	b->cut_ms = ms;
}

void bench_set_probe(struct bench *b, const struct bench_probe *p)
{
	memset(&b->probe, 0, sizeof b->probe);
	if (p)
		b->probe = *p;
}

/* the probe around one more launch of lp; -1 (with *rc and msg) only if the kernel failed:
   a failing probe is noted in r and the variant keeps its result */
static int probe(struct bench *b, const struct launchp *lp, struct run_result *r, CUresult *rc,
                 char *msg, size_t msglen)
{
	char why[sizeof r->probe_why] = "";
	int n;

	if (b->probe.before && b->probe.before(b->probe.arg, why, sizeof why) < 0) {
		r->nprobe = -1;
		snprintf(r->probe_why, sizeof r->probe_why, "%s", why);
		return 0;
	}
	if ((*rc = lp_launch(lp)) != CUDA_SUCCESS || (*rc = cu.CtxSynchronize()) != CUDA_SUCCESS) {
		gpu_err(msg, msglen, "kernel failed while probed", *rc);
		b->probe.after(b->probe.arg, r->probe, why, sizeof why);
		return -1;
	}
	n = b->probe.after(b->probe.arg, r->probe, why, sizeof why);
	if (n < 0 || n > BENCH_PROBE_MAX) {
		r->nprobe = -1;
		snprintf(r->probe_why, sizeof r->probe_why, "%s", n < 0 ? why : "too many values");
		return 0;
	}
	r->nprobe = n;
	return 0;
}

void bench_variant(struct bench *b, const struct variant *v, const struct compile_out *co,
                   struct run_result *r)
{
	const struct config *c = b->c;
	struct launchp lp;
	CUmodule m = NULL;
	CUfunction f;
	CUresult rc = CUDA_SUCCESS;
	CUsharedconfig orig = CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE;
	int have_orig = 0, in_launch = 0;
	enum run_status st = RUN_LAUNCH_ERROR;
	char msg[240];
	double t0 = now_s(), t1 = t0, t2 = t0, t3 = t0;

	memset(r, 0, sizeof *r);
	memset(&lp, 0, sizeof lp);
	r->status = RUN_OK;
	if (b->dead) {
		r->status = RUN_FAULT;
		snprintf(r->reason, sizeof r->reason, "%s", DEAD_WHY);
		return;
	}
	if (!b->have_ref) {
		r->status = RUN_MISMATCH;
		snprintf(r->reason, sizeof r->reason, "not verified: no reference outputs");
		return;
	}
	if (load(co, c->kernel.entry, &m, &f, &rc, msg, sizeof msg) < 0)
		goto fail;
	if (set_constants(b, m, &v->vars, 0, &rc, msg, sizeof msg) < 0)
		goto fail;
	if (v->bank_bytes) {
		CUsharedconfig want = v->bank_bytes == 8 ? CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE
		                                         : CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
		CUsharedconfig now;
		if (cu.CtxGetSharedMemConfig && cu.CtxGetSharedMemConfig(&orig) == CUDA_SUCCESS)
			have_orig = 1;
		if (cu.FuncSetSharedMemConfig)
			cu.FuncSetSharedMemConfig(f, want);
		if (cu.CtxSetSharedMemConfig && have_orig &&
		    cu.CtxSetSharedMemConfig(want) == CUDA_SUCCESS &&
		    cu.CtxGetSharedMemConfig(&now) == CUDA_SUCCESS)
			r->bank_applied = bank_of(now);
	}
	if (prep_scratch(b, c->kernel.args, c->kernel.nargs, &v->vars, &rc, msg, sizeof msg) < 0)
		goto fail;
	if (lp_make(b, &lp, f, c->kernel.args, c->kernel.nargs, &v->vars, v->block, v->grid,
	            v->shared, &rc, msg, sizeof msg) < 0)
		goto fail;
	t1 = now_s();
	if ((rc = poison(b)) != CUDA_SUCCESS) {
		gpu_err(msg, sizeof msg, "cuMemsetD8Async(poison)", rc);
		goto fail;
	}
	if ((rc = lp_launch(&lp)) != CUDA_SUCCESS) {
		gpu_err(msg, sizeof msg, "cuLaunchKernel", rc);
		goto fail;
	}
	if ((rc = cu.CtxSynchronize()) != CUDA_SUCCESS) {
		st = RUN_FAULT;
		gpu_err(msg, sizeof msg, "kernel failed", rc);
		goto fail;
	}
	if ((rc = compare(b, r, msg, sizeof msg)) != CUDA_SUCCESS) {
		st = RUN_FAULT;
		goto fail;
	}
	t2 = now_s();
	if (r->status == RUN_OK && time_lp(b, &lp, &r->t, &rc, &in_launch, msg, sizeof msg) < 0) {
		st = in_launch ? RUN_LAUNCH_ERROR : RUN_FAULT;
		goto fail;
	}
	if (r->status == RUN_OK && b->probe.after && probe(b, &lp, r, &rc, msg, sizeof msg) < 0) {
		st = RUN_FAULT;
		goto fail;
	}
	goto done;
fail:
	if (lost(b, rc)) {
		st = RUN_FAULT;
		say(r->reason, sizeof r->reason, "%s; GPU context lost", msg);
	} else {
		snprintf(r->reason, sizeof r->reason, "%s", msg);
	}
	r->status = st;
	memset(&r->t, 0, sizeof r->t);
done:
	t3 = now_s();
	lp_free(&lp);
	if (have_orig && !b->dead)
		cu.CtxSetSharedMemConfig(orig);
	if (b->probe.after && m) {
		/* kept loaded while probing: a module loaded where an unloaded one was gets no
		   SASS-level counts from CUPTI (measured: 168 of 1032 accesses read 0 without this,
		   none with it; docs/bank-model.md) */
		b->kept = xreallocarray(b->kept, b->nkept + 1, sizeof *b->kept);
		b->kept[b->nkept++] = m;
		m = NULL;
	}
	unload(&m);
	if (b->prof.on) {
		double t4 = now_s();
		if (t1 < t0)
			t1 = t0;
		if (t2 < t1)
			t2 = t1;
		b->prof.n++;
		b->prof.setup += t1 - t0;
		b->prof.verify += t2 - t1;
		b->prof.timing += t3 - t2;
		b->prof.unload += t4 - t3;
		fprintf(stderr, "bench: %s setup %.3f verify %.3f timing %.3f unload %.3f ms%s%s\n",
		        v->id, 1e3 * (t1 - t0), 1e3 * (t2 - t1), 1e3 * (t3 - t2), 1e3 * (t4 - t3),
		        r->status == RUN_OK ? "" : " -- ", r->status == RUN_OK ? "" : r->reason);
	}
}

/* ---- copy and read rooflines ---- */

/* time f over each grid of per_sm (blocks per SM; 0: one block of 256 per `unit` items),
   keeping the fastest median in *t. On the H100 the last always won, by 1-4 %; 2 and 4 blocks
   per SM were never close, so they are not tried. */
static int time_grids(struct bench *b, struct launchp *lp, size_t items, size_t unit,
                      struct stats *t, CUresult *r, char *msg, size_t msglen)
{
	static const int per_sm[] = {8, 32, 0};
	double best = -1;
	size_t k;
	int in_launch;

	lp->block[0] = 256;
	lp->block[1] = lp->block[2] = lp->grid[1] = lp->grid[2] = 1;
	for (k = 0; k < LEN(per_sm); k++) {
		struct stats s;
		size_t g = per_sm[k] ? (size_t)(b->gpu.sms > 0 ? b->gpu.sms : 1) * per_sm[k]
		                     : (items + 256 * unit - 1) / (256 * unit);
		lp->grid[0] = (unsigned)(g < INT32_MAX ? g : INT32_MAX);
		if (time_lp(b, lp, &s, r, &in_launch, msg, msglen) < 0)
			return -1;
		if (b->prof.on)
			fprintf(stderr, "bench:   grid %u: median %.4f ms\n", lp->grid[0], s.median_ms);
		if (best < 0 || s.median_ms < t->median_ms) {
			*t = s;
			best = s.median_ms;
		}
	}
	return 0;
}

/* the copy (read = 0: `bytes` of traffic, half read, half written) or read-only roofline over
   fresh buffers of 1.0f: GB/s of the fastest grid's median, or -1 with why */
static double roofline(struct bench *b, int read, int64_t bytes, struct stats *t, char *why,
                       size_t whylen)
{
	const char *what = read ? "read" : "copy";
	size_t each, n, blocks, k;
	CUdeviceptr src = 0, dst = 0;
	CUresult r = CUDA_SUCCESS;
	struct launchp lp;
	void *params[3];
	float probe[8];
	char msg[240];
	double t0 = now_s(), gbs;

	if (why && whylen)
		why[0] = 0;
	memset(t, 0, sizeof *t);
	if (b->dead) {
		say(why, whylen, "%s %s", what, DEAD_WHY);
		return -1;
	}
	if (!b->have_helpers) {
		say(why, whylen, "%s: the helper kernels are not loaded (bench_helpers)", what);
		return -1;
	}
	each = bytes > 0 ? (size_t)(read ? bytes : bytes / 2) : 0;
	each = (each + 15) & ~(size_t)15;
	if (each < 64 * MIB)
		each = 64 * MIB;
	n = each / 16;
	blocks = (n + 255) / 256; /* the read kernel's sums: the largest grid time_grids uses */
	if (dalloc(&src, each, read ? "the read source" : "the copy source", msg, sizeof msg) < 0 ||
	    dalloc(&dst, read ? blocks * sizeof(float) : each,
	           read ? "the read kernel's sums" : "the copy destination", msg, sizeof msg) < 0)
		goto fail;
	if ((r = cu.MemsetD32(src, 0x3f800000u, each / 4)) != CUDA_SUCCESS || /* 1.0f */
	    (r = cu.MemsetD32(dst, 0, read ? blocks : each / 4)) != CUDA_SUCCESS) {
		gpu_err(msg, sizeof msg, "cuMemsetD32", r);
		goto fail;
	}
	memset(&lp, 0, sizeof lp);
	lp.f = read ? b->h.read : b->h.copy;
	lp.params = params;
	params[0] = &src;
	params[1] = read ? (void *)&n : (void *)&dst;
	params[2] = read ? (void *)&dst : (void *)&n;
	if (time_grids(b, &lp, n, read ? 4 : 1, t, &r, msg, sizeof msg) < 0)
		goto fail;
	/* the kernel must have done its work: both ends of the copy are 1.0; the read's first
	   block of the last launch summed its share of 1.0s */
	if ((r = cu.MemcpyDtoH(probe, dst, 16)) != CUDA_SUCCESS ||
	    (!read && (r = cu.MemcpyDtoH(probe + 4, dst + each - 16, 16)) != CUDA_SUCCESS)) {
		gpu_err(msg, sizeof msg, "cuMemcpyDtoH", r);
		goto fail;
	}
	for (k = 0; k < (read ? 1u : 8u); k++)
		if (read ? !(probe[0] > 0) : probe[k] != 1.0f) {
			say(msg, sizeof msg, "the %s kernel did not %s (element %zu is %g)", what, what, k,
			    (double)probe[k]);
			goto fail;
		}
	dfree(&src);
	dfree(&dst);
	if (!(t->median_ms > 0)) {
		say(why, whylen, "%s: median time is zero", what);
		return -1;
	}
	gbs = (read ? 1.0 : 2.0) * (double)each / (t->median_ms * 1e6);
	if (b->prof.on)
		fprintf(stderr, "bench: %s of %s%zu bytes: %.1f GB/s, in %.3f ms\n", what,
		        read ? "" : "2 x ", each, gbs, 1e3 * (now_s() - t0));
	return gbs;
fail:
	memset(t, 0, sizeof *t);
	lost(b, r);
	dfree(&src); /* harmless in a lost context: the calls just fail */
	dfree(&dst);
	say(why, whylen, "%s: %s%s", what, msg, b->dead ? "; GPU context lost" : "");
	return -1;
}

double bench_copy(struct bench *b, const struct compile_out *copy, int64_t bytes, struct stats *t,
                  char *why, size_t whylen)
{
	(void)copy; /* the helpers' tuner_copy: the same kernel, already loaded */
	return roofline(b, 0, bytes, t, why, whylen);
}

double bench_read(struct bench *b, int64_t bytes, struct stats *t, char *why, size_t whylen)
{
	return roofline(b, 1, bytes, t, why, whylen);
}

int bench_bank_probe(struct bench *b, int bytes)
{
	CUsharedconfig orig, now;
	CUsharedconfig want = bytes == 8 ? CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE
	                                 : CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
	int got = 0;

	if ((b && b->dead) || !cu.CtxGetSharedMemConfig || !cu.CtxSetSharedMemConfig)
		return 0;
	if (cu.CtxGetSharedMemConfig(&orig) != CUDA_SUCCESS)
		return 0;
	if (cu.CtxSetSharedMemConfig(want) == CUDA_SUCCESS &&
	    cu.CtxGetSharedMemConfig(&now) == CUDA_SUCCESS)
		got = bank_of(now);
	cu.CtxSetSharedMemConfig(orig);
	return got;
}
