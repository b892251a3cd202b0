/* config: YAML kernel description (libyaml) -> struct config. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "options.h"
#include "read.h"
#include "yamltree.h"

#define MAXBYTES (1 << 20) /* largest config file */
#define MAXITEMS 1024 /* most buffers, constants or args */

static const char *const elem_yaml[] = {"float", "double", "int", "unsigned", "long",
                                        "unsigned_long"};
static const char *const elem_c[] = {"float", "double", "int", "unsigned int", "long long",
                                     "unsigned long long"};
static const size_t elem_bytes[] = {4, 8, 4, 4, 8, 8};

static void ctx_free(struct reader *x)
{
	yamltree_free(&x->t);
	cfg_free(x->c);
	x->c = NULL;
	free(x->dir);
	x->dir = NULL;
}

static enum elem get_elem(struct reader *x, const struct node *n, const char *what)
{
	const char *s = read_str(x, n, what);
	size_t i;

	for (i = 0; i < LEN(elem_yaml); i++)
		if (!strcmp(s, elem_yaml[i]))
			return (enum elem)i;
	read_err(x, n, "unknown type '%s' (float double int unsigned long unsigned_long)",
	         read_show(x, s));
}

static struct expr *const_expr(const char *src)
{
	struct expr_err e;
	struct expr *r = expr_parse(src, &e);

	if (!r)
		die("cannot parse constant expression '%s': %s", src, e.msg);
	return r;
}

/* how source_read went */
enum src { SRC_OK, SRC_ERRNO, SRC_BIG, SRC_NUL };

/* read the source file at path into *text (malloc'd; NULL unless SRC_OK): SRC_ERRNO (errno
   set) if it cannot be read, SRC_BIG if it has more than CFG_SOURCE_MAX bytes, SRC_NUL if it
   has a NUL byte (*line: the 1-based line of the first) */
static enum src source_read(const char *path, char **text, int *line)
{
	size_t len, i;
	char *t = file_read_max(path, CFG_SOURCE_MAX, &len);
	const char *z;

	*text = NULL;
	if (!t)
		return SRC_ERRNO;
	if (len > CFG_SOURCE_MAX) {
		free(t);
		return SRC_BIG;
	}
	if ((z = memchr(t, '\0', len))) {
		*line = 1;
		for (i = 0; i < (size_t)(z - t); i++)
			*line += t[i] == '\n';
		free(t);
		return SRC_NUL;
	}
	*text = t;
	return SRC_OK;
}

char *cfg_read_source(const struct config *c, const char *path)
{
	char *t;
	int line = 0;

	switch (source_read(path, &t, &line)) {
	case SRC_OK:
		break;
	case SRC_ERRNO:
		fatal("%s: cannot read '%s':", c->path, path);
	case SRC_BIG:
		fatal("%s: '%s' has more than %d bytes: too large for a source file", c->path, path,
		      CFG_SOURCE_MAX);
	case SRC_NUL:
		fatal("%s: '%s' has a NUL byte on line %d: not a source file", c->path, path, line);
	}
	return t;
}

/* resolve a path relative to the config and check that it names a source file the tuner can
   read (a regular file of at most CFG_SOURCE_MAX bytes without a NUL byte) */
static char *get_source(struct reader *x, const struct field *f, const char *label)
{
	const char *rel = read_text(x, f->v, f->key);
	char *p, *text;
	struct stat st;
	int e, line = 0;

	p = path_join(x->dir, rel);
	if (x->detached)
		return p;
	if (stat(p, &st) < 0) {
		char tried[512];
		e = errno;
		snprintf(tried, sizeof tried, "%s", p);
		free(p);
		if (e == ENOENT || e == ENOTDIR)
			read_err(x, f->k, "%s '%s' not found (looked for %s)", label, read_show(x, rel),
			         read_show(x, tried));
		read_err(x, f->k, "%s '%s': %s", label, read_show(x, rel), strerror(e));
	}
	if (S_ISDIR(st.st_mode)) {
		free(p);
		read_err(x, f->k, "%s '%s' is a directory", label, read_show(x, rel));
	}
	if (!S_ISREG(st.st_mode)) {
		free(p);
		read_err(x, f->k, "%s '%s' is not a regular file", label, read_show(x, rel));
	}
	switch (source_read(p, &text, &line)) {
	case SRC_OK:
		free(text);
		return p;
	case SRC_ERRNO:
		e = errno;
		free(p);
		read_err(x, f->k, "%s '%s': %s", label, read_show(x, rel), strerror(e));
	case SRC_BIG:
		free(p);
		read_err(x, f->k, "%s '%s' has more than %d bytes: too large for a source file", label,
		         read_show(x, rel), CFG_SOURCE_MAX);
	case SRC_NUL:
		free(p);
		read_err(x, f->k, "%s '%s' has a NUL byte on line %d: not a source file", label,
		         read_show(x, rel), line);
	}
	die("source_read: unknown result");
}

/* ---- sections ---- */

