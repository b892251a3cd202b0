/* bundle: the winners of every tuned GPU of one kernel in one CUDA source and one header,
   with the selection of the entry for the GPU an application runs on (tuner bundle). This
   file reads the GPUs' results and chooses the entries (each GPU's and point's winner, the
   entries between a GPU's points, the portable default); bundlegen.c writes the two files. */
#include "bundle.h"
#include "bundlegen.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "params.h"
#include "space.h"
#include "results.h"
#include "tuned.h"
#include "winner.h"

/* the kernel a directory's results should be of: its own name when that is a kernel name */
static char *dir_kernel(const char *dir)
{
	size_t n = strlen(dir), i;
	const char *p;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	for (p = dir + n; p > dir && p[-1] != '/'; p--)
		;
	for (i = 0; p + i < dir + n; i++)
		if (!isalnum((unsigned char)p[i]) && p[i] != '_')
			return NULL;
	return i ? xstrndup(p, i) : NULL;
}


/* the config, parsed from the first GPU's copy, with the sizes it was tuned with (and the
   parameter values that follow them) */
static void load_config(struct bundle *b)
{
	struct tuned *g = &b->g[0];
	size_t i, errlen = strlen(g->cfgfile) + 512;
	char *err = xmalloc(errlen);

	b->c = cfg_parse_detached(g->cfgfile, g->cfgtext, g->cfglen, err, errlen);
	if (!b->c)
		fatal("%s", err);
	free(err);
	if (strcmp(b->c->name, b->kernel))
		fatal("%s: the config of kernel '%s', not '%s'", g->cfgfile, b->c->name, b->kernel);
	bundlegen_sizes(b, g, &b->sizes);
	for (i = 0; i < b->c->nsizes; i++) {
		int64_t v = 0;
		vars_get(&b->sizes, b->c->sizes[i].name, &v);
		cfg_set_size_val(b->c, b->c->sizes[i].name, v);
	}
	cfg_eval_params(b->c);
}

/* row r's parameter values in config order (malloc'd), checked against the config's values
   under the sizes g was tuned with (and the row's values of the parameters before each) */
static int64_t *row_vals(const struct bundle *b, const struct tuned *g,
                         const struct results_variant *r)
{
	const struct config *c = b->c;
	struct vars sizes;
	int64_t *vals;
	size_t i, j, n;

	if (r->nparams != c->nparams)
		fatal("%s: variant %s has %zu parameters, the config %s has %zu: results of another "
		      "config", g->json, r->id, r->nparams, g->cfgfile, c->nparams);
	bundlegen_sizes(b, g, &sizes);
	for (i = 0; i < c->nparams; i++) {
		const struct param *p = &c->params[i];
		const struct results_val *x = results_find(r->params, r->nparams, p->name);
		if (!x)
			fatal("%s: variant %s: no integer parameter '%s' (the config %s has it): "
			      "results of another config", g->json, r->id, p->name, g->cfgfile);
		vals = cfg_param_vals(c, i, &sizes, 0, &n);
		for (j = 0; j < n && vals[j] != x->val; j++)
			;
		free(vals); /* before fatal(): what is left is reachable */
		if (j == n)
			fatal("%s: variant %s: %s=%lld is not among the config's values (%s)", g->json,
			      r->id, p->name, (long long)x->val, g->cfgfile);
		vars_set(&sizes, p->name, x->val); /* for the values of the parameters after it */
	}
	vals = xcalloc(c->nparams ? c->nparams : 1, sizeof *vals); /* after every fatal() */
	for (i = 0; i < c->nparams; i++)
		vals[i] = results_find(r->params, r->nparams, c->params[i].name)->val;
	return vals;
}

static int row_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct results_variant *const *)a)->id,
	              (*(const struct results_variant *const *)b)->id);
}

/* g's rows ordered by id, for find_row (malloc'd): a lookup in log time, not a scan */
static const struct results_variant **rows_by_id(const struct tuned *g)
{
	const struct results_variant **by = xcalloc(g->nrows + 1, sizeof *by);
	size_t i;

	for (i = 0; i < g->nrows; i++)
		by[i] = &g->rows[i];
	qsort(by, g->nrows, sizeof *by, row_cmp);
	return by;
}

