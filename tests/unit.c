/* Runs every registered TEST; prints "unit: N passed, N failed". */
#include "test.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "params.h"
#include "space.h"

static struct test *tests;
static int failed_checks;

void test_register(struct test *t)
{
	t->next = tests;
	tests = t;
}

void test_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "  %s:%d: check failed: %s\n", file, line, what);
	failed_checks++;
}

const char *test_path(const char *rel)
{
	static char buf[4096];
	const char *root = getenv("TUNER_SRCDIR");

	snprintf(buf, sizeof buf, "%s/%s", root ? root : ".", rel);
	return buf;
}

struct config *test_expand(const char *cfg, struct space *s, char **tmpl)
{
	struct config *c = cfg_load(test_path(cfg));
	struct limits lim = {1024, 48 * 1024, 227 * 1024};
	struct vars sizes = {0};

	*tmpl = cfg_read_source(c, c->kernel.source);
	cfg_size_vars(c, 132, &sizes);
	space_expand(c, &sizes, &lim, s);
	return c;
}

int test_in_child(void (*fn)(const void *), const void *arg, char *out, size_t cap)
{
	int fd[2], st;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	fflush(NULL);
	if (pipe(fd) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(fd[0]);
		dup2(fd[1], 2);
		close(fd[1]);
		fn(arg);
		exit(0);
	}
	close(fd[1]);
	while (len + 1 < cap && (n = read(fd[0], out + len, cap - 1 - len)) != 0) {
		if (n < 0)
			break;
		len += (size_t)n;
	}
	out[len] = '\0';
	close(fd[0]);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	struct test *t, *rev = NULL;
	int pass = 0, fail = 0;

	while (tests) { /* registration order is reverse of link order: restore it */
		t = tests;
		tests = t->next;
		t->next = rev;
		rev = t;
	}
	for (t = rev; t; t = t->next) {
		int before = failed_checks;
		if (argc > 1 && !strstr(t->name, argv[1]))
			continue;
		t->fn();
		if (failed_checks == before) {
			pass++;
			printf("ok   %s\n", t->name);
		} else {
			fail++;
			printf("FAIL %s\n", t->name);
		}
		fflush(stdout);
	}
	printf("unit: %d passed, %d failed\n", pass, fail);
	return fail != 0;
}
