/* merge: join the results of --shard K/N runs into those of one run over every variant.

   Each shard directory (GPU_DIR/shard-K-of-N) holds the copies of the config and the template
   it ran with and its results.json. The shards must be all N of one split, from the same
   config and template texts, architecture, NVRTC, GPU model, sizes, limits and search. The
   config's copy is expanded again (the same space, ids and dropped variants), every tried
   variant's result is read back from its shard, the bank model's prediction is made again,
   and the run is finished as an unsharded one would be (tune_finish: ranking, ties, the
   table, results.json and .csv, the winner) into GPU_DIR. What a shard does not keep in its
   results.json (per-variant counters, a kernel's sample list) is not in the merge either;
   each timed variant's % of copy stays that of its shard's own copy kernel. */
#include "merge.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "nvrtc.h"
#include "params.h"
#include "predict.h"
#include "report.h"
#include "results.h"
#include "run.h"
#include "tune.h"
#include "util.h"

struct shard {
	int k;
	char *dir;
	struct results *res;
};

static int by_k(const void *a, const void *b)
{
	return ((const struct shard *)a)->k - ((const struct shard *)b)->k;
}

/* the shard directories of dir, sorted by K; all N of one split, or exit 2 */
static struct shard *find_shards(const char *dir, int *nout)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct shard *sh = NULL;
	int n = 0, total = 0, i;

	if (!d)
		fatal("%s: cannot open the GPU directory:", dir);
	while ((e = readdir(d))) {
		int k, nn, end = 0;
		if (sscanf(e->d_name, "shard-%d-of-%d%n", &k, &nn, &end) != 2 || e->d_name[end])
			continue;
		if (total && nn != total)
			fatal("%s: shards of different splits (of %d and of %d); merge one split at a "
			      "time", dir, total, nn);
		if (k < 1 || k > nn)
			fatal("%s/%s: not a shard of its split", dir, e->d_name);
		total = nn;
		sh = xreallocarray(sh, (size_t)n + 1, sizeof *sh);
		sh[n].k = k;
		sh[n].dir = xasprintf("%s/%s", dir, e->d_name);
		sh[n++].res = NULL;
	}
	closedir(d);
	if (!n)
		fatal("%s: no shard-K-of-N directories (tuner --shard K/N writes them)", dir);
	qsort(sh, (size_t)n, sizeof *sh, by_k);
	for (i = 0; i < total; i++)
		if (i >= n || sh[i].k != i + 1)
			fatal("%s: shard %d of %d is missing; every shard must have run", dir, i + 1,
			      total);
	*nout = n;
	return sh;
}

/* the text of file in shard dir (malloc'd), or exit 2 */
static char *shard_file(const char *dir, const char *file, size_t *len)
{
	char *p = xasprintf("%s/%s", dir, file), *text = file_read_nolink(p, 0, len);

	if (!text)
		fatal("%s: cannot read:", p);
	free(p);
	return text;
}

