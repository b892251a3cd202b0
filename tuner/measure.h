/* measure: the run's GPU side. A worker process opens the GPU, then verifies and times the
   variants the parent sends it; the parent settles each result, journals it, and takes the
   results of an earlier run from the journal. */
#ifndef TUNER_MEASURE_H
#define TUNER_MEASURE_H

#include <stddef.h>

struct gpu_info;
struct run;

/* start the GPU worker for t (forked now: it sees t as it is) and read what it found: the
   GPU, and the bank size it has after a request for 8 bytes (asked on Kepler, compute
   capability 3; 4 on every later GPU, which ignores the request); NULL with why if there
   is no usable GPU */
struct measure *measure_open(struct run *t, struct gpu_info *gpu, int *bank8, char *why,
                             size_t whylen);
/* get ready to verify and time variants (measure_task may follow) */
void measure_begin(struct measure *m);
/* the reference and the helper kernels are compiled (t->ref, t->copy): make t->dir, read
   its journal (ignored with --fresh), write the worker's setup message; before it, nothing
   may be resumed or handed to the worker */
void measure_ready(struct measure *m);
/* 1 if variant i (compiled, its cubin in t->r[i].co) has a result in the journal (same
   key): it is taken from there and needs no timing */
int measure_resume(struct measure *m, size_t i);
/* the GPU worker's part in a pool_run_many: it verifies and times the variants next() gives
   (their cubins in t->r[i].co) and settles each result into t->r[i] (journaled), then calls
   timed(arg, i); a worker that faults or times out is restarted. A job i + n (n: the
   variants) times variant i again, never cut short: an ok result goes to again(arg, i, run)
   and leaves t->r[i] alone, a failure is settled (not journaled); then timed(arg, i + n). */
struct pool_task;
struct run_result;
void measure_task(struct measure *m, struct pool_task *task, int (*next)(void *arg, size_t *i),
                  void (*timed)(void *arg, size_t i),
                  void (*again)(void *arg, size_t i, const struct run_result *run), void *arg);
/* 1 if variant i's play-off result (po_n, po_ms, po_se) is in the journal: it is taken
   into t->r[i] */
int measure_playoff_resume(struct measure *m, size_t i);
/* the next job starts in a GPU process of its own: the idle workers end (a play-off round's
   first job; a process settles the speed of a kernel of a few microseconds) */
void measure_fresh(struct measure *m);
/* journal variant i's play-off result */
void measure_playoff_save(struct measure *m, size_t i);
/* the run is over; returns how many results came from the journal */
size_t measure_end(struct measure *m);
/* variant i never ran (interrupted) */
void measure_notrun(struct measure *m, size_t i);
/* the worker that m started (its GPU opened) now serves run t, at t's sizes (a point of the
   same config: points.h); measure_begin tells it the sizes */
void measure_rebind(struct measure *m, struct run *t);
/* end the worker and free m (NULL is fine) */
void measure_close(struct measure *m);

#endif
