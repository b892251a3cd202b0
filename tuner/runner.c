/* runner: GPU work in a worker process that the tuner restarts after a fault or a time-out. */
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
	int cmd, res;   /* parent's ends: write blobs, read results */
};

struct runner {
	struct runner_ops ops;
	struct runner_limits lim;
	struct worker w;      /* pid 0 when none is running */
	int setup_done;       /* the running worker has had its setup blob */
};

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

/* the worker's side: open, prepare, set up, then run jobs until EOF */
static noreturn void worker_main(const struct runner_ops *ops, int cmd, int res)
{
	size_t pl = ops->info_len > ops->hello_len ? ops->info_len : ops->hello_len;
	char *m = xcalloc(1, 1 + pl + 256), *blob = NULL, why[256];
	void *payload = xcalloc(1, pl + 1); /* malloc-aligned, unlike m + 1 */
	uint64_t len, j;

	signal(SIGINT, SIG_IGN); /* the parent decides what an interrupt abandons */
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	memset(why, 0, sizeof why);
	m[0] = ops->open(ops->ctx, payload, why, sizeof why - 1) == 0;
	memcpy(m + 1, payload, ops->info_len);
	memcpy(m + 1 + ops->info_len, why, sizeof why);
	if (write_all(res, m, 1 + ops->info_len + 256) < 0 || !m[0])
		_exit(0);
	if (ops->prepare)
		ops->prepare(ops->ctx);
	if (read_full(cmd, &len, sizeof len, 0, NULL) != RD_OK)
		_exit(0);
	blob = xmalloc(len ? len : 1);
	if (read_full(cmd, blob, len, 0, NULL) != RD_OK)
		_exit(0);
	memset(payload, 0, pl + 1);
	memset(why, 0, sizeof why);
	m[0] = ops->setup(ops->ctx, blob, len, payload, why, sizeof why - 1) == 0;
	memcpy(m + 1, payload, ops->hello_len);
	memcpy(m + 1 + ops->hello_len, why, sizeof why);
	if (write_all(res, m, 1 + ops->hello_len + 256) < 0 || !m[0])
		_exit(0);
	free(blob);
	while (read_full(cmd, &j, sizeof j, 0, NULL) == RD_OK &&
	       read_full(cmd, &len, sizeof len, 0, NULL) == RD_OK) {
		struct run_result r;

		blob = xmalloc(len ? len : 1);
		if (read_full(cmd, blob, len, 0, NULL) != RD_OK)
			_exit(0);
		memset(&r, 0, sizeof r);
		ops->run(ops->ctx, (size_t)j, blob, (size_t)len, &r);
		free(blob);
		if (write_all(res, &j, sizeof j) < 0 || write_all(res, &r, sizeof r) < 0)
			_exit(1);
		if (ops->lost(ops->ctx, &r))
			_exit(0);
	}
	_exit(0);
}

/* read a worker's status message (ok byte, payload, reason) into out; 0, or -1 with why */
static int read_status(struct runner *rn, void *out, size_t len, volatile sig_atomic_t *stop,
                       char *why, size_t whylen)
{
	char *m = xcalloc(1, 1 + len + 256);
	int r = read_full(rn->w.res, m, 1 + len + 256, now_s() + rn->lim.setup_s, stop);

	if (r == RD_OK && m[0]) {
		memcpy(out, m + 1, len);
		free(m);
		return 0;
	}
	if (r == RD_OK)
		snprintf(why, whylen, "%.255s", m + 1 + len);
	else if (r == RD_TIMEOUT)
		snprintf(why, whylen, "the GPU worker did not get ready within %.0f s", rn->lim.setup_s);
	else if (r == RD_STOP)
		snprintf(why, whylen, "interrupted");
	else {
		close(rn->w.cmd);
		close(rn->w.res);
		reap(rn->w.pid, why, whylen);
		rn->w.pid = 0;
	}
	free(m);
	kill_worker(&rn->w);
	return -1;
}

/* fork a worker and read its info; 0, or -1 with why */
static int spawn(struct runner *rn, void *info, volatile sig_atomic_t *stop, char *why,
                 size_t whylen)
{
	int cp[2], rp[2];

	if (pipe(cp) < 0) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe(rp) < 0) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		close(cp[0]), close(cp[1]);
		return -1;
	}
	fflush(NULL);
	rn->w.pid = fork();
	if (rn->w.pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		close(cp[0]), close(cp[1]), close(rp[0]), close(rp[1]);
		rn->w.pid = 0;
		return -1;
	}
	if (rn->w.pid == 0) {
		close(cp[1]);
		close(rp[0]);
		worker_main(&rn->ops, cp[0], rp[1]);
	}
	close(cp[0]);
	close(rp[1]);
	rn->w.cmd = cp[1];
	rn->w.res = rp[0];
	rn->setup_done = 0;
	return read_status(rn, info, rn->ops.info_len, stop, why, whylen);
}

