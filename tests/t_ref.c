/* The plain-C references of the shipped kernels (tests/ref) on small known inputs. */
#include <math.h>
#include <stdlib.h>

#include "test.h"
#include "ref/ref.h"

/* configure.py links the C files directly under tests/ only: the references are compiled here */
#include "ref/filter21.c"
#include "ref/sum.c"
#include "ref/transpose.c"

TEST(ref_filter21_delta)
{
	float coef[21] = {0}, in[40], out[20];
	size_t i;

	coef[7] = 1.0f;
	for (i = 0; i < 40; i++)
		in[i] = (float)i * 0.5f - 3.25f;
	ref_filter21(out, in, coef, 20);
	for (i = 0; i < 20; i++)
		CHECK(out[i] == in[i + 7]);
}

TEST(ref_filter21_ramp)
{
	float coef[21], in[30], out[10];
	size_t i;

	for (i = 0; i < 21; i++)
		coef[i] = 1.0f;
	for (i = 0; i < 30; i++)
		in[i] = (float)i;
	ref_filter21(out, in, coef, 10);
	for (i = 0; i < 10; i++) /* sum_{k=0..20} (i + k) = 21 i + 210 */
		CHECK_EQ(out[i], 21 * i + 210);
}

TEST(ref_filter21_taps_in_order)
{
	/* coef[k] = 2^k and in = a delta at 20: out[i] = coef[20 - i] tells k from 20 - k */
	float coef[21], in[41] = {0}, out[21];
	size_t i;

	for (i = 0; i < 21; i++)
		coef[i] = (float)(1u << i);
	in[20] = 1.0f;
	ref_filter21(out, in, coef, 21);
	for (i = 0; i < 21; i++)
		CHECK_EQ(out[i], 1u << (20 - i));
}

TEST(ref_filter21_single_output_double_sum)
{
	/* one output, n = 1: 0.1f added 21 times in double, rounded once */
	float coef[21], in[21], out[1];
	double want = 0;
	size_t i;

	for (i = 0; i < 21; i++) {
		coef[i] = 0.1f;
		in[i] = 1.0f;
		want += (double)0.1f;
	}
	ref_filter21(out, in, coef, 1);
	CHECK(out[0] == (float)want);
}

TEST(ref_transpose_known)
{
	const float in[6] = {1, 2, 3, 4, 5, 6}; /* 2 x 3: rows (1 2 3), (4 5 6) */
	const float want[6] = {1, 4, 2, 5, 3, 6}; /* 3 x 2 */
	float out[6] = {0};
	int i;

	ref_transpose(out, in, 2, 3);
	for (i = 0; i < 6; i++)
		CHECK(out[i] == want[i]);
}

TEST(ref_transpose_identity)
{
	float in[16], out[16];
	int i, j;

	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++)
			in[i * 4 + j] = i == j;
	ref_transpose(out, in, 4, 4);
	for (i = 0; i < 16; i++)
		CHECK(out[i] == in[i]);
}

TEST(ref_transpose_twice_and_vectors)
{
	float in[35], t[35], back[35];
	int i;

	for (i = 0; i < 35; i++)
		in[i] = (float)(i * 7 % 35);
	ref_transpose(t, in, 7, 5);
	CHECK(t[1] == in[5]);      /* out(0, 1) = in(1, 0) */
	CHECK(t[5 * 0 + 7] == in[1]); /* out(1, 0) = in(0, 1) */
	ref_transpose(back, t, 5, 7);
	for (i = 0; i < 35; i++)
		CHECK(back[i] == in[i]);
	ref_transpose(t, in, 1, 35); /* a row becomes a column: same order in memory */
	for (i = 0; i < 35; i++)
		CHECK(t[i] == in[i]);
}

TEST(ref_sum_known)
{
	float in[100];
	int i;

	for (i = 0; i < 100; i++)
		in[i] = (float)(i + 1);
	CHECK(ref_sum(in, 100) == 5050.0);
	CHECK(ref_sum(in, 1) == 1.0);
	CHECK(ref_sum(in, 0) == 0.0);
}

TEST(ref_sum_accumulates_in_double)
{
	const float c[3] = {1e8f, 1.0f, -1e8f}; /* float addition in this order gives 0 */
	const size_t n = ((size_t)1 << 20) + 1;
	float *in = malloc(n * sizeof *in);
	size_t i;

	CHECK(ref_sum(c, 3) == 1.0);
	CHECK(in != NULL);
	if (!in)
		return;
	/* 1 + 2^20 * 2^-24: a float accumulator rounds each 1 + 2^-24 back to 1 */
	in[0] = 1.0f;
	for (i = 1; i < n; i++)
		in[i] = 0x1p-24f;
	CHECK(ref_sum(in, n) == 1.0625);
	free(in);
}
