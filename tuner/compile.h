/* compile: many sources for one architecture, through the cache and a pool of compilers. */
#ifndef TUNER_COMPILE_H
#define TUNER_COMPILE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

struct buf;
struct compile_out;

struct job {
	const char *src;      /* full source text, or NULL: make(arg, b) appends it to b */
	void (*make)(const void *arg, struct buf *b);
	const void *arg;
	const char *name;     /* file name for messages */
	const char *entry;
	uint64_t same[2];     /* in a stream: jobs whose same[] are equal and not both 0 have equal
	                         texts (and entries): one of them is compiled */
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

/*
 * A stream of compile jobs for pool_run_many, for spaces too large to hold every source and
 * cubin at once. The jobs are numbered by the caller: next(arg, &j) gives the next one (as
 * pool_task's next does), job_of(arg, j, &job) describes it (its text made on demand), and
 * every result goes to sink(arg, j, out, hit) as soon as it is there (the sink owns out):
 * from the cache at once (hit 1), else once a compiler process answers (hit 0). A job whose
 * text another job is compiling waits for that one and gets a copy of its result (hit 2):
 * identical texts are compiled once. Results are stored in the cache (cachedir NULL: none).
 */
struct compiler;
struct pool_task;
struct compiler *compile_open(const char *arch, char *const *opts, size_t nopts,
                              const char *cachedir, int workers,
                              void (*job_of)(void *arg, size_t j, struct job *out),
                              int (*next)(void *arg, size_t *j),
                              void (*sink)(void *arg, size_t j, struct compile_out *out, int hit),
                              void *arg, volatile sig_atomic_t *stop);
/* the compilers' task for pool_run_many (why: where a failure to start one is said) */
void compile_task(struct compiler *k, struct pool_task *task, char *why, size_t whylen);
/* end the compilers and free k; returns how many jobs were compiled (not in the cache, not
   shared), and *shared (if not NULL) how many got another job's result */
size_t compile_close(struct compiler *k, size_t *shared);

#endif
