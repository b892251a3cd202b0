/* Tests for nvrtc (compile, resource usage), cache (keys, entries, corruption) and pool. */
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "cache.h"
#include "compile.h"
#include "config.h"
#include "../tuner/nvrtc.h" /* the tuner's: -I puts the toolkit's nvrtc.h first */
#include "source.h"
#include "space.h"
#include "test.h"
#include "util.h"

static const char k_src[] =
	"extern \"C\" __global__ void k(float *x)\n"
	"{\n"
	"\t__shared__ float s[256];\n"
	"\ts[threadIdx.x] = x[threadIdx.x];\n"
	"\t__syncthreads();\n"
	"\tx[threadIdx.x] = s[255 - threadIdx.x];\n"
	"}\n";

static const char bad_src[] =
	"extern \"C\" __global__ void k(float *x)\n"
	"{\n"
	"\tx[0] = 1.0f\n" /* missing ';' */
	"}\n";

static char *tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	char *d = xasprintf("%s/tuner-test-XXXXXX", t && *t ? t : "/tmp");

	if (!mkdtemp(d))
		fatal("mkdtemp %s:", d);
	return d;
}

/* rm -r */
static void rmtree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *de;

	if (lstat(path, &st) < 0)
		return;
	if (S_ISDIR(st.st_mode) && (d = opendir(path))) {
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			char *p = xasprintf("%s/%s", path, de->d_name);
			rmtree(p);
			free(p);
		}
		closedir(d);
		rmdir(path);
	} else {
		unlink(path);
	}
}

/* overwrite path with data (no fsync: the tests write many) */
static int put_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	int r;

	if (!f)
		return -1;
	r = fwrite(data, 1, len, f) == len ? 0 : -1;
	return fclose(f) == 0 ? r : -1;
}

static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static int is_elf(const struct compile_out *o)
{
	return o->cubin && o->cubin_len > 4 && !memcmp(o->cubin, "\177ELF", 4);
}

TEST(nvrtc_extern_c)
{
	struct compile_out o;

	CHECK_EQ(nv_compile(k_src, "k.cu", "k", "sm_90", NULL, 0, &o), 1);
	CHECK_EQ(o.ok, 1);
	CHECK(is_elf(&o));
	CHECK(o.regs > 0);
	CHECK_EQ(o.smem_static, 256 * 4);
	CHECK_EQ(o.stack, 0);
	CHECK_EQ(o.spill_stores, 0);
	CHECK_STR(o.lowered, "k");
	CHECK(o.log && strstr(o.log, "Compiling entry function 'k'"));
	nv_out_free(&o);
}

TEST(nvrtc_mangled)
{
	static const char src[] =
		"template <int N> __global__ void scale(float *x, float a)\n"
		"{\n"
		"\tfor (int i = 0; i < N; i++) x[threadIdx.x * N + i] *= a;\n"
		"}\n"
		"__global__ void other(float *x) { x[0] = 0; }\n";
	struct compile_out o;

	CHECK_EQ(nv_compile(src, "scale.cu", "scale<4>", "sm_90", NULL, 0, &o), 1);
	CHECK(is_elf(&o));
	CHECK(!strncmp(o.lowered, "_Z", 2) && strstr(o.lowered, "scale"));
	CHECK(o.regs > 0);
	CHECK_EQ(o.smem_static, 0);
	nv_out_free(&o);
}

TEST(nvrtc_stack_and_options)
{
	/* a local array written at data-dependent indices lives in local memory: a stack frame */
	static const char src[] =
		"__global__ void spill(float *x, int i)\n"
		"{\n"
		"\tfloat a[N];\n"
		"\tfor (int j = 0; j < N; j++) a[j] = x[j];\n"
		"\tfor (int j = 0; j < N; j++) a[(int)x[N + j] & (N - 1)] += 1.0f;\n"
		"\tx[0] = a[i & (N - 1)];\n"
		"}\n";
	char *opts[] = {"-DN=64", "-maxrregcount=32"};
	struct compile_out o;

	CHECK_EQ(nv_compile(src, "spill.cu", "spill", "sm_90", opts, LEN(opts), &o), 1);
	CHECK(is_elf(&o));
	CHECK(o.stack > 0 || o.spill_stores > 0);
	CHECK(o.stack >= 64 * 4);
	CHECK(o.regs > 0 && o.regs <= 32);
	nv_out_free(&o);

	/* without -DN the source does not compile: user options do reach NVRTC */
	CHECK_EQ(nv_compile(src, "spill.cu", "spill", "sm_90", NULL, 0, &o), 0);
	nv_out_free(&o);
}

