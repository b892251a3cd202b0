/* predict: the bank model's prediction for every kept variant, and `tuner explain`. */
#include "predict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bank.h"
#include "expr.h"
#include "nvrtc.h"
#include "pool.h"
#include "report.h"
#include "run.h" /* run_stop */
#include "spec.h"
#include "util.h"
#include "wire.h"
#include "wrap.h"

/* the expression of access a that a bank_err's field names ("index", "loops[1].while", ...),
   or NULL */
static const struct expr *bank_field(const struct bank_access *a, const char *what)
{
	char rest[32] = "";
	size_t i;

	if (!strcmp(what, "index"))
		return a->index;
	if (!strcmp(what, "when"))
		return a->when;
	if (!strcmp(what, "if"))
		return a->cond;
	if (!strcmp(what, "elem"))
		return a->elem;
	if (!strcmp(what, "width"))
		return a->width;
	if (!strcmp(what, "base"))
		return a->base;
	if (sscanf(what, "let[%zu]", &i) == 1 && i < a->nlets)
		return a->lets[i].value;
	if (sscanf(what, "loops[%zu]%31s", &i, rest) >= 1 && i < a->nloops) {
		if (!*rest)
			return a->loops[i].count;
		if (!strcmp(rest, ".from"))
			return a->loops[i].from;
		if (!strcmp(rest, ".while"))
			return a->loops[i].cond;
		if (!strcmp(rest, ".next"))
			return a->loops[i].next;
	}
	return NULL;
}

static int uses(const struct expr *e, const char *name)
{
	return e && expr_uses(e, name);
}

/* 1 if an expression of the declared accesses uses name */
static int accesses_use(const struct config *c, const char *name)
{
	size_t k, i;

	for (k = 0; k < c->naccesses; k++) {
		const struct bank_access *a = &c->accesses[k];
		if (uses(a->cond, name) || uses(a->elem, name) || uses(a->width, name) ||
		    uses(a->base, name) || uses(a->index, name) || uses(a->when, name))
			return 1;
		for (i = 0; i < a->nloops; i++)
			if (uses(a->loops[i].count, name) || uses(a->loops[i].from, name) ||
			    uses(a->loops[i].cond, name) || uses(a->loops[i].next, name))
				return 1;
		for (i = 0; i < a->nlets; i++)
			if (uses(a->lets[i].value, name))
				return 1;
	}
	return 0;
}

int predict_sees_sizes(const struct config *c)
{
	size_t i;
	int d;

	for (i = 0; i < c->nsizes; i++) {
		if (accesses_use(c, c->sizes[i].name))
			return 1;
		for (d = 0; d < 3; d++)
			if (uses(c->kernel.launch.block[d], c->sizes[i].name))
				return 1;
	}
	return 0;
}

/* the shared memory variant v's accesses must lie in: its dynamic shared memory, or without
   any the most a GPU gives a block (static arrays, whose size is known only once compiled) */
static int64_t shared_extent(const struct variant *v)
{
	return v->shared > 0 ? v->shared : (int64_t)227 * 1024;
}

/* the variants the bank model cannot tell apart: same block, same rules, same shared memory,
   same values of the parameters the accesses use (the sizes are the same for all) */
struct bank_memo {
	const struct config *c;
	const struct space *s;
	int cc;                   /* the rules: bank_rules_for(cc, the variant's bank mode) */
	int *used;                /* per parameter */
	size_t *slot, cap;        /* indices + 1 of evaluated variants; 0 = empty */
};

/* a memo for up to n variants of s */
static void memo_open(struct bank_memo *m, const struct config *c, const struct space *s,
                      int cc, size_t n)
{
	size_t i;

	*m = (struct bank_memo){c, s, cc, xcalloc(c->nparams + 1, sizeof *m->used), NULL, 1};
	for (i = 0; i < c->nparams; i++)
		m->used[i] = accesses_use(c, c->params[i].name);
	while (m->cap < 2 * n)
		m->cap *= 2;
	m->slot = xcalloc(m->cap, sizeof *m->slot);
}

static void memo_close(struct bank_memo *m)
{
	free(m->used);
	free(m->slot);
}

