/* counters: hardware counters of kernel launches through CUPTI's range profiler (dlopen'd). */
#include "counters.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#ifndef TUNER_CUDA_LIB
#define TUNER_CUDA_LIB "/usr/local/cuda/lib64"
#endif

const char *const counters_smem[COUNTERS_SETS][COUNTERS_SMEM] = {
	{"smsp__sass_inst_executed_op_shared_ld.sum",
	 "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
	 "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
	 "smsp__sass_inst_executed_op_shared_st.sum",
	 "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
	 "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
	 "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
	 "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum"},
	{"smsp__inst_executed_op_shared_ld.sum",
	 "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
	 "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
	 "smsp__inst_executed_op_shared_st.sum",
	 "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
	 "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"},
};

int counters_set_len(int set)
{
	int n = 0;

	while (n < COUNTERS_SMEM && counters_smem[set][n])
		n++;
	return n;
}

#ifndef TUNER_NO_CUPTI
#include <cupti_result.h>
#include <cupti_target.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>

/*
 * The host half of the profiler (cupti_profiler_host.h) is a C++ header; these are its
 * parameter blocks for the calls made here, field for field (CUDA 13.0). CUPTI reads
 * structSize to know which fields a caller has.
 */
typedef struct CUpti_Profiler_Host_Object host_obj;
enum { HOST_RANGE_PROFILER = 0 };

struct host_init {
	size_t structSize;
	void *pPriv;
	int profilerType;
	const char *pChipName;
	const uint8_t *pCounterAvailabilityImage;
	host_obj *pHostObject;
};
struct host_deinit {
	size_t structSize;
	void *pPriv;
	host_obj *pHostObject;
};
struct host_add {
	size_t structSize;
	void *pPriv;
	host_obj *pHostObject;
	const char **ppMetricNames;
	size_t numMetrics;
};
struct host_cfgsize {
	size_t structSize;
	void *pPriv;
	host_obj *pHostObject;
	size_t configImageSize;
};
struct host_cfg {
	size_t structSize;
	void *pPriv;
	host_obj *pHostObject;
	size_t configImageSize;
	uint8_t *pConfigImage;
};
struct host_passes {
	size_t structSize;
	void *pPriv;
	size_t configImageSize;
	uint8_t *pConfigImage;
	size_t numOfPasses;
};
struct host_eval {
	size_t structSize;
	void *pPriv;
	host_obj *pHostObject;
	const uint8_t *pCounterDataImage;
	size_t counterDataImageSize;
	size_t rangeIndex;
	const char **ppMetricNames;
	size_t numMetrics;
	double *pMetricValues;
};
#define SZ(type, last) CUPTI_PROFILER_STRUCT_SIZE(struct type, last)

/* the entry points, resolved from libcupti */
static struct {
	CUptiResult (*GetResultString)(CUptiResult, const char **);
	CUptiResult (*ProfilerInitialize)(CUpti_Profiler_Initialize_Params *);
	CUptiResult (*DeviceGetChipName)(CUpti_Device_GetChipName_Params *);
	CUptiResult (*GetCounterAvailability)(CUpti_Profiler_GetCounterAvailability_Params *);
	CUptiResult (*HostInitialize)(struct host_init *);
	CUptiResult (*HostDeinitialize)(struct host_deinit *);
	CUptiResult (*HostConfigAddMetrics)(struct host_add *);
	CUptiResult (*HostGetConfigImageSize)(struct host_cfgsize *);
	CUptiResult (*HostGetConfigImage)(struct host_cfg *);
	CUptiResult (*HostGetNumOfPasses)(struct host_passes *);
	CUptiResult (*HostEvaluateToGpuValues)(struct host_eval *);
	CUptiResult (*Enable)(CUpti_RangeProfiler_Enable_Params *);
	CUptiResult (*Disable)(CUpti_RangeProfiler_Disable_Params *);
	CUptiResult (*GetCounterDataSize)(CUpti_RangeProfiler_GetCounterDataSize_Params *);
	CUptiResult (*CounterDataImageInitialize)(
		CUpti_RangeProfiler_CounterDataImage_Initialize_Params *);
	CUptiResult (*SetConfig)(CUpti_RangeProfiler_SetConfig_Params *);
	CUptiResult (*Start)(CUpti_RangeProfiler_Start_Params *);
	CUptiResult (*Stop)(CUpti_RangeProfiler_Stop_Params *);
	CUptiResult (*DecodeData)(CUpti_RangeProfiler_DecodeData_Params *);
	CUptiResult (*GetCounterDataInfo)(CUpti_RangeProfiler_GetCounterDataInfo_Params *);
} cp;

