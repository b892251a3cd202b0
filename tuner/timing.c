/* timing: launches timed with CUDA events, the L2 flushed between samples, statistics. */
#include "timing.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "devbuf.h"
#include "expr.h"
#include "launch.h"
#include "stats.h"
#include "util.h"
#include "vars.h"

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

const char *timing_method(int flush)
{
	/* 3: the outputs are compared again after the timed launches */
	const char *e = getenv("TUNER_TIMING_HOLD");

	/* held: samples in the L2 queued behind tuner_hold (hold_open) */
	if (flush)
		return "helpers 4, L2 flush read";
	return e && !strcmp(e, "0") ? "helpers 4, L2 flush none, batched"
	                            : "helpers 5, L2 flush none, batched, held";
}

/* the hold's flag in mapped host memory, where the driver offers it and TUNER_TIMING_HOLD is
   not 0 (else samples are not held: tm->hold stays NULL) */
static void hold_open(struct timer *tm)
{
	const char *e = getenv("TUNER_TIMING_HOLD");
	void *p = NULL;

	if ((e && !strcmp(e, "0")) || !cu.MemHostAlloc || !cu.MemHostGetDevicePointer ||
	    !cu.MemFreeHost)
		return;
	if (cu.MemHostAlloc(&p, 64, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE) !=
	    CUDA_SUCCESS)
		return;
	if (cu.MemHostGetDevicePointer(&tm->hold_dev, p, 0) != CUDA_SUCCESS) {
		cu.MemFreeHost(p);
		return;
	}
	memset(p, 0, 64);
	tm->hold = p;
}

