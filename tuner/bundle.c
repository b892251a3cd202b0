/* bundle: the winners of every tuned GPU of one kernel in one CUDA source and one header,
   with the selection of the entry for the GPU an application runs on (tuner bundle). */
#include "bundle.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "emit.h"
#include "report.h"
#include "source.h"
#include "space.h"
#include "results.h"
#include "tuned.h"
#include "version.h"
#include "winner.h"

/* one distinct kernel of the bundle */
struct kvar {
	const char *id;
	int64_t *vals;            /* one per config parameter */
	char *params;             /* "BLOCK=256 PAD=1" */
};

struct bundle {
	const char *dir;
	char *kernel;
	struct tuned *g;          /* the timed GPUs, ordered by compute capability (newest first),
	                             then name */
	size_t ng;
	struct config *c;         /* the first GPU's config: every GPU's is the same text */
	struct vars sizes;        /* the sizes tuned with (the first GPU's) */
	struct kvar *k;
	size_t nk;
	size_t *win;              /* per GPU: its winner's index in its rows */
	size_t *kof;              /* per GPU: its winner's index in k */
	size_t kportable;
	double *work;             /* per GPU: the bytes its winner moves at the sizes tuned at */
	double *rel;              /* per pair of entries a, k of one GPU (a * ng + k): k's winner's
	                             median at a's sizes over the fastest there (0: not timed
	                             there, or another GPU) */
	int sized;                /* a GPU was tuned at several points */
	const char *base;         /* the files' name: "<kernel>_bundle", or "best" */
	double worst;             /* the portable default's worst ratio to a GPU's best (0: none
	                             timed on every GPU) */
	struct buf flags;         /* what the header comment must say: changed files, ... */
};

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