TEST(nvrtc_error)
{
	struct compile_out o;

	CHECK_EQ(nv_compile(bad_src, "bad.cu", "k", "sm_90", NULL, 0, &o), 0);
	CHECK_EQ(o.ok, 0);
	CHECK(o.cubin == NULL);
	CHECK_EQ(o.cubin_len, 0);
	CHECK(o.log && strstr(o.log, "bad.cu") && strstr(o.log, "error"));
	CHECK(o.lowered != NULL);
	nv_out_free(&o);

	/* an architecture NVRTC does not know: a log, not a crash */
	CHECK_EQ(nv_compile(k_src, "k.cu", "k", "sm_1", NULL, 0, &o), 0);
	CHECK(o.log && *o.log);
	nv_out_free(&o);
}

/* cfg's kept variants at the start, the middle and the end, each compiled with -minimal and
   without: the same cubin, byte for byte, and the same resource figures */
static void minimal_same(const char *cfg)
{
	struct space s;
	char *tmpl;
	struct config *c = test_expand(cfg, &s, &tmpl);
	size_t kept[3], nk = 0, i;

	for (i = 0; i < s.n && nk < 1; i++)
		if (!s.v[i].drop)
			kept[nk++] = i;
	for (i = s.n / 2; i < s.n && nk < 2; i++)
		if (!s.v[i].drop)
			kept[nk++] = i;
	for (i = s.n; i-- > 0 && nk < 3;)
		if (!s.v[i].drop)
			kept[nk++] = i;
	CHECK_EQ(nk, 3);
	for (i = 0; i < nk; i++) {
		struct compile_out a, b;
		char *src = source_variant(c, &s.v[kept[i]], tmpl);
		nv_minimal(1);
		nv_compile(src, "k.cu", c->kernel.entry, "sm_90", c->options, c->noptions, &a);
		CHECK_EQ(nv_minimal_on(), 1); /* it compiled with -minimal */
		nv_minimal(0);
		nv_compile(src, "k.cu", c->kernel.entry, "sm_90", c->options, c->noptions, &b);
		CHECK(a.ok && b.ok);
		CHECK(a.cubin_len == b.cubin_len && a.cubin_len > 0 &&
		      !memcmp(a.cubin, b.cubin, a.cubin_len));
		CHECK_EQ(a.regs, b.regs);
		CHECK_EQ(a.smem_static, b.smem_static);
		CHECK_STR(a.lowered, b.lowered);
		nv_out_free(&a);
		nv_out_free(&b);
		free(src);
	}
	nv_minimal(-1);
	space_free(&s);
	free(tmpl);
	cfg_free(c);
}

TEST(nvrtc_minimal_same)
{
	struct compile_out o;

	/* the tuner's own kernels (copy, read, flush, compare) need nothing -minimal leaves out */
	nv_minimal(1);
	CHECK_EQ(nv_compile(bench_helpers_source(), "tuner_helpers.cu", "tuner_copy", "sm_90", NULL,
	                    0, &o), 1);
	CHECK_EQ(nv_minimal_on(), 1);
	nv_out_free(&o);
	minimal_same("configs/filter21.yaml");
	minimal_same("configs/transpose.yaml");
	minimal_same("configs/reduction.yaml");
	minimal_same("configs/stencil2d.yaml");
}

