/* drops: a space's dropped variants counted by the rule that dropped them (a constraint, a
   device limit), for --dry-run, results.json and results.csv, which list them one by one
   only when asked (--list-dropped). */
#ifndef TUNER_DROPS_H
#define TUNER_DROPS_H

#include <stddef.h>

struct space;

/* one rule and the variants it dropped */
struct drop_rule {
	char *rule;               /* "constraint 'PAD == 0 || OUT > 1'", "N threads per block
	                             exceed the limit of 1024": the reason, its numbers as N but
	                             in a constraint's text and a limit */
	size_t n;                 /* variants it dropped */
	size_t first;             /* the first of them in config order */
};

struct drops {
	struct drop_rule *v;      /* the most first; among equals the first to drop one first */
	size_t n;
	size_t total;             /* dropped variants */
};

/* count s's dropped variants by rule into d */
void drops_count(const struct space *s, struct drops *d);
/* the rule of a drop reason (malloc'd) */
char *drops_rule(const char *reason);
/* free d's contents */
void drops_free(struct drops *d);

#endif
