/*
 * A fake CUDA driver, libcuda.so.1 for tests/fakegpu.sh: the entry points tuner/gpu.c looks
 * up, run on the host, so that the tuner's GPU side (the worker, bench, devbuf, launch,
 * timing, the journal, results and best.cu of a timed run) runs where there is no GPU.
 * Device memory is host memory. A launch runs the kernel it names on the host: the tuner's
 * helpers (copy, read, flush, fill without random, compare) and the kernels of the configs
 * beside this file, one host function each; any other name fails. Events time nothing:
 * every sample takes FAKE_MS, or FAKE_MS times F after a launch of a config's kernel with
 * BLOCK threads a block where FAKECUDA_SLOW="BLOCK:F,..." says so ("BLOCK/G:F": in G blocks or
 * more); a config's kernel launched in G blocks or more does nothing where FAKECUDA_WRONG=G
 * (in G to H blocks: G-H). The occupancy calculator
 * holds 2048 threads a multiprocessor, or N blocks of BLOCK threads where
 * FAKECUDA_RESIDENT="BLOCK:N,..." says so. With FAKECUDA_LOG set, each launch and event record
 * appends a line there ("launch NAME GRIDxBLOCK", "event"; "context" as a device's context is
 * opened). FAKECUDA_DEVICES="NAME:MAJOR.MINOR:SMS,..."
 * gives several devices (default: one "Fake GPU", 9.0, 4 multiprocessors). Nothing here tells
 * what a GPU would do with the real kernels: it shows what the tuner asks of the driver, and in
 * which order. The bank-size mode is accepted and ignored (4-byte banks), as on sm_75+.
 */
#include <cuda.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../tuner/cmp.h"

/* FAKECUDA_MS, else 0.25 */
#define FAKE_MS (getenv("FAKECUDA_MS") ? (float)atof(getenv("FAKECUDA_MS")) : 0.25f)

struct CUmod_st {
	int unused;
};

struct CUfunc_st {
	char name[128];
};

struct CUevent_st {
	int unused;
};

static struct CUctx_st {
	int unused;
} the_ctx;

/* a line to $FAKECUDA_LOG, if set (opened per line: workers come and go) */
static void log_line(const char *line)
{
	const char *path = getenv("FAKECUDA_LOG");
	FILE *f;

	if (!path || !*path || !(f = fopen(path, "a")))
		return;
	fputs(line, f);
	fclose(f);
}

static void *ptr(CUdeviceptr d)
{
	return (void *)(uintptr_t)d;
}

/* ---- device, context ---- */

CUresult cuDriverGetVersion(int *v)
{
	*v = 13000;
	return CUDA_SUCCESS;
}

/* the devices: $FAKECUDA_DEVICES, else one */
static struct fake_dev {
	char name[64];
	int major, minor, sms;
	int bus;                  /* its PCI bus: its place in FAKECUDA_DEVICES + 1 */
} devs[8];
static int ndevs;

static void devices(void)
{
	const char *s = getenv("FAKECUDA_DEVICES");

	if (ndevs)
		return;
	while (s && *s && ndevs < 8) {
		struct fake_dev *d = &devs[ndevs];
		size_t k = strcspn(s, ":");
		if (k >= sizeof d->name || sscanf(s + k, ":%d.%d:%d", &d->major, &d->minor, &d->sms) != 3)
			break;
		memcpy(d->name, s, k);
		d->name[k] = 0;
		d->bus = ++ndevs;
		s = strchr(s, ',');
		s = s ? s + 1 : NULL;
	}
	if (!ndevs)
		devs[ndevs++] = (struct fake_dev){"Fake GPU", 9, 0, 4, 1};
	if ((s = getenv("CUDA_VISIBLE_DEVICES"))) { /* indices, up to the first that is none */
		struct fake_dev seen[8];
		int n = 0;
		while (n < 8) {
			char *end;
			long k = strtol(s, &end, 10);
			if (end == s || k < 0 || k >= ndevs || (*end && *end != ','))
				break;
			seen[n++] = devs[k];
			if (!*end)
				break;
			s = end + 1;
		}
		memcpy(devs, seen, sizeof seen);
		ndevs = n;
	}
}