TEST(nvrtc_minimal_fallback)
{
	/* what -minimal leaves out: the runtime's texture objects and error type */
	static const char tex_src[] =
		"extern \"C\" __global__ void k(float *x, cudaTextureObject_t t)\n"
		"{\n"
		"\tcudaError_t e = cudaSuccess;\n"
		"\tx[threadIdx.x] = tex1Dfetch<float>(t, threadIdx.x) + (float)e;\n"
		"}\n";
	struct compile_out o;

	nv_minimal(1);
	/* a program's own error: the log is the compile's without -minimal, which stays on */
	CHECK_EQ(nv_compile(bad_src, "bad.cu", "k", "sm_90", NULL, 0, &o), 0);
	CHECK(o.log && strstr(o.log, "bad.cu") && strstr(o.log, "error"));
	CHECK_EQ(nv_minimal_on(), 1);
	nv_out_free(&o);
	/* a program that needs what it leaves out compiles, and the later ones go without it */
	CHECK_EQ(nv_compile(tex_src, "tex.cu", "k", "sm_90", NULL, 0, &o), 1);
	CHECK(is_elf(&o));
	CHECK(o.log && !strstr(o.log, "error"));
	CHECK_EQ(nv_minimal_on(), 0);
	nv_out_free(&o);
	CHECK_EQ(nv_compile(k_src, "k.cu", "k", "sm_90", NULL, 0, &o), 1);
	CHECK_EQ(nv_minimal_on(), 0);
	nv_out_free(&o);
	/* TUNER_NVRTC_MINIMAL=0: never */
	setenv("TUNER_NVRTC_MINIMAL", "0", 1);
	nv_minimal(-1);
	CHECK_EQ(nv_minimal_on(), 0);
	unsetenv("TUNER_NVRTC_MINIMAL");
	nv_minimal(-1);
	CHECK_EQ(nv_minimal_on(), 1);
	nv_minimal(-1);
}

TEST(nvrtc_arch_version)
{
	const char *v = nv_version(), *a = nv_newest_arch();
	int major = -1, minor = -1, num = 0;
	char tail = 0;

	CHECK_EQ(sscanf(v, "%d.%d%c", &major, &minor, &tail), 2);
	CHECK(major >= 12);
	CHECK_EQ(sscanf(a, "sm_%d%c", &num, &tail), 1);
	CHECK(num >= 90);
	CHECK_EQ(nv_arch_supported(a), 1);
	CHECK_EQ(nv_arch_supported("sm_90"), 1);
	CHECK_EQ(nv_arch_supported("sm_90a"), 1);
	CHECK_EQ(nv_arch_supported("sm_9x"), 0);
	CHECK_EQ(nv_arch_supported("sm_"), 0);
	CHECK_EQ(nv_arch_supported("sm_90 "), 0);
	CHECK_EQ(nv_arch_supported("sm_090"), 0);
	CHECK_EQ(nv_arch_supported("compute_90"), 0);
	CHECK_EQ(nv_arch_supported("sm_1"), 0);
	CHECK_EQ(nv_arch_supported("sm_75a"), 0);
	CHECK_EQ(nv_arch_supported(""), 0);
}

TEST(cache_key_unambiguous)
{
	char *o1[] = {"a", "b"}, *o2[] = {"ab"}, *o3[] = {"a b"}, *o4[] = {"-DX=1"}, *o5[] = {"-DX=2"};
	struct buf a = {0}, b = {0};

	cache_key(&a, "src", "k", "sm_90", o1, 2);
	cache_key(&b, "src", "k", "sm_90", o1, 2);
	CHECK(a.len == b.len && !memcmp(a.s, b.s, a.len));
	CHECK(strstr(a.s, nv_version()) && strstr(a.s, "sm_90"));
	cache_key(&b, "src", "k", "sm_90", o2, 1);
	CHECK(a.len != b.len || memcmp(a.s, b.s, a.len));
	cache_key(&a, "src", "k", "sm_90", o3, 1);
	CHECK(a.len != b.len || memcmp(a.s, b.s, a.len));
	cache_key(&a, "src", "k", "sm_90", o4, 1);
	cache_key(&b, "src", "k", "sm_90", o5, 1);
	CHECK(a.len != b.len || memcmp(a.s, b.s, a.len));
	cache_key(&a, "xsrc", "k", "sm_90", NULL, 0);
	cache_key(&b, "src", "kx", "sm_90", NULL, 0);
	CHECK(a.len != b.len || memcmp(a.s, b.s, a.len));
	cache_key(&a, "src", "k", "sm_90", NULL, 0);
	cache_key(&b, "src", "k", "sm_100", NULL, 0);
	CHECK(a.len != b.len || memcmp(a.s, b.s, a.len));
	buf_free(&a);
	buf_free(&b);
}

