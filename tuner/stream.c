/* stream: a run's variants on their way, picked by the search, compiled, timed as they come,
   then the play-off. */
#include "stream.h"

#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "compile.h"
#include "measure.h"
#include "nvrtc.h"
#include "observe.h"
#include "pool.h"
#include "predict.h"
#include "result.h"
#include "run.h"
#include "search.h"
#include "source.h"
#include "space.h"
#include "spec.h"
#include "util.h"
#include "winner.h"

/* what variant_text needs */
struct vjob {
	const struct run *t;
	const struct variant *v;
};

/* a compile job's text: a variant's source (source.h) */
static void variant_text(const void *arg, struct buf *b)
{
	const struct vjob *j = arg;
	char *src = source_compiled(j->t->c, j->v, j->t->tmpl, j->t->obs);

	buf_puts(b, src);
	free(src);
}

/* the hash of what a variant compiled to and how it launches (never 0), at the extra
   verification sizes too (at: space_verify_hash); with the bank mode ignored by the GPU,
   8-byte banks count as 4 */
static uint64_t build_hash(const struct variant *v, const struct compile_out *co,
                           int bank_ignored, uint64_t at)
{
	int bank = bank_ignored && v->bank_bytes == 8 ? 4 : v->bank_bytes;
	uint64_t h = hash_bytes(HASH_INIT, co->cubin, co->cubin_len);

	h = hash_bytes(h, &co->cubin_len, sizeof co->cubin_len);
	h = hash_bytes(h, v->block, sizeof v->block);
	h = hash_bytes(h, v->grid, sizeof v->grid);
	h = hash_bytes(h, &bank, sizeof bank);
	h = hash_bytes(h, &v->shared, sizeof v->shared);
	h = hash_bytes(h, &at, sizeof at);
	return h ? h : 1;
}

/* a run's variants on their way: picked by the search, compiled (or found in the cache),
   queued for the GPU, timed. Memory holds the cubins between compiling and timing only (and
   the play-off's candidates' until the end). */
struct stream {
	struct run *t;
	struct search *q;
	struct vjob cur;          /* the job job_of described last */
	size_t *queue, qhead, qlen, qcap;   /* compiled, waiting for the GPU (a ring) */
	size_t qmax;              /* compiling waits while this many wait for the GPU */
	uint64_t *tkey;           /* builds seen: open addressing, build hash -> variant + 1 */
	size_t *tval, tcap;
	size_t compiling;         /* picked, result not in yet */
	size_t timing;            /* handed to the GPU, result not in yet */
	int search_done;
	size_t keep[WINNER_PLAYOFF_MAX + 1], nkeep; /* the play-off's candidates so far (cubins kept) */
	double best;              /* the fastest median so far */
	int po_on;                /* the play-off has begun */
	int po_resumed;           /* its results are an earlier run's, from the journal */
	size_t po_next, po_total; /* its jobs handed out, and in all */
	size_t po_round;          /* the round of the last handed out, + 1 (0: none yet) */
	size_t po_done;           /* its jobs answered */
	double *po_ms;            /* nkeep x rounds medians */
	int *po_cnt;              /* per candidate: rounds in */
	unsigned char *po_out;    /* per candidate: left the play-off (winner_playoff_race) */
	size_t nok, nbad, nres, nint, first_bad;
	size_t settled;           /* variants whose result is in, for the status line */
	double t0;
	int fixed_sent, fixed_in; /* of the reference and the helper kernels (jobs n, n + 1) */
	int ready;                /* they are compiled: the GPU may begin */
	size_t *parked, nparked;  /* compiled before then, waiting for the GPU's journal */
};

static void job_of(void *arg, size_t i, struct job *out)
{
	struct stream *st = arg;
	const struct config *c = st->t->c;

	if (i == st->t->s.n) {
		*out = (struct job){st->t->refsrc, NULL, NULL, c->reference.source, c->reference.entry,
		                    {0, 0}};
		return;
	}
	if (i == st->t->s.n + 1) {
		*out = (struct job){bench_helpers_source(), NULL, NULL, "tuner_helpers.cu", "tuner_copy",
		                    {0, 0}};
		return;
	}
	st->cur = (struct vjob){st->t, &st->t->s.v[i]};
	*out = (struct job){NULL, variant_text, &st->cur, c->kernel.source, c->kernel.entry, {0, 0}};
	observe_id(st->t->obs, st->cur.v->vals, out->same); /* its text follows from these */
}

