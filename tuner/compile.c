/* compile: many sources for one architecture, through the cache and a pool of compilers.

   Every job is looked up in the cache first; the misses go to a pool of forked compiler
   processes (NVRTC serializes compilations inside one process, so processes are what scale;
   they also contain NVRTC crashes). Each answers with the compile result, which the parent
   stores in the cache, failures included; a compiler that dies is blamed on exactly the job
   it was on. Where no compiler process can be started, the jobs are compiled here. */
#include "compile.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "nvrtc.h"
#include "pool.h"
#include "util.h"
#include "wire.h"

/* jobs of one text in a stream: the first is compiled, the others wait for its result */
struct share {
	uint64_t h, h2;           /* the jobs' same[] */
	size_t lead;              /* the job compiling it */
	size_t *wait, nwait;      /* the jobs waiting for it */
	int open;                 /* lead's result not in yet */
};

struct shares {
	struct share *s;
	size_t n, cap;
	size_t *slot, nslot;      /* open addressing: hash -> share index + 1 */
	size_t nshared;           /* jobs served by another's compile */
};

struct ctx {
	const struct job *jobs;   /* compile_many's, or NULL: job_of() makes them */
	void (*job_of)(void *arg, size_t j, struct job *out);
	void (*sink)(void *arg, size_t j, struct compile_out *out, int hit); /* NULL: into outs */
	void *arg;
	const char *arch;
	char *const *opts;
	size_t nopts;
	const char *dir;
	struct compile_out *outs;
	int warned;
	size_t ndone;             /* jobs answered, for the status line */
	struct shares *sh;        /* a stream's: identical texts compiled once; NULL: none */
};

/* job j's text: its src, or made into b */
static const char *text(const struct job *j, struct buf *b)
{
	if (j->src)
		return j->src;
	b->len = 0;
	j->make(j->arg, b);
	buf_add(b, NULL, 0);
	return b->s;
}

/* job j */
static struct job job_at(const struct ctx *c, size_t j)
{
	struct job jb;

	if (c->jobs)
		return c->jobs[j];
	c->job_of(c->arg, j, &jb);
	return jb;
}

/* job j's cache key into key */
static void key_of(const struct ctx *c, size_t j, struct buf *key)
{
	struct buf b = {0};
	struct job jb = job_at(c, j);

	cache_key(key, text(&jb, &b), jb.entry, c->arch, c->opts, c->nopts);
	buf_free(&b);
}

/* the share of key hash h in sh, or NULL (add: a new one, open, led by j) */
static struct share *share_find(struct shares *sh, uint64_t h, int add, size_t j)
{
	size_t k, m;

	if (2 * sh->n + 2 > sh->nslot) { /* at most half full */
		size_t n = sh->nslot ? 2 * sh->nslot : 256;
		free(sh->slot);
		sh->slot = xcalloc(n, sizeof *sh->slot);
		sh->nslot = n;
		for (k = 0; k < sh->n; k++) {
			for (m = sh->s[k].h & (n - 1); sh->slot[m]; m = (m + 1) & (n - 1))
				;
			sh->slot[m] = k + 1;
		}
	}
	for (m = h & (sh->nslot - 1); sh->slot[m]; m = (m + 1) & (sh->nslot - 1))
		if (sh->s[sh->slot[m] - 1].h == h)
			return &sh->s[sh->slot[m] - 1];
	if (!add)
		return NULL;
	if (sh->n == sh->cap) {
		sh->cap = sh->cap ? 2 * sh->cap : 64;
		sh->s = xreallocarray(sh->s, sh->cap, sizeof *sh->s);
	}
	sh->s[sh->n] = (struct share){h, 0, j, NULL, 0, 1};
	sh->slot[m] = ++sh->n;
	return &sh->s[sh->n - 1];
}

/* 1 if job j is to wait for the same text (job.same) that another job is compiling */
static int share_wait(struct ctx *c, size_t j)
{
	struct job jb = job_at(c, j);
	uint64_t h = jb.same[0], h2 = jb.same[1];
	struct share *x;

	if (!h && !h2)
		return 0;
	x = share_find(c->sh, h, 0, j);

	if (!x) {
		share_find(c->sh, h, 1, j)->h2 = h2;
		return 0;
	}
	if (x->h2 != h2) /* two texts of one hash: compiled apart */
		return 0;
	if (!x->open) { /* compiled, and not in the cache (none, or not writable): again */
		x->lead = j;
		x->open = 1;
		return 0;
	}
	x->wait = xreallocarray(x->wait, x->nwait + 1, sizeof *x->wait);
	x->wait[x->nwait++] = j;
	return 1;
}

static void out_copy(struct compile_out *to, const struct compile_out *from)
{
	*to = *from;
	to->log = xstrdup(from->log ? from->log : "");
	to->lowered = xstrdup(from->lowered ? from->lowered : "");
	to->cubin = NULL;
	if (from->cubin_len) {
		to->cubin = xmalloc(from->cubin_len);
		memcpy(to->cubin, from->cubin, from->cubin_len);
	}
}

