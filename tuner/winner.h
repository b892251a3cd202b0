/* winner: who wins, and every rule that decides or orders winners. The ranking, the race's
   limit and who is raced (the race's plan and stop are race.h's), the play-off's candidates
   and who leaves it, the ties and the rule that picks the winner among them (the earlier
   run's winner kept while it ties), the twin that stands for its group, each GPU's winner and
   the portable default in bundles, the best single variant over points. A change of a rule
   touches this module only. */
#ifndef TUNER_WINNER_H
#define TUNER_WINNER_H

#include <stddef.h>

struct result;

struct config;
struct space;
struct stats;

/* the race's limit for the variants timed after a leader whose samples gave *leader: its
   median plus WINNER_KEEP_BANDS times the play-off's net of it (flushed: the run's samples
   flush the L2); 0 (no race) without a play-off, whose ties are decided on each variant's
   first median, of its whole series */
double winner_race_limit(const struct config *c, const struct stats *leader, int flushed);
/* the limit variant i's timing races against: winner_race_limit of leader, the fastest so far
   (NULL: none yet), or 0 (not raced) for a play-off round (again), with --no-race (no_race) and
   for the earlier winner (i + 1 == earlier; 0: none), which may stay within a wider band */
double winner_race_cut(const struct config *c, const struct stats *leader, int again,
                       int no_race, size_t i, size_t earlier, int flushed);

/* The play-off: once every variant is timed, the fastest (at most WINNER_PLAYOFF_MAX, with
   medians within winner_playoff_net() of the fastest's; the earlier winner within
   WINNER_KEEP_BANDS times that) are timed again, timing.playoff rounds of one launch series
   each, round after round in a rotated order, so that a drift of the GPU's speed during the
   run weighs on all of them alike, each round in GPU processes of its own (stream.c,
   measure_fresh: a process settles a small kernel's speed); winner_ties decides on their
   rounds' medians. */
#define WINNER_PLAYOFF_MAX 64
/* the fraction of the fastest median within which the play-off takes a variant: twice
   timing.tie, at least 1 %; where the samples do not flush the L2 (flushed 0: a kernel of a few
   microseconds, its data in the L2) at least WINNER_PLAYOFF_NET_RESIDENT, as far as the first
   timings, all in one GPU process, can be from what other processes see */
double winner_playoff_net(const struct config *c, int flushed);
/* measured on the H200 at 2^16 (docs/benchmarks.md, "Play-off rounds in fresh processes"):
   the reduction's fastest variants moved by up to 11 % from one process to the next, and the
   first timings had the next process's winners up to 9 % behind */
#define WINNER_PLAYOFF_NET_RESIDENT 0.10
/* a play-off candidate's rounds' medians m[0 .. n) (sorted in place) into the median of them
   and its standard error */
void winner_playoff_stats(double *m, int n, double *ms, double *se);

/* 1 if x, just timed, may take part in the play-off: c has one, x is verified, with a median */
int winner_playoff_takes(const struct config *c, const struct result *x);
/* the play-off's candidates while the first timings come in: keep[0 .. n) (variants of r that
   winner_playoff_takes, the last just in), *best the fastest median so far (updated with the
   last one's). A candidate leaves when its median exceeds *best by more than the play-off's
   net (the earlier winner, variant earlier - 1 (earlier 0: none), WINNER_KEEP_BANDS times
   that), then, of more than WINNER_PLAYOFF_MAX, the slowest but the earlier winner. Those
   that stay move to keep[0 .. returned), in their order; those that leave follow. */
size_t winner_playoff_keep(const struct config *c, const struct result *r, size_t *keep,
                           size_t n, double *best, size_t earlier, int flushed);
/* the race inside the play-off, after a round: of the n candidates keep[0 .. n), whose rounds
   so far are ms[k * rounds .. + cnt[k]), the leader is the one with the lowest bound above on
   its rounds' median (winner_median_bounds), and every other that winner_playoff_out puts
   beyond it by more than tie (timing.tie) leaves: out[k] = 1. Never the earlier winner
   (variant earlier - 1), and those out stay out. */
void winner_playoff_race(const size_t *keep, size_t n, const double *ms, const int *cnt,
                         int rounds, double tie, size_t earlier, unsigned char *out);

/* bounds lo <= m <= hi on the median (stats_compute's) that n values will have, of which the
   c sorted x[0 .. c) are known, whatever the others are (-inf / inf where they could make it
   anything) */
