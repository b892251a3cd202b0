/* Tests for journal: records survive a round trip; torn and corrupt lines are skipped. */
#include "test.h"
#include "journal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static char *tmpfile_path(void)
{
	char *p = xasprintf("%s/tuner-journal-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	int fd = mkstemp(p);

	close(fd);
	unlink(p);
	return p;
}

TEST(journal_roundtrip)
{
	char *path = tmpfile_path();
	struct jrec a = {0}, b = {0}, *got;
	size_t n;

	a.key = 0x0123456789abcdefULL;
	a.status = 4;
	a.run.status = RUN_MISMATCH;
	a.run.bad = 12;
	a.run.max_abs_err = 0.1;
	a.run.max_rel_err = 1.0 / 3;
	a.run.t.n = 20;
	a.run.t.median_ms = 0.18193;
	a.run.t.spread = 0.004;
	a.run.bank_applied = 4;
	a.gbs = 2950.25;
	a.pct_copy = 99.9;
	snprintf(a.run.reason, sizeof a.run.reason, "12 of 100 differ; first at [3]: 1 vs 2");
	a.run.nprobe = 6; /* shared-memory counters, as --counters stores them */
	a.run.probe[0] = 1310720;
	a.run.probe[1] = 5242880.5;
	a.run.probe[5] = 1e-300;
	b.key = 42; /* empty reason, no probe */
	CHECK_EQ(journal_append(path, &a), 0);
	CHECK_EQ(journal_append(path, &b), 0);
	n = journal_load(path, &got);
	CHECK_EQ(n, 2);
	if (n == 2) {
		CHECK(got[0].key == a.key);
		CHECK_EQ(got[0].status, 4);
		CHECK_EQ(got[0].run.status, RUN_MISMATCH);
		CHECK_EQ(got[0].run.bad, 12);
		CHECK(got[0].run.max_rel_err == a.run.max_rel_err);
		CHECK(got[0].run.t.median_ms == a.run.t.median_ms);
		CHECK(got[0].gbs == a.gbs);
		CHECK_STR(got[0].run.reason, a.run.reason);
		CHECK_EQ(got[0].run.nprobe, 6);
		CHECK(got[0].run.probe[0] == a.run.probe[0]);
		CHECK(got[0].run.probe[1] == a.run.probe[1]);
		CHECK(got[0].run.probe[5] == a.run.probe[5]);
		CHECK(got[1].key == 42);
		CHECK_EQ(got[1].run.nprobe, 0);
		CHECK_STR(got[1].run.reason, "");
	}
	free(got);
	CHECK_EQ(journal_rewrite(path, &b, 1), 0);
	n = journal_load(path, &got);
	CHECK_EQ(n, 1);
	free(got);
	unlink(path);
	free(path);
}

TEST(journal_torn_and_corrupt)
{
	char *path = tmpfile_path();
	struct jrec a = {0}, *got;
	size_t n, len;
	char *text;
	int fd;

	a.key = 7;
	a.run.t.median_ms = 1.5;
	CHECK_EQ(journal_append(path, &a), 0);
	a.key = 8;
	CHECK_EQ(journal_append(path, &a), 0);
	text = file_read(path, &len);
	/* flip one digit of the second record and append half of a third: both are skipped */
	text[len - 30] = text[len - 30] == '0' ? '1' : '0';
	fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(write(fd, text, len) == (ssize_t)len);
	CHECK(write(fd, text, len / 4) == (ssize_t)(len / 4));
	close(fd);
	n = journal_load(path, &got);
	CHECK_EQ(n, 1);
	if (n == 1)
		CHECK(got[0].key == 7);
	free(got);
	free(text);
	unlink(path);
	free(path);
	CHECK_EQ(journal_load("/nonexistent/journal", &got), 0);
}
