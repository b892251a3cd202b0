/* models: --devices over GPUs of more than one model. The parent never initialises CUDA (it
   forks the GPU workers), so a short-lived child names the GPUs; they are grouped by name,
   and each model gets a run of its own in a child: its own GPU workers, architecture, journal,
   play-off and OUT/<kernel>/<gpu>/, side by side with the others. A child's output goes to
   files the parent prints, model by model, once every run has ended. */
#include "models.h"
#include "gpu.h"
#include "run.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct group {
	char name[256];
	char list[512];   /* its --devices */
	pid_t pid;
	FILE *out, *err;  /* the child's stdout and stderr */
	int status;       /* its exit status */
};

int devices_parse(const char *s, int **dev)
{
	int n = 0;

	*dev = NULL;
	while (*s) {
		char *end;
		long d;
		int i;
		if (*s < '0' || *s > '9')
			goto bad;
		d = strtol(s, &end, 10);
		if (d > 1024 || (*end && *end != ','))
			goto bad;
		for (i = 0; i < n; i++)
			if ((*dev)[i] == d)
				goto bad;
		*dev = xreallocarray(*dev, (size_t)n + 1, sizeof **dev);
		(*dev)[n++] = (int)d;
		s = *end ? end + 1 : end;
		if (*end && !*s)
			goto bad;
	}
	if (n)
		return n;
bad:
	free(*dev);
	*dev = NULL;
	return -1;
}

/* in a child: a line "ORDINAL NAME" to fd for each GPU spec names, then exit; exit 1 if the
   driver cannot be asked or spec names a GPU it does not have */
static void probe(const char *spec, int fd)
{
	struct gpu_info g;
	char why[256];
	int *dev = NULL, n, i;
	FILE *f = fdopen(fd, "w");

	n = strcmp(spec, "all") ? devices_parse(spec, &dev) : 0;
	/* the driver only: a context would cost its creation, and its teardown at our exit delays
	   the GPU workers' start-up */
	if (!f || n < 0 || gpu_probe(n ? dev[0] : 0, &g, why, sizeof why) < 0)
		_exit(1);
	if (!n) {
		dev = xcalloc((size_t)g.devices + 1, sizeof *dev);
		for (n = 0; n < g.devices; n++)
			dev[n] = n;
	}
	for (i = 0; i < n; i++) {
		char name[256];
		CUdevice d;
		if (dev[i] >= g.devices || cu.DeviceGet(&d, dev[i]) != CUDA_SUCCESS ||
		    cu.DeviceGetName(name, sizeof name, d) != CUDA_SUCCESS)
			_exit(1);
		name[sizeof name - 1] = 0;
		fprintf(f, "%d %s\n", dev[i], name);
	}
	_exit(fclose(f) != 0);
}

/* the GPUs spec names, grouped by model into *gs; the number of models, 0 if not known */
static int group(const char *spec, struct group **gs)
{
	char line[300];
	int p[2], st, n = 0, i;
	pid_t pid;
	FILE *f;

	*gs = NULL;
	if (pipe(p) < 0)
		return 0;
	fflush(NULL);
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return 0;
	}
	if (pid == 0) {
		close(p[0]);
		probe(spec, p[1]);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	while (f && fgets(line, sizeof line, f)) {
		char *name = strchr(line, ' ');
		if (!name)
			continue;
		*name++ = 0;
		name[strcspn(name, "\n")] = 0;
		for (i = 0; i < n && strcmp((*gs)[i].name, name); i++)
			;
		if (i == n) {
			*gs = xreallocarray(*gs, (size_t)n + 1, sizeof **gs);
			memset(&(*gs)[n], 0, sizeof **gs);
			snprintf((*gs)[n++].name, sizeof (*gs)[0].name, "%s", name);
		}
		snprintf(strchr((*gs)[i].list, 0), sizeof (*gs)[i].list - strlen((*gs)[i].list), "%s%s",
		         (*gs)[i].list[0] ? "," : "", line);
	}
	if (f)
		fclose(f);
	else
		close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		n = 0;
	return n;
}

/* copy what f holds to out */
static void dump(FILE *f, FILE *out)
{
	char b[4096];
	size_t k;

	rewind(f);
	while ((k = fread(b, 1, sizeof b, f)) > 0)
		fwrite(b, 1, k, out);
	fclose(f);
}

/* the worse of two exit statuses: interrupted, usage, no variant, success */
static int worse(int a, int b)
{
	static const int rank[] = {EXIT_SUCCESS, EXIT_NOVARIANT, EXIT_USAGE, EXIT_INTERRUPT};
	int ra = 4, rb = 4, i;

	for (i = 0; i < 4; i++) {
		if (a == rank[i])
			ra = i;
		if (b == rank[i])
			rb = i;
	}
	return ra >= rb ? a : b;
}

/* 1 if the GPUs of --devices can be named without the driver: a list, or all of those
   CUDA_VISIBLE_DEVICES names (t->o.devices becomes "0,1,..."); the GPU workers then open them
   each, side by side (measure.c), and a probe follows only if one cannot or they differ */