/* FAKECUDA_INIT_MS: the driver's start-up takes this long for each device it sees */
CUresult cuInit(unsigned int flags)
{
	const char *ms = getenv("FAKECUDA_INIT_MS");

	(void)flags;
	devices();
	if (ms && atoi(ms) > 0) {
		long ns = (long)atoi(ms) * ndevs * 1000000L;
		nanosleep(&(struct timespec){ns / 1000000000L, ns % 1000000000L}, NULL);
	}
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *n)
{
	devices();
	*n = ndevs;
	return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
	devices();
	if (ordinal < 0 || ordinal >= ndevs)
		return CUDA_ERROR_INVALID_DEVICE;
	*d = ordinal;
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
	devices();
	snprintf(name, (size_t)len, "%s", devs[d].name);
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute a, CUdevice d)
{
	devices();
	switch (a) {
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *pi = devs[d].major; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *pi = devs[d].minor; break;
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *pi = devs[d].sms; break;
	case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: *pi = devs[d].bus; break;
	case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: /* FAKECUDA_L2 bytes, else 1 MiB */
		*pi = getenv("FAKECUDA_L2") ? atoi(getenv("FAKECUDA_L2")) : 1 << 20;
		break;
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = 1024; break;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *pi = 48 * 1024; break;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *pi = 227 * 1024; break;
	default: *pi = 0; break;
	}
	return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem(size_t *bytes, CUdevice d)
{
	(void)d;
	*bytes = (size_t)16 << 30;
	return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
	(void)d;
	log_line("context\n");
	*c = &the_ctx;
	return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice d)
{
	(void)d;
	return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext c)
{
	(void)c;
	return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void)
{
	return CUDA_SUCCESS;
}

/* ---- modules ---- */

CUresult cuModuleLoadData(CUmodule *m, const void *image)
{
	(void)image;
	*m = calloc(1, sizeof **m);
	return *m ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuModuleUnload(CUmodule m)
{
	free(m);
	return CUDA_SUCCESS;
}

/* a new handle per look-up: the tuner never compares them */
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
	(void)m;
	if (!(*f = calloc(1, sizeof **f)))
		return CUDA_ERROR_OUT_OF_MEMORY;
	snprintf((*f)->name, sizeof (*f)->name, "%s", name);
	return CUDA_SUCCESS;
}

/* the fake kernels use no __constant__ */
CUresult cuModuleGetGlobal(CUdeviceptr *d, size_t *bytes, CUmodule m, const char *name)
{
	(void)d;
	(void)bytes;
	(void)m;
	(void)name;
	return CUDA_ERROR_NOT_FOUND;
}

CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v)
{
	(void)f;
	(void)a;
	(void)v;
	return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute a, CUfunction f)
{
	(void)a;
	(void)f;
	*pi = 0;
	return CUDA_SUCCESS;
}

/* the Kepler bank-size mode: accepted and ignored, as on every GPU CUDA 13 supports (the
   getter always says 4-byte banks) */
CUresult cuFuncSetSharedMemConfig(CUfunction f, CUsharedconfig c)
{
	(void)f;
	(void)c;
	return CUDA_SUCCESS;
}

CUresult cuCtxSetSharedMemConfig(CUsharedconfig c)
{
	(void)c;
	return CUDA_SUCCESS;
}

CUresult cuCtxGetSharedMemConfig(CUsharedconfig *c)
{
	*c = CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
	return CUDA_SUCCESS;
}

/* 2048 threads a multiprocessor, in blocks of `threads`, unless FAKECUDA_RESIDENT="BLOCK:N,..."
   gives N blocks for blocks of BLOCK threads */
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction f, int threads,
                                                     size_t shared)
{
	const char *s = getenv("FAKECUDA_RESIDENT");
	int b, n, used;

	(void)f;
	(void)shared;
	if (threads < 1)
		return CUDA_ERROR_INVALID_VALUE;
	*blocks = threads < 2048 ? 2048 / threads : 1;
	while (s && sscanf(s, "%d:%d%n", &b, &n, &used) == 2) {
		if (b == threads)
			*blocks = n;
		s += used + (s[used] == ',');
	}
	return CUDA_SUCCESS;
}

/* ---- memory ---- */

CUresult cuMemAlloc(CUdeviceptr *d, size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);
	const char *log = getenv("FAKECUDA_ALLOC_LOG");
	FILE *f;

	if (log && *log && (f = fopen(log, "a"))) { /* every allocation, for the tests */
		fprintf(f, "alloc %zu\n", bytes);
		fclose(f);
	}

	if (!p)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*d = (CUdeviceptr)(uintptr_t)p;
	return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr d)
{
	free(ptr(d));
	return CUDA_SUCCESS;
}

