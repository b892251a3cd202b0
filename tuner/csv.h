/* csv: results.csv, one row per variant results.json lists, written from a run's results. */
#ifndef TUNER_CSV_H
#define TUNER_CSV_H

#include <stddef.h>
#include <stdio.h>

struct buf;
struct config;
struct result;
struct runinfo;
struct space;

/* results.csv: one row per variant results.json lists (ri->list_dropped: the dropped ones
   too), in the order `order`; appended to b, or with out (may be NULL) written to out as it
   goes, b serving as the buffer */
void csv_write(struct buf *b, FILE *out, const struct config *c, const struct space *s,
               const struct result *r, const size_t *order, const struct runinfo *ri);

#endif