static const struct bank_rules *memo_rules(const struct bank_memo *m, size_t i)
{
	return bank_rules_for(m->cc, m->s->v[i].bank_bytes);
}

static uint64_t memo_hash(const struct bank_memo *m, size_t i)
{
	const struct variant *v = &m->s->v[i];
	const struct bank_rules *rules = memo_rules(m, i);
	uint64_t h = hash_bytes(HASH_INIT, v->block, sizeof v->block);
	size_t p;

	h = hash_bytes(h, &rules, sizeof rules);
	h = hash_bytes(h, &v->shared, sizeof v->shared);
	for (p = 0; p < m->c->nparams; p++)
		if (m->used[p])
			h = hash_bytes(h, &v->vals[p], sizeof v->vals[p]);
	return h;
}

static int memo_same(const struct bank_memo *m, size_t i, size_t j)
{
	const struct variant *a = &m->s->v[i], *b = &m->s->v[j];
	size_t p;

	if (memcmp(a->block, b->block, sizeof a->block) || memo_rules(m, i) != memo_rules(m, j) ||
	    a->shared != b->shared)
		return 0;
	for (p = 0; p < m->c->nparams; p++)
		if (m->used[p] && a->vals[p] != b->vals[p])
			return 0;
	return 1;
}

/* the slot of variant i's class: holding an equal variant, or empty */
static size_t *memo_find(struct bank_memo *m, size_t i)
{
	size_t h = (size_t)memo_hash(m, i) & (m->cap - 1);

	while (m->slot[h] && !memo_same(m, i, m->slot[h] - 1))
		h = (h + 1) & (m->cap - 1);
	return &m->slot[h];
}

/* the config error of access k for variant v, whose bank_eval failed with e, into msg: at the
   failing expression, else at the access */
static void bank_error(const struct config *c, const struct variant *v, size_t k,
                       const struct bank_err *e, char *msg, size_t msglen)
{
	const struct bank_access *a = &c->accesses[k];
	const struct expr *x = bank_field(a, e->what);
	struct loc l = c->access_loc[k];
	char *p = space_params_str(c, v);

	if (x)
		cfg_expr_loc(c, x, e->col >= 0 ? e->col : 0, &l);
	snprintf(msg, msglen, "%s:%d:%d: access '%s'%s%s%s for %s: %s", c->path, l.line, l.col,
	         a->name, *e->what ? ", " : "", e->what, *e->what ? "," : "", p, e->msg);
	free(p);
}

/* evaluate variant i's accesses under rules into bank, and under Kepler's 8-byte mode into
   bank8 (naccesses each); 0, or -1 with the config error in msg */
static int bank_one(const struct config *c, const struct space *s, size_t i,
                    const struct bank_rules *rules, struct bank_stats *bank,
                    struct bank_stats *bank8, char *msg, size_t msglen)
{
	const struct variant *v = &s->v[i];
	int64_t work = BANK_WORK_MAX, sh = shared_extent(v); /* work: for the variant */
	struct vars vars;
	size_t k;

	space_bind(c, s, v, &vars);
	for (k = 0; k < c->naccesses; k++) {
		const struct bank_access *a = &c->accesses[k];
		struct bank_err e;
		if (bank_eval(a, v->block, sh, &vars, rules, &bank[k], &e, &work) == 0 &&
		    bank_eval(a, v->block, sh, &vars, &bank_kepler8, &bank8[k], &e, &work) == 0)
			continue;
		bank_error(c, v, k, &e, msg, msglen);
		return -1;
	}
	return 0;
}

/* before any evaluation, what variant i's declared loops tell (bank_steps), its accesses in
   the order bank_one evaluates them: -1 with the config error in msg when the steps they take
   under both rule sets are more than BANK_WORK_MAX (at the access where bank_one would run
   out); 1 when before that an access's warps run more loop iterations than bank_eval allows
   (bank_one fails on its first warp, and says where); else 0 */