/* a result with every field set, its cubin holding NUL and high bytes */
static void fake_out(struct compile_out *o, int ok)
{
	static const unsigned char cubin[] = {0x7f, 'E', 'L', 'F', 0, 1, 0xff, 0x80, 0, 42};

	memset(o, 0, sizeof *o);
	o->ok = ok;
	o->log = xstrdup(ok ? "ptxas info    : Used 10 registers\n" : "bad.cu(3): error: expected a \";\"\n");
	o->lowered = xstrdup(ok ? "_Z5scaleILi4EEvPff" : "k");
	if (ok) {
		o->cubin = xmalloc(sizeof cubin);
		memcpy(o->cubin, cubin, sizeof cubin);
		o->cubin_len = sizeof cubin;
	}
	o->regs = ok ? 10 : -1;
	o->spill_stores = 8;
	o->spill_loads = 12;
	o->stack = 1024;
	o->smem_static = 49152;
}

static int same_out(const struct compile_out *a, const struct compile_out *b)
{
	return a->ok == b->ok && a->regs == b->regs && a->spill_stores == b->spill_stores &&
	       a->spill_loads == b->spill_loads && a->stack == b->stack &&
	       a->smem_static == b->smem_static && !strcmp(a->log, b->log) &&
	       !strcmp(a->lowered, b->lowered) && a->cubin_len == b->cubin_len &&
	       (!a->cubin_len || !memcmp(a->cubin, b->cubin, a->cubin_len));
}

TEST(cache_roundtrip)
{
	char *root = tmpdir(), *dir = xasprintf("%s/a/b", root);
	char *opts[] = {"-DX=1"}, *opts2[] = {"-DX=2"};
	struct compile_out o, g, f;
	struct buf key = {0}, key2 = {0};

	fake_out(&o, 1);
	cache_key(&key, "src", "scale<4>", "sm_90", opts, 1);
	CHECK_EQ(cache_get(dir, &key, &g), 0); /* no directory yet */
	CHECK_EQ(cache_put(dir, &key, &o), 0);
	CHECK_EQ(count_entries(dir), 1);
	CHECK_EQ(cache_get(dir, &key, &g), 1);
	CHECK(same_out(&o, &g));
	nv_out_free(&g);

	/* one option changed, the source changed by one byte, another arch: misses */
	cache_key(&key2, "src", "scale<4>", "sm_90", opts2, 1);
	CHECK_EQ(cache_get(dir, &key2, &g), 0);
	cache_key(&key2, "srd", "scale<4>", "sm_90", opts, 1);
	CHECK_EQ(cache_get(dir, &key2, &g), 0);
	cache_key(&key2, "src", "scale<4>", "sm_89", opts, 1);
	CHECK_EQ(cache_get(dir, &key2, &g), 0);

	/* a failed compilation is stored too, log and all */
	fake_out(&f, 0);
	CHECK_EQ(cache_put(dir, &key2, &f), 0);
	CHECK_EQ(cache_get(dir, &key2, &g), 1);
	CHECK(same_out(&f, &g));
	CHECK(g.cubin == NULL);
	nv_out_free(&g);

	/* an unusable directory: -1, not a crash */
	char *file = xasprintf("%s/file", root);
	CHECK_EQ(file_write_atomic(file, "x", 1), 0);
	CHECK_EQ(cache_put(file, &key, &o), -1);
	CHECK_EQ(cache_get(file, &key, &g), 0);

	nv_out_free(&o);
	nv_out_free(&f);
	buf_free(&key);
	buf_free(&key2);
	rmtree(root);
	free(file);
	free(dir);
	free(root);
}

