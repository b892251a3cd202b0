/* bundle: the winners of every tuned GPU of one kernel in one CUDA source and one header,
   with the selection of the entry for the GPU an application runs on (tuner bundle). */
#ifndef TUNER_BUNDLE_H
#define TUNER_BUNDLE_H

#include <stddef.h>
#include "util.h"

/* read every GPU directory under dir (results.json, and the config and template copied beside
   it at tuning time) and write OUT/<kernel>_bundle.cu and OUT/<kernel>_bundle.h (out NULL:
   dir/bundle); bad input exits 2 with its file named, and nothing written */
void bundle_make(const char *dir, const char *out);

/* the winners of one GPU's points (the directories dirs[0 .. n) under gpudir, each a run's,
   of kernel) as GPUDIR/best.cu and GPUDIR/best.h into set, with the selection by size
   (<kernel>_bundle_at_size); bad input exits 2 */
void bundle_points(const char *gpudir, const char *kernel, char *const *dirs, size_t n,
                   struct fileset *set);

/* tmpl as it goes into a namespace of the bundle, appended to body: extern "C" linkage becomes
   extern "C++" (each copy's kernel is then its namespace's own), #include lines are commented
   out and appended to includes (once, for above the namespaces), and one "#undef NAME" line per
   macro the template defines is appended to undefs */
void bundle_template(const char *tmpl, struct buf *body, struct buf *includes,
                     struct buf *undefs);

#endif
