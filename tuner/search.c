/* search: the order in which a run tries its candidates, and when it stops.

   exhaustive takes them in config order, random in a seeded uniform order. guided starts like
   random (a fifth of the budget, at least 8, half of it drawn among the better half, by a
   static prior, of a sample of PRIOR_SAMPLE times that many), then picks, four times in five, the untried candidate whose time its
   nearest tried neighbours predict to be the lowest, and once in five a random one (so a
   wrong early picture gets corrected). Neighbours: the K nearest tried variants in parameter
   space, each parameter's value scaled by its place in the parameter's list to [0, 1], L1
   distance, weighted by 1 / distance; a variant that failed counts as twice the slowest
   time. Predictions are redone whenever half a window of new results has come back. Each
   untried variant keeps its K nearest tried ones, updated as each result comes back (O(n) a
   result), so a prediction costs O(n K), not O(n x tried). */
#include "search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "space.h"
#include "spec.h"
#include "util.h"

#define K 3               /* neighbours of a prediction */
#define EXPLORE 5         /* one guided pick in this many is random */
#define PRIOR_SAMPLE 8    /* the guided start's prior half: from the better half of the first
                             this many times its size of the random order */

struct search {
	const struct config *c;
	const struct space *s;
	enum strategy st;
	size_t n, budget, window;
	size_t *cand;             /* candidates, in the order random and the start take them */
	size_t next;              /* next in that order */
	uint32_t *posof;          /* variant index -> position in cand + 1 (0: not one) */
	unsigned char *picked;    /* per position */
	size_t npicked, inflight, counted;
	uint64_t rng;
	/* guided */
	size_t start;             /* picks taken in the start */
	size_t np;
	float *x;                 /* coordinates, np per position */
	size_t *tried;            /* positions with a result */
	double *y;                /* their log(ms), or NAN: failed */
	size_t ntried;
	double *nd;               /* per position: its K nearest tried ones' distances, nearest first */
	uint32_t *nj;             /* and their places in tried */
	unsigned char *nn;        /* how many it has (K once K were tried) */
	size_t *rank;             /* untried positions by prediction, best first */
	size_t nrank, rpos, since;
	size_t picks;
};

int search_strategy(const char *name)
{
	if (!strcmp(name, "exhaustive"))
		return SEARCH_EXHAUSTIVE;
	if (!strcmp(name, "random"))
		return SEARCH_RANDOM;
	if (!strcmp(name, "guided"))
		return SEARCH_GUIDED;
	return -1;
}

const char *search_name(enum strategy st)
{
	return st == SEARCH_RANDOM ? "random" : st == SEARCH_GUIDED ? "guided" : "exhaustive";
}

/* splitmix64 */
static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [0, n) */
static size_t below(uint64_t *s, size_t n)
{
	return (size_t)(rnd(s) % n);
}

