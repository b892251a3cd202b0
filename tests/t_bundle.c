/* bundle: the template as it goes into a namespace. */
#include "test.h"

#include <stdlib.h>

#include "bundle.h"
#include "bundlegen.h"
#include "util.h"

TEST(bundle_template_linkage_includes_macros)
{
	struct buf body = {0}, inc = {0}, undefs = {0};

	bundle_template("#include <cuda_fp16.h>\n  #  define TILE (BLOCK * 2)\n#define F(x) x\n"
	                "extern \"C\" __global__ void k(void) {}\nextern  \"C\" {\n}\n"
	                "int externC; /* extern \"C\" */ static const char *s = \"extern\";\n"
	                "__constant__ float coef[21]; __constant__int x; my__constant__ y;\n",
	                &body, &inc, &undefs);
	CHECK_STR(inc.s, "#include <cuda_fp16.h>\n");
	CHECK_STR(undefs.s, "#undef TILE\n#undef F\n");
	CHECK_STR(body.s, "// (above the namespaces) #include <cuda_fp16.h>\n"
	                  "  #  define TILE (BLOCK * 2)\n#define F(x) x\n"
	                  "extern \"C++\" __global__ void k(void) {}\nextern  \"C++\" {\n}\n"
	                  "int externC; /* extern \"C++\" */ static const char *s = \"extern\";\n"
	                  "__constant__ __align__(64) float coef[21]; __constant__int x; my__constant__ y;\n");
	buf_free(&body);
	buf_free(&inc);
	buf_free(&undefs);
}

#include <stdio.h>
#include <string.h>

#include "bundle_select.inc"

TEST(bundle_at_size_points_between_equidistant)
{
	/* one GPU at 1000 and 100000 bytes (entries 0, 1), the between entry 2, the portable 3 */
	struct tuner_entry e[4] = {
		{"G", 9, 0, 4, 0, "va", "A=1", 1, 1, 1, 0, 1000, 0, 0},
		{"G", 9, 0, 4, 1, "vb", "A=2", 10, 1, 1, 0, 100000, 0, 0},
		{"G", 9, 0, 4, 2, "vc", "A=3", 1, 1, 1, 90, 0, 1000, 100000},
		{NULL, 0, 0, 0, 0, "va", "A=1", 0, 0, 0, 75, 0, 0, 0},
	};
	/* rel[a * 4 + k]: at 1000 entry 1 is 1.5 times the fastest, at 100000 entry 0 1.2 */
	double rel[16] = {1, 1.5, 1.1, 0, 1.2, 1, 1.1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	double w[4];

#define AT(bytes, r) (w[0] = w[1] = w[2] = w[3] = (bytes), tuner_at_size(e, 4, 0, w, r))
	CHECK_EQ(AT(1000, rel), 0);       /* at a point: its entry */
	CHECK_EQ(AT(100000, rel), 1);
	CHECK_EQ(AT(1001, NULL), 2);      /* strictly between, nothing measured: the between entry */
	CHECK_EQ(AT(10000, NULL), 2);
	CHECK_EQ(AT(99999, NULL), 2);
	/* with what was measured (medians 1 and 10 ms at the two points): each entry's median
	   interpolated in the bytes, the lowest; at 20800 bytes (a fifth of the way) 0.8 * 1 +
	   0.2 * 1.2 * 10 = 3.2 for entry 0, 3.2 for entry 1, 3.08 for the between entry */
	CHECK_EQ(AT(1001, rel), 0);
	CHECK_EQ(AT(20800, rel), 2);
	CHECK_EQ(AT(50500, rel), 1);
	CHECK_EQ(AT(99999, rel), 1);
	e[1].median_ms = 0; /* a point without its median: the between entry */
	CHECK_EQ(AT(50500, rel), 2);
	e[1].median_ms = 10;
	CHECK_EQ(AT(10, rel), 0);         /* beyond: the nearest end */
	CHECK_EQ(AT(1e9, rel), 1);
	CHECK_EQ(tuner_at_size(e, 4, 3, w, rel), 3); /* the portable default stays */
	/* without the between entry (no variant timed at both points): the nearest point; at
	   10000, as near one as the other, the lower sum of measured ratios (entry 1: 1.5 + 1
	   against entry 0's 1 + 1.2), by order without rel */
	e[2].lo = e[2].hi = 0;
	CHECK_EQ(AT(2000, rel), 0);
	CHECK_EQ(AT(50000, rel), 1);
	CHECK_EQ(AT(10000, rel), 0);
	CHECK_EQ(AT(10000, NULL), 0);
	rel[4] = 2; /* entry 0 at 100000: now 1 + 2, more than entry 1's 2.5 */
	CHECK_EQ(AT(10000, rel), 1);
#undef AT
}
