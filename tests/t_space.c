/* Tests for space (expansion, constraints, limits, ids) and source (instantiation). */
#include "test.h"
#include "config.h"
#include "drops.h"
#include "params.h"
#include "source.h"
#include "space.h"
#include "util.h"

#include <limits.h>
#include <stdlib.h>

static struct config *load(const char *rel)
{
	return cfg_load(test_path(rel));
}

static void expand(struct config *c, const struct limits *lim, struct space *s)
{
	struct vars sizes = {0};

	cfg_size_vars(c, 1, &sizes);
	space_expand(c, &sizes, lim, s);
}

TEST(space_product_order_constraints)
{
	struct config *c = load("tests/kernels/scale.yaml");
	struct limits lim = {1024, 48 * 1024, 227 * 1024};
	struct space s;
	size_t k;

	expand(c, &lim, &s);
	CHECK_EQ(s.n, 6);
	CHECK_EQ(s.nkept, 5);
	/* BLOCK: [64, 128, 256], UNROLL: [1, 2]; the last parameter varies fastest */
	CHECK_EQ(s.v[0].vals[0], 64);
	CHECK_EQ(s.v[0].vals[1], 1);
	CHECK_EQ(s.v[1].vals[1], 2);
	CHECK_EQ(s.v[2].vals[0], 128);
	CHECK_EQ(s.v[5].vals[0], 256);
	CHECK_EQ(s.v[5].vals[1], 2);
	CHECK(s.v[5].drop && strstr(s.v[5].drop, "constraint 'BLOCK * UNROLL <= 256'"));
	for (k = 0; k < 5; k++)
		CHECK(!s.v[k].drop);
	/* launch geometry from the expressions: n = 4099, grid = ceil_div(n, BLOCK * UNROLL) */
	CHECK_EQ(s.v[0].block[0], 64);
	CHECK_EQ(s.v[0].grid[0], 65);
	CHECK_EQ(s.v[1].grid[0], 33);
	CHECK_EQ(s.v[0].block[1], 1);
	CHECK_EQ(s.v[0].grid[2], 1);
	CHECK_EQ(s.v[0].bytes, 8 * 4099);
	/* ids are stable, distinct and derived from the values alone */
	CHECK_STR(s.v[0].id, "v21e58637");
	for (k = 1; k < s.n; k++)
		CHECK(strcmp(s.v[k].id, s.v[k - 1].id) != 0);
	char *p = space_params_str(c, &s.v[3]);
	CHECK_STR(p, "BLOCK=128 UNROLL=2");
	free(p);
	space_free(&s);
	cfg_free(c);
}

TEST(space_size_override)
{
	struct config *c = load("tests/kernels/scale.yaml");
	struct limits lim = {1024, 48 * 1024, 227 * 1024};
	struct space s;

	cfg_set_size(c, "n=1");
	expand(c, &lim, &s);
	CHECK_EQ(s.v[0].grid[0], 1);
	CHECK_EQ(s.v[0].bytes, 8);
	space_free(&s);
	cfg_free(c);
}

