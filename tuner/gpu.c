/* gpu: the CUDA driver API, loaded with dlopen so the binary runs without a driver. */
#include "gpu.h"
#include "util.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gpu_api cu;

static void *lib;         /* dlopen handle; never closed: after cuInit the driver has threads
                             and exit handlers that must not outlive its code */
static int resolved;      /* every required entry point found */
static CUdevice dev;
static int retained;      /* primary context retained */
static int probed;        /* gpu_probe found dev */
static CUcontext pctx;    /* the retained primary context */

/* one entry point: its member, the names to try in order, and whether gpu_open needs it */
struct sym {
	void *slot;       /* a function pointer member of cu */
	const char *names[3];
	int optional;
};

#define SLOT(m) ((void *)&cu.m)

static const struct sym syms[] = {
	{SLOT(Init), {"cuInit"}, 0},
	{SLOT(DriverGetVersion), {"cuDriverGetVersion"}, 0},
	{SLOT(DeviceGet), {"cuDeviceGet"}, 0},
	{SLOT(DeviceGetCount), {"cuDeviceGetCount"}, 0},
	{SLOT(DeviceGetName), {"cuDeviceGetName"}, 0},
	{SLOT(DeviceGetAttribute), {"cuDeviceGetAttribute"}, 0},
	{SLOT(DeviceTotalMem), {"cuDeviceTotalMem_v2"}, 0},
	{SLOT(DevicePrimaryCtxRetain), {"cuDevicePrimaryCtxRetain"}, 0},
	{SLOT(DevicePrimaryCtxRelease), {"cuDevicePrimaryCtxRelease_v2"}, 0},
	{SLOT(CtxSetCurrent), {"cuCtxSetCurrent"}, 0},
	{SLOT(CtxSynchronize), {"cuCtxSynchronize"}, 0},
	{SLOT(ModuleLoadData), {"cuModuleLoadData"}, 0},
	{SLOT(ModuleUnload), {"cuModuleUnload"}, 0},
	{SLOT(ModuleGetFunction), {"cuModuleGetFunction"}, 0},
	{SLOT(ModuleGetGlobal), {"cuModuleGetGlobal_v2"}, 0},
	{SLOT(FuncSetAttribute), {"cuFuncSetAttribute"}, 0},
	{SLOT(FuncGetAttribute), {"cuFuncGetAttribute"}, 0},
	{SLOT(FuncGetParamInfo), {"cuFuncGetParamInfo"}, 1}, /* CUDA 12.4 */
	{SLOT(OccupancyMaxActiveBlocksPerMultiprocessor),
	 {"cuOccupancyMaxActiveBlocksPerMultiprocessor"}, 1},
	{SLOT(FuncSetSharedMemConfig), {"cuFuncSetSharedMemConfig"}, 1},
	{SLOT(CtxSetSharedMemConfig), {"cuCtxSetSharedMemConfig"}, 1},
	{SLOT(CtxGetSharedMemConfig), {"cuCtxGetSharedMemConfig"}, 1},
	{SLOT(MemAlloc), {"cuMemAlloc_v2"}, 0},
	{SLOT(MemFree), {"cuMemFree_v2"}, 0},
	{SLOT(MemcpyHtoD), {"cuMemcpyHtoD_v2"}, 0},
	{SLOT(MemcpyDtoH), {"cuMemcpyDtoH_v2"}, 0},
	{SLOT(MemcpyDtoD), {"cuMemcpyDtoD_v2"}, 0},
	{SLOT(MemsetD32), {"cuMemsetD32_v2"}, 0},
	{SLOT(MemsetD8), {"cuMemsetD8_v2"}, 0},
	{SLOT(MemsetD8Async), {"cuMemsetD8Async"}, 0},
	/* the stream hold's flag (timing.c): without them samples are not held */
	{SLOT(MemHostAlloc), {"cuMemHostAlloc"}, 1},
	{SLOT(MemHostGetDevicePointer), {"cuMemHostGetDevicePointer_v2"}, 1},
	{SLOT(MemFreeHost), {"cuMemFreeHost"}, 1},
	{SLOT(LaunchKernel), {"cuLaunchKernel"}, 0},
	{SLOT(EventCreate), {"cuEventCreate"}, 0},
	{SLOT(EventRecord), {"cuEventRecord"}, 0},
	{SLOT(EventSynchronize), {"cuEventSynchronize"}, 0},
	/* _v2 is CUDA 13's name; drivers before 13 only have the original */
	{SLOT(EventElapsedTime), {"cuEventElapsedTime_v2", "cuEventElapsedTime"}, 0},
	{SLOT(EventDestroy), {"cuEventDestroy_v2"}, 0},
	{SLOT(GetErrorName), {"cuGetErrorName"}, 0},
	{SLOT(GetErrorString), {"cuGetErrorString"}, 0},
};

