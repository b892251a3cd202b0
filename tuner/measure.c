/* measure: the run's GPU side: the worker's callbacks and messages, settling and resuming. */
#include "measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "counters.h"
#include "journal.h"
#include "models.h"
#include "pool.h"
#include "report.h"
#include "run.h"
#include "spec.h"
#include "timing.h"
#include "winner.h"
#include "util.h"
#include "wire.h"

/* time limit for the worker's open and setup, seconds */
#define SETUP_S 300

/* the worker's setup steps, timed for the run's phases: its buffers allocated (while the
   parent goes on), the helpers loaded and the reference run, the rooflines timed */
enum { AT_PREP0, AT_PREP1, AT_SETUP0, AT_REF1, AT_ROOF1, HELLO_AT };
static const char *const at_span[HELLO_AT] = {
	[AT_PREP1] = "GPU buffers", [AT_REF1] = "GPU helpers and reference",
	[AT_ROOF1] = "rooflines",
};

/* what the worker reports after its setup */
struct hello {
	double copy_gbs, read_gbs;
	struct stats copy, read;
	int counters;             /* --counters: 1 + the set of counters_smem read, or -1 */
	int passes;               /* the profiler's passes per kernel */
	char counters_why[240];   /* why there are none */
	double at[HELLO_AT];      /* when (now_s) the worker's setup steps began and ended */
};

struct measure {
	struct run *t;
	struct pool *pool;
	struct bench *bench;      /* in the worker only */
	struct bench_probe probe; /* in the worker: the counters' probe, if any (not for jobs
	                             that time a variant again) */
	int64_t copy_bytes;       /* traffic of the copy roofline */
	double best_ms;           /* the fastest verified median so far */
	struct stats best;        /* its statistics, for the race's limit */
	uint64_t *keys;           /* journal keys, per variant */
	char *journal;
	int jwarned;              /* an append to it failed: said once */
	int have_hello;
	int *dev, ndev;           /* --devices: one worker per ordinal */
	int ordinal;              /* in a worker: its device */
	int known;                /* every device the run uses exists: a worker's driver sees its own only */
	double prep[2];           /* in a worker: when w_prepare began and ended */
	char model[256];          /* the first device's name */
	struct jrec *recs;        /* the journal as it was when the run began */
	size_t nrec, resumed;
	uint64_t ctx;             /* journal_context */
	struct buf setup;
	struct pool_run run;
	struct donectx {
		struct measure *m;
		struct buf hello;
		void (*timed)(void *arg, size_t i);
		void (*again)(void *arg, size_t i, const struct run_result *run);
		void *arg;
	} d;
};

/* ---- messages ---- */

static void wire_stats(struct buf *b, const struct stats *s)
{
	wire_u32(b, (uint32_t)s->n);
	wire_f64(b, s->median_ms);
	wire_f64(b, s->min_ms);
	wire_f64(b, s->max_ms);
	wire_f64(b, s->mean_ms);
	wire_f64(b, s->spread);
	wire_u32(b, (uint32_t)s->reps);
	wire_u32(b, (uint32_t)s->held);
	wire_f64(b, s->launch_us);
}

static void rd_stats(struct rd *r, struct stats *s)
{
	s->n = rd_i32(r);
	s->median_ms = rd_f64(r);
	s->min_ms = rd_f64(r);
	s->max_ms = rd_f64(r);
	s->mean_ms = rd_f64(r);
	s->spread = rd_f64(r);
	s->reps = rd_i32(r);
	s->held = rd_i32(r);
	s->launch_us = rd_f64(r);
}

static void wire_info(struct buf *b, const struct gpu_info *g, int bank8)
{
	wire_str(b, g->name);
	wire_u32(b, (uint32_t)g->cc_major);
	wire_u32(b, (uint32_t)g->cc_minor);
	wire_u32(b, (uint32_t)g->sms);
	wire_u32(b, (uint32_t)g->l2_bytes);
	wire_u32(b, (uint32_t)g->max_threads);
	wire_u32(b, (uint32_t)g->smem_block);
	wire_u32(b, (uint32_t)g->smem_optin);
	wire_u32(b, (uint32_t)g->driver_version);
	wire_u64(b, g->mem_bytes);
	wire_u32(b, (uint32_t)g->devices);
	wire_u32(b, (uint32_t)g->pci[0]);
	wire_u32(b, (uint32_t)g->pci[1]);
	wire_u32(b, (uint32_t)g->pci[2]);
	wire_u32(b, (uint32_t)bank8);
}

