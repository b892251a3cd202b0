/* pool: forked worker processes that run jobs one at a time, each answered by a message.

   Parent and worker talk through two pipes. The parent sends frames of (u64 job, u64 length,
   bytes): a setup message (job POOL_SETUP) at the start of every run, then the jobs. A worker
   serves one run after another: each run's setup comes before its jobs. The worker answers with
   frames of (u8 kind, u64 length, bytes): 'i' its info after opening, 'h' its hello after the
   setup, 'a' a job's answer, 'A' an answer after which it ends, 'e' a failure to open or set
   up (the bytes say why). The parent hands each job to the next free worker and polls the
   busy ones, so it sees an answer, a death (end of file) or a time-out as soon as it happens,
   and an interrupt within 200 ms. Nothing waits on one worker: a worker is started (forked),
   opens, is set up and gets its first job as its answers come, so several workers open side
   by side (a GPU worker's driver and context start-up takes a good part of a second) while
   the others run jobs. */
#include "pool.h"

#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"
#include "wire.h"

/* the job number of a setup frame */
#define POOL_SETUP UINT64_MAX

enum { RD_OK = 1, RD_EOF = 0, RD_TIMEOUT = -1, RD_STOP = -2, RD_ERR = -3 };

struct worker {
	pid_t pid;                /* 0 when none is running */
	int to, from;             /* the parent's ends: frames to the worker, answers from it */
	int opening;              /* started, its info not read yet */
	int setting;              /* sent this run's setup, its hello not read yet */
	int ready;                /* it has answered the setup of this run */
	int busy;                 /* it has a job: sent, or waiting for it to open or set up */
	int sent;                 /* the job is sent */
	size_t job;
	double deadline;          /* of what it is waiting for, now_s() clock; 0: none */
};

struct pool {
	struct pool_ops ops;
	struct pool_limits lim;
	struct worker *w;
	int nw;
};

/* read exactly n bytes before `deadline` (<= 0: none), looking at *stop (may be NULL) */
static int read_full(int fd, void *p, size_t n, double deadline, volatile sig_atomic_t *stop)
{
	char *s = p;

	while (n > 0) {
		struct pollfd pfd = {fd, POLLIN, 0};
		int ms = -1, r;
		ssize_t got;

		if (stop && *stop)
			return RD_STOP;
		if (deadline > 0) {
			double left = deadline - now_s();
			if (left <= 0)
				return RD_TIMEOUT;
			ms = (int)ceil(left * 1000);
		}
		if (stop && (ms < 0 || ms > 200))
			ms = 200; /* wake up to look at *stop */
		r = poll(&pfd, 1, ms);
		if (r < 0 && errno != EINTR)
			return RD_ERR;
		if (r <= 0)
			continue;
		got = read(fd, s, n);
		if (got < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return RD_ERR;
		}
		if (got == 0)
			return RD_EOF;
		s += got;
		n -= (size_t)got;
	}
	return RD_OK;
}

/* read one answer frame into *kind and b (replaced); RD_* */
static int read_frame(int fd, char *kind, struct buf *b, double deadline,
                      volatile sig_atomic_t *stop)
{
	unsigned char h[9];
	struct rd r;
	uint64_t len;
	int rc = read_full(fd, h, sizeof h, deadline, stop);

	if (rc != RD_OK)
		return rc;
	*kind = (char)h[0];
	r = rd_of(h + 1, 8);
	len = rd_u64(&r);
	if (len > ((uint64_t)1 << 34))
		return RD_ERR;
	b->len = 0;
	buf_add(b, NULL, 0);
	if (len) {
		b->s = xrealloc(b->s, (size_t)len + 1);
		b->cap = (size_t)len + 1;
		rc = read_full(fd, b->s, (size_t)len, deadline, stop);
		b->len = rc == RD_OK ? (size_t)len : 0;
		b->s[b->len] = '\0';
	}
	return rc;
}

/* the worker's side: write one answer frame, or end */
static void answer(int fd, char kind, const struct buf *b)
{
	struct buf f = {0};

	buf_add(&f, &kind, 1);
	wire_bytes(&f, b->s, b->len);
	if (write_all(fd, f.s, f.len) < 0)
		_exit(1);
	buf_free(&f);
}