static int same_str(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* exit 2 unless shard b's results say what shard a's say of the run */
static void same_run(const struct shard *a, const struct shard *b)
{
	const struct results *x = a->res, *y = b->res;
	const char *key = !same_str(x->kernel, y->kernel) ? "kernel"
	                  : !same_str(x->arch, y->arch) ? "arch"
	                  : !same_str(x->nvrtc, y->nvrtc) ? "nvrtc"
	                  : x->timed != y->timed ? "timed"
	                  : !same_str(x->gpu, y->gpu) ? "gpu"
	                  : x->cc_major != y->cc_major || x->cc_minor != y->cc_minor
	                  ? "compute_capability"
	                  : !results_same_sizes(x, y) ? "sizes"
	                  : x->limits != y->limits || x->max_threads != y->max_threads ||
	                    x->smem_block != y->smem_block || x->smem_optin != y->smem_optin ||
	                    x->lim_sms != y->lim_sms ? "limits" : NULL;

	if (key)
		fatal("%s: its '%s' differs from %s's: shards of different runs", b->dir, key, a->dir);
	if (x->l2 != y->l2 || x->l2_flush != y->l2_flush || !same_str(x->l2_policy, y->l2_policy))
		fatal("%s/results.json: timed with the L2 %s (l2 %s), %s/results.json with it %s (l2 "
		      "%s): shards of different L2 policies", b->dir, y->l2_flush ? "flushed" : "resident",
		      util_show(y->l2_policy), a->dir, x->l2_flush ? "flushed" : "resident",
		      util_show(x->l2_policy));
	if (!same_str(x->strategy, y->strategy) || x->budget != y->budget)
		fatal("%s: searched with another strategy or budget than %s", b->dir, a->dir);
}

/* a number a shard's results give as null (one that was not finite) as 0, as merge has
   always read it */
static double num(double x)
{
	return isnan(x) ? 0 : x;
}

/* the index of the variant called id, or SIZE_MAX */
static size_t find_id(const struct space *s, const size_t *slot, size_t cap, const char *id)
{
	size_t h = (size_t)hash_bytes(HASH_INIT, id, strlen(id)) & (cap - 1);

	for (; slot[h]; h = (h + 1) & (cap - 1))
		if (!strcmp(s->v[slot[h] - 1].id, id))
			return slot[h] - 1;
	return SIZE_MAX;
}

/* fill t->r[i] from its entry v of shard sh */
static void take(struct run *t, size_t i, const struct results_variant *v,
                 const struct shard *sh, const size_t *slot, size_t cap)
{
	struct result *x = &t->r[i];
	struct run_result run;

	if (v->unknown || v->status == ST_DROPPED || v->status == ST_SKIPPED)
		fatal("%s/results.json: variant %s has status '%s', which no run records there",
		      sh->dir, t->s.v[i].id, v->unknown ? v->unknown : result_status(v->status));
	if (x->status != ST_SKIPPED)
		fatal("%s/results.json: variant %s was tried by two shards", sh->dir, t->s.v[i].id);
	x->status = v->status;
	x->reason = v->reason ? xstrdup(v->reason) : NULL;
	x->resumed = v->resumed;
	if (v->twin_of && (x->twin = (long)find_id(&t->s, slot, cap, v->twin_of)) == (long)SIZE_MAX)
		fatal("%s/results.json: variant %s is the twin of '%s', no variant of the space",
		      sh->dir, t->s.v[i].id, v->twin_of);
	x->co.regs = -1;
	if (v->compiled) {
		x->co.ok = 1;
		x->co.regs = v->regs;
		x->co.spill_stores = v->spill_stores;
		x->co.spill_loads = v->spill_loads;
		x->co.stack = v->stack;
		x->co.smem_static = v->smem_static;
		x->cache_hit = v->cache_hit;
	}
	if (x->status == ST_COMPILE_ERROR)
		x->co.log = xstrdup(v->log ? v->log : "");
	if (!v->checked && !v->timed && x->status != ST_FAULT && x->status != ST_TIMEOUT &&
	    x->status != ST_LAUNCH_ERROR)
		return;
	memset(&run, 0, sizeof run);
	run.max_abs_err = num(v->max_abs_err);
	run.max_rel_err = num(v->max_rel_err);
	run.t.n = v->samples;
	run.t.median_ms = num(v->median_ms);
	run.t.min_ms = num(v->min_ms);
	run.t.max_ms = num(v->max_ms);
	run.t.mean_ms = num(v->mean_ms);
	run.t.spread = num(v->spread);
	snprintf(run.reason, sizeof run.reason, "%s", v->reason ? v->reason : "");
	run.device = v->device;
	run.resident = v->resident > 0 && v->resident <= 65536 ? (int)v->resident : 0;
	result_set_run(x, &run);
	x->gbs = num(v->gbs);
	x->pct_copy = num(v->pct_copy);
	x->pct_read = num(v->pct_read);
}

/* the results of shard sh of n, or exit 2 */
static struct results *load(const struct shard *sh, int n)
{
	char *p = xasprintf("%s/results.json", sh->dir);
	struct results_error e;
	struct results *r = results_load(p, 0, &e);
	char msg[1024];

	if (!r) {
		results_say(msg, sizeof msg, p, &e);
		fatal("%s", msg);
	}
	free(p);
	if (r->shard_k != sh->k || r->shard_n != n)
		fatal("%s/results.json: not the results of shard %d of %d", sh->dir, sh->k, n);
	return r;
}

/* every shard read into sh[k].res and checked against the first (config, template, run);
   t's config and template text from the first; the longest shard's wall time and the
   earliest first timing into *wall, *first */
static void read_shards(struct run *t, struct shard *sh, int n, size_t *tlen, double *wall,
                        double *first)
{
	int k;

	t->cfgtext = shard_file(sh[0].dir, RESULTS_CONFIG_COPY, &t->cfglen);
	t->tmpl = shard_file(sh[0].dir, RESULTS_TEMPLATE_COPY, tlen);
	for (k = 0; k < n; k++) {
		const struct results *r = sh[k].res = load(&sh[k], n);
		if (k) {
			size_t l1, l2;
			char *c1 = shard_file(sh[k].dir, RESULTS_CONFIG_COPY, &l1);
			char *t1 = shard_file(sh[k].dir, RESULTS_TEMPLATE_COPY, &l2);
			int other_cfg = l1 != t->cfglen || memcmp(c1, t->cfgtext, l1);
			int other_tmpl = l2 != *tlen || memcmp(t1, t->tmpl, l2);
			free(c1); /* before any fatal(): what is left is reachable */
			free(t1);
			if (other_cfg)
				fatal("%s: ran another config than %s: shards of different configs",
				      sh[k].dir, sh[0].dir);
			if (other_tmpl)
				fatal("%s: ran another template than %s: shards of different templates",
				      sh[k].dir, sh[0].dir);
			same_run(&sh[0], &sh[k]);
		}
		t->ri.ntimed += (size_t)r->ntimed;
		*wall = r->wall_s > *wall ? r->wall_s : *wall;
		if (r->first_timed_s > 0 && (!*first || r->first_timed_s < *first))
			*first = r->first_timed_s;
	}
}

/* t's config from the first shard's copy, under the paths, sizes and limits the shards ran
   with, and its space expanded again */
static void shards_config(struct run *t, const struct shard *sh0)
{
	const struct results *r0 = sh0->res;
	char why[512], *cfgpath = xasprintf("%s/%s", sh0->dir, RESULTS_CONFIG_COPY);
	size_t i;

	if (!(t->c = cfg_parse_detached(cfgpath, t->cfgtext, t->cfglen, why, sizeof why)))
		fatal("%s", why);
	free(cfgpath);
	/* the paths the shards ran with, as an unsharded run would name them */
	if (r0->config) {
		free(t->c->path);
		t->c->path = xstrdup(r0->config);
	}
	if (r0->tmpl.path) {
		free(t->c->kernel.source);
		t->c->kernel.source = xstrdup(r0->tmpl.path);
	}
	for (i = 0; i < r0->nsizes; i++)
		cfg_set_size_val(t->c, r0->sizes[i].name, r0->sizes[i].val);
	cfg_eval_params(t->c); /* the values of the sizes the shards ran with */
	if (!r0->limits)
		fatal("%s/results.json: no 'limits' (written by an older tuner?)", sh0->dir);
	t->lim.max_threads = r0->max_threads;
	t->lim.smem_default = r0->smem_block;
	t->lim.smem_optin = r0->smem_optin;
	cfg_size_vars(t->c, r0->lim_sms > 0 ? r0->lim_sms : 1, &t->sizes);
	space_expand(t->c, &t->sizes, &t->lim, &t->s);
}

/* every shard's variants into t->r (each variant of the space dropped or skipped until a
   shard has it); returns how many the shards had */
static size_t place_variants(struct run *t, const struct shard *sh, int n)
{
	size_t i, cap = 16, *slot, nsel = 0;
	int k;

	t->r = xcalloc(t->s.n + 1, sizeof *t->r);
	while (cap < 2 * t->s.n)
		cap *= 2;
	slot = xcalloc(cap, sizeof *slot);
	for (i = 0; i < t->s.n; i++) {
		size_t h = (size_t)hash_bytes(HASH_INIT, t->s.v[i].id, strlen(t->s.v[i].id)) &
		           (cap - 1);
		while (slot[h])
			h = (h + 1) & (cap - 1);
		slot[h] = i + 1;
		t->r[i].twin = -1;
		t->r[i].status = t->s.v[i].drop ? ST_DROPPED : ST_SKIPPED;
	}
	for (k = 0; k < n; k++) {
		for (i = 0; i < sh[k].res->n; i++) {
			const struct results_variant *v = &sh[k].res->v[i];
			size_t j = find_id(&t->s, slot, cap, v->id);
			if (j == SIZE_MAX)
				fatal("%s/results.json: variant '%s' is not in the space of its config",
				      sh[k].dir, v->id);
			if (v->status == ST_DROPPED) {
				if (!t->s.v[j].drop)
					fatal("%s/results.json: variant %s is dropped there, kept here",
					      sh[k].dir, v->id);
				continue;
			}
			take(t, j, v, &sh[k], slot, cap);
			nsel++;
		}
	}
	free(slot);
	return nsel;
}

/* the run's facts, from the first shard (arch and nvrtc kept in static storage) */
static void run_facts(struct run *t, const struct shard *sh0)
{
	static char arch[32], nvrtc[32];
	const struct results *r0 = sh0->res;

	snprintf(arch, sizeof arch, "%s", r0->arch ? r0->arch : "");
	snprintf(nvrtc, sizeof nvrtc, "%s", r0->nvrtc ? r0->nvrtc : "");
	t->ri.arch = arch;
	t->ri.nvrtc = nvrtc;
	snprintf(t->ri.date, sizeof t->ri.date, "%s", r0->date ? r0->date : "");
	t->ri.timed = r0->timed;
	snprintf(t->why, sizeof t->why, "%s", r0->why_untimed ? r0->why_untimed : "");
	t->ri.why_untimed = t->why;
	if (t->ri.timed) {
		snprintf(t->ri.gpu.name, sizeof t->ri.gpu.name, "%s", r0->gpu ? r0->gpu : "");
		if (!r0->cc_major)
			fatal("%s/results.json: no compute capability", sh0->dir);
		t->ri.gpu.cc_major = r0->cc_major;
		t->ri.gpu.cc_minor = r0->cc_minor;
		t->ri.gpu.sms = r0->sms;
		t->ri.gpu.driver_version = r0->driver;
		t->ri.copy_gbs = num(r0->copy_gbs);
		t->ri.read_gbs = num(r0->read_gbs);
		t->ri.bank_ignored = r0->bank_ignored;
		t->ri.l2_flush = r0->l2_flush;
		snprintf(t->ri.l2_why, sizeof t->ri.l2_why, "%s", r0->l2_why ? r0->l2_why : "");
	}
	t->ri.strategy = same_str(r0->strategy, "random") ? "random"
	                 : same_str(r0->strategy, "guided") ? "guided" : "exhaustive";
	t->ri.budget = (size_t)r0->budget;
	t->ri.seed = (uint64_t)r0->seed;
	t->ri.list_dropped = r0->dropped_listed;
	t->ri.lim = t->lim;
	t->ri.sms = r0->lim_sms;
}

int merge_run(const char *dir)
{
	static struct run t;
	struct shard *sh;
	size_t i, tlen, nsel;
	double wall = 0, first = 0;
	int n, k, rc;

	sh = find_shards(dir, &n);
	memset(&t, 0, sizeof t);
	t.t0 = now_s();
	read_shards(&t, sh, n, &tlen, &wall, &first);
	shards_config(&t, &sh[0]);
	nsel = place_variants(&t, sh, n);
	run_facts(&t, &sh[0]);
	t.ri.compile_s = wall;
	t.ri.first_timed_s = first;
	for (i = 0; i < t.s.n; i++)
		t.ri.nskipped += t.r[i].status == ST_SKIPPED;
	snprintf(t.ri.slug, sizeof t.ri.slug, "%s", strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir);
	run_phase(&t, "shards"); /* read, checked, the space expanded again */
	predict_bank(t.c, &t.s, predict_cc(&t.ri), t.r, 1, NULL);
	run_phase(&t, "bank model");
	t.dir = xstrdup(dir);
	{ /* OUT of OUT/<kernel>/<gpu>, for the comparison with the kernel's other GPUs */
		char *o = xstrdup(dir), *p;
		while ((p = strrchr(o, '/')) && p[1] == '\0')
			*p = '\0';
		for (k = 0; k < 2 && (p = strrchr(o, '/')); k++)
			*p = '\0';
		t.o.outdir = k == 2 ? o : ".";
		note(1, "tuner: merging %d shards of %s: %zu variants tried, %zu skipped\n", n,
		     t.c->name, nsel, t.ri.nskipped);
		rc = tune_finish(&t);
		free(o);
	}
	for (k = 0; k < n; k++) {
		results_free(sh[k].res);
		free(sh[k].dir);
	}
	free(sh);
	tune_free(&t);
	return rc;
}