static int rd_info(struct rd *r, struct gpu_info *g, int *bank8)
{
	memset(g, 0, sizeof *g);
	rd_str(r, g->name, sizeof g->name);
	g->cc_major = rd_i32(r);
	g->cc_minor = rd_i32(r);
	g->sms = rd_i32(r);
	g->l2_bytes = rd_i32(r);
	g->max_threads = rd_i32(r);
	g->smem_block = rd_i32(r);
	g->smem_optin = rd_i32(r);
	g->driver_version = rd_i32(r);
	g->mem_bytes = (size_t)rd_u64(r);
	g->devices = rd_i32(r);
	g->pci[0] = rd_i32(r);
	g->pci[1] = rd_i32(r);
	g->pci[2] = rd_i32(r);
	*bank8 = rd_i32(r);
	return rd_done(r) ? 0 : -1;
}

static void wire_hello(struct buf *b, const struct hello *h)
{
	int i;

	wire_f64(b, h->copy_gbs);
	wire_f64(b, h->read_gbs);
	wire_stats(b, &h->copy);
	wire_stats(b, &h->read);
	wire_u32(b, (uint32_t)h->counters);
	wire_u32(b, (uint32_t)h->passes);
	wire_str(b, h->counters_why);
	for (i = 0; i < HELLO_AT; i++)
		wire_f64(b, h->at[i]);
}

static int rd_hello(struct rd *r, struct hello *h)
{
	int i;

	memset(h, 0, sizeof *h);
	h->copy_gbs = rd_f64(r);
	h->read_gbs = rd_f64(r);
	rd_stats(r, &h->copy);
	rd_stats(r, &h->read);
	h->counters = rd_i32(r);
	h->passes = rd_i32(r);
	rd_str(r, h->counters_why, sizeof h->counters_why);
	for (i = 0; i < HELLO_AT; i++)
		h->at[i] = rd_f64(r);
	return rd_done(r) ? 0 : -1;
}

/* what the worker needs of a variant: no parameter values, no pointers into the parent */
static void wire_variant(struct buf *b, const struct variant *v, const struct vars *vars)
{
	int d;

	wire_str(b, v->id);
	for (d = 0; d < 3; d++) {
		wire_u64(b, (uint64_t)v->block[d]);
		wire_u64(b, (uint64_t)v->grid[d]);
	}
	wire_u64(b, (uint64_t)v->shared);
	wire_u32(b, (uint32_t)v->bank_bytes);
	wire_u64(b, (uint64_t)v->bytes);
	wire_u32(b, (uint32_t)vars->n);
	for (d = 0; d < vars->n; d++) {
		wire_cstr(b, vars->name[d]);
		wire_u64(b, (uint64_t)vars->val[d]);
	}
}

/* read wire_variant's fields into v and vars; the names point into the message */
static void rd_variant(struct rd *r, struct variant *v, struct vars *vars)
{
	int d, n;

	memset(v, 0, sizeof *v);
	rd_str(r, v->id, sizeof v->id);
	for (d = 0; d < 3; d++) {
		v->block[d] = rd_i64(r);
		v->grid[d] = rd_i64(r);
	}
	v->shared = rd_i64(r);
	v->bank_bytes = rd_i32(r);
	v->bytes = rd_i64(r);
	n = rd_i32(r);
	if (n < 0 || n > VARS_MAX)
		r->bad = 1;
	for (d = 0; d < n && !r->bad; d++) {
		vars->name[d] = rd_cstr(r);
		vars->val[d] = rd_i64(r);
	}
	vars->n = r->bad ? 0 : n;
}

/* ---- the worker's side ---- */

