/* pool: forked worker processes that run jobs one at a time, each answered by a message; the
   one process abstraction of the tuner (compilation, the bank model, the GPU worker). */
#ifndef TUNER_POOL_H
#define TUNER_POOL_H

#include <signal.h>
#include <stddef.h>

struct buf;

/* how a job ended, seen from the parent */
enum outcome {
	OUT_NONE,      /* not run (yet, or interrupted) */
	OUT_DONE,      /* the worker answered */
	OUT_TIMEOUT,   /* no answer within the time limit: the worker was killed */
	OUT_DIED,      /* the worker died while running it */
};

/*
 * What a worker does. Every callback runs in a worker process, forked from the caller when
 * the worker starts, so it sees the caller's memory as it was then. A worker opens (and
 * reports `info`), prepares what needs nothing from the parent while the parent goes on,
 * receives the setup message (the same for every worker, also after a restart) and answers
 * with `hello`, then runs jobs. Any callback may be NULL: nothing to do.
 */
struct pool_ops {
	/* worker number w: get ready; append what the parent should know to info; 0, or -1 with
	   why (the worker then ends) */
	int (*open)(void *ctx, int w, struct buf *info, char *why, size_t whylen);
	void (*prepare)(void *ctx);
	/* the setup message; append the hello; 0, or -1 with why */
	int (*setup)(void *ctx, const void *msg, size_t len, struct buf *hello, char *why,
	             size_t whylen);
	/* run job j given its message, append the answer; return 1 if the worker must end after
	   answering (e.g. its GPU context is lost) */
	int (*run)(void *ctx, size_t j, const void *msg, size_t len, struct buf *answer);
	void *ctx;
	const char *what;         /* the workers in messages: "compiler process" */
};

struct pool_limits {
	double open_s;    /* time limit for a worker's open and setup (0: none) */
	double job_s;     /* time limit for one job (0: none) */
};

struct pool;

/* a pool of up to `workers` processes (none started yet) */
struct pool *pool_new(const struct pool_ops *ops, const struct pool_limits *lim, int workers);
/* let p run up to `workers` processes (more than it had; between runs) */
void pool_resize(struct pool *p, int workers);
/* start the first worker now and wait for its info (appended to info); 0, or -1 with why if
   it cannot open (the pool stays usable: pool_run tries again) */
int pool_open(struct pool *p, struct buf *info, char *why, size_t whylen);
/* start every worker not running yet and wait for each one's info (worker w's appended to
   infos[w]); they open side by side. 0, or -1 with the first failure's why */
int pool_open_all(struct pool *p, struct buf *infos, char *why, size_t whylen);
/* start every worker not running yet, not waiting for them: they open side by side while the
   caller goes on (their info is read, and dropped, by the next run); 0, or -1 with why if one
   cannot be forked */
int pool_start(struct pool *p, char *why, size_t whylen);

/* the parent's side of a run */
struct pool_run {
	const void *setup;        /* the setup message (NULL with setup_len 0: none) */
	size_t setup_len;
	/* append job j's message to b (NULL: empty; the worker has what it needs since its
	   fork) */
	void (*message)(void *arg, size_t j, struct buf *b);
	/* job j ended: its answer (OUT_DONE) or, otherwise, why in text (NUL-terminated) */
	void (*done)(void *arg, size_t j, enum outcome oc, const void *msg, size_t len);
	void *arg;
	struct buf *hello;        /* receives the first worker's hello of this run (NULL: dropped) */
	volatile sig_atomic_t *stop; /* nonzero: stop now, killing the busy workers (NULL: never) */
};

/*
 * Run jobs todo[0..n) on up to the pool's worker count at once, handing each to the next free
 * worker and starting or restarting workers as needed (a worker that died, timed out or asked
 * to end is replaced for the next job). Every job that ends gets one done() call as soon as it
 * ends; jobs never handed out, or abandoned at a stop, get none. Returns 0, or -1 with why if
 * no worker can be started or set up (jobs not run get no done()).
 */
int pool_run(struct pool *p, const struct pool_run *r, const size_t *todo, size_t n, char *why,
             size_t whylen);
/* one pool's part in pool_run_many */
struct pool_task {
	struct pool *pool;
	const struct pool_run *run;
	/* the next job to hand out: 1 with *job set, 0 none now (one may come once a running job
	   of any task answers), -1 none any more */
	int (*next)(void *arg, size_t *job);
	void *arg;
	char *why;                /* why it failed */
	size_t whylen;
	int failed;               /* out: no worker of it could be started or set up */
};

/*
 * Run several pools at once (e.g. compilers feeding a GPU worker), each as pool_run does,
 * asking each task's next() for jobs whenever one of its workers is free and waiting on every
 * busy worker of every pool together: an answer's done() may make jobs of another task
 * available. Ends when no job runs and every task's next() said -1 (or it failed). A task
 * that fails stops handing out jobs, the others go on; once nothing runs, those still waiting
 * for jobs (from the failed one's answers) end too. Returns 0, or -1 if a task failed.
 */
int pool_run_many(struct pool_task *tasks, int n);
/* end every worker that is open and idle (killed, its exit waited for: a GPU
   worker's memory is free again), so that the next job starts a fresh one */
void pool_retire(struct pool *p);
/* end every worker (not waiting for their exit) and free p (NULL is fine) */
void pool_end(struct pool *p);

/* how a child that ended with wait status st ended ("signal 11 (Segmentation fault)",
   "exited with status 3"), into s */
void pool_death(int st, char *s, size_t n);

#endif