/* mapped host memory: the device sees the same address */
CUresult cuMemHostAlloc(void **p, size_t bytes, unsigned int flags)
{
	(void)flags;
	*p = calloc(1, bytes ? bytes : 1);
	return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemHostGetDevicePointer(CUdeviceptr *d, void *p, unsigned int flags)
{
	(void)flags;
	*d = (CUdeviceptr)(uintptr_t)p;
	return CUDA_SUCCESS;
}

CUresult cuMemFreeHost(void *p)
{
	free(p);
	return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n)
{
	memcpy(ptr(dst), src, n);
	return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n)
{
	memcpy(dst, ptr(src), n);
	return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
	memmove(ptr(dst), ptr(src), n);
	return CUDA_SUCCESS;
}

CUresult cuMemsetD32(CUdeviceptr dst, unsigned int v, size_t n)
{
	unsigned int *p = ptr(dst);
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = v;
	return CUDA_SUCCESS;
}

CUresult cuMemsetD8(CUdeviceptr dst, unsigned char v, size_t n)
{
	memset(ptr(dst), v, n);
	return CUDA_SUCCESS;
}

CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, CUstream s)
{
	(void)s;
	memset(ptr(dst), v, n);
	return CUDA_SUCCESS;
}

/* ---- events ---- */

CUresult cuEventCreate(CUevent *e, unsigned int flags)
{
	(void)flags;
	*e = calloc(1, sizeof **e);
	return *e ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuEventRecord(CUevent e, CUstream s)
{
	(void)e;
	(void)s;
	log_line("event\n");
	return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent e)
{
	(void)e;
	return CUDA_SUCCESS;
}

/* what the last event pair times: FAKE_MS, scaled after a launch named in FAKECUDA_SLOW */
static float sample_ms = 0.25f;

/* sample_ms after a launch of a kernel with bx threads a block in gx blocks: FAKECUDA_SLOW
   entries "BLOCK:F" (any grid) or "BLOCK/G:F" (G blocks or more) */
static void slow_for(const char *name, unsigned bx, unsigned gx)
{
	const char *s = getenv("FAKECUDA_SLOW");
	unsigned b, g;
	float f;
	int used;

	if (!strncmp(name, "tuner_", 6)) {
		if (strcmp(name, "tuner_flush"))
			sample_ms = FAKE_MS;
		return;
	}
	sample_ms = FAKE_MS;
	while (s) {
		g = 0;
		if (sscanf(s, "%u/%u:%f%n", &b, &g, &f, &used) != 3 &&
		    sscanf(s, "%u:%f%n", &b, &f, &used) != 2)
			break;
		if (b == bx && gx >= g)
			sample_ms = FAKE_MS * f;
		s += used + (s[used] == ',');
	}
}

CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
	(void)a;
	(void)b;
	*ms = sample_ms;
	return CUDA_SUCCESS;
}

CUresult cuEventDestroy(CUevent e)
{
	free(e);
	return CUDA_SUCCESS;
}

