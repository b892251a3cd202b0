/* Tests for journal: records survive a round trip; torn and corrupt lines are skipped. */
#include "test.h"
#include "config.h"
#include "journal.h"
#include "params.h"
#include "run.h"
#include "spec.h"
#include "wire.h"

#include <fcntl.h>
#include <math.h>
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
	a.run.resident = 3;
	a.gbs = 2950.25;
	a.pct_copy = 99.9;
	snprintf(a.run.reason, sizeof a.run.reason, "12 of 100 differ; first at [3]: 1 vs 2");
	a.run.nprobe = 6; /* shared-memory counters, as --counters stores them */
	a.run.probe[0] = 1310720;
	a.run.probe[1] = 5242880.5;
	a.run.probe[5] = 1e-300;
	b.key = 42; /* a timeout: empty reason, no probe */
	b.status = ST_TIMEOUT;
	CHECK_EQ(journal_append(path, &a), 0);
	CHECK_EQ(journal_append(path, &b), 0);
	CHECK_EQ(journal_load(path, &got, &n), 0);
	CHECK_EQ(n, 2);
	if (n == 2) {
		CHECK(got[0].key == a.key);
		CHECK_EQ(got[0].status, 4);
		CHECK_EQ(got[0].run.status, RUN_MISMATCH);
		CHECK_EQ(got[0].run.bad, 12);
		CHECK(got[0].run.max_rel_err == a.run.max_rel_err);
		CHECK(got[0].run.t.median_ms == a.run.t.median_ms);
		CHECK(got[0].gbs == a.gbs);
		CHECK_EQ(got[0].run.resident, 3);
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
	CHECK_EQ(journal_load(path, &got, &n), 0);
	CHECK_EQ(n, 1);
	free(got);
	unlink(path);
	free(path);
}

/* the worker's message of a result walks the journal's table: every field comes back, those
   a journal record does not keep too; a failed probe (-1) stays -1 */
TEST(journal_wire_run_roundtrip)
{
	struct run_result a, b;
	struct buf m = {0};
	struct rd r;
	int i;

	memset(&a, 0, sizeof a);
	a.status = RUN_LAUNCH_ERROR;
	snprintf(a.reason, sizeof a.reason, "launch failed: too many resources");
	a.max_abs_err = 0.5;
	a.max_rel_err = 1.0 / 7;
	a.bad = 123456789012ULL;
	a.t = (struct stats){20, 0.25, 0.2, 0.3, 0.26, 0.01, 8, 1, 3.75};
	a.bank_applied = 8;
	a.nprobe = BENCH_PROBE_MAX;
	for (i = 0; i < BENCH_PROBE_MAX; i++)
		a.probe[i] = i * 1.5 + 1e-300;
	snprintf(a.probe_why, sizeof a.probe_why, "no counters");
	a.device = 3;
	a.resident = 16;
	a.verify_s = 0.125;
	a.extra_s = 0.0625;
	a.timing_s = 1.5;
	journal_wire_run(&m, &a);
	r = rd_of(m.s, m.len);
	CHECK_EQ(journal_rd_run(&r, &b), 0);
	CHECK_EQ(b.status, RUN_LAUNCH_ERROR);
	CHECK_STR(b.reason, a.reason);
	CHECK(b.max_abs_err == a.max_abs_err && b.max_rel_err == a.max_rel_err);
	CHECK(b.bad == a.bad);
	CHECK(b.t.n == 20 && b.t.median_ms == 0.25 && b.t.min_ms == 0.2 && b.t.max_ms == 0.3 &&
	      b.t.mean_ms == 0.26 && b.t.spread == 0.01 && b.t.reps == 8 && b.t.held == 1 &&
	      b.t.launch_us == 3.75);
	CHECK_EQ(b.bank_applied, 8);
	CHECK_EQ(b.nprobe, BENCH_PROBE_MAX);
	for (i = 0; i < BENCH_PROBE_MAX; i++)
		CHECK(b.probe[i] == a.probe[i]);
	CHECK_STR(b.probe_why, "no counters");
	CHECK_EQ(b.device, 3);
	CHECK_EQ(b.resident, 16);
	CHECK(b.verify_s == 0.125 && b.extra_s == 0.0625 && b.timing_s == 1.5);
	a.nprobe = -1;
	m.len = 0;
	journal_wire_run(&m, &a);
	r = rd_of(m.s, m.len);
	CHECK_EQ(journal_rd_run(&r, &b), 0);
	CHECK_EQ(b.nprobe, -1);
	r = rd_of(m.s, m.len - 1); /* cut short */
	CHECK_EQ(journal_rd_run(&r, &b), -1);
	a.status = (enum run_status)9; /* no status a worker sends */
	m.len = 0;
	journal_wire_run(&m, &a);
	r = rd_of(m.s, m.len);
	CHECK_EQ(journal_rd_run(&r, &b), -1);
	buf_free(&m);
}

