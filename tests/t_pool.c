/* Tests for pool: jobs in worker processes survive hangs, crashes and lost contexts, spread
   over several workers, and stop at an interrupt. */
#include "test.h"
#include "pool.h"
#include "util.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct ctx {
	int tag;
	int fail_open, fail_setup;
	int prepared;
	int open_ms, setup_ms;    /* how long opening and setting up take */
	int fail_w;               /* worker fail_w - 1 cannot open (0: none) */
};

static void sleep_ms(int ms)
{
	nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000}, NULL);
}

static int t_open(void *arg, int w, struct buf *info, char *why, size_t whylen)
{
	struct ctx *c = arg;

	sleep_ms(c->open_ms);
	if (c->fail_open || c->fail_w == w + 1) {
		snprintf(why, whylen, "no GPU here");
		return -1;
	}
	buf_printf(info, "open %d worker %d", c->tag, w);
	return 0;
}

static void t_prepare(void *arg)
{
	((struct ctx *)arg)->prepared = 1;
}

static int t_setup(void *arg, const void *msg, size_t len, struct buf *hello, char *why,
                   size_t whylen)
{
	struct ctx *c = arg;

	sleep_ms(c->setup_ms);
	if (c->fail_setup) {
		snprintf(why, whylen, "reference failed");
		return -1;
	}
	buf_printf(hello, "%s %.*s", c->prepared ? "prepared" : "raw", (int)len, (const char *)msg);
	return 0;
}

/* the job's message says what to do: h hangs, c crashes, f answers and ends (a lost
   context), s sleeps 300 ms, o answers */
static int t_run(void *arg, size_t j, const void *msg, size_t len, struct buf *ans)
{
	char what = len ? *(const char *)msg : '?';

	(void)arg;
	if (what == 'h')
		for (;;)
			pause();
	if (what == 'c')
		raise(SIGSEGV);
	if (what == 's')
		nanosleep(&(struct timespec){0, 300000000}, NULL);
	buf_printf(ans, "job %zu pid %ld msg %c", j, (long)getpid(), what);
	return what == 'f';
}

static const char *plan;

static void t_message(void *arg, size_t j, struct buf *b)
{
	(void)arg;
	buf_add(b, &plan[j], 1);
}

struct seen {
	int n;
	enum outcome oc[16];
	char msg[16][128];
};

static void t_done(void *arg, size_t j, enum outcome oc, const void *msg, size_t len)
{
	struct seen *s = arg;

	s->n++;
	s->oc[j] = oc;
	snprintf(s->msg[j], sizeof s->msg[j], "%.*s", (int)len, (const char *)msg);
}

static struct pool_ops ops_for(struct ctx *c)
{
	return (struct pool_ops){t_open, t_prepare, t_setup, t_run, c, "test worker"};
}

TEST(pool_isolates_faults)
{
	struct ctx c = {7, 0, 0, 0, 0, 0, 0};
	struct pool_ops ops = ops_for(&c);
	struct pool_limits lim = {5, 0.5};
	size_t todo[] = {0, 1, 2, 3, 4, 5};
	struct buf info = {0}, hello = {0};
	struct seen s;
	char why[256] = "";
	volatile sig_atomic_t stop = 0;
	struct pool *p = pool_new(&ops, &lim, 1);
	struct pool_run r = {"SETUP", 5, t_message, t_done, &s, &hello, &stop};

	memset(&s, 0, sizeof s);
	plan = "ohcfoo";
	CHECK_EQ(pool_open(p, &info, why, sizeof why), 0);
	CHECK_STR(info.s, "open 7 worker 0");
	CHECK_EQ(pool_run(p, &r, todo, 6, why, sizeof why), 0);
	pool_end(p);
	CHECK_STR(hello.s, "prepared SETUP");
	CHECK_EQ(s.n, 6);
	CHECK_EQ(s.oc[0], OUT_DONE);
	CHECK(strstr(s.msg[0], "job 0 ") && strstr(s.msg[0], "msg o"));
	CHECK_EQ(s.oc[1], OUT_TIMEOUT);
	CHECK(strstr(s.msg[1], "within 0.5 s: the test worker was killed") != NULL);
	CHECK_EQ(s.oc[2], OUT_DIED);
	CHECK(strstr(s.msg[2], "test worker died: signal 11") != NULL);
	CHECK_EQ(s.oc[3], OUT_DONE);
	CHECK(strstr(s.msg[3], "msg f") != NULL);
	CHECK_EQ(s.oc[4], OUT_DONE);
	CHECK_EQ(s.oc[5], OUT_DONE);
	/* workers: A ran 0 and hung on 1, B crashed on 2, C lost its context on 3, D ran 4 and 5 */
	CHECK(strcmp(strstr(s.msg[0], "pid"), strstr(s.msg[3], "pid")) != 0);
	CHECK(strncmp(strstr(s.msg[3], "pid"), strstr(s.msg[4], "pid"), 10) != 0);
	CHECK(strncmp(strstr(s.msg[4], "pid"), strstr(s.msg[5], "pid"), 10) == 0);
	buf_free(&info);
	buf_free(&hello);
}

