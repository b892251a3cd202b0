/* midsize: a midpoint's sizes between two points. */
#include "test.h"

#include "../tuner/config.h"
#include "../tuner/midsize.h"
#include "../tuner/spec.h"
#include "../tuner/vars.h"

/* the midpoint of n = a and n = b of tests/fakecuda/pairs.yaml (8 bytes of buffers an
   element), across the L2 or not, for an L2 of l2 bytes */
static long long mid_n(long long a, long long b, int across, long long l2)
{
	struct config *c = cfg_load(test_path("tests/fakecuda/pairs.yaml"));
	struct vars v = {0};
	int64_t x = a, y = b, m = -1;

	vars_set(&v, "n", a);
	vars_set(&v, CFG_SMS, 4);
	mid_sizes(c, &x, &y, across, &v, l2, &m);
	cfg_free(c);
	return m;
}

TEST(midsize_odd_multiples)
{
	CHECK_EQ(mid_n(65536, 1048576, 0, 0), 262208);  /* 2^18, moved to 4097 x 64 */
	CHECK_EQ(mid_n(1024, 2048, 0, 0), 1472);        /* 1448.2: 23 x 64 */
	CHECK_EQ(mid_n(1024, 4096, 0, 0), 2112);        /* 2048: 33 x 64, the nearer odd one */
	CHECK_EQ(mid_n(1000, 2000, 0, 0), 1416);        /* the two share 8: 177 x 8 */
	CHECK_EQ(mid_n(1048576, 65536, 0, 0), 262208);  /* either order */
	CHECK_EQ(mid_n(5, 6, 0, 0), 5);                 /* nothing between: the first */
	CHECK_EQ(mid_n(7, 9, 0, 0), 8);
}

TEST(midsize_across_the_l2)
{
	/* buffers of 8n bytes in 3/4 of 1 MiB: n <= 98304, an odd multiple of 64 below: 98240 */
	CHECK_EQ(mid_n(65536, 1048576, 1, 1 << 20), 98240);
	/* no room: the lower point's buffers do not fit either, so halfway */
	CHECK_EQ(mid_n(131072, 1048576, 1, 1 << 20), mid_n(131072, 1048576, 0, 0));
	/* the same, larger: 3/4 of 60 MiB holds 5898240 elements, 5898176 below */
	CHECK_EQ(mid_n(1048576, 8388608, 1, 60LL << 20), 5898176);
}
