/* points: tuning at several problem sizes, a run each, then the points side by side. */
#include "points.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bundle.h"
#include "html.h"
#include "listing.h"
#include "measure.h"
#include "params.h"
#include "nvrtc.h"
#include "report.h"
#include "results.h"
#include "run.h"
#include "space.h"
#include "spec.h"
#include "tune.h"
#include "tuned.h"
#include "util.h"
#include "winner.h"

/* what one point's run leaves for the others */
struct point {
	char *label, *dir;        /* "n=4096 m=2", its directory */
	int64_t *vals;            /* its sizes, in the config's order */
	int timed;
	size_t n;                 /* variants (every one of its space) */
	char (*id)[40];
	size_t *by;               /* the indices in the order of their ids */
	double *ms;               /* median, NAN where not verified and timed */
	unsigned char *tie;       /* a tie of the winner (or the winner) */
	long win;                 /* the winner's index, -1: none */
	double best;              /* the winner's median, NAN: none */
	double bytes;             /* the winner's bytes moved per launch */
	struct tuned_text text;   /* its results.json, config and template texts (the bundle's) */
};

/* x's median where it or the variant timed for it (a twin) was verified and timed */
static double median_of(const struct result *r, const struct result *x)
{
	if (x->status == ST_OK ||
	    ((x->status == ST_TWIN || x->status == ST_COLLAPSED) && x->twin >= 0 &&
	     r[x->twin].status == ST_OK))
		return result_run(x)->t.median_ms;
	return NAN;
}

static void keep(struct point *p, struct run *t)
{
	size_t i;

	p->text.json = t->json; /* moved: tune_free frees it no more */
	p->text.json_len = t->json_len;
	t->json = NULL;
	p->text.cfg = xstrndup(t->cfgtext, t->cfglen);
	p->text.cfglen = t->cfglen;
	p->text.tmpl = xstrdup(t->tmpl);

	p->label = xstrdup(t->label);
	p->vals = xcalloc(t->c->nsizes + 1, sizeof *p->vals);
	for (i = 0; i < t->c->nsizes; i++)
		p->vals[i] = t->c->sizes[i].val;
	p->dir = xstrdup(t->dir);
	p->timed = t->ri.timed;
	p->n = t->s.n;
	p->id = xcalloc(p->n + 1, sizeof *p->id);
	p->ms = xcalloc(p->n + 1, sizeof *p->ms);
	p->tie = xcalloc(p->n + 1, 1);
	p->win = t->winner ? (long)t->winner - 1 : -1;
	for (i = 0; i < p->n; i++) {
		memcpy(p->id[i], t->s.v[i].id, sizeof p->id[i]);
		p->ms[i] = median_of(t->r, &t->r[i]);
		p->tie[i] = t->r[i].tie || (long)i == p->win;
	}
	p->by = space_id_order((const char (*)[40])p->id, p->n);
	/* the reference at this point: the winner's median as every variant was timed (not
	   the play-off's), so that every number of the table is measured alike */
	p->best = p->win >= 0 ? p->ms[p->win] : NAN;
	if (p->win >= 0)
		p->bytes = (double)t->s.v[p->win].bytes;
}

static void point_free(struct point *p)
{
	free(p->text.json);
	free(p->text.cfg);
	free(p->text.tmpl);
	free(p->label);
	free(p->vals);
	free(p->dir);
	free(p->id);
	free(p->by);
	free(p->ms);
	free(p->tie);
}

/* the index of variant id at point p, or -1: where it is at the index `hint` (the spaces of
   two points are alike unless a parameter's values follow the sizes), else by bisection */
static long find(const struct point *p, const char *id, size_t hint)
{
	if (hint < p->n && !strcmp(p->id[hint], id))
		return (long)hint;
	return space_id_find((const char (*)[40])p->id, p->by, p->n, id);
}

/* how variant id (at index hint in another point) runs at point p: % of the speed of p's
   winner (NAN: not timed there) */
static double pct_at(const struct point *p, const char *id, size_t hint)
{
	long i = find(p, id, hint);

	return i >= 0 && p->ms[i] > 0 ? 100 * p->best / p->ms[i] : NAN;
}

