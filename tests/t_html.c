/* Tests for html (report.html) and t4 (results.t4.json) on synthetic results: NOTHING here
   was measured on a GPU. With TUNER_TEST_HTML_DIR set, the pages and the T4 file are also
   written there (tests/report.sh loads them in a headless browser and checks the T4 file
   against the schema):
     timed.html      24 variants: 18 verified and timed (2 of them tied for the fastest), one
                     mismatch, one compile error (its log holds "</script>"), one twin, one
                     dropped, two skipped; bank predictions, counters for two
     untimed.html    the same space compiled without a GPU: 21 compiled, nothing timed
     cap.html        25000 verified variants: the page holds the best HTML_MAX_POINTS
     timed.t4.json   timed.html's results in the T4 format */
#include "test.h"
#include "bank.h"
#include "html.h"
#include "report.h"
#include "result.h"
#include "space.h"
#include "spec.h"
#include "util.h"
#include "winner.h"
#include "t4.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIX_N 24 /* BLOCK x VEC x PAD */

struct fixture {
	struct config c;
	struct param p[3];
	struct bank_access acc[1];
	struct space s;
	struct variant *v;
	struct result *r;
	struct run_result *runs;
	struct bank_stats *bank;
	int64_t *vals;
	struct runinfo ri;
	size_t *order;
};

static int64_t blocks[] = {64, 128, 256, 512}, vecs[] = {1, 2, 4}, pads[] = {0, 1};

