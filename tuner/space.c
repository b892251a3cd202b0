/* space: the variants of a config (cartesian product, constraints, device limits). */
#include "space.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "expr.h"
#include "params.h"
#include "spec.h"
#include "util.h"

/* exit 2 with "what 'e' for PARAMS: msg" (without " for PARAMS" when v is NULL: e uses sizes
   only) at the place in c's file of byte col of e; at an extra verification size (at not
   NULL), "verify size LABEL: what 'e' for PARAMS (LINE:COL): msg" at at's entry */
__attribute__((format(printf, 7, 8)))
static noreturn void fail_expr(const struct config *c, const struct expr *e, int col,
                               const struct variant *v, const struct vsize *at,
                               const char *what, const char *fmt, ...)
{
	char msg[512], *p = v ? space_params_str(c, v) : NULL;
	const char *f = p ? " for " : "";
	struct loc l;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (at && cfg_expr_loc(c, e, col, &l))
		fatal("%s:%d:%d: verify size %s: %s '%s'%s%s (%d:%d): %s", c->path, at->loc.line,
		      at->loc.col, at->label, what, expr_src(e), f, p ? p : "", l.line, l.col, msg);
	if (at)
		fatal("%s:%d:%d: verify size %s: %s '%s'%s%s: %s", c->path, at->loc.line,
		      at->loc.col, at->label, what, expr_src(e), f, p ? p : "", msg);
	if (cfg_expr_loc(c, e, col, &l))
		fatal("%s:%d:%d: %s '%s'%s%s: %s", c->path, l.line, l.col, what, expr_src(e), f,
		      p ? p : "", msg);
	fatal("%s: %s '%s' at column %d%s%s: %s", c->path, what, expr_src(e), col + 1, f,
	      p ? p : "", msg);
}

/* evaluate e under vars (v's, or the sizes when v is NULL; at an extra verification size
   when at is not NULL) or exit 2 naming the config and the expression */
static int64_t eval_at(const struct config *c, const struct expr *e, const struct vars *vars,
                       const struct variant *v, const struct vsize *at, const char *what)
{
	struct expr_err err;
	int64_t x;

	if (expr_eval(e, vars, &x, &err) < 0)
		fail_expr(c, e, err.col >= 0 ? err.col : 0, v, at, what, "%s", err.msg);
	return x;
}

/* the element count of a buffer or constant (kind) named name, whose count is e and elements
   es bytes, under vars (v's or the sizes): exit 2 unless at least 1 and at most max bytes */
static int64_t count_check(const struct config *c, const char *kind, const char *name,
                           const struct expr *e, size_t es, int64_t max, const struct vars *vars,
                           const struct variant *v, const struct vsize *at)
{
	char what[160];
	int64_t n;

	snprintf(what, sizeof what, "%s '%s' count", kind, name);
	n = eval_at(c, e, vars, v, at, what);
	if (n < 1)
		fail_expr(c, e, 0, v, at, what, "%lld elements: a %s needs at least one",
		          (long long)n, kind);
	if (n > max / (int64_t)es)
		fail_expr(c, e, 0, v, at, what, "%lld elements of %zu bytes: more than the %lld "
		          "bytes a %s may have", (long long)n, es, (long long)max, kind);
	return n;
}

/* 1 if x fits a kernel argument of type t as the launch converts it */
static int arg_fits(int64_t x, enum elem t)
{
	switch (t) {
	case EL_I32: return x >= INT32_MIN && x <= INT32_MAX;
	case EL_U32: return x >= 0 && x <= (int64_t)UINT32_MAX;
	case EL_U64: return x >= 0;
	case EL_I64:
	case EL_F32:
	case EL_F64: return 1;
	case EL_F32X2: /* buffers only */
	case EL_F32X4:
	case EL_F64X2: return 0;
	}
	return 0;
}

/* what a launch of kernel k (kind: "argument" or "reference argument") needs of its args
   under vars (v's, or the sizes when v is NULL; at is the extra verification size they are
   of, or NULL), as the GPU path checks it: every scalar fits its type, every scratch buffer
   has a valid count; else exit 2 */