/* the worker's side: read the next (u64 length, bytes) frame into b; 0, or -1 at the end */
static int take(int fd, struct buf *b)
{
	unsigned char h[8];
	struct rd r;
	uint64_t len;

	if (read_all(fd, h, sizeof h) < 0)
		return -1;
	r = rd_of(h, sizeof h);
	len = rd_u64(&r);
	b->len = 0;
	b->s = xrealloc(b->s, (size_t)len + 1);
	b->cap = (size_t)len + 1;
	if (read_all(fd, b->s, (size_t)len) < 0)
		return -1;
	b->len = (size_t)len;
	b->s[len] = '\0';
	return 0;
}

static noreturn void worker_main(struct pool *p, int w, int in, int out)
{
	const struct pool_ops *o = &p->ops;
	struct buf b = {0}, msg = {0};
	char why[256] = "";
	unsigned char h[8];
	struct rd r;

	signal(SIGINT, SIG_IGN); /* the parent decides what an interrupt abandons */
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	buf_add(&b, NULL, 0);
	if (o->open && o->open(o->ctx, w, &b, why, sizeof why) < 0) {
		b.len = 0;
		buf_puts(&b, why);
		answer(out, 'e', &b);
		_exit(0);
	}
	answer(out, 'i', &b);
	if (o->prepare)
		o->prepare(o->ctx);
	while (read_all(in, h, sizeof h) == 0 && take(in, &msg) == 0) {
		uint64_t job;
		int end;
		r = rd_of(h, sizeof h);
		job = rd_u64(&r);
		b.len = 0;
		if (job == POOL_SETUP) {
			if (o->setup && o->setup(o->ctx, msg.s, msg.len, &b, why, sizeof why) < 0) {
				b.len = 0;
				buf_puts(&b, why);
				answer(out, 'e', &b);
				_exit(0);
			}
			answer(out, 'h', &b);
			continue;
		}
		end = o->run ? o->run(o->ctx, (size_t)job, msg.s, msg.len, &b) : 0;
		answer(out, end ? 'A' : 'a', &b);
		if (end)
			_exit(0);
	}
	_exit(0);
}

void pool_death(int st, char *s, size_t n)
{
	if (WIFSIGNALED(st))
		snprintf(s, n, "died: signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	else if (WIFEXITED(st))
		snprintf(s, n, "exited with status %d", WEXITSTATUS(st));
	else
		snprintf(s, n, "ended abnormally (status 0x%x)", (unsigned)st);
}

/* close w's pipes and reap it (killing it first if kill_it); its death into why (may be NULL) */
static void reap(struct pool *p, struct worker *w, int kill_it, char *why, size_t whylen)
{
	int st = 0;
	char d[128];

	if (w->pid <= 0)
		return;
	if (kill_it)
		kill(w->pid, SIGKILL);
	close(w->to);
	close(w->from);
	while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
		;
	if (why) {
		pool_death(st, d, sizeof d);
		snprintf(why, whylen, "%s %s", p->ops.what, d);
	}
	w->pid = 0;
	w->ready = w->busy = w->sent = w->opening = w->setting = 0;
}

/* w's deadline for opening or setting up, from now */
static double open_deadline(const struct pool *p)
{
	return p->lim.open_s > 0 ? now_s() + p->lim.open_s : 0;
}

/* what w answered (rc, kind, b) instead of a frame of the kind it was waiting for, into why;
   w is reaped */
static void refused(struct pool *p, struct worker *w, int rc, char kind, const struct buf *b,
                    char *why, size_t whylen)
{
	if (rc == RD_OK && kind == 'e')
		snprintf(why, whylen, "%s", b->s ? b->s : "");
	else if (rc == RD_TIMEOUT)
		snprintf(why, whylen, "the %s did not get ready within %.0f s", p->ops.what,
		         p->lim.open_s);
	else if (rc == RD_STOP)
		snprintf(why, whylen, "interrupted");
	if (rc == RD_EOF || rc == RD_ERR || (rc == RD_OK && kind != 'e'))
		reap(p, w, 1, why, whylen);
	else
		reap(p, w, 1, NULL, 0);
}

/* fork worker i, which then opens by itself (its info to be read); 0, or -1 with why */
static int launch(struct pool *p, int i, char *why, size_t whylen)
{
	struct worker *w = &p->w[i];
	int cp[2], rp[2], k;

	if (pipe(cp) < 0) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe(rp) < 0) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		close(cp[0]), close(cp[1]);
		return -1;
	}
	fflush(NULL); /* nothing buffered is written twice */
	w->pid = fork();
	if (w->pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		close(cp[0]), close(cp[1]), close(rp[0]), close(rp[1]);
		w->pid = 0;
		return -1;
	}
	if (w->pid == 0) {
		for (k = 0; k < p->nw; k++)
			if (k != i && p->w[k].pid > 0)
				close(p->w[k].to), close(p->w[k].from);
		close(cp[1]);
		close(rp[0]);
		worker_main(p, i, cp[0], rp[1]);
	}
	close(cp[0]);
	close(rp[1]);
	w->to = cp[1];
	w->from = rp[0];
	w->ready = w->busy = w->sent = w->setting = 0;
	w->opening = 1;
	w->deadline = open_deadline(p);
	return 0;
}

