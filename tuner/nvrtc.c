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
   from the device, the runtime's types such as cudaError_t): a program compiles in 10-15 %
   less time (docs/benchmarks.md, "Compiling"), to the same cubin byte for byte (tests:
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

/* NVRTC's own cache (CUDA 12.9+, where a driver is installed) skips ptxas on a hit, and with
   it the -v report that registers, spills and shared memory are read from: the tuner keeps its
   own cache, so NVRTC's is off in every process that compiles; 1 */
static int setenv_cache_off(void)
{
	if (!getenv("CUDA_CACHE_DISABLE") || strcmp(getenv("CUDA_CACHE_DISABLE"), "1"))
		setenv("CUDA_CACHE_DISABLE", "1", 1);
	return 1;
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

/* the options of a compile for arch: the tuner's own, then opts, and room for one more
   (-minimal) at argv[*n]; argv[0] (the architecture's) and argv are the caller's to free */
static const char **options(const char *arch, char *const *opts, size_t nopts, size_t *n)
{
	static const char *fixed[] = {"-default-device", "-Xptxas", "-v", "-std=c++17"};
	const char **argv = xreallocarray(NULL, LEN(fixed) + 2 + nopts, sizeof *argv);
	size_t i;

	*n = 0;
	argv[(*n)++] = xasprintf("--gpu-architecture=%s", arch);
	for (i = 0; i < LEN(fixed); i++)
		argv[(*n)++] = fixed[i];
	for (i = 0; i < nopts; i++)
		argv[(*n)++] = opts[i];
	return argv;
}

int nv_compile(const char *src, const char *name, const char *entry, const char *arch,
               char *const *opts, size_t nopts, struct compile_out *out)
{
	const char **argv;
	size_t n = 0;
	int tried;

	setenv_cache_off();
	if (!src || !arch) {
		memset(out, 0, sizeof *out);
		out->regs = -1;
		out->lowered = xstrdup(entry ? entry : "");
		out->log = xstrdup("nothing to compile (no source or no architecture)\n");
		return 0;
	}
	argv = options(arch, opts, nopts, &n);
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
	free((char *)argv[0]);
	free(argv);
	return out->ok;
}

/* ---- programs of several variants ---- */

/* the word at *p (an identifier) into w (size n, truncated), past it */
static const char *word(const char *p, char *w, size_t n)
{
	size_t k = 0;

	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
	       *p == '_') {
		if (k + 1 < n)
			w[k++] = *p;
		p++;
	}
	w[k] = '\0';
	return p;
}

/* calls f(arg, directive, the rest of its line) for each preprocessing directive of src */
static void directives(const char *src, void (*f)(void *arg, const char *d, const char *rest),
                       void *arg)
{
	const char *p;
	char d[32];

	for (p = src; *p;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#') {
			p++;
			while (*p == ' ' || *p == '\t')
				p++;
			p = word(p, d, sizeof d);
			while (*p == ' ' || *p == '\t')
				p++;
			f(arg, d, p);
		}
		while (*p && *p != '\n')
			p++;
		if (*p)
			p++;
	}
}

static void repeatable(void *arg, const char *d, const char *rest)
{
	int *ok = arg;
	char w[16];

	if (!strcmp(d, "include") || !strcmp(d, "include_next") || !strcmp(d, "import") ||
	    (!strcmp(d, "pragma") && (word(rest, w, sizeof w), !strcmp(w, "once"))))
		*ok = 0;
}

int nv_group_ok(const char *tmpl, const char *entry, char *const *opts, size_t nopts)
{
	static const char *const whole[] = {"__LINE__", "__FILE__", "__COUNTER__",
	                                    "__BASE_FILE__", "__constant__", NV_GROUP_MARK};
	char w[256];
	size_t i;
	int ok = 1;

	if (!tmpl || !entry || !*entry || *entry == '_' || (*entry >= '0' && *entry <= '9') ||
	    strlen(entry) >= sizeof w || *word(entry, w, sizeof w))
		return 0; /* an identifier, not a name expression; not a reserved one */
	for (i = 0; i < LEN(whole); i++)
		if (strstr(tmpl, whole[i]))
			return 0;
	for (i = 0; i < nopts; i++) /* debug information names the namespaces */
		if (!strcmp(opts[i], "-G") || !strcmp(opts[i], "--device-debug"))
			return 0;
	directives(tmpl, repeatable, &ok);
	return ok;
}

/* for a #define: #undef of its name into the buf arg (a name too long to hold is left: its
   next definition, if it differs, fails the program, which is then compiled apart) */
static void undefine(void *arg, const char *d, const char *rest)
{
	char w[1024];

	if (strcmp(d, "define"))
		return;
	word(rest, w, sizeof w);
	if (*w && strlen(w) + 1 < sizeof w)
		buf_printf(arg, "#undef %s\n", w);
}

