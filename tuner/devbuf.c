/* devbuf: a config's buffers on the device: allocation, fills, poison, and the comparison of
   the outputs with the reference's. */
#include "devbuf.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "expr.h"
#include "util.h"
#include "vars.h"

#define MIB ((size_t)1 << 20)
#define GOLDEN 0x9e3779b97f4a7c15ULL

/* struct tuner_cmpres as the device writes it */
struct cmpres {
	uint64_t bad, maxabs, maxrel, nfirst;
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
	case EL_F32X2: /* as their components */
	case EL_F32X4:
	case EL_F64X2: die("put of a vector");
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
	case EL_F32X2: /* as their components */
	case EL_F32X4:
	case EL_F64X2: die("fmt_elem of a vector");
	}
}

/* element i of p, of type t: "0.25", or a vector's components "(0.25, -1)" */
static void fmt_vec(char *s, size_t n, const void *p, size_t i, enum elem t)
{
	size_t k = elem_comps(t), c, len;

	if (k == 1) {
		fmt_elem(s, n, p, i, t);
		return;
	}
	snprintf(s, n, "(");
	for (c = 0; c < k && (len = strlen(s)) < n; c++) {
		fmt_elem(s + len, n - len, p, i * k + c, elem_scalar(t));
		len = strlen(s);
		snprintf(s + len, n - len, c + 1 < k ? ", " : ")");
	}
}

