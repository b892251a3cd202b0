/* Tests for report: the bank model's prediction beside the counters --counters reads. */
#include "test.h"
#include "report.h"
#include "spec.h"
#include "winner.h"
#include "results.h"
#include "csv.h"
#include "bank.h"
#include "retune.h"
#include "wrap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* one load access and one store access; a variant of 4 blocks; counters as the worker sends
   them: requests, pipeline wavefronts, pipeline conflicts (loads, stores), SASS wavefronts */
/* the length of text's longest line */
static size_t longest_line(const char *text)
{
	size_t most = 0, n;

	for (; *text; text += n + (text[n] == '\n')) {
		n = strcspn(text, "\n");
		most = n > most ? n : most;
	}
	return most;
}

static void setup(struct config *c, struct bank_access *acc, struct variant *v,
                  struct result *x, struct bank_stats *bs)
{
	static struct run_result run;

	memset(c, 0, sizeof *c);
	memset(acc, 0, 2 * sizeof *acc);
	memset(v, 0, sizeof *v);
	memset(x, 0, sizeof *x);
	memset(&run, 0, sizeof run);
	x->run = &run;
	memset(bs, 0, 2 * sizeof *bs);
	acc[0].name = "ld";
	acc[1].name = "st";
	acc[1].store = 1;
	c->accesses = acc;
	c->naccesses = 2;
	v->grid[0] = 4;
	v->grid[1] = v->grid[2] = 1;
	/* per block: 8 load requests of 2 wavefronts (ideal 1), 4 conflict-free stores */
	bs[0] = (struct bank_stats){8, 16, 8, 2, 2, 1};
	bs[1] = (struct bank_stats){4, 4, 4, 1, 1, 1};
	x->bank = bs;
	x->bank_ratio = report_bank_ratio(bs, 2); /* as predict_bank stores it */
	x->status = ST_OK;
	x->run->nprobe = 8;
	x->run->probe[0] = 32;  /* 4 blocks x 8 */
	x->run->probe[1] = 66;  /* the pipeline: 2 more than the addresses need */
	x->run->probe[2] = 34;
	x->run->probe[3] = 16;
	x->run->probe[4] = 16;
	x->run->probe[5] = 0;
	x->run->probe[6] = 64;  /* SASS-level: what the addresses need */
	x->run->probe[7] = 16;
}

TEST(report_bank_check_agreement)
{
	struct config c;
	struct bank_access acc[2];
	struct variant v;
	struct result x;
	struct bank_stats bs[2];
	struct bank_check k;

	setup(&c, acc, &v, &x, bs);
	CHECK_EQ(report_bank_check(&c, &v, &x, 0, &k), 1);
	CHECK(k.pred == 2.0 && k.meas == 2.0 && k.match);
	CHECK(k.meas_pipe == 66.0 / 32);
	CHECK(k.pred_ideal == 1.0 && k.meas_ideal == 1.0);
	CHECK(k.pred_requests == 8 && k.meas_requests == 8);
	CHECK_EQ(report_bank_check(&c, &v, &x, 1, &k), 1);
	CHECK(k.pred == 1.0 && k.meas == 1.0 && k.match);

	/* 2 % more wavefronts than predicted is a gap */
	x.run->probe[6] = 64 * 1.02;
	CHECK_EQ(report_bank_check(&c, &v, &x, 0, &k), 1);
	CHECK(!k.match);
	x.run->probe[6] = 64 * 1.005; /* within REPORT_BANK_TOL */
	CHECK_EQ(report_bank_check(&c, &v, &x, 0, &k), 1);
	CHECK(k.match);

	/* without the SASS-level counters the pipeline's wavefronts are compared */
	x.run->nprobe = 6;
	CHECK_EQ(report_bank_check(&c, &v, &x, 0, &k), 1);
	CHECK(k.meas == 66.0 / 32 && !k.match);

	/* no requests counted where the pipeline saw wavefronts: incomplete, not a gap */
	x.run->nprobe = 8;
	x.run->probe[0] = 0;
	CHECK_EQ(report_bank_check(&c, &v, &x, 0, &k), -1);

	/* nothing to compare: no counters, or a variant that did not verify */
	x.run->probe[0] = 32;
	x.run->nprobe = 0;
	CHECK_EQ(report_bank_check(&c, &v, &x, 0, &k), 0);
	x.run->nprobe = 8;
	x.status = ST_MISMATCH;
	CHECK_EQ(report_bank_check(&c, &v, &x, 0, &k), 0);
}