TEST(journal_torn_and_corrupt)
{
	char *path = tmpfile_path();
	struct jrec a = {0}, *got;
	size_t n, len;
	char *text;
	int fd;

	a.key = 7;
	a.run.t.n = 5;
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
	CHECK_EQ(journal_load(path, &got, &n), 0);
	CHECK_EQ(n, 1);
	if (n == 1)
		CHECK(got[0].key == 7);
	free(got);
	free(text);
	unlink(path);
	free(path);
	CHECK_EQ(journal_load("/nonexistent/journal", &got, &n), 0);
	CHECK_EQ(n, 0);
}

/* a run killed while appending leaves a torn last line: the next record still reads */
TEST(journal_torn_then_append)
{
	char *path = tmpfile_path(), *text, *one;
	struct jrec a = {0}, *got;
	size_t n, len;
	int fd;

	a.key = 1;
	a.status = ST_OK;
	a.run.t.n = 3;
	a.run.t.median_ms = 0.5;
	CHECK_EQ(journal_append(path, &a), 0);
	text = file_read(path, &len);
	one = xstrndup(text, len);
	fd = open(path, O_WRONLY | O_APPEND);
	CHECK(write(fd, one, len / 2) == (ssize_t)(len / 2)); /* half a record, no newline */
	close(fd);
	a.key = 2;
	CHECK_EQ(journal_append(path, &a), 0);
	CHECK_EQ(journal_load(path, &got, &n), 0);
	CHECK_EQ(n, 2);
	if (n == 2) {
		CHECK(got[0].key == 1);
		CHECK(got[1].key == 2);
	}
	free(got);
	free(text);
	text = file_read(path, NULL); /* the new record is on a line of its own */
	CHECK(text && strlen(text) > len && text[len + len / 2] == '\n' &&
	      !strncmp(text + len + len / 2 + 1, one, 16));
	free(text);
	/* a journal whose record follows a torn one on the same line (as appends before fresh
	   lines wrote it) still gives the record */
	fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(write(fd, one, len / 2) == (ssize_t)(len / 2));
	CHECK(write(fd, one, len) == (ssize_t)len);
	close(fd);
	CHECK_EQ(journal_load(path, &got, &n), 0);
	CHECK_EQ(n, 1);
	if (n == 1)
		CHECK(got[0].key == 1);
	free(got);
	free(one);
	unlink(path);
	free(path);
}

/* the record of line (one, with its newline) with its space-separated field k replaced by
   val and the checksum made to match, malloc'd */
static char *reseal(const char *line, int k, const char *val)
{
	struct buf b = {0};
	const char *p = line, *e;
	int i;

	for (i = 0; i < k; i++)
		p = strchr(p, ' ') + 1;
	e = strchr(p, ' ');
	buf_add(&b, line, (size_t)(p - line));
	buf_puts(&b, val);
	buf_add(&b, e, (size_t)(strrchr(line, ' ') + 1 - e));
	buf_printf(&b, "%016llx\n", (unsigned long long)hash_bytes(HASH_INIT, b.s, b.len));
	return b.s;
}

