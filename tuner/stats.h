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
};

/* statistics of n samples x (sorted in place) */
void stats_compute(double *x, int n, struct stats *t);

#endif
