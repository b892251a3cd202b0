/* retune: what re-tuning on this GPU found, against other GPUs' results of the same kernel. */
#include "retune.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "winner.h"
#include "results.h"

/* a verified variant of another GPU: its id, its ratio to that GPU's fastest median */
struct ratio {
	char *id;
	double r;
};

/* another GPU's results, as much of them as this run reads */
struct other {
	char *dir, *gpu, *winner; /* its directory's name, the GPU, its winner's id */
	double pct;               /* the winner's % of copy there */
	struct ratio *v;          /* by id */
	size_t n;
};

/* the timed results of kernel at path; NULL when it has none (a warning says where they
   cannot be read) */
static struct results *timed_of(const char *path, const char *kernel)
{
	struct results_error e;
	struct results *r = results_load(path, 0, &e);
	char msg[1024];

	if (!r) {
		results_say(msg, sizeof msg, path, &e);
		warn("%s; another GPU's results, not compared", msg);
		return NULL;
	}
	if (!r->kernel || strcmp(r->kernel, kernel) || !r->timed || !r->gpu) {
		results_free(r);
		return NULL;
	}
	return r;
}

/* the results.json of GPU directory kdir/name to compare with (malloc'd): its own, or, where
   it was tuned at several points, that of the point whose directory is `point` (NULL: this run
   is at one point, and compares with none of them); NULL where there is none (or its points
   file is bad: said) */
static char *results_of(const char *kdir, const char *name, const char *point)
{
	char *path = xasprintf("%s/%s/results.json", kdir, name), **pts, *p = NULL, msg[1024];
	struct results_error e;
	size_t n, i;

	if (access(path, F_OK) < 0)
		return free(path), NULL;
	if (!(pts = results_points(path, &n, &e))) {
		if (!*e.text)
			return path;
		results_say(msg, sizeof msg, path, &e);
		warn("%s; another GPU's results, not compared", msg);
		return free(path), NULL;
	}
	for (i = 0; i < n; i++) {
		if (point && !p && !strcmp(pts[i], point))
			p = xasprintf("%s/%s/%s/results.json", kdir, name, pts[i]);
		free(pts[i]);
	}
	free(pts);
	free(path);
	if (p && access(p, F_OK) < 0) {
		free(p);
		p = NULL;
	}
	return p;
}

static int by_id(const void *a, const void *b)
{
	return strcmp(((const struct ratio *)a)->id, ((const struct ratio *)b)->id);
}

/* r's winner (its first verified variant) and every verified variant's ratio into o; 0, or -1
   where none is verified */
static int other_take(struct other *o, const struct results *r)
{
	double best = 0;
	size_t i;

	for (i = 0; i < r->n; i++) {
		double ms = r->v[i].median_ms;
		if (r->v[i].status != ST_OK)
			continue;
		if (!o->winner) {
			o->winner = xstrdup(r->v[i].id);
			o->pct = isnan(r->v[i].pct_copy) ? 0 : r->v[i].pct_copy; /* null: 0 */
		}
		if (ms > 0)
			best = best > 0 && best < ms ? best : ms;
	}
	o->v = xcalloc(r->n + 1, sizeof *o->v);
	for (i = 0; i < r->n && best > 0; i++)
		if (r->v[i].status == ST_OK && r->v[i].median_ms > 0)
			o->v[o->n++] = (struct ratio){xstrdup(r->v[i].id), best / r->v[i].median_ms};
	if (o->n)
		qsort(o->v, o->n, sizeof *o->v, by_id);
	o->gpu = xstrdup(r->gpu);
	return o->winner ? 0 : -1;
}

static void other_free(struct other *o)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		free(o->v[i].id);
	free(o->v);
	free(o->dir);
	free(o->gpu);
	free(o->winner);
}

int retune_earlier_winner(const char *path, const char *kernel, char *id, size_t idlen)
{
	struct other o = {0};
	struct results *r;
	int rc;

	if (access(path, F_OK) < 0 || !(r = timed_of(path, kernel)))
		return -1;
	if ((rc = other_take(&o, r)) == 0)
		snprintf(id, idlen, "%s", o.winner);
	other_free(&o);
	results_free(r);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the other GPUs' directories in kdir (not slug's, not the bundle's), in name order, for
   output that does not depend on the disk; *nn of them (0 where kdir cannot be read). A name
   the tuner would not make is skipped with a warning. */
static char **other_dirs(const char *kdir, const char *slug, size_t *nn)
{
	DIR *d = opendir(kdir);
	struct dirent *e;
	char **names = NULL;

	*nn = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, slug) || !strcmp(e->d_name, "bundle"))
			continue;
		if (!util_plain_name(e->d_name)) {
			warn("%s/%s: not a name the tuner gives a GPU's directory; not compared", kdir,
			     util_show(e->d_name));
			continue;
		}
		names = xreallocarray(names, *nn + 1, sizeof *names);
		names[(*nn)++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (*nn) /* qsort's array may not be NULL, even of 0 elements */
		qsort(names, *nn, sizeof *names, by_name);
	return names;
}

