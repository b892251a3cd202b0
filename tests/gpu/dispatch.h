/* Shared by tests/gpu/dispatch.cu and the single-size winners it times beside the dispatched
   pick (dispatch_one.cu): one problem's buffers, and a winner that registers itself. Lowercase
   names only: a best.cu defines its parameters (BLOCK, OUT, VEC, ...) as macros. */
#ifndef TUNER_DISPATCH_H
#define TUNER_DISPATCH_H

#include <cuda_runtime.h>

/* the problem at one size, on the current device: sizes, buffers and the scratch capacity */
struct prob {
	long long n, rows, cols, sms;
	float *in, *out, *partials;
	unsigned *counter;
	long long npartials, ncounter;
};

/* a winner of a single-size run: its name in the table, variant and the size label it is
   timed at ("*": every size) */
struct one {
	const char *name, *id, *at;
	cudaError_t (*setup)(void);
	cudaError_t (*launch)(const struct prob *p, cudaStream_t s);
};

/* register o with the harness (from a static initializer) */
void one_add(const struct one *o);

#endif