/* the 24-variant space; timed: verified results with made-up medians, else compiled only */
static void fixture(struct fixture *f, int timed)
{
	size_t i;

	memset(f, 0, sizeof *f);
	f->p[0] = (struct param){.name = "BLOCK", .vals = blocks, .nvals = 4};
	f->p[1] = (struct param){.name = "VEC", .vals = vecs, .nvals = 3};
	f->p[2] = (struct param){.name = "PAD", .vals = pads, .nvals = 2};
	f->acc[0].name = "tile_load";
	f->c.name = "fixture";
	f->c.path = "tests/</script><b>fixture.yaml";
	f->c.params = f->p;
	f->c.nparams = 3;
	f->c.accesses = f->acc;
	f->c.naccesses = 1;
	f->c.samples = 20;
	f->c.tie = 0.005; /* the default: 10 and 12 (0.1 % apart) tie */
	f->v = xcalloc(FIX_N, sizeof *f->v);
	f->r = xcalloc(FIX_N, sizeof *f->r);
	f->runs = xcalloc(FIX_N, sizeof *f->runs);
	f->bank = xcalloc(FIX_N, sizeof *f->bank);
	f->vals = xcalloc(3 * FIX_N, sizeof *f->vals);
	for (i = 0; i < FIX_N; i++) {
		struct variant *v = &f->v[i];
		struct result *x = &f->r[i];
		int64_t pad;
		v->vals = &f->vals[3 * i];
		v->vals[0] = blocks[i / 6];
		v->vals[1] = vecs[i / 2 % 3];
		v->vals[2] = pad = pads[i % 2];
		snprintf(v->id, sizeof v->id, "v%08zx", 0x1000 + i);
		v->block[0] = v->vals[0];
		v->block[1] = v->block[2] = v->grid[1] = v->grid[2] = 1;
		v->grid[0] = 64;
		v->shared = 4096 + 128 * pad;
		x->twin = -1;
		x->co.ok = 1;
		x->co.regs = 24 + (int)(i % 5) * 8;
		x->co.spill_stores = i % 7 == 0 ? 16 : 0;
		x->co.smem_static = 0;
		/* the bank model: 32 requests per block, 2 wavefronts each unpadded, 1 padded */
		f->bank[i] = (struct bank_stats){32, pad ? 32 : 64, 32, pad ? 1 : 2, pad ? 1 : 2, 1};
		x->bank = &f->bank[i];
		x->bank_rules = &bank_volta;
		x->bank_ratio = pad ? 1 : 2;
		if (timed) {
			double ms = 1.0 + 0.5 * (double)((i * 7919) % 97) / 97;
			x->run = &f->runs[i];
			x->run->t.n = 20;
			x->run->t.median_ms = ms;
			x->run->t.min_ms = 0.98 * ms;
			x->run->t.max_ms = 1.05 * ms;
			x->run->t.mean_ms = 1.01 * ms;
			x->run->t.spread = 0.01;
			x->run->device = 0;
			x->status = ST_OK;
		} else {
			x->status = ST_UNTIMED;
		}
	}
	if (timed) { /* 10 and 12 the fastest, not to be told apart */
		f->runs[10].t.median_ms = 0.80;
		f->runs[12].t.median_ms = 0.801;
		f->runs[10].t.spread = f->runs[12].t.spread = 0.05;
		for (i = 0; i < FIX_N; i++) {
			f->r[i].gbs = 800 / f->runs[i].t.median_ms;
			f->r[i].pct_copy = 100 * f->r[i].gbs / 1100;
			f->r[i].pct_read = 100 * f->r[i].gbs / 1200;
		}
		/* the counters of two variants (64 blocks of 32 load requests each) */
		for (i = 10; i <= 12; i += 2) {
			double req = 32.0 * 64, wf = (double)f->bank[i].wavefronts * 64;
			f->runs[i].nprobe = 8;
			f->runs[i].probe[0] = req;
			f->runs[i].probe[1] = wf;
			f->runs[i].probe[2] = wf - req;
			f->runs[i].probe[6] = i == 10 ? wf : 1.5 * wf; /* 12: a gap */
		}
		f->r[7].status = ST_MISMATCH;
		f->r[7].reason = xstrdup("out[3] = 1 where the reference has 2");
		f->runs[7].max_abs_err = 1;
	}
	f->r[5].status = ST_COMPILE_ERROR;
	f->r[5].co.ok = 0;
	f->r[5].run = NULL;
	f->r[5].reason = xstrdup("error: </script><script>alert(1)</script> & <!-- \"x\"\nline 2");
	f->r[9].status = ST_TWIN;
	f->r[9].twin = 8;
	if (timed) {
		f->r[9].run = &f->runs[8];
		f->r[9].gbs = f->r[8].gbs;
	} else {
		f->r[9].run = NULL;
	}
	f->r[23].status = ST_DROPPED;
	f->v[23].drop = "BLOCK * VEC > 1024";
	f->r[23].co.ok = 0;
	f->r[23].bank = NULL;
	f->r[23].run = NULL;
	f->r[21].status = f->r[22].status = ST_SKIPPED;
	f->r[21].co.ok = f->r[22].co.ok = 0;
	f->r[21].run = f->r[22].run = NULL;
	f->s.v = f->v;
	f->s.n = FIX_N;
	f->s.nkept = FIX_N - 1;
	f->ri.arch = "sm_90";
	f->ri.nvrtc = "13.0";
	snprintf(f->ri.date, sizeof f->ri.date, "2026-01-01T00:00:00Z");
	f->ri.strategy = "exhaustive";
	f->ri.timed = timed;
	f->ri.nskipped = 2;
	if (timed) {
		snprintf(f->ri.gpu.name, sizeof f->ri.gpu.name, "Synthetic GPU <&>");
		f->ri.gpu.cc_major = 9;
		f->ri.gpu.sms = 132;
		f->ri.copy_gbs = 1100;
		f->ri.read_gbs = 1200;
		f->ri.counters = 2;
	} else {
		f->ri.why_untimed = "no GPU here (synthetic)";
	}
	f->order = winner_rank(f->r, FIX_N);
	if (timed) {
		enum tie_key why;
		winner_ties(f->r, FIX_N, &f->c, &f->s, f->order, SIZE_MAX, NULL, &why);
		f->ri.tie_key = (int)why;
	}
}

static void fixture_free(struct fixture *f)
{
	free(f->r[5].reason);
	free(f->r[7].reason);
	free(f->v);
	free(f->r);
	free(f->runs);
	free(f->bank);
	free(f->vals);
	free(f->order);
}

/* what writer wrote, NUL-terminated; also to $TUNER_TEST_HTML_DIR/name when that is set */
static char *render(const char *name, void (*writer)(FILE *, const void *), const void *arg)
{
	char *text = NULL;
	size_t len = 0;
	const char *dir = getenv("TUNER_TEST_HTML_DIR");
	FILE *f = open_memstream(&text, &len);

	writer(f, arg);
	fclose(f);
	if (dir && *dir) {
		char *p = xasprintf("%s/%s", dir, name);
		CHECK_EQ(file_write_atomic(p, text, len), 0);
		free(p);
	}
	return text;
}

