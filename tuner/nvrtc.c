/* nvrtc: compile one CUDA source to a CUBIN for one architecture. */
#include "nvrtc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NVRTC's own header, through -I<cuda>/include (the build passes no -Ituner for tuner/) */
#include <nvrtc.h>
#ifndef __NVRTC_H__
#error "<nvrtc.h> found tuner/nvrtc.h: put -I<cuda>/include before -Ituner"
#endif

#include "util.h"

/* the decimal number starting at p (before e); -1 if none or out of int range */
static long num_at(const char *p, const char *e)
{
	long v = 0;

	if (p >= e || *p < '0' || *p > '9')
		return -1;
	for (; p < e && *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (*p - '0');
		if (v > INT_MAX)
			return -1;
	}
	return v;
}

/* where `what` first occurs in [s, e), or NULL */
static const char *find(const char *s, const char *e, const char *what)
{
	size_t wl = strlen(what);

	for (; s + wl <= e; s++)
		if (!memcmp(s, what, wl))
			return s;
	return NULL;
}

/* the number in front of `what` on line [s, e) ("1024 bytes smem" -> 1024); -1 if none */
static long num_before(const char *s, const char *e, const char *what)
{
	const char *p = find(s, e, what);

	if (!p)
		return -1;
	while (p > s && p[-1] == ' ')
		p--;
	while (p > s && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return num_at(p, e);
}

/* the number right after `what` on line [s, e) ("Used 10 registers" with "Used ") */
static long num_after(const char *s, const char *e, const char *what)
{
	const char *p = find(s, e, what);

	return p ? num_at(p + strlen(what), e) : -1;
}

/* pick the entry's resource usage out of ptxas -v output: the "Used" line of the entry's
   section and the stack/spill line under "Function properties for <entry>" */
static void parse_ptxas(const char *log, const char *lowered, struct compile_out *out)
{
	static const char entry[] = "Compiling entry function '", props[] = "Function properties for ";
	size_t ll = strlen(lowered);
	const char *s, *e, *p, *q;
	int in_entry = 0, in_props = 0;
	long v;

	for (s = log; *s; s = *e ? e + 1 : e) {
		e = strchr(s, '\n');
		if (!e)
			e = s + strlen(s);
		if ((p = find(s, e, entry))) {
			p += sizeof entry - 1;
			in_entry = (size_t)(e - p) > ll && !memcmp(p, lowered, ll) && p[ll] == '\'';
			in_props = 0;
		} else if ((p = find(s, e, props))) {
			p += sizeof props - 1;
			for (q = e; q > p && (q[-1] == ' ' || q[-1] == '\r'); q--)
				;
			in_props = (size_t)(q - p) == ll && !memcmp(p, lowered, ll);
		} else if (in_props && find(s, e, " bytes stack frame")) {
			if ((v = num_before(s, e, " bytes stack frame")) >= 0)
				out->stack = (int)v;
			if ((v = num_before(s, e, " bytes spill stores")) >= 0)
				out->spill_stores = (int)v;
			if ((v = num_before(s, e, " bytes spill loads")) >= 0)
				out->spill_loads = (int)v;
			in_props = 0;
		} else if (in_entry && find(s, e, "Used ")) {
			if ((v = num_after(s, e, "Used ")) >= 0)
				out->regs = (int)v;
			if ((v = num_before(s, e, " bytes smem")) >= 0)
				out->smem_static = (int)v;
		}
	}
}

static void set_log(struct compile_out *out, const char *what, nvrtcResult r)
{
	free(out->log);
	out->log = xasprintf("%s: %s\n", what, nvrtcGetErrorString(r));
}

/* -minimal (NVRTC 12.4 and later) leaves out of every program the runtime's declarations
   that a kernel of its own rarely uses (textures and surfaces, the device runtime, launches
   from the device, the runtime's types such as cudaError_t): a program compiles in 2-10 %
   less time (docs/benchmarks.md, "Tuning speed"), to the same cubin byte for byte (tests:
   nvrtc_minimal_same). A program that needs what it leaves out fails with it; it is compiled
   again without, and so is every later program of this process. -1: not yet known (the
   environment's TUNER_NVRTC_MINIMAL, 0: never); 0: off; 1: on */
static int minimal = -1;

void nv_minimal(int on)
{
	minimal = on;
}

int nv_minimal_on(void)
{
	if (minimal < 0) {
		const char *e = getenv("TUNER_NVRTC_MINIMAL");
		minimal = !(e && !strcmp(e, "0"));
	}
	return minimal;
}

/* one compile of src with the options argv[0 .. n) into out (filled as nv_compile says) */
static int compile_with(const char *src, const char *name, const char *entry, const char *arch,
                        const char **argv, size_t n, struct compile_out *out)
{
	nvrtcProgram prog;
	nvrtcResult r, rc;
	size_t sz;
	const char *low = NULL;

	memset(out, 0, sizeof *out);
	out->regs = -1;
	out->log = xstrdup("");
	out->lowered = xstrdup(entry ? entry : "");
	r = nvrtcCreateProgram(&prog, src, name ? name : "kernel.cu", 0, NULL, NULL);
	if (r != NVRTC_SUCCESS) {
		set_log(out, "nvrtcCreateProgram", r);
		return 0;
	}
	if (entry && *entry && (r = nvrtcAddNameExpression(prog, entry)) != NVRTC_SUCCESS) {
		set_log(out, "nvrtcAddNameExpression", r);
		nvrtcDestroyProgram(&prog);
		return 0;
	}
	if (n > INT_MAX)
		die("too many NVRTC options");
	rc = nvrtcCompileProgram(prog, (int)n, argv);

	if (nvrtcGetProgramLogSize(prog, &sz) == NVRTC_SUCCESS && sz > 1) {
		char *log = xmalloc(sz);
		if (nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS) {
			log[sz - 1] = '\0';
			free(out->log);
			out->log = log;
		} else {
			free(log);
		}
	}
	if (rc != NVRTC_SUCCESS) {
		if (rc != NVRTC_ERROR_COMPILATION || !*out->log) {
			/* not a plain compile error: say what NVRTC returned too */
			char *l = xasprintf("%snvrtcCompileProgram: %s\n", out->log,
			                    nvrtcGetErrorString(rc));
			free(out->log);
			out->log = l;
		}
		nvrtcDestroyProgram(&prog);
		return 0;
	}

	if (entry && *entry && nvrtcGetLoweredName(prog, entry, &low) == NVRTC_SUCCESS && low) {
		free(out->lowered);
		out->lowered = xstrdup(low);
	}
	if ((r = nvrtcGetCUBINSize(prog, &sz)) != NVRTC_SUCCESS || sz == 0) {
		if (r == NVRTC_SUCCESS)
			r = NVRTC_ERROR_INVALID_INPUT;
		char *l = xasprintf("%snvrtcGetCUBINSize: %s (is '%s' a real sm_XX architecture?)\n",
		                    out->log, nvrtcGetErrorString(r), arch);
		free(out->log);
		out->log = l;
		nvrtcDestroyProgram(&prog);
		return 0;
	}
	out->cubin = xmalloc(sz);
	if ((r = nvrtcGetCUBIN(prog, out->cubin)) != NVRTC_SUCCESS) {
		char *l = xasprintf("%snvrtcGetCUBIN: %s\n", out->log, nvrtcGetErrorString(r));
		free(out->log);
		out->log = l;
		free(out->cubin);
		out->cubin = NULL;
		nvrtcDestroyProgram(&prog);
		return 0;
	}
	out->cubin_len = sz;
	nvrtcDestroyProgram(&prog);
	parse_ptxas(out->log, out->lowered, out);
	out->ok = 1;
	return 1;
}

int nv_compile(const char *src, const char *name, const char *entry, const char *arch,
               char *const *opts, size_t nopts, struct compile_out *out)
{
	static const char *fixed[] = {"-default-device", "-Xptxas", "-v", "-std=c++17"};
	const char **argv;
	char *archopt;
	size_t i, n = 0;
	int tried;

	/* NVRTC's own cache (CUDA 12.9+, where a driver is installed) skips ptxas on a hit, and with
	   it the -v report that registers, spills and shared memory are read from: the tuner keeps
	   its own cache, so NVRTC's is off in every process that compiles */
	if (!getenv("CUDA_CACHE_DISABLE") || strcmp(getenv("CUDA_CACHE_DISABLE"), "1"))
		setenv("CUDA_CACHE_DISABLE", "1", 1);
	if (!src || !arch) {
		memset(out, 0, sizeof *out);
		out->regs = -1;
		out->lowered = xstrdup(entry ? entry : "");
		out->log = xstrdup("nothing to compile (no source or no architecture)\n");
		return 0;
	}
	archopt = xasprintf("--gpu-architecture=%s", arch);
	argv = xreallocarray(NULL, LEN(fixed) + 2 + nopts, sizeof *argv);
	argv[n++] = archopt;
	for (i = 0; i < LEN(fixed); i++)
		argv[n++] = fixed[i];
	for (i = 0; i < nopts; i++)
		argv[n++] = opts[i];
	tried = nv_minimal_on();
	if (tried)
		argv[n] = "-minimal";
	if (!compile_with(src, name, entry, arch, argv, n + (size_t)tried, out) && tried) {
		/* what it leaves out, or the program's own error: without it, the error is the
		   program's (and its log says nothing of -minimal) */
		nv_out_free(out);
		if (compile_with(src, name, entry, arch, argv, n, out))
			minimal = 0;
	}
	free(argv);
	free(archopt);
	return out->ok;
}

const char *nv_version(void)
{
	static char v[32];
	int major, minor;

	if (!v[0]) {
		if (nvrtcVersion(&major, &minor) == NVRTC_SUCCESS)
			snprintf(v, sizeof v, "%d.%d", major, minor);
		else
			snprintf(v, sizeof v, "unknown");
	}
	return v;
}

/* the architecture numbers NVRTC supports (malloc'd), count in *n */
static int *supported(int *n)
{
	int *a;

	*n = 0;
	if (nvrtcGetNumSupportedArchs(n) != NVRTC_SUCCESS || *n <= 0) {
		*n = 0;
		return NULL;
	}
	a = xreallocarray(NULL, (size_t)*n, sizeof *a);
	if (nvrtcGetSupportedArchs(a) != NVRTC_SUCCESS) {
		free(a);
		*n = 0;
		return NULL;
	}
	return a;
}

const char *nv_newest_arch(void)
{
	static char v[32];
	int n, i, best = 0, *a;

	if (!v[0]) {
		a = supported(&n);
		for (i = 0; i < n; i++)
			if (a[i] > best)
				best = a[i];
		free(a);
		snprintf(v, sizeof v, "sm_%d", best ? best : 90);
	}
	return v;
}

int nv_arch_supported(const char *arch)
{
	int n, i, found = 0, *a;
	long num = 0;
	const char *p;

	if (!arch || strncmp(arch, "sm_", 3) != 0)
		return 0;
	p = arch + 3;
	if (*p < '1' || *p > '9')
		return 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		num = num * 10 + (*p - '0');
		if (num > 100000)
			return 0;
	}
	/* arch-specific ("sm_90a") and family ("sm_100f") variants exist from sm_90 on */
	if ((*p == 'a' || *p == 'f') && num >= 90)
		p++;
	if (*p)
		return 0;
	a = supported(&n);
	for (i = 0; i < n; i++)
		if (a[i] == num)
			found = 1;
	free(a);
	return found;
}

const char *nv_hint(const char *log, const char *entry, const char *name, char *buf, size_t n)
{
	if (log && entry && strstr(log, "__nv_name_map") && strstr(log, "is undefined")) {
		snprintf(buf, n, "'%s' (the config's entry) is not a kernel %s defines: name a "
		         "__global__ function of it (extern \"C\", or by its C++ name)", entry, name);
		return buf;
	}
	return NULL;
}

int nv_arch_cc(const char *arch)
{
	return arch && !strncmp(arch, "sm_", 3) ? atoi(arch + 3) : 0;
}

void nv_out_free(struct compile_out *out)
{
	free(out->log);
	free(out->cubin);
	free(out->lowered);
	out->log = NULL;
	out->cubin = NULL;
	out->lowered = NULL;
	out->cubin_len = 0;
	out->ok = 0;
}