static void args_check(const struct config *c, const struct kernel *k, const char *kind,
                       const struct vars *vars, const struct variant *v, const struct vsize *at)
{
	size_t i;

	for (i = 0; i < k->nargs; i++) {
		const struct arg *a = &k->args[i];
		const struct expr *e = a->value;
		char what[64];
		struct loc l;
		int64_t x;

		if (a->buffer >= 0) {
			const struct buffer *b = &c->buffers[a->buffer];
			if (b->role == ROLE_SCRATCH)
				count_check(c, "buffer", b->name, b->count, elem_size(b->type),
				            CFG_BUFFER_MAX, vars, v, at);
			continue;
		}
		/* the reference's default args are copies of the kernel's: say where the text is */
		if (k == &c->reference && !cfg_expr_loc(c, e, 0, &l) && i < c->kernel.nargs &&
		    c->kernel.args[i].value)
			e = c->kernel.args[i].value;
		snprintf(what, sizeof what, "%s %zu", kind, i + 1);
		if (a->type == EL_F32 || a->type == EL_F64) {
			struct expr_err err;
			double d;
			if (expr_eval_real(e, vars, &d, &err) < 0)
				fail_expr(c, e, err.col, v, at, what, "%s", err.msg);
			if (a->type == EL_F32 && !isfinite((float)d))
				fail_expr(c, e, 0, v, at, what, "%g does not fit float (beyond %g)", d,
				          FLT_MAX);
			continue;
		}
		x = eval_at(c, e, vars, v, at, what);
		if (!arg_fits(x, a->type))
			fail_expr(c, e, 0, v, at, what, "%lld does not fit %s", (long long)x,
			          elem_name(a->type));
	}
}

/* what the GPU path allocates and launches for every variant alike, under the sizes (those
   of extra verification size at, or the tuning sizes when NULL): the buffers that are not
   scratch, the constants; exit 2 naming the first that cannot be */
static void sizes_check(const struct config *c, const struct vars *sizes, const struct vsize *at)
{
	size_t i;

	for (i = 0; i < c->nbuffers; i++) {
		const struct buffer *b = &c->buffers[i];
		if (b->role != ROLE_SCRATCH)
			count_check(c, "buffer", b->name, b->count, elem_size(b->type), CFG_BUFFER_MAX,
			            sizes, NULL, at);
	}
	for (i = 0; i < c->nconstants; i++) {
		const struct constant *k = &c->constants[i];
		count_check(c, "constant", k->name, k->count, elem_size(k->type), CFG_CONSTANT_MAX,
		            sizes, NULL, at);
	}
}

/* every scratch buffer's count under vars (v's; at: the extra verification size they are of,
   or NULL), those the kernel is not passed too (counts may use parameters); else exit 2 */
static void scratch_check(const struct config *c, const struct vars *vars,
                          const struct variant *v, const struct vsize *at)
{
	size_t i;

	for (i = 0; i < c->nbuffers; i++) {
		const struct buffer *b = &c->buffers[i];
		if (b->role == ROLE_SCRATCH)
			count_check(c, "buffer", b->name, b->count, elem_size(b->type),
			            CFG_BUFFER_MAX, vars, v, at);
	}
}

/* the reference's launch under the sizes (those of extra verification size at, or the tuning
   sizes when NULL) within lim, and its args; else exit 2 */