/* the points side by side */
struct side {
	struct point *p;
	size_t np;
	double *m;                /* m[i * np + j]: point j's winner at point i, % of the speed of
	                             i's winner */
	long single;              /* at point 0: the variant whose lowest % over the points is
	                             highest, timed at every point; -1: none */
	double *single_pct;       /* its % at each point */
	int single_ties;          /* it is the winner or a tie of it at every point */
};

static void side_make(struct side *s)
{
	const struct point *p0 = &s->p[0];
	double *pct = xcalloc(s->np * p0->n + 1, sizeof *pct);
	size_t i, j, v;

	s->m = xcalloc(s->np * s->np, sizeof *s->m);
	for (i = 0; i < s->np; i++)
		for (j = 0; j < s->np; j++)
			s->m[i * s->np + j] = s->p[j].win >= 0 ? pct_at(&s->p[i], s->p[j].id[s->p[j].win],
			                                                (size_t)s->p[j].win) : NAN;
	for (i = 0; i < s->np; i++) /* how each of the first point's variants runs at each */
		for (v = 0; v < p0->n; v++)
			pct[i * p0->n + v] = pct_at(&s->p[i], p0->id[v], v);
	s->single = winner_single(pct, s->np, p0->n);
	free(pct);
	s->single_pct = xcalloc(s->np, sizeof *s->single_pct);
	s->single_ties = s->single >= 0;
	for (i = 0; s->single >= 0 && i < s->np; i++) {
		long k = find(&s->p[i], p0->id[s->single], (size_t)s->single);
		s->single_pct[i] = pct_at(&s->p[i], p0->id[s->single], (size_t)s->single);
		s->single_ties &= k >= 0 && s->p[i].tie[k];
	}
}

/* the geometric mean over the points of (the point's winner's % / the single variant's %) */
static double gain(const struct side *s)
{
	double g = 0;
	size_t i;

	if (s->single < 0)
		return NAN;
	for (i = 0; i < s->np; i++)
		g += log(s->m[i * s->np + i] / s->single_pct[i]);
	return 100 * (exp(g / (double)s->np) - 1);
}

static void table(FILE *f, const struct side *s, const char *gpu)
{
	size_t i, j;

	fprintf(f, "\ntuner: %zu points on %s: each point's winner (column) at each point (row), "
	           "%% of the speed of that point's winner:\n%-22s", s->np, gpu, "");
	for (j = 0; j < s->np; j++)
		fprintf(f, " %12.12s", s->p[j].label);
	fputc('\n', f);
	for (i = 0; i < s->np; i++) {
		fprintf(f, "%-22.22s", s->p[i].label);
		for (j = 0; j < s->np; j++) {
			double x = s->m[i * s->np + j];
			if (x == x)
				fprintf(f, " %12.1f", x);
			else
				fprintf(f, " %12s", "-");
		}
		fputc('\n', f);
	}
	if (s->single < 0) {
		fprintf(f, "no variant was timed at every point\n");
		return;
	}
	fprintf(f, "the best single variant, %s, runs at", s->p[0].id[s->single]);
	for (i = 0; i < s->np; i++)
		fprintf(f, "%s %.1f %%", i ? "," : "", s->single_pct[i]);
	fprintf(f, "; choosing by size gains %.1f %% (geometric mean over the points)%s\n", gain(s),
	        s->single_ties ? "; it ties every point's winner: emitted alone" : "");
}

static void json_num(struct buf *b, double x)
{
	if (x == x && x != INFINITY && x != -INFINITY)
		buf_printf(b, "%.6g", x);
	else
		buf_puts(b, "null");
}

/* what the GPU directory's files are written from: the points side by side, the first
   point's run, the GPU's name, what best.cu holds ("single", "by size"; NULL: none) */
struct gpudir {
	const struct side *s;
	const struct run *t;
	const char *gpu, *emitted;
};