/* the compilers' next job: the search's next pick, unless the GPU is behind */
static int compile_next(void *arg, size_t *i)
{
	struct stream *st = arg;
	int got;

	if (st->fixed_sent < 2) { /* the reference and the helper kernels first */
		*i = st->t->s.n + (size_t)st->fixed_sent++;
		return 1;
	}
	if (st->search_done)
		return -1;
	if (st->t->m && st->qlen >= st->qmax)
		return 0;
	got = search_next(st->q, i);
	if (got < 0) {
		st->search_done = 1;
		predict_ahead_end(st->t->ahead);
	}
	if (got > 0) {
		predict_ahead_add(st->t->ahead, *i);
		st->compiling++;
		st->t->r[*i].status = ST_NOTRUN; /* until its result is in */
		st->t->r[*i].reason = xstrdup("interrupted while compiling");
	}
	return got;
}

/* x left the play-off: it has no play-off result, so it is no tie */
static void left_playoff(struct result *x)
{
	x->po_n = 0;
	x->po_ms = x->po_se = 0;
}

/* the play-off's next job (variant + n), once every other result is in */
static int playoff_next(struct stream *st, size_t *i)
{
	struct run *t = st->t;
	size_t k;

	if (!st->po_on) {
		if (st->timing)
			return 0;
		st->po_on = 1;
		if (st->nkeep < 2 || run_stop)
			return -1;
		for (k = 0; k < st->nkeep && measure_playoff_resume(t->m, st->keep[k]); k++)
			;
		if (k == st->nkeep) { /* the same play-off as an earlier run's: its results; a
		                         candidate with fewer rounds than all had left it */
			st->po_resumed = 1;
			st->po_out = xcalloc(st->nkeep, 1);
			for (k = 0; k < st->nkeep; k++) {
				struct result *x = &t->r[st->keep[k]];
				if (x->po_n < t->c->playoff) {
					st->po_out[k] = 1;
					left_playoff(x);
				}
			}
			return -1;
		}
		for (k = 0; k < st->nkeep; k++)
			t->r[st->keep[k]].po_n = 0;
		st->po_total = st->nkeep * (size_t)t->c->playoff;
		st->po_ms = xcalloc(st->po_total, sizeof *st->po_ms);
		st->po_cnt = xcalloc(st->nkeep, sizeof *st->po_cnt);
		st->po_out = xcalloc(st->nkeep, 1);
		note(1, "tuner: play-off: timing the %zu fastest again, %d rounds\n", st->nkeep,
		     t->c->playoff);
		progress_end();
		progress_begin("play-off", st->po_total);
	}
	for (k = 0; st->po_next < st->po_total; st->po_next++) {
		k = st->po_next / st->nkeep; /* the round: it starts k places further on */
		k = (st->po_next % st->nkeep + k) % st->nkeep;
		if (!st->po_out[k])
			break;
		progress_step(++st->po_done); /* a round it no longer needs */
	}
	if (st->po_next == st->po_total)
		return -1;
	*i = st->keep[k] + t->s.n;
	if (st->po_next / st->nkeep + 1 != st->po_round) { /* a round begins in fresh processes */
		st->po_round = st->po_next / st->nkeep + 1;
		measure_fresh(t->m);
	}
	st->po_next++;
	st->timing++;
	run_span(t, "play-off", now_s(), now_s(), 0);
	return 1;
}

/* the GPU's next job: the oldest compiled variant waiting, then the play-off */
static int gpu_next(void *arg, size_t *i)
{
	struct stream *st = arg;

	if (!st->ready)
		return 0;
	if (!st->qlen)
		return st->search_done && !st->compiling ? playoff_next(st, i) : 0;
	*i = st->queue[st->qhead];
	st->qhead = (st->qhead + 1) % st->qcap;
	st->qlen--;
	st->timing++;
	run_span(st->t, "timing", now_s(), now_s(), 0);
	return 1;
}

static void enqueue(struct stream *st, size_t i)
{
	if (st->qlen == st->qcap) {
		size_t n = st->qcap ? 2 * st->qcap : 64, k;
		size_t *q = xcalloc(n, sizeof *q);
		for (k = 0; k < st->qlen; k++)
			q[k] = st->queue[(st->qhead + k) % st->qcap];
		free(st->queue);
		st->queue = q;
		st->qhead = 0;
		st->qcap = n;
	}
	st->queue[(st->qhead + st->qlen++) % st->qcap] = i;
}

