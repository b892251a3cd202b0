/* ref_filter21: the 21-tap FIR filter of templates/filter21_ref.cu, on the host. */
#include "ref.h"

void ref_filter21(float *out, const float *in, const float coef[21], size_t n)
{
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		double acc = 0.0;
		for (k = 0; k < 21; k++)
			acc += (double)coef[k] * (double)in[i + k];
		out[i] = (float)acc;
	}
}
