/* expr: integer expressions for constraints, launch geometry, sizes; real arithmetic for
   floating-point kernel arguments. */
#include "expr.h"
#include "util.h"
#include "vars.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	NEST_MAX = 200,    /* parentheses, unary operators and calls inside one another */
	HEIGHT_MAX = 1000, /* tree height, which also bounds long chains like 1+1+...+1 */
	SHOW_MAX = 40,     /* bytes of a token or name quoted in a message */
};

enum tok {
	T_EOF, T_BAD, T_INT, T_FLT, T_NAME, T_LPAREN, T_RPAREN, T_COMMA,
	T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT, T_NOT,
	T_LT, T_LE, T_GT, T_GE, T_EQ, T_NE, T_AND, T_OR,
};

enum kind {
	N_INT, N_FLT, N_NAME, N_CALL, N_NEG, N_NOT,
	N_MUL, N_DIV, N_MOD, N_ADD, N_SUB,
	N_LT, N_LE, N_GT, N_GE, N_EQ, N_NE, N_AND, N_OR,
};

/* C spelling of each binary operator, indexed by enum kind */
static const char *const optext[] = {
	[N_MUL] = "*", [N_DIV] = "/", [N_MOD] = "%", [N_ADD] = "+", [N_SUB] = "-",
	[N_LT] = "<", [N_LE] = "<=", [N_GT] = ">", [N_GE] = ">=", [N_EQ] = "==", [N_NE] = "!=",
	[N_AND] = "&&", [N_OR] = "||",
};

enum func { F_CEIL_DIV, F_MIN, F_MAX, F_LOG2, F_XOR };

static const struct {
	const char *name;
	enum func fn;
	int min, max; /* argument count */
} funcs[] = {
	{"ceil_div", F_CEIL_DIV, 2, 2},
	{"min", F_MIN, 1, INT_MAX},
	{"max", F_MAX, 1, INT_MAX},
	{"log2", F_LOG2, 1, 1},
	{"xor", F_XOR, 2, 2},
};

struct node {
	enum kind kind;
	int col;     /* where it starts; the operator for operators */
	int height;  /* 1 for leaves */
	int64_t val; /* N_INT */
	double fval; /* N_FLT */
	int real;    /* its value is a double: a N_FLT, or arithmetic on one */
	char *name;  /* N_NAME */
	int hint;    /* N_NAME: where in a struct vars it was found last (a lookup tries it first) */
	const char *hname; /* N_NAME: the name there, as that struct vars held it */
	int fn;      /* N_CALL: index into funcs */
	int nkid;
	struct node *kid[]; /* operands in source order */
};

struct expr {
	char *src;
	struct node *root;
};

struct parser {
	const char *src;
	int pos;          /* first byte after the current token */
	enum tok tok;     /* current token */
	int col, len;     /* its column and length */
	uint64_t ival;    /* T_INT: value, at most 2^63 (for -9223372036854775808) */
	double fval;      /* T_FLT: value, finite */
	char bad[160];    /* T_BAD: what is wrong with it */
	int nest;         /* current nesting, limited to NEST_MAX */
	struct expr_err *err;
};

static void node_free(struct node *n)
{
	int i;

	if (!n)
		return;
	for (i = 0; i < n->nkid; i++)
		node_free(n->kid[i]);
	free(n->name);
	free(n);
}

static void vseterr(struct expr_err *err, int col, const char *fmt, va_list ap)
{
	err->col = col;
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
}

/* fill *err */
__attribute__((format(printf, 3, 4)))
static void seterr(struct expr_err *err, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vseterr(err, col, fmt, ap);
	va_end(ap);
}

