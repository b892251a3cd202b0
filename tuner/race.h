/* race: when a variant's first timing can stop early, and the plan that bounds the chance of
   stopping one that could have won (the sign test of its median, applied sequentially;
   docs/search.md). The limit it races against is winner.c's (winner_race_limit). */
#ifndef TUNER_RACE_H
#define TUNER_RACE_H

/* The race (unless --no-race): a variant's samples are looked at after every RACE_SAMPLES of
   them, and its timing stops once at most plan.accept of them lie at or below the limit
   (winner_race_limit: twice the play-off's net above the fastest median so far). The plan's
   acceptance numbers keep the chance of stopping a variant whose full series would have had
   its median at or below the limit under RACE_RISK, whatever the distribution of its
   (independent) samples. */
#define RACE_SAMPLES 5
#define RACE_LOOKS 16             /* looks at most: after 5, 10, ... 80 samples */
#define RACE_RISK 0.005
struct race_plan {
	int n;                    /* the samples of a whole series */
	int nlooks;               /* looks that can stop a variant */
	int look[RACE_LOOKS];     /* the samples in at each look, rising, below n */
	int accept[RACE_LOOKS];   /* stop there when at most this many are within the limit */
	double risk;              /* the worst chance over every sample distribution (below) */
};
/* the race's plan for series of n samples: each look's acceptance number, the largest that
   keeps risk at most RACE_RISK (none for n <= RACE_SAMPLES) */
void race_plan_make(int n, struct race_plan *p);
/* the chance that plan p stops a variant whose full series would have had at least half its
   samples (as its median needs) at or below the limit, for samples each at or below it with
   probability q, independently */
double race_risk_at(const struct race_plan *p, double q);
/* 1 if a variant whose first k samples are ms[0 .. k) stops at this look of plan p against
   limit (k not one of p's looks, or limit <= 0: 0) */
int race_stop(const struct race_plan *p, const double *ms, int k, double limit);

#endif
