/* retune: what re-tuning on this GPU found, against other GPUs' results of the same kernel. */
#ifndef TUNER_RETUNE_H
#define TUNER_RETUNE_H

#include <stddef.h>

struct buf;
struct result;
struct space;

struct other;

/* the other GPUs' results beside this run's, as read before it works (retune_read) */
struct others {
	struct other *o;
	size_t n;
};

/*
 * Read every other GPU's directory beside this run's (kdir/<slug>/results.json, timed, of the
 * same kernel; for a GPU tuned at several points, that of this run's point, whose directory is
 * `point`, or none where point is NULL) into x: each GPU's name, its winner and the verified
 * variants' ratios to its fastest median. A directory whose name the tuner would not make, or
 * whose results cannot be read (bad JSON, a bad points file, more than RESULTS_MAX bytes), is
 * skipped with a warning that names it: another GPU's bad data never fails this run.
 */
void retune_read(struct others *x, const char *kdir, const char *slug, const char *point,
                 const char *kernel);
/* free what retune_read read */
void retune_free(struct others *x);

/* where each other GPU's winner ranks among this run's verified variants and what re-tuning
   gained over running it here (against this run's fastest median): one line per GPU appended
   to text, one JSON object per GPU to json (a JSON array); returns how many GPUs were
   compared. order is this run's ranking (order[0] the winner). */
size_t retune_compare(const struct others *x, const struct space *s, const struct result *r,
                      const size_t *order, struct buf *text, struct buf *json);

/* For every variant of s, how it ran on the other GPUs: the worst, over those GPUs whose
   results name it verified, of that GPU's fastest median over its median there; -1 where none
   does. Into score[0 .. s->n); returns how many GPUs' results gave a score to some variant. */
size_t retune_elsewhere(const struct others *x, const struct space *s, double *score);

/* the winner of an earlier timed run of kernel whose results.json is at path (a missing file
   is not an error; one that cannot be read is skipped with a warning): its id into id; 0, or
   -1 if there is none */
int retune_earlier_winner(const char *path, const char *kernel, char *id, size_t idlen);

#endif
