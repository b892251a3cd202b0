/* cache: compiled results on disk, keyed by (source, options, NVRTC version, arch). */
#ifndef TUNER_CACHE_H
#define TUNER_CACHE_H

#include "nvrtc.h"
#include "util.h"

/* the exact key text for one compilation (compared byte for byte on lookup) */
void cache_key(struct buf *key, const char *src, const char *entry, const char *arch,
               char *const *opts, size_t nopts);
/* look key up in dir; 1 and *out filled on a hit, 0 on a miss (or an unreadable/corrupt entry) */
int cache_get(const char *dir, const struct buf *key, struct compile_out *out);
/* store out under key in dir (atomically); 0, or -1 with errno */
int cache_put(const char *dir, const struct buf *key, const struct compile_out *out);
/* remove the temporaries (<entry>.bin.tmp.<pid>) that writers killed mid-write left in dir:
   those whose process is gone, untouched for a minute; returns how many */
int cache_sweep(const char *dir);
/* the default cache directory: $TUNER_CACHE, else $XDG_CACHE_HOME/tuner, else ~/.cache/tuner (malloc'd) */
char *cache_default_dir(void);

#endif