/* the variant that built to h before, or SIZE_MAX (then i is recorded as it) */
static size_t seen(struct stream *st, uint64_t h, size_t i)
{
	size_t k;

	if (2 * (st->tcap ? st->tcap : 0) <= 4 * st->nok + 4) { /* grow: at most half full */
		size_t n = st->tcap ? 4 * st->tcap : 1024, j;
		uint64_t *key = xcalloc(n, sizeof *key);
		size_t *val = xcalloc(n, sizeof *val);
		for (j = 0; j < st->tcap; j++) {
			if (!st->tkey[j])
				continue;
			for (k = st->tkey[j] & (n - 1); key[k]; k = (k + 1) & (n - 1))
				;
			key[k] = st->tkey[j];
			val[k] = st->tval[j];
		}
		free(st->tkey);
		free(st->tval);
		st->tkey = key;
		st->tval = val;
		st->tcap = n;
	}
	for (k = h & (st->tcap - 1); st->tkey[k]; k = (k + 1) & (st->tcap - 1))
		if (st->tkey[k] == h)
			return st->tval[k] - 1;
	st->tkey[k] = h;
	st->tval[k] = i + 1;
	return SIZE_MAX;
}

/* drop what only the GPU needed of a compile result */
static void drop_cubin(struct compile_out *co)
{
	free(co->cubin);
	co->cubin = NULL;
}

/* variant i has its GPU result: keep its cubin if it may take part in the play-off, and drop
   the cubins of those that no longer may */
static void keep_or_drop(struct stream *st, size_t i)
{
	struct run *t = st->t;
	size_t k, n;

	if (!winner_playoff_takes(t->c, &t->r[i])) {
		drop_cubin(&t->r[i].co);
		return;
	}
	st->keep[st->nkeep++] = i;
	n = winner_playoff_keep(t->c, t->r, st->keep, st->nkeep, &st->best, t->earlier,
	                        t->ri.l2_flush);
	for (k = n; k < st->nkeep; k++)
		drop_cubin(&t->r[st->keep[k]].co);
	st->nkeep = n;
}

/* a play-off round of variant i is in */
static void timed_again(void *arg, size_t i, const struct run_result *run)
{
	struct stream *st = arg;
	size_t k;

	for (k = 0; k < st->nkeep; k++)
		if (st->keep[k] == i && st->po_cnt[k] < st->t->c->playoff) {
			st->po_ms[k * (size_t)st->t->c->playoff + (size_t)st->po_cnt[k]++] =
				run->t.median_ms;
			winner_playoff_race(st->keep, st->nkeep, st->po_ms, st->po_cnt,
			                    st->t->c->playoff, st->t->c->tie, st->t->earlier, st->po_out);
			return;
		}
}

/* the play-off's results into the candidates' results; their cubins go */
static void playoff_end(struct stream *st)
{
	struct run *t = st->t;
	size_t k;
	int rounds = t->c->playoff;

	for (k = 0; k < st->nkeep; k++) {
		struct result *x = &t->r[st->keep[k]];
		double *m = st->po_ms ? st->po_ms + k * (size_t)rounds : NULL;
		int n = st->po_cnt ? st->po_cnt[k] : 0;
		drop_cubin(&x->co);
		if (st->po_resumed && (x->po_n > 0 || st->po_out[k])) {
			t->ri.playoff++;
			t->ri.playoff_left += st->po_out[k];
		}
		if (st->keep[k] + 1 == t->earlier && (n || (st->po_resumed && x->po_n > 0)))
			t->ri.playoff_earlier = 1;
		if (!n || x->status != ST_OK)
			continue;
		x->po_n = n;
		winner_playoff_stats(m, n, &x->po_ms, &x->po_se);
		t->ri.playoff++;
		/* a whole play-off, or the rounds after which it left: the next run may take it */
		if (!run_stop && (n == rounds || st->po_out[k]))
			measure_playoff_save(t->m, st->keep[k]);
		if (st->po_out[k]) { /* it took part, and left: not among the ties */
			t->ri.playoff_left++;
			left_playoff(x);
		}
	}
	if (t->ri.playoff) {
		t->ri.playoff_rounds = rounds;
		t->ri.playoff_net = winner_playoff_net(t->c, t->ri.l2_flush);
	}
	free(st->po_ms);
	free(st->po_cnt);
	free(st->po_out);
}

/* variant i's result is in (tried, counted by the budget when counted), and its median if
   it was timed: to the search, and one step of the status line */
