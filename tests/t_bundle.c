/* bundle: the template as it goes into a namespace. */
#include "test.h"

#include <stdlib.h>

#include "bundle.h"

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
