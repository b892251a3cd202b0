/* Tests for a buffer's refill and the extra verification sizes: how the config reads them,
 * the checks at expansion, what the journal keys and the twins hash (the GPU side is
 * tests/gpu/verify.sh's). */
#include "test.h"
#include "config.h"
#include "journal.h"
#include "params.h"
#include "space.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

/* a config of two sizes; line 1 is the template, line 10 the buffers, 16 the end */
static const char base[] =
	"name: k\n"
	"entry: k\n"
	"sizes: {n: 64, m: 8}\n"
	"params: {B: [32, 64]}\n"
	"buffers:\n"
	"  - {name: a, type: float, count: n, role: in}\n"
	"  - {name: o, type: float, count: n * m, role: out}\n"
	"  - {name: t, type: int, count: B, role: scratch, fill: {const: 0}}\n"
	"args: [o, a, t, n, m]\n"
	"launch: {block: [B], grid: [\"ceil_div(n, B)\", m]}\n"
	"bytes: 8 * n\n"
	"reference: {entry: k_ref, args: [o, a, n, m], launch: {block: [1], grid: [n, m]}}\n";

/* base with its first `from` replaced by `to` and `extra` appended, parsed as mem.yaml beside
   tests/data/good.cu; NULL with err on an error */
static struct config *parse_edit(const char *from, const char *to, const char *extra, char *err,
                                 size_t errlen)
{
	const char *t = test_path("tests/data/good.cu"), *p = from ? strstr(base, from) : NULL;
	char cwd[PATH_MAX];
	struct buf b = {0};
	struct config *c;

	if (t[0] != '/' && getcwd(cwd, sizeof cwd))
		buf_printf(&b, "template: %s/%s\n", cwd, t);
	else
		buf_printf(&b, "template: %s\n", t);
	CHECK(!from || p);
	if (p) {
		buf_add(&b, base, (size_t)(p - base));
		buf_puts(&b, to);
		buf_puts(&b, p + strlen(from));
	} else {
		buf_puts(&b, base);
	}
	buf_puts(&b, extra ? extra : "");
	err[0] = '\0';
	c = cfg_parse("mem.yaml", b.s, b.len, err, errlen);
	buf_free(&b);
	return c;
}

TEST(verify_refill_loads)
{
	char err[512];
	struct config *c = parse_edit("role: in}", "role: in, refill: launch}", NULL, err,
	                              sizeof err);

	CHECK(c != NULL);
	if (!c) {
		fprintf(stderr, "  %s\n", err);
		return;
	}
	CHECK_EQ(c->buffers[0].refill, REFILL_LAUNCH);
	CHECK_EQ(c->buffers[1].refill, REFILL_ROLE);
	CHECK_EQ(c->buffers[2].refill, REFILL_ROLE);
	cfg_free(c);
	c = parse_edit("role: scratch,", "role: scratch, refill: variant,", NULL, err, sizeof err);
	CHECK(c && c->buffers[2].refill == REFILL_VARIANT);
	cfg_free(c);
	/* an out buffer with a fill and refill: launch holds the fill before every launch */
	c = parse_edit("role: out}", "role: out, refill: launch, fill: {const: 0}}", NULL, err,
	               sizeof err);
	CHECK(c != NULL);
	if (c) {
		CHECK_EQ(c->buffers[1].refill, REFILL_LAUNCH);
		CHECK_EQ(c->buffers[1].fill.kind, FILL_CONST);
	}
	cfg_free(c);
	/* the in buffer's default fill: random, as without refill */
	c = parse_edit("role: in}", "role: in, refill: variant}", NULL, err, sizeof err);
	CHECK(c && c->buffers[0].refill == REFILL_VARIANT && c->buffers[0].fill.kind == FILL_RANDOM);
	cfg_free(c);
}

TEST(verify_refill_errors)
{
	static const struct {
		const char *from, *to, *err;
	} t[] = {
		{"role: in}", "role: in, refill: always}",
		 "mem.yaml:7:56: unknown refill 'always' (launch variant)"},
		{"role: in}", "role: in, refill: [launch]}",
		 "mem.yaml:7:56: 'refill' must be a string"},
		{"role: out}", "role: out, refill: variant, fill: {const: 0}}",
		 "mem.yaml:8:61: out buffers are poisoned before each variant: their only refill is "
		 "'launch' (with a 'fill')"},
		{"role: out}", "role: out, refill: launch}",
		 "mem.yaml:8:53: an out buffer with 'refill: launch' needs a 'fill': what it must hold "
		 "before every launch"},
		{"role: out}", "role: out, fill: {const: 0}}",
		 "mem.yaml:8:53: out buffers take no 'fill' (they are poisoned) unless they have "
		 "'refill: launch'"},
	};
	char err[512];
	size_t i;

	for (i = 0; i < LEN(t); i++) {
		struct config *c = parse_edit(t[i].from, t[i].to, NULL, err, sizeof err);
		CHECK(c == NULL);
		CHECK_STR(err, t[i].err);
		cfg_free(c);
	}
}

