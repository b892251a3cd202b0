/* tune: one tuning run, phase by phase. */
#include "tune.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cache.h"
#include "compile.h"
#include "pool.h"
#include "emit.h"
#include "html.h"
#include "measure.h"
#include "predict.h"
#include "report.h"
#include "results.h"
#include "retune.h"
#include "search.h"
#include "source.h"
#include "t4.h"
#include "util.h"

void tune_load(struct run *t)
{
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	time_t now = epoch ? (time_t)strtoll(epoch, NULL, 10) : time(NULL);
	struct tm tm;
	size_t i;

	t->c = cfg_load(t->o.config);
	if (!(t->cfgtext = file_read(t->o.config, &t->cfglen)))
		fatal("%s: cannot read config:", t->o.config);
	for (i = 0; i < t->o.nsizes; i++)
		cfg_set_size(t->c, t->o.sizes[i]);
	cfg_eval_params(t->c);
	cfg_size_vars(t->c, t->o.sms ? t->o.sms : 1, &t->sizes);
	gmtime_r(&now, &tm);
	strftime(t->ri.date, sizeof t->ri.date, "%Y-%m-%dT%H:%M:%SZ", &tm);
	t->ri.nvrtc = nv_version();
}

void tune_target(struct run *t)
{
	static char gpuarch[16];
	struct runinfo *ri = &t->ri;
	int have = 0, bank8 = 0;

	t->m = measure_open(t, &ri->gpu, &bank8, t->why, sizeof t->why);
	if (t->m) {
		have = 1;
		ri->bank_ignored = bank8 == 4;
		if (t->o.sms && t->o.sms != ri->gpu.sms)
			warn("--sms %lld ignored: the GPU has %d multiprocessors", (long long)t->o.sms,
			     ri->gpu.sms);
		vars_set(&t->sizes, CFG_SMS, ri->gpu.sms);
		snprintf(gpuarch, sizeof gpuarch, "sm_%d%d", ri->gpu.cc_major, ri->gpu.cc_minor);
		if (t->o.arch && strcmp(t->o.arch, gpuarch)) {
			snprintf(t->why, sizeof t->why, "--arch %s differs from the GPU's %s", t->o.arch,
			         gpuarch);
			measure_close(t->m);
			t->m = NULL;
			have = 0;
		}
	}
	ri->arch = have ? gpuarch : t->o.arch ? t->o.arch : nv_newest_arch();
	ri->arch_default = !have && !t->o.arch;
	ri->timed = have;
	ri->why_untimed = t->why;
	if (have) {
		t->lim.max_threads = ri->gpu.max_threads;
		t->lim.smem_default = ri->gpu.smem_block;
		t->lim.smem_optin = ri->gpu.smem_optin > ri->gpu.smem_block ? ri->gpu.smem_optin
		                                                           : ri->gpu.smem_block;
		gpu_slug(&ri->gpu, ri->slug, sizeof ri->slug);
	} else {
		space_arch_limits(ri->arch, &t->lim);
		snprintf(ri->slug, sizeof ri->slug, "untimed-%s", ri->arch);
	}
	run_phase(t, t->m ? "GPU opened (by the worker)" : "no GPU");
}

/* warn about each parameter that changes no variant's cubin or launch: among the compiled
   variants that differ only in it, every group builds to one and the same thing (the
   template most likely never uses it; its variants are twins) */