static void reference_check(const struct config *c, const struct vars *sizes,
                            const struct limits *lim, const struct vsize *at)
{
	static const int64_t bmax[3] = {1024, 1024, 64}, gmax[3] = {2147483647LL, 65535, 65535};
	const struct launch *L = &c->reference.launch;
	int64_t threads = 1, x;
	int d;

	for (d = 0; d < 3; d++) {
		x = eval_at(c, L->block[d], sizes, NULL, at, "reference block");
		if (x < 1)
			fail_expr(c, L->block[d], 0, NULL, at, "reference block", "%lld is not "
			          "positive", (long long)x);
		if (x > bmax[d])
			fail_expr(c, L->block[d], 0, NULL, at, "reference block", "%lld exceeds the "
			          "limit of %lld for dimension %d", (long long)x, (long long)bmax[d],
			          d);
		threads *= x;
		if (threads > lim->max_threads)
			fail_expr(c, L->block[d], 0, NULL, at, "reference block", "%lld threads per "
			          "block exceed the limit of %lld", (long long)threads,
			          (long long)lim->max_threads);
		x = eval_at(c, L->grid[d], sizes, NULL, at, "reference grid");
		if (x < 1 || x > gmax[d])
			fail_expr(c, L->grid[d], 0, NULL, at, "reference grid", "%lld is %s",
			          (long long)x, x < 1 ? "not positive"
			                              : "beyond the limit of the dimension");
	}
	x = eval_at(c, L->shared, sizes, NULL, at, "reference shared");
	if (x < 0 || x > lim->smem_optin)
		fail_expr(c, L->shared, 0, NULL, at, "reference shared", "%lld bytes of shared "
		          "memory %s", (long long)x, x < 0 ? "is negative" : "exceed the limit");
	args_check(c, &c->reference, "reference argument", sizes, NULL, at);
}

/* x in decimal at p (at most 20 characters and a sign); its length */
static size_t put_int(char *p, int64_t x)
{
	char t[24];
	uint64_t u = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
	size_t n = 0, k = 0;

	do
		t[n++] = (char)('0' + u % 10);
	while (u /= 10);
	if (x < 0)
		p[k++] = '-';
	while (n)
		p[k++] = t[--n];
	return k;
}

/* the hash of v's parameter values that its id shows: of each parameter's name, then of
   "name=value;" (names of any length) */
static uint64_t variant_hash(const struct config *c, const struct variant *v)
{
	uint64_t h = HASH_INIT;
	size_t i;

	for (i = 0; i < c->nparams; i++) {
		const char *name = c->params[i].name;
		size_t len = strlen(name), n;
		char s[32];
		s[0] = '=';
		n = 1 + put_int(s + 1, v->vals[i]);
		s[n++] = ';';
		h = hash_bytes(h, name, len);
		h = hash_bytes(h, name, len);
		h = hash_bytes(h, s, n);
	}
	return h;
}

struct keyed {
	uint64_t key;
	size_t i; /* the variant's index: the order within equal keys */
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	return x->key != y->key ? (x->key < y->key ? -1 : 1) : (x->i > y->i) - (x->i < y->i);
}

/* give every variant its id: 'v' + 8 hex digits of its hash; where two variants share those,
   each of that group gets all 16 digits, and where even those are shared, a suffix "-N" in
   variant order. Ids are unique within a space. */
static void space_ids(const struct config *c, struct space *s)
{
	uint64_t *h = xcalloc(s->n + 1, sizeof *h);
	struct keyed *p = xcalloc(s->n + 1, sizeof *p);
	size_t i, j, k, m;

	for (i = 0; i < s->n; i++) {
		h[i] = variant_hash(c, &s->v[i]);
		p[i].key = (uint32_t)(h[i] ^ (h[i] >> 32));
		p[i].i = i;
		snprintf(s->v[i].id, sizeof s->v[i].id, "v%08x", (unsigned)p[i].key);
	}
	qsort(p, s->n, sizeof *p, cmp_keyed);
	for (i = 0; i < s->n; i = j) {
		for (j = i + 1; j < s->n && p[j].key == p[i].key; j++)
			;
		if (j - i < 2)
			continue;
		for (k = i; k < j; k++) { /* the group: by the whole hash, in variant order */
			p[k].key = h[p[k].i];
			snprintf(s->v[p[k].i].id, sizeof s->v[p[k].i].id, "v%016llx",
			         (unsigned long long)p[k].key);
		}
		qsort(p + i, j - i, sizeof *p, cmp_keyed);
		for (k = i; k < j; k = m) {
			for (m = k + 1; m < j && p[m].key == p[k].key; m++)
				;
			for (size_t e = k; m - k > 1 && e < m; e++)
				snprintf(s->v[p[e].i].id + 17, sizeof s->v[p[e].i].id - 17, "-%zu",
				         e - k + 1);
		}
	}
	free(p);
	free(h);
}

