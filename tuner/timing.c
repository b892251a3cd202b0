/* timing: launches timed with CUDA events, the L2 flushed between samples, statistics. */
#include "timing.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devbuf.h"
#include "expr.h"
#include "util.h"

#define MIB ((size_t)1 << 20)

/* ---- statistics ---- */

/* ---- open / close ---- */

int timing_l2_flush(const struct config *c, const struct vars *sizes, int64_t l2_bytes,
                    char *why, size_t whylen)
{
	int64_t total = 0, n;
	size_t i;
	char at[160];

	if (c->l2 != CFG_L2_AUTO) {
		snprintf(why, whylen, "timing.l2 %s", cfg_l2_words[c->l2]);
		return c->l2 == CFG_L2_FLUSH;
	}
	for (i = 0; i < c->nbuffers; i++) /* a scratch buffer's count may need parameters */
		if (expr_value(c->buffers[i].count, sizes, 0, &n, "count", at, sizeof at) == 0 &&
		    n > 0 && n <= (INT64_MAX / 2 - total) / (int64_t)elem_size(c->buffers[i].type))
			total += n * (int64_t)elem_size(c->buffers[i].type);
	at[0] = 0;
	for (i = 0; i < c->nsizes; i++) {
		int64_t v = 0;
		vars_get(sizes, c->sizes[i].name, &v);
		snprintf(at + strlen(at), sizeof at - strlen(at), "%s%s=%lld", i ? " " : "",
		         c->sizes[i].name, (long long)v);
	}
	if (l2_bytes <= 0) {
		snprintf(why, whylen, "auto: the GPU does not tell its L2 size: flushed");
		return 1;
	}
	snprintf(why, whylen, "auto: %.1f MiB of buffers at %s %s the %.1f MiB L2",
	         (double)total / MIB, at, total > l2_bytes ? "exceed" : "fit in",
	         (double)l2_bytes / MIB);
	return total > l2_bytes;
}

int timing_open(struct timer *tm, const struct config *c, const struct gpu_info *gpu, int flush,
                char *why, size_t whylen)
{
	CUresult r;

	memset(tm, 0, sizeof *tm);
	tm->c = c;
	tm->flushes = flush;
	tm->sms = gpu->sms;
	winner_race_plan(c->samples > 0 ? c->samples : 1, &tm->race);
	if (devbuf_alloc(&tm->sink, 16, "the flush kernel's sink", why, whylen) < 0)
		goto fail;
	if (flush) {
		tm->flush_bytes = 2 * (size_t)(gpu->l2_bytes > 0 ? gpu->l2_bytes : 0);
		if (tm->flush_bytes < 64 * MIB)
			tm->flush_bytes = 64 * MIB;
		tm->flush_bytes &= ~(size_t)15;
		if (devbuf_alloc(&tm->flush, tm->flush_bytes, "the L2 flush buffer", why, whylen) < 0)
			goto fail;
		/* zeroed: the read flush's xor of it is 0, never its magic 1 */
		if ((r = cu.MemsetD32(tm->flush, 0, tm->flush_bytes / 4)) != CUDA_SUCCESS) {
			gpu_err(why, whylen, "cuMemsetD32(L2 flush buffer)", r);
			goto fail;
		}
	}
	return 0;
fail:
	timing_close(tm);
	return -1;
}

void timing_close(struct timer *tm)
{
	int k;

	for (k = 0; k < tm->nev; k++)
		if (gpu_ready())
			cu.EventDestroy(tm->ev[k]);
	free(tm->ev);
	tm->ev = NULL;
	tm->nev = 0;
	devbuf_free(&tm->flush);
	devbuf_free(&tm->sink);
}

/* ---- timing ---- */

/* enqueue one L2 flush (by reading the flush buffer), if the config asks for one */
static CUresult flush_l2(struct timer *tm, const char **call)
{
	size_t n = tm->flush_bytes / 16;
	unsigned magic = 1;
	void *params[] = {&tm->flush, &n, &tm->sink, &magic};

	if (!tm->flushes)
		return CUDA_SUCCESS;
	*call = "cuLaunchKernel(L2 flush)";
	return gpu_launch_1d(tm->flush_fn, gpu_grid(tm->sms, n, 256, 1u << 20), 256, params);
}

/* the times of samples [from, to) into ms; 0 or -1 with *rc and why */
static int elapsed(struct timer *tm, int from, int to, double *ms, CUresult *rc, char *why,
                   size_t whylen)
{
	int i;

	for (i = from; i < to; i++) {
		float f = 0;
		CUresult r = cu.EventElapsedTime(&f, tm->ev[2 * i], tm->ev[2 * i + 1]);
		if (r != CUDA_SUCCESS) {
			*rc = r;
			gpu_err(why, whylen, "cuEventElapsedTime", r);
			return -1;
		}
		ms[i] = f;
	}
	return 0;
}