/* the GPU directory's results.json: the points, the side-by-side table, the single variant */
static void json(struct buf *b, const struct gpudir *g)
{
	const struct side *s = g->s;
	const struct run *t = g->t;
	const struct config *c = t->c;
	const char *gpu = g->gpu, *emitted = g->emitted;
	size_t i, j, k;
	buf_puts(b, "{\n  \"kernel\": ");
	buf_json_str(b, c->name);
	buf_puts(b, ",\n  \"config\": ");
	buf_json_str(b, c->path);
	buf_puts(b, ",\n  \"gpu\": ");
	buf_json_str(b, gpu);
	buf_printf(b, ",\n  \"timed\": %s,\n  \"date\": \"%s\",\n  \"points\": [",
	           t->ri.timed ? "true" : "false", t->ri.date);
	for (i = 0; i < s->np; i++) {
		const struct point *p = &s->p[i];
		const char *slash = strrchr(p->dir, '/');
		buf_printf(b, "%s\n    {\"sizes\": {", i ? "," : "");
		for (k = 0; k < c->nsizes; k++) {
			buf_puts(b, k ? ", " : "");
			buf_json_str(b, c->sizes[k].name);
			buf_printf(b, ": %lld", (long long)p->vals[k]);
		}
		buf_puts(b, "}, \"label\": ");
		buf_json_str(b, p->label);
		buf_puts(b, ", \"dir\": ");
		buf_json_str(b, slash ? slash + 1 : p->dir);
		buf_puts(b, ", \"winner\": ");
		if (p->win >= 0) {
			buf_json_str(b, p->id[p->win]);
			buf_puts(b, ", \"median_ms\": ");
			json_num(b, p->ms[p->win]);
			buf_puts(b, ", \"bytes\": ");
			json_num(b, p->bytes);
		} else
			buf_puts(b, "null");
		buf_puts(b, "}");
	}
	buf_puts(b, "\n  ],\n  \"winners_at_points\": {\"about\": \"pct[i][j]: point j's winner at point "
	            "i, % of the speed of point i's winner (medians as every variant was timed; "
	            "null: not timed there)\", \"pct\": [");
	for (i = 0; i < s->np; i++) {
		buf_puts(b, i ? ", [" : "[");
		for (j = 0; j < s->np; j++) {
			buf_puts(b, j ? ", " : "");
			json_num(b, s->m ? s->m[i * s->np + j] : NAN); /* untimed: none */
		}
		buf_puts(b, "]");
	}
	buf_puts(b, "]},\n  \"single\": ");
	if (s->single >= 0) {
		buf_puts(b, "{\"id\": ");
		buf_json_str(b, s->p[0].id[s->single]);
		buf_puts(b, ", \"pct\": [");
		for (i = 0; i < s->np; i++) {
			buf_puts(b, i ? ", " : "");
			json_num(b, s->single_pct[i]);
		}
		buf_printf(b, "], \"ties_every_winner\": %s, \"gain_pct\": ",
		           s->single_ties ? "true" : "false");
		json_num(b, gain(s));
		buf_puts(b, "}");
	} else
		buf_puts(b, "null");
	buf_puts(b, ",\n  \"emitted\": ");
	if (emitted)
		buf_json_str(b, emitted);
	else
		buf_puts(b, "null");
	buf_puts(b, "\n}\n");
}

static void write_json(FILE *f, const struct gpudir *g)
{
	struct buf b = {0};

	json(&b, g);
	buf_spill(&b, f, 0, "results.json");
	buf_free(&b);
}

/* the variant id of t (the first point's run) alone as GPUDIR/best.cu and best.h, into set */
static void emit_single(struct run *t, struct fileset *set, const char *gpudir, const char *id)
{
	size_t i;

	for (i = 0; i < t->s.n && strcmp(t->s.v[i].id, id); i++)
		;
	if (i == t->s.n)
		die("variant %s is not in the first point's space", id);
	tune_emit(t, set, gpudir, i, "best");
}

/* the GPU directory's report.html (html.h) */
static void write_page(FILE *f, const struct gpudir *g)
{
	const struct side *s = g->s;
	const char **label = xcalloc(s->np, sizeof *label), **dir = xcalloc(s->np, sizeof *dir);
	const char **win = xcalloc(s->np, sizeof *win);
	struct html_points hp = {g->t->c->name, g->gpu, s->np, label, dir, win, s->m,
	                         s->single >= 0 ? s->p[0].id[s->single] : NULL, s->single_pct,
	                         s->m ? gain(s) : NAN, s->single_ties};
	size_t i;

	for (i = 0; i < s->np; i++) {
		label[i] = s->p[i].label;
		dir[i] = strrchr(s->p[i].dir, '/') + 1;
		win[i] = s->p[i].win >= 0 ? s->p[i].id[s->p[i].win] : NULL;
	}
	html_points(f, &hp);
	free(label);
	free(dir);
	free(win);
}