static void write_html(FILE *out, const void *arg)
{
	const struct fixture *f = arg;

	html_report(out, &f->c, &f->s, f->r, f->order, &f->ri);
}

static void write_t4(FILE *out, const void *arg)
{
	const struct fixture *f = arg;

	t4_results(out, &f->c, &f->s, f->r, f->order, &f->ri);
}

/* the page's data block, parsed (NULL if absent or not JSON) */
static json_t *page_data(const char *html)
{
	const char *tag = "<script type=\"application/json\" id=\"data\">", *a = strstr(html, tag),
	           *e;
	json_error_t err;

	if (!a || !(e = strstr(a, "</script>")))
		return NULL;
	a += strlen(tag);
	return json_loadb(a, (size_t)(e - a), 0, &err);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)); s += strlen(what))
		n++;
	return n;
}

/* rows of d with "st" == st */
static size_t rows_with(json_t *d, const char *st)
{
	size_t i, n = 0;
	json_t *row;

	json_array_foreach(json_object_get(d, "rows"), i, row)
		n += !strcmp(json_string_value(json_object_get(row, "st")), st);
	return n;
}

TEST(html_json_escapes_script_end)
{
	struct buf b = {0};

	buf_json_str_html(&b, "a</script><!--&\"\\\n\x01");
	CHECK_STR(b.s, "\"a\\u003c/script\\u003e\\u003c!--\\u0026\\\"\\\\\\n\\u0001\"");
	b.len = 0;
	html_text(&b, "<a href='x'>&\"");
	CHECK_STR(b.s, "&lt;a href=&#39;x&#39;&gt;&amp;&quot;");
	buf_free(&b);
}

TEST(html_timed_page)
{
	struct fixture f;
	char *html;
	json_t *d, *row;
	size_t i, ties = 0, counted = 0;

	fixture(&f, 1);
	html = render("timed.html", write_html, &f);
	/* the page's own two scripts end, nothing in the data does */
	CHECK_EQ(count(html, "</script>"), 2);
	CHECK_EQ(count(html, "<script"), 2);
	CHECK(strstr(html, "alert(1)") != NULL && strstr(html, "<script>alert") == NULL);
	CHECK(strstr(html, "http://") == NULL && strstr(html, "https://") == NULL);
	CHECK(strstr(html, "&lt;/script&gt;&lt;b&gt;fixture.yaml") != NULL);
	CHECK(strstr(html, "Synthetic GPU &lt;&amp;&gt;") != NULL);
	CHECK(strstr(html, "Nothing was timed") == NULL);
	CHECK(strstr(html, "2 variants cannot be told apart") != NULL);
	CHECK(strstr(html, "here it was chosen by registers.") != NULL);
	CHECK(strstr(html, "id=\"cap\"") == NULL);
	d = page_data(html);
	CHECK(d != NULL);
	if (d) {
		CHECK(json_is_true(json_object_get(d, "timed")));
		CHECK_EQ(json_array_size(json_object_get(d, "rows")), 21); /* not skipped, not dropped */
		CHECK_EQ(rows_with(d, "ok"), 18);
		CHECK_EQ(rows_with(d, "skipped"), 0);
		CHECK_EQ(rows_with(d, "dropped"), 0);
		CHECK_EQ(json_integer_value(json_object_get(d, "tried")), 21);
		CHECK_EQ(json_integer_value(json_object_get(d, "skipped")), 2);
		CHECK(json_real_value(json_object_get(d, "copy_gbs")) == 1100 ||
		      json_integer_value(json_object_get(d, "copy_gbs")) == 1100);
		row = json_array_get(json_object_get(d, "rows"), 0);
		/* the winner among the tied: the first in the config's order at equal resources */
		CHECK_STR(json_string_value(json_object_get(row, "id")), f.v[10].id);
		CHECK(json_is_true(json_object_get(row, "win")));
		CHECK_STR(json_string_value(json_object_get(d, "winner")), f.v[10].id);
		json_array_foreach(json_object_get(d, "rows"), i, row) {
			ties += json_is_true(json_object_get(row, "tie"));
			counted += json_object_get(row, "ld") != NULL;
			CHECK_EQ(json_integer_value(json_object_get(row, "rank")), i + 1);
		}
		CHECK_EQ(ties, 2);
		CHECK_EQ(counted, 2);
		row = json_array_get(json_object_get(d, "rows"), 1);
		CHECK(json_is_true(json_object_get(row, "tie")));
		/* 12's counters are 1.5 times the prediction: not a match */
		CHECK_EQ(json_integer_value(json_array_get(json_object_get(row, "ld"), 2)), 0);
		json_decref(d);
	}
	free(html);
	fixture_free(&f);
}