const char *gpu_errname(CUresult r)
{
	static char unknown[32];
	const char *s = NULL;

	if (cu.GetErrorName && cu.GetErrorName(r, &s) == CUDA_SUCCESS && s)
		return s;
	snprintf(unknown, sizeof unknown, "CUresult %d", (int)r);
	return unknown;
}

const char *gpu_errstr(CUresult r)
{
	const char *s = NULL;

	if (cu.GetErrorString && cu.GetErrorString(r, &s) == CUDA_SUCCESS && s)
		return s;
	return "";
}

void gpu_err(char *why, size_t whylen, const char *call, CUresult r)
{
	const char *d = gpu_errstr(r);

	if (*d)
		say(why, whylen, "%s: %s (%s)", call, gpu_errname(r), d);
	else
		say(why, whylen, "%s: %s", call, gpu_errname(r));
}

int gpu_ready(void)
{
	return lib && retained;
}

static int resolve(char *why, size_t whylen)
{
	size_t i, j;

	for (i = 0; i < sizeof syms / sizeof syms[0]; i++) {
		void *p = NULL;
		for (j = 0; j < 3 && syms[i].names[j] && !p; j++)
			p = dlsym(lib, syms[i].names[j]);
		memcpy(syms[i].slot, &p, sizeof p); /* POSIX: data and code pointers agree */
		if (!p && !syms[i].optional) {
			say(why, whylen, "libcuda.so.1 has no %s: the driver is too old or broken",
			    syms[i].names[0]);
			return -1;
		}
	}
	return 0;
}

static int attr(int *out, CUdevice_attribute a, const char *what, char *why, size_t whylen)
{
	CUresult r = cu.DeviceGetAttribute(out, a, dev);

	if (r != CUDA_SUCCESS) {
		char call[96];
		snprintf(call, sizeof call, "cuDeviceGetAttribute(%s)", what);
		gpu_err(why, whylen, call, r);
		return -1;
	}
	return 0;
}

int gpu_open(int ordinal, struct gpu_info *info, char *why, size_t whylen)
{
	return gpu_probe(ordinal, info, why, whylen) < 0 ? -1 : gpu_context_open(why, whylen);
}

static int started;        /* cuInit was called in this process */

int gpu_started(void)
{
	return started;
}

int gpu_restrict(int ordinal)
{
	const char *v = getenv("CUDA_VISIBLE_DEVICES"), *s;
	char one[256];
	size_t n;
	int k;

	if (ordinal < 0 || started) /* the driver read the variable when it started */
		return -1;
	if (!v)
		snprintf(one, sizeof one, "%d", ordinal);
	else {
		for (s = v, k = 0; k < ordinal && (s = strchr(s, ',')); k++)
			s++;
		if (!s || (n = strcspn(s, ",")) == 0 || n >= sizeof one)
			return -1;
		memcpy(one, s, n);
		one[n] = 0;
	}
	return setenv("CUDA_VISIBLE_DEVICES", one, 1) < 0 ? -1 : 0;
}

