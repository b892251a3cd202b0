/* t_expr: parsing, evaluation, error columns and C output of expressions. */
#include "test.h"
#include "expr.h"
#include "util.h"
#include "vars.h"

#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((format(printf, 2, 3)))
static void failf(int line, const char *fmt, ...)
{
	char m[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	test_fail(__FILE__, line, m);
}

/* parse src and evaluate it under v, as a double with real set: expr_eval's result, or -2
   (reported) where src does not parse */
static int parse_eval(int line, const char *src, const struct vars *v, int real, int64_t *i,
                      double *d, struct expr_err *err)
{
	struct expr *e = expr_parse(src, err);
	int r;

	if (!e) {
		failf(line, "'%s': parse error at %d: %s", src, err->col, err->msg);
		return -2;
	}
	r = real ? expr_eval_real(e, v, d, err) : expr_eval(e, v, i, err);
	expr_free(e);
	return r;
}

/* parse and evaluate src under v; it must give want */
static void ev(int line, const char *src, const struct vars *v, int64_t want)
{
	struct expr_err err = {0};
	int64_t got = 0;
	int r = parse_eval(line, src, v, 0, &got, NULL, &err);

	if (r == -1)
		failf(line, "'%s': eval error at %d: %s", src, err.col, err.msg);
	else if (r == 0 && got != want)
		failf(line, "'%s' gave %lld, not %lld", src, (long long)got, (long long)want);
}

/* src must fail to parse with msg at col */
static void perr(int line, const char *src, int col, const char *msg)
{
	struct expr_err err = {0};
	struct expr *e = expr_parse(src, &err);

	if (e) {
		failf(line, "'%.60s' parsed; wanted '%s' at %d", src, msg, col);
		expr_free(e);
		return;
	}
	if (err.col != col || strcmp(err.msg, msg))
		failf(line, "'%.60s': got '%s' at %d, wanted '%s' at %d", src, err.msg, err.col, msg,
		      col);
}

/* src must parse and fail to evaluate under v (as a double with real set) with msg at col */
static void eerr_as(int line, const char *src, const struct vars *v, int real, int col,
                    const char *msg)
{
	struct expr_err err = {0};
	int64_t got = 0;
	double d = 0;
	int r = parse_eval(line, src, v, real, &got, &d, &err);

	if (r == 0)
		failf(line, "'%s' gave %lld (%g); wanted '%s' at %d", src, (long long)got, d, msg, col);
	else if (r == -1 && (err.col != col || strcmp(err.msg, msg)))
		failf(line, "'%s': got '%s' at %d, wanted '%s' at %d", src, err.msg, err.col, msg,
		      col);
}

static void eerr(int line, const char *src, const struct vars *v, int col, const char *msg)
{
	eerr_as(line, src, v, 0, col, msg);
}

/* src printed as C must be want */
static void pc(int line, const char *src, const char *want)
{
	struct expr_err err = {0};
	struct expr *e = expr_parse(src, &err);
	struct buf b = {0};

	if (!e) {
		failf(line, "'%s': parse error at %d: %s", src, err.col, err.msg);
		return;
	}
	expr_print_c(e, NULL, &b);
	if (!b.s || strcmp(b.s, want))
		failf(line, "'%s' printed as '%s', not '%s'", src, b.s ? b.s : "", want);
	buf_free(&b);
	expr_free(e);
}

#define EV(src, want) ev(__LINE__, src, NULL, want)
#define EVV(src, v, want) ev(__LINE__, src, v, want)
#define PERR(src, col, msg) perr(__LINE__, src, col, msg)
#define EERR(src, col, msg) eerr(__LINE__, src, NULL, col, msg)
#define EERRV(src, v, col, msg) eerr(__LINE__, src, v, col, msg)
#define PC(src, want) pc(__LINE__, src, want)

/* n copies of s followed by mid and n copies of t, malloc'd */
static char *nest(const char *s, int n, const char *mid, const char *t)
{
	size_t ls = strlen(s), lt = strlen(t), lm = strlen(mid);
	char *r = xmalloc((ls + lt) * (size_t)n + lm + 1), *q = r;
	int i;

	for (i = 0; i < n; i++, q += ls)
		memcpy(q, s, ls);
	memcpy(q, mid, lm);
	q += lm;
	for (i = 0; i < n; i++, q += lt)
		memcpy(q, t, lt);
	*q = '\0';
	return r;
}

TEST(expr_literals)
{
	EV("0", 0);
	EV("42", 42);
	EV("  7\t", 7);
	EV("007", 7);
	EV("0x1F", 31);
	EV("0XfF", 255);
	EV("0x0", 0);
	EV("9223372036854775807", INT64_MAX);
	EV("0x7fffffffffffffff", INT64_MAX);
	EV("-9223372036854775808", INT64_MIN);
	EV("- 0x8000000000000000", INT64_MIN);
	EV("-9223372036854775808 + 1", INT64_MIN + 1);
}

TEST(expr_precedence)
{
	EV("1 + 2 * 3", 7);
	EV("(1 + 2) * 3", 9);
	EV("2 * 3 + 4", 10);
	EV("1 + 6 / 2", 4);
	EV("10 - 2 * 3", 4);
	EV("8 - 4 / 2", 6);
	EV("1 + 7 % 4", 4);
	EV("1 + 2 < 4", 1);
	EV("2 * 2 == 4", 1);
	EV("1 < 2 && 3 < 2", 0);
	EV("1 || 0 && 0", 1);
	EV("0 && 0 || 1", 1);
	EV("-2 * 3", -6);
	EV("!0 + 1", 2);
	EV("-(2 + 3)", -5);
	EV("- -3", 3);
	EV("+5", 5);
	EV("-+-5", 5);
	EV("!!7", 1);
	EV("!5", 0);
	EV("!(1 - 1)", 1);
	EV("-2 - -2", 0);
	EV("((((3))))", 3);
}

TEST(expr_associativity)
{
	EV("10 - 3 - 2", 5);
	EV("2 - 3 + 4", 3);
	EV("2 * 3 % 4", 2);
	EV("7 % 4 * 3", 9);
	EV("100 / 10 / 5", 2);
	EV("64 / 4 * 2", 32);
	EV("10-3-2", 5);
}

TEST(expr_comparisons)
{
	EV("3 < 4", 1);
	EV("4 < 4", 0);
	EV("4 <= 4", 1);
	EV("5 <= 4", 0);
	EV("5 > 4", 1);
	EV("4 > 4", 0);
	EV("4 >= 4", 1);
	EV("3 >= 4", 0);
	EV("3 == 3", 1);
	EV("3 == 4", 0);
	EV("3 != 4", 1);
	EV("3 != 3", 0);
	EV("-1 < 0", 1);
	EV("(1 < 2) + (2 < 1) + (3 == 3)", 2);
}

TEST(expr_logic)
{
	EV("5 && 7", 1);
	EV("5 && 0", 0);
	EV("0 || 0", 0);
	EV("0 || 3", 1);
	EV("-2 || 0", 1);
	EV("0 && 1 / 0", 0);
	EV("1 || 1 / 0", 1);
	EV("0 && undefined_name", 0);
	EV("1 || 9223372036854775807 + 1", 1);
	EV("1 < 2 || log2(0)", 1);
	EERR("1 && 1 / 0", 7, "division by zero");
	EERR("0 || 1 % 0", 7, "division by zero");
}

TEST(expr_truncation)
{
	EV("7 / 2", 3);
	EV("-7 / 2", -3);
	EV("7 / -2", -3);
	EV("-7 / -2", 3);
	EV("7 % 2", 1);
	EV("-7 % 2", -1);
	EV("7 % -2", 1);
	EV("-7 % -2", -1);
	EV("-9223372036854775808 / 2", INT64_MIN / 2);
	EV("-9223372036854775808 % 3", INT64_MIN % 3);
}

TEST(expr_functions)
{
	EV("ceil_div(7, 2)", 4);
	EV("ceil_div(8, 2)", 4);
	EV("ceil_div(1, 1)", 1);
	EV("ceil_div(0, 5)", 0);
	EV("ceil_div(-7, 2)", -3);
	EV("ceil_div(7, -2)", -3);
	EV("ceil_div(-7, -2)", 4);
	EV("ceil_div(-8, -2)", 4);
	EV("ceil_div(9223372036854775807, 1)", INT64_MAX);
	EV("ceil_div(9223372036854775807, 2)", 4611686018427387904);
	EV("ceil_div(9223372036854775807, 9223372036854775807)", 1);
	EV("ceil_div(-9223372036854775808, 2)", -4611686018427387904);
	EV("ceil_div(-9223372036854775808, 9223372036854775807)", -1);
	EV("min(3)", 3);
	EV("min(3, 1, 2)", 1);
	EV("min(-1, 5)", -1);
	EV("max(3, 1, 2)", 3);
	EV("max(-5, -1, -9)", -1);
	EV("max(7)", 7);
	EV("log2(1)", 0);
	EV("log2(2)", 1);
	EV("log2(3)", 1);
	EV("log2(1023)", 9);
	EV("log2(1024)", 10);
	EV("log2(9223372036854775807)", 62);
	EV("max(1, min(4, ceil_div(10, 3)))", 4);
	EV("2 * min(1 + 1, 5) - max(0, -1)", 4);
	EERR("ceil_div(5, 0)", 0, "division by zero");
	EERR("1 + ceil_div(-9223372036854775808, -1)", 4, "overflow in 'ceil_div'");
	EERR("log2(0)", 0, "log2 of non-positive value 0");
	EERR("3 + log2(-4)", 4, "log2 of non-positive value -4");
	EERR("min(1, 2, 1 / 0)", 12, "division by zero");
	EV("xor(5, 3)", 6);
	EV("xor(0, 0)", 0);
	EV("xor(7, 7)", 0);
	EV("xor(31, 12) % 32", 19);
	EV("xor(-1, 0)", -1);
	EV("2 * xor(1, 2) + 1", 7);
	EV("xor(9223372036854775807, -9223372036854775807 - 1)", -1);
	EERR("xor(1, 2 / 0)", 9, "division by zero");
}

TEST(expr_vars)
{
	struct vars v = {0}, d = {0};
	int64_t x = 0;
	int i;

	vars_set(&v, "a", 1);
	vars_set(&v, "b", 2);
	CHECK_EQ(v.n, 2);
	vars_set(&v, "a", 5);
	CHECK_EQ(v.n, 2);
	CHECK(vars_get(&v, "a", &x));
	CHECK_EQ(x, 5);
	CHECK(vars_get(&v, "b", &x));
	CHECK_EQ(x, 2);
	CHECK(!vars_get(&v, "c", &x));
	CHECK(!vars_get(&v, "A", &x));
	EVV("a * b", &v, 10);
	EVV("a*a - b", &v, 23);
	EVV("ceil_div(a, b)", &v, 3);
	vars_set(&v, "_a1", 5);
	vars_set(&v, "B_2", 6);
	EVV("_a1 + B_2", &v, 11);

	/* newest first where a name appears twice */
	d.n = 2;
	d.name[0] = "x";
	d.val[0] = 1;
	d.name[1] = "x";
	d.val[1] = 2;
	CHECK(vars_get(&d, "x", &x));
	CHECK_EQ(x, 2);

	/* exactly VARS_MAX names fit */
	{
		static char names[VARS_MAX][16];
		struct vars f = {0};
		for (i = 0; i < VARS_MAX; i++) {
			snprintf(names[i], sizeof names[i], "v%d", i);
			vars_set(&f, names[i], i);
		}
		CHECK_EQ(f.n, VARS_MAX);
		vars_set(&f, "v0", 100);
		CHECK_EQ(f.n, VARS_MAX);
		CHECK(vars_get(&f, "v63", &x));
		CHECK_EQ(x, 63);
		EVV("v0 + v63", &f, 163);
	}
}

TEST(expr_vars_overfull_dies)
{
	pid_t pid;
	int st = 0;

	fflush(NULL);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		static char names[VARS_MAX + 1][16];
		struct vars f = {0};
		int i;
		if (!freopen("/dev/null", "w", stderr))
			_exit(3);
		for (i = 0; i <= VARS_MAX; i++) {
			snprintf(names[i], sizeof names[i], "v%d", i);
			vars_set(&f, names[i], i);
		}
		_exit(0);
	}
	if (pid > 0) {
		CHECK(waitpid(pid, &st, 0) == pid);
		CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	}
}