TEST(html_untimed_page)
{
	struct fixture f;
	char *html;
	json_t *d, *row;
	size_t i;

	fixture(&f, 0);
	html = render("untimed.html", write_html, &f);
	CHECK(strstr(html, "<strong>Nothing was timed</strong>: no GPU here (synthetic)") != NULL);
	CHECK(strstr(html, "Winner") == NULL);
	d = page_data(html);
	CHECK(d != NULL);
	if (d) {
		CHECK(json_is_false(json_object_get(d, "timed")));
		CHECK_EQ(rows_with(d, "untimed"), 21 - 2);
		CHECK_EQ(rows_with(d, "ok"), 0);
		json_array_foreach(json_object_get(d, "rows"), i, row) {
			CHECK(!json_object_get(row, "ms") && !json_object_get(row, "gbs"));
			CHECK(!json_object_get(row, "win") && !json_object_get(row, "tie"));
		}
		/* ranked by the bank model: the padded (conflict-free) variants first */
		row = json_array_get(json_object_get(d, "rows"), 0);
		CHECK(json_real_value(json_object_get(row, "bank")) == 1 ||
		      json_integer_value(json_object_get(row, "bank")) == 1);
		json_decref(d);
	}
	free(html);
	fixture_free(&f);
}

#define CAP_N 25000

TEST(html_caps_the_points)
{
	struct config c;
	struct param p;
	struct space s;
	struct runinfo ri;
	struct result *r = xcalloc(CAP_N, sizeof *r);
	struct run_result *runs = xcalloc(CAP_N, sizeof *runs);
	struct variant *v = xcalloc(CAP_N, sizeof *v);
	int64_t *vals = xcalloc(CAP_N, sizeof *vals);
	size_t i, *order;
	char *html;
	json_t *d;
	struct fixture f;

	memset(&c, 0, sizeof c);
	memset(&s, 0, sizeof s);
	memset(&ri, 0, sizeof ri);
	p = (struct param){.name = "N", .vals = vals, .nvals = CAP_N};
	c.name = "cap";
	c.path = "cap.yaml";
	c.params = &p;
	c.nparams = 1;
	for (i = 0; i < CAP_N; i++) {
		vals[i] = (int64_t)i;
		v[i].vals = &vals[i];
		snprintf(v[i].id, sizeof v[i].id, "v%08zx", i);
		r[i].status = ST_OK;
		r[i].twin = -1;
		r[i].run = &runs[i];
		runs[i].t.n = 10;
		runs[i].t.median_ms = 1 + (double)((i * 7919) % CAP_N) / CAP_N;
		runs[i].t.spread = 0.001;
		r[i].gbs = 800 / runs[i].t.median_ms;
		r[i].co.ok = 1;
		r[i].co.regs = 32;
	}
	s.v = v;
	s.n = s.nkept = CAP_N;
	ri.arch = "sm_90";
	ri.nvrtc = "13.0";
	ri.timed = 1;
	ri.copy_gbs = 900;
	ri.read_gbs = 950;
	snprintf(ri.gpu.name, sizeof ri.gpu.name, "Synthetic GPU");
	order = winner_rank(r, CAP_N);
	winner_ties(r, CAP_N, &c, &s, order, SIZE_MAX, NULL, NULL);
	memset(&f, 0, sizeof f); /* only the fields write_html reads */
	f.c = c;
	f.s = s;
	f.r = r;
	f.order = order;
	f.ri = ri;
	html = render("cap.html", write_html, &f);
	CHECK(strstr(html, "This page holds the best 20000 of the 25000 variants tried") != NULL);
	d = page_data(html);
	CHECK(d != NULL);
	if (d) {
		json_t *last = json_array_get(json_object_get(d, "rows"), HTML_MAX_POINTS - 1);
		CHECK_EQ(json_array_size(json_object_get(d, "rows")), HTML_MAX_POINTS);
		CHECK_EQ(json_integer_value(json_object_get(d, "shown")), HTML_MAX_POINTS);
		/* the best: every row shown is at least as fast as every row left out */
		CHECK_STR(json_string_value(json_object_get(last, "id")),
		          v[order[HTML_MAX_POINTS - 1]].id);
		json_decref(d);
	}
	free(html);
	free(order);
	free(r);
	free(runs);
	free(v);
	free(vals);
}

