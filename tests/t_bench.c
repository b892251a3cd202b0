/* bench without a GPU: the host formula of the device fill, statistics, the helper kernels'
   source (tuner/helpers.cu as it is; it compiles, and the cubin carries every kernel
   bench_helpers looks up). */
#include "test.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "bench.h"
#include "config.h"
#include "devbuf.h"
#include "expr.h"
#include "../tuner/nvrtc.h" /* the tuner's: -I puts the toolkit's nvrtc.h first */
#include "stats.h"
#include "timing.h"
#include "util.h"
#include "vars.h"

/* splitmix64 as published: state += golden, then the mix */
static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

TEST(bench_fill_random_known_values)
{
	struct fill f = {.kind = FILL_RANDOM, .seed = 0, .lo = 0, .hi = 1};
	double x[3];

	/* splitmix64 from seed 0 starts 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f */
	bench_fill_host(x, 0, 3, EL_F64, &f);
	CHECK(x[0] == (double)(0xe220a8397b1dcdafULL >> 11) / 9007199254740992.0);
	CHECK(x[1] == (double)(0x6e789e6aa1b965f4ULL >> 11) / 9007199254740992.0);
	CHECK(x[2] == (double)(0x06c45d188009454fULL >> 11) / 9007199254740992.0);
	CHECK(fabs(x[0] - 0.88331) < 1e-5);
}

