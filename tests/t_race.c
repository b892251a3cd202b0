/* Tests for the race (race.c; its limit, winner.c's): its plan's risk, computed and
   simulated, and the rule on synthetic sample streams from seeded generators (noise, slow
   outliers, drift, two modes): it never stops a variant whose full series would have won,
   tied or entered the play-off, and it stops the clear losers early. */
#include "test.h"
#include "config.h"
#include "stats.h"
#include "race.h"
#include "winner.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 20                      /* the shipped configs' samples */

/* ---- seeded generators ---- */

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* uniform in (0, 1) */
static double uniform(uint64_t *s)
{
	return ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(uint64_t *s)
{
	return sqrt(-2 * log(uniform(s))) * cos(6.283185307179586 * uniform(s));
}

/* how a stream's samples scatter about its centre */
enum family { NOISE, OUTLIERS, DRIFT, BIMODAL };
struct shape {
	enum family f;
	double sigma;             /* relative noise of each sample */
	double a, b;              /* OUTLIERS: their share, up to how much slower (x (1 + U(0, b)));
	                             DRIFT: the drift over the series (the first sample slowest);
	                             BIMODAL: the slow mode's weight, how much slower it is */
	const char *what;
};

/* n samples of centre m into x */
static void stream(const struct shape *sh, double m, uint64_t seed, double *x, int n)
{
	uint64_t s = seed;
	int i;

	for (i = 0; i < n; i++) {
		double v = m * (1 + sh->sigma * normal(&s));
		switch (sh->f) {
		case NOISE: break;
		case OUTLIERS:
			if (uniform(&s) < sh->a)
				v *= 1 + 0.05 + sh->b * uniform(&s);
			break;
		case DRIFT: v *= 1 + sh->a * (0.5 - (double)i / (n - 1)); break;
		case BIMODAL:
			if (uniform(&s) < sh->a)
				v *= 1 + sh->b;
			break;
		}
		x[i] = v;
	}
}

/* the shapes the rule must never fail on: timing noise up to 1 % a sample, a tenth of the
   samples slow outliers, a drift as large as the noise, two modes within the limit of each
   other or a tenth of the weight in a slow one */
static const struct shape gentle[] = {
	{NOISE, 0.002, 0, 0, "noise 0.2 %"},
	{NOISE, 0.005, 0, 0, "noise 0.5 %"},
	{NOISE, 0.01, 0, 0, "noise 1 %"},
	{OUTLIERS, 0.003, 0.10, 1.0, "noise 0.3 %, 10 % slow outliers up to 2x"},
	{DRIFT, 0.003, 0.005, 0, "noise 0.3 %, drifting 0.5 % faster"},
	{DRIFT, 0.005, 0.01, 0, "noise 0.5 %, drifting 1 % faster"},
	{BIMODAL, 0.003, 0.1, 0.05, "noise 0.3 %, a tenth of the samples 5 % slower"},
	{BIMODAL, 0.003, 0.45, 0.01, "noise 0.3 %, 45 % of the samples 1 % slower"},
};
/* and the shapes where only the plan's bound holds (five slow samples in a row are likely
   enough): noise twice the play-off's net, a fifth or more of the samples slow, a drift four
   times the noise */
static const struct shape rough[] = {
	{NOISE, 0.02, 0, 0, "noise 2 %"},
	{OUTLIERS, 0.005, 0.20, 0.3, "noise 0.5 %, 20 % slow outliers up to 1.35x"},
	{BIMODAL, 0.003, 0.2, 0.05, "noise 0.3 %, a fifth of the samples 5 % slower"},
	{BIMODAL, 0.003, 0.4, 0.05, "noise 0.3 %, 40 % of the samples 5 % slower"},
	{DRIFT, 0.005, 0.02, 0, "noise 0.5 %, drifting 2 % faster"},
};

/* ---- the decision a full series makes ---- */

/* a config with the shipped timing settings */
static const struct config *timing_config(int playoff)
{
	static struct config c[2];

	c[playoff].tie = 0.005;
	c[playoff].samples = N;
	c[playoff].playoff = playoff ? 5 : 0;
	return &c[playoff];
}

static void stats_of(const double *x, int n, struct stats *t)
{
	double y[N];

	memcpy(y, x, (size_t)n * sizeof *y);
	stats_compute(y, n, t);
}

/* 1 if a variant of full series x could win or tie against a leader of statistics *l: its
   median within the play-off's net of the leader's, or below it (winner_ties decides the ties
   among the play-off's candidates, and the winner) */
static int contender(const struct config *c, const struct stats *l, const double *x)
{
	struct stats t;

	stats_of(x, N, &t);
	return t.median_ms <= l->median_ms * (1 + winner_playoff_net(c, 1));
}

/* the samples the race takes of x under plan p against limit (N: all) */
static int raced(const struct race_plan *p, const double *x, double limit)
{
	int i;

	for (i = 0; i < p->nlooks; i++)
		if (race_stop(p, x, p->look[i], limit))
			return p->look[i];
	return N;
}

/* what the race did to the streams of one shape */
struct tally {
	int streams, contenders, stopped;  /* stopped: contenders stopped (the failures) */
	int losers;                        /* streams 5 % or more slower than the leader */
	long loser_samples, loser_old;     /* their samples under the race, and the rule before it */
	long samples;                      /* every stream's */
};

/* the rule before this one: 5 samples, stopped when their median is above 1.3x the best */
static int raced_old(const double *x, double best)
{
	struct stats t;

	stats_of(x, 5, &t);
	return t.median_ms > 1.3 * best ? 5 : N;
}

/* streams of shape sh at centres 0.98 .. 1.40 of a leader's, per seed a leader and each
   centre's stream, under c's settings */
static void race_shape(const struct config *c, const struct shape *sh, int seeds,
                       struct tally *t)
{
	static const double centre[] = {0.98, 1.0, 1.002, 1.005, 1.008, 1.01, 1.012, 1.015, 1.02,
	                                1.025, 1.03, 1.05, 1.1, 1.2, 1.4};
	struct race_plan p;
	int k, j;

	memset(t, 0, sizeof *t);
	race_plan_make(N, &p);
	for (k = 0; k < seeds; k++) {
		double lx[N], x[N], limit;
		struct stats l;
		stream(sh, 1.0, 1000003u * (uint64_t)k + 17, lx, N);
		stats_of(lx, N, &l);
		limit = winner_race_limit(c, &l, 1);
		for (j = 0; j < (int)(sizeof centre / sizeof *centre); j++) {
			struct stats full;
			int n;
			stream(sh, centre[j], 7919u * (uint64_t)k + 104729u * (uint64_t)j + 5, x, N);
			n = raced(&p, x, limit);
			t->streams++;
			t->samples += n;
			if (contender(c, &l, x)) {
				t->contenders++;
				t->stopped += n < N;
			}
			stats_of(x, N, &full);
			if (full.median_ms >= 1.05 * l.median_ms) {
				t->losers++;
				t->loser_samples += n;
				t->loser_old += raced_old(x, l.median_ms);
			}
		}
	}
}

/* ---- the tests ---- */

/* the plan for the shipped 20 samples: stop after 5 if none, after 10 if at most 1, after 15
   if at most 4 lie within the limit */
TEST(race_plan_20)
{
	struct race_plan p;

	race_plan_make(N, &p);
	CHECK_EQ(p.nlooks, 3);
	CHECK(p.look[0] == 5 && p.look[1] == 10 && p.look[2] == 15);
	CHECK(p.accept[0] == 0 && p.accept[1] == 1 && p.accept[2] == 4);
	CHECK(p.risk > 0.004 && p.risk <= RACE_RISK);
}

/* for every series length, the worst risk over q (a finer grid than the plan's) is within
   RACE_RISK; series of 5 or fewer samples are never raced; looks rise below n */
TEST(race_plan_risk)
{
	int n, j, i;

	for (n = 1; n <= 120; n += n < 30 ? 1 : 7) {
		struct race_plan p;
		double worst = 0;
		race_plan_make(n, &p);
		if (n <= RACE_SAMPLES)
			CHECK_EQ(p.nlooks, 0);
		for (i = 0; i < p.nlooks; i++) {
			CHECK(p.look[i] < n && p.look[i] % RACE_SAMPLES == 0);
			CHECK(i == 0 || p.look[i] > p.look[i - 1]);
			CHECK(p.accept[i] >= 0 && p.accept[i] < p.look[i]);
		}
		for (j = 1; j < 8000; j++) {
			double r = race_risk_at(&p, j / 8000.0);
			if (r > worst)
				worst = r;
		}
		if (worst > RACE_RISK * 1.001 || fabs(worst - p.risk) > 1e-4) {
			char m[128];
			snprintf(m, sizeof m, "n %d: worst risk %.6f, plan says %.6f", n, worst, p.risk);
			test_fail(__FILE__, __LINE__, m);
		}
	}
}

/* a look that can only stop series whose median is beyond the limit anyway carries no risk:
   with 6 samples, at most 1 of the first 5 within leaves at most 2 of 6 */
TEST(race_plan_certain)
{
	struct race_plan p;

	race_plan_make(6, &p);
	CHECK_EQ(p.nlooks, 1);
	CHECK(p.look[0] == 5 && p.accept[0] == 1);
	CHECK(p.risk == 0);
}

/* the computed risk against a simulation: series of independent samples, each within the
   limit with probability q, stopped by the plan while at least half of the whole series
   would have been within */
TEST(race_risk_simulated)
{
	static const double qs[] = {0.3, 0.45, 0.5, 0.55};
	struct race_plan p;
	size_t k;

	race_plan_make(N, &p);
	for (k = 0; k < sizeof qs / sizeof *qs; k++) {
		uint64_t s = 42 + k;
		double x[N], want = race_risk_at(&p, qs[k]), got, sd;
		int trials = 400000, harmed = 0, t, i;
		for (t = 0; t < trials; t++) {
			int within = 0;
			for (i = 0; i < N; i++) {
				x[i] = uniform(&s) < qs[k] ? 1.0 : 2.0; /* the limit: 1.5 */
				within += x[i] < 1.5;
			}
			harmed += raced(&p, x, 1.5) < N && within >= (N + 1) / 2;
		}
		got = (double)harmed / trials;
		sd = sqrt(want * (1 - want) / trials);
		if (fabs(got - want) > 5 * sd + 1e-6) {
			char m[128];
			snprintf(m, sizeof m, "q %.2f: simulated %.5f, computed %.5f", qs[k], got, want);
			test_fail(__FILE__, __LINE__, m);
		}
	}
}

/* the limit: the leader's median plus twice the play-off's net (1 % at timing.tie 0.5 %);
   none without a play-off (its ties depend on each series' spread) or a median */
TEST(race_limit)
{
	struct stats l = {N, 1.0, 0.99, 1.2, 1.01, 0.02, 1, 0, 0};

	CHECK(fabs(winner_race_limit(timing_config(1), &l, 1) - 1.02) < 1e-12);
	l.spread = 0.2;
	CHECK(fabs(winner_race_limit(timing_config(1), &l, 1) - 1.02) < 1e-12);
	CHECK(winner_race_limit(timing_config(0), &l, 1) == 0);
	l.median_ms = 0;
	CHECK(winner_race_limit(timing_config(1), &l, 1) == 0);
}

/* who is raced: every variant's first timing, against the leader's limit, but a play-off
   round, a run with --no-race, one before any leader and the earlier winner (i + 1 ==
   earlier) */
TEST(race_exemptions)
{
	struct stats l = {N, 1.0, 0.99, 1.2, 1.01, 0.02, 1, 0, 0};
	const struct config *c = timing_config(1);

	CHECK(fabs(winner_race_cut(c, &l, 0, 0, 3, 0, 1) - 1.02) < 1e-12);
	CHECK(fabs(winner_race_cut(c, &l, 0, 0, 3, 3, 1) - 1.02) < 1e-12); /* the earlier is 2 */
	CHECK(winner_race_cut(c, &l, 0, 0, 3, 4, 1) == 0);
	CHECK(winner_race_cut(c, &l, 1, 0, 3, 0, 1) == 0);
	CHECK(winner_race_cut(c, &l, 0, 1, 3, 0, 1) == 0);
	CHECK(winner_race_cut(c, NULL, 0, 0, 3, 0, 1) == 0);
	CHECK(winner_race_cut(timing_config(0), &l, 0, 0, 3, 0, 1) == 0);
	/* samples in the L2 (not flushed): twice the resident net */
	CHECK(fabs(winner_race_cut(c, &l, 0, 0, 3, 0, 0) - (1 + 2 * WINNER_PLAYOFF_NET_RESIDENT)) < 1e-12);
}

/* the stop: counts of samples within the limit, at the plan's looks only */
TEST(race_stop)
{
	struct race_plan p;
	double x[N];
	int i;

	race_plan_make(N, &p);
	for (i = 0; i < N; i++)
		x[i] = 2.0;
	CHECK(race_stop(&p, x, 5, 1.5));
	CHECK(!race_stop(&p, x, 4, 1.5));  /* not a look */
	CHECK(!race_stop(&p, x, 6, 1.5));
	CHECK(!race_stop(&p, x, 5, 0));    /* no limit */
	x[3] = 1.5;                               /* within: at the limit counts */
	CHECK(!race_stop(&p, x, 5, 1.5));
	CHECK(race_stop(&p, x, 10, 1.5));  /* 1 of 10 */
	x[7] = 1.0;
	CHECK(!race_stop(&p, x, 10, 1.5)); /* 2 of 10 */
	x[12] = x[13] = 1.0;
	CHECK(race_stop(&p, x, 15, 1.5));  /* 4 of 15 */
	x[14] = 1.0;
	CHECK(!race_stop(&p, x, 15, 1.5)); /* 5 of 15 */
}

/* the gentle shapes: not one variant that its full series would have made a winner, a tie or
   a play-off candidate is stopped; without a play-off none is stopped at all */
TEST(race_never_stops_a_contender)
{
	size_t k;

	for (k = 0; k < sizeof gentle / sizeof *gentle; k++) {
		struct tally t;
		race_shape(timing_config(1), &gentle[k], 400, &t);
		CHECK(t.contenders > 400);
		if (t.stopped) {
			char m[200];
			snprintf(m, sizeof m, "%s: %d of %d contenders stopped", gentle[k].what,
			         t.stopped, t.contenders);
			test_fail(__FILE__, __LINE__, m);
		}
		race_shape(timing_config(0), &gentle[k], 20, &t);
		CHECK_EQ(t.samples, (long)t.streams * N);
	}
}

/* the rough shapes: contenders are stopped, but no more often than the plan's bound allows
   (with room for the count's own spread) */
TEST(race_rough_within_bound)
{
	size_t k;

	for (k = 0; k < sizeof rough / sizeof *rough; k++) {
		struct tally t;
		double bound;
		race_shape(timing_config(1), &rough[k], 1000, &t);
		bound = RACE_RISK * t.contenders +
		        4 * sqrt(RACE_RISK * t.contenders) + 1;
		if (t.stopped > bound) {
			char m[200];
			snprintf(m, sizeof m, "%s: %d of %d contenders stopped, more than %.1f",
			         rough[k].what, t.stopped, t.contenders, bound);
			test_fail(__FILE__, __LINE__, m);
		}
	}
}

/* clear losers (a full median 5 % or more above the leader's) stop early: on the gentle
   shapes at most 6 samples each on average where the rule before this one (5 samples, then
   stopped above 1.3x) took more than 11; the samples saved are printed */
TEST(race_stops_losers_early)
{
	long samples = 0, old = 0, all = 0;
	int losers = 0, streams = 0;
	size_t k;

	for (k = 0; k < sizeof gentle / sizeof *gentle; k++) {
		struct tally t;
		race_shape(timing_config(1), &gentle[k], 200, &t);
		CHECK(t.losers > 0 && t.loser_samples <= 6 * (long)t.losers);
		losers += t.losers;
		samples += t.loser_samples;
		old += t.loser_old;
		streams += t.streams;
		all += t.samples;
	}
	CHECK(old > 11 * (long)losers);
	printf("     race: %d clear losers, %.2f samples each (the rule before: %.2f, all: %d); "
	       "all %d streams: %.1f %% of the samples saved\n", losers, (double)samples / losers,
	       (double)old / losers, N, streams, 100.0 * (1 - (double)all / ((double)streams * N)));
}

/* the play-off's race: the bounds on a median of n rounds hold for every completion of the
   rounds still to come, and a candidate that leaves ends with a median above the other's by
   more than timing.tie whatever the rounds to come, adversarial ones included (its missing
   rounds at 0, the other's far above); it leaves, with exact rounds, once its fastest is
   beyond the other's slowest by the band and both have their third; never a tie within
   timing.tie, whatever the rounds so far spread */
TEST(playoff_race_bounds)
{
	uint64_t s = 99;
	int n, trial, left = 0, kept = 0;

	for (n = 3; n <= 7; n++)
		for (trial = 0; trial < 400; trial++) {
			double x[7], l[7], fx[7], fl[7], lo, hi, lo2, hi2;
			double mx = 1 + 0.02 * uniform(&s), sig = 0.004 * uniform(&s);
			int cx = 1 + (int)(uniform(&s) * (n - 1)), cl = 1 + (int)(uniform(&s) * n), i, k;
			struct stats q;
			for (i = 0; i < n; i++) {
				x[i] = mx * (1 + sig * normal(&s));
				l[i] = 1 + sig * normal(&s);
			}
			memcpy(fx, x, sizeof fx);
			stats_compute(fx, cx, &q); /* the known rounds, sorted */
			winner_median_bounds(fx, cx, n, &lo, &hi);
			memcpy(fl, l, sizeof fl);
			stats_compute(fl, cl, &q);
			winner_median_bounds(fl, cl, n, &lo2, &hi2);
			for (k = 0; k < 40; k++) { /* completions: random, then the two extremes */
				double a[7], b[7];
				struct stats qa, qb;
				memcpy(a, x, sizeof a);
				memcpy(b, l, sizeof b);
				for (i = cx; i < n; i++)
					a[i] = k == 38 ? 0 : k == 39 ? 1e9 : mx * (1 + 0.05 * normal(&s));
				for (i = cl; i < n; i++)
					b[i] = k == 38 ? 1e9 : k == 39 ? 0 : 1 + 0.05 * normal(&s);
				stats_compute(a, n, &qa);
				stats_compute(b, n, &qb);
				CHECK(qa.median_ms >= lo - 1e-12 && qa.median_ms <= hi + 1e-12);
				CHECK(qb.median_ms >= lo2 - 1e-12 && qb.median_ms <= hi2 + 1e-12);
				if (winner_playoff_out(x, cx, l, cl, n, 0.005))
					CHECK(qa.median_ms > qb.median_ms * 1.005);
			}
			if (winner_playoff_out(x, cx, l, cl, n, 0.005))
				left++;
			else
				kept++;
			CHECK(!winner_playoff_out(x, n, l, cl, n, 0.005)); /* no rounds to come */
		}
	CHECK(left > 50 && kept > 50);
	{ /* exact rounds of 5: out at the third, not before; a tie by timing.tie never */
		double x[5] = {1.008, 1.008, 1.008, 1.008, 1.008}, l[5] = {1, 1, 1, 1, 1};
		double y[5] = {1.004, 1.004, 1.004, 1.004, 1.004};
		CHECK(!winner_playoff_out(x, 2, l, 2, 5, 0.005));
		CHECK(!winner_playoff_out(x, 3, l, 2, 5, 0.005));
		CHECK(winner_playoff_out(x, 3, l, 3, 5, 0.005));
		CHECK(!winner_playoff_out(l, 3, x, 3, 5, 0.005));
		CHECK(!winner_playoff_out(y, 4, l, 4, 5, 0.005));
		CHECK(winner_playoff_out(y, 4, l, 4, 5, 0.003));
		CHECK(!winner_playoff_out(x, 4, l, 4, 5, 0.01));
	}
	{ /* rounds that spread widely: out once the bounds put it beyond timing.tie (a spread
	     does not widen the band), kept while its fastest round is within it */
		double x[5] = {1.01, 1.02, 1.03}, l[5] = {0.97, 1.0, 1.003};
		double xs[5] = {1.0045, 1.02, 1.03};
		CHECK(winner_playoff_out(x, 3, l, 3, 5, 0.005));
		CHECK(!winner_playoff_out(xs, 3, l, 3, 5, 0.005));
	}
}