#define SYM(m, name) {(void *)&cp.m, name}
static const struct {
	void *slot;
	const char *name;
} syms[] = {
	SYM(GetResultString, "cuptiGetResultString"),
	SYM(ProfilerInitialize, "cuptiProfilerInitialize"),
	SYM(DeviceGetChipName, "cuptiDeviceGetChipName"),
	SYM(GetCounterAvailability, "cuptiProfilerGetCounterAvailability"),
	SYM(HostInitialize, "cuptiProfilerHostInitialize"),
	SYM(HostDeinitialize, "cuptiProfilerHostDeinitialize"),
	SYM(HostConfigAddMetrics, "cuptiProfilerHostConfigAddMetrics"),
	SYM(HostGetConfigImageSize, "cuptiProfilerHostGetConfigImageSize"),
	SYM(HostGetConfigImage, "cuptiProfilerHostGetConfigImage"),
	SYM(HostGetNumOfPasses, "cuptiProfilerHostGetNumOfPasses"),
	SYM(HostEvaluateToGpuValues, "cuptiProfilerHostEvaluateToGpuValues"),
	SYM(Enable, "cuptiRangeProfilerEnable"),
	SYM(Disable, "cuptiRangeProfilerDisable"),
	SYM(GetCounterDataSize, "cuptiRangeProfilerGetCounterDataSize"),
	SYM(CounterDataImageInitialize, "cuptiRangeProfilerCounterDataImageInitialize"),
	SYM(SetConfig, "cuptiRangeProfilerSetConfig"),
	SYM(Start, "cuptiRangeProfilerStart"),
	SYM(Stop, "cuptiRangeProfilerStop"),
	SYM(DecodeData, "cuptiRangeProfilerDecodeData"),
	SYM(GetCounterDataInfo, "cuptiRangeProfilerGetCounterDataInfo"),
};

/* the most kernels one counters_start .. counters_stop may launch */
#define MAX_RANGES 16

struct counters {
	CUpti_RangeProfiler_Object *obj;
	host_obj *host;
	const char **names;
	size_t n;
	uint8_t *config, *data;
	size_t config_len, data_len;
	int passes;
	int started;
};

/* why = "call: CUPTI_ERROR_..." */
static int fail(char *why, size_t whylen, const char *call, CUptiResult r)
{
	const char *s = NULL;

	if (cp.GetResultString)
		cp.GetResultString(r, &s);
	say(why, whylen, "%s: %s (CUptiResult %d)", call, s ? s : "unknown error", (int)r);
	return -1;
}

static int load_lib(char *why, size_t whylen)
{
	static void *lib;
	static char err[512];
	const char *env = getenv("TUNER_CUPTI");
	const char *cands[] = {
		env && *env ? env : NULL,
		TUNER_CUDA_LIB "/libcupti.so.13",
		TUNER_CUDA_LIB "/libcupti.so",
		TUNER_CUDA_LIB "/../extras/CUPTI/lib64/libcupti.so",
		"libcupti.so.13",
		"libcupti.so",
	};
	size_t i;

	if (lib)
		return 0;
	if (err[0]) {
		say(why, whylen, "%s", err);
		return -1;
	}
	for (i = 0; i < sizeof cands / sizeof *cands && !lib; i++)
		if (cands[i])
			lib = dlopen(cands[i], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(err, sizeof err, "libcupti not found (tried $TUNER_CUPTI, %s and the loader's "
		         "path): install the CUDA Toolkit's CUPTI or set TUNER_CUPTI", TUNER_CUDA_LIB);
		say(why, whylen, "%s", err);
		return -1;
	}
	for (i = 0; i < sizeof syms / sizeof *syms; i++) {
		void *f = dlsym(lib, syms[i].name);
		if (!f) {
			snprintf(err, sizeof err, "libcupti has no %s: the range profiler needs CUPTI from "
			         "CUDA 12.6 or later", syms[i].name);
			say(why, whylen, "%s", err);
			lib = NULL; /* kept loaded: dlclose of a half-used CUPTI is not worth the risk */
			return -1;
		}
		memcpy(syms[i].slot, &f, sizeof f);
	}
	return 0;
}

