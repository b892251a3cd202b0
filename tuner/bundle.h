/* bundle: the winners of every tuned GPU of one kernel in one CUDA source and one header,
   with the selection of the entry for the GPU an application runs on (tuner bundle). */
#ifndef TUNER_BUNDLE_H
#define TUNER_BUNDLE_H

#include <stddef.h>

struct buf;
struct fileset;
struct tuned_text;

/* read every GPU directory under dir (results.json, and the config and template copied beside
   it at tuning time) and write OUT/<kernel>_bundle.cu and OUT/<kernel>_bundle.h (out NULL:
   dir/bundle); bad input exits 2 with its file named, and nothing written */
void bundle_make(const char *dir, const char *out);

/* the winners of one GPU's points (the directories dirs[0 .. n) under gpudir, each a run's,
   of kernel) as GPUDIR/best.cu and GPUDIR/best.h into set, with the selection by size
   (<kernel>_bundle_at_size); their results and sources from mem (mem[i]: dirs[i]'s), as the
   runs of this process made them (tuned.h), not read back from their files; bad input exits 2 */
void bundle_points(const char *gpudir, const char *kernel, char *const *dirs, size_t n,
                   const struct tuned_text *mem, struct fileset *set);


#endif
