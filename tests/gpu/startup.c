/* The driver's start-up in one process, step by step (for tests/gpu/startup.sh): cuInit, the
   device's primary context, then NBUF buffers of MB MiB each allocated and set. Prints one
   line: the seconds each step took, from the process's start, and the process's start and end
   on the monotonic clock (to line processes up); then holds its context HOLD seconds (as a
   GPU worker does while others start). Usage: startup [NBUF [MB [HOLD]]] */
#include <unistd.h>
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	int nbuf = argc > 1 ? atoi(argv[1]) : 4, mb = argc > 2 ? atoi(argv[2]) : 256, i, n = 0;
	double hold = argc > 3 ? atof(argv[3]) : 0;
	double t0 = now(), t1, t2, t3, t4;
	CUdevice d;
	CUcontext c;
	CUdeviceptr p;

	if (cuInit(0) != CUDA_SUCCESS || cuDeviceGetCount(&n) != CUDA_SUCCESS || n < 1 ||
	    cuDeviceGet(&d, 0) != CUDA_SUCCESS)
		return 1;
	t1 = now();
	if (cuDevicePrimaryCtxRetain(&c, d) != CUDA_SUCCESS || cuCtxSetCurrent(c) != CUDA_SUCCESS)
		return 1;
	t2 = now();
	for (i = 0; i < nbuf; i++)
		if (cuMemAlloc(&p, (size_t)mb << 20) != CUDA_SUCCESS)
			return 1;
	t3 = now();
	if (cuMemsetD8(p, 0, (size_t)mb << 20) != CUDA_SUCCESS || cuCtxSynchronize() != CUDA_SUCCESS)
		return 1;
	t4 = now();
	printf("devices seen %d  cuInit %.3f  context %.3f  %d x %d MiB allocated %.3f  one set %.3f"
	       "  (monotonic %.3f to %.3f)\n", n, t1 - t0, t2 - t1, nbuf, mb, t3 - t2, t4 - t3, t0, t4);
	fflush(stdout);
	if (hold > 0)
		usleep((useconds_t)(hold * 1e6));
	return 0;
}