static int w_open(void *arg, int w, struct buf *info, char *why, size_t whylen)
{
	struct measure *m = arg;
	struct run *t = m->t;

	m->ordinal = m->ndev ? m->dev[w % m->ndev] : 0;
	/* the driver sees only this worker's GPU where the run knows the others exist */
	if (gpu_probe(m->known && gpu_restrict(m->ordinal) == 0 ? 0 : m->ordinal, &t->ri.gpu, why,
	              whylen) < 0) /* the worker's copy */
		return -1;
	if (w > 0 && m->model[0] && strcmp(t->ri.gpu.name, m->model)) {
		snprintf(why, whylen, "--devices: GPU %d is a %s, not a %s like GPU %d: GPUs of "
		         "different models need a run each", m->ordinal, t->ri.gpu.name, m->model,
		         m->dev[0]);
		return -1;
	}
	vars_set(&t->sizes, CFG_SMS, t->ri.gpu.sms); /* as the parent will, for bench_open */
	/* the 8-byte bank mode is Kepler's (compute capability 3): later GPUs keep 4-byte banks
	   (asked on the H100 and H200 it stays 4: docs/bank-model.md), so the context the asking
	   needs is made in w_prepare, while the parent expands and compiles */
	if (t->ri.gpu.cc_major >= 5) {
		wire_info(info, &t->ri.gpu, 4);
		return 0;
	}
	if (gpu_context_open(why, whylen) < 0)
		return -1;
	wire_info(info, &t->ri.gpu, bench_bank_probe(NULL, 8));
	return 0;
}

/* allocate and fill the buffers while the parent compiles */
static void w_prepare(void *arg)
{
	struct measure *m = arg;
	struct run *t = m->t;

	m->prep[0] = now_s();
	m->bench = gpu_context_open(t->why, sizeof t->why) < 0
	           ? NULL : bench_open(t->c, &t->sizes, &t->ri.gpu, t->why, sizeof t->why);
	m->prep[1] = now_s();
}

static int probe_before(void *arg, char *why, size_t whylen)
{
	return counters_start(arg, why, whylen);
}

static int probe_after(void *arg, double *vals, char *why, size_t whylen)
{
	struct counters *k = arg;
	int n = counters_stop(k, vals, why, whylen);

	if (n == 0) {
		snprintf(why, whylen, "the profiler counted no kernel");
		return -1;
	}
	return n < 0 ? -1 : counters_count(k);
}

/* in the worker, after the rooflines (they are never profiled): the range profiler with the
   first set of counters this GPU offers, around an extra launch of each variant */
static void counters_setup(struct measure *m, struct hello *h)
{
	/* opened once a worker: the next point's setup finds them open, and says so */
	static struct counters *k;
	static int kset, kpasses;
	struct bench_probe p;
	int set;

	_Static_assert(COUNTERS_SMEM <= BENCH_PROBE_MAX, "a probe holds the counters");
	h->counters = k ? kset : -1;
	for (set = 0; set < COUNTERS_SETS && !k; set++) {
		char why[sizeof h->counters_why];
		k = counters_open(gpu_context(), 0, counters_smem[set], (size_t)counters_set_len(set),
		                  why, sizeof why);
		if (k)
			h->counters = set + 1;
		else if (set == 0) /* the first reason is the telling one */
			snprintf(h->counters_why, sizeof h->counters_why, "%s", why);
	}
	if (!k)
		return;
	if (!kpasses) {
		kset = h->counters;
		kpasses = counters_passes(k);
	}
	h->passes = kpasses;
	p = (struct bench_probe){probe_before, probe_after, k};
	m->probe = p;
	bench_set_probe(m->bench, &p);
}

