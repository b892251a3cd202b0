/*
 * rtc: compile a CUDA source to a cubin with NVRTC and the options the tuner gives it
 * (tuner/nvrtc.c: --gpu-architecture, -default-device, -std=c++17), for bench/compare/compare.cu's
 * COMPARE_CUBIN: the tuner's build of a kernel beside nvcc's.
 *   cc bench/compare/rtc.c -I$CUDA/include -L$CUDA/lib64 -lnvrtc -o out/bench/rtc
 *   out/bench/rtc sm_90 best.cu best.cubin
 */
#include <nvrtc.h>

#include <stdio.h>
#include <stdlib.h>

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		return NULL;
	s = malloc((size_t)n + 1);
	if (!s || fread(s, 1, (size_t)n, f) != (size_t)n)
		return NULL;
	s[n] = 0;
	fclose(f);
	return s;
}

int main(int argc, char **argv)
{
	char arch[64], *src, *log, *cubin;
	const char *opts[] = {arch, "-default-device", "-std=c++17"};
	nvrtcProgram p;
	size_t n;
	FILE *f;

	if (argc != 4) {
		fprintf(stderr, "usage: rtc sm_XX SOURCE.cu OUT.cubin\n");
		return 2;
	}
	snprintf(arch, sizeof arch, "--gpu-architecture=%s", argv[1]);
	if (!(src = slurp(argv[2]))) {
		perror(argv[2]);
		return 1;
	}
	if (nvrtcCreateProgram(&p, src, argv[2], 0, NULL, NULL) != NVRTC_SUCCESS)
		return 1;
	if (nvrtcCompileProgram(p, 3, opts) != NVRTC_SUCCESS) {
		nvrtcGetProgramLogSize(p, &n);
		log = malloc(n + 1);
		nvrtcGetProgramLog(p, log);
		fprintf(stderr, "%s\n", log);
		return 1;
	}
	nvrtcGetCUBINSize(p, &n);
	cubin = malloc(n);
	nvrtcGetCUBIN(p, cubin);
	if (!(f = fopen(argv[3], "wb")) || fwrite(cubin, 1, n, f) != n || fclose(f)) {
		perror(argv[3]);
		return 1;
	}
	return 0;
}