/* a record whose checksum matches but whose fields no run can have written is skipped */
TEST(journal_out_of_range)
{
	/* fields: 2 status, 3 run status, 4 elements, 7 samples, 14 resident blocks, 18 reason */
	static const struct { int k; const char *val; } edits[] = {
		{2, "99"}, {3, "-1"}, {4, "-1"}, {7, "-5"}, {14, "-2"}, {18, "r4100"}, {18, "rzz"},
		{2, "4"},
	};
	struct jrec good = {0}, bad[14], *got;
	char *path = tmpfile_path(), *text, *line;
	size_t n, i, len;
	int fd;

	good.key = 1;
	good.status = ST_MISMATCH;
	good.run.status = RUN_MISMATCH;
	good.run.bad = 3;
	good.run.max_abs_err = INFINITY; /* a NaN output */
	good.run.max_rel_err = INFINITY;
	for (i = 0; i < LEN(bad); i++) {
		bad[i] = good;
		bad[i].key = 100 + i;
	}
	bad[0].status = 99;             /* the report uses it as an index */
	bad[1].status = -1;
	bad[2].status = ST_DROPPED;     /* statuses no GPU run records */
	bad[3].status = ST_TWIN;
	bad[4].run.status = 7;
	bad[5].run.t.n = CFG_SAMPLES_MAX + 1;
	bad[6].run.t.median_ms = NAN;
	bad[7].run.t.min_ms = -1;
	bad[8].gbs = INFINITY;
	bad[9].run.max_abs_err = NAN;
	bad[10].run.bank_applied = 3;
	bad[11].status = ST_OK;         /* timed without a sample */
	bad[11].run.status = RUN_OK;
	bad[12].run.nprobe = 1;         /* a probe value that is not a number */
	bad[12].run.probe[0] = NAN;
	bad[13].run.resident = -1;
	for (i = 0; i < LEN(bad); i++)
		CHECK_EQ(journal_append(path, &bad[i]), 0);
	CHECK_EQ(journal_append(path, &good), 0);
	CHECK_EQ(journal_load(path, &got, &n), 0);
	CHECK_EQ(n, 1);
	if (n == 1) {
		CHECK(got[0].key == 1);
		CHECK(isinf(got[0].run.max_abs_err));
	}
	free(got);
	/* fields the writer never writes, sealed with a matching checksum */
	text = file_read(path, &len);
	line = strrchr(text, '\n');
	*line = '\0';
	line = strrchr(text, '\n') + 1; /* the good record, without its newline */
	fd = open(path, O_WRONLY | O_TRUNC);
	for (i = 0; i < LEN(edits); i++) {
		char *one = xasprintf("%s\n", line), *r = reseal(one, edits[i].k, edits[i].val);
		CHECK(write(fd, r, strlen(r)) == (ssize_t)strlen(r));
		free(r);
		free(one);
	}
	close(fd);
	CHECK_EQ(journal_load(path, &got, &n), 0);
	CHECK_EQ(n, 1); /* the last edit leaves the record as it was */
	if (n == 1)
		CHECK_EQ(got[0].status, ST_MISMATCH);
	free(got);
	free(text);
	unlink(path);
	free(path);
}

/* a config with every section that counts for the journal's context, in flow style */
static const char jbase[] =
	"name: j\n"
	"template: good.cu\n"
	"entry: k\n"
	"sizes: {n: 64}\n"
	"params: {B: [32, 64]}\n"
	"constraints: [B <= n]\n"
	"buffers:\n"
	"  - {name: a, type: float, count: n, role: in, fill: {random: {seed: 3, max: 2}}}\n"
	"  - {name: o, type: float, count: n, role: out}\n"
	"constants: [{name: c, type: int, count: 4, fill: {const: 2}}]\n"
	"args: [o, a, n, {value: n / 2, type: long}]\n"
	"launch: {block: [B], grid: [\"ceil_div(n, B)\"]}\n"
	"bytes: 8 * n\n"
	"reference: {entry: k_ref, launch: {block: [64], grid: [1]}}\n"
	"tolerance: {rel: 1e-4, abs: 0}\n"
	"timing: {warmup: 1, samples: 5, flush_l2: false}\n"
	"accesses: [{name: ld, array: s, elem: 4, index: tid}]\n";

/* the same values, the keys in other orders, block style and other quotes */
static const char jshuffled[] =
	"accesses:\n"
	"  - index: tid\n"
	"    elem: 4\n"
	"    name: ld\n"
	"    array: s\n"
	"timing:\n"
	"  flush_l2: false\n"
	"  samples: 5\n"
	"  warmup: 1\n"
	"tolerance: {abs: 0, rel: 1e-4}\n"
	"reference:\n"
	"  launch:\n"
	"    grid: [1]\n"
	"    block:\n"
	"      - 64\n"
	"  entry: \"k_ref\"\n"
	"bytes: 8 * n\n"
	"launch: {grid: ['ceil_div(n, B)'], block: [B]}\n"
	"args:\n"
	"  - o\n"
	"  - 'a'\n"
	"  - n\n"
	"  - type: long\n"
	"    value: n / 2\n"
	"constants:\n"
	"  - fill:\n"
	"      const: 2\n"
	"    count: 4\n"
	"    name: c\n"
	"    type: int\n"
	"buffers:\n"
	"  - role: in\n"
	"    fill: {random: {max: 2, seed: 3}}\n"
	"    name: a\n"
	"    count: n\n"
	"    type: float\n"
	"  - {role: out, count: n, name: o, type: float}\n"
	"constraints:\n"
	"  - B <= n\n"
	"params:\n"
	"  B: [32, 64]\n"
	"sizes:\n"
	"  n: 64\n"
	"entry: k\n"
	"template: good.cu\n"
	"name: j\n";