/* the single entry file in dir (malloc'd path) */
static char *only_entry(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *p = NULL;

	while (d && (de = readdir(d)))
		if (strstr(de->d_name, ".bin"))
			p = xasprintf("%s/%s", dir, de->d_name);
	if (d)
		closedir(d);
	return p;
}

TEST(cache_corrupt)
{
	char *dir = tmpdir(), *path, *data, *copy;
	struct compile_out o, g;
	struct buf key = {0}, other = {0};
	size_t len, l;
	int bad_hits = 0;

	fake_out(&o, 1);
	cache_key(&key, "src", "k", "sm_90", NULL, 0);
	CHECK_EQ(cache_put(dir, &key, &o), 0);
	path = only_entry(dir);
	CHECK(path != NULL);
	if (!path)
		return;
	data = file_read(path, &len);
	CHECK(data && len > 16 && !memcmp(data, "TUNRCAC2", 8));

	/* every truncation is a miss (short of the magic) or corrupt */
	for (l = 0; l < len; l++) {
		CHECK_EQ(put_file(path, data, l), 0);
		int got = cache_get(dir, &key, &g);
		if (got == CACHE_HIT) {
			bad_hits++;
			nv_out_free(&g);
		}
		if (got != (l < 8 ? CACHE_MISS : CACHE_CORRUPT))
			bad_hits++;
	}
	CHECK_EQ(bad_hits, 0);
	/* any one bit flipped after the magic: the cubin, the register count, the checksum */
	for (l = 8; l < len; l++) {
		memcpy(copy = xmalloc(len), data, len);
		copy[l] ^= 0x10;
		CHECK_EQ(put_file(path, copy, len), 0);
		if (cache_get(dir, &key, &g) != CACHE_CORRUPT)
			bad_hits++;
		free(copy);
	}
	CHECK_EQ(bad_hits, 0);

	copy = xmalloc(len + 1);
	/* a trailing byte */
	memcpy(copy, data, len);
	copy[len] = 0;
	CHECK_EQ(put_file(path, copy, len + 1), 0);
	CHECK_EQ(cache_get(dir, &key, &g), CACHE_CORRUPT);
	/* a different magic: an older format */
	memcpy(copy, data, len);
	copy[7] = '1';
	CHECK_EQ(put_file(path, copy, len), 0);
	CHECK_EQ(cache_get(dir, &key, &g), CACHE_MISS);
	/* another key's entry under this key's name */
	cache_key(&other, "src", "k", "sm_89", NULL, 0);
	CHECK_EQ(cache_put(dir, &other, &o), 0);
	char *opath = NULL;
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char *p = xasprintf("%s/%s", dir, de->d_name);
		if (strstr(de->d_name, ".bin") && strcmp(p, path))
			opath = p;
		else
			free(p);
	}
	if (d)
		closedir(d);
	CHECK(opath != NULL);
	if (opath) {
		CHECK_EQ(rename(opath, path), 0);
		CHECK_EQ(cache_get(dir, &key, &g), 0);
		free(opath);
	}
	/* a directory where the entry should be */
	unlink(path);
	CHECK_EQ(mkdir(path, 0777), 0);
	CHECK_EQ(cache_get(dir, &key, &g), 0);
	/* and the intact file hits again */
	rmdir(path);
	CHECK_EQ(put_file(path, data, len), 0);
	CHECK_EQ(cache_get(dir, &key, &g), 1);
	nv_out_free(&g);

	nv_out_free(&o);
	buf_free(&key);
	buf_free(&other);
	free(copy);
	free(data);
	free(path);
	rmtree(dir);
	free(dir);
}

/* a file in dir, its mtime age seconds ago */
static void touch_aged(const char *dir, const char *name, int age)
{
	char *p = xasprintf("%s/%s", dir, name);
	struct timeval tv[2];

	CHECK_EQ(file_write_atomic(p, "x", 1), 0);
	gettimeofday(&tv[0], NULL);
	tv[0].tv_sec -= age;
	tv[1] = tv[0];
	CHECK_EQ(utimes(p, tv), 0);
	free(p);
}

