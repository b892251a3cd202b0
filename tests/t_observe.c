/* Tests for observe: which parameters a template's code sees, and the values variants are
   compiled with. */
#include <stdlib.h>

#include "config.h"
#include "../tuner/nvrtc.h" /* the tuner's: -I puts the toolkit's nvrtc.h first */
#include "observe.h"
#include "source.h"
#include "space.h"
#include "test.h"
#include "util.h"

/* a config of parameters A: [1, 2, 3], B: [0, 4, 8], C: [5, 6] (and `options`), detached */
static struct config *abc(const char *options)
{
	char err[512];
	char *y = xasprintf("name: o\ntemplate: o.cu\nentry: k\nsizes: {n: 64}\n%s"
	                    "params:\n  A: [1, 2, 3]\n  B: [0, 4, 8]\n  C: [5, 6]\n"
	                    "buffers:\n  - {name: x, type: float, count: n, role: out}\n"
	                    "args: [x, n]\nreference: {source: r.cu, entry: r, launch: {block: [32], grid: [2]}}\nlaunch: {block: [32], grid: [2]}\nbytes: 4 * n\n",
	                    options ? options : "");
	struct config *c = cfg_parse_detached("/nonexistent/o.yaml", y, strlen(y), err, sizeof err);

	if (!c)
		fprintf(stderr, "  %s\n", err);
	free(y);
	return c;
}

/* the hidden parameters of template t over abc(options), as a string such as "AC" */
static void hidden_of(const char *options, const char *t, char *out)
{
	struct config *c = abc(options);
	struct observe *o;
	size_t i, n = 0;

	out[0] = '\0';
	CHECK(c != NULL);
	if (!c)
		return;
	o = observe_new(c, t);
	for (i = 0; i < c->nparams; i++)
		if (observe_hidden(o, i))
			out[n++] = c->params[i].name[0];
	out[n] = '\0';
	observe_free(o);
	cfg_free(c);
}

TEST(observe_which_are_hidden)
{
	char h[8];

	/* every use in code, a #define or a #pragma shows the value */
	hidden_of(NULL, "__global__ void k(float *x) { x[0] = A + B + C; }\n", h);
	CHECK_STR(h, "");
	/* #if, defined, #ifdef and #error text do not */
	hidden_of(NULL, "#if !defined(A) || !defined B\n#error \"A and B\" B\n#endif\n"
	                "#ifdef C\n#endif\n#if B > 2\nint x;\n#endif\nint y = A;\n", h);
	CHECK_STR(h, "BC");
	/* comments, strings and a number's letters name nothing */
	hidden_of(NULL, "/* A */ // B\nconst char *s = \"C\"; int z = 0x1C;\n", h);
	CHECK_STR(h, "ABC");
	/* a directive continued on the next line is still the directive; the rest is code */
	hidden_of(NULL, "#if A > 1 && \\\n    B == 0\n#endif\n#define T (C * 2)\n", h);
	CHECK_STR(h, "AB");
	hidden_of(NULL, "#pragma unroll A\n#undef B\nint c = C;\n", h);
	CHECK_STR(h, "");
	/* an option that names a parameter */
	hidden_of("options: [\"-DX=B\"]\n", "#if A && B && C\n#endif\n", h);
	CHECK_STR(h, "AC");
	/* what this reader does not model: an #include, a function-like macro in #if, an
	   unsigned literal, a literal not closed on its line */
	hidden_of(NULL, "#include \"h.cuh\"\n#if A\n#endif\n", h);
	CHECK_STR(h, "");
	hidden_of(NULL, "#if F(A) || B\n#endif\n#if C > 1u\n#endif\n", h);
	CHECK_STR(h, "");
	hidden_of(NULL, "#if A\n#endif\n#error don't\n", h);
	CHECK_STR(h, "");
	/* a `defined(` not closed before the line ends (read no further than the line) */
	hidden_of(NULL, "#if defined(A\n#endif\n#if B\n#endif\n", h);
	CHECK_STR(h, "BC");
}

