/* midsize: the sizes of a midpoint between two points (midsize.h). */
#include "midsize.h"

#include <math.h>

#include "config.h"
#include "timing.h"
#include "vars.h"

/* a size at a midpoint keeps what both points' sizes share up to this power of two (whole
   vectors), and no more: an odd multiple of it */
#define MID_ALIGN 64

/* between sizes a and b: x rounded (down: toward zero) to an odd multiple of the largest power of
   two that divides both, at most MID_ALIGN, and leaves it strictly between them: at points
   that are multiples of large powers of two (2^16, 2^20) every tile of every variant is
   whole, which the application's sizes between them seldom are; a midpoint as general as
   the points allow shows what a partial tile costs (n = 262208 between 65536 and 1048576,
   1472 between 1024 and 2048). a where no size lies between */
static int64_t mid_round(int64_t a, int64_t b, double x, int down)
{
	int64_t lo = a < b ? a : b, hi = a < b ? b : a, al, y, k;

	if (lo <= 0 || hi - lo < 2)
		return a;
	for (al = (lo | hi) & -(lo | hi), al = al > MID_ALIGN ? MID_ALIGN : al; al >= 1; al /= 2) {
		k = down ? (int64_t)(x / (double)al) : (int64_t)llround(x / (double)al);
		if (al > 1 && k % 2 == 0) /* the odd multiple beside it: below, or the nearer */
			k += down || (double)k * (double)al > x ? -1 : 1;
		y = k * al;
		if (y > lo && y < hi)
			return y;
	}
	return a;
}

/* the sizes at fraction f of the way from point a to point b on a log scale, unrounded */
static double mid_at(int64_t a, int64_t b, double f)
{
	if (!(a > 0 && b > 0))
		return (double)a;
	if (f == 0.5) /* exact where it can be: sqrt(1024) * sqrt(4096) */
		return sqrt((double)a) * sqrt((double)b);
	return exp((1 - f) * log((double)a) + f * log((double)b));
}

/* the midpoint's sizes (vals) between points a and b whose samples are timed alike (both in
   the L2, or both flushed): each size's geometric mean, rounded (mid_round); where a's are
   timed in the L2 and b's flushed, the largest sizes on the way whose buffers still fit in
   MID_L2 of the L2 (sizes: the run's, l2: its bytes), rounded down: the sizes beyond lie on
   the other side of that change, which b's timings tell of, and at the L2's very edge a
   kernel's time depends on what else the L2 holds (docs/benchmarks.md, "Midpoints") */
#define MID_L2 0.75
void mid_sizes(const struct config *c, const int64_t *a, const int64_t *b, int across,
               const struct vars *sizes, int64_t l2, int64_t *vals)
{
	double lo = 0, hi = 1;
	char why[256];
	struct vars v = *sizes;
	size_t k;
	int i;

	for (k = 0; k < c->nsizes; k++)
		vals[k] = mid_round(a[k], b[k], mid_at(a[k], b[k], 0.5), 0);
	if (!across)
		return;
	for (i = 0; i < 40; i++) { /* the fraction of the way where the buffers outgrow the L2 */
		double f = (lo + hi) / 2;
		for (k = 0; k < c->nsizes; k++)
			vars_set(&v, c->sizes[k].name, (int64_t)mid_at(a[k], b[k], f));
		if (timing_l2_flush(c, &v, (int64_t)(MID_L2 * (double)l2), why, sizeof why))
			hi = f;
		else
			lo = f;
	}
	for (k = 0; k < c->nsizes; k++) {
		vals[k] = mid_round(a[k], b[k], mid_at(a[k], b[k], lo), 1);
		vars_set(&v, c->sizes[k].name, vals[k]);
	}
	for (k = 0, i = 0; k < c->nsizes; k++)
		i |= vals[k] != a[k] && vals[k] != b[k];
	if (!i || timing_l2_flush(c, &v, (int64_t)(MID_L2 * (double)l2), why, sizeof why))
		for (k = 0; k < c->nsizes; k++)
			vals[k] = mid_round(a[k], b[k], mid_at(a[k], b[k], 0.5), 0);
}
