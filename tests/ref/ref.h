/* Plain-C references of the three shipped kernels, mirroring templates/<kernel>_ref.cu: the unit
   tests check their math on known inputs (tests/t_ref.c), bench/compare/compare.cu checks the GPU
   reference kernels against them. */
#ifndef TUNER_REF_H
#define TUNER_REF_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out[i] = (float) sum_{k=0..20} coef[k] * in[i + k] in double, 0 <= i < n; in has n + 20 */
void ref_filter21(float *out, const float *in, const float coef[21], size_t n);
/* out[j * rows + i] = in[i * cols + j]: the transpose of a rows x cols row-major matrix */
void ref_transpose(float *out, const float *in, size_t rows, size_t cols);
/* sum of in[0 .. n) in double (0 for n = 0) */
double ref_sum(const float *in, size_t n);

#ifdef __cplusplus
}
#endif

#endif