int timing_run(struct timer *tm, const struct launchp *lp, struct stats *t, CUresult *rc,
               int *in_launch, char *why, size_t whylen)
{
	int warm = tm->c->warmup > 0 ? tm->c->warmup : 0;
	int n = tm->c->samples > 0 ? tm->c->samples : 1;
	int race = tm->cut_ms > 0 && tm->race.nlooks && tm->race.n == n, got = 0, part;
	int batch, reps = 1, k;
	double *ms, each;
	CUresult r;
	int i;

	*rc = CUDA_SUCCESS;
	*in_launch = 0;
	memset(t, 0, sizeof *t);
	if (tm->nev < 2 * n) {
		tm->ev = xreallocarray(tm->ev, (size_t)2 * n, sizeof *tm->ev);
		while (tm->nev < 2 * n) {
			if ((r = cu.EventCreate(&tm->ev[tm->nev], CU_EVENT_DEFAULT)) != CUDA_SUCCESS) {
				*rc = r;
				gpu_err(why, whylen, "cuEventCreate", r);
				return -1;
			}
			tm->nev++;
		}
	}
	ms = xcalloc((size_t)n, sizeof *ms);
	/* the warm-ups timed together where samples may batch launches: how many make one */
	batch = !tm->flushes && !lp->nrefill;
	if (batch && warm > 0 && (r = cu.EventRecord(tm->ev[0], NULL)) != CUDA_SUCCESS) {
		*rc = r;
		gpu_err(why, whylen, "cuEventRecord", r);
		goto fail;
	}
	for (i = 0; i < warm; i++) {
		if ((r = launch_refill(lp)) != CUDA_SUCCESS) {
			*rc = r;
			gpu_err(why, whylen, "cuLaunchKernel(refill)", r);
			goto fail;
		}
		if ((r = launch_run(lp)) != CUDA_SUCCESS)
			goto launch_fail;
	}
	if (batch && warm > 0) {
		float f = 0;
		if ((r = cu.EventRecord(tm->ev[1], NULL)) != CUDA_SUCCESS ||
		    (r = cu.EventSynchronize(tm->ev[1])) != CUDA_SUCCESS ||
		    (r = cu.EventElapsedTime(&f, tm->ev[0], tm->ev[1])) != CUDA_SUCCESS) {
			*rc = r;
			gpu_err(why, whylen, "timing the warm-up", r);
			goto fail;
		}
		each = f / warm;
		reps = each > 0 ? (int)(TIMING_SAMPLE_MIN_MS / each) + 1 : TIMING_REPS_MAX;
		if (reps > TIMING_REPS_MAX)
			reps = TIMING_REPS_MAX;
	}
	/* with the race, the samples up to each of its looks, then (unless they show that the
	   variant cannot win) the rest; one synchronization per part */
	for (i = 0, part = 0; i < n; part++) {
		int end = race && part < tm->race.nlooks ? tm->race.look[part] : n;
		for (; i < end; i++) {
			const char *call = "cuLaunchKernel(refill)";
			/* the refill, then the flush, evicting what the refill left in L2 */
			if ((r = launch_refill(lp)) != CUDA_SUCCESS ||
			    (r = flush_l2(tm, &call)) != CUDA_SUCCESS) {
				*rc = r;
				gpu_err(why, whylen, call, r);
				goto fail;
			}
			if ((r = cu.EventRecord(tm->ev[2 * i], NULL)) != CUDA_SUCCESS) {
				*rc = r;
				gpu_err(why, whylen, "cuEventRecord", r);
				goto fail;
			}
			for (k = 0; k < reps; k++)
				if ((r = launch_run(lp)) != CUDA_SUCCESS)
					goto launch_fail;
			if ((r = cu.EventRecord(tm->ev[2 * i + 1], NULL)) != CUDA_SUCCESS) {
				*rc = r;
				gpu_err(why, whylen, "cuEventRecord", r);
				goto fail;
			}
		}
		if ((r = cu.EventSynchronize(tm->ev[2 * i - 1])) != CUDA_SUCCESS ||
		    (r = cu.CtxSynchronize()) != CUDA_SUCCESS) {
			*rc = r;
			gpu_err(why, whylen, "kernel failed while timed", r);
			goto fail;
		}
		if (elapsed(tm, got, i, ms, rc, why, whylen) < 0)
			goto fail;
		for (k = got; k < i; k++)
			ms[k] /= reps;
		got = i;
		if (race && winner_race_stop(&tm->race, ms, got, tm->cut_ms))
			break;
	}
	n = got;
	stats_compute(ms, n, t);
	t->reps = reps;
	free(ms);
	return 0;
fail:
	free(ms);
	return -1;
launch_fail:
	free(ms);
	*rc = r;
	*in_launch = 1;
	gpu_err(why, whylen, "cuLaunchKernel", r);
	return -1;
}
