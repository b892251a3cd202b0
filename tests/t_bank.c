/* t_bank: the bank-conflict model on single requests and on declared accesses.
   Counts marked "H100" were read with Nsight Compute on sm_90 (docs/bank-model.md). */
#include "test.h"
#include "bank.h"
#include "config.h"
#include "expr.h"
#include "params.h"
#include "space.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>

#define FULL 0xffffffffu

/* lane l at byte address l * stride + off */
static struct bank_req strided(int width, int64_t stride, int64_t off, uint32_t active, int store)
{
	struct bank_req q;
	int l;

	q.width = width;
	q.active = active;
	q.store = store;
	for (l = 0; l < BANK_LANES; l++)
		q.addr[l] = l * stride + off;
	return q;
}

static struct bank_cost cost(const struct bank_rules *r, const struct bank_req *q)
{
	struct bank_cost c;
	char msg[160];

	if (bank_cost(r, q, &c, msg, sizeof msg) < 0) {
		test_fail(__FILE__, __LINE__, msg);
		c.wavefronts = c.ideal = c.degree = c.phases = -1;
	}
	return c;
}

/* wavefronts of lanes at l * stride (bytes) reading width bytes, Volta rules, all lanes */
static int wf(int width, int64_t stride)
{
	struct bank_req q = strided(width, stride, 0, FULL, 0);
	return cost(&bank_volta, &q).wavefronts;
}

TEST(bank_float_strides)
{
	struct bank_req q;
	struct bank_cost c;

	q = strided(4, 4, 0, FULL, 0);
	c = cost(&bank_volta, &q);
	CHECK_EQ(c.wavefronts, 1);
	CHECK_EQ(c.ideal, 1);
	CHECK_EQ(c.degree, 1);
	CHECK_EQ(c.phases, 1);
	CHECK_EQ(wf(4, 2 * 4), 2);
	CHECK_EQ(wf(4, 3 * 4), 1);
	CHECK_EQ(wf(4, 4 * 4), 4);
	CHECK_EQ(wf(4, 8 * 4), 8);
	CHECK_EQ(wf(4, 16 * 4), 16);
	CHECK_EQ(wf(4, 33 * 4), 1);
	CHECK_EQ(wf(4, 64 * 4), 32);
	q = strided(4, 32 * 4, 0, FULL, 0);
	c = cost(&bank_volta, &q);
	CHECK_EQ(c.wavefronts, 32);
	CHECK_EQ(c.ideal, 1);
	CHECK_EQ(c.degree, 32);
	/* stores follow the same rule */
	q = strided(4, 2 * 4, 0, FULL, 1);
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 2);
	/* an offset does not change a strided pattern's cost */
	q = strided(4, 2 * 4, 4 * 5, FULL, 0);
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 2);
}

TEST(bank_tile_column)
{
	struct bank_req q;
	int c;

	/* lane l reads tile[l][c] of a 32 x 32 float tile, then of a 32 x 33 padded one */
	for (c = 0; c < 32; c += 7) {
		q = strided(4, 32 * 4, c * 4, FULL, 0);
		CHECK_EQ(cost(&bank_volta, &q).wavefronts, 32);
		CHECK_EQ(cost(&bank_volta, &q).degree, 32);
		q = strided(4, 33 * 4, c * 4, FULL, 0);
		CHECK_EQ(cost(&bank_volta, &q).wavefronts, 1);
		/* the row read of the unpadded tile is conflict-free */
		q = strided(4, 4, c * 32 * 4, FULL, 0);
		CHECK_EQ(cost(&bank_volta, &q).wavefronts, 1);
	}
}

TEST(bank_xor_swizzle)
{
	struct bank_req q;
	int c, l;

	/* element (row r, column c) at r * 32 + (c ^ r): the column read covers every bank */
	for (c = 0; c < 32; c++) {
		q = strided(4, 0, 0, FULL, 0);
		for (l = 0; l < 32; l++)
			q.addr[l] = (int64_t)(l * 32 + (c ^ l)) * 4;
		CHECK_EQ(cost(&bank_volta, &q).wavefronts, 1);
	}
}

TEST(bank_subword)
{
	struct bank_req q;

	CHECK_EQ(wf(1, 1), 1);     /* 32 consecutive bytes: 8 words */
	CHECK_EQ(wf(1, 4), 1);     /* one byte of each of 32 words */
	CHECK_EQ(wf(1, 2), 1);
	CHECK_EQ(wf(2, 2), 1);
	CHECK_EQ(wf(2, 4), 1);
	CHECK_EQ(wf(2, 8), 2);     /* 16-bit stride 2: 2-way as for floats */
	CHECK_EQ(wf(1, 128), 32);  /* same bank, 32 words */
	CHECK_EQ(wf(1, 0), 1);
	/* four lanes on the bytes of one word, eight words of one bank: 8-way */
	q = strided(1, 0, 0, FULL, 0);
	for (int l = 0; l < 32; l++)
		q.addr[l] = (l / 4) * 128 + l % 4;
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 8);
	/* 8-byte banks: words 0, 16, 32, ... alternate between banks 0 and 16: 4-way */
	CHECK_EQ(cost(&bank_kepler8, &q).wavefronts, 4);
}

