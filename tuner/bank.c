/* bank: static shared-memory bank-conflict model (wavefronts per warp request). */
#include "bank.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

enum {
	ITER_MAX = 1 << 14,   /* loop iterations per access and warp: a loop that never ends */
	THREADS_MAX = 1 << 16 /* threads per block (CUDA allows 1024) */
};

const struct bank_rules bank_volta = {"sm_70+", 4, 1};
const struct bank_rules bank_kepler8 = {"kepler-8B", 8, 0};

const struct bank_rules *bank_rules_for(int cc, int bank_bytes)
{
	if (cc >= 30 && cc < 50 && bank_bytes == 8)
		return &bank_kepler8;
	return &bank_volta;
}

/* 1 if every active lane n whose partner n ^ k is active has the partner's address */
static int paired(const struct bank_req *q, int k)
{
	int n;

	for (n = 0; n < BANK_LANES; n++) {
		int m = n ^ k;
		if ((q->active >> n & 1) && (q->active >> m & 1) && q->addr[n] != q->addr[m])
			return 0;
	}
	return 1;
}

int bank_cost(const struct bank_rules *r, const struct bank_req *q, struct bank_cost *c,
              char *msg, size_t n)
{
	int64_t words[BANK_COUNT][BANK_LANES];
	int cnt[BANK_COUNT];
	int bb = r->bank_bytes, w = q->width, nph, per, nw, p, l, k, i;

	memset(c, 0, sizeof *c);
	if (bb != 4 && bb != 8)
		die("bank: bank width %d", bb);
	if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16) {
		snprintf(msg, n, "access width %d is not 1, 2, 4, 8 or 16 bytes", w);
		return -1;
	}
	for (l = 0; l < BANK_LANES; l++) {
		if (!(q->active >> l & 1))
			continue;
		if (q->addr[l] < 0 || q->addr[l] % w) {
			snprintf(msg, n, "lane %d: address %lld is %s", l, (long long)q->addr[l],
			         q->addr[l] < 0 ? "negative" : w == 2 ? "not aligned to 2 bytes"
			         : w == 4 ? "not aligned to 4 bytes" : w == 8 ? "not aligned to 8 bytes"
			         : "not aligned to 16 bytes");
			return -1;
		}
	}
	nw = w > bb ? w / bb : 1;  /* bank words per lane */
	nph = nw;                  /* phases: the warp's data over 32 banks of bb bytes */
	if (!q->store && r->pair_merge && nph > 1 && (paired(q, 1) || paired(q, 2)))
		nph /= 2;
	per = BANK_LANES / nph;
	c->phases = nph;
	for (p = 0; p < nph; p++) {
		int any = 0, worst = 0;

		memset(cnt, 0, sizeof cnt);
		for (l = p * per; l < (p + 1) * per; l++) {
			if (!(q->active >> l & 1))
				continue;
			any = 1;
			for (k = 0; k < nw; k++) {
				int64_t word = q->addr[l] / bb + k;
				int b = (int)(word % BANK_COUNT);

				for (i = 0; i < cnt[b] && words[b][i] != word; i++)
					;
				if (i == cnt[b]) /* a lane's words lie in distinct banks: cnt[b] <= per */
					words[b][cnt[b]++] = word;
				if (cnt[b] > worst)
					worst = cnt[b];
			}
		}
		if (!any)
			continue;
		c->wavefronts += worst;
		c->ideal++;
		if (worst > c->degree)
			c->degree = worst;
	}
	return 0;
}

static const char *const thread_names[] = {"tx", "ty", "tz", "tid", "lane", "warp", "nthreads"};

int bank_reserved(const char *name)
{
	size_t i;

	for (i = 0; i < LEN(thread_names); i++)
		if (!strcmp(name, thread_names[i]))
			return 1;
	return 0;
}

/* one evaluation: the access, its per-variant constants and one binding set per lane */
struct ev {
	const struct bank_access *a;
	const struct bank_rules *r;
	struct bank_stats *s;
	struct bank_err *err;
	struct vars *lv;          /* BANK_LANES of them */
	int64_t tid[BANK_LANES];  /* linear thread index of each lane of the current warp */
	int64_t block[3];
	int64_t elem, width, base;
	int64_t iters;            /* loop iterations of the current warp */
	int64_t *work;            /* steps left (bank_eval) */
};

__attribute__((format(printf, 4, 5)))
static int fail(struct bank_err *err, const char *what, int col, const char *fmt, ...)
{
	va_list ap;

	snprintf(err->what, sizeof err->what, "%s", what);
	err->col = col;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	return -1;
}

/* evaluate a variant-wide expression (no thread names) */
static int uniform(const struct expr *x, const struct vars *v, const char *what,
                   struct bank_err *err, int64_t *out)
{
	struct expr_err xe = {0};

	if (expr_eval(x, v, out, &xe) < 0)
		return fail(err, what, xe.col, "%s", xe.msg);
	return 0;
}