/* the host half: the chip's counter availability, k's metrics in a config image, its passes;
   0, or -1 with why */
static int host_config(struct counters *k, CUcontext ctx, int ordinal, char *why,
                       size_t whylen)
{
	CUptiResult r;
	CUpti_Profiler_Initialize_Params ini = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE, NULL};
	CUpti_Device_GetChipName_Params chip = {CUpti_Device_GetChipName_Params_STRUCT_SIZE, NULL,
	                                        0, NULL};
	CUpti_Profiler_GetCounterAvailability_Params av = {
		CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE, NULL, ctx, 0, NULL};
	struct host_init hi = {SZ(host_init, pHostObject), NULL, HOST_RANGE_PROFILER, NULL, NULL,
	                       NULL};
	struct host_add ha = {SZ(host_add, numMetrics), NULL, NULL, NULL, 0};
	struct host_cfgsize hs = {SZ(host_cfgsize, configImageSize), NULL, NULL, 0};
	struct host_cfg hc = {SZ(host_cfg, pConfigImage), NULL, NULL, 0, NULL};
	struct host_passes hp = {SZ(host_passes, numOfPasses), NULL, 0, NULL, 0};
	uint8_t *avail = NULL;
	size_t i, n = k->n;

	if ((r = cp.ProfilerInitialize(&ini)) != CUPTI_SUCCESS) {
		fail(why, whylen, "cuptiProfilerInitialize", r);
		goto bad;
	}
	chip.deviceIndex = (size_t)ordinal;
	if ((r = cp.DeviceGetChipName(&chip)) != CUPTI_SUCCESS) {
		fail(why, whylen, "cuptiDeviceGetChipName", r);
		goto bad;
	}
	if ((r = cp.GetCounterAvailability(&av)) != CUPTI_SUCCESS) {
		fail(why, whylen, "cuptiProfilerGetCounterAvailability", r);
		goto bad;
	}
	avail = xmalloc(av.counterAvailabilityImageSize ? av.counterAvailabilityImageSize : 1);
	av.pCounterAvailabilityImage = avail;
	if ((r = cp.GetCounterAvailability(&av)) != CUPTI_SUCCESS) {
		fail(why, whylen, "cuptiProfilerGetCounterAvailability", r);
		goto bad;
	}
	hi.pChipName = chip.pChipName;
	hi.pCounterAvailabilityImage = avail;
	if ((r = cp.HostInitialize(&hi)) != CUPTI_SUCCESS) {
		fail(why, whylen, "cuptiProfilerHostInitialize", r);
		goto bad;
	}
	k->host = hi.pHostObject;
	ha.pHostObject = k->host;
	ha.ppMetricNames = k->names;
	ha.numMetrics = n;
	if ((r = cp.HostConfigAddMetrics(&ha)) != CUPTI_SUCCESS) {
		/* say which one: add them one by one */
		for (i = 0; i < n; i++) {
			struct host_add one = ha;
			one.ppMetricNames = &k->names[i];
			one.numMetrics = 1;
			if (cp.HostConfigAddMetrics(&one) != CUPTI_SUCCESS)
				break;
		}
		fail(why, whylen, "cuptiProfilerHostConfigAddMetrics", r);
		if (i < n)
			say(why + strlen(why), whylen - strlen(why), ": %s is not a metric of %s",
			    k->names[i], chip.pChipName);
		goto bad;
	}
	hs.pHostObject = k->host;
	if ((r = cp.HostGetConfigImageSize(&hs)) != CUPTI_SUCCESS) {
		fail(why, whylen, "cuptiProfilerHostGetConfigImageSize", r);
		goto bad;
	}
	k->config_len = hs.configImageSize;
	k->config = xcalloc(1, k->config_len ? k->config_len : 1);
	hc.pHostObject = k->host;
	hc.configImageSize = k->config_len;
	hc.pConfigImage = k->config;
	if ((r = cp.HostGetConfigImage(&hc)) != CUPTI_SUCCESS) {
		fail(why, whylen, "cuptiProfilerHostGetConfigImage", r);
		goto bad;
	}
	hp.configImageSize = k->config_len;
	hp.pConfigImage = k->config;
	if ((r = cp.HostGetNumOfPasses(&hp)) != CUPTI_SUCCESS) {
		fail(why, whylen, "cuptiProfilerHostGetNumOfPasses", r);
		goto bad;
	}
	k->passes = (int)hp.numOfPasses;
	free(avail);
	return 0;
