/* libFuzzer target: the expression parser and evaluator on arbitrary bytes.
 * The input up to its first nul is an expression; when it parses it is evaluated with a few
 * names bound (and again with the names unbound), printed as C, searched for names, and bound
 * to some of the names (expr_bind).
 * Checks: no crash, leak or hang, every error has a message and a column inside the text, and
 * the bound expression gives what the original gives, the same errors at the same columns. */
#include "expr.h"
#include "util.h"
#include "vars.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_err(const struct expr_err *e, size_t len)
{
	if (!e->msg[0] || e->col < 0 || (size_t)e->col > len || strchr(e->msg, '\n'))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *src = xstrndup((const char *)data, size);
	size_t len = strlen(src);
	struct expr_err err;
	struct vars v = {0}, none = {0};
	struct buf b = {0};
	struct expr *e;
	const char *name;
	int64_t r;
	int col;

	vars_set(&v, "n", 1000);
	vars_set(&v, "m", -7);
	vars_set(&v, "B", 256);
	vars_set(&v, "Z", 0);
	vars_set(&v, "BIG", INT64_MAX);
	vars_set(&v, "MIN", INT64_MIN);
	e = expr_parse(src, &err);
	if (!e) {
		check_err(&err, len);
		free(src);
		return 0;
	}
	if (strcmp(expr_src(e), src))
		abort();
	if (expr_eval(e, &v, &r, &err) < 0)
		check_err(&err, len);
	if (expr_eval(e, &none, &r, &err) < 0)
		check_err(&err, len);
	if (expr_unknown(e, &none, &col) && (col < 0 || (size_t)col >= len))
		abort();
	name = expr_unknown(e, &none, &col);
	if (name && !expr_uses(e, name))
		abort();
	expr_print_c(e, &v, &b);
	expr_print_c(e, NULL, &b);
	buf_free(&b);
	{
		struct vars some = {0};
		struct expr_err e2;
		struct expr *x;
		int64_t r2;
		int a, c;
		vars_set(&some, "n", 1000);
		vars_set(&some, "Z", 0);
		vars_set(&some, "MIN", INT64_MIN);
		x = expr_bind(e, &some);
		if (!x || strcmp(expr_src(x), src))
			abort();
		a = expr_eval(e, &v, &r, &err);
		c = expr_eval(x, &v, &r2, &e2);
		if (a != c || (a == 0 && r != r2) ||
		    (a < 0 && (err.col != e2.col || strcmp(err.msg, e2.msg))))
			abort();
		expr_free(x);
	}
	expr_free(e);
	free(src);
	return 0;
}
