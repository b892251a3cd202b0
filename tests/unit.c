/* Runs every registered TEST; prints "unit: N passed, N failed". */
#include "test.h"

#include <stdlib.h>

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