TEST(bank_float2_modes)
{
	struct bank_req q;
	struct bank_cost c;

	/* the 21-point filter's packed window: consecutive float2 */
	q = strided(8, 8, 0, FULL, 0);
	c = cost(&bank_volta, &q);
	CHECK_EQ(c.wavefronts, 2); /* H100: 2 */
	CHECK_EQ(c.ideal, 2);
	CHECK_EQ(c.degree, 1);
	CHECK_EQ(c.phases, 2);
	c = cost(&bank_kepler8, &q);
	CHECK_EQ(c.wavefronts, 1);
	CHECK_EQ(c.ideal, 1);
	CHECK_EQ(c.phases, 1);
	/* consecutive floats: conflict-free in either mode */
	q = strided(4, 4, 0, FULL, 0);
	CHECK_EQ(cost(&bank_kepler8, &q).wavefronts, 1);
	/* float stride 2 (the interleaved reduction): 2-way in 4-byte banks, free in 8-byte */
	q = strided(4, 8, 0, FULL, 0);
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 2);
	CHECK_EQ(cost(&bank_kepler8, &q).wavefronts, 1);
	/* float stride 64: 8-byte words 0, 32, 64, ... all in bank 0 */
	q = strided(4, 256, 0, FULL, 0);
	CHECK_EQ(cost(&bank_kepler8, &q).wavefronts, 32);
}

TEST(bank_float2_strides)
{
	struct bank_req q;

	CHECK_EQ(wf(8, 16), 4);      /* H100: 4 (2-way in each half-warp) */
	CHECK_EQ(wf(8, 24), 2);      /* stride 3 float2: odd, conflict-free */
	CHECK_EQ(wf(8, 32), 8);      /* H100: 8 */
	CHECK_EQ(wf(8, 17 * 8), 2);
	CHECK_EQ(wf(8, 128), 32);    /* 16 lanes x 2 words in one bank pair, twice */
	q = strided(8, 16, 0, FULL, 0);
	CHECK_EQ(cost(&bank_kepler8, &q).wavefronts, 2);
	q = strided(8, 8 * 32, 0, FULL, 0);
	CHECK_EQ(cost(&bank_kepler8, &q).wavefronts, 32);
	/* the half-warps are independent: the second one may reuse the first one's banks */
	q = strided(8, 8, 0, FULL, 0);
	for (int l = 16; l < 32; l++)
		q.addr[l] = 1024 + (l - 16) * 8;
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 2); /* H100: 2 */
}

TEST(bank_vec4)
{
	struct bank_req q;
	struct bank_cost c;

	/* ld.shared.v4 by 32 consecutive lanes: 4 quarter-warps of 128 bytes each */
	q = strided(16, 16, 0, FULL, 0);
	c = cost(&bank_volta, &q);
	CHECK_EQ(c.wavefronts, 4); /* H100: 4 */
	CHECK_EQ(c.ideal, 4);
	CHECK_EQ(c.degree, 1);
	CHECK_EQ(c.phases, 4);
	q.store = 1;
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 4);
	c = cost(&bank_kepler8, &q);
	CHECK_EQ(c.wavefronts, 2);
	CHECK_EQ(c.phases, 2);
	CHECK_EQ(wf(16, 32), 8);      /* H100: 8 */
	CHECK_EQ(wf(16, 48), 4);
	CHECK_EQ(wf(16, 128), 32);    /* 8 lanes on banks 0-3 in each quarter */
	/* the quarters are independent */
	q = strided(16, 16, 0, FULL, 0);
	for (int l = 0; l < 32; l++)
		q.addr[l] = (l % 8) * 16 + (l / 8) * 4096;
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 4);
}

TEST(bank_broadcast)
{
	struct bank_req q;
	struct bank_cost c;

	q = strided(4, 0, 64, FULL, 0);
	c = cost(&bank_volta, &q);
	CHECK_EQ(c.wavefronts, 1);
	CHECK_EQ(c.degree, 1);
	q.store = 1;
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 1);
	/* bytes and halves of one word */
	q = strided(1, 1, 0, 0x0000000f, 0);
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 1);
	q = strided(2, 2, 0, 0x00000003, 0);
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 1);
	/* half the lanes on word 0, half on word 32 (same bank): 2-way */
	q = strided(4, 0, 0, FULL, 0);
	for (int l = 16; l < 32; l++)
		q.addr[l] = 128;
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 2);
	/* a uniform float2 / float4 load: the lane pairs merge the phases (H100: 1 and 2);
	   stores keep them (H100: 2 and 4) */
	q = strided(8, 0, 0, FULL, 0);
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 1);
	q.store = 1;
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 2);
	q = strided(16, 0, 0, FULL, 0);
	c = cost(&bank_volta, &q);
	CHECK_EQ(c.wavefronts, 2);
	CHECK_EQ(c.ideal, 2);
	CHECK_EQ(c.phases, 2);
	q.store = 1;
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 4);
	CHECK_EQ(cost(&bank_kepler8, &q).wavefronts, 2);
}

TEST(bank_multicast)
{
	struct bank_req q;
	int l;

	/* float4 pairs (n, n ^ 1) share a vector: 2 wavefronts (H100), 4 for the store */
	q = strided(16, 0, 0, FULL, 0);
	for (l = 0; l < 32; l++)
		q.addr[l] = (l / 2) * 16;
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 2);
	q.store = 1;
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 4);
	/* quads share a vector: still 2 (H100), not 1 */
	q = strided(16, 0, 0, FULL, 0);
	for (l = 0; l < 32; l++)
		q.addr[l] = (l / 4) * 16;
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 2);
	/* (n, n ^ 2) share: lanes alternate between two vectors */
	for (l = 0; l < 32; l++)
		q.addr[l] = (l % 2) * 16;
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 2);
	/* lanes n, n + 4, ... share (offset tid % 4 * 16): no pair shares, 4 (H100) */
	for (l = 0; l < 32; l++)
		q.addr[l] = (l % 4) * 16;
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 4);
	/* merged phases are half-warps and may conflict: pairs on a 32-byte stride */
	for (l = 0; l < 32; l++)
		q.addr[l] = (l / 2) * 32;
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 4);
	CHECK_EQ(cost(&bank_volta, &q).degree, 2);
	/* float2 pairs: the whole warp in one phase (H100: 1) */
	q = strided(8, 0, 0, FULL, 0);
	for (l = 0; l < 32; l++)
		q.addr[l] = (l / 2) * 8;
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 1);
	/* the half-warps read the same 16 float2: no pair shares, 2 (H100) */
	for (l = 0; l < 32; l++)
		q.addr[l] = (l % 16) * 8;
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 2);
	/* one pair differs: no merging */
	for (l = 0; l < 32; l++)
		q.addr[l] = (l / 2) * 16;
	q.width = 16;
	q.addr[5] = 4096 + 64;
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 4);
	q.addr[5] = 4096; /* and now shares banks 0-3 with lanes 0 and 1 */
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 5);
}