static void get_fill(struct reader *x, const struct node *n, struct fill *fl)
{
	static const char *const kinds[] = {"random", "range", "const", "list"};
	const struct node *k, *v;
	size_t i;

	read_want(x, n, N_MAP, "fill");
	if (n->n != 2)
		read_err(x, n, "'fill' must have exactly one of random, range, const, list");
	k = n->kid[0];
	v = n->kid[1];
	for (i = 0; i < LEN(kinds) && strcmp(k->s, kinds[i]); i++)
		;
	if (i == LEN(kinds))
		read_err(x, k, "unknown fill '%s' (random range const list)", read_show(x, k->s));
	fl->kind = (enum fill_kind)i;
	switch (fl->kind) {
	case FILL_RANDOM: {
		struct field f[] = {OPT("seed", D_RESULT), OPT("min", D_RESULT),
		                    OPT("max", D_RESULT)};
		read_fields(x, v, "random", f, LEN(f));
		fl->seed = f[0].v ? (uint64_t)read_int(x, f[0].v, "seed", 0, INT64_MAX) : 1;
		fl->lo = f[1].v ? read_double(x, f[1].v, "min") : -1;
		fl->hi = f[2].v ? read_double(x, f[2].v, "max") : 1;
		if (!(fl->lo < fl->hi))
			read_err(x, v, "'min' must be less than 'max'");
		break;
	}
	case FILL_RANGE: {
		struct field f[] = {OPT("start", D_RESULT), OPT("step", D_RESULT)};
		read_fields(x, v, "range", f, LEN(f));
		fl->start = f[0].v ? read_double(x, f[0].v, "start") : 0;
		fl->step = f[1].v ? read_double(x, f[1].v, "step") : 1;
		break;
	}
	case FILL_CONST:
		fl->value = read_double(x, v, "const");
		break;
	case FILL_LIST:
		read_want(x, v, N_SEQ, "list");
		if (!v->n)
			read_err(x, v, "'list' must not be empty");
		fl->list = xcalloc(v->n, sizeof *fl->list);
		fl->nlist = v->n;
		for (i = 0; i < v->n; i++)
			fl->list[i] = read_double(x, v->kid[i], "list");
		break;
	}
}

static void default_fill(struct fill *fl)
{
	fl->kind = FILL_RANDOM;
	fl->seed = 1;
	fl->lo = -1;
	fl->hi = 1;
}

static void get_sizes(struct reader *x, const struct node *m)
{
	struct config *c = x->c;
	size_t i;

	read_want(x, m, N_MAP, "sizes");
	c->sizes = xcalloc(m->n / 2, sizeof *c->sizes);
	for (i = 0; i < m->n; i += 2) {
		struct size *s = &c->sizes[c->nsizes];
		const char *name = read_ident(x, m->kid[i], "size");
		s->val = read_int(x, m->kid[i + 1], name, 0, INT64_MAX);
		s->loc = read_loc(m->kid[i]);
		s->name = xstrdup(name);
		c->nsizes++;
		if (x->all.n == VARS_MAX)
			read_err(x, m->kid[i], "more than %d sizes and parameters", VARS_MAX - 1);
		vars_set(&x->sizes, s->name, 0);
		vars_set(&x->all, s->name, 0);
	}
}

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

/* the value or range bound at n (what: the parameter's name, or the bound's key) into *pv:
   an integer, else an expression of the sizes; 1 if an expression */
static int get_pval(struct reader *x, const struct node *n, const char *what, struct pval *pv)
{
	int r = n->kind == N_SCALAR && !yamltree_null(n) ? read_i64(n->s, &pv->v) : -1;
	struct vars sizes = {0};
	size_t i;
	int col = 0;

	pv->set = 1;
	pv->loc = read_loc(n);
	if (r == 0)
		return 0;
	/* not a scalar, out of range, or a number with a fraction: an integer was meant */
	if (r == -2 || n->kind != N_SCALAR || yamltree_null(n) || strchr(n->s, '.'))
		read_int(x, n, what, INT64_MIN, INT64_MAX); /* reports why */
	read_expr(x, n, what, &x->sizes, &pv->e);
	pv->loc.col = read_col(n, 0); /* errors of its value point into it */
	for (i = 0; i < x->c->nsizes; i++)
		vars_set(&sizes, x->c->sizes[i].name, 0);
	if (expr_unknown(pv->e, &sizes, &col)) /* SMS, the one name of x->sizes not a size */
		read_err_at(x, n->line, read_col(n, col), "'%s' is not allowed in parameter values: they "
		            "may use sizes only (a variant is the same on every GPU)", CFG_SMS);
	return 1;
}

/* a parameter's values from a range: {from: A, to: B, step: S} or {from: A, to: B, times: F}
   (range_vals), into p; bounds that are expressions of the sizes are left to
   cfg_eval_params */
static void get_range(struct reader *x, const struct node *m, struct param *p)
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
			sized |= get_pval(x, f[i].v, range_key[i], &p->items[i]);
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
static void get_list(struct reader *x, const struct node *v, struct param *p)
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
		get_pval(x, v->kid[j], p->name, &p->items[j]);
	k = first_dup_literal(p->items, p->nitems);
	if (k < p->nitems)
		read_err(x, v->kid[k], "duplicate value %lld in '%s'", (long long)p->items[k].v,
		         read_show(x, p->name));
}

static void get_params(struct reader *x, const struct node *m)
{
	struct config *c = x->c;
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
	for (i = 0; i < c->nparams; i++) {
		const struct node *v = m->kid[2 * i + 1];
		if (v->kind == N_MAP)
			get_range(x, v, &c->params[i]);
		else
			get_list(x, v, &c->params[i]);
	}
}

static int find_buffer(const struct config *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nbuffers; i++)
		if (c->buffers[i].name && !strcmp(c->buffers[i].name, name))
			return (int)i;
	return -1;
}

/* a buffer's refill: launch, or variant (not for out buffers) */
static void get_refill(struct reader *x, const struct field *f, struct buffer *b)
{
	const char *s = read_str(x, f->v, "refill");

	if (!strcmp(s, "launch"))
		b->refill = REFILL_LAUNCH;
	else if (!strcmp(s, "variant"))
		b->refill = REFILL_VARIANT;
	else
		read_err(x, f->v, "unknown refill '%s' (launch variant)", read_show(x, s));
	if (b->role == ROLE_OUT && b->refill != REFILL_LAUNCH)
		read_err(x, f->v, "out buffers are poisoned before each variant: their only refill "
		         "is 'launch' (with a 'fill')");
}

