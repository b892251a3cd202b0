/* pool: compile many sources in forked worker processes, through the cache.

   The parent looks every job up in the cache, then forks min(workers, misses) children and
   feeds them miss indices (4-byte writes) through a pipe. Each child compiles until the pipe
   is empty and stores every result, failures included, in the cache directory; the parent
   waits for them all and reads the results back from there. NVRTC serializes compilations
   inside one process, so processes are what scale; they also contain NVRTC crashes. Each
   child notes the job it is on in a shared slot, so a child that dies is blamed on exactly
   that job, and the jobs it never got are handed to a new round of children. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "pool.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cache.h"
#include "util.h"

/* what every child needs */
struct ctx {
	const struct job *jobs;
	const struct buf *keys;
	const char *arch;
	char *const *opts;
	size_t nopts;
	const char *dir;
};

/* a worker: compile the indices read from fd until EOF, store each result, exit */
static noreturn void child(const struct ctx *c, int fd, size_t n, int32_t *slot)
{
	const char *crash = getenv("TUNER_TEST_CRASH_ENTRY"); /* for the tests: die on this entry */
	struct compile_out out;
	int warned = 0;
	uint32_t i;
	ssize_t r;

	for (;;) {
		r = read(fd, &i, sizeof i);
		if (r < 0 && errno == EINTR)
			continue;
		if (r != (ssize_t)sizeof i || i >= n)
			break;
		if (slot)
			*slot = (int32_t)i;
		if (crash && c->jobs[i].entry && !strcmp(crash, c->jobs[i].entry))
			raise(SIGKILL);
		nv_compile(c->jobs[i].src, c->jobs[i].name, c->jobs[i].entry, c->arch, c->opts,
		           c->nopts, &out);
		if (cache_put(c->dir, &c->keys[i], &out) < 0 && !warned++)
			warn("cannot store a compile result in %s:", c->dir);
		nv_out_free(&out);
		if (slot)
			*slot = -1;
	}
	_exit(0);
}

/* why a child that ended with status st failed, malloc'd; NULL if it exited normally */
static char *death(int st)
{
	if (WIFSIGNALED(st))
		return xasprintf("compiler process died: signal %d (%s)\n", WTERMSIG(st),
		                 strsignal(WTERMSIG(st)));
	if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
		return xasprintf("compiler process exited with status %d\n", WEXITSTATUS(st));
	if (!WIFEXITED(st))
		return xasprintf("compiler process ended abnormally (status 0x%x)\n", (unsigned)st);
	return NULL;
}

/* one round: compile todo[0..ntodo) in up to `workers` children; a job a dead child was
   working on gets its reason in why[] */
static void run_round(const struct ctx *c, size_t n, const size_t *todo, size_t ntodo,
                      int workers, char **why)
{
	size_t nw = (size_t)workers < ntodo ? (size_t)workers : ntodo, started = 0, k, t;
	struct sigaction ign, old;
	int32_t *slots;
	pid_t *pids;
	int pfd[2], st;

	slots = mmap(NULL, nw * sizeof *slots, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
	             -1, 0);
	if (slots == MAP_FAILED)
		slots = NULL;
	if (pipe(pfd) < 0) {
		warn("cannot create a pipe for the compile workers:");
		goto out;
	}
	pids = xreallocarray(NULL, nw, sizeof *pids);
	fflush(NULL); /* nothing buffered is written twice */
	for (k = 0; k < nw; k++) {
		if (slots)
			slots[k] = -1;
		pid_t pid = fork();
		if (pid < 0) {
			warn("cannot start a compile worker:");
			break;
		}
		if (pid == 0) {
			/* an interrupt ends the compilers at once; the tuner decides what to keep */
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			close(pfd[1]);
			child(c, pfd[0], n, slots ? &slots[k] : NULL);
		}
		pids[started++] = pid;
	}
	close(pfd[0]);

	/* feed the indices; if every child has died, the write fails with EPIPE (not a signal) */
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old);
	for (t = 0; t < ntodo && started > 0; t++) {
		uint32_t i = (uint32_t)todo[t];
		ssize_t r;
		while ((r = write(pfd[1], &i, sizeof i)) < 0 && errno == EINTR)
			;
		if (r != (ssize_t)sizeof i)
			break;
	}
	close(pfd[1]);
	sigaction(SIGPIPE, &old, NULL);

	for (k = 0; k < started; k++) {
		while (waitpid(pids[k], &st, 0) < 0) {
			if (errno != EINTR) {
				st = 0;
				break;
			}
		}
		char *reason = death(st);
		if (reason && slots && slots[k] >= 0 && (size_t)slots[k] < n) {
			size_t i = (size_t)slots[k];
			char *path = xasprintf("%s/%016llx.bin.tmp.%ld", c->dir, (unsigned long long)
			                       hash_bytes(HASH_INIT, c->keys[i].s, c->keys[i].len),
			                       (long)pids[k]);
			unlink(path); /* in case it died while storing */
			free(path);
			free(why[i]);
			why[i] = reason;
		} else {
			free(reason);
		}
	}
	free(pids);
