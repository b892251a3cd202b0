/* winner: the ranking, the race's limit, the play-off's band and leavers, the ties and the tie
   rule, the twins' member, the bundles' winners and portable default, the points' single
   variant. */
#include "winner.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "result.h"
#include "space.h"
#include "stats.h"
#include "util.h"

double winner_playoff_net(const struct config *c, int flushed)
{
	double least = flushed ? 0.01 : WINNER_PLAYOFF_NET_RESIDENT;

	return 2 * c->tie > least ? 2 * c->tie : least;
}

void winner_playoff_stats(double *m, int n, double *ms, double *se)
{
	double var = 0;
	struct stats q;
	int j;

	stats_compute(m, n, &q); /* the rounds' medians, as a launch's samples */
	*ms = q.median_ms;
	for (j = 0; j < n; j++)
		var += (m[j] - q.mean_ms) * (m[j] - q.mean_ms) / (n > 1 ? n - 1 : 1);
	*se = 1.2533 * sqrt(var / n); /* of a median, for normal data */
}

/* the j-th smallest (from 0) of n values of which the c sorted x are known: at least lo, at
   most hi (infinite where the values not known could be anything) */
static void order_bounds(const double *x, int c, int n, int j, double *lo, double *hi)
{
	*lo = j - (n - c) >= 0 ? x[j - (n - c)] : -INFINITY;
	*hi = j < c ? x[j] : INFINITY;
}

void winner_median_bounds(const double *x, int c, int n, double *lo, double *hi)
{
	double pos = 0.5 * (n - 1), w, l0, h0, l1, h1;
	int a = (int)pos;

	w = pos - a; /* stats_compute's median: (1 - w) X_a + w X_a+1 of the sorted n */
	order_bounds(x, c, n, a, &l0, &h0);
	*lo = l0, *hi = h0;
	if (w > 0 && a + 1 < n) {
		order_bounds(x, c, n, a + 1, &l1, &h1);
		*lo = isinf(l0) || isinf(l1) ? -INFINITY : (1 - w) * l0 + w * l1;
		*hi = isinf(h0) || isinf(h1) ? INFINITY : (1 - w) * h0 + w * h1;
	}
}

int winner_playoff_out(const double *x, int cx, const double *lead, int cl, int n, double tie)
{
	double *a = xcalloc((size_t)cx + 1, sizeof *a), *b = xcalloc((size_t)cl + 1, sizeof *b);
	double lo, hi, l, h;
	struct stats q;

	memcpy(a, x, (size_t)cx * sizeof *a);
	memcpy(b, lead, (size_t)cl * sizeof *b);
	stats_compute(a, cx, &q); /* sorts */
	stats_compute(b, cl, &q);
	winner_median_bounds(a, cx, n, &lo, &h);
	winner_median_bounds(b, cl, n, &l, &hi);
	free(a);
	free(b);
	/* the fastest's median will be at most hi, and a tie is within `tie` of it (winner_ties) */
	return cx < n && lo - hi > tie * hi;
}

int winner_playoff_takes(const struct config *c, const struct result *x)
{
	return c->playoff && x->status == ST_OK && result_run(x)->t.median_ms > 0;
}

/* variant j's first median */
static double first_ms(const struct result *r, size_t j)
{
	return result_run(&r[j])->t.median_ms;
}

size_t winner_playoff_keep(const struct config *c, const struct result *r, size_t *keep,
                           size_t n, double *best, size_t earlier, int flushed)
{
	double ms = first_ms(r, keep[n - 1]), net = winner_playoff_net(c, flushed), lim;
	size_t out[WINNER_PLAYOFF_MAX + 1], k, m = 0, nout = 0, w;

	if (n > WINNER_PLAYOFF_MAX + 1)
		die("winner_playoff_keep: %zu candidates", n);
	if (*best <= 0 || ms < *best)
		*best = ms;
	for (k = 0; k < n; k++) {
		/* the earlier winner stays a winner within a wider band (winner_ties): it takes
		   part within WINNER_KEEP_BANDS times the net */
		lim = *best * (1 + (keep[k] + 1 == earlier ? WINNER_KEEP_BANDS : 1) * net);
		if (first_ms(r, keep[k]) > lim)
			out[nout++] = keep[k];
		else
			keep[m++] = keep[k];
	}
	if (m > WINNER_PLAYOFF_MAX) { /* one too many: the slowest goes, never the earlier winner */
		w = keep[0] + 1 == earlier;
		for (k = w + 1; k < m; k++)
			if (keep[k] + 1 != earlier && first_ms(r, keep[k]) > first_ms(r, keep[w]))
				w = k;
		out[nout++] = keep[w];
		keep[w] = keep[--m];
	}
	memcpy(keep + m, out, nout * sizeof *keep);
	return m;
}

/* the bound above on the median of a candidate's rounds x[0 .. c) of n, whatever its rounds
   still to come */
