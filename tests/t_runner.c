/* Tests for runner: jobs in worker processes survive hangs, crashes and lost contexts. */
#include "test.h"
#include "runner.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int setup_ok(void *ctx, void *hello, char *why, size_t whylen)
{
	snprintf(hello, 16, "hello %d", *(int *)ctx);
	return 0;
}

static int setup_fail(void *ctx, void *hello, char *why, size_t whylen)
{
	snprintf(why, whylen, "no GPU here");
	return -1;
}

/* job 1 hangs, job 2 crashes, job 3 loses its context, the rest succeed */
static void run_job(void *ctx, size_t i, struct run_result *r)
{
	if (i == 1)
		for (;;)
			pause();
	if (i == 2)
		raise(SIGSEGV);
	r->status = i == 3 ? RUN_FAULT : RUN_OK;
	r->t.median_ms = (double)i + 0.5;
	snprintf(r->reason, sizeof r->reason, "pid %ld", (long)getpid());
}

static int lost_on_fault(void *ctx, const struct run_result *r)
{
	return r->status == RUN_FAULT;
}

static int ndone;
static void count_done(void *arg, size_t j)
{
	ndone++;
}

TEST(runner_isolates_faults)
{
	int tag = 7;
	struct runner_ops ops = {setup_ok, run_job, lost_on_fault, &tag, 16};
	struct runner_limits lim = {5, 0.5};
	size_t todo[] = {0, 1, 2, 3, 4, 5};
	struct run_result res[6];
	enum outcome outc[6];
	char hello[16] = "", why[256] = "";
	volatile sig_atomic_t stop = 0;

	ndone = 0;
	CHECK_EQ(runner_run(&ops, &lim, todo, 6, res, outc, hello, count_done, NULL, &stop, why,
	                    sizeof why), 0);
	CHECK_STR(hello, "hello 7");
	CHECK_EQ(ndone, 6);
	CHECK_EQ(outc[0], OUT_DONE);
	CHECK(res[0].t.median_ms == 0.5);
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
	CHECK(strcmp(res[0].reason, res[3].reason) != 0);
	CHECK(strcmp(res[3].reason, res[4].reason) != 0);
	CHECK_STR(res[4].reason, res[5].reason);
}

TEST(runner_setup_failure)
{
	int tag = 0;
	struct runner_ops ops = {setup_fail, run_job, lost_on_fault, &tag, 16};
	struct runner_limits lim = {5, 1};
	size_t todo[] = {0};
	struct run_result res[1];
	enum outcome outc[1];
	char hello[16], why[256] = "";
	volatile sig_atomic_t stop = 0;

	CHECK_EQ(runner_run(&ops, &lim, todo, 1, res, outc, hello, NULL, NULL, &stop, why,
	                    sizeof why), -1);
	CHECK_STR(why, "no GPU here");
	CHECK_EQ(outc[0], OUT_NONE);
}

TEST(runner_stop)
{
	int tag = 0;
	struct runner_ops ops = {setup_ok, run_job, lost_on_fault, &tag, 16};
	struct runner_limits lim = {5, 1};
	size_t todo[] = {0, 4};
	struct run_result res[5];
	enum outcome outc[5];
	char hello[16], why[256] = "";
	volatile sig_atomic_t stop = 1;

	CHECK_EQ(runner_run(&ops, &lim, todo, 2, res, outc, hello, NULL, NULL, &stop, why,
	                    sizeof why), 0);
	CHECK_EQ(outc[0], OUT_NONE);
	CHECK_EQ(outc[4], OUT_NONE);
}

static int call_fn(void *arg, void *out, size_t len)
{
	int mode = *(int *)arg;

	if (mode == 1) {
		snprintf(out, len, "it failed");
		return 1;
	}
	if (mode == 2)
		abort();
	if (mode == 3)
		for (;;)
			pause();
	snprintf(out, len, "answer %d", 42);
	return 0;
}

TEST(runner_call)
{
	char out[32], why[256];
	int mode;

	mode = 0;
	CHECK_EQ(runner_call(call_fn, &mode, out, sizeof out, 5, why, sizeof why), 0);
	CHECK_STR(out, "answer 42");
	mode = 1;
	CHECK_EQ(runner_call(call_fn, &mode, out, sizeof out, 5, why, sizeof why), -1);
	CHECK_STR(why, "it failed");
	mode = 2;
	CHECK_EQ(runner_call(call_fn, &mode, out, sizeof out, 5, why, sizeof why), -1);
	CHECK(strstr(why, "signal 6") != NULL);
	mode = 3;
	CHECK_EQ(runner_call(call_fn, &mode, out, sizeof out, 0.3, why, sizeof why), -1);
	CHECK(strstr(why, "no answer within") != NULL);
}