static void shuffle(size_t *a, size_t n, uint64_t *s)
{
	size_t i;

	for (i = n; i > 1; i--) {
		size_t j = below(s, i), t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

static const double *sort_key;

static int by_key(const void *a, const void *b)
{
	double x = sort_key[*(const size_t *)a], y = sort_key[*(const size_t *)b];

	return x < y ? -1 : x > y ? 1 : (*(const size_t *)a > *(const size_t *)b) -
	                                (*(const size_t *)a < *(const size_t *)b);
}

/* position i's coordinates: each parameter's value scaled by its place in its list */
static void positions(struct search *q, size_t i)
{
	size_t p, k;

	for (p = 0; p < q->np; p++) {
		const struct param *pa = &q->c->params[p];
		for (k = 0; k < pa->nvals && pa->vals[k] != q->s->v[q->cand[i]].vals[p]; k++)
			;
		q->x[i * q->np + p] = pa->nvals > 1 ? (float)k / (float)(pa->nvals - 1) : 0;
	}
}

size_t search_prior_wanted(const struct search *q, size_t *out)
{
	size_t m;

	if (q->st != SEARCH_GUIDED || q->n < 2)
		return 0;
	m = PRIOR_SAMPLE * (q->start / 2);
	m = m < q->n ? m : q->n;
	memcpy(out, q->cand, m * sizeof *out);
	return m;
}

void search_prior(struct search *q, const double *prior)
{
	size_t n = q->n, i, m;
	double *key;
	size_t *best, *ord, h = q->start / 2, nb, k = 0;
	unsigned char *chosen;

	if (q->st != SEARCH_GUIDED || n < 2 || !prior || q->npicked)
		return;
	m = PRIOR_SAMPLE * h < n ? PRIOR_SAMPLE * h : n;
	nb = (m + 1) / 2;
	key = xcalloc(m, sizeof *key);
	best = xcalloc(m, sizeof *best);
	ord = xcalloc(n, sizeof *ord);
	chosen = xcalloc(n, 1);
	for (i = 0; i < m; i++) {
		key[i] = prior[q->cand[i]];
		best[i] = i;
	}
	sort_key = key;
	qsort(best, m, sizeof *best, by_key);
	shuffle(best, nb, &q->rng);
	for (i = 0; i < h && i < nb; i++) {
		chosen[best[i]] = 1;
		ord[k++] = q->cand[best[i]];
	}
	for (i = 0; i < n; i++)
		if (!chosen[i])
			ord[k++] = q->cand[i];
	memcpy(q->cand, ord, n * sizeof *ord);
	for (i = 0; i < n; i++)
		q->posof[q->cand[i]] = (uint32_t)(i + 1);
	for (i = 0; i < n; i++) /* the coordinates follow their candidates */
		positions(q, i);
	free(chosen);
	free(ord);
	free(key);
	free(best);
}

struct search *search_new(enum strategy st, const struct config *c, const struct space *s,
                          const size_t *cand, size_t n, size_t budget, uint64_t seed,
                          size_t window)
{
	struct search *q = xcalloc(1, sizeof *q);
	size_t i;

	q->st = st;
	q->n = n;
	q->budget = budget;
	q->window = window ? window : 1;
	q->rng = seed * 0x2545f4914f6cdd1dULL + 1;
	q->cand = xcalloc(n + 1, sizeof *q->cand);
	memcpy(q->cand, cand, n * sizeof *cand);
	if (st != SEARCH_EXHAUSTIVE)
		shuffle(q->cand, n, &q->rng);
	q->picked = xcalloc(n + 1, 1);
	if (st != SEARCH_GUIDED)
		return q;
	q->posof = xcalloc(s->n + 1, sizeof *q->posof);
	q->start = budget ? budget / 5 : n / 5;
	q->start = q->start < 8 ? 8 : q->start;
	for (i = 0; i < n; i++)
		q->posof[q->cand[i]] = (uint32_t)(i + 1);
	q->c = c;
	q->s = s;
	q->np = c->nparams;
	q->x = xcalloc(n * q->np + 1, sizeof *q->x);
	for (i = 0; i < n; i++)
		positions(q, i);
	q->tried = xcalloc(n + 1, sizeof *q->tried);
	q->y = xcalloc(n + 1, sizeof *q->y);
	q->nd = xcalloc(n * K + 1, sizeof *q->nd);
	q->nj = xcalloc(n * K + 1, sizeof *q->nj);
	q->nn = xcalloc(n + 1, 1);
	q->rank = xcalloc(n + 1, sizeof *q->rank);
	return q;
}

/* tried[j] is new: each untried position's K nearest, with it if it is nearer than one of
   them (at equal distance the one tried first stays ahead) */
static void neighbours_add(struct search *q, size_t j)
{
	const float *b = q->x + q->tried[j] * q->np;
	size_t i, p;

	for (i = 0; i < q->n; i++) {
		const float *a = q->x + i * q->np;
		double d = 0, *bd = q->nd + i * K;
		uint32_t *bj = q->nj + i * K;
		int k;
		if (q->picked[i])
			continue;
		for (p = 0; p < q->np; p++)
			d += fabsf(a[p] - b[p]);
		if (q->nn[i] < K)
			k = q->nn[i]++;
		else {
			for (k = 0; k < K && bd[k] <= d; k++)
				;
			if (k == K)
				continue;
			k = K - 1;
		}
		bd[k] = d;
		bj[k] = (uint32_t)j;
		for (; k > 0 && bd[k - 1] > bd[k]; k--) { /* keep them sorted */
			double t = bd[k];
			uint32_t u = bj[k];
			bd[k] = bd[k - 1], bj[k] = bj[k - 1];
			bd[k - 1] = t, bj[k - 1] = u;
		}
	}
}

/* predict every untried candidate's log time from its K nearest tried ones; rank them */
static void predict(struct search *q)
{
	double worst = -INFINITY, *pred = xcalloc(q->n + 1, sizeof *pred);
	size_t i, j;

	for (j = 0; j < q->ntried; j++)
		if (!isnan(q->y[j]) && q->y[j] > worst)
			worst = q->y[j];
	worst = isinf(worst) ? 0 : worst + log(2);
	q->nrank = 0;
	for (i = 0; i < q->n; i++) {
		double num = 0, den = 0;
		int k;
		if (q->picked[i])
			continue;
		for (k = 0; k < q->nn[i]; k++) {
			double y = q->y[q->nj[i * K + k]], w = 1 / (q->nd[i * K + k] + 1e-3);
			num += w * (isnan(y) ? worst : y);
			den += w;
		}
		pred[i] = den > 0 ? num / den : 0;
		q->rank[q->nrank++] = i;
	}
	sort_key = pred;
	qsort(q->rank, q->nrank, sizeof *q->rank, by_key);
	free(pred);
	q->rpos = 0;
	q->since = 0;
}

/* the next untried position, or n when there is none: guided */
static size_t guided_pick(struct search *q)
{
	size_t i;

	if (q->picks < q->start || q->ntried == 0 || q->picks % EXPLORE == EXPLORE - 1) {
		while (q->next < q->n && q->picked[q->next])
			q->next++;
		if (q->next < q->n && (q->picks < q->start || q->ntried == 0))
			return q->next;
		if (q->npicked < q->n) { /* a random untried one */
			size_t r = below(&q->rng, q->n - q->npicked);
			for (i = 0; i < q->n; i++)
				if (!q->picked[i] && r-- == 0)
					return i;
		}
		return q->n;
	}
	if (q->rpos >= q->nrank || q->since * 2 >= q->window)
		predict(q);
	while (q->rpos < q->nrank && q->picked[q->rank[q->rpos]])
		q->rpos++;
	return q->rpos < q->nrank ? q->rank[q->rpos] : q->n;
}

int search_next(struct search *q, size_t *i)
{
	size_t at;

	if (q->budget && q->counted >= q->budget)
		return -1;
	if (q->npicked >= q->n)
		return q->inflight ? 0 : -1;
	if (q->budget && q->counted + q->inflight >= q->budget)
		return 0;
	if (q->st == SEARCH_GUIDED && q->picks >= q->start && q->inflight >= q->window)
		return 0; /* let the picture catch up */
	if (q->st == SEARCH_GUIDED) {
		at = guided_pick(q);
		if (at >= q->n)
			return q->inflight ? 0 : -1;
	} else {
		at = q->next++;
	}
	q->picked[at] = 1;
	q->npicked++;
	q->inflight++;
	q->picks++;
	*i = q->cand[at];
	return 1;
}

void search_result(struct search *q, size_t i, int counted, double ms)
{
	q->inflight -= q->inflight > 0;
	q->counted += counted != 0;
	if (q->st != SEARCH_GUIDED || !counted || !q->posof[i])
		return;
	q->tried[q->ntried] = q->posof[i] - 1;
	q->y[q->ntried++] = ms > 0 ? log(ms) : NAN;
	neighbours_add(q, q->ntried - 1);
	q->since++;
}

size_t search_counted(const struct search *q)
{
	return q->counted;
}

void search_free(struct search *q)
{
	if (!q)
		return;
	free(q->cand);
	free(q->posof);
	free(q->picked);
	free(q->x);
	free(q->tried);
	free(q->y);
	free(q->nd);
	free(q->nj);
	free(q->nn);
	free(q->rank);
	free(q);
}
