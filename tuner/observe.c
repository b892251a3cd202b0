/* observe: which parameter values a template's code can tell apart (observe.h). */
#include "observe.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "space.h"
#include "spec.h"
#include "util.h"

/* a conditional's expression: a parameter, another name (a macro or not: the same in every
   variant compared), `defined` of another name, a number, an operator */
enum nkind { N_NUM, N_PARAM, N_SYM, N_DEFINED, N_UNARY, N_BINARY, N_COND };

struct node {
	enum nkind kind;
	int op;                   /* N_UNARY: the character; N_BINARY: an index into binops */
	int64_t val;              /* N_NUM */
	size_t param;             /* N_PARAM */
	char *name;               /* N_SYM, N_DEFINED */
	struct node *a, *b, *c;
};

/* by precedence, lowest first: || && | ^ & (== !=) (< <= > >=) (<< >>) (+ -) (* / %) */
static const struct {
	const char *s;
	int prec;
} binops[] = {
	{"||", 1}, {"&&", 2}, {"|", 3}, {"^", 4}, {"&", 5}, {"==", 6}, {"!=", 6}, {"<=", 7},
	{">=", 7}, {"<<", 8}, {">>", 8}, {"<", 7}, {">", 7}, {"+", 9}, {"-", 9}, {"*", 10},
	{"/", 10}, {"%", 10},
};

struct observe {
	const struct config *c;
	char *hidden;             /* per parameter */
	struct node **cond;       /* the conditionals that name a hidden parameter */
	size_t ncond;
};

static int ident_start(int ch)
{
	return isalpha(ch) || ch == '_';
}

static int ident_char(int ch)
{
	return isalnum(ch) || ch == '_';
}

/* the parameter named [s, s + n), or -1 */
static long param_of(const struct config *c, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < c->nparams; i++)
		if (strlen(c->params[i].name) == n && !memcmp(c->params[i].name, s, n))
			return (long)i;
	return -1;
}

/* mark every parameter named in [s, e) seen (numbers skipped whole: 0x1F names nothing) */
static void see_names(const struct config *c, const char *s, const char *e, char *seen)
{
	while (s < e) {
		if (isdigit((unsigned char)*s) || (*s == '.' && s + 1 < e && isdigit((unsigned char)s[1]))) {
			while (s < e && (ident_char((unsigned char)*s) || *s == '.' ||
			                 ((*s == '+' || *s == '-') && strchr("eEpP", s[-1]))))
				s++;
		} else if (ident_start((unsigned char)*s)) {
			const char *b = s;
			long p;
			while (s < e && ident_char((unsigned char)*s))
				s++;
			if ((p = param_of(c, b, (size_t)(s - b))) >= 0)
				seen[p] = 1;
		} else
			s++;
	}
}

/* ---- the template as logical lines: splices joined, comments and literals' contents out ---- */

/* the text of t with backslash-newlines removed, comments as one space and the contents of
   string and character literals dropped (the quotes kept); NULL where this reader cannot
   tell (a raw string, a literal not closed on its line, a comment not closed) */
static char *clean(const char *t)
{
	struct buf j = {0}, b = {0};
	const char *s;

	for (s = t; *s; s++) {
		if (s[0] == '\\' && s[1] == '\n')
			s++;
		else if (s[0] == '\\' && s[1] == '\r' && s[2] == '\n')
			s += 2;
		else
			buf_add(&j, s, 1);
	}
	buf_add(&j, NULL, 0);
	for (s = j.s ? j.s : ""; *s;) {
		if (s[0] == '/' && s[1] == '*') {
			const char *e = strstr(s + 2, "*/");
			if (!e)
				goto fail;
			for (s += 2; s < e; s++) /* keep the lines where they were */
				if (*s == '\n')
					buf_add(&b, "\n", 1);
			buf_add(&b, " ", 1);
			s = e + 2;
		} else if (s[0] == '/' && s[1] == '/') {
			while (*s && *s != '\n')
				s++;
			buf_add(&b, " ", 1);
		} else if (*s == '"' || *s == '\'') {
			char q = *s;
			/* R"(...)" and a digit separator (1'000) are beyond this reader */
			if (s > j.s && (ident_char((unsigned char)s[-1])))
				goto fail;
			for (s++; *s && *s != q && *s != '\n'; s++)
				if (*s == '\\' && s[1] && s[1] != '\n')
					s++;
			if (*s != q)
				goto fail;
			s++;
			buf_add(&b, &q, 1);
			buf_add(&b, &q, 1);
		} else {
			buf_add(&b, s, 1);
			s++;
		}
	}
	buf_add(&b, NULL, 0);
	buf_free(&j);
	return b.s;
fail:
	buf_free(&j);
	buf_free(&b);
	return NULL;
}