TEST(report_csv_bank_columns)
{
	struct config c;
	struct bank_access acc[2];
	struct variant v;
	struct result x;
	struct bank_stats bs[2];
	struct space s;
	struct buf b = {0};
	size_t order = 0;
	int64_t vals[1] = {0};

	setup(&c, acc, &v, &x, bs);
	memset(&s, 0, sizeof s);
	strcpy(v.id, "v00000001");
	v.vals = vals;
	x.twin = -1;
	x.co.ok = 1;
	s.v = &v;
	s.n = 1;
	csv_write(&b, NULL, &c, &s, &x, &order, &(struct runinfo){0});
	CHECK(strstr(b.s, "bank_predicted,bank_counted") != NULL);
	/* predicted 20 / 12 wavefronts over ideal; counted (64 + 16) / (32 + 16) */
	CHECK(strstr(b.s, ",1.667,1.667,") != NULL);
	buf_free(&b);
}

TEST(report_counters_json_and_table)
{
	struct config c;
	struct bank_access acc[2];
	struct variant v;
	struct result x;
	struct bank_stats bs[2];
	struct space s;
	struct runinfo ri;
	struct buf b = {0};
	size_t order = 0, len = 0;
	int64_t vals[1] = {0};
	char *text = NULL;
	FILE *f;

	setup(&c, acc, &v, &x, bs);
	c.name = "k";
	c.path = "k.yaml";
	memset(&s, 0, sizeof s);
	memset(&ri, 0, sizeof ri);
	strcpy(v.id, "v00000001");
	v.vals = vals;
	x.twin = -1;
	x.bank8 = bs;
	x.bank_rules = &bank_volta;
	x.run->t.median_ms = 1;
	x.run->t.n = 20;
	c.samples = 20;
	s.v = &v;
	s.n = 1;
	ri.arch = "sm_90";
	ri.nvrtc = "13.0";
	ri.timed = 1;
	ri.counters = 1;
	ri.counter_passes = 2;
	results_write(&b, NULL, &c, &s, &x, &order, &ri);
	CHECK(strstr(b.s, "\"measured\": {\"loads\": {\"requests\": 32") != NULL);
	CHECK(strstr(b.s, "\"per_request\": 2, \"pipeline_per_request\": 2.0625") != NULL);
	CHECK(strstr(b.s, "\"match\": true") != NULL);
	CHECK(strstr(b.s, "smsp__sass_inst_executed_op_shared_ld.sum") != NULL);
	buf_free(&b);
	f = open_memstream(&text, &len);
	report_table(f, &c, &s, &x, &order, &ri);
	fclose(f);
	/* the line is wrapped at 120 columns: its words in order, no line longer */
	CHECK(strstr(text, "within 1 % of the prediction for") != NULL);
	CHECK(strstr(text, "2 of 2 accesses (100.0 %") != NULL);
	CHECK(longest_line(text) <= WRAP_WIDTH);
	free(text);

	/* a probe that failed is said, in results.json and under the table */
	x.run->nprobe = -1;
	snprintf(x.run->probe_why, sizeof x.run->probe_why, "cuptiRangeProfilerStart: busy");
	results_write(&b, NULL, &c, &s, &x, &order, &ri);
	CHECK(strstr(b.s, "\"counters_error\": \"cuptiRangeProfilerStart: busy\"") != NULL);
	CHECK(strstr(b.s, "\"measured\"") == NULL);
	buf_free(&b);
	f = open_memstream(&text, &len);
	report_table(f, &c, &s, &x, &order, &ri);
	fclose(f);
	CHECK(strstr(text, "1 variants not counted; the first: cuptiRangeProfilerStart: busy") != NULL);
	free(text);
}

