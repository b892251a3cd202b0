/* bank: static shared-memory bank-conflict model (wavefronts per warp request). */
#include "bank.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "expr.h"
#include "util.h"
#include "vars.h"

enum {
	ITER_MAX = BANK_ITER_MAX, /* loop iterations per access and warp: a loop that never ends */
	THREADS_MAX = 1 << 16     /* threads per block (CUDA allows 1024) */
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
	int64_t shared;           /* bytes of shared memory the lanes' bytes must lie in */
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
		if (q.addr[l] > e->shared - e->width)
			return fail(e->err, "index", -1, "%s: index %lld is outside shared memory: "
			            "bytes %lld to %lld of %lld", thread_str(e, l, msg, sizeof msg),
			            (long long)idx, (long long)q.addr[l],
			            (long long)(q.addr[l] + e->width - 1), (long long)e->shared);
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

/* a + b and a * b for a, b >= 0, INT64_MAX where they would overflow */
static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;

	return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

static int64_t sat_mul(int64_t a, int64_t b)
{
	int64_t r;

	return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/* 1 if x, an expression of loop `level` of a, is the same for every thread of a warp once the
   loops around it are: it uses no thread name but nthreads, no let, and no variable of that
   loop or those inside it (but own) */
static int uniform_at(const struct bank_access *a, const struct expr *x, size_t level,
                      const char *own)
{
	size_t i;

	for (i = 0; i < LEN(thread_names); i++)
		if (strcmp(thread_names[i], "nthreads") && expr_uses(x, thread_names[i]))
			return 0;
	for (i = level; i < a->nloops; i++)
		if ((!own || strcmp(a->loops[i].var, own)) && expr_uses(x, a->loops[i].var))
			return 0;
	for (i = 0; i < a->nlets; i++)
		if (expr_uses(x, a->lets[i].name))
			return 0;
	return 1;
}

/* 1 if a loop inside loop `level` of a uses its variable for its trip count */
static int used_inside(const struct bank_access *a, size_t level)
{
	const char *var = a->loops[level].var;
	size_t i;

	for (i = level + 1; i < a->nloops; i++) {
		const struct bank_loop *lp = &a->loops[i];
		if (lp->count ? expr_uses(lp->count, var)
		              : expr_uses(lp->from, var) || expr_uses(lp->cond, var) ||
		                    expr_uses(lp->next, var))
			return 1;
	}
	return 0;
}

/* what bank_steps follows: the access, the variant's names with nthreads and the variables
   of the loops entered, and the iterations it went through one by one for a warp */
struct bound {
	const struct bank_access *a;
	struct vars u;
	int64_t iters;
};

/*
 * The steps loop() takes at loop `level` (and inside it) for a warp of m lanes, all of them in
 * it, as long as every lane runs the same iterations, and in *it the iterations it counts for
 * the warp there: a loop whose expressions are the same for all of them (uniform_at) is
 * followed, iteration by iteration where a loop inside it uses its variable (at most ITER_MAX
 * in all, as loop() allows a warp), else as its trip count times one body; inside any other
 * loop nothing is counted but its first test, and where a `when` may leave lanes out, neither
 * their index nor the request.
 */
static int64_t level_steps(struct bound *b, size_t level, int64_t m, int64_t *it)
{
	const struct bank_access *a = b->a;
	const struct bank_loop *lp;
	int64_t n, x, c, steps, body = -1, bit = 0;
	int inside;

	*it = 0;
	if (level == a->nloops) /* emit: the lets and when of every lane; the index and request */
		return sat_add(sat_mul(m, (int64_t)a->nlets + 1), a->when ? 0 : BANK_LANES);
	lp = &a->loops[level];
	if (lp->count ? !uniform_at(a, lp->count, level, NULL)
	              : !uniform_at(a, lp->from, level, NULL) ||
	                    !uniform_at(a, lp->cond, level, lp->var) ||
	                    !uniform_at(a, lp->next, level, lp->var))
		return lp->count ? m : 2 * m; /* the count or from of every lane; a first test */
	inside = used_inside(a, level);
	if (lp->count) {
		if (expr_eval(lp->count, &b->u, &n, NULL) < 0 || n <= 0)
			return m;
		if (!inside) {
			body = level_steps(b, level + 1, m, &bit);
			*it = sat_mul(n, sat_add(bit, 1));
			return sat_add(m, sat_mul(n, body));
		}
		steps = m;
		for (x = 0; x < n; x++) {
			*it = sat_add(*it, 1);
			if (++b->iters > ITER_MAX)
				return steps;
			vars_set(&b->u, lp->var, x);
			steps = sat_add(steps, level_steps(b, level + 1, m, &bit));
			*it = sat_add(*it, bit);
		}
		return steps;
	}
	if (expr_eval(lp->from, &b->u, &x, NULL) < 0)
		return m;
	steps = m; /* from */
	for (;;) {
		vars_set(&b->u, lp->var, x);
		if (expr_eval(lp->cond, &b->u, &c, NULL) < 0)
			return steps;
		steps = sat_add(steps, m); /* the test */
		if (!c)
			return steps;
		*it = sat_add(*it, 1);
		if (++b->iters > ITER_MAX)
			return steps;
		if (inside || body < 0)
			body = level_steps(b, level + 1, m, &bit);
		*it = sat_add(*it, bit);
		steps = sat_add(steps, sat_add(body, m)); /* the body, the next */
		if (expr_eval(lp->next, &b->u, &x, NULL) < 0)
			return steps;
	}
}

int64_t bank_steps(const struct bank_access *a, const int64_t block[3], const struct vars *v,
                   int64_t *iters)
{
	struct bound b;
	int64_t x, nthreads, n, it;
	size_t i;

	*iters = 0;
	if (a->cond && (expr_eval(a->cond, v, &x, NULL) < 0 || !x))
		return 0;
	for (i = 0; i < 3; i++)
		if (block[i] < 1 || block[i] > THREADS_MAX)
			return 0;
	nthreads = block[0] * block[1] * block[2];
	if (nthreads > THREADS_MAX ||
	    (size_t)v->n + LEN(thread_names) + a->nloops + a->nlets > VARS_MAX)
		return 0;
	b.a = a;
	b.u = *v;
	vars_set(&b.u, "nthreads", nthreads);
	/* per warp: its start, then loop 0 for its lanes; the warps of 32 lanes alike; the
	   iterations are the same for every warp where they are counted */
	b.iters = 0;
	n = sat_mul(nthreads / BANK_LANES, sat_add(BANK_LANES, level_steps(&b, 0, BANK_LANES, &it)));
	*iters = it;
	if (nthreads % BANK_LANES) {
		b.iters = 0;
		n = sat_add(n, sat_add(BANK_LANES, level_steps(&b, 0, nthreads % BANK_LANES, &it)));
	}
	return n;
}

/* a copy of a whose per-lane expressions have v's values in them (expr_bind) */
static void bind(struct bank_access *b, const struct bank_access *a, const struct vars *v)
{
	size_t i;

	*b = *a;
	b->index = expr_bind(a->index, v);
	b->when = expr_bind(a->when, v);
	b->lets = xcalloc(a->nlets + 1, sizeof *b->lets);
	for (i = 0; i < a->nlets; i++) {
		b->lets[i] = a->lets[i];
		b->lets[i].value = expr_bind(a->lets[i].value, v);
	}
	b->loops = xcalloc(a->nloops + 1, sizeof *b->loops);
	for (i = 0; i < a->nloops; i++) {
		b->loops[i] = a->loops[i];
		b->loops[i].count = expr_bind(a->loops[i].count, v);
		b->loops[i].from = expr_bind(a->loops[i].from, v);
		b->loops[i].cond = expr_bind(a->loops[i].cond, v);
		b->loops[i].next = expr_bind(a->loops[i].next, v);
	}
}

/* free what bind made */
static void unbind(struct bank_access *b)
{
	size_t i;

	expr_free(b->index);
	expr_free(b->when);
	for (i = 0; i < b->nlets; i++)
		expr_free(b->lets[i].value);
	for (i = 0; i < b->nloops; i++) {
		expr_free(b->loops[i].count);
		expr_free(b->loops[i].from);
		expr_free(b->loops[i].cond);
		expr_free(b->loops[i].next);
	}
	free(b->lets);
	free(b->loops);
}

int bank_eval(const struct bank_access *a, const int64_t block[3], int64_t shared,
              const struct vars *v, const struct bank_rules *r, struct bank_stats *s, struct bank_err *err,
              int64_t *work_left)
{
	struct ev e;
	struct bank_access bound;
	struct vars base;
	int64_t x, nthreads, w, own = BANK_WORK_MAX;
	int l, at[LEN(thread_names)], rc = 0;
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
	e.shared = shared;
	if (uniform(a->elem, v, "elem", err, &e.elem) < 0)
		return -1;
	if (e.elem <= 0 || e.elem > 1 << 20)
		return fail(err, "elem", -1, "element size %lld is %s", (long long)e.elem,
		            e.elem <= 0 ? "not positive" : "more than 1048576 bytes");
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
	if ((size_t)v->n + LEN(thread_names) + a->nloops + a->nlets > VARS_MAX)
		return fail(err, "", -1, "more than %d names (sizes, parameters, thread names, "
		            "loop variables and lets)", VARS_MAX);
	/* every lane's names: v's, then the thread names (thread_names' order), set per lane */
	base = *v;
	for (i = 0; i < LEN(thread_names); i++) {
		vars_set(&base, thread_names[i], 0);
		for (at[i] = base.n - 1; strcmp(base.name[at[i]], thread_names[i]); at[i]--)
			;
	}
	/* the per-lane expressions with the variant's values worked into them once, not per lane */
	bind(&bound, a, v);
	e.a = &bound;
	e.lv = xmalloc(BANK_LANES * sizeof *e.lv);
	for (w = 0; w * BANK_LANES < nthreads && rc == 0; w++) {
		uint32_t mask = 0;

		for (l = 0; l < BANK_LANES; l++) {
			int64_t t = w * BANK_LANES + l, *tv = e.lv[l].val;

			e.tid[l] = t;
			if (t >= nthreads)
				continue;
			mask |= 1u << l;
			e.lv[l] = base;
			tv[at[0]] = t % block[0];
			tv[at[1]] = t / block[0] % block[1];
			tv[at[2]] = t / (block[0] * block[1]);
			tv[at[3]] = t;
			tv[at[4]] = l;
			tv[at[5]] = w;
			tv[at[6]] = nthreads;
		}
		e.iters = 0;
		rc = work(&e, BANK_LANES);
		if (rc == 0)
			rc = loop(&e, 0, mask);
	}
	free(e.lv);
	unbind(&bound);
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
