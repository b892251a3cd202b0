/*
 * bench_smoke: gpu.c + bench.c on a real GPU, without config.c or space.c.
 * A scale kernel (out[i] = c[0] * alpha * in[i], c a __constant__ set to 2) is tuned against a
 * double-precision reference; one variant is deliberately wrong, one cannot launch, one needs
 * opted-in shared memory, one asks for 8-byte banks, one faults (last: it kills the context).
 * Also times the copy roofline. Prints results; exits non-zero if an expectation fails.
 *
 * Build (from the repository root):
 *   F="-std=c11 -D_POSIX_C_SOURCE=200809L -O2 -I/usr/local/cuda/include"
 *   for f in gpu bench nvrtc expr util; do cc $F -c tuner/$f.c -o /tmp/$f.o; done
 *   cc $F -Ituner tests/gpu/bench_smoke.c /tmp/{gpu,bench,nvrtc,expr,util}.o \
 *      -L/usr/local/cuda/lib64 -lnvrtc -ldl -lm -o /tmp/bench_smoke
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "config.h"
#include "expr.h"
#include "gpu.h"
#include "nvrtc.h"
#include "space.h"
#include "util.h"

/* config.c is not linked (it needs libyaml): the two helpers bench.c uses */
size_t elem_size(enum elem t)
{
	return t == EL_F64 || t == EL_I64 || t == EL_U64 ? 8 : 4;
}

const char *elem_name(enum elem t)
{
	static const char *names[] = {"float", "double", "int", "unsigned", "long long",
	                              "unsigned long long"};
	return names[t];
}

static const char kernel_src[] =
	"#ifndef BUG\n#define BUG 0\n#endif\n"
	"__constant__ float scale_c[4];\n"
	"extern \"C\" __global__ void scale(float *__restrict__ out, const float *__restrict__ in,\n"
	"                                   int n, const float *tmp, float alpha)\n"
	"{\n"
	"\textern __shared__ float sh[];\n"
	"\tint i = blockIdx.x * blockDim.x * VEC + threadIdx.x;\n"
	"\tfloat s = scale_c[0] * alpha;\n"
	"\tif (SHMEM) { sh[threadIdx.x] = s; __syncthreads(); s = sh[(threadIdx.x + 1) % blockDim.x]; }\n"
	"#pragma unroll\n"
	"\tfor (int k = 0; k < VEC; k++, i += blockDim.x) {\n"
	"\t\tif (i < n) {\n"
	"\t\t\tfloat x = s * in[i];\n"
	"#if BUG == 1\n"
	"\t\t\tif (i % 1000 == 17) x = in[i];\n"
	"#endif\n"
	"\t\t\tout[i] = x;\n"
	"\t\t}\n"
	"\t}\n"
	"\tif (blockIdx.x == 0 && threadIdx.x == 0 && tmp[BLOCK * 4 - 1] != 7.0f)\n"
	"\t\tout[0] = -1.0f; /* the scratch buffer was not filled */\n"
	"#if BUG == 2\n"
	"\tif (blockIdx.x == 3) ((float *)16)[threadIdx.x] = 1.0f; /* illegal address */\n"
	"#endif\n"
	"}\n";

static const char ref_src[] =
	"extern \"C\" __global__ void scale_ref(float *out, const float *in, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n) out[i] = (float)(2.0 * (double)in[i]);\n"
	"}\n";

static int failures;

#define EXPECT(c, ...) do { if (!(c)) { failures++; printf("  EXPECTATION FAILED: %s: ", #c); \
	printf(__VA_ARGS__); printf("\n"); } } while (0)

static struct expr *E(const char *s)
{
	struct expr_err err;
	struct expr *e = expr_parse(s, &err);

	if (!e)
		die("expr '%s': %s", s, err.msg);
	return e;
}

static const char *status_name(enum run_status s)
{
	switch (s) {
	case RUN_OK: return "ok";
	case RUN_MISMATCH: return "mismatch";
	case RUN_FAULT: return "fault";
	case RUN_LAUNCH_ERROR: return "launch-error";
	}
	return "?";
}

