/* listing: --dry-run's list of variants, within 120 columns. */
#include "listing.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "drops.h"
#include "observe.h"
#include "space.h"
#include "util.h"
#include "wrap.h"

/* a launch's dimensions as "256", "32x8" or "4x4x2": dims of them (1 to 3) */
static void dims_text(char *out, size_t size, const int64_t g[3], int dims)
{
	if (dims == 3)
		snprintf(out, size, "%lldx%lldx%lld", (long long)g[0], (long long)g[1], (long long)g[2]);
	else if (dims == 2)
		snprintf(out, size, "%lldx%lld", (long long)g[0], (long long)g[1]);
	else
		snprintf(out, size, "%lld", (long long)g[0]);
}

/* --dry-run's list, laid out */
struct listing {
	int dims;                 /* the launches' dimensions that are not 1 in every row */
	size_t wi, wp, wb, wg, ws; /* widths: id, params, block, grid, shared */
	int by_number;            /* a dropped row names its rule by number (its reason would
	                             pass WRAP_WIDTH) */
	int *wv;                  /* the parameters a column each, this wide (NULL: "A=1 B=2" in
	                             one column, as long as a row fits in WRAP_WIDTH) */
};

/* the status column's width: "kept", a drop's reason as wide as the widest (wide), or "dropped:
   rule N" (by_number, n rules) */
static size_t status_width(size_t wide, int by_number, size_t n)
{
	size_t w = wide ? (by_number ? strlen("dropped: rule ") + (size_t)snprintf(NULL, 0, "%zu", n)
	                             : strlen("dropped: ") + wide) : 0;

	return w > strlen("status") ? w : strlen("status");
}

/* the list's widths: each column as wide as its widest entry */
static void listing_make(struct listing *l, const struct config *c, const struct space *s,
                         int list_dropped, const struct drops *d)
{
	size_t k, j, wide = 0, base;
	char t[96];

	*l = (struct listing){1, 2, 6, 5, 4, 6, 0, NULL};
	for (k = 0; k < s->n; k++) /* 1-D launches are listed as "256", 2-D ones as "32x8" */
		for (j = 0; j < 2 && !s->v[k].drop; j++) {
			const int64_t *g = j ? s->v[k].grid : s->v[k].block;
			l->dims = g[2] != 1 ? 3 : g[1] != 1 && l->dims < 2 ? 2 : l->dims;
		}
	for (k = 0; k < s->n; k++) {
		const struct variant *v = &s->v[k];
		char *p;
		if (v->drop && !list_dropped)
			continue;
		p = space_params_str(c, v);
		l->wi = strlen(v->id) > l->wi ? strlen(v->id) : l->wi;
		l->wp = strlen(p) > l->wp ? strlen(p) : l->wp;
		free(p);
		if (v->drop) {
			wide = strlen(v->drop) > wide ? strlen(v->drop) : wide;
			continue;
		}
		dims_text(t, sizeof t, v->block, l->dims);
		l->wb = strlen(t) > l->wb ? strlen(t) : l->wb;
		dims_text(t, sizeof t, v->grid, l->dims);
		l->wg = strlen(t) > l->wg ? strlen(t) : l->wg;
		l->ws = (size_t)snprintf(t, sizeof t, "%lld", (long long)v->shared) > l->ws ?
		        strlen(t) : l->ws;
	}
	base = l->wi + l->wb + l->wg + l->ws + 10;
	l->by_number = wide && base + l->wp + status_width(wide, 0, d->n) > WRAP_WIDTH;
	if (base + l->wp + status_width(wide, l->by_number, d->n) > WRAP_WIDTH) {
		size_t wp = 0; /* the parameters a column each: "BLOCK  OUT" over "  256    4" */
		l->wv = xcalloc(c->nparams + 1, sizeof *l->wv);
		for (j = 0; j < c->nparams; j++) {
			l->wv[j] = (int)strlen(c->params[j].name);
			for (k = 0; k < s->n; k++)
				if (!s->v[k].drop || list_dropped)
					l->wv[j] = snprintf(t, sizeof t, "%lld", (long long)s->v[k].vals[j]) >
					           l->wv[j] ? (int)strlen(t) : l->wv[j];
			wp += (size_t)l->wv[j] + (j ? 1 : 0);
		}
		if (wp < l->wp) {
			l->wp = wp;
			l->by_number = wide && base + wp + status_width(wide, 0, d->n) > WRAP_WIDTH;
		} else {
			free(l->wv);
			l->wv = NULL;
		}
	}
}