static int bank_bound(const struct config *c, const struct space *s, size_t i, char *msg,
                      size_t msglen)
{
	const struct variant *v = &s->v[i];
	int64_t total = 0, x, it;
	struct vars vars;
	size_t k;
	struct bank_err e;

	space_bind(c, s, v, &vars);
	for (k = 0; k < c->naccesses; k++) {
		x = bank_steps(&c->accesses[k], v->block, &vars, &it);
		if (it > BANK_ITER_MAX)
			return 1;
		total = x > (INT64_MAX - total) / 2 ? INT64_MAX : total + 2 * x;
		if (total > BANK_WORK_MAX)
			break;
	}
	if (k == c->naccesses)
		return 0;
	memset(&e, 0, sizeof e);
	e.col = -1;
	snprintf(e.msg, sizeof e.msg, "the declared loops take at least %lld steps of the bank "
	         "model for this variant, more than %lld (an expression for a thread, a thread of "
	         "a request): declare fewer loop iterations", (long long)total,
	         (long long)BANK_WORK_MAX);
	bank_error(c, v, k, &e, msg, msglen);
	return -1;
}

static void wire_stats(struct buf *b, const struct bank_stats *st, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		wire_u64(b, (uint64_t)st[k].requests);
		wire_u64(b, (uint64_t)st[k].wavefronts);
		wire_u64(b, (uint64_t)st[k].ideal);
		wire_u32(b, (uint32_t)st[k].max);
		wire_u32(b, (uint32_t)st[k].degree);
		wire_u32(b, (uint32_t)st[k].present);
	}
}

static void rd_stats(struct rd *r, struct bank_stats *st, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		st[k].requests = rd_i64(r);
		st[k].wavefronts = rd_i64(r);
		st[k].ideal = rd_i64(r);
		st[k].max = rd_i32(r);
		st[k].degree = rd_i32(r);
		st[k].present = rd_i32(r);
	}
}

struct ahead;

/* what the evaluating processes share */
struct fanout {
	const struct config *c;
	const struct space *s;
	struct bank_memo *m;
	struct result *r;         /* answers go to r[j].bank and bank8 (NULL: to the ahead's) */
	struct ahead *a;
	size_t err;               /* the lowest failing variant, (size_t)-1 for none */
	char msg[1024];           /* its error */
	char *seen;               /* per variant: answered for, without an error */
};

/* the bank model for the variants a search picks: their classes, evaluated as they come */
struct ahead {
	struct fanout f;
	struct bank_memo m;
	size_t *rep, nrep, next;  /* each class's first variant, as added; handed out: next */
	size_t cap;               /* rep's room, and bank's and bank8's in classes */
	uint32_t *pos;            /* per variant: its place in rep + 1 (a class's first only) */
	struct bank_stats *bank, *bank8; /* a class's naccesses each, by place */
	struct pool *pool;        /* NULL: evaluated in this process (predict_ahead_run) */
	struct pool_run run;
	char why[256];
	double start, end;        /* the task's start, and its last answer (now_s; a task only) */
	int beside;               /* a task ran beside the stream */
	int ended;                /* no more variants come */
	size_t before;            /* classes predict_ahead_run evaluated */
};

/* where variant j's answers go: bank (eight 0) or bank8 (eight 1) */
static struct bank_stats *fan_slot(struct fanout *f, size_t j, int eight)
{
	size_t at;

	if (f->r)
		return eight ? f->r[j].bank8 : f->r[j].bank;
	at = (size_t)(f->a->pos[j] - 1) * f->c->naccesses;
	return eight ? f->a->bank8 + at : f->a->bank + at;
}

/* in an evaluating process: variant j; the answer is an error text, or the predictions. The
   ahead's processes take on no variant whose declared loops bank_bound refuses (predict_bank
   reports it, in order); one whose loops run too long fails fast in bank_one */
static int fan_run(void *arg, size_t j, const void *msg, size_t len, struct buf *ans)
{
	struct fanout *f = arg;
	size_t n = f->c->naccesses;
	struct bank_stats *b = xcalloc(2 * n, sizeof *b);
	char e[1024];

	(void)msg, (void)len;
	if ((!f->r && bank_bound(f->c, f->s, j, e, sizeof e) < 0) ||
	    bank_one(f->c, f->s, j, memo_rules(f->m, j), b, b + n, e, sizeof e) < 0) {
		wire_u32(ans, 1);
		wire_str(ans, e);
	} else {
		wire_u32(ans, 0);
		wire_stats(ans, b, n);
		wire_stats(ans, b + n, n);
	}
	free(b);
	return 0;
}