TEST(bank_partial_masks)
{
	struct bank_req q;
	struct bank_cost c;
	int l, k;

	q = strided(4, 32 * 4, 0, 0x0000ffff, 0);
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 16);
	q = strided(4, 32 * 4, 0, 0x55555555, 0);
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 16);
	q = strided(4, 32 * 4, 0, 0x00000001, 0);
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 1);
	q = strided(4, 4, 0, 0, 0);
	c = cost(&bank_volta, &q);
	CHECK_EQ(c.wavefronts, 0);
	CHECK_EQ(c.ideal, 0);
	CHECK_EQ(c.degree, 0);
	/* inactive lanes' addresses do not matter, even misaligned ones */
	q = strided(4, 4, 0, 0x0000ffff, 0);
	for (l = 16; l < 32; l++)
		q.addr[l] = -3;
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 1);
	/* float4 on one quarter-warp: 1 wavefront, ideal 1 */
	q = strided(16, 16, 0, 0x000000ff, 0);
	c = cost(&bank_volta, &q);
	CHECK_EQ(c.wavefronts, 1);
	CHECK_EQ(c.ideal, 1);
	/* float2 on the first half-warp only */
	q = strided(8, 8, 0, 0x0000ffff, 0);
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 1);
	/* lanes 0, 8, 16, 24 on consecutive float4: no lane has an active partner, so the
	   pairs "share": half-warp phases, lanes 0 and 8 together (H100: 2, store 4) */
	q = strided(16, 0, 0, 0x01010101, 0);
	for (l = 0, k = 0; l < 32; l += 8)
		q.addr[l] = 16 * k++;
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 2);
	q.store = 1;
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 4);
	/* even lanes on 16 consecutive float2: one phase (H100: 1, store 2) */
	q = strided(8, 0, 0, 0x55555555, 0);
	for (l = 0; l < 32; l += 2)
		q.addr[l] = 8 * (l / 2);
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 1);
	q.store = 1;
	CHECK_EQ(cost(&bank_volta, &q).wavefronts, 2);
}

TEST(bank_invalid)
{
	struct bank_req q;
	struct bank_cost c;
	char msg[160];

	q = strided(3, 3, 0, FULL, 0);
	CHECK_EQ(bank_cost(&bank_volta, &q, &c, msg, sizeof msg), -1);
	CHECK_STR(msg, "access width 3 is not 1, 2, 4, 8 or 16 bytes");
	q = strided(8, 8, 4, FULL, 0);
	CHECK_EQ(bank_cost(&bank_volta, &q, &c, msg, sizeof msg), -1);
	CHECK_STR(msg, "lane 0: address 4 is not aligned to 8 bytes");
	q = strided(4, 4, -8, FULL, 0);
	CHECK_EQ(bank_cost(&bank_volta, &q, &c, msg, sizeof msg), -1);
	CHECK_STR(msg, "lane 0: address -8 is negative");
}

TEST(bank_rules_for_cc)
{
	CHECK(bank_rules_for(90, 8) == &bank_volta);
	CHECK(bank_rules_for(75, 4) == &bank_volta);
	CHECK(bank_rules_for(80, 0) == &bank_volta);
	CHECK(bank_rules_for(35, 8) == &bank_kepler8);
	CHECK(bank_rules_for(35, 4) == &bank_volta);
	CHECK_EQ(bank_kepler8.bank_bytes, 8);
	CHECK_EQ(bank_volta.bank_bytes, 4);
}

/* --- declared accesses --- */

static struct expr *px(const char *src)
{
	struct expr_err err = {0};
	struct expr *e = expr_parse(src, &err);

	if (!e) {
		test_fail(__FILE__, __LINE__, err.msg);
		e = expr_parse("0", &err);
	}
	return e;
}

static void acc_init(struct bank_access *a, const char *elem, const char *width,
                     const char *index, int store)
{
	memset(a, 0, sizeof *a);
	a->name = xstrdup("a");
	a->array = xstrdup("s");
	a->elem = px(elem);
	a->width = width ? px(width) : NULL;
	a->index = px(index);
	a->store = store;
}

/* for (var = 0; var < count; var++) inside the loops already there */
static void acc_count(struct bank_access *a, const char *var, const char *count)
{
	struct bank_loop *lp;

	a->loops = xreallocarray(a->loops, a->nloops + 1, sizeof *a->loops);
	lp = &a->loops[a->nloops++];
	memset(lp, 0, sizeof *lp);
	lp->var = xstrdup(var);
	lp->count = px(count);
}

static void acc_for(struct bank_access *a, const char *var, const char *from, const char *cond,
                    const char *next)
{
	struct bank_loop *lp;

	a->loops = xreallocarray(a->loops, a->nloops + 1, sizeof *a->loops);
	lp = &a->loops[a->nloops++];
	memset(lp, 0, sizeof *lp);
	lp->var = xstrdup(var);
	lp->from = px(from);
	lp->cond = px(cond);
	lp->next = px(next);
}

static void acc_let(struct bank_access *a, const char *name, const char *value)
{
	a->lets = xreallocarray(a->lets, a->nlets + 1, sizeof *a->lets);
	a->lets[a->nlets].name = xstrdup(name);
	a->lets[a->nlets].value = px(value);
	a->nlets++;
}