/* n verified results with medians ms[] and spreads sp[] (shared memory smem[]) */
static void timed_results(struct result *r, struct variant *v, size_t n, const double *ms,
                          const double *sp, const int *smem)
{
	static struct run_result runs[8];
	size_t i;

	memset(r, 0, n * sizeof *r);
	memset(v, 0, n * sizeof *v);
	memset(runs, 0, sizeof runs);
	for (i = 0; i < n && i < LEN(runs); i++) {
		r[i].run = &runs[i];
		r[i].status = ST_OK;
		r[i].twin = -1;
		r[i].run->t.median_ms = ms[i];
		r[i].run->t.spread = sp[i];
		r[i].run->t.n = 20;
		r[i].co.regs = 32;
		r[i].co.smem_static = smem[i];
		snprintf(v[i].id, sizeof v[i].id, "v%zu", i);
	}
}

TEST(report_ties_rule)
{
	/* 0 is fastest; 1 is within timing.tie (0.6 %); 2 (1.2 %) is not, although twice the
	   standard error of its difference would reach it (20 samples, spreads 2 % and 4 %:
	   0.0099 ms): the spread does not widen the band; 3 is a straggler. Among 0 and 1 the
	   rule takes the one with less shared memory. */
	const double ms[] = {1.0, 1.005, 1.012, 2.0}, sp[] = {0.02, 0.04, 0.04, 0.01};
	const int smem[] = {4096, 1024, 0, 0};
	struct result r[4];
	struct variant v[4];
	struct space s = {.v = v, .n = 4, .nkept = 4};
	struct config cf = {.tie = 0.006}, *c = &cf;
	size_t *order, i;
	enum tie_key why;

	timed_results(r, v, 4, ms, sp, smem);
	order = winner_rank(r, 4);
	CHECK_EQ(order[0], 0);
	CHECK_EQ(winner_ties(r, 4, c, &s, order, SIZE_MAX, NULL, &why), 2);
	CHECK_EQ(why, TIE_SMEM);
	CHECK_EQ(order[0], 1);
	CHECK_EQ(order[1], 0);
	CHECK_EQ(order[2], 2);
	CHECK(r[0].tie && r[1].tie && !r[2].tie && !r[3].tie);
	free(order);

	/* the same timings in another order of arrival give the same winner */
	timed_results(r, v, 4, ms, sp, smem);
	r[0].run->t.median_ms = 1.005;
	r[1].run->t.median_ms = 1.0;
	order = winner_rank(r, 4);
	CHECK_EQ(winner_ties(r, 4, c, &s, order, SIZE_MAX, NULL, NULL), 2);
	CHECK_EQ(order[0], 1);
	free(order);

	/* equal shared memory: the fewest registers, then the first in the config's order */
	timed_results(r, v, 4, ms, sp, (const int[]){0, 0, 0, 0});
	order = winner_rank(r, 4);
	CHECK_EQ(winner_ties(r, 4, c, &s, order, SIZE_MAX, NULL, &why), 2);
	CHECK_EQ(why, TIE_ORDER);
	CHECK_EQ(order[0], 0);
	free(order);
	timed_results(r, v, 4, ms, sp, (const int[]){0, 0, 0, 0});
	r[1].co.regs = 30;
	order = winner_rank(r, 4);
	winner_ties(r, 4, c, &s, order, SIZE_MAX, NULL, &why);
	CHECK_EQ(why, TIE_REGS);
	CHECK_EQ(order[0], 1);
	free(order);

	/* 1 beyond timing.tie (0.4 %), however widely the samples spread: no tie marked, the
	   fastest wins */
	cf.tie = 0.004;
	timed_results(r, v, 4, ms, (const double[]){0.05, 0.05, 0.05, 0.05}, smem);
	order = winner_rank(r, 4);
	CHECK_EQ(winner_ties(r, 4, c, &s, order, SIZE_MAX, NULL, &why), 1);
	CHECK_EQ(why, TIE_NONE);
	CHECK_EQ(order[0], 0);
	/* nothing verified: no ties, and no key */
	for (i = 0; i < 4; i++)
		r[i].status = ST_MISMATCH;
	why = TIE_ORDER;
	CHECK_EQ(winner_ties(r, 4, c, &s, order, SIZE_MAX, NULL, &why), 0);
	CHECK_EQ(why, TIE_NONE);
	for (i = 0; i < 4; i++)
		CHECK(!r[i].tie);
	free(order);

	/* without a play-off too: 2 (1.1 % slower) is no tie, but as the earlier winner it is
	   within twice 0.6 %, behind 1 (0.9 %), which is not */
	cf.tie = 0.006;
	timed_results(r, v, 4, ms, (const double[]){0.001, 0.001, 0.001, 0.001}, smem);
	r[1].run->t.median_ms = 1.009;
	r[2].run->t.median_ms = 1.011;
	order = winner_rank(r, 4);
	CHECK_EQ(winner_ties(r, 4, c, &s, order, 2, NULL, &why), 2);
	CHECK_EQ(why, TIE_NONE); /* the earlier winner stayed */
	CHECK_EQ(order[0], 2);
	CHECK(r[0].tie && !r[1].tie && r[2].tie);
	free(order);

	/* timing.tie: medians within 0.6 % tie however small their spreads */
	cf.tie = 0.006;
	timed_results(r, v, 4, ms, (const double[]){0.001, 0.001, 0.001, 0.001}, smem);
	order = winner_rank(r, 4);
	CHECK_EQ(winner_ties(r, 4, c, &s, order, SIZE_MAX, NULL, NULL), 2);
	CHECK_EQ(order[0], 1);
	CHECK(r[0].tie && r[1].tie && !r[2].tie);
	free(order);
}