static void get_buffers(struct reader *x, const struct node *seq)
{
	static const char *const roles[] = {"in", "out", "scratch"};
	struct config *c = x->c;
	int64_t dummy;
	int nout = 0;
	size_t i, r;

	read_want(x, seq, N_SEQ, "buffers");
	if (seq->n > MAXITEMS)
		read_err(x, seq->kid[MAXITEMS], "more than %d buffers", MAXITEMS);
	c->buffers = xcalloc(seq->n, sizeof *c->buffers);
	for (i = 0; i < seq->n; i++) {
		struct field f[] = {REQ("name", D_RESULT), REQ("type", D_RESULT),
		                    REQ("count", D_RESULT), REQ("role", D_RESULT),
		                    OPT("fill", D_RESULT), OPT("refill", D_RESULT)};
		struct buffer *b = &c->buffers[c->nbuffers];
		const char *name, *role;
		int filled;

		read_fields(x, seq->kid[i], "buffers", f, LEN(f));
		name = read_ident(x, f[0].v, "name");
		if (find_buffer(c, name) >= 0)
			read_err(x, f[0].v, "duplicate buffer '%s'", read_show(x, name));
		if (vars_get(&x->all, name, &dummy))
			read_err(x, f[0].v, "buffer '%s' clashes with a %s", read_show(x, name),
			         vars_get(&x->sizes, name, &dummy) ? "size" : "parameter");
		b->loc = read_loc(seq->kid[i]);
		b->type = get_elem(x, f[1].v, "type");
		role = read_str(x, f[3].v, "role");
		for (r = 0; r < LEN(roles) && strcmp(role, roles[r]); r++)
			;
		if (r == LEN(roles))
			read_err(x, f[3].v, "unknown role '%s' (in out scratch)", read_show(x, role));
		b->role = (enum role)r;
		nout += b->role == ROLE_OUT;
		b->name = xstrdup(name);
		c->nbuffers++;
		read_expr(x, f[2].v, "count", b->role == ROLE_SCRATCH ? &x->all : &x->sizes,
		          &b->count);
		if (f[5].v)
			get_refill(x, &f[5], b);
		filled = b->role != ROLE_OUT || b->refill == REFILL_LAUNCH;
		if (f[4].v && !filled)
			read_err(x, f[4].k, "out buffers take no 'fill' (they are poisoned) unless "
			         "they have 'refill: launch'");
		if (!f[4].v && b->role == ROLE_OUT && filled)
			read_err(x, f[5].k, "an out buffer with 'refill: launch' needs a 'fill': "
			         "what it must hold before every launch");
		if (f[4].v)
			get_fill(x, f[4].v, &b->fill);
		else if (filled)
			default_fill(&b->fill);
	}
	if (!nout)
		read_err(x, seq, "no buffer has role 'out'");
}

static void get_constants(struct reader *x, const struct node *seq)
{
	struct config *c = x->c;
	size_t i, j;

	read_want(x, seq, N_SEQ, "constants");
	if (seq->n > MAXITEMS)
		read_err(x, seq->kid[MAXITEMS], "more than %d constants", MAXITEMS);
	c->constants = xcalloc(seq->n, sizeof *c->constants);
	for (i = 0; i < seq->n; i++) {
		struct field f[] = {REQ("name", D_RESULT), REQ("type", D_RESULT),
		                    REQ("count", D_RESULT), OPT("fill", D_RESULT)};
		struct constant *k = &c->constants[c->nconstants];
		const char *name;

		read_fields(x, seq->kid[i], "constants", f, LEN(f));
		name = read_ident(x, f[0].v, "name");
		for (j = 0; j < c->nconstants; j++)
			if (!strcmp(c->constants[j].name, name))
				read_err(x, f[0].v, "duplicate constant '%s'", read_show(x, name));
		k->loc = read_loc(seq->kid[i]);
		k->type = get_elem(x, f[1].v, "type");
		k->name = xstrdup(name);
		c->nconstants++;
		read_expr(x, f[2].v, "count", &x->sizes, &k->count);
		if (f[3].v)
			get_fill(x, f[3].v, &k->fill);
		else
			default_fill(&k->fill);
	}
}

static void get_args(struct reader *x, const struct node *seq, struct kernel *k,
                     const struct vars *v)
{
	struct config *c = x->c;
	int64_t dummy;
	size_t i;

	read_want(x, seq, N_SEQ, "args");
	if (seq->n > MAXITEMS)
		read_err(x, seq->kid[MAXITEMS], "more than %d args", MAXITEMS);
	k->args = xcalloc(seq->n, sizeof *k->args);
	for (i = 0; i < seq->n; i++) {
		const struct node *n = seq->kid[i];
		struct arg *a = &k->args[k->nargs++];

		a->buffer = -1;
		a->type = EL_I32;
		a->loc = read_loc(n);
		if (n->kind == N_SCALAR && read_is_ident(n->s)) {
			a->buffer = find_buffer(c, n->s);
			if (a->buffer >= 0) {
				a->type = c->buffers[a->buffer].type;
				continue;
			}
			if (!vars_get(&x->all, n->s, &dummy))
				read_err(x, n, "unknown buffer or name '%s'", read_show(x, n->s));
		}
		if (n->kind == N_MAP) {
			struct field f[] = {REQ("value", D_RESULT), OPT("type", D_RESULT)};
			read_fields(x, n, "args", f, LEN(f));
			if (f[0].v->kind == N_SCALAR && find_buffer(c, f[0].v->s) >= 0)
				read_err(x, f[0].v, "buffer '%s' cannot be a scalar value",
				         read_show(x, f[0].v->s));
			read_expr(x, f[0].v, "value", v, &a->value);
			if (f[1].v)
				a->type = get_elem(x, f[1].v, "type");
			continue;
		}
		if (n->kind != N_SCALAR)
			read_err(x, n, "'args' items must be buffer names, expressions or "
			               "{value, type}");
		read_expr(x, n, "args", v, &a->value);
	}
}

/* reference args default to the kernel's: copy them, checking they use sizes only */
static void copy_args(struct reader *x, struct kernel *dst, const struct kernel *src)
{
	size_t i;

	dst->args = xcalloc(src->nargs, sizeof *dst->args);
	for (i = 0; i < src->nargs; i++) {
		const struct arg *s = &src->args[i];
		struct arg *d = &dst->args[dst->nargs++];
		const char *name;
		int col;

		*d = *s;
		d->value = NULL;
		if (!s->value)
			continue;
		d->value = const_expr(expr_src(s->value));
		name = expr_unknown(d->value, &x->sizes, &col);
		if (name)
			read_err_at(x, s->loc.line, s->loc.col, "parameter '%s' in the reference's default "
			            "args: give reference.args", read_show(x, name));
	}
}