TEST(expr_parse_errors)
{
	char name[64];

	PERR("", 0, "empty expression");
	PERR("   ", 0, "empty expression");
	PERR("1 +", 3, "unexpected end of expression");
	PERR("-", 1, "unexpected end of expression");
	PERR("(1 + 2", 6, "expected ')'");
	PERR("((1)", 4, "expected ')'");
	PERR("(1 2)", 3, "expected ')'");
	PERR("(1 $", 3, "unexpected '$'");
	PERR("1 + 2)", 5, "unexpected ')'");
	PERR("1 2", 2, "unexpected '2'");
	PERR("a b", 2, "unexpected 'b'");
	PERR("()", 1, "unexpected ')'");
	PERR("1 +* 2", 3, "unexpected '*'");
	PERR("1 $ 2", 2, "unexpected '$'");
	PERR("1 & 2", 2, "unexpected '&'");
	PERR("1 | 2", 2, "unexpected '|'");
	PERR("a = 1", 2, "unexpected '='");
	PERR("1 +\t\x01", 4, "unexpected byte 0x01");
	PERR("1 + 2 * (3 + 4", 14, "expected ')'");
	PERR("1 < 2 < 3", 6, "comparisons cannot be chained");
	PERR("1 == 2 != 3", 7, "comparisons cannot be chained");
	PERR("9223372036854775808", 0, "integer literal out of range");
	PERR("1 + 99999999999999999999", 4, "integer literal out of range");
	PERR("0x10000000000000000", 0, "integer literal out of range");
	PERR("2 * 9223372036854775808", 4, "integer literal out of range");
	PERR("4k", 0, "invalid integer literal '4k'");
	PERR("1 + 0x", 4, "invalid integer literal '0x'");
	PERR("0xg1", 0, "invalid integer literal '0xg1'");
	PERR("12ab + 1", 0, "invalid integer literal '12ab'");
	PERR("foo(1)", 0, "unknown function 'foo'");
	PERR("1 + bar(2, 3)", 4, "unknown function 'bar'");
	PERR("min()", 0, "'min' takes at least 1 argument");
	PERR("2 + max( )", 4, "'max' takes at least 1 argument");
	PERR("ceil_div(1)", 0, "'ceil_div' takes 2 arguments, not 1");
	PERR("ceil_div(1, 2, 3)", 0, "'ceil_div' takes 2 arguments, not 3");
	PERR("xor(1)", 0, "'xor' takes 2 arguments, not 1");
	PERR("2*log2(1, 2)", 2, "'log2' takes 1 argument, not 2");
	PERR("min(1,)", 6, "unexpected ')'");
	PERR("min(1 2)", 6, "expected ',' or ')'");
	PERR("min(1", 5, "expected ',' or ')'");
	PERR("max(1, min(2, 3", 15, "expected ',' or ')'");
	PERR("min(,1)", 4, "unexpected ','");
	PERR("1, 2", 1, "unexpected ','");

	/* long tokens are shortened in messages */
	memset(name, 'n', 50);
	strcpy(name + 50, " 1");
	PERR(name, 51, "unexpected '1'");
	memcpy(name, "1 ", 2);
	memset(name + 2, 'n', 50);
	name[52] = '\0';
	PERR(name, 2, "unexpected 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn...'");
}

