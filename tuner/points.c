/* points: tuning at several problem sizes, a run each, then the points side by side. */
#include "points.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
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
#include "midsize.h"
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
	unsigned char *twin;      /* timed as another variant's twin, not itself */
	int flushed;              /* its samples flushed the L2 first (timing_l2_flush) */
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
	p->flushed = t->ri.l2_flush;
	p->n = t->s.n;
	p->id = xcalloc(p->n + 1, sizeof *p->id);
	p->ms = xcalloc(p->n + 1, sizeof *p->ms);
	p->tie = xcalloc(p->n + 1, 1);
	p->twin = xcalloc(p->n + 1, 1);
	p->win = t->winner ? (long)t->winner - 1 : -1;
	for (i = 0; i < p->n; i++) {
		memcpy(p->id[i], t->s.v[i].id, sizeof p->id[i]);
		p->ms[i] = median_of(t->r, &t->r[i]);
		p->tie[i] = t->r[i].tie || (long)i == p->win;
		p->twin[i] = t->r[i].status == ST_TWIN || t->r[i].status == ST_COLLAPSED;
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
	free(p->twin);
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
	int alone;                /* and at every midpoint: best.cu holds it alone */
	const char *slow_at;      /* the first midpoint where it is neither (NULL: none) */
	double slow_pct;          /* its % of the speed of the fastest candidate there */
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
	fprintf(f, "; choosing by size gains %.1f %% (geometric mean over the points)%s", gain(s),
	        s->single_ties ? "; it ties every point's winner" : "");
	if (s->single_ties && s->slow_at)
		fprintf(f, ", not the fastest at the midpoint %s (%.1f %%): chosen by size", s->slow_at,
		        s->slow_pct);
	fprintf(f, "%s\n", s->alone ? ": emitted alone" : "");
}

static void json_num(struct buf *b, double x)
{
	if (x == x && x != INFINITY && x != -INFINITY)
		buf_printf(b, "%.6g", x);
	else
		buf_puts(b, "null");
}

/* the midpoints of a points run: a size between each two points next to each other by the
   bytes they move, tuned over a few candidates (--midpoints) for best.cu's choice there */
struct mid {
	size_t lo, hi;            /* its two points (indices in the run's points) */
	struct vsize v;           /* its sizes and label (v.loc unset) */
};
struct mids {
	struct mid *m;
	size_t n;
	struct point *p;          /* the tuned ones (done of them), in m's order */
	size_t *of;               /* the m each of them is */
	size_t done;
};

/* what the GPU directory's files are written from: the points side by side, the first
   point's run, the GPU's name, what best.cu holds ("single", "by size"; NULL: none), the
   midpoints */
struct gpudir {
	const struct side *s;
	const struct run *t;
	const char *gpu, *emitted;
	const struct mids *mids;
};

/* the variants verified and timed at p (twins but once) */
static size_t n_timed(const struct point *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->n; i++)
		n += p->ms[i] > 0 && !p->twin[i];
	return n;
}

/* one point's object of the GPU directory's results.json (without its closing brace) */
static void json_point(struct buf *b, const struct config *c, const struct point *p)
{
	const char *slash = strrchr(p->dir, '/');
	size_t k;

	buf_puts(b, "{\"sizes\": {");
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
}

/* the GPU directory's results.json: the points, the side-by-side table, the single variant,
   the midpoints */
