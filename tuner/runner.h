/* runner: GPU work in a worker process that the tuner restarts after a fault or a time-out. */
#ifndef TUNER_RUNNER_H
#define TUNER_RUNNER_H

#include <signal.h>
#include <stddef.h>
#include "bench.h"
#include "util.h"

/* how a job ended, seen from the parent */
enum outcome {
	OUT_NONE,      /* not run (yet, or interrupted) */
	OUT_DONE,      /* the worker sent a result */
	OUT_TIMEOUT,   /* no result within the time limit: the worker was killed */
	OUT_DIED,      /* the worker died while running it */
};

/*
 * What a worker does; every callback runs in the worker process, which is forked from the
 * tuner and so sees its memory as it was at the fork. A worker opens the device and reports
 * `info`, prepares what needs no data from the parent (e.g. allocations) while the parent goes
 * on, then receives the setup blob, reports `hello`, and runs jobs, each with its own blob.
 */
struct runner_ops {
	int (*open)(void *ctx, void *info, char *why, size_t whylen);
	void (*prepare)(void *ctx);
	int (*setup)(void *ctx, const void *blob, size_t len, void *hello, char *why, size_t whylen);
	void (*run)(void *ctx, size_t job, const void *blob, size_t len, struct run_result *r);
	/* 1 if the worker must not go on after result r (its GPU context is lost) */
	int (*lost)(void *ctx, const struct run_result *r);
	void *ctx;
	size_t info_len, hello_len;
};

struct runner_limits {
	double setup_s;   /* time limit for a worker's open and setup */
	double job_s;     /* time limit for one job */
};

struct runner;

/* fork the first worker and wait for its info; NULL with why if it cannot open the device */
struct runner *runner_start(const struct runner_ops *ops, const struct runner_limits *lim,
                            void *info, char *why, size_t whylen);
/* run jobs todo[0..n) one at a time, restarting the worker after a fault, a death or a
   time-out (a new worker gets the same setup blob); blob(arg, j, b) appends job j's blob to b.
   For each job j, res[j] and outc[j] are set and done(arg, j) is called as soon as it ends.
   Stops early, leaving OUT_NONE, once *stop is nonzero. hello receives the first hello.
   Returns 0, or -1 with why if a worker's setup fails. */
int runner_run(struct runner *rn, const void *setup, size_t setup_len,
               void (*blob)(void *arg, size_t j, struct buf *b), const size_t *todo, size_t n,
               struct run_result *res, enum outcome *outc, void *hello,
               void (*done)(void *arg, size_t j), void *arg, volatile sig_atomic_t *stop,
               char *why, size_t whylen);
/* end the worker and free rn (NULL is fine) */
void runner_end(struct runner *rn);

#endif
