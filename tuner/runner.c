/* runner: GPU work in worker processes that the tuner restarts after a fault or a time-out. */
#include "runner.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

enum { RD_OK = 1, RD_EOF = 0, RD_TIMEOUT = -1, RD_STOP = -2, RD_ERR = -3 };

struct worker {
	pid_t pid;
	int cmd, res;   /* parent's ends: write job indices, read results */
};

static int write_full(int fd, const void *p, size_t n)
{
	const char *s = p;

	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* read exactly n bytes before `deadline` (now_s() clock; <= 0 means none); RD_* */
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

/* describe how child pid ended (reaping it) */
static void reap(pid_t pid, char *why, size_t whylen)
{
	int st = 0;

	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!why)
		return;
	if (WIFSIGNALED(st))
		snprintf(why, whylen, "worker process died: signal %d (%s)", WTERMSIG(st),
		         strsignal(WTERMSIG(st)));
	else
		snprintf(why, whylen, "worker process exited with status %d", WEXITSTATUS(st));
}

static void kill_worker(struct worker *w)
{
	if (w->pid <= 0)
		return;
	kill(w->pid, SIGKILL);
	close(w->cmd);
	close(w->res);
	reap(w->pid, NULL, 0);
	w->pid = 0;
}

/* the worker's side: set up, then run job indices until EOF */
static noreturn void worker_main(const struct runner_ops *ops, int cmd, int res)
{
	size_t msg = 1 + ops->hello_len + 256, j;
	char *m = xcalloc(1, msg);

	signal(SIGINT, SIG_IGN); /* the parent decides what an interrupt abandons */
	signal(SIGPIPE, SIG_DFL);
	m[0] = ops->setup(ops->ctx, m + 1, m + 1 + ops->hello_len, 255) == 0;
	if (write_full(res, m, msg) < 0 || !m[0])
		_exit(0);
	while (read_full(cmd, &j, sizeof j, 0, NULL) == RD_OK) {
		struct run_result r;

		memset(&r, 0, sizeof r);
		ops->run(ops->ctx, j, &r);
		if (write_full(res, &j, sizeof j) < 0 || write_full(res, &r, sizeof r) < 0)
			_exit(1);
		if (ops->lost(ops->ctx, &r))
			_exit(0);
	}
	_exit(0);
}

/* start a worker and wait for its hello; 0, or -1 with why */
static int spawn(const struct runner_ops *ops, const struct runner_limits *lim, struct worker *w,
                 void *hello, volatile sig_atomic_t *stop, char *why, size_t whylen)
{
	int cp[2], rp[2], r;
	size_t msg = 1 + ops->hello_len + 256;
	char *m;

	if (pipe(cp) < 0 || (pipe(rp) < 0 && (close(cp[0]), close(cp[1]), 1))) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	w->pid = fork();
	if (w->pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		close(cp[0]), close(cp[1]), close(rp[0]), close(rp[1]);
		return -1;
	}
	if (w->pid == 0) {
		close(cp[1]);
		close(rp[0]);
		worker_main(ops, cp[0], rp[1]);
	}
	close(cp[0]);
	close(rp[1]);
	w->cmd = cp[1];
	w->res = rp[0];
	m = xcalloc(1, msg);
	r = read_full(w->res, m, msg, now_s() + lim->setup_s, stop);
	if (r == RD_OK && m[0]) {
		memcpy(hello, m + 1, ops->hello_len);
		free(m);
		return 0;
	}
	if (r == RD_OK)
		snprintf(why, whylen, "%s", m + 1 + ops->hello_len);
	else if (r == RD_TIMEOUT)
		snprintf(why, whylen, "worker setup took longer than %.0f s", lim->setup_s);
	else if (r == RD_STOP)
		snprintf(why, whylen, "interrupted");
	else {
		close(w->cmd);
		close(w->res);
		reap(w->pid, why, whylen);
		w->pid = 0;
	}
	free(m);
	kill_worker(w);
	return -1;
}

int runner_run(const struct runner_ops *ops, const struct runner_limits *lim, const size_t *todo,
               size_t n, struct run_result *res, enum outcome *outc, void *hello,
               void (*done)(void *arg, size_t j), void *arg, volatile sig_atomic_t *stop,
               char *why, size_t whylen)
{
	struct worker w = {0};
	void *scratch = xcalloc(1, ops->hello_len + 1);
	int first = 1;
	size_t k;

	signal(SIGPIPE, SIG_IGN);
	for (k = 0; k < n; k++)
		outc[todo[k]] = OUT_NONE;
	for (k = 0; k < n && !*stop; k++) {
		size_t j = todo[k], got;
		struct run_result r;
		int rc;

		if (w.pid <= 0) {
			if (spawn(ops, lim, &w, first ? hello : scratch, stop, why, whylen) < 0) {
				free(scratch);
				return *stop ? 0 : -1;
			}
			first = 0;
		}
		if (write_full(w.cmd, &j, sizeof j) < 0)
			rc = RD_EOF;
		else if ((rc = read_full(w.res, &got, sizeof got, now_s() + lim->job_s, stop)) == RD_OK)
			rc = read_full(w.res, &r, sizeof r, now_s() + lim->job_s, stop);
		if (rc == RD_STOP)
			break;
		memset(&res[j], 0, sizeof res[j]);
		if (rc == RD_OK && got == j) {
			res[j] = r;
			outc[j] = OUT_DONE;
			if (ops->lost(ops->ctx, &r)) { /* the worker exits by itself */
				close(w.cmd);
				close(w.res);
				reap(w.pid, NULL, 0);
				w.pid = 0;
			}
		} else if (rc == RD_TIMEOUT) {
			kill_worker(&w);
			outc[j] = OUT_TIMEOUT;
			snprintf(res[j].reason, sizeof res[j].reason,
			         "no result within %.1f s: the worker was killed", lim->job_s);
		} else {
			close(w.cmd);
			close(w.res);
			kill(w.pid, SIGKILL); /* in case it only closed its pipe */
			reap(w.pid, res[j].reason, sizeof res[j].reason);
			w.pid = 0;
			outc[j] = OUT_DIED;
		}
		if (done)
			done(arg, j);
	}
	kill_worker(&w);
	free(scratch);
	return 0;
}

int runner_call(int (*fn)(void *arg, void *out, size_t len), void *arg, void *out, size_t len,
                double timeout_s, char *why, size_t whylen)
{
	int p[2], r;
	char *m = xcalloc(1, len + 1);
	pid_t pid;

	if (pipe(p) < 0) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		free(m);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		close(p[0]), close(p[1]), free(m);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		signal(SIGINT, SIG_IGN);
		m[0] = fn(arg, m + 1, len) != 0;
		_exit(write_full(p[1], m, len + 1) < 0);
	}
	close(p[1]);
	r = read_full(p[0], m, len + 1, now_s() + timeout_s, NULL);
	close(p[0]);
	if (r == RD_OK) {
		reap(pid, NULL, 0);
		memcpy(out, m + 1, len);
		if (m[0]) {
			snprintf(why, whylen, "%.*s", (int)len, m + 1);
			free(m);
			return -1;
		}
		free(m);
		return 0;
	}
	if (r == RD_TIMEOUT) {
		kill(pid, SIGKILL);
		reap(pid, NULL, 0);
		snprintf(why, whylen, "no answer within %.0f s", timeout_s);
	} else {
		kill(pid, SIGKILL);
		reap(pid, why, whylen);
	}
	free(m);
	return -1;
}
