/* ref_transpose: the transpose of templates/transpose_ref.cu, on the host. */
#include "ref.h"

void ref_transpose(float *out, const float *in, size_t rows, size_t cols)
{
	size_t i, j;

	for (i = 0; i < rows; i++)
		for (j = 0; j < cols; j++)
			out[j * rows + i] = in[i * cols + j];
}
