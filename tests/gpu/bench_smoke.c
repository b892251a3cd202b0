/*
 * bench_smoke: gpu.c + bench.c (with devbuf.c, launch.c, timing.c) on a real GPU, without
 * config.c or space.c.
 * A scale kernel (out[i] = c[0] * alpha * in[i], c a __constant__ set to 2, and an integer
 * output idx[i] = 3 i + 1) is tuned against a double-precision reference; some variants are
 * deliberately wrong (a float off, outputs left unwritten, an integer off), one cannot launch,
 * one needs opted-in shared memory, one asks for 8-byte banks, one faults (last: it kills the
 * context). Also times the copy and read rooflines, and compares the L2 flush choices
 * (timing.flush_l2 false and true) on a problem that fits in L2 and on the rooflines.
 * Prints results; exits non-zero if an expectation fails. TUNER_BENCH_PROFILE=1 adds the time
 * each variant spends in setup, verification, timing and unloading.
 *
 * Build (from the repository root, after ./configure.py && ninja, which writes
 * out/gen/helpers_cu.c):
 *   F="-std=c11 -D_POSIX_C_SOURCE=200809L -O2 -I/usr/local/cuda/include"
 *   m="gpu bench devbuf launch timing nvrtc expr util"
 *   for f in $m; do cc $F -c tuner/$f.c -o /tmp/$f.o; done
 *   cc $F -Ituner tests/gpu/bench_smoke.c out/gen/helpers_cu.c \
 *      $(for f in $m; do echo /tmp/$f.o; done) \
 *      -L/usr/local/cuda/lib64 -lnvrtc -ldl -lm -o /tmp/bench_smoke
 */
#include <math.h>
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

/* config.c is not linked (it needs libyaml): the two helpers bench.c, devbuf.c and launch.c
   use */
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
	"                                   int n, const float *tmp, float alpha, int *idx)\n"
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
	"#if BUG == 3\n"
	"\t\t\tif (i % 5000 != 3)\n"
	"#endif\n"
	"\t\t\tout[i] = x;\n"
	"\t\t\tidx[i] = BUG == 4 && i == 12345 ? 0 : 3 * i + 1;\n"
	"\t\t}\n"
	"\t}\n"
	"\tif (blockIdx.x == 0 && threadIdx.x == 0 && tmp[BLOCK * 4 - 1] != 7.0f)\n"
	"\t\tout[0] = -1.0f; /* the scratch buffer was not filled */\n"
	"#if BUG == 2\n"
	"\tif (blockIdx.x == 3) ((float *)16)[threadIdx.x] = 1.0f; /* illegal address */\n"
	"#endif\n"
	"}\n";

static const char ref_src[] =
	"extern \"C\" __global__ void scale_ref(float *out, const float *in, int n, int *idx)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n) { out[i] = (float)(2.0 * (double)in[i]); idx[i] = 3 * i + 1; }\n"
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

