/* params: the params section; each parameter's values, evaluated under the sizes. */
#include "params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "read.h"
#include "spec.h"
#include "util.h"
#include "yamltree.h"

struct ival {
	int64_t v;
	size_t i;
};

static int ival_cmp(const void *a, const void *b)
{
	const struct ival *p = a, *q = b;

	if (p->v != q->v)
		return p->v < q->v ? -1 : 1;
	return p->i < q->i ? -1 : p->i > q->i;
}

/* of the m values in s (malloc'd, freed here), each with its index i: set mark[i] (mark may
   be NULL) of every one equal to a value of a smaller index; the smallest such index, or
   none. O(m log m). */
static size_t dups(struct ival *s, size_t m, unsigned char *mark, size_t none)
{
	size_t i, first = none;

	qsort(s, m, sizeof *s, ival_cmp);
	for (i = 1; i < m; i++) {
		if (s[i].v != s[i - 1].v)
			continue;
		if (mark)
			mark[s[i].i] = 1;
		if (first == none || s[i].i < first)
			first = s[i].i;
	}
	free(s);
	return first;
}

/* the index of the first value equal to an earlier one, or n */
static size_t first_dup(const int64_t *v, size_t n)
{
	struct ival *s = xcalloc(n, sizeof *s);
	size_t i;

	for (i = 0; i < n; i++) {
		s[i].v = v[i];
		s[i].i = i;
	}
	return dups(s, n, NULL, n);
}

/* the index of the first integer of it[0, n) equal to an earlier integer, or n */
static size_t first_dup_literal(const struct pval *it, size_t n)
{
	struct ival *s = xcalloc(n, sizeof *s);
	size_t i, m = 0;

	for (i = 0; i < n; i++)
		if (!it[i].e) {
			s[m].v = it[i].v;
			s[m++].i = i;
		}
	return dups(s, m, NULL, n);
}

/* at most this many values in one parameter's range (the space has at most 10^6 variants) */
#define RANGE_MAX 100000

static const char *const range_key[PR_N] = {"from", "to", "step", "times"};
static const int64_t range_min[PR_N] = {INT64_MIN / 2, INT64_MIN / 2, 1, 2};
static const int64_t range_max[PR_N] = {INT64_MAX / 2, INT64_MAX / 2, INT64_MAX / 4, 1 << 20};

/* where working out a parameter's values failed, and why */
struct perr {
	struct loc loc;
	char msg[YAMLTREE_MSG_MAX];
};

/* set *e to fmt at l; -1 */
__attribute__((format(printf, 3, 4)))
static int perr_at(struct perr *e, struct loc l, const char *fmt, ...)
{
	va_list ap;

	e->loc = l;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	return -1;
}

/* the values of p's range whose bounds it[] (as written) have the values b[], into *vals
   (malloc'd): {from: A, to: B, step: S} is A, A + S, ... <= B (S default 1), {from: A, to: B,
   times: F} is A, A * F, ... <= B (F >= 2: powers of two with F 2); note ends each message.
   0, or -1 with *e */
static int range_vals(const struct param *p, const struct pval *it, const int64_t *b,
                      const char *note, int64_t **vals, size_t *nvals, struct perr *e)
{
	int64_t a = b[PR_FROM], z = b[PR_TO], v;
	int64_t st = it[PR_STEP].set ? b[PR_STEP] : 1, fac = it[PR_TIMES].set ? b[PR_TIMES] : 0;
	size_t n = 0, k;

	for (k = 0; k < PR_N; k++) {
		if (it[k].set && b[k] < range_min[k])
			return perr_at(e, it[k].loc, "'%s' must be at least %lld%s", range_key[k],
			               (long long)range_min[k], note);
		if (it[k].set && b[k] > range_max[k])
			return perr_at(e, it[k].loc, "'%s' must be at most %lld%s", range_key[k],
			               (long long)range_max[k], note);
	}
	if (fac && a < 1)
		return perr_at(e, it[PR_FROM].loc, "'%s': a range with 'times' starts at 1 or more%s",
		               p->name, note);
	if (z < a)
		return perr_at(e, it[PR_TO].loc, "'%s': 'to' (%lld) is below 'from' (%lld)%s",
		               p->name, (long long)z, (long long)a, note);
	for (v = a; v <= z; v = fac ? v * fac : v + st) {
		if (++n > RANGE_MAX)
			return perr_at(e, p->at, "'%s': more than %d values%s", p->name, RANGE_MAX, note);
		if (fac && v > z / fac)
			break;
	}
	*vals = xcalloc(n, sizeof **vals);
	*nvals = 0;
	for (v = a;; v = fac ? v * fac : v + st) { /* the next value only when there is one */
		(*vals)[(*nvals)++] = v;
		if (*nvals == n)
			break;
	}
	return 0;
}

