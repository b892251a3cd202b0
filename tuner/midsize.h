/* midsize: the sizes of a midpoint between two points of a run at several problem sizes
   (points.h), where a few candidates are tuned for best.cu's choice between the points. */
#ifndef TUNER_MIDSIZE_H
#define TUNER_MIDSIZE_H

#include <stdint.h>

struct config;
struct vars;

/* the midpoint's sizes (vals, one per size of c, in its order) between points a and b (their
   sizes alike): each size's geometric mean, moved to an odd multiple of what the two sizes
   share, at most 64, and strictly between them where it can be (else a's); where across (a is
   timed in the L2, b flushed: timing_l2_flush), the largest sizes on the way whose buffers
   (under sizes, the run's, with the sizes set) fit in 3/4 of l2 bytes, rounded down, unless no
   such size lies between them */
void mid_sizes(const struct config *c, const int64_t *a, const int64_t *b, int across,
               const struct vars *sizes, int64_t l2, int64_t *vals);

#endif