TEST(space_device_limits)
{
	struct config *c = load("tests/kernels/scale.yaml");
	struct limits lim = {128, 48 * 1024, 227 * 1024}; /* the reference's block is 128 */
	struct space s;

	expand(c, &lim, &s);
	CHECK_EQ(s.nkept, 4);
	CHECK(s.v[4].drop && strstr(s.v[4].drop, "256 threads per block exceed the limit of 128"));
	space_free(&s);
	cfg_free(c);

	/* filter21 stages its tile in dynamic shared memory: a small limit drops the big tiles */
	c = load("configs/filter21.yaml");
	lim = (struct limits){1024, 48 * 1024, 4096};
	expand(c, &lim, &s);
	size_t k, small = 0, big = 0;
	for (k = 0; k < s.n; k++) {
		if (s.v[k].shared > 4096) {
			big++;
			CHECK(s.v[k].drop && (strstr(s.v[k].drop, "exceed the limit of 4096") ||
			                      strstr(s.v[k].drop, "constraint")));
		} else if (!s.v[k].drop) {
			small++;
		}
	}
	CHECK(big > 0);
	CHECK(small > 0);
	/* counted by rule: the variants' own numbers as N, the limit's kept; the most first */
	struct drops d;
	size_t sum = 0, over = 0, nover = 0;
	drops_count(&s, &d);
	CHECK_EQ(d.total, s.n - s.nkept);
	for (k = 0; k < d.n; k++) {
		sum += d.v[k].n;
		CHECK(k == 0 || d.v[k - 1].n >= d.v[k].n);
		CHECK(s.v[d.v[k].first].drop != NULL);
		if (!strcmp(d.v[k].rule, "N bytes of shared memory exceed the limit of 4096"))
			over = d.v[k].n;
	}
	for (k = 0; k < s.n; k++)
		nover += s.v[k].drop && strstr(s.v[k].drop, "exceed the limit of 4096") != NULL;
	CHECK_EQ(sum, d.total);
	CHECK(over > 0);
	CHECK_EQ(over, nover);
	drops_free(&d);
	space_free(&s);
	cfg_free(c);
	char *r = drops_rule("at n=1001: 2048 threads per block exceed the limit of 1024");
	CHECK_STR(r, "at n=1001: N threads per block exceed the limit of 1024");
	free(r);
	r = drops_rule("constraint 'BLOCK * 2 <= 256'");
	CHECK_STR(r, "constraint 'BLOCK * 2 <= 256'");
	free(r);
}

/* 64-bit values in the launch and the limits: dropped with their real values, an overflow of
   the threads per block said as such (tests/data/launch.yaml: block [B, H], B 32 and 64,
   bank mode BB) */
TEST(space_hostile_numbers)
{
	static const struct {
		const char *h, *bb;
		struct limits lim;
		const char *drop[2];
	} t[] = {
		/* 32 x 2^62 threads wrap to 0 in 64 bits */
		{"4611686018427387904", "4", {1024, 48 * 1024, 227 * 1024},
		 {"block 32x4611686018427387904x1 has more than 9223372036854775807 threads, beyond "
		  "the limit of 1024", "block 64x4611686018427387904x1 has more than "
		  "9223372036854775807 threads, beyond the limit of 1024"}},
		/* a bank mode of 2^32 + 8 is not 8, nor is 2^63 - 1 the -1 of a cast to int */
		{"1", "4294967304", {1024, 48 * 1024, 227 * 1024},
		 {"bank_bytes = 4294967304 is neither 4 nor 8",
		  "bank_bytes = 4294967304 is neither 4 nor 8"}},
		{"1", "9223372036854775807", {1024, 48 * 1024, 227 * 1024},
		 {"bank_bytes = 9223372036854775807 is neither 4 nor 8",
		  "bank_bytes = 9223372036854775807 is neither 4 nor 8"}},
		/* the largest limits, as they are */
		{"1073741824", "8", {INT_MAX, INT64_MAX, INT64_MAX},
		 {"34359738368 threads per block exceed the limit of 2147483647",
		  "68719476736 threads per block exceed the limit of 2147483647"}},
		{"16", "8", {INT_MAX, INT64_MAX, INT64_MAX}, {NULL, NULL}},
	};
	size_t i, k;

	for (i = 0; i < LEN(t); i++) {
		struct config *c = load("tests/data/launch.yaml");
		char *h = xasprintf("H=%s", t[i].h), *bb = xasprintf("BB=%s", t[i].bb);
		struct space s;

		cfg_set_size(c, h);
		cfg_set_size(c, bb);
		expand(c, &t[i].lim, &s);
		CHECK_EQ(s.n, 2);
		for (k = 0; k < 2; k++) {
			if (t[i].drop[k])
				CHECK_STR(s.v[k].drop, t[i].drop[k]);
			else
				CHECK(!s.v[k].drop);
			/* the variant's int holds what fits it */
			CHECK_EQ(s.v[k].bank_bytes, strlen(t[i].bb) > 1 ? -1 : atoi(t[i].bb));
		}
		space_free(&s);
		cfg_free(c);
		free(h);
		free(bb);
	}
}