TEST(pool_spreads_jobs)
{
	struct ctx c = {1, 0, 0, 0, 0, 0, 0};
	struct pool_ops ops = ops_for(&c);
	struct pool_limits lim = {5, 0};
	size_t todo[] = {0, 1, 2, 3, 4, 5, 6, 7};
	struct seen s;
	char why[256] = "";
	struct pool *p = pool_new(&ops, &lim, 4);
	struct pool_run r = {NULL, 0, t_message, t_done, &s, NULL, NULL};
	double t0 = now_s();
	int k, pids = 0;

	memset(&s, 0, sizeof s);
	plan = "ssssssss";
	CHECK_EQ(pool_run(p, &r, todo, 8, why, sizeof why), 0);
	pool_end(p);
	CHECK_EQ(s.n, 8);
	/* 8 jobs of 300 ms on 4 workers: about 0.6 s, not 2.4 */
	CHECK(now_s() - t0 < 1.5);
	for (k = 0; k < 8; k++) {
		int j, again = 0;
		CHECK_EQ(s.oc[k], OUT_DONE);
		for (j = 0; j < k; j++)
			again |= !strcmp(strstr(s.msg[j], "pid"), strstr(s.msg[k], "pid"));
		pids += !again;
	}
	CHECK_EQ(pids, 4);
}

TEST(pool_open_failure)
{
	struct ctx c = {0, 1, 0, 0, 0, 0, 0};
	struct pool_ops ops = ops_for(&c);
	struct pool_limits lim = {5, 1};
	struct buf info = {0};
	char why[256] = "";
	struct pool *p = pool_new(&ops, &lim, 1);

	CHECK_EQ(pool_open(p, &info, why, sizeof why), -1);
	CHECK_STR(why, "no GPU here");
	pool_end(p);
	buf_free(&info);
}

TEST(pool_setup_failure)
{
	struct ctx c = {0, 0, 1, 0, 0, 0, 0};
	struct pool_ops ops = ops_for(&c);
	struct pool_limits lim = {5, 1};
	size_t todo[] = {0};
	struct seen s;
	char why[256] = "";
	volatile sig_atomic_t stop = 0;
	struct pool *p = pool_new(&ops, &lim, 1);
	struct pool_run r = {"", 0, t_message, t_done, &s, NULL, &stop};

	memset(&s, 0, sizeof s);
	plan = "o";
	CHECK_EQ(pool_run(p, &r, todo, 1, why, sizeof why), -1);
	CHECK_STR(why, "reference failed");
	CHECK_EQ(s.n, 0);
	pool_end(p);
}

TEST(pool_stop)
{
	struct ctx c = {0, 0, 0, 0, 0, 0, 0};
	struct pool_ops ops = ops_for(&c);
	struct pool_limits lim = {5, 0};
	size_t todo[] = {0, 1};
	struct seen s;
	char why[256] = "";
	volatile sig_atomic_t stop = 1;
	struct pool *p = pool_new(&ops, &lim, 2);
	struct pool_run r = {"", 0, t_message, t_done, &s, NULL, &stop};

	memset(&s, 0, sizeof s);
	plan = "oo";
	CHECK_EQ(pool_run(p, &r, todo, 2, why, sizeof why), 0);
	CHECK_EQ(s.n, 0);
	pool_end(p);
}

static volatile sig_atomic_t *alarm_stop;
static void on_alarm(int sig)
{
	(void)sig;
	*alarm_stop = 1;
}