/* compile, verify and time one variant; its median time (ms), or -1 */
static double run_variant(struct bench *b, const struct config *c, const struct vars *sizes,
                          const char *arch, const struct vspec *s, double copy_gbs)
{
	struct variant v;
	struct vars vars;
	struct compile_out co;
	struct run_result r;
	char d1[32], d2[32], d3[32], d4[32];
	char *opts[4] = {d1, d2, d3, d4};
	double t0;
	int64_t n = 0;

	vars_get(sizes, "n", &n);
	memset(&v, 0, sizeof v);
	snprintf(v.id, sizeof v.id, "%s", "vsmoke");
	vars = *sizes;
	vars_set(&vars, "BLOCK", s->block);
	vars_set(&vars, "VEC", s->vec);
	v.block[0] = s->block;
	v.block[1] = v.block[2] = 1;
	v.grid[0] = (n + (int64_t)s->block * s->vec - 1) / ((int64_t)s->block * s->vec);
	v.grid[1] = v.grid[2] = 1;
	v.shared = s->shared;
	v.bank_bytes = s->bank;
	v.bytes = 12 * n;
	snprintf(d1, sizeof d1, "-DBLOCK=%d", s->block);
	snprintf(d2, sizeof d2, "-DVEC=%d", s->vec);
	snprintf(d3, sizeof d3, "-DBUG=%d", s->bug);
	snprintf(d4, sizeof d4, "-DSHMEM=%d", s->shmem);
	t0 = now_s();
	if (!nv_compile(kernel_src, "scale.cu", c->kernel.entry, arch, opts, 4, &co)) {
		printf("%-22s compile failed:\n%s\n", s->label, co.log);
		failures++;
		nv_out_free(&co);
		return -1;
	}
	printf("%-22s compiled in %.0f ms (%d regs, lowered '%s')\n", s->label,
	       (now_s() - t0) * 1e3, co.regs, co.lowered);
	bench_variant(b, &v, &vars, &co, &r);
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
	if (s->expect == RUN_MISMATCH && r.status == RUN_MISMATCH && s->bug == 1)
		EXPECT(r.bad == (size_t)(n - 18) / 1000 + 1 && strstr(r.reason, "first at out[17]"),
		       "%s: bad %zu", s->label, r.bad);
	if (s->expect == RUN_MISMATCH && r.status == RUN_MISMATCH && s->bug == 3)
		EXPECT(r.bad == (size_t)(n - 4) / 5000 + 1 &&
		       strstr(r.reason, "first at out[3]: ") && strstr(r.reason, "nan vs ") && isinf(r.max_abs_err),
		       "%s: bad %zu", s->label, r.bad);
	if (s->expect == RUN_MISMATCH && r.status == RUN_MISMATCH && s->bug == 4)
		EXPECT(r.bad == 1 && strstr(r.reason, "first at idx[12345]: 0 vs 37036") &&
		       r.max_abs_err == 37036, "%s: bad %zu", s->label, r.bad);
	if (s->expect == RUN_OK && r.status == RUN_OK)
		EXPECT(r.bad == 0 && r.max_rel_err <= 1e-6, "%s: max rel err %g", s->label,
		       r.max_rel_err);
	nv_out_free(&co);
	return r.status == RUN_OK ? r.t.median_ms : -1;
}

/* the smoke config, by hand */
struct smoke {
	struct config c;
	struct buffer bufs[4];
	struct constant con;
	struct arg kargs[6], rargs[4];
};

static void smoke_config(struct smoke *k)
{
	struct config *c = &k->c;

	memset(k, 0, sizeof *k);
	c->name = "smoke";
	k->bufs[0] = (struct buffer){.name = "in", .type = EL_F32, .count = E("n"), .role = ROLE_IN,
	                             .fill = {.kind = FILL_RANDOM, .seed = 1, .lo = -1, .hi = 1}};
	k->bufs[1] = (struct buffer){.name = "out", .type = EL_F32, .count = E("n"),
	                             .role = ROLE_OUT};
	k->bufs[2] = (struct buffer){.name = "tmp", .type = EL_F32, .count = E("BLOCK * 4"),
	                             .role = ROLE_SCRATCH, .fill = {.kind = FILL_CONST, .value = 7}};
	k->bufs[3] = (struct buffer){.name = "idx", .type = EL_I32, .count = E("n"),
	                             .role = ROLE_OUT};
	c->buffers = k->bufs;
	c->nbuffers = 4;
	k->con = (struct constant){.name = "scale_c", .type = EL_F32, .count = E("2"),
	                           .fill = {.kind = FILL_CONST, .value = 2}};
	c->constants = &k->con;
	c->nconstants = 1;
	k->kargs[0] = (struct arg){.buffer = 1};
	k->kargs[1] = (struct arg){.buffer = 0};
	k->kargs[2] = (struct arg){.buffer = -1, .value = E("n"), .type = EL_I32};
	k->kargs[3] = (struct arg){.buffer = 2};
	k->kargs[4] = (struct arg){.buffer = -1, .value = E("1"), .type = EL_F32};
	k->kargs[5] = (struct arg){.buffer = 3};
	k->rargs[0] = k->kargs[0];
	k->rargs[1] = k->kargs[1];
	k->rargs[2] = (struct arg){.buffer = -1, .value = E("n"), .type = EL_I32};
	k->rargs[3] = k->kargs[5];
	c->kernel.entry = "scale";
	c->kernel.args = k->kargs;
	c->kernel.nargs = 6;
	c->reference.entry = "scale_ref";
	c->reference.args = k->rargs;
	c->reference.nargs = 4;
	c->reference.launch.block[0] = E("256");
	c->reference.launch.grid[0] = E("ceil_div(n, 256)");
	c->has_reference = 1;
	c->rtol = 1e-6;
	c->atol = 0;
	c->warmup = 3;
	c->samples = 20;
	c->flush_l2 = 1;
}

