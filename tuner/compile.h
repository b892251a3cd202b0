/* compile: many sources for one architecture, through the cache and a pool of compilers. */
#ifndef TUNER_COMPILE_H
#define TUNER_COMPILE_H

#include <signal.h>
#include "nvrtc.h"
#include "util.h"

struct job {
	const char *src;      /* full source text, or NULL: make(arg, b) appends it to b */
	void (*make)(const void *arg, struct buf *b);
	const void *arg;
	const char *name;     /* file name for messages */
	const char *entry;
};

/* the log of a job that was not compiled because *stop was set */
#define COMPILE_INTERRUPTED "not compiled: interrupted"

/* compile jobs[0..n) for arch (the text of a job made by its make() exists only while that
   job is looked up, compiled or stored: memory does not grow with source size x jobs) with opts using up to `workers` processes; cachedir NULL means
   no persistent cache. outs[i] gets each result; hits[i] is 1 where it came from the cache.
   Once *stop is set (stop may be NULL) the compilers are ended within 200 ms and the jobs
   not finished get log COMPILE_INTERRUPTED. Returns the number of cache misses. */
size_t compile_many(const struct job *jobs, size_t n, const char *arch, char *const *opts,
                    size_t nopts, const char *cachedir, int workers, struct compile_out *outs,
                    int *hits, volatile sig_atomic_t *stop);

#endif