/* evaluate a for a block bx x by under v; fails the test on an error */
static struct bank_stats run(const struct bank_access *a, int64_t bx, int64_t by,
                             const struct vars *v, const struct bank_rules *r, int line)
{
	struct bank_stats s;
	struct bank_err err;
	int64_t block[3] = {bx, by, 1};

	if (bank_eval(a, block, BANK_SHARED_ANY, v, r, &s, &err, NULL) < 0) {
		char m[400];
		snprintf(m, sizeof m, "line %d: %s (col %d): %s", line, err.what, err.col, err.msg);
		test_fail(__FILE__, line, m);
	}
	return s;
}

/* the transpose template's tile accesses (TILE x ROWS threads, TILE / ROWS rows each) */
static void transpose_read(struct bank_access *a, const char *sidx)
{
	acc_init(a, "4", NULL, sidx, 0);
	acc_count(a, "k", "TILE / ROWS");
	acc_let(a, "r", "ty + k * ROWS");
	acc_let(a, "row", "tx");
	acc_let(a, "col", "r");
}

static void transpose_vars(struct vars *v, int tile, int rows, int pad)
{
	memset(v, 0, sizeof *v);
	vars_set(v, "TILE", tile);
	vars_set(v, "ROWS", rows);
	vars_set(v, "PAD", pad);
}

TEST(bank_eval_transpose)
{
	/* per request, H100: TILE 32 and 64, PAD 0: 32; PAD 1: 1; PAD 2: 2 */
	static const struct { int tile, rows, pad; double mean; } cases[] = {
		{32, 8, 0, 32}, {32, 8, 1, 1}, {32, 8, 2, 2}, {32, 16, 0, 32}, {32, 32, 1, 1},
		{64, 8, 0, 32}, {64, 8, 1, 1}, {64, 8, 2, 2}, {64, 16, 0, 32}, {64, 16, 2, 2},
	};
	struct bank_access rd, wr;
	struct bank_stats s;
	struct vars v;
	size_t i;

	transpose_read(&rd, "row * (TILE + PAD) + col");
	acc_init(&wr, "4", NULL, "r * (TILE + PAD) + tx", 1);
	acc_count(&wr, "k", "TILE / ROWS");
	acc_let(&wr, "r", "ty + k * ROWS");
	for (i = 0; i < LEN(cases); i++) {
		transpose_vars(&v, cases[i].tile, cases[i].rows, cases[i].pad);
		s = run(&rd, cases[i].tile, cases[i].rows, &v, &bank_volta, __LINE__);
		CHECK(s.present);
		/* TILE * ROWS / 32 warps, TILE / ROWS requests each */
		CHECK_EQ(s.requests, cases[i].tile * cases[i].tile / 32);
		CHECK(bank_mean(&s) == cases[i].mean);
		CHECK(bank_mean_ideal(&s) == 1.0);
		CHECK_EQ(s.max, (int)cases[i].mean);
		CHECK_EQ(s.degree, (int)cases[i].mean);
		s = run(&wr, cases[i].tile, cases[i].rows, &v, &bank_volta, __LINE__);
		CHECK(bank_mean(&s) == 1.0);
	}
	/* Kepler's 8-byte mode: PAD 0 is 16-way (a row is 16 8-byte words: lanes alternate
	   between two banks); PAD 1 leaves the odd columns 2-way, PAD 2 is free */
	transpose_vars(&v, 32, 8, 0);
	s = run(&rd, 32, 8, &v, &bank_kepler8, __LINE__);
	CHECK(bank_mean(&s) == 16.0);
	transpose_vars(&v, 32, 8, 1);
	s = run(&rd, 32, 8, &v, &bank_kepler8, __LINE__);
	CHECK(bank_mean(&s) == 1.5);
	CHECK_EQ(s.degree, 2);
	transpose_vars(&v, 32, 8, 2);
	s = run(&rd, 32, 8, &v, &bank_kepler8, __LINE__);
	CHECK(bank_mean(&s) == 1.0);
	bank_access_clear(&rd);
	bank_access_clear(&wr);
	CHECK(rd.index == NULL && rd.nloops == 0);
}

TEST(bank_eval_transpose_swizzle)
{
	struct bank_access rd;
	struct bank_stats s;
	struct vars v;

	/* column c ^ (row % 32), the xor spelt out bit by bit (H100: 1 per request) */
	transpose_read(&rd, "row * TILE + col / 32 * 32 + x");
	acc_let(&rd, "p", "col % 32");
	acc_let(&rd, "q", "row % 32");
	acc_let(&rd, "x", "(p + q) % 2 + (p / 2 + q / 2) % 2 * 2 + (p / 4 + q / 4) % 2 * 4 + "
	                  "(p / 8 + q / 8) % 2 * 8 + (p / 16 + q / 16) % 2 * 16");
	transpose_vars(&v, 32, 8, 0);
	s = run(&rd, 32, 8, &v, &bank_volta, __LINE__);
	CHECK_EQ(s.requests, 32);
	CHECK(bank_mean(&s) == 1.0);
	transpose_vars(&v, 64, 16, 0);
	s = run(&rd, 64, 16, &v, &bank_volta, __LINE__);
	CHECK_EQ(s.requests, 128);
	CHECK(bank_mean(&s) == 1.0);
	bank_access_clear(&rd);
}

/* the filter21 template's window reads as compiled for sm_90: with PAD == 0 the compiler
   fuses OUT (PACK == 1) or 2 (PACK == 2) consecutive elements into one 8- or 16-byte load */
static void filter_window(struct bank_access *a)
{
	acc_init(a, "4 * PACK", "4 * PACK * ((PAD == 0) * min(OUT, 4 / PACK) + (PAD != 0))",
	         "i + i / (32 / PACK) * PAD", 0);
	acc_count(a, "j", "(OUT + 20) * 4 * PACK / (4 * PACK * ((PAD == 0) * min(OUT, 4 / PACK) + "
	                  "(PAD != 0)))");
	acc_let(a, "i", "tx * OUT + j * ((PAD == 0) * min(OUT, 4 / PACK) + (PAD != 0))");
}