/* the value or range bound at n of parameter p (what: its name, or the bound's key) into *pv:
   an integer, else an expression of the sizes and the parameters before p (those bound in
   before); 1 if an expression */
static int get_pval(struct reader *x, const struct node *n, const char *what,
                    const struct param *p, const struct vars *before, struct pval *pv)
{
	int r = n->kind == N_SCALAR && !yamltree_null(n) ? read_i64(n->s, &pv->v) : -1;
	const char *name;
	int col = 0;

	pv->set = 1;
	pv->loc = read_loc(n);
	if (r == 0)
		return 0;
	/* not a scalar, out of range, or a number with a fraction: an integer was meant */
	if (r == -2 || n->kind != N_SCALAR || yamltree_null(n) || strchr(n->s, '.'))
		read_int(x, n, what, INT64_MIN, INT64_MAX); /* reports why */
	read_expr(x, n, what, &x->all, &pv->e);
	pv->loc.col = read_col(n, 0); /* errors of its value point into it */
	name = expr_unknown(pv->e, before, &col);
	if (name && !strcmp(name, CFG_SMS))
		read_err_at(x, n->line, read_col(n, col), "'%s' is not allowed in parameter values: they "
		            "may use sizes and earlier parameters only (a variant is the same on every "
		            "GPU)", CFG_SMS);
	if (name && !strcmp(name, p->name))
		read_err_at(x, n->line, read_col(n, col), "'%s' uses its own value: a parameter's "
		            "values may use only the sizes and the parameters before it",
		            read_show(x, name));
	if (name)
		read_err_at(x, n->line, read_col(n, col), "'%s' uses '%s', a parameter after it: a "
		            "parameter's values may use only the sizes and the parameters before it "
		            "(move '%s' up)", read_show(x, p->name), read_show(x, name),
		            read_show(x, name));
	return 1;
}

/* 1 if e uses one of the first np parameters of c */
static int uses_param(const struct config *c, size_t np, const struct expr *e)
{
	size_t i;

	for (i = 0; e && i < np; i++)
		if (expr_uses(e, c->params[i].name))
			return 1;
	return 0;
}

/* a parameter's values from a range: {from: A, to: B, step: S} or {from: A, to: B, times: F}
   (range_vals), into p; bounds that are expressions of the sizes are left to
   cfg_eval_params */
static void get_range(struct reader *x, const struct node *m, struct param *p,
                      const struct vars *before)
{
	struct field f[] = {REQ("from", D_VARIANT), REQ("to", D_VARIANT), OPT("step", D_VARIANT),
	                    OPT("times", D_VARIANT)};
	const char *name = p->name;
	int64_t b[PR_N] = {0};
	struct perr e;
	int sized = 0;
	size_t i;

	for (i = 0; i < m->n; i += 2) { /* a list's other spellings get a pointer to this one */
		if (m->kid[i]->kind != N_SCALAR || !strcmp(m->kid[i]->s, "from") ||
		    !strcmp(m->kid[i]->s, "to") || !strcmp(m->kid[i]->s, "step") ||
		    !strcmp(m->kid[i]->s, "times"))
			continue;
		if (i >= 2 && read_cut_expr(m->kid[i - 1])) { /* {to: ceil_div(n, 2)}: key "2)" */
			struct expr *cut;
			read_expr(x, m->kid[i - 1], "range", &x->sizes, &cut); /* says to quote it */
			die("'%s' parsed with an unclosed '('", m->kid[i - 1]->s);
		}
		read_err(x, m->kid[i], "'%s': a list of values, or a range with the keys from, to "
		         "and step or times; not '%s'", read_show(x, name), read_show(x, m->kid[i]->s));
	}
	read_fields(x, m, name, f, LEN(f));
	p->range = 1;
	p->items = xcalloc(PR_N, sizeof *p->items);
	p->nitems = PR_N;
	for (i = 0; i < PR_N; i++)
		if (f[i].v)
			sized |= get_pval(x, f[i].v, range_key[i], p, before, &p->items[i]);
	if (f[PR_STEP].v && f[PR_TIMES].v)
		read_err(x, f[PR_TIMES].k, "'%s': 'step' or 'times', not both", read_show(x, name));
	if (sized)
		return;
	for (i = 0; i < PR_N; i++)
		b[i] = p->items[i].v;
	if (range_vals(p, p->items, b, "", &p->vals, &p->nvals, &e) < 0)
		read_err_at(x, e.loc.line, e.loc.col, "%s", e.msg);
	free(p->items);
	p->items = NULL;
	p->nitems = 0;
}

