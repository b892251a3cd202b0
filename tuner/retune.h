/* retune: what re-tuning on this GPU found, against other GPUs' results of the same kernel. */
#ifndef TUNER_RETUNE_H
#define TUNER_RETUNE_H

#include "space.h"
#include "result.h"
#include "util.h"

/*
 * For every other GPU's directory beside this run's (kdir/<slug>/results.json, timed, of the
 * same kernel; for a GPU tuned at several points, that of this run's point, whose directory is
 * `point`, or none where point is NULL): where that GPU's winner ranks among this run's verified variants and what
 * re-tuning gained over running it here (against this run's fastest median). One line per GPU is appended to text, and one JSON
 * object per GPU to json (a JSON array); returns how many GPUs were compared. order is this
 * run's ranking (order[0] the winner); a directory that cannot be read is skipped with a warning.
 */
size_t retune_compare(const char *kdir, const char *slug, const char *point,
                      const char *kernel, const struct space *s, const struct result *r,
                      const size_t *order, struct buf *text, struct buf *json);

/* For every variant of s, how it ran on the other GPUs whose results are beside this run's
   (kdir/<dir>/results.json as for retune_compare): the worst, over those GPUs whose results
   name it verified, of that GPU's fastest median over its median there; -1 where none does.
   Into score[0 .. s->n); returns how many GPUs' results gave a score to some variant. */
size_t retune_elsewhere(const char *kdir, const char *slug, const char *point,
                        const char *kernel, const struct space *s, double *score);

/* the winner of an earlier timed run of kernel whose results.json is at path (a missing file
   is not an error; one that cannot be read is skipped with a warning): its id into id; 0, or
   -1 if there is none */
int retune_earlier_winner(const char *path, const char *kernel, char *id, size_t idlen);

#endif