TEST(space_arch_limits)
{
	struct limits lim;

	space_arch_limits("sm_90", &lim);
	CHECK_EQ(lim.smem_optin, 227 * 1024);
	CHECK_EQ(lim.max_threads, 1024);
	space_arch_limits("sm_75", &lim);
	CHECK_EQ(lim.smem_optin, 64 * 1024);
	space_arch_limits("sm_86", &lim);
	CHECK_EQ(lim.smem_optin, 99 * 1024);
	space_arch_limits("sm_120", &lim);
	CHECK_EQ(lim.smem_optin, 99 * 1024);
}

TEST(source_instantiation)
{
	struct config *c = load("tests/kernels/scale.yaml");
	struct limits lim = {1024, 48 * 1024, 227 * 1024};
	struct space s;
	char *src, *want;

	expand(c, &lim, &s);
	src = source_variant(c, &s.v[3], "TEMPLATE\n");
	want = xasprintf("#define BLOCK 128\n#define UNROLL 2\n#line 1 \"%s\"\nTEMPLATE\n",
	                 c->kernel.source);
	CHECK_STR(src, want);
	free(src);
	free(want);
	space_free(&s);
	cfg_free(c);
}

TEST(space_ids_unique)
{
	struct config *c = load("tests/kernels/ids.yaml");
	struct limits lim = {1024, 48 * 1024, 227 * 1024};
	struct space s;
	size_t i, j, n16 = 0;

	expand(c, &lim, &s);
	CHECK_EQ(s.n, 4);
	for (i = 0; i < s.n; i++) {
		for (j = 0; j < i; j++)
			CHECK(strcmp(s.v[i].id, s.v[j].id) != 0);
		if (strlen(s.v[i].id) == 17) {
			n16++;
			CHECK(!strncmp(s.v[i].id, "v", 1));
		} else {
			CHECK_EQ(strlen(s.v[i].id), 9);
			CHECK(strcmp(s.v[i].id, "v32b646a2") != 0);
		}
	}
	/* the two that share v32b646a2 in 8 digits: A 11 B 236 and A 56 B 70 */
	CHECK_EQ(n16, 2);
	CHECK_EQ(strlen(s.v[1].id), 17);
	CHECK_EQ(strlen(s.v[2].id), 17);
	space_free(&s);
	cfg_free(c);
}

/* an id is the hash of each parameter's name and "name=value;", for names of any length and
   values of any sign and size */
TEST(space_ids_long_names)
{
	struct config *c = load("tests/kernels/longname.yaml");
	struct limits lim = {1024, 48 * 1024, 227 * 1024};
	struct space s;
	size_t i, k;

	expand(c, &lim, &s);
	CHECK_EQ(s.n, 4);
	CHECK_EQ(strlen(c->params[0].name), 120);
	for (i = 0; i < s.n; i++) {
		uint64_t h = HASH_INIT;
		char id[40];
		for (k = 0; k < c->nparams; k++) {
			char *t = xasprintf("%s=%lld;", c->params[k].name, (long long)s.v[i].vals[k]);
			h = hash_bytes(h, c->params[k].name, strlen(c->params[k].name));
			h = hash_bytes(h, t, strlen(t));
			free(t);
		}
		snprintf(id, sizeof id, "v%08x", (unsigned)(h ^ (h >> 32)));
		CHECK_STR(s.v[i].id, id);
	}
	CHECK_EQ(s.v[3].vals[1], -9223372036854775807LL);
	space_free(&s);
	cfg_free(c);
}

/* child: expand scale.yaml with the size override size */
static void expand_sized(const void *size)
{
	struct config *c = load("tests/kernels/scale.yaml");
	struct limits lim = {1024, 48 * 1024, 227 * 1024};
	struct space s;

	cfg_set_size(c, size);
	expand(c, &lim, &s);
	space_free(&s);
	cfg_free(c);
}

