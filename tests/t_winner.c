/* Tests for winner.c's rules that the stream, the bundle, the points and the twins apply:
   who leaves the play-off (as the first timings come, and in its rounds), each GPU's winner
   and the portable default, the best single variant over points, the twin that stands for
   its group. */
#include "test.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "config.h"
#include "result.h"
#include "space.h"
#include "util.h"
#include "winner.h"

#define NV 70

static struct run_result runs[NV];

/* n verified results of first medians ms[] */
static void timed(struct result *r, const double *ms, size_t n)
{
	size_t i;

	memset(r, 0, n * sizeof *r);
	for (i = 0; i < n; i++) {
		memset(&runs[i], 0, sizeof runs[i]);
		r[i].run = &runs[i];
		r[i].status = ST_OK;
		r[i].twin = -1;
		runs[i].t.median_ms = ms[i];
	}
}

/* the play-off's candidates as the stream keeps them: variants 0 .. n of r in that order,
   each that may take part; into keep, their count returned */
static size_t keep_all_at(const struct config *c, const struct result *r, size_t n,
                          size_t earlier, size_t *keep, double *best, int flushed)
{
	size_t i, nk = 0;

	*best = 0;
	for (i = 0; i < n; i++) {
		if (!winner_playoff_takes(c, &r[i]))
			continue;
		keep[nk++] = i;
		nk = winner_playoff_keep(c, r, keep, nk, best, earlier, flushed);
	}
	return nk;
}

/* keep_all_at where the samples flush the L2 */
static size_t keep_all(const struct config *c, const struct result *r, size_t n,
                       size_t earlier, size_t *keep, double *best)
{
	return keep_all_at(c, r, n, earlier, keep, best, 1);
}

/* a candidate leaves beyond the net of the fastest so far (1 % at timing.tie 0.5 %), the
   earlier winner beyond twice that; those that stay keep their order, those that leave follow */
TEST(winner_playoff_leavers)
{
	static const double ms[] = {1.0, 1.02, 1.009, 0.995, 1.012, 1.0};
	struct config c = {0};
	struct result r[NV];
	size_t keep[WINNER_PLAYOFF_MAX + 1], n;
	double best;

	c.tie = 0.005;
	c.playoff = 5;
	timed(r, ms, LEN(ms));
	n = keep_all(&c, r, LEN(ms), 0, keep, &best);
	CHECK(best == 0.995);
	CHECK_EQ(n, 3); /* 1.0, 0.995, 1.0 within 1.00495 */
	CHECK_EQ(keep[0], 0);
	CHECK_EQ(keep[1], 3);
	CHECK_EQ(keep[2], 5);
	n = keep_all(&c, r, LEN(ms), 5, keep, &best); /* the earlier winner: variant 4, 1.012 */
	CHECK_EQ(n, 4);
	CHECK_EQ(keep[2], 4);
	c.playoff = 0; /* no play-off: none takes part */
	CHECK(!winner_playoff_takes(&c, &r[0]));
	c.playoff = 5;
	r[1].status = ST_MISMATCH;
	CHECK(!winner_playoff_takes(&c, &r[1]));
	runs[2].t.median_ms = 0;
	CHECK(!winner_playoff_takes(&c, &r[2]));
	/* samples in the L2: every one that may take part (not 1 nor 2, above) within
	   WINNER_PLAYOFF_NET_RESIDENT of 0.995, 1.012 too (the first timings, of one process, may
	   be that far from another's) */
	CHECK_EQ(keep_all_at(&c, r, LEN(ms), 0, keep, &best, 0), 4);
	CHECK_EQ(keep[2], 4);
	CHECK(winner_playoff_net(&c, 0) == WINNER_PLAYOFF_NET_RESIDENT);
	c.tie = 0.08; /* twice a wider tie band wins over either least net */
	CHECK(winner_playoff_net(&c, 0) == 0.16 && winner_playoff_net(&c, 1) == 0.16);
	c.tie = 0.005;
	/* what left follows what stays */
	timed(r, ms, 3);
	keep[0] = 0, keep[1] = 1, keep[2] = 2;
	best = 1.0;
	CHECK_EQ(winner_playoff_keep(&c, r, keep, 3, &best, 0, 1), 2);
	CHECK_EQ(keep[0], 0);
	CHECK_EQ(keep[1], 2);
	CHECK_EQ(keep[2], 1);
}

/* of more than WINNER_PLAYOFF_MAX, the slowest goes, never the earlier winner */
TEST(winner_playoff_at_most)
{
	struct config c = {0};
	struct result r[NV];
	double ms[WINNER_PLAYOFF_MAX + 2], best;
	size_t keep[WINNER_PLAYOFF_MAX + 1], n, i;
	int has9 = 0, has10 = 0;

	c.tie = 0.005;
	c.playoff = 5;
	for (i = 0; i < LEN(ms); i++)
		ms[i] = 1 + 0.0001 * (double)(i % 7);
	ms[9] = 1.0009;  /* the slowest, the earlier winner */
	ms[10] = 1.0008; /* the slowest of the others */
	timed(r, ms, LEN(ms));
	n = keep_all(&c, r, WINNER_PLAYOFF_MAX + 1, 10, keep, &best);
	CHECK_EQ(n, WINNER_PLAYOFF_MAX);
	for (i = 0; i < n; i++) {
		has9 |= keep[i] == 9;
		has10 |= keep[i] == 10;
	}
	CHECK(has9 && !has10);
	CHECK_EQ(keep[n], 10);
}

