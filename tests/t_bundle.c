/* bundle: the template as it goes into a namespace, and the portable default's choice. */
#include "test.h"

#include <stdlib.h>

#include "bundle.h"
#include "util.h"

TEST(bundle_template_linkage_includes_macros)
{
	struct buf body = {0}, inc = {0}, undefs = {0};

	bundle_template("#include <cuda_fp16.h>\n  #  define TILE (BLOCK * 2)\n#define F(x) x\n"
	                "extern \"C\" __global__ void k(void) {}\nextern  \"C\" {\n}\n"
	                "int externC; /* extern \"C\" */ static const char *s = \"extern\";\n",
	                &body, &inc, &undefs);
	CHECK_STR(inc.s, "#include <cuda_fp16.h>\n");
	CHECK_STR(undefs.s, "#undef TILE\n#undef F\n");
	CHECK_STR(body.s, "// (above the namespaces) #include <cuda_fp16.h>\n"
	                  "  #  define TILE (BLOCK * 2)\n#define F(x) x\n"
	                  "extern \"C++\" __global__ void k(void) {}\nextern  \"C++\" {\n}\n"
	                  "int externC; /* extern \"C++\" */ static const char *s = \"extern\";\n");
	buf_free(&body);
	buf_free(&inc);
	buf_free(&undefs);
}

TEST(bundle_portable_worst_ratio)
{
	/* 3 GPUs x 4 variants; best medians 1, 2, 4 */
	static const double best[3] = {1, 2, 4};
	static const double med[12] = {
		1.0, 1.05, 2.0, 1.1,   /* GPU 0 */
		4.0, 2.10, 2.0, 2.1,   /* GPU 1 */
		4.0, 4.20, 8.0, 0,     /* GPU 2: variant 3 not timed */
	};
	double w;

	/* variant 1: worst 1 / 1.05; variant 0: 1/2; variant 2: 1/2; variant 3: not everywhere */
	CHECK_EQ(bundle_portable(med, best, 3, 4, &w), 1);
	CHECK(w > 0.952 && w < 0.953);
	/* one GPU: its winner */
	CHECK_EQ(bundle_portable(med, best, 1, 4, &w), 0);
	CHECK(w == 1);
	/* a tie on the worst ratio: the higher mean ratio */
	{
		static const double b2[2] = {1, 1}, m2[4] = {2, 2, 2, 1};
		CHECK_EQ(bundle_portable(m2, b2, 2, 2, &w), 1);
		CHECK(w == 0.5);
	}
	/* nothing timed on every GPU */
	{
		static const double b3[2] = {1, 1}, m3[4] = {1, 0, 0, 1};
		CHECK_EQ(bundle_portable(m3, b3, 2, 2, &w), -1);
	}
}