static void unused_params(const struct config *c, const struct space *s, const struct result *r)
{
	size_t p, i, cap = 16, *slot, ngroups;
	uint64_t *key = xcalloc(s->n + 1, sizeof *key), *bh = xcalloc(s->n + 1, sizeof *bh);

	while (cap < 2 * s->n)
		cap *= 2;
	slot = xcalloc(cap, sizeof *slot);
	for (i = 0; i < s->n; i++)
		bh[i] = !r[i].build ? 0 /* the bank mode too, applied by the GPU or not */
		        : hash_bytes(r[i].build, &s->v[i].bank_bytes, sizeof s->v[i].bank_bytes);
	for (p = 0; p < c->nparams; p++) {
		int differs = 0;
		if (c->params[p].nvals < 2)
			continue;
		memset(slot, 0, cap * sizeof *slot);
		ngroups = 0;
		for (i = 0; i < s->n && !differs; i++) {
			size_t q, h;
			if (!bh[i])
				continue;
			key[i] = HASH_INIT;
			for (q = 0; q < c->nparams; q++) /* every value but p's */
				if (q != p)
					key[i] = hash_bytes(key[i], &s->v[i].vals[q], sizeof s->v[i].vals[q]);
			for (h = key[i] & (cap - 1); slot[h] && key[slot[h] - 1] != key[i];
			     h = (h + 1) & (cap - 1))
				;
			if (!slot[h]) {
				slot[h] = i + 1;
				continue;
			}
			ngroups++;
			differs = bh[slot[h] - 1] != bh[i];
		}
		if (!differs && ngroups)
			warn("%s: parameter '%s' changes no variant's cubin or launch (variants that "
			     "differ only in it are twins): does the template use it?", c->path,
			     c->params[p].name);
	}
	free(slot);
	free(key);
	free(bh);
}

static void predict(struct run *t);

/* what variant_text needs */
struct vjob {
	const struct run *t;
	const struct variant *v;
};

/* a compile job's text: a variant's source (source.h) */
static void variant_text(const void *arg, struct buf *b)
{
	const struct vjob *j = arg;
	char *src = source_variant(j->t->c, j->v, j->t->tmpl);

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

/* The play-off: once every variant is timed, the fastest (at most PLAYOFF_MAX, within
   playoff_net() of the fastest median) are timed again, timing.playoff rounds of one launch
   series each, round after round in a rotated order, so that a drift of the GPU's speed
   during the run weighs on all of them alike; report_ties decides on their rounds' medians.
   Their cubins are kept from their first timing on. */
#define PLAYOFF_MAX 64

/* the play-off takes the variants whose medians are within this fraction of the fastest's */
static double playoff_net(const struct config *c)
{
	return 2 * c->tie > 0.01 ? 2 * c->tie : 0.01;
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
	size_t keep[PLAYOFF_MAX + 1], nkeep; /* the play-off's candidates so far (cubins kept) */
	double best;              /* the fastest median so far */
	int po_on;                /* the play-off has begun */
	int po_resumed;           /* its results are an earlier run's, from the journal */
	size_t po_next, po_total; /* its jobs handed out, and in all */
	size_t po_done;           /* its jobs answered */
	double *po_ms;            /* nkeep x rounds medians */
	int *po_cnt;              /* per candidate: rounds in */
	size_t nok, nbad, nres, nint, first_bad;
	size_t settled;           /* variants whose result is in, for the status line */
	double t0;
};

static void job_of(void *arg, size_t i, struct job *out)
{
	struct stream *st = arg;
	const struct config *c = st->t->c;

	st->cur = (struct vjob){st->t, &st->t->s.v[i]};
	*out = (struct job){NULL, variant_text, &st->cur, c->kernel.source, c->kernel.entry};
}

/* the compilers' next job: the search's next pick, unless the GPU is behind */
static int compile_next(void *arg, size_t *i)
{
	struct stream *st = arg;
	int got;

	if (st->search_done)
		return -1;
	if (st->t->m && st->qlen >= st->qmax)
		return 0;
	got = search_next(st->q, i);
	if (got < 0)
		st->search_done = 1;
	if (got > 0) {
		st->compiling++;
		st->t->r[*i].status = ST_NOTRUN; /* until its result is in */
		st->t->r[*i].reason = xstrdup("interrupted while compiling");
	}
	return got;
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
		if (k == st->nkeep) { /* the same play-off as an earlier run's: its results */
			st->po_resumed = 1;
			return -1;
		}
		for (k = 0; k < st->nkeep; k++)
			t->r[st->keep[k]].po_n = 0;
		st->po_total = st->nkeep * (size_t)t->c->playoff;
		st->po_ms = xcalloc(st->po_total, sizeof *st->po_ms);
		st->po_cnt = xcalloc(st->nkeep, sizeof *st->po_cnt);
		note(1, "tuner: play-off: timing the %zu fastest again, %d rounds\n", st->nkeep,
		     t->c->playoff);
		progress_end();
		progress_begin("play-off", st->po_total);
	}
	if (st->po_next == st->po_total)
		return -1;
	k = st->po_next / st->nkeep; /* the round: it starts k places further on */
	*i = st->keep[(st->po_next % st->nkeep + k) % st->nkeep] + t->s.n;
	st->po_next++;
	st->timing++;
	return 1;
}