static int w_setup(void *arg, const void *msg, size_t len, struct buf *out, char *why,
                   size_t whylen)
{
	struct measure *m = arg;
	struct run *t = m->t;
	struct rd r = rd_of(msg, len);
	struct hello h;
	size_t i;
	int moved, flush;

	memset(&h, 0, sizeof h);
	h.at[AT_PREP0] = m->prep[0];
	h.at[AT_PREP1] = m->prep[1];
	h.at[AT_SETUP0] = now_s();
	if (!m->bench) {
		snprintf(why, whylen, "%s", t->why);
		return -1;
	}
	if (rd_co(&r, &t->ref) < 0 || rd_co(&r, &t->copy) < 0)
		die("bad setup message");
	m->copy_bytes = rd_i64(&r);
	for (i = 0, moved = 0; i < t->c->nsizes; i++) {
		int64_t v = rd_i64(&r), was = 0;
		vars_get(&t->sizes, t->c->sizes[i].name, &was);
		moved |= v != was;
		vars_set(&t->sizes, t->c->sizes[i].name, v);
	}
	flush = (int)rd_i64(&r); /* the run's L2 decision (tune_target), made once */
	if (!rd_done(&r))
		die("bad setup message");
	if (moved) { /* another point: the buffers at its sizes */
		bench_close(m->bench);
		if (!(m->bench = bench_open(t->c, &t->sizes, &t->ri.gpu, why, whylen)))
			return -1;
		if (m->probe.after)
			bench_set_probe(m->bench, &m->probe);
	}
	if (bench_timing(m->bench, flush, why, whylen) < 0 ||
	    bench_helpers(m->bench, &t->copy, why, whylen) < 0 ||
	    bench_reference(m->bench, &t->ref, why, whylen) < 0)
		return -1;
	h.at[AT_REF1] = now_s();
	h.copy_gbs = bench_copy(m->bench, &t->copy, m->copy_bytes, &h.copy, why, whylen);
	if (h.copy_gbs <= 0)
		return -1;
	h.read_gbs = bench_read(m->bench, m->copy_bytes, &h.read, why, whylen);
	if (h.read_gbs <= 0)
		return -1;
	h.at[AT_ROOF1] = now_s();
	if (t->o.counters)
		counters_setup(m, &h);
	wire_hello(out, &h);
	return 0;
}

static int w_run(void *arg, size_t j, const void *msg, size_t len, struct buf *out)
{
	struct measure *m = arg;
	struct rd r = rd_of(msg, len);
	struct variant v;
	struct vars vars;
	struct compile_out co;
	struct run_result res;
	double cut;
	uint32_t again;

	(void)j;
	rd_variant(&r, &v, &vars);
	cut = rd_f64(&r);
	again = rd_u32(&r);
	if (rd_co(&r, &co) < 0 || !rd_done(&r))
		die("bad job message");
	bench_set_cut(m->bench, cut);
	memset(&res, 0, sizeof res);
	if (again) /* its counters were read the first time */
		bench_set_probe(m->bench, NULL);
	bench_variant(m->bench, &v, &vars, &co, &res);
	if (again && m->probe.after)
		bench_set_probe(m->bench, &m->probe);
	res.device = m->ordinal;
	nv_out_free(&co);
	journal_wire_run(out, &res);
	return res.status == RUN_FAULT; /* its context is lost */
}

/* ---- the parent's side ---- */

/* measure_open where --devices named its GPUs without the driver (models.c): every worker
   opens at once, each seeing its own GPU; where one cannot or they are of more than one model,
   the driver is asked about them all (models_split, which may end this process) and the
   opening starts again */