/* parse error: fill *p->err and return NULL for the caller to pass on */
__attribute__((format(printf, 3, 4)))
static struct node *pfail(struct parser *p, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vseterr(p->err, col, fmt, ap);
	va_end(ap);
	return NULL;
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int hexval(int c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* scan an integer literal at p->col */
static void lex_int(struct parser *p)
{
	const char *s = p->src;
	const uint64_t lim = (uint64_t)1 << 63;
	int i = p->col, base = 10, digits = 0, big = 0, d;
	uint64_t v = 0;

	if (s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		base = 16;
		i += 2;
	}
	for (; (d = base == 16 ? hexval(s[i]) : is_digit(s[i]) ? s[i] - '0' : -1) >= 0; i++) {
		if (v > (lim - (uint64_t)d) / (uint64_t)base)
			big = 1;
		else
			v = v * (uint64_t)base + (uint64_t)d;
		digits++;
	}
	p->len = i - p->col;
	if (!digits || is_alpha(s[i]) || is_digit(s[i])) {
		while (is_alpha(s[i]) || is_digit(s[i]))
			i++;
		p->len = i - p->col;
		p->tok = T_BAD;
		snprintf(p->bad, sizeof p->bad, "invalid integer literal '%.*s'",
		         p->len > SHOW_MAX ? SHOW_MAX : p->len, s + p->col);
	} else if (big) {
		p->tok = T_BAD;
		snprintf(p->bad, sizeof p->bad, "integer literal out of range");
	} else {
		p->tok = T_INT;
		p->ival = v;
	}
}

/* scan a number at p->col: a floating-point literal (digits with a '.' or an exponent: 0.5,
   .5, 1e-3) or an integer */
static void lex_num(struct parser *p)
{
	const char *s = p->src;
	int i = p->col, flt = 0;
	char *t;

	if (s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		lex_int(p);
		return;
	}
	while (is_digit(s[i]))
		i++;
	if (s[i] == '.') {
		flt = 1;
		for (i++; is_digit(s[i]); i++)
			;
	}
	if ((s[i] == 'e' || s[i] == 'E') &&
	    (is_digit(s[i + 1]) || ((s[i + 1] == '+' || s[i + 1] == '-') && is_digit(s[i + 2])))) {
		flt = 1;
		for (i += 2; is_digit(s[i]); i++)
			;
	}
	if (!flt) {
		lex_int(p);
		return;
	}
	p->len = i - p->col;
	if (is_alpha(s[i]) || is_digit(s[i]) || s[i] == '.') {
		while (is_alpha(s[i]) || is_digit(s[i]) || s[i] == '.')
			i++;
		p->len = i - p->col;
		p->tok = T_BAD;
		snprintf(p->bad, sizeof p->bad, "invalid number '%.*s'",
		         p->len > SHOW_MAX ? SHOW_MAX : p->len, s + p->col);
		return;
	}
	t = xstrndup(s + p->col, (size_t)p->len);
	errno = 0;
	p->fval = strtod(t, NULL);
	if (errno == ERANGE || !isfinite(p->fval)) {
		p->tok = T_BAD;
		snprintf(p->bad, sizeof p->bad, "floating-point literal '%.*s' out of range",
		         p->len > SHOW_MAX ? SHOW_MAX : p->len, t);
	} else {
		p->tok = T_FLT;
	}
	free(t);
}

/* advance to the next token */
static void lex(struct parser *p)
{
	static const struct {
		char s[3];
		enum tok tok;
	} ops[] = {
		{"||", T_OR}, {"&&", T_AND}, {"==", T_EQ}, {"!=", T_NE}, {"<=", T_LE}, {">=", T_GE},
		{"(", T_LPAREN}, {")", T_RPAREN}, {",", T_COMMA}, {"+", T_PLUS}, {"-", T_MINUS},
		{"*", T_STAR}, {"/", T_SLASH}, {"%", T_PERCENT}, {"!", T_NOT}, {"<", T_LT},
		{">", T_GT},
	};
	const char *s = p->src;
	int i = p->pos;
	size_t k;

	while (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f' ||
	       s[i] == '\v')
		i++;
	p->col = i;
	p->len = 0;
	if (!s[i]) {
		p->tok = T_EOF;
	} else if (is_digit(s[i]) || (s[i] == '.' && is_digit(s[i + 1]))) {
		lex_num(p);
	} else if (is_alpha(s[i])) {
		while (is_alpha(s[i + p->len]) || is_digit(s[i + p->len]))
			p->len++;
		p->tok = T_NAME;
	} else {
		for (k = 0; k < LEN(ops); k++) {
			size_t n = strlen(ops[k].s);
			if (!strncmp(s + i, ops[k].s, n)) {
				p->tok = ops[k].tok;
				p->len = (int)n;
				break;
			}
		}
		if (k == LEN(ops)) {
			unsigned char c = (unsigned char)s[i];
			p->tok = T_BAD;
			p->len = 1;
			if (c > 0x20 && c < 0x7f)
				snprintf(p->bad, sizeof p->bad, "unexpected '%c'", c);
			else
				snprintf(p->bad, sizeof p->bad, "unexpected byte 0x%02x", c);
		}
	}
	p->pos = p->col + p->len;
}

/* error about the current token */
static struct node *unexpected(struct parser *p)
{
	if (p->tok == T_BAD)
		return pfail(p, p->col, "%s", p->bad);
	if (p->tok == T_EOF)
		return pfail(p, p->col, "unexpected end of expression");
	if (p->len > SHOW_MAX)
		return pfail(p, p->col, "unexpected '%.*s...'", SHOW_MAX, p->src + p->col);
	return pfail(p, p->col, "unexpected '%.*s'", p->len, p->src + p->col);
}

/* the current token is not the one wanted: say so, unless it is malformed itself */
static struct node *expected(struct parser *p, const char *what)
{
	if (p->tok == T_BAD)
		return unexpected(p);
	return pfail(p, p->col, "expected %s", what);
}

/* a node with nkid operands, which it takes over (and frees on failure) */
static struct node *mk(struct parser *p, enum kind kind, int col, int nkid, struct node **kid)
{
	struct node *n;
	int i, h = 0;

	for (i = 0; i < nkid; i++)
		if (kid[i]->height > h)
			h = kid[i]->height;
	if (h >= HEIGHT_MAX) {
		for (i = 0; i < nkid; i++)
			node_free(kid[i]);
		return pfail(p, col, "expression nested too deeply");
	}
	n = xmalloc(sizeof *n + (size_t)nkid * sizeof n->kid[0]);
	n->kind = kind;
	n->col = col;
	n->height = h + 1;
	n->val = 0;
	n->fval = 0;
	n->real = 0;
	for (i = 0; i < nkid; i++)
		n->real |= kid[i]->real;
	n->name = NULL;
	n->fn = 0;
	n->hint = 0;
	n->hname = NULL;
	n->nkid = nkid;
	for (i = 0; i < nkid; i++)
		n->kid[i] = kid[i];
	if (n->real && kind != N_NEG && kind != N_ADD && kind != N_SUB && kind != N_MUL &&
	    kind != N_DIV) {
		if (kind == N_CALL) /* the caller sets fn after: say it there */
			return n;
		pfail(p, col, "'%s' takes integers, not a floating-point value",
		      kind == N_NOT ? "!" : optext[kind]);
		node_free(n);
		return NULL;
	}
	return n;
}

/* enter one nesting level at col; 0 if that is too deep */
static int nest_in(struct parser *p, int col)
{
	if (p->nest >= NEST_MAX) {
		pfail(p, col, "expression nested too deeply");
		return 0;
	}
	p->nest++;
	return 1;
}

static struct node *parse_bin(struct parser *p, int level);

/* name '(' args ')', with the current token the '(' */
static struct node *parse_call(struct parser *p, int col, int len)
{
	struct node **args = NULL, *n;
	int nargs = 0, cap = 0, f;

	for (f = 0; f < (int)LEN(funcs); f++)
		if ((size_t)len == strlen(funcs[f].name) &&
		    !memcmp(p->src + col, funcs[f].name, (size_t)len))
			break;
	if (f == (int)LEN(funcs))
		return pfail(p, col, "unknown function '%.*s'", len > SHOW_MAX ? SHOW_MAX : len,
		             p->src + col);
	if (!nest_in(p, col))
		return NULL;
	lex(p);
	if (p->tok != T_RPAREN) {
		for (;;) {
			if (!(n = parse_bin(p, 0)))
				goto fail;
			if (nargs == cap) {
				cap = cap ? cap * 2 : 4;
				args = xreallocarray(args, (size_t)cap, sizeof *args);
			}
			args[nargs++] = n;
			if (p->tok == T_RPAREN)
				break;
			if (p->tok != T_COMMA) {
				expected(p, "',' or ')'");
				goto fail;
			}
			lex(p);
		}
	}
	if (nargs < funcs[f].min || nargs > funcs[f].max) {
		if (funcs[f].min == funcs[f].max)
			pfail(p, col, "'%s' takes %d argument%s, not %d", funcs[f].name, funcs[f].min,
			      funcs[f].min == 1 ? "" : "s", nargs);
		else
			pfail(p, col, "'%s' takes at least %d argument%s", funcs[f].name, funcs[f].min,
			      funcs[f].min == 1 ? "" : "s");
		goto fail;
	}
	p->nest--;
	lex(p);
	n = mk(p, N_CALL, col, nargs, args);
	free(args);
	if (n)
		n->fn = f;
	if (n && n->real) {
		node_free(n);
		return pfail(p, col, "'%s' takes integers, not a floating-point value",
		             funcs[f].name);
	}
	return n;
fail:
	while (nargs > 0)
		node_free(args[--nargs]);
	free(args);
	return NULL;
}

static struct node *parse_primary(struct parser *p)
{
	struct node *n;
	int col = p->col, len = p->len;

	switch (p->tok) {
	case T_INT:
		if (p->ival > INT64_MAX)
			return pfail(p, col, "integer literal out of range");
		n = mk(p, N_INT, col, 0, NULL);
		n->val = (int64_t)p->ival;
		lex(p);
		return n;
	case T_FLT:
		n = mk(p, N_FLT, col, 0, NULL);
		n->fval = p->fval;
		n->real = 1;
		lex(p);
		return n;
	case T_NAME:
		lex(p);
		if (p->tok == T_LPAREN)
			return parse_call(p, col, len);
		n = mk(p, N_NAME, col, 0, NULL);
		n->name = xstrndup(p->src + col, (size_t)len);
		return n;
	case T_LPAREN:
		if (!nest_in(p, col))
			return NULL;
		lex(p);
		if (!(n = parse_bin(p, 0)))
			return NULL;
		if (p->tok != T_RPAREN) {
			node_free(n);
			return expected(p, "')'");
		}
		p->nest--;
		lex(p);
		return n;
	default:
		return unexpected(p);
	}
}

static struct node *parse_unary(struct parser *p)
{
	struct node *n;
	enum tok t = p->tok;
	int col = p->col;

	if (t != T_MINUS && t != T_PLUS && t != T_NOT)
		return parse_primary(p);
	if (!nest_in(p, col))
		return NULL;
	lex(p);
	if (t == T_MINUS && p->tok == T_INT && p->ival == (uint64_t)1 << 63) {
		/* the one literal that only exists negated */
		n = mk(p, N_INT, col, 0, NULL);
		n->val = INT64_MIN;
		lex(p);
		p->nest--;
		return n;
	}
	if (!(n = parse_unary(p)))
		return NULL;
	p->nest--;
	if (t == T_PLUS)
		return n;
	return mk(p, t == T_MINUS ? N_NEG : N_NOT, col, 1, &n);
}

/* the binary operator t at precedence level (0 '||', 1 '&&', 2 comparisons, 3 '+', 4 '*'), or -1 */
static int binop(int level, enum tok t)
{
	switch (t) {
	case T_OR: return level == 0 ? N_OR : -1;
	case T_AND: return level == 1 ? N_AND : -1;
	case T_LT: return level == 2 ? N_LT : -1;
	case T_LE: return level == 2 ? N_LE : -1;
	case T_GT: return level == 2 ? N_GT : -1;
	case T_GE: return level == 2 ? N_GE : -1;
	case T_EQ: return level == 2 ? N_EQ : -1;
	case T_NE: return level == 2 ? N_NE : -1;
	case T_PLUS: return level == 3 ? N_ADD : -1;
	case T_MINUS: return level == 3 ? N_SUB : -1;
	case T_STAR: return level == 4 ? N_MUL : -1;
	case T_SLASH: return level == 4 ? N_DIV : -1;
	case T_PERCENT: return level == 4 ? N_MOD : -1;
	default: return -1;
	}
}

/* left-associative operators of one level; comparisons do not chain */
static struct node *parse_bin(struct parser *p, int level)
{
	struct node *kid[2];
	int k, col;

	if (level == 5)
		return parse_unary(p);
	if (!(kid[0] = parse_bin(p, level + 1)))
		return NULL;
	while ((k = binop(level, p->tok)) >= 0) {
		col = p->col;
		lex(p);
		if (!(kid[1] = parse_bin(p, level + 1))) {
			node_free(kid[0]);
			return NULL;
		}
		if (!(kid[0] = mk(p, (enum kind)k, col, 2, kid)))
			return NULL;
		if (level == 2 && binop(2, p->tok) >= 0) {
			node_free(kid[0]);
			return pfail(p, p->col, "comparisons cannot be chained");
		}
	}
	return kid[0];
}

struct expr *expr_parse(const char *src, struct expr_err *err)
{
	struct parser p = {0};
	struct expr_err dummy;
	struct node *root;
	struct expr *e;

	p.src = src;
	p.err = err ? err : &dummy;
	p.err->col = 0;
	p.err->msg[0] = '\0';
	if (strlen(src) > INT_MAX / 2) {
		seterr(p.err, 0, "expression too long");
		return NULL;
	}
	lex(&p);
	if (p.tok == T_EOF) {
		seterr(p.err, 0, "empty expression");
		return NULL;
	}
	if (!(root = parse_bin(&p, 0)))
		return NULL;
	if (p.tok != T_EOF) {
		node_free(root);
		unexpected(&p);
		return NULL;
	}
	e = xmalloc(sizeof *e);
	e->src = xstrdup(src);
	e->root = root;
	return e;
}

static int eval(const struct node *n, const struct vars *v, int64_t *out, struct expr_err *err);

static int eval_call(const struct node *n, const struct vars *v, int64_t *out,
                     struct expr_err *err)
{
	int64_t a, b, q;
	int i;

	if (eval(n->kid[0], v, &a, err) < 0)
		return -1;
	switch (funcs[n->fn].fn) {
	case F_CEIL_DIV:
		if (eval(n->kid[1], v, &b, err) < 0)
			return -1;
		if (b == 0) {
			seterr(err, n->col, "division by zero");
			return -1;
		}
		if (a == INT64_MIN && b == -1) {
			seterr(err, n->col, "overflow in 'ceil_div'");
			return -1;
		}
		/* cannot overflow: a remainder means |b| >= 2, so |q| < 2^62 */
		q = a / b;
		if (a % b != 0 && (a < 0) == (b < 0))
			q++;
		*out = q;
		return 0;
	case F_MIN:
	case F_MAX:
		for (i = 1; i < n->nkid; i++) {
			if (eval(n->kid[i], v, &b, err) < 0)
				return -1;
			if (funcs[n->fn].fn == F_MIN ? b < a : b > a)
				a = b;
		}
		*out = a;
		return 0;
	case F_LOG2:
		if (a <= 0) {
			seterr(err, n->col, "log2 of non-positive value %lld", (long long)a);
			return -1;
		}
		for (q = -1; a > 0; a >>= 1)
			q++;
		*out = q;
		return 0;
	case F_XOR:
		if (eval(n->kid[1], v, &b, err) < 0)
			return -1;
		*out = a ^ b;
		return 0;
	}
	die("bad function %d", n->fn);
}

static int overflow(const struct node *n, struct expr_err *err)
{
	seterr(err, n->col, "overflow in '%s'", n->kind == N_NEG ? "-" : optext[n->kind]);
	return -1;
}

static int eval(const struct node *n, const struct vars *v, int64_t *out, struct expr_err *err)
{
	int64_t a, b;

	switch (n->kind) {
	case N_INT:
		*out = n->val;
		return 0;
	case N_FLT:
		seterr(err, n->col, "floating-point value where an integer is needed");
		return -1;
	case N_NAME:
		/* the bank model evaluates the same expressions against many struct vars that bind
		   the same names in the same order: try where the name was found last (names are
		   unique in a struct vars, so a hit is the binding), first by the pointer there */
		if (v && n->hint < v->n && (v->name[n->hint] == n->hname ||
		                            !strcmp(v->name[n->hint], n->name))) {
			((struct node *)n)->hname = v->name[n->hint]; /* next time: no strcmp */
			*out = v->val[n->hint];
			return 0;
		}
		for (a = v ? v->n - 1 : -1; a >= 0; a--)
			if (!strcmp(v->name[a], n->name)) {
				((struct node *)n)->hint = (int)a; /* nodes are never const objects */
				((struct node *)n)->hname = v->name[a];
				*out = v->val[a];
				return 0;
			}
		seterr(err, n->col, "unknown name '%.*s'", SHOW_MAX, n->name);
		return -1;
	case N_CALL:
		return eval_call(n, v, out, err);
	default:
		break;
	}
	if (eval(n->kid[0], v, &a, err) < 0)
		return -1;
	switch (n->kind) {
	case N_NEG:
		if (a == INT64_MIN)
			return overflow(n, err);
		*out = -a;
		return 0;
	case N_NOT:
		*out = !a;
		return 0;
	case N_AND:
	case N_OR:
		if (n->kind == N_AND ? !a : a != 0) {
			*out = n->kind == N_OR;
			return 0;
		}
		if (eval(n->kid[1], v, &b, err) < 0)
			return -1;
		*out = b != 0;
		return 0;
	default:
		break;
	}
	if (eval(n->kid[1], v, &b, err) < 0)
		return -1;
	switch (n->kind) {
	case N_ADD:
		return __builtin_add_overflow(a, b, out) ? overflow(n, err) : 0;
	case N_SUB:
		return __builtin_sub_overflow(a, b, out) ? overflow(n, err) : 0;
	case N_MUL:
		return __builtin_mul_overflow(a, b, out) ? overflow(n, err) : 0;
	case N_DIV:
	case N_MOD:
		if (b == 0) {
			seterr(err, n->col, "division by zero");
			return -1;
		}
		if (a == INT64_MIN && b == -1)
			return overflow(n, err);
		*out = n->kind == N_DIV ? a / b : a % b;
		return 0;
	case N_LT: *out = a < b; return 0;
	case N_LE: *out = a <= b; return 0;
	case N_GT: *out = a > b; return 0;
	case N_GE: *out = a >= b; return 0;
	case N_EQ: *out = a == b; return 0;
	case N_NE: *out = a != b; return 0;
	default:
		die("bad expression node %d", (int)n->kind);
	}
}

int expr_eval(const struct expr *e, const struct vars *v, int64_t *out, struct expr_err *err)
{
	struct expr_err dummy;

	return eval(e->root, v, out, err ? err : &dummy);
}

/* n as a double: C's arithmetic, an integer operand converted; every result finite */
static int feval(const struct node *n, const struct vars *v, double *out, struct expr_err *err)
{
	double a, b = 0, r;
	int64_t x;

	if (!n->real) {
		if (eval(n, v, &x, err) < 0)
			return -1;
		*out = (double)x;
		return 0;
	}
	if (n->kind == N_FLT) {
		*out = n->fval;
		return 0;
	}
	if (feval(n->kid[0], v, &a, err) < 0 || (n->nkid > 1 && feval(n->kid[1], v, &b, err) < 0))
		return -1;
	switch (n->kind) {
	case N_NEG: r = -a; break;
	case N_ADD: r = a + b; break;
	case N_SUB: r = a - b; break;
	case N_MUL: r = a * b; break;
	case N_DIV:
		if (b == 0) {
			seterr(err, n->col, "division by zero");
			return -1;
		}
		r = a / b;
		break;
	default:
		die("bad floating-point expression node %d", (int)n->kind);
	}
	if (!isfinite(r))
		return overflow(n, err);
	*out = r;
	return 0;
}

int expr_eval_real(const struct expr *e, const struct vars *v, double *out,
                   struct expr_err *err)
{
	struct expr_err dummy;

	return feval(e->root, v, out, err ? err : &dummy);
}

static const struct node *first_flt(const struct node *n)
{
	const struct node *f;
	int i;

	if (n->kind == N_FLT)
		return n;
	for (i = 0; i < n->nkid; i++)
		if ((f = first_flt(n->kid[i])))
			return f;
	return NULL;
}

int expr_real(const struct expr *e, int *col)
{
	const struct node *f = first_flt(e->root);

	if (f && col)
		*col = f->col;
	return f != NULL;
}

static const struct node *unknown(const struct node *n, const struct vars *v)
{
	const struct node *u;
	int64_t x;
	int i;

	if (n->kind == N_NAME)
		return vars_get(v, n->name, &x) ? NULL : n;
	for (i = 0; i < n->nkid; i++)
		if ((u = unknown(n->kid[i], v)))
			return u;
	return NULL;
}

const char *expr_unknown(const struct expr *e, const struct vars *v, int *col)
{
	const struct node *u = unknown(e->root, v);

	if (!u)
		return NULL;
	if (col)
		*col = u->col;
	return u->name;
}

static int uses(const struct node *n, const char *name)
{
	int i;

	if (n->kind == N_NAME)
		return !strcmp(n->name, name);
	for (i = 0; i < n->nkid; i++)
		if (uses(n->kid[i], name))
			return 1;
	return 0;
}

int expr_uses(const struct expr *e, const char *name)
{
	return uses(e->root, name);
}

const char *expr_src(const struct expr *e)
{
	return e->src;
}

static void print_c(const struct node *n, const struct vars *subst, struct buf *b)
{
	const char *fn;
	char s[64];
	int64_t v;
	int i;

	switch (n->kind) {
	case N_FLT:
		for (i = 15; i < 17; i++) /* the shortest that reads back */
			if (snprintf(s, sizeof s, "%.*g", i, n->fval), strtod(s, NULL) == n->fval)
				break;
		if (i == 17)
			snprintf(s, sizeof s, "%.17g", n->fval);
		buf_puts(b, s);
		if (!strpbrk(s, ".e"))
			buf_puts(b, ".0");
		return;
	case N_INT:
		if (n->val == INT64_MIN)
			buf_puts(b, "(-9223372036854775807LL - 1)");
		else
			buf_printf(b, "%lldLL", (long long)n->val); /* only INT64_MIN is negative */
		return;
	case N_NAME:
		if (vars_get(subst, n->name, &v))
			buf_printf(b, v == INT64_MIN ? "(-9223372036854775807LL - 1)"
			              : v < 0 ? "(%lldLL)" : "%lldLL", (long long)v);
		else
			buf_puts(b, n->name);
		return;
	case N_NEG:
	case N_NOT:
		buf_puts(b, n->kind == N_NEG ? "(-" : "(!");
		print_c(n->kid[0], subst, b);
		buf_puts(b, ")");
		return;
	case N_CALL:
		if (funcs[n->fn].fn == F_LOG2) {
			buf_puts(b, "tuner_log2(");
			print_c(n->kid[0], subst, b);
			buf_puts(b, ")");
			return;
		}
		if (funcs[n->fn].fn == F_XOR) {
			buf_puts(b, "(");
			print_c(n->kid[0], subst, b);
			buf_puts(b, " ^ ");
			print_c(n->kid[1], subst, b);
			buf_puts(b, ")");
			return;
		}
		fn = funcs[n->fn].fn == F_CEIL_DIV ? "tuner_ceil_div(" :
		     funcs[n->fn].fn == F_MIN ? "tuner_min(" : "tuner_max(";
		/* two-argument helpers nest to the left: f(f(a, b), c); f(a) is just a */
		for (i = 1; i < n->nkid; i++)
			buf_puts(b, fn);
		print_c(n->kid[0], subst, b);
		for (i = 1; i < n->nkid; i++) {
			buf_puts(b, ", ");
			print_c(n->kid[i], subst, b);
			buf_puts(b, ")");
		}
		return;
	default:
		buf_puts(b, "(");
		print_c(n->kid[0], subst, b);
		buf_printf(b, " %s ", optext[n->kind]);
		print_c(n->kid[1], subst, b);
		buf_puts(b, ")");
		return;
	}
}

void expr_print_c(const struct expr *e, const struct vars *subst, struct buf *b)
{
	print_c(e->root, subst, b);
}

/* n under v (expr_bind) */
static struct node *bind(const struct node *n, const struct vars *v)
{
	struct node *c = xmalloc(sizeof *c + (size_t)n->nkid * sizeof c->kid[0]);
	struct expr_err err;
	int64_t x;
	int i, known = !n->real && n->kind != N_INT && n->kind != N_FLT;

	memcpy(c, n, sizeof *c);
	c->name = n->name ? xstrdup(n->name) : NULL;
	c->hint = 0;
	c->hname = NULL;
	c->height = 1;
	for (i = 0; i < n->nkid; i++) {
		c->kid[i] = bind(n->kid[i], v);
		known &= c->kid[i]->kind == N_INT;
		if (c->kid[i]->height >= c->height)
			c->height = c->kid[i]->height + 1;
	}
	if (n->kind == N_NAME ? vars_get(v, n->name, &x) : known && !eval(c, NULL, &x, &err)) {
		for (i = 0; i < c->nkid; i++)
			node_free(c->kid[i]);
		free(c->name);
		c->name = NULL;
		c->kind = N_INT;
		c->val = x;
		c->nkid = 0;
		c->height = 1;
	}
	return c;
}

struct expr *expr_bind(const struct expr *e, const struct vars *v)
{
	struct expr *b;

	if (!e)
		return NULL;
	b = xmalloc(sizeof *b);
	b->src = xstrdup(e->src);
	b->root = bind(e->root, v);
	return b;
}

void expr_free(struct expr *e)
{
	if (!e)
		return;
	node_free(e->root);
	free(e->src);
	free(e);
}

int expr_value(const struct expr *e, const struct vars *v, int64_t dflt, int64_t *out,
               const char *what, char *why, size_t whylen)
{
	struct expr_err err;

	if (!e) {
		*out = dflt;
		return 0;
	}
	if (expr_eval(e, v, out, &err) < 0) {
		say(why, whylen, "%s '%s': %s", what, expr_src(e), err.msg);
		return -1;
	}
	return 0;
}
