/* stream: the compile -> GPU scheduler of a run. The search picks the next variant, a pool of
   compiler processes builds it (or the cache has it), the GPU worker verifies and times it as
   soon as it is built (twins, byte-identical builds, once), then the fastest are timed again in
   the play-off (winner.h). Memory holds a cubin between compiling and timing only. */
#ifndef TUNER_STREAM_H
#define TUNER_STREAM_H

#include <stddef.h>

struct run;

/* what the stream did: variants built, failed to compile, over the shared-memory limit, not
   compiled (interrupted), and the first that failed in config order */
struct stream_sum {
	size_t nok, nbad, nres, nint, first_bad;
};

/* compile the variants the search picks among cand[0 .. ncand) and, with a GPU (t->m), verify
   and time each as soon as it is compiled, then the play-off; results into t->r, counts into
   *sum; t0: when compiling began (the reference's and the helpers' included) */
void stream_run(struct run *t, const size_t *cand, size_t ncand, const char *cachedir,
                double t0, struct stream_sum *sum);
/* the stream's work in one line, and the first compile failure */
void stream_summary(const struct run *t, const struct stream_sum *sum, size_t ncand);

#endif