static void filter_vars(struct vars *v, int block, int out, int pack, int pad)
{
	memset(v, 0, sizeof *v);
	vars_set(v, "BLOCK", block);
	vars_set(v, "OUT", out);
	vars_set(v, "PACK", pack);
	vars_set(v, "PAD", pad);
}

TEST(bank_eval_filter21)
{
	/* BLOCK 128, H100 counts of 4 blocks: requests, wavefronts */
	static const struct { int out, pack, pad; int64_t req, wf; } cases[] = {
		{1, 1, 0, 336, 336}, {1, 1, 1, 336, 656}, {1, 2, 0, 336, 672}, {1, 2, 1, 336, 1280},
		{2, 1, 0, 176, 352}, {2, 1, 1, 352, 672}, {2, 2, 1, 352, 1280},
		{4, 1, 0, 96, 384}, {4, 1, 1, 384, 704}, {4, 2, 0, 192, 1536},
	};
	struct bank_access a;
	struct bank_stats s;
	struct vars v;
	size_t i;

	filter_window(&a);
	for (i = 0; i < LEN(cases); i++) {
		filter_vars(&v, 128, cases[i].out, cases[i].pack, cases[i].pad);
		s = run(&a, 128, 1, &v, &bank_volta, __LINE__);
		CHECK_EQ(4 * s.requests, cases[i].req);
		CHECK_EQ(4 * s.wavefronts, cases[i].wf);
	}
	/* the 8-byte bank mode would make the packed window conflict-free */
	filter_vars(&v, 128, 1, 2, 0);
	s = run(&a, 128, 1, &v, &bank_kepler8, __LINE__);
	CHECK(bank_mean(&s) == 1.0);
	CHECK(bank_mean_ideal(&s) == 1.0);
	bank_access_clear(&a);
}

TEST(bank_eval_filter21_strides)
{
	/* the source's scalar reads, one element per tap: stride OUT, padded or not */
	struct bank_access a;
	struct bank_stats s;
	struct vars v;

	acc_init(&a, "4 * PACK", NULL, "i + i / (32 / PACK) * PAD", 0);
	acc_count(&a, "c", "OUT + 20");
	acc_let(&a, "i", "tx * OUT + c");
	filter_vars(&v, 256, 1, 1, 0);
	s = run(&a, 256, 1, &v, &bank_volta, __LINE__);
	CHECK_EQ(s.requests, 8 * 21);
	CHECK(bank_mean(&s) == 1.0);
	filter_vars(&v, 256, 2, 1, 0);
	s = run(&a, 256, 1, &v, &bank_volta, __LINE__);
	CHECK(bank_mean(&s) == 2.0);
	CHECK_EQ(s.degree, 2);
	filter_vars(&v, 256, 4, 1, 0);
	s = run(&a, 256, 1, &v, &bank_volta, __LINE__);
	CHECK(bank_mean(&s) == 4.0);
	s = run(&a, 256, 1, &v, &bank_kepler8, __LINE__);
	CHECK(bank_mean(&s) == 2.0);
	/* float2 at stride 2: 2-way per half-warp; 8-byte banks: 2-way too */
	filter_vars(&v, 256, 2, 2, 0);
	s = run(&a, 256, 1, &v, &bank_volta, __LINE__);
	CHECK(bank_mean(&s) == 4.0);
	CHECK(bank_mean_ideal(&s) == 2.0);
	s = run(&a, 256, 1, &v, &bank_kepler8, __LINE__);
	CHECK(bank_mean(&s) == 2.0);
	bank_access_clear(&a);
}

TEST(bank_eval_loops_and_masks)
{
	struct bank_access a;
	struct bank_stats s;
	struct vars v;

	/* interleaved tree reduction: s[2 * d * t] += s[2 * d * t + d] while 2 * d * t < BLOCK */
	memset(&v, 0, sizeof v);
	vars_set(&v, "BLOCK", 256);
	acc_init(&a, "4", NULL, "2 * d * tid + d", 0);
	acc_for(&a, "d", "1", "d < BLOCK", "d * 2");
	a.when = px("2 * d * tid < BLOCK");
	s = run(&a, 256, 1, &v, &bank_volta, __LINE__);
	/* d = 1: 4 warps at 2-way; 2: 2 at 4-way; 4: 1 at 8-way; 8: 16 lanes on 2 banks, 8-way;
	   16: 8 lanes on one bank; 32: 4; 64: 2; 128: 1 */
	CHECK_EQ(s.requests, 4 + 2 + 1 + 1 + 1 + 1 + 1 + 1);
	CHECK_EQ(s.wavefronts, 4 * 2 + 2 * 4 + 8 + 8 + 8 + 4 + 2 + 1);
	CHECK_EQ(s.max, 8);
	CHECK_EQ(s.ideal, 12);
	bank_access_clear(&a);

	/* a lane-dependent trip count: lane l runs l iterations, the warp 31 */
	acc_init(&a, "4", NULL, "lane + 32 * k", 0);
	acc_for(&a, "k", "0", "k < lane", "k + 1");
	s = run(&a, 32, 1, &v, &bank_volta, __LINE__);
	CHECK_EQ(s.requests, 31);
	CHECK_EQ(s.wavefronts, 31);
	bank_access_clear(&a);

	/* a partial last warp: 40 threads, 2 warps */
	acc_init(&a, "4", NULL, "tid * 32", 0);
	s = run(&a, 40, 1, &v, &bank_volta, __LINE__);
	CHECK_EQ(s.requests, 2);
	CHECK_EQ(s.wavefronts, 32 + 8);
	bank_access_clear(&a);

	/* 2-D blocks: warps span rows of a 16-wide block */
	acc_init(&a, "4", NULL, "ty * 16 + tx", 0);
	s = run(&a, 16, 4, &v, &bank_volta, __LINE__);
	CHECK_EQ(s.requests, 2);
	CHECK(bank_mean(&s) == 1.0);
	bank_access_clear(&a);

	/* nested loops and a base offset: a second array after 1 KiB of the first */
	acc_init(&a, "8", NULL, "lane * 32 + i * 2 + j", 0);
	a.base = px("1024");
	acc_count(&a, "i", "2");
	acc_count(&a, "j", "3");
	s = run(&a, 32, 1, &v, &bank_volta, __LINE__);
	CHECK_EQ(s.requests, 6);
	CHECK_EQ(s.wavefronts, 6 * 32);
	bank_access_clear(&a);

	/* the variant filter */
	vars_set(&v, "METHOD", 2);
	acc_init(&a, "4", NULL, "tid", 0);
	a.cond = px("METHOD != 2");
	s = run(&a, 32, 1, &v, &bank_volta, __LINE__);
	CHECK(!s.present);
	CHECK_EQ(s.requests, 0);
	CHECK(bank_mean(&s) == 0.0);
	bank_access_clear(&a);
}