TEST(expr_eval_errors)
{
	struct vars v = {0};

	vars_set(&v, "a", 1);
	vars_set(&v, "zero", 0);
	vars_set(&v, "lo", INT64_MIN);
	EERR("1 / 0", 2, "division by zero");
	EERR("7 % (3 - 3)", 2, "division by zero");
	EERRV("a / zero", &v, 2, "division by zero");
	EERR("1 + (2 * (3 / 0))", 12, "division by zero");
	EERR("1/0 + 2/0", 1, "division by zero");
	EERR("1 +\n\t0 / 0", 7, "division by zero");
	EERRV("a + foo", &v, 4, "unknown name 'foo'");
	EERR("x", 0, "unknown name 'x'");
	EERR("9223372036854775807 + 1", 20, "overflow in '+'");
	EERR("-9223372036854775807 - 2", 21, "overflow in '-'");
	EERR("-9223372036854775808 / -1", 21, "overflow in '/'");
	EERR("-9223372036854775808 % -1", 21, "overflow in '%'");
	EERRV("lo / -a", &v, 3, "overflow in '/'");
	EERR("4294967296 * 4294967296", 11, "overflow in '*'");
	EERR("3037000500 * 3037000500", 11, "overflow in '*'");
	EV("3037000499 * 3037000499", 9223372030926249001);
	EERR("-9223372036854775808 * -1", 21, "overflow in '*'");
	EERR("-(-9223372036854775807 - 1)", 0, "overflow in '-'");
	EERRV("1 + -lo", &v, 4, "overflow in '-'");
	EERR("--9223372036854775808", 0, "overflow in '-'");
	EV("9223372036854775807 + -9223372036854775808", -1);
}