static struct measure *open_named(struct measure *m, const struct pool_ops *ops,
                                  const struct pool_limits *lim, struct gpu_info *gpu,
                                  int *bank8, char *why, size_t whylen)
{
	struct run *t = m->t;
	struct buf *infos = xcalloc((size_t)m->ndev, sizeof *infos);
	struct gpu_info *g = xcalloc((size_t)m->ndev, sizeof *g);
	int i, j, rc, b8, ok;

	m->pool = pool_new(ops, lim, m->ndev);
	ok = pool_open_all(m->pool, infos, why, whylen) == 0;
	for (i = 0; i < m->ndev && ok; i++) {
		struct rd r = rd_of(infos[i].s, infos[i].len);
		if (rd_info(&r, &g[i], i ? &b8 : bank8) < 0)
			die("bad info message");
		if (strcmp(g[i].name, g[0].name))
			snprintf(why, whylen, "GPU %d is a %s, GPU %d a %s", m->dev[i], g[i].name,
			         m->dev[0], g[0].name), ok = 0;
		for (j = 0; j < i && ok; j++) /* two names for one GPU */
			if (!memcmp(g[i].pci, g[j].pci, sizeof g[i].pci))
				snprintf(why, whylen, "GPU %d and GPU %d are one GPU (PCI %04x:%02x:%02x)",
				         m->dev[j], m->dev[i], (unsigned)g[i].pci[0], (unsigned)g[i].pci[1],
				         (unsigned)g[i].pci[2]), ok = 0;
	}
	for (i = 0; i < m->ndev; i++)
		buf_free(&infos[i]);
	free(infos);
	*gpu = g[0];
	free(g);
	if (ok) {
		snprintf(m->model, sizeof m->model, "%s", gpu->name);
		return m;
	}
	note(2, "tuner: --devices %s: %s; asking the driver about every GPU\n", t->o.devices_asked,
	     why);
	measure_close(m);
	t->o.devices = t->o.devices_asked;
	if ((rc = models_split(t, 1)) >= 0) /* of several models: a run each, ended */
		exit(rc);
	return measure_open(t, gpu, bank8, why, whylen); /* the GPUs now seen, or none */
}

struct measure *measure_open(struct run *t, struct gpu_info *gpu, int *bank8, char *why,
                             size_t whylen)
{
	struct measure *m = xcalloc(1, sizeof *m);
	struct pool_ops ops = {w_open, w_prepare, w_setup, w_run, m, "worker process"};
	struct pool_limits lim = {SETUP_S, t->o.timeout};
	struct buf info = {0};
	struct rd r;

	if (t->o.dry_run) /* the GPU's limits only: no buffer on it */
		ops.prepare = NULL;

	m->t = t;
	m->known = !t->o.devices || t->o.devices_known;
	if (t->o.devices && strcmp(t->o.devices, "all") &&
	    (m->ndev = devices_parse(t->o.devices, &m->dev)) < 0)
		fatal("--devices: '%s' is not 'all' or a list of device numbers (0,1,...)",
		      t->o.devices);
	if (t->o.devices_known == 2) /* GPUs named, not seen: their workers open side by side */
		return open_named(m, &ops, &lim, gpu, bank8, why, whylen);
	m->pool = pool_new(&ops, &lim, 1);
	if (pool_open(m->pool, &info, why, whylen) < 0) {
		buf_free(&info);
		measure_close(m);
		if (t->o.devices)
			fatal("--devices %s: %s", t->o.devices, why);
		return NULL;
	}
	r = rd_of(info.s, info.len);
	if (rd_info(&r, gpu, bank8) < 0)
		die("bad info message");
	buf_free(&info);
	snprintf(m->model, sizeof m->model, "%s", gpu->name);
	if (t->o.devices && !strcmp(t->o.devices, "all")) {
		int i;
		m->dev = xcalloc((size_t)gpu->devices + 1, sizeof *m->dev);
		for (i = 0; i < gpu->devices; i++)
			m->dev[m->ndev++] = i;
	}
	if (m->ndev) {
		int i;
		for (i = 0; i < m->ndev && !m->known; i++) /* a known one exists */
			if (m->dev[i] >= gpu->devices)
				fatal("--devices %s: no CUDA device %d (the driver sees %d)", t->o.devices,
				      m->dev[i], gpu->devices);
		pool_resize(m->pool, m->ndev);
		/* the other GPUs' workers open beside expansion and compilation */
		if (pool_start(m->pool, why, whylen) < 0)
			fatal("--devices %s: %s", t->o.devices, why);
	}
	return m;
}