/* "thread (tx, ty, tz)" of lane l */
static const char *thread_str(const struct ev *e, int l, char *b, size_t n)
{
	int64_t t = e->tid[l];

	snprintf(b, n, "thread (%lld, %lld, %lld)", (long long)(t % e->block[0]),
	         (long long)(t / e->block[0] % e->block[1]),
	         (long long)(t / (e->block[0] * e->block[1])));
	return b;
}

/* take n steps of the variant's work; 0, or -1 (with e->err) when none are left */
static int work(struct ev *e, int64_t n)
{
	if ((*e->work -= n) >= 0)
		return 0;
	return fail(e->err, "", -1, "more than %lld steps of the bank model for this variant (an "
	            "expression for a thread, a thread of a request): declare fewer loop "
	            "iterations", (long long)BANK_WORK_MAX);
}

/* evaluate a per-lane expression for lane l; errors name the thread and the field, whose
   name is the format what with idx (formatted only then: this is the model's inner loop) */
static int lane_eval(struct ev *e, const struct expr *x, int l, const char *what, size_t idx,
                     int64_t *out)
{
	struct expr_err xe = {0};
	char b[80], w[32];

	if (work(e, 1) < 0)
		return -1;
	if (expr_eval(x, &e->lv[l], out, &xe) < 0) {
		snprintf(w, sizeof w, what, idx);
		return fail(e->err, w, xe.col, "%s: %s", thread_str(e, l, b, sizeof b), xe.msg);
	}
	return 0;
}

/* the request of the innermost loop body for the lanes in mask */
static int emit(struct ev *e, uint32_t mask)
{
	const struct bank_access *a = e->a;
	struct bank_req q;
	struct bank_cost c;
	char msg[160];
	size_t i;
	int l;

	memset(&q, 0, sizeof q);
	q.width = (int)e->width;
	q.store = a->store;
	for (l = 0; l < BANK_LANES; l++) {
		int64_t x, idx;

		if (!(mask >> l & 1))
			continue;
		for (i = 0; i < a->nlets; i++) {
			if (lane_eval(e, a->lets[i].value, l, "let[%zu]", i, &x) < 0)
				return -1;
			vars_set(&e->lv[l], a->lets[i].name, x);
		}
		if (a->when) {
			if (lane_eval(e, a->when, l, "when", 0, &x) < 0)
				return -1;
			if (!x)
				continue;
		}
		if (lane_eval(e, a->index, l, "index", 0, &idx) < 0)
			return -1;
		if (idx > (INT64_MAX - e->base) / e->elem || idx < -(INT64_MAX / e->elem) ||
		    e->base + idx * e->elem < 0)
			return fail(e->err, "index", -1, "%s: index %lld is outside shared memory",
			            thread_str(e, l, msg, sizeof msg), (long long)idx);
		q.addr[l] = e->base + idx * e->elem;
		q.active |= 1u << l;
	}
	if (!q.active)
		return 0;
	if (work(e, BANK_LANES) < 0)
		return -1;
	if (bank_cost(e->r, &q, &c, msg, sizeof msg) < 0)
		return fail(e->err, "index", -1, "warp %lld: %s", (long long)(e->tid[0] / BANK_LANES),
		            msg);
	e->s->requests++;
	e->s->wavefronts += c.wavefronts;
	e->s->ideal += c.ideal;
	if (c.wavefronts > e->s->max)
		e->s->max = c.wavefronts;
	if (c.degree > e->s->degree)
		e->s->degree = c.degree;
	return 0;
}

/* run loop `level` (and those inside it) for the lanes in mask */
static int loop(struct ev *e, size_t level, uint32_t mask)
{
	const struct bank_loop *lp;
	int64_t val[BANK_LANES], lim[BANK_LANES];
	const char *wfrom, *wcond;
	int l;

	if (level == e->a->nloops)
		return emit(e, mask);
	lp = &e->a->loops[level];
	wfrom = lp->count ? "loops[%zu]" : "loops[%zu].from";
	wcond = lp->count ? "loops[%zu]" : "loops[%zu].while";
	for (l = 0; l < BANK_LANES; l++) {
		if (!(mask >> l & 1))
			continue;
		if (lp->count) {
			if (lane_eval(e, lp->count, l, wfrom, level, &lim[l]) < 0)
				return -1;
			val[l] = 0;
		} else if (lane_eval(e, lp->from, l, wfrom, level, &val[l]) < 0) {
			return -1;
		}
		vars_set(&e->lv[l], lp->var, val[l]);
	}
	for (;;) {
		uint32_t in = 0;

		for (l = 0; l < BANK_LANES; l++) {
			int64_t x;

			if (!(mask >> l & 1))
				continue;
			if (lp->count)
				x = val[l] < lim[l];
			else if (lane_eval(e, lp->cond, l, wcond, level, &x) < 0)
				return -1;
			if (x)
				in |= 1u << l;
		}
		if (!in)
			return 0;
		if (++e->iters > ITER_MAX) {
			char w[32];
			snprintf(w, sizeof w, wcond, level);
			return fail(e->err, w, -1, "more than %d iterations: does the loop end?",
			            ITER_MAX);
		}
		if (loop(e, level + 1, in) < 0)
			return -1;
		for (l = 0; l < BANK_LANES; l++) {
			if (!(in >> l & 1))
				continue;
			if (lp->count)
				val[l]++;
			else if (lane_eval(e, lp->next, l, "loops[%zu].next", level, &val[l]) < 0)
				return -1;
			vars_set(&e->lv[l], lp->var, val[l]);
		}
		mask = in;
	}
}