TEST(t4_invalidity_map)
{
	struct result r[3];

	memset(r, 0, sizeof r);
	r[0].status = ST_OK;
	CHECK_STR(t4_invalidity(r, 0), "correct");
	r[1].status = ST_TWIN;
	r[1].twin = 0;
	CHECK_STR(t4_invalidity(r, 1), "correct");
	r[0].status = ST_MISMATCH;
	CHECK_STR(t4_invalidity(r, 1), "correctness");
	r[0].status = ST_UNTIMED;
	CHECK(t4_invalidity(r, 0) == NULL && t4_invalidity(r, 1) == NULL);
	r[2].status = ST_COMPILE_ERROR;
	CHECK_STR(t4_invalidity(r, 2), "compile");
	r[2].status = ST_FAULT;
	CHECK_STR(t4_invalidity(r, 2), "runtime");
	r[2].status = ST_LAUNCH_ERROR;
	CHECK_STR(t4_invalidity(r, 2), "runtime");
	r[2].status = ST_RESOURCES;
	CHECK_STR(t4_invalidity(r, 2), "runtime");
	r[2].status = ST_TIMEOUT;
	CHECK_STR(t4_invalidity(r, 2), "timeout");
	r[2].status = ST_DROPPED;
	CHECK_STR(t4_invalidity(r, 2), "constraints");
	r[2].status = ST_SKIPPED;
	CHECK(t4_invalidity(r, 2) == NULL);
	r[2].status = ST_NOTRUN;
	CHECK(t4_invalidity(r, 2) == NULL);
}

TEST(t4_results_of_a_timed_run)
{
	struct fixture f;
	char *text;
	json_t *d, *res, *x;
	json_error_t err;
	size_t i, ncorrect = 0;

	fixture(&f, 1);
	text = render("timed.t4.json", write_t4, &f);
	d = json_loads(text, 0, &err);
	CHECK(d != NULL);
	if (d) {
		CHECK_STR(json_string_value(json_object_get(d, "schema_version")), "1.0.0");
		res = json_object_get(d, "results");
		CHECK_EQ(json_array_size(res), 22); /* 18 timed, the twin, mismatch, compile, dropped */
		json_array_foreach(res, i, x) {
			const char *inv = json_string_value(json_object_get(x, "invalidity"));
			json_t *rt = json_object_get(json_object_get(x, "times"), "runtimes");
			CHECK(inv != NULL && json_is_object(json_object_get(x, "configuration")));
			CHECK(json_is_number(json_object_get(x, "correctness")));
			CHECK_EQ(json_array_size(json_object_get(x, "objectives")), 1);
			if (inv && !strcmp(inv, "correct")) {
				ncorrect++;
				CHECK_EQ(json_array_size(rt), 1);
				CHECK_EQ(json_integer_value(json_object_get(x, "correctness")), 1);
			} else {
				CHECK_EQ(json_array_size(rt), 0);
			}
		}
		CHECK_EQ(ncorrect, 19);
		x = json_array_get(res, 0); /* the winner first: 0.8 ms */
		CHECK(fabs(json_real_value(json_array_get(json_object_get(json_object_get(x, "times"),
		                                                          "runtimes"), 0)) - 0.8) < 1e-12);
		CHECK_EQ(json_integer_value(json_object_get(json_object_get(x, "configuration"),
		                                            "BLOCK")), 128);
		x = json_array_get(res, 21);
		CHECK_STR(json_string_value(json_object_get(x, "invalidity")), "constraints");
		json_decref(d);
	}
	free(text);
	fixture_free(&f);
}