/* the timed results of report_ties_playoff, 0 and 1 in a play-off of 5 rounds with medians
   po0 and 1.0 and standard errors se, ranked by their first medians into *order */
static void playoff_results(struct result *r, struct variant *v, double po0, double se,
                            size_t **order)
{
	static const double ms[] = {1.0, 1.02, 1.001, 2.0}, sp[] = {0.01, 0.01, 0.01, 0.01};
	static const int smem[] = {0, 4096, 0, 0};

	timed_results(r, v, 4, ms, sp, smem);
	r[0].po_n = r[1].po_n = 5;
	r[0].po_ms = po0, r[1].po_ms = 1.000;
	r[0].po_se = r[1].po_se = se;
	*order = winner_rank(r, 4);
}

TEST(report_ties_playoff)
{
	struct result r[4];
	struct variant v[4];
	struct space s = {.v = v, .n = 4, .nkept = 4};
	struct config c = {.tie = 0.005};
	size_t *order, i;
	enum tie_key why;

	/* the play-off's medians decide, and only its variants tie: 1 is its fastest and 0 is
	   1 % slower there (beyond the 0.5 % of timing.tie and twice the standard error), so 1
	   wins alone although 0 and 2 had the faster medians before; 2 took no part */
	playoff_results(r, v, 1.010, 0.001, &order);
	CHECK_EQ(order[0], 0);
	CHECK_EQ(winner_ties(r, 4, &c, &s, order, SIZE_MAX, NULL, NULL), 1);
	CHECK_EQ(order[0], 1);
	for (i = 0; i < 4; i++)
		CHECK(!r[i].tie);
	free(order);

	/* within the band: a tie of 0 and 1, the rule takes 0 (less shared memory) */
	playoff_results(r, v, 1.003, 0.001, &order);
	CHECK_EQ(winner_ties(r, 4, &c, &s, order, SIZE_MAX, NULL, NULL), 2);
	CHECK_EQ(order[0], 0);
	CHECK(r[0].tie && r[1].tie && !r[2].tie && !r[3].tie);
	free(order);

	/* an earlier run's winner stays while it ties (1), not when it does not (2, 3) */
	for (i = 1; i < 4; i++) {
		playoff_results(r, v, 1.003, 0.001, &order);
		CHECK_EQ(winner_ties(r, 4, &c, &s, order, i, NULL, NULL), 2);
		CHECK_EQ(order[0], i == 1 ? 1 : 0);
		free(order);
	}

	/* the earlier winner's band is twice as wide: 0 at 0.8 % (beyond 0.5 %) stays the winner
	   as the earlier one, at 1.2 % it does not */
	playoff_results(r, v, 1.008, 0.001, &order);
	CHECK_EQ(winner_ties(r, 4, &c, &s, order, SIZE_MAX, NULL, NULL), 1);
	CHECK_EQ(order[0], 1);
	free(order);
	playoff_results(r, v, 1.008, 0.001, &order);
	CHECK_EQ(winner_ties(r, 4, &c, &s, order, 0, NULL, NULL), 2);
	CHECK_EQ(order[0], 0);
	CHECK(r[0].tie && r[1].tie);
	free(order);
	playoff_results(r, v, 1.012, 0.001, &order);
	CHECK_EQ(winner_ties(r, 4, &c, &s, order, 0, NULL, NULL), 1);
	CHECK_EQ(order[0], 1);
	CHECK(!r[0].tie && !r[1].tie);
	free(order);

	/* how the ties ran on other GPUs comes first: 1 (0.99 there) over 0 (0.9), though 0 has
	   less shared memory; unknown (-1) is last; equal scores fall back to shared memory; the
	   earlier winner still stays */
	playoff_results(r, v, 1.003, 0.001, &order);
	CHECK_EQ(winner_ties(r, 4, &c, &s, order, SIZE_MAX, (const double[]){0.9, 0.99, 1, 1}, &why),
	         2);
	CHECK_EQ(why, TIE_ELSEWHERE);
	CHECK_EQ(order[0], 1);
	free(order);
	playoff_results(r, v, 1.003, 0.001, &order);
	winner_ties(r, 4, &c, &s, order, SIZE_MAX, (const double[]){0.5, -1, 1, 1}, NULL);
	CHECK_EQ(order[0], 0);
	free(order);
	playoff_results(r, v, 1.003, 0.001, &order);
	winner_ties(r, 4, &c, &s, order, SIZE_MAX, (const double[]){0.95, 0.95, 1, 1}, NULL);
	CHECK_EQ(order[0], 0);
	free(order);
	/* the earlier winner stays unless the other GPUs put another tie more than timing.tie
	   (0.5 %) ahead of it there: 0.4 % ahead or unknown there, it stays; 9 % ahead, it goes */
	playoff_results(r, v, 1.003, 0.001, &order);
	winner_ties(r, 4, &c, &s, order, 0, (const double[]){0.98, 0.984, 1, 1}, NULL);
	CHECK_EQ(order[0], 0);
	free(order);
	playoff_results(r, v, 1.003, 0.001, &order);
	winner_ties(r, 4, &c, &s, order, 0, (const double[]){-1, 0.99, 1, 1}, NULL);
	CHECK_EQ(order[0], 0);
	free(order);
	playoff_results(r, v, 1.003, 0.001, &order);
	CHECK_EQ(winner_ties(r, 4, &c, &s, order, 0, (const double[]){0.9, 0.99, 1, 1}, NULL),
	         2);
	CHECK_EQ(order[0], 1);
	CHECK(r[0].tie && r[1].tie);
	free(order);

	/* then the most work resident on a multiprocessor: of 1 MB, 1 (200 blocks, 8 of them
	   resident: 40 KB) over 0 (100 blocks, 2: 20 KB), though 0 has less shared memory; where
	   one is not known, or both are equal, shared memory decides; the other GPUs' results
	   still come first */
	playoff_results(r, v, 1.003, 0.001, &order);
	v[0].grid[0] = 100, v[1].grid[0] = 200, v[0].grid[1] = v[0].grid[2] = 1;
	v[1].grid[1] = v[1].grid[2] = 1;
	v[0].bytes = v[1].bytes = 1000000;
	r[0].run->resident = 2, r[1].run->resident = 8;
	CHECK_EQ(winner_ties(r, 4, &c, &s, order, SIZE_MAX, NULL, NULL), 2);
	CHECK_EQ(order[0], 1);
	free(order);
	{
		/* 0's resident blocks, the other GPUs' scores (NULL: none), the winner, the key */
		const struct {
			int res;
			const double *else_;
			size_t win;
			enum tie_key key;
		} cases[] = {
			{2, (const double[]){0.99, 0.9, 1, 1}, 0, TIE_ELSEWHERE}, {0, NULL, 0, TIE_SMEM},
			{4, NULL, 0, TIE_SMEM}, {3, NULL, 1, TIE_WORK},
		};
		for (i = 0; i < LEN(cases); i++) {
			r[0].run->resident = cases[i].res;
			order = winner_rank(r, 4);
			winner_ties(r, 4, &c, &s, order, SIZE_MAX, cases[i].else_, &why);
			CHECK_EQ(order[0], cases[i].win);
			CHECK_EQ(why, cases[i].key);
			free(order);
		}
	}

	/* a wide spread of rounds does not widen the band: 1.008 with se 0.003 (2 sqrt(2) 0.003
	   beyond 0.008) is no tie, and the fastest wins */
	playoff_results(r, v, 1.008, 0.003, &order);
	CHECK_EQ(winner_ties(r, 4, &c, &s, order, SIZE_MAX, NULL, NULL), 1);
	CHECK_EQ(order[0], 1);
	CHECK(!r[0].tie && !r[1].tie);
	free(order);
}