static void settle(struct stream *st, size_t i, int counted, double ms)
{
	progress_step(++st->settled);
	search_result(st->q, i, counted, ms);
}

/* compiled variant i to the GPU, or the journal's earlier result */
static void to_gpu(struct stream *st, size_t i)
{
	struct result *x = &st->t->r[i];

	if (measure_resume(st->t->m, i)) {
		keep_or_drop(st, i);
		settle(st, i, 1, x->status == ST_OK ? result_run(x)->t.median_ms : 0);
		return;
	}
	enqueue(st, i);
}

/* the reference's (job n) or the helper kernels' (n + 1) compile result (owned from now on);
   with both in, the GPU may begin; exit 2 if the reference does not compile */
static void fixed_compiled(struct stream *st, size_t i, struct compile_out *out)
{
	struct run *t = st->t;
	const struct config *c = t->c;
	size_t k;

	if (i == t->s.n)
		t->ref = *out;
	else
		t->copy = *out;
	if (++st->fixed_in < 2 || run_stop)
		return;
	run_span(t, "reference compile", t->t0 + t->ri.run_s, now_s(), 1);
	if (!t->ref.ok)
		fatal("%s: the reference kernel '%s' (%s) does not compile:\n%s", c->path,
		      c->reference.entry, c->reference.source, t->ref.log);
	if (!t->copy.ok)
		die("the helper kernels do not compile:\n%s", t->copy.log);
	if (!t->m)
		return;
	measure_ready(t->m);
	st->ready = 1;
	for (k = 0; k < st->nparked; k++)
		to_gpu(st, st->parked[k]);
	st->nparked = 0;
}

/* variant i's compile result (owned from now on): classify it, then hand it to the GPU, to
   the journal's earlier result, or back to the search */
static void compiled(void *arg, size_t i, struct compile_out *out, int hit)
{
	struct stream *st = arg;
	struct run *t = st->t;
	struct result *x;
	const struct variant *v;
	int counted = !t->m; /* without a GPU a compiled variant is what the budget counts */
	size_t w;

	if (i >= t->s.n) {
		fixed_compiled(st, i, out);
		return;
	}
	x = &t->r[i];
	v = &t->s.v[i];

	st->compiling--;
	/* from the stream's start (the serial phases' end so far) */
	run_span(t, "compiling", t->t0 + t->ri.run_s, now_s(), 0);
	if (!hit) /* the first from a compiler process: NVRTC's start-up, then one variant */
		run_span(t, "compiler start-up", t->t0 + t->ri.run_s, now_s(), 1);
	free(x->reason);
	x->reason = NULL;
	x->co = *out;
	x->cache_hit = hit != 0; /* 2: another variant's compile of the same text */
	if (!x->co.ok && run_stop && x->co.log && !strcmp(x->co.log, COMPILE_INTERRUPTED)) {
		st->nint++;
		x->status = ST_NOTRUN;
		x->reason = xstrdup("interrupted while compiling");
		settle(st, i, 0, 0);
		return;
	}
	if (!x->co.ok) {
		x->status = ST_COMPILE_ERROR;
		x->reason = xstrdup(x->co.log && *x->co.log ? x->co.log : "no log");
		note(2, "%s: compile error:\n%s\n", v->id, x->co.log);
		if (st->nbad++ == 0 || i < st->first_bad) /* the first in config order */
			st->first_bad = i;
		settle(st, i, counted, 0);
		return;
	}
	free(x->co.log); /* ptxas's report, parsed */
	x->co.log = NULL;
	x->build = build_hash(v, &x->co, t->ri.bank_ignored,
	                      space_verify_hash(t->c, &t->s, v));
	if (x->co.smem_static + v->shared > t->lim.smem_optin) {
		st->nres++;
		x->status = ST_RESOURCES;
		x->reason = xasprintf("%d static + %lld dynamic bytes of shared memory exceed %lld",
		                      x->co.smem_static, (long long)v->shared,
		                      (long long)t->lim.smem_optin);
		drop_cubin(&x->co);
		settle(st, i, counted, 0);
		return;
	}
	st->nok++;
	x->status = ST_UNTIMED;
	if ((w = seen(st, x->build, i)) != SIZE_MAX) {
		struct result *y = &t->r[w];
		/* NVRTC prints no ptxas report for code it has already compiled in the same
		   worker: one of the two has the resources */
		if (x->co.regs < 0 && y->co.regs >= 0) {
			x->co.regs = y->co.regs;
			x->co.spill_stores = y->co.spill_stores;
			x->co.spill_loads = y->co.spill_loads;
			x->co.stack = y->co.stack;
			x->co.smem_static = y->co.smem_static;
		} else if (y->co.regs < 0 && x->co.regs >= 0) {
			y->co.regs = x->co.regs;
			y->co.spill_stores = x->co.spill_stores;
			y->co.spill_loads = x->co.spill_loads;
			y->co.stack = x->co.stack;
			y->co.smem_static = x->co.smem_static;
		}
		x->status = v->bank_bytes != t->s.v[w].bank_bytes ? ST_COLLAPSED : ST_TWIN;
		x->twin = (long)w;
		drop_cubin(&x->co);
		settle(st, i, counted, 0);
		return;
	}
	if (!t->m) {
		drop_cubin(&x->co);
		settle(st, i, 1, 0);
		return;
	}
	if (!st->ready) {
		st->parked = xreallocarray(st->parked, st->nparked + 1, sizeof *st->parked);
		st->parked[st->nparked++] = i;
		return;
	}
	to_gpu(st, i);
}