/* a parameter's list of values into p; values that are expressions of the sizes are left to
   cfg_eval_params */
static void get_list(struct reader *x, const struct node *v, struct param *p,
                     const struct vars *before)
{
	size_t j, k;

	read_want(x, v, N_SEQ, p->name);
	if (!v->n)
		read_err(x, v, "'%s' must have at least one value", read_show(x, p->name));
	p->vals = xcalloc(v->n, sizeof *p->vals);
	/* the first bad value or duplicate in list order, in O(n log n) */
	for (j = 0; j < v->n; j++) {
		const struct node *e = v->kid[j];
		if (e->kind != N_SCALAR || yamltree_null(e) || read_i64(e->s, &p->vals[j]) < 0)
			break;
	}
	k = first_dup(p->vals, j);
	if (k < j)
		read_err(x, v->kid[k], "duplicate value %lld in '%s'", (long long)p->vals[k],
		         read_show(x, p->name));
	p->nvals = v->n;
	if (j == v->n)
		return;
	/* an expression (or a mistake) at j */
	free(p->vals);
	p->vals = NULL;
	p->nvals = 0;
	p->items = xcalloc(v->n, sizeof *p->items);
	p->nitems = v->n;
	for (j = 0; j < v->n; j++)
		get_pval(x, v->kid[j], p->name, p, before, &p->items[j]);
	k = first_dup_literal(p->items, p->nitems);
	if (k < p->nitems)
		read_err(x, v->kid[k], "duplicate value %lld in '%s'", (long long)p->items[k].v,
		         read_show(x, p->name));
}

void params_read(struct reader *x, const struct node *m)
{
	struct config *c = x->c;
	struct vars before = {0};
	int64_t dummy;
	size_t i;

	read_want(x, m, N_MAP, "params");
	c->params = xcalloc(m->n / 2, sizeof *c->params);
	for (i = 0; i < m->n; i += 2) { /* every name first: no value may use one */
		struct param *p = &c->params[c->nparams];
		const char *name = read_ident(x, m->kid[i], "parameter");
		if (vars_get(&x->sizes, name, &dummy))
			read_err(x, m->kid[i], "parameter '%s' clashes with a size", read_show(x, name));
		p->name = xstrdup(name);
		p->loc = read_loc(m->kid[i]);
		p->at = read_loc(m->kid[i + 1]);
		c->nparams++;
		if (x->all.n == VARS_MAX)
			read_err(x, m->kid[i], "more than %d sizes and parameters", VARS_MAX - 1);
		vars_set(&x->all, p->name, 0);
	}
	for (i = 0; i < c->nsizes; i++)
		vars_set(&before, c->sizes[i].name, 0);
	for (i = 0; i < c->nparams; i++) { /* values may use the parameters before them */
		struct param *p = &c->params[i];
		const struct node *v = m->kid[2 * i + 1];
		size_t k;
		if (v->kind == N_MAP)
			get_range(x, v, p, &before);
		else
			get_list(x, v, p, &before);
		for (k = 0; k < p->nitems; k++)
			p->dep |= uses_param(c, i, p->items[k].e);
		vars_set(&before, p->name, 0);
	}
}

/* the value of size `name` written as text (len bytes), or exit 2 */
static int64_t size_value(const char *name, const char *text, size_t len)
{
	char *t = xstrndup(text, len);
	int64_t v = 0;
	int rc = read_i64(t, &v);

	if (rc == -2 || rc == -1 || v < 0) {
		char msg[200];
		snprintf(msg, sizeof msg, "%s", t);
		free(t);
		if (rc == -2)
			fatal("size '%s': '%s' is out of range (at most %lld)", name, msg,
			      (long long)INT64_MAX);
		if (rc == -1)
			fatal("size '%s': '%s' is not an integer (decimal, or hexadecimal with 0x)", name,
			      msg);
		fatal("size '%s': '%s' is negative", name, msg);
	}
	free(t);
	return v;
}

/* the index of the size named by the n characters at name, or exit 2 */
static size_t size_find(const struct config *c, const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < c->nsizes; i++)
		if (strlen(c->sizes[i].name) == n && !strncmp(c->sizes[i].name, name, n))
			return i;
	fatal("unknown size '%.*s'", (int)n, name);
}