/* the row of id among n rows ordered by id, or NULL */
static const struct results_variant *find_row(const struct results_variant **by, size_t n,
                                              const char *id)
{
	struct results_variant key = {0};
	const struct results_variant *k = &key, **r;

	key.id = (char *)id;
	r = bsearch(&k, by, n, sizeof *by, row_cmp);
	return r ? *r : NULL;
}

/* id's median among n rows ordered by id: its own, or that of the variant timed for it (0:
   not timed) */
static double median_of(const struct results_variant **by, size_t n, const char *id)
{
	const struct results_variant *r = find_row(by, n, id);

	if (r && r->twin_of && (r->status == ST_TWIN || r->status == ST_COLLAPSED))
		r = find_row(by, n, r->twin_of);
	return r && r->status == ST_OK ? r->median_ms : 0;
}


/* 0 if row r of g (its values vals) runs at the sizes g records, within the limits it
   records, with the launch geometry it records; else -1 with why: results whose sizes were
   changed are not bundled as if they held */
static int row_geometry(const struct bundle *b, const struct tuned *g,
                        const struct results_variant *r, const int64_t *vals, char *why,
                        size_t whylen)
{
	const struct results *res = g->res;
	struct limits lim = {1024, 48 << 10, (int64_t)1 << 30};
	struct variant v = {0};
	struct vars vars;
	char *bad, *at;
	size_t i;
	int rc = 0;

	if (res->limits) {
		lim.max_threads = res->max_threads;
		lim.smem_default = res->smem_block;
		lim.smem_optin = res->smem_optin > res->smem_block ? res->smem_optin : res->smem_block;
	}
	bundlegen_sizes(b, g, &vars);
	/* SMS as the run's expressions saw it */
	vars_set(&vars, CFG_SMS, res->limits && res->lim_sms > 0 ? res->lim_sms
	                         : res->sms > 0 ? res->sms : 1);
	for (i = 0; i < b->c->nparams; i++)
		vars_set(&vars, b->c->params[i].name, vals[i]);
	v.vals = (int64_t *)vals;
	bad = space_check(b->c, &v, &vars, &lim);
	at = bundlegen_sizes_str(b, g);
	if (bad) {
		snprintf(why, whylen, "%s: variant %s cannot run at the sizes the results record (%s): "
		         "%s; results and config %s disagree: retune", g->json, r->id, at, bad,
		         g->cfgfile);
		rc = -1;
	} else if (r->geometry && (memcmp(r->block, v.block, sizeof v.block) ||
	                           memcmp(r->grid, v.grid, sizeof v.grid) ||
	                           r->shared != v.shared || r->bytes != v.bytes)) {
		snprintf(why, whylen, "%s: variant %s records block [%lld, %lld, %lld], grid [%lld, "
		         "%lld, %lld], %lld bytes of shared memory and %lld bytes moved; the config %s "
		         "gives block [%lld, %lld, %lld], grid [%lld, %lld, %lld], %lld and %lld at the "
		         "sizes recorded (%s): results and config disagree: retune", g->json, r->id,
		         (long long)r->block[0], (long long)r->block[1], (long long)r->block[2],
		         (long long)r->grid[0], (long long)r->grid[1], (long long)r->grid[2],
		         (long long)r->shared, (long long)r->bytes, g->cfgfile, (long long)v.block[0],
		         (long long)v.block[1], (long long)v.block[2], (long long)v.grid[0],
		         (long long)v.grid[1], (long long)v.grid[2], (long long)v.shared,
		         (long long)v.bytes, at);
		rc = -1;
	}
	free(bad);
	free(at);
	return rc;
}