static int exists(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	int r = access(p, F_OK) == 0;

	free(p);
	return r;
}

TEST(cache_sweep_dead_writers)
{
	char *dir = tmpdir();
	char dead[64], live[64], young[64];
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0); /* gone: its temporaries are litter */
	snprintf(dead, sizeof dead, "00000000000000aa.bin.tmp.%ld", (long)pid);
	snprintf(young, sizeof young, "00000000000000bb.bin.tmp.%ld", (long)pid);
	snprintf(live, sizeof live, "00000000000000cc.bin.tmp.%ld", (long)getpid());
	touch_aged(dir, dead, 120);
	touch_aged(dir, young, 0);      /* a minute's grace */
	touch_aged(dir, live, 120);     /* its writer is still running */
	touch_aged(dir, "00000000000000dd.bin", 120);
	CHECK_EQ(cache_sweep(dir), 1);
	CHECK(!exists(dir, dead));
	CHECK(exists(dir, young) && exists(dir, live) && exists(dir, "00000000000000dd.bin"));
	CHECK_EQ(cache_sweep("/nonexistent/tuner-cache"), 0);
	rmtree(dir);
	free(dir);
}

TEST(cache_default_dir)
{
	char *saved[3], *d;
	const char *names[] = {"TUNER_CACHE", "XDG_CACHE_HOME", "HOME"};
	size_t i;

	for (i = 0; i < LEN(names); i++) {
		const char *v = getenv(names[i]);
		saved[i] = v ? xstrdup(v) : NULL;
	}
	char *home = tmpdir(), *want = xasprintf("%s/.cache/tuner", home);

	setenv("TUNER_CACHE", "/c/t", 1);
	setenv("XDG_CACHE_HOME", "/x", 1);
	setenv("HOME", home, 1);
	CHECK_STR(d = cache_default_dir(), "/c/t");
	free(d);
	unsetenv("TUNER_CACHE");
	CHECK_STR(d = cache_default_dir(), "/x/tuner");
	free(d);
	setenv("XDG_CACHE_HOME", "relative", 1);
	CHECK_STR(d = cache_default_dir(), want);
	free(d);
	unsetenv("XDG_CACHE_HOME");
	CHECK_STR(d = cache_default_dir(), want);
	free(d);
	/* a home that does not exist: no cache (it is not created) */
	setenv("HOME", "/nonexistent/tuner-home", 1);
	CHECK(cache_default_dir() == NULL);
	rmtree(home);
	free(home);
	free(want);
	for (i = 0; i < LEN(names); i++) {
		if (saved[i])
			setenv(names[i], saved[i], 1);
		else
			unsetenv(names[i]);
		free(saved[i]);
	}
}

/* n small kernels that differ in a constant */
static void make_jobs(struct job *jobs, char **srcs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		srcs[i] = xasprintf("extern \"C\" __global__ void k(float *x)\n"
		                    "{\n\tx[threadIdx.x] *= %zu.0f;\n}\n", i + 2);
		jobs[i] = (struct job){srcs[i], NULL, NULL, "k.cu", "k", {0, 0}};
	}
}

TEST(pool_cache_hits)
{
	enum { N = 6 };
	char *dir = tmpdir(), *srcs[N];
	struct job jobs[N];
	struct compile_out a[N], b[N];
	int hits[N];
	size_t i;

	make_jobs(jobs, srcs, N);
	CHECK_EQ(compile_many(jobs, N, "sm_90", NULL, 0, dir, 3, a, hits, NULL), N);
	CHECK_EQ(count_entries(dir), N);
	for (i = 0; i < N; i++) {
		CHECK_EQ(a[i].ok, 1);
		CHECK_EQ(hits[i], 0);
		CHECK(is_elf(&a[i]));
		CHECK_STR(a[i].lowered, "k");
		CHECK(a[i].regs > 0);
	}
	CHECK(a[0].cubin_len != a[1].cubin_len || memcmp(a[0].cubin, a[1].cubin, a[0].cubin_len));

	CHECK_EQ(compile_many(jobs, N, "sm_90", NULL, 0, dir, 3, b, hits, NULL), 0);
	for (i = 0; i < N; i++) {
		CHECK_EQ(hits[i], 1);
		CHECK(same_out(&a[i], &b[i]));
		nv_out_free(&a[i]);
		nv_out_free(&b[i]);
		free(srcs[i]);
	}
	rmtree(dir);
	free(dir);
}

