/* journal: finished GPU results on disk, so a killed run resumes without re-running them. */
#include "journal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "result.h" /* enum status */
#include "spec.h"
#include "util.h"
#include "wire.h"

/* the record format and what the keys hash; change it when either changes, a default of the
   config loader included (read.h: enum dig) */
#define MAGIC "tuner-journal-6"

static uint64_t hash_str(uint64_t h, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	h = hash_bytes(h, &n, sizeof n);
	return hash_bytes(h, s ? s : "", n);
}

static uint64_t hash_i64(uint64_t h, int64_t x)
{
	return hash_bytes(h, &x, sizeof x);
}

uint64_t journal_context(const struct config *c, const struct vars *sizes, const char *gpu,
                         const char *method, const struct compile_out *ref)
{
	uint64_t h = hash_str(HASH_INIT, MAGIC);
	size_t i, k;

	h = hash_str(h, gpu);
	h = hash_str(h, method);
	for (i = 0; i < (size_t)sizes->n; i++) {
		h = hash_str(h, sizes->name[i]);
		h = hash_i64(h, sizes->val[i]);
	}
	h = hash_bytes(h, &c->result_digest, sizeof c->result_digest);
	for (k = 0; k < c->nverify; k++) /* as resolved: the file's sizes fill them in */
		for (i = 0; i < c->nsizes; i++) {
			h = hash_str(h, c->sizes[i].name);
			h = hash_i64(h, c->verify[k].vals[i]);
		}
	h = hash_i64(h, (int64_t)ref->cubin_len);
	return hash_bytes(h, ref->cubin, ref->cubin_len);
}

uint64_t journal_key(uint64_t ctx, const struct config *c, const struct space *s,
                     const struct variant *v, const struct compile_out *co)
{
	struct vars vars;
	uint64_t h = ctx;
	int d;

	for (d = 0; d < 3; d++) {
		h = hash_i64(h, v->block[d]);
		h = hash_i64(h, v->grid[d]);
	}
	h = hash_i64(h, v->shared);
	h = hash_i64(h, v->bank_bytes);
	h = hash_i64(h, v->bytes);
	space_bind(c, s, v, &vars);
	for (d = 0; d < vars.n; d++) { /* scratch sizes and scalar arguments may use them */
		h = hash_str(h, vars.name[d]);
		h = hash_i64(h, vars.val[d]);
	}
	if (c->nverify) /* its launch at the extra verification sizes */
		h = hash_i64(h, (int64_t)space_verify_hash(c, s, v));
	h = hash_i64(h, (int64_t)co->cubin_len);
	return hash_bytes(h, co->cubin, co->cubin_len);
}

/* ---- struct run_result's one codec: the journal's line and the worker's message ---- */

/* what a field is: an int (or an enum), a size_t, a double, a string (char[]), or the probe
   (nprobe, then its values) */
enum kind { K_INT, K_SIZE, K_DBL, K_TEXT, K_PROBE };
enum {
	IN_LINE = 1,              /* in the journal's line */
	IN_PIPE = 2,              /* in the worker's message */
	OF_REC = 4,               /* a field of struct jrec (the parent's: the line's only), not of
	                             its run */
};
struct field {
	enum kind kind;
	int where;
	size_t off, size;         /* in struct run_result, or in struct jrec with OF_REC */
};
#define RUN(k, w, f) {k, w, offsetof(struct run_result, f), sizeof ((struct run_result *)0)->f}
#define REC(k, f) {k, IN_LINE | OF_REC, offsetof(struct jrec, f), sizeof ((struct jrec *)0)->f}
#define BOTH (IN_LINE | IN_PIPE)
/* in the journal line's order (after its magic and key; its checksum last); a new field of
   struct run_result is a row here, IN_LINE where a resumed result keeps it (the line's format
   then changes: MAGIC too) */
