/* points: tuning at several problem sizes. Each point (cfg_points) is a run of its own into a
   directory of its own under the GPU's; then how every point's winner runs at every other
   point (from the runs' own timings), the best single variant, and what choosing by size
   gains over it: the table, the GPU directory's results.json, and best.cu/best.h holding the
   points' winners with a selection by size (bundle.h). */
#ifndef TUNER_POINTS_H
#define TUNER_POINTS_H

#include <stddef.h>

/* --midpoints: the variants timed at the midpoint of two points next to each other (the
   best by their worse ratio to the fastest at the two, beside the two points' winners) */
#define MID_DEFAULT 8
#define MID_MAX 1000

struct run;

/* t loaded at point i of base's points (tune_load_from: the config from base's text, the
   points base worked out), with a copy of base's options and --size list */
void points_load(struct run *t, const struct run *base, size_t i);
/* tune at each of t's points (t loaded at the first: tune_load; freed here), then write what
   the points say together; the exit status (the worst of the points') */
int points_run(struct run *t);

#endif
