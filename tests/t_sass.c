/* sass: the shared-memory instructions of a listing, and the comparison with declared ones */
#include "test.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sass.h"
#include "util.h"

/* as nvdisasm -c prints a kernel (cuobjdump -sass adds an encoding comment per line) */
static const char listing[] =
	"\t.headerflags\t@\"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90\"\n"
	"        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
	"        /*0070*/                   LDS.64 R2, [R0] ;                  /* 0x0000000000027984 */\n"
	"        /*0080*/              @!P0 STS [R5+0x4], R7 ;\n"
	"        /*0090*/                   LDS.U.128 R8, [R4+0x80] ;\n"
	"        /*00a0*/                   LDS.64 R12, [R3+0x8] ;\n"
	"        /*00b0*/                   STS.U8 [R1], R2 ;\n"
	"        /*00c0*/                   LDG.E.64 R4, desc[UR4][R2.64] ;\n"
	"        /*00d0*/               @P1 LDS R9, [R2+0x100] ;\n"
	".L_x_LDS:\n"
	"        /*00e0*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n";

static size_t count(const struct sass_op *o, size_t n, int store, int bytes)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (o[i].store == store && o[i].bytes == bytes)
			return o[i].n;
	return 0;
}

TEST(sass_shared_kinds)
{
	struct sass_op o[SASS_OPS];
	size_t n = sass_shared(listing, o);

	CHECK_EQ(n, 5);
	CHECK_EQ(count(o, n, 0, 8), 2);  /* LDS.64 twice */
	CHECK_EQ(count(o, n, 0, 16), 1); /* LDS.U.128 */
	CHECK_EQ(count(o, n, 0, 4), 1);  /* @P1 LDS */
	CHECK_EQ(count(o, n, 1, 4), 1);  /* @!P0 STS */
	CHECK_EQ(count(o, n, 1, 1), 1);  /* STS.U8; LDG and the label are not shared memory */
	CHECK_EQ(sass_shared("", o), 0);
}

/* a float2 tile declared as 4-byte loads, compiled into LDS.64: both sides said */
TEST(sass_compare_mismatch)
{
	struct sass_op d[2] = {{0, 4, 2}, {1, 4, 1}}, f[2] = {{0, 8, 3}, {1, 4, 1}};
	struct buf b = {0};

	CHECK_EQ(sass_compare(d, 2, f, 2, &b), 2);
	CHECK(b.s && strstr(b.s, "declared: 4-byte loads (2 accesses), but the code has no LDS\n"));
	CHECK(b.s && strstr(b.s, "in the code: LDS.64 x3 (8-byte loads), which no declared access has"));
	b.len = 0;
	CHECK_EQ(sass_compare(f, 2, f, 2, &b), 0); /* alike: nothing to say */
	CHECK_EQ(b.len, 0);
	buf_free(&b);
}

/* where no disassembler is, the reason names what was looked for */
TEST(sass_tool_absent)
{
	char path[256], why[512];

	setenv("TUNER_DISASM", "/nonexistent/nvdisasm", 1);
	CHECK_EQ(sass_tool(path, sizeof path, why, sizeof why), -1);
	CHECK(strstr(why, "TUNER_DISASM=/nonexistent/nvdisasm is not a program") != NULL);
	unsetenv("TUNER_DISASM");
}

/* nvdisasm where scripts/nvdisasm installs NVIDIA's wheel is found after PATH, and named
   where it is missing (unless the toolkit's own directory has a disassembler) */
TEST(sass_tool_wheel)
{
	char dir[] = "/tmp/t_sass-XXXXXX", path[512], why[512], *bin, *sub;
	const char *keep = getenv("PATH");
	char *oldpath = keep ? xstrdup(keep) : NULL;
	char *oldhome = getenv("CUDA_HOME") ? xstrdup(getenv("CUDA_HOME")) : NULL;
	int fd, toolkit = access("/usr/local/cuda/bin/nvdisasm", X_OK) == 0 ||
	                  access("/usr/local/cuda/bin/cuobjdump", X_OK) == 0;

	CHECK(mkdtemp(dir) != NULL);
	sub = xasprintf("mkdir -p %s/tuner/nvdisasm/nvidia/cu13/bin", dir);
	CHECK_EQ(system(sub), 0);
	bin = xasprintf("%s/tuner/nvdisasm/nvidia/cu13/bin/nvdisasm", dir);
	setenv("XDG_DATA_HOME", dir, 1);
	setenv("PATH", "/nonexistent", 1);
	unsetenv("CUDA_HOME");
	if (!toolkit) {
		CHECK_EQ(sass_tool(path, sizeof path, why, sizeof why), -1);
		CHECK(strstr(why, "~/.local/share/tuner/nvdisasm (scripts/nvdisasm") != NULL);
	}
	CHECK((fd = open(bin, O_WRONLY | O_CREAT, 0755)) >= 0);
	close(fd);
	CHECK_EQ(sass_tool(path, sizeof path, why, sizeof why), 0);
	if (!toolkit)
		CHECK_STR(path, bin);
	if (oldpath)
		setenv("PATH", oldpath, 1);
	if (oldhome)
		setenv("CUDA_HOME", oldhome, 1);
	unsetenv("XDG_DATA_HOME");
	free(sub);
	sub = xasprintf("rm -rf %s", dir);
	CHECK_EQ(system(sub), 0);
	free(oldhome);
	free(oldpath);
	free(sub);
	free(bin);
}

/* sass_whole on the first n bytes of s */
static int whole_prefix(const char *s, size_t n, char *why, size_t whylen)
{
	char *p = xstrndup(s, n);
	int rc = sass_whole(p, n, why, whylen);

	free(p);
	return rc;
}

/* a listing is whole with each kernel's end: nvdisasm's label that .size names, cuobjdump's
   line of dots; cut short, or no listing at all, it is an error of the disassembler */
TEST(sass_whole_listing)
{
	static const char nv[] = "\t.size\tk,(.L_x_2 - k)\nk:\n        /*0000*/  LDS R2, [R0] ;\n"
	                         ".L_x_2:\n";
	static const char cuobj[] = "\t\tFunction : k\n        /*0000*/  LDS R2, [R0] ;\n"
	                            "\t\t..........\n";
	char why[256];

	CHECK_EQ(sass_whole(listing, strlen(listing), why, sizeof why), 0);
	CHECK_EQ(sass_whole(nv, strlen(nv), why, sizeof why), 0);
	CHECK_EQ(sass_whole(cuobj, strlen(cuobj), why, sizeof why), 0);
	CHECK_EQ(whole_prefix(nv, strlen(nv) - 8, why, sizeof why), -1); /* the end label lost */
	CHECK(strstr(why, "ends before a kernel does: cut short") != NULL);
	CHECK_EQ(whole_prefix(cuobj, strlen(cuobj) - 13, why, sizeof why), -1); /* the dots lost */
	CHECK(strstr(why, "ends before a kernel does") != NULL);
	CHECK_EQ(whole_prefix(nv, strlen(nv) - 1, why, sizeof why), -1); /* inside a line */
	CHECK(strstr(why, "ends inside a line") != NULL);
	CHECK_EQ(sass_whole("garbage\n", 8, why, sizeof why), -1);
	CHECK(strstr(why, "no instruction at offset 0000") != NULL);
	CHECK_EQ(sass_whole("", 0, why, sizeof why), -1);
}