/* keep variant j's error (the first in variant order wins) */
static void fan_error(struct fanout *f, size_t j, const char *e)
{
	if (j < f->err) {
		f->err = j;
		snprintf(f->msg, sizeof f->msg, "%s", e);
	}
}

static void fan_done(void *arg, size_t j, enum outcome oc, const void *msg, size_t len)
{
	struct fanout *f = arg;
	struct rd r = rd_of(msg, len);
	char e[1024];

	if (f->a)
		f->a->end = now_s();
	if (oc == OUT_DONE) {
		if (rd_u32(&r)) {
			rd_str(&r, e, sizeof e);
			if (rd_done(&r) && f->r) /* the ahead's: evaluated again after the stream */
				fan_error(f, j, e);
			return;
		}
		rd_stats(&r, fan_slot(f, j, 0), f->c->naccesses);
		rd_stats(&r, fan_slot(f, j, 1), f->c->naccesses);
		f->seen[j] = rd_done(&r); /* if not, it is evaluated here */
	}
}

static int ahead_next(void *arg, size_t *job)
{
	struct ahead *a = arg;

	if (a->next >= a->nrep)
		return a->ended ? -1 : 0;
	*job = a->rep[a->next++];
	return 1;
}

int predict_cc(const struct runinfo *ri)
{
	return ri->timed ? ri->gpu.cc_major * 10 + ri->gpu.cc_minor : nv_arch_cc(ri->arch);
}

struct ahead *predict_ahead_new(const struct config *c, const struct space *s, int cc,
                                size_t n, int workers)
{
	struct ahead *a;
	struct pool_ops ops = {NULL, NULL, NULL, fan_run, NULL, "bank model process"};
	struct pool_limits lim = {0, 0};

	if (!c->naccesses || !n)
		return NULL;
	a = xcalloc(1, sizeof *a);
	memo_open(&a->m, c, s, cc, n);
	a->pos = xcalloc(s->n + 1, sizeof *a->pos);
	a->f = (struct fanout){c, s, &a->m, NULL, a, (size_t)-1, "", xcalloc(s->n + 1, 1)};
	if (workers < 2)
		return a;
	ops.ctx = &a->f;
	a->pool = pool_new(&ops, &lim, workers);
	a->run = (struct pool_run){NULL, 0, NULL, fan_done, &a->f, NULL, &run_stop};
	return a;
}

void predict_ahead_add(struct ahead *a, size_t i)
{
	size_t *slot, k = a ? a->f.c->naccesses : 0;

	if (!a || *(slot = memo_find(&a->m, i)))
		return;
	if (a->nrep == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 64;
		a->rep = xreallocarray(a->rep, a->cap, sizeof *a->rep);
		a->bank = xreallocarray(a->bank, a->cap * k, sizeof *a->bank);
		a->bank8 = xreallocarray(a->bank8, a->cap * k, sizeof *a->bank8);
	}
	*slot = i + 1;
	a->rep[a->nrep++] = i;
	a->pos[i] = (uint32_t)a->nrep;
}

void predict_ahead_end(struct ahead *a)
{
	if (a)
		a->ended = 1;
}

int predict_ahead_task(struct ahead *a, struct pool_task *task)
{
	if (!a || !a->pool)
		return -1;
	a->beside = 1;
	a->start = a->end = now_s();
	*task = (struct pool_task){a->pool, &a->run, ahead_next, a, a->why, sizeof a->why, 0};
	return 0;
}