/* send this run's setup message to w (its hello to be read); 0, or -1 with why (w reaped) */
static int set_up(struct pool *p, struct worker *w, const struct pool_run *r, char *why,
                  size_t whylen)
{
	struct buf f = {0};
	int rc;

	wire_u64(&f, POOL_SETUP);
	wire_bytes(&f, r->setup, r->setup_len);
	rc = write_all(w->to, f.s, f.len);
	buf_free(&f);
	if (rc < 0) {
		reap(p, w, 1, why, whylen);
		return -1;
	}
	w->setting = 1;
	w->deadline = open_deadline(p);
	return 0;
}

struct pool *pool_new(const struct pool_ops *ops, const struct pool_limits *lim, int workers)
{
	struct pool *p = xcalloc(1, sizeof *p);

	signal(SIGPIPE, SIG_IGN); /* a worker that died shows as an error, not a signal */
	p->ops = *ops;
	if (!p->ops.what)
		p->ops.what = "worker process";
	p->lim = *lim;
	p->nw = workers > 0 ? workers : 1;
	p->w = xcalloc((size_t)p->nw, sizeof *p->w);
	return p;
}

void pool_resize(struct pool *p, int workers)
{
	if (workers <= p->nw)
		return;
	p->w = xreallocarray(p->w, (size_t)workers, sizeof *p->w);
	memset(p->w + p->nw, 0, (size_t)(workers - p->nw) * sizeof *p->w);
	p->nw = workers;
}

/* wait for w's info, into info; 0, or -1 with why (w reaped) */
static int open_info(struct pool *p, struct worker *w, struct buf *info, char *why,
                     size_t whylen)
{
	char kind = 0;
	int rc;

	if ((rc = read_frame(w->from, &kind, info, w->deadline, NULL)) == RD_OK && kind == 'i') {
		w->opening = 0;
		w->deadline = 0;
		return 0;
	}
	refused(p, w, rc, kind, info, why, whylen);
	return -1;
}

int pool_open(struct pool *p, struct buf *info, char *why, size_t whylen)
{
	struct worker *w = &p->w[0];

	if (w->pid > 0 && !w->opening)
		return 0;
	if (w->pid <= 0 && launch(p, 0, why, whylen) < 0)
		return -1;
	return open_info(p, w, info, why, whylen);
}

int pool_open_all(struct pool *p, struct buf *infos, char *why, size_t whylen)
{
	int i;

	for (i = 0; i < p->nw; i++)
		if (p->w[i].pid <= 0 && launch(p, i, why, whylen) < 0)
			return -1;
	for (i = 0; i < p->nw; i++) /* side by side: the wait is the slowest's */
		if (p->w[i].opening && open_info(p, &p->w[i], &infos[i], why, whylen) < 0)
			return -1;
	return 0;
}

int pool_start(struct pool *p, char *why, size_t whylen)
{
	int i;

	for (i = 0; i < p->nw; i++)
		if (p->w[i].pid <= 0 && launch(p, i, why, whylen) < 0)
			return -1;
	return 0;
}

/* worker w's job ended with oc: tell the caller */
static void settle(const struct pool_run *r, struct worker *w, enum outcome oc, const void *msg,
                   size_t len)
{
	w->busy = 0;
	if (r->done)
		r->done(r->arg, w->job, oc, msg, len);
}

/* a pool's run within pool_run_many, and where it stands */
struct task {
	struct pool *p;
	const struct pool_run *r;
	int (*next)(void *arg, size_t *job);
	void *arg;
	int got_hello, failed, ended;   /* ended: next() said there is no more */
	char *why;
	size_t whylen;
};

/* t failed: no worker of it could be started or set up (why) */
static void task_fail(struct task *k, const char *why)
{
	if (!k->failed)
		snprintf(k->why, k->whylen, "%s", why);
	k->failed = 1;
}