/* job j's result out is in: a copy to each job that waits for it (hit 2) */
static void share_done(struct ctx *c, size_t j, const struct compile_out *out)
{
	struct job jb;
	struct share *x;
	size_t i;

	if (!c->sh)
		return;
	jb = job_at(c, j);
	if (!jb.same[0] && !jb.same[1])
		return;
	x = share_find(c->sh, jb.same[0], 0, j);
	if (!x || !x->open || x->lead != j || x->h2 != jb.same[1])
		return;
	x->open = 0;
	for (i = 0; i < x->nwait; i++) {
		struct compile_out y;
		out_copy(&y, out);
		c->sh->nshared++;
		c->sink(c->arg, x->wait[i], &y, 2);
	}
	free(x->wait);
	x->wait = NULL;
	x->nwait = 0;
}

static void fail_out(struct compile_out *out, const struct job *j, const char *why)
{
	memset(out, 0, sizeof *out);
	out->regs = -1;
	out->log = xstrdup(why);
	out->lowered = xstrdup(j->entry ? j->entry : "");
}

/* in a compiler process: compile job j, answer with the result */
static int run(void *arg, size_t j, const void *msg, size_t len, struct buf *ans)
{
	const char *crash = getenv("TUNER_TEST_CRASH_ENTRY"); /* for the tests: die on this entry */
	const struct ctx *c = arg;
	struct job jb = job_at(c, j);
	struct compile_out out;
	struct buf b = {0};

	(void)msg, (void)len;
	if (crash && jb.entry && !strcmp(crash, jb.entry))
		raise(SIGKILL);
	nv_compile(text(&jb, &b), jb.name, jb.entry, c->arch, c->opts, c->nopts, &out);
	buf_free(&b);
	wire_co(ans, &out);
	nv_out_free(&out);
	return 0;
}

/* keep job j's result out in the cache */
static void store(struct ctx *c, const struct buf *key, const struct compile_out *out)
{
	if (c->dir && cache_put(c->dir, key, out) < 0 && !c->warned++)
		warn("cannot store a compile result in %s:", c->dir);
}

/* a job ended: store its result, or why its compiler died, and hand it on */
static void done(void *arg, size_t j, enum outcome oc, const void *msg, size_t len)
{
	struct ctx *c = arg;
	struct rd r = rd_of(msg, len);
	struct compile_out out;
	struct job jb = job_at(c, j);
	struct buf key = {0};

	if (!c->sink) /* a stream counts what it settles itself */
		progress_step(++c->ndone);
	if (c->dir)
		key_of(c, j, &key);
	memset(&out, 0, sizeof out);
	if (oc == OUT_DONE && rd_co(&r, &out) == 0 && rd_done(&r)) {
		store(c, &key, &out);
	} else if (oc == OUT_DONE) {
		nv_out_free(&out);
		fail_out(&out, &jb, "a compiler process sent a malformed result\n");
	} else {
		char *why = xasprintf("%.*s\n", (int)len, (const char *)msg);
		fail_out(&out, &jb, why);
		free(why);
	}
	share_done(c, j, &out);
	buf_free(&key);
	if (c->sink)
		c->sink(c->arg, j, &out, 0);
	else
		c->outs[j] = out;
}

