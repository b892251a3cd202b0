/* One single-size best.cu (a tuner run at one size) for tests/gpu/dispatch.cu, launched as its
   best.h says. nvcc -c -DKERNEL_FILTER21 (or _TRANSPOSE, _REDUCTION) -DONE_CU='"DIR/best.cu"'
   -DONE_H='"DIR/best.h"' -DONE_NAME='"tuned"' -DONE_ID='"v..."' -DONE_AT='"n=200000"'
   -Dfilter21=one1_filter21 (its kernel renamed: several are linked into one harness). */
#include "dispatch.h"
#include ONE_H
#include ONE_CU

static cudaError_t one_setup(void)
{
#ifdef KERNEL_FILTER21
	return cudaMemcpyToSymbol(coef, filter21_coef_values, sizeof filter21_coef_values);
#else
	return cudaSuccess;
#endif
}

static cudaError_t one_launch(const struct prob *p, cudaStream_t s)
{
	unsigned b[3], g[3], smem;
	cudaError_t e;

#if defined(KERNEL_FILTER21)
	const void *k = (const void *)filter21;
	filter21_launch(p->n, p->sms, b, g, &smem);
#elif defined(KERNEL_TRANSPOSE)
	const void *k = (const void *)transpose;
	transpose_launch(p->rows, p->cols, p->sms, b, g, &smem);
#else
	const void *k = (const void *)reduction;
	reduction_launch(p->n, p->sms, b, g, &smem);
	if (reduction_partials_count(p->n, p->sms) > p->npartials ||
	    reduction_counter_count(p->n, p->sms) > p->ncounter)
		return cudaErrorInvalidValue;
#endif
	if (smem > 48 * 1024 &&
	    (e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem)) !=
	            cudaSuccess)
		return e;
	dim3 grid(g[0], g[1], g[2]), block(b[0], b[1], b[2]);
#if defined(KERNEL_FILTER21)
	filter21<<<grid, block, smem, s>>>(p->out, p->in, (int)p->n);
#elif defined(KERNEL_TRANSPOSE)
	transpose<<<grid, block, smem, s>>>(p->out, p->in, (int)p->rows, (int)p->cols);
#else
	reduction<<<grid, block, smem, s>>>(p->out, p->in, p->partials, p->counter, (int)p->n);
#endif
	return cudaGetLastError();
}

static const struct one me = {ONE_NAME, ONE_ID, ONE_AT, one_setup, one_launch};
static const int added = (one_add(&me), 0);
