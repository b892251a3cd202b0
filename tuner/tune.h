/* tune: one tuning run, phase by phase, each filling in more of its struct run (run.h). */
#ifndef TUNER_TUNE_H
#define TUNER_TUNE_H

#include <stddef.h>
#include <stdio.h>

struct fileset;
struct run;

/* load the config and apply the options' sizes */
void tune_load(struct run *t);
/* t at point t->o.point of base's points (base loaded by tune_load), its config from base's
   text, not the file read again; base must outlive t */
void tune_load_from(struct run *t, const struct run *base);
/* find the GPU (a worker process opens it and stays to run the variants), then choose the
   architecture, the limits and the output directory */
void tune_target(struct run *t);
/* the search a run makes: its strategy, how many variants and where each comes from, as
   "search: guided (the config's search), at most 120 of the 560 kept variants (--budget)" */
void tune_search_text(const struct run *t, char *out, size_t len);
/* expand the space; read the template and the reference; the bank model's prediction */
void tune_expand(struct run *t);
/* compile the reference and the helper kernels, then the variants the search picks, and
   verify and time each on the GPU (if there is one) as soon as it is compiled; twins are
   timed once */
void tune_run(struct run *t);
/* write the table, results.json/.csv and the winner; returns the exit status */
int tune_finish(struct run *t);
/* hold dir's lock (dir/.lock) until the returned descriptor is closed: the runs that write
   its files take turns; exit 2 where it cannot be taken */
int tune_lock(const char *dir);
/* dir/file's temporary in set, to be written as it is made (an output file of a run, a
   writers table's row); exit 2 when it cannot be made */
FILE *tune_file(struct fileset *set, const char *dir, const char *file);
/* variant i of t as DIR/BASE.cu and DIR/BASE.h into set (emit.h); exit 2 on a failure */
struct fileset;
void tune_emit(struct run *t, struct fileset *set, const char *dir, size_t i, const char *base);
/* free everything t holds */
void tune_free(struct run *t);

#endif