/* the index of the size that "name=..." assigns, or exit 2 */
static size_t size_index(const struct config *c, const char *assign)
{
	const char *eq = strchr(assign, '=');

	if (!eq || eq == assign)
		fatal("size '%s' must be name=value", assign);
	return size_find(c, assign, (size_t)(eq - assign));
}

/* size i set to v, the others kept */
static void size_set(struct config *c, size_t i, int64_t v)
{
	int64_t *vals = xcalloc(c->nsizes, sizeof *vals);
	size_t k;

	for (k = 0; k < c->nsizes; k++)
		vals[k] = c->sizes[k].val;
	vals[i] = v;
	cfg_set_point(c, vals);
	free(vals);
}

void cfg_set_size(struct config *c, const char *assign)
{
	size_t i = size_index(c, assign);
	const char *v = strchr(assign, '=') + 1;

	size_set(c, i, size_value(c->sizes[i].name, v, strlen(v)));
}

void cfg_set_size_val(struct config *c, const char *name, int64_t v)
{
	size_t i = size_find(c, name, strlen(name));

	if (v < 0)
		fatal("size '%s': '%lld' is negative", name, (long long)v);
	size_set(c, i, v);
}

void cfg_set_point(struct config *c, const int64_t *vals)
{
	size_t i;

	for (i = 0; i < c->nsizes; i++)
		c->sizes[i].val = vals[i];
	for (i = 0; i < c->nparams; i++) { /* drop values of the old sizes */
		if (!c->params[i].items)
			continue;
		free(c->params[i].vals);
		c->params[i].vals = NULL;
		c->params[i].nvals = 0;
	}
}

char *cfg_point_label(const struct config *c, const int64_t *vals)
{
	struct buf b = {0};
	size_t k;

	for (k = 0; k < c->nsizes; k++)
		buf_printf(&b, "%s%s=%lld", k ? " " : "", c->sizes[k].name, (long long)vals[k]);
	return b.s ? b.s : xstrdup("");
}

/* append point vals (nsizes values) to p[*n] unless it is there; exit 2 past the limit */
static void point_add(const struct config *c, struct vsize *p, size_t *n, const int64_t *vals)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!memcmp(p[i].vals, vals, c->nsizes * sizeof *vals))
			return;
	if (*n == CFG_POINTS_MAX)
		fatal("%s: more than %d points to tune at (--size's values times the config's "
		      "points)", c->path, CFG_POINTS_MAX);
	p[*n].vals = xcalloc(c->nsizes + 1, sizeof *vals);
	memcpy(p[*n].vals, vals, c->nsizes * sizeof *vals);
	p[*n].label = cfg_point_label(c, vals);
	p[*n].loc = (struct loc){0};
	(*n)++;
}

struct vsize *cfg_points(const struct config *c, char *const *assign, size_t nassign,
                         size_t *n)
{
	struct vsize *p = xcalloc(CFG_POINTS_MAX, sizeof *p), *q;
	int64_t *vals = xcalloc(c->nsizes + 1, sizeof *vals);
	size_t i, j, k, nq;

	*n = 0;
	if (c->npoints)
		for (i = 0; i < c->npoints; i++)
			point_add(c, p, n, c->points[i].vals);
	else {
		for (k = 0; k < c->nsizes; k++)
			vals[k] = c->sizes[k].val;
		point_add(c, p, n, vals);
	}
	for (i = 0; i < nassign; i++) { /* each assignment: every point once per value */
		size_t s = size_index(c, assign[i]);
		const char *v = strchr(assign[i], '=') + 1;
		q = p;
		nq = *n;
		p = xcalloc(CFG_POINTS_MAX, sizeof *p);
		*n = 0;
		for (j = 0; j < nq; j++) {
			const char *x = v;
			memcpy(vals, q[j].vals, c->nsizes * sizeof *vals);
			for (;;) {
				size_t len = strcspn(x, ",");
				vals[s] = size_value(c->sizes[s].name, x, len);
				point_add(c, p, n, vals);
				if (!x[len])
					break;
				x += len + 1;
			}
		}
		cfg_points_free(q, nq);
	}
	free(vals);
	for (i = 0; *n > 1 && i < *n; i++) /* each names a directory */
		if (strlen(p[i].label) > CFG_POINT_DIR_MAX)
			fatal("%s:%d:%d: the point '%.60s...' has %zu characters: at most %d for its "
			      "directory (shorter size names)", c->path, c->sizes[0].loc.line,
			      c->sizes[0].loc.col, p[i].label, strlen(p[i].label), CFG_POINT_DIR_MAX);
	return p;
}