static const struct field fields[] = {
	REC(K_INT, status),
	RUN(K_INT, BOTH, status),
	RUN(K_SIZE, BOTH, bad),
	RUN(K_DBL, BOTH, max_abs_err),
	RUN(K_DBL, BOTH, max_rel_err),
	RUN(K_INT, BOTH, t.n),
	RUN(K_DBL, BOTH, t.median_ms),
	RUN(K_DBL, BOTH, t.min_ms),
	RUN(K_DBL, BOTH, t.max_ms),
	RUN(K_DBL, BOTH, t.mean_ms),
	RUN(K_DBL, BOTH, t.spread),
	RUN(K_INT, BOTH, bank_applied),
	RUN(K_INT, BOTH, resident),
	REC(K_DBL, gbs),
	REC(K_DBL, pct_copy),
	REC(K_DBL, pct_read),
	RUN(K_INT, BOTH, t.reps),
	RUN(K_INT, BOTH, t.held),
	RUN(K_DBL, BOTH, t.launch_us),
	RUN(K_TEXT, BOTH, reason),
	RUN(K_PROBE, BOTH, nprobe),
	RUN(K_TEXT, IN_PIPE, probe_why),
	RUN(K_INT, IN_PIPE, device),
	RUN(K_DBL, IN_PIPE, verify_s),
	RUN(K_DBL, IN_PIPE, extra_s),
	RUN(K_DBL, IN_PIPE, timing_s),
};
#define NFIELDS (sizeof fields / sizeof *fields)

/* f's place in r (or in its run) */
static void *place(const struct field *f, const struct jrec *r)
{
	const char *base = f->where & OF_REC ? (const char *)r : (const char *)&r->run;
	size_t want = f->kind == K_SIZE ? sizeof(size_t) : f->kind == K_DBL ? sizeof(double)
	            : f->kind == K_TEXT ? f->size : sizeof(int);

	if (f->size != want)
		die("journal: the field at %zu is not of its kind", f->off);
	return (void *)(base + f->off);
}

static void hex(struct buf *b, const char *s)
{
	for (; *s; s++)
		buf_printf(b, "%02x", (unsigned char)*s);
}

static void format(struct buf *b, const struct jrec *r)
{
	const struct run_result *x = &r->run;
	size_t start = b->len, k;
	uint64_t sum;
	int i;

	buf_printf(b, "%s %016" PRIx64, MAGIC, r->key);
	for (k = 0; k < NFIELDS; k++) {
		const struct field *f = &fields[k];
		const void *p = place(f, r);
		if (!(f->where & IN_LINE))
			continue;
		switch (f->kind) {
		case K_INT: buf_printf(b, " %d", *(const int *)p); break;
		case K_SIZE: buf_printf(b, " %zu", *(const size_t *)p); break;
		case K_DBL: buf_printf(b, " %.17g", *(const double *)p); break;
		case K_TEXT:
			buf_puts(b, " r"); /* never empty, so the fields stay apart */
			hex(b, p);
			break;
		case K_PROBE:
			buf_printf(b, " %d", x->nprobe > 0 ? x->nprobe : 0);
			for (i = 0; i < x->nprobe && i < BENCH_PROBE_MAX; i++)
				buf_printf(b, " %.17g", x->probe[i]);
			break;
		}
	}
	buf_puts(b, " ");
	sum = hash_bytes(HASH_INIT, b->s + start, b->len - start);
	buf_printf(b, "%016" PRIx64 "\n", sum);
}

/* " N v1 .. vN" at p into x; the characters read, or -1 if malformed */
static int parse_probe(const char *p, struct run_result *x)
{
	int n, k, i;

	if (sscanf(p, " %d%n", &x->nprobe, &k) != 1 || x->nprobe < -1 ||
	    x->nprobe > BENCH_PROBE_MAX)
		return -1;
	for (i = 0; i < x->nprobe; i++) {
		if (sscanf(p + k, " %lg%n", &x->probe[i], &n) != 1 || !isfinite(x->probe[i]))
			return -1;
		k += n;
	}
	return k;
}

/* " rHEX" at p (HEX: the string's bytes, none 0) into s[cap]; the characters read, or -1 */
static int parse_text(const char *p, char *s, size_t cap)
{
	int n = 0, len;
	size_t i;

	while (isspace((unsigned char)p[n]))
		n++;
	if (p[n++] != 'r')
		return -1;
	for (len = 0; p[n + len] && p[n + len] != ' '; len++)
		;
	if (len % 2 || (size_t)len / 2 >= cap)
		return -1;
	for (i = 0; i < (size_t)len / 2; i++) {
		const char *h = p + n + 2 * i;
		unsigned v;
		if (!isxdigit((unsigned char)h[0]) || !isxdigit((unsigned char)h[1]) ||
		    sscanf(h, "%2x", &v) != 1 || v == 0)
			return -1;
		s[i] = (char)v;
	}
	s[i] = '\0';
	return n + len;
}