TEST(report_edges_of_space)
{
	/* BLOCK 64 128 256 (listed out of order), OUT 1 2 4, SW 0 1 (a switch: never an edge);
	   the winner BLOCK=64 OUT=4 SW=0 */
	int64_t bv[] = {256, 64, 128}, ov[] = {1, 2, 4}, sv[] = {0, 1};
	struct param p[3] = {{.name = "BLOCK", .vals = bv, .nvals = 3},
	                     {.name = "OUT", .vals = ov, .nvals = 3},
	                     {.name = "SW", .vals = sv, .nvals = 2}};
	int64_t vals[5][3] = {{64, 4, 0}, {128, 4, 0}, {64, 2, 0}, {64, 4, 1}, {128, 2, 0}};
	double ms[5] = {1.0, 1.1, 1.03, 1.5, 2.0};
	struct config c;
	struct variant v[5];
	struct result r[5];
	struct run_result run[5];
	struct space s = {.v = v, .n = 5};
	struct buf b = {0};
	size_t i;

	memset(&c, 0, sizeof c);
	memset(v, 0, sizeof v);
	memset(r, 0, sizeof r);
	memset(run, 0, sizeof run);
	c.params = p;
	c.nparams = 3;
	for (i = 0; i < 5; i++) {
		v[i].vals = vals[i];
		r[i].status = ST_OK;
		run[i].t.median_ms = ms[i];
		r[i].run = &run[i];
	}
	CHECK_EQ(report_edges(&b, &c, &s, r, 0), 2);
	CHECK_STR(b.s, "BLOCK=64 is the smallest value tried, and BLOCK=128 is 10.0 % slower\n"
	               "OUT=4 is the largest value tried, and OUT=2 is 3.0 % slower\n");
	/* an inward neighbour as fast, or not timed: nothing to say there */
	run[1].t.median_ms = 1.0;
	r[2].status = ST_MISMATCH;
	b.len = 0;
	CHECK_EQ(report_edges(&b, &c, &s, r, 0), 0);
	/* not at an edge: BLOCK=128 OUT=2 */
	b.len = 0;
	CHECK_EQ(report_edges(&b, &c, &s, r, 4), 0);
	buf_free(&b);
}

