/* vars: name -> value bindings (vars.h). */
#include "vars.h"

#include <string.h>

#include "util.h"

void vars_set(struct vars *v, const char *name, int64_t val)
{
	int i;

	for (i = v->n - 1; i >= 0; i--) { /* callers mostly set the same name again */
		if (v->name[i] == name) {
			v->val[i] = val;
			return;
		}
	}
	for (i = v->n - 1; i >= 0; i--) {
		if (!strcmp(v->name[i], name)) {
			v->name[i] = name;
			v->val[i] = val;
			return;
		}
	}
	if (v->n >= VARS_MAX)
		die("more than %d variables (setting '%s')", VARS_MAX, name);
	v->name[v->n] = name;
	v->val[v->n] = val;
	v->n++;
}

int vars_get(const struct vars *v, const char *name, int64_t *val)
{
	int i;

	if (!v)
		return 0;
	for (i = v->n - 1; i >= 0; i--) {
		if (!strcmp(v->name[i], name)) {
			*val = v->val[i];
			return 1;
		}
	}
	return 0;
}
