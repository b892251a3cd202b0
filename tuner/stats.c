/* stats: a series of timings summarised. */
#include "stats.h"

#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* q-quantile of sorted x, linear interpolation */
static double quantile(const double *x, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)pos;

	if (i >= n - 1)
		return x[n - 1];
	return x[i] + (pos - i) * (x[i + 1] - x[i]);
}

void stats_compute(double *x, int n, struct stats *t)
{
	double sum = 0;
	int i;

	memset(t, 0, sizeof *t);
	if (n <= 0)
		return;
	qsort(x, (size_t)n, sizeof *x, cmp_double);
	for (i = 0; i < n; i++)
		sum += x[i];
	t->n = n;
	t->min_ms = x[0];
	t->max_ms = x[n - 1];
	t->mean_ms = sum / n;
	t->median_ms = quantile(x, n, 0.5);
	t->spread = t->median_ms > 0 ? (quantile(x, n, 0.9) - quantile(x, n, 0.1)) / t->median_ms : 0;
}

double stats_launch_ratio(const struct stats *t)
{
	return t->launch_us > 0 && t->median_ms > 0 ? t->launch_us / (t->median_ms * 1e3) : 0;
}
