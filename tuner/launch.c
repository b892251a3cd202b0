/* launch: a kernel's arguments and geometry evaluated for one launch, and the launches. */
#include "launch.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "devbuf.h"
#include "expr.h"
#include "spec.h"
#include "util.h"
#include "vars.h"

/* argument i as the config names it: its buffer, or its expression */
static const char *arg_name(const struct devbufs *bufs, const struct arg *a)
{
	return a->buffer >= 0 ? bufs->c->buffers[a->buffer].name : expr_src(a->value);
}

/* the kernel's parameters (as the driver reports them) against the arguments: their count and
   each one's size. 0, or -1 with why; 0 also where the driver cannot tell (before CUDA 12.4) */
static int check_params(const struct devbufs *bufs, CUfunction f, const struct arg *args,
                        size_t nargs, char *why, size_t whylen)
{
	size_t i, n, off, size;
	CUresult r;

	if (!cu.FuncGetParamInfo)
		return 0;
	for (i = 0; i < nargs; i++) {
		size_t want = args[i].buffer >= 0 ? sizeof(CUdeviceptr) : elem_size(args[i].type);
		if ((r = cu.FuncGetParamInfo(f, i, &off, &size)) == CUDA_ERROR_NOT_SUPPORTED)
			return 0;
		if (r != CUDA_SUCCESS) {
			say(why, whylen, "the kernel takes %zu parameters; the config's args pass %zu "
			    "(from argument %zu, '%s', on there is no parameter)", i, nargs, i + 1,
			    arg_name(bufs, &args[i]));
			return -1;
		}
		if (size != want) {
			say(why, whylen, "argument %zu ('%s') is %zu bytes (%s), the kernel's parameter %zu "
			    "is %zu bytes: check the config's args against the kernel", i + 1,
			    arg_name(bufs, &args[i]), want, args[i].buffer >= 0 ? "a pointer"
			    : elem_name(args[i].type), i + 1, size);
			return -1;
		}
	}
	for (n = nargs; cu.FuncGetParamInfo(f, n, &off, &size) == CUDA_SUCCESS; n++)
		;
	if (n != nargs) {
		say(why, whylen, "the kernel takes %zu parameters; the config's args pass %zu", n,
		    nargs);
		return -1;
	}
	return 0;
}

/* the value of a float or double argument under v (in double, as C computes it); 0, or -1
   with why where it is not finite or beyond a float's range */
static int arg_real(const struct arg *a, const struct vars *v, double *out, const char *what,
                    char *why, size_t whylen)
{
	struct expr_err err;

	if (expr_eval_real(a->value, v, out, &err) < 0) {
		say(why, whylen, "%s '%s': %s", what, expr_src(a->value), err.msg);
		return -1;
	}
	if (a->type == EL_F32 && !isfinite((float)*out)) {
		say(why, whylen, "%s = %g does not fit float", what, *out);
		return -1;
	}
	return 0;
}

/* refill buffer k before each launch of lp (once, whatever the args that pass it) */
static void refill_add(struct launchp *lp, size_t k)
{
	size_t i;

	for (i = 0; i < lp->nrefill; i++)
		if (lp->refill[i] == k)
			return;
	lp->refill[lp->nrefill++] = k;
}