bad:
	free(avail);
	return -1;
}

/* the range profiler on ctx: enabled, its counter data image made, k's config set; 0, or -1
   with why */
static int range_setup(struct counters *k, CUcontext ctx, char *why, size_t whylen)
{
	CUptiResult r;
	CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE, NULL,
	                                        ctx, NULL};
	CUpti_RangeProfiler_GetCounterDataSize_Params ds;
	CUpti_RangeProfiler_CounterDataImage_Initialize_Params di;
	CUpti_RangeProfiler_SetConfig_Params sc;

	if ((r = cp.Enable(&en)) != CUPTI_SUCCESS) {
		fail(why, whylen, "cuptiRangeProfilerEnable", r);
		return -1;
	}
	k->obj = en.pRangeProfilerObject;
	memset(&ds, 0, sizeof ds);
	ds.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
	ds.pRangeProfilerObject = k->obj;
	ds.pMetricNames = k->names;
	ds.numMetrics = k->n;
	ds.maxNumOfRanges = MAX_RANGES;
	ds.maxNumRangeTreeNodes = MAX_RANGES;
	if ((r = cp.GetCounterDataSize(&ds)) != CUPTI_SUCCESS) {
		fail(why, whylen, "cuptiRangeProfilerGetCounterDataSize", r);
		return -1;
	}
	k->data_len = ds.counterDataSize;
	k->data = xcalloc(1, k->data_len ? k->data_len : 1);
	memset(&di, 0, sizeof di);
	di.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
	di.pRangeProfilerObject = k->obj;
	di.counterDataSize = k->data_len;
	di.pCounterData = k->data;
	if ((r = cp.CounterDataImageInitialize(&di)) != CUPTI_SUCCESS) {
		fail(why, whylen, "cuptiRangeProfilerCounterDataImageInitialize", r);
		return -1;
	}
	memset(&sc, 0, sizeof sc);
	sc.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
	sc.pRangeProfilerObject = k->obj;
	sc.configSize = k->config_len;
	sc.pConfig = k->config;
	sc.counterDataImageSize = k->data_len;
	sc.pCounterDataImage = k->data;
	sc.range = CUPTI_AutoRange;          /* one range per kernel launch */
	sc.replayMode = CUPTI_KernelReplay;  /* CUPTI replays a kernel for each extra pass */
	sc.maxRangesPerPass = MAX_RANGES;
	sc.numNestingLevels = 1;
	sc.minNestingLevel = 1;
	sc.passIndex = 0;
	sc.targetNestingLevel = 1;
	if ((r = cp.SetConfig(&sc)) != CUPTI_SUCCESS) {
		fail(why, whylen, "cuptiRangeProfilerSetConfig", r);
		return -1;
	}
	return 0;
}

struct counters *counters_open(CUcontext ctx, int ordinal, const char *const *names, size_t n,
                               char *why, size_t whylen)
{
	struct counters *k;
	size_t i;

	if (n == 0) {
		say(why, whylen, "no metrics asked for");
		return NULL;
	}
	if (load_lib(why, whylen) < 0)
		return NULL;
	k = xcalloc(1, sizeof *k);
	k->n = n;
	k->names = xcalloc(n, sizeof *k->names);
	for (i = 0; i < n; i++)
		k->names[i] = names[i];
	if (host_config(k, ctx, ordinal, why, whylen) < 0 || range_setup(k, ctx, why, whylen) < 0) {
		counters_close(k);
		return NULL;
	}
	return k;
}

int counters_count(const struct counters *k)
{
	return k ? (int)k->n : 0;
}

int counters_passes(const struct counters *k)
{
	return k ? k->passes : 0;
}

int counters_start(struct counters *k, char *why, size_t whylen)
{
	CUpti_RangeProfiler_Start_Params p = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE, NULL,
	                                      k->obj};
	CUpti_RangeProfiler_CounterDataImage_Initialize_Params di;
	CUptiResult r;

	/* a fresh image: the ranges of the previous start .. stop are not summed again */
	memset(&di, 0, sizeof di);
	di.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
	di.pRangeProfilerObject = k->obj;
	di.counterDataSize = k->data_len;
	di.pCounterData = k->data;
	if ((r = cp.CounterDataImageInitialize(&di)) != CUPTI_SUCCESS)
		return fail(why, whylen, "cuptiRangeProfilerCounterDataImageInitialize", r);
	if ((r = cp.Start(&p)) != CUPTI_SUCCESS)
		return fail(why, whylen, "cuptiRangeProfilerStart", r);
	k->started = 1;
	return 0;
}