/* the steps bank_eval takes for a (block bx x by) under v: it must succeed */
static int64_t taken(const struct bank_access *a, int64_t bx, int64_t by, const struct vars *v,
                     int line)
{
	const int64_t start = INT64_MAX / 2;
	int64_t block[3] = {bx, by, 1}, work = start;
	struct bank_stats s;
	struct bank_err err;

	if (bank_eval(a, block, BANK_SHARED_ANY, v, &bank_volta, &s, &err, &work) < 0) {
		char m[400];
		snprintf(m, sizeof m, "line %d: %s: %s", line, err.what, err.msg);
		test_fail(__FILE__, line, m);
	}
	return start - work;
}

/* bank_steps of a (block bx x by) under v; the iterations of a warp in iters_seen */
static int64_t iters_seen;

static int64_t steps(const struct bank_access *a, int64_t bx, int64_t by, const struct vars *v)
{
	int64_t block[3] = {bx, by, 1};

	return bank_steps(a, block, v, &iters_seen);
}

/* the steps known from the declared loops: exact where every thread runs the same trip counts,
   a lower bound where they differ */
TEST(bank_steps_declared)
{
	struct bank_access a;
	struct vars v;
	int64_t n;

	/* transpose: a count of the variant's names, lets, 8 warps */
	transpose_read(&a, "row * (TILE + PAD) + col");
	transpose_vars(&v, 32, 8, 1);
	CHECK_EQ(steps(&a, 32, 8, &v), taken(&a, 32, 8, &v, __LINE__));
	/* 8 warps x (start 32 + count 32 + 4 x (3 lets + index) x 32 + 4 requests x 32) */
	CHECK_EQ(steps(&a, 32, 8, &v), 8 * (32 + 32 + 4 * 4 * 32 + 4 * 32));
	CHECK_EQ(iters_seen, 4);
	bank_access_clear(&a);

	/* the reduction's trees: a while loop on its own variable; when leaves lanes out */
	memset(&v, 0, sizeof v);
	vars_set(&v, "BLOCK", 256);
	acc_init(&a, "4", NULL, "2 * d * tid + d", 0);
	acc_for(&a, "d", "1", "d < BLOCK", "d * 2");
	CHECK_EQ(steps(&a, 256, 1, &v), taken(&a, 256, 1, &v, __LINE__));
	a.when = px("2 * d * tid < BLOCK");
	n = steps(&a, 256, 1, &v);
	CHECK(n > 0 && n < taken(&a, 256, 1, &v, __LINE__));
	/* 8 warps x (start + from + 9 tests + 8 x (when + next)) x 32 */
	CHECK_EQ(n, 8 * 32 * (1 + 1 + 9 + 8 * 2));
	CHECK_EQ(iters_seen, 8);
	bank_access_clear(&a);
	acc_init(&a, "4", NULL, "tid", 0);
	acc_for(&a, "d", "BLOCK / 2", "d > 0", "d / 2");
	CHECK_EQ(steps(&a, 256, 1, &v), taken(&a, 256, 1, &v, __LINE__));
	bank_access_clear(&a);

	/* nested counts, a partial last warp, a 2-D block, nthreads */
	acc_init(&a, "8", NULL, "tid * 6 + i * 3 + j", 0);
	acc_count(&a, "i", "2");
	acc_count(&a, "j", "nthreads / 40 + 1");
	acc_let(&a, "x", "i + j");
	CHECK_EQ(steps(&a, 40, 1, &v), taken(&a, 40, 1, &v, __LINE__));
	CHECK_EQ(steps(&a, 20, 3, &v), taken(&a, 20, 3, &v, __LINE__));
	bank_access_clear(&a);

	/* trip counts that differ between threads or with an outer loop: a lower bound */
	acc_init(&a, "4", NULL, "lane + 32 * k", 0);
	acc_for(&a, "k", "0", "k < lane", "k + 1");
	n = steps(&a, 64, 1, &v);
	CHECK_EQ(n, 2 * (32 + 32 + 32));
	CHECK_EQ(iters_seen, 0);
	CHECK(n < taken(&a, 64, 1, &v, __LINE__));
	bank_access_clear(&a);
	acc_init(&a, "4", NULL, "tid + 64 * (i * 8 + j)", 0);
	acc_count(&a, "i", "4");
	acc_count(&a, "j", "i + tx % 2");
	n = steps(&a, 64, 1, &v);
	CHECK_EQ(n, 2 * (32 + 32 + 4 * 32));
	CHECK_EQ(iters_seen, 4);
	CHECK(n < taken(&a, 64, 1, &v, __LINE__));
	bank_access_clear(&a);

	/* a loop whose trip count an outer loop's variable sets is followed iteration by
	   iteration: a triangle, and a loop of one iteration that names a value (stencil2d) */
	acc_init(&a, "4", NULL, "tid + 64 * (i * 8 + j)", 0);
	acc_count(&a, "i", "4");
	acc_count(&a, "j", "i + 1");
	CHECK_EQ(steps(&a, 64, 1, &v), taken(&a, 64, 1, &v, __LINE__));
	CHECK_EQ(steps(&a, 64, 1, &v), 2 * (32 + 32 + 4 * 32 + 10 * 64));
	CHECK_EQ(iters_seen, 4 + 10);
	bank_access_clear(&a);
	acc_init(&a, "4", NULL, "tid * 4 + e * sa", 1);
	acc_for(&a, "sa", "min(4, BLOCK / 64)", "sa >= 0", "-1");
	acc_count(&a, "e", "4 / sa");
	CHECK_EQ(steps(&a, 64, 1, &v), taken(&a, 64, 1, &v, __LINE__));
	bank_access_clear(&a);

	/* not in the variant: nothing; a loop that does not end: counted up to where bank_eval
	   stops it */
	acc_init(&a, "4", NULL, "tid", 0);
	a.cond = px("BLOCK < 0");
	CHECK_EQ(steps(&a, 256, 1, &v), 0);
	bank_access_clear(&a);
	acc_init(&a, "4", NULL, "tid", 0);
	acc_for(&a, "d", "1", "d > 0", "d + 0");
	n = steps(&a, 32, 1, &v);
	CHECK_EQ(n, 32 + 32 + 16385 * 32 + 16384 * (2 * 32 + 32));
	CHECK_EQ(iters_seen, BANK_ITER_MAX + 1);
	bank_access_clear(&a);
	/* also where a loop inside it is followed iteration by iteration, or a count is large */
	acc_init(&a, "4", NULL, "tid", 0);
	acc_count(&a, "i", "200");
	acc_count(&a, "j", "i");
	n = steps(&a, 32, 1, &v);
	CHECK(n > 0 && iters_seen > BANK_ITER_MAX);
	{
		int64_t block[3] = {32, 1, 1};
		struct bank_stats st;
		struct bank_err err;
		CHECK_EQ(bank_eval(&a, block, BANK_SHARED_ANY, &v, &bank_volta, &st, &err, NULL), -1);
		CHECK_STR(err.msg, "more than 16384 iterations: does the loop end?");
	}
	bank_access_clear(&a);
	acc_init(&a, "4", NULL, "tid", 0);
	acc_count(&a, "i", "16385");
	n = steps(&a, 32, 1, &v);
	CHECK(n > 0 && iters_seen == BANK_ITER_MAX + 1);
	bank_access_clear(&a);

	/* 2^24 steps and beyond, in time that does not depend on the count; saturated where the
	   count does not fit */
	acc_init(&a, "4", NULL, "tid + 32 * k", 0);
	acc_count(&a, "k", "8192");
	CHECK_EQ(steps(&a, 1024, 1, &v), 32 * (32 + 32 + 8192 * 64));
	CHECK(steps(&a, 1024, 1, &v) > (int64_t)1 << 24);
	bank_access_clear(&a);
	acc_init(&a, "4", NULL, "tid + k", 0);
	acc_count(&a, "k", "4611686018427387904");
	acc_count(&a, "j", "4611686018427387904");
	CHECK_EQ(steps(&a, 1024, 1, &v), INT64_MAX);
	bank_access_clear(&a);
}