static int named(struct run *t)
{
	static char all[512];
	const char *v = getenv("CUDA_VISIBLE_DEVICES"), *s;
	int k = 0, n;

	if (strcmp(t->o.devices, "all")) {
		t->o.devices_known = 2;
		return 1;
	}
	if (!v || !*v)
		return 0;
	for (s = v, n = 0; s; s = strchr(s, ','), s = s ? s + 1 : s, n++)
		if (n >= 64 || (k += snprintf(all + k, sizeof all - (size_t)k, "%s%d", n ? "," : "",
		                              n)) >= (int)sizeof all)
			return 0;
	t->o.devices = all;
	t->o.devices_known = 2;
	return 1;
}

int models_split(struct run *t, int probe)
{
	static char mine[sizeof ((struct group *)0)->list]; /* outlives gs */
	struct group *gs;
	int n, i, left, rc = EXIT_SUCCESS, sent = 0;

	if (!t->o.devices || t->o.dry_run ||
	    (!strchr(t->o.devices, ',') && strcmp(t->o.devices, "all")))
		return -1;
	if (!t->o.devices_asked)
		t->o.devices_asked = t->o.devices;
	if (!probe && named(t))
		return -1;
	t->o.devices_known = 0;
	if ((n = group(t->o.devices, &gs)) < 2) {
		if (n == 1) { /* the GPUs the run uses, each seen to exist */
			snprintf(mine, sizeof mine, "%s", gs[0].list);
			t->o.devices = mine;
			t->o.devices_known = 1;
		}
		free(gs);
		return -1;
	}
	note(1, "tuner: --devices %s: GPUs of %d models, a run for each, side by side; their output "
	     "follows, model by model, when all have ended\n", t->o.devices, n);
	for (i = 0; i < n; i++) {
		struct group *g = &gs[i];
		note(1, "tuner:   %s: --devices %s\n", g->name, g->list);
		if (!(g->out = tmpfile()) || !(g->err = tmpfile()))
			fatal("a file for the output of the %s run:", g->name);
		fflush(NULL);
		if ((g->pid = fork()) < 0)
			fatal("fork:");
		if (g->pid == 0) {
			int j;
			if (dup2(fileno(g->out), STDOUT_FILENO) < 0 ||
			    dup2(fileno(g->err), STDERR_FILENO) < 0)
				_exit(EXIT_USAGE);
			for (j = 0; j <= i; j++) {
				fclose(gs[j].out);
				fclose(gs[j].err);
			}
			snprintf(mine, sizeof mine, "%s", g->list); /* the child's own run */
			t->o.devices = mine;
			t->o.devices_known = 1;
			free(gs);
			return -1;
		}
	}
	for (left = n; left > 0;) {
		int st;
		pid_t pid = waitpid(-1, &st, 0);
		if (pid < 0) {
			if (errno != EINTR)
				die("waitpid: %s", strerror(errno));
			if (run_stop && !sent) /* pass an interrupt on to runs not in this group */
				for (i = 0, sent = 1; i < n; i++)
					if (gs[i].pid > 0)
						kill(gs[i].pid, SIGTERM);
			continue;
		}
		for (i = 0; i < n && gs[i].pid != pid; i++)
			;
		if (i == n)
			continue;
		gs[i].pid = 0;
		gs[i].status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		left--;
	}
	for (i = 0; i < n; i++) {
		fflush(NULL);
		printf("== %s (--devices %s): exit %d\n", gs[i].name, gs[i].list, gs[i].status);
		fflush(stdout);
		dump(gs[i].out, stdout);
		fflush(stdout);
		dump(gs[i].err, stderr);
		rc = worse(rc, gs[i].status);
	}
	free(gs);
	return rc;
}

int models_arch(const char *devices, char *arch, size_t archlen, char *name, size_t namelen)
{
	int p[2], st = 0, *dev = NULL, n, maj = 0, min = 0;
	char line[300] = "";
	pid_t pid;

	n = devices && strcmp(devices, "all") ? devices_parse(devices, &dev) : 0;
	if (n < 0 || pipe(p) < 0)
		return -1;
	fflush(NULL);
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		free(dev);
		return -1;
	}
	if (pid == 0) { /* the driver only, and only in this child (see the top of this file) */
		struct gpu_info g;
		char why[256];
		close(p[0]);
		if (gpu_probe(n ? dev[0] : 0, &g, why, sizeof why) < 0)
			_exit(1);
		dprintf(p[1], "%d %d %s\n", g.cc_major, g.cc_minor, g.name);
		_exit(0);
	}
	close(p[1]);
	n = (int)read(p[0], line, sizeof line - 1);
	line[n > 0 ? n : 0] = 0;
	close(p[0]);
	free(dev);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || sscanf(line, "%d %d %n", &maj, &min, &n) != 2)
		return -1;
	line[strcspn(line, "\n")] = 0;
	snprintf(arch, archlen, "sm_%d%d", maj, min);
	snprintf(name, namelen, "%s", line + n);
	return 0;
}