void predict_ahead_run(struct ahead *a)
{
	struct pool_task task;
	size_t k;
	char e[1024];

	if (!a)
		return;
	a->ended = 1;
	if (a->pool && a->nrep - a->next >= 8) {
		task = (struct pool_task){a->pool, &a->run, ahead_next, a, a->why, sizeof a->why, 0};
		if (pool_run_many(&task, 1) < 0)
			note(2, "tuner: evaluating the bank model here: %s\n", a->why);
	}
	for (k = 0; k < a->nrep && !run_stop; k++) { /* what no process answered for, here */
		size_t j = a->rep[k];
		if (a->f.seen[j])
			continue;
		if (bank_bound(a->f.c, a->f.s, j, e, sizeof e) < 0 ||
		    bank_one(a->f.c, a->f.s, j, memo_rules(&a->m, j), fan_slot(&a->f, j, 0),
		             fan_slot(&a->f, j, 1), e, sizeof e) < 0)
			fan_error(&a->f, j, e);
		else
			a->f.seen[j] = 1;
	}
	a->next = a->before = a->nrep;
	a->ended = 0; /* more may come */
	if (a->f.err != (size_t)-1)
		fatal("%s", a->f.msg);
}

/* the variant a evaluated for i's class, or (size_t)-1 where it has none (a may be NULL) */
static size_t ahead_class(struct ahead *a, size_t i)
{
	size_t *slot;

	if (!a || !*(slot = memo_find(&a->m, i)) || !a->f.seen[*slot - 1])
		return (size_t)-1;
	return *slot - 1;
}

double predict_ahead_ratio(struct ahead *a, size_t i)
{
	size_t j = ahead_class(a, i);

	return j == (size_t)-1 ? -1 : report_bank_ratio(fan_slot(&a->f, j, 0), a->f.c->naccesses);
}

/* what a evaluated for variant i's class into bank and bank8: 1, or 0 if it has nothing */
static int ahead_take(struct ahead *a, size_t i, struct bank_stats *bank,
                      struct bank_stats *bank8)
{
	size_t j = ahead_class(a, i), n;

	if (j == (size_t)-1)
		return 0;
	n = a->f.c->naccesses;
	memcpy(bank, fan_slot(&a->f, j, 0), n * sizeof *bank);
	memcpy(bank8, fan_slot(&a->f, j, 1), n * sizeof *bank8);
	return 1;
}

int predict_ahead_span(const struct ahead *a, double *start, double *end)
{
	*start = a->start;
	*end = a->end;
	return a->beside ? 0 : -1;
}

void predict_ahead_free(struct ahead *a)
{
	if (!a)
		return;
	pool_end(a->pool);
	memo_close(&a->m);
	free(a->rep);
	free(a->pos);
	free(a->bank);
	free(a->bank8);
	free(a->f.seen);
	free(a);
}