void winner_median_bounds(const double *x, int c, int n, double *lo, double *hi);
/* 1 if a play-off candidate whose rounds so far are x[0 .. cx) (cx < n, the rounds in all)
   can leave the play-off: whatever its other rounds, its rounds' median will exceed that of a
   candidate whose rounds so far are lead[0 .. cl) by more than the tie band, `tie` (a
   fraction, timing.tie) of it. It is then neither the play-off's fastest nor a tie, so not
   the winner, and a variant a full play-off would make a tie never leaves. Bounds, not an
   estimate: whatever the rounds to come. */
int winner_playoff_out(const double *x, int cx, const double *lead, int cl, int n,
                       double tie);

/* 1 if twin a (of a group of identical builds) stands for the group rather than b: a bank
   mode the GPU applies (4 bytes, or none asked) before the 8-byte one, then the config's
   order (twins_settle) */
int winner_twin_prefer(const struct space *s, size_t a, size_t b);

/* A GPU's winner in the bundles, from its results.json's n variants in their ranked order,
   ms[v] each one's median (NAN: not verified): the first verified, which the tie rule may
   have preferred to a marginally faster one; the fastest into *fastest. SIZE_MAX (both): none
   verified. */
size_t winner_listed(const double *ms, size_t n, size_t *fastest);
/* the portable default among nv variants timed on ngpu GPUs: med[g * nv + v] is variant v's
   median on GPU g (<= 0: not timed there), best[g] GPU g's best median. Returns the variant
   whose worst ratio best[g] / med over the GPUs is highest (ties: the higher mean ratio, then
   the lower index), with that ratio in *worst; -1 when no variant was timed on every GPU */
long winner_portable(const double *med, const double *best, size_t ngpu, size_t nv,
                     double *worst);

/* the best single variant over np points, of nv variants: pct[i * nv + v] is variant v's
   speed at point i, % of that of point i's winner (NAN: not timed there). Returns the one,
   timed at every point, whose lowest % is highest (ties: the lower index); -1: none */
long winner_single(const double *pct, size_t np, size_t nv);

/* order of results, best first: verified by median time, then the rest by status and index,
   untimed variants with a bank prediction by the predicted ratio and then their spills;
   returns a malloc'd array of n indices */
size_t *winner_rank(const struct result *r, size_t n);
/* the ties: verified variants whose median exceeds the fastest's by at most c->tie of it.
   With a play-off (r[i].po_n > 0) only its variants take part, with their rounds' medians, and
   the fastest is the play-off's. The standard error of a median does not widen the band: a
   winner is never more than c->tie slower than the run's fastest (but for keep, below; a
   wider band let noisy timings pick a variant 1.8 % slower by the config's order,
   docs/benchmarks.md). When there are two or more, marks them (r[i].tie); moves the winner to
   order[0]: variant keep (an earlier run's winner; SIZE_MAX: none) if it is one of the ties,
   for which its band is WINNER_KEEP_BANDS times as wide (so that a winner near the band's edge
   does not come and go from run to run), else the one the tie rule WINNER_TIE_RULE prefers
   among them, else the fastest. elsewhere (NULL: none) is retune_elsewhere's score of each
   variant on the other GPUs tuned beside this one, the rule's first key; where it puts the
   rule's choice more than c->tie ahead of keep (known there), keep gives way. *why (why may be
   NULL) gets the rule's key that set the winner apart from the best of the other ties
   (TIE_NONE: fewer than two ties, or keep stayed). Returns how many ties there are (0 when
   nothing was verified). */
enum tie_key { TIE_NONE, TIE_ELSEWHERE, TIE_WORK, TIE_SMEM, TIE_REGS, TIE_ORDER };
size_t winner_ties(struct result *r, size_t n, const struct config *c, const struct space *s,
                   size_t *order, size_t keep, const double *elsewhere, enum tie_key *why);
/* each key's words ("shared memory"), by enum tie_key */
extern const char *const winner_tie_keys[];
#define WINNER_KEEP_BANDS 2
#define WINNER_TIE_RULE "the best worst ratio to the fastest on the other GPUs tuned beside " \
                        "it (where their results have it), then the most work resident on a " \
                        "multiprocessor (the bytes its blocks there move, where the driver " \
                        "told how many fit), then the least shared memory, then the fewest " \
                        "registers, then the first in the config's order"

#endif