static void json(struct buf *b, const struct gpudir *g)
{
	const struct side *s = g->s;
	const struct run *t = g->t;
	const struct config *c = t->c;
	const struct mids *md = g->mids;
	const char *gpu = g->gpu, *emitted = g->emitted;
	size_t i, j;
	buf_puts(b, "{\n  \"kernel\": ");
	buf_json_str(b, c->name);
	buf_puts(b, ",\n  \"config\": ");
	buf_json_str(b, c->path);
	buf_puts(b, ",\n  \"gpu\": ");
	buf_json_str(b, gpu);
	buf_printf(b, ",\n  \"timed\": %s,\n  \"date\": \"%s\",\n  \"points\": [",
	           t->ri.timed ? "true" : "false", t->ri.date);
	for (i = 0; i < s->np; i++) {
		buf_puts(b, i ? ",\n    " : "\n    ");
		json_point(b, c, &s->p[i]);
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
		buf_printf(b, "], \"ties_every_winner\": %s, \"alone\": %s, \"gain_pct\": ",
		           s->single_ties ? "true" : "false", s->alone ? "true" : "false");
		json_num(b, gain(s));
		buf_puts(b, "}");
	} else
		buf_puts(b, "null");
	buf_puts(b, ",\n  \"midpoints\": [");
	for (i = 0; md && i < md->done; i++) {
		const struct mid *m = &md->m[md->of[i]];
		buf_puts(b, i ? ",\n    " : "\n    ");
		json_point(b, c, &md->p[i]);
		buf_puts(b, ", \"between\": [");
		buf_json_str(b, s->p[m->lo].label);
		buf_puts(b, ", ");
		buf_json_str(b, s->p[m->hi].label);
		buf_printf(b, "], \"timed\": %zu}", n_timed(&md->p[i]));
	}
	buf_puts(b, md && md->done ? "\n  ],\n  \"emitted\": " : "],\n  \"emitted\": ");
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
	const struct mids *md = g->mids;
	size_t nm = md ? md->done : 0;
	const char **ml = xcalloc(5 * nm + 1, sizeof *ml);
	const char **label = xcalloc(s->np, sizeof *label), **dir = xcalloc(s->np, sizeof *dir);
	const char **win = xcalloc(s->np, sizeof *win);
	struct html_points hp = {g->t->c->name, g->gpu, s->np, label, dir, win, s->m,
	                         s->single >= 0 ? s->p[0].id[s->single] : NULL, s->single_pct,
	                         s->m ? gain(s) : NAN, s->alone, 0, NULL, NULL, NULL, NULL, NULL};
	size_t i;

	for (i = 0; i < s->np; i++) {
		label[i] = s->p[i].label;
		dir[i] = strrchr(s->p[i].dir, '/') + 1;
		win[i] = s->p[i].win >= 0 ? s->p[i].id[s->p[i].win] : NULL;
	}
	hp.nmid = nm;
	hp.mid_label = ml;
	hp.mid_dir = ml + nm;
	hp.mid_winner = ml + 2 * nm;
	hp.mid_lo = ml + 3 * nm;
	hp.mid_hi = ml + 4 * nm;
	for (i = 0; i < nm; i++) {
		const struct point *q = &md->p[i];
		ml[i] = q->label;
		ml[nm + i] = strrchr(q->dir, '/') + 1;
		ml[2 * nm + i] = q->win >= 0 ? q->id[q->win] : NULL;
		ml[3 * nm + i] = s->p[md->m[md->of[i]].lo].label;
		ml[4 * nm + i] = s->p[md->m[md->of[i]].hi].label;
	}
	html_points(f, &hp);
	free(ml);
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

/* 0 where base's run at point i (of the points base holds) loads and keeps a variant as
   --dry-run expands it, under arch's limits; checked in a child, whose errors are not said
   (its exit ends the child only) */
static int point_loads(const struct run *base, size_t i, const char *arch)
{
	pid_t pid;
	int st = 0, fd;

	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		struct run tp;
		if ((fd = open("/dev/null", O_WRONLY)) >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		points_load(&tp, base, i);
		tp.o.dry_run = 1;
		space_arch_limits(arch, &tp.lim);
		tune_expand(&tp);
		_exit(tp.s.nkept ? 0 : 3);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* *wide: base with md's midpoints after its points (points_load loads midpoint i as point
   base->npoints + i); the points' array it holds (malloc'd: the caller frees it, not what it
   points to) */
static struct vsize *mids_widen(const struct run *base, const struct mids *md, struct run *wide)
{
	size_t np = base->npoints, i;
	struct vsize *all = xcalloc(np + md->n + 1, sizeof *all);

	memcpy(all, base->pts, np * sizeof *all);
	for (i = 0; i < md->n; i++)
		all[np + i] = md->m[i].v;
	*wide = *base;
	wide->pts = all;
	wide->npoints = np + md->n;
	return all;
}

/* the midpoints of base's points (md->m, md->n), p their runs, first the first's: the points
   ordered by the bytes their winners move, between each two next to each other the sizes
   mid_sizes gives, where they differ from both and from every point, and base's config takes
   them (for the architecture the points were tuned for) */
static void mids_plan(const struct run *base, const struct point *p, const struct run *first,
                      struct mids *md)
{
	const char *arch = first->ri.arch;
	const struct config *c = base->c;
	size_t np = base->npoints, *o = xcalloc(np, sizeof *o), i, j, k;
	struct run wide;
	struct vsize *all;

	for (i = 0; i < np; i++) /* insertion: a few points, ties kept in their order */
		for (j = i, o[i] = i; j > 0 && p[o[j - 1]].bytes > p[i].bytes; j--) {
			o[j] = o[j - 1];
			o[j - 1] = i;
		}
	md->m = xcalloc(np, sizeof *md->m);
	for (i = 0; i + 1 < np && base->o.mid; i++) {
		struct mid *m = &md->m[md->n];
		const int64_t *a = base->pts[o[i]].vals, *b = base->pts[o[i + 1]].vals;
		int between = 0;
		if (!(p[o[i]].bytes > 0) || !(p[o[i + 1]].bytes > p[o[i]].bytes))
			continue;
		m->v.vals = xcalloc(c->nsizes + 1, sizeof *m->v.vals);
		mid_sizes(c, a, b, !p[o[i]].flushed && p[o[i + 1]].flushed, &first->sizes,
		          first->ri.gpu.l2_bytes, m->v.vals);
		for (k = 0; k < c->nsizes; k++)
			between |= m->v.vals[k] != a[k] && m->v.vals[k] != b[k];
		m->v.label = cfg_point_label(c, m->v.vals);
		for (k = 0; between && k < np; k++)
			between = strcmp(m->v.label, base->pts[k].label) != 0;
		if (!between) {
			free(m->v.vals);
			free(m->v.label);
			continue;
		}
		m->lo = o[i];
		m->hi = o[i + 1];
		md->n++;
	}
	all = mids_widen(base, md, &wide);
	for (i = j = 0; i < md->n; i++) {
		if (point_loads(&wide, np + i, arch) == 0) {
			md->m[j++] = md->m[i];
			continue;
		}
		warn("%s: no midpoint between %s and %s: the config does not take %s (tuner --size "
		     "... --dry-run says why)", base->o.config, base->pts[md->m[i].lo].label,
		     base->pts[md->m[i].hi].label, md->m[i].v.label);
		free(md->m[i].v.vals);
		free(md->m[i].v.label);
	}
	md->n = j;
	free(all);
	free(o);
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
   winner, or the points' winners chosen by size (and the midpoints', for the sizes between);
   what was emitted ("single", "by size"), or NULL where a point has no winner */
static const char *emit_best(const struct side *s, const struct mids *md, struct run *first,
                             struct fileset *set, const char *gpudir, const char *config)
{
	char **dirs;
	struct tuned_text *text;
	size_t i, n = s->np + md->done;

	for (i = 0; i < s->np && s->p[i].win >= 0; i++)
		;
	if (i < s->np) { /* a point without a winner: nothing to choose from there */
		warn("%s: no variant verified at %s: no best.cu chooses by size (each other "
		     "point's best.cu is in its directory)", config, s->p[i].label);
		return NULL;
	}
	if (s->alone) {
		emit_single(first, set, gpudir, s->p[0].id[s->single]);
		return "single";
	}
	dirs = xcalloc(n, sizeof *dirs);
	text = xcalloc(n, sizeof *text);
	for (i = 0; i < n; i++) {
		const struct point *p = i < s->np ? &s->p[i] : &md->p[i - s->np];
		dirs[i] = strrchr(p->dir, '/') + 1;
		text[i] = p->text;
	}
	bundle_points(gpudir, first->c->name, dirs, n, text, set);
	free(dirs);
	free(text);
	return "by size";
}

/* strcmp for qsort and bsearch over ids */
static int by_id(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

/* the candidates between points lo and hi: of the variants timed at both (twins but once),
   the k whose worse ratio to the fastest there is best (by order among equals), the two
   points' winners, and single (NULL: none); their ids sorted, *n of them (malloc'd) */
static char (*shortlist(const struct point *lo, const struct point *hi, size_t k,
                        const char *single, size_t *n))[40]
{
	double *r = xcalloc(lo->n + 1, sizeof *r);
	size_t *o = xcalloc(k + 1, sizeof *o), i, j, m = 0; /* the k best so far, best first */
	char (*ids)[40] = xcalloc(k + 4, sizeof *ids);

	for (i = 0; i < lo->n; i++) {
		long h = find(hi, lo->id[i], i);
		if (!(lo->ms[i] > 0) || lo->twin[i] || h < 0 || !(hi->ms[h] > 0) || hi->twin[h])
			continue;
		r[i] = fmin(lo->best / lo->ms[i], hi->best / hi->ms[h]);
		if (m == k && (!k || !(r[i] > r[o[k - 1]])))
			continue; /* not among them; among equals the earlier stays */
		for (j = m < k ? m++ : k - 1; j > 0 && r[o[j - 1]] < r[i]; j--)
			o[j] = o[j - 1];
		o[j] = i;
	}
	for (*n = 0; *n < k && *n < m; ++*n)
		memcpy(ids[*n], lo->id[o[*n]], sizeof *ids);
	memcpy(ids[(*n)++], lo->id[lo->win], sizeof *ids);
	memcpy(ids[(*n)++], hi->id[hi->win], sizeof *ids);
	if (single)
		memcpy(ids[(*n)++], single, sizeof *ids);
	qsort(ids, *n, sizeof *ids, by_id);
	for (i = j = 0; i < *n; i++) /* the winners may be among the k */
		if (!j || strcmp(ids[j - 1], ids[i]))
			memcpy(ids[j++], ids[i], sizeof *ids);
	*n = j;
	free(r);
	free(o);
	return ids;
}

/* tune at each midpoint of md over its candidates (shortlist; single: the best single
   variant's id, or NULL), as a point of base's with the first point's GPU worker; each kept
   in md->p */
static int mids_run(struct run *base, struct run *first, struct mids *md, const struct point *p,
                    const char *single)
{
	size_t np = base->npoints, i, v, nc, ntry;
	struct run wide;
	struct vsize *all = mids_widen(base, md, &wide);
	int rc = 0;

	md->p = xcalloc(md->n + 1, sizeof *md->p);
	md->of = xcalloc(md->n + 1, sizeof *md->of);
	for (i = 0; i < md->n && !run_stop; i++) {
		const struct mid *m = &md->m[i];
		char (*ids)[40] = shortlist(&p[m->lo], &p[m->hi], base->o.mid, single, &nc);
		unsigned char *only;
		struct run tp;
		int r;

		points_load(&tp, &wide, np + i);
		tp.first = first;
		tp.keep_json = 1;
		tune_target(&tp);
		tune_expand(&tp);
		only = xcalloc(tp.s.n + 1, 1);
		for (v = ntry = 0; v < tp.s.n; v++) {
			only[v] = !tp.s.v[v].drop && bsearch(tp.s.v[v].id, ids, nc, sizeof *ids, by_id);
			ntry += only[v];
		}
		free(ids);
		note(1, "tuner: midpoint %zu of %zu: %s, between %s and %s: %zu candidate%s (the "
		        "best at both, and their winners)\n", i + 1, md->n, tp.label, p[m->lo].label,
		     p[m->hi].label, ntry, ntry == 1 ? "" : "s");
		if (!ntry || run_stop) {
			tune_free(&tp);
			free(only);
			continue;
		}
		tp.only = only;
		tp.ri.mid_lo = p[m->lo].label;
		tp.ri.mid_hi = p[m->hi].label;
		tune_run(&tp);
		r = tune_finish(&tp);
		if (!tp.winner && !run_stop) { /* the sizes between are not the kernel's, or not all */
			warn("%s: no candidate verified at the midpoint %s: best.cu chooses between %s and "
			     "%s from the two alone", base->o.config, tp.label, p[m->lo].label,
			     p[m->hi].label);
			r = 0;
		}
		if (r > rc)
			rc = r;
		if (!tp.winner) {
			tune_free(&tp);
			free(only);
			continue;
		}
		md->of[md->done] = i;
		keep(&md->p[md->done++], &tp);
		tune_free(&tp);
		free(only);
	}
	free(all);
	return rc;
}

/* s->alone: the single variant ties every point's winner, and the fastest candidate at every
   midpoint (else s->slow_at names the first where it does not) */
static void single_alone(struct side *s, const struct mids *md)
{
	size_t i;

	s->alone = s->single_ties;
	for (i = 0; s->alone && i < md->done; i++) {
		const struct point *q = &md->p[i];
		const char *id = s->p[0].id[s->single];
		long k = find(q, id, (size_t)s->single);
		if (k >= 0 && q->tie[k])
			continue;
		s->alone = 0;
		s->slow_at = q->label;
		s->slow_pct = pct_at(q, id, (size_t)s->single);
	}
}

static void mids_free(struct mids *md)
{
	size_t i;

	for (i = 0; i < md->n; i++) {
		free(md->m[i].v.vals);
		free(md->m[i].v.label);
	}
	for (i = 0; i < md->done; i++)
		point_free(&md->p[i]);
	free(md->m);
	free(md->p);
	free(md->of);
}

/* the points side by side (s), their midpoints tuned (md) where every point has a winner,
   the table; then best.cu and best.h into set: what was emitted (emit_best; NULL also where
   interrupted); the midpoints' runs' worst exit status into *rc */
static const char *points_timed(struct run *t, struct run *first, struct side *s,
                                struct mids *md, struct fileset *set, const char *gpudir,
                                const char *gpu, int *rc)
{
	size_t i;
	int r;

	side_make(s);
	for (i = 0; i < s->np && s->p[i].win >= 0; i++)
		;
	if (i == s->np && t->o.mid) {
		mids_plan(t, s->p, first, md);
		r = mids_run(t, first, md, s->p, s->single >= 0 ? s->p[0].id[s->single] : NULL);
		if (r > *rc)
			*rc = r;
	}
	single_alone(s, md);
	if (verbosity >= 1)
		table(stdout, s, gpu);
	return run_stop ? NULL : emit_best(s, md, first, set, gpudir, t->o.config);
}

int points_run(struct run *t)
{
	struct run_opts o = t->o;
	size_t np = t->npoints, i;
	struct point *p = xcalloc(np, sizeof *p);
	struct report_rows **rows = xcalloc(np, sizeof *rows); /* untimed: the points' table's */
	struct side s = {p, np, NULL, -1, NULL, 0, 0, NULL, 0};
	struct fileset set = {0};
	char *gpudir = NULL, *gpu = NULL;
	const char *emitted = NULL;
	int rc = 0, timed = 1;
	size_t done = 0, said = SIZE_MAX;
	struct run first = {0};
	struct mids md = {0};

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
		emitted = points_timed(t, &first, &s, &md, &set, gpudir, gpu, &rc);
		if (run_stop) {
			if (first.m)
				measure_rebind(first.m, &first);
			tune_free(&first);
			goto out;
		}
	}
	for (i = 0; i < sizeof writers / sizeof *writers; i++) { /* untimed: the points' links */
		struct gpudir g = {&s, &first, gpu, emitted, &md};
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
	mids_free(&md);
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