/* the GPU's next job: the oldest compiled variant waiting, then the play-off */
static int gpu_next(void *arg, size_t *i)
{
	struct stream *st = arg;

	if (!st->qlen)
		return st->search_done && !st->compiling ? playoff_next(st, i) : 0;
	*i = st->queue[st->qhead];
	st->qhead = (st->qhead + 1) % st->qcap;
	st->qlen--;
	st->timing++;
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
	double ms = result_run(&t->r[i])->t.median_ms, lim;
	size_t k, n = 0;

	if (!t->c->playoff || t->r[i].status != ST_OK || !(ms > 0)) {
		drop_cubin(&t->r[i].co);
		return;
	}
	if (st->best <= 0 || ms < st->best)
		st->best = ms;
	st->keep[st->nkeep++] = i;
	lim = st->best * (1 + playoff_net(t->c));
	for (k = 0; k < st->nkeep; k++) {
		size_t j = st->keep[k];
		/* the earlier winner stays a winner within a wider band (report_ties): it takes
		   part within twice the net */
		if (result_run(&t->r[j])->t.median_ms >
		    (j + 1 == t->earlier ? st->best * (1 + REPORT_KEEP_BANDS * playoff_net(t->c)) : lim))
			drop_cubin(&t->r[j].co);
		else
			st->keep[n++] = j;
	}
	st->nkeep = n;
	if (n > PLAYOFF_MAX) { /* one too many: the slowest goes, never the earlier winner */
		size_t w = st->keep[0] + 1 == t->earlier;
		for (k = w + 1; k < n; k++)
			if (st->keep[k] + 1 != t->earlier && result_run(&t->r[st->keep[k]])->t.median_ms >
			                                     result_run(&t->r[st->keep[w]])->t.median_ms)
				w = k;
		drop_cubin(&t->r[st->keep[w]].co);
		st->keep[w] = st->keep[--st->nkeep];
	}
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
			return;
		}
}

/* the play-off's results into the candidates' results; their cubins go */
static void playoff_end(struct stream *st)
{
	struct run *t = st->t;
	size_t k;
	int j, rounds = t->c->playoff;

	for (k = 0; k < st->nkeep; k++) {
		struct result *x = &t->r[st->keep[k]];
		double *m = st->po_ms ? st->po_ms + k * (size_t)rounds : NULL, var = 0;
		int n = st->po_cnt ? st->po_cnt[k] : 0;
		struct stats q;
		drop_cubin(&x->co);
		if (st->po_resumed && x->po_n > 0)
			t->ri.playoff++;
		if (st->keep[k] + 1 == t->earlier && (n || (st->po_resumed && x->po_n > 0)))
			t->ri.playoff_earlier = 1;
		if (!n || x->status != ST_OK)
			continue;
		bench_stats(m, n, &q); /* the rounds' medians, as a launch's samples */
		x->po_n = n;
		x->po_ms = q.median_ms;
		for (j = 0; j < n; j++)
			var += (m[j] - q.mean_ms) * (m[j] - q.mean_ms) / (n > 1 ? n - 1 : 1);
		x->po_se = 1.2533 * sqrt(var / n); /* of a median, for normal data */
		t->ri.playoff++;
		if (!run_stop && n == rounds) /* a whole play-off: the next run may take it */
			measure_playoff_save(t->m, st->keep[k]);
	}
	if (t->ri.playoff) {
		t->ri.playoff_rounds = rounds;
		t->ri.playoff_net = playoff_net(t->c);
	}
	free(st->po_ms);
	free(st->po_cnt);
}

/* variant i's result is in (tried, counted by the budget when counted), and its median if
   it was timed: to the search, and one step of the status line */