int counters_stop(struct counters *k, double *vals, char *why, size_t whylen)
{
	CUpti_RangeProfiler_Stop_Params st;
	CUpti_RangeProfiler_DecodeData_Params dd;
	CUpti_RangeProfiler_GetCounterDataInfo_Params info;
	struct host_eval ev = {SZ(host_eval, pMetricValues), NULL, k->host, k->data, k->data_len, 0,
	                       k->names, k->n, NULL};
	double *one = xcalloc(k->n, sizeof *one);
	CUptiResult r;
	size_t i, j;
	int ret = -1;

	memset(vals, 0, k->n * sizeof *vals);
	memset(&st, 0, sizeof st);
	st.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
	st.pRangeProfilerObject = k->obj;
	k->started = 0;
	if ((r = cp.Stop(&st)) != CUPTI_SUCCESS) {
		fail(why, whylen, "cuptiRangeProfilerStop", r);
		goto out;
	}
	memset(&dd, 0, sizeof dd);
	dd.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
	dd.pRangeProfilerObject = k->obj;
	if ((r = cp.DecodeData(&dd)) != CUPTI_SUCCESS) {
		fail(why, whylen, "cuptiRangeProfilerDecodeData", r);
		goto out;
	}
	if (dd.numOfRangeDropped) {
		say(why, whylen, "%zu kernels not counted (at most %d per variant)",
		    dd.numOfRangeDropped, MAX_RANGES);
		goto out;
	}
	memset(&info, 0, sizeof info);
	info.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
	info.pCounterDataImage = k->data;
	info.counterDataImageSize = k->data_len;
	if ((r = cp.GetCounterDataInfo(&info)) != CUPTI_SUCCESS) {
		fail(why, whylen, "cuptiRangeProfilerGetCounterDataInfo", r);
		goto out;
	}
	for (i = 0; i < info.numTotalRanges; i++) {
		ev.rangeIndex = i;
		ev.pMetricValues = one;
		if ((r = cp.HostEvaluateToGpuValues(&ev)) != CUPTI_SUCCESS) {
			fail(why, whylen, "cuptiProfilerHostEvaluateToGpuValues", r);
			goto out;
		}
		for (j = 0; j < k->n; j++)
			vals[j] += one[j];
	}
	ret = (int)info.numTotalRanges;
out:
	free(one);
	return ret;
}

void counters_close(struct counters *k)
{
	if (!k)
		return;
	if (k->started) {
		CUpti_RangeProfiler_Stop_Params st;
		memset(&st, 0, sizeof st);
		st.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
		st.pRangeProfilerObject = k->obj;
		cp.Stop(&st);
	}
	if (k->obj) {
		CUpti_RangeProfiler_Disable_Params d = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE,
		                                        NULL, k->obj};
		cp.Disable(&d);
	}
	if (k->host) {
		struct host_deinit d = {SZ(host_deinit, pHostObject), NULL, k->host};
		cp.HostDeinitialize(&d);
	}
	free(k->config);
	free(k->data);
	free(k->names);
	free(k);
}

#else /* built without CUPTI's headers (configure.py says so): --counters says why */

struct counters {
	int unused;
};

struct counters *counters_open(CUcontext ctx, int ordinal, const char *const *names, size_t n,
                               char *why, size_t whylen)
{
	(void)ctx;
	(void)ordinal;
	(void)names;
	(void)n;
	say(why, whylen, "this tuner was built without CUPTI's headers (cupti_range_profiler.h): "
	    "install the CUDA Toolkit's CUPTI and run ./configure.py again");
	return NULL;
}

int counters_count(const struct counters *k)
{
	(void)k;
	return 0;
}

int counters_passes(const struct counters *k)
{
	(void)k;
	return 0;
}

int counters_start(struct counters *k, char *why, size_t whylen)
{
	(void)k;
	say(why, whylen, "no CUPTI");
	return -1;
}

int counters_stop(struct counters *k, double *vals, char *why, size_t whylen)
{
	(void)k;
	(void)vals;
	say(why, whylen, "no CUPTI");
	return -1;
}

void counters_close(struct counters *k)
{
	free(k);
}
#endif