TEST(expr_deep_nesting)
{
	char *s;

	s = nest("(", 200, "1", ")");
	EV(s, 1);
	free(s);
	s = nest("(", 201, "1", ")");
	PERR(s, 200, "expression nested too deeply");
	free(s);
	s = nest("(", 100000, "", "");
	PERR(s, 200, "expression nested too deeply");
	free(s);
	s = nest("-", 100000, "1", "");
	PERR(s, 200, "expression nested too deeply");
	free(s);
	s = nest("!", 200, "1", "");
	EV(s, 1);
	free(s);
	s = nest("min(", 100000, "1", ")");
	PERR(s, 800, "expression nested too deeply");
	free(s);
	s = nest("1 + ", 500, "1", "");
	EV(s, 501);
	free(s);
	s = nest("1 + ", 100000, "1", "");
	PERR(s, 3998, "expression nested too deeply");
	free(s);
}

TEST(expr_unknown_names)
{
	struct vars v = {0};
	struct expr *e;
	int col = -1;

	e = expr_parse("a + b * c", NULL);
	CHECK(e != NULL);
	CHECK_STR(expr_unknown(e, &v, &col), "a");
	CHECK_EQ(col, 0);
	vars_set(&v, "a", 1);
	CHECK_STR(expr_unknown(e, &v, &col), "b");
	CHECK_EQ(col, 4);
	vars_set(&v, "b", 1);
	CHECK_STR(expr_unknown(e, &v, NULL), "c");
	vars_set(&v, "c", 1);
	col = -1;
	CHECK(expr_unknown(e, &v, &col) == NULL);
	CHECK_EQ(col, -1);
	expr_free(e);

	e = expr_parse("0 && z || ceil_div(y, x)", NULL);
	CHECK(e != NULL);
	CHECK_STR(expr_unknown(e, &v, &col), "z");
	CHECK_EQ(col, 5);
	vars_set(&v, "z", 0);
	CHECK_STR(expr_unknown(e, &v, &col), "y");
	CHECK_EQ(col, 19);
	expr_free(e);

	e = expr_parse("min(3)", NULL);
	CHECK(e != NULL);
	CHECK(expr_unknown(e, NULL, &col) == NULL);
	expr_free(e);
}