/* without a GPU, expansion checks what the GPU path would refuse to allocate or launch */
TEST(space_checks_what_the_gpu_checks)
{
	static const struct { const char *size, *err; } t[] = {
		{"n=0", "scale.yaml:19:12: buffer 'in' count 'n': 0 elements: a buffer needs at "
		        "least one\n"},
		{"n=1099511627776", "scale.yaml:19:12: buffer 'in' count 'n': 1099511627776 elements "
		        "of 4 bytes: more than the 1099511627776 bytes a buffer may have\n"},
		{"n=2147483648", "scale.yaml:33:17: argument 3 'n' for BLOCK=64 UNROLL=1: 2147483648 "
		        "does not fit int\n"},
		{"n=9223372036854775807", "scale.yaml:19:12: buffer 'in' count 'n': "
		        "9223372036854775807 elements of 4 bytes: more than the 1099511627776 bytes a "
		        "buffer may have\n"},
	};
	char err[1024];
	size_t i;

	for (i = 0; i < LEN(t); i++) {
		CHECK_EQ(test_in_child(expand_sized, t[i].size, err, sizeof err), 2);
		if (!strstr(err, t[i].err)) {
			fprintf(stderr, "  --size %s: %s", t[i].size, err);
			CHECK(!"the expected error");
		}
	}
	CHECK_EQ(test_in_child(expand_sized, "n=2147483647", err, sizeof err), 0); /* the largest int */
	CHECK(err[0] == '\0');
}

/* parameter values that are expressions of the sizes expand as the literals they evaluate to:
   the same variants, ids and geometry; --size changes them */
TEST(space_param_exprs)
{
	const char *path = test_path("tests/kernels/scale.yaml");
	char *text = file_read(path, NULL), *sized, err[512];
	const char *lit = "  BLOCK: [64, 128, 256]\n  UNROLL: [1, 2]\n", *at;
	struct config *a = load("tests/kernels/scale.yaml"), *b;
	struct limits lim = {1024, 48 * 1024, 227 * 1024};
	struct space sa, sb;
	size_t k;

	CHECK(text && (at = strstr(text, lit)));
	if (!text || !at) {
		free(text);
		cfg_free(a);
		return;
	}
	sized = xasprintf("%.*s  BLOCK: [\"n / 64\", \"2 * (n / 64)\", 256]\n"
	                  "  UNROLL: {from: 1, to: \"n / 2048\"}\n%s", (int)(at - text), text,
	                  at + strlen(lit));
	b = cfg_parse(path, sized, strlen(sized), err, sizeof err);
	CHECK(b != NULL);
	if (!b) {
		fprintf(stderr, "  %s\n", err);
		goto out;
	}
	cfg_set_size(a, "n=4096");
	cfg_set_size(b, "n=4096");
	cfg_eval_params(b);
	expand(a, &lim, &sa);
	expand(b, &lim, &sb);
	CHECK_EQ(sa.n, sb.n);
	CHECK_EQ(sa.nkept, sb.nkept);
	for (k = 0; k < sa.n && k < sb.n; k++) {
		CHECK_STR(sa.v[k].id, sb.v[k].id);
		CHECK_EQ(sa.v[k].vals[0], sb.v[k].vals[0]);
		CHECK_EQ(sa.v[k].vals[1], sb.v[k].vals[1]);
		CHECK_EQ(sa.v[k].grid[0], sb.v[k].grid[0]);
		CHECK_EQ(!sa.v[k].drop, !sb.v[k].drop);
	}
	space_free(&sb);
	/* n = 2048: BLOCK 32, 64, 256, UNROLL 1 */
	cfg_set_size(b, "n=2048");
	cfg_eval_params(b);
	expand(b, &lim, &sb);
	CHECK_EQ(sb.n, 3);
	CHECK_EQ(sb.v[0].vals[0], 32);
	CHECK_EQ(sb.v[1].vals[0], 64);
	CHECK_EQ(sb.v[2].vals[1], 1);
	CHECK_EQ(sb.v[1].grid[0], 32);
	space_free(&sb);
	space_free(&sa);
out:
	cfg_free(b);
	cfg_free(a);
	free(sized);
	free(text);
}