static void settle(struct stream *st, size_t i, int counted, double ms)
{
	progress_step(++st->settled);
	search_result(st->q, i, counted, ms);
}

/* variant i's compile result (owned from now on): classify it, then hand it to the GPU, to
   the journal's earlier result, or back to the search */
static void compiled(void *arg, size_t i, struct compile_out *out, int hit)
{
	struct stream *st = arg;
	struct run *t = st->t;
	struct result *x = &t->r[i];
	const struct variant *v = &t->s.v[i];
	int counted = !t->m; /* without a GPU a compiled variant is what the budget counts */
	size_t w;

	st->compiling--;
	free(x->reason);
	x->reason = NULL;
	x->co = *out;
	x->cache_hit = hit;
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
	if (measure_resume(t->m, i)) {
		keep_or_drop(st, i);
		settle(st, i, 1, x->status == ST_OK ? result_run(x)->t.median_ms : 0);
		return;
	}
	enqueue(st, i);
}

/* the GPU's result of variant i is in t->r[i] */
static void timed(void *arg, size_t i)
{
	struct stream *st = arg;
	struct run *t = st->t;
	struct result *x = &t->r[i];

	st->timing--;
	if (i >= t->s.n) { /* a play-off round */
		progress_step(++st->po_done);
		return;
	}
	if (!t->ri.ntimed++)
		t->ri.first_timed_s = now_s() - st->t0;
	keep_or_drop(st, i);
	settle(st, i, 1, x->status == ST_OK ? result_run(x)->t.median_ms : 0);
}

/* the kept variants this run may try (its shard's), in config order; count in *n */
static size_t *candidates(const struct run *t, size_t *n)
{
	const struct space *s = &t->s;
	size_t *c = xcalloc(s->nkept + 1, sizeof *c), i, k = 0;

	*n = 0;
	for (i = 0; i < s->n; i++) {
		if (s->v[i].drop)
			continue;
		if (!t->o.shard_n || k % (size_t)t->o.shard_n == (size_t)t->o.shard_k - 1)
			c[(*n)++] = i;
		k++;
	}
	return c;
}

/* compile the reference and the helper kernels; exit 2 if the reference does not compile */
static void compile_fixed(struct run *t, const char *cachedir)
{
	const struct config *c = t->c;
	struct job jobs[2];
	struct compile_out outs[2];

	jobs[0] = (struct job){t->refsrc, NULL, NULL, c->reference.source, c->reference.entry};
	jobs[1] = (struct job){bench_helpers_source(), NULL, NULL, "tuner_helpers.cu",
	                       "tuner_copy"};
	t->ri.compiled += compile_many(jobs, 2, t->ri.arch, c->options, c->noptions, cachedir,
	                               t->o.jobs, outs, NULL, &run_stop);
	t->ref = outs[0];
	t->copy = outs[1];
	if (!run_stop && !t->ref.ok)
		fatal("%s: the reference kernel '%s' (%s) does not compile:\n%s", c->path,
		      c->reference.entry, c->reference.source, t->ref.log);
	if (!run_stop && !t->copy.ok)
		die("the helper kernels do not compile:\n%s", t->copy.log);
}

/* what the stream did, in one line, and the first compile failure */
static void stream_summary(struct run *t, const struct stream *st, size_t ncand)
{
	const struct config *c = t->c;
	size_t tried = ncand - t->ri.nskipped;

	note(1, "tuner: %zu variants in %.2f s: %zu built, %zu failed to compile, %zu over the "
	     "shared-memory limit%s%.0zu%s; NVRTC compiled %zu, %zu from the cache (with the "
	     "reference and the helper kernels)\n", tried, t->ri.compile_s, st->nok + st->nres,
	     st->nbad, st->nres, st->nint ? ", " : "", st->nint,
	     st->nint ? " not compiled (interrupted)" : "", t->ri.compiled, t->ri.cache_hits);
	if (t->ri.nskipped)
		note(1, "tuner: %s search: %zu of %zu candidate variants tried (--budget %zu), %zu "
		     "skipped\n", t->ri.strategy, tried, ncand, t->ri.budget, t->ri.nskipped);
	if (t->ri.ntimed)
		note(1, "tuner: timed %zu variants; the first %.2f s after compiling began, all in "
		     "%.2f s\n", t->ri.ntimed, t->ri.first_timed_s, t->ri.compile_s);
	if (st->nbad && st->nok) {
		const struct variant *v = &t->s.v[st->first_bad];
		char *p = space_params_str(c, v);
		const char *log = t->r[st->first_bad].reason;
		int len = 0, lines = 0;
		while (log[len] && lines < 6)
			lines += log[len++] == '\n';
		note(1, "tuner: the first that failed, %s (%s), says:\n%.*s%s", v->id, p, len, log,
		     log[len] ? "  ...\n" : len && log[len - 1] != '\n' ? "\n" : "");
		free(p);
	}
}

