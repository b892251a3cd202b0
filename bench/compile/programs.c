/* Compile time per program: the variants of a template compiled one per NVRTC program, and the
   same variants as one program (each in a namespace of its own, written by programs.py), each
   with and without -minimal, in one process after a first compile that pays NVRTC's start-up.
   NVRTC's own cache is off, as in the tuner. Usage: programs TEMPLATE BATCH DEFS... (DEFS: files
   of #define lines, one per variant); prints ms per variant for each way. With PROGRAMS_DUMP=DIR
   the cubins too (DIR/single<i>.cubin, DIR/batch.cubin). */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static char *slurp(const char *p)
{
	FILE *f = fopen(p, "rb");
	long n;
	char *s;

	if (!f || fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0) {
		fprintf(stderr, "programs: cannot read %s\n", p);
		exit(2);
	}
	rewind(f);
	s = malloc((size_t)n + 1);
	if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "programs: cannot read %s\n", p);
		exit(2);
	}
	s[n] = 0;
	fclose(f);
	return s;
}

/* ms to compile src for sm_90 with the tuner's options (and -minimal); with dump, its cubin
   into that file */
static double compile_to(const char *src, int minimal, const char *dump)
{
	const char *o[] = {"--gpu-architecture=sm_90", "-default-device", "-Xptxas", "-v",
	                   "-std=c++17", "-minimal"};
	nvrtcProgram p;
	double t0;
	nvrtcResult r;

	nvrtcCreateProgram(&p, src, "k.cu", 0, NULL, NULL);
	t0 = now();
	r = nvrtcCompileProgram(p, minimal ? 6 : 5, o);
	t0 = now() - t0;
	if (r != NVRTC_SUCCESS) {
		fprintf(stderr, "programs: %s\n", nvrtcGetErrorString(r));
		exit(1);
	}
	if (dump) {
		size_t sz;
		char *c;
		FILE *f = fopen(dump, "wb");
		if (!f || nvrtcGetCUBINSize(p, &sz) != NVRTC_SUCCESS || !(c = malloc(sz)) ||
		    nvrtcGetCUBIN(p, c) != NVRTC_SUCCESS || fwrite(c, 1, sz, f) != sz || fclose(f)) {
			fprintf(stderr, "programs: cannot write %s\n", dump);
			exit(1);
		}
		free(c);
	}
	nvrtcDestroyProgram(&p);
	return 1e3 * t0;
}

static double compile(const char *src, int minimal)
{
	return compile_to(src, minimal, NULL);
}

int main(int argc, char **argv)
{
	char *tmpl, *batch, **src;
	int n = argc - 3, i, m, rep;

	if (n < 1) {
		fprintf(stderr, "usage: programs TEMPLATE BATCH DEFS...\n");
		return 2;
	}
	setenv("CUDA_CACHE_DISABLE", "1", 1);
	tmpl = slurp(argv[1]);
	batch = slurp(argv[2]);
	src = calloc((size_t)n, sizeof *src);
	for (i = 0; i < n; i++) {
		char *d = slurp(argv[3 + i]);
		src[i] = malloc(strlen(d) + strlen(tmpl) + 2);
		sprintf(src[i], "%s\n%s", d, tmpl);
		free(d);
	}
	printf("first compile (NVRTC's start-up): %.1f ms\n",
	       compile("extern \"C\" __global__ void k(float *a) { a[0] = 1; }", 0));
	if (getenv("PROGRAMS_DUMP")) { /* the cubins, for the comparison of their code */
		char path[4096];
		for (i = 0; i < n; i++) {
			snprintf(path, sizeof path, "%s/single%d.cubin", getenv("PROGRAMS_DUMP"), i);
			compile_to(src[i], 0, path);
		}
		snprintf(path, sizeof path, "%s/batch.cubin", getenv("PROGRAMS_DUMP"));
		compile_to(batch, 0, path);
	}
	for (rep = 0; rep < 3; rep++)
		for (m = 0; m < 2; m++) {
			double s = 0, b;
			for (i = 0; i < n; i++)
				s += compile(src[i], m);
			b = compile(batch, m);
			printf("%-10s %d programs of one variant: %6.1f ms each; one of %d: %6.1f ms "
			       "each\n", m ? "-minimal" : "full", n, s / n, n, b / n);
		}
	return 0;
}