int bank_eval(const struct bank_access *a, const int64_t block[3], const struct vars *v,
              const struct bank_rules *r, struct bank_stats *s, struct bank_err *err,
              int64_t *work_left)
{
	struct ev e;
	int64_t x, nthreads, w, own = BANK_WORK_MAX;
	int l, rc = 0;
	size_t i;

	memset(s, 0, sizeof *s);
	memset(err, 0, sizeof *err);
	err->col = -1;
	if (a->cond) {
		if (uniform(a->cond, v, "if", err, &x) < 0)
			return -1;
		if (!x)
			return 0;
	}
	s->present = 1;
	memset(&e, 0, sizeof e);
	e.a = a;
	e.r = r;
	e.s = s;
	e.err = err;
	e.work = work_left ? work_left : &own;
	if (uniform(a->elem, v, "elem", err, &e.elem) < 0)
		return -1;
	if (e.elem <= 0 || e.elem > 1 << 20)
		return fail(err, "elem", -1, "element size %lld is not positive", (long long)e.elem);
	e.width = e.elem;
	if (a->width && uniform(a->width, v, "width", err, &e.width) < 0)
		return -1;
	if (e.width != 1 && e.width != 2 && e.width != 4 && e.width != 8 && e.width != 16)
		return fail(err, "width", -1, "access width %lld is not 1, 2, 4, 8 or 16 bytes",
		            (long long)e.width);
	if (a->base && uniform(a->base, v, "base", err, &e.base) < 0)
		return -1;
	if (e.base < 0)
		return fail(err, "base", -1, "base %lld is negative", (long long)e.base);
	for (i = 0; i < 3; i++) {
		if (block[i] < 1 || block[i] > THREADS_MAX)
			return fail(err, "block", -1, "block dimension %zu is %lld", i,
			            (long long)block[i]);
		e.block[i] = block[i];
	}
	nthreads = block[0] * block[1] * block[2];
	if (nthreads > THREADS_MAX)
		return fail(err, "block", -1, "%lld threads per block", (long long)nthreads);
	if (v->n + (int)LEN(thread_names) + (int)a->nloops + (int)a->nlets > VARS_MAX)
		return fail(err, "", -1, "more than %d names (sizes, parameters, thread names, "
		            "loop variables and lets)", VARS_MAX);
	e.lv = xmalloc(BANK_LANES * sizeof *e.lv);
	for (w = 0; w * BANK_LANES < nthreads && rc == 0; w++) {
		uint32_t mask = 0;

		for (l = 0; l < BANK_LANES; l++) {
			int64_t t = w * BANK_LANES + l;

			e.tid[l] = t;
			if (t >= nthreads)
				continue;
			mask |= 1u << l;
			e.lv[l] = *v;
			vars_set(&e.lv[l], "tx", t % block[0]);
			vars_set(&e.lv[l], "ty", t / block[0] % block[1]);
			vars_set(&e.lv[l], "tz", t / (block[0] * block[1]));
			vars_set(&e.lv[l], "tid", t);
			vars_set(&e.lv[l], "lane", l);
			vars_set(&e.lv[l], "warp", w);
			vars_set(&e.lv[l], "nthreads", nthreads);
		}
		e.iters = 0;
		rc = work(&e, BANK_LANES);
		if (rc == 0)
			rc = loop(&e, 0, mask);
	}
	free(e.lv);
	return rc;
}

double bank_mean(const struct bank_stats *s)
{
	return s->requests ? (double)s->wavefronts / (double)s->requests : 0.0;
}

double bank_mean_ideal(const struct bank_stats *s)
{
	return s->requests ? (double)s->ideal / (double)s->requests : 0.0;
}

void bank_access_clear(struct bank_access *a)
{
	size_t i;

	free(a->name);
	free(a->array);
	expr_free(a->cond);
	expr_free(a->elem);
	expr_free(a->width);
	expr_free(a->base);
	expr_free(a->index);
	expr_free(a->when);
	for (i = 0; i < a->nloops; i++) {
		free(a->loops[i].var);
		expr_free(a->loops[i].count);
		expr_free(a->loops[i].from);
		expr_free(a->loops[i].cond);
		expr_free(a->loops[i].next);
	}
	free(a->loops);
	for (i = 0; i < a->nlets; i++) {
		free(a->lets[i].name);
		expr_free(a->lets[i].value);
	}
	free(a->lets);
	memset(a, 0, sizeof *a);
}