size_t compile_many(const struct job *jobs, size_t n, const char *arch, char *const *opts,
                    size_t nopts, const char *cachedir, int workers, struct compile_out *outs,
                    int *hits, volatile sig_atomic_t *stop)
{
	struct buf key = {0}, b = {0};
	size_t *todo = xcalloc(n, sizeof *todo), ntodo = 0, nmiss, i, ncorrupt = 0;
	char why[256];
	struct ctx c = {jobs, NULL, NULL, NULL, arch, opts, nopts, cachedir, outs, 0, 0, NULL};
	struct pool_ops ops = {NULL, NULL, NULL, run, &c, "compiler process"};
	struct pool_limits lim = {0, 0};
	struct pool *p;

	for (i = 0; i < n; i++) {
		int got;
		got = CACHE_MISS;
		if (cachedir) {
			key_of(&c, i, &key);
			got = cache_get(cachedir, &key, &outs[i]);
		}
		if (got == CACHE_CORRUPT && !ncorrupt++)
			warn("%s: a corrupt entry (%s): compiling it again and replacing it", cachedir,
			     jobs[i].name);
		if (hits)
			hits[i] = got == CACHE_HIT;
		if (got != CACHE_HIT)
			todo[ntodo++] = i;
	}
	if (ncorrupt > 1)
		warn("%s: %zu corrupt entries in all", cachedir, ncorrupt);
	nmiss = ntodo;
	if (ntodo && cachedir) {
		cache_sweep(cachedir); /* what killed writers left; only when there is work */
		if (mkdirs(cachedir) < 0 || access(cachedir, W_OK | X_OK) < 0) {
			warn("cache directory %s is not writable; results are not kept:", cachedir);
			c.dir = NULL;
		}
	}
	for (i = 0; i < ntodo; i++)
		memset(&outs[todo[i]], 0, sizeof outs[todo[i]]);
	if (ntodo) {
		p = pool_new(&ops, &lim, workers < (int)ntodo ? workers : (int)ntodo);
		struct pool_run r = {NULL, 0, NULL, done, &c, NULL, stop};
		progress_begin("compiling", ntodo);
		if (pool_run(p, &r, todo, ntodo, why, sizeof why) < 0)
			warn("cannot start a compiler process (%s): compiling in this one", why);
		progress_end();
		pool_end(p);
	}
	/* what no compiler answered for: interrupted, or no compiler could start */
	for (i = 0; i < ntodo; i++) {
		size_t j = todo[i];
		if (outs[j].log)
			continue;
		if (stop && *stop)
			fail_out(&outs[j], &jobs[j], COMPILE_INTERRUPTED);
		else {
			nv_compile(text(&jobs[j], &b), jobs[j].name, jobs[j].entry, arch, opts, nopts,
			           &outs[j]);
			if (c.dir) {
				key_of(&c, j, &key);
				store(&c, &key, &outs[j]);
			}
		}
	}
	buf_free(&key);
	buf_free(&b);
	free(todo);
	return nmiss;
}

/* ---- a stream of jobs: compile_open ---- */

struct compiler {
	struct ctx c;
	struct pool *pool;
	struct pool_run run;
	int (*next)(void *arg, size_t *j);
	size_t misses, ncorrupt;
	int swept;
};

struct compiler *compile_open(const char *arch, char *const *opts, size_t nopts,
                              const char *cachedir, int workers,
                              void (*job_of)(void *arg, size_t j, struct job *out),
                              int (*next)(void *arg, size_t *j),
                              void (*sink)(void *arg, size_t j, struct compile_out *out, int hit),
                              void *arg, volatile sig_atomic_t *stop)
{
	struct compiler *k = xcalloc(1, sizeof *k);
	struct pool_ops ops = {NULL, NULL, NULL, run, &k->c, "compiler process"};
	struct pool_limits lim = {0, 0};

	k->c = (struct ctx){NULL, job_of, sink, arg, arch, opts, nopts, cachedir, NULL, 0, 0,
	                    xcalloc(1, sizeof *k->c.sh)};
	k->next = next;
	k->pool = pool_new(&ops, &lim, workers);
	k->run = (struct pool_run){NULL, 0, NULL, done, &k->c, NULL, stop};
	return k;
}

/* the pool's next job: the caller's next variant that is not in the cache (hits go to the
   sink at once) */
static int stream_next(void *arg, size_t *job)
{
	struct compiler *k = arg;
	struct buf key = {0};
	int got;

	while ((got = k->next(k->c.arg, job)) > 0) {
		struct compile_out out;
		int c = CACHE_MISS;
		if (k->c.dir) {
			key_of(&k->c, *job, &key);
			c = cache_get(k->c.dir, &key, &out);
		}
		if (c == CACHE_CORRUPT && !k->ncorrupt++)
			warn("%s: a corrupt entry: compiling it again and replacing it", k->c.dir);
		if (c != CACHE_HIT) {
			if (share_wait(&k->c, *job))
				continue;
			break;
		}
		k->c.sink(k->c.arg, *job, &out, 1);
	}
	buf_free(&key);
	if (got > 0) {
		k->misses++;
		if (!k->swept++ && k->c.dir) {
			cache_sweep(k->c.dir); /* what killed writers left; only when there is work */
			if (mkdirs(k->c.dir) < 0 || access(k->c.dir, W_OK | X_OK) < 0) {
				warn("cache directory %s is not writable; results are not kept:", k->c.dir);
				k->c.dir = NULL;
			}
		}
	}
	return got;
}

void compile_task(struct compiler *k, struct pool_task *task, char *why, size_t whylen)
{
	*task = (struct pool_task){k->pool, &k->run, stream_next, k, why, whylen, 0};
}

size_t compile_close(struct compiler *k, size_t *shared)
{
	size_t n = k->misses, i;

	if (k->ncorrupt > 1)
		warn("%s: %zu corrupt entries in all", k->c.dir, k->ncorrupt);
	pool_end(k->pool);
	if (shared)
		*shared = k->c.sh->nshared;
	for (i = 0; i < k->c.sh->n; i++)
		free(k->c.sh->s[i].wait);
	free(k->c.sh->s);
	free(k->c.sh->slot);
	free(k->c.sh);
	free(k);
	return n;
}