/* the shipped configs' accesses (about 30 variants of each): what the declared loops tell is
   never more than the steps bank_eval takes */
TEST(bank_steps_shipped)
{
	static const char *const paths[] = {
		"configs/filter21.yaml", "configs/reduction.yaml", "configs/stencil2d.yaml",
		"configs/transpose.yaml",
	};
	struct limits lim = {1024, 48 * 1024, 227 * 1024};
	size_t f, i, k, nexact = 0, nbelow = 0;

	for (f = 0; f < LEN(paths); f++) {
		struct config *c = cfg_load(test_path(paths[f]));
		struct vars sizes = {0};
		struct space s;

		cfg_size_vars(c, 1, &sizes);
		space_expand(c, &sizes, &lim, &s);
		CHECK(c->naccesses > 0 && s.nkept > 0);
		for (i = 0; i < s.n; i += s.n / 30 + 1) {
			struct vars v;
			if (s.v[i].drop)
				continue;
			space_bind(c, &s, &s.v[i], &v);
			for (k = 0; k < c->naccesses; k++) {
				const struct bank_access *a = &c->accesses[k];
				int64_t it, n = bank_steps(a, s.v[i].block, &v, &it);
				int64_t t = taken(a, s.v[i].block[0], s.v[i].block[1], &v, __LINE__);
				CHECK(n <= t);
				CHECK(it <= BANK_ITER_MAX);
				nexact += n == t;
				nbelow += n < t;
			}
		}
		space_free(&s);
		cfg_free(c);
	}
	CHECK(nexact > 0 && nbelow > 0);
}

