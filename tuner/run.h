/* run: the state of one tuning run (struct run: the options, the config, the space, the
   results) that the phases (tune.h) fill in, and the interrupt every phase watches. */
#ifndef TUNER_RUN_H
#define TUNER_RUN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "nvrtc.h"
#include "result.h"
#include "retune.h"
#include "space.h"

struct config;

/* what the command line asks of a run */
struct run_opts {
	const char *config;
	const char *arch;
	const char *arch_from;    /* where arch came from when not --arch ("TUNER_ARCH") */
	const char *outdir;
	const char *cachedir;
	const char *emit;
	int jobs;
	int dry_run;
	int list_dropped;         /* --list-dropped: list the dropped variants one by one */
	int all;                  /* --all: every row of the table */
	int no_cache;
	int fresh;
	int counters;             /* --counters: read shared-memory counters of each variant */
	int no_race;              /* --no-race: every verified variant gets all its samples */
	int64_t sms;              /* --sms: SMS in expressions without a GPU (0: not given) */
	size_t budget;            /* --budget: variants timed (compiled without a GPU); 0: all */
	int budget_set;           /* --budget was given (else the config's search may set it) */
	int strategy;             /* --strategy (enum strategy) */
	int strategy_set;         /* --strategy was given (else the config's search may set it) */
	int search_dropped;       /* the config's search set aside: nothing timed (tune_target) */
	uint64_t seed;            /* --seed */
	int shard_k, shard_n;     /* --shard K/N; 0/0: the whole space */
	const char *devices;      /* --devices LIST|all (NULL: device 0) */
	int devices_known;        /* 1: devices lists GPUs the driver was seen to have; 2: GPUs
	                             named, not seen (models.c); 0: neither */
	const char *devices_asked; /* --devices as given, where models.c named the GPUs */
	int t4;                   /* --t4: also write results.t4.json (t4.h) */
	int sass;                 /* explain --sass: the declared accesses against the code */
	double timeout;
	char **sizes;             /* --size NAME=N[,N...] */
	size_t nsizes;
	size_t point;             /* the point (cfg_points) this run tunes at */
	size_t mid;               /* --midpoints: variants timed at the midpoint of two points
	                             next to each other (0: no midpoints) */
};

struct measure;

/* everything one tuning run holds */
struct run {
	struct run_opts o;
	struct config *c;
	struct vars sizes;
	struct limits lim;
	struct space s;
	struct runinfo ri;
	struct result *r;         /* one per variant */
	char *tmpl, *refsrc, *dir;
	struct observe *obs;      /* which parameter values tmpl's code tells apart */
	char *cachedir;           /* the compile cache (NULL: none), while tune_run runs */
	char *cfgtext;            /* the config file's text, for its copy */
	size_t cfglen;
	struct compile_out ref, copy;  /* copy: the helper kernels (copy, read, flush, fill, compare) */
	struct measure *m;        /* the GPU side, when there is a GPU */
	double t0;                /* when the run began (now_s) */
	int predicted;            /* the bank model has run */
	int ahead_wanted;         /* it runs after the stream: start it beside the stream */
	struct ahead *ahead;      /* what it evaluated beside the stream (predict.h); NULL: none */
	size_t earlier;           /* the winner named by the results already in dir, + 1; 0: none */
	struct others others;     /* the other GPUs' results beside this run's (retune_read) */
	int others_read;          /* they have been read */
	char why[512];            /* why nothing is timed */
	size_t npoints;           /* points to tune at (cfg_points): several are a run each, into
	                             a directory each under the GPU's (points.h) */
	struct vsize *pts;        /* those points, worked out once (tune_load) */
	int pts_borrowed;         /* pts are the loaded run's, which a point's run reads */
	char *label;              /* the point's sizes, "n=4096 m=2" */
	size_t winner;            /* the winner's index + 1 (tune_finish); 0: none */
	struct run *first;        /* another point's run, whose GPU worker (if it has one) this
	                             one borrows; NULL: none */
	int m_borrowed;           /* m is first's: closed with first, not here */
	int keep_json;            /* keep results.json's text in json (a point's run: bundled) */
	const unsigned char *only; /* per variant: it may be tried (NULL: every kept one); a
	                             midpoint's candidates (points.c) */
	char *json;               /* that text (keep_json), json_len bytes; NULL: not kept */
	size_t json_len;
};

/* set by SIGINT and SIGTERM once run_catch_signals has run: every phase stops early */
extern volatile sig_atomic_t run_stop;
/* from now on an interrupt sets run_stop instead of ending the process */
void run_catch_signals(void);
/* the serial phase `name` (a string literal) ends now: it began where the one before it ended
   (at t->t0, the run's start), so the serial phases add up to the run's wall time; with -v
   its time is printed, then the spans and totals not printed yet */
void run_phase(struct run *t, const char *name);
/* the span `name` (a string literal), from start to end (now_s's clock, which every process
   of the machine shares) beside the serial phases: a later call of the same name widens it to
   cover both (with once: changes nothing) */
void run_span(struct run *t, const char *name, double start, double end, int once);
/* s more seconds to the total `name` (a string literal): many short intervals summed */
void run_total(struct run *t, const char *name, double s);

#endif