/* ---- conditional expressions ---- */

/* what one conditional may hold: its operators nested, its nodes in all (deeper or larger
   is beyond this reader, and would take the stack) */
enum { NEST_MAX = 200, NODES_MAX = 4000 };
/* and every conditional that names a hidden parameter, in all (more: none is hidden); the
   values of one parameter tried for another's (more: the variant's own stays) */
enum { COND_NODES_MAX = 20000, TRY_MAX = 64 };

struct parser {
	const struct config *c;
	const char *s;
	int bad;
	int nest, nodes;
};

static void skip_ws(struct parser *p)
{
	while (*p->s == ' ' || *p->s == '\t' || *p->s == '\r' || *p->s == '\f' || *p->s == '\v')
		p->s++;
}

static struct node *mk(struct parser *p, enum nkind k)
{
	struct node *n = xcalloc(1, sizeof *n);

	n->kind = k;
	if (++p->nodes > NODES_MAX)
		p->bad = 1;
	return n;
}

static void node_free(struct node *n)
{
	if (!n)
		return;
	node_free(n->a);
	node_free(n->b);
	node_free(n->c);
	free(n->name);
	free(n);
}

static struct node *cond_expr(struct parser *p);

/* a literal: decimal, 0x, 0b or octal, an l/ll suffix; an unsigned or too large one is bad */
static struct node *number(struct parser *p)
{
	const char *s = p->s;
	int base = 10;
	uint64_t v = 0;
	struct node *n;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, s += 2;
	else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
		base = 2, s += 2;
	else if (s[0] == '0')
		base = 8;
	if (!isxdigit((unsigned char)*s))
		return p->bad = 1, NULL;
	for (; isxdigit((unsigned char)*s); s++) {
		int d = isdigit((unsigned char)*s) ? *s - '0' : tolower((unsigned char)*s) - 'a' + 10;
		if (d >= base || v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return p->bad = 1, NULL;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	if (*s == 'l' || *s == 'L')
		s += s[1] == s[0] ? 2 : 1;
	if (ident_char((unsigned char)*s) || *s == '.' || v > INT64_MAX)
		return p->bad = 1, NULL;
	p->s = s;
	n = mk(p, N_NUM);
	n->val = (int64_t)v;
	return n;
}

/* an identifier at p->s: its length */
static size_t ident_len(const char *s)
{
	size_t n = 0;

	if (!ident_start((unsigned char)*s))
		return 0;
	while (ident_char((unsigned char)s[n]))
		n++;
	return n;
}

static struct node *name_node(struct parser *p, const char *s, size_t len, int defined)
{
	long k = param_of(p->c, s, len);
	struct node *n;

	if (defined && k >= 0) { /* the tuner defines every parameter */
		n = mk(p, N_NUM);
		n->val = 1;
	} else if (k >= 0) {
		n = mk(p, N_PARAM);
		n->param = (size_t)k;
	} else {
		n = mk(p, defined ? N_DEFINED : N_SYM);
		n->name = xstrndup(s, len);
	}
	return n;
}

static struct node *primary(struct parser *p)
{
	size_t len;
	struct node *n;

	skip_ws(p);
	if (isdigit((unsigned char)*p->s))
		return number(p);
	if (*p->s == '(') {
		p->s++;
		n = cond_expr(p);
		skip_ws(p);
		if (p->bad || *p->s != ')')
			return p->bad = 1, n;
		p->s++;
		return n;
	}
	if (!(len = ident_len(p->s)))
		return p->bad = 1, NULL;
	if (len == 7 && !memcmp(p->s, "defined", 7)) {
		int paren;
		p->s += 7;
		skip_ws(p);
		paren = *p->s == '(';
		if (paren)
			p->s++, skip_ws(p);
		if (!(len = ident_len(p->s)))
			return p->bad = 1, NULL;
		n = name_node(p, p->s, len, 1);
		p->s += len;
		skip_ws(p);
		if (paren && *p->s != ')')
			p->bad = 1;
		else if (paren)
			p->s++;
		return n;
	}
	if ((len == 4 && !memcmp(p->s, "true", 4)) || (len == 5 && !memcmp(p->s, "false", 5))) {
		n = mk(p, N_NUM);
		n->val = len == 4;
		p->s += len;
		return n;
	}
	n = name_node(p, p->s, len, 0);
	p->s += len;
	skip_ws(p);
	if (*p->s == '(') /* a function-like macro: beyond this reader */
		p->bad = 1;
	return n;
}

static struct node *unary(struct parser *p)
{
	struct node *n;

	skip_ws(p);
	if ((*p->s == '-' || *p->s == '+' || *p->s == '!' || *p->s == '~')) {
		if (++p->nest > NEST_MAX || p->bad)
			return p->bad = 1, NULL;
		n = mk(p, N_UNARY);
		n->op = *p->s++;
		n->a = unary(p);
		p->nest--;
		return n;
	}
	return primary(p);
}

/* the binary operator at p->s of at least precedence min: its index, or -1 */
static int binop_at(const char *s, int min)
{
	size_t i;

	for (i = 0; i < LEN(binops); i++) {
		size_t l = strlen(binops[i].s);
		if (strncmp(s, binops[i].s, l))
			continue;
		/* "<" is not "<<" or "<=", "&" not "&&", "|" not "||" */
		if (l == 1 && (s[1] == s[0] || s[1] == '=') && strchr("<>&|", s[0]))
			continue;
		return binops[i].prec >= min ? (int)i : -1;
	}
	return -1;
}

static struct node *binary(struct parser *p, int min)
{
	struct node *l = unary(p), *n;
	int op;

	for (;;) {
		skip_ws(p);
		if (p->bad || !l || (op = binop_at(p->s, min)) < 0)
			return l;
		p->s += strlen(binops[op].s);
		n = mk(p, N_BINARY);
		n->op = op;
		n->a = l;
		n->b = binary(p, binops[op].prec + 1);
		l = n;
	}
}

static struct node *cond_expr(struct parser *p)
{
	struct node *n, *q;

	if (++p->nest > NEST_MAX || p->bad) {
		p->bad = 1;
		return NULL;
	}
	n = binary(p, 1);
	p->nest--;

	skip_ws(p);
	if (p->bad || *p->s != '?')
		return n;
	p->s++;
	q = mk(p, N_COND);
	q->a = n;
	q->b = cond_expr(p);
	skip_ws(p);
	if (p->bad || *p->s != ':')
		return p->bad = 1, q;
	p->s++;
	q->c = cond_expr(p);
	return q;
}

/* [s, e) parsed, or NULL where this reader cannot */
static struct node *parse(const struct config *c, const char *s, const char *e, int *nodes)
{
	char *t = xstrndup(s, (size_t)(e - s));
	struct parser p = {c, t, 0, 0, 0};
	struct node *n = cond_expr(&p);

	skip_ws(&p);
	if (p.bad || *p.s) {
		node_free(n);
		n = NULL;
	}
	free(t);
	*nodes = p.nodes;
	return n;
}

static int names_hidden(const struct node *n, const char *hidden)
{
	return n && ((n->kind == N_PARAM && hidden[n->param]) || names_hidden(n->a, hidden) ||
	             names_hidden(n->b, hidden) || names_hidden(n->c, hidden));
}

/* ---- evaluation as far as the values go ---- */

/* a op b into *v: 1, or 0 where C leaves it undefined or an error (the caller writes it) */
static int fold(int op, int64_t a, int64_t b, int64_t *v)
{
	const char *s = binops[op].s;

	switch (s[0]) {
	case '+': return !__builtin_add_overflow(a, b, v);
	case '-': return !__builtin_sub_overflow(a, b, v);
	case '*': return !__builtin_mul_overflow(a, b, v);
	case '/':
	case '%':
		if (b == 0 || (a == INT64_MIN && b == -1))
			return 0;
		*v = s[0] == '/' ? a / b : a % b;
		return 1;
	case '<':
	case '>':
		if (s[1] == s[0]) { /* a shift */
			if (b < 0 || b > 63 || (s[0] == '<' && (a < 0 || a > (INT64_MAX >> b))))
				return 0;
			*v = s[0] == '<' ? a << b : a >> b;
		} else if (s[1] == '=')
			*v = s[0] == '<' ? a <= b : a >= b;
		else
			*v = s[0] == '<' ? a < b : a > b;
		return 1;
	case '=': *v = a == b; return 1;
	case '!': *v = a != b; return 1;
	case '&': *v = a & b; return 1;
	case '|': *v = a | b; return 1;
	case '^': *v = a ^ b; return 1;
	}
	return 0;
}

static int pe(const struct node *n, const int64_t *vals, int64_t *v, struct buf *r);

/* n evaluated, its constant or residual appended to r */
static void pe_text(const struct node *n, const int64_t *vals, struct buf *r)
{
	int64_t v;

	if (pe(n, vals, &v, r))
		buf_printf(r, "#%lld", (long long)v);
}

/* n under vals: 1 with its value in *v, or 0 with what is left of it appended to r (the
   names the tuner does not define, and where C's arithmetic fails, the failing operation) */
static int pe(const struct node *n, const int64_t *vals, int64_t *v, struct buf *r)
{
	int64_t a, b;
	struct buf ra = {0};
	int ka;

	switch (n->kind) {
	case N_NUM: *v = n->val; return 1;
	case N_PARAM: *v = vals[n->param]; return 1;
	case N_SYM: buf_puts(r, n->name); return 0;
	case N_DEFINED: buf_printf(r, "defined(%s)", n->name); return 0;
	case N_UNARY:
		if (!pe(n->a, vals, &a, &ra)) {
			buf_printf(r, "(%c%s)", n->op, ra.s);
			buf_free(&ra);
			return 0;
		}
		if (n->op == '-' && a == INT64_MIN) {
			buf_printf(r, "(!E-%lld)", (long long)a);
			return 0;
		}
		*v = n->op == '-' ? -a : n->op == '!' ? !a : n->op == '~' ? ~a : a;
		return 1;
	case N_COND:
		if (pe(n->a, vals, &a, &ra))
			return pe(a ? n->b : n->c, vals, v, r);
		buf_printf(r, "(%s?", ra.s);
		pe_text(n->b, vals, r);
		buf_puts(r, ":");
		pe_text(n->c, vals, r);
		buf_puts(r, ")");
		buf_free(&ra);
		return 0;
	case N_BINARY:
		break;
	}
	ka = pe(n->a, vals, &a, &ra);
	if (ka && (!strcmp(binops[n->op].s, "&&") || !strcmp(binops[n->op].s, "||"))) {
		int or = binops[n->op].s[0] == '|';
		if (or ? a != 0 : a == 0) /* decided: the right side is not evaluated */
			return *v = or, 1;
		if (pe(n->b, vals, &b, &ra))
			return *v = b != 0, 1;
		buf_printf(r, "(!!%s)", ra.s); /* the right side's residual, as a truth value */
		buf_free(&ra);
		return 0;
	}
	if (ka) {
		struct buf rb = {0};
		if (pe(n->b, vals, &b, &rb)) {
			if (fold(n->op, a, b, v))
				return 1;
			buf_printf(r, "(!E%lld%s%lld)", (long long)a, binops[n->op].s, (long long)b);
			return 0;
		}
		buf_printf(r, "(#%lld%s%s)", (long long)a, binops[n->op].s, rb.s);
		buf_free(&rb);
		return 0;
	}
	buf_printf(r, "(%s%s", ra.s, binops[n->op].s);
	buf_free(&ra);
	pe_text(n->b, vals, r);
	buf_puts(r, ")");
	return 0;
}

/* every kept conditional's residual under vals into sig */
static void signature(const struct observe *o, const int64_t *vals, struct buf *sig)
{
	size_t i;

	sig->len = 0;
	for (i = 0; i < o->ncond; i++) {
		int64_t v;
		if (pe(o->cond[i], vals, &v, sig)) /* a decided one: only whether it holds counts */
			buf_puts(sig, v ? "1" : "0");
		buf_add(sig, "\n", 1);
	}
	buf_add(sig, NULL, 0);
}

/* ---- the analysis ---- */

/* the directive named at s (after '#'): its name's length, *s moved past it */
static size_t directive(const char **s, const char **name)
{
	size_t n;

	while (**s == ' ' || **s == '\t')
		(*s)++;
	*name = *s;
	n = ident_len(*s);
	*s += n;
	return n;
}

static int is(const char *name, size_t n, const char *w)
{
	return strlen(w) == n && !memcmp(name, w, n);
}

struct observe *observe_new(const struct config *c, const char *tmpl)
{
	struct observe *o = xcalloc(1, sizeof *o);
	char *seen = xcalloc(c->nparams + 1, 1), *text = clean(tmpl);
	struct node **all = NULL;
	int *size = NULL, nodes = 0;
	size_t nall = 0, i;
	const char *s, *e;
	int ok = text != NULL;

	o->c = c;
	o->hidden = xcalloc(c->nparams + 1, 1);
	for (s = text; ok && *s; s = *e ? e + 1 : e) {
		const char *p = s, *name;
		size_t n;
		e = strchr(s, '\n');
		if (!e)
			e = s + strlen(s);
		while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v'))
			p++;
		if (p == e || *p != '#') {
			see_names(c, s, e, seen);
			continue;
		}
		p++;
		n = directive(&p, &name);
		if (is(name, n, "if") || is(name, n, "elif")) {
			int k;
			struct node *x = parse(c, p, e, &k);
			if (!x)
				see_names(c, p, e, seen);
			else {
				all = xreallocarray(all, nall + 1, sizeof *all);
				size = xreallocarray(size, nall + 1, sizeof *size);
				size[nall] = k;
				all[nall++] = x;
			}
		} else if (is(name, n, "ifdef") || is(name, n, "ifndef") || is(name, n, "error") ||
		           is(name, n, "warning")) {
			/* a parameter is always defined; #error does not expand its text */
		} else if (is(name, n, "include") || is(name, n, "include_next") ||
		           is(name, n, "import") || is(name, n, "embed") ||
		           is(name, n, "elifdef") || is(name, n, "elifndef")) {
			ok = 0; /* another file, or a directive this reader does not model */
		} else
			see_names(c, s, e, seen);
	}
	for (i = 0; ok && i < c->noptions; i++)
		see_names(c, c->options[i], c->options[i] + strlen(c->options[i]), seen);
	for (i = 0; ok && i < c->nparams; i++)
		o->hidden[i] = !seen[i] && c->params[i].vals && c->params[i].nvals > 1;
	for (i = 0; ok && i < nall; i++)
		if (names_hidden(all[i], o->hidden) && (nodes += size[i]) > COND_NODES_MAX)
			ok = 0; /* too much to evaluate for every variant: none hidden */
	for (i = 0; !ok && i < c->nparams; i++)
		o->hidden[i] = 0;
	for (i = 0; i < nall; i++) {
		if (ok && names_hidden(all[i], o->hidden)) {
			o->cond = xreallocarray(o->cond, o->ncond + 1, sizeof *o->cond);
			o->cond[o->ncond++] = all[i];
		} else
			node_free(all[i]);
	}
	free(all);
	free(size);
	free(seen);
	free(text);
	return o;
}

int observe_hidden(const struct observe *o, size_t i)
{
	return o && i < o->c->nparams && o->hidden[i];
}

void observe_values(const struct observe *o, const int64_t *in, int64_t *out)
{
	const struct config *c = o->c;
	struct buf want = {0}, got = {0};
	size_t i, k;
	int any = 0;

	memcpy(out, in, c->nparams * sizeof *out);
	for (i = 0; i < c->nparams && !any; i++)
		any = o->hidden[i];
	if (!any)
		return;
	signature(o, in, &want);
	for (i = 0; i < c->nparams; i++) {
		const struct param *p = &c->params[i];
		int64_t mine = out[i];
		if (!o->hidden[i] || !p->vals)
			continue;
		for (k = 0; k < p->nvals && k < TRY_MAX && p->vals[k] != mine; k++) {
			out[i] = p->vals[k];
			signature(o, out, &got);
			if (got.len == want.len && !memcmp(got.s, want.s, got.len))
				break;
			out[i] = mine;
		}
	}
	buf_free(&want);
	buf_free(&got);
}

void observe_id(const struct observe *o, const int64_t *in, uint64_t id[2])
{
	size_t n = o->c->nparams * sizeof *in;
	int64_t *w = xcalloc(o->c->nparams + 1, sizeof *w);

	observe_values(o, in, w);
	id[0] = hash_bytes(HASH_INIT, w, n);
	id[1] = hash_bytes(HASH_INIT ^ 0x9e3779b97f4a7c15ull, w, n);
	if (!id[0] && !id[1]) /* 0, 0: no identity (compile.h) */
		id[1] = 1;
	free(w);
}

size_t observe_programs(const struct observe *o, const struct space *s)
{
	size_t cap = 16, n = 0, i, k;
	uint64_t (*set)[2], id[2];

	while (cap < 2 * s->nkept + 2)
		cap *= 2;
	set = xcalloc(cap, sizeof *set);
	for (i = 0; i < s->n; i++) {
		if (s->v[i].drop)
			continue;
		observe_id(o, s->v[i].vals, id);
		id[0] |= 1; /* never the empty slot */
		for (k = id[0] & (cap - 1); set[k][0] && (set[k][0] != id[0] || set[k][1] != id[1]);
		     k = (k + 1) & (cap - 1))
			;
		if (!set[k][0]) {
			set[k][0] = id[0];
			set[k][1] = id[1];
			n++;
		}
	}
	free(set);
	return n;
}

void observe_free(struct observe *o)
{
	size_t i;

	if (!o)
		return;
	for (i = 0; i < o->ncond; i++)
		node_free(o->cond[i]);
	free(o->cond);
	free(o->hidden);
	free(o);
}