static void get_dims(struct reader *x, const struct node *n, const char *what,
                     struct expr **dims, const struct vars *v)
{
	size_t i;

	read_want(x, n, N_SEQ, what);
	if (n->n < 1 || n->n > 3)
		read_err(x, n, "'%s' must have 1 to 3 dimensions", what);
	for (i = 0; i < 3; i++) {
		if (i < n->n)
			read_expr(x, n->kid[i], what, v, &dims[i]);
		else
			dims[i] = const_expr("1");
	}
}

static void get_launch(struct reader *x, const struct node *n, struct launch *l,
                       const struct vars *v)
{
	/* results of the reference's launch; the kernel's is left out as a whole (per variant) */
	struct field f[] = {REQ("block", D_RESULT), REQ("grid", D_RESULT), OPT("shared", D_RESULT),
	                    OPT("bank_bytes", D_RESULT)};

	read_fields(x, n, "launch", f, LEN(f));
	get_dims(x, f[0].v, "block", l->block, v);
	get_dims(x, f[1].v, "grid", l->grid, v);
	if (f[2].v)
		read_expr(x, f[2].v, "shared", v, &l->shared);
	else
		l->shared = const_expr("0");
	if (f[3].v)
		read_expr(x, f[3].v, "bank_bytes", v, &l->bank_bytes);
}

static void get_reference(struct reader *x, const struct node *n)
{
	struct field f[] = {OPT("source", D_CUBIN), REQ("entry", D_RESULT), OPT("args", D_RESULT),
	                    REQ("launch", D_RESULT)};
	struct config *c = x->c;
	struct kernel *r = &c->reference;

	read_fields(x, n, "reference", f, LEN(f));
	r->source = f[0].v ? get_source(x, &f[0], "reference source") : xstrdup(c->kernel.source);
	r->entry = xstrdup(read_ident(x, f[1].v, "entry"));
	if (f[2].v)
		get_args(x, f[2].v, r, &x->sizes);
	else
		copy_args(x, r, &c->kernel);
	get_launch(x, f[3].v, &r->launch, &x->sizes);
	c->has_reference = 1;
}

/* ---- verify: extra sizes every variant is verified at ---- */

/* verify: {sizes: [{NAME: N, ...}, ...]}: each entry the file's sizes with some changed */
static void get_verify(struct reader *x, const struct node *n)
{
	struct field f[] = {REQ("sizes", D_RESULT)};
	struct config *c = x->c;
	const struct node *seq;
	size_t i, j, k;

	read_fields(x, n, "verify", f, LEN(f));
	seq = f[0].v;
	read_want(x, seq, N_SEQ, "sizes");
	if (!seq->n)
		read_err(x, seq, "'sizes' of 'verify' must list at least one entry");
	if (seq->n > CFG_VERIFY_MAX)
		read_err(x, seq->kid[CFG_VERIFY_MAX], "more than %d verify sizes", CFG_VERIFY_MAX);
	c->verify = xcalloc(seq->n, sizeof *c->verify);
	for (i = 0; i < seq->n; i++) {
		const struct node *m = seq->kid[i];
		struct vsize *vs = &c->verify[c->nverify];
		struct buf label = {0};

		read_want(x, m, N_MAP, "verify sizes");
		if (!m->n)
			read_err(x, m, "a verify size must set at least one size");
		vs->loc = read_loc(m);
		vs->vals = xcalloc(c->nsizes + 1, sizeof *vs->vals);
		c->nverify++; /* c owns vs->vals from here on */
		for (k = 0; k < c->nsizes; k++)
			vs->vals[k] = c->sizes[k].val;
		for (j = 0; j < m->n; j += 2) {
			const char *name = m->kid[j]->s;
			for (k = 0; k < c->nsizes && strcmp(c->sizes[k].name, name); k++)
				;
			if (k == c->nsizes)
				read_err(x, m->kid[j], "unknown size '%s' (a verify size sets sizes "
				         "of 'sizes')", read_show(x, name));
			vs->vals[k] = read_int(x, m->kid[j + 1], name, 0, INT64_MAX);
		}
		for (k = 0; k < c->nsizes; k++)
			buf_printf(&label, "%s%s=%lld", k ? " " : "", c->sizes[k].name,
			           (long long)vs->vals[k]);
		vs->label = label.s ? label.s : xstrdup("");
		for (j = 0; j < i; j++)
			if (!memcmp(c->verify[j].vals, vs->vals, c->nsizes * sizeof *vs->vals))
				read_err(x, m, "verify size %s is listed twice (also at line %d)",
				         read_show(x, vs->label), c->verify[j].loc.line);
	}
}

/* ---- accesses: the kernel's shared-memory instructions, for the bank model ---- */

/* the thread names bank_eval binds per lane */
static const char *const lane_names[] = {"tx", "ty", "tz", "tid", "lane", "warp", "nthreads"};

/* bind name (a loop variable or a let of access a) in v, checking it is new there */
static void bind_lane_name(struct reader *x, const struct node *n, const char *name,
                           struct vars *v)
{
	int64_t dummy;

	if (bank_reserved(name))
		read_err(x, n, "'%s' is a thread name of accesses; choose another name",
		         read_show(x, name));
	if (vars_get(&x->sizes, name, &dummy))
		read_err(x, n, "'%s' clashes with a size", read_show(x, name));
	if (vars_get(&x->all, name, &dummy))
		read_err(x, n, "'%s' clashes with a parameter", read_show(x, name));
	if (vars_get(v, name, &dummy))
		read_err(x, n, "'%s' is already a loop variable or let of this access",
		         read_show(x, name));
	if (v->n == VARS_MAX)
		read_err(x, n, "more than %d names (sizes, parameters, thread names, loop variables "
		         "and lets)", VARS_MAX);
	vars_set(v, name, 0);
}

