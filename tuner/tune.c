/* tune: one tuning run, phase by phase. */
#include "tune.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cache.h"
#include "compile.h"
#include "emit.h"
#include "measure.h"
#include "predict.h"
#include "report.h"
#include "retune.h"
#include "source.h"
#include "util.h"

volatile sig_atomic_t tune_stop;

static void on_signal(int sig)
{
	(void)sig;
	tune_stop = 1;
}

void tune_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void tune_phase(const struct tune *t, const char *what)
{
	note(2, "tuner: %.3f s: %s\n", now_s() - t->t0, what);
}

void tune_load(struct tune *t)
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
	cfg_size_vars(t->c, t->o.sms ? t->o.sms : 1, &t->sizes);
	gmtime_r(&now, &tm);
	strftime(t->ri.date, sizeof t->ri.date, "%Y-%m-%dT%H:%M:%SZ", &tm);
	t->ri.nvrtc = nv_version();
}

void tune_target(struct tune *t)
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
	tune_phase(t, t->m ? "GPU opened (by the worker)" : "no GPU");
}

/* what variant_text needs */
struct vjob {
	const struct tune *t;
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

/* compile every kept variant, the reference and the helper kernels */
static void compile_all(struct tune *t)
{
	struct config *c = t->c;
	struct space *s = &t->s;
	size_t i, n = 0, nok = 0, first_bad = SIZE_MAX, nbad = 0, nres = 0, nint = 0;
	struct job *jobs = xcalloc(s->nkept + 2, sizeof *jobs);
	struct vjob *vj = xcalloc(s->nkept + 2, sizeof *vj);
	struct compile_out *outs = xcalloc(s->nkept + 2, sizeof *outs);
	int *hits = xcalloc(s->nkept + 2, sizeof *hits);
	size_t *jobof = xcalloc(s->n, sizeof *jobof);
	char *cachedir = NULL;
	double t0;

	for (i = 0; i < s->n; i++) {
		t->r[i].twin = -1;
		if (s->v[i].drop) {
			t->r[i].status = ST_DROPPED;
			continue;
		}
		jobof[i] = n;
		vj[n] = (struct vjob){t, &s->v[i]};
		jobs[n] = (struct job){NULL, variant_text, &vj[n], c->kernel.source, c->kernel.entry};
		n++;
	}
	jobs[n++] = (struct job){t->refsrc, NULL, NULL, c->reference.source, c->reference.entry};
	jobs[n++] = (struct job){bench_helpers_source(), NULL, NULL, "tuner_helpers.cu",
	                         "tuner_copy"};
	if (!t->o.no_cache && !(cachedir = t->o.cachedir ? xstrdup(t->o.cachedir)
	                                                 : cache_default_dir()))
		warn("no compile cache: neither TUNER_CACHE, XDG_CACHE_HOME nor an existing home "
		     "directory names one (--cache DIR does); compiling everything");
	note(1, "tuner: %s: %zu variants (%zu dropped), compiling for %s with %d workers\n",
	     c->path, s->nkept, s->n - s->nkept, t->ri.arch, t->o.jobs);
	t0 = now_s();
	t->ri.compiled = compile_many(jobs, n, t->ri.arch, c->options, c->noptions, cachedir,
	                              t->o.jobs, outs, hits, &tune_stop);
	t->ri.compile_s = now_s() - t0;
	t->ri.cache_hits = n - t->ri.compiled;
	for (i = 0; i < s->n; i++) {
		struct result *x = &t->r[i];
		if (s->v[i].drop)
			continue;
		x->co = outs[jobof[i]];
		x->cache_hit = hits[jobof[i]];
		if (!x->co.ok && tune_stop && x->co.log && !strcmp(x->co.log, COMPILE_INTERRUPTED)) {
			nint++;
			x->status = ST_NOTRUN;
			x->reason = xstrdup("interrupted while compiling");
		} else if (!x->co.ok) {
			x->status = ST_COMPILE_ERROR;
			x->reason = xstrdup(x->co.log && *x->co.log ? x->co.log : "no log");
			note(2, "%s: compile error:\n%s\n", s->v[i].id, x->co.log);
			nbad++;
			if (first_bad == SIZE_MAX)
				first_bad = i;
		} else if (x->co.smem_static + s->v[i].shared > t->lim.smem_optin) {
			nres++;
			x->status = ST_RESOURCES;
			x->reason = xasprintf("%d static + %lld dynamic bytes of shared memory exceed %lld",
			                      x->co.smem_static, (long long)s->v[i].shared,
			                      (long long)t->lim.smem_optin);
		} else {
			x->status = ST_UNTIMED;
			nok++;
		}
	}
	/* counts that add up to the kept variants; NVRTC's work with the reference and helpers */
	note(1, "tuner: %zu variants in %.2f s: %zu built, %zu failed to compile, %zu over the "
	     "shared-memory limit%s%.0zu%s; NVRTC compiled %zu, %zu from the cache (with the "
	     "reference and the helper kernels)\n", s->nkept, t->ri.compile_s, nok + nres, nbad,
	     nres, nint ? ", " : "", nint, nint ? " not compiled (interrupted)" : "",
	     t->ri.compiled, t->ri.cache_hits);
	if (nbad && nok && first_bad != SIZE_MAX) {
		char *p = space_params_str(c, &s->v[first_bad]);
		const char *log = t->r[first_bad].reason;
		int len = 0, lines = 0;
		while (log[len] && lines < 6)
			lines += log[len++] == '\n';
		note(1, "tuner: the first that failed, %s (%s), says:\n%.*s%s", s->v[first_bad].id, p,
		     len, log, log[len] ? "  ...\n" : len && log[len - 1] != '\n' ? "\n" : "");
		free(p);
	}
	t->ref = outs[n - 2];
	t->copy = outs[n - 1];
	free(outs); /* before any fatal(): what is left is reachable from t */
	free(hits);
	free(jobs);
	free(vj);
	free(jobof);
	free(cachedir);
	if (!tune_stop && !t->ref.ok)
		fatal("%s: the reference kernel '%s' (%s) does not compile:\n%s", c->path,
		      c->reference.entry, c->reference.source, t->ref.log);
	if (!tune_stop && !t->copy.ok)
		die("the helper kernels do not compile:\n%s", t->copy.log);
	if (!tune_stop && nok == 0 && first_bad != SIZE_MAX) {
		char hint[512];
		const char *h = nv_hint(t->r[first_bad].reason, c->kernel.entry, c->kernel.source, hint,
		                        sizeof hint);
		fatal("%s: no variant of '%s' compiles%s%s; the first, %s, says:\n%s", c->path,
		      c->kernel.source, h ? ": " : "", h ? h : "", s->v[first_bad].id,
		      t->r[first_bad].reason);
	}
}

/* mark variants whose cubin and launch equal an earlier one's as its twins; with the bank
   mode ignored by the GPU, a variant differing only in bank_bytes collapses likewise */
static void find_twins(const struct space *s, struct result *r, int bank_ignored)
{
	size_t i, j;
	uint64_t *h = xcalloc(s->n, sizeof *h);

	for (i = 0; i < s->n; i++)
		if (r[i].co.ok)
			h[i] = hash_bytes(HASH_INIT, r[i].co.cubin, r[i].co.cubin_len);
	for (i = 0; i < s->n; i++) {
		const struct variant *a = &s->v[i];
		if (r[i].status != ST_UNTIMED)
			continue;
		for (j = 0; j < i; j++) {
			const struct variant *b = &s->v[j];
			int ba = a->bank_bytes, bb = b->bank_bytes;
			if (r[j].status != ST_UNTIMED || h[i] != h[j] ||
			    r[i].co.cubin_len != r[j].co.cubin_len ||
			    memcmp(r[i].co.cubin, r[j].co.cubin, r[i].co.cubin_len) ||
			    memcmp(a->block, b->block, sizeof a->block) ||
			    memcmp(a->grid, b->grid, sizeof a->grid) || a->shared != b->shared)
				continue;
			if (bank_ignored) {
				ba = ba == 8 ? 4 : ba;
				bb = bb == 8 ? 4 : bb;
			}
			if (ba != bb)
				continue;
			r[i].status = a->bank_bytes != b->bank_bytes ? ST_COLLAPSED : ST_TWIN;
			r[i].twin = (long)j;
			break;
		}
	}
	/* NVRTC prints no ptxas report for code it has already compiled in the same worker:
	   take the resources from a byte-identical cubin that has them */
	for (i = 0; i < s->n; i++) {
		if (!r[i].co.ok || r[i].co.regs >= 0)
			continue;
		for (j = 0; j < s->n; j++) {
			if (j == i || !r[j].co.ok || r[j].co.regs < 0 || h[i] != h[j] ||
			    r[i].co.cubin_len != r[j].co.cubin_len ||
			    memcmp(r[i].co.cubin, r[j].co.cubin, r[i].co.cubin_len))
				continue;
			r[i].co.regs = r[j].co.regs;
			r[i].co.spill_stores = r[j].co.spill_stores;
			r[i].co.spill_loads = r[j].co.spill_loads;
			r[i].co.stack = r[j].co.stack;
			r[i].co.smem_static = r[j].co.smem_static;
			break;
		}
	}
	free(h);
}

static void write_out(const char *dir, const char *file, const struct buf *b)
{
	char *p = xasprintf("%s/%s", dir, file);

	if (file_write_atomic(p, b->s, b->len) < 0)
		fatal("cannot write '%s':", p);
	free(p);
}

/* the hash of what variant i compiled to and how it launches (0: it did not compile) */
static uint64_t build_hash(const struct variant *v, const struct result *x)
{
	uint64_t h;

	if (!x->co.ok)
		return 0;
	h = hash_bytes(HASH_INIT, x->co.cubin, x->co.cubin_len);
	h = hash_bytes(h, v->block, sizeof v->block);
	h = hash_bytes(h, v->grid, sizeof v->grid);
	h = hash_bytes(h, &v->bank_bytes, sizeof v->bank_bytes);
	return hash_bytes(h, &v->shared, sizeof v->shared);
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
		bh[i] = s->v[i].drop ? 0 : build_hash(&s->v[i], &r[i]);
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

void tune_expand(struct tune *t)
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
	predict_bank(t->c, &t->s, t->ri.timed ? t->ri.gpu.cc_major * 10 + t->ri.gpu.cc_minor
	                                      : nv_arch_cc(t->ri.arch), t->r, t->o.jobs);
	tune_phase(t, "bank model evaluated");
	t->dir = xasprintf("%s/%s/%s", t->o.outdir, t->c->name, t->ri.slug);
}

void tune_compile(struct tune *t)
{
	compile_all(t);
	tune_phase(t, "compiled");
	find_twins(&t->s, t->r, t->ri.bank_ignored);
	if (!tune_stop)
		unused_params(t->c, &t->s, t->r);
}

void tune_measure(struct tune *t)
{
	if (!t->ri.timed || tune_stop)
		return;
	if (mkdirs(t->dir) < 0)
		fatal("cannot create '%s':", t->dir);
	measure_run(t->m);
	tune_phase(t, "variants run");
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
static void copy_sources(struct tune *t)
{
	struct buf b = {t->cfgtext, t->cfglen, 0};
	size_t n = strlen(t->tmpl);

	write_out(t->dir, TUNE_CONFIG_COPY, &b);
	b = (struct buf){t->tmpl, n, 0};
	write_out(t->dir, TUNE_TEMPLATE_COPY, &b);
	t->ri.config_hash = hash_bytes(HASH_INIT, t->cfgtext, t->cfglen);
	t->ri.template_hash = hash_bytes(HASH_INIT, t->tmpl, n);
	t->ri.sources_copied = 1;
}

int tune_finish(struct tune *t)
{
	struct config *c = t->c;
	struct space *s = &t->s;
	struct result *r = t->r;
	struct buf b = {0};
	size_t *order = report_rank(r, s->n), i, nok = 0;
	int lock;

	if (t->ri.timed) {
		char *kdir = xasprintf("%s/%s", t->o.outdir, c->name);
		report_ties(r, s->n, s, order);
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
	report_json(&b, c, s, r, order, &t->ri);
	write_out(t->dir, "results.json", &b);
	if (getenv("TUNER_TEST_WRITE_PAUSE")) /* for the tests: widen the window between files */
		nanosleep(&(struct timespec){0, 300000000}, NULL);
	b.len = 0;
	report_csv(&b, c, s, r, order);
	write_out(t->dir, "results.csv", &b);
	buf_free(&b);
	if (t->ri.timed && !tune_stop && r[order[0]].status == ST_OK) {
		size_t w = order[0];
		char *p = space_params_str(c, &s->v[w]);
		if (emit_variant(t->dir, "best", c, &s->v[w], &r[w], &t->ri, t->tmpl) < 0)
			fatal("cannot write '%s/best.cu':", t->dir);
		printf("best: %s (%s) %.1f GB/s, %.1f %% of copy -> %s/best.cu\n", s->v[w].id, p,
		       r[w].gbs, r[w].pct_copy, t->dir);
		free(p);
	}
	if (t->o.emit && !tune_stop) {
		for (i = 0; strcmp(s->v[i].id, t->o.emit); i++)
			;
		if (r[i].status == ST_COMPILE_ERROR)
			fatal("--emit: variant '%s' does not compile", t->o.emit);
		if (emit_variant(t->dir, t->o.emit, c, &s->v[i], &r[i], &t->ri, t->tmpl) < 0)
			fatal("cannot write '%s/%s.cu':", t->dir, t->o.emit);
		note(1, "tuner: wrote %s/%s.cu and %s.h\n", t->dir, t->o.emit, t->o.emit);
	}
	note(1, "tuner: results in %s/results.json\n", t->dir);
	close(lock); /* the files of the directory are one run's */
	free(order);
	if (tune_stop) {
		note(0, "tuner: interrupted; the results so far are in %s\n", t->dir);
		return EXIT_INTERRUPT;
	}
	return nok ? 0 : EXIT_NOVARIANT;
}

void tune_free(struct tune *t)
{
	size_t i;

	measure_close(t->m);
	for (i = 0; t->r && i < t->s.n; i++) {
		nv_out_free(&t->r[i].co);
		free(t->r[i].reason);
		free(t->r[i].bank);
		free(t->r[i].bank8);
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
