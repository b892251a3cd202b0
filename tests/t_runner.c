/* Tests for runner: jobs in a worker process survive hangs, crashes and lost contexts. */
#include "test.h"
#include "runner.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ctx {
	int tag;
	int fail_open, fail_setup;
	int prepared;
};

static int t_open(void *arg, void *info, char *why, size_t whylen)
{
	struct ctx *c = arg;

	if (c->fail_open) {
		snprintf(why, whylen, "no GPU here");
		return -1;
	}
	snprintf(info, 16, "open %d", c->tag);
	return 0;
}

static void t_prepare(void *arg)
{
	((struct ctx *)arg)->prepared = 1;
}

static int t_setup(void *arg, const void *blob, size_t len, void *hello, char *why,
                   size_t whylen)
{
	struct ctx *c = arg;

	if (c->fail_setup) {
		snprintf(why, whylen, "reference failed");
		return -1;
	}
	snprintf(hello, 32, "%s %.*s", c->prepared ? "prepared" : "raw", (int)len,
	         (const char *)blob);
	return 0;
}

/* the job's blob says what to do: h hangs, c crashes, f loses the context, o succeeds */
static void t_run(void *arg, size_t i, const void *blob, size_t len, struct run_result *r)
{
	char what = len ? *(const char *)blob : '?';

	if (what == 'h')
		for (;;)
			pause();
	if (what == 'c')
		raise(SIGSEGV);
	r->status = what == 'f' ? RUN_FAULT : RUN_OK;
	r->t.median_ms = (double)i + 0.5;
	snprintf(r->reason, sizeof r->reason, "pid %ld blob %.*s", (long)getpid(), (int)len,
	         (const char *)blob);
}

static int t_lost(void *arg, const struct run_result *r)
{
	return r->status == RUN_FAULT;
}

static const char *plan = "ohcfoo";

static void t_blob(void *arg, size_t j, struct buf *b)
{
	buf_add(b, &plan[j], 1);
}

static int ndone;
static void count_done(void *arg, size_t j)
{
	ndone++;
}

static struct runner_ops ops_for(struct ctx *c)
{
	return (struct runner_ops){t_open, t_prepare, t_setup, t_run, t_lost, c, 16, 32};
}

TEST(runner_isolates_faults)
{
	struct ctx c = {7, 0, 0, 0};
	struct runner_ops ops = ops_for(&c);
	struct runner_limits lim = {5, 0.5};
	size_t todo[] = {0, 1, 2, 3, 4, 5};
	struct run_result res[6];
	enum outcome outc[6];
	char info[16] = "", hello[32] = "", why[256] = "";
	volatile sig_atomic_t stop = 0;
	struct runner *rn = runner_start(&ops, &lim, info, why, sizeof why);

	CHECK(rn != NULL);
	if (!rn)
		return;
	CHECK_STR(info, "open 7");
	ndone = 0;
	CHECK_EQ(runner_run(rn, "SETUP", 5, t_blob, todo, 6, res, outc, hello, count_done, NULL,
	                    &stop, why, sizeof why), 0);
	runner_end(rn);
	CHECK_STR(hello, "prepared SETUP");
	CHECK_EQ(ndone, 6);
	CHECK_EQ(outc[0], OUT_DONE);
	CHECK(res[0].t.median_ms == 0.5);
	CHECK(strstr(res[0].reason, "blob o") != NULL);
	CHECK_EQ(outc[1], OUT_TIMEOUT);
	CHECK(strstr(res[1].reason, "within 0.5 s") != NULL);
	CHECK_EQ(outc[2], OUT_DIED);
	CHECK(strstr(res[2].reason, "signal 11") != NULL);
	CHECK_EQ(outc[3], OUT_DONE);
	CHECK_EQ(res[3].status, RUN_FAULT);
	CHECK_EQ(outc[4], OUT_DONE);
	CHECK_EQ(outc[5], OUT_DONE);
	CHECK(res[5].t.median_ms == 5.5);
	/* workers: A ran 0 and hung on 1, B crashed on 2, C lost its context on 3, D ran 4 and 5 */
	CHECK(strncmp(res[0].reason, res[3].reason, 12) != 0);
	CHECK(strncmp(res[3].reason, res[4].reason, 12) != 0);
	CHECK(strncmp(res[4].reason, res[5].reason, 12) == 0);
}

TEST(runner_open_failure)
{
	struct ctx c = {0, 1, 0, 0};
	struct runner_ops ops = ops_for(&c);
	struct runner_limits lim = {5, 1};
	char info[16], why[256] = "";

	CHECK(runner_start(&ops, &lim, info, why, sizeof why) == NULL);
	CHECK_STR(why, "no GPU here");
}

TEST(runner_setup_failure)
{
	struct ctx c = {0, 0, 1, 0};
	struct runner_ops ops = ops_for(&c);
	struct runner_limits lim = {5, 1};
	size_t todo[] = {0};
	struct run_result res[1];
	enum outcome outc[1];
	char info[16], hello[32], why[256] = "";
	volatile sig_atomic_t stop = 0;
	struct runner *rn = runner_start(&ops, &lim, info, why, sizeof why);

	CHECK(rn != NULL);
	if (!rn)
		return;
	CHECK_EQ(runner_run(rn, "", 0, t_blob, todo, 1, res, outc, hello, NULL, NULL, &stop, why,
	                    sizeof why), -1);
	CHECK_STR(why, "reference failed");
	CHECK_EQ(outc[0], OUT_NONE);
	runner_end(rn);
}

TEST(runner_stop)
{
	struct ctx c = {0, 0, 0, 0};
	struct runner_ops ops = ops_for(&c);
	struct runner_limits lim = {5, 1};
	size_t todo[] = {0, 4};
	struct run_result res[5];
	enum outcome outc[5];
	char info[16], hello[32], why[256] = "";
	volatile sig_atomic_t stop = 1;
	struct runner *rn = runner_start(&ops, &lim, info, why, sizeof why);

	CHECK(rn != NULL);
	if (!rn)
		return;
	CHECK_EQ(runner_run(rn, "", 0, t_blob, todo, 2, res, outc, hello, NULL, NULL, &stop, why,
	                    sizeof why), 0);
	CHECK_EQ(outc[0], OUT_NONE);
	CHECK_EQ(outc[4], OUT_NONE);
	runner_end(rn);
}