TEST(verify_sizes_load)
{
	char err[512];
	struct config *c = parse_edit(NULL, NULL, "verify:\n  sizes:\n    - {n: 1}\n"
	                              "    - {m: 3, n: 0x10}\n", err, sizeof err);

	CHECK(c != NULL);
	if (!c) {
		fprintf(stderr, "  %s\n", err);
		return;
	}
	CHECK_EQ(c->nverify, 2);
	/* the sizes an entry leaves out have the file's values */
	CHECK_EQ(c->verify[0].vals[0], 1);
	CHECK_EQ(c->verify[0].vals[1], 8);
	CHECK_STR(c->verify[0].label, "n=1 m=8");
	CHECK_EQ(c->verify[0].loc.line, 16);
	CHECK_EQ(c->verify[0].loc.col, 7);
	CHECK_STR(c->verify[1].label, "n=16 m=3");
	/* --size changes the tuning sizes only */
	cfg_set_size(c, "m=5");
	CHECK_EQ(c->verify[0].vals[1], 8);
	cfg_free(c);
}

TEST(verify_sizes_errors)
{
	static const struct {
		const char *extra, *err;
	} t[] = {
		{"verify: [{n: 1}]\n", "mem.yaml:14:9: 'verify' must be a mapping"},
		{"verify: {sizes: [{n: 1}], at: 2}\n", "mem.yaml:14:27: unknown key 'at'"},
		{"verify: {}\n", "mem.yaml:14:9: missing required key 'sizes'"},
		{"verify: {sizes: {n: 1}}\n", "mem.yaml:14:17: 'sizes' must be a list"},
		{"verify: {sizes: []}\n", "mem.yaml:14:17: 'sizes' of 'verify' must list at least one "
		                          "entry"},
		{"verify: {sizes: [1]}\n", "mem.yaml:14:18: 'verify sizes' must be a mapping"},
		{"verify: {sizes: [{}]}\n", "mem.yaml:14:18: a verify size must set at least one size"},
		{"verify: {sizes: [{k: 1}]}\n", "mem.yaml:14:19: unknown size 'k' (a verify size sets "
		                                "sizes of 'sizes')"},
		{"verify: {sizes: [{B: 1}]}\n", "mem.yaml:14:19: unknown size 'B' (a verify size sets "
		                                "sizes of 'sizes')"},
		{"verify: {sizes: [{n: -1}]}\n", "mem.yaml:14:22: 'n' must be at least 0"},
		{"verify: {sizes: [{n: x}]}\n", "mem.yaml:14:22: 'n' must be an integer, not 'x'"},
		{"verify: {sizes: [{n: 1}, {m: 2}, {m: 8, n: 1}]}\n",
		 "mem.yaml:14:34: verify size n=1 m=8 is listed twice (also at line 14)"},
		{"verify: {sizes: [{n: 1, n: 2}]}\n", "mem.yaml:14:25: duplicate key 'n'"},
	};
	char err[512];
	size_t i;

	for (i = 0; i < LEN(t); i++) {
		struct config *c = parse_edit(NULL, NULL, t[i].extra, err, sizeof err);
		CHECK(c == NULL);
		CHECK_STR(err, t[i].err);
		cfg_free(c);
	}
}

/* at most CFG_VERIFY_MAX entries */
TEST(verify_sizes_limit)
{
	struct buf b = {0};
	struct config *c;
	char err[512];
	int i;

	buf_puts(&b, "verify:\n  sizes:\n");
	for (i = 1; i <= CFG_VERIFY_MAX; i++)
		buf_printf(&b, "    - {n: %d}\n", i);
	c = parse_edit(NULL, NULL, b.s, err, sizeof err);
	CHECK(c && c->nverify == CFG_VERIFY_MAX);
	cfg_free(c);
	buf_printf(&b, "    - {n: %d}\n", i);
	c = parse_edit(NULL, NULL, b.s, err, sizeof err);
	CHECK(c == NULL);
	CHECK_STR(err, "mem.yaml:32:7: more than 16 verify sizes");
	buf_free(&b);
}