void retune_read(struct others *x, const char *kdir, const char *slug, const char *point,
                 const char *kernel)
{
	size_t nn, i;
	char **names = other_dirs(kdir, slug, &nn);

	x->o = xcalloc(nn + 1, sizeof *x->o);
	x->n = 0;
	for (i = 0; i < nn; i++) {
		char *path = results_of(kdir, names[i], point);
		struct results *r = path ? timed_of(path, kernel) : NULL;
		struct other *o = &x->o[x->n];
		if (r && other_take(o, r) == 0) {
			o->dir = names[i];
			names[i] = NULL;
			x->n++;
		} else if (r) {
			other_free(o);
			memset(o, 0, sizeof *o);
		}
		results_free(r);
		free(path);
		free(names[i]);
	}
	free(names);
}

void retune_free(struct others *x)
{
	size_t i;

	for (i = 0; i < x->n; i++)
		other_free(&x->o[i]);
	free(x->o);
	x->o = NULL;
	x->n = 0;
}

size_t retune_elsewhere(const struct others *x, const struct space *s, double *score)
{
	size_t i, k, n = 0;

	for (i = 0; i < s->n; i++)
		score[i] = -1;
	for (k = 0; k < x->n; k++) {
		const struct other *o = &x->o[k];
		int any = 0;
		for (i = 0; i < s->n; i++) {
			struct ratio key = {s->v[i].id, 0}, *hit;
			if (!o->n || !(hit = bsearch(&key, o->v, o->n, sizeof *o->v, by_id)))
				continue;
			any = 1;
			if (score[i] < 0 || hit->r < score[i])
				score[i] = hit->r;
		}
		n += any;
	}
	return n;
}

size_t retune_compare(const struct others *x, const struct space *s, const struct result *r,
                      const size_t *order, struct buf *text, struct buf *json)
{
	size_t i, k, n = 0, ntimed = 0;
	double best;

	buf_puts(json, "[");
	if (!s->n || r[order[0]].status != ST_OK) {
		buf_puts(json, "]");
		return 0;
	}
	/* the fastest, which a tie rule may not have chosen */
	best = result_run(&r[order[0]])->t.median_ms;
	for (k = 0; k < s->n && r[order[k]].status == ST_OK; k++) {
		ntimed++;
		if (result_run(&r[order[k]])->t.median_ms < best)
			best = result_run(&r[order[k]])->t.median_ms;
	}
	for (i = 0; i < x->n; i++) {
		const char *id = x->o[i].winner, *gpu = util_show(x->o[i].gpu);
		buf_puts(json, n++ ? ", {\"gpu\": " : "{\"gpu\": ");
		buf_json_str(json, x->o[i].gpu);
		buf_puts(json, ", \"dir\": ");
		buf_json_str(json, x->o[i].dir);
		buf_puts(json, ", \"winner\": ");
		buf_json_str(json, id);
		buf_printf(json, ", \"pct_copy_there\": %.6g", x->o[i].pct);
		for (k = 0; k < s->n && strcmp(s->v[order[k]].id, id); k++)
			;
		if (k == s->n) {
			buf_printf(text, "re-tuning: %s's winner %s is not in this space\n", gpu, id);
			buf_puts(json, ", \"here\": \"not in this space\"}");
			continue;
		}
		if (r[order[k]].status != ST_OK) {
			buf_printf(text, "re-tuning: %s's winner %s is %s here\n", gpu, id,
			           result_status(r[order[k]].status));
			buf_printf(json, ", \"here\": \"%s\"}", result_status(r[order[k]].status));
			continue;
		}
		double ratio = best / result_run(&r[order[k]])->t.median_ms;
		buf_printf(text, "re-tuning: %s's winner %s ranks %zu of %zu here, at %.1f %% of this "
		           "GPU's fastest: re-tuning gained %.1f %%\n", gpu, id, k + 1, ntimed,
		           100 * ratio, 100 * (1 / ratio - 1));
		buf_printf(json, ", \"rank\": %zu, \"of\": %zu, \"ratio\": %.6g, \"gain_pct\": %.6g}",
		           k + 1, ntimed, ratio, 100 * (1 / ratio - 1));
	}
	buf_puts(json, "]");
	return n;
}