int gpu_probe(int ordinal, struct gpu_info *info, char *why, size_t whylen)
{
	CUresult r;
	int n = 0;

	if (why && whylen)
		why[0] = 0;
	memset(info, 0, sizeof *info);
	probed = 0;
	if (retained)
		gpu_close();
	if (!lib) {
		lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
		if (!lib) {
			const char *e = dlerror();
			if (!e || strstr(e, "No such file"))
				say(why, whylen, "libcuda.so.1 not found (no NVIDIA driver installed)");
			else
				say(why, whylen, "cannot load libcuda.so.1: %s", e);
			return -1;
		}
	}
	if (!resolved) {
		if (resolve(why, whylen) < 0)
			return -1;
		resolved = 1;
	}
	started = 1;
	r = cu.Init(0);
	if (r == CUDA_ERROR_NO_DEVICE) {
		say(why, whylen, "no CUDA-capable device (CUDA_ERROR_NO_DEVICE)");
		goto fail;
	}
	if (r != CUDA_SUCCESS) {
		gpu_err(why, whylen, "cuInit", r);
		goto fail;
	}
	if ((r = cu.DriverGetVersion(&info->driver_version)) != CUDA_SUCCESS) {
		gpu_err(why, whylen, "cuDriverGetVersion", r);
		goto fail;
	}
	if ((r = cu.DeviceGetCount(&n)) != CUDA_SUCCESS) {
		gpu_err(why, whylen, "cuDeviceGetCount", r);
		goto fail;
	}
	if (n == 0) {
		say(why, whylen, "no CUDA-capable device (CUDA_ERROR_NO_DEVICE)");
		goto fail;
	}
	info->devices = n;
	if (ordinal < 0 || ordinal >= n) {
		say(why, whylen, "no CUDA device %d (the driver sees %d)", ordinal, n);
		goto fail;
	}
	if ((r = cu.DeviceGet(&dev, ordinal)) != CUDA_SUCCESS) {
		gpu_err(why, whylen, "cuDeviceGet", r);
		goto fail;
	}
	if ((r = cu.DeviceGetName(info->name, (int)sizeof info->name, dev)) != CUDA_SUCCESS) {
		gpu_err(why, whylen, "cuDeviceGetName", r);
		goto fail;
	}
	info->name[sizeof info->name - 1] = 0;
	if (attr(&info->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
	         "COMPUTE_CAPABILITY_MAJOR", why, whylen) < 0 ||
	    attr(&info->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
	         "COMPUTE_CAPABILITY_MINOR", why, whylen) < 0 ||
	    attr(&info->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
	         "MULTIPROCESSOR_COUNT", why, whylen) < 0 ||
	    attr(&info->l2_bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
	         "L2_CACHE_SIZE", why, whylen) < 0 ||
	    attr(&info->max_threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
	         "MAX_THREADS_PER_BLOCK", why, whylen) < 0 ||
	    attr(&info->smem_block, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
	         "MAX_SHARED_MEMORY_PER_BLOCK", why, whylen) < 0 ||
	    attr(&info->smem_optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
	         "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", why, whylen) < 0 ||
	    attr(&info->pci[0], CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, "PCI_DOMAIN_ID", why, whylen) < 0 ||
	    attr(&info->pci[1], CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, "PCI_BUS_ID", why, whylen) < 0 ||
	    attr(&info->pci[2], CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, "PCI_DEVICE_ID", why, whylen) < 0)
		goto fail;
	if (info->smem_optin < info->smem_block)
		info->smem_optin = info->smem_block;
	if ((r = cu.DeviceTotalMem(&info->mem_bytes, dev)) != CUDA_SUCCESS) {
		gpu_err(why, whylen, "cuDeviceTotalMem", r);
		goto fail;
	}
	probed = 1;
	return 0;
fail:
	return -1;
}

int gpu_context_open(char *why, size_t whylen)
{
	CUcontext ctx;
	CUresult r;

	if (retained)
		return 0;
	if (!probed) {
		say(why, whylen, "no device probed (gpu_probe)");
		return -1;
	}
	if ((r = cu.DevicePrimaryCtxRetain(&ctx, dev)) != CUDA_SUCCESS) {
		gpu_err(why, whylen, "cuDevicePrimaryCtxRetain", r);
		goto fail;
	}
	retained = 1;
	pctx = ctx;
	if ((r = cu.CtxSetCurrent(ctx)) != CUDA_SUCCESS) {
		gpu_err(why, whylen, "cuCtxSetCurrent", r);
		gpu_close();
		return -1;
	}
	return 0;
fail:
	return -1;
}

CUcontext gpu_context(void)
{
	return retained ? pctx : NULL;
}

void gpu_close(void)
{
	if (retained && lib) {
		cu.CtxSetCurrent(NULL);
		cu.DevicePrimaryCtxRelease(dev);
	}
	retained = 0;
}

void gpu_slug(const struct gpu_info *info, char *out, size_t outlen)
{
	char cc[32];
	size_t n = 0, i, m;
	int dash = 0;

	if (!outlen)
		return;
	for (i = 0; info->name[i] && n + 1 < outlen; i++) {
		unsigned char ch = (unsigned char)info->name[i];
		if (isalnum(ch)) {
			if (dash && n > 0 && n + 2 < outlen)
				out[n++] = '-';
			dash = 0;
			out[n++] = (char)tolower(ch);
		} else {
			dash = 1; /* runs of spaces and punctuation become one '-' */
		}
	}
	out[n] = 0;
	snprintf(cc, sizeof cc, "%ssm%d%d", n ? "-" : "", info->cc_major, info->cc_minor);
	m = strlen(cc);
	if (n + m + 1 > outlen) /* keep the compute capability: it is what distinguishes entries */
		n = outlen > m + 1 ? outlen - m - 1 : 0;
	snprintf(out + n, outlen - n, "%s", cc);
}

unsigned gpu_grid(int sms, size_t n, unsigned block, unsigned per_sm)
{
	size_t g = (n + block - 1) / block, cap = (size_t)(sms > 0 ? sms : 1) * per_sm;

	if (g > cap)
		g = cap;
	return g ? (unsigned)g : 1;
}

CUresult gpu_launch_1d(CUfunction f, unsigned grid, unsigned block, void **params)
{
	return cu.LaunchKernel(f, grid, 1, 1, block, 1, 1, 0, NULL, params, NULL);
}
