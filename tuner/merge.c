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
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvrtc.h"
#include "predict.h"
#include "report.h"
#include "results.h"
#include "bench.h" /* struct run_result */
#include "tune.h"
#include "util.h"

struct shard {
	int k;
	char *dir;
	json_t *doc;
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
		sh[n++].doc = NULL;
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
	char *p = xasprintf("%s/%s", dir, file), *text = file_read(p, len);

	if (!text)
		fatal("%s: cannot read:", p);
	free(p);
	return text;
}

/* exit 2 unless shard b's key of its results equals shard a's */
static void same(const struct shard *a, const struct shard *b, const char *key)
{
	json_t *x = json_object_get(a->doc, key), *y = json_object_get(b->doc, key);

	if ((x || y) && !json_equal(x, y))
		fatal("%s: its '%s' differs from %s's: shards of different runs", b->dir, key, a->dir);
}

static long long int_of(json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

static double num_of(json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
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
static void take(struct run *t, size_t i, json_t *v, const struct shard *sh,
                 const size_t *slot, size_t cap)
{
	struct result *x = &t->r[i];
	const char *st = json_string_value(json_object_get(v, "status"));
	const char *reason = json_string_value(json_object_get(v, "reason"));
	const char *twin = json_string_value(json_object_get(v, "twin_of"));
	struct run_result run;
	long long rb;
	int k;

	for (k = 0; k <= ST_SKIPPED && (!st || strcmp(result_status((enum status)k), st)); k++)
		;
	if (k > ST_SKIPPED || k == ST_DROPPED || k == ST_SKIPPED)
		fatal("%s/results.json: variant %s has status '%s', which no run records there",
		      sh->dir, t->s.v[i].id, st ? st : "(none)");
	if (x->status != ST_SKIPPED)
		fatal("%s/results.json: variant %s was tried by two shards", sh->dir, t->s.v[i].id);
	x->status = (enum status)k;
	x->reason = reason ? xstrdup(reason) : NULL;
	x->resumed = json_is_true(json_object_get(v, "resumed"));
	if (twin && (x->twin = (long)find_id(&t->s, slot, cap, twin)) == (long)SIZE_MAX)
		fatal("%s/results.json: variant %s is the twin of '%s', no variant of the space",
		      sh->dir, t->s.v[i].id, twin);
	x->co.regs = -1;
	if (json_object_get(v, "registers")) {
		x->co.ok = 1;
		x->co.regs = (int)int_of(v, "registers");
		x->co.spill_stores = (int)int_of(v, "spill_stores");
		x->co.spill_loads = (int)int_of(v, "spill_loads");
		x->co.stack = (int)int_of(v, "stack");
		x->co.smem_static = (int)int_of(v, "shared_static");
		x->cache_hit = json_is_true(json_object_get(v, "cache_hit"));
	}
	if (x->status == ST_COMPILE_ERROR) {
		const char *log = json_string_value(json_object_get(v, "log"));
		x->co.log = xstrdup(log ? log : "");
	}
	if (!json_object_get(v, "max_abs_err") && !json_object_get(v, "median_ms") &&
	    x->status != ST_FAULT && x->status != ST_TIMEOUT && x->status != ST_LAUNCH_ERROR)
		return;
	memset(&run, 0, sizeof run);
	run.max_abs_err = num_of(v, "max_abs_err");
	run.max_rel_err = num_of(v, "max_rel_err");
	run.t.n = (int)int_of(v, "samples");
	run.t.median_ms = num_of(v, "median_ms");
	run.t.min_ms = num_of(v, "min_ms");
	run.t.max_ms = num_of(v, "max_ms");
	run.t.mean_ms = num_of(v, "mean_ms");
	run.t.spread = num_of(v, "spread");
	snprintf(run.reason, sizeof run.reason, "%s", reason ? reason : "");
	run.device = json_object_get(v, "device") ? (int)int_of(v, "device") : -1;
	rb = int_of(v, "resident_blocks"); /* 0 where absent */
	run.resident = rb > 0 && rb <= 65536 ? (int)rb : 0;
	result_set_run(x, &run);
	x->gbs = num_of(v, "gbs");
	x->pct_copy = num_of(v, "pct_copy");
	x->pct_read = num_of(v, "pct_read");
}

int merge_run(const char *dir)
{
	static struct run t;
	static char arch[32], nvrtc[32];
	struct shard *sh;
	json_t *sizes, *lim, *search, *v;
	json_error_t err;
	const char *key, *s;
	char why[512], *cfgpath;
	size_t i, cap = 16, *slot, tlen, nsel = 0;
	double wall = 0, first = 0;
	int n, k, rc;

	sh = find_shards(dir, &n);
	memset(&t, 0, sizeof t);
	t.t0 = now_s();
	t.cfgtext = shard_file(sh[0].dir, RESULTS_CONFIG_COPY, &t.cfglen);
	t.tmpl = shard_file(sh[0].dir, RESULTS_TEMPLATE_COPY, &tlen);
	for (k = 0; k < n; k++) {
		char *p = xasprintf("%s/results.json", sh[k].dir);
		if (!(sh[k].doc = json_load_file(p, JSON_REJECT_DUPLICATES, &err)))
			fatal("%s:%d:%d: %s", p, err.line, err.column, err.text);
		free(p);
		v = json_object_get(sh[k].doc, "shard");
		if (json_integer_value(json_array_get(v, 0)) != sh[k].k ||
		    json_integer_value(json_array_get(v, 1)) != n)
			fatal("%s/results.json: not the results of shard %d of %d", sh[k].dir, sh[k].k, n);
		if (k) {
			size_t l1, l2;
			char *c1 = shard_file(sh[k].dir, RESULTS_CONFIG_COPY, &l1);
			char *t1 = shard_file(sh[k].dir, RESULTS_TEMPLATE_COPY, &l2);
			int other_cfg = l1 != t.cfglen || memcmp(c1, t.cfgtext, l1);
			int other_tmpl = l2 != tlen || memcmp(t1, t.tmpl, l2);
			free(c1); /* before any fatal(): what is left is reachable */
			free(t1);
			if (other_cfg)
				fatal("%s: ran another config than %s: shards of different configs",
				      sh[k].dir, sh[0].dir);
			if (other_tmpl)
				fatal("%s: ran another template than %s: shards of different templates",
				      sh[k].dir, sh[0].dir);
			same(&sh[0], &sh[k], "kernel");
			same(&sh[0], &sh[k], "arch");
			same(&sh[0], &sh[k], "nvrtc");
			same(&sh[0], &sh[k], "timed");
			same(&sh[0], &sh[k], "gpu");
			same(&sh[0], &sh[k], "compute_capability");
			same(&sh[0], &sh[k], "sizes");
			same(&sh[0], &sh[k], "limits");
		}
		search = json_object_get(sh[k].doc, "search");
		if (k && (!json_equal(json_object_get(search, "strategy"),
		                      json_object_get(json_object_get(sh[0].doc, "search"), "strategy")) ||
		          !json_equal(json_object_get(search, "budget"),
		                      json_object_get(json_object_get(sh[0].doc, "search"), "budget"))))
			fatal("%s: searched with another strategy or budget than %s", sh[k].dir, sh[0].dir);
		t.ri.ntimed += (size_t)int_of(search, "timed");
		wall = num_of(search, "wall_s") > wall ? num_of(search, "wall_s") : wall;
		if (num_of(search, "first_timed_s") > 0 &&
		    (!first || num_of(search, "first_timed_s") < first))
			first = num_of(search, "first_timed_s");
	}
	cfgpath = xasprintf("%s/%s", sh[0].dir, RESULTS_CONFIG_COPY);
	if (!(t.c = cfg_parse_detached(cfgpath, t.cfgtext, t.cfglen, why, sizeof why)))
		fatal("%s", why);
	free(cfgpath);
	/* the paths the shards ran with, as an unsharded run would name them */
	if ((s = json_string_value(json_object_get(sh[0].doc, "config")))) {
		free(t.c->path);
		t.c->path = xstrdup(s);
	}
	v = json_object_get(json_object_get(json_object_get(sh[0].doc, "sources"), "template"),
	                    "path");
	if (json_is_string(v)) {
		free(t.c->kernel.source);
		t.c->kernel.source = xstrdup(json_string_value(v));
	}
	sizes = json_object_get(sh[0].doc, "sizes");
	json_object_foreach(sizes, key, v) {
		char *a = xasprintf("%s=%lld", key, (long long)json_integer_value(v));
		cfg_set_size(t.c, a);
		free(a);
	}
	cfg_eval_params(t.c); /* the values of the sizes the shards ran with */
	lim = json_object_get(sh[0].doc, "limits");
	if (!lim)
		fatal("%s/results.json: no 'limits' (written by an older tuner?)", sh[0].dir);
	t.lim.max_threads = (int)int_of(lim, "max_threads");
	t.lim.smem_default = int_of(lim, "smem_block");
	t.lim.smem_optin = int_of(lim, "smem_optin");
	cfg_size_vars(t.c, int_of(lim, "sms") > 0 ? int_of(lim, "sms") : 1, &t.sizes);
	space_expand(t.c, &t.sizes, &t.lim, &t.s);
	t.r = xcalloc(t.s.n + 1, sizeof *t.r);
	while (cap < 2 * t.s.n)
		cap *= 2;
	slot = xcalloc(cap, sizeof *slot);
	for (i = 0; i < t.s.n; i++) {
		size_t h = (size_t)hash_bytes(HASH_INIT, t.s.v[i].id, strlen(t.s.v[i].id)) & (cap - 1);
		while (slot[h])
			h = (h + 1) & (cap - 1);
		slot[h] = i + 1;
		t.r[i].twin = -1;
		t.r[i].status = t.s.v[i].drop ? ST_DROPPED : ST_SKIPPED;
	}
	for (k = 0; k < n; k++) {
		json_array_foreach(json_object_get(sh[k].doc, "variants"), i, v) {
			const char *id = json_string_value(json_object_get(v, "id"));
			const char *st = json_string_value(json_object_get(v, "status"));
			size_t j = id ? find_id(&t.s, slot, cap, id) : SIZE_MAX;
			if (j == SIZE_MAX)
				fatal("%s/results.json: variant '%s' is not in the space of its config",
				      sh[k].dir, id ? id : "(no id)");
			if (st && !strcmp(st, "dropped")) {
				if (!t.s.v[j].drop)
					fatal("%s/results.json: variant %s is dropped there, kept here",
					      sh[k].dir, id);
				continue;
			}
			take(&t, j, v, &sh[k], slot, cap);
			nsel++;
		}
	}
	/* the run's facts, from the first shard */
	s = json_string_value(json_object_get(sh[0].doc, "arch"));
	snprintf(arch, sizeof arch, "%s", s ? s : "");
	s = json_string_value(json_object_get(sh[0].doc, "nvrtc"));
	snprintf(nvrtc, sizeof nvrtc, "%s", s ? s : "");
	t.ri.arch = arch;
	t.ri.nvrtc = nvrtc;
	s = json_string_value(json_object_get(sh[0].doc, "date"));
	snprintf(t.ri.date, sizeof t.ri.date, "%s", s ? s : "");
	t.ri.timed = json_is_true(json_object_get(sh[0].doc, "timed"));
	s = json_string_value(json_object_get(sh[0].doc, "why_untimed"));
	snprintf(t.why, sizeof t.why, "%s", s ? s : "");
	t.ri.why_untimed = t.why;
	if (t.ri.timed) {
		s = json_string_value(json_object_get(sh[0].doc, "gpu"));
		snprintf(t.ri.gpu.name, sizeof t.ri.gpu.name, "%s", s ? s : "");
		s = json_string_value(json_object_get(sh[0].doc, "compute_capability"));
		if (!s || sscanf(s, "%d.%d", &t.ri.gpu.cc_major, &t.ri.gpu.cc_minor) != 2)
			fatal("%s/results.json: no compute capability", sh[0].dir);
		t.ri.gpu.sms = (int)int_of(sh[0].doc, "sms");
		t.ri.gpu.driver_version = (int)int_of(sh[0].doc, "driver");
		t.ri.copy_gbs = num_of(sh[0].doc, "copy_gbs");
		t.ri.read_gbs = num_of(sh[0].doc, "read_gbs");
		t.ri.bank_ignored = json_is_true(json_object_get(sh[0].doc, "bank_mode_ignored"));
	}
	search = json_object_get(sh[0].doc, "search");
	s = json_string_value(json_object_get(search, "strategy"));
	t.ri.strategy = s && !strcmp(s, "random") ? "random" : s && !strcmp(s, "guided") ? "guided"
	                                                                                 : "exhaustive";
	t.ri.budget = (size_t)int_of(search, "budget");
	t.ri.seed = (uint64_t)int_of(search, "seed");
	t.ri.compile_s = wall;
	t.ri.first_timed_s = first;
	t.ri.lim = t.lim;
	t.ri.sms = int_of(lim, "sms");
	for (i = 0; i < t.s.n; i++)
		t.ri.nskipped += t.r[i].status == ST_SKIPPED;
	snprintf(t.ri.slug, sizeof t.ri.slug, "%s", strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir);
	predict_bank(t.c, &t.s, t.ri.timed ? t.ri.gpu.cc_major * 10 + t.ri.gpu.cc_minor
	                                   : nv_arch_cc(t.ri.arch), t.r, 1);
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
		json_decref(sh[k].doc);
		free(sh[k].dir);
	}
	free(sh);
	free(slot);
	tune_free(&t);
	return rc;
}
