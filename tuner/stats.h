/* stats: a series of timings summarised (median, min, max, mean, spread), and the standard
   error of its median. */
#ifndef TUNER_STATS_H
#define TUNER_STATS_H

/* a timing's samples, in milliseconds */
struct stats {
	int n;                    /* samples */
	double median_ms, min_ms, max_ms, mean_ms;
	double spread;            /* (p90 - p10) / median */
	int reps;                 /* launches back to back in each sample (0 or 1: one) */
	int held;                 /* the samples' launches were queued behind a hold (timing.c):
	                             the GPU's time alone, not the host's launches */
	double launch_us;         /* the host's cost of one launch: the median over the samples of
	                             the time to enqueue one (0: not measured) */
};

/* statistics of n samples x (sorted in place) */
void stats_compute(double *x, int n, struct stats *t);
/* the host's cost of one launch over the GPU's time of one (t's medians): above 1 the kernel
   is launch-bound, its launches queued one by one finish no sooner than the host issues
   them; 0 where either was not measured */
double stats_launch_ratio(const struct stats *t);

#endif