/* the GPU's result of variant i is in t->r[i] */
static void timed(void *arg, size_t i)
{
	struct stream *st = arg;
	struct run *t = st->t;
	struct result *x = &t->r[i];

	st->timing--;
	run_span(t, i >= t->s.n ? "play-off" : "timing", now_s(), now_s(), 0);
	if (i >= t->s.n) { /* a play-off round */
		progress_step(++st->po_done);
		return;
	}
	if (!t->ri.ntimed++)
		t->ri.first_timed_s = now_s() - st->t0;
	keep_or_drop(st, i);
	settle(st, i, 1, x->status == ST_OK ? result_run(x)->t.median_ms : 0);
}

void stream_run(struct run *t, const size_t *cand, size_t ncand, const char *cachedir,
                double t0, struct stream_sum *sum)
{
	struct config *c = t->c;
	struct space *s = &t->s;
	struct stream st;
	struct pool_task tasks[3];
	struct compiler *k;
	char why[256] = "";
	size_t i, misses, n, shared, *want;
	double *prior;
	int ntask = 1, gpu = 0;

	memset(&st, 0, sizeof st);
	st.t = t;
	st.t0 = t0;
	st.q = search_new((enum strategy)t->o.strategy, c, s, cand, ncand, t->o.budget,
	                  t->o.seed, (size_t)t->o.jobs + 2);
	if (t->ahead_wanted) /* the bank model for what the search picks */
		t->ahead = predict_ahead_new(c, s, predict_cc(&t->ri), ncand, t->o.jobs);
	if ((n = search_prior_wanted(st.q, want = xcalloc(ncand + 1, sizeof *want)))) {
		prior = xcalloc(s->n + 1, sizeof *prior);
		if (t->ahead) { /* the bank model for those, now: a sample, not the space */
			for (i = 0; i < n; i++)
				predict_ahead_add(t->ahead, want[i]);
			predict_ahead_run(t->ahead);
			run_phase(t, "bank model: the guided start's sample");
			st.t0 = now_s();
		}
		for (i = 0; i < n; i++) {
			double b = t->ahead ? predict_ahead_ratio(t->ahead, want[i])
			                    : t->r[want[i]].bank_ratio;
			prior[want[i]] = b > 0 ? b : 1;
		}
		search_prior(st.q, prior);
		free(prior);
	}
	free(want);
	st.qmax = 4 * (size_t)t->o.jobs + 16;
	k = compile_open(t->ri.arch, c->options, c->noptions, cachedir, t->o.jobs, job_of,
	                 compile_next, compiled, &st, &run_stop);
	compile_task(k, &tasks[0], why, sizeof why);
	if (t->m && !run_stop) {
		measure_begin(t->m);
		gpu = ntask;
		measure_task(t->m, &tasks[ntask++], gpu_next, timed, timed_again, &st);
		note(1, "tuner: verifying and timing on %s as variants compile\n", t->ri.gpu.name);
	}
	if (!run_stop && predict_ahead_task(t->ahead, &tasks[ntask]) == 0)
		ntask++;
	progress_begin(t->m ? "compiling and timing" : "compiling",
	               t->o.budget && t->o.budget < ncand ? t->o.budget : ncand);
	if (!run_stop && pool_run_many(tasks, ntask) < 0) {
		if (gpu && tasks[gpu].failed)
			fatal("%s: %s", c->path, t->why);
		if (tasks[0].failed)
			warn("cannot start a compiler process (%s)", why);
		if (t->ahead && tasks[ntask - 1].failed) /* what it did not evaluate is, after */
			note(2, "tuner: the bank model beside the stream: %s\n", tasks[ntask - 1].why);
	}
	progress_end();
	t->ri.compile_s = now_s() - st.t0;
	misses = compile_close(k, &shared);
	t->ri.compiled += misses;
	t->ri.shared = shared;
	/* an interrupt can leave compiled variants uncounted in st: no hits then, not < 0 */
	n = st.nok + st.nres + st.nbad + 2;
	t->ri.cache_hits = n > t->ri.compiled + shared ? n - t->ri.compiled - shared : 0;
	if (t->m) {
		size_t resumed;
		for (i = 0; i < st.nparked; i++) { /* compiled before an interrupt ended the run */
			drop_cubin(&t->r[st.parked[i]].co);
			measure_notrun(t->m, st.parked[i]);
		}
		while (st.qlen) { /* compiled, never timed: interrupted */
			size_t j;
			gpu_next(&st, &j);
			drop_cubin(&t->r[j].co);
			measure_notrun(t->m, j);
		}
		playoff_end(&st);
		if ((resumed = measure_end(t->m)))
			note(1, "tuner: %zu results kept from an earlier run (--fresh re-runs them)\n",
			     resumed);
	}
	*sum = (struct stream_sum){st.nok, st.nbad, st.nres, st.nint, st.first_bad};
	free(st.queue);
	free(st.parked);
	free(st.tkey);
	free(st.tval);
	search_free(st.q);
}

