/* expr: integer expressions for constraints, launch geometry, sizes; real arithmetic for
   floating-point kernel arguments. */
#ifndef TUNER_EXPR_H
#define TUNER_EXPR_H

#include <stddef.h>
#include <stdint.h>

struct buf;
struct vars;

/*
 * Grammar (C precedence, all values int64_t, booleans are 0/1):
 *   expr  := or
 *   or    := and ('||' and)*          and := cmp ('&&' cmp)*
 *   cmp   := sum (('=='|'!='|'<'|'<='|'>'|'>=') sum)?
 *   sum   := prod (('+'|'-') prod)*   prod := unary (('*'|'/'|'%') unary)*
 *   unary := ('-'|'+'|'!') unary | primary
 *   primary := INT | NAME | NAME '(' expr (',' expr)* ')' | '(' expr ')'
 * Functions: ceil_div(a,b), min(a,b,...), max(a,b,...), log2(a) (floor, a>0),
 * xor(a,b) (bitwise, as C's ^ on two's complement).
 * '/' and '%' truncate toward zero as in C; overflow and division by zero are errors.
 * INT is decimal or 0x hex; a suffix k/M/G is not supported.
 * FLT (0.5, .5, 2., 1e-3) makes an expression real: '+ - * /' and unary '-' with a real
 * operand convert the other to double, as C does; the other operators and the functions take
 * integers only (a parse error). expr_eval fails on a real expression; expr_eval_real
 * evaluates any, and fails where a result is not finite or a divisor is 0.
 */

struct expr; /* opaque parsed expression */

/* an error with a 0-based column in the expression's source text */
struct expr_err {
	int col;
	char msg[160];
};

/* parse src; NULL and *err filled on a syntax error */
struct expr *expr_parse(const char *src, struct expr_err *err);
/* evaluate; 0 on success, -1 with *err (column of the failing operator/name) */
int expr_eval(const struct expr *e, const struct vars *v, int64_t *out, struct expr_err *err);
/* e as a double (C's arithmetic: integer operations stay integer); 0, or -1 with *err */
int expr_eval_real(const struct expr *e, const struct vars *v, double *out,
                   struct expr_err *err);
/* 1 if e holds a floating-point literal (*col gets the first's column) */
int expr_real(const struct expr *e, int *col);
/* first name used by e that is not in v (NULL if all known); *col gets its column */
const char *expr_unknown(const struct expr *e, const struct vars *v, int *col);
/* 1 if e uses name */
int expr_uses(const struct expr *e, const char *name);
/* the source text e was parsed from */
const char *expr_src(const struct expr *e);
/* append e as a C expression (long long literals; functions as tuner_ceil_div/min/max/log2);
   names bound in subst (may be NULL) are printed as their values, the rest as themselves */
void expr_print_c(const struct expr *e, const struct vars *subst, struct buf *b);
/* free e (NULL is fine) */
void expr_free(struct expr *e);
/* a copy of e (NULL for NULL) with each name v binds as its value and each integer operation
   on values alone worked out: expr_eval gives what it gives for e wherever v's bindings hold,
   the same errors at the same columns (an operation that fails is left in); its source text
   is e's */
struct expr *expr_bind(const struct expr *e, const struct vars *v);

/* e under v into *out (dflt when e is NULL); 0, or -1 with "what 'e': error" in why */
int expr_value(const struct expr *e, const struct vars *v, int64_t dflt, int64_t *out,
               const char *what, char *why, size_t whylen);

#endif