/* send w its job (it is set up) */
static void send_job(struct task *k, struct worker *w, struct buf *b)
{
	struct pool *p = k->p;
	const struct pool_run *r = k->r;
	struct buf f = {0};

	b->len = 0;
	if (r->message)
		r->message(r->arg, w->job, b);
	wire_u64(&f, w->job);
	wire_bytes(&f, b->s, b->len);
	w->sent = 1;
	w->deadline = p->lim.job_s > 0 ? now_s() + p->lim.job_s : 0;
	if (write_all(w->to, f.s, f.len) < 0) {
		char d[256];
		reap(p, w, 1, d, sizeof d);
		settle(r, w, OUT_DIED, d, strlen(d));
	}
	buf_free(&f);
}

/* w has opened (or was open): set it up for this run if it has a job */
static void opened(struct task *k, struct worker *w)
{
	char why[256];

	if (w->busy && !w->ready && !w->setting && set_up(k->p, w, k->r, why, sizeof why) < 0)
		task_fail(k, why);
}

/* what worker w, opening or setting up, answered (rc, kind, b) */
static void starting(struct task *k, struct worker *w, int rc, char kind, struct buf *b)
{
	char why[256] = "";

	if (rc == RD_STOP)
		return;
	if (rc == RD_OK && w->opening && kind == 'i') {
		w->opening = 0;
		w->deadline = 0;
		opened(k, w);
		return;
	}
	if (rc == RD_OK && w->setting && kind == 'h') {
		w->setting = 0;
		w->ready = 1;
		if (!k->got_hello && k->r->hello) {
			k->r->hello->len = 0;
			buf_add(k->r->hello, b->s, b->len);
		}
		k->got_hello = 1;
		if (w->busy)
			send_job(k, w, b);
		return;
	}
	refused(k->p, w, rc, kind, b, why, sizeof why);
	task_fail(k, why);
}

/* 1 if poll should watch w */
static int watched(const struct worker *w)
{
	return w->pid > 0 && (w->opening || w->setting || (w->busy && w->sent));
}

/* handle what poll found in t's workers (pfd: one per worker): answers, deaths and time-outs */
static void handle(struct task *k, const struct pollfd *pfd, struct buf *b)
{
	struct pool *p = k->p;
	const struct pool_run *r = k->r;
	char why[256];
	int i;

	for (i = 0; i < p->nw; i++) {
		struct worker *w = &p->w[i];
		char kind = 0;
		int rc;

		if (pfd[i].fd < 0 || !watched(w) || (r->stop && *r->stop))
			continue;
		if (pfd[i].revents) {
			rc = read_frame(w->from, &kind, b, w->deadline, r->stop);
			if (w->opening || w->setting) {
				starting(k, w, rc, kind, b);
				continue;
			}
			if (rc == RD_STOP)
				continue;
			if (rc == RD_OK && (kind == 'a' || kind == 'A')) {
				if (kind == 'A') /* it ends by itself */
					reap(p, w, 0, NULL, 0);
				settle(r, w, OUT_DONE, b->s, b->len);
				continue;
			}
			if (rc != RD_TIMEOUT) {
				reap(p, w, 1, why, sizeof why);
				settle(r, w, OUT_DIED, why, strlen(why));
				continue;
			}
		}
		if (w->deadline > 0 && now_s() >= w->deadline) {
			if (w->opening || w->setting) {
				starting(k, w, RD_TIMEOUT, 0, b);
				continue;
			}
			reap(p, w, 1, NULL, 0);
			snprintf(why, sizeof why, "no result within %.1f s: the %s was killed",
			         p->lim.job_s, p->ops.what);
			settle(r, w, OUT_TIMEOUT, why, strlen(why));
		}
	}
}

/* hand t's next jobs to its free workers, starting and setting them up as needed (the job
   is sent once its worker is set up) */
static void dispatch(struct task *k, struct buf *b)
{
	struct pool *p = k->p;
	int i;

	for (i = 0; i < p->nw && !k->ended && !k->failed; i++) {
		struct worker *w = &p->w[i];
		char why[256];
		size_t job;
		int got;

		if (w->busy)
			continue;
		if ((got = k->next(k->arg, &job)) <= 0) {
			k->ended = got < 0;
			break;
		}
		w->job = job;
		if (w->pid <= 0 && launch(p, i, why, sizeof why) < 0) {
			task_fail(k, why);
			return;
		}
		w->busy = 1;
		w->sent = 0;
		if (w->ready)
			send_job(k, w, b);
		else if (!w->opening)
			opened(k, w);
	}
}