static void smoke_free(struct smoke *k)
{
	size_t i;

	for (i = 0; i < 4; i++)
		expr_free(k->bufs[i].count);
	expr_free(k->con.count);
	expr_free(k->kargs[2].value);
	expr_free(k->kargs[4].value);
	expr_free(k->rargs[2].value);
	expr_free(k->c.reference.launch.block[0]);
	expr_free(k->c.reference.launch.grid[0]);
}

/* open a bench for c at n and make it ready (helpers, reference); NULL on failure */
static struct bench *ready(const struct config *c, int64_t n, struct vars *sizes,
                           const struct gpu_info *gpu, const struct compile_out *helpers,
                           const struct compile_out *ref)
{
	char why[256];
	double t0 = now_s(), t1, t2;
	struct bench *b;

	memset(sizes, 0, sizeof *sizes);
	vars_set(sizes, "n", n);
	b = bench_open(c, sizes, gpu, why, sizeof why);
	EXPECT(b != NULL, "bench_open(n=%lld): %s", (long long)n, why);
	if (!b)
		return NULL;
	t1 = now_s();
	EXPECT(bench_helpers(b, helpers, why, sizeof why) == 0, "helpers: %s", why);
	t2 = now_s();
	EXPECT(bench_reference(b, ref, why, sizeof why) == 0, "reference: %s", why);
	printf("n=%lld (%s flush): bench_open %.1f ms, bench_helpers (load, fill, check) %.1f ms, "
	       "bench_reference %.1f ms\n", (long long)n, timing_method(c), (t1 - t0) * 1e3,
	       (t2 - t1) * 1e3, (now_s() - t2) * 1e3);
	return b;
}

/* a read-mostly kernel for the flush check: out[b] = sum of in[1024 b, 1024 b + 1024) */
static const char bsum_src[] =
	"extern \"C\" __global__ void bsum(float *out, const float *in, int n)\n"
	"{\n"
	"\t__shared__ float s[256];\n"
	"\tfloat4 v = reinterpret_cast<const float4 *>(in + (size_t)blockIdx.x * 1024)[threadIdx.x];\n"
	"\ts[threadIdx.x] = (v.x + v.y) + (v.z + v.w);\n"
	"\t__syncthreads();\n"
	"\tfor (int d = 128; d > 0; d >>= 1) {\n"
	"\t\tif (threadIdx.x < d)\n"
	"\t\t\ts[threadIdx.x] += s[threadIdx.x + d];\n"
	"\t\t__syncthreads();\n"
	"\t}\n"
	"\tif (threadIdx.x == 0)\n"
	"\t\tout[blockIdx.x] = s[0];\n"
	"}\n"
	"extern \"C\" __global__ void bsum_ref(float *out, const float *in, int n)\n"
	"{\n"
	"\tint b = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tdouble acc = 0;\n"
	"\tif (b >= n / 1024)\n"
	"\t\treturn;\n"
	"\tfor (int k = 0; k < 1024; k++)\n"
	"\t\tacc += in[(size_t)b * 1024 + k];\n"
	"\tout[b] = (float)acc;\n"
	"}\n";

/* without and with the L2 flush: the block sum over 16 MiB, which fits in L2 (a flush that
   evicts must make it slower than no flush), and the rooflines */
