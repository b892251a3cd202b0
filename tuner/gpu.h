/* gpu: the CUDA driver API, loaded with dlopen so the binary runs without a driver. */
#ifndef TUNER_GPU_H
#define TUNER_GPU_H

#include <stddef.h>
#include <stdint.h>
#include <cuda.h> /* types only: libcuda is never linked */

struct gpu_info {
	char name[256];
	int cc_major, cc_minor;
	int sms;
	int l2_bytes;
	int max_threads;          /* per block */
	int smem_block;           /* per block without opt-in */
	int smem_optin;           /* per block with opt-in */
	int driver_version;       /* e.g. 13000 */
	size_t mem_bytes;
	int devices;              /* how many CUDA devices the driver sees */
	int pci[3];               /* its PCI domain, bus and device: which GPU it is */
};

/* load libcuda.so.1, init, retain device `ordinal`'s primary context and make it current.
   0 on success; -1 with a reason in why (no library, no device, driver error). */
int gpu_open(int ordinal, struct gpu_info *info, char *why, size_t whylen);
/* before the driver starts in this process: let it see only the device it would number
   `ordinal` (CUDA_VISIBLE_DEVICES narrowed to that entry, or set to the ordinal), which it then
   numbers 0. The driver's start-up takes time for each device it sees (cuInit on a host of four
   H100s, tests/gpu/startup.sh at d23933a: 0.91-0.93 s seeing the four, 0.17-0.31 s one). 0, or -1 where the entry cannot be named (nothing
   changed) */
int gpu_restrict(int ordinal);
/* 1 once the driver was asked to start in this process (gpu_restrict is too late then) */
int gpu_started(void);
/* gpu_open's first part: the library, the driver and device `ordinal`'s attributes into info,
   no context (its creation, about 0.13 s on an H100, can then run beside other work) */
int gpu_probe(int ordinal, struct gpu_info *info, char *why, size_t whylen);
/* gpu_open's second part: retain the probed device's primary context and make it current (0
   at once where it is); -1 with why */
int gpu_context_open(char *why, size_t whylen);
/* "nvidia-h100-80gb-hbm3-sm90": lower-case name, spaces to '-', plus the compute capability */
void gpu_slug(const struct gpu_info *info, char *out, size_t outlen);
/* the primary context gpu_open made current (NULL before) */
CUcontext gpu_context(void);
/* release the primary context */
void gpu_close(void);

/*
 * The driver entry points, resolved by gpu_open under CUDA 13's exact (versioned) names.
 * Members are named without the "cu" prefix so that cuda.h's renaming macros do not apply.
 * The members marked optional may be NULL (deprecated entry points a driver may drop).
 */
struct gpu_api {
	CUresult (*Init)(unsigned int flags);
	CUresult (*DriverGetVersion)(int *version);
	CUresult (*DeviceGet)(CUdevice *dev, int ordinal);
	CUresult (*DeviceGetCount)(int *count);
	CUresult (*DeviceGetName)(char *name, int len, CUdevice dev);
	CUresult (*DeviceGetAttribute)(int *pi, CUdevice_attribute attrib, CUdevice dev);
	CUresult (*DeviceTotalMem)(size_t *bytes, CUdevice dev);
	CUresult (*DevicePrimaryCtxRetain)(CUcontext *pctx, CUdevice dev);
	CUresult (*DevicePrimaryCtxRelease)(CUdevice dev);
	CUresult (*CtxSetCurrent)(CUcontext ctx);
	CUresult (*CtxSynchronize)(void);
	CUresult (*ModuleLoadData)(CUmodule *mod, const void *image);
	CUresult (*ModuleUnload)(CUmodule mod);
	CUresult (*ModuleGetFunction)(CUfunction *fn, CUmodule mod, const char *name);
	CUresult (*ModuleGetGlobal)(CUdeviceptr *dptr, size_t *bytes, CUmodule mod, const char *name);
	CUresult (*FuncSetAttribute)(CUfunction fn, CUfunction_attribute attrib, int value);
	CUresult (*FuncGetAttribute)(int *pi, CUfunction_attribute attrib, CUfunction fn);
	CUresult (*FuncGetParamInfo)(CUfunction fn, size_t i, size_t *offset, size_t *size); /* optional */
	CUresult (*OccupancyMaxActiveBlocksPerMultiprocessor)(int *blocks, CUfunction fn, int threads,
	                                                      size_t shared); /* optional */
	CUresult (*FuncSetSharedMemConfig)(CUfunction fn, CUsharedconfig config); /* optional */
	CUresult (*CtxSetSharedMemConfig)(CUsharedconfig config);                 /* optional */
	CUresult (*CtxGetSharedMemConfig)(CUsharedconfig *config);                /* optional */
	CUresult (*MemAlloc)(CUdeviceptr *dptr, size_t bytes);
	CUresult (*MemFree)(CUdeviceptr dptr);
	CUresult (*MemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
	CUresult (*MemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
	CUresult (*MemcpyDtoD)(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
	CUresult (*MemsetD32)(CUdeviceptr dst, unsigned int value, size_t n);
	CUresult (*MemsetD8)(CUdeviceptr dst, unsigned char value, size_t n);
	CUresult (*MemsetD8Async)(CUdeviceptr dst, unsigned char value, size_t n, CUstream s);
	CUresult (*MemHostAlloc)(void **p, size_t bytes, unsigned int flags);      /* optional */
	CUresult (*MemHostGetDevicePointer)(CUdeviceptr *dptr, void *p, unsigned int flags); /* optional */
	CUresult (*MemFreeHost)(void *p);                                          /* optional */
	CUresult (*LaunchKernel)(CUfunction fn, unsigned int gx, unsigned int gy, unsigned int gz,
	                         unsigned int bx, unsigned int by, unsigned int bz,
	                         unsigned int shared, CUstream s, void **params, void **extra);
	CUresult (*EventCreate)(CUevent *ev, unsigned int flags);
	CUresult (*EventRecord)(CUevent ev, CUstream s);
	CUresult (*EventSynchronize)(CUevent ev);
	CUresult (*EventElapsedTime)(float *ms, CUevent start, CUevent end);
	CUresult (*EventDestroy)(CUevent ev);
	CUresult (*GetErrorName)(CUresult r, const char **s);
	CUresult (*GetErrorString)(CUresult r, const char **s);
};
/* valid between a successful gpu_open and gpu_close */
extern struct gpu_api cu;

/* 1 while the driver is loaded and a context is current */
int gpu_ready(void);
/* "CUDA_ERROR_ILLEGAL_ADDRESS" (or "CUresult 999" when the driver does not know it) */
const char *gpu_errname(CUresult r);
/* the driver's description of r ("an illegal memory access was encountered"), or "" */
const char *gpu_errstr(CUresult r);
/* "call: CUDA_ERROR_X (description)" into why ("call: CUDA_ERROR_X" when the driver has no
   description) */
void gpu_err(char *why, size_t whylen, const char *call, CUresult r);

/* blocks for a grid-stride kernel over n items: one item per thread, at most per_sm blocks per
   multiprocessor (sms of them; at least one) */
unsigned gpu_grid(int sms, size_t n, unsigned block, unsigned per_sm);
/* enqueue f with params on a one-dimensional grid, without shared memory */
CUresult gpu_launch_1d(CUfunction f, unsigned grid, unsigned block, void **params);

#endif