/* index in b->k of the variant id (added with the values of row r of g when new) */
static size_t add_kvar(struct bundle *b, const struct tuned *g, const struct results_variant *r)
{
	size_t i;
	struct variant v = {0};
	int64_t *vals = row_vals(b, g, r);

	char why[2048];

	if (row_geometry(b, g, r, vals, why, sizeof why) < 0) { /* every GPU's row */
		free(vals);
		fatal("%s", why);
	}
	for (i = 0; i < b->nk; i++)
		if (!strcmp(b->k[i].id, r->id)) {
			free(vals);
			return i;
		}
	b->k = xreallocarray(b->k, b->nk + 1, sizeof *b->k);
	b->k[b->nk].id = r->id;
	b->k[b->nk].vals = vals;
	v.vals = b->k[b->nk].vals;
	b->k[b->nk].params = space_params_str(b->c, &v);
	return b->nk++;
}

/* b->rel, from each entry's rows and fastest median (best) */
static void point_ratios(struct bundle *b, const double *best)
{
	size_t a, k;

	b->rel = xcalloc(b->ng * b->ng + 1, sizeof *b->rel);
	for (a = 0; a < b->ng; a++) {
		const struct results_variant **by = rows_by_id(&b->g[a]);
		for (k = 0; k < b->ng; k++) {
			double m;
			if (strcmp(b->g[a].name, b->g[k].name))
				continue;
			m = median_of(by, b->g[a].nrows, b->g[k].rows[b->win[k]].id);
			b->rel[a * b->ng + k] = m > 0 && best[a] > 0 ? m / best[a] : 0;
		}
		free(by);
	}
}

/* the row timed for id among g's rows (by: g's rows ordered by id), a twin's own; NULL if none */
static const struct results_variant *timed_row(const struct tuned *g,
                                               const struct results_variant **by, const char *id)
{
	const struct results_variant *r = find_row(by, g->nrows, id);

	if (r && r->twin_of && (r->status == ST_TWIN || r->status == ST_COLLAPSED))
		r = find_row(by, g->nrows, r->twin_of);
	return r && r->status == ST_OK && r->geometry && r->bytes > 0 ? r : NULL;
}

/* the point of g[i]'s GPU tuned next above g[i] by the bytes moved, or SIZE_MAX */
static size_t point_above(const struct bundle *b, size_t i)
{
	size_t j, y = SIZE_MAX;

	for (j = 0; j < b->ng; j++)
		if (!strcmp(b->g[j].name, b->g[i].name) && b->work[j] > b->work[i] &&
		    (y == SIZE_MAX || b->work[j] < b->work[y]))
			y = j;
	return y;
}

/* b->bt: for every two points of one GPU next to each other by the bytes moved, the variant
   timed at both whose worse ratio to the fastest there is best (winner_portable's rule over
   the two points); med and best as choose has them. Then b->relb. */
static void betweens(struct bundle *b, const double *med, const double *best)
{
	const struct tuned *g0 = &b->g[0];
	size_t nv = g0->nrows, i, j;
	double *m2 = xcalloc(2 * nv + 1, sizeof *m2);

	for (i = 0; i < b->ng; i++) {
		size_t y = b->work[i] > 0 ? point_above(b, i) : SIZE_MAX;
		const struct results_variant **bi, **by, *ri, *ry;
		double b2[2], worst;
		long p;

		if (y == SIZE_MAX)
			continue;
		memcpy(m2, med + i * nv, nv * sizeof *m2);
		memcpy(m2 + nv, med + y * nv, nv * sizeof *m2);
		b2[0] = best[i];
		b2[1] = best[y];
		p = winner_portable(m2, b2, 2, nv, &worst);
		if (p < 0)
			continue;
		bi = rows_by_id(&b->g[i]);
		by = rows_by_id(&b->g[y]);
		ri = timed_row(&b->g[i], bi, g0->rows[p].id);
		ry = timed_row(&b->g[y], by, g0->rows[p].id);
		if (ri && ry) {
			struct between *e;
			b->bt = xreallocarray(b->bt, b->nbt + 1, sizeof *b->bt);
			e = &b->bt[b->nbt++];
			e->lo_g = i;
			e->hi_g = y;
			e->k = add_kvar(b, &b->g[i], ri);
			e->r = ri;
			e->lo = (double)ri->bytes;
			e->hi = (double)ry->bytes;
			e->worst = worst;
			e->v = p;
		}
		free(bi);
		free(by);
	}
	b->relb = xcalloc(b->ng * b->nbt + 1, sizeof *b->relb);
	for (i = 0; i < b->ng; i++)
		for (j = 0; j < b->nbt; j++)
			if (!strcmp(b->g[i].name, b->g[b->bt[j].lo_g].name) && best[i] > 0)
				b->relb[i * b->nbt + j] = med[i * nv + (size_t)b->bt[j].v] / best[i];
	free(m2);
}

