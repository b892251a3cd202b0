/* pool: compile many sources in forked worker processes, through the cache. */
#ifndef TUNER_POOL_H
#define TUNER_POOL_H

#include "nvrtc.h"

struct job {
	const char *src;      /* full source text */
	const char *name;     /* file name for messages */
	const char *entry;
};

/* compile jobs[0..n) for arch with opts using up to `workers` processes; cachedir NULL means
   no persistent cache. outs[i] gets each result; hits[i] is 1 where it came from the cache.
   Returns the number of jobs actually compiled (cache misses). */
size_t pool_compile(const struct job *jobs, size_t n, const char *arch, char *const *opts,
                    size_t nopts, const char *cachedir, int workers, struct compile_out *outs,
                    int *hits);

#endif