void bench_fill_host(void *p, size_t first, size_t n, enum elem t, const struct fill *f)
{
	size_t k;

	if (elem_comps(t) > 1) { /* component c of element i is the scalar at i * comps + c */
		bench_fill_host(p, first * elem_comps(t), n * elem_comps(t), elem_scalar(t), f);
		return;
	}

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

/* ---- allocation ---- */

int devbuf_count(const char *kind, const char *name, const struct expr *e, enum elem t,
                 const struct vars *v, size_t *count, size_t *bytes, char *why, size_t whylen)
{
	char what[160];
	int64_t n;
	size_t es = elem_size(t);

	snprintf(what, sizeof what, "%s '%s' count", kind, name);
	if (expr_value(e, v, 0, &n, what, why, whylen) < 0)
		return -1;
	if (n < 0 || (uint64_t)n > SIZE_MAX / es) {
		say(why, whylen, "%s = %" PRId64 " is out of range", what, n);
		return -1;
	}
	*count = (size_t)n;
	*bytes = (size_t)n * es;
	return 0;
}

int devbuf_alloc(CUdeviceptr *d, size_t bytes, const char *what, char *why, size_t whylen)
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

void devbuf_free(CUdeviceptr *d)
{
	if (*d && gpu_ready())
		cu.MemFree(*d);
	*d = 0;
}

/* ---- open / close ---- */

int devbuf_open(struct devbufs *d, const struct config *c, const struct vars *sizes, int sms,
                char *why, size_t whylen)
{
	size_t i;
	CUresult r;

	memset(d, 0, sizeof *d);
	d->c = c;
	d->sms = sms;
	d->buf = xcalloc(c->nbuffers, sizeof *d->buf);
	for (i = 0; i < c->nbuffers; i++) {
		const struct buffer *bf = &c->buffers[i];
		struct dbuf *db = &d->buf[i];
		char what[160];
		size_t bytes;

		if ((bf->role != ROLE_OUT || bf->refill == REFILL_LAUNCH) &&
		    bf->fill.kind == FILL_LIST && bf->fill.nlist) {
			size_t lb = bf->fill.nlist * sizeof(double);
			snprintf(what, sizeof what, "the fill list of buffer '%s'", bf->name);
			if (devbuf_alloc(&db->list, lb, what, why, whylen) < 0)
				goto fail;
			if ((r = cu.MemcpyHtoD(db->list, bf->fill.list, lb)) != CUDA_SUCCESS) {
				gpu_err(why, whylen, "cuMemcpyHtoD(fill list)", r);
				goto fail;
			}
		}
		if (bf->role == ROLE_SCRATCH)
			continue; /* counts may use params: allocated per variant */
		if (devbuf_count("buffer", bf->name, bf->count, bf->type, sizes, &db->count, &bytes,
		                 why, whylen) < 0)
			goto fail;
		snprintf(what, sizeof what, "buffer '%s'", bf->name);
		if (devbuf_alloc(&db->d, bytes, what, why, whylen) < 0)
			goto fail;
		db->bytes = bytes;
		if (bf->role == ROLE_OUT) {
			snprintf(what, sizeof what, "the reference's copy of buffer '%s'", bf->name);
			if (devbuf_alloc(&db->ref, bytes, what, why, whylen) < 0)
				goto fail;
		}
	}
	if (devbuf_alloc(&d->res, (c->nbuffers ? c->nbuffers : 1) * sizeof(struct cmpres),
	                 "comparison results", why, whylen) < 0)
		goto fail;
	return 0;
fail:
	devbuf_close(d);
	return -1;
}

void devbuf_close(struct devbufs *d)
{
	size_t i;

	for (i = 0; d->buf && i < d->c->nbuffers; i++) {
		devbuf_free(&d->buf[i].d);
		devbuf_free(&d->buf[i].ref);
		devbuf_free(&d->buf[i].list);
	}
	devbuf_free(&d->res);
	free(d->buf);
	d->buf = NULL;
}

/* ---- fills ---- */

/* enqueue the fill of buffer k's first n elements with the fill kernel */
static CUresult fill1(const struct devbufs *d, size_t k, size_t n)
{
	const struct buffer *bf = &d->c->buffers[k];
	const struct fill *f = &bf->fill;
	const struct dbuf *db = &d->buf[k];
	CUdeviceptr p = db->d, list = db->list;
	size_t cnt = n * elem_comps(bf->type), nlist = f->kind == FILL_LIST ? f->nlist : 0;
	int t = 0, kind = 0;
	unsigned long long seed = f->seed;
	double lo = f->lo, hi = f->hi, start = f->start, step = f->step, value = f->value;
	void *params[] = {&p, &cnt, &t, &kind, &seed, &lo, &hi, &start, &step, &value, &list,
	                  &nlist};

	if (!n)
		return CUDA_SUCCESS;
	switch (elem_scalar(bf->type)) { /* the kernel's numbering, independent of enum elem's;
	                                    a vector's components as an array of them */
	case EL_F32: t = 0; break;
	case EL_F64: t = 1; break;
	case EL_I32: t = 2; break;
	case EL_U32: t = 3; break;
	case EL_I64: t = 4; break;
	case EL_U64: t = 5; break;
	default: die("a vector's components are scalars");
	}
	switch (f->kind) {
	case FILL_RANDOM: kind = 0; break;
	case FILL_RANGE: kind = 1; break;
	case FILL_CONST: kind = 2; break;
	case FILL_LIST: kind = 3; break;
	}
	return gpu_launch_1d(d->fill, gpu_grid(d->sms, cnt, 256, 32), 256, params);
}

/* elements 0, n/2 and n-1 of buffer k (filled on the device) against bench_fill_host */
static int check(const struct devbufs *d, size_t k, CUresult *rc, char *why, size_t whylen)
{
	const struct buffer *bf = &d->c->buffers[k];
	const struct dbuf *db = &d->buf[k];
	size_t es = elem_size(bf->type), idx[3], j;
	unsigned char got[16], want[16];
	CUresult r;

	if (!db->count)
		return 0;
	idx[0] = 0;
	idx[1] = db->count / 2;
	idx[2] = db->count - 1;
	for (j = 0; j < 3; j++) {
		char gs[64], ws[64];
		if ((r = cu.MemcpyDtoH(got, db->d + idx[j] * es, es)) != CUDA_SUCCESS) {
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
		fmt_vec(gs, sizeof gs, got, 0, bf->type);
		fmt_vec(ws, sizeof ws, want, 0, bf->type);
		say(why, whylen, "the device fill of buffer '%s' disagrees with the host formula at "
		    "element %zu: %s vs %s", bf->name, idx[j], gs, ws);
		return -1;
	}
	return 0;
}

int devbuf_fill(struct devbufs *d, CUresult *rc, char *why, size_t whylen)
{
	const struct config *c = d->c;
	size_t i;

	*rc = CUDA_SUCCESS;
	for (i = 0; i < c->nbuffers; i++)
		if (c->buffers[i].role == ROLE_IN &&
		    (*rc = fill1(d, i, d->buf[i].count)) != CUDA_SUCCESS) {
			gpu_err(why, whylen, "cuLaunchKernel(fill)", *rc);
			return -1;
		}
	if ((*rc = cu.CtxSynchronize()) != CUDA_SUCCESS) {
		gpu_err(why, whylen, "fill kernel failed", *rc);
		return -1;
	}
	for (i = 0; i < c->nbuffers; i++)
		if (c->buffers[i].role == ROLE_IN && check(d, i, rc, why, whylen) < 0)
			return -1;
	return 0;
}

/* 1 if b is filled before each variant: a scratch buffer, an in buffer with refill: variant */
static int per_variant(const struct buffer *b)
{
	return b->role == ROLE_SCRATCH || (b->role == ROLE_IN && b->refill == REFILL_VARIANT);
}

int devbuf_scratch(struct devbufs *d, const struct arg *args, size_t nargs,
                   const struct vars *v, CUresult *rc, char *why, size_t whylen)
{
	const struct config *c = d->c;
	size_t i, j;

	*rc = CUDA_SUCCESS;
	for (i = 0; i < nargs; i++) {
		int k = args[i].buffer;
		const struct buffer *bf;
		struct dbuf *db;
		size_t count, bytes;
		char what[160];
		CUresult r;
		int seen = 0;

		if (k < 0 || !per_variant(&c->buffers[k]))
			continue;
		for (j = 0; j < i; j++)
			seen |= args[j].buffer == k;
		if (seen)
			continue;
		bf = &c->buffers[k];
		db = &d->buf[k];
		if (bf->role == ROLE_IN) { /* allocated with the others: filled again */
			if ((r = fill1(d, (size_t)k, db->count)) != CUDA_SUCCESS) {
				*rc = r;
				gpu_err(why, whylen, "cuLaunchKernel(refill)", r);
				return -1;
			}
			continue;
		}
		if (devbuf_count("buffer", bf->name, bf->count, bf->type, v, &count, &bytes,
		                 why, whylen) < 0)
			return -1;
		snprintf(what, sizeof what, "scratch buffer '%s'", bf->name);
		if (bytes > db->bytes) {
			devbuf_free(&db->d);
			db->bytes = 0;
			if (devbuf_alloc(&db->d, bytes, what, why, whylen) < 0)
				return -1;
			db->bytes = bytes;
		}
		db->count = count;
		if ((r = fill1(d, (size_t)k, count)) != CUDA_SUCCESS) {
			*rc = r;
			gpu_err(why, whylen, "cuLaunchKernel(fill scratch)", r);
			return -1;
		}
	}
	return 0;
}

CUresult devbuf_refill(const struct devbufs *d, size_t k)
{
	if (k >= d->c->nbuffers)
		die("refill of buffer %zu of %zu", k, d->c->nbuffers);
	return fill1(d, k, d->buf[k].count);
}

/* ---- outputs ---- */

CUresult devbuf_poison(const struct devbufs *d)
{
	size_t i;
	CUresult r;

	for (i = 0; i < d->c->nbuffers; i++)
		if (d->c->buffers[i].role == ROLE_OUT && d->buf[i].bytes &&
		    (r = cu.MemsetD8Async(d->buf[i].d, 0xFF, d->buf[i].bytes, NULL)) != CUDA_SUCCESS)
			return r;
	return CUDA_SUCCESS;
}

CUresult devbuf_keep(const struct devbufs *d)
{
	size_t i;
	CUresult r;

	for (i = 0; i < d->c->nbuffers; i++) {
		const struct dbuf *db = &d->buf[i];
		if (d->c->buffers[i].role == ROLE_OUT && db->bytes &&
		    (r = cu.MemcpyDtoD(db->ref, db->d, db->bytes)) != CUDA_SUCCESS)
			return r;
	}
	return cu.CtxSynchronize();
}

static double bits_double(uint64_t u)
{
	double x;

	memcpy(&x, &u, sizeof x);
	return x;
}

CUresult devbuf_compare(const struct devbufs *d, struct cmp_sum *s, char *msg, size_t msglen)
{
	const struct config *c = d->c;
	struct cmpres *res;
	size_t i;
	CUresult rc;

	memset(s, 0, sizeof *s);
	if ((rc = cu.MemsetD8Async(d->res, 0, c->nbuffers * sizeof *res, NULL)) != CUDA_SUCCESS) {
		gpu_err(msg, msglen, "cuMemsetD8Async(comparison results)", rc);
		return rc;
	}
	for (i = 0; i < c->nbuffers; i++) {
		const struct buffer *bf = &c->buffers[i];
		const struct dbuf *db = &d->buf[i];
		size_t n = db->count * elem_comps(bf->type), w = 16 / elem_size(elem_scalar(bf->type));
		double atol = c->atol, rtol = c->rtol;
		CUdeviceptr got = db->d, ref = db->ref, out = d->res + i * sizeof *res;
		void *params[] = {&got, &ref, &n, &atol, &rtol, &out};

		if (bf->role != ROLE_OUT || !n)
			continue;
		rc = gpu_launch_1d(d->cmp[elem_scalar(bf->type)], gpu_grid(d->sms, (n + w - 1) / w, 256, 8), 256,
		               params);
		if (rc != CUDA_SUCCESS) {
			gpu_err(msg, msglen, "cuLaunchKernel(compare)", rc);
			return rc;
		}
	}
	res = xcalloc(c->nbuffers, sizeof *res);
	if ((rc = cu.MemcpyDtoH(res, d->res, c->nbuffers * sizeof *res)) != CUDA_SUCCESS) {
		gpu_err(msg, msglen, "comparison failed", rc);
		free(res);
		return rc;
	}
	for (i = 0; i < c->nbuffers; i++) {
		const struct buffer *bf = &c->buffers[i];
		const struct dbuf *db = &d->buf[i];
		double ma = bits_double(res[i].maxabs), mr = bits_double(res[i].maxrel);

		if (bf->role != ROLE_OUT)
			continue;
		s->total += db->count * elem_comps(bf->type); /* a vector's: its components */
		if (ma > s->maxabs)
			s->maxabs = ma;
		if (mr > s->maxrel)
			s->maxrel = mr;
		if (res[i].bad && !s->bad) {
			/* j: the first wrong component; of a vector, component j % k of element j / k */
			size_t j = (size_t)~res[i].nfirst, k = elem_comps(bf->type);
			enum elem st = elem_scalar(bf->type);
			size_t es = elem_size(st);
			unsigned char xv[8], rv[8];
			char xs[64] = "?", rs[64] = "?";
			if (j < db->count * k && cu.MemcpyDtoH(xv, db->d + j * es, es) == CUDA_SUCCESS &&
			    cu.MemcpyDtoH(rv, db->ref + j * es, es) == CUDA_SUCCESS) {
				fmt_elem(xs, sizeof xs, xv, 0, st);
				fmt_elem(rs, sizeof rs, rv, 0, st);
			}
			if (k > 1)
				snprintf(s->first, sizeof s->first, "%s[%zu].%c: %s vs %s", bf->name, j / k,
				         "xyzw"[j % k], xs, rs);
			else
				snprintf(s->first, sizeof s->first, "%s[%zu]: %s vs %s", bf->name, j, xs, rs);
			/* every element wrong, the first still the poison's bytes: never written */
			if ((size_t)res[i].bad == db->count * k && j == 0 && strcmp(xs, "?") &&
			    !memcmp(xv, "\xff\xff\xff\xff\xff\xff\xff\xff", es))
				s->unwritten = bf->name;
		}
		s->bad += (size_t)res[i].bad;
	}
	free(res);
	return CUDA_SUCCESS;
}