/* a refill and the extra sizes are results: they change the digest; the style does not */
TEST(verify_digest)
{
	char err[512];
	struct config *c = parse_edit(NULL, NULL, NULL, err, sizeof err);
	uint64_t d = c ? c->result_digest : 0, x;

	cfg_free(c);
	CHECK(d != 0);
	c = parse_edit("role: in}", "role: in, refill: launch}", NULL, err, sizeof err);
	CHECK(c && c->result_digest != d);
	cfg_free(c);
	c = parse_edit(NULL, NULL, "verify: {sizes: [{n: 1}]}\n", err, sizeof err);
	x = c ? c->result_digest : d;
	CHECK(x != d);
	cfg_free(c);
	c = parse_edit(NULL, NULL, "verify:\n  sizes:\n    - n: 1\n", err, sizeof err);
	CHECK(c && c->result_digest == x);
	cfg_free(c);
	c = parse_edit(NULL, NULL, "verify: {sizes: [{n: 2}]}\n", err, sizeof err);
	CHECK(c && c->result_digest != x);
	cfg_free(c);
}

static const struct limits lim = {1024, 48 * 1024, 227 * 1024};

/* parse_edit, then expand under the tuning sizes (SMS 1) into s; NULL on a config error */
static struct config *expand_edit(const char *from, const char *to, const char *extra,
                                  struct space *s)
{
	char err[512];
	struct config *c = parse_edit(from, to, extra, err, sizeof err);
	struct vars v = {0};

	CHECK(c != NULL);
	if (!c) {
		fprintf(stderr, "  %s\n", err);
		return NULL;
	}
	cfg_size_vars(c, 1, &v);
	space_expand(c, &v, &lim, s);
	return c;
}

TEST(verify_sizes_at)
{
	struct space s;
	struct config *c = expand_edit(NULL, NULL, "verify: {sizes: [{m: 2}]}\n", &s);
	struct vars v, at;
	int64_t x = 0;

	if (!c)
		return;
	space_bind(c, &s, &s.v[1], &v);
	space_sizes_at(c, &v, 0, &at);
	CHECK(vars_get(&at, "n", &x) && x == 64);
	CHECK(vars_get(&at, "m", &x) && x == 2);
	CHECK(vars_get(&at, "B", &x) && x == 64); /* the variant's parameters stay */
	CHECK(vars_get(&at, CFG_SMS, &x) && x == 1);
	CHECK(vars_get(&v, "m", &x) && x == 8);
	space_free(&s);
	cfg_free(c);
}

/* a variant whose constraint or launch fails at an extra size is dropped, naming it */
TEST(verify_drops_name_the_size)
{
	struct space s;
	struct config *c = expand_edit("params: {B: [32, 64]}\n",
	                               "params: {B: [32, 64]}\nconstraints: [n % B == 0]\n",
	                               "verify: {sizes: [{n: 96}]}\n", &s);

	if (!c)
		return;
	CHECK_EQ(s.nkept, 1);
	CHECK(s.v[0].drop == NULL);
	CHECK_STR(s.v[1].drop, "at n=96 m=8: constraint 'n % B == 0'");
	/* the geometry kept is the tuning size's */
	CHECK_EQ(s.v[0].grid[0], 2);
	space_free(&s);
	cfg_free(c);
	c = expand_edit("block: [B]", "block: [\"B * n / 64\"]", "verify: {sizes: [{n: 2048}]}\n",
	                &s);
	if (!c)
		return;
	CHECK_EQ(s.nkept, 1);
	CHECK(s.v[0].drop == NULL);
	CHECK_STR(s.v[1].drop, "at n=2048 m=8: 2048 threads per block exceed the limit of 1024");
	space_free(&s);
	cfg_free(c);
}

/* child: expand base with the edit in arg (from, to, extra) */
static void expand_child(const void *arg)
{
	const char *const *e = arg;
	struct space s;
	struct config *c = expand_edit(e[0], e[1], e[2], &s);

	if (c)
		space_free(&s);
	cfg_free(c);
}

/* what the GPU path could not allocate or launch at an extra size is an error when the
   variants are expanded, at the verify entry, with or without a GPU */