/* write text to dir/sub/results.json */
static void put_results(const char *dir, const char *sub, const char *text)
{
	char *d = xasprintf("%s/%s", dir, sub), *p = xasprintf("%s/results.json", d);

	mkdirs(d);
	CHECK_EQ(file_write_atomic(p, text, strlen(text)), 0);
	free(d);
	free(p);
}

TEST(report_retune_against_other_gpus)
{
	char tmpl[] = "/tmp/tuner-retune.XXXXXX", *dir = mkdtemp(tmpl);
	const double ms[] = {1.2, 1.1, 1.0}, sp[] = {0.01, 0.01, 0.01};
	struct result r[3];
	struct variant v[3];
	struct space s = {.v = v, .n = 3, .nkept = 3};
	struct buf text = {0}, json = {0};
	struct others x = {0};
	size_t *order;

	CHECK(dir != NULL);
	if (!dir)
		return;
	timed_results(r, v, 3, ms, sp, (const int[]){0, 0, 0});
	r[0].status = ST_MISMATCH;
	order = winner_rank(r, 3); /* v2, v1, v0 */
	put_results(dir, "gpu-a", "{\"kernel\": \"k\", \"timed\": true, \"gpu\": \"GPU A\", "
	            "\"variants\": [{\"id\": \"v0\", \"status\": \"mismatch\"}, "
	            "{\"id\": \"v1\", \"status\": \"ok\", \"pct_copy\": 95}]}");
	put_results(dir, "gpu-b", "{\"kernel\": \"k\", \"timed\": true, \"gpu\": \"GPU B\", "
	            "\"variants\": [{\"id\": \"v9\", \"status\": \"ok\", \"pct_copy\": 90}]}");
	put_results(dir, "gpu-c", "{\"kernel\": \"k\", \"timed\": true, \"gpu\": \"GPU C\", "
	            "\"variants\": [{\"id\": \"v0\", \"status\": \"ok\", \"pct_copy\": 90}]}");
	put_results(dir, "other-kernel", "{\"kernel\": \"x\", \"timed\": true, \"gpu\": \"GPU X\", "
	            "\"variants\": [{\"id\": \"v1\", \"status\": \"ok\"}]}");
	put_results(dir, "untimed-sm_90", "{\"kernel\": \"k\", \"timed\": false, \"variants\": []}");
	put_results(dir, "me", "{\"kernel\": \"k\", \"timed\": true, \"gpu\": \"Me\", "
	            "\"variants\": [{\"id\": \"v1\", \"status\": \"ok\"}]}");
	retune_read(&x, dir, "me", NULL, "k");
	CHECK_EQ(retune_compare(&x, &s, r, order, &text, &json), 3);
	retune_free(&x);
	CHECK_STR(text.s, "re-tuning: GPU A's winner v1 ranks 2 of 2 here, at 90.9 % of this GPU's "
	          "fastest: re-tuning gained 10.0 %\n"
	          "re-tuning: GPU B's winner v9 is not in this space\n"
	          "re-tuning: GPU C's winner v0 is mismatch here\n");
	CHECK(json.s && strstr(json.s, "\"winner\": \"v1\", \"pct_copy_there\": 95, \"rank\": 2, "
	                       "\"of\": 2, \"ratio\": 0.909091, \"gain_pct\": 10"));
	CHECK(json.s && json.s[0] == '[' && json.s[json.len - 1] == ']');
	buf_free(&text);
	buf_free(&json);
	free(order);

	/* each variant's worst ratio to the fastest over the other GPUs that verified it: GPU A
	   has v1 alone (1), GPU D v1 at 2 ms against v2 at 1 ms (0.5) and v0 not verified; this
	   GPU's own directory, other kernels and untimed results do not count */
	put_results(dir, "gpu-d", "{\"kernel\": \"k\", \"timed\": true, \"gpu\": \"GPU D\", "
	            "\"variants\": [{\"id\": \"v2\", \"status\": \"ok\", \"median_ms\": 1}, "
	            "{\"id\": \"v1\", \"status\": \"ok\", \"median_ms\": 2}, "
	            "{\"id\": \"v0\", \"status\": \"fault\", \"median_ms\": 0.5}]}");
	put_results(dir, "gpu-a", "{\"kernel\": \"k\", \"timed\": true, \"gpu\": \"GPU A\", "
	            "\"variants\": [{\"id\": \"v1\", \"status\": \"ok\", \"median_ms\": 3}]}");
	put_results(dir, "me", "{\"kernel\": \"k\", \"timed\": true, \"gpu\": \"Me\", "
	            "\"variants\": [{\"id\": \"v0\", \"status\": \"ok\", \"median_ms\": 1}]}");
	double score[3];
	retune_read(&x, dir, "me", NULL, "k");
	CHECK_EQ(retune_elsewhere(&x, &s, score), 2); /* a and d: b has none of these, c no medians */
	retune_free(&x);
	CHECK(score[0] == -1);
	CHECK(score[1] == 0.5);
	CHECK(score[2] == 1);
	retune_read(&x, "/nonexistent/dir", "me", NULL, "k");
	CHECK_EQ(retune_elsewhere(&x, &s, score), 0);
	retune_free(&x);
	CHECK(score[0] == -1 && score[1] == -1 && score[2] == -1);
	char *cmd = xasprintf("rm -rf '%s'", dir);
	CHECK_EQ(system(cmd), 0);
	free(cmd);
}