/* t->earlier: the winner that the results already in t->dir name, if it is in the space */
static void earlier_winner(struct run *t)
{
	char *prev = xasprintf("%s/results.json", t->dir), id[64];
	size_t i;

	t->earlier = 0;
	if (retune_earlier_winner(prev, t->c->name, id, sizeof id) == 0)
		for (i = 0; i < t->s.n && !t->earlier; i++)
			if (!strcmp(t->s.v[i].id, id))
				t->earlier = i + 1;
	free(prev);
}

void tune_run(struct run *t)
{
	struct config *c = t->c;
	struct space *s = &t->s;
	struct stream st;
	struct pool_task tasks[2];
	struct compiler *k;
	char *cachedir = NULL, why[256] = "";
	size_t *cand, ncand, i, misses, n;
	double *prior = NULL;
	int ntask = 1;

	for (i = 0; i < s->n; i++) {
		t->r[i].twin = -1;
		t->r[i].status = s->v[i].drop ? ST_DROPPED : ST_SKIPPED;
	}
	if (!t->o.no_cache && !(cachedir = t->o.cachedir ? xstrdup(t->o.cachedir)
	                                                 : cache_default_dir()))
		warn("no compile cache: neither TUNER_CACHE, XDG_CACHE_HOME nor an existing home "
		     "directory names one (--cache DIR does); compiling everything");
	t->ri.lim = t->lim;
	vars_get(&t->sizes, CFG_SMS, &t->ri.sms);
	t->ri.strategy = search_name(t->o.strategy);
	t->ri.budget = t->o.budget;
	t->ri.seed = t->o.seed;
	t->ri.shard_k = t->o.shard_k;
	t->ri.shard_n = t->o.shard_n;
	cand = candidates(t, &ncand);
	if (t->m)
		earlier_winner(t);
	note(1, "tuner: %s: %zu variants (%zu dropped)%s, compiling for %s with %d workers%s\n",
	     c->path, s->nkept, s->n - s->nkept, "", t->ri.arch, t->o.jobs,
	     t->m ? ", timing as they come" : "");
	if (t->o.shard_n)
		note(1, "tuner: shard %d of %d: %zu of the %zu kept variants\n", t->o.shard_k,
		     t->o.shard_n, ncand, s->nkept);
	memset(&st, 0, sizeof st);
	st.t = t;
	st.t0 = now_s();
	compile_fixed(t, cachedir);
	if (t->o.strategy == SEARCH_GUIDED) {
		prior = xcalloc(s->n + 1, sizeof *prior);
		for (i = 0; i < s->n; i++)
			prior[i] = t->r[i].bank_ratio > 0 ? t->r[i].bank_ratio : 1;
	}
	st.q = search_new((enum strategy)t->o.strategy, c, s, cand, ncand, t->o.budget,
	                  t->o.seed, prior, (size_t)t->o.jobs + 2);
	st.qmax = 4 * (size_t)t->o.jobs + 16;
	free(prior);
	k = compile_open(t->ri.arch, c->options, c->noptions, cachedir, t->o.jobs, job_of,
	                 compile_next, compiled, &st, &run_stop);
	compile_task(k, &tasks[0], why, sizeof why);
	if (t->m && !run_stop) {
		if (mkdirs(t->dir) < 0)
			fatal("cannot create '%s':", t->dir);
		measure_begin(t->m);
		measure_task(t->m, &tasks[ntask++], gpu_next, timed, timed_again, &st);
		note(1, "tuner: verifying and timing on %s as variants compile\n", t->ri.gpu.name);
	}
	progress_begin(t->m ? "compiling and timing" : "compiling",
	               t->o.budget && t->o.budget < ncand ? t->o.budget : ncand);
	if (!run_stop && pool_run_many(tasks, ntask) < 0) {
		if (ntask > 1 && tasks[1].failed)
			fatal("%s: %s", c->path, t->why);
		warn("cannot start a compiler process (%s)", why);
	}
	progress_end();
	t->ri.compile_s = now_s() - st.t0;
	misses = compile_close(k);
	t->ri.compiled += misses;
	/* an interrupt can leave compiled variants uncounted in st: no hits then, not < 0 */
	n = st.nok + st.nres + st.nbad + 2;
	t->ri.cache_hits = n > t->ri.compiled ? n - t->ri.compiled : 0;
	if (t->m) {
		size_t resumed;
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
	for (i = 0; i < ncand && run_stop && !t->o.budget; i++) { /* never reached */
		struct result *x = &t->r[cand[i]];
		if (x->status == ST_SKIPPED) {
			x->status = ST_NOTRUN;
			x->reason = xstrdup("interrupted before it was compiled");
		}
	}
	for (i = 0; i < s->n; i++) {
		struct result *x = &t->r[i];
		t->ri.nskipped += x->status == ST_SKIPPED;
		if ((x->status == ST_TWIN || x->status == ST_COLLAPSED) && x->twin >= 0 && t->m) {
			result_set_run(x, result_run(&t->r[x->twin])); /* twins share a result */
			x->gbs = t->r[x->twin].gbs;
			x->pct_copy = t->r[x->twin].pct_copy;
			x->pct_read = t->r[x->twin].pct_read;
			x->po_n = t->r[x->twin].po_n;
			x->po_ms = t->r[x->twin].po_ms;
			x->po_se = t->r[x->twin].po_se;
		}
	}
	if (!t->predicted && !run_stop)
		predict(t);
	stream_summary(t, &st, ncand);
	run_phase(t, "compiled and run");
	free(cachedir);
	free(cand);
	free(st.queue);
	free(st.tkey);
	free(st.tval);
	search_free(st.q);
	if (!run_stop && st.nok == 0 && st.nbad) {
		char hint[512];
		const char *h = nv_hint(t->r[st.first_bad].reason, c->kernel.entry, c->kernel.source,
		                        hint, sizeof hint);
		fatal("%s: no variant of '%s' compiles%s%s; the first, %s, says:\n%s", c->path,
		      c->kernel.source, h ? ": " : "", h ? h : "", s->v[st.first_bad].id,
		      t->r[st.first_bad].reason);
	}
	if (!run_stop)
		unused_params(c, s, t->r);
}

static void write_out(const char *dir, const char *file, const struct buf *b)
{
	char *p = xasprintf("%s/%s", dir, file);

	if (file_write_atomic(p, b->s, b->len) < 0)
		fatal("cannot write '%s':", p);
	free(p);
}

/* the bank model's prediction of every kept variant not skipped */
static void predict(struct run *t)
{
	predict_bank(t->c, &t->s, t->ri.timed ? t->ri.gpu.cc_major * 10 + t->ri.gpu.cc_minor
	                                      : nv_arch_cc(t->ri.arch), t->r, t->o.jobs);
	t->predicted = 1;
	run_phase(t, "bank model evaluated");
}

void tune_expand(struct run *t)
{
	size_t i;

	space_expand(t->c, &t->sizes, &t->lim, &t->s);
	t->r = xcalloc(t->s.n ? t->s.n : 1, sizeof *t->r);
	if (t->o.dry_run)
		return;
	if (t->s.nkept == 0)
		fatal("%s: every variant was dropped (the first: %s); see --dry-run", t->c->path,
		      t->s.n ? t->s.v[0].drop : "empty space");
	if (t->o.emit) {
		for (i = 0; i < t->s.n && strcmp(t->s.v[i].id, t->o.emit); i++)
			;
		if (i == t->s.n)
			fatal("--emit: no variant '%s' in %s; see --dry-run", t->o.emit, t->c->path);
		if (t->s.v[i].drop)
			fatal("--emit: variant '%s' was dropped: %s", t->o.emit, t->s.v[i].drop);
	}
	t->tmpl = cfg_read_source(t->c, t->c->kernel.source);
	t->refsrc = cfg_read_source(t->c, t->c->reference.source);
	/* a run that tries part of the space predicts for what it tried, after it (the guided
	   search needs every prediction first) */
	if ((!t->o.budget && !t->o.shard_n) || t->o.strategy == SEARCH_GUIDED)
		predict(t);
	if (t->o.shard_n)
		t->dir = xasprintf("%s/%s/%s/shard-%d-of-%d", t->o.outdir, t->c->name, t->ri.slug,
		                   t->o.shard_k, t->o.shard_n);
	else
		t->dir = xasprintf("%s/%s/%s", t->o.outdir, t->c->name, t->ri.slug);
}

/* write results.json (csv 0), results.csv (1), report.html (2) or results.t4.json (3) into
   t->dir atomically, as it is made */
static void write_report(struct run *t, const char *file, int csv, const size_t *order)
{
	char *path = xasprintf("%s/%s", t->dir, file);
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	struct buf b = {0};
	FILE *f = fopen(tmp, "w");

	if (!f)
		fatal("cannot write '%s':", tmp);
	if (csv == 2)
		html_report(f, t->c, &t->s, t->r, order, &t->ri);
	else if (csv == 3)
		t4_results(f, t->c, &t->s, t->r, order, &t->ri);
	else if (csv)
		results_csv(&b, f, t->c, &t->s, t->r, order);
	else
		results_write(&b, f, t->c, &t->s, t->r, order, &t->ri);
	if (fflush(f) != 0 || fsync(fileno(f)) < 0 || fclose(f) != 0 || rename(tmp, path) < 0) {
		int e = errno;
		unlink(tmp);
		errno = e;
		fatal("cannot write '%s':", path);
	}
	buf_free(&b);
	free(tmp);
	free(path);
}

/* hold dir's lock (dir/.lock, fcntl) until the returned descriptor is closed: runs that
   write into one directory take turns, so its files always come from one run */
static int lock_dir(const char *dir)
{
	char *p = xasprintf("%s/.lock", dir);
	struct flock fl;
	int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		fatal("cannot open '%s':", p);
	memset(&fl, 0, sizeof fl);
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	if (fcntl(fd, F_SETLK, &fl) < 0) {
		note(1, "tuner: waiting for another run to finish writing %s\n", dir);
		while (fcntl(fd, F_SETLKW, &fl) < 0)
			if (errno != EINTR)
				fatal("cannot lock '%s':", p);
	}
	free(p);
	return fd;
}

/* the config and the template as tuned, beside the results, with their hashes */
static void copy_sources(struct run *t)
{
	struct buf b = {t->cfgtext, t->cfglen, 0};
	size_t n = strlen(t->tmpl);

	write_out(t->dir, RESULTS_CONFIG_COPY, &b);
	b = (struct buf){t->tmpl, n, 0};
	write_out(t->dir, RESULTS_TEMPLATE_COPY, &b);
	t->ri.config_hash = hash_bytes(HASH_INIT, t->cfgtext, t->cfglen);
	t->ri.template_hash = hash_bytes(HASH_INIT, t->tmpl, n);
	t->ri.sources_copied = 1;
}

int tune_finish(struct run *t)
{
	struct config *c = t->c;
	struct space *s = &t->s;
	struct result *r = t->r;
	size_t *order = report_rank(r, s->n), i, nok = 0;
	int lock;

	if (t->ri.timed) {
		char *kdir = xasprintf("%s/%s", t->o.outdir, c->name);
		size_t keep = t->earlier ? t->earlier - 1 : SIZE_MAX;
		double *elsewhere = xcalloc(s->n + 1, sizeof *elsewhere);
		enum tie_key why = TIE_NONE;
		/* the winner of the run before, while it ties, stays the winner; else the tie that
		   ran best on the other GPUs tuned beside this one, if any */
		t->ri.tie_gpus = retune_elsewhere(kdir, t->ri.slug, c->name, s, elsewhere);
		report_ties(r, s->n, t->c, s, order, keep, t->ri.tie_gpus ? elsewhere : NULL, &why);
		t->ri.tie_key = (int)why;
		free(elsewhere);
		t->ri.kept_winner = keep != SIZE_MAX && order[0] == keep && r[keep].tie;
		retune_compare(kdir, t->ri.slug, c->name, s, r, order, &t->ri.retune_text,
		               &t->ri.retune_json);
		free(kdir);
	}
	for (i = 0; i < s->n; i++)
		nok += r[i].status == ST_OK || (!t->ri.timed && r[i].status == ST_UNTIMED);
	if (verbosity >= 1)
		report_table(stdout, c, s, r, order, &t->ri);
	if (mkdirs(t->dir) < 0)
		fatal("cannot create '%s':", t->dir);
	lock = lock_dir(t->dir);
	copy_sources(t);
	write_report(t, "results.json", 0, order);
	if (getenv("TUNER_TEST_WRITE_PAUSE")) /* for the tests: widen the window between files */
		nanosleep(&(struct timespec){0, 300000000}, NULL);
	write_report(t, "results.csv", 1, order);
	write_report(t, "report.html", 2, order); /* html.h */
	if (t->o.t4)
		write_report(t, "results.t4.json", 3, order); /* t4.h */
	if (t->ri.timed && !run_stop && !t->o.shard_n && r[order[0]].status == ST_OK) {
		size_t w = order[0];
		char *p = space_params_str(c, &s->v[w]);
		struct vars vars;
		space_bind(c, s, &s->v[w], &vars);
		if (emit_variant(t->dir, "best", c, &s->v[w], &vars, &r[w], &t->ri, t->tmpl) < 0)
			fatal("cannot write '%s/best.cu':", t->dir);
		printf("best: %s (%s) %.1f GB/s, %.1f %% of copy -> %s/best.cu\n", s->v[w].id, p,
		       r[w].gbs, r[w].pct_copy, t->dir);
		free(p);
	}
	if (t->o.emit && !run_stop) {
		for (i = 0; strcmp(s->v[i].id, t->o.emit); i++)
			;
		struct vars vars;
		if (r[i].status == ST_COMPILE_ERROR)
			fatal("--emit: variant '%s' does not compile", t->o.emit);
		space_bind(c, s, &s->v[i], &vars);
		if (emit_variant(t->dir, t->o.emit, c, &s->v[i], &vars, &r[i], &t->ri, t->tmpl) < 0)
			fatal("cannot write '%s/%s.cu':", t->dir, t->o.emit);
		note(1, "tuner: wrote %s/%s.cu and %s.h\n", t->dir, t->o.emit, t->o.emit);
	}
	note(1, "tuner: results in %s/results.json\n", t->dir);
	close(lock); /* the files of the directory are one run's */
	free(order);
	if (run_stop) {
		note(0, "tuner: interrupted; the results so far are in %s\n", t->dir);
		return EXIT_INTERRUPT;
	}
	return nok ? 0 : EXIT_NOVARIANT;
}

void tune_free(struct run *t)
{
	size_t i;

	measure_close(t->m);
	for (i = 0; t->r && i < t->s.n; i++) {
		nv_out_free(&t->r[i].co);
		free(t->r[i].reason);
		free(t->r[i].run);
		if (!t->r[i].bank_shared) {
			free(t->r[i].bank);
			free(t->r[i].bank8);
		}
	}
	nv_out_free(&t->ref);
	nv_out_free(&t->copy);
	buf_free(&t->ri.retune_text);
	buf_free(&t->ri.retune_json);
	free(t->r);
	free(t->tmpl);
	free(t->refsrc);
	free(t->cfgtext);
	free(t->dir);
	free(t->o.sizes);
	space_free(&t->s);
	cfg_free(t->c);
	memset(t, 0, sizeof *t);
}