/* v's launch geometry, bank mode and bytes under vars (at: the extra verification size they
   are of, or NULL) into v, the bank mode as evaluated into *bank_bytes (v's is -1 where that
   does not fit an int); exit 2 on an expression that cannot be evaluated */
static void geometry(const struct config *c, struct variant *v, const struct vars *vars,
                     const struct vsize *at, int64_t *bank_bytes)
{
	const struct launch *L = &c->kernel.launch;
	int d;

	for (d = 0; d < 3; d++) {
		v->block[d] = eval_at(c, L->block[d], vars, v, at, "block");
		v->grid[d] = eval_at(c, L->grid[d], vars, v, at, "grid");
	}
	v->shared = L->shared ? eval_at(c, L->shared, vars, v, at, "shared") : 0;
	*bank_bytes = L->bank_bytes ? eval_at(c, L->bank_bytes, vars, v, at, "bank_bytes") : 0;
	v->bank_bytes = *bank_bytes >= INT_MIN && *bank_bytes <= INT_MAX ? (int)*bank_bytes : -1;
	v->bytes = eval_at(c, c->bytes, vars, v, at, "bytes");
}

/* the first reason v cannot run under vars (at: the extra verification size they are of, or
   NULL), or NULL; v's geometry as evaluated there */
static char *check(const struct config *c, struct variant *v, const struct vars *vars,
                   const struct limits *lim, const struct vsize *at)
{
	int64_t threads = 1, bank_bytes;
	size_t i;
	int d;

	for (i = 0; i < c->nconstraints; i++) {
		if (!eval_at(c, c->constraints[i].e, vars, v, at, "constraint"))
			return xasprintf("constraint '%s'", expr_src(c->constraints[i].e));
	}
	geometry(c, v, vars, at, &bank_bytes);
	for (d = 0; d < 3; d++) {
		if (v->block[d] < 1)
			return xasprintf("block[%d] = %lld is not positive", d, (long long)v->block[d]);
		if (v->grid[d] < 1)
			return xasprintf("grid[%d] = %lld is not positive", d, (long long)v->grid[d]);
		if (__builtin_mul_overflow(threads, v->block[d], &threads))
			return xasprintf("block %lldx%lldx%lld has more than %lld threads, beyond the "
			                 "limit of %lld", (long long)v->block[0], (long long)v->block[1],
			                 (long long)v->block[2], (long long)INT64_MAX,
			                 (long long)lim->max_threads);
		if (threads > lim->max_threads)
			break;
	}
	if (v->block[2] > 64 || v->block[1] > 1024 || v->block[0] > 1024 || threads > lim->max_threads)
		return xasprintf("%lld threads per block exceed the limit of %lld", (long long)threads,
		                 (long long)lim->max_threads);
	if (v->grid[0] > 2147483647LL || v->grid[1] > 65535 || v->grid[2] > 65535)
		return xasprintf("grid %lldx%lldx%lld exceeds the limit", (long long)v->grid[0],
		                 (long long)v->grid[1], (long long)v->grid[2]);
	if (v->shared < 0)
		return xasprintf("negative shared memory (%lld bytes)", (long long)v->shared);
	if (v->shared > lim->smem_optin)
		return xasprintf("%lld bytes of shared memory exceed the limit of %lld",
		                 (long long)v->shared, (long long)lim->smem_optin);
	if (bank_bytes && bank_bytes != 4 && bank_bytes != 8)
		return xasprintf("bank_bytes = %lld is neither 4 nor 8", (long long)bank_bytes);
	if (v->bytes <= 0)
		return xasprintf("bytes = %lld is not positive", (long long)v->bytes);
	args_check(c, &c->kernel, "argument", vars, v, at);
	scratch_check(c, vars, v, at);
	return NULL;
}

