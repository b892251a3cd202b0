/* twins: the member that stands for a group of identical builds (docs/how-it-works.md,
   "Twins and the bank mode"). */
#include "twins.h"
#include "run.h"
#include "util.h"
#include "winner.h"

#include <stdint.h>
#include <stdlib.h>

/* exchange what the run found of a and b, leaving what belongs to the variant itself (its
   bank model's prediction, whether its compile came from the cache, its twin link) */
static void swap_found(struct result *a, struct result *b)
{
	struct result ta = *a, tb = *b;

	*a = tb;
	*b = ta;
#define KEEP(f) (a->f = ta.f, b->f = tb.f)
	KEEP(twin);
	KEEP(cache_hit);
	KEEP(bank);
	KEEP(bank8);
	KEEP(bank_shared);
	KEEP(bank_rules);
	KEEP(bank_ratio);
#undef KEEP
}

static int is_twin(const struct result *x)
{
	return (x->status == ST_TWIN || x->status == ST_COLLAPSED) && x->twin >= 0;
}

void twins_settle(struct run *t)
{
	const struct space *s = &t->s;
	size_t n = s->n, i, *group, *best;

	for (i = 0; i < n && !is_twin(&t->r[i]); i++)
		;
	if (i == n)
		return;
	group = xmalloc(n * sizeof *group); /* the variant timed for i's group, or SIZE_MAX */
	best = xmalloc(n * sizeof *best);   /* of a timed one: the member preferred */
	for (i = 0; i < n; i++)
		group[i] = best[i] = SIZE_MAX;
	for (i = 0; i < n; i++)
		if (is_twin(&t->r[i])) {
			size_t w = (size_t)t->r[i].twin;
			group[i] = group[w] = w;
			if (best[w] == SIZE_MAX)
				best[w] = w;
			if (winner_twin_prefer(s, i, best[w]))
				best[w] = i;
		}
	for (i = 0; i < n; i++)
		if (best[i] != SIZE_MAX && best[i] != i)
			swap_found(&t->r[i], &t->r[best[i]]);
	for (i = 0; i < n; i++) {
		struct result *x = &t->r[i];
		size_t p;
		if (group[i] == SIZE_MAX)
			continue;
		p = best[group[i]];
		if (p == i) {
			x->twin = -1;
			continue;
		}
		x->twin = (long)p;
		x->status = s->v[i].bank_bytes != s->v[p].bank_bytes ? ST_COLLAPSED : ST_TWIN;
	}
	if (t->earlier && group[t->earlier - 1] != SIZE_MAX) /* an older run's choice */
		t->earlier = best[group[t->earlier - 1]] + 1;
	free(group);
	free(best);
}