/* the GPU directory's files beside best.cu and best.h, in the order they are written, each
   by one function into its temporary (tune_file), as tune.c's writers[] */
static const struct points_writer {
	const char *file;
	void (*write)(FILE *f, const struct gpudir *g);
} writers[] = {
	{"report.html", write_page},      /* html.h */
	{"results.json", write_json},
};

/* a copy of the --size list (each run frees its own) */
static char **dup_sizes(char **v, size_t n)
{
	char **d = xcalloc(n + 1, sizeof *d);

	memcpy(d, v, n * sizeof *d);
	return d;
}

void points_load(struct run *t, const struct run *base, size_t i)
{
	memset(t, 0, sizeof *t);
	t->t0 = now_s();
	t->o = base->o;
	t->o.sizes = base->o.nsizes ? dup_sizes(base->o.sizes, base->o.nsizes) : NULL;
	t->o.point = i;
	tune_load_from(t, base);
}

/* every point loaded and its space expanded as --dry-run does, under the architecture's
   limits, before the first is tuned: a size that a buffer, an argument or a parameter cannot
   take at any point ends the run before anything is compiled or written */
static void points_check(const struct run *base)
{
	const char *arch = base->o.arch ? base->o.arch : nv_newest_arch();
	size_t i;

	for (i = 0; i < base->npoints && !run_stop; i++) {
		struct run tp;
		points_load(&tp, base, i);
		tp.o.dry_run = 1;
		space_arch_limits(arch, &tp.lim);
		tune_expand(&tp);
		tune_free(&tp);
	}
}

/* the files a single run leaves in its GPU directory, which a points run's set replaces (the
   points' own are in their directories) */
static const char *const single_files[] = {
	"results.csv", "results.t4.json", RESULTS_CONFIG_COPY, RESULTS_TEMPLATE_COPY, "journal",
	"best.cu", "best.h",
};

/* the GPU directory's set committed under its lock, with what a single run or an earlier
   points run left there and this one does not write removed */
static void gpudir_commit(struct fileset *set, const char *gpudir)
{
	size_t i, k;
	int lock = tune_lock(gpudir);
	const char *pause = getenv("TUNER_TEST_RENAME_PAUSE"); /* for the tests: a wider window */

	set->pause_ms = pause ? atoi(pause) : 0;

	for (i = 0; i < sizeof single_files / sizeof *single_files; i++) {
		char *p = xasprintf("%s/%s", gpudir, single_files[i]);
		for (k = 0; k < set->n && strcmp(fileset_path(set, k), p); k++)
			;
		if (k == set->n)
			fileset_drop(set, p);
		free(p);
	}
	if (fileset_commit(set) < 0)
		fatal("cannot write '%s':", set->failed);
	close(lock);
}

/* a dry run's point: its variants, and the search it would make where the point before did
   not say the same (*said: the count of kept variants it was said for) */
static void dry_point(struct run *tp, const struct run_opts *o, size_t *said)
{
	printf("at %s:\n", tp->label);
	listing_print(stdout, tp->c, &tp->s, o->list_dropped, tp->obs);
	if (verbosity >= 1 && *said != tp->s.nkept) {
		*said = tp->s.nkept;
		char what[256];
		tune_search_text(tp, what, sizeof what);
		printf("%s\n", what);
	}
}

/* the GPU directory's best.cu and best.h into set: the one variant that ties every point's
   winner, or the points' winners chosen by size; what was emitted ("single", "by size"), or
   NULL where a point has no winner */
static const char *emit_best(const struct side *s, struct run *first, struct fileset *set,
                             const char *gpudir, const char *config)
{
	char **dirs;
	struct tuned_text *text;
	size_t i;

	for (i = 0; i < s->np && s->p[i].win >= 0; i++)
		;
	if (i < s->np) { /* a point without a winner: nothing to choose from there */
		warn("%s: no variant verified at %s: no best.cu chooses by size (each other "
		     "point's best.cu is in its directory)", config, s->p[i].label);
		return NULL;
	}
	if (s->single >= 0 && s->single_ties) {
		emit_single(first, set, gpudir, s->p[0].id[s->single]);
		return "single";
	}
	dirs = xcalloc(s->np, sizeof *dirs);
	text = xcalloc(s->np, sizeof *text);
	for (i = 0; i < s->np; i++) {
		dirs[i] = strrchr(s->p[i].dir, '/') + 1;
		text[i] = s->p[i].text;
	}
	bundle_points(gpudir, first->c->name, dirs, s->np, text, set);
	free(dirs);
	free(text);
	return "by size";
}