/* a field of the line at p into at; the characters read, or -1 if malformed */
static int parse_field(const char *p, const struct field *f, void *at, struct jrec *r)
{
	long long z;
	int n = -1;

	switch (f->kind) {
	case K_INT:
		if (sscanf(p, " %d%n", (int *)at, &n) != 1)
			return -1;
		break;
	case K_SIZE:
		if (sscanf(p, " %lld%n", &z, &n) != 1 || z < 0)
			return -1;
		*(size_t *)at = (size_t)z;
		break;
	case K_DBL:
		if (sscanf(p, " %lg%n", (double *)at, &n) != 1)
			return -1;
		break;
	case K_TEXT: return parse_text(p, at, f->size);
	case K_PROBE: return parse_probe(p, &r->run);
	}
	return n;
}

/* the line's fields after its key, from p up to the checksum at tail, into r; 0 if well
   formed */
static int parse_fields(const char *p, const char *tail, struct jrec *r)
{
	size_t k;
	int n;

	for (k = 0; k < NFIELDS; k++) {
		if (!(fields[k].where & IN_LINE))
			continue;
		if ((n = parse_field(p, &fields[k], place(&fields[k], r), r)) < 0)
			return -1;
		p += n;
	}
	return p == tail ? 0 : -1;
}

void journal_wire_run(struct buf *b, const struct run_result *x)
{
	struct jrec r;
	size_t k;
	int i;

	memset(&r, 0, sizeof r);
	r.run = *x;
	for (k = 0; k < NFIELDS; k++) {
		const struct field *f = &fields[k];
		const void *p = place(f, &r);
		if (!(f->where & IN_PIPE))
			continue;
		switch (f->kind) {
		case K_INT: wire_u32(b, (uint32_t)*(const int *)p); break;
		case K_SIZE: wire_u64(b, *(const size_t *)p); break;
		case K_DBL: wire_f64(b, *(const double *)p); break;
		case K_TEXT: wire_str(b, p); break;
		case K_PROBE:
			wire_u32(b, (uint32_t)x->nprobe);
			for (i = 0; i < BENCH_PROBE_MAX; i++)
				wire_f64(b, x->probe[i]);
			break;
		}
	}
}

int journal_rd_run(struct rd *rd, struct run_result *x)
{
	struct jrec r;
	size_t k;
	int i;

	memset(&r, 0, sizeof r);
	for (k = 0; k < NFIELDS; k++) {
		const struct field *f = &fields[k];
		void *p = place(f, &r);
		if (!(f->where & IN_PIPE))
			continue;
		switch (f->kind) {
		case K_INT: *(int *)p = rd_i32(rd); break;
		case K_SIZE: *(size_t *)p = (size_t)rd_u64(rd); break;
		case K_DBL: *(double *)p = rd_f64(rd); break;
		case K_TEXT: rd_str(rd, p, f->size); break;
		case K_PROBE:
			r.run.nprobe = rd_i32(rd);
			for (i = 0; i < BENCH_PROBE_MAX; i++)
				r.run.probe[i] = rd_f64(rd);
			break;
		}
	}
	*x = r.run;
	if ((unsigned)x->status > RUN_LAUNCH_ERROR || x->nprobe > BENCH_PROBE_MAX ||
	    x->resident < 0) {
		x->status = RUN_FAULT;
		rd->bad = 1;
	}
	return rd_done(rd) ? 0 : -1;
}

/* 1 if x is a finite number >= 0 */
static int nonneg(double x)
{
	return isfinite(x) && x >= 0;
}

/* 1 if what a record says could have come from a run: a status a GPU run records, counts and
   times in range (a record whose checksum matches is trusted no further than this) */