void predict_bank(const struct config *c, const struct space *s, int cc, struct result *r,
                  int workers, struct ahead *a)
{
	struct bank_memo m;
	size_t i, nrep = 0, ntodo = 0, nahead = 0, *rep, *cls, *slot, *todo;
	struct fanout f = {c, s, &m, r, NULL, (size_t)-1, "", NULL};
	char e[1024];

	if (!c->naccesses)
		return;
	memo_open(&m, c, s, cc, s->n);
	rep = xcalloc(s->n + 1, sizeof *rep);
	cls = xcalloc(s->n + 1, sizeof *cls);
	todo = xcalloc(s->n + 1, sizeof *todo);
	f.seen = xcalloc(s->n + 1, 1);
	for (i = 0; i < s->n; i++) {
		if (s->v[i].drop || r[i].status == ST_SKIPPED) /* not tried: nothing to say */
			continue;
		r[i].bank_rules = memo_rules(&m, i);
		slot = memo_find(&m, i);
		if (!*slot) {
			*slot = i + 1;
			rep[nrep++] = i;
			r[i].bank = xcalloc(c->naccesses, sizeof *r[i].bank);
			r[i].bank8 = xcalloc(c->naccesses, sizeof *r[i].bank8);
			f.seen[i] = ahead_take(a, i, r[i].bank, r[i].bank8); /* evaluated beside the stream */
			nahead += f.seen[i];
		}
		cls[i] = *slot - 1;
	}
	/* the first variant whose declared loops alone take too much work is an error before any
	   is evaluated, or evaluated here first when its loops go on (it fails on its first warp);
	   only the variants before it may fail first */
	for (i = 0; i < nrep; i++) {
		int b;
		if (f.seen[rep[i]] || (b = bank_bound(c, s, rep[i], e, sizeof e)) == 0)
			continue;
		if (b > 0 && bank_one(c, s, rep[i], r[rep[i]].bank_rules, r[rep[i]].bank,
		                      r[rep[i]].bank8, e, sizeof e) == 0) {
			f.seen[rep[i]] = 1;
			continue;
		}
		fan_error(&f, rep[i], e);
		break;
	}
	nrep = i;
	for (i = 0; i < nrep; i++)
		if (!f.seen[rep[i]])
			todo[ntodo++] = rep[i];
	if (a)
		note(2, "tuner: bank model: %zu of %zu classes evaluated beside the stream (%zu of "
		     "them before it, for the guided start)\n", nahead, nrep, a->before);
	/* it is CPU work that would otherwise delay the compile and the GPU: in processes, when
	   there is enough of it; what no process answered for is evaluated here */
	if (workers > 1 && ntodo >= 8) {
		struct pool_ops ops = {NULL, NULL, NULL, fan_run, &f, "bank model process"};
		struct pool_limits lim = {0, 0};
		struct pool *p = pool_new(&ops, &lim, (size_t)workers < ntodo / 4 ? workers
		                                                                 : (int)(ntodo / 4));
		struct pool_run pr = {NULL, 0, NULL, fan_done, &f, NULL, &run_stop};
		if (pool_run(p, &pr, todo, ntodo, e, sizeof e) < 0)
			note(2, "tuner: evaluating the bank model here: %s\n", e);
		pool_end(p);
	}
	for (i = 0; i < nrep && !run_stop && rep[i] < f.err; i++) /* later ones are not reported */
		if (!f.seen[rep[i]] && bank_one(c, s, rep[i], r[rep[i]].bank_rules, r[rep[i]].bank,
		                                r[rep[i]].bank8, e, sizeof e) < 0)
			fan_error(&f, rep[i], e);
	if (f.err != (size_t)-1)
		fatal("%s", f.msg);
	for (i = 0; i < s->n; i++) {
		if (s->v[i].drop || r[i].status == ST_SKIPPED)
			continue;
		if (cls[i] != i) { /* the class's prediction, shared: a space may be large */
			r[i].bank = r[cls[i]].bank;
			r[i].bank8 = r[cls[i]].bank8;
			r[i].bank_shared = 1;
		}
		r[i].bank_ratio = report_bank_ratio(r[i].bank, c->naccesses);
	}
	free(f.seen);
	free(rep);
	free(cls);
	free(todo);
	memo_close(&m);
}

/* the bank rules the kept variants were predicted under ("sm_70+"), "-": none */
static const char *rules_of(const struct space *s, const struct result *r)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!s->v[i].drop && r[i].bank_rules)
			return r[i].bank_rules->name;
	return "-";
}

/* tuner explain's last lines: per access, in how many variants it is conflict-free and its
   worst conflict; then the variants with every access conflict-free, and the ratios' range */
