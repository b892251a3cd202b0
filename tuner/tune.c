/* tune: one tuning run, phase by phase. */
#include "tune.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cache.h"
#include "compile.h"
#include "config.h"
#include "csv.h"
#include "emit.h"
#include "html.h"
#include "measure.h"
#include "observe.h"
#include "params.h"
#include "predict.h"
#include "report.h"
#include "run.h"
#include "winner.h"
#include "results.h"
#include "retune.h"
#include "search.h"
#include "stream.h"
#include "t4.h"
#include "timing.h"
#include "read.h"
#include "twins.h"
#include "util.h"
#include "wrap.h"

/* the config's search (budget, strategy) where the command line names none; a shard tries
   its whole share */
static void config_search(struct run *t)
{
	const struct config *c = t->c;
	int st = 0;

	if (c->search_strategy && (st = search_strategy(c->search_strategy)) < 0)
		fatal("%s:%d:%d: search: strategy '%s' is none of exhaustive, random, guided",
		      c->path, c->search_loc.line, c->search_loc.col, c->search_strategy);
	if (t->o.shard_n)
		return;
	if (c->search_strategy && !t->o.strategy_set)
		t->o.strategy = st;
	if (c->search_budget && !t->o.budget_set)
		t->o.budget = c->search_budget;
}

/* without a GPU the config's budget, which limits timing, is set aside with its strategy:
   every kept variant is compiled, in order, unless --budget (or --strategy) says otherwise */
static void untimed_search(struct run *t)
{
	if (t->m || t->o.shard_n || !t->c->search_budget || t->o.budget_set)
		return;
	t->o.budget = 0;
	t->o.search_dropped = 1;
	if (!t->o.strategy_set)
		t->o.strategy = SEARCH_EXHAUSTIVE;
}

void tune_search_text(const struct run *t, char *out, size_t len)
{
	const struct config *c = t->c;
	const char *from = t->o.strategy_set ? "--strategy" : c->search_strategy &&
	                   !t->o.search_dropped ? "the config's search" : "the default";
	int n = snprintf(out, len, "search: %s (%s), ", search_name(t->o.strategy), from);

	if (n < 0 || (size_t)n >= len)
		return;
	if (t->o.shard_n)
		snprintf(out + n, len - n, "every variant of shard %d of %d", t->o.shard_k,
		         t->o.shard_n);
	else if (t->o.budget)
		snprintf(out + n, len - n, "at most %zu of the %zu kept variants (%s)", t->o.budget,
		         t->s.nkept, t->o.budget_set ? "--budget" : "the config's search");
	else if (t->o.search_dropped)
		snprintf(out + n, len - n, "all %zu kept variants\n  (the config's search, %s with "
		         "budget %zu, limits timing, and nothing is timed; --budget N limits this run)",
		         t->s.nkept, c->search_strategy ? c->search_strategy : "exhaustive",
		         c->search_budget);
	else
		snprintf(out + n, len - n, "all %zu kept variants (%s)", t->s.nkept,
		         t->o.budget_set ? "--budget all" : "no budget");
}

#define EPOCH_MAX 253402300799LL /* 9999-12-31T23:59:59Z: the date's four-digit year */

/* the time results are dated: $SOURCE_DATE_EPOCH (exit 2 where it is not a time from 0 to
   EPOCH_MAX), else now */
static time_t tune_now(void)
{
	const char *e = getenv("SOURCE_DATE_EPOCH");
	int64_t v = 0;

	if (!e)
		return time(NULL);
	if (read_i64(e, &v) < 0 || v < 0 || v > EPOCH_MAX)
		fatal("SOURCE_DATE_EPOCH '%.40s': not a time in seconds from 0 to %lld "
		      "(9999-12-31T23:59:59Z)", e, EPOCH_MAX);
	return (time_t)v;
}

/* t's config at its point (t->o.point of t->pts): the sizes, the parameters' values under
   them, the search, the date */
