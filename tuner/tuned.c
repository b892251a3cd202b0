/* tuned: the GPUs one kernel was tuned on, read from their results directories and checked
   against each other (tuner bundle's input). */
#include "tuned.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "results.h"
#include "util.h"

/* the text of file (NULL, errno set, when it cannot be read, is a link or passes 16 MiB) */
static char *slurp(const char *path, size_t *len)
{
	return file_read_nolink(path, 16 << 20, len);
}

/* 1 if path, as results from elsewhere record it, names a file of the kind what says (a
   config: .yaml or .yml; a template: .cu, .cuh, .h, .hpp): a results file leads the tuner to
   read no other file outside its directory */
static int recorded_kind(const char *path, const char *what)
{
	static const char *const cfg[] = {".yaml", ".yml"}, *const tmpl[] = {".cu", ".cuh", ".h",
	                                                                    ".hpp"};
	const char *dot = strrchr(path, '.');
	int config = !strcmp(what, "config");
	size_t i, n = config ? LEN(cfg) : LEN(tmpl);

	for (i = 0; dot && !strchr(dot, '/') && i < n; i++)
		if (!strcmp(dot, config ? cfg[i] : tmpl[i]))
			return 1;
	return 0;
}

/* read the copy (config or template) sources.<what> names into *text; check its hash */
static void read_copy(struct tuned *g, const char *what, const struct results_copy *c,
                      char **file, char **text, size_t *len)
{
	char got[20];

	if (!*c->copy || strchr(c->copy, '/') || !strcmp(c->copy, ".") || !strcmp(c->copy, ".."))
		fatal("%s: sources.%s: copy '%s' is not a file name in its directory", g->json, what,
		      util_show(c->copy));
	*file = xasprintf("%s/%s", g->dir, c->copy);
	if (g->mem) { /* the text the run wrote there, handed over */
		int cfg = !strcmp(what, "config");
		const char *m = cfg ? g->mem->cfg : g->mem->tmpl;
		*len = cfg ? g->mem->cfglen : strlen(m);
		*text = xstrndup(m, *len);
	} else if (!(*text = slurp(*file, len)))
		fatal("%s: cannot read the %s %s was tuned with (no %s to regenerate from):", *file,
		      what, util_show(g->name), what);
	snprintf(got, sizeof got, "%016llx",
	         (unsigned long long)hash_bytes(HASH_INIT, *text, *len));
	if (strcmp(got, c->fnv1a64))
		fatal("%s: changed since %s was tuned with it (fnv1a64 %s in %s, %s now): re-tune "
		      "there, or restore it", *file, util_show(g->name), util_show(c->fnv1a64), g->json,
		      got);
}

/* the config and template g was tuned with: the copies beside its results, or where the results
   were written by a tuner that kept none, the recorded config and its template as they are now */
static void read_sources(struct tuned *g)
{
	struct config *c;
	size_t errlen, n;
	char *err;

	if (g->res->copies) {
		read_copy(g, "config", &g->res->cfg, &g->cfgfile, &g->cfgtext, &g->cfglen);
		read_copy(g, "template", &g->res->tmpl, &g->tmplfile, &g->tmpl, &n);
		g->tmplpath = g->res->tmpl.path;
		return;
	}
	g->legacy = 1;
	g->cfgfile = xstrdup(g->config);
	if (!recorded_kind(g->config, "config"))
		fatal("%s: no copy of the config beside it (written by an older tuner), and the "
		      "config it names, '%s', is no .yaml or .yml file: not read (results lead the "
		      "tuner to no other file); re-tune", g->json, util_show(g->config));
	if (!(g->cfgtext = slurp(g->cfgfile, &g->cfglen)))
		fatal("%s: no copy of the config beside it (written by an older tuner), and the "
		      "config it names, '%s', cannot be read: no config to regenerate from:", g->json,
		      util_show(g->config));
	errlen = strlen(g->cfgfile) + 512;
	err = xmalloc(errlen);
	if (!(c = cfg_parse(g->cfgfile, g->cfgtext, g->cfglen, err, errlen)))
		fatal("%s: no copy of the config beside it (written by an older tuner), and the "
		      "config it names, '%s', is none this tuner reads (its text is not shown; "
		      "tuner --dry-run on it says why); re-tune", g->json, util_show(g->config));
	free(err);
	g->tmplfile = xstrdup(c->kernel.source);
	cfg_free(c);
	if (!(g->tmpl = slurp(g->tmplfile, &n)))
		fatal("%s: cannot read the template of %s:", g->tmplfile, g->cfgfile);
	warn("%s: written by an older tuner, without a copy of its config and template: "
	     "regenerating from '%s' as it is now (a change since tuning goes unnoticed)", g->json,
	     g->config);
}

/* exit 2 unless the verified variant i of g has a positive median, and numbers for its GB/s
   and % of copy (a null there says they were not finite) */
