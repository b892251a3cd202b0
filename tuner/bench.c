/* bench: load, verify and time variants on the GPU (driver API via gpu.c). */
#include "bench.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define MIB ((size_t)1 << 20)
#define DEAD_WHY "not run: GPU context lost after an earlier fault"

/* one config buffer on the device */
struct dbuf {
	CUdeviceptr d;
	size_t count;             /* elements in use */
	size_t bytes;             /* allocated */
	void *ref;                /* out: the reference's outputs */
	void *got;                /* out: the variant's outputs */
	void *img;                /* scratch: host image of the fill, img_count elements */
	size_t img_count;
};

/* host values of one __constant__ symbol */
struct hconst {
	void *data;
	size_t count;
	int valid;
};

struct bench {
	const struct config *c;
	struct vars sizes;
	struct gpu_info gpu;
	struct dbuf *buf;         /* one per config buffer */
	struct hconst *con;       /* one per config constant */
	CUdeviceptr flush;        /* written between samples to evict L2 */
	size_t flush_bytes;
	unsigned flush_val;
	CUevent *ev;              /* start/stop pairs */
	int nev;
	int have_ref;
	int dead;                 /* the context hit a sticky error */
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

static void say(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (!why || !whylen)
		return;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
}

/* "cuLaunchKernel: CUDA_ERROR_X (description)" */
static void cuerr(char *why, size_t whylen, const char *call, CUresult r)
{
	const char *d = gpu_errstr(r);

	if (*d)
		say(why, whylen, "%s: %s (%s)", call, gpu_errname(r), d);
	else
		say(why, whylen, "%s: %s", call, gpu_errname(r));
}

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

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

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

static double get(const void *p, size_t i, enum elem t)
{
	switch (t) {
	case EL_F32: return ((const float *)p)[i];
	case EL_F64: return ((const double *)p)[i];
	case EL_I32: return ((const int32_t *)p)[i];
	case EL_U32: return ((const uint32_t *)p)[i];
	case EL_I64: return (double)((const int64_t *)p)[i];
	case EL_U64: return (double)((const uint64_t *)p)[i];
	}
	return 0;
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

/* the first n values of fill f, stored as t */
static void fill_host(void *p, size_t n, enum elem t, const struct fill *f)
{
	uint64_t s = f->seed;
	size_t i;

	for (i = 0; i < n; i++) {
		double x = 0;
		switch (f->kind) {
		case FILL_RANDOM:
			x = f->lo + (double)(splitmix64(&s) >> 11) * 0x1p-53 * (f->hi - f->lo);
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
		put(p, i, t, x);
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

static void *hmalloc(size_t bytes, const char *what, char *why, size_t whylen)
{
	char h[32];
	void *p = malloc(bytes ? bytes : 1);

	if (!p)
		say(why, whylen, "cannot allocate %s of host memory for %s",
		    human(bytes, h, sizeof h), what);
	return p;
}

/* ---- open / close ---- */

struct bench *bench_open(const struct config *c, const struct vars *sizes,
                         const struct gpu_info *gpu, char *why, size_t whylen)
{
	struct bench *b;
	size_t i;
	CUresult r;

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
	b->buf = xcalloc(c->nbuffers, sizeof *b->buf);
	b->con = xcalloc(c->nconstants, sizeof *b->con);
	for (i = 0; i < c->nbuffers; i++) {
		const struct buffer *bf = &c->buffers[i];
		struct dbuf *d = &b->buf[i];
		char what[160];
		size_t bytes;
		void *tmp;

		if (bf->role == ROLE_SCRATCH)
			continue; /* counts may use params: allocated per variant */
		if (count_of("buffer", bf->name, bf->count, bf->type, sizes, &d->count, &bytes,
		             why, whylen) < 0)
			goto fail;
		snprintf(what, sizeof what, "buffer '%s'", bf->name);
		if (dalloc(&d->d, bytes, what, why, whylen) < 0)
			goto fail;
		d->bytes = bytes;
		if (bf->role == ROLE_IN) {
			if (!(tmp = hmalloc(bytes, what, why, whylen)))
				goto fail;
			fill_host(tmp, d->count, bf->type, &bf->fill);
			r = bytes ? cu.MemcpyHtoD(d->d, tmp, bytes) : CUDA_SUCCESS;
			free(tmp);
			if (r != CUDA_SUCCESS) {
				cuerr(why, whylen, "cuMemcpyHtoD", r);
				goto fail;
			}
		} else {
			if (!(d->ref = hmalloc(bytes, what, why, whylen)) ||
			    !(d->got = hmalloc(bytes, what, why, whylen)))
				goto fail;
		}
	}
	if (c->flush_l2) {
		b->flush_bytes = 2 * (size_t)(gpu->l2_bytes > 0 ? gpu->l2_bytes : 0);
		if (b->flush_bytes < 64 * MIB)
			b->flush_bytes = 64 * MIB;
		if (dalloc(&b->flush, b->flush_bytes, "the L2 flush buffer", why, whylen) < 0)
			goto fail;
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
	for (i = 0; i < b->c->nbuffers; i++) {
		dfree(&b->buf[i].d);
		free(b->buf[i].ref);
		free(b->buf[i].got);
		free(b->buf[i].img);
	}
	for (i = 0; i < b->c->nconstants; i++)
		free(b->con[i].data);
	for (k = 0; k < b->nev; k++)
		if (gpu_ready())
			cu.EventDestroy(b->ev[k]);
	dfree(&b->flush);
	free(b->ev);
	free(b->buf);
	free(b->con);
	free(b);
}

/* ---- modules, constants, scratch, launches ---- */

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
		cuerr(why, whylen, "cuModuleLoadData", r);
		return -1;
	}
	if ((r = cu.ModuleGetFunction(f, *m, name)) != CUDA_SUCCESS) {
		*rc = r;
		snprintf(call, sizeof call, "cuModuleGetFunction(\"%s\")", name);
		cuerr(why, whylen, call, r);
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
			cuerr(why, whylen, call, r);
			return -1;
		}
		if (have < need) {
			say(why, whylen, "__constant__ '%s' has %zu bytes; the config sets %zu x %zu "
			    "= %zu bytes", k->name, have, count, elem_size(k->type), need);
			return -1;
		}
		if (!h->valid || h->count != count) {
			free(h->data);
			h->valid = 0;
			if (!(h->data = hmalloc(need, "a constant", why, whylen)))
				return -1;
			fill_host(h->data, count, k->type, &k->fill);
			h->count = count;
			h->valid = 1;
		}
		if (need && (r = cu.MemcpyHtoD(d, h->data, need)) != CUDA_SUCCESS) {
			*rc = r;
			snprintf(call, sizeof call, "cuMemcpyHtoD(__constant__ %s)", k->name);
			cuerr(why, whylen, call, r);
			return -1;
		}
	}
	return 0;
}

/* (re)allocate and fill the scratch buffers the arguments use, with counts under v */
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
		if (count > d->img_count || !d->img) {
			free(d->img);
			d->img_count = 0;
			if (!(d->img = hmalloc(bytes, what, why, whylen)))
				return -1;
			fill_host(d->img, count, bf->type, &bf->fill);
			d->img_count = count;
		}
		d->count = count;
		if (bytes && (r = cu.MemcpyHtoD(d->d, d->img, bytes)) != CUDA_SUCCESS) {
			*rc = r;
			cuerr(why, whylen, "cuMemcpyHtoD(scratch)", r);
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
		cuerr(why, whylen, "cuFuncGetAttribute(SHARED_SIZE_BYTES)", r);
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
			cuerr(why, whylen, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", r);
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
		    (r = cu.MemsetD8(b->buf[i].d, 0xFF, b->buf[i].bytes)) != CUDA_SUCCESS)
			return r;
	return CUDA_SUCCESS;
}

/* copy every out buffer into its host `ref` (reference) or `got` array */
static CUresult fetch(struct bench *b, int into_ref)
{
	size_t i;
	CUresult r;

	for (i = 0; i < b->c->nbuffers; i++) {
		struct dbuf *d = &b->buf[i];
		if (b->c->buffers[i].role != ROLE_OUT || !d->bytes)
			continue;
		r = cu.MemcpyDtoH(into_ref ? d->ref : d->got, d->d, d->bytes);
		if (r != CUDA_SUCCESS)
			return r;
	}
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

static void stats_of(double *x, int n, struct stats *t)
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

/* warm-up launches, then samples each bracketed by events (after an L2 flush if asked);
   one synchronization at the end. *in_launch tells a failing launch from a failing run. */
static int time_lp(struct bench *b, const struct launchp *lp, struct stats *t, CUresult *rc,
                   int *in_launch, char *why, size_t whylen)
{
	int warm = b->c->warmup > 0 ? b->c->warmup : 0;
	int n = b->c->samples > 0 ? b->c->samples : 1;
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
				cuerr(why, whylen, "cuEventCreate", r);
				return -1;
			}
			b->nev++;
		}
	}
	for (i = 0; i < warm; i++)
		if ((r = lp_launch(lp)) != CUDA_SUCCESS)
			goto launch_fail;
	for (i = 0; i < n; i++) {
		if (b->flush && (r = cu.MemsetD32Async(b->flush, ++b->flush_val, b->flush_bytes / 4,
		                                       NULL)) != CUDA_SUCCESS) {
			*rc = r;
			cuerr(why, whylen, "cuMemsetD32Async(L2 flush)", r);
			return -1;
		}
		if ((r = cu.EventRecord(b->ev[2 * i], NULL)) != CUDA_SUCCESS) {
			*rc = r;
			cuerr(why, whylen, "cuEventRecord", r);
			return -1;
		}
		if ((r = lp_launch(lp)) != CUDA_SUCCESS)
			goto launch_fail;
		if ((r = cu.EventRecord(b->ev[2 * i + 1], NULL)) != CUDA_SUCCESS) {
			*rc = r;
			cuerr(why, whylen, "cuEventRecord", r);
			return -1;
		}
	}
	if ((r = cu.EventSynchronize(b->ev[2 * n - 1])) != CUDA_SUCCESS ||
	    (r = cu.CtxSynchronize()) != CUDA_SUCCESS) {
		*rc = r;
		cuerr(why, whylen, "kernel failed while timed", r);
		return -1;
	}
	ms = xcalloc((size_t)n, sizeof *ms);
	for (i = 0; i < n; i++) {
		float f = 0;
		if ((r = cu.EventElapsedTime(&f, b->ev[2 * i], b->ev[2 * i + 1])) != CUDA_SUCCESS) {
			free(ms);
			*rc = r;
			cuerr(why, whylen, "cuEventElapsedTime", r);
			return -1;
		}
		ms[i] = f;
	}
	stats_of(ms, n, t);
	free(ms);
	return 0;
launch_fail:
	*rc = r;
	*in_launch = 1;
	cuerr(why, whylen, "cuLaunchKernel", r);
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
	size_t nargs;
	struct launchp lp;
	int64_t block[3], grid[3], shared;
	CUmodule m = NULL;
	CUfunction f;
	CUresult r = CUDA_SUCCESS;
	char msg[256];
	int d;

	if (why && whylen)
		why[0] = 0;
	b->have_ref = 0;
	if (b->dead) {
		say(why, whylen, "reference %s", DEAD_WHY);
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
		cuerr(msg, sizeof msg, "cuMemsetD8(poison)", r);
		lp_free(&lp);
		goto fail;
	}
	r = lp_launch(&lp);
	lp_free(&lp);
	if (r != CUDA_SUCCESS) {
		cuerr(msg, sizeof msg, "cuLaunchKernel", r);
		goto fail;
	}
	if ((r = cu.CtxSynchronize()) != CUDA_SUCCESS) {
		cuerr(msg, sizeof msg, "kernel failed", r);
		goto fail;
	}
	if ((r = fetch(b, 1)) != CUDA_SUCCESS) {
		cuerr(msg, sizeof msg, "cuMemcpyDtoH", r);
		goto fail;
	}
	unload(&m);
	b->have_ref = 1;
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

/* running totals of a comparison */
struct cmp {
	size_t bad, first;        /* elements outside tolerance; index of the first */
	double maxabs, maxrel;
};

/* one element that is not bit-for-bit the reference value (x, ref as doubles) */
static inline void cmp_one(struct cmp *k, size_t j, double x, double ref, int exact,
                           double atol, double rtol)
{
	double err, rel;
	int ok;

	if (x != x) { /* NaN: never passes (unwritten outputs are NaN) */
		err = rel = INFINITY;
		ok = 0;
	} else {
		err = fabs(x - ref);
		rel = ref != 0 ? err / fabs(ref) : 0;
		ok = !exact && err <= atol + rtol * fabs(ref); /* false when ref is NaN */
	}
	if (err > k->maxabs)
		k->maxabs = err;
	if (rel > k->maxrel)
		k->maxrel = rel;
	if (!ok && k->bad++ == 0)
		k->first = j;
}

/* compare n elements of type t: floats within tolerance, integers exactly */
static void cmp_buf(struct cmp *k, const void *got, const void *ref, size_t n, enum elem t,
                    double atol, double rtol)
{
	size_t j, es = elem_size(t);

	if (t == EL_F32) {
		const float *x = got, *y = ref;
		for (j = 0; j < n; j++)
			if (!(x[j] == y[j])) /* the common case stays a tight loop */
				cmp_one(k, j, x[j], y[j], 0, atol, rtol);
	} else if (t == EL_F64) {
		const double *x = got, *y = ref;
		for (j = 0; j < n; j++)
			if (!(x[j] == y[j]))
				cmp_one(k, j, x[j], y[j], 0, atol, rtol);
	} else if (memcmp(got, ref, n * es)) {
		for (j = 0; j < n; j++)
			if (memcmp((const char *)got + j * es, (const char *)ref + j * es, es))
				cmp_one(k, j, get(got, j, t), get(ref, j, t), 1, 0, 0);
	}
}

/* compare every out buffer with the reference; fills r's error fields and status */
static void compare(struct bench *b, struct run_result *r)
{
	const struct config *c = b->c;
	size_t i, total = 0, bad = 0;
	double maxabs = 0, maxrel = 0;
	char first[200] = "";

	for (i = 0; i < c->nbuffers; i++) {
		const struct buffer *bf = &c->buffers[i];
		struct dbuf *d = &b->buf[i];
		struct cmp k = {0, 0, 0, 0};

		if (bf->role != ROLE_OUT)
			continue;
		total += d->count;
		cmp_buf(&k, d->got, d->ref, d->count, bf->type, c->atol, c->rtol);
		if (k.maxabs > maxabs)
			maxabs = k.maxabs;
		if (k.maxrel > maxrel)
			maxrel = k.maxrel;
		if (k.bad && !bad) {
			char xs[64], rs[64];
			fmt_elem(xs, sizeof xs, d->got, k.first, bf->type);
			fmt_elem(rs, sizeof rs, d->ref, k.first, bf->type);
			snprintf(first, sizeof first, "%s[%zu]: %s vs %s", bf->name, k.first, xs, rs);
		}
		bad += k.bad;
	}
	r->max_abs_err = maxabs;
	r->max_rel_err = maxrel;
	r->bad = bad;
	if (bad) {
		r->status = RUN_MISMATCH;
		snprintf(r->reason, sizeof r->reason, "%zu of %zu elements differ; first at %s",
		         bad, total, first);
	}
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
	if ((rc = poison(b)) != CUDA_SUCCESS) {
		cuerr(msg, sizeof msg, "cuMemsetD8(poison)", rc);
		goto fail;
	}
	if ((rc = lp_launch(&lp)) != CUDA_SUCCESS) {
		cuerr(msg, sizeof msg, "cuLaunchKernel", rc);
		goto fail;
	}
	if ((rc = cu.CtxSynchronize()) != CUDA_SUCCESS) {
		st = RUN_FAULT;
		cuerr(msg, sizeof msg, "kernel failed", rc);
		goto fail;
	}
	if ((rc = fetch(b, 0)) != CUDA_SUCCESS) {
		st = RUN_FAULT;
		cuerr(msg, sizeof msg, "cuMemcpyDtoH", rc);
		goto fail;
	}
	compare(b, r);
	if (r->status == RUN_OK && time_lp(b, &lp, &r->t, &rc, &in_launch, msg, sizeof msg) < 0) {
		st = in_launch ? RUN_LAUNCH_ERROR : RUN_FAULT;
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
	lp_free(&lp);
	if (have_orig && !b->dead)
		cu.CtxSetSharedMemConfig(orig);
	unload(&m);
}

/* ---- copy roofline ---- */

const char *bench_copy_source(void)
{
	return "/* tuner: device copy roofline, 16-byte accesses, grid-stride */\n"
	       "extern \"C\" __global__ void tuner_copy(const float4 *__restrict__ in,\n"
	       "                                        float4 *__restrict__ out, size_t n)\n"
	       "{\n"
	       "\tsize_t stride = (size_t)gridDim.x * blockDim.x;\n"
	       "\tfor (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)\n"
	       "\t\tout[i] = in[i];\n"
	       "}\n";
}

double bench_copy(struct bench *b, const struct compile_out *copy, int64_t bytes, struct stats *t,
                  char *why, size_t whylen)
{
	static const int per_sm[] = {2, 4, 8, 16, 32, 0}; /* blocks per SM; 0: one per 256 */
	size_t each, n, k;
	CUdeviceptr src = 0, dst = 0;
	CUmodule m = NULL;
	CUfunction f;
	CUresult r = CUDA_SUCCESS;
	struct launchp lp;
	void *params[3];
	float probe[8];
	double best = -1;
	int in_launch;
	char msg[240];

	if (why && whylen)
		why[0] = 0;
	memset(t, 0, sizeof *t);
	if (b->dead) {
		say(why, whylen, "copy %s", DEAD_WHY);
		return -1;
	}
	each = bytes > 0 ? (size_t)(bytes / 2) : 0;
	each = (each + 15) & ~(size_t)15;
	if (each < 64 * MIB)
		each = 64 * MIB;
	n = each / 16;
	if (load(copy, "tuner_copy", &m, &f, &r, msg, sizeof msg) < 0)
		goto fail;
	if (dalloc(&src, each, "the copy source", msg, sizeof msg) < 0 ||
	    dalloc(&dst, each, "the copy destination", msg, sizeof msg) < 0)
		goto fail;
	if ((r = cu.MemsetD32(src, 0x3f800000u, each / 4)) != CUDA_SUCCESS || /* 1.0f */
	    (r = cu.MemsetD32(dst, 0, each / 4)) != CUDA_SUCCESS) {
		cuerr(msg, sizeof msg, "cuMemsetD32", r);
		goto fail;
	}
	memset(&lp, 0, sizeof lp);
	lp.f = f;
	lp.params = params;
	params[0] = &src;
	params[1] = &dst;
	params[2] = &n;
	lp.block[0] = 256;
	lp.block[1] = lp.block[2] = lp.grid[1] = lp.grid[2] = 1;
	for (k = 0; k < LEN(per_sm); k++) {
		struct stats s;
		size_t g = per_sm[k] ? (size_t)(b->gpu.sms > 0 ? b->gpu.sms : 1) * per_sm[k]
		                     : (n + 255) / 256;
		lp.grid[0] = (unsigned)(g < INT32_MAX ? g : INT32_MAX);
		if (time_lp(b, &lp, &s, &r, &in_launch, msg, sizeof msg) < 0)
			goto fail;
		if (best < 0 || s.median_ms < t->median_ms) {
			*t = s;
			best = s.median_ms;
		}
	}
	/* the copy must have copied: check both ends */
	if ((r = cu.MemcpyDtoH(probe, dst, 16)) != CUDA_SUCCESS ||
	    (r = cu.MemcpyDtoH(probe + 4, dst + each - 16, 16)) != CUDA_SUCCESS) {
		cuerr(msg, sizeof msg, "cuMemcpyDtoH", r);
		goto fail;
	}
	for (k = 0; k < 8; k++)
		if (probe[k] != 1.0f) {
			say(msg, sizeof msg, "the copy kernel did not copy (element %zu is %g)", k,
			    (double)probe[k]);
			goto fail;
		}
	dfree(&src);
	dfree(&dst);
	unload(&m);
	if (!(t->median_ms > 0)) {
		say(why, whylen, "copy: median time is zero");
		return -1;
	}
	return 2.0 * (double)each / (t->median_ms * 1e6);
fail:
	memset(t, 0, sizeof *t);
	lost(b, r);
	dfree(&src); /* harmless in a lost context: the calls just fail */
	dfree(&dst);
	unload(&m);
	say(why, whylen, "copy: %s%s", msg, b->dead ? "; GPU context lost" : "");
	return -1;
}

int bench_bank_probe(struct bench *b, int bytes)
{
	CUsharedconfig orig, now;
	CUsharedconfig want = bytes == 8 ? CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE
	                                 : CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
	int got = 0;

	if (b->dead || !cu.CtxGetSharedMemConfig || !cu.CtxSetSharedMemConfig)
		return 0;
	if (cu.CtxGetSharedMemConfig(&orig) != CUDA_SUCCESS)
		return 0;
	if (cu.CtxSetSharedMemConfig(want) == CUDA_SUCCESS &&
	    cu.CtxGetSharedMemConfig(&now) == CUDA_SUCCESS)
		got = bank_of(now);
	cu.CtxSetSharedMemConfig(orig);
	return got;
}
