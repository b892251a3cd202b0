/* results: a run's results files: results.json and results.csv, and the copies of the sources
   kept beside them. */
#ifndef TUNER_RESULTS_H
#define TUNER_RESULTS_H

#include <stdio.h>

struct buf;
struct config;
struct result;
struct runinfo;
struct space;

/* the copies of the config and the template a run keeps beside its results (tuner bundle
   regenerates the winners from them, tuner merge expands the shards' space again) */
#define RESULTS_CONFIG_COPY "config.yaml"
#define RESULTS_TEMPLATE_COPY "template.cu"

/* results.json: every variant tried or dropped (the skipped ones are only counted) with
   parameters, status and reason, statistics, resources, error; appended to b, or with out
   (may be NULL) written to out as it goes, b serving as the buffer */
void results_write(struct buf *b, FILE *out, const struct config *c, const struct space *s,
                   const struct result *r, const size_t *order, const struct runinfo *ri);
/* results.csv: one row per variant tried or dropped; b and out as results_write's */
void results_csv(struct buf *b, FILE *out, const struct config *c, const struct space *s,
                 const struct result *r, const size_t *order);

#endif