TEST(expr_uses_and_src)
{
	char src[] = "a + min(b, 3)";
	struct expr *e = expr_parse(src, NULL);

	CHECK(e != NULL);
	if (!e)
		return;
	CHECK(expr_uses(e, "a"));
	CHECK(expr_uses(e, "b"));
	CHECK(!expr_uses(e, "c"));
	CHECK(!expr_uses(e, "min"));
	CHECK(!expr_uses(e, ""));
	src[0] = 'X';
	CHECK_STR(expr_src(e), "a + min(b, 3)");
	CHECK(expr_src(e) != src);
	expr_free(e);
	expr_free(NULL);
}

TEST(expr_err_cleared_on_success)
{
	struct expr_err err = {5, "stale"};
	struct expr *e = expr_parse("1", &err);

	CHECK(e != NULL);
	CHECK_STR(err.msg, "");
	expr_free(e);
}

TEST(expr_print_c)
{
	PC("1+2*3", "(1LL + (2LL * 3LL))");
	PC("10 - 3 - 2", "((10LL - 3LL) - 2LL)");
	PC("((a))", "a");
	PC("-x", "(-x)");
	PC("- -3", "(-(-3LL))");
	PC("+x", "x");
	PC("xor(r, tx % 32)", "(r ^ (tx % 32LL))");
	PC("!a && b || c != 0x10", "(((!a) && b) || (c != 16LL))");
	PC("a < b", "(a < b)");
	PC("(a <= b) == 1", "((a <= b) == 1LL)");
	PC("a >= b", "(a >= b)");
	PC("a > b % 4 / 2", "(a > ((b % 4LL) / 2LL))");
	PC("ceil_div(N, BLOCK)", "tuner_ceil_div(N, BLOCK)");
	PC("min(a, b, c)", "tuner_min(tuner_min(a, b), c)");
	PC("max(1, 2, 3, 4)", "tuner_max(tuner_max(tuner_max(1LL, 2LL), 3LL), 4LL)");
	PC("max(a)", "a");
	PC("log2(n) * 2", "(tuner_log2(n) * 2LL)");
	PC("-9223372036854775808", "(-9223372036854775807LL - 1)");
	PC("9223372036854775807", "9223372036854775807LL");
	PC("ceil_div(M * N, 256) * min(x, 4)",
	   "(tuner_ceil_div((M * N), 256LL) * tuner_min(x, 4LL))");
}