/* every GPU's winner, and the portable default */
static void choose(struct bundle *b)
{
	const struct tuned *g0 = &b->g[0];
	double *med = xcalloc(g0->nrows * b->ng + 1, sizeof *med);
	double *best = xcalloc(b->ng, sizeof *best);
	size_t i, v, oldest = b->ng - 1; /* the GPUs are ordered newest first */
	long p;

	b->win = xcalloc(b->ng, sizeof *b->win);
	b->kof = xcalloc(b->ng, sizeof *b->kof);
	b->work = xcalloc(b->ng, sizeof *b->work);
	for (i = 0; i < b->ng; i++) {
		struct tuned *g = &b->g[i];
		double *ms = xcalloc(g->nrows + 1, sizeof *ms);
		size_t w, f;
		/* the tuner's winner and the fastest (best[]) among the verified (winner_listed) */
		for (v = 0; v < g->nrows; v++)
			ms[v] = g->rows[v].status == ST_OK ? g->rows[v].median_ms : NAN;
		w = winner_listed(ms, g->nrows, &f);
		free(ms);
		if (w == SIZE_MAX)
			fatal("%s: no variant verified on %s: nothing to bundle for it (move the "
			      "directory aside to bundle the others)", g->json, util_show(g->name));
		b->win[i] = w;
		b->work[i] = g->rows[w].geometry ? (double)g->rows[w].bytes : 0;
		b->sized |= i > 0 && !strcmp(b->g[i - 1].name, g->name);
		best[i] = g->rows[f].median_ms;
		b->kof[i] = add_kvar(b, g, &g->rows[w]);
	}
	for (i = 0; i < b->ng; i++) {
		const struct results_variant **by = rows_by_id(&b->g[i]);
		for (v = 0; v < g0->nrows; v++)
			med[i * g0->nrows + v] = median_of(by, b->g[i].nrows, g0->rows[v].id);
		free(by);
	}
	point_ratios(b, best);
	betweens(b, med, best);
	for (i = v = 0; i < b->ng; i++) /* a midpoint timed a few candidates: not every GPU's */
		if (!b->g[i].res->midpoint) {
			memmove(med + v * g0->nrows, med + i * g0->nrows, g0->nrows * sizeof *med);
			best[v++] = best[i];
		}
	p = winner_portable(med, best, v, g0->nrows, &b->worst);
	if (p >= 0) {
		b->kportable = add_kvar(b, g0, &g0->rows[p]);
	} else {
		b->kportable = b->kof[oldest];
		warn("%s: no variant was timed on every GPU: the portable default is the winner of "
		     "the oldest, %s", b->dir, util_show(b->g[oldest].name));
		buf_printf(&b->flags, " * no variant was timed on every GPU: the portable default is "
		           "the winner of %s\n", util_show(b->g[oldest].name));
	}
	free(med);
	free(best);
}

/* read the results (tuned_read's only, nonly) under dir, choose, and write the header and
   the source into h and s, as BASE.h and BASE.cu (base NULL: "<kernel>_bundle"); b is left
   to bundle_free */
