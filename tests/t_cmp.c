/* Tests for cmp (tuner/cmp.h): the comparison of outputs with the reference's, as the
   device's comparison kernels run it (the same text, on host arrays here), and how its errors
   are reported. */
#include "test.h"

#include <math.h>
#include <stdint.h>

#include "cmp.h"
#include "config.h"
#include "report.h"
#include "result.h"
#include "util.h"

/* got[0, n) against ref[0, n) as floats, element by element as tuner/helpers.cu does */
static struct cmp_acc cmp_f32(const float *got, const float *ref, size_t n, double atol,
                              double rtol)
{
	struct cmp_acc a = CMP_ACC0;
	size_t j;

	for (j = 0; j < n; j++)
		cmp_elem(&a, (double)got[j], (double)ref[j], got[j] == ref[j], 1, j, atol, rtol);
	return a;
}

/* as cmp_f32, for long long outputs (integers: equal or failed) */
static struct cmp_acc cmp_i64(const long long *got, const long long *ref, size_t n,
                              double atol, double rtol)
{
	struct cmp_acc a = CMP_ACC0;
	size_t j;

	for (j = 0; j < n; j++)
		cmp_elem(&a, (double)got[j], (double)ref[j], got[j] == ref[j], 0, j, atol, rtol);
	return a;
}

/* a stencil's output: most of it near 0, where only the absolute tolerance means anything.
   The relative error counts the elements whose |ref| exceeds it: 2^-18 / 2 here, where over
   every element it would be 2e-7 / 1e-7 = 2 */
TEST(cmp_rel_error_beyond_abs_tolerance)
{
	static const float ref[] = {0.0f, 1e-7f, 2.0f, -4.0f, 0.5f, -1e-6f};
	static const float got[] = {2e-7f, 3e-7f, 2.0f + 0x1p-18f, -4.0f, 0.5f, -1.5e-6f};
	struct cmp_acc a = cmp_f32(got, ref, LEN(ref), 1e-6, 1e-5);

	CHECK_EQ(a.bad, 0);
	CHECK(a.first == ~0ull);
	CHECK(a.maxabs == 0x1p-18);
	/* not 0.5 from element 5: |ref| = 1e-6 (as a float, a little less) is not beyond it */
	CHECK(a.maxrel == 0x1p-19);
	/* with no absolute tolerance, every non-zero reference counts: 2e-7 / 1e-7 */
	a = cmp_f32(got, ref, 2, 0, 1e-5);
	CHECK(a.maxrel > 1.9 && a.maxrel < 2.1);
	CHECK_EQ(a.bad, 2); /* and the elements near 0 fail */
	CHECK_EQ(a.first, 0);
	/* every reference within the absolute tolerance of 0: no relative error at all */
	a = cmp_f32(got, ref, 2, 1e-6, 1e-5);
	CHECK(a.maxrel == 0);
	CHECK_EQ(a.bad, 0);
	CHECK(a.maxabs > 1.9e-7 && a.maxabs < 3.1e-7);
}

/* what passes and fails: the tolerance's edge, NaN (an unwritten float output), integers */
TEST(cmp_pass_and_fail)
{
	static const float ref[] = {1.0f, 1.0f, 8.0f, 8.0f};
	float got[] = {1.0f, 1.0f, 8.0f, 8.0f};
	static const long long iref[] = {5, -3, (1LL << 60) + 1, 0};
	long long igot[] = {5, -2, 1LL << 60, 7};
	struct cmp_acc a;

	/* 8 + 2^-20 is within 1e-6 + 1e-6 * 8; 8 + 2^-16 is not */
	got[2] = 8.0f + 0x1p-20f;
	got[3] = 8.0f + 0x1p-16f;
	a = cmp_f32(got, ref, LEN(ref), 1e-6, 1e-6);
	CHECK_EQ(a.bad, 1);
	CHECK_EQ(a.first, 3);
	CHECK(a.maxabs == 0x1p-16);
	CHECK(a.maxrel == 0x1p-16 / 8);
	/* the poison's NaN never passes, and its errors are +inf */
	memset(&got[1], 0xff, sizeof got[1]);
	a = cmp_f32(got, ref, LEN(ref), 1e-6, 1e-6);
	CHECK(isnan(got[1]));
	CHECK_EQ(a.bad, 2);
	CHECK_EQ(a.first, 1);
	CHECK(isinf(a.maxabs) && isinf(a.maxrel));
	/* a NaN that the reference has too still fails: unwritten by both */
	memset(got, 0xff, sizeof got);
	a = cmp_f32(got, got, LEN(got), 1e-6, 1e-5);
	CHECK_EQ(a.bad, LEN(got));
	/* integers pass only when equal, whatever the tolerance; 2^60 + 1 and 2^60 are one
	   double but not one integer */
	a = cmp_i64(igot, iref, LEN(iref), 1, 10);
	CHECK_EQ(a.bad, 3);
	CHECK_EQ(a.first, 1);
	CHECK(a.maxabs == 7);
	CHECK(a.maxrel == 1.0 / 3); /* -2 against -3; 7 against 0 has none */
}

/* best.cu's line and every other place that shows the errors say what the relative one is
   over */
TEST(cmp_reported)
{
	struct run_result x = {0};
	struct config c = {0};
	struct buf b = {0};

	x.max_abs_err = 2e-7;
	x.max_rel_err = 3.1e-7;
	c.atol = 1e-5;
	report_errors(&b, &x, &c);
	CHECK_STR(b.s, "max abs error 2e-07, max rel error 3.1e-07 (where |ref| > 1e-05)");
	buf_free(&b);
}
