/* search: which variants a run tries, in what order, and when it stops (--strategy,
   --budget, --seed); docs/search.md tells the strategies apart. */
#ifndef TUNER_SEARCH_H
#define TUNER_SEARCH_H

#include <stddef.h>
#include <stdint.h>

struct config;
struct space;

enum strategy {
	SEARCH_EXHAUSTIVE,        /* every candidate, in config order */
	SEARCH_RANDOM,            /* a uniform random order */
	SEARCH_GUIDED,            /* a random start, then what the timings so far predict */
};

/* the strategy called name, or -1 */
int search_strategy(const char *name);
/* its name */
const char *search_name(enum strategy st);

struct search;

/*
 * Search the candidates cand[0..n) (indices into s, kept variants; s and its config must
 * outlive the search) with strategy st. budget: how many candidates may be counted
 * (search_result), 0: no limit. window: how many picks may await their results before the
 * guided strategy waits for them.
 */
struct search *search_new(enum strategy st, const struct config *c, const struct space *s,
                          const size_t *cand, size_t n, size_t budget, uint64_t seed,
                          size_t window);
/* the candidates whose static prior the guided start consults (search_prior), into out (up to
   n): the first PRIOR_SAMPLE (8) times its prior half's size in the random order, all of them
   in a smaller space; 0 for the other strategies */
size_t search_prior_wanted(const struct search *q, size_t *out);
/* before the first pick: prior[i], a static estimate of variant i's cost (e.g. the bank
   model's conflict ratio; 1 is none, higher is worse), read for search_prior_wanted's variants
   only. The guided start's first half is drawn from the better half of those by it. */
void search_prior(struct search *q, const double *prior);
/* the next variant to try: 1 with *i, 0 none until a result comes back, -1 none any more */
int search_next(struct search *q, size_t *i);
/* variant i (a pick) is settled: counted toward the budget or not (a twin, or a variant that
   did not build, is not), with its time (ms > 0) or none (ms <= 0: it failed, or nothing was
   timed) */
void search_result(struct search *q, size_t i, int counted, double ms);
/* how many picks were counted */
size_t search_counted(const struct search *q);
void search_free(struct search *q);

#endif