/* send the setup blob to the running worker and read its hello */
static int setup(struct runner *rn, const void *blob, size_t len, void *hello,
                 volatile sig_atomic_t *stop, char *why, size_t whylen)
{
	uint64_t n = len;

	if (write_all(rn->w.cmd, &n, sizeof n) < 0 || write_all(rn->w.cmd, blob, len) < 0) {
		snprintf(why, whylen, "the GPU worker stopped before its setup");
		kill_worker(&rn->w);
		return -1;
	}
	if (read_status(rn, hello, rn->ops.hello_len, stop, why, whylen) < 0)
		return -1;
	rn->setup_done = 1;
	return 0;
}

struct runner *runner_start(const struct runner_ops *ops, const struct runner_limits *lim,
                            void *info, char *why, size_t whylen)
{
	struct runner *rn = xcalloc(1, sizeof *rn);

	signal(SIGPIPE, SIG_IGN);
	rn->ops = *ops;
	rn->lim = *lim;
	if (spawn(rn, info, NULL, why, whylen) < 0) {
		free(rn);
		return NULL;
	}
	return rn;
}

int runner_run(struct runner *rn, const void *setup_blob, size_t setup_len,
               void (*blob)(void *arg, size_t j, struct buf *b), const size_t *todo, size_t n,
               struct run_result *res, enum outcome *outc, void *hello,
               void (*done)(void *arg, size_t j), void *arg, volatile sig_atomic_t *stop,
               char *why, size_t whylen)
{
	char *scratch = xcalloc(1, rn->ops.info_len + rn->ops.hello_len + 1);
	int first = 1;
	struct buf b = {0};
	size_t k;

	for (k = 0; k < n; k++)
		outc[todo[k]] = OUT_NONE;
	for (k = 0; k < n && !*stop; k++) {
		uint64_t j = todo[k], got, len;
		struct run_result r;
		int rc;

		if (rn->w.pid <= 0 && spawn(rn, scratch, stop, why, whylen) < 0)
			goto fail;
		if (!rn->setup_done &&
		    setup(rn, setup_blob, setup_len, first ? hello : scratch, stop, why, whylen) < 0)
			goto fail;
		first = 0;
		b.len = 0;
		blob(arg, (size_t)j, &b);
		len = b.len;
		if (write_all(rn->w.cmd, &j, sizeof j) < 0 || write_all(rn->w.cmd, &len, sizeof len) < 0 ||
		    write_all(rn->w.cmd, b.s, b.len) < 0)
			rc = RD_EOF;
		else if ((rc = read_full(rn->w.res, &got, sizeof got, now_s() + rn->lim.job_s, stop)) == RD_OK)
			rc = read_full(rn->w.res, &r, sizeof r, now_s() + rn->lim.job_s, stop);
		if (rc == RD_STOP)
			break;
		memset(&res[j], 0, sizeof res[j]);
		if (rc == RD_OK && got == j) {
			res[j] = r;
			outc[j] = OUT_DONE;
			if (rn->ops.lost(rn->ops.ctx, &r)) { /* the worker exits by itself */
				close(rn->w.cmd);
				close(rn->w.res);
				reap(rn->w.pid, NULL, 0);
				rn->w.pid = 0;
			}
		} else if (rc == RD_TIMEOUT) {
			kill_worker(&rn->w);
			outc[j] = OUT_TIMEOUT;
			snprintf(res[j].reason, sizeof res[j].reason,
			         "no result within %.1f s: the worker was killed", rn->lim.job_s);
		} else {
			close(rn->w.cmd);
			close(rn->w.res);
			kill(rn->w.pid, SIGKILL); /* in case it only closed its pipe */
			reap(rn->w.pid, res[j].reason, sizeof res[j].reason);
			rn->w.pid = 0;
			outc[j] = OUT_DIED;
		}
		if (done)
			done(arg, (size_t)j);
	}
	buf_free(&b);
	free(scratch);
	return 0;
fail:
	buf_free(&b);
	free(scratch);
	return *stop ? 0 : -1;
}

void runner_end(struct runner *rn)
{
	if (!rn)
		return;
	if (rn->w.pid > 0) {
		/* not waited for: the driver's teardown of the worker's context takes tens of ms,
		   and the tuner is done with it (a late exit is reaped by init after ours) */
		kill(rn->w.pid, SIGKILL);
		close(rn->w.cmd);
		close(rn->w.res);
		waitpid(rn->w.pid, NULL, WNOHANG);
		rn->w.pid = 0;
	}
	free(rn);
}
