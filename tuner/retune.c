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

/* the timed results of kernel at path; NULL when it has none (a warning says where they
   cannot be read) */
static struct results *timed_of(const char *path, const char *kernel)
{
	struct results_error e;
	struct results *r = results_load(path, 0, &e);
	if (!r) {
		if (e.line)
			warn("%s:%d:%d: not readable as results (%s); not compared", path, e.line,
			     e.column, e.text);
		else
			warn("%s: not readable as results (%s); not compared", path, e.text);
		return NULL;
	}
	if (!r->kernel || strcmp(r->kernel, kernel) || !r->timed) {
		results_free(r);
		return NULL;
	}
	return r;
}

/* the results.json of GPU directory kdir/name to compare with (malloc'd): its own, or, where
   it was tuned at several points, that of the point whose directory is `point` (NULL: this run
   is at one point, and compares with none of them); NULL where there is none */
static char *results_of(const char *kdir, const char *name, const char *point)
{
	char *path = xasprintf("%s/%s/results.json", kdir, name), **pts, *p = NULL;
	size_t n, i;

	if (access(path, F_OK) < 0 || !(pts = results_points(path, &n)))
		return access(path, F_OK) == 0 ? path : (free(path), NULL);
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

/* another GPU's winner: its GPU, id and % of copy there; 0, or -1 if path has none */
static int winner_of(const char *path, const char *kernel, char *gpu, size_t gpulen, char *id,
                     size_t idlen, double *pct)
{
	struct results *r = timed_of(path, kernel);
	size_t i;
	int rc = -1;

	for (i = 0; r && r->gpu && i < r->n && rc < 0; i++)
		if (r->v[i].status == ST_OK) {
			snprintf(gpu, gpulen, "%s", r->gpu);
			snprintf(id, idlen, "%s", r->v[i].id);
			*pct = isnan(r->v[i].pct_copy) ? 0 : r->v[i].pct_copy; /* null: 0 */
			rc = 0;
		}
	results_free(r);
	return rc;
}

int retune_earlier_winner(const char *path, const char *kernel, char *id, size_t idlen)
{
	char gpu[256];
	double pct;

	if (access(path, F_OK) < 0)
		return -1;
	return winner_of(path, kernel, gpu, sizeof gpu, id, idlen, &pct);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the other GPUs' directories in kdir (not slug's, not the bundle's), in name order, for
   output that does not depend on the disk; *nn of them (0 where kdir cannot be read) */
static char **other_dirs(const char *kdir, const char *slug, size_t *nn)
{
	DIR *d = opendir(kdir);
	struct dirent *e;
	char **names = NULL;

	*nn = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && strcmp(e->d_name, slug) && strcmp(e->d_name, "bundle")) {
			names = xreallocarray(names, *nn + 1, sizeof *names);
			names[(*nn)++] = xstrdup(e->d_name);
		}
	closedir(d);
	if (*nn) /* qsort's array may not be NULL, even of 0 elements */
		qsort(names, *nn, sizeof *names, by_name);
	return names;
}

static void free_dirs(char **names, size_t nn)
{
	size_t i;

	for (i = 0; i < nn; i++)
		free(names[i]);
	free(names);
}

/* a variant id and its index in the space, for bsearch */
struct idx {
	const char *id;
	size_t i;
};

static int by_id(const void *a, const void *b)
{
	return strcmp(((const struct idx *)a)->id, ((const struct idx *)b)->id);
}

/* the verified results of kernel in path (timed): their best median, and each one's ratio to
   it into there[] by the variant's index in s (-1: none); 0, or -1 if path has none */
static int ratios_of(const char *path, const char *kernel, const struct idx *ix, size_t n,
                     double *there)
{
	struct results *r;
	double best = 0;
	size_t i;
	int rc = -1, pass;

	for (i = 0; i < n; i++)
		there[i] = -1;
	if (!(r = timed_of(path, kernel)))
		return -1;
	for (pass = 0; pass < 2; pass++) /* the best median, then the ratios */
		for (i = 0; i < r->n; i++) {
			struct idx key = {r->v[i].id, 0}, *hit;
			double ms = r->v[i].median_ms;
			if (r->v[i].status != ST_OK || !(ms > 0))
				continue;
			if (!pass) {
				best = best > 0 && best < ms ? best : ms;
			} else if ((hit = bsearch(&key, ix, n, sizeof *ix, by_id))) {
				there[hit->i] = best / ms;
				rc = 0;
			}
		}
	results_free(r);
	return rc;
}

size_t retune_elsewhere(const char *kdir, const char *slug, const char *point,
                        const char *kernel, const struct space *s, double *score)
{
	size_t nn, i, k, n = 0;
	char **names = other_dirs(kdir, slug, &nn);
	struct idx *ix = xcalloc(s->n + 1, sizeof *ix);
	double *there = xcalloc(s->n + 1, sizeof *there);

	for (i = 0; i < s->n; i++) {
		score[i] = -1;
		ix[i] = (struct idx){s->v[i].id, i};
	}
	if (s->n)
		qsort(ix, s->n, sizeof *ix, by_id);
	for (k = 0; k < nn; k++) {
		char *path = results_of(kdir, names[k], point);
		if (path && ratios_of(path, kernel, ix, s->n, there) == 0) {
			n++;
			for (i = 0; i < s->n; i++)
				if (there[i] >= 0 && (score[i] < 0 || there[i] < score[i]))
					score[i] = there[i];
		}
		free(path);
	}
	free(there);
	free(ix);
	free_dirs(names, nn);
	return n;
}

size_t retune_compare(const char *kdir, const char *slug, const char *point,
                      const char *kernel, const struct space *s, const struct result *r,
                      const size_t *order, struct buf *text, struct buf *json)
{
	char **names;
	size_t nn = 0, i, k, n = 0, ntimed = 0;
	double best;

	buf_puts(json, "[");
	if (!s->n || r[order[0]].status != ST_OK) {
		buf_puts(json, "]");
		return 0;
	}
	names = other_dirs(kdir, slug, &nn);
	/* the fastest, which a tie rule may not have chosen */
	best = result_run(&r[order[0]])->t.median_ms;
	for (k = 0; k < s->n && r[order[k]].status == ST_OK; k++) {
		ntimed++;
		if (result_run(&r[order[k]])->t.median_ms < best)
			best = result_run(&r[order[k]])->t.median_ms;
	}
	for (i = 0; i < nn; i++) {
		char *path = results_of(kdir, names[i], point), gpu[256], id[64];
		double pct = 0;
		if (!path || winner_of(path, kernel, gpu, sizeof gpu, id, sizeof id, &pct) < 0) {
			free(path);
			continue;
		}
		free(path);
		buf_puts(json, n++ ? ", {\"gpu\": " : "{\"gpu\": ");
		buf_json_str(json, gpu);
		buf_puts(json, ", \"dir\": ");
		buf_json_str(json, names[i]);
		buf_puts(json, ", \"winner\": ");
		buf_json_str(json, id);
		buf_printf(json, ", \"pct_copy_there\": %.6g", pct);
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
	free_dirs(names, nn);
	buf_puts(json, "]");
	return n;
}