/* the sizes g was tuned with, bound in v: the config's, where its results name none */
static void gpu_sizes(const struct bundle *b, const struct tuned *g, struct vars *v)
{
	size_t i;

	memset(v, 0, sizeof *v);
	cfg_size_vars(b->c, 0, v);
	for (i = 0; i < b->c->nsizes; i++) {
		const struct results_val *x = results_find(g->res->sizes, g->res->nsizes,
		                                           b->c->sizes[i].name);
		if (x)
			vars_set(v, b->c->sizes[i].name, x->val);
	}
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
	gpu_sizes(b, g, &b->sizes);
	for (i = 0; i < b->c->nsizes; i++) {
		int64_t v = 0;
		char *a;
		vars_get(&b->sizes, b->c->sizes[i].name, &v);
		a = xasprintf("%s=%lld", b->c->sizes[i].name, (long long)v);
		cfg_set_size(b->c, a);
		free(a);
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
	gpu_sizes(b, g, &sizes);
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

/* "n=4099 m=7" (malloc'd): the sizes g was tuned with */
static char *sizes_str(const struct bundle *b, const struct tuned *g)
{
	struct buf o = {0};
	struct vars v;
	size_t i;

	gpu_sizes(b, g, &v);
	for (i = 0; i < b->c->nsizes; i++) {
		int64_t x = 0;
		vars_get(&v, b->c->sizes[i].name, &x);
		buf_printf(&o, "%s%s=%lld", i ? " " : "", b->c->sizes[i].name, (long long)x);
	}
	return o.s ? o.s : xstrdup("no sizes");
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
	gpu_sizes(b, g, &vars);
	/* SMS as the run's expressions saw it */
	vars_set(&vars, CFG_SMS, res->limits && res->lim_sms > 0 ? res->lim_sms
	                         : res->sms > 0 ? res->sms : 1);
	for (i = 0; i < b->c->nparams; i++)
		vars_set(&vars, b->c->params[i].name, vals[i]);
	v.vals = (int64_t *)vals;
	bad = space_check(b->c, &v, &vars, &lim);
	at = sizes_str(b, g);
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
	p = winner_portable(med, best, b->ng, g0->nrows, &b->worst);
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

/* the at-size function's table of b->rel (with the portable default's row and column, 0) */
static void rel_table(struct buf *o, const struct bundle *b, const char *uk)
{
	size_t a, k, n = b->ng + 1;

	buf_printf(o, "\t/* rel[a * %s_BUNDLE_ENTRIES + k]: entry k's kernel's median at entry a's "
	              "sizes over the\n\t   fastest there (0: not timed there) */\n"
	              "\tstatic const double rel[%s_BUNDLE_ENTRIES * %s_BUNDLE_ENTRIES] = {\n",
	           uk, uk, uk);
	for (a = 0; a < n; a++) {
		buf_puts(o, "\t\t");
		for (k = 0; k < n; k++)
			buf_printf(o, "%.6g,%s", a < b->ng && k < b->ng ? b->rel[a * b->ng + k] : 0,
			           k + 1 < n ? " " : "\n");
	}
	buf_puts(o, "\t};\n");
}

/* ---- the template in a namespace ---- */

/* 1 if p starts a word w */
static int word_at(const char *s, const char *p, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(p, w, n) && (p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
	       !(isalnum((unsigned char)p[n]) || p[n] == '_');
}

void bundle_template(const char *tmpl, struct buf *body, struct buf *includes,
                     struct buf *undefs)
{
	const char *p = tmpl, *line = tmpl;

	while (*p) {
		if (p == line) { /* a preprocessor line? */
			const char *q = p, *n;
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '#') {
				for (q++; *q == ' ' || *q == '\t'; q++)
					;
				if (word_at(tmpl, q, "include")) {
					size_t len = strcspn(p, "\n");
					buf_add(includes, p, len);
					buf_puts(includes, "\n");
					buf_puts(body, "// (above the namespaces) ");
					buf_add(body, p, len);
					p += len;
					line = NULL;
					continue;
				}
				if (word_at(tmpl, q, "define")) {
					for (q += 6; *q == ' ' || *q == '\t'; q++)
						;
					for (n = q; isalnum((unsigned char)*n) || *n == '_'; n++)
						;
					if (n > q)
						buf_printf(undefs, "#undef %.*s\n", (int)(n - q), q);
				}
			}
		}
		if (word_at(tmpl, p, "extern")) {
			const char *q = p + 6;
			while (*q == ' ' || *q == '\t' || *q == '\n')
				q++;
			if (!strncmp(q, "\"C\"", 3)) {
				buf_add(body, p, (size_t)(q - p));
				buf_puts(body, "\"C++\"");
				p = q + 3;
				continue;
			}
		}
		if (*p == '\n')
			line = p + 1;
		buf_add(body, p++, 1);
	}
}

/* ---- writing ---- */

/* the architectures the bundle holds, newest first ("sm_90"...), each once */
static void gencode(const struct bundle *b, struct buf *out)
{
	size_t i, j;

	for (i = 0; i < b->ng; i++) {
		int cc = b->g[i].cc_major * 10 + b->g[i].cc_minor;
		for (j = 0; j < i && b->g[j].cc_major * 10 + b->g[j].cc_minor != cc; j++)
			;
		if (j == i)
			buf_printf(out, "-gencode arch=compute_%d,code=sm_%d ", cc, cc);
	}
	buf_printf(out, "-gencode arch=compute_%d%d,code=compute_%d%d", b->g[0].cc_major,
	           b->g[0].cc_minor, b->g[0].cc_major, b->g[0].cc_minor);
}

/* 1 if r's run found the host's launch slower than the GPU's run of it */
static int launch_bound(const struct results_variant *r)
{
	return r->launch_us > 0 && r->median_ms > 0 && r->launch_us > r->median_ms * 1e3;
}

static void provenance(struct buf *o, const struct bundle *b, const char *date)
{
	const struct tuned *f = &b->g[0];
	const struct tuned *old = &b->g[b->ng - 1];
	struct buf gc = {0};
	size_t i, ngpu, nbound = 0;

	gencode(b, &gc);
	for (i = ngpu = 0; i < b->ng; i++)
		ngpu += i == 0 || strcmp(b->g[i - 1].name, b->g[i].name);
	buf_printf(o, "/*\n * %s bundle: the winners of %zu tuned GPU%s", b->kernel, ngpu,
	           ngpu == 1 ? "" : "s");
	if (b->sized)
		buf_printf(o, " (%zu GPU and size points)", b->ng);
	buf_printf(o, " and a portable default, side by side, and the\n * selection of the entry for "
	              "the GPU an application runs on. Emitted by tuner %s on %s\n * from ",
	           TUNER_VERSION, date);
	buf_safe(o, b->dir, 0);
	buf_puts(o, " (each GPU's results.json and the config and template tuned with).\n"
	            " * config: ");
	buf_safe(o, f->config, 0);
	buf_printf(o, " (fnv1a64 %016llx), template: ",
	           (unsigned long long)hash_bytes(HASH_INIT, f->cfgtext, f->cfglen));
	buf_safe(o, f->tmplpath ? f->tmplpath : f->tmplfile, 0);
	buf_printf(o, " (fnv1a64 %016llx)\n *\n",
	           (unsigned long long)hash_bytes(HASH_INIT, f->tmpl, strlen(f->tmpl)));
	buf_puts(o, " * entry  GPU, compute capability, multiprocessors: variant (parameters), "
	            "median, GB/s, % of copy\n");
	for (i = 0; i < b->ng; i++) {
		const struct tuned *g = &b->g[i];
		const struct results_variant *r = &g->rows[b->win[i]];
		buf_printf(o, " * %5zu  ", i);
		buf_safe(o, g->name, 0);
		buf_printf(o, ", %d.%d, %d", g->cc_major, g->cc_minor, g->sms);
		if (b->sized) {
			char *at = sizes_str(b, g);
			buf_printf(o, " at %s", at);
			free(at);
		}
		buf_printf(o, ": %s (%s), %.4f ms, %.1f GB/s, %.1f %%", r->id, b->k[b->kof[i]].params,
		           r->median_ms, r->gbs, r->pct_copy);
		if (launch_bound(r)) /* a results file's number: bounded in print */
			buf_printf(o, ", launch-bound (%.3g us to launch, %.3g us to run)", r->launch_us,
			           r->median_ms * 1e3);
		nbound += launch_bound(r);
		buf_puts(o, "\n");
	}
	if (nbound)
		buf_printf(o, " * launch-bound entries: %s\n", report_launch_advice);
	buf_printf(o, " * %5zu  portable default: %s (%s), ", b->ng, b->k[b->kportable].id,
	           b->k[b->kportable].params);
	if (b->worst > 0)
		buf_printf(o, "at least %.1f %% of each tuned GPU's best\n", 100 * b->worst);
	else
		buf_puts(o, "the winner of the oldest GPU (none was timed on every GPU)\n");
	buf_printf(o, " *\n * Compile %s.cu once into the application, for every architecture "
	              "it holds:\n * nvcc flags: %s\n * The last adds PTX that the driver compiles "
	              "for GPUs newer than sm_%d%d; a GPU older than\n * sm_%d%d runs the portable "
	              "default only with its own, e.g. -gencode arch=compute_75,code=sm_75.\n",
	           b->base, gc.s, f->cc_major, f->cc_minor, old->cc_major, old->cc_minor);
	buf_printf(o, " * Use: %s_bundle_select_current(&choice) picks the entry for the current "
	              "device (%s_bundle_select\n * for a description); %s_bundle_setup(entry) once "
	              "per device; allocate the buffers (%s_bundle_BUF_count);\n * then %s_bundle_"
	              "launch(entry, ...).\n", b->kernel, b->kernel, b->kernel, b->kernel,
	           b->kernel);
	if (b->sized)
		buf_printf(o, " * A GPU tuned at several sizes has an entry for each: %s_bundle_at_size(entry, "
		              "...) picks the one\n * tuned nearest the problem size by the bytes moved "
		              "(log scale; beyond the range, the nearest end).\n", b->kernel);
	if (b->flags.len) {
		buf_puts(o, " *\n");
		buf_add(o, b->flags.s, b->flags.len);
	}
	buf_puts(o, " */\n");
	buf_free(&gc);
}

/* the selection, shared by every bundle (guarded) */
/* the selection every bundle's header holds (tuner/bundle_select.inc, embedded) */
extern const char bundle_select_inc[];

/* "float *out, float *in, long long n, ": the buffers the kernel takes, in its argument order,
   then the sizes */
static void launch_params(struct buf *o, const struct config *c)
{
	size_t i;

	for (i = 0; i < c->kernel.nargs; i++)
		if (c->kernel.args[i].buffer >= 0)
			buf_printf(o, "%s *%s, ", elem_name(c->buffers[c->kernel.args[i].buffer].type),
			           c->buffers[c->kernel.args[i].buffer].name);
	for (i = 0; i < c->nsizes; i++)
		buf_printf(o, "long long %s, ", c->sizes[i].name);
}

/* parameter vars of kernel variant k (and the tuned sizes) */
static void kvars(const struct bundle *b, size_t k, struct vars *v)
{
	size_t i;

	*v = b->sizes;
	for (i = 0; i < b->c->nparams; i++)
		vars_set(v, b->c->params[i].name, b->k[k].vals[i]);
}

static void params_only(const struct bundle *b, size_t k, struct vars *v)
{
	size_t i;

	memset(v, 0, sizeof *v);
	for (i = 0; i < b->c->nparams; i++)
		vars_set(v, b->c->params[i].name, b->k[k].vals[i]);
}

/* "switch (...) {" choosing the kernel variant of entry */
static void switch_variant(struct buf *o, const struct bundle *b)
{
	buf_printf(o, "\tswitch (entry >= 0 && entry < %zu ? %s_bundle_entries[entry].variant : "
	              "-1) {\n", b->ng + 1, b->kernel);
}

static void header(struct buf *o, const struct bundle *b)
{
	const struct config *c = b->c;
	char *uk = emit_upper(b->kernel), *pre = xasprintf("%s_bundle", b->kernel);
	size_t i, k;

	buf_printf(o, "#ifndef TUNER_%s_BUNDLE_H\n#define TUNER_%s_BUNDLE_H\n\n", uk, uk);
	buf_puts(o, "#include <stdio.h>\n#include <string.h>\n\n");
	emit_helpers(o);
	buf_puts(o, "\n");
	buf_puts(o, bundle_select_inc);
	buf_printf(o, "\n/* the tuned GPUs' entries, newest compute capability first, then the "
	              "portable default */\n#define %s_BUNDLE_ENTRIES %zu\n#define %s_BUNDLE_PORTABLE "
	              "%zu\n/* the distinct kernels they launch */\n#define %s_BUNDLE_VARIANTS %zu\n",
	           uk, b->ng + 1, uk, b->ng, uk, b->nk);
	buf_printf(o, "static const struct tuner_entry %s_bundle_entries[%s_BUNDLE_ENTRIES] = {\n",
	           b->kernel, uk);
	for (i = 0; i < b->ng; i++) {
		const struct tuned *g = &b->g[i];
		const struct results_variant *r = &g->rows[b->win[i]];
		buf_puts(o, "\t{");
		emit_cstr(o, g->name);
		buf_printf(o, ", %d, %d, %d, %zu, \"%s\", \"%s\", %.6g, %.6g, %.6g, 0, %.17g},\n",
		           g->cc_major, g->cc_minor, g->sms, b->kof[i], r->id, b->k[b->kof[i]].params,
		           r->median_ms, r->gbs, r->pct_copy, b->work[i]);
	}
	buf_printf(o, "\t{NULL, 0, 0, 0, %zu, \"%s\", \"%s\", 0, 0, 0, %.6g, 0},\n};\n", b->kportable,
	           b->k[b->kportable].id, b->k[b->kportable].params, 100 * b->worst);
	buf_printf(o, "\n/* the entry for GPU g (tuner_select), also in c */\n"
	              "static inline int %s_bundle_select(const struct tuner_gpu *g, "
	              "struct tuner_choice *c)\n{\n\treturn tuner_select(%s_bundle_entries, "
	              "%s_BUNDLE_ENTRIES, g, c);\n}\n", b->kernel, b->kernel, uk);

	buf_printf(o, "\n/* launch geometry of entry's kernel for the problem size on a GPU with sms "
	              "multiprocessors\n   (all 0 for an entry out of range) */\n"
	              "static inline void %s_bundle_geometry(int entry, ", b->kernel);
	emit_size_params(o, c);
	buf_puts(o, ", unsigned block[3],\n\t\tunsigned grid[3], unsigned *shared_bytes)\n{\n");
	emit_size_prelude(o, c, "\t");
	switch_variant(o, b);
	for (k = 0; k < b->nk; k++) {
		struct vars pv;
		params_only(b, k, &pv);
		buf_printf(o, "\tcase %zu: /* %s */\n", k, b->k[k].id);
		emit_geometry(o, c, &pv, "\t\t");
		buf_puts(o, "\t\treturn;\n");
	}
	buf_puts(o, "\t}\n\tblock[0] = block[1] = block[2] = grid[0] = grid[1] = grid[2] = 0;\n"
	            "\t*shared_bytes = 0;\n}\n");
	buf_printf(o, "\n/* the bytes entry's kernel moves at the problem size (the config's bytes; 0 "
	              "for an entry\n   out of range) */\nstatic inline double %s_work(int entry, ",
	           pre);
	emit_size_params(o, c);
	buf_puts(o, ")\n{\n");
	emit_size_prelude(o, c, "\t");
	switch_variant(o, b);
	for (k = 0; k < b->nk; k++) {
		struct vars pv;
		params_only(b, k, &pv);
		buf_printf(o, "\tcase %zu:\n\t\treturn (double)(", k);
		expr_print_c(c->bytes, &pv, o);
		buf_puts(o, ");\n");
	}
	buf_puts(o, "\t}\n\treturn 0;\n}\n");
	buf_printf(o, "\n/* the entry to launch at the problem size: of the entries of the GPU entry "
	              "(a selection)\n   was tuned on, the one tuned at the sizes nearest these by "
	              "the bytes moved (tuner_at_size) */\nstatic inline int %s_at_size(int entry, ",
	           pre);
	emit_size_params(o, c);
	buf_printf(o, ")\n{\n");
	if (b->sized)
		rel_table(o, b, uk);
	buf_printf(o, "\tdouble w[%s_BUNDLE_ENTRIES];\n\tint j;\n\n", uk);
	buf_printf(o, "\tfor (j = 0; j < %s_BUNDLE_ENTRIES; j++)\n\t\tw[j] = %s_work(j, ", uk, pre);
	for (i = 0; i < c->nsizes; i++)
		buf_printf(o, "%s, ", c->sizes[i].name);
	buf_printf(o, "sms);\n\treturn tuner_at_size(%s_bundle_entries, %s_BUNDLE_ENTRIES, entry, "
	              "w, %s);\n}\n", b->kernel, uk, b->sized ? "rel" : "NULL");

	buf_printf(o, "\n/* the buffers, in the config's order: for each buffer BUF, %s_BUF_count() "
	              "is its element count\n   for an entry, the problem size and the "
	              "multiprocessor count, %s_BUNDLE_BUF_ROLE its role (enum\n   tuner_role) and "
	              "%s_BUNDLE_BUF_ZERO 1 when it must be all zero before the first launch */\n",
	           pre, uk, uk);
	for (i = 0; i < c->nbuffers; i++) {
		emit_buffer_doc(o, c, i, pre);
		buf_printf(o, "static inline long long %s_%s_count(int entry, ", pre,
		           c->buffers[i].name);
		emit_size_params(o, c);
		buf_puts(o, ")\n{\n");
		emit_size_prelude(o, c, "\t");
		if (!emit_uses_params(c, c->buffers[i].count)) {
			buf_puts(o, "\t(void)entry;\n\treturn ");
			expr_print_c(c->buffers[i].count, NULL, o);
			buf_puts(o, ";\n}\n");
			continue;
		}
		switch_variant(o, b);
		for (k = 0; k < b->nk; k++) {
			struct vars pv;
			params_only(b, k, &pv);
			buf_printf(o, "\tcase %zu:\n\t\treturn ", k);
			expr_print_c(c->buffers[i].count, &pv, o);
			buf_puts(o, ";\n");
		}
		buf_puts(o, "\t}\n\treturn 0;\n}\n");
	}

	for (i = 0; i < c->nconstants; i++) {
		const struct constant *kc = &c->constants[i];
		struct vars kv;
		char *name;

		if (emit_uses_params(c, kc->count))
			continue; /* per kernel, in the source */
		name = xasprintf("%s_%s_values", pre, kc->name);
		buf_printf(o, "\n/* the values of __constant__ %s (%s_setup sets them) */\n", kc->name,
		           pre);
		kvars(b, 0, &kv);
		if (emit_constant_values(o, c, i, &kv, name) < 0)
			fatal("%s: the count of constant '%s', %s, has no value for the sizes tuned with",
			      b->g[0].cfgfile, kc->name, expr_src(kc->count));
		free(name);
	}
	buf_printf(o, "\n#if defined(__CUDACC__) || defined(__CUDA_RUNTIME_API_H__)\n"
	              "#ifdef __cplusplus\nextern \"C\" {\n#endif\n"
	              "/* the entry for the current device (its name, compute capability and "
	              "multiprocessor count);\n   -1, with the runtime's error in c->reason, when "
	              "there is none */\n"
	              "int %s_select_current(struct tuner_choice *c);\n"
	              "/* set entry's __constant__ values on the current device: once per device, "
	              "before its first launch */\n"
	              "cudaError_t %s_setup(int entry);\n"
	              "/* launch entry's kernel on stream, with %s_geometry for the current "
	              "device */\n"
	              "cudaError_t %s_launch(int entry, ", pre, pre, pre, pre);
	launch_params(o, c);
	buf_puts(o, "cudaStream_t stream);\n#ifdef __cplusplus\n}\n#endif\n#endif\n\n#endif\n");
	free(uk);
	free(pre);
}

/* the kernel call's arguments, in namespace ns */
static void call_args(struct buf *o, const struct bundle *b, size_t k)
{
	const struct config *c = b->c;
	struct vars pv;
	size_t i;

	params_only(b, k, &pv);
	for (i = 0; i < c->kernel.nargs; i++) {
		const struct arg *a = &c->kernel.args[i];
		buf_puts(o, i ? ", " : "");
		if (a->buffer >= 0) {
			buf_puts(o, c->buffers[a->buffer].name);
			continue;
		}
		buf_printf(o, "(%s)(", elem_name(a->type));
		expr_print_c(a->value, &pv, o);
		buf_puts(o, ")");
	}
}

static void source(struct buf *o, const struct bundle *b)
{
	const struct config *c = b->c;
	struct buf inc = {0}, body = {0}, undefs = {0};
	char *pre = xasprintf("%s_bundle", b->kernel), *uk = emit_upper(b->kernel);
	size_t i, k, j;

	bundle_template(b->g[0].tmpl, &body, &inc, &undefs);
	buf_printf(o, "#include \"%s.h\"\n", b->base);
	if (inc.len)
		buf_printf(o, "\n/* the template's includes, once for every namespace */\n%s", inc.s);
	for (k = 0; k < b->nk; k++) {
		struct variant v = {0};
		struct vars kv;
		buf_printf(o, "\n/* %s (%s): ", b->k[k].id, b->k[k].params);
		for (i = j = 0; i < b->ng; i++)
			if (b->kof[i] == k) {
				buf_puts(o, j++ ? ", " : "the winner on ");
				buf_safe(o, b->g[i].name, 0);
			}
		if (k == b->kportable)
			buf_puts(o, j ? "; the portable default" : "the portable default");
		buf_printf(o, " */\nnamespace tuner_%s_%s {\n", b->kernel, b->k[k].id);
		v.vals = b->k[k].vals;
		source_defines(o, c, &v);
		buf_add(o, body.s, body.len);
		if (body.len && body.s[body.len - 1] != '\n')
			buf_puts(o, "\n");
		for (i = 0; i < c->nparams; i++)
			buf_printf(o, "#undef %s\n", c->params[i].name);
		buf_add(o, undefs.s, undefs.len);
		kvars(b, k, &kv);
		for (i = 0; i < c->nconstants; i++) {
			char *name;
			if (!emit_uses_params(c, c->constants[i].count))
				continue; /* the same for every kernel, in the header */
			name = xasprintf("tuner_%s_values", c->constants[i].name);
			if (emit_constant_values(o, c, i, &kv, name) < 0)
				fatal("%s: the count of constant '%s', %s, has no value for %s", b->g[0].cfgfile,
				      c->constants[i].name, expr_src(c->constants[i].count), b->k[k].id);
			free(name);
		}
		buf_printf(o, "} /* namespace tuner_%s_%s */\n", b->kernel, b->k[k].id);
	}

	buf_printf(o, "\nextern \"C\" int %s_select_current(struct tuner_choice *c)\n{\n"
	              "\tstruct cudaDeviceProp p;\n\tstruct tuner_gpu g;\n\tint dev;\n"
	              "\tcudaError_t e;\n\n"
	              "\tif ((e = cudaGetDevice(&dev)) != cudaSuccess ||\n"
	              "\t    (e = cudaGetDeviceProperties(&p, dev)) != cudaSuccess) {\n"
	              "\t\tc->entry = -1;\n\t\tc->rule = TUNER_PORTABLE;\n"
	              "\t\tsnprintf(c->reason, sizeof c->reason, \"no device: %%s\", "
	              "cudaGetErrorString(e));\n\t\treturn -1;\n\t}\n"
	              "\tg.name = p.name;\n\tg.cc_major = p.major;\n\tg.cc_minor = p.minor;\n"
	              "\tg.sms = p.multiProcessorCount;\n\treturn %s_select(&g, c);\n}\n", pre, pre);

	buf_printf(o, "\nextern \"C\" cudaError_t %s_setup(int entry)\n{\n", pre);
	if (c->nconstants)
		buf_puts(o, "\tcudaError_t e;\n\n");
	switch_variant(o, b);
	for (k = 0; k < b->nk; k++) {
		buf_printf(o, "\tcase %zu:\n", k);
		for (i = 0; i < c->nconstants; i++) {
			const char *cn = c->constants[i].name;
			char *vals = emit_uses_params(c, c->constants[i].count)
			             ? xasprintf("tuner_%s_%s::tuner_%s_values", b->kernel, b->k[k].id, cn)
			             : xasprintf("%s_%s_values", pre, cn);
			buf_printf(o, "\t\tif ((e = cudaMemcpyToSymbol(tuner_%s_%s::%s, %s,\n"
			              "\t\t                            sizeof %s)) != cudaSuccess)\n"
			              "\t\t\treturn e;\n", b->kernel, b->k[k].id, cn, vals, vals);
			free(vals);
		}
		buf_puts(o, "\t\treturn cudaSuccess;\n");
	}
	buf_puts(o, "\t}\n\treturn cudaErrorInvalidValue;\n}\n");

	buf_printf(o, "\nextern \"C\" cudaError_t %s_launch(int entry, ", pre);
	launch_params(o, c);
	buf_puts(o, "cudaStream_t stream)\n{\n"
	            "\tconst long long sms = tuner_device_sms(), SMS = sms;\n"
	            "\tunsigned block[3], grid[3], smem;\n\tcudaError_t e;\n\n\t(void)SMS;\n");
	buf_puts(o, "\tif (sms < 1)\n\t\treturn (e = cudaGetLastError()) != cudaSuccess ? e : "
	            "cudaErrorNoDevice;\n");
	buf_printf(o, "\t%s_geometry(entry, ", pre);
	for (i = 0; i < c->nsizes; i++)
		buf_printf(o, "%s, ", c->sizes[i].name);
	buf_puts(o, "sms, block, grid, &smem);\n");
	switch_variant(o, b);
	for (k = 0; k < b->nk; k++) {
		char *fn = xasprintf("tuner_%s_%s::%s", b->kernel, b->k[k].id, c->kernel.entry);
		buf_printf(o, "\tcase %zu:\n\t\tif (smem > 48 * 1024 &&\n\t\t    (e = cudaFuncSetAttribute(%s, "
		              "cudaFuncAttributeMaxDynamicSharedMemorySize,\n\t\t                   "
		              "               (int)smem)) != cudaSuccess)\n\t\t\treturn e;\n"
		              "\t\t%s<<<dim3(grid[0], grid[1], grid[2]), dim3(block[0], block[1], "
		              "block[2]), smem,\n\t\t\tstream>>>(", k, fn, fn);
		call_args(o, b, k);
		buf_puts(o, ");\n\t\treturn cudaGetLastError();\n");
		free(fn);
	}
	buf_puts(o, "\t}\n\treturn cudaErrorInvalidValue;\n}\n");
	buf_free(&inc);
	buf_free(&body);
	buf_free(&undefs);
	free(pre);
	free(uk);
}

/* read the results (tuned_read's only, nonly) under dir, choose, and write the header and
   the source into h and s, as BASE.h and BASE.cu (base NULL: "<kernel>_bundle"); b is left
   to bundle_free */
static void make(struct bundle *b, const char *dir, char *const *only, size_t nonly,
                 const char *base, struct buf *h, struct buf *s)
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
	b->g = tuned_read(dir, only, nonly, &b->kernel, &b->flags, &b->ng);
	b->base = base ? xstrdup(base) : xasprintf("%s_bundle", b->kernel);
	load_config(b);
	choose(b);
	provenance(h, b, date);
	header(h, b);
	provenance(s, b, date);
	source(s, b);
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

	make(&b, dir, NULL, 0, NULL, &h, &s);
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

void bundle_points(const char *gpudir, const char *kernel, char *const *dirs, size_t n,
                   struct fileset *set)
{
	struct bundle b = {0};
	struct buf h = {0}, s = {0};

	b.kernel = xstrdup(kernel);
	make(&b, gpudir, dirs, n, "best", &h, &s);
	put(&b, gpudir, &h, &s, set);
	bundle_free(&b);
	buf_free(&h);
	buf_free(&s);
}
