/* timing: launches timed with CUDA events, the L2 flushed between samples, statistics. */
#ifndef TUNER_TIMING_H
#define TUNER_TIMING_H

#include <stddef.h>
#include <stdint.h>

#include "gpu.h"
#include "race.h" /* struct race_plan */

struct config;
struct launchp;
struct stats;
struct vars;

/* what timing needs: the config's counts, the events, the L2 flush */
struct timer {
	const struct config *c;   /* warmup, samples */
	int flushes;              /* flush the L2 before each sample (timing_l2_flush) */
	int sms;                  /* the device's multiprocessors, for the flush's grid */
	double cut_ms;            /* bench_set_cut: the race's limit (0: none) */
	struct race_plan race;    /* when the race looks at the samples, for c's count */
	CUfunction flush_fn;      /* the helpers' tuner_flush (set before timing with flush_l2) */
	CUfunction hold_fn;       /* the helpers' tuner_hold (NULL: samples are not held) */
	volatile unsigned *hold;  /* mapped host memory: [0] how many holds the host released,
	                             [1] the last hold that gave up waiting (NULL: none) */
	CUdeviceptr hold_dev;     /* hold, as the GPU sees it */
	unsigned holds;           /* holds enqueued */
	CUdeviceptr flush;        /* read between samples to evict L2 (0: no flush) */
	size_t flush_bytes;
	CUdeviceptr sink;         /* the flush kernel's never-written word */
	CUevent *ev;              /* start/stop pairs */
	int nev;
};

/* 1 if samples at sizes flush the L2 first, 0 if they find what the launch before left there:
   c's timing.l2, where auto flushes when c's buffers at sizes (those whose count the sizes
   give) exceed l2_bytes (0: unknown, flushed). Why, in words ("auto: 512.0 MiB of buffers at
   n=67108864 exceed the 50.0 MiB L2"), into why */
int timing_l2_flush(const struct config *c, const struct vars *sizes, int64_t l2_bytes,
                    char *why, size_t whylen);
/* how variants are verified and timed, for the journal's key: "helpers 4, L2 flush read"
   (flush: timing_l2_flush's answer) or "helpers 5, L2 flush none, batched, held"; static */
const char *timing_method(int flush);
/* a timer for c on gpu: the flush kernel's sink and, with flush, the flush buffer (twice the
   L2, at least 64 MiB, zeroed), else the hold's flag where the driver maps host memory and
   $TUNER_TIMING_HOLD is not 0; 0, or -1 with why and nothing left allocated */
int timing_open(struct timer *tm, const struct config *c, const struct gpu_info *gpu, int flush,
                char *why, size_t whylen);
/* a sample without an L2 flush spans at least this long: several launches back to back, their
   mean its time (a launch of a few microseconds is otherwise near the events' resolution) */
#define TIMING_SAMPLE_MIN_MS 0.05
#define TIMING_REPS_MAX 1000
/* launches queued behind one hold at most: fewer than the driver's queue takes before the
   host waits (which would wait for the hold: a deadlock the hold's timeout breaks) */
#define TIMING_HELD_MAX 256
/* how long a hold waits for the host before it gives up (the sample is then an error) */
#define TIMING_HOLD_TIMEOUT_NS 2000000000ull
/* c's warm-up launches of lp, then its samples (with no flush and no refill, each of
   TIMING_SAMPLE_MIN_MS or more: t->reps launches back to back, as the warm-ups' time says),
   each bracketed by events (after an L2 flush if c asks), each launch after lp's refills
   (launch_refill: before the flush, the hold and the events, so not timed), one
   synchronization per part (with cut_ms, the race's: up to each look of the race's plan,
   after which the variant may stop, race_stop; else all the samples). Without a flush
   and with a hold (tm->hold and hold_fn), the warm-ups and each sample are queued behind a
   hold on an idle GPU and released at once: the events then time the GPU alone, however
   short the kernel. The host's time to enqueue each sample's launches gives t->launch_us.
   Their statistics into *t. 0, or -1 with why, *rc and *in_launch (1: a launch failed, 0:
   the run or another call) */
int timing_run(struct timer *tm, const struct launchp *lp, struct stats *t, CUresult *rc,
               int *in_launch, char *why, size_t whylen);
/* destroy the events and free the buffers (harmless twice) */
void timing_close(struct timer *tm);

#endif
