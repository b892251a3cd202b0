/* journal: finished GPU results on disk, so a killed run resumes without re-running them. */
#include "journal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "result.h" /* enum status */
#include "spec.h"
#include "util.h"

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

static void hex(struct buf *b, const char *s)
{
	for (; *s; s++)
		buf_printf(b, "%02x", (unsigned char)*s);
}

static void format(struct buf *b, const struct jrec *r)
{
	const struct run_result *x = &r->run;
	size_t start = b->len;
	uint64_t sum;
	int i;

	buf_printf(b, "%s %016" PRIx64 " %d %d %zu %.17g %.17g %d %.17g %.17g %.17g %.17g %.17g %d "
	              "%d %.17g %.17g %.17g %d %d %.17g ", MAGIC, r->key, r->status, (int)x->status,
	           x->bad, x->max_abs_err, x->max_rel_err, x->t.n, x->t.median_ms, x->t.min_ms,
	           x->t.max_ms, x->t.mean_ms, x->t.spread, x->bank_applied, x->resident, r->gbs,
	           r->pct_copy, r->pct_read, x->t.reps, x->t.held, x->t.launch_us);
	buf_puts(b, "r"); /* never empty, so the fields stay apart */
	hex(b, x->reason);
	buf_printf(b, " %d", x->nprobe > 0 ? x->nprobe : 0);
	for (i = 0; i < x->nprobe && i < BENCH_PROBE_MAX; i++)
		buf_printf(b, " %.17g", x->probe[i]);
	buf_puts(b, " ");
	sum = hash_bytes(HASH_INIT, b->s + start, b->len - start);
	buf_printf(b, "%016" PRIx64 "\n", sum);
}

/* " N v1 .. vN " between p and the checksum at tail; 0 if well formed */
static int parse_probe(const char *p, const char *tail, struct run_result *x)
{
	int n, k, i;

	if (sscanf(p, " %d%n", &x->nprobe, &k) != 1 || x->nprobe < -1 ||
	    x->nprobe > BENCH_PROBE_MAX)
		return -1;
	p += k;
	for (i = 0; i < x->nprobe; i++) {
		if (sscanf(p, " %lg%n", &x->probe[i], &n) != 1 || !isfinite(x->probe[i]))
			return -1;
		p += n;
	}
	return p == tail ? 0 : -1;
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
	char magic[32], rs[2 * sizeof r->run.reason + 2];
	unsigned long long key, sum;
	long long bad;
	int st, rst, n = 0, len;
	char *tail = strrchr(line, ' ');
	size_t i;

	memset(r, 0, sizeof *r);
	if (!tail || strlen(tail + 1) != 16)
		return -1;
	sum = strtoull(tail + 1, NULL, 16);
	if (hash_bytes(HASH_INIT, line, (size_t)(tail + 1 - line)) != sum)
		return -1;
	if (sscanf(line, "%31s %llx %d %d %lld %lg %lg %d %lg %lg %lg %lg %lg %d %d %lg %lg %lg "
	           "%d %d %lg %n", magic, &key, &st, &rst, &bad, &r->run.max_abs_err,
	           &r->run.max_rel_err, &r->run.t.n, &r->run.t.median_ms, &r->run.t.min_ms,
	           &r->run.t.max_ms, &r->run.t.mean_ms, &r->run.t.spread, &r->run.bank_applied,
	           &r->run.resident, &r->gbs, &r->pct_copy, &r->pct_read, &r->run.t.reps,
	           &r->run.t.held, &r->run.t.launch_us, &n) != 21 || strcmp(magic, MAGIC) ||
	    bad < 0)
		return -1;
	r->run.bad = (size_t)bad;
	if (line[n] != 'r')
		return -1;
	n++;
	for (len = 0; line[n + len] && line[n + len] != ' '; len++)
		;
	if (parse_probe(line + n + len, tail, &r->run) < 0)
		return -1;
	if (len < 0 || len % 2 || (size_t)len >= sizeof rs || (size_t)len / 2 >= sizeof r->run.reason)
		return -1;
	memcpy(rs, line + n, (size_t)len);
	rs[len] = '\0';
	for (i = 0; i < (size_t)len / 2; i++) {
		unsigned v;
		if (!isxdigit((unsigned char)rs[2 * i]) || !isxdigit((unsigned char)rs[2 * i + 1]) ||
		    sscanf(rs + 2 * i, "%2x", &v) != 1 || v == 0)
			return -1;
		r->run.reason[i] = (char)v;
	}
	r->key = key;
	r->status = st;
	r->run.status = (enum run_status)rst;
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