/* a hand-made variant of the scale kernel */
struct vspec {
	const char *label;
	int block, vec, bug, shmem, bank;
	int64_t shared;
	enum run_status expect;
};

static int64_t n_size = 1 << 26; /* 64 Mi floats: 256 MiB in + 256 MiB out */

static void run_variant(struct bench *b, const struct config *c, const struct vars *sizes,
                        const char *arch, const struct vspec *s, double copy_gbs)
{
	struct variant v;
	struct compile_out co;
	struct run_result r;
	char d1[32], d2[32], d3[32], d4[32];
	char *opts[4] = {d1, d2, d3, d4};
	double t0;

	memset(&v, 0, sizeof v);
	snprintf(v.id, sizeof v.id, "%s", "vsmoke");
	v.vars = *sizes;
	vars_set(&v.vars, "BLOCK", s->block);
	vars_set(&v.vars, "VEC", s->vec);
	v.block[0] = s->block;
	v.block[1] = v.block[2] = 1;
	v.grid[0] = (n_size + (int64_t)s->block * s->vec - 1) / ((int64_t)s->block * s->vec);
	v.grid[1] = v.grid[2] = 1;
	v.shared = s->shared;
	v.bank_bytes = s->bank;
	v.bytes = 8 * n_size;
	snprintf(d1, sizeof d1, "-DBLOCK=%d", s->block);
	snprintf(d2, sizeof d2, "-DVEC=%d", s->vec);
	snprintf(d3, sizeof d3, "-DBUG=%d", s->bug);
	snprintf(d4, sizeof d4, "-DSHMEM=%d", s->shmem);
	t0 = now_s();
	if (!nv_compile(kernel_src, "scale.cu", c->kernel.entry, arch, opts, 4, &co)) {
		printf("%-22s compile failed:\n%s\n", s->label, co.log);
		failures++;
		nv_out_free(&co);
		return;
	}
	printf("%-22s compiled in %.0f ms (%d regs, lowered '%s')\n", s->label,
	       (now_s() - t0) * 1e3, co.regs, co.lowered);
	bench_variant(b, &v, &co, &r);
	printf("%-22s %-12s", s->label, status_name(r.status));
	if (r.status == RUN_OK)
		printf(" median %.4f ms  min %.4f  max %.4f  mean %.4f  spread %.3f  n %d  "
		       "%.0f GB/s (%.1f%% of copy)  maxabs %g  bank %d", r.t.median_ms, r.t.min_ms,
		       r.t.max_ms, r.t.mean_ms, r.t.spread, r.t.n,
		       (double)v.bytes / (r.t.median_ms * 1e6),
		       copy_gbs > 0 ? 100.0 * (double)v.bytes / (r.t.median_ms * 1e6) / copy_gbs : 0,
		       r.max_abs_err, r.bank_applied);
	else
		printf(" %s  [bad %zu, maxabs %g, maxrel %g, bank %d]", r.reason, r.bad, r.max_abs_err,
		       r.max_rel_err, r.bank_applied);
	printf("\n");
	EXPECT(r.status == s->expect, "%s: got %s, expected %s", s->label,
	       status_name(r.status), status_name(s->expect));
	if (s->expect == RUN_OK && r.status == RUN_OK)
		EXPECT(r.t.n == c->samples && r.t.median_ms > 0 && r.t.min_ms <= r.t.median_ms &&
		       r.t.median_ms <= r.t.max_ms, "%s: stats", s->label);
	if (s->expect == RUN_MISMATCH && r.status == RUN_MISMATCH)
		EXPECT(r.bad == (size_t)(n_size - 18) / 1000 + 1 && strstr(r.reason, "first at out[17]"),
		       "%s: bad %zu", s->label, r.bad);
	nv_out_free(&co);
}

