/* measure: the run's GPU side. A worker process opens the GPU, then verifies and times the
   variants the parent sends it; the parent settles each result, journals it, and takes the
   results of an earlier run from the journal. */
#ifndef TUNER_MEASURE_H
#define TUNER_MEASURE_H

#include "tune.h"

/* start the GPU worker for t (forked now: it sees t as it is) and read what it found: the
   GPU, and the bank size the GPU reports after a request for 8 bytes; NULL with why if there
   is no usable GPU */
struct measure *measure_open(struct tune *t, struct gpu_info *gpu, int *bank8, char *why,
                             size_t whylen);
/* verify and time every variant of t whose status is ST_UNTIMED, in the worker (restarted
   after a fault or a time-out); results already in the journal of t->dir (same key) are taken
   from there unless --fresh. Twins share the result they stand for. */
void measure_run(struct measure *m);
/* end the worker and free m (NULL is fine) */
void measure_close(struct measure *m);

#endif
