/* listing: --dry-run's list: the kept variants (every one with --list-dropped) with their
   parameters and launch geometry, the dropped ones counted by rule (drops.h). */
#ifndef TUNER_LISTING_H
#define TUNER_LISTING_H

#include <stdio.h>

struct config;
struct observe;
struct space;

/* the list of s's variants into f (every one with list_dropped), each column as wide as its
   widest entry and the whole within WRAP_WIDTH where it can be (docs/how-it-works.md); with -q
   only the counts */
void listing_print(FILE *f, const struct config *c, const struct space *s, int list_dropped,
                   const struct observe *o);

#endif