int pool_run_many(struct pool_task *tasks, int n)
{
	struct task *k = xcalloc((size_t)n, sizeof *k);
	struct buf b = {0};
	struct pollfd *pfd;
	int i, j, nfd = 0, rc = 0;

	for (i = 0; i < n; i++) {
		k[i] = (struct task){tasks[i].pool, tasks[i].run, tasks[i].next, tasks[i].arg, 0, 0,
		                     0, tasks[i].why, tasks[i].whylen};
		tasks[i].failed = 0;
		for (j = 0; j < k[i].p->nw; j++)
			k[i].p->w[j].ready = 0; /* a new run brings its own setup */
		nfd += k[i].p->nw;
	}
	pfd = xcalloc((size_t)nfd, sizeof *pfd);
	for (;;) {
		volatile sig_atomic_t *stop = NULL;
		double first = 0, now;
		int busy = 0, open = 0, ms = 200, f = 0;

		for (i = 0; i < n; i++) {
			stop = k[i].r->stop ? k[i].r->stop : stop;
			if (!k[i].failed && !(stop && *stop))
				dispatch(&k[i], &b);
		}
		if (stop && *stop)
			break;
		now = now_s();
		for (i = 0; i < n; i++) {
			for (j = 0; j < k[i].p->nw; j++) {
				struct worker *w = &k[i].p->w[j];
				/* a failed task's jobs already sent still end */
				int on = watched(w) && (!k[i].failed || w->sent);
				pfd[f++] = (struct pollfd){on ? w->from : -1, POLLIN, 0};
				busy += on ? w->busy : !k[i].failed && w->busy;
				if (on && w->deadline > 0 && (!first || w->deadline < first))
					first = w->deadline;
			}
			open += !k[i].failed && !k[i].ended;
		}
		if (!busy && !open)
			break;
		if (!busy) { /* waiting for jobs no answer can bring: a task failed, else next() is
		                wrong */
			for (i = 0; i < n && !k[i].failed; i++)
				;
			if (i < n)
				break;
			die("pool_run_many: no job running and none to hand out");
		}
		if (first > 0) {
			double left = first - now;
			ms = left <= 0 ? 0 : left < 0.2 ? (int)ceil(left * 1000) : 200;
		}
		if (poll(pfd, (nfds_t)nfd, ms) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		for (i = f = 0; i < n; f += k[i].p->nw, i++)
			handle(&k[i], pfd + f, &b);
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < k[i].p->nw; j++)
			if (k[i].p->w[j].busy) /* interrupted, or its task failed */
				reap(k[i].p, &k[i].p->w[j], 1, NULL, 0);
		/* an interrupt is not a failure */
		tasks[i].failed = k[i].failed && !(k[i].r->stop && *k[i].r->stop);
		rc = tasks[i].failed ? -1 : rc;
	}
	buf_free(&b);
	free(pfd);
	free(k);
	return rc;
}

/* pool_run's jobs: the todo array in order */
struct list {
	const size_t *todo;
	size_t n, next;
};

static int list_next(void *arg, size_t *job)
{
	struct list *l = arg;

	if (l->next >= l->n)
		return -1;
	*job = l->todo[l->next++];
	return 1;
}

int pool_run(struct pool *p, const struct pool_run *r, const size_t *todo, size_t n, char *why,
             size_t whylen)
{
	struct list l = {todo, n, 0};
	struct pool_task t = {p, r, list_next, &l, why, whylen, 0};

	return pool_run_many(&t, 1);
}

void pool_retire(struct pool *p)
{
	int i;

	for (i = 0; p && i < p->nw; i++) {
		struct worker *w = &p->w[i];
		/* killed: other pools' workers, forked later, hold its pipe too, so it would never
		   read their end */
		if (w->pid > 0 && !w->busy && !w->opening && !w->setting)
			reap(p, w, 1, NULL, 0);
	}
}

void pool_end(struct pool *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; i < p->nw; i++) {
		struct worker *w = &p->w[i];
		if (w->pid <= 0)
			continue;
		/* not waited for: a GPU worker's context teardown takes tens of ms, and the tuner
		   is done with it (a late exit is reaped by init after ours) */
		kill(w->pid, SIGKILL);
		close(w->to);
		close(w->from);
		waitpid(w->pid, NULL, WNOHANG);
		w->pid = 0;
	}
	free(p->w);
	free(p);
}