char *space_check(const struct config *c, struct variant *v, const struct vars *vars,
                  const struct limits *lim)
{
	return check(c, v, vars, lim, NULL);
}

/* the first reason v (bound in vars) cannot run at one of c's extra verification sizes, as
   "at LABEL: why", or NULL */
static char *check_verify(const struct config *c, const struct variant *v,
                          const struct vars *vars, const struct limits *lim)
{
	size_t k;

	for (k = 0; k < c->nverify; k++) {
		struct variant at = *v;
		struct vars vk;
		char *why, *r;

		space_sizes_at(c, vars, k, &vk);
		if (!(why = check(c, &at, &vk, lim, &c->verify[k])))
			continue;
		r = xasprintf("at %s: %s", c->verify[k].label, why);
		free(why);
		return r;
	}
	return NULL;
}

void space_sizes_at(const struct config *c, const struct vars *vars, size_t k, struct vars *out)
{
	size_t i;

	if (k >= c->nverify)
		die("verify size %zu of %zu", k, c->nverify);
	*out = *vars;
	for (i = 0; i < c->nsizes; i++)
		vars_set(out, c->sizes[i].name, c->verify[k].vals[i]);
}

uint64_t space_verify_hash(const struct config *c, const struct space *s,
                           const struct variant *v)
{
	uint64_t h = HASH_INIT;
	struct vars vars;
	size_t k;

	if (!c->nverify)
		return h;
	space_bind(c, s, v, &vars);
	for (k = 0; k < c->nverify; k++) {
		struct variant at = *v;
		struct vars vk;
		int64_t bank_bytes;

		space_sizes_at(c, &vars, k, &vk);
		geometry(c, &at, &vk, &c->verify[k], &bank_bytes);
		h = hash_bytes(h, at.block, sizeof at.block);
		h = hash_bytes(h, at.grid, sizeof at.grid);
		h = hash_bytes(h, &at.shared, sizeof at.shared);
	}
	return h;
}

/* space_expand's state while cfg_param_walk hands it the combinations */
struct expand {
	const struct config *c;
	const struct limits *lim;
	struct space *s;
	size_t cap;           /* of s->v */
};

/* one combination of values: a variant, checked */
static void expand_one(void *arg, const int64_t *vals, const struct vars *vars)
{
	struct expand *x = arg;
	const struct config *c = x->c;
	struct space *s = x->s;
	struct variant *v;

	if (s->n == x->cap) { /* grown: the variants' vals point into s->vals once done */
		x->cap = x->cap ? 2 * x->cap : 64;
		s->v = xreallocarray(s->v, x->cap, sizeof *s->v);
		s->vals = xreallocarray(s->vals, x->cap * c->nparams + 1, sizeof *s->vals);
	}
	v = &s->v[s->n];
	memset(v, 0, sizeof *v);
	v->vals = s->vals + s->n * c->nparams;
	memcpy(v->vals, vals, c->nparams * sizeof *vals);
	v->drop = check(c, v, vars, x->lim, NULL);
	if (!v->drop)
		v->drop = check_verify(c, v, vars, x->lim);
	if (!v->drop)
		s->nkept++;
	s->n++;
}

void space_expand(const struct config *c, const struct vars *sizes, const struct limits *lim,
                  struct space *s)
{
	struct expand x = {c, lim, s, 1};
	size_t total = 1, i, k;
	int dep = 0;