/* variant i's result: its status from how the job ended, GB/s and % of the rooflines */
static void settle(struct run *t, size_t i, enum outcome oc, const struct run_result *run)
{
	struct result *x = &t->r[i];

	result_set_run(x, run);
	free(x->reason);
	x->reason = NULL;
	switch (oc) {
	case OUT_NONE:
		x->status = ST_NOTRUN;
		x->reason = xstrdup("interrupted");
		return;
	case OUT_TIMEOUT: x->status = ST_TIMEOUT; break;
	case OUT_DIED: x->status = ST_FAULT; break;
	case OUT_DONE:
		switch (run->status) {
		case RUN_OK: x->status = ST_OK; break;
		case RUN_MISMATCH: x->status = ST_MISMATCH; break;
		case RUN_FAULT: x->status = ST_FAULT; break;
		case RUN_LAUNCH_ERROR: x->status = ST_LAUNCH_ERROR; break;
		}
		break;
	}
	if (x->status != ST_OK)
		x->reason = xstrdup(run->reason);
	if (x->status == ST_OK && run->t.median_ms > 0 && t->ri.copy_gbs > 0) {
		x->gbs = (double)t->s.v[i].bytes / (run->t.median_ms * 1e-3) / 1e9;
		x->pct_copy = 100 * x->gbs / t->ri.copy_gbs;
		x->pct_read = t->ri.read_gbs > 0 ? 100 * x->gbs / t->ri.read_gbs : 0;
	}
}

/* the first answer has come: the worker's hello is in */
static void take_hello(struct measure *m, const struct buf *b)
{
	struct run *t = m->t;
	struct rd r = rd_of(b->s, b->len);
	struct hello h;
	int i;

	if (rd_hello(&r, &h) < 0)
		die("bad hello message");
	t->ri.copy_gbs = h.copy_gbs;
	t->ri.copy = h.copy;
	t->ri.read_gbs = h.read_gbs;
	t->ri.read = h.read;
	for (i = 1; i < HELLO_AT; i++)
		if (at_span[i] && h.at[i - 1] > 0 && h.at[i] >= h.at[i - 1])
			run_span(t, at_span[i], h.at[i - 1], h.at[i], 1);
	t->ri.counters = h.counters;
	t->ri.counter_passes = h.passes;
	snprintf(t->ri.counters_why, sizeof t->ri.counters_why, "%s", h.counters_why);
}

/* append rec to the journal; a failure is said once */
static void save(struct measure *m, const struct jrec *rec)
{
	if (journal_append(m->journal, rec) < 0 && !m->jwarned++)
		warn("cannot append to '%s':", m->journal);
}

/* the job message of variant i */
static void job_message(void *arg, size_t i, struct buf *b)
{
	struct donectx *d = arg;
	struct measure *m = d->m;
	struct run *t = m->t;
	struct vars vars;
	int again = i >= t->s.n; /* timed again: never cut */

	i %= t->s.n;
	space_bind(t->c, &t->s, &t->s.v[i], &vars);
	wire_variant(b, &t->s.v[i], &vars);
	wire_f64(b, winner_race_cut(t->c, m->best_ms > 0 ? &m->best : NULL, again, t->o.no_race, i,
	                            t->earlier, t->ri.l2_flush));
	wire_u32(b, (uint32_t)again); /* the worker's copy of t may predate the space */
	wire_co(b, &t->r[i].co);
}