/* another GPU's name reaches the re-tuning line through buf_safe: no escape sequence, no line
   of its own; a sibling whose points file names a directory outside, or whose directory has a
   name the tuner never gives, is skipped */
TEST(report_retune_foreign_names)
{
	char tmpl[] = "/tmp/tuner-retune.XXXXXX", *dir = mkdtemp(tmpl), *cmd;
	const double ms[] = {1.0}, sp[] = {0.01};
	struct result r[1];
	struct variant v[1];
	struct space s = {.v = v, .n = 1, .nkept = 1};
	struct buf text = {0}, json = {0};
	struct others x = {0};
	size_t *order;

	CHECK(dir != NULL);
	if (!dir)
		return;
	timed_results(r, v, 1, ms, sp, (const int[]){0});
	order = winner_rank(r, 1);
	put_results(dir, "gpu-a", "{\"kernel\": \"k\", \"timed\": true, \"gpu\": "
	            "\"A\\u001b[2J\\ntuner: best: v0\", \"variants\": [{\"id\": \"v0\", "
	            "\"status\": \"ok\", \"median_ms\": 1}]}");
	put_results(dir, "gpu-p", "{\"points\": [{\"dir\": \"../../../etc\"}]}");
	put_results(dir, "gpu\x1b]0;x", "{\"kernel\": \"k\", \"timed\": true, \"gpu\": \"B\", "
	            "\"variants\": [{\"id\": \"v0\", \"status\": \"ok\", \"median_ms\": 1}]}");
	retune_read(&x, dir, "me", NULL, "k");
	CHECK_EQ(x.n, 1);
	CHECK_EQ(retune_compare(&x, &s, r, order, &text, &json), 1);
	CHECK_STR(text.s, "re-tuning: A\\x1b[2J\\x0atuner: best: v0's winner v0 ranks 1 of 1 "
	          "here, at 100.0 % of this GPU's fastest: re-tuning gained 0.0 %\n");
	retune_free(&x);
	buf_free(&text);
	buf_free(&json);
	free(order);
	cmd = xasprintf("rm -rf '%s'", dir);
	CHECK_EQ(system(cmd), 0);
	free(cmd);
}
