/* runner: GPU work in worker processes that the tuner restarts after a fault or a time-out. */
#ifndef TUNER_RUNNER_H
#define TUNER_RUNNER_H

#include <signal.h>
#include <stddef.h>
#include "bench.h"

/* how a variant's run ended, seen from the parent */
enum outcome {
	OUT_NONE,      /* not run (yet, or interrupted) */
	OUT_DONE,      /* the worker sent a result */
	OUT_TIMEOUT,   /* no result within the time limit: the worker was killed */
	OUT_DIED,      /* the worker died while running it */
};

/* what a worker does; every callback runs in the worker process */
struct runner_ops {
	/* open the GPU and prepare; fill hello[0..hello_len) for the parent; 0 or -1 with why */
	int (*setup)(void *ctx, void *hello, char *why, size_t whylen);
	/* run job i */
	void (*run)(void *ctx, size_t i, struct run_result *r);
	/* 1 if the worker must not go on after result r (its GPU context is lost) */
	int (*lost)(void *ctx, const struct run_result *r);
	void *ctx;
	size_t hello_len;
};

struct runner_limits {
	double setup_s;   /* time limit for a worker's setup */
	double job_s;     /* time limit for one job */
};

/* run fn(arg, out) in a child and copy out[0..len) back; 0, or -1 with why (the child failed,
   died or exceeded timeout_s). The child's return value is fn's: nonzero means failure, and
   the child's out holds a NUL-terminated reason. */
int runner_call(int (*fn)(void *arg, void *out, size_t len), void *arg, void *out, size_t len,
                double timeout_s, char *why, size_t whylen);

/* run jobs todo[0..n) in worker processes, one at a time, restarting a worker after a fault,
   a death or a time-out; for each job j, res[j] and outc[j] are set and done(arg, j) is called
   in the parent as soon as the job ends. Stops early, leaving OUT_NONE, once *stop is nonzero.
   hello receives the first worker's hello. Returns 0, or -1 with why if a worker's setup fails. */
int runner_run(const struct runner_ops *ops, const struct runner_limits *lim, const size_t *todo,
               size_t n, struct run_result *res, enum outcome *outc, void *hello,
               void (*done)(void *arg, size_t j), void *arg, volatile sig_atomic_t *stop,
               char *why, size_t whylen);

#endif