static void flush_modes(const struct gpu_info *gpu, const char *arch,
                        const struct compile_out *helpers)
{
	static const char *modes[] = {"none", "read"}; /* timing.flush_l2 false, true */
	const int64_t n = 1 << 22;
	double small[2] = {0}, copy[2] = {0}, rd[2] = {0};
	struct compile_out kern, ref;
	struct config c;
	struct buffer bufs[2];
	struct arg args[3];
	struct variant v;
	struct vars sizes;
	struct stats t;
	char why[256];
	size_t m;

	memset(&c, 0, sizeof c);
	bufs[0] = (struct buffer){.name = "in", .type = EL_F32, .count = E("n"), .role = ROLE_IN,
	                          .fill = {.kind = FILL_RANDOM, .seed = 5, .lo = -1, .hi = 1}};
	bufs[1] = (struct buffer){.name = "out", .type = EL_F32, .count = E("n / 1024"),
	                          .role = ROLE_OUT};
	args[0] = (struct arg){.buffer = 1};
	args[1] = (struct arg){.buffer = 0};
	args[2] = (struct arg){.buffer = -1, .value = E("n"), .type = EL_I32};
	c.name = "bsum";
	c.buffers = bufs;
	c.nbuffers = 2;
	c.kernel.entry = "bsum";
	c.kernel.args = args;
	c.kernel.nargs = 3;
	c.reference.entry = "bsum_ref";
	c.reference.launch.block[0] = E("128");
	c.reference.launch.grid[0] = E("ceil_div(n / 1024, 128)");
	c.has_reference = 1;
	c.rtol = c.atol = 1e-4;
	c.warmup = 3;
	c.samples = 50;
	nv_compile(bsum_src, "bsum.cu", "bsum", arch, NULL, 0, &kern);
	nv_compile(bsum_src, "bsum.cu", "bsum_ref", arch, NULL, 0, &ref);
	EXPECT(kern.ok && ref.ok, "bsum compile: %s %s", kern.log, ref.log);
	for (m = 0; m < LEN(modes); m++) {
		struct bench *b;
		struct run_result r;
		c.flush_l2 = (int)m;
		b = ready(&c, n, &sizes, gpu, helpers, &ref);
		if (!b)
			continue;
		memset(&v, 0, sizeof v);
		snprintf(v.id, sizeof v.id, "vbsum");
		v.block[0] = 256;
		v.grid[0] = n / 1024;
		v.block[1] = v.block[2] = v.grid[1] = v.grid[2] = 1;
		bench_variant(b, &v, &sizes, &kern, &r);
		EXPECT(r.status == RUN_OK, "bsum (%s flush): %s", modes[m], r.reason);
		small[m] = r.t.median_ms;
		copy[m] = bench_copy(b, NULL, (int64_t)1 << 29, &t, why, sizeof why);
		EXPECT(copy[m] > 0, "copy: %s", why);
		rd[m] = bench_read(b, (int64_t)1 << 28, &t, why, sizeof why);
		EXPECT(rd[m] > 0, "read: %s", why);
		bench_close(b);
	}
	printf("flush   16 MiB block sum (ms)   copy 2 x 256 MiB (GB/s)   read 256 MiB (GB/s)\n");
	for (m = 0; m < LEN(modes); m++)
		printf("%-7s %22.4f %25.1f %21.1f\n", modes[m], small[m], copy[m], rd[m]);
	EXPECT(small[1] > 1.1 * small[0], "the read flush does not evict: %.4f ms with it, "
	       "%.4f ms without", small[1], small[0]);
	nv_out_free(&kern);
	nv_out_free(&ref);
	expr_free(bufs[0].count);
	expr_free(bufs[1].count);
	expr_free(args[2].value);
	expr_free(c.reference.launch.block[0]);
	expr_free(c.reference.launch.grid[0]);
}

