/* cache: compiled results on disk, keyed by (source, options, NVRTC version, arch). */
#ifndef TUNER_CACHE_H
#define TUNER_CACHE_H

#include <stddef.h>

struct buf;
struct compile_out;

/* the exact key text for one compilation (compared byte for byte on lookup) */
void cache_key(struct buf *key, const char *src, const char *entry, const char *arch,
               char *const *opts, size_t nopts);
enum { CACHE_CORRUPT = -1, CACHE_MISS, CACHE_HIT };
/* look key up in dir: CACHE_HIT and *out filled, CACHE_MISS (no entry, an unreadable one, an
   older format, another key), or CACHE_CORRUPT (its checksum or its fields are wrong, or it is
   no file the tuner writes: a symbolic link, not a regular file, too large) */
int cache_get(const char *dir, const struct buf *key, struct compile_out *out);
/* store out under key in dir (atomically); 0, or -1 with errno */
int cache_put(const char *dir, const struct buf *key, const struct compile_out *out);
/* remove the temporaries (<entry>.bin.tmp.<pid>[.<random>]) that writers killed mid-write left in dir:
   those whose process is gone, untouched for a minute; returns how many */
int cache_sweep(const char *dir);
/* the default cache directory (malloc'd): $TUNER_CACHE, else $XDG_CACHE_HOME/tuner (an
   absolute path), else ~/.cache/tuner where the home directory exists; NULL if none is */
char *cache_default_dir(void);

#endif