/* NVRTC looks this up when it finds a libcuda (and crashes without it): none here */
CUresult cuGetExportTable(const void **table, const CUuuid *id)
{
	(void)id;
	*table = NULL;
	return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuGetErrorName(CUresult r, const char **s)
{
	static char buf[32];

	snprintf(buf, sizeof buf, "CUresult %d", (int)r);
	*s = buf;
	return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult r, const char **s)
{
	(void)r;
	*s = "the fake driver's error";
	return CUDA_SUCCESS;
}

/* ---- the kernels, on the host ---- */

/* parameter i of a launch as type T */
#define ARG(T, i) (*(T *)params[i])
#define DPTR(T, i) ((T *)ptr(ARG(CUdeviceptr, i)))

/* store x as element i of p, of the helpers' type t (0 float, 1 double, 2 int, 3 unsigned,
   4 long long, 5 unsigned long long) */
static void put(void *p, size_t i, int t, double x)
{
	switch (t) {
	case 0: ((float *)p)[i] = (float)x; break;
	case 1: ((double *)p)[i] = x; break;
	case 2: ((int32_t *)p)[i] = (int32_t)x; break;
	case 3: ((uint32_t *)p)[i] = (uint32_t)x; break;
	case 4: ((int64_t *)p)[i] = (int64_t)x; break;
	default: ((uint64_t *)p)[i] = (uint64_t)x; break;
	}
}

/* tuner_fill(p, n, t, kind, seed, lo, hi, start, step, value, list, nlist): range, const,
   list; no random (its formula is the tuner's to check, on a GPU) */
static CUresult fill(void **params)
{
	size_t n = ARG(size_t, 1), nlist = ARG(size_t, 11), i;
	int t = ARG(int, 2), kind = ARG(int, 3);
	const double *list = DPTR(const double, 10);

	if (kind == 0)
		return CUDA_ERROR_NOT_SUPPORTED;
	for (i = 0; i < n; i++) {
		double x = kind == 1 ? ARG(double, 7) + (double)i * ARG(double, 8)
		         : kind == 2 ? ARG(double, 9) : nlist ? list[i % nlist] : 0.0;
		put(DPTR(void, 0), i, t, x);
	}
	return CUDA_SUCCESS;
}

/* element i of p, of size es and float or not, as a double (NaN stays NaN) */
static double get(const void *p, size_t i, size_t es, int flt, int sgn)
{
	const unsigned char *b = (const unsigned char *)p + i * es;

	if (flt && es == 4)
		return *(const float *)(const void *)b;
	if (flt)
		return *(const double *)(const void *)b;
	if (es == 4)
		return sgn ? (double)*(const int32_t *)(const void *)b
		           : (double)*(const uint32_t *)(const void *)b;
	return sgn ? (double)*(const int64_t *)(const void *)b
	           : (double)*(const uint64_t *)(const void *)b;
}

/* tuner_cmp_T(got, ref, n, atol, rtol, res) as tuner/helpers.cu's: res holds bad, maxabs and
   maxrel (as bits), ~first bad index */
static CUresult cmp(const char *type, void **params)
{
	int flt = type[0] == 'f', sgn = type[0] == 'i';
	size_t es = strcmp(type + 1, "32") ? 8 : 4, n = ARG(size_t, 2), i;
	double atol = ARG(double, 3), rtol = ARG(double, 4);
	const unsigned char *got = DPTR(const unsigned char, 0), *ref = DPTR(const unsigned char, 1);
	uint64_t *res = DPTR(uint64_t, 5);
	struct cmp_acc a = CMP_ACC0;

	for (i = 0; i < n; i++)
		cmp_elem(&a, get(got, i, es, flt, sgn), get(ref, i, es, flt, sgn),
		         !memcmp(got + i * es, ref + i * es, es), flt, i, atol, rtol);
	res[0] = a.bad;
	memcpy(&res[1], &a.maxabs, sizeof a.maxabs);
	memcpy(&res[2], &a.maxrel, sizeof a.maxrel);
	res[3] = a.bad ? ~(uint64_t)a.first : 0;
	return CUDA_SUCCESS;
}

/* fake_pairs(out, in, n, tail): out[i] = 2 in[i] + 1, two elements per thread; the last of
   an odd n only with tail */
static CUresult pairs(size_t threads, void **params)
{
	float *out = DPTR(float, 0);
	const float *in = DPTR(const float, 1);
	long long n = ARG(int, 2), i;
	int tail = ARG(int, 3);
	size_t t;

	for (t = 0; t < threads; t++) {
		i = 2 * (long long)t;
		if (i + 1 < n) {
			out[i] = 2 * in[i] + 1;
			out[i + 1] = 2 * in[i + 1] + 1;
		} else if (tail && i < n) {
			out[i] = 2 * in[i] + 1;
		}
	}
	return CUDA_SUCCESS;
}

/* fake_hist(bins, data, n) and fake_hist_ref: bins[data[i] & 255] += 1 for every element
   (the kernel strides over them; the reference has a thread per element) */
static CUresult hist(size_t threads, int ref, void **params)
{
	unsigned *bins = DPTR(unsigned, 0);
	const unsigned *data = DPTR(const unsigned, 1);
	size_t n = (size_t)ARG(int, 2), i;

	if (ref && threads < n)
		n = threads;
	for (i = 0; i < n; i++)
		bins[data[i] & 255u]++;
	return CUDA_SUCCESS;
}

/* fake_coef(out, in, n, float a, double b): out[i] = a in[i] + b; fake_coef_ref(out, in, n)
   the same with a = 0.25f, b = n / 8192.0 */
static CUresult coef(size_t threads, int ref, void **params)
{
	float *out = DPTR(float, 0);
	const float *in = DPTR(const float, 1);
	int n = ARG(int, 2);
	float a = ref ? 0.25f : ARG(float, 3);
	double b = ref ? n / 8192.0 : ARG(double, 4);
	size_t i;

	for (i = 0; i < (size_t)n && i < threads; i++)
		out[i] = (float)(a * in[i] + b);
	return CUDA_SUCCESS;
}

/* fake_cswap(out, in, n, bug) on float2 elements: out[i] = (in[i].y, 2 in[i].x), with bug
   (in[i].y, in[i].x); fake_cswap_ref(out, in, n) the right one */
static CUresult cswap(size_t threads, int ref, void **params)
{
	struct f2 {
		float x, y;
	} *out = DPTR(struct f2, 0);
	const struct f2 *in = DPTR(const struct f2, 1);
	int n = ARG(int, 2), bug = ref ? 0 : ARG(int, 3);
	size_t i;

	for (i = 0; i < (size_t)n && i < threads; i++) {
		out[i].x = in[i].y;
		out[i].y = bug ? in[i].x : 2.0f * in[i].x;
	}
	return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                        unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared,
                        CUstream s, void **params, void **extra)
{
	size_t threads = (size_t)gx * gy * gz * bx * by * bz, i;
	const char *name = f->name;
	char line[200];

	(void)shared;
	(void)s;
	(void)extra;
	snprintf(line, sizeof line, "launch %s %ux%u\n", name, gx, bx);
	log_line(line);
	slow_for(name, bx, gx);
	/* FAKECUDA_WRONG=G: a config's kernel (not the reference) in G blocks or more does nothing
	   (G-H: G to H blocks): its outputs keep their poison, a mismatch */
	if (getenv("FAKECUDA_WRONG") && strncmp(name, "tuner_", 6) && !strstr(name, "_ref") &&
	    gx >= (unsigned)atoi(getenv("FAKECUDA_WRONG")) &&
	    (!strchr(getenv("FAKECUDA_WRONG"), '-') ||
	     gx <= (unsigned)atoi(strchr(getenv("FAKECUDA_WRONG"), '-') + 1)))
		return CUDA_SUCCESS;
	if (!strcmp(name, "tuner_fill"))
		return fill(params);
	if (!strncmp(name, "tuner_cmp_", 10))
		return cmp(name + 10, params);
	if (!strcmp(name, "tuner_flush"))
		return CUDA_SUCCESS;
	/* the host releases a hold after it: here the launches run at once, in order */
	if (!strcmp(name, "tuner_hold"))
		return CUDA_SUCCESS;
	if (!strcmp(name, "tuner_copy")) {
		memcpy(DPTR(void, 1), DPTR(void, 0), 16 * ARG(size_t, 2));
		return CUDA_SUCCESS;
	}
	if (!strcmp(name, "tuner_read")) { /* block 0's share is enough for what is checked */
		float sum = 0;
		const float *in = DPTR(const float, 0);
		for (i = 0; i < 4 * ARG(size_t, 1) && i < 4096; i++)
			sum += in[i];
		DPTR(float, 2)[0] = sum;
		return CUDA_SUCCESS;
	}
	if (!strcmp(name, "fake_pairs"))
		return pairs(threads, params);
	if (!strcmp(name, "fake_pairs_ref")) {
		float *out = DPTR(float, 0);
		const float *in = DPTR(const float, 1);
		size_t n = (size_t)ARG(int, 2);
		for (i = 0; i < n && i < threads; i++)
			out[i] = 2 * in[i] + 1;
		return CUDA_SUCCESS;
	}
	if (!strcmp(name, "fake_cswap") || !strcmp(name, "fake_cswap_ref"))
		return cswap(threads, name[10] == '_', params);
	if (!strcmp(name, "fake_coef") || !strcmp(name, "fake_coef_ref"))
		return coef(threads, name[9] == '_', params);
	if (!strcmp(name, "fake_hist") || !strcmp(name, "fake_hist_ref"))
		return hist(threads, name[9] == '_', params);
	return CUDA_ERROR_NOT_FOUND;
}