/* the values abc's variant (a, b, c) is compiled with under template t */
static void compiled_as(const char *t, int64_t a, int64_t b, int64_t c3, int64_t *out)
{
	struct config *c = abc(NULL);
	struct observe *o;
	int64_t in[3] = {a, b, c3};

	out[0] = out[1] = out[2] = -99;
	if (!c)
		return;
	o = observe_new(c, t);
	observe_values(o, in, out);
	observe_free(o);
	cfg_free(c);
}

TEST(observe_values_share_only_what_preprocesses_alike)
{
	/* B only tells 0 from the rest, inside an expression with a macro the tuner does not
	   define (PIPE stays a name), C only whether it is defined */
	static const char t[] =
		"#ifndef PIPE\n#define PIPE 0\n#endif\n"
		"#if PIPE != 0 && (PIPE != 1 || B == 0)\n#error \"no\"\n#endif\n"
		"#if B == 0\nint one;\n#else\nint many;\n#endif\n"
		"#if !defined(C)\n#error \"C\"\n#endif\n"
		"int a = A;\n";
	int64_t v[3];

	compiled_as(t, 2, 8, 6, v);
	CHECK_EQ(v[0], 2); /* seen: kept */
	CHECK_EQ(v[1], 4); /* the first value of B whose conditionals come out as 8's */
	CHECK_EQ(v[2], 5);
	compiled_as(t, 3, 0, 5, v);
	CHECK_EQ(v[0], 3);
	CHECK_EQ(v[1], 0);
	CHECK_EQ(v[2], 5);
	/* B * C tells more apart: 4 * 5 and 8 * 5 differ, and C's 6 too */
	compiled_as("#if B * C > 30\nint x;\n#endif\n#if B * C == 20\nint y;\n#endif\n", 1, 8, 6, v);
	CHECK_EQ(v[1], 8);
	CHECK_EQ(v[2], 5); /* 8 * 5 = 40 > 30 as 48 is, and neither is 20 */
	compiled_as("#if B * C > 30\nint x;\n#endif\n#if B * C == 20\nint y;\n#endif\n", 1, 4, 5, v);
	CHECK_EQ(v[1], 4); /* 20: only 4 * 5 */
	CHECK_EQ(v[2], 5);
	/* arithmetic C leaves undefined is never taken for another value's */
	compiled_as("#if 12 / (B - 4)\n#endif\n#if C\n#endif\n", 1, 4, 6, v);
	CHECK_EQ(v[1], 4);
	CHECK_EQ(v[2], 5);
	/* a ternary and shifts */
	compiled_as("#if (B ? 1 << B : X) > 100\nint big;\n#endif\n", 1, 4, 5, v);
	CHECK_EQ(v[1], 4); /* 16: not 0 (X), not 256 */
	compiled_as("#if (B ? 1 << B : X) > 100\nint big;\n#endif\n", 1, 0, 5, v);
	CHECK_EQ(v[1], 0);
}

/* the shipped kernels: which parameters are hidden, and how many programs their kept
   variants compile as */
static void shipped(const char *cfg, const char *want_hidden, size_t *kept, size_t *programs)
{
	struct space s;
	char *tmpl, got[256] = "";
	struct config *c = test_expand(cfg, &s, &tmpl);
	struct observe *o = observe_new(c, tmpl);
	uint64_t *h;
	size_t i, k, n = 0;

	for (i = 0; i < c->nparams; i++)
		if (observe_hidden(o, i))
			snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", *got ? " " : "",
			         c->params[i].name);
	CHECK_STR(got, want_hidden);
	h = xcalloc(s.n + 1, sizeof *h);
	for (i = 0; i < s.n; i++) {
		char *src;
		if (s.v[i].drop)
			continue;
		src = source_compiled(c, &s.v[i], tmpl, o);
		h[n++] = hash_bytes(HASH_INIT, src, strlen(src));
		free(src);
	}
	*kept = n;
	*programs = 0;
	for (i = 0; i < n; i++) {
		for (k = 0; k < i && h[k] != h[i]; k++)
			;
		*programs += k == i;
	}
	fprintf(stderr, "  %s: %zu kept, %zu programs\n", cfg, n, *programs);
	CHECK_EQ(observe_programs(o, &s), *programs); /* the identity follows the text */
	free(h);
	space_free(&s);
	observe_free(o);
	free(tmpl);
	cfg_free(c);
}