TEST(bank_eval_errors)
{
	struct bank_access a;
	struct bank_stats s;
	struct bank_err err;
	struct vars v;
	int64_t block[3] = {64, 1, 1};

	memset(&v, 0, sizeof v);
	vars_set(&v, "N", 0);
	acc_init(&a, "4", NULL, "64 / (N + 33 - tx) + tx", 0);
	CHECK_EQ(bank_eval(&a, block, BANK_SHARED_ANY, &v, &bank_volta, &s, &err, NULL), -1);
	CHECK_STR(err.what, "index");
	CHECK_EQ(err.col, 3);
	CHECK_STR(err.msg, "thread (33, 0, 0): division by zero");
	bank_access_clear(&a);

	acc_init(&a, "4", "8", "tx", 0);
	CHECK_EQ(bank_eval(&a, block, BANK_SHARED_ANY, &v, &bank_volta, &s, &err, NULL), -1);
	CHECK_STR(err.what, "index");
	CHECK_STR(err.msg, "warp 0: lane 1: address 4 is not aligned to 8 bytes");
	bank_access_clear(&a);

	acc_init(&a, "4", "12", "tx", 0);
	CHECK_EQ(bank_eval(&a, block, BANK_SHARED_ANY, &v, &bank_volta, &s, &err, NULL), -1);
	CHECK_STR(err.what, "width");
	bank_access_clear(&a);

	acc_init(&a, "tx", NULL, "tx", 0);
	CHECK_EQ(bank_eval(&a, block, BANK_SHARED_ANY, &v, &bank_volta, &s, &err, NULL), -1);
	CHECK_STR(err.what, "elem");
	CHECK_STR(err.msg, "unknown name 'tx'");
	bank_access_clear(&a);
	acc_init(&a, "9223372036854775807", "4", "tx", 0);
	CHECK_EQ(bank_eval(&a, block, BANK_SHARED_ANY, &v, &bank_volta, &s, &err, NULL), -1);
	CHECK_STR(err.what, "elem");
	CHECK_STR(err.msg, "element size 9223372036854775807 is more than 1048576 bytes");
	bank_access_clear(&a);
	acc_init(&a, "-4", NULL, "tx", 0);
	CHECK_EQ(bank_eval(&a, block, BANK_SHARED_ANY, &v, &bank_volta, &s, &err, NULL), -1);
	CHECK_STR(err.msg, "element size -4 is not positive");
	bank_access_clear(&a);

	acc_init(&a, "4", NULL, "tx - 1", 0);
	CHECK_EQ(bank_eval(&a, block, BANK_SHARED_ANY, &v, &bank_volta, &s, &err, NULL), -1);
	CHECK_STR(err.msg, "thread (0, 0, 0): index -1 is outside shared memory");
	bank_access_clear(&a);
	/* a lane's last byte at the end of shared memory is in it; one past it is not */
	acc_init(&a, "4", NULL, "tx", 0);
	CHECK_EQ(bank_eval(&a, block, 256, &v, &bank_volta, &s, &err, NULL), 0);
	CHECK_EQ(bank_eval(&a, block, 255, &v, &bank_volta, &s, &err, NULL), -1);
	CHECK_STR(err.what, "index");
	CHECK_STR(err.msg, "thread (63, 0, 0): index 63 is outside shared memory: bytes 252 to "
	          "255 of 255");
	bank_access_clear(&a);
	/* the whole width counts, not the element the index names */
	acc_init(&a, "4", "16", "4 * tx", 0);
	CHECK_EQ(bank_eval(&a, block, 1024, &v, &bank_volta, &s, &err, NULL), 0);
	CHECK_EQ(bank_eval(&a, block, 1020, &v, &bank_volta, &s, &err, NULL), -1);
	CHECK_STR(err.msg, "thread (63, 0, 0): index 252 is outside shared memory: bytes 1008 to "
	          "1023 of 1020");
	bank_access_clear(&a);

	acc_init(&a, "4", NULL, "k", 0);
	acc_for(&a, "k", "0", "k >= 0", "k + 1 - k");
	CHECK_EQ(bank_eval(&a, block, BANK_SHARED_ANY, &v, &bank_volta, &s, &err, NULL), -1);
	CHECK_STR(err.what, "loops[0].while");
	bank_access_clear(&a);

	acc_init(&a, "4", NULL, "j", 0);
	acc_count(&a, "k", "2");
	acc_let(&a, "j", "k / (k - 1)");
	CHECK_EQ(bank_eval(&a, block, BANK_SHARED_ANY, &v, &bank_volta, &s, &err, NULL), -1);
	CHECK_STR(err.what, "let[0]");
	bank_access_clear(&a);

	/* the work of a variant is bounded: 1024 threads x 4000 iterations x 3 expressions is
	   over BANK_WORK_MAX steps, and stops with an error for the access as a whole */
	block[0] = 1024;
	acc_init(&a, "4", NULL, "tid + j", 0);
	acc_count(&a, "k", "4000");
	acc_let(&a, "j", "k % 32");
	CHECK_EQ(bank_eval(&a, block, BANK_SHARED_ANY, &v, &bank_volta, &s, &err, NULL), -1);
	CHECK_STR(err.what, "");
	CHECK(strstr(err.msg, "steps of the bank model for this variant") != NULL);
	bank_access_clear(&a);
	/* shared by the calls of one variant: what is left passes from one to the next */
	{
		int64_t work = BANK_WORK_MAX, before;
		block[0] = 256;
		acc_init(&a, "4", NULL, "tid", 0);
		acc_count(&a, "k", "100");
		CHECK_EQ(bank_eval(&a, block, BANK_SHARED_ANY, &v, &bank_volta, &s, &err, &work), 0);
		CHECK(work < BANK_WORK_MAX && work > BANK_WORK_MAX - 256 * 100 * 4);
		before = work;
		CHECK_EQ(bank_eval(&a, block, BANK_SHARED_ANY, &v, &bank_kepler8, &s, &err, &work), 0);
		CHECK_EQ(before - work, BANK_WORK_MAX - before);
		work = 1000;
		CHECK_EQ(bank_eval(&a, block, BANK_SHARED_ANY, &v, &bank_volta, &s, &err, &work), -1);
		CHECK_STR(err.what, "");
		bank_access_clear(&a);
	}

	CHECK(bank_reserved("tx"));
	CHECK(bank_reserved("lane"));
	CHECK(bank_reserved("nthreads"));
	CHECK(!bank_reserved("TILE"));
}
