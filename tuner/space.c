/* space: the variants of a config (cartesian product, constraints, device limits). */
#include "space.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* evaluate e for v or exit 2 naming the config and the expression */
static int64_t eval_or_die(const struct config *c, const struct expr *e, const struct variant *v,
                           const char *what)
{
	struct expr_err err;
	int64_t x;

	if (expr_eval(e, &v->vars, &x, &err) < 0) {
		char *p = space_params_str(c, v);
		struct loc l;
		if (cfg_expr_loc(c, e, err.col >= 0 ? err.col : 0, &l))
			fatal("%s:%d:%d: %s '%s' for %s: %s", c->path, l.line, l.col, what, expr_src(e), p,
			      err.msg);
		fatal("%s: %s '%s' at column %d for %s: %s", c->path, what, expr_src(e), err.col + 1,
		      p, err.msg);
	}
	return x;
}

/* the hash of v's parameter values that its id shows */
static uint64_t variant_hash(const struct config *c, const struct variant *v)
{
	uint64_t h = HASH_INIT;
	size_t i;

	for (i = 0; i < c->nparams; i++) {
		char s[64];
		int n = snprintf(s, sizeof s, "%s=%lld;", c->params[i].name, (long long)v->vals[i]);
		h = hash_bytes(h, c->params[i].name, strlen(c->params[i].name));
		h = hash_bytes(h, s, (size_t)n);
	}
	return h;
}

static int cmp_id(const void *a, const void *b)
{
	const struct variant *x = *(const struct variant *const *)a;
	const struct variant *y = *(const struct variant *const *)b;
	int d = strcmp(x->id, y->id);

	return d ? d : x < y ? -1 : x > y;
}

/* give every variant its id: 'v' + 8 hex digits of its hash; where two variants share those,
   each of that group gets all 16 digits, and where even those are shared, a suffix "-N" in
   variant order. Ids are unique within a space. */
static void space_ids(const struct config *c, struct space *s)
{
	struct variant **p = xcalloc(s->n + 1, sizeof *p);
	size_t i, j, k, round;

	for (i = 0; i < s->n; i++) {
		uint64_t h = variant_hash(c, &s->v[i]);
		snprintf(s->v[i].id, sizeof s->v[i].id, "v%08x", (unsigned)(h ^ (h >> 32)));
		p[i] = &s->v[i];
	}
	for (round = 0; round < 2; round++) {
		int again = 0;
		qsort(p, s->n, sizeof *p, cmp_id);
		for (i = 0; i < s->n; i = j) {
			for (j = i + 1; j < s->n && !strcmp(p[i]->id, p[j]->id); j++)
				;
			for (k = i; j - i > 1 && k < j; k++) {
				uint64_t h = variant_hash(c, p[k]);
				if (round == 0)
					snprintf(p[k]->id, sizeof p[k]->id, "v%016llx", (unsigned long long)h);
				else /* p is in variant order within the group */
					snprintf(p[k]->id + 17, sizeof p[k]->id - 17, "-%zu", k - i + 1);
				again = 1;
			}
		}
		if (!again)
			break;
	}
	free(p);
}

/* the first reason v cannot run, or NULL */
static char *check(const struct config *c, struct variant *v, const struct limits *lim)
{
	int64_t threads = 1;
	size_t i;
	int d;

	for (i = 0; i < c->nconstraints; i++) {
		if (!eval_or_die(c, c->constraints[i].e, v, "constraint"))
			return xasprintf("constraint '%s'", expr_src(c->constraints[i].e));
	}
	for (d = 0; d < 3; d++) {
		v->block[d] = eval_or_die(c, c->kernel.launch.block[d], v, "block");
		v->grid[d] = eval_or_die(c, c->kernel.launch.grid[d], v, "grid");
	}
	v->shared = c->kernel.launch.shared ? eval_or_die(c, c->kernel.launch.shared, v, "shared") : 0;
	v->bank_bytes = c->kernel.launch.bank_bytes
	                ? (int)eval_or_die(c, c->kernel.launch.bank_bytes, v, "bank_bytes") : 0;
	v->bytes = eval_or_die(c, c->bytes, v, "bytes");
	for (d = 0; d < 3; d++) {
		if (v->block[d] < 1)
			return xasprintf("block[%d] = %lld is not positive", d, (long long)v->block[d]);
		if (v->grid[d] < 1)
			return xasprintf("grid[%d] = %lld is not positive", d, (long long)v->grid[d]);
		threads *= v->block[d];
		if (threads > lim->max_threads)
			break;
	}
	if (v->block[2] > 64 || v->block[1] > 1024 || v->block[0] > 1024 || threads > lim->max_threads)
		return xasprintf("%lld threads per block exceed the limit of %d", (long long)threads,
		                 lim->max_threads);
	if (v->grid[0] > 2147483647LL || v->grid[1] > 65535 || v->grid[2] > 65535)
		return xasprintf("grid %lldx%lldx%lld exceeds the limit", (long long)v->grid[0],
		                 (long long)v->grid[1], (long long)v->grid[2]);
	if (v->shared < 0)
		return xasprintf("negative shared memory (%lld bytes)", (long long)v->shared);
	if (v->shared > lim->smem_optin)
		return xasprintf("%lld bytes of shared memory exceed the limit of %lld",
		                 (long long)v->shared, (long long)lim->smem_optin);
	if (v->bank_bytes && v->bank_bytes != 4 && v->bank_bytes != 8)
		return xasprintf("bank_bytes = %d is neither 4 nor 8", v->bank_bytes);
	if (v->bytes <= 0)
		return xasprintf("bytes = %lld is not positive", (long long)v->bytes);
	return NULL;
}

void space_expand(const struct config *c, const struct vars *sizes, const struct limits *lim,
                  struct space *s)
{
	size_t total = 1, i, k;
	size_t *idx = xcalloc(c->nparams + 1, sizeof *idx);

	for (i = 0; i < c->nparams; i++) {
		if (c->params[i].nvals && total > SIZE_MAX / 1024 / c->params[i].nvals)
			fatal("%s: the parameter space is too large", c->path);
		total *= c->params[i].nvals;
	}
	if (total > 1000000)
		fatal("%s: the parameter space has %zu variants (at most 1000000)", c->path, total);
	memset(s, 0, sizeof *s);
	s->v = xcalloc(total, sizeof *s->v);
	s->n = total;
	for (k = 0; k < total; k++) {
		struct variant *v = &s->v[k];

		v->vars = *sizes;
		v->vals = xcalloc(c->nparams + 1, sizeof *v->vals);
		for (i = 0; i < c->nparams; i++) {
			v->vals[i] = c->params[i].vals[idx[i]];
			vars_set(&v->vars, c->params[i].name, v->vals[i]);
		}
		v->drop = check(c, v, lim);
		if (!v->drop)
			s->nkept++;
		for (i = c->nparams; i-- > 0;) { /* odometer, last parameter fastest */
			if (++idx[i] < c->params[i].nvals)
				break;
			idx[i] = 0;
		}
	}
	free(idx);
	space_ids(c, s);
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

	for (k = 0; k < s->n; k++) {
		free(s->v[k].vals);
		free(s->v[k].drop);
	}
	free(s->v);
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