/* in the rounds: the one whose median can be the lowest leads; one that whatever the rounds
   to come ends beyond it by more than the tie band leaves, but the earlier winner, and those
   out stay out */
TEST(winner_playoff_rounds)
{
	static const double ms[4 * 5] = {
		1.0, 1.0, 1.0, 0, 0,         /* the leader */
		1.1, 1.1, 1.1, 0, 0,         /* beyond it whatever comes: leaves */
		1.1, 1.1, 1.1, 0, 0,         /* the same, the earlier winner: stays */
		1.003, 1.003, 1.003, 0, 0,   /* within the band: stays */
	};
	static const int cnt[4] = {3, 3, 3, 3};
	static const size_t keep[4] = {7, 8, 9, 10};
	unsigned char out[4] = {0};

	winner_playoff_race(keep, 4, ms, cnt, 5, 0.005, 10, out);
	CHECK(!out[0] && out[1] && !out[2] && !out[3]);
	out[0] = 1; /* out stays out; the last leads now, and without an earlier winner the
	               slower two leave */
	out[1] = 0;
	winner_playoff_race(keep, 4, ms, cnt, 5, 0.005, 0, out);
	CHECK(out[0] && out[1] && out[2] && !out[3]);
}

/* the twin that stands for its group: a bank mode the GPU applies (4 bytes, none asked, or
   one the config could not say) before the 8-byte one, then the config's order */
TEST(winner_twin_preference)
{
	struct variant v[4];
	struct space s = {0};

	memset(v, 0, sizeof v);
	s.v = v;
	s.n = LEN(v);
	v[0].bank_bytes = 8;
	v[1].bank_bytes = 4;
	v[2].bank_bytes = 0;
	v[3].bank_bytes = 4;
	CHECK(winner_twin_prefer(&s, 1, 0));
	CHECK(!winner_twin_prefer(&s, 0, 1));
	CHECK(winner_twin_prefer(&s, 2, 0));
	CHECK(winner_twin_prefer(&s, 1, 3));
	CHECK(!winner_twin_prefer(&s, 3, 1));
	CHECK(winner_twin_prefer(&s, 1, 2)); /* 4 bytes and none: the order */
	v[2].bank_bytes = -1;
	CHECK(winner_twin_prefer(&s, 2, 0));
	v[1].bank_bytes = v[0].bank_bytes = 8;
	CHECK(winner_twin_prefer(&s, 0, 1));
}

/* a GPU's winner in the bundles: the first verified of results.json's ranked list (the tie
   rule's choice), not the fastest, which is given apart */
TEST(winner_listed_first_verified)
{
	static const double ms[] = {NAN, 1.004, 1.0, NAN, 0.999};
	size_t f;

	CHECK_EQ(winner_listed(ms, LEN(ms), &f), 1);
	CHECK_EQ(f, 4);
	CHECK_EQ(winner_listed(ms, 1, &f), SIZE_MAX);
	CHECK_EQ(f, SIZE_MAX);
	CHECK_EQ(winner_listed(ms + 2, 1, &f), 0);
	CHECK_EQ(f, 0);
}

/* the bundles' portable default: the best worst ratio to each GPU's fastest */
TEST(winner_portable_worst_ratio)
{
	/* 3 GPUs x 4 variants; best medians 1, 2, 4 */
	static const double best[3] = {1, 2, 4};
	static const double med[12] = {
		1.0, 1.05, 2.0, 1.1,   /* GPU 0 */
		4.0, 2.10, 2.0, 2.1,   /* GPU 1 */
		4.0, 4.20, 8.0, 0,     /* GPU 2: variant 3 not timed */
	};
	double w;

	/* variant 1: worst 1 / 1.05; variant 0: 1/2; variant 2: 1/2; variant 3: not everywhere */
	CHECK_EQ(winner_portable(med, best, 3, 4, &w), 1);
	CHECK(w > 0.952 && w < 0.953);
	/* one GPU: its winner */
	CHECK_EQ(winner_portable(med, best, 1, 4, &w), 0);
	CHECK(w == 1);
	/* a tie on the worst ratio: the higher mean ratio */
	{
		static const double b2[2] = {1, 1}, m2[4] = {2, 2, 2, 1};
		CHECK_EQ(winner_portable(m2, b2, 2, 2, &w), 1);
		CHECK(w == 0.5);
	}
	/* nothing timed on every GPU */
	{
		static const double b3[2] = {1, 1}, m3[4] = {1, 0, 0, 1};
		CHECK_EQ(winner_portable(m3, b3, 2, 2, &w), -1);
	}
}

/* the best single variant over points: timed at every point, the highest lowest % of each
   point's winner; ties to the lower index */
TEST(winner_single_best_worst)
{
	/* 3 points x 4 variants */
	static const double pct[12] = {
		100, 98, 97, NAN,   /* point 0: variant 3 not timed */
		90, 97, 100, 100,
		100, 96, 96, 100,
	};
	static const double tie[4] = {95, 95, 95, 100}, two[4] = {90, 95, 100, 100};

	CHECK_EQ(winner_single(pct, 3, 4), 1);   /* 96 beats 90 and 96 (later) */
	CHECK_EQ(winner_single(pct, 1, 4), 0);   /* one point: its winner */
	CHECK_EQ(winner_single(pct + 3, 1, 1), -1);
	CHECK_EQ(winner_single(tie, 2, 2), 0);  /* lowest 95 both: the lower index */
	CHECK_EQ(winner_single(two, 2, 2), 1);  /* lowest 90 against 95 */
}