TEST(pool_stop_while_busy)
{
	struct ctx c = {0, 0, 0, 0, 0, 0, 0};
	struct pool_ops ops = ops_for(&c);
	struct pool_limits lim = {5, 0};
	size_t todo[] = {0, 1, 2};
	struct seen s;
	char why[256] = "";
	volatile sig_atomic_t stop = 0;
	struct pool *p = pool_new(&ops, &lim, 2);
	struct pool_run r = {"", 0, t_message, t_done, &s, NULL, &stop};
	struct sigaction sa, old;
	double t0 = now_s();

	memset(&s, 0, sizeof s);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	alarm_stop = &stop;
	plan = "hhh"; /* every job hangs, with no time limit: only the stop ends them */
	alarm(1);
	CHECK_EQ(pool_run(p, &r, todo, 3, why, sizeof why), 0);
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
	CHECK_EQ(s.n, 0);
	CHECK(now_s() - t0 < 2);
	pool_end(p);
}

/* workers that take 300 ms to open and 300 ms to set up do both side by side: four of them
   run their first jobs after about 0.6 s, not 2.4 s */
TEST(pool_opens_side_by_side)
{
	struct ctx c = {0, 0, 0, 0, 300, 300, 0};
	struct pool_ops ops = ops_for(&c);
	struct pool_limits lim = {5, 0};
	size_t todo[] = {0, 1, 2, 3};
	struct seen s;
	struct buf hello = {0};
	char why[256] = "";
	struct pool *p = pool_new(&ops, &lim, 4);
	struct pool_run r = {"S", 1, t_message, t_done, &s, &hello, NULL};
	double t0 = now_s();
	int k;

	memset(&s, 0, sizeof s);
	plan = "ssss";
	CHECK_EQ(pool_run(p, &r, todo, 4, why, sizeof why), 0);
	CHECK_EQ(s.n, 4);
	for (k = 0; k < 4; k++)
		CHECK_EQ(s.oc[k], OUT_DONE);
	CHECK(now_s() - t0 < 1.6); /* 0.9 s side by side, 3.6 s one after another */
	CHECK_STR(hello.s, "prepared S");
	/* a second run sets the same workers up again, side by side */
	t0 = now_s();
	CHECK_EQ(pool_run(p, &r, todo, 4, why, sizeof why), 0);
	CHECK_EQ(s.n, 8);
	CHECK(now_s() - t0 < 1.1);
	pool_end(p);
	buf_free(&hello);
}

/* pool_start opens the workers while the caller goes on: the run after it waits for none */
TEST(pool_start_opens_ahead)
{
	struct ctx c = {0, 0, 0, 0, 400, 0, 0};
	struct pool_ops ops = ops_for(&c);
	struct pool_limits lim = {5, 0};
	size_t todo[] = {0, 1, 2, 3};
	struct seen s;
	struct buf info = {0};
	char why[256] = "";
	struct pool *p = pool_new(&ops, &lim, 1);
	struct pool_run r = {"", 0, t_message, t_done, &s, NULL, NULL};
	double t0;

	memset(&s, 0, sizeof s);
	plan = "oooo";
	CHECK_EQ(pool_open(p, &info, why, sizeof why), 0);
	CHECK_STR(info.s, "open 0 worker 0");
	pool_resize(p, 4);
	CHECK_EQ(pool_start(p, why, sizeof why), 0);
	sleep_ms(700); /* the caller's own work */
	t0 = now_s();
	CHECK_EQ(pool_run(p, &r, todo, 4, why, sizeof why), 0);
	CHECK(now_s() - t0 < 0.3);
	CHECK_EQ(s.n, 4);
	pool_end(p);
	buf_free(&info);
}