int nv_compile_group(char *const *srcs, size_t n, const char *name, const char *entry,
                     const char *arch, char *const *opts, size_t nopts, struct compile_out *outs)
{
	struct buf b = {0};
	char **expr = xcalloc(n + 1, sizeof *expr);
	const char **argv;
	nvrtcProgram prog;
	size_t i, k = 0, sz;
	int ok = 0;

	memset(outs, 0, n * sizeof *outs);
	for (i = 0; i < n; i++) {
		buf_printf(&b, "namespace tuner_g%zu {\n#define %s %s" NV_GROUP_MARK "%zu\n", i, entry,
		           entry, i);
		buf_puts(&b, srcs[i]);
		buf_puts(&b, "\n");
		directives(srcs[i], undefine, &b);
		buf_printf(&b, "#undef %s\n}\n", entry);
		expr[i] = xasprintf("tuner_g%zu::%s" NV_GROUP_MARK "%zu", i, entry, i);
	}
	buf_add(&b, NULL, 0);
	if (!setenv_cache_off() || nvrtcCreateProgram(&prog, b.s, name ? name : "kernel.cu", 0,
	                                              NULL, NULL) != NVRTC_SUCCESS)
		goto out;
	for (i = 0; i < n; i++)
		if (nvrtcAddNameExpression(prog, expr[i]) != NVRTC_SUCCESS)
			goto destroy;
	argv = options(arch, opts, nopts, &k);
	if (nv_minimal_on())
		argv[k++] = "-minimal";
	ok = k <= INT_MAX && nvrtcCompileProgram(prog, (int)k, argv) == NVRTC_SUCCESS &&
	     nvrtcGetCUBINSize(prog, &sz) == NVRTC_SUCCESS && sz > 0;
	free((char *)argv[0]);
	free(argv);
	if (ok) {
		char *cubin = xmalloc(sz), *log = NULL;
		size_t ls = 0;
		if (nvrtcGetCUBIN(prog, cubin) != NVRTC_SUCCESS)
			ok = 0;
		if (nvrtcGetProgramLogSize(prog, &ls) == NVRTC_SUCCESS && ls > 1) {
			log = xmalloc(ls);
			if (nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS)
				log[0] = '\0';
			log[ls - 1] = '\0';
		}
		for (i = 0; ok && i < n; i++) {
			const char *low = NULL;
			if (nvrtcGetLoweredName(prog, expr[i], &low) != NVRTC_SUCCESS || !low)
				ok = 0;
			else
				outs[i].lowered = xstrdup(low);
		}
		for (i = 0; ok && i < n; i++) {
			outs[i].regs = -1;
			outs[i].log = xstrdup(log ? log : "");
			outs[i].cubin = xmalloc(sz);
			memcpy(outs[i].cubin, cubin, sz);
			outs[i].cubin_len = sz;
			parse_ptxas(outs[i].log, outs[i].lowered, &outs[i]);
			outs[i].ok = 1;
		}
		free(cubin);
		free(log);
	}
destroy:
	nvrtcDestroyProgram(&prog);
out:
	if (!ok)
		for (i = 0; i < n; i++)
			nv_out_free(&outs[i]);
	for (i = 0; i < n; i++)
		free(expr[i]);
	free(expr);
	buf_free(&b);
	return ok;
}

/* little-endian fields of an ELF64 image */
static uint64_t le(const unsigned char *p, int bytes)
{
	uint64_t v = 0;

	while (bytes-- > 0)
		v = v << 8 | p[bytes];
	return v;
}

uint64_t nv_code_hash(const struct compile_out *co)
{
	const unsigned char *b = co->cubin;
	size_t len = co->cubin_len, ll = co->lowered ? strlen(co->lowered) : 0;
	uint64_t h = HASH_INIT, shoff, names, nsize, i;
	unsigned shent, shnum, shstr;
	int text = 0;

	h = hash_bytes(h, &co->regs, sizeof co->regs);
	h = hash_bytes(h, &co->smem_static, sizeof co->smem_static);
	h = hash_bytes(h, &co->stack, sizeof co->stack);
	/* the sections of the entry: its code, its constant bank 0, its shared memory's size;
	   else (not a 64-bit little-endian ELF, or no such section) the whole image */
	if (!b || len < 64 || memcmp(b, "\177ELF", 4) || b[4] != 2 || b[5] != 1 || !ll)
		goto whole;
	shoff = le(b + 0x28, 8);
	shent = (unsigned)le(b + 0x3a, 2);
	shnum = (unsigned)le(b + 0x3c, 2);
	shstr = (unsigned)le(b + 0x3e, 2);
	if (shent < 64 || shstr >= shnum || shoff > len || (uint64_t)shnum * shent > len - shoff)
		goto whole;
	names = le(b + shoff + (uint64_t)shstr * shent + 24, 8);
	nsize = le(b + shoff + (uint64_t)shstr * shent + 32, 8);
	if (names > len || nsize > len - names)
		goto whole;
	for (i = 0; i < shnum; i++) {
		const unsigned char *sh = b + shoff + i * shent;
		uint64_t nm = le(sh, 4), type = le(sh + 4, 4), off = le(sh + 24, 8), size = le(sh + 32, 8);
		static const char *const kinds[] = {".text.", ".nv.constant0.", ".nv.shared."};
		const char *n;
		size_t k, kl;
		if (nm >= nsize)
			continue;
		n = (const char *)b + names + nm;
		if (!memchr(n, '\0', nsize - nm))
			continue;
		for (k = 0; k < LEN(kinds); k++) {
			kl = strlen(kinds[k]);
			if (strncmp(n, kinds[k], kl) || strcmp(n + kl, co->lowered))
				continue;
			h = hash_bytes(h, &k, sizeof k);
			h = hash_bytes(h, &size, sizeof size);
			if (k < 2 && type != 8) { /* SHT_NOBITS has no bytes */
				if (off > len || size > len - off)
					goto whole;
				h = hash_bytes(h, b + off, size);
			}
			text |= k == 0;
		}
	}
	if (text)
		return h;
whole:
	h = hash_bytes(h, &len, sizeof len);
	return hash_bytes(h, b, len);
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