static void check_timing(const struct tuned *g, size_t i)
{
	const struct results_variant *r = &g->rows[i];

	if (r->status != ST_OK)
		return;
	if (isnan(r->median_ms))
		fatal("%s: variants[%zu]: 'median_ms' is not a number", g->json, i);
	if (!(r->median_ms > 0))
		fatal("%s: variants[%zu]: median_ms %g is not a positive time", g->json, i,
		      r->median_ms);
	if (isnan(r->gbs) || isnan(r->pct_copy))
		fatal("%s: variants[%zu]: '%s' is not a number", g->json, i,
		      isnan(r->gbs) ? "gbs" : "pct_copy");
}

/* read dir/results.json; 0 when it holds timed results of *kernel (NULL: the first results
   name it), -1 (said) when untimed */
static int read_gpu(struct tuned *g, char **kernel)
{
	struct results_error e;
	struct results *r;
	char msg[1024];
	size_t i;

	r = g->res = g->mem ? results_parse(g->mem->json, g->mem->json_len, 1, &e)
	                    : results_load(g->json, 1, &e);
	if (!r) {
		results_say(msg, sizeof msg, g->json, &e);
		fatal("%s", msg);
	}
	if (!*kernel)
		*kernel = xstrdup(r->kernel);
	if (strcmp(r->kernel, *kernel))
		fatal("%s: results of kernel '%s', not '%s': a different kernel's results in %s",
		      g->json, util_show(r->kernel), util_show(*kernel), g->dir);
	g->config = r->config;
	g->rows = r->v;
	g->nrows = r->n;
	for (i = 0; i < g->nrows; i++)
		check_timing(g, i);
	if (!r->timed) {
		note(1, "tuner: %s: skipped: compile-only results (nothing timed there)\n", g->dir);
		return -1;
	}
	g->name = r->gpu;
	g->cc_major = r->cc_major;
	g->cc_minor = r->cc_minor;
	g->sms = r->sms;
	read_sources(g);
	return 0;
}