int launch_make(struct launchp *lp, const struct devbufs *bufs, const struct gpu_info *gpu,
                CUfunction f, const struct arg *args, size_t nargs, const struct vars *v,
                const int64_t block[3], const int64_t grid[3], int64_t shared, CUresult *rc,
                char *why, size_t whylen)
{
	size_t i;
	int d, stat = 0;
	CUresult r;

	*rc = CUDA_SUCCESS;
	memset(lp, 0, sizeof *lp);
	lp->f = f;
	lp->nargs = nargs;
	lp->params = xcalloc(nargs, sizeof *lp->params);
	lp->vals = xcalloc(nargs, sizeof *lp->vals);
	lp->bufs = bufs;
	lp->refill = xcalloc(nargs + 1, sizeof *lp->refill);
	for (d = 0; d < 3; d++) {
		if (block[d] < 1 || block[d] > UINT32_MAX || grid[d] < 1 || grid[d] > UINT32_MAX) {
			say(why, whylen, "launch geometry out of range: block[%d] = %" PRId64
			    ", grid[%d] = %" PRId64, d, block[d], d, grid[d]);
			goto fail;
		}
		lp->block[d] = (unsigned)block[d];
		lp->grid[d] = (unsigned)grid[d];
	}
	for (i = 0; i < nargs; i++) {
		const struct arg *a = &args[i];
		union argval *u = &lp->vals[i];
		char what[64];
		int64_t x;

		if (a->buffer >= 0) {
			if ((size_t)a->buffer >= bufs->c->nbuffers)
				die("argument %zu names buffer %d of %zu", i + 1, a->buffer,
				    bufs->c->nbuffers);
			u->p = bufs->buf[a->buffer].d;
			lp->params[i] = &u->p;
			if (bufs->c->buffers[a->buffer].refill == REFILL_LAUNCH)
				refill_add(lp, (size_t)a->buffer);
			continue;
		}
		snprintf(what, sizeof what, "argument %zu", i + 1);
		if (a->type == EL_F32 || a->type == EL_F64) {
			if (arg_real(a, v, &u->f64, what, why, whylen) < 0)
				goto fail;
			if (a->type == EL_F32)
				u->f32 = (float)u->f64;
			lp->params[i] = a->type == EL_F32 ? (void *)&u->f32 : (void *)&u->f64;
			continue;
		}
		if (expr_value(a->value, v, 0, &x, what, why, whylen) < 0)
			goto fail;
		switch (a->type) {
		case EL_I32:
			if (x < INT32_MIN || x > INT32_MAX)
				goto range;
			u->i32 = (int32_t)x;
			lp->params[i] = &u->i32;
			break;
		case EL_U32:
			if (x < 0 || x > (int64_t)UINT32_MAX)
				goto range;
			u->u32 = (uint32_t)x;
			lp->params[i] = &u->u32;
			break;
		case EL_I64:
			u->i64 = x;
			lp->params[i] = &u->i64;
			break;
		case EL_U64:
			if (x < 0)
				goto range;
			u->u64 = (uint64_t)x;
			lp->params[i] = &u->u64;
			break;
		case EL_F32:
		case EL_F64:
		case EL_F32X2: /* buffers only */
		case EL_F32X4:
		case EL_F64X2:
			break;
		}
		continue;
range:
		say(why, whylen, "argument %zu = %" PRId64 " does not fit %s", i + 1, x,
		    elem_name(a->type));
		goto fail;
	}
	if (check_params(bufs, f, args, nargs, why, whylen) < 0)
		goto fail;
	if (shared < 0 || shared > INT32_MAX) {
		say(why, whylen, "dynamic shared memory %" PRId64 " bytes out of range", shared);
		goto fail;
	}
	lp->shared = (unsigned)shared;
	if ((r = cu.FuncGetAttribute(&stat, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f)) != CUDA_SUCCESS) {
		*rc = r;
		gpu_err(why, whylen, "cuFuncGetAttribute(SHARED_SIZE_BYTES)", r);
		goto fail;
	}
	if (shared + stat > gpu->smem_block) {
		if (shared + stat > gpu->smem_optin) {
			say(why, whylen, "needs %" PRId64 " bytes of shared memory per block "
			    "(%d static + %" PRId64 " dynamic); the device allows %d",
			    shared + stat, stat, shared, gpu->smem_optin);
			goto fail;
		}
		r = cu.FuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared);
		if (r != CUDA_SUCCESS) {
			*rc = r;
			gpu_err(why, whylen, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", r);
			goto fail;
		}
	}
	return 0;
fail:
	launch_free(lp);
	return -1;
}

CUresult launch_run(const struct launchp *lp)
{
	return cu.LaunchKernel(lp->f, lp->grid[0], lp->grid[1], lp->grid[2], lp->block[0],
	                       lp->block[1], lp->block[2], lp->shared, NULL, lp->params, NULL);
}

CUresult launch_refill(const struct launchp *lp)
{
	size_t i;
	CUresult r;

	for (i = 0; i < lp->nrefill; i++)
		if ((r = devbuf_refill(lp->bufs, lp->refill[i])) != CUDA_SUCCESS)
			return r;
	return CUDA_SUCCESS;
}

void launch_free(struct launchp *lp)
{
	free(lp->params);
	free(lp->vals);
	free(lp->refill);
	memset(lp, 0, sizeof *lp);
}