static void explain_summary(FILE *f, const struct config *c, const struct space *s,
                            const struct result *r, size_t w)
{
	size_t i, k, nfree = 0, worst_v = 0, best_v = 0;
	double lo = 0, hi = 0;
	const char *rules = rules_of(s, r);

	fprintf(f, "\nsummary over %zu variants (%s):\n  %-*s  %8s  %13s  %s\n", s->nkept, rules,
	        (int)w, "access", "variants", "conflict-free", "worst degree (variant)");
	for (k = 0; k < c->naccesses; k++) {
		size_t present = 0, ok = 0, wi = 0;
		int worst = 0;
		for (i = 0; i < s->n; i++) {
			const struct bank_stats *a;
			if (s->v[i].drop || !r[i].bank || !(a = &r[i].bank[k])->present)
				continue;
			present++;
			ok += a->degree <= 1;
			if (a->degree > worst) {
				worst = a->degree;
				wi = i;
			}
		}
		fprintf(f, "  %-*s  %8zu  %13zu  %d", (int)w, c->accesses[k].name, present, ok, worst);
		if (worst > 1) {
			char *p = space_params_str(c, &s->v[wi]);
			fprintf(f, " (%s %s)", s->v[wi].id, p);
			free(p);
		}
		fputc('\n', f);
	}
	for (i = 0; i < s->n; i++) {
		int all = 1;
		if (s->v[i].drop || !r[i].bank)
			continue;
		for (k = 0; k < c->naccesses; k++)
			all &= !r[i].bank[k].present || r[i].bank[k].degree <= 1;
		nfree += (size_t)all;
		if (!lo || r[i].bank_ratio < lo)
			lo = r[i].bank_ratio, best_v = i;
		if (r[i].bank_ratio > hi)
			hi = r[i].bank_ratio, worst_v = i;
	}
	fprintf(f, "every access conflict-free in %zu of %zu variants; bank ratio %.2f (%s) to %.2f (%s)\n",
	        nfree, s->nkept, lo, s->n ? s->v[best_v].id : "-", hi, s->n ? s->v[worst_v].id : "-");
}

/* tuner explain: each kept variant's accesses as the bank model predicts them */
void predict_explain(const struct config *c, const struct space *s, const struct result *r,
                    const char *arch, const char *why, const char *label)
{
	size_t i, k, w = 6;
	const char *rules = rules_of(s, r);
	struct wrapped o;

	for (k = 0; k < c->naccesses; k++)
		if (strlen(c->accesses[k].name) > w)
			w = strlen(c->accesses[k].name);
	wrap_begin(&o);
	fprintf(o.f, "%s: %zu variants kept of %zu%s%s, priced for %s, %s\n", c->path, s->nkept,
	        s->n, label && *label ? " at " : "", label ? label : "", arch, why);
	fprintf(o.f, "the bank model's prediction (docs/bank-model.md): a static model of the "
	        "declared accesses under %s's bank rules (%s), nothing compiled or run; not a "
	        "measurement\n", arch, rules);
	fprintf(o.f, "per block: requests (warp instructions), wf/req (wavefronts per request: mean, "
	        "max), ideal (conflict-free wavefronts per request), degree (worst conflict)\n");
	wrap_end(&o, stdout);
	for (i = 0; i < s->n; i++) {
		const struct variant *v = &s->v[i];
		char *p;
		if (v->drop)
			continue;
		p = space_params_str(c, v);
		wrap_begin(&o);
		fprintf(o.f, "\n%s  %s\n  block %lldx%lldx%lld, bank %.2f (%s), %.2f (%s)\n", v->id, p,
		        (long long)v->block[0], (long long)v->block[1], (long long)v->block[2],
		        report_bank_ratio(r[i].bank, c->naccesses), r[i].bank_rules->name,
		        report_bank_ratio(r[i].bank8, c->naccesses), bank_kepler8.name);
		wrap_end(&o, stdout);
		free(p);
		printf("  %*s  %-30s|  %s\n", (int)w + 17, "", r[i].bank_rules->name,
		       bank_kepler8.name);
		printf("  %-*s  %-5s  %8s  %7s  %4s  %5s  %6s  |  %7s  %4s  %5s  %6s\n", (int)w,
		       "access", "op", "requests", "wf/req", "max", "ideal", "degree", "wf/req", "max",
		       "ideal", "degree");
		for (k = 0; k < c->naccesses; k++) {
			const struct bank_stats *a = &r[i].bank[k], *b = &r[i].bank8[k];
			if (!a->present)
				continue;
			printf("  %-*s  %-5s  %8lld  %7.2f  %4d  %5.2f  %6d  |  %7.2f  %4d  %5.2f  %6d\n",
			       (int)w, c->accesses[k].name, c->accesses[k].store ? "store" : "load",
			       (long long)a->requests, bank_mean(a), a->max, bank_mean_ideal(a), a->degree,
			       bank_mean(b), b->max, bank_mean_ideal(b), b->degree);
		}
	}
	wrap_begin(&o);
	explain_summary(o.f, c, s, r, w);
	wrap_end(&o, stdout);
}