static void make(struct bundle *b, const char *dir, char *const *only, size_t nonly,
                 const struct tuned_text *mem, const char *base, struct buf *h, struct buf *s)
{
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	time_t now = epoch ? (time_t)strtoll(epoch, NULL, 10) : time(NULL);
	char date[32];
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
	b->dir = dir;
	if (!b->kernel)
		b->kernel = dir_kernel(dir);
	b->g = tuned_read_mem(dir, only, nonly, mem, &b->kernel, &b->flags, &b->ng);
	b->base = base ? xstrdup(base) : xasprintf("%s_bundle", b->kernel);
	load_config(b);
	choose(b);
	bundlegen_provenance(h, b, date);
	bundlegen_header(h, b);
	bundlegen_provenance(s, b, date);
	bundlegen_source(s, b);
}

/* ODIR/BASE.h and ODIR/BASE.cu (h, s) into set */
static void put(const struct bundle *b, const char *odir, const struct buf *h,
                const struct buf *s, struct fileset *set)
{
	char *hp = xasprintf("%s/%s.h", odir, b->base), *sp = xasprintf("%s/%s.cu", odir, b->base);

	if (fileset_put(set, hp, h->s, h->len) < 0 || fileset_put(set, sp, s->s, s->len) < 0)
		fatal("cannot write '%s':", set->failed);
	free(hp);
	free(sp);
}

static void bundle_free(struct bundle *b)
{
	size_t i;

	for (i = 0; i < b->nk; i++) {
		free(b->k[i].vals);
		free(b->k[i].params);
	}
	tuned_free(b->g, b->ng);
	free(b->k);
	free(b->win);
	free(b->kof);
	free(b->work);
	free(b->rel);
	free(b->relb);
	free(b->bt);
	free(b->kernel);
	free((char *)b->base);
	buf_free(&b->flags);
	cfg_free(b->c);
}

void bundle_make(const char *dir, const char *out)
{
	struct bundle b = {0};
	struct fileset set = {0};
	struct buf h = {0}, s = {0};
	char *odir = out ? xstrdup(out) : xasprintf("%s/bundle", dir);

	make(&b, dir, NULL, 0, NULL, NULL, &h, &s);
	if (mkdirs(odir) < 0)
		fatal("cannot create '%s':", odir);
	put(&b, odir, &h, &s, &set);
	if (fileset_commit(&set) < 0) /* the two replaced together, or neither */
		fatal("cannot write '%s':", set.failed);
	fileset_free(&set);
	note(1, "tuner: %s: %zu GPU%s, %zu kernel%s; portable default %s -> %s/%s.cu and %s/%s.h\n",
	     b.kernel, b.ng, b.ng == 1 ? "" : "s", b.nk, b.nk == 1 ? "" : "s",
	     b.k[b.kportable].id, odir, b.base, odir, b.base);
	bundle_free(&b);
	buf_free(&h);
	buf_free(&s);
	free(odir);
}

/* what the between entries cannot promise: where no variant ran at BETWEEN_OK of the fastest
   at both of two points, the sizes between them are worth a point of their own */
#define BETWEEN_OK 0.95
static void between_said(const struct bundle *b)
{
	size_t i;

	for (i = 0; i < b->nbt; i++) {
		const struct between *e = &b->bt[i];
		char *lo, *hi;
		if (e->worst >= BETWEEN_OK)
			continue;
		lo = bundlegen_sizes_str(b, &b->g[e->lo_g]);
		hi = bundlegen_sizes_str(b, &b->g[e->hi_g]);
		note(1, "between %s and %s: no variant runs at %.0f %% of the fastest at both (%s at "
		     "%.1f %%);\n  tune at the sizes the application uses there\n", lo, hi,
		     100 * BETWEEN_OK, e->r->id, 100 * e->worst);
		free(lo);
		free(hi);
	}
}

void bundle_points(const char *gpudir, const char *kernel, char *const *dirs, size_t n,
                   const struct tuned_text *mem, struct fileset *set)
{
	struct bundle b = {0};
	struct buf h = {0}, s = {0};

	b.kernel = xstrdup(kernel);
	make(&b, gpudir, dirs, n, mem, "best", &h, &s);
	between_said(&b);
	put(&b, gpudir, &h, &s, set);
	bundle_free(&b);
	buf_free(&h);
	buf_free(&s);
}