int main(int argc, char **argv)
{
	struct gpu_info gpu;
	struct config c;
	struct buffer bufs[3];
	struct constant con;
	struct arg kargs[5], rargs[3];
	struct vars sizes = {0};
	struct compile_out ref, copy;
	struct bench *b;
	struct stats t;
	char why[256], slug[300], arch[16];
	double gbs = -1, t0;
	size_t i;

	(void)argc;
	argv0 = argv[0];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("SMOKE_N")) /* a smaller problem, e.g. for a host-only stand-in driver */
		n_size = atoll(getenv("SMOKE_N"));
	/* a device that is not there */
	EXPECT(gpu_open(99, &gpu, why, sizeof why) == -1, "ordinal 99 opened");
	printf("gpu_open(99): %s\n", why);
	t0 = now_s();
	if (gpu_open(0, &gpu, why, sizeof why) < 0) {
		printf("gpu_open: %s\n", why);
		return 1;
	}
	gpu_slug(&gpu, slug, sizeof slug);
	printf("gpu_open: %.0f ms; %s (%s): cc %d.%d, %d SMs, L2 %d KiB, %d threads/block, "
	       "smem %d / opt-in %d, driver %d, %.1f GiB\n", (now_s() - t0) * 1e3, gpu.name, slug,
	       gpu.cc_major, gpu.cc_minor, gpu.sms, gpu.l2_bytes / 1024, gpu.max_threads,
	       gpu.smem_block, gpu.smem_optin, gpu.driver_version,
	       (double)gpu.mem_bytes / (1 << 30));
	snprintf(arch, sizeof arch, "sm_%d%d", gpu.cc_major, gpu.cc_minor);
	printf("NVRTC %s, arch %s\n", nv_version(), arch);

	/* the config, by hand */
	memset(&c, 0, sizeof c);
	memset(bufs, 0, sizeof bufs);
	memset(&con, 0, sizeof con);
	vars_set(&sizes, "n", n_size);
	c.name = "smoke";
	bufs[0] = (struct buffer){.name = "in", .type = EL_F32, .count = E("n"), .role = ROLE_IN,
	                          .fill = {.kind = FILL_RANDOM, .seed = 1, .lo = -1, .hi = 1}};
	bufs[1] = (struct buffer){.name = "out", .type = EL_F32, .count = E("n"), .role = ROLE_OUT};
	bufs[2] = (struct buffer){.name = "tmp", .type = EL_F32, .count = E("BLOCK * 4"),
	                          .role = ROLE_SCRATCH, .fill = {.kind = FILL_CONST, .value = 7}};
	c.buffers = bufs;
	c.nbuffers = 3;
	con = (struct constant){.name = "scale_c", .type = EL_F32, .count = E("2"),
	                        .fill = {.kind = FILL_CONST, .value = 2}};
	c.constants = &con;
	c.nconstants = 1;
	kargs[0] = (struct arg){.buffer = 1};
	kargs[1] = (struct arg){.buffer = 0};
	kargs[2] = (struct arg){.buffer = -1, .value = E("n"), .type = EL_I32};
	kargs[3] = (struct arg){.buffer = 2};
	kargs[4] = (struct arg){.buffer = -1, .value = E("1"), .type = EL_F32};
	rargs[0] = kargs[0];
	rargs[1] = kargs[1];
	rargs[2] = (struct arg){.buffer = -1, .value = E("n"), .type = EL_I32};
	c.kernel.entry = "scale";
	c.kernel.args = kargs;
	c.kernel.nargs = 5;
	c.reference.entry = "scale_ref";
	c.reference.args = rargs;
	c.reference.nargs = 3;
	c.reference.launch.block[0] = E("256");
	c.reference.launch.grid[0] = E("ceil_div(n, 256)");
	c.has_reference = 1;
	c.rtol = 1e-6;
	c.atol = 0;
	c.warmup = 3;
	c.samples = 20;
	c.flush_l2 = 1;

	/* too big to allocate: a clean failure */
	{
		struct vars huge = {0};
		vars_set(&huge, "n", (int64_t)1 << 40);
		b = bench_open(&c, &huge, &gpu, why, sizeof why);
		EXPECT(!b, "a 4 TiB buffer was allocated");
		printf("bench_open(n=2^40): %s\n", why);
		bench_close(b);
	}

	t0 = now_s();
	b = bench_open(&c, &sizes, &gpu, why, sizeof why);
	if (!b) {
		printf("bench_open: %s\n", why);
		return 1;
	}
	printf("bench_open: %.0f ms (2 x %lld MiB filled and uploaded)\n", (now_s() - t0) * 1e3,
	       (long long)(n_size * 4 >> 20));

	nv_compile(ref_src, "ref.cu", "scale_ref", arch, NULL, 0, &ref);
	EXPECT(ref.ok, "reference compile: %s", ref.log);
	t0 = now_s();
	EXPECT(bench_reference(b, &ref, why, sizeof why) == 0, "reference: %s", why);
	printf("bench_reference: %.0f ms %s\n", (now_s() - t0) * 1e3, why);
	nv_out_free(&ref);

	nv_compile(bench_copy_source(), "copy.cu", "tuner_copy", arch, NULL, 0, &copy);
	EXPECT(copy.ok, "copy compile: %s", copy.log);
	t0 = now_s();
	gbs = bench_copy(b, &copy, (int64_t)1 << 30, &t, why, sizeof why);
	printf("bench_copy (2 x 512 MiB): %.1f GB/s  median %.4f ms  min %.4f  max %.4f  "
	       "spread %.3f  n %d  (%.0f ms) %s\n", gbs, t.median_ms, t.min_ms, t.max_ms, t.spread,
	       t.n, (now_s() - t0) * 1e3, why);
	EXPECT(gbs > 100, "copy GB/s %.1f", gbs);
	gbs = gbs > 0 ? gbs : 0;
	{
		struct stats t2;
		double g2 = bench_copy(b, &copy, 1 << 20, &t2, why, sizeof why);
		printf("bench_copy (small request, 2 x 64 MiB): %.1f GB/s  median %.4f ms %s\n", g2,
		       t2.median_ms, why);
	}
	nv_out_free(&copy);

	printf("bench_bank_probe(8) = %d, bench_bank_probe(4) = %d\n", bench_bank_probe(b, 8),
	       bench_bank_probe(b, 4));

	{
		static const struct vspec specs[] = {
			{"BLOCK=128 VEC=1", 128, 1, 0, 0, 0, 0, RUN_OK},
			{"BLOCK=256 VEC=1", 256, 1, 0, 0, 0, 0, RUN_OK},
			{"BLOCK=256 VEC=4", 256, 4, 0, 0, 0, 0, RUN_OK},
			{"BLOCK=512 VEC=2", 512, 2, 0, 0, 0, 0, RUN_OK},
			{"BLOCK=1024 VEC=1", 1024, 1, 0, 0, 0, 0, RUN_OK},
			{"wrong (BUG=1)", 256, 1, 1, 0, 0, 0, RUN_MISMATCH},
			{"block 2048", 2048, 1, 0, 0, 0, 0, RUN_LAUNCH_ERROR},
			{"shared 100 KiB", 256, 1, 0, 1, 0, 100 << 10, RUN_OK},
			{"shared 1 MiB", 256, 1, 0, 1, 0, 1 << 20, RUN_LAUNCH_ERROR},
			{"bank 8", 256, 1, 0, 1, 8, 1024, RUN_OK},
			{"fault (BUG=2)", 256, 1, 2, 0, 0, 0, RUN_FAULT},
			{"after the fault", 256, 1, 0, 0, 0, 0, RUN_FAULT},
		};
		for (i = 0; i < LEN(specs); i++)
			run_variant(b, &c, &sizes, arch, &specs[i], gbs);
	}
	EXPECT(bench_copy(b, &copy, 1 << 20, &t, why, sizeof why) < 0, "copy after a fault");
	printf("bench_copy after the fault: %s\n", why);
	EXPECT(bench_reference(b, &ref, why, sizeof why) < 0, "reference after a fault");
	printf("bench_reference after the fault: %s\n", why);
	bench_close(b);
	gpu_close();

	for (i = 0; i < 3; i++)
		expr_free(bufs[i].count);
	expr_free(con.count);
	expr_free(kargs[2].value);
	expr_free(kargs[4].value);
	expr_free(rargs[2].value);
	expr_free(c.reference.launch.block[0]);
	expr_free(c.reference.launch.grid[0]);
	printf("bench_smoke: %s (%d failed expectations)\n", failures ? "FAIL" : "PASS", failures);
	return failures != 0;
}
