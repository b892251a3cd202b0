/* vars: name -> value bindings (sizes, parameters, a lane's names), for expressions. */
#ifndef TUNER_VARS_H
#define TUNER_VARS_H

#include <stdint.h>

/* name -> value bindings, searched newest first */
#define VARS_MAX 64
struct vars {
	int n;
	const char *name[VARS_MAX];
	int64_t val[VARS_MAX];
};

/* set (or add) name = val; name is not copied */
void vars_set(struct vars *v, const char *name, int64_t val);
/* look up name; 1 if found */
int vars_get(const struct vars *v, const char *name, int64_t *val);

#endif