static void at_point(struct run *t)
{
	time_t now = tune_now();
	struct tm tm;

	if (t->o.point >= t->npoints)
		die("point %zu of %zu", t->o.point, t->npoints);
	cfg_set_point(t->c, t->pts[t->o.point].vals);
	t->label = xstrdup(t->pts[t->o.point].label);
	cfg_eval_params(t->c);
	cfg_size_vars(t->c, t->o.sms ? t->o.sms : 1, &t->sizes);
	config_search(t);
	gmtime_r(&now, &tm);
	strftime(t->ri.date, sizeof t->ri.date, "%Y-%m-%dT%H:%M:%SZ", &tm);
	t->ri.nvrtc = nv_version();
}

void tune_load(struct run *t)
{
	t->c = cfg_load_text(t->o.config, &t->cfgtext, &t->cfglen); /* the file read once */
	t->pts = cfg_points(t->c, t->o.sizes, t->o.nsizes, &t->npoints);
	at_point(t);
}

void tune_load_from(struct run *t, const struct run *base)
{
	size_t errlen = strlen(base->o.config) + 64 + YAMLTREE_MSG_MAX;
	char *err = xmalloc(errlen);

	t->cfglen = base->cfglen;
	t->cfgtext = xstrndup(base->cfgtext, base->cfglen);
	if (!(t->c = cfg_parse(base->o.config, t->cfgtext, t->cfglen, err, errlen)))
		fatal("%s", err); /* it parsed once: only if memory ran out */
	free(err);
	t->pts = base->pts;
	t->npoints = base->npoints;
	t->pts_borrowed = 1;
	at_point(t);
}