/* where the cache hits came from, where it is this user's cache that other clones and runs
   share ($TUNER_CACHE, else ~/.cache/tuner), "" otherwise */
static const char *shared_cache(const struct run *t)
{
	static char says[640];
	const char *home = getenv("HOME"), *d = t->cachedir;
	size_t n = home && *home ? strlen(home) : 0;

	if (!t->ri.cache_hits || !d || t->o.cachedir || (t->first && t->first->ri.cache_hits))
		return ""; /* a later point: said at the first */
	if (n && !strncmp(d, home, n) && d[n] == '/')
		snprintf(says, sizeof says, "~%.500s, shared by this user's runs; ", d + n);
	else
		snprintf(says, sizeof says, "%.500s, shared by this user's runs; ", d);
	return says;
}

void stream_summary(const struct run *t, const struct stream_sum *sum, size_t ncand)
{
	const struct config *c = t->c;
	/* another shard's variants, and those not among a midpoint's candidates, are skipped
	   too: not this run's to try */
	size_t skipped = t->ri.nskipped - (t->s.nkept - ncand), tried = ncand - skipped;

	note(1, "tuner: %zu variants in %.2f s: %zu built, %zu failed to compile, %zu over the "
	     "shared-memory limit%s%.0zu%s;\n  NVRTC compiled %zu, %zu from the cache (%swith the "
	     "reference and helpers)%s%.0zu%s\n", tried, t->ri.compile_s,
	     sum->nok + sum->nres, sum->nbad, sum->nres, sum->nint ? ", " : "", sum->nint,
	     sum->nint ? " not compiled (interrupted)" : "", t->ri.compiled, t->ri.cache_hits,
	     shared_cache(t), t->ri.shared ? ", " : "", t->ri.shared,
	     t->ri.shared ? " the same program as another variant (docs/how-it-works.md)" : "");
	if (skipped)
		note(1, "tuner: %s search: %zu of %zu candidate variants tried (--budget %zu), %zu "
		     "skipped\n", t->ri.strategy, tried, ncand, t->ri.budget, skipped);
	if (t->ri.ntimed)
		note(1, "tuner: timed %zu variants; the first %.2f s after compiling began, all in "
		     "%.2f s\n", t->ri.ntimed, t->ri.first_timed_s, t->ri.compile_s);
	if (sum->nbad && sum->nok) {
		const struct variant *v = &t->s.v[sum->first_bad];
		char *p = space_params_str(c, v);
		const char *log = t->r[sum->first_bad].reason;
		int len = 0, lines = 0;
		while (log[len] && lines < 6)
			lines += log[len++] == '\n';
		note(1, "tuner: the first that failed, %s (%s), says:\n%.*s%s", v->id, p, len, log,
		     log[len] ? "  ...\n" : len && log[len - 1] != '\n' ? "\n" : "");
		free(p);
	}
}
