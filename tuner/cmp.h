/* cmp: one output element against the reference's: whether it passes, and its errors. The
   device's comparison kernels (tuner/helpers.cu, into which tuner/embed.py copies this file)
   and the host (the unit tests) run this same text: C11 and CUDA C++ alike. */
#ifndef TUNER_CMP_H
#define TUNER_CMP_H

#ifdef __CUDACC__
#define CMP_FN static __device__ __forceinline__
/* rounded to nearest, never fused into a multiply-add: as the host computes */
#define CMP_ADD(a, b) __dadd_rn(a, b)
#define CMP_SUB(a, b) __dsub_rn(a, b)
#define CMP_MUL(a, b) __dmul_rn(a, b)
#define CMP_DIV(a, b) __ddiv_rn(a, b)
#define CMP_INF __longlong_as_double(0x7ff0000000000000ll)
#else
#include <math.h>
#define CMP_FN static inline
#define CMP_ADD(a, b) ((a) + (b))
#define CMP_SUB(a, b) ((a) - (b))
#define CMP_MUL(a, b) ((a) * (b))
#define CMP_DIV(a, b) ((a) / (b))
#define CMP_INF INFINITY
#endif

/* what the elements compared so far came to; start from CMP_ACC0 */
struct cmp_acc {
	unsigned long long bad;   /* elements that failed */
	unsigned long long first; /* the smallest index of one (~0: none) */
	double maxabs;            /* the largest |x - ref| */
	double maxrel;            /* the largest |x - ref| / |ref| over the elements where |ref| >
	                             atol (a relative error against a reference within the absolute
	                             tolerance of 0 says nothing); 0 where there are none */
};
#define CMP_ACC0 {0ull, ~0ull, 0.0, 0.0}

/* fold element j, x against the reference's r (as doubles; same: equal in their own type),
   into *a. Equal elements pass. A floating-point one (flt) passes if |x - r| <= atol + rtol *
   |r|, and never when x is NaN (its errors +inf; unwritten outputs hold NaN); an integer one
   passes only if equal */
CMP_FN void cmp_elem(struct cmp_acc *a, double x, double r, int same, int flt,
                     unsigned long long j, double atol, double rtol)
{
	double err, rel = 0.0, ar = fabs(r);
	int ok;

	if (same)
		return;
	if (flt && x != x) {
		err = rel = CMP_INF;
		ok = 0;
	} else {
		err = fabs(CMP_SUB(x, r));
		if (ar > atol)
			rel = CMP_DIV(err, ar);
		ok = flt && err <= CMP_ADD(atol, CMP_MUL(rtol, ar)); /* false for NaN */
	}
	if (err > a->maxabs)
		a->maxabs = err;
	if (rel > a->maxrel)
		a->maxrel = rel;
	if (!ok) {
		a->bad++;
		a->first = j < a->first ? j : a->first;
	}
}

#endif