static double playoff_hi(const double *x, int c, int n)
{
	double y[CFG_PLAYOFF_MAX], lo, hi;
	struct stats q;

	memcpy(y, x, (size_t)c * sizeof *y);
	stats_compute(y, c, &q); /* sorts */
	winner_median_bounds(y, c, n, &lo, &hi);
	return hi;
}

void winner_playoff_race(const size_t *keep, size_t n, const double *ms, const int *cnt,
                         int rounds, double tie, size_t earlier, unsigned char *out)
{
	size_t k, lead = 0;
	double best = INFINITY, h;

	for (k = 0; k < n; k++)
		if (!out[k] && (h = playoff_hi(ms + k * (size_t)rounds, cnt[k], rounds)) < best)
			best = h, lead = k;
	if (isinf(best))
		return;
	for (k = 0; k < n; k++)
		if (k != lead && !out[k] && keep[k] + 1 != earlier &&
		    winner_playoff_out(ms + k * (size_t)rounds, cnt[k], ms + lead * (size_t)rounds,
		                       cnt[lead], rounds, tie))
			out[k] = 1;
}

int winner_twin_prefer(const struct space *s, size_t a, size_t b)
{
	int ka = s->v[a].bank_bytes == 8, kb = s->v[b].bank_bytes == 8;

	return ka != kb ? ka < kb : a < b;
}

static const struct result *rank_base;

static int timed(const struct result *r)
{
	return r->status == ST_OK;
}

static int rank_cmp(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct result *x = &rank_base[i], *y = &rank_base[j];

	if (timed(x) != timed(y))
		return timed(x) ? -1 : 1;
	if (timed(x) && result_run(x)->t.median_ms != result_run(y)->t.median_ms)
		return result_run(x)->t.median_ms < result_run(y)->t.median_ms ? -1 : 1;
	if (x->status != y->status)
		return x->status < y->status ? -1 : 1;
	if (x->status == ST_UNTIMED && x->bank_ratio > 0 && y->bank_ratio > 0) {
		/* without a GPU: the bank model's prediction, then the compiled spills */
		int sx = x->co.spill_stores + x->co.spill_loads;
		int sy = y->co.spill_stores + y->co.spill_loads;
		if (x->bank_ratio != y->bank_ratio)
			return x->bank_ratio < y->bank_ratio ? -1 : 1;
		if (sx != sy)
			return sx < sy ? -1 : 1;
	}
	return i < j ? -1 : i > j;
}

size_t *winner_rank(const struct result *r, size_t n)
{
	size_t *o = xcalloc(n, sizeof *o), i;

	for (i = 0; i < n; i++)
		o[i] = i;
	rank_base = r;
	qsort(o, n, sizeof *o, rank_cmp);
	rank_base = NULL;
	return o;
}

/* the bytes that v's blocks on one multiprocessor move, res of them at once: the config's bytes
   over the grid's blocks, times res (0: not known) */
static double resident_bytes(const struct variant *v, int res)
{
	int64_t blocks = v->grid[0] * v->grid[1] * v->grid[2];

	return res > 0 && blocks > 0 && v->bytes > 0 ? (double)v->bytes / (double)blocks * res : 0;
}

const char *const winner_tie_keys[] = {
	[TIE_NONE] = "", [TIE_ELSEWHERE] = "the other GPUs' results",
	[TIE_WORK] = "the work resident on a multiprocessor", [TIE_SMEM] = "shared memory",
	[TIE_REGS] = "registers", [TIE_ORDER] = "the config's order",
};

/* the tie rule's first key on which x and y (x != y) differ, with in *better whether the rule
   prefers x */
static enum tie_key tie_cmp(const struct space *s, const struct result *r,
                            const double *elsewhere, size_t x, size_t y, int *better)
{
	int64_t mx = r[x].co.smem_static + s->v[x].shared, my = r[y].co.smem_static + s->v[y].shared;
	double wx = resident_bytes(&s->v[x], result_run(&r[x])->resident);
	double wy = resident_bytes(&s->v[y], result_run(&r[y])->resident);

	if (elsewhere && elsewhere[x] != elsewhere[y]) {
		*better = elsewhere[x] > elsewhere[y];
		return TIE_ELSEWHERE;
	}
	if (wx != wy && wx > 0 && wy > 0) {
		*better = wx > wy;
		return TIE_WORK;
	}
	if (mx != my) {
		*better = mx < my;
		return TIE_SMEM;
	}
	if (r[x].co.regs != r[y].co.regs && r[x].co.regs >= 0 && r[y].co.regs >= 0) {
		*better = r[x].co.regs < r[y].co.regs;
		return TIE_REGS;
	}
	*better = x < y;
	return TIE_ORDER;
}

/* 1 if the tie rule prefers x to y (x != y) */
static int tie_better(const struct space *s, const struct result *r, const double *elsewhere,
                      size_t x, size_t y)
{
	int better;

	tie_cmp(s, r, elsewhere, x, y, &better);
	return better;
}

