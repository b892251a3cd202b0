/* race: the race's plan (its looks and acceptance numbers) and its stopping rule. */
#include "race.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* the grid of probabilities over which the race's risk is maximised: q = (j + 0.5) / RACE_GRID */
#define RACE_GRID 1000

/* into pmf[0 .. m]: the binomial distribution of m trials of probability q (0 < q < 1),
   from its mode outwards (no underflow spoils the terms that matter) */
static void binomial(int m, double q, double *pmf)
{
	int mode = (int)((m + 1) * q), k;
	double r = q / (1 - q);

	if (mode > m)
		mode = m;
	pmf[mode] = exp(lgamma(m + 1.0) - lgamma(mode + 1.0) - lgamma(m - mode + 1.0) +
	                mode * log(q) + (m - mode) * log1p(-q));
	for (k = mode; k < m; k++)
		pmf[k + 1] = pmf[k] * (m - k) / (k + 1) * r;
	for (k = mode; k > 0; k--)
		pmf[k - 1] = pmf[k] * k / (m - k + 1) / r;
}

/* the most samples a look sees */
#define RACE_LAST (RACE_LOOKS * RACE_SAMPLES)

/* the race's chances for one probability q that a sample is within the limit: alive[c], the
   chance of reaching the current look with c of its samples within and not stopped before;
   scratch for binomial() and its tails (n + 2 values each, shared) */
struct race_walk {
	double alive[RACE_LAST + 1];
};
struct race_scratch {
	double *pmf, *tail, next[RACE_LAST + 1];
};

/* advance w from a look of `from` samples (those stopped there removed) to one of `to` */
static void race_step(struct race_walk *w, struct race_scratch *x, int from, int to, double q)
{
	int c, d;

	binomial(to - from, q, x->pmf);
	for (c = 0; c <= to; c++)
		x->next[c] = 0;
	for (c = 0; c <= from; c++)
		for (d = 0; d <= to - from; d++)
			x->next[c + d] += w->alive[c] * x->pmf[d];
	memcpy(w->alive, x->next, (size_t)(to + 1) * sizeof *w->alive);
}

/* into h[0 .. k], at a look of k samples: h[a], the chance of being alive there with at most a
   within the limit and of at least need within among all n samples */
static void race_harm(const struct race_walk *w, struct race_scratch *x, int n, int k, int need,
                      double q, double *h)
{
	int c, m = n - k;
	double sum = 0;

	binomial(m, q, x->pmf); /* the rest of the series */
	x->tail[m + 1] = 0;
	for (c = m; c >= 0; c--)
		x->tail[c] = x->tail[c + 1] + x->pmf[c];
	for (c = 0; c <= k; c++) {
		int rest = need - c;
		sum += w->alive[c] * (rest <= 0 ? 1 : rest > m ? 0 : x->tail[rest]);
		h[c] = sum;
	}
}

static void race_scratch_new(struct race_scratch *x, int n)
{
	x->pmf = xcalloc((size_t)n + 2, sizeof *x->pmf);
	x->tail = xcalloc((size_t)n + 2, sizeof *x->tail);
}

static void race_scratch_free(struct race_scratch *x)
{
	free(x->pmf);
	free(x->tail);
}

double race_risk_at(const struct race_plan *p, double q)
{
	struct race_walk w;
	struct race_scratch x;
	double risk = 0, h[RACE_LAST + 1];
	int i, c, k = 0;

	if (!p->nlooks || q <= 0 || q >= 1) /* q 0: no series is harmed; 1: none stops */
		return 0;
	race_scratch_new(&x, p->n);
	memset(&w, 0, sizeof w);
	w.alive[0] = 1;
	for (i = 0; i < p->nlooks; i++) {
		race_step(&w, &x, k, p->look[i], q);
		k = p->look[i];
		race_harm(&w, &x, p->n, k, (p->n + 1) / 2, q, h);
		risk += h[p->accept[i]];
		for (c = 0; c <= p->accept[i]; c++)
			w.alive[c] = 0;
	}
	race_scratch_free(&x);
	return risk;
}

void race_plan_make(int n, struct race_plan *p)
{
	int need = (n + 1) / 2, j, c, a, k = 0, look;
	double *risk, *h, worst;
	struct race_walk *w;
	struct race_scratch x;

	memset(p, 0, sizeof *p);
	p->n = n;
	if (n <= RACE_SAMPLES)
		return;
	/* one walk per q of the grid, from look to look; at each look, the largest acceptance
	   number whose worst risk over the grid, with the looks before it, stays within bounds */
	risk = xcalloc(RACE_GRID, sizeof *risk);
	w = xcalloc(RACE_GRID, sizeof *w);
	h = xcalloc((size_t)RACE_GRID * (RACE_LAST + 1), sizeof *h);
	race_scratch_new(&x, n);
	for (j = 0; j < RACE_GRID; j++)
		w[j].alive[0] = 1;
	for (look = RACE_SAMPLES; look < n && look <= RACE_LAST; look += RACE_SAMPLES) {
		for (j = 0; j < RACE_GRID; j++) {
			double q = (j + 0.5) / RACE_GRID;
			race_step(&w[j], &x, k, look, q);
			race_harm(&w[j], &x, n, look, need, q, h + (size_t)j * (RACE_LAST + 1));
		}
		k = look;
		for (a = -1; a < look; a++) { /* can a + 1 be accepted? */
			for (j = 0, worst = 0; j < RACE_GRID; j++)
				if (risk[j] + h[(size_t)j * (RACE_LAST + 1) + a + 1] > worst)
					worst = risk[j] + h[(size_t)j * (RACE_LAST + 1) + a + 1];
			if (worst > RACE_RISK)
				break;
		}
		if (a < 0) /* this look can stop nothing */
			continue;
		p->look[p->nlooks] = look;
		p->accept[p->nlooks++] = a;
		for (j = 0; j < RACE_GRID; j++) {
			risk[j] += h[(size_t)j * (RACE_LAST + 1) + a];
			for (c = 0; c <= a; c++)
				w[j].alive[c] = 0;
		}
	}
	for (j = 0; j < RACE_GRID; j++)
		if (risk[j] > p->risk)
			p->risk = risk[j];
	race_scratch_free(&x);
	free(w);
	free(h);
	free(risk);
}

int race_stop(const struct race_plan *p, const double *ms, int k, double limit)
{
	int i, j, within = 0;

	if (!(limit > 0))
		return 0;
	for (i = 0; i < p->nlooks && p->look[i] != k; i++)
		;
	if (i == p->nlooks)
		return 0;
	for (j = 0; j < k; j++)
		within += ms[j] <= limit;
	return within <= p->accept[i];
}