/* a worker that cannot open fails the run with its reason, even when others could */
TEST(pool_one_worker_cannot_open)
{
	struct ctx c = {0, 0, 0, 0, 0, 0, 3};
	struct pool_ops ops = ops_for(&c);
	struct pool_limits lim = {5, 0};
	size_t todo[] = {0, 1, 2, 3, 4, 5, 6, 7};
	struct seen s;
	char why[256] = "";
	struct pool *p = pool_new(&ops, &lim, 4);
	struct pool_run r = {"", 0, t_message, t_done, &s, NULL, NULL};
	int k;

	memset(&s, 0, sizeof s);
	plan = "ssssssss";
	CHECK_EQ(pool_run(p, &r, todo, 8, why, sizeof why), -1);
	CHECK_STR(why, "no GPU here");
	CHECK(s.n < 8);
	for (k = 0; k < 8; k++) /* what ended, ended well */
		CHECK(s.oc[k] == OUT_DONE || s.oc[k] == OUT_NONE);
	pool_end(p);
	/* and so does one started ahead, found by the next run */
	p = pool_new(&ops, &lim, 4);
	CHECK_EQ(pool_start(p, why, sizeof why), 0);
	why[0] = '\0';
	CHECK_EQ(pool_run(p, &r, todo, 2, why, sizeof why), -1);
	CHECK_STR(why, "no GPU here");
	pool_end(p);
}

static int one_job(void *arg, size_t *job)
{
	int *given = arg;

	if ((*given)++)
		return -1;
	*job = 0;
	return 1;
}

static int never(void *arg, size_t *job)
{
	(void)arg, (void)job;
	return 0; /* waits for jobs another task's answers would bring */
}

/* a task whose workers cannot open fails; one that waits on its answers then ends with it,
   and the run returns -1 rather than wait for ever */
TEST(pool_waiting_on_a_failed_task)
{
	struct ctx bad = {0, 1, 0, 0, 0, 0, 0}, good = {0, 0, 0, 0, 0, 0, 0};
	struct pool_ops ob = ops_for(&bad), og = ops_for(&good);
	struct pool_limits lim = {5, 0};
	int given = 0;
	struct seen s;
	char wa[256] = "", wb[256] = "";
	struct pool *pa = pool_new(&ob, &lim, 1), *pb = pool_new(&og, &lim, 1);
	struct pool_run r = {"", 0, t_message, t_done, &s, NULL, NULL};
	struct pool_task t[2] = {{pa, &r, one_job, &given, wa, sizeof wa, 0},
	                         {pb, &r, never, NULL, wb, sizeof wb, 0}};

	memset(&s, 0, sizeof s);
	plan = "o";
	CHECK_EQ(pool_run_many(t, 2), -1);
	CHECK(t[0].failed && !t[1].failed);
	CHECK_STR(wa, "no GPU here");
	CHECK_EQ(s.n, 0);
	pool_end(pa);
	pool_end(pb);
}

struct retiring {
	struct pool *p;
	size_t next, n, at;       /* jobs handed out, in all; pool_retire before job `at` */
};

static int retire_next(void *arg, size_t *job)
{
	struct retiring *r = arg;

	if (r->next == r->n)
		return -1;
	if (r->next == r->at)
		pool_retire(r->p); /* as the play-off does, from inside next() */
	*job = r->next++;
	return 1;
}

/* after pool_retire the next job runs in a new worker, set up again, and the one it replaced
   has been waited for; without it a worker keeps its jobs */
TEST(pool_retire_starts_fresh)
{
	struct ctx c = {3, 0, 0, 0, 0, 0, 0};
	struct pool_ops ops = ops_for(&c);
	struct pool_limits lim = {5, 0};
	struct seen s;
	struct buf info = {0};
	char why[256] = "";
	struct pool *p = pool_new(&ops, &lim, 1);
	struct pool_run r = {"SETUP", 5, t_message, t_done, &s, NULL, NULL};
	struct retiring q = {p, 0, 4, 2};
	struct pool_task t = {p, &r, retire_next, &q, why, sizeof why, 0};
	long pid[4];
	int j;

	memset(&s, 0, sizeof s);
	plan = "oooo";
	CHECK_EQ(pool_open(p, &info, why, sizeof why), 0);
	CHECK_EQ(pool_run_many(&t, 1), 0);
	CHECK_EQ(s.n, 4);
	for (j = 0; j < 4; j++) {
		CHECK_EQ(s.oc[j], OUT_DONE);
		pid[j] = strtol(strstr(s.msg[j], "pid") + 4, NULL, 10);
	}
	CHECK(pid[0] == pid[1] && pid[1] != pid[2] && pid[2] == pid[3]);
	CHECK(kill((pid_t)pid[1], 0) < 0); /* reaped, not a zombie */
	pool_retire(p); /* idle: ends it; nothing running is touched */
	CHECK(kill((pid_t)pid[3], 0) < 0);
	pool_retire(NULL);
	pool_end(p);
	buf_free(&info);
}