char *cfg_point_dir(const char *label)
{
	char *d = xstrdup(label), *p;

	for (p = d; *p; p++)
		if (*p == ' ')
			*p = '_';
	return d;
}

void cfg_points_free(struct vsize *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(p[i].vals);
		free(p[i].label);
	}
	free(p);
}

/* " with n=4096, VEC=2": the sizes and parameters p's expressions use, as v binds them; ""
   if none (malloc'd) */
static char *sizes_note(const struct config *c, const struct param *p, const struct vars *v)
{
	struct buf b = {0};
	size_t i, k;
	int64_t val;

	buf_puts(&b, "");
	for (i = 0; i < c->nsizes + (size_t)(p - c->params); i++) {
		const char *name = i < c->nsizes ? c->sizes[i].name : c->params[i - c->nsizes].name;
		for (k = 0; k < p->nitems; k++)
			if (p->items[k].e && expr_uses(p->items[k].e, name))
				break;
		if (k < p->nitems && vars_get(v, name, &val))
			buf_printf(&b, "%s%s=%lld", b.len ? ", " : " with ", name, (long long)val);
	}
	return b.s;
}

/* p's values under the sizes in v, as written (some an expression), into *vals (malloc'd);
   note ends each message. A list's value equal to an earlier one is dropped, with a warning
   when loud. 0, or -1 with *e */
static int param_eval(const struct config *c, const struct param *p, const struct vars *v,
                      const char *note, int loud, int64_t **vals, size_t *nvals, struct perr *e)
{
	int64_t *b = xcalloc(p->nitems, sizeof *b);
	unsigned char *dup;
	struct ival *s;
	size_t k, n = 0;
	int r;

	for (k = 0; k < p->nitems; k++) {
		const struct pval *it = &p->items[k];
		struct expr_err ee;
		struct loc l = it->loc;
		if (!it->e) {
			b[k] = it->v;
			continue;
		}
		if (expr_eval(it->e, v, &b[k], &ee) == 0)
			continue;
		cfg_expr_loc(c, it->e, ee.col >= 0 ? ee.col : 0, &l);
		free(b);
		return perr_at(e, l, "'%s' %s '%s': %s%s", p->name, p->range ? range_key[k] : "value",
		               expr_src(it->e), ee.msg, note);
	}
	if (p->range) {
		r = range_vals(p, p->items, b, note, vals, nvals, e);
		free(b);
		return r;
	}
	s = xcalloc(p->nitems, sizeof *s);
	dup = xcalloc(p->nitems, 1);
	for (k = 0; k < p->nitems; k++) {
		s[k].v = b[k];
		s[k].i = k;
	}
	dups(s, p->nitems, dup, p->nitems);
	for (k = 0; k < p->nitems; k++) {
		const struct pval *it = &p->items[k];
		struct loc l = it->loc;
		if (!dup[k]) {
			b[n++] = b[k];
			continue;
		}
		if (!loud)
			continue;
		if (it->e)
			cfg_expr_loc(c, it->e, 0, &l);
		warn("%s:%d:%d: '%s': value %lld%s%s%s repeats an earlier one%s: tried once", c->path,
		     l.line, l.col, p->name, (long long)b[k], it->e ? " ('" : "",
		     it->e ? expr_src(it->e) : "", it->e ? "')" : "", note);
	}
	free(dup);
	*vals = b;
	*nvals = n;
	return 0;
}

int64_t *cfg_param_vals(const struct config *c, size_t i, const struct vars *v, int loud,
                        size_t *n)
{
	const struct param *p = &c->params[i];
	struct perr e;
	int64_t *vals;
	char *note;

	if (!p->items) {
		vals = xcalloc(p->nvals, sizeof *vals);
		memcpy(vals, p->vals, p->nvals * sizeof *vals);
		*n = p->nvals;
		return vals;
	}
	note = sizes_note(c, p, v);
	if (param_eval(c, p, v, note, loud, &vals, n, &e) < 0) {
		free(note);
		fatal("%s:%d:%d: %s", c->path, e.loc.line, e.loc.col, e.msg);
	}
	free(note);
	return vals;
}