/* jbase with its first from replaced by to, malloc'd */
static char *jedit(const char *from, const char *to)
{
	const char *p = strstr(jbase, from);
	struct buf b = {0};

	CHECK(p != NULL);
	if (!p)
		return xstrdup(jbase);
	buf_add(&b, jbase, (size_t)(p - jbase));
	buf_puts(&b, to);
	buf_puts(&b, p + strlen(from));
	return b.s;
}

/* journal_context of config text (beside tests/data/good.cu) with the size override size
   (NULL: none), for a GPU, method and reference cubin that stay the same; 0 on a bad config */
static uint64_t jctx(const char *text, const char *size)
{
	char *path = xstrdup(test_path("tests/data/journal.yaml")), err[512];
	struct config *c = cfg_parse(path, text, strlen(text), err, sizeof err);
	struct compile_out ref = {0};
	struct vars v = {0};
	uint64_t h = 0;

	free(path);
	CHECK(c != NULL);
	if (!c) {
		fprintf(stderr, "  %s\n", err);
		return 0;
	}
	if (size)
		cfg_set_size(c, size);
	cfg_size_vars(c, 1, &v);
	ref.cubin = "cubin";
	ref.cubin_len = 5;
	h = journal_context(c, &v, "H100", "flush", &ref);
	cfg_free(c);
	return h;
}

/* jctx of jbase edited */
static uint64_t jctx_edit(const char *from, const char *to)
{
	char *text = jedit(from, to);
	uint64_t h = jctx(text, NULL);

	free(text);
	return h;
}

/* what can change a variant's result outside it changes the context */
TEST(journal_context_changes)
{
	static const char *const edits[][2] = {
		{"seed: 3", "seed: 4"},                   /* a buffer's fill */
		{"max: 2", "max: 3"},
		{"role: in", "role: scratch"},
		{"{name: a, type: float", "{name: a, type: double"},
		{"fill: {const: 2}", "fill: {const: 3}"}, /* a constant */
		{"count: 4", "count: 5"},
		{"name: c,", "name: c2,"},
		{"args: [o, a, n,", "args: [o, a, n + 1,"}, /* an argument */
		{"type: long}", "type: int}"},
		{"entry: k\n", "entry: k2\n"},
		{"entry: k_ref", "entry: k_ref2"},        /* the reference */
		{"block: [64]", "block: [32]"},
		{"rel: 1e-4", "rel: 1e-3"},               /* tolerance */
		{"abs: 0", "abs: 1e-9"},
		{"samples: 5", "samples: 6"},             /* timing */
		{"warmup: 1", "warmup: 2"},
		{"flush_l2: false", "flush_l2: true"},
	};
	uint64_t base = jctx(jbase, NULL);
	size_t i;

	CHECK(base != 0);
	CHECK(jctx(jbase, NULL) == base);
	for (i = 0; i < LEN(edits); i++) {
		if (jctx_edit(edits[i][0], edits[i][1]) != base)
			continue;
		fprintf(stderr, "  '%s' -> '%s' left the context as it was\n", edits[i][0],
		        edits[i][1]);
		CHECK(!"an edit that changes results changes the context");
	}
	/* a size, also when set on the command line */
	CHECK(jctx_edit("n: 64", "n: 128") != base);
	CHECK(jctx(jbase, "n=128") != base);
	CHECK(jctx(jbase, "n=64") == base);
}

/* what only the variant's own key covers, or no result depends on, leaves it alone; so do the
   order of keys and YAML's styles */
TEST(journal_context_stays)
{
	static const char *const edits[][2] = {
		{"name: j", "name: j2"},                          /* output names */
		{"B: [32, 64]", "B: [16, 32, 64, 128]"},          /* the variants' own */
		{"constraints: [B <= n]", "constraints: [B < n]"},
		{"launch: {block: [B],", "launch: {block: [B, 1],"},
		{"bytes: 8 * n", "bytes: 4 * n"},
		{"index: tid", "index: lane"},                    /* the bank model's */
		{"elem: 4,", "elem: 8,"},
		{"reference: {", "reference: {source: good.cu, "}, /* compiled: its cubin counts */
		{"template: good.cu\n", "template: good.cu\noptions: [-lineinfo]\n"},
	};
	uint64_t base = jctx(jbase, NULL);
	size_t i;

	CHECK(base != 0);
	for (i = 0; i < LEN(edits); i++) {
		if (jctx_edit(edits[i][0], edits[i][1]) == base)
			continue;
		fprintf(stderr, "  '%s' -> '%s' changed the context\n", edits[i][0], edits[i][1]);
		CHECK(!"an edit that changes no result outside the variant keeps the context");
	}
	CHECK(jctx_edit("accesses: [{name: ld, array: s, elem: 4, index: tid}]\n", "") == base);
	CHECK(jctx(jshuffled, NULL) == base);
}
