/* ref_sum: the sum of templates/reduction_ref.cu (which rounds it to float), on the host. */
#include "ref.h"

double ref_sum(const float *in, size_t n)
{
	double acc = 0.0;
	size_t i;

	for (i = 0; i < n; i++)
		acc += (double)in[i];
	return acc;
}