TEST(verify_sizes_checked_at_expansion)
{
	static const struct {
		const char *e[3], *err;
	} t[] = {
		{{NULL, NULL, "verify: {sizes: [{n: 0}]}\n"},
		 "mem.yaml:14:18: verify size n=0 m=8: buffer 'a' count 'n' (7:35): 0 elements: a "
		 "buffer needs at least one\n"},
		{{NULL, NULL, "verify: {sizes: [{n: 1}, {m: 274877906944}]}\n"},
		 "mem.yaml:14:26: verify size n=64 m=274877906944: buffer 'o' count 'n * m' (8:35): "
		 "17592186044416 elements of 4 bytes: more than the 1099511627776 bytes a buffer may "
		 "have\n"},
		{{NULL, NULL, "verify: {sizes: [{m: 8589934592}]}\n"},
		 "mem.yaml:14:18: verify size n=64 m=8589934592: buffer 'o' count 'n * m' (8:35): "
		 "549755813888 elements of 4 bytes: more than the 1099511627776 bytes a buffer may "
		 "have\n"},
		{{NULL, NULL, "verify: {sizes: [{m: 2147483648}]}\n"},
		 "mem.yaml:14:18: verify size n=64 m=2147483648: reference grid 'm' (13:78): "
		 "2147483648 is beyond the limit of the dimension\n"},
		{{"count: B,", "count: n - B,", "verify: {sizes: [{n: 32}]}\n"},
		 "mem.yaml:14:18: verify size n=32 m=8: buffer 't' count 'n - B' for B=32 (9:33): 0 "
		 "elements: a buffer needs at least one\n"},
		{{"args: [o, a, t, n, m]", "args: [o, a, t, n * 1000000, m]",
		  "verify: {sizes: [{n: 4096}]}\n"},
		 "mem.yaml:14:18: verify size n=4096 m=8: argument 4 'n * 1000000' for B=32 (10:17): "
		 "4096000000 does not fit int\n"},
	};
	static const char *const fine[3] = {"count: B,", "count: B - n,",
	                                    "verify: {sizes: [{n: 1}]}\n"};
	char err[1024];
	size_t i;

	for (i = 0; i < LEN(t); i++) {
		CHECK_EQ(test_in_child(expand_child, t[i].e, err, sizeof err), 2);
		if (!strstr(err, t[i].err)) {
			fprintf(stderr, "  case %zu: %s", i, err);
			CHECK(!"the expected error");
		}
	}
	/* one that is valid at the extra size only (B - n: 31 at n = 1): the tuning size's error */
	CHECK_EQ(test_in_child(expand_child, fine, err, sizeof err), 2);
	CHECK(strstr(err, "mem.yaml:9:33: buffer 't' count 'B - n' for B=32: -32 elements") != NULL);
}

/* journal_context of c under its own sizes, for a GPU, method and reference that stay */
static uint64_t ctx_of(const struct config *c)
{
	struct compile_out ref = {0};
	struct vars v = {0};

	ref.cubin = "cubin";
	ref.cubin_len = 5;
	cfg_size_vars(c, 1, &v);
	return journal_context(c, &v, "H100", "flush", &ref);
}

/* the context hashes the extra sizes as resolved: the file's sizes fill them in, so editing
   one changes the context even where --size gives the tuning run the same value */
TEST(verify_journal_context)
{
	char err[512];
	struct config *a = parse_edit(NULL, NULL, "verify: {sizes: [{n: 1}]}\n", err, sizeof err);
	struct config *b = parse_edit("m: 8}", "m: 9}", "verify: {sizes: [{n: 1}]}\n", err,
	                              sizeof err);
	struct config *none = parse_edit(NULL, NULL, NULL, err, sizeof err);

	CHECK(a && b && none);
	if (a && b && none) {
		cfg_set_size(b, "m=8");
		CHECK(ctx_of(a) != ctx_of(b));
		CHECK(ctx_of(a) != ctx_of(none));
		CHECK(ctx_of(a) == ctx_of(a));
	}
	cfg_free(a);
	cfg_free(b);
	cfg_free(none);
}

/* journal_key and space_verify_hash of variant k of the config base edited */
static void key_of(const char *from, const char *to, const char *extra, size_t k, uint64_t *key,
                   uint64_t *vh)
{
	struct compile_out co = {0};
	struct space s;
	struct config *c = expand_edit(from, to, extra, &s);

	*key = *vh = 0;
	if (!c)
		return;
	co.cubin = "variant";
	co.cubin_len = 7;
	*key = journal_key(1, c, &s, &s.v[k], &co);
	*vh = space_verify_hash(c, &s, &s.v[k]);
	space_free(&s);
	cfg_free(c);
}

/* a launch that differs only at an extra size changes the key and what makes twins */
TEST(verify_journal_key)
{
	static const char grid[] = "grid: [\"ceil_div(n, B)\", m]}";
	static const char other[] = "grid: [\"max(2, n / B)\", m]}"; /* the same at n = 64 */
	static const char sizes[] = "verify: {sizes: [{n: 1}]}\n";
	uint64_t k1, k2, k3, k4, h1, h2, h3, h4;

	key_of(NULL, NULL, NULL, 0, &k1, &h1);
	key_of(grid, other, NULL, 0, &k2, &h2);
	CHECK(k1 == k2); /* without extra sizes, only the tuning size's launch counts */
	CHECK(h1 == HASH_INIT && h2 == HASH_INIT);
	key_of(NULL, NULL, sizes, 0, &k3, &h3);
	key_of(grid, other, sizes, 0, &k4, &h4);
	CHECK(k3 != k4);
	CHECK(h3 != h4 && h3 != HASH_INIT);
	key_of(NULL, NULL, sizes, 1, &k4, &h4); /* B 64: grid 1 at n = 64 too */
	CHECK(k3 != k4);
}