TEST(pool_errors_and_private_dir)
{
	enum { N = 3 };
	char *tmp = tmpdir(), *saved = getenv("TMPDIR") ? xstrdup(getenv("TMPDIR")) : NULL;
	char *srcs[N];
	struct job jobs[N];
	struct compile_out o[N];
	int hits[N];
	size_t i;

	make_jobs(jobs, srcs, N);
	jobs[1].src = bad_src;
	jobs[1].name = "bad.cu";
	/* no cache: the pool's private directory goes under $TMPDIR and is removed after */
	setenv("TMPDIR", tmp, 1);
	CHECK_EQ(compile_many(jobs, N, "sm_90", NULL, 0, NULL, 2, o, hits, NULL), N);
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	CHECK_EQ(count_entries(tmp), 0);
	CHECK_EQ(o[0].ok, 1);
	CHECK_EQ(o[1].ok, 0);
	CHECK(o[1].log && strstr(o[1].log, "bad.cu") && strstr(o[1].log, "error"));
	CHECK_EQ(o[2].ok, 1);
	CHECK(is_elf(&o[0]) && is_elf(&o[2]));
	for (i = 0; i < N; i++) {
		CHECK_EQ(hits[i], 0);
		nv_out_free(&o[i]);
		free(srcs[i]);
	}
	rmtree(tmp);
	free(tmp);
	free(saved);
}

TEST(pool_worker_crash)
{
	enum { N = 4 };
	char *dir = tmpdir(), *srcs[N];
	struct job jobs[N];
	struct compile_out o[N];
	int hits[N];
	size_t i;

	make_jobs(jobs, srcs, N);
	jobs[2].entry = "boom"; /* the worker compiling this one kills itself */
	setenv("TUNER_TEST_CRASH_ENTRY", "boom", 1);
	CHECK_EQ(compile_many(jobs, N, "sm_90", NULL, 0, dir, 1, o, hits, NULL), N);
	unsetenv("TUNER_TEST_CRASH_ENTRY");
	for (i = 0; i < N; i++) {
		if (i == 2) {
			CHECK_EQ(o[i].ok, 0);
			CHECK(o[i].log && strstr(o[i].log, "died") && strstr(o[i].log, "signal 9"));
		} else {
			CHECK_EQ(o[i].ok, 1);
		}
		nv_out_free(&o[i]);
	}
	/* the crash was not cached: only that job is compiled again (and fails honestly:
	   there is no kernel "boom") */
	CHECK_EQ(count_entries(dir), N - 1);
	CHECK_EQ(compile_many(jobs, N, "sm_90", NULL, 0, dir, 2, o, hits, NULL), 1);
	CHECK_EQ(hits[2], 0);
	CHECK_EQ(hits[0] + hits[1] + hits[3], 3);
	CHECK_EQ(o[2].ok, 0);
	CHECK(o[2].log && !strstr(o[2].log, "died"));
	for (i = 0; i < N; i++) {
		nv_out_free(&o[i]);
		free(srcs[i]);
	}
	rmtree(dir);
	free(dir);
}

TEST(pool_unwritable_cache)
{
	char *src = xasprintf("%s", k_src);
	struct job job = {src, NULL, NULL, "k.cu", "k", {0, 0}};
	struct compile_out o;
	int hit = -1;

	/* warns once and compiles through a private directory instead */
	CHECK_EQ(compile_many(&job, 1, "sm_90", NULL, 0, "/proc/tuner-test/cache", 4, &o, &hit, NULL), 1);
	CHECK_EQ(hit, 0);
	CHECK_EQ(o.ok, 1);
	CHECK_EQ(o.smem_static, 1024);
	nv_out_free(&o);
	free(src);
}