	for (i = 0; i < c->nparams; i++)
		dep |= c->params[i].dep;
	for (i = 0; i < c->nparams; i++) {
		if (!c->params[i].vals)
			die("parameter '%s' has no values: cfg_eval_params was not called",
			    c->params[i].name);
		if (c->params[i].nvals && total > SIZE_MAX / 1024 / c->params[i].nvals) {
			if (!dep)
				fatal("%s: the parameter space is too large", c->path);
			total = SIZE_MAX / 1024; /* a bound beyond the limit */
		} else {
			total *= c->params[i].nvals;
		}
	}
	/* without dependent parameters the product is the count; with them, a bound */
	if (total > CFG_VARIANTS_MAX && !dep)
		fatal("%s: the parameter space has %zu variants (at most %d)", c->path, total,
		      CFG_VARIANTS_MAX);
	sizes_check(c, sizes, NULL);
	for (k = 0; k < c->nverify; k++) {
		struct vars vk;
		space_sizes_at(c, sizes, k, &vk);
		sizes_check(c, &vk, &c->verify[k]);
	}
	memset(s, 0, sizeof *s);
	x.cap = total < CFG_VARIANTS_MAX && (!dep || total < 4096) ? total : 4096;
	s->v = xcalloc(x.cap, sizeof *s->v);
	s->vals = xcalloc(x.cap * c->nparams + 1, sizeof *s->vals);
	s->sizes = *sizes;
	cfg_param_walk(c, c->nparams, sizes, expand_one, &x);
	for (k = 0; k < s->n; k++)
		s->v[k].vals = s->vals + k * c->nparams;
	reference_check(c, sizes, lim, NULL);
	for (k = 0; k < c->nverify; k++) {
		struct vars vk;
		space_sizes_at(c, sizes, k, &vk);
		reference_check(c, &vk, lim, &c->verify[k]);
	}
	space_ids(c, s);
}

void space_bind(const struct config *c, const struct space *s, const struct variant *v,
                struct vars *out)
{
	size_t i;

	*out = s->sizes;
	for (i = 0; i < c->nparams; i++)
		vars_set(out, c->params[i].name, v->vals[i]);
}

char *space_params_str(const struct config *c, const struct variant *v)
{
	struct buf b = {0};
	size_t i;

	for (i = 0; i < c->nparams; i++)
		buf_printf(&b, "%s%s=%lld", i ? " " : "", c->params[i].name, (long long)v->vals[i]);
	if (!b.s)
		buf_puts(&b, "");
	return b.s;
}

void space_free(struct space *s)
{
	size_t k;

	for (k = 0; k < s->n; k++)
		free(s->v[k].drop);
	free(s->v);
	free(s->vals);
	memset(s, 0, sizeof *s);
}

void space_arch_limits(const char *arch, struct limits *lim)
{
	/* opt-in shared memory per block by compute capability (CUDA programming guide table) */
	static const struct { int cc; int kb; } t[] = {
		{75, 64}, {80, 163}, {86, 99}, {87, 163}, {89, 99}, {90, 227},
		{100, 227}, {103, 227}, {110, 227}, {120, 99}, {121, 99},
	};
	int cc = atoi(arch + 3), kb = 48;
	size_t i;

	for (i = 0; i < LEN(t); i++)
		if (t[i].cc <= cc)
			kb = t[i].kb;
	lim->max_threads = 1024;
	lim->smem_default = 48 * 1024;
	lim->smem_optin = (int64_t)kb * 1024;
}

int space_id_valid(const char *s)
{
	size_t n = strspn(s + 1, "0123456789abcdef"), k;

	if (s[0] != 'v' || n < 1 || n > 16)
		return 0;
	s += 1 + n;
	if (!*s)
		return 1;
	k = strspn(s + 1, "0123456789");
	return *s == '-' && k >= 1 && k <= 9 && !s[1 + k];
}

static const char (*sorting)[40]; /* by_id's */

static int by_id(const void *a, const void *b)
{
	return strcmp(sorting[*(const size_t *)a], sorting[*(const size_t *)b]);
}

size_t *space_id_order(const char (*id)[40], size_t n)
{
	size_t *by = xcalloc(n + 1, sizeof *by), i;

	for (i = 0; i < n; i++)
		by[i] = i;
	sorting = id;
	qsort(by, n, sizeof *by, by_id);
	sorting = NULL;
	return by;
}

long space_id_find(const char (*id)[40], const size_t *by, size_t n, const char *want)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = strcmp(id[by[mid]], want);
		if (!d)
			return (long)by[mid];
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}