/* n, a mapping of exactly one key, as what: its key node and value node */
static void one_key(struct reader *x, const struct node *n, const char *what, struct node **k,
                    struct node **v)
{
	read_want(x, n, N_MAP, what);
	if (n->n != 2)
		read_err(x, n, "each item of '%s' must be a mapping of one name", what);
	*k = n->kid[0];
	*v = n->kid[1];
}

/* parse n as a field of an access that is the same for every thread: sizes and parameters
   only (lv: those and the thread names, to say why a thread name is refused) */
static void get_uniform(struct reader *x, const struct node *n, const char *what,
                        const struct vars *lv, struct expr **dst)
{
	const char *name;
	int col = 0;

	read_expr(x, n, what, lv, dst);
	name = expr_unknown(*dst, &x->all, &col);
	if (name)
		read_err_at(x, n->line, read_col(n, col), "thread name '%s' not allowed in '%s' (sizes "
		            "and parameters only)", read_show(x, name), what);
}

/* arr, of n items of size bytes, grown by one zeroed item */
static void *grow(void *arr, size_t n, size_t size)
{
	char *p = xreallocarray(arr, n + 1, size);

	memset(p + n * size, 0, size);
	return p;
}

/* parse item v of a list of one-name mappings (loops, let), named name at key k, into a */
typedef void named_fn(struct reader *x, struct bank_access *a, const struct node *k,
                      const char *name, const struct node *v, struct vars *lv);

/* seq, a list of at most MAXITEMS mappings of one name each, as what (plural: for the
   message, kind: what a name is): fn parses each item, in order */
static void get_named(struct reader *x, const struct node *seq, const char *what,
                      const char *plural, const char *kind, struct bank_access *a,
                      struct vars *lv, named_fn *fn)
{
	size_t i;

	read_want(x, seq, N_SEQ, what);
	if (seq->n > MAXITEMS)
		read_err(x, seq->kid[MAXITEMS], "more than %d %s", MAXITEMS, plural);
	for (i = 0; i < seq->n; i++) {
		struct node *k, *v;
		one_key(x, seq->kid[i], what, &k, &v);
		fn(x, a, k, read_ident(x, k, kind), v, lv);
	}
}

/* a loop: "var: count" or "var: {from, while, next}" */
static void loop_item(struct reader *x, struct bank_access *a, const struct node *k,
                      const char *name, const struct node *v, struct vars *lv)
{
	struct bank_loop *l;

	a->loops = grow(a->loops, a->nloops, sizeof *a->loops);
	l = &a->loops[a->nloops++]; /* a owns what is parsed into l from here on */
	l->var = xstrdup(name);
	if (v->kind == N_MAP) {
		struct field f[] = {REQ("from", D_NONE), REQ("while", D_NONE),
		                    REQ("next", D_NONE)};
		read_fields(x, v, "loops", f, LEN(f));
		read_expr(x, f[0].v, "from", lv, &l->from);
		bind_lane_name(x, k, name, lv);
		read_expr(x, f[1].v, "while", lv, &l->cond);
		read_expr(x, f[2].v, "next", lv, &l->next);
	} else {
		read_expr(x, v, name, lv, &l->count);
		bind_lane_name(x, k, name, lv);
	}
}

/* a let: "name: expression" */
static void let_item(struct reader *x, struct bank_access *a, const struct node *k,
                     const char *name, const struct node *v, struct vars *lv)
{
	struct bank_let *l;

	a->lets = grow(a->lets, a->nlets, sizeof *a->lets);
	l = &a->lets[a->nlets++]; /* a owns what is parsed into l from here on */
	l->name = xstrdup(name);
	read_expr(x, v, name, lv, &l->value);
	bind_lane_name(x, k, name, lv);
}

static void get_accesses(struct reader *x, const struct node *seq)
{
	enum { NAME, ARRAY, OP, ELEM, WIDTH, BASE, IF, LOOPS, LET, WHEN, INDEX };
	struct config *c = x->c;
	size_t i, j;

	read_want(x, seq, N_SEQ, "accesses");
	if (seq->n > MAXITEMS)
		read_err(x, seq->kid[MAXITEMS], "more than %d accesses", MAXITEMS);
	/* bank_eval binds the thread names over the sizes and parameters */
	for (i = 0; i < c->nsizes; i++)
		if (bank_reserved(c->sizes[i].name))
			read_err_at(x, c->sizes[i].loc.line, c->sizes[i].loc.col, "size '%s' is a thread "
			            "name of accesses; choose another name", c->sizes[i].name);
	for (i = 0; i < c->nparams; i++)
		if (bank_reserved(c->params[i].name))
			read_err_at(x, c->params[i].loc.line, c->params[i].loc.col, "parameter '%s' is a "
			            "thread name of accesses; choose another name", c->params[i].name);
	c->accesses = xcalloc(seq->n, sizeof *c->accesses);
	c->access_loc = xcalloc(seq->n, sizeof *c->access_loc);
	for (i = 0; i < seq->n; i++) {
		struct field f[] = {REQ("name", D_NONE), REQ("array", D_NONE), OPT("op", D_NONE),
		                    REQ("elem", D_NONE), OPT("width", D_NONE), OPT("base", D_NONE),
		                    OPT("if", D_NONE), OPT("loops", D_NONE), OPT("let", D_NONE),
		                    OPT("when", D_NONE), REQ("index", D_NONE)};
		struct bank_access *a = &c->accesses[c->naccesses];
		struct vars lv = x->all;
		const char *name, *s;

		read_fields(x, seq->kid[i], "accesses", f, LEN(f));
		name = read_text(x, f[NAME].v, "name");
		for (s = name; *s && (isalnum((unsigned char)*s) || *s == '_'); s++)
			;
		if (*s)
			read_err(x, f[NAME].v, "invalid access name '%s': use letters, digits and '_'",
			         read_show(x, name));
		for (j = 0; j < c->naccesses; j++)
			if (!strcmp(c->accesses[j].name, name))
				read_err(x, f[NAME].v, "duplicate access '%s'", read_show(x, name));
		c->access_loc[c->naccesses] = read_loc(seq->kid[i]);
		a->name = xstrdup(name);
		c->naccesses++;
		s = read_text(x, f[ARRAY].v, "array");
		if (!read_is_ident(s))
			read_err(x, f[ARRAY].v, "'%s' is not a valid identifier", read_show(x, s));
		a->array = xstrdup(s);
		if (f[OP].v) {
			s = read_str(x, f[OP].v, "op");
			if (strcmp(s, "load") && strcmp(s, "store"))
				read_err(x, f[OP].v, "unknown op '%s' (load store)", read_show(x, s));
			a->store = !strcmp(s, "store");
		}
		if (lv.n + (int)LEN(lane_names) > VARS_MAX)
			read_err(x, seq->kid[i], "more than %d names (sizes, parameters and thread "
			         "names)", VARS_MAX);
		for (j = 0; j < LEN(lane_names); j++)
			vars_set(&lv, lane_names[j], 0);
		get_uniform(x, f[ELEM].v, "elem", &lv, &a->elem);
		if (f[WIDTH].v)
			get_uniform(x, f[WIDTH].v, "width", &lv, &a->width);
		if (f[BASE].v)
			get_uniform(x, f[BASE].v, "base", &lv, &a->base);
		if (f[IF].v)
			get_uniform(x, f[IF].v, "if", &lv, &a->cond);
		if (f[LOOPS].v)
			get_named(x, f[LOOPS].v, "loops", "loops", "loop variable", a, &lv, loop_item);
		if (f[LET].v)
			get_named(x, f[LET].v, "let", "lets", "let", a, &lv, let_item);
		if (f[WHEN].v)
			read_expr(x, f[WHEN].v, "when", &lv, &a->when);
		read_expr(x, f[INDEX].v, "index", &lv, &a->index);
	}
}

