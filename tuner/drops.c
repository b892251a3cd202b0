/* drops: dropped variants counted by rule. */
#include "drops.h"
#include "space.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

char *drops_rule(const char *reason)
{
	char *out = xmalloc(strlen(reason) + 1), *o = out;
	const char *p = reason, *q, *lim;

	/* "at LABEL: why" (an extra verification size): the label as it is */
	if (!strncmp(p, "at ", 3) && (q = strstr(p, ": "))) {
		memcpy(o, p, (size_t)(q + 2 - p));
		o += q + 2 - p;
		p = q + 2;
	}
	if (!strncmp(p, "constraint '", 12)) { /* its text as written */
		strcpy(o, p);
		return out;
	}
	lim = strstr(p, "limit"); /* a device's limit is the same for all: kept */
	while (*p) {
		if (*p >= '0' && *p <= '9' && (!lim || p < lim)) {
			*o++ = 'N';
			p += strspn(p, "0123456789");
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

static int by_count(const void *a, const void *b)
{
	const struct drop_rule *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* slot of rule in the table of cap (a power of two) slots: where it is, or the empty one
   where it goes */
static size_t find(const struct drops *d, const size_t *tab, size_t cap, const char *rule)
{
	size_t h = (size_t)hash_bytes(HASH_INIT, rule, strlen(rule)) & (cap - 1);

	while (tab[h] && strcmp(d->v[tab[h] - 1].rule, rule))
		h = (h + 1) & (cap - 1);
	return h;
}

void drops_count(const struct space *s, struct drops *d)
{
	size_t cap = 64, *tab = xcalloc(cap, sizeof *tab), i, h, alloc = 0;

	memset(d, 0, sizeof *d);
	for (i = 0; i < s->n; i++) {
		char *rule;
		if (!s->v[i].drop)
			continue;
		d->total++;
		rule = drops_rule(s->v[i].drop);
		if (tab[h = find(d, tab, cap, rule)]) {
			d->v[tab[h] - 1].n++;
			free(rule);
			continue;
		}
		if (d->n == alloc)
			d->v = xreallocarray(d->v, alloc = alloc ? 2 * alloc : 16, sizeof *d->v);
		d->v[d->n] = (struct drop_rule){rule, 1, i};
		tab[h] = ++d->n;
		if (2 * d->n > cap) { /* grow, placing every rule again */
			size_t k;
			free(tab);
			tab = xcalloc(cap *= 2, sizeof *tab);
			for (k = 0; k < d->n; k++)
				tab[find(d, tab, cap, d->v[k].rule)] = k + 1;
		}
	}
	free(tab);
	if (d->n)
		qsort(d->v, d->n, sizeof *d->v, by_count);
}

void drops_free(struct drops *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->v[i].rule);
	free(d->v);
	memset(d, 0, sizeof *d);
}