void cfg_param_walk(const struct config *c, size_t np, const struct vars *sizes,
                    void (*fn)(void *arg, const int64_t *vals, const struct vars *v), void *arg)
{
	int64_t **list = xcalloc(np + 1, sizeof *list), *vals = xcalloc(np + 1, sizeof *vals);
	size_t *n = xcalloc(np + 1, sizeof *n), *idx = xcalloc(np + 1, sizeof *idx), i = 0;
	size_t count = 0;
	struct vars v = *sizes;

	for (;;) {
		for (; i < np; i++) { /* the lists from i on, under the values before them */
			const struct param *p = &c->params[i];
			if (p->dep) {
				free(list[i]);
				list[i] = cfg_param_vals(c, i, &v, 0, &n[i]);
			} else {
				list[i] = p->vals;
				n[i] = p->nvals;
			}
			idx[i] = 0;
			vals[i] = list[i][0];
			vars_set(&v, p->name, vals[i]);
		}
		if (++count > CFG_VARIANTS_MAX)
			fatal("%s: the parameter space has more than %d variants", c->path,
			      CFG_VARIANTS_MAX);
		fn(arg, vals, &v);
		for (;;) { /* the odometer, last parameter fastest */
			if (i == 0)
				goto done;
			i--;
			if (++idx[i] < n[i]) {
				vals[i] = list[i][idx[i]];
				vars_set(&v, c->params[i].name, vals[i]);
				i++;
				break;
			}
		}
	}
done:
	for (i = 0; i < np; i++)
		if (c->params[i].dep)
			free(list[i]);
	free(list);
	free(vals);
	free(n);
	free(idx);
}

/* every combination's values of the parameters, gathered for the union of each dependent
   one's values */
struct gather {
	const struct config *c;
	struct ival **seen;   /* per parameter: every value met, with its order */
	size_t *nseen, *cap;
};

static void gather(void *arg, const int64_t *vals, const struct vars *v)
{
	struct gather *g = arg;
	size_t i;

	(void)v;
	for (i = 0; i < g->c->nparams; i++) {
		if (!g->c->params[i].dep)
			continue;
		if (g->nseen[i] == g->cap[i]) {
			g->cap[i] = g->cap[i] ? 2 * g->cap[i] : 16;
			g->seen[i] = xreallocarray(g->seen[i], g->cap[i], sizeof *g->seen[i]);
		}
		g->seen[i][g->nseen[i]].v = vals[i];
		g->seen[i][g->nseen[i]].i = g->nseen[i];
		g->nseen[i]++;
	}
}

void cfg_eval_params(struct config *c)
{
	struct vars v = {0};
	struct gather g = {c, NULL, NULL, NULL};
	size_t i, k, last = 0;

	cfg_size_vars(c, 1, &v); /* parameter values may not use SMS */
	for (i = 0; i < c->nparams; i++) {
		struct param *p = &c->params[i];
		if (!p->items)
			continue;
		free(p->vals);
		p->vals = NULL;
		p->nvals = 0;
		if (p->dep)
			last = i + 1;
		else
			p->vals = cfg_param_vals(c, i, &v, 1, &p->nvals);
	}
	if (!last)
		return;
	/* a dependent parameter's values: the union, in the order first met, over every
	   combination of the parameters before it */
	g.seen = xcalloc(c->nparams, sizeof *g.seen);
	g.nseen = xcalloc(c->nparams, sizeof *g.nseen);
	g.cap = xcalloc(c->nparams, sizeof *g.cap);
	cfg_param_walk(c, last, &v, gather, &g);
	for (i = 0; i < last; i++) {
		struct param *p = &c->params[i];
		unsigned char *dup;
		struct ival *s;
		if (!p->dep)
			continue;
		s = xcalloc(g.nseen[i], sizeof *s);
		memcpy(s, g.seen[i], g.nseen[i] * sizeof *s);
		dup = xcalloc(g.nseen[i], 1);
		dups(s, g.nseen[i], dup, g.nseen[i]);
		p->vals = xcalloc(g.nseen[i], sizeof *p->vals);
		for (k = 0; k < g.nseen[i]; k++)
			if (!dup[k])
				p->vals[p->nvals++] = g.seen[i][k].v;
		free(dup);
		free(g.seen[i]);
	}
	free(g.seen);
	free(g.nseen);
	free(g.cap);
}

void cfg_size_vars(const struct config *c, int64_t sms, struct vars *v)
{
	size_t i;

	vars_set(v, CFG_SMS, sms);
	for (i = 0; i < c->nsizes; i++)
		vars_set(v, c->sizes[i].name, c->sizes[i].val);
}