size_t winner_ties(struct result *r, size_t n, const struct config *c, const struct space *s,
                   size_t *order, size_t keep, const double *elsewhere, enum tie_key *why)
{
	size_t k, nt = 0, best = 0, f = 0, i, kk = SIZE_MAX, next = SIZE_MAX;
	double mf;
	int po = 0, open = 1, better;

	if (why)
		*why = TIE_NONE;
	if (!n || !timed(&r[order[0]]))
		return 0;
	for (k = 0; k < n && timed(&r[order[k]]); k++) /* the fastest: of the play-off, if any */
		if (r[order[k]].po_n > 0 && (!po++ || r[order[k]].po_ms < r[order[f]].po_ms))
			f = k;
	i = order[f];
	mf = po ? r[i].po_ms : result_run(&r[i])->t.median_ms;
	best = f;
	for (k = 0; k < n && timed(&r[order[k]]); k++) {
		const struct result *x = &r[order[k]];
		double m = po ? x->po_ms : result_run(x)->t.median_ms, band = c->tie * mf;
		int kept = order[k] == keep;
		if (kept) /* the earlier winner leaves only beyond a wider band */
			band *= WINNER_KEEP_BANDS;
		r[order[k]].tie = (open || kept) && (!po || x->po_n > 0) && m - mf <= band;
		if (!r[order[k]].tie) {
			open = po; /* without a play-off, in order of their medians: none further on
			              ties but the earlier winner */
			continue;
		}
		nt++;
		if (kept)
			kk = k;
		if (k != best && tie_better(s, r, elsewhere, order[k], order[best]))
			best = k;
	}
	/* the earlier winner, while it ties, unless the other GPUs' results put another tie
	   more than timing.tie ahead of it there */
	if (kk != SIZE_MAX && !(elsewhere && elsewhere[keep] >= 0 &&
	                        elsewhere[order[best]] - elsewhere[keep] > c->tie))
		best = kk;
	if (nt < 2) {
		r[order[f]].tie = 0;
		best = f;
	}
	/* what set the rule's choice apart: the key between it and the best of the other ties */
	for (k = 0; nt >= 2 && k < n && timed(&r[order[k]]); k++)
		if (r[order[k]].tie && k != best &&
		    (next == SIZE_MAX || tie_better(s, r, elsewhere, order[k], order[next])))
			next = k;
	if (why)
		*why = next == SIZE_MAX || best == kk
		       ? TIE_NONE : tie_cmp(s, r, elsewhere, order[best], order[next], &better);
	i = order[best]; /* to the front, the others keep their order */
	memmove(order + 1, order, best * sizeof *order);
	order[0] = i;
	return nt;
}

double winner_race_limit(const struct config *c, const struct stats *leader, int flushed)
{
	double m = leader->median_ms;

	if (!c->playoff || !(m > 0))
		return 0;
	return m * (1 + WINNER_KEEP_BANDS * winner_playoff_net(c, flushed));
}

double winner_race_cut(const struct config *c, const struct stats *leader, int again,
                       int no_race, size_t i, size_t earlier, int flushed)
{
	return again || no_race || !leader || i + 1 == earlier ? 0
	                                                       : winner_race_limit(c, leader, flushed);
}

size_t winner_listed(const double *ms, size_t n, size_t *fastest)
{
	size_t v, w = SIZE_MAX, f = SIZE_MAX;

	for (v = 0; v < n; v++) {
		if (ms[v] != ms[v]) /* not verified */
			continue;
		if (w == SIZE_MAX)
			w = v;
		if (f == SIZE_MAX || ms[v] < ms[f])
			f = v;
	}
	*fastest = f;
	return w;
}

long winner_portable(const double *med, const double *best, size_t ngpu, size_t nv,
                     double *worst)
{
	long pick = -1;
	double pw = 0, pmean = 0;
	size_t v, g;

	for (v = 0; v < nv; v++) {
		double w = 1, mean = 0;
		for (g = 0; g < ngpu; g++) {
			double r = med[g * nv + v] > 0 ? best[g] / med[g * nv + v] : 0;
			w = r < w ? r : w;
			mean += r / (double)ngpu;
		}
		if (w > 0 && (pick < 0 || w > pw || (w == pw && mean > pmean))) {
			pick = (long)v;
			pw = w;
			pmean = mean;
		}
	}
	*worst = pw;
	return pick;
}

long winner_single(const double *pct, size_t np, size_t nv)
{
	double best_worst = -1;
	long single = -1;
	size_t i, v;

	for (v = 0; v < nv; v++) {
		double worst = INFINITY;
		for (i = 0; i < np && worst > best_worst; i++) { /* -1 where not timed */
			double x = pct[i * nv + v];
			worst = x == x && x < worst ? x : x == x ? worst : -1;
		}
		if (worst > best_worst && worst != INFINITY) {
			best_worst = worst;
			single = (long)v;
		}
	}
	return single;
}