/* the parameters' cell of the list: v's values, or the heads where v is NULL (malloc'd) */
static char *listing_params(const struct listing *l, const struct config *c,
                            const struct variant *v)
{
	struct buf b = {0};
	size_t j;

	if (!l->wv)
		return v ? space_params_str(c, v) : xstrdup("params");
	for (j = 0; j < c->nparams; j++)
		if (v)
			buf_printf(&b, "%s%*lld", j ? " " : "", l->wv[j], (long long)v->vals[j]);
		else
			buf_printf(&b, "%s%*s", j ? " " : "", l->wv[j], c->params[j].name);
	if (!b.s)
		buf_puts(&b, "");
	return b.s;
}

/* the number of v's rule in d (from 1), 0: none */
static size_t rule_number(const struct drops *d, const struct variant *v)
{
	char *rule = drops_rule(v->drop);
	size_t k;

	for (k = 0; k < d->n && strcmp(d->v[k].rule, rule); k++)
		;
	free(rule);
	return k < d->n ? k + 1 : 0;
}

/* a row of the list */
static void listing_row(FILE *f, const struct listing *l, const struct config *c,
                        const struct variant *v, const struct drops *d)
{
	char *p = listing_params(l, c, v), bl[96], gr[96];

	dims_text(bl, sizeof bl, v->block, l->dims);
	dims_text(gr, sizeof gr, v->grid, l->dims);
	fprintf(f, "%-*s  %-*s  %-*s  %-*s  %*lld  ", (int)l->wi, v->id, (int)l->wp, p,
	        (int)l->wb, v->drop ? "-" : bl, (int)l->wg, v->drop ? "-" : gr, (int)l->ws,
	        (long long)v->shared);
	if (!v->drop)
		fprintf(f, "kept\n");
	else if (l->by_number)
		fprintf(f, "dropped: rule %zu\n", rule_number(d, v));
	else
		fprintf(f, "dropped: %s\n", v->drop);
	free(p);
}

void listing_print(FILE *f, const struct config *c, const struct space *s, int list_dropped,
                     const struct observe *o)
{
	size_t k;
	struct drops d;
	struct listing l;
	struct wrapped w;
	int numbered;

	drops_count(s, &d);
	listing_make(&l, c, s, list_dropped, &d);
	if (verbosity > 0) {
		char *p = listing_params(&l, c, NULL);
		fprintf(f, "%-*s  %-*s  %-*s  %-*s  %*s  %s\n", (int)l.wi, "id", (int)l.wp, p,
		        (int)l.wb, "block", (int)l.wg, "grid", (int)l.ws, "shared", "status");
		free(p);
	}
	for (k = 0; k < s->n && verbosity > 0; k++)
		if (!s->v[k].drop || list_dropped)
			listing_row(f, &l, c, &s->v[k], &d);
	wrap_begin(&w);
	if (d.n)
		fprintf(w.f, "dropped, by the rule that dropped them%s:\n",
		        list_dropped ? "" : " (--list-dropped lists them)");
	numbered = l.by_number && list_dropped && verbosity > 0; /* the rows say "rule 2" */
	for (k = 0; k < d.n; k++) {
		char no[32] = "";
		if (numbered)
			snprintf(no, sizeof no, "rule %zu:", k + 1);
		fprintf(w.f, "  %-*s%8zu  %s\n", numbered ? (int)strlen(no) + 2 : 0, no, d.v[k].n,
		        d.v[k].rule);
	}
	if (fclose(w.f))
		die("a stream in memory:");
	wrap_hang(f, w.s, WRAP_WIDTH, numbered ? 21 + (size_t)snprintf(NULL, 0, "%zu", d.n) : 12);
	free(w.s);
	drops_free(&d);
	free(l.wv);
	wrap_begin(&w);
	fprintf(w.f, "%zu variants: %zu kept, %zu dropped\n", s->n, s->nkept, s->n - s->nkept);
	if (verbosity > 0 && o && s->nkept && (k = observe_programs(o, s)) < s->nkept) {
		size_t i, nh = 0;
		fprintf(w.f, "the kept variants are %zu programs (each compiled once):", k);
		for (i = 0; i < c->nparams; i++)
			if (observe_hidden(o, i))
				fprintf(w.f, "%s %s", nh++ ? "," : "", c->params[i].name);
		fprintf(w.f, " reach%s the code only through conditionals (docs/how-it-works.md)\n",
		        nh == 1 ? "es" : "");
	}
	wrap_end(&w, f);
}