TEST(expr_print_c_subst)
{
	struct expr_err err = {0};
	struct expr *e = expr_parse("ceil_div(n, BLOCK * PACK) + PAD", &err);
	struct vars v = {0};
	struct buf b = {0};

	vars_set(&v, "BLOCK", 256);
	vars_set(&v, "PACK", 2);
	vars_set(&v, "PAD", -1);
	expr_print_c(e, &v, &b);
	CHECK_STR(b.s, "(tuner_ceil_div(n, (256LL * 2LL)) + (-1LL))");
	buf_free(&b);
	expr_free(e);
}

/* src evaluated as a double under v must be want exactly */
static void evr(int line, const char *src, const struct vars *v, double want)
{
	struct expr_err err = {0};
	double got = 0;
	int r = parse_eval(line, src, v, 1, NULL, &got, &err);

	if (r == -1)
		failf(line, "'%s': eval error at %d: %s", src, err.col, err.msg);
	else if (r == 0 && got != want)
		failf(line, "'%s' gave %.17g, not %.17g", src, got, want);
}

#define EVR(src, want) evr(__LINE__, src, NULL, want)

TEST(expr_real)
{
	struct vars v = {0};
	struct expr_err err = {0};
	struct expr *e;
	int col = -1;

	vars_set(&v, "n", 4096);
	vars_set(&v, "B", 3);
	EVR("0.5", 0.5);
	EVR(".5", 0.5);
	EVR("2.", 2.0);
	EVR("1e-3", 1e-3);
	EVR("1E+3", 1000.0);
	EVR("2.5e2", 250.0);
	EVR("0.1", 0.1);
	EVR("-0.25 * 4", -1.0);
	EVR("7", 7.0);
	/* C's arithmetic: an integer operation stays one; a real operand makes the other real */
	EVR("7 / 2", 3.0);
	EVR("7 / 2.0", 3.5);
	EVR("7.0 / 2 + 7 / 2", 6.5);
	EVR("1.0 / 3", 1.0 / 3);
	EVR("ceil_div(7, 2) * 0.5", 2.0);
	evr(__LINE__, "1.0 / n", &v, 1.0 / 4096);
	evr(__LINE__, "B / (2.0 * B) * n / 4096", &v, 0.5);
	evr(__LINE__, "n / 8192", &v, 0.0);
	eerr_as(__LINE__, "1.0 / 0", NULL, 1, 4, "division by zero");
	eerr_as(__LINE__, "1.0 / (1 - 1)", NULL, 1, 4, "division by zero");
	eerr_as(__LINE__, "1e300 * 1e300", NULL, 1, 6, "overflow in '*'");
	eerr_as(__LINE__, "-1e308 - 1e308", NULL, 1, 7, "overflow in '-'");
	EERR("1 + 0.5", 4, "floating-point value where an integer is needed");
	PERR("1e999", 0, "floating-point literal '1e999' out of range");
	PERR("1e-999", 0, "floating-point literal '1e-999' out of range");
	PERR("1.5.2", 0, "invalid number '1.5.2'");
	PERR("2.5x", 0, "invalid number '2.5x'");
	PERR("n % 2.5", 2, "'%' takes integers, not a floating-point value");
	PERR("0.5 < 1", 4, "'<' takes integers, not a floating-point value");
	PERR("!0.5", 0, "'!' takes integers, not a floating-point value");
	PERR("1 && 0.5", 2, "'&&' takes integers, not a floating-point value");
	PERR("min(1, 0.5)", 0, "'min' takes integers, not a floating-point value");
	PERR("ceil_div(1.0, 2)", 0, "'ceil_div' takes integers, not a floating-point value");
	PERR("1..", 0, "invalid number '1..'");
	e = expr_parse("n * 2 + 0.25", &err);
	CHECK(e && expr_real(e, &col) && col == 8);
	expr_free(e);
	e = expr_parse("n * 2", &err);
	CHECK(e && !expr_real(e, &col));
	expr_free(e);
	PC("1.0 / n", "(1.0 / n)");
	PC("0.1 * 3", "(0.1 * 3LL)");
	PC("0.30000000000000004", "0.30000000000000004");
	PC("2.5e-3 + 1e20", "(0.0025 + 1e+20)");
	PC("-.5", "(-0.5)");
}