void tune_target(struct run *t)
{
	static char gpuarch[16];
	struct runinfo *ri = &t->ri;
	int have = 0, bank8 = 0;

	if (t->first && t->first->m) { /* the worker of the first point, moved to this one */
		t->m = t->first->m;
		t->m_borrowed = 1;
		measure_rebind(t->m, t);
		ri->gpu = t->first->ri.gpu;
		bank8 = t->first->ri.bank_ignored ? 4 : 8;
	} else
		t->m = measure_open(t, &ri->gpu, &bank8, t->why, sizeof t->why);
	if (t->m) {
		have = 1;
		ri->bank_ignored = bank8 == 4;
		if (t->o.sms && t->o.sms != ri->gpu.sms)
			warn("--sms %lld ignored: the GPU has %d multiprocessors", (long long)t->o.sms,
			     ri->gpu.sms);
		vars_set(&t->sizes, CFG_SMS, ri->gpu.sms);
		ri->l2_flush = timing_l2_flush(t->c, &t->sizes, ri->gpu.l2_bytes, ri->l2_why,
		                               sizeof ri->l2_why);
		snprintf(gpuarch, sizeof gpuarch, "sm_%d%d", ri->gpu.cc_major, ri->gpu.cc_minor);
		if (t->o.arch && strcmp(t->o.arch, gpuarch)) {
			snprintf(t->why, sizeof t->why, "--arch %s differs from the GPU's %s", t->o.arch,
			         gpuarch);
			if (!t->m_borrowed)
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
	untimed_search(t);
	run_phase(t, "driver");
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

/* the kept variants this run may try (its shard's, a midpoint's candidates), in config
   order; count in *n */
static size_t *candidates(const struct run *t, size_t *n)
{
	const struct space *s = &t->s;
	size_t *c = xcalloc(s->nkept + 1, sizeof *c), i, k = 0;

	*n = 0;
	for (i = 0; i < s->n; i++) {
		if (s->v[i].drop || (t->only && !t->only[i]))
			continue;
		if (!t->o.shard_n || k % (size_t)t->o.shard_n == (size_t)t->o.shard_k - 1)
			c[(*n)++] = i;
		k++;
	}
	return c;
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

/* t->others: the other GPUs' results of the kernel beside this run's, for the tie rule and
   the re-tuning lines (bad ones are skipped, said) */
static void read_others(struct run *t)
{
	char *kdir = xasprintf("%s/%s", t->o.outdir, t->c->name);
	char *pt = t->npoints > 1 ? cfg_point_dir(t->label) : NULL; /* other GPUs' same point */

	retune_read(&t->others, kdir, t->ri.slug, pt, t->c->name);
	t->others_read = 1;
	free(kdir);
	free(pt);
}

/* what the run will do, before it does it: where it times, or that it times nothing and
   compiles for which architecture; how much of the space it tries */
static void say_plan(const struct run *t)
{
	const struct runinfo *ri = &t->ri;

	if (t->first) /* a later point: said at the first */
		;
	else if (t->m)
		note(1, "tuner: timing on %s (%s): every variant tried is compiled, verified against "
		        "the reference and timed\n", ri->gpu.name, ri->arch);
	else
		note(1, "tuner: no GPU (%s): nothing will be timed;\n  compiling for %s%s to report "
		        "registers, spills and shared memory\n", ri->why_untimed ? ri->why_untimed : "",
		     ri->arch, ri->arch_default ? ", the newest NVRTC knows (--arch sm_XX or "
		     "TUNER_ARCH\n  names yours)," : "");
	char what[256];

	/* a later point: said again only where it keeps another count of variants */
	if ((t->o.budget || t->o.search_dropped) && !t->o.shard_n &&
	    (!t->first || t->first->s.nkept != t->s.nkept)) {
		tune_search_text(t, what, sizeof what);
		note(1, "tuner: %s\n", what);
	}
}

void tune_run(struct run *t)
{
	struct config *c = t->c;
	struct space *s = &t->s;
	struct stream_sum sum;
	size_t *cand, ncand, i;
	double t0;

	for (i = 0; i < s->n; i++) {
		t->r[i].twin = -1;
		t->r[i].status = s->v[i].drop ? ST_DROPPED : ST_SKIPPED;
	}
	if (!t->o.no_cache && !(t->cachedir = t->o.cachedir ? xstrdup(t->o.cachedir)
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
	t->ri.list_dropped = t->o.list_dropped;
	t->ri.table_all = t->o.all;
	if (t->m) { /* what is already there, read and checked before any work */
		earlier_winner(t);
		read_others(t);
	}
	say_plan(t);
	if (!t->first || t->first->s.n != s->n || t->first->s.nkept != s->nkept) /* else said */
		note(1, "tuner: %s: %zu variants (%zu dropped)%s, compiling for %s with %d workers%s\n",
		     c->path, s->nkept, s->n - s->nkept, "", t->ri.arch, t->o.jobs,
		     t->m ? ", timing as they come" : "");
	t0 = now_s();
	cand = candidates(t, &ncand);
	if (t->o.shard_n)
		note(1, "tuner: shard %d of %d: %zu of the %zu kept variants\n", t->o.shard_k,
		     t->o.shard_n, ncand, s->nkept);
	/* the bank model runs beside the stream, for what the search picks (another point's
	   predictions are taken after it where they cover what this one tried) */
	t->ahead_wanted = !t->predicted;
	stream_run(t, cand, ncand, t->cachedir, t0, &sum);
	run_phase(t, "stream");
	twins_settle(t); /* the group's result to the member the rule prefers */
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
	predict_ahead_free(t->ahead); /* not taken: interrupted, or another point's predictions */
	t->ahead = NULL;
	stream_summary(t, &sum, ncand);
	free(t->cachedir);
	t->cachedir = NULL;
	free(cand);
	if (!run_stop && sum.nok == 0 && sum.nbad) {
		char hint[512];
		const char *h = nv_hint(t->r[sum.first_bad].reason, c->kernel.entry, c->kernel.source,
		                        hint, sizeof hint);
		fatal("%s: no variant of '%s' compiles%s%s; the first, %s, says:\n%s", c->path,
		      c->kernel.source, h ? ": " : "", h ? h : "", s->v[sum.first_bad].id,
		      t->r[sum.first_bad].reason);
	}
	if (!run_stop)
		unused_params(c, s, t->r);
	run_phase(t, "summary");
}

/* 1 if t's space is the first point's, variant for variant (the same ids, the same kept), the
   bank model sees no size (no access and no block dimension uses one), and the first point
   predicted every variant t tries (a search on a budget may try others there): its
   predictions there hold here */
static int same_prediction(const struct run *t)
{
	const struct run *f = t->first;
	size_t i;

	if (!f || !f->predicted || f->s.n != t->s.n || f->ri.arch != t->ri.arch ||
	    predict_sees_sizes(t->c))
		return 0;
	for (i = 0; i < t->s.n; i++)
		if (strcmp(f->s.v[i].id, t->s.v[i].id) || !f->s.v[i].drop != !t->s.v[i].drop ||
		    f->s.v[i].bank_bytes != t->s.v[i].bank_bytes ||
		    (t->c->naccesses && !t->s.v[i].drop && t->r[i].status != ST_SKIPPED &&
		     !f->r[i].bank))
			return 0;
	return 1;
}

/* the bank model's prediction of every kept variant not skipped */
static void predict(struct run *t)
{
	size_t i;

	if (same_prediction(t)) { /* another point's, shared (freed with it) */
		for (i = 0; i < t->s.n; i++) {
			const struct result *x = &t->first->r[i];
			t->r[i].bank = x->bank;
			t->r[i].bank8 = x->bank8;
			t->r[i].bank_rules = x->bank_rules;
			t->r[i].bank_ratio = x->bank_ratio;
			t->r[i].bank_shared = 1;
		}
		t->predicted = 1;
		run_phase(t, "bank model: the first point's predictions");
		return;
	}
	if (t->ahead) {
		double a, b;
		if (predict_ahead_span(t->ahead, &a, &b) == 0)
			run_span(t, "bank model beside the stream", a, b, 1);
	}
	predict_bank(t->c, &t->s, predict_cc(&t->ri), t->r, t->o.jobs, t->ahead);
	predict_ahead_free(t->ahead);
	t->ahead = NULL;
	t->predicted = 1;
	run_phase(t, "bank model");
}

void tune_expand(struct run *t)
{
	size_t i;

	space_expand(t->c, &t->sizes, &t->lim, &t->s);
	t->r = xcalloc(t->s.n ? t->s.n : 1, sizeof *t->r);
	t->tmpl = cfg_read_source(t->c, t->c->kernel.source);
	t->obs = observe_new(t->c, t->tmpl); /* --dry-run says how many programs the kept are */
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
	t->refsrc = cfg_read_source(t->c, t->c->reference.source);
	run_phase(t, "expand");
	/* a run that tries part of the space predicts for what it tried, beside the stream and
	   after it (the guided search predicts a sample first, for its start: stream.c) */
	if (!t->o.budget && !t->o.shard_n)
		predict(t);
	if (t->o.shard_n)
		t->dir = xasprintf("%s/%s/%s/shard-%d-of-%d", t->o.outdir, t->c->name, t->ri.slug,
		                   t->o.shard_k, t->o.shard_n);
	else if (t->npoints > 1) {
		char *d = cfg_point_dir(t->label);
		t->dir = xasprintf("%s/%s/%s/%s", t->o.outdir, t->c->name, t->ri.slug, d);
		free(d);
	} else
		t->dir = xasprintf("%s/%s/%s", t->o.outdir, t->c->name, t->ri.slug);
}

/* the outputs beside the results, each written by one function into a FILE */
static void write_json(FILE *f, const struct run *t, const size_t *order)
{
	struct buf b = {0};

	results_write(&b, f, t->c, &t->s, t->r, order, &t->ri);
	buf_free(&b);
}

static void write_csv(FILE *f, const struct run *t, const size_t *order)
{
	struct buf b = {0};

	csv_write(&b, f, t->c, &t->s, t->r, order, &t->ri);
	buf_free(&b);
}

static void write_html(FILE *f, const struct run *t, const size_t *order)
{
	html_report(f, t->c, &t->s, t->r, order, &t->ri);
}

static void write_t4(FILE *f, const struct run *t, const size_t *order)
{
	t4_results(f, t->c, &t->s, t->r, order, &t->ri);
}

static const struct writer {
	const char *file;
	void (*write)(FILE *f, const struct run *t, const size_t *order);
	int t4;                   /* only with --t4 */
} writers[] = {
	{"results.json", write_json, 0},     /* results.h */
	{"results.csv", write_csv, 0},
	{"report.html", write_html, 0},      /* html.h */
	{"results.t4.json", write_t4, 1},    /* t4.h */
};

FILE *tune_file(struct fileset *set, const char *dir, const char *file)
{
	char *path = xasprintf("%s/%s", dir, file);
	FILE *f = fileset_open(set, path);

	if (!f)
		fatal("cannot write '%s':", path);
	free(path);
	return f;
}

/* w's file into its temporary in set, written as it is made */
static void write_report(const struct run *t, struct fileset *set, const struct writer *w,
                         const size_t *order)
{
	w->write(tune_file(set, t->dir, w->file), t, order);
}

/* hold dir's lock (dir/.lock, fcntl) until the returned descriptor is closed: runs that
   write into one directory take turns, so its files always come from one run */
int tune_lock(const char *dir)
{
	char *p = xasprintf("%s/.lock", dir);
	struct flock fl;
	int fd = file_open_own(p, 0); /* no link followed, no FIFO waited for */

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

/* file of t->dir in set: data */
static void put(const struct run *t, struct fileset *set, const char *file, const char *data,
                size_t len)
{
	char *p = xasprintf("%s/%s", t->dir, file);

	if (fileset_put(set, p, data, len) < 0)
		fatal("cannot write '%s':", p);
	free(p);
}

/* the config and the template as tuned, beside the results, with their hashes */
static void copy_sources(struct run *t, struct fileset *set)
{
	size_t n = strlen(t->tmpl);

	put(t, set, RESULTS_CONFIG_COPY, t->cfgtext, t->cfglen);
	put(t, set, RESULTS_TEMPLATE_COPY, t->tmpl, n);
	t->ri.config_hash = hash_bytes(HASH_INIT, t->cfgtext, t->cfglen);
	t->ri.template_hash = hash_bytes(HASH_INIT, t->tmpl, n);
	t->ri.sources_copied = 1;
}

void tune_emit(struct run *t, struct fileset *set, const char *dir, size_t i, const char *base)
{
	struct vars vars;

	space_bind(t->c, &t->s, &t->s.v[i], &vars);
	if (emit_variant(set, dir, base, t->c, &t->s.v[i], &vars, &t->r[i], &t->ri, t->tmpl) < 0)
		fatal("cannot write '%s':", set->failed);
}

int tune_finish(struct run *t)
{
	struct config *c = t->c;
	struct space *s = &t->s;
	struct result *r = t->r;
	size_t *order = winner_rank(r, s->n), i, nok = 0, best = SIZE_MAX;
	struct fileset set = {0};
	int lock, emit_bad = 0;

	if (t->ri.timed) {
		size_t keep = t->earlier ? t->earlier - 1 : SIZE_MAX;
		double *elsewhere = xcalloc(s->n + 1, sizeof *elsewhere);
		enum tie_key why = TIE_NONE;
		if (!t->others_read) /* tuner merge */
			read_others(t);
		/* the winner of the run before, while it ties, stays the winner; else the tie that
		   ran best on the other GPUs tuned beside this one, if any */
		t->ri.tie_gpus = retune_elsewhere(&t->others, s, elsewhere);
		winner_ties(r, s->n, t->c, s, order, keep, t->ri.tie_gpus ? elsewhere : NULL, &why);
		t->ri.tie_key = (int)why;
		free(elsewhere);
		t->ri.kept_winner = keep != SIZE_MAX && order[0] == keep && r[keep].tie;
		retune_compare(&t->others, s, r, order, &t->ri.retune_text, &t->ri.retune_json);
	}
	for (i = 0; i < s->n; i++)
		nok += r[i].status == ST_OK || (!t->ri.timed && r[i].status == ST_UNTIMED);
	run_phase(t, "ranking");
	/* several points: points.h's table where timed (each point's with -v); untimed, the
	   points' table once they are all in (report_points), and with -q what was not done said
	   once */
	if (t->npoints > 1 ? t->ri.timed && verbosity >= 2 : verbosity >= 1)
		report_table(stdout, c, s, r, order, &t->ri);
	else if (!t->ri.timed && !t->first && verbosity < 1) /* -q: still never silent about what
	                                                         it did not do */
		report_untimed(stdout, &t->ri);
	run_phase(t, "table");
	if (mkdirs_under(t->o.outdir, t->dir) < 0)
		fatal("cannot create '%s':", t->dir);
	lock = tune_lock(t->dir);
	/* every file to its temporary, then all renamed: a failure (a full disk) leaves the files
	   of the run before as they were, and no temporary (an exit removes them) */
	copy_sources(t, &set);
	run_phase(t, RESULTS_CONFIG_COPY " and " RESULTS_TEMPLATE_COPY);
	/* results.json (writers[0]) last: it holds the time each other file took */
	for (i = 1; i < sizeof writers / sizeof *writers; i++) {
		if (writers[i].t4 && !t->o.t4)
			continue;
		write_report(t, &set, &writers[i], order);
		run_phase(t, writers[i].file);
		if (i == 1 && getenv("TUNER_TEST_WRITE_PAUSE")) /* for the tests: widen the window
		                                                   between files */
			nanosleep(&(struct timespec){0, 300000000}, NULL);
	}
	if (t->ri.timed && !run_stop && !t->o.shard_n && r[order[0]].status == ST_OK) {
		tune_emit(t, &set, t->dir, best = order[0], "best");
		run_phase(t, "best.cu and best.h");
	}
	t->winner = best != SIZE_MAX ? best + 1 : 0;
	if (t->o.emit && !run_stop) {
		for (i = 0; strcmp(s->v[i].id, t->o.emit); i++)
			;
		if (!(emit_bad = r[i].status == ST_COMPILE_ERROR)) /* an error once the rest is written */
			tune_emit(t, &set, t->dir, i, t->o.emit);
		run_phase(t, "--emit");
	}
	if (t->keep_json) { /* whole in memory: written, and kept for the points' bundle */
		struct buf b = {0};
		results_write(&b, NULL, t->c, &t->s, t->r, order, &t->ri);
		put(t, &set, writers[0].file, b.s ? b.s : "", b.len);
		free(t->json);
		t->json = b.s ? b.s : xstrdup("");
		t->json_len = b.len;
	} else
		write_report(t, &set, &writers[0], order);
	run_phase(t, writers[0].file);
	if (fileset_commit(&set) < 0)
		fatal("cannot write '%s':", set.failed);
	fileset_free(&set);
	run_phase(t, "rename");
	if (best != SIZE_MAX) {
		char *p = space_params_str(c, &s->v[best]);
		struct wrapped w;
		wrap_begin(&w);
		fprintf(w.f, "best: %s (%s) %.1f GB/s, %.1f %% of copy -> %s/best.cu\n", s->v[best].id,
		        p, r[best].gbs, r[best].pct_copy, t->dir);
		wrap_end(&w, stdout);
		free(p);
	}
	if (emit_bad)
		fatal("--emit: variant '%s' does not compile", t->o.emit);
	if (t->o.emit && !run_stop)
		note(1, "tuner: wrote %s/%s.cu and %s.h\n", t->dir, t->o.emit, t->o.emit);
	note(1, "tuner: results in %s/results.json\n", t->dir);
	note(1, "tuner: the run at a glance: %s/report.html%s\n", t->dir,
	     best != SIZE_MAX ? "; the winner: best.cu beside it" : t->ri.timed ? ""
	                                                          : " (nothing timed: no best.cu)");
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

	if (!t->m_borrowed)
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
	retune_free(&t->others);
	buf_free(&t->ri.retune_json);
	free(t->r);
	free(t->tmpl);
	observe_free(t->obs);
	free(t->refsrc);
	free(t->cfgtext);
	free(t->json);
	free(t->dir);
	free(t->label);
	if (!t->pts_borrowed)
		cfg_points_free(t->pts, t->npoints);
	free(t->cachedir);
	free(t->o.sizes);
	space_free(&t->s);
	cfg_free(t->c);
	memset(t, 0, sizeof *t);
}