static void job_done(void *arg, size_t i, enum outcome oc, const void *msg, size_t len)
{
	struct donectx *d = arg;
	struct measure *m = d->m;
	struct run *t = m->t;
	struct run_result run;
	struct jrec rec;

	if (!m->have_hello++)
		take_hello(m, &d->hello);
	memset(&run, 0, sizeof run);
	if (oc == OUT_DONE) {
		struct rd r = rd_of(msg, len);
		if (journal_rd_run(&r, &run) < 0)
			die("bad result message");
		run_total(t, "verify", run.verify_s);
		run_total(t, "extra-size verification", run.extra_s);
		run_total(t, "timing samples", run.timing_s);
	} else {
		snprintf(run.reason, sizeof run.reason, "%.*s", (int)len, (const char *)msg);
	}
	if (i >= t->s.n) { /* timed again: only a failure changes its result (not journaled) */
		i %= t->s.n;
		if (oc == OUT_DONE && run.status == RUN_OK)
			d->again(d->arg, i, &run);
		else if (oc != OUT_NONE)
			settle(t, i, oc, &run);
		if (oc != OUT_NONE && t->r[i].status != ST_OK)
			note(1, "tuner: %s failed when timed again: %s\n", t->s.v[i].id,
			     t->r[i].reason ? t->r[i].reason : result_status(t->r[i].status));
		d->timed(d->arg, i + t->s.n);
		return;
	}
	settle(t, i, oc, &run);
	if (t->r[i].status == ST_OK && (m->best_ms <= 0 || result_run(&t->r[i])->t.median_ms < m->best_ms)) {
		m->best_ms = result_run(&t->r[i])->t.median_ms;
		m->best = result_run(&t->r[i])->t;
	}
	note(2, "tuner: %s %s %s\n", t->s.v[i].id, result_status(t->r[i].status),
	     t->r[i].reason ? t->r[i].reason : "");
	memset(&rec, 0, sizeof rec);
	rec.key = m->keys[i];
	rec.status = (int)t->r[i].status;
	rec.run = *result_run(&t->r[i]);
	rec.gbs = t->r[i].gbs;
	rec.pct_copy = t->r[i].pct_copy;
	rec.pct_read = t->r[i].pct_read;
	/* without its counters it is counted next time, when they can be read */
	if (!t->o.counters || t->r[i].status != ST_OK || rec.run.nprobe >= CNT_BASE)
		save(m, &rec);
	if (d->timed)
		d->timed(d->arg, i);
}

/* take variant i's result from the newest journal record of its key; 0, or -1 if none */
static int resume(struct run *t, size_t i, const struct jrec *recs, size_t nrec, uint64_t key)
{
	struct result *x = &t->r[i];
	size_t k;

	for (k = nrec; k-- > 0;) /* the newest record of a key wins */
		if (recs[k].key == key)
			break;
	if (k == (size_t)-1)
		return -1;
	x->status = (enum status)recs[k].status;
	result_set_run(x, &recs[k].run);
	x->run->device = -1; /* the journal does not say */
	x->gbs = recs[k].gbs;
	x->pct_copy = recs[k].pct_copy;
	x->pct_read = recs[k].pct_read;
	x->reason = x->status == ST_OK ? NULL : xstrdup(recs[k].run.reason);
	x->resumed = 1;
	if (x->status == ST_OK && t->ri.copy_gbs <= 0 && x->pct_copy > 0)
		t->ri.copy_gbs = 100 * x->gbs / x->pct_copy; /* until a worker measures it */
	if (x->status == ST_OK && t->ri.read_gbs <= 0 && x->pct_read > 0)
		t->ri.read_gbs = 100 * x->gbs / x->pct_read; /* likewise */
	return 0;
}

void measure_begin(struct measure *m)
{
	struct run *t = m->t;
	struct space *s = &t->s;
	size_t i;

	m->copy_bytes = 0;
	m->best_ms = 0;
	m->have_hello = 0;
	m->resumed = 0;
	for (i = 0; i < s->n; i++)
		if (!s->v[i].drop && s->v[i].bytes > m->copy_bytes)
			m->copy_bytes = s->v[i].bytes;
	m->d = (struct donectx){m, {0}, NULL, NULL, NULL};
	/* no setup message until measure_ready: the pool sends it with the first job */
	m->run = (struct pool_run){NULL, 0, job_message, job_done, &m->d, &m->d.hello, &run_stop};
	t->ri.copy_gbs = t->ri.read_gbs = 0;
}