/* ---- the result digest ---- */

/* for qsort: a mapping's (key, value) pairs by key */
static int key_cmp(const void *a, const void *b)
{
	const struct node *const *p = a, *const *q = b;

	return strcmp(p[0]->s, q[0]->s);
}

/* append n to b as canonical text: scalars quoted, mapping keys sorted, so that neither the
   order of keys nor YAML's styles change it; a key whose value is marked other than D_RESULT
   is left out, with all that is under it */
static void canon(struct buf *b, const struct node *n)
{
	const struct node **kv;
	size_t i;
	int any = 0;

	if (n->kind == N_SCALAR) {
		buf_json_str(b, n->s);
		return;
	}
	if (n->kind == N_SEQ) {
		buf_puts(b, "[");
		for (i = 0; i < n->n; i++) {
			if (i)
				buf_puts(b, ",");
			canon(b, n->kid[i]);
		}
		buf_puts(b, "]");
		return;
	}
	kv = xcalloc(n->n, sizeof *kv);
	if (n->n) /* an empty mapping has no kid array */
		memcpy(kv, n->kid, n->n * sizeof *kv);
	qsort(kv, n->n / 2, 2 * sizeof *kv, key_cmp);
	buf_puts(b, "{");
	for (i = 0; i < n->n; i += 2) {
		if (kv[i + 1]->dig != D_UNMARKED && kv[i + 1]->dig != D_RESULT)
			continue;
		if (any++)
			buf_puts(b, ",");
		buf_json_str(b, kv[i]->s);
		buf_puts(b, ":");
		canon(b, kv[i + 1]);
	}
	buf_puts(b, "}");
	free(kv);
}

/* the hash of the canonical text of what of the document is in the digest */
static uint64_t result_digest(const struct node *root)
{
	struct buf b = {0};
	uint64_t h;

	canon(&b, root);
	h = hash_bytes(HASH_INIT, b.s, b.len);
	buf_free(&b);
	return h;
}

/* ---- integer random fills ---- */

/* the value of key in mapping m, or NULL */
static const struct node *map_get(const struct node *m, const char *key)
{
	size_t i;

	for (i = 0; m && m->kind == N_MAP && i < m->n; i += 2)
		if (m->kid[i]->kind == N_SCALAR && !strcmp(m->kid[i]->s, key))
			return m->kid[i + 1];
	return NULL;
}

/* a random fill (fl, as written at item: a buffer or constant of kind and name) of an integer
   type t draws floor(min + (max - min) * u), u uniform in [0, 1): refuse bounds that are not
   integers, beyond t or that leave one value, none of which a user means */
static void check_int_random(struct reader *x, const struct node *item, const char *kind,
                             const char *name, enum elem t, const struct fill *fl)
{
	/* the smallest value of t, and one more than its largest (exact doubles) */
	static const double tmin[] = {0, 0, -2147483648.0, 0, -9223372036854775808.0, 0};
	static const double tend[] = {0, 0, 2147483648.0, 4294967296.0, 9223372036854775808.0,
	                              18446744073709551616.0};
	const struct node *fill = map_get(item, "fill"), *r, *at[2];
	const double b[2] = {fl->lo, fl->hi};
	const char *key[2] = {"min", "max"};
	int i;

	if (t == EL_F32 || t == EL_F64 || fl->kind != FILL_RANDOM || !fill)
		return;
	r = fill->kid[1]; /* {random: r} */
	for (i = 0; i < 2; i++) {
		at[i] = map_get(r, key[i]);
		if (at[i] && b[i] != floor(b[i]))
			read_err(x, at[i], "'%s' must be an integer for %s '%s' of type %s, not '%s'",
			         key[i], kind, read_show(x, name), elem_yaml[t], read_show(x, at[i]->s));
	}
	if (b[0] < tmin[t])
		read_err(x, at[0] ? at[0] : r, "'min'%s %.0f is below the smallest %s, %.0f, for %s "
		         "'%s'", at[0] ? "" : " (default)", b[0], elem_yaml[t], tmin[t], kind,
		         read_show(x, name));
	if (b[1] > tend[t])
		read_err(x, at[1] ? at[1] : r, "'max'%s %.0f is beyond the largest %s, %.0f (max is "
		         "excluded: at most %.0f), for %s '%s'", at[1] ? "" : " (default)", b[1],
		         elem_yaml[t], tend[t] - 1, tend[t], kind, read_show(x, name));
	if (b[1] - b[0] < 2)
		read_err(x, r, "'min' %.0f and 'max' %.0f leave %s '%s' of type %s one value, %.0f "
		         "(max is excluded): not a random fill; widen the range", b[0], b[1], kind,
		         read_show(x, name), elem_yaml[t], b[0]);
}