static int valid(const struct jrec *r)
{
	const struct run_result *x = &r->run;
	const struct stats *t = &x->t;

	switch (r->status) {
	case ST_OK:
		if (x->status != RUN_OK || t->n < 1)
			return 0;
		break;
	case ST_MISMATCH:
	case ST_FAULT:
	case ST_TIMEOUT:
	case ST_LAUNCH_ERROR:
		break;
	default:
		return 0;
	}
	if (x->status != RUN_OK && x->status != RUN_MISMATCH && x->status != RUN_FAULT &&
	    x->status != RUN_LAUNCH_ERROR)
		return 0;
	if (t->n < 0 || t->n > CFG_SAMPLES_MAX)
		return 0;
	if (!nonneg(t->median_ms) || !nonneg(t->min_ms) || !nonneg(t->max_ms) ||
	    !nonneg(t->mean_ms) || !nonneg(t->spread) || !nonneg(t->launch_us))
		return 0;
	if (t->reps < 0 || t->reps > 1000000 || (t->held != 0 && t->held != 1))
		return 0;
	if (!(x->max_abs_err >= 0) || !(x->max_rel_err >= 0)) /* +inf: a NaN output */
		return 0;
	if (x->bank_applied != 0 && x->bank_applied != 4 && x->bank_applied != 8)
		return 0;
	if (x->resident < 0)
		return 0;
	return nonneg(r->gbs) && nonneg(r->pct_copy) && nonneg(r->pct_read);
}

/* parse one line (without its newline); 0 if intact */
static int parse(char *line, struct jrec *r)
{
	char magic[32];
	unsigned long long key, sum;
	int n = 0;
	char *tail = strrchr(line, ' ');

	memset(r, 0, sizeof *r);
	if (!tail || strlen(tail + 1) != 16)
		return -1;
	sum = strtoull(tail + 1, NULL, 16);
	if (hash_bytes(HASH_INIT, line, (size_t)(tail + 1 - line)) != sum)
		return -1;
	if (sscanf(line, "%31s %llx%n", magic, &key, &n) != 2 || strcmp(magic, MAGIC) ||
	    parse_fields(line + n, tail, r) < 0)
		return -1;
	r->key = key;
	return valid(r) ? 0 : -1;
}

int journal_load(const char *path, struct jrec **out, size_t *nout)
{
	char *text = file_read_nolink(path, JOURNAL_MAX, NULL), *line, *nl;
	size_t n = 0, cap = 0;

	*out = NULL;
	*nout = 0;
	if (!text)
		return errno == ENOENT ? 0 : -1;
	for (line = text; (nl = strchr(line, '\n')); line = nl + 1) {
		struct jrec r;
		char *p, *q;
		*nl = '\0';
		/* a record starts at its magic: a torn record before it on the line (a run killed
		   while appending, before appends began on a fresh line) is skipped */
		for (p = line; *p && (q = strstr(p + 1, MAGIC " ")); p = q)
			;
		if (parse(p, &r) < 0)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			*out = xreallocarray(*out, cap, sizeof **out);
		}
		(*out)[n++] = r;
	}
	free(text);
	*nout = n;
	return 0;
}

int journal_append(const char *path, const struct jrec *r)
{
	struct buf b = {0};
	struct stat st;
	int fd, rc = 0, e;
	char last;
	ssize_t w;

	fd = file_open_own(path, 1);
	if (fd < 0)
		return -1;
	/* after a torn last line (a run killed while appending), start on a fresh line */
	if (fstat(fd, &st) == 0 && st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) == 1 &&
	    last != '\n')
		buf_puts(&b, "\n");
	format(&b, r);
	do
		w = write(fd, b.s, b.len);
	while (w < 0 && errno == EINTR);
	if (w != (ssize_t)b.len)
		rc = -1;
	e = errno;
	close(fd);
	buf_free(&b);
	errno = e;
	return rc;
}

int journal_rewrite(const char *path, const struct jrec *recs, size_t n)
{
	struct buf b = {0};
	size_t i;
	int rc;

	for (i = 0; i < n; i++)
		format(&b, &recs[i]);
	rc = file_write_atomic(path, b.s ? b.s : "", b.len);
	buf_free(&b);
	return rc;
}