out:
	if (slots)
		munmap(slots, nw * sizeof *slots);
}

/* a fresh private directory under $TMPDIR or /tmp (malloc'd), or NULL */
static char *make_tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	char *d = xasprintf("%s/tuner-XXXXXX", t && *t ? t : "/tmp");

	if (!mkdtemp(d)) {
		warn("cannot create a temporary directory %s:", d);
		free(d);
		return NULL;
	}
	return d;
}

/* remove dir and the files in it */
static void remove_tmpdir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (d) {
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			char *p = xasprintf("%s/%s", dir, de->d_name);
			unlink(p);
			free(p);
		}
		closedir(d);
	}
	if (rmdir(dir) < 0)
		warn("cannot remove temporary directory %s:", dir);
}

static void fail_out(struct compile_out *out, const struct job *j, const char *why)
{
	memset(out, 0, sizeof *out);
	out->regs = -1;
	out->log = xstrdup(why);
	out->lowered = xstrdup(j->entry ? j->entry : "");
}

size_t pool_compile(const struct job *jobs, size_t n, const char *arch, char *const *opts,
                    size_t nopts, const char *cachedir, int workers, struct compile_out *outs,
                    int *hits)
{
	static int warned;
	struct buf *keys = xcalloc(n, sizeof *keys);
	size_t *todo = xcalloc(n, sizeof *todo), ntodo = 0, nmiss, i, t, next;
	char **why = xcalloc(n, sizeof *why);
	char *tmp = NULL;
	struct ctx c;

	if (n > UINT32_MAX)
		die("too many compile jobs: %zu", n);
	for (i = 0; i < n; i++) {
		int hit;
		cache_key(&keys[i], jobs[i].src, jobs[i].entry, arch, opts, nopts);
		hit = cachedir && cache_get(cachedir, &keys[i], &outs[i]);
		if (hits)
			hits[i] = hit;
		if (!hit)
			todo[ntodo++] = i;
	}
	nmiss = ntodo;
	if (ntodo && cachedir)
		cache_sweep(cachedir); /* what killed writers left; only when there is work */
	if (workers < 1)
		workers = 1;

	c = (struct ctx){jobs, keys, arch, opts, nopts, cachedir};
	if (ntodo && cachedir && (mkdirs(cachedir) < 0 || access(cachedir, W_OK | X_OK) < 0)) {
		if (!warned++)
			warn("cache directory %s is not writable, using a temporary one:", cachedir);
		c.dir = NULL;
	}
	while (ntodo > 0) {
		if (!c.dir) {
			if (!(c.dir = tmp = make_tmpdir()))
				break;
		}
		run_round(&c, n, todo, ntodo, workers, why);
		for (t = next = 0; t < ntodo; t++) {
			i = todo[t];
			if (cache_get(c.dir, &keys[i], &outs[i]))
				continue;
			if (why[i])
				fail_out(&outs[i], &jobs[i], why[i]);
			else
				todo[next++] = i; /* never started: its worker died first */
		}
		if (next == ntodo) {
			/* no progress: the results could not be stored where we looked */
			if (tmp)
				break;
			if (!warned++)
				warn("cannot store compile results in %s, using a temporary directory",
				     c.dir);
			c.dir = NULL;
		}
		ntodo = next;
	}
	/* workers could not be started or could not hand results back: compile here */
	for (t = 0; t < ntodo; t++) {
		i = todo[t];
		nv_compile(jobs[i].src, jobs[i].name, jobs[i].entry, arch, opts, nopts, &outs[i]);
	}

	if (tmp) {
		remove_tmpdir(tmp);
		free(tmp);
	}
	for (i = 0; i < n; i++) {
		buf_free(&keys[i]);
		free(why[i]);
	}
	free(keys);
	free(todo);
	free(why);
	return nmiss;
}