TEST(bench_fill_random_is_the_sequential_stream)
{
	/* filter21's input fill: element i is the (i+1)-th output of a generator seeded with 1,
	   computed without the i steps before it, so a device thread can compute it alone */
	struct fill f = {.kind = FILL_RANDOM, .seed = 1, .lo = -1, .hi = 1};
	enum { N = 1000 };
	float *all = xcalloc(N, sizeof *all), tail[5];
	uint64_t s = 1;
	size_t i, zeros = 0, bad = 0;

	bench_fill_host(all, 0, N, EL_F32, &f);
	for (i = 0; i < N; i++) {
		double x = -1 + (double)(splitmix64(&s) >> 11) * 0x1p-53 * 2;
		bad += all[i] != (float)x;
		zeros += all[i] == 0;
		CHECK(all[i] >= -1 && all[i] < 1);
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(zeros, 0);
	bench_fill_host(tail, N - 5, 5, EL_F32, &f); /* p[0] is element `first` */
	CHECK(!memcmp(tail, all + N - 5, sizeof tail));
	free(all);
}

TEST(bench_fill_integers_range_const_list)
{
	struct fill r = {.kind = FILL_RANDOM, .seed = 3, .lo = -5, .hi = 5};
	struct fill g = {.kind = FILL_RANGE, .start = 2, .step = 0.5};
	struct fill c = {.kind = FILL_CONST, .value = 7};
	double lv[] = {1, -2, 3};
	struct fill l = {.kind = FILL_LIST, .list = lv, .nlist = 3};
	int32_t iv[64];
	float fv[8];
	uint32_t uv[2];
	size_t i;
	int seen_neg = 0, seen_pos = 0;

	bench_fill_host(iv, 0, 64, EL_I32, &r); /* floored: integers in [-5, 5) */
	for (i = 0; i < 64; i++) {
		CHECK(iv[i] >= -5 && iv[i] <= 4);
		seen_neg |= iv[i] < 0;
		seen_pos |= iv[i] > 0;
	}
	CHECK(seen_neg && seen_pos);
	bench_fill_host(fv, 10, 3, EL_F32, &g);
	CHECK(fv[0] == 7.0f && fv[1] == 7.5f && fv[2] == 8.0f);
	bench_fill_host(fv, 0, 2, EL_F32, &c);
	CHECK(fv[0] == 7.0f && fv[1] == 7.0f);
	bench_fill_host(iv, 4, 4, EL_I32, &l); /* cyclic from element 4: 4 % 3 = 1 */
	CHECK(iv[0] == -2 && iv[1] == 3 && iv[2] == 1 && iv[3] == -2);
	bench_fill_host(uv, 0, 2, EL_U32, &l); /* a negative wraps as C converts it */
	CHECK(uv[0] == 1 && uv[1] == UINT32_MAX - 1);
}

/* a vector element's components are the scalars at i * comps + c, whatever the fill: the
   device fills a vector buffer as the array of its components */
TEST(bench_fill_vectors_per_component)
{
	struct fill r = {.kind = FILL_RANDOM, .seed = 5, .lo = -1, .hi = 1};
	struct fill g = {.kind = FILL_RANGE, .start = 1, .step = 0.25};
	double lv[] = {1, 2, 3};
	struct fill l = {.kind = FILL_LIST, .list = lv, .nlist = 3};
	float v2[2 * 4], s2[2 * 4], v4[4 * 2];
	double d2[2 * 3], sd[2 * 3];

	CHECK_EQ(elem_size(EL_F32X2), 8);
	CHECK_EQ(elem_size(EL_F32X4), 16);
	CHECK_EQ(elem_size(EL_F64X2), 16);
	CHECK_EQ(elem_comps(EL_F32X4), 4);
	CHECK(elem_scalar(EL_F64X2) == EL_F64 && elem_scalar(EL_I32) == EL_I32);
	CHECK_STR(elem_name(EL_F32X2), "float2");
	bench_fill_host(v2, 3, 4, EL_F32X2, &r); /* elements 3..6: components 6..13 */
	bench_fill_host(s2, 6, 8, EL_F32, &r);
	CHECK(!memcmp(v2, s2, sizeof v2));
	CHECK(v2[0] != v2[1]); /* each component draws its own value */
	bench_fill_host(d2, 1, 3, EL_F64X2, &r);
	bench_fill_host(sd, 2, 6, EL_F64, &r);
	CHECK(!memcmp(d2, sd, sizeof d2));
	bench_fill_host(v4, 1, 2, EL_F32X4, &g); /* element 1 is components 4..7 */
	CHECK(v4[0] == 2.0f && v4[1] == 2.25f && v4[3] == 2.75f && v4[4] == 3.0f);
	bench_fill_host(v2, 1, 2, EL_F32X2, &l); /* cyclic over the components: from 2 % 3 */
	CHECK(v2[0] == 3 && v2[1] == 1 && v2[2] == 2 && v2[3] == 3);
}

TEST(bench_fill_saturates)
{
	struct fill big = {.kind = FILL_CONST, .value = 1e40};
	struct fill neg = {.kind = FILL_CONST, .value = -1e40};
	float f;
	int32_t i;
	int64_t l;
	uint64_t u;

	bench_fill_host(&f, 0, 1, EL_F32, &big);
	CHECK(isinf(f) && f > 0);
	bench_fill_host(&f, 0, 1, EL_F32, &neg);
	CHECK(isinf(f) && f < 0);
	bench_fill_host(&i, 0, 1, EL_I32, &big);
	CHECK(i == INT32_MAX);
	bench_fill_host(&i, 0, 1, EL_I32, &neg);
	CHECK(i == INT32_MIN);
	bench_fill_host(&l, 0, 1, EL_I64, &neg);
	CHECK(l == INT64_MIN);
	bench_fill_host(&u, 0, 1, EL_U64, &big);
	CHECK(u == UINT64_MAX);
}

TEST(bench_stats_quantiles)
{
	double x[] = {5, 1, 3, 2, 4};
	struct stats t;

	stats_compute(x, 5, &t);
	CHECK_EQ(t.n, 5);
	CHECK(t.min_ms == 1 && t.max_ms == 5 && t.median_ms == 3 && t.mean_ms == 3);
	/* p90 = 4.6, p10 = 1.4 (linear interpolation), over the median */
	CHECK(fabs(t.spread - 3.2 / 3) < 1e-12);
	CHECK(x[0] == 1 && x[4] == 5); /* sorted in place */
	stats_compute(x, 0, &t);
	CHECK_EQ(t.n, 0);
	CHECK(t.median_ms == 0);
}

/* the flush is timing_l2_flush's answer (and nothing else: TUNER_FLUSH is not read) */
TEST(timing_method_flush)
{
	setenv("TUNER_FLUSH", "write", 1);
	CHECK_STR(timing_method(1), "helpers 4, L2 flush read");
	CHECK_STR(timing_method(0), "helpers 5, L2 flush none, batched, held");
	unsetenv("TUNER_FLUSH");
	/* samples not held are another method: their journal entries are not these */
	setenv("TUNER_TIMING_HOLD", "0", 1);
	CHECK_STR(timing_method(0), "helpers 4, L2 flush none, batched");
	CHECK_STR(timing_method(1), "helpers 4, L2 flush read");
	unsetenv("TUNER_TIMING_HOLD");
}

/* timing.l2: flush and resident as said; auto flushes where the buffers the sizes give exceed
   the L2 (a scratch buffer whose count needs a parameter counts nothing), and where the L2
   size is not known */
TEST(timing_l2_auto)
{
	struct config c;
	struct buffer bufs[3];
	struct size size = {"n", 0, {0, 0}};
	struct vars v;
	char why[240];
	struct expr_err e;

	memset(&c, 0, sizeof c);
	memset(bufs, 0, sizeof bufs);
	memset(&v, 0, sizeof v);
	bufs[0].count = expr_parse("n", &e);
	bufs[0].type = EL_F32;
	bufs[1].count = expr_parse("n + 4", &e);
	bufs[1].type = EL_F64;
	bufs[2].count = expr_parse("BLOCK * 4", &e); /* unbound: not counted */
	bufs[2].type = EL_F32;
	c.buffers = bufs;
	c.nbuffers = 3;
	c.sizes = &size;
	c.nsizes = 1;
	vars_set(&v, "n", 1 << 20); /* 4 MiB + 8 MiB + 32 bytes */
	c.l2 = CFG_L2_AUTO;
	CHECK_EQ(timing_l2_flush(&c, &v, 50 << 20, why, sizeof why), 0);
	CHECK_STR(why, "auto: 12.0 MiB of buffers at n=1048576 fit in the 50.0 MiB L2");
	CHECK_EQ(timing_l2_flush(&c, &v, 12 << 20, why, sizeof why), 1);
	CHECK(strstr(why, "exceed the 12.0 MiB L2") != NULL);
	CHECK_EQ(timing_l2_flush(&c, &v, 0, why, sizeof why), 1);
	CHECK(strstr(why, "does not tell its L2 size") != NULL);
	c.l2 = CFG_L2_FLUSH;
	CHECK_EQ(timing_l2_flush(&c, &v, 50 << 20, why, sizeof why), 1);
	CHECK_STR(why, "timing.l2 flush");
	c.l2 = CFG_L2_RESIDENT;
	CHECK_EQ(timing_l2_flush(&c, &v, 1, why, sizeof why), 0);
	CHECK_STR(why, "timing.l2 resident");
	expr_free(bufs[0].count);
	expr_free(bufs[1].count);
	expr_free(bufs[2].count);
}

/* the source is tuner/helpers.cu, byte for byte, with its line '#include "cmp.h"' replaced by
   tuner/cmp.h (embedded by tuner/embed.py) */
TEST(bench_helpers_embedded)
{
	static const char inc[] = "#include \"cmp.h\"\n";
	const char *src = bench_helpers_source();
	char *file = file_read(test_path("tuner/helpers.cu"), NULL);
	char *cmp = file_read(test_path("tuner/cmp.h"), NULL), *at, *want;

	CHECK(file && cmp);
	if (!file || !cmp || !(at = strstr(file, inc))) {
		CHECK(!"helpers.cu includes cmp.h");
		free(file);
		free(cmp);
		return;
	}
	want = xasprintf("%.*s%s%s", (int)(at - file), file, cmp, at + strlen(inc));
	CHECK_EQ(strlen(src), strlen(want));
	CHECK_STR(src, want);
	free(want);
	free(file);
	free(cmp);
}

/* the cubin names each kernel (as an ELF symbol string) */
static int has_name(const struct compile_out *co, const char *name)
{
	size_t n = strlen(name), i;
	const char *p = co->cubin;

	for (i = 0; i + n < co->cubin_len; i++)
		if (!memcmp(p + i, name, n) && p[i + n] == 0)
			return 1;
	return 0;
}

TEST(bench_helpers_compile)
{
	static const char *names[] = {"tuner_copy", "tuner_read", "tuner_flush", "tuner_fill",
	                              "tuner_cmp_f32", "tuner_cmp_f64", "tuner_cmp_i32",
	                              "tuner_cmp_u32", "tuner_cmp_i64", "tuner_cmp_u64"};
	struct compile_out co;
	size_t i;

	/* as main.c compiles it: one job, entry "tuner_copy" */
	CHECK(nv_compile(bench_helpers_source(), "tuner_copy.cu", "tuner_copy", "sm_90", NULL, 0,
	                 &co));
	if (!co.ok) {
		fprintf(stderr, "%s\n", co.log);
		nv_out_free(&co);
		return;
	}
	CHECK_STR(co.lowered, "tuner_copy");
	for (i = 0; i < LEN(names); i++)
		if (!has_name(&co, names[i])) {
			fprintf(stderr, "  no %s in the helpers' cubin\n", names[i]);
			CHECK(0);
		}
	CHECK(co.spill_stores == 0 && co.spill_loads == 0);
	nv_out_free(&co);
}