int main(int argc, char **argv)
{
	struct gpu_info gpu;
	struct smoke k;
	struct config *c = &k.c;
	struct vars sizes = {0};
	struct compile_out ref, helpers;
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
	smoke_config(&k);

	t0 = now_s();
	nv_compile(bench_helpers_source(), "tuner_copy.cu", "tuner_copy", arch, NULL, 0, &helpers);
	EXPECT(helpers.ok, "helpers compile: %s", helpers.log);
	nv_compile(ref_src, "ref.cu", "scale_ref", arch, NULL, 0, &ref);
	EXPECT(ref.ok, "reference compile: %s", ref.log);
	printf("helpers and reference compiled in %.0f ms\n", (now_s() - t0) * 1e3);

	/* too big to allocate: a clean failure */
	{
		struct vars huge = {0};
		vars_set(&huge, "n", (int64_t)1 << 40);
		b = bench_open(c, &huge, &gpu, why, sizeof why);
		EXPECT(!b, "a 4 TiB buffer was allocated");
		printf("bench_open(n=2^40): %s\n", why);
		bench_close(b);
	}
	/* the reference needs the helpers */
	vars_set(&sizes, "n", 4099);
	b = bench_open(c, &sizes, &gpu, why, sizeof why);
	EXPECT(b && bench_reference(b, &ref, why, sizeof why) < 0 && strstr(why, "bench_helpers"),
	       "reference before bench_helpers: %s", why);
	bench_close(b);

	if (!getenv("SMOKE_NO_FLUSH_MODES"))
		flush_modes(&gpu, arch, &helpers);

	b = ready(c, n_size, &sizes, &gpu, &helpers, &ref);
	if (!b)
		return 1;
	t0 = now_s();
	gbs = bench_copy(b, NULL, (int64_t)1 << 30, &t, why, sizeof why);
	printf("bench_copy (2 x 512 MiB): %.1f GB/s  median %.4f ms  min %.4f  max %.4f  "
	       "spread %.3f  n %d  (%.0f ms) %s\n", gbs, t.median_ms, t.min_ms, t.max_ms, t.spread,
	       t.n, (now_s() - t0) * 1e3, why);
	EXPECT(gbs > 100, "copy GB/s %.1f", gbs);
	gbs = gbs > 0 ? gbs : 0;
	{
		struct stats t2;
		double g2 = bench_copy(b, NULL, 1 << 20, &t2, why, sizeof why);
		printf("bench_copy (small request, 2 x 64 MiB): %.1f GB/s  median %.4f ms %s\n", g2,
		       t2.median_ms, why);
		t0 = now_s();
		g2 = bench_read(b, (int64_t)1 << 29, &t2, why, sizeof why);
		printf("bench_read (512 MiB): %.1f GB/s  median %.4f ms  spread %.3f  (%.0f ms) %s\n",
		       g2, t2.median_ms, t2.spread, (now_s() - t0) * 1e3, why);
		EXPECT(g2 > 100, "read GB/s %.1f", g2);
	}

	printf("bench_bank_probe(8) = %d, bench_bank_probe(4) = %d, without a bench: %d\n",
	       bench_bank_probe(b, 8), bench_bank_probe(b, 4), bench_bank_probe(NULL, 8));

	{
		static const struct vspec specs[] = {
			{"BLOCK=128 VEC=1", 128, 1, 0, 0, 0, 0, RUN_OK},
			{"BLOCK=256 VEC=1", 256, 1, 0, 0, 0, 0, RUN_OK},
			{"BLOCK=256 VEC=4", 256, 4, 0, 0, 0, 0, RUN_OK},
			{"BLOCK=512 VEC=2", 512, 2, 0, 0, 0, 0, RUN_OK},
			{"BLOCK=1024 VEC=1", 1024, 1, 0, 0, 0, 0, RUN_OK},
			{"wrong (BUG=1)", 256, 1, 1, 0, 0, 0, RUN_MISMATCH},
			{"unwritten (BUG=3)", 256, 1, 3, 0, 0, 0, RUN_MISMATCH},
			{"wrong int (BUG=4)", 256, 1, 4, 0, 0, 0, RUN_MISMATCH},
			{"block 2048", 2048, 1, 0, 0, 0, 0, RUN_LAUNCH_ERROR},
			{"shared 100 KiB", 256, 1, 0, 1, 0, 100 << 10, RUN_OK},
			{"shared 1 MiB", 256, 1, 0, 1, 0, 1 << 20, RUN_LAUNCH_ERROR},
			{"bank 8", 256, 1, 0, 1, 8, 1024, RUN_OK},
			{"fault (BUG=2)", 256, 1, 2, 0, 0, 0, RUN_FAULT},
			{"after the fault", 256, 1, 0, 0, 0, 0, RUN_FAULT},
		};
		for (i = 0; i < LEN(specs); i++)
			run_variant(b, c, &sizes, arch, &specs[i], gbs);
	}
	EXPECT(bench_copy(b, NULL, 1 << 20, &t, why, sizeof why) < 0, "copy after a fault");
	printf("bench_copy after the fault: %s\n", why);
	EXPECT(bench_read(b, 1 << 20, &t, why, sizeof why) < 0, "read after a fault");
	printf("bench_read after the fault: %s\n", why);
	EXPECT(bench_reference(b, &ref, why, sizeof why) < 0, "reference after a fault");
	printf("bench_reference after the fault: %s\n", why);
	bench_close(b);
	gpu_close();
	nv_out_free(&ref);
	nv_out_free(&helpers);
	smoke_free(&k);
	printf("bench_smoke: %s (%d failed expectations)\n", failures ? "FAIL" : "PASS", failures);
	return failures != 0;
}