/* check_int_random for every buffer (the items of seq) and constant (of cseq; may be NULL) */
static void check_int_fills(struct reader *x, const struct node *seq, const struct node *cseq)
{
	const struct config *c = x->c;
	size_t i;

	for (i = 0; i < c->nbuffers; i++)
		check_int_random(x, seq->kid[i], "buffer", c->buffers[i].name, c->buffers[i].type,
		                 &c->buffers[i].fill);
	for (i = 0; i < c->nconstants; i++)
		check_int_random(x, cseq->kid[i], "constant", c->constants[i].name,
		                 c->constants[i].type, &c->constants[i].fill);
}

/* ---- the root ---- */

static void walk(struct reader *x)
{
	enum { NAME, TEMPLATE, ENTRY, OPTIONS, SIZES, PARAMS, CONSTRAINTS, BUFFERS, CONSTANTS,
	       ARGS, LAUNCH, BYTES, REFERENCE, TOLERANCE, TIMING, ACCESSES, VERIFY };
	/* whether each section can change a result, and how the journal covers it: enum dig */
	struct field f[] = {
		REQ("name", D_NONE), REQ("template", D_CUBIN), REQ("entry", D_RESULT),
		OPT("options", D_CUBIN), REQ("sizes", D_SIZES), REQ("params", D_VARIANT),
		OPT("constraints", D_VARIANT), REQ("buffers", D_RESULT), OPT("constants", D_RESULT),
		REQ("args", D_RESULT), REQ("launch", D_VARIANT), REQ("bytes", D_VARIANT),
		REQ("reference", D_RESULT), OPT("tolerance", D_RESULT), OPT("timing", D_RESULT),
		OPT("accesses", D_NONE), OPT("verify", D_RESULT),
	};
	struct config *c = x->c;
	const char *s;
	size_t i;

	read_fields(x, x->t.root, "root", f, LEN(f));

	s = read_text(x, f[NAME].v, "name");
	for (i = 0; s[i]; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			break;
	if (s[i])
		read_err(x, f[NAME].v, "invalid name '%s': use letters, digits and '_'",
		         read_show(x, s));
	if (isdigit((unsigned char)s[0]))
		read_err(x, f[NAME].v, "invalid name '%s': it must not start with a digit (it "
		         "begins C identifiers in the launch header)", read_show(x, s));
	if (i > CFG_NAME_MAX)
		read_err(x, f[NAME].v, "name '%s' has %zu characters: at most %d", read_show(x, s), i,
		         CFG_NAME_MAX);
	c->name = xstrdup(s);
	c->kernel.source = get_source(x, &f[TEMPLATE], "template");
	c->kernel.entry = xstrdup(read_ident(x, f[ENTRY].v, "entry"));

	if (f[OPTIONS].v) {
		const struct node *n = f[OPTIONS].v;
		read_want(x, n, N_SEQ, "options");
		c->options = xcalloc(n->n, sizeof *c->options);
		for (i = 0; i < n->n; i++) {
			s = read_text(x, n->kid[i], "options");
			options_check(&x->t, n->kid[i], s);
			c->options[c->noptions++] = xstrdup(s);
		}
	}

	get_sizes(x, f[SIZES].v);
	get_params(x, f[PARAMS].v);

	if (f[CONSTRAINTS].v) {
		const struct node *n = f[CONSTRAINTS].v;
		read_want(x, n, N_SEQ, "constraints");
		c->constraints = xcalloc(n->n, sizeof *c->constraints);
		for (i = 0; i < n->n; i++) {
			struct constraint *k = &c->constraints[c->nconstraints++];
			k->loc = read_loc(n->kid[i]);
			read_expr(x, n->kid[i], "constraints", &x->all, &k->e);
		}
	}

	get_buffers(x, f[BUFFERS].v);
	if (f[CONSTANTS].v)
		get_constants(x, f[CONSTANTS].v);
	check_int_fills(x, f[BUFFERS].v, f[CONSTANTS].v);
	get_args(x, f[ARGS].v, &c->kernel, &x->all);
	get_launch(x, f[LAUNCH].v, &c->kernel.launch, &x->all);
	read_expr(x, f[BYTES].v, "bytes", &x->all, &c->bytes);
	get_reference(x, f[REFERENCE].v);

	c->rtol = 1e-5;
	c->atol = 1e-6;
	if (f[TOLERANCE].v) {
		struct field t[] = {OPT("rel", D_RESULT), OPT("abs", D_RESULT)};
		read_fields(x, f[TOLERANCE].v, "tolerance", t, LEN(t));
		for (i = 0; i < LEN(t); i++) {
			double d;
			if (!t[i].v)
				continue;
			d = read_double(x, t[i].v, t[i].key);
			if (d < 0)
				read_err(x, t[i].v, "'%s' must not be negative", t[i].key);
			*(i ? &c->atol : &c->rtol) = d;
		}
	}

	c->warmup = 3;
	c->samples = 20;
	c->flush_l2 = 1;
	c->tie = 0.005;
	c->playoff = 5;
	if (f[TIMING].v) {
		struct field t[] = {OPT("warmup", D_RESULT), OPT("samples", D_RESULT),
		                    OPT("flush_l2", D_RESULT), OPT("tie", D_NONE),
		                    OPT("playoff", D_NONE)};
		read_fields(x, f[TIMING].v, "timing", t, LEN(t));
		if (t[0].v)
			c->warmup = (int)read_int(x, t[0].v, "warmup", 0, CFG_WARMUP_MAX);
		if (t[1].v)
			c->samples = (int)read_int(x, t[1].v, "samples", 1, CFG_SAMPLES_MAX);
		if (t[2].v)
			c->flush_l2 = read_bool(x, t[2].v, "flush_l2");
		if (t[3].v) {
			c->tie = read_double(x, t[3].v, "tie");
			if (!(c->tie >= 0 && c->tie <= CFG_TIE_MAX))
				read_err(x, t[3].v, "'tie' must be a fraction from 0 to %g (0.005: "
				         "medians within 0.5 %% tie)", CFG_TIE_MAX);
		}
		if (t[4].v)
			c->playoff = (int)read_int(x, t[4].v, "playoff", 0, CFG_PLAYOFF_MAX);
	}
	if (f[ACCESSES].v)
		get_accesses(x, f[ACCESSES].v);
	if (f[VERIFY].v)
		get_verify(x, f[VERIFY].v);
	c->result_digest = result_digest(x->t.root);
}

/* ---- interface ---- */

/* cfg_parse, with the source paths checked unless detached */
static struct config *parse_text(const char *path, const char *text, size_t len, int detached,
                                 char *err, size_t errlen)
{
	struct reader *x = xcalloc(1, sizeof *x); /* lives in memory across the longjmp */
	struct config *c = NULL;

	x->detached = detached;
	x->t.path = path;
	x->t.text = text;
	x->t.len = len;
	if (setjmp(x->t.fail) == 0) {
		x->dir = path_dir(path);
		x->c = xcalloc(1, sizeof *x->c);
		x->c->path = xstrdup(path);
		vars_set(&x->sizes, CFG_SMS, 0); /* set by the tuner */
		vars_set(&x->all, CFG_SMS, 0);
		yamltree_parse(&x->t);
		walk(x);
		c = x->c;
		x->c = NULL;
	} else if (errlen > 0) {
		snprintf(err, errlen, "%s", x->t.err);
	}
	ctx_free(x);
	free(x);
	return c;
}

struct config *cfg_parse(const char *path, const char *text, size_t len, char *err,
                         size_t errlen)
{
	return parse_text(path, text, len, 0, err, errlen);
}

struct config *cfg_parse_detached(const char *path, const char *text, size_t len, char *err,
                                  size_t errlen)
{
	return parse_text(path, text, len, 1, err, errlen);
}

struct config *cfg_load(const char *path)
{
	size_t len, errlen = strlen(path) + 64 + YAMLTREE_MSG_MAX;
	char *text = file_read_max(path, MAXBYTES, &len), *err;
	struct config *c;

	if (!text)
		fatal("%s: cannot read config:", path);
	if (len > MAXBYTES) {
		free(text);
		fatal("%s: more than %d bytes: too large for a config", path, MAXBYTES);
	}
	err = xmalloc(errlen);
	c = cfg_parse(path, text, len, err, errlen);
	free(text);
	if (!c)
		fatal("%s", err);
	free(err);
	return c;
}

void cfg_set_size(struct config *c, const char *assign)
{
	const char *eq = strchr(assign, '=');
	size_t i, n;
	int64_t v;

	if (!eq || eq == assign)
		fatal("size '%s' must be name=value", assign);
	n = (size_t)(eq - assign);
	for (i = 0; i < c->nsizes; i++) {
		if (strlen(c->sizes[i].name) != n || strncmp(c->sizes[i].name, assign, n))
			continue;
		switch (read_i64(eq + 1, &v)) {
		case -2:
			fatal("size '%s': '%s' is out of range (at most %lld)", c->sizes[i].name, eq + 1,
			      (long long)INT64_MAX);
		case -1:
			fatal("size '%s': '%s' is not an integer (decimal, or hexadecimal with 0x)",
			      c->sizes[i].name, eq + 1);
		}
		if (v < 0)
			fatal("size '%s': '%s' is negative", c->sizes[i].name, eq + 1);
		c->sizes[i].val = v;
		for (i = 0; i < c->nparams; i++) { /* drop values of the old sizes */
			if (!c->params[i].items)
				continue;
			free(c->params[i].vals);
			c->params[i].vals = NULL;
			c->params[i].nvals = 0;
		}
		return;
	}
	fatal("unknown size '%.*s'", (int)n, assign);
}

/* " with n=4096, m=2": the sizes p's expressions use, as v binds them; "" if none (malloc'd) */
static char *sizes_note(const struct config *c, const struct param *p, const struct vars *v)
{
	struct buf b = {0};
	size_t i, k;
	int64_t val;

	buf_puts(&b, "");
	for (i = 0; i < c->nsizes; i++) {
		for (k = 0; k < p->nitems; k++)
			if (p->items[k].e && expr_uses(p->items[k].e, c->sizes[i].name))
				break;
		if (k < p->nitems && vars_get(v, c->sizes[i].name, &val))
			buf_printf(&b, "%s%s=%lld", b.len ? ", " : " with ", c->sizes[i].name,
			           (long long)val);
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

void cfg_eval_params(struct config *c)
{
	struct vars v = {0};
	size_t i;

	cfg_size_vars(c, 1, &v); /* parameter values may not use SMS */
	for (i = 0; i < c->nparams; i++) {
		struct param *p = &c->params[i];
		if (!p->items)
			continue;
		free(p->vals);
		p->vals = NULL;
		p->nvals = 0;
		p->vals = cfg_param_vals(c, i, &v, 1, &p->nvals);
	}
}

void cfg_size_vars(const struct config *c, int64_t sms, struct vars *v)
{
	size_t i;

	vars_set(v, CFG_SMS, sms);
	for (i = 0; i < c->nsizes; i++)
		vars_set(v, c->sizes[i].name, c->sizes[i].val);
}

size_t elem_size(enum elem t)
{
	if ((size_t)t >= LEN(elem_bytes))
		die("bad element type %d", (int)t);
	return elem_bytes[t];
}

const char *elem_name(enum elem t)
{
	if ((size_t)t >= LEN(elem_c))
		die("bad element type %d", (int)t);
	return elem_c[t];
}