void measure_ready(struct measure *m)
{
	struct run *t = m->t;
	char *method;
	size_t i;

	if (mkdirs_under(t->o.outdir, t->dir) < 0)
		fatal("cannot create '%s':", t->dir);
	m->journal = xasprintf("%s/journal", t->dir);
	/* read also with --fresh, which takes none of its records: a journal that cannot be
	   appended to (a link, a FIFO) is an error before the run, not one per record */
	if (journal_load(m->journal, &m->recs, &m->nrec) < 0)
		fatal("%s: cannot read the journal:", m->journal);
	if (t->o.fresh) {
		free(m->recs);
		m->recs = NULL;
		m->nrec = 0;
	}
	method = xasprintf("%s%s", timing_method(t->ri.l2_flush), t->o.counters ? ", counters" : "");
	m->ctx = journal_context(t->c, &t->sizes, t->ri.slug, method, &t->ref);
	free(method);
	m->keys = xcalloc(t->s.n, sizeof *m->keys);
	m->setup.len = 0;
	wire_co(&m->setup, &t->ref);
	wire_co(&m->setup, &t->copy);
	wire_u64(&m->setup, (uint64_t)m->copy_bytes);
	for (i = 0; i < t->c->nsizes; i++) { /* the point this run is at (a worker serves several) */
		int64_t v = 0;
		vars_get(&t->sizes, t->c->sizes[i].name, &v);
		wire_u64(&m->setup, (uint64_t)v);
	}
	wire_u64(&m->setup, (uint64_t)t->ri.l2_flush);
	m->run.setup = m->setup.s;
	m->run.setup_len = m->setup.len;
}

int measure_resume(struct measure *m, size_t i)
{
	struct run *t = m->t;

	m->keys[i] = journal_key(m->ctx, t->c, &t->s, &t->s.v[i], &t->r[i].co);
	if (resume(t, i, m->recs, m->nrec, m->keys[i]) < 0)
		return 0;
	m->resumed++;
	return 1;
}

/* the journal key of a variant's play-off record, from its own: the record's samples are
   the rounds, its median the rounds' median, its mean the median's standard error */
static uint64_t playoff_key(uint64_t key)
{
	return key ^ 0x706c61796f666621ull;
}

int measure_playoff_resume(struct measure *m, size_t i)
{
	struct result *x = &m->t->r[i];
	uint64_t key = playoff_key(m->keys[i]);
	size_t k;

	for (k = m->nrec; k-- > 0;)
		if (m->recs[k].key == key && m->recs[k].status == ST_OK) {
			x->po_n = m->recs[k].run.t.n;
			x->po_ms = m->recs[k].run.t.median_ms;
			x->po_se = m->recs[k].run.t.mean_ms;
			return 1;
		}
	return 0;
}

void measure_playoff_save(struct measure *m, size_t i)
{
	const struct result *x = &m->t->r[i];
	struct jrec rec;

	memset(&rec, 0, sizeof rec);
	rec.key = playoff_key(m->keys[i]);
	rec.status = ST_OK;
	rec.run.status = RUN_OK;
	rec.run.t.n = x->po_n;
	rec.run.t.median_ms = x->po_ms;
	rec.run.t.mean_ms = x->po_se;
	save(m, &rec);
}

void measure_task(struct measure *m, struct pool_task *task, int (*next)(void *arg, size_t *i),
                  void (*timed)(void *arg, size_t i),
                  void (*again)(void *arg, size_t i, const struct run_result *run), void *arg)
{
	m->d.timed = timed;
	m->d.again = again;
	m->d.arg = arg;
	*task = (struct pool_task){m->pool, &m->run, next, arg, m->t->why, sizeof m->t->why, 0};
}

void measure_fresh(struct measure *m)
{
	pool_retire(m->pool);
}

void measure_notrun(struct measure *m, size_t i)
{
	struct run_result none;

	memset(&none, 0, sizeof none);
	settle(m->t, i, OUT_NONE, &none);
}

size_t measure_end(struct measure *m)
{
	free(m->recs);
	m->recs = NULL;
	m->nrec = 0;
	buf_free(&m->setup);
	buf_free(&m->d.hello);
	return m->resumed;
}

void measure_rebind(struct measure *m, struct run *t)
{
	free(m->keys);
	m->keys = NULL;
	free(m->journal);
	m->journal = NULL;
	m->t = t;
}

void measure_close(struct measure *m)
{
	if (!m)
		return;
	pool_end(m->pool);
	free(m->dev);
	free(m->recs);
	buf_free(&m->setup);
	buf_free(&m->d.hello);
	free(m->keys);
	free(m->journal);
	free(m);
}