int points_run(struct run *t)
{
	struct run_opts o = t->o;
	size_t np = t->npoints, i;
	struct point *p = xcalloc(np, sizeof *p);
	struct report_rows **rows = xcalloc(np, sizeof *rows); /* untimed: the points' table's */
	struct side s = {p, np, NULL, -1, NULL, 0};
	struct fileset set = {0};
	char *gpudir = NULL, *gpu = NULL;
	const char *emitted = NULL;
	int rc = 0, timed = 1;
	size_t done = 0, said = SIZE_MAX;
	struct run first = {0};

	if (o.shard_n)
		fatal("%s: --shard with %zu points to tune at: shard one point at a time (--size "
		      "NAME=N)", o.config, np);
	if (o.emit)
		fatal("%s: --emit with %zu points to tune at: name one point (--size NAME=N)",
		      o.config, np);
	o.sizes = o.nsizes ? dup_sizes(o.sizes, o.nsizes) : NULL;
	points_check(t); /* t, loaded at the first point, is every point's base: freed at the end */
	for (i = 0; i < np && !run_stop; i++) {
		struct run tp;
		int r;

		points_load(&tp, t, i);
		tp.first = i ? &first : NULL;
		tp.keep_json = 1; /* for the points' best.cu, from memory (bundle_points) */
		note(1, "tuner: point %zu of %zu: %s\n", i + 1, np, tp.label);
		tune_target(&tp);
		tune_expand(&tp);
		if (o.dry_run) {
			dry_point(&tp, &o, &said);
			tune_free(&tp);
			continue;
		}
		if (run_stop) {
			tune_free(&tp);
			break;
		}
		tune_run(&tp);
		r = tune_finish(&tp);
		if (r > rc)
			rc = r;
		keep(&p[done++], &tp);
		timed &= tp.ri.timed;
		if (!tp.ri.timed && verbosity >= 1) { /* for the points' table */
			size_t *order = winner_rank(tp.r, tp.s.n);
			rows[done - 1] = report_rows_new(tp.c, &tp.s, tp.r, order, p[done - 1].label);
			free(order);
		}
		if (!gpudir) {
			gpudir = xasprintf("%s/%s/%s", o.outdir, tp.c->name, tp.ri.slug);
			gpu = xstrdup(tp.ri.timed ? tp.ri.gpu.name : tp.ri.slug);
		}
		if (i == 0) {
			first = tp; /* kept for the GPU directory's files */
			first.ri.why_untimed = first.why;
		}
		else
			tune_free(&tp);
	}
	if (o.dry_run || run_stop || done < np) {
		if (first.m)
			measure_rebind(first.m, &first);
		if (first.c)
			tune_free(&first);
		goto out;
	}
	if (!timed && verbosity >= 1)
		report_points(stdout, first.c, rows, np, &first.ri);
	if (timed) {
		side_make(&s);
		if (verbosity >= 1)
			table(stdout, &s, gpu);
		emitted = emit_best(&s, &first, &set, gpudir, o.config);
	}
	for (i = 0; i < sizeof writers / sizeof *writers; i++) { /* untimed: the points' links */
		struct gpudir g = {&s, &first, gpu, emitted};
		writers[i].write(tune_file(&set, gpudir, writers[i].file), &g);
	}
	gpudir_commit(&set, gpudir);
	if (emitted)
		note(0, "tuner: %zu points: %s -> %s/best.cu and best.h (%s)\n", np,
		     emitted[0] == 's' ? "one variant ties every point's winner" :
		                         "each point's winner, chosen by size",
		     gpudir, emitted);
	note(1, "tuner: the points side by side in %s/results.json\n", gpudir);
	if (first.m)
		measure_rebind(first.m, &first); /* back to its owner, which closes it */
	tune_free(&first);
out:
	fileset_free(&set);
	for (i = 0; i < done; i++) {
		point_free(&p[i]);
		report_rows_free(rows[i]);
	}
	free(rows);
	free(p);
	free(s.m);
	free(s.single_pct);
	free(gpudir);
	free(gpu);
	free(o.sizes);
	tune_free(t);
	if (run_stop)
		return EXIT_INTERRUPT;
	return rc;
}