int timing_open(struct timer *tm, const struct config *c, const struct gpu_info *gpu, int flush,
                char *why, size_t whylen)
{
	CUresult r;

	memset(tm, 0, sizeof *tm);
	tm->c = c;
	tm->flushes = flush;
	tm->sms = gpu->sms;
	race_plan_make(c->samples > 0 ? c->samples : 1, &tm->race);
	if (devbuf_alloc(&tm->sink, 16, "the flush kernel's sink", why, whylen) < 0)
		goto fail;
	if (!flush)
		hold_open(tm);
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
	if (tm->hold && gpu_ready())
		cu.MemFreeHost((void *)tm->hold);
	tm->hold = NULL;
	tm->hold_dev = 0;
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

/* enqueue a hold: the launches after it wait until hold_release */
static CUresult hold_enqueue(struct timer *tm)
{
	unsigned want = ++tm->holds;
	unsigned long long timeout = TIMING_HOLD_TIMEOUT_NS;
	void *params[] = {&tm->hold_dev, &want, &timeout};

	return cu.LaunchKernel(tm->hold_fn, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL);
}

/* let the last hold go */
static void hold_release(struct timer *tm)
{
	__atomic_store_n((unsigned *)&tm->hold[0], tm->holds, __ATOMIC_SEQ_CST);
}

/* 0 if no hold gave up waiting for the host; else -1 with why */
static int hold_check(struct timer *tm, char *why, size_t whylen)
{
	unsigned late = __atomic_load_n((unsigned *)&tm->hold[1], __ATOMIC_SEQ_CST);

	if (!late)
		return 0;
	say(why, whylen, "a sample's hold (tuner_hold %u) waited %.1f s for the host and gave "
	    "up: its launches were not timed back to back", late, TIMING_HOLD_TIMEOUT_NS / 1e9);
	return -1;
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

/* record one of the events that bracket samples; 0 or -1 with *rc and why */
static int record(CUevent ev, CUresult *rc, char *why, size_t whylen)
{
	CUresult r = cu.EventRecord(ev, NULL);

	if (r == CUDA_SUCCESS)
		return 0;
	*rc = r;
	gpu_err(why, whylen, "cuEventRecord", r);
	return -1;
}

/* the warm-ups (after a hold where held); with batch, how many launches make a sample of
   TIMING_SAMPLE_MIN_MS or more into *reps. 0, or -1 with *rc, why and *in_launch */
static int warm_up(struct timer *tm, const struct launchp *lp, int held, int batch, int *reps,
                   CUresult *rc, int *in_launch, char *why, size_t whylen)
{
	int warm = tm->c->warmup > 0 ? tm->c->warmup : 0, i;
	int max = held ? TIMING_HELD_MAX : TIMING_REPS_MAX;
	CUresult r;
	float f = 0;

	if (held && warm > max)
		warm = max;
	*reps = 1;
	if (warm && held && (r = hold_enqueue(tm)) != CUDA_SUCCESS) {
		*rc = r;
		gpu_err(why, whylen, "cuLaunchKernel(tuner_hold)", r);
		return -1;
	}
	if (warm && batch && record(tm->ev[0], rc, why, whylen) < 0)
		goto fail;
	for (i = 0; i < warm; i++) {
		if (!held && (r = launch_refill(lp)) != CUDA_SUCCESS) {
			*rc = r;
			gpu_err(why, whylen, "cuLaunchKernel(refill)", r);
			goto fail;
		}
		if ((r = launch_run(lp)) != CUDA_SUCCESS) {
			*rc = r;
			*in_launch = 1;
			gpu_err(why, whylen, "cuLaunchKernel", r);
			goto fail;
		}
	}
	if (warm && batch && record(tm->ev[1], rc, why, whylen) < 0)
		goto fail;
	if (warm && held)
		hold_release(tm);
	if (!warm || !batch)
		return 0;
	if ((r = cu.EventSynchronize(tm->ev[1])) != CUDA_SUCCESS ||
	    (r = cu.EventElapsedTime(&f, tm->ev[0], tm->ev[1])) != CUDA_SUCCESS) {
		*rc = r;
		gpu_err(why, whylen, "timing the warm-up", r);
		return -1;
	}
	*reps = f > 0 ? (int)(TIMING_SAMPLE_MIN_MS / (f / warm)) + 1 : max;
	if (*reps > max)
		*reps = max;
	return 0;
fail:
	if (warm && held)
		hold_release(tm);
	return -1;
}

int timing_run(struct timer *tm, const struct launchp *lp, struct stats *t, CUresult *rc,
               int *in_launch, char *why, size_t whylen)
{
	int n = tm->c->samples > 0 ? tm->c->samples : 1;
	int race = tm->cut_ms > 0 && tm->race.nlooks && tm->race.n == n, got = 0, part;
	/* held: each sample queued behind a hold (no refill in between, and so none in the
	   warm-ups: the samples refill before their hold) */
	int held = !tm->flushes && tm->hold && tm->hold_fn;
	int batch = !tm->flushes && !lp->nrefill, reps = 1, k;
	double *ms, *host, t0;
	struct stats hs;
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
	if (warm_up(tm, lp, held && !lp->nrefill, batch, &reps, rc, in_launch, why, whylen) < 0)
		return -1;
	ms = xcalloc((size_t)n, sizeof *ms);
	host = xcalloc((size_t)n, sizeof *host);
	/* with the race, the samples up to each of its looks, then (unless they show that the
	   variant cannot win) the rest; one synchronization per part */
	for (i = 0, part = 0; i < n; part++) {
		int end = race && part < tm->race.nlooks ? tm->race.look[part] : n;
		for (; i < end; i++) {
			const char *call = "cuLaunchKernel(refill)";
			/* a held sample starts on an idle GPU: its host time is then the launches' own */
			if (held && i > got && (r = cu.EventSynchronize(tm->ev[2 * i - 1])) != CUDA_SUCCESS) {
				*rc = r;
				gpu_err(why, whylen, "kernel failed while timed", r);
				goto fail;
			}
			/* the refill, then the flush, evicting what the refill left in L2 */
			if ((r = launch_refill(lp)) != CUDA_SUCCESS ||
			    (r = flush_l2(tm, &call)) != CUDA_SUCCESS ||
			    (held && (call = "cuLaunchKernel(tuner_hold)", r = hold_enqueue(tm)) != CUDA_SUCCESS)) {
				*rc = r;
				gpu_err(why, whylen, call, r);
				goto fail;
			}
			if (record(tm->ev[2 * i], rc, why, whylen) < 0)
				goto fail_held;
			t0 = now_s();
			for (k = 0; k < reps; k++)
				if ((r = launch_run(lp)) != CUDA_SUCCESS)
					goto launch_fail;
			host[i] = (now_s() - t0) * 1e3 / reps;
			if (record(tm->ev[2 * i + 1], rc, why, whylen) < 0)
				goto fail_held;
			if (held)
				hold_release(tm);
		}
		if ((r = cu.EventSynchronize(tm->ev[2 * i - 1])) != CUDA_SUCCESS ||
		    (r = cu.CtxSynchronize()) != CUDA_SUCCESS) {
			*rc = r;
			gpu_err(why, whylen, "kernel failed while timed", r);
			goto fail;
		}
		if (held && hold_check(tm, why, whylen) < 0)
			goto fail;
		if (elapsed(tm, got, i, ms, rc, why, whylen) < 0)
			goto fail;
		for (k = got; k < i; k++)
			ms[k] /= reps;
		got = i;
		if (race && race_stop(&tm->race, ms, got, tm->cut_ms))
			break;
	}
	stats_compute(host, got, &hs);
	stats_compute(ms, got, t);
	t->reps = reps;
	t->held = held;
	t->launch_us = hs.median_ms * 1e3;
	free(ms);
	free(host);
	return 0;
launch_fail:
	*rc = r;
	*in_launch = 1;
	gpu_err(why, whylen, "cuLaunchKernel", r);
fail_held:
	if (held)
		hold_release(tm);
fail:
	free(ms);
	free(host);
	return -1;
}
