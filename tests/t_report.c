/* Tests for report: the bank model's prediction beside the counters --counters reads. */
#include "test.h"
#include "report.h"
#include "bank.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* one load access and one store access; a variant of 4 blocks; counters as the worker sends
   them: requests, pipeline wavefronts, pipeline conflicts (loads, stores), SASS wavefronts */
static void setup(struct config *c, struct bank_access *acc, struct variant *v,
                  struct result *x, struct bank_stats *bs)
{
	memset(c, 0, sizeof *c);
	memset(acc, 0, 2 * sizeof *acc);
	memset(v, 0, sizeof *v);
	memset(x, 0, sizeof *x);
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
	x->status = ST_OK;
	x->run.nprobe = 8;
	x->run.probe[0] = 32;  /* 4 blocks x 8 */
	x->run.probe[1] = 66;  /* the pipeline: 2 more than the addresses need */
	x->run.probe[2] = 34;
	x->run.probe[3] = 16;
	x->run.probe[4] = 16;
	x->run.probe[5] = 0;
	x->run.probe[6] = 64;  /* SASS-level: what the addresses need */
	x->run.probe[7] = 16;
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
	x.run.probe[6] = 64 * 1.02;
	CHECK_EQ(report_bank_check(&c, &v, &x, 0, &k), 1);
	CHECK(!k.match);
	x.run.probe[6] = 64 * 1.005; /* within REPORT_BANK_TOL */
	CHECK_EQ(report_bank_check(&c, &v, &x, 0, &k), 1);
	CHECK(k.match);

	/* without the SASS-level counters the pipeline's wavefronts are compared */
	x.run.nprobe = 6;
	CHECK_EQ(report_bank_check(&c, &v, &x, 0, &k), 1);
	CHECK(k.meas == 66.0 / 32 && !k.match);

	/* no requests counted where the pipeline saw wavefronts: incomplete, not a gap */
	x.run.nprobe = 8;
	x.run.probe[0] = 0;
	CHECK_EQ(report_bank_check(&c, &v, &x, 0, &k), -1);

	/* nothing to compare: no counters, or a variant that did not verify */
	x.run.probe[0] = 32;
	x.run.nprobe = 0;
	CHECK_EQ(report_bank_check(&c, &v, &x, 0, &k), 0);
	x.run.nprobe = 8;
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
	report_csv(&b, &c, &s, &x, &order);
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
	x.run.t.median_ms = 1;
	x.run.t.n = 20;
	c.samples = 20;
	s.v = &v;
	s.n = 1;
	ri.arch = "sm_90";
	ri.nvrtc = "13.0";
	ri.timed = 1;
	ri.counters = 1;
	ri.counter_passes = 2;
	report_json(&b, &c, &s, &x, &order, &ri);
	CHECK(strstr(b.s, "\"measured\": {\"loads\": {\"requests\": 32") != NULL);
	CHECK(strstr(b.s, "\"per_request\": 2, \"pipeline_per_request\": 2.0625") != NULL);
	CHECK(strstr(b.s, "\"match\": true") != NULL);
	CHECK(strstr(b.s, "smsp__sass_inst_executed_op_shared_ld.sum") != NULL);
	buf_free(&b);
	f = open_memstream(&text, &len);
	report_table(f, &c, &s, &x, &order, &ri);
	fclose(f);
	CHECK(strstr(text, "within 1 % of the prediction for 2 of 2 accesses") != NULL);
	free(text);

	/* a probe that failed is said, in results.json and under the table */
	x.run.nprobe = -1;
	snprintf(x.run.probe_why, sizeof x.run.probe_why, "cuptiRangeProfilerStart: busy");
	report_json(&b, &c, &s, &x, &order, &ri);
	CHECK(strstr(b.s, "\"counters_error\": \"cuptiRangeProfilerStart: busy\"") != NULL);
	CHECK(strstr(b.s, "\"measured\"") == NULL);
	buf_free(&b);
	f = open_memstream(&text, &len);
	report_table(f, &c, &s, &x, &order, &ri);
	fclose(f);
	CHECK(strstr(text, "1 variants not counted; the first: cuptiRangeProfilerStart: busy") != NULL);
	free(text);
}
