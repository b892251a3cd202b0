/* wire: a checked byte codec for what crosses a pipe or goes to disk. */
#include "wire.h"

#include <string.h>

#include "nvrtc.h"
#include "util.h"

/* append the n low bytes of v, least significant first */
static void put_le(struct buf *b, uint64_t v, int n)
{
	unsigned char c[8];
	int i;

	for (i = 0; i < n; i++)
		c[i] = (unsigned char)(v >> (8 * i));
	buf_add(b, c, (size_t)n);
}

void wire_u32(struct buf *b, uint32_t v)
{
	put_le(b, v, 4);
}

void wire_u64(struct buf *b, uint64_t v)
{
	put_le(b, v, 8);
}

void wire_f64(struct buf *b, double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof u);
	wire_u64(b, u);
}

void wire_bytes(struct buf *b, const void *p, size_t n)
{
	wire_u64(b, n);
	buf_add(b, n ? p : "", n);
}

void wire_str(struct buf *b, const char *s)
{
	wire_bytes(b, s ? s : "", s ? strlen(s) : 0);
}

void wire_cstr(struct buf *b, const char *s)
{
	wire_bytes(b, s ? s : "", s ? strlen(s) + 1 : 1);
}

struct rd rd_of(const void *p, size_t n)
{
	struct rd r = {p, (const unsigned char *)p + n, 0};

	if (!p)
		r.p = r.end = (const unsigned char *)"";
	return r;
}

static uint64_t get_n(struct rd *r, int n)
{
	uint64_t v = 0;
	int i;

	if (r->bad || r->end - r->p < n) {
		r->bad = 1;
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

uint32_t rd_u32(struct rd *r)
{
	return (uint32_t)get_n(r, 4);
}

int32_t rd_i32(struct rd *r)
{
	uint32_t u = rd_u32(r);

	return u <= INT32_MAX ? (int32_t)u : -(int32_t)(UINT32_MAX - u) - 1;
}

uint64_t rd_u64(struct rd *r)
{
	return get_n(r, 8);
}

int64_t rd_i64(struct rd *r)
{
	uint64_t u = rd_u64(r);

	return u <= INT64_MAX ? (int64_t)u : -(int64_t)(UINT64_MAX - u) - 1;
}

double rd_f64(struct rd *r)
{
	uint64_t u = rd_u64(r);
	double v;

	memcpy(&v, &u, sizeof v);
	return v;
}

const void *rd_bytes(struct rd *r, size_t *n)
{
	uint64_t len = rd_u64(r);
	const unsigned char *p = r->p;

	*n = 0;
	if (r->bad || len > (uint64_t)(r->end - r->p)) {
		r->bad = 1;
		return NULL;
	}
	r->p += len;
	*n = (size_t)len;
	return p;
}

void rd_str(struct rd *r, char *s, size_t cap)
{
	size_t n;
	const void *p = rd_bytes(r, &n);

	if (!p || n >= cap || memchr(p, '\0', n)) {
		r->bad = 1;
		n = 0;
	} else {
		memcpy(s, p, n);
	}
	if (cap)
		s[n] = '\0';
}

const char *rd_cstr(struct rd *r)
{
	size_t n;
	const char *p = rd_bytes(r, &n);

	if (!p || !n || memchr(p, '\0', n) != p + n - 1) {
		r->bad = 1;
		return NULL;
	}
	return p;
}

int rd_done(const struct rd *r)
{
	return !r->bad && r->p == r->end;
}

void wire_co(struct buf *b, const struct compile_out *co)
{
	wire_u32(b, co->ok ? 1 : 0);
	wire_u32(b, (uint32_t)co->regs);
	wire_u32(b, (uint32_t)co->spill_stores);
	wire_u32(b, (uint32_t)co->spill_loads);
	wire_u32(b, (uint32_t)co->stack);
	wire_u32(b, (uint32_t)co->smem_static);
	wire_str(b, co->lowered);
	wire_str(b, co->log);
	wire_bytes(b, co->cubin, co->cubin ? co->cubin_len : 0);
}

int rd_co(struct rd *r, struct compile_out *co)
{
	const void *low, *log, *cubin;
	size_t nlow, nlog, ncubin;
	uint32_t ok = rd_u32(r);

	memset(co, 0, sizeof *co);
	co->regs = rd_i32(r);
	co->spill_stores = rd_i32(r);
	co->spill_loads = rd_i32(r);
	co->stack = rd_i32(r);
	co->smem_static = rd_i32(r);
	low = rd_bytes(r, &nlow);
	log = rd_bytes(r, &nlog);
	cubin = rd_bytes(r, &ncubin);
	if (r->bad || ok > 1 || (ok && ncubin == 0) || memchr(low, '\0', nlow)) {
		memset(co, 0, sizeof *co);
		r->bad = 1;
		return -1;
	}
	co->ok = (int)ok;
	co->lowered = xstrndup(low, nlow);
	co->log = xstrndup(log, nlog);
	if (ncubin) {
		co->cubin = xmalloc(ncubin);
		memcpy(co->cubin, cubin, ncubin);
		co->cubin_len = ncubin;
	}
	return 0;
}
