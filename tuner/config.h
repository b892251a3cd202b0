/* config: the schema: a YAML kernel description (yamltree, read) into struct config (spec.h). */
#ifndef TUNER_CONFIG_H
#define TUNER_CONFIG_H

#include <stddef.h>
#include "spec.h"

/* load path, with the file's text (malloc'd) in *text and its length in *len unless text is
   NULL: read once; on error print "tuner: path:line:col: msg" and exit 2 */
struct config *cfg_load_text(const char *path, char **text, size_t *len);
/* the same without the text */
static inline struct config *cfg_load(const char *path)
{
	return cfg_load_text(path, NULL, NULL);
}
/* parse len bytes of text as the config at path (templates resolve against its directory);
   NULL on error with "path:line:col: msg" in err (cfg_load's message without "tuner: ") */
struct config *cfg_parse(const char *path, const char *text, size_t len, char *err,
                         size_t errlen);
/* read the template or reference source at path (one c names) into a malloc'd string; exit 2
   naming c and path if it cannot be read, has more than CFG_SOURCE_MAX bytes or a NUL byte */
char *cfg_read_source(const struct config *c, const char *path);
/* cfg_parse for a copy of a config kept apart from its sources (tuner bundle): the template
   and reference paths are resolved but not required to exist */
struct config *cfg_parse_detached(const char *path, const char *text, size_t len, char *err,
                                  size_t errlen);
/* element size in bytes */
size_t elem_size(enum elem t);
/* components of an element: 1, or a vector's 2 or 4 */
size_t elem_comps(enum elem t);
/* the type of an element's components (t itself for a scalar) */
enum elem elem_scalar(enum elem t);
/* element type name as in YAML and C ("float", "double", "int", "unsigned", "long long", ...) */
const char *elem_name(enum elem t);

#endif