TEST(observe_shipped_kernels)
{
	size_t kept, programs;

	shipped("configs/reduction.yaml", "METHOD GRID SPLIT BANK_BYTES", &kept, &programs);
	CHECK(kept > 400);
	CHECK(programs < kept / 2);
	shipped("configs/filter21.yaml", "BANK_BYTES ASYNC SMEM", &kept, &programs);
	CHECK(programs < kept && programs > kept / 2);
	shipped("configs/transpose.yaml", "SWIZZLE BANK_BYTES", &kept, &programs);
	CHECK(programs < kept && programs > kept / 2);
	shipped("configs/stencil2d.yaml", "REG LOAD", &kept, &programs);
	CHECK_EQ(programs, kept);
}

/* the text a hidden parameter's value was changed in compiles to the same cubin, byte for
   byte: the first kept variant of cfg that observe_values changes, and 1 if there was one */
static int same_cubin(const char *cfg)
{
	struct space s;
	char *tmpl;
	struct config *c = test_expand(cfg, &s, &tmpl);
	struct observe *o = observe_new(c, tmpl);
	int64_t *w = xcalloc(c->nparams, sizeof *w);
	size_t i;
	int found = 0;

	for (i = s.n; i-- > 0 && !found;) { /* from the end: the last values differ most */
		struct compile_out a, b;
		char *sa, *sb;
		if (s.v[i].drop)
			continue;
		observe_values(o, s.v[i].vals, w);
		if (!memcmp(w, s.v[i].vals, c->nparams * sizeof *w))
			continue;
		found = 1;
		sa = source_variant(c, &s.v[i], tmpl);
		sb = source_compiled(c, &s.v[i], tmpl, o);
		CHECK(strcmp(sa, sb) != 0);
		nv_compile(sa, "k.cu", c->kernel.entry, "sm_90", c->options, c->noptions, &a);
		nv_compile(sb, "k.cu", c->kernel.entry, "sm_90", c->options, c->noptions, &b);
		CHECK(a.ok && b.ok);
		CHECK(a.cubin_len == b.cubin_len && a.cubin_len > 0 &&
		      !memcmp(a.cubin, b.cubin, a.cubin_len));
		CHECK_EQ(a.regs, b.regs);
		nv_out_free(&a);
		nv_out_free(&b);
		free(sa);
		free(sb);
	}
	free(w);
	space_free(&s);
	observe_free(o);
	free(tmpl);
	cfg_free(c);
	return found;
}

TEST(observe_same_cubin)
{
	CHECK(same_cubin("configs/reduction.yaml"));
	CHECK(same_cubin("configs/transpose.yaml"));
}

TEST(observe_hostile_conditionals)
{
	struct buf t = {0};
	char h[8];
	int i;

	/* 100 000 parentheses, then a chain of 100 000 additions: beyond the reader (the names in
	   them stay seen), and no stack is exhausted */
	buf_puts(&t, "#if ");
	for (i = 0; i < 100000; i++)
		buf_puts(&t, "(");
	buf_puts(&t, "A");
	for (i = 0; i < 100000; i++)
		buf_puts(&t, ")");
	buf_puts(&t, "\n#endif\n#if B");
	for (i = 0; i < 100000; i++)
		buf_puts(&t, " + 1");
	buf_puts(&t, "\n#endif\n#if C\n#endif\n");
	hidden_of(NULL, t.s, h);
	CHECK_STR(h, "C");
	/* conditionals on a hidden parameter too large to evaluate for every variant: 30 of
	   about 1000 nodes each, beyond the 20 000 in all */
	t.len = 0;
	for (i = 0; i < 30; i++) {
		int k;
		buf_puts(&t, "#if C");
		for (k = 0; k < 499; k++)
			buf_puts(&t, " + 1");
		buf_puts(&t, " > 3\n#endif\n");
	}
	buf_puts(&t, "#if A\n#endif\n");
	hidden_of(NULL, t.s, h);
	CHECK_STR(h, "");
	buf_free(&t);
}
