/* read: a config's YAML tree read into struct config: typed values checked at their nodes. */
#include "read.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "util.h"

const char *read_show(struct reader *x, const char *s)
{
	return yamltree_show(&x->t, s);
}

noreturn void read_err_at(struct reader *x, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	yamltree_verr(&x->t, line, col, fmt, ap);
}

noreturn void read_err(struct reader *x, const struct node *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	yamltree_verr(&x->t, n->line, n->col, fmt, ap);
}

struct loc read_loc(const struct node *n)
{
	struct loc l = {n->line, n->col};
	return l;
}

void read_want(struct reader *x, const struct node *n, enum nkind k, const char *what)
{
	static const char *const kname[] = {"a scalar", "a list", "a mapping"};

	if (n->kind == k)
		return;
	if (yamltree_null(n))
		read_err(x, n, "missing value for '%s'", read_show(x, what));
	read_err(x, n, "'%s' must be %s", read_show(x, what), kname[k]);
}

void read_fields(struct reader *x, const struct node *m, const char *what, struct field *f,
                 size_t nf)
{
	size_t i, j;

	read_want(x, m, N_MAP, what);
	for (i = 0; i < m->n; i += 2) {
		for (j = 0; j < nf && strcmp(f[j].key, m->kid[i]->s); j++)
			;
		if (j == nf)
			read_err(x, m->kid[i], "unknown key '%s'", read_show(x, m->kid[i]->s));
		f[j].k = m->kid[i];
		f[j].v = m->kid[i + 1];
		f[j].v->dig = f[j].dig;
	}
	for (j = 0; j < nf; j++)
		if (f[j].req && !f[j].v)
			read_err(x, m, "missing required key '%s'", f[j].key);
}

const char *read_str(struct reader *x, const struct node *n, const char *what)
{
	if (n->kind == N_SCALAR && yamltree_null(n))
		read_err(x, n, "missing value for '%s'", read_show(x, what));
	if (n->kind != N_SCALAR)
		read_err(x, n, "'%s' must be a string", read_show(x, what));
	return n->s;
}

const char *read_text(struct reader *x, const struct node *n, const char *what)
{
	const char *s = read_str(x, n, what), *p;

	if (!*s)
		read_err(x, n, "'%s' must not be empty", read_show(x, what));
	for (p = s; *p && isspace((unsigned char)*p); p++)
		;
	if (!*p)
		read_err(x, n, "'%s' must not be blank", read_show(x, what));
	return s;
}

int read_is_ident(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	for (s++; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

const char *read_ident(struct reader *x, const struct node *n, const char *what)
{
	const char *s = read_text(x, n, what);

	if (!read_is_ident(s))
		read_err(x, n, "'%s' is not a valid identifier", read_show(x, s));
	if (!strcmp(s, CFG_SMS) && (!strcmp(what, "size") || !strcmp(what, "parameter")))
		read_err(x, n, "'%s' is the GPU's multiprocessor count, set by the tuner; choose "
		         "another name", CFG_SMS);
	return s;
}

int read_i64(const char *s, int64_t *out)
{
	const char *p = s + (*s == '-' || *s == '+');
	int base = p[0] == '0' && (p[1] == 'x' || p[1] == 'X') ? 16 : 10;
	char *end;
	long long v;

	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	v = strtoll(s, &end, base);
	if (*end || end == s)
		return -1;
	if (errno == ERANGE)
		return -2;
	*out = v;
	return 0;
}

int64_t read_int(struct reader *x, const struct node *n, const char *what, int64_t lo,
                 int64_t hi)
{
	int64_t v = 0;
	const char *s = read_str(x, n, what);
	int r = read_i64(s, &v);

	if (r == -1)
		read_err(x, n, "'%s' must be an integer, not '%s'", read_show(x, what), read_show(x, s));
	if (r == -2)
		read_err(x, n, "'%s' overflows a 64-bit integer", read_show(x, what));
	if (v < lo)
		read_err(x, n, "'%s' must be at least %lld", read_show(x, what), (long long)lo);
	if (v > hi)
		read_err(x, n, "'%s' must be at most %lld", read_show(x, what), (long long)hi);
	return v;
}

double read_double(struct reader *x, const struct node *n, const char *what)
{
	const char *s = read_str(x, n, what);
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || isspace((unsigned char)*s) || *end || !isfinite(v) || errno == ERANGE)
		read_err(x, n, "'%s' must be a finite number, not '%s'", read_show(x, what),
		         read_show(x, s));
	return v;
}

int read_bool(struct reader *x, const struct node *n, const char *what)
{
	const char *s = read_str(x, n, what);

	if (!strcmp(s, "true"))
		return 1;
	if (!strcmp(s, "false"))
		return 0;
	read_err(x, n, "'%s' must be true or false, not '%s'", read_show(x, what),
	         read_show(x, s));
}

int read_col(const struct node *n, int col)
{
	return n->block ? n->col : n->col + n->quoted + col;
}

int read_cut_expr(const struct node *n)
{
	const char *p;
	int open = 0;

	if (n->kind != N_SCALAR || !n->flow || n->quoted)
		return 0;
	for (p = n->s; *p; p++)
		open += (*p == '(') - (*p == ')');
	return open > 0;
}

/* read_expr, or with real set read_expr_real */
static void expr_any(struct reader *x, const struct node *n, const char *what,
                     const struct vars *v, struct expr **dst, int real)
{
	struct expr_err e = {0};
	const char *name;
	char buf[128];
	int64_t dummy;
	int col = 0;

	read_str(x, n, what);
	*dst = expr_parse(n->s, &e);
	if (*dst) {
		struct config *c = x->c;
		if (c->nat == x->capat) {
			x->capat = x->capat ? 2 * x->capat : 16;
			c->at = xreallocarray(c->at, x->capat, sizeof *c->at);
		}
		c->at[c->nat].e = *dst;
		c->at[c->nat].line = n->line;
		c->at[c->nat].col = read_col(n, 0);
		c->at[c->nat].block = n->block;
		c->nat++;
	} else {
		if (read_cut_expr(n)) /* "[ceil_div(n, B)]" is two YAML items: say so */
			read_err_at(x, n->line, read_col(n, e.col), "%s (in [...] or {...}, quote an "
			            "expression that contains ',')", e.msg);
		read_err_at(x, n->line, read_col(n, e.col), "%s", e.msg);
	}
	if (!real && expr_real(*dst, &col))
		read_err_at(x, n->line, read_col(n, col), "'%s' must be an integer expression: a "
		            "floating-point value here", read_show(x, what));
	name = expr_unknown(*dst, v, &col);
	if (!name)
		return;
	snprintf(buf, sizeof buf, "%s", name);
	if (v != &x->all && vars_get(&x->all, buf, &dummy))
		read_err_at(x, n->line, read_col(n, col), "parameter '%s' not allowed here (sizes only)",
		            read_show(x, buf));
	read_err_at(x, n->line, read_col(n, col), "unknown name '%s'", read_show(x, buf));
}

void read_expr(struct reader *x, const struct node *n, const char *what, const struct vars *v,
               struct expr **dst)
{
	expr_any(x, n, what, v, dst, 0);
}

void read_expr_real(struct reader *x, const struct node *n, const char *what,
                    const struct vars *v, struct expr **dst)
{
	expr_any(x, n, what, v, dst, 1);
}