/* expr_bind: the values of the names it binds worked in, the rest left; the same value and the
   same errors at the same columns as the original under any binding of the rest */
TEST(expr_bind_folds_what_it_knows)
{
	static const char *const srcs[] = {
		"q / (TX + 2) * (TX * VEC + PAD) + q % (TX + 2) * VEC + e",
		"min(VEC, 4 / (1 + ((TX * VEC + PAD) % 4 != 0))) + ceil_div(q, TX) * log2(VEC)",
		"PAD == 0 && q / PAD > 1 || e",      /* PAD 0: the division never evaluated */
		"q + 7 / (PAD - PAD)",               /* a division by zero stays, at its column */
		"xor(q, VEC) - -TX + (e < VEC) * max(q, e, TX)",
	};
	struct vars known = {0}, all;
	struct expr_err e1, e2;
	size_t i;
	int64_t q, e;

	vars_set(&known, "TX", 32);
	vars_set(&known, "VEC", 4);
	vars_set(&known, "PAD", 0);
	for (i = 0; i < LEN(srcs); i++) {
		struct expr *x = expr_parse(srcs[i], &e1), *b = x ? expr_bind(x, &known) : NULL;
		CHECK(x && b);
		if (!x || !b)
			continue;
		CHECK_STR(expr_src(b), srcs[i]);
		CHECK(!expr_uses(b, "TX") || i == 3);
		for (q = -3; q < 40; q += 7)
			for (e = 0; e < 2; e++) {
				int64_t va = -1, vb = -2;
				int ra, rb;
				all = known;
				vars_set(&all, "q", q);
				vars_set(&all, "e", e);
				ra = expr_eval(x, &all, &va, &e1);
				rb = expr_eval(b, &all, &vb, &e2);
				CHECK_EQ(ra, rb);
				if (ra == 0)
					CHECK_EQ(va, vb);
				else {
					CHECK_EQ(e1.col, e2.col);
					CHECK_STR(e1.msg, e2.msg);
				}
			}
		expr_free(b);
		expr_free(x);
	}
	CHECK(expr_bind(NULL, &known) == NULL);
}