static void gpu_free(struct tuned *g)
{
	results_free(g->res);
	free(g->dir);
	free(g->slug);
	free(g->json);
	free(g->cfgfile);
	free(g->cfgtext);
	free(g->tmplfile);
	free(g->tmpl);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* by compute capability (newest first), name, then the sizes (in the config's order) */
static int by_gpu(const void *a, const void *b)
{
	const struct tuned *x = a, *y = b;
	int cx = x->cc_major * 10 + x->cc_minor, cy = y->cc_major * 10 + y->cc_minor, d;
	size_t i;

	if (cx != cy)
		return cy - cx;
	if ((d = strcmp(x->name, y->name)))
		return d;
	for (i = 0; i < x->res->nsizes && i < y->res->nsizes; i++)
		if (x->res->sizes[i].val != y->res->sizes[i].val)
			return x->res->sizes[i].val < y->res->sizes[i].val ? -1 : 1;
	return 0;
}

/* the subdirectories of dir that hold a result: NAME (NAME/results.json), or for a GPU tuned
   at several points NAME/POINT for each point its results.json names (results_points) */
static char **entries(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL, msg[1024];
	struct results_error e;
	size_t k, np;

	if (!d)
		fatal("%s: cannot open the results directory:", dir);
	*n = 0;
	while ((de = readdir(d))) {
		char *j, **pts;
		if (de->d_name[0] == '.')
			continue;
		j = xasprintf("%s/%s/results.json", dir, de->d_name);
		if (access(j, F_OK) != 0) {
			free(j);
			continue;
		}
		if (!util_plain_name(de->d_name))
			fatal("%s/%s: not a name the tuner gives a GPU's directory: move it aside",
			      dir, util_show(de->d_name));
		if (!(pts = results_points(j, &np, &e)) && *e.text) {
			results_say(msg, sizeof msg, j, &e);
			fatal("%s", msg);
		}
		free(j);
		names = xreallocarray(names, *n + (pts ? np : 1) + 1, sizeof *names);
		if (!pts) {
			names[(*n)++] = xstrdup(de->d_name);
			continue;
		}
		for (k = 0; k < np; k++) {
			names[(*n)++] = xasprintf("%s/%s", de->d_name, pts[k]);
			free(pts[k]);
		}
		free(pts);
	}
	closedir(d);
	return names;
}

/* every subdirectory of dir with a results.json: the timed ones, sorted, *ng of them */
static struct tuned *scan(const char *dir, char *const *only, size_t nonly,
                          const struct tuned_text *mem, char **kernel, size_t *ng)
{
	struct tuned *gs;
	size_t n = nonly, i, k, found = 0;
	char **names;

	if (only) {
		names = xcalloc(nonly + 1, sizeof *names);
		for (i = 0; i < nonly; i++)
			names[i] = xstrdup(only[i]);
	} else
		names = entries(dir, &n);

	if (!n)
		fatal("%s: no results: no subdirectory holds a results.json (tune first: tuner "
		      "CONFIG writes OUT/<kernel>/<gpu>/results.json)", dir);
	qsort(names, n, sizeof *names, by_name);
	gs = xcalloc(n, sizeof *gs);
	*ng = 0;
	for (i = 0; i < n; i++) {
		struct tuned *g = &gs[*ng];
		memset(g, 0, sizeof *g);
		g->dir = xasprintf("%s/%s", dir, names[i]);
		g->slug = names[i];
		g->json = xasprintf("%s/results.json", g->dir);
		if (mem) { /* only[k] is this name */
			for (k = 0; strcmp(only[k], names[i]); k++)
				;
			g->mem = &mem[k];
		}
		found++;
		if (read_gpu(g, kernel) == 0) {
			++*ng;
			continue;
		}
		gpu_free(g);
	}
	free(names);
	if (!*ng)
		fatal("%s: nothing timed: its %zu result director%s hold%s compile-only results "
		      "(made without a GPU); tune on a GPU first", dir, found,
		      found == 1 ? "y" : "ies", found == 1 ? "s" : "");
	qsort(gs, *ng, sizeof *gs, by_gpu);
	return gs;
}

/* the recorded file path, as it is here, against the copy g was tuned with */
static void check_current(struct buf *flags, const struct tuned *g, const char *path,
                          const char *copy, const char *text, size_t len)
{
	size_t n;
	char *now;

	if (!path || g->legacy || !recorded_kind(path, copy == g->cfgfile ? "config" : "template"))
		return;
	if (!(now = slurp(path, &n))) {
		note(2, "tuner: %s: not here; the copy %s is what %s was tuned with\n", util_show(path),
		     copy, util_show(g->name));
		return;
	}
	if (n != len || memcmp(now, text, n)) {
		warn("%s changed since %s was tuned (%s is what was tuned): the bundle holds the "
		     "tuned copy; re-tune for the change", util_show(path), util_show(g->name), copy);
		buf_printf(flags, " * CHANGED since %s was tuned: %s (the bundle holds %s)\n",
		           util_show(g->name), util_show(path), util_show(copy));
	}
	free(now);
}

/* the texts every GPU was tuned with are the same; say where the files have changed since */
static void check_sources(struct tuned *gs, size_t ng, struct buf *flags)
{
	size_t i, j;

	for (i = 0; i < ng; i++) {
		struct tuned *g = &gs[i], *f = &gs[0];
		for (j = 0; j < i; j++)
			if (!strcmp(gs[j].name, g->name) && results_same_sizes(gs[j].res, g->res))
				fatal("%s: results for %s at the same sizes again (also in %s): one "
				      "directory per GPU and point", g->json, util_show(g->name), gs[j].dir);
		if (g->cfglen != f->cfglen || memcmp(g->cfgtext, f->cfgtext, f->cfglen))
			fatal("%s differs from %s: %s and %s were tuned with different configs; re-tune "
			      "one of them (or bundle them apart)", g->cfgfile, f->cfgfile,
			      util_show(g->name), util_show(f->name));
		if (strcmp(g->tmpl, f->tmpl))
			fatal("%s differs from %s: %s and %s were tuned with different templates; "
			      "re-tune one of them (or bundle them apart)", g->tmplfile, f->tmplfile,
			      util_show(g->name), util_show(f->name));
		for (j = 0; j < i && strcmp(gs[j].name, g->name); j++)
			;
		if (j == i && !results_same_sizes(g->res, f->res)) { /* a GPU's first point */
			warn("%s: %s was tuned with other sizes than %s", g->json, util_show(g->name),
			     util_show(f->name));
			buf_printf(flags, " * %s was tuned with other sizes than %s\n",
			           util_show(g->name), util_show(f->name));
		}
		check_current(flags, g, g->config, g->cfgfile, g->cfgtext, g->cfglen);
		check_current(flags, g, g->tmplpath, g->tmplfile, g->tmpl, strlen(g->tmpl));
		if (g->legacy)
			buf_printf(flags, " * %s: results without copies of the config and template "
			           "(an older tuner): regenerated from %s as it was at bundling\n",
			           util_show(g->name), util_show(g->config));
	}
}

struct tuned *tuned_read(const char *dir, char *const *only, size_t nonly, char **kernel,
                         struct buf *flags, size_t *n)
{
	return tuned_read_mem(dir, only, nonly, NULL, kernel, flags, n);
}

struct tuned *tuned_read_mem(const char *dir, char *const *only, size_t nonly,
                             const struct tuned_text *mem, char **kernel, struct buf *flags,
                             size_t *n)
{
	struct tuned *g = scan(dir, only, nonly, mem, kernel, n);

	check_sources(g, *n, flags);
	return g;
}

void tuned_free(struct tuned *g, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		gpu_free(&g[i]);
	free(g);
}
