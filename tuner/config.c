/* config: the schema: a YAML kernel description (yamltree, read) into struct config (spec.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "accesses.h"
#include "expr.h"
#include "options.h"
#include "params.h"
#include "read.h"
#include "util.h"
#include "yamltree.h"

#define MAXBYTES (1 << 20) /* largest config file */

static const char *const elem_yaml[] = {"float", "double", "int", "unsigned", "long",
                                        "unsigned_long", "float2", "float4", "double2"};
static const char *const elem_c[] = {"float", "double", "int", "unsigned int", "long long",
                                     "unsigned long long", "float2", "float4", "double2"};
static const size_t elem_bytes[] = {4, 8, 4, 4, 8, 8, 8, 16, 16};
static const int elem_ncomps[] = {1, 1, 1, 1, 1, 1, 2, 4, 2};

static void reader_free(struct reader *x)
{
	yamltree_free(&x->t);
	cfg_free(x->c);
	x->c = NULL;
	free(x->dir);
	x->dir = NULL;
}

static enum elem get_elem(struct reader *x, const struct node *n, const char *what)
{
	const char *s = read_str(x, n, what);
	size_t i;

	for (i = 0; i < LEN(elem_yaml); i++)
		if (!strcmp(s, elem_yaml[i]))
			return (enum elem)i;
	read_err(x, n, "unknown type '%s' (float double int unsigned long unsigned_long float2 "
	         "float4 double2)", read_show(x, s));
}

/* get_elem, of a scalar type only (what: whose type it is) */
static enum elem get_scalar(struct reader *x, const struct node *n, const char *what)
{
	enum elem t = get_elem(x, n, "type");

	if (elem_comps(t) > 1)
		read_err(x, n, "%s cannot be of type %s: vector types are for buffers", what,
		         elem_yaml[t]);
	return t;
}

static struct expr *const_expr(const char *src)
{
	struct expr_err e;
	struct expr *r = expr_parse(src, &e);

	if (!r)
		die("cannot parse constant expression '%s': %s", src, e.msg);
	return r;
}

/* how source_read went */
enum src { SRC_OK, SRC_ERRNO, SRC_BIG, SRC_NUL };

/* read the source file at path into *text (malloc'd; NULL unless SRC_OK): SRC_ERRNO (errno
   set) if it cannot be read, SRC_BIG if it has more than CFG_SOURCE_MAX bytes, SRC_NUL if it
   has a NUL byte (*line: the 1-based line of the first) */
static enum src source_read(const char *path, char **text, int *line)
{
	size_t len, i;
	char *t = file_read_max(path, CFG_SOURCE_MAX, &len);
	const char *z;

	*text = NULL;
	if (!t)
		return SRC_ERRNO;
	if (len > CFG_SOURCE_MAX) {
		free(t);
		return SRC_BIG;
	}
	if ((z = memchr(t, '\0', len))) {
		*line = 1;
		for (i = 0; i < (size_t)(z - t); i++)
			*line += t[i] == '\n';
		free(t);
		return SRC_NUL;
	}
	*text = t;
	return SRC_OK;
}

char *cfg_read_source(const struct config *c, const char *path)
{
	char *t;
	int line = 0;

	switch (source_read(path, &t, &line)) {
	case SRC_OK:
		break;
	case SRC_ERRNO:
		fatal("%s: cannot read '%s':", c->path, path);
	case SRC_BIG:
		fatal("%s: '%s' has more than %d bytes: too large for a source file", c->path, path,
		      CFG_SOURCE_MAX);
	case SRC_NUL:
		fatal("%s: '%s' has a NUL byte on line %d: not a source file", c->path, path, line);
	}
	return t;
}

/* resolve a path relative to the config and check that it names a source file the tuner can
   read (a regular file of at most CFG_SOURCE_MAX bytes without a NUL byte) */
static char *get_source(struct reader *x, const struct field *f, const char *label)
{
	const char *rel = read_text(x, f->v, f->key);
	char *p, *text;
	struct stat st;
	int e, line = 0;

	p = path_join(x->dir, rel);
	if (x->detached)
		return p;
	if (stat(p, &st) < 0) {
		char tried[512];
		e = errno;
		snprintf(tried, sizeof tried, "%s", p);
		free(p);
		if (e == ENOENT || e == ENOTDIR)
			read_err(x, f->k, "%s '%s' not found (looked for %s)", label, read_show(x, rel),
			         read_show(x, tried));
		read_err(x, f->k, "%s '%s': %s", label, read_show(x, rel), strerror(e));
	}
	if (S_ISDIR(st.st_mode)) {
		free(p);
		read_err(x, f->k, "%s '%s' is a directory", label, read_show(x, rel));
	}
	if (!S_ISREG(st.st_mode)) {
		free(p);
		read_err(x, f->k, "%s '%s' is not a regular file", label, read_show(x, rel));
	}
	switch (source_read(p, &text, &line)) {
	case SRC_OK:
		free(text);
		return p;
	case SRC_ERRNO:
		e = errno;
		free(p);
		read_err(x, f->k, "%s '%s': %s", label, read_show(x, rel), strerror(e));
	case SRC_BIG:
		free(p);
		read_err(x, f->k, "%s '%s' has more than %d bytes: too large for a source file", label,
		         read_show(x, rel), CFG_SOURCE_MAX);
	case SRC_NUL:
		free(p);
		read_err(x, f->k, "%s '%s' has a NUL byte on line %d: not a source file", label,
		         read_show(x, rel), line);
	}
	die("source_read: unknown result");
}

/* ---- sections ---- */

static void get_fill(struct reader *x, const struct node *n, struct fill *fl)
{
	static const char *const kinds[] = {"random", "range", "const", "list"};
	const struct node *k, *v;
	size_t i;

	read_want(x, n, N_MAP, "fill");
	if (n->n != 2)
		read_err(x, n, "'fill' must have exactly one of random, range, const, list");
	k = n->kid[0];
	v = n->kid[1];
	for (i = 0; i < LEN(kinds) && strcmp(k->s, kinds[i]); i++)
		;
	if (i == LEN(kinds))
		read_err(x, k, "unknown fill '%s' (random range const list)", read_show(x, k->s));
	fl->kind = (enum fill_kind)i;
	switch (fl->kind) {
	case FILL_RANDOM: {
		struct field f[] = {OPT("seed", D_RESULT), OPT("min", D_RESULT),
		                    OPT("max", D_RESULT)};
		read_fields(x, v, "random", f, LEN(f));
		fl->seed = f[0].v ? (uint64_t)read_int(x, f[0].v, "seed", 0, INT64_MAX) : 1;
		fl->lo = f[1].v ? read_double(x, f[1].v, "min") : -1;
		fl->hi = f[2].v ? read_double(x, f[2].v, "max") : 1;
		if (!(fl->lo < fl->hi))
			read_err(x, v, "'min' must be less than 'max'");
		break;
	}
	case FILL_RANGE: {
		struct field f[] = {OPT("start", D_RESULT), OPT("step", D_RESULT)};
		read_fields(x, v, "range", f, LEN(f));
		fl->start = f[0].v ? read_double(x, f[0].v, "start") : 0;
		fl->step = f[1].v ? read_double(x, f[1].v, "step") : 1;
		break;
	}
	case FILL_CONST:
		fl->value = read_double(x, v, "const");
		break;
	case FILL_LIST:
		read_want(x, v, N_SEQ, "list");
		if (!v->n)
			read_err(x, v, "'list' must not be empty");
		fl->list = xcalloc(v->n, sizeof *fl->list);
		fl->nlist = v->n;
		for (i = 0; i < v->n; i++)
			fl->list[i] = read_double(x, v->kid[i], "list");
		break;
	}
}

static void default_fill(struct fill *fl)
{
	fl->kind = FILL_RANDOM;
	fl->seed = 1;
	fl->lo = -1;
	fl->hi = 1;
}

/* one mapping of sizes: the first (c->sizes empty) names them; each later one, a point of a
   list, gives every one of them a value (into vals) */
static void get_size_map(struct reader *x, const struct node *m, int64_t *vals)
{
	struct config *c = x->c;
	size_t i, k;

	read_want(x, m, N_MAP, "sizes");
	if (!vals)
		c->sizes = xcalloc(m->n / 2 + 1, sizeof *c->sizes);
	for (i = 0; i < m->n; i += 2) {
		struct size *s = &c->sizes[c->nsizes];
		const char *name = read_ident(x, m->kid[i], "size");
		if (strlen(name) > CFG_NAME_MAX) /* it names a point's directory */
			read_err(x, m->kid[i], "size name '%s' has %zu characters: at most %d",
			         read_show(x, name), strlen(name), CFG_NAME_MAX);
		if (vals) {
			for (k = 0; k < c->nsizes && strcmp(c->sizes[k].name, name); k++)
				;
			if (k == c->nsizes)
				read_err(x, m->kid[i], "size '%s' is not in the first point of 'sizes' (every "
				         "point names the same sizes)", read_show(x, name));
			vals[k] = read_int(x, m->kid[i + 1], name, 0, INT64_MAX);
			continue;
		}
		s->val = read_int(x, m->kid[i + 1], name, 0, INT64_MAX);
		s->loc = read_loc(m->kid[i]);
		s->name = xstrdup(name);
		c->nsizes++;
		if (x->all.n == VARS_MAX)
			read_err(x, m->kid[i], "more than %d sizes and parameters", VARS_MAX - 1);
		vars_set(&x->sizes, s->name, 0);
		vars_set(&x->all, s->name, 0);
	}
	if (vals && m->n / 2 != c->nsizes)
		read_err(x, m, "this point of 'sizes' sets %zu of the %zu sizes the first sets (every "
		         "point names the same sizes)", m->n / 2, c->nsizes);
}

/* sizes: {n: 4096} (one point), or [{n: 4096}, {n: 65536}, ...] (the points each kernel is
   tuned at; the first also the sizes of every single-size use of them) */
static void get_sizes(struct reader *x, const struct node *m)
{
	struct config *c = x->c;
	size_t i, j, k;

	if (m->kind != N_SEQ) {
		get_size_map(x, m, NULL);
		return;
	}
	if (!m->n)
		read_err(x, m, "'sizes' lists no point");
	if (m->n > CFG_POINTS_MAX)
		read_err(x, m->kid[CFG_POINTS_MAX], "more than %d points in 'sizes'", CFG_POINTS_MAX);
	if (m->kid[0]->kind == N_MAP && !m->kid[0]->n)
		read_err(x, m->kid[0], "this point of 'sizes' names no size");
	get_size_map(x, m->kid[0], NULL);
	c->points = xcalloc(m->n, sizeof *c->points);
	for (i = 0; i < m->n; i++) {
		struct vsize *p = &c->points[c->npoints];
		p->vals = xcalloc(c->nsizes + 1, sizeof *p->vals);
		p->loc = read_loc(m->kid[i]);
		c->npoints++; /* c owns p->vals from here on */
		for (k = 0; k < c->nsizes; k++)
			p->vals[k] = c->sizes[k].val;
		if (i)
			get_size_map(x, m->kid[i], p->vals);
		p->label = cfg_point_label(c, p->vals);
		for (j = 0; j < i; j++)
			if (!memcmp(c->points[j].vals, p->vals, c->nsizes * sizeof *p->vals))
				read_err(x, m->kid[i], "point %s of 'sizes' is listed twice (also at line %d)",
				         read_show(x, p->label), c->points[j].loc.line);
	}
}

static int find_buffer(const struct config *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nbuffers; i++)
		if (c->buffers[i].name && !strcmp(c->buffers[i].name, name))
			return (int)i;
	return -1;
}

/* a buffer's refill: launch, or variant (not for out buffers) */
static void get_refill(struct reader *x, const struct field *f, struct buffer *b)
{
	const char *s = read_str(x, f->v, "refill");

	if (!strcmp(s, "launch"))
		b->refill = REFILL_LAUNCH;
	else if (!strcmp(s, "variant"))
		b->refill = REFILL_VARIANT;
	else
		read_err(x, f->v, "unknown refill '%s' (launch variant)", read_show(x, s));
	if (b->role == ROLE_OUT && b->refill != REFILL_LAUNCH)
		read_err(x, f->v, "out buffers are poisoned before each variant: their only refill "
		         "is 'launch' (with a 'fill')");
}

static void get_buffers(struct reader *x, const struct node *seq)
{
	static const char *const roles[] = {"in", "out", "scratch"};
	struct config *c = x->c;
	int64_t dummy;
	int nout = 0;
	size_t i, r;

	read_want(x, seq, N_SEQ, "buffers");
	if (seq->n > CFG_ITEMS_MAX)
		read_err(x, seq->kid[CFG_ITEMS_MAX], "more than %d buffers", CFG_ITEMS_MAX);
	c->buffers = xcalloc(seq->n, sizeof *c->buffers);
	for (i = 0; i < seq->n; i++) {
		struct field f[] = {REQ("name", D_RESULT), REQ("type", D_RESULT),
		                    REQ("count", D_RESULT), REQ("role", D_RESULT),
		                    OPT("fill", D_RESULT), OPT("refill", D_RESULT)};
		struct buffer *b = &c->buffers[c->nbuffers];
		const char *name, *role;
		int filled;

		read_fields(x, seq->kid[i], "buffers", f, LEN(f));
		name = read_ident(x, f[0].v, "name");
		if (find_buffer(c, name) >= 0)
			read_err(x, f[0].v, "duplicate buffer '%s'", read_show(x, name));
		if (vars_get(&x->all, name, &dummy))
			read_err(x, f[0].v, "buffer '%s' clashes with a %s", read_show(x, name),
			         vars_get(&x->sizes, name, &dummy) ? "size" : "parameter");
		b->loc = read_loc(seq->kid[i]);
		b->type = get_elem(x, f[1].v, "type");
		role = read_str(x, f[3].v, "role");
		for (r = 0; r < LEN(roles) && strcmp(role, roles[r]); r++)
			;
		if (r == LEN(roles))
			read_err(x, f[3].v, "unknown role '%s' (in out scratch)", read_show(x, role));
		b->role = (enum role)r;
		nout += b->role == ROLE_OUT;
		b->name = xstrdup(name);
		c->nbuffers++;
		read_expr(x, f[2].v, "count", b->role == ROLE_SCRATCH ? &x->all : &x->sizes,
		          &b->count);
		if (f[5].v)
			get_refill(x, &f[5], b);
		filled = b->role != ROLE_OUT || b->refill == REFILL_LAUNCH;
		if (f[4].v && !filled)
			read_err(x, f[4].k, "out buffers take no 'fill' (they are poisoned) unless "
			         "they have 'refill: launch'");
		if (!f[4].v && b->role == ROLE_OUT && filled)
			read_err(x, f[5].k, "an out buffer with 'refill: launch' needs a 'fill': "
			         "what it must hold before every launch");
		if (f[4].v)
			get_fill(x, f[4].v, &b->fill);
		else if (filled)
			default_fill(&b->fill);
	}
	if (!nout)
		read_err(x, seq, "no buffer has role 'out'");
}

static void get_constants(struct reader *x, const struct node *seq)
{
	struct config *c = x->c;
	size_t i, j;

	read_want(x, seq, N_SEQ, "constants");
	if (seq->n > CFG_ITEMS_MAX)
		read_err(x, seq->kid[CFG_ITEMS_MAX], "more than %d constants", CFG_ITEMS_MAX);
	c->constants = xcalloc(seq->n, sizeof *c->constants);
	for (i = 0; i < seq->n; i++) {
		struct field f[] = {REQ("name", D_RESULT), REQ("type", D_RESULT),
		                    REQ("count", D_RESULT), OPT("fill", D_RESULT)};
		struct constant *k = &c->constants[c->nconstants];
		const char *name;

		read_fields(x, seq->kid[i], "constants", f, LEN(f));
		name = read_ident(x, f[0].v, "name");
		for (j = 0; j < c->nconstants; j++)
			if (!strcmp(c->constants[j].name, name))
				read_err(x, f[0].v, "duplicate constant '%s'", read_show(x, name));
		k->loc = read_loc(seq->kid[i]);
		k->type = get_scalar(x, f[1].v, "a constant");
		k->name = xstrdup(name);
		c->nconstants++;
		read_expr(x, f[2].v, "count", &x->sizes, &k->count);
		if (f[3].v)
			get_fill(x, f[3].v, &k->fill);
		else
			default_fill(&k->fill);
	}
}

/* 1 if s spells an infinity or a NaN (YAML's .inf and .nan, C's inf and nan) */
static int non_finite(const char *s)
{
	static const char *const w[] = {"inf", ".inf", "infinity", "nan", ".nan"};
	size_t i, n;

	s += strspn(s, " \t");
	s += *s == '+' || *s == '-';
	for (i = 0; i < LEN(w); i++) {
		n = strlen(w[i]);
		if (!strncasecmp(s, w[i], n) && s[n + strspn(s + n, " \t")] == '\0')
			return 1;
	}
	return 0;
}

static void get_args(struct reader *x, const struct node *seq, struct kernel *k,
                     const struct vars *v)
{
	struct config *c = x->c;
	int64_t dummy;
	size_t i;
	int col;

	read_want(x, seq, N_SEQ, "args");
	if (seq->n > CFG_ITEMS_MAX)
		read_err(x, seq->kid[CFG_ITEMS_MAX], "more than %d args", CFG_ITEMS_MAX);
	k->args = xcalloc(seq->n, sizeof *k->args);
	for (i = 0; i < seq->n; i++) {
		const struct node *n = seq->kid[i], *val = n;
		struct arg *a = &k->args[k->nargs++];
		const char *what = "args";

		a->buffer = -1;
		a->type = EL_I32;
		a->loc = read_loc(n);
		if (n->kind == N_SCALAR && read_is_ident(n->s)) {
			a->buffer = find_buffer(c, n->s);
			if (a->buffer >= 0) {
				a->type = c->buffers[a->buffer].type;
				continue;
			}
			if (!vars_get(&x->all, n->s, &dummy))
				read_err(x, n, "unknown buffer or name '%s'", read_show(x, n->s));
		}
		if (n->kind == N_MAP) {
			struct field f[] = {REQ("value", D_RESULT), OPT("type", D_RESULT)};
			read_fields(x, n, "args", f, LEN(f));
			if (f[0].v->kind == N_SCALAR && find_buffer(c, f[0].v->s) >= 0)
				read_err(x, f[0].v, "buffer '%s' cannot be a scalar value",
				         read_show(x, f[0].v->s));
			if (f[1].v)
				a->type = get_scalar(x, f[1].v, "a scalar argument");
			val = f[0].v;
			what = "value";
		} else if (n->kind != N_SCALAR) {
			read_err(x, n, "'args' items must be buffer names, expressions or "
			               "{value, type}");
		}
		if (non_finite(read_str(x, val, what)))
			read_err(x, val, "argument %zu, '%s', is not a finite number: a kernel argument "
			         "must be finite", i + 1, read_show(x, val->s));
		read_expr_real(x, val, what, v, &a->value);
		if (a->type != EL_F32 && a->type != EL_F64 && expr_real(a->value, &col))
			read_err_at(x, val->line, read_col(val, col), "argument %zu is %s, and '%s' has a "
			            "floating-point value (for a float or double argument, give "
			            "{value: ..., type: float})", i + 1, elem_name(a->type),
			            read_show(x, val->s));
	}
}

/* reference args default to the kernel's: copy them, checking they use sizes only */
static void copy_args(struct reader *x, struct kernel *dst, const struct kernel *src)
{
	size_t i;

	dst->args = xcalloc(src->nargs, sizeof *dst->args);
	for (i = 0; i < src->nargs; i++) {
		const struct arg *s = &src->args[i];
		struct arg *d = &dst->args[dst->nargs++];
		const char *name;
		int col;

		*d = *s;
		d->value = NULL;
		if (!s->value)
			continue;
		d->value = const_expr(expr_src(s->value));
		name = expr_unknown(d->value, &x->sizes, &col);
		if (name)
			read_err_at(x, s->loc.line, s->loc.col, "parameter '%s' in the reference's default "
			            "args: give reference.args", read_show(x, name));
	}
}

static void get_dims(struct reader *x, const struct node *n, const char *what,
                     struct expr **dims, const struct vars *v)
{
	size_t i;

	read_want(x, n, N_SEQ, what);
	if (n->n < 1 || n->n > 3)
		read_err(x, n, "'%s' must have 1 to 3 dimensions", what);
	for (i = 0; i < 3; i++) {
		if (i < n->n)
			read_expr(x, n->kid[i], what, v, &dims[i]);
		else
			dims[i] = const_expr("1");
	}
}

static void get_launch(struct reader *x, const struct node *n, struct launch *l,
                       const struct vars *v)
{
	/* results of the reference's launch; the kernel's is left out as a whole (per variant) */
	struct field f[] = {REQ("block", D_RESULT), REQ("grid", D_RESULT), OPT("shared", D_RESULT),
	                    OPT("bank_bytes", D_RESULT)};

	read_fields(x, n, "launch", f, LEN(f));
	get_dims(x, f[0].v, "block", l->block, v);
	get_dims(x, f[1].v, "grid", l->grid, v);
	if (f[2].v)
		read_expr(x, f[2].v, "shared", v, &l->shared);
	else
		l->shared = const_expr("0");
	if (f[3].v)
		read_expr(x, f[3].v, "bank_bytes", v, &l->bank_bytes);
}

static void get_reference(struct reader *x, const struct node *n)
{
	struct field f[] = {OPT("source", D_CUBIN), REQ("entry", D_RESULT), OPT("args", D_RESULT),
	                    REQ("launch", D_RESULT)};
	struct config *c = x->c;
	struct kernel *r = &c->reference;

	read_fields(x, n, "reference", f, LEN(f));
	r->source = f[0].v ? get_source(x, &f[0], "reference source") : xstrdup(c->kernel.source);
	r->entry = xstrdup(read_ident(x, f[1].v, "entry"));
	if (f[2].v)
		get_args(x, f[2].v, r, &x->sizes);
	else
		copy_args(x, r, &c->kernel);
	get_launch(x, f[3].v, &r->launch, &x->sizes);
	c->has_reference = 1;
}

/* ---- timing: over the defaults walk sets ---- */

static void get_timing(struct reader *x, const struct node *n)
{
	enum { WARMUP, SAMPLES, FLUSH_L2, TIE, PLAYOFF, L2 };
	struct field f[] = {OPT("warmup", D_RESULT), OPT("samples", D_RESULT),
	                    OPT("flush_l2", D_RESULT), OPT("tie", D_NONE), OPT("playoff", D_NONE),
	                    OPT("l2", D_RESULT)};
	struct config *c = x->c;

	read_fields(x, n, "timing", f, LEN(f));
	if (f[WARMUP].v)
		c->warmup = (int)read_int(x, f[WARMUP].v, "warmup", 0, CFG_WARMUP_MAX);
	if (f[SAMPLES].v)
		c->samples = (int)read_int(x, f[SAMPLES].v, "samples", 1, CFG_SAMPLES_MAX);
	if (f[FLUSH_L2].v && f[L2].v)
		read_err(x, f[FLUSH_L2].v, "'flush_l2' and 'l2' both given: 'l2' says it alone "
		         "(flush_l2 true is l2 flush, false is l2 resident)");
	if (f[FLUSH_L2].v) /* the older key */
		c->l2 = read_bool(x, f[FLUSH_L2].v, "flush_l2") ? CFG_L2_FLUSH : CFG_L2_RESIDENT;
	if (f[L2].v) {
		const char *w = read_str(x, f[L2].v, "l2");
		for (c->l2 = 0; c->l2 <= CFG_L2_RESIDENT && strcmp(cfg_l2_words[c->l2], w); c->l2++)
			;
		if (c->l2 > CFG_L2_RESIDENT)
			read_err(x, f[L2].v, "'l2' must be auto, flush or resident, not '%s'",
			         read_show(x, w));
	}
	if (f[TIE].v) {
		c->tie = read_double(x, f[TIE].v, "tie");
		if (!(c->tie >= 0 && c->tie <= CFG_TIE_MAX))
			read_err(x, f[TIE].v, "'tie' must be a fraction from 0 to %g (0.005: medians "
			         "within 0.5 %% tie)", CFG_TIE_MAX);
	}
	if (f[PLAYOFF].v)
		c->playoff = (int)read_int(x, f[PLAYOFF].v, "playoff", 0, CFG_PLAYOFF_MAX);
}

/* search: {budget: N, strategy: S}: the run's search unless the command line names one (the
   strategy's name is checked where the strategies are known: tune_load) */
static void get_search(struct reader *x, const struct node *n)
{
	struct field f[] = {OPT("budget", D_NONE), OPT("strategy", D_NONE)};
	struct config *c = x->c;

	read_fields(x, n, "search", f, LEN(f));
	if (f[0].v)
		c->search_budget = (size_t)read_int(x, f[0].v, "budget", 1, CFG_BUDGET_MAX);
	if (f[1].v) {
		c->search_strategy = xstrdup(read_text(x, f[1].v, "strategy"));
		c->search_loc = read_loc(f[1].v);
	}
}

/* ---- verify: extra sizes every variant is verified at ---- */

/* verify: {sizes: [{NAME: N, ...}, ...]}: each entry the file's sizes with some changed */
static void get_verify(struct reader *x, const struct node *n)
{
	struct field f[] = {REQ("sizes", D_RESULT)};
	struct config *c = x->c;
	const struct node *seq;
	size_t i, j, k;

	read_fields(x, n, "verify", f, LEN(f));
	seq = f[0].v;
	read_want(x, seq, N_SEQ, "sizes");
	if (!seq->n)
		read_err(x, seq, "'sizes' of 'verify' must list at least one entry");
	if (seq->n > CFG_VERIFY_MAX)
		read_err(x, seq->kid[CFG_VERIFY_MAX], "more than %d verify sizes", CFG_VERIFY_MAX);
	c->verify = xcalloc(seq->n, sizeof *c->verify);
	for (i = 0; i < seq->n; i++) {
		const struct node *m = seq->kid[i];
		struct vsize *vs = &c->verify[c->nverify];

		read_want(x, m, N_MAP, "verify sizes");
		if (!m->n)
			read_err(x, m, "a verify size must set at least one size");
		vs->loc = read_loc(m);
		vs->vals = xcalloc(c->nsizes + 1, sizeof *vs->vals);
		c->nverify++; /* c owns vs->vals from here on */
		for (k = 0; k < c->nsizes; k++)
			vs->vals[k] = c->sizes[k].val;
		for (j = 0; j < m->n; j += 2) {
			const char *name = m->kid[j]->s;
			for (k = 0; k < c->nsizes && strcmp(c->sizes[k].name, name); k++)
				;
			if (k == c->nsizes)
				read_err(x, m->kid[j], "unknown size '%s' (a verify size sets sizes "
				         "of 'sizes')", read_show(x, name));
			vs->vals[k] = read_int(x, m->kid[j + 1], name, 0, INT64_MAX);
		}
		vs->label = cfg_point_label(c, vs->vals);
		for (j = 0; j < i; j++)
			if (!memcmp(c->verify[j].vals, vs->vals, c->nsizes * sizeof *vs->vals))
				read_err(x, m, "verify size %s is listed twice (also at line %d)",
				         read_show(x, vs->label), c->verify[j].loc.line);
	}
}

/* ---- the result digest ---- */

/* for qsort: a mapping's (key, value) pairs by key */
static int key_cmp(const void *a, const void *b)
{
	const struct node *const *p = a, *const *q = b;

	return strcmp(p[0]->s, q[0]->s);
}

/* append n to b as canonical text: scalars quoted, mapping keys sorted, so that neither the
   order of keys nor YAML's styles change it; a key whose value is marked other than D_RESULT
   is left out, with all that is under it */
static void canon(struct buf *b, const struct node *n)
{
	const struct node **kv;
	size_t i;
	int any = 0;

	if (n->kind == N_SCALAR) {
		buf_json_str(b, n->s);
		return;
	}
	if (n->kind == N_SEQ) {
		buf_puts(b, "[");
		for (i = 0; i < n->n; i++) {
			if (i)
				buf_puts(b, ",");
			canon(b, n->kid[i]);
		}
		buf_puts(b, "]");
		return;
	}
	kv = xcalloc(n->n, sizeof *kv);
	if (n->n) /* an empty mapping has no kid array */
		memcpy(kv, n->kid, n->n * sizeof *kv);
	qsort(kv, n->n / 2, 2 * sizeof *kv, key_cmp);
	buf_puts(b, "{");
	for (i = 0; i < n->n; i += 2) {
		if (kv[i + 1]->dig != D_UNMARKED && kv[i + 1]->dig != D_RESULT)
			continue;
		if (any++)
			buf_puts(b, ",");
		buf_json_str(b, kv[i]->s);
		buf_puts(b, ":");
		canon(b, kv[i + 1]);
	}
	buf_puts(b, "}");
	free(kv);
}

/* the hash of the canonical text of what of the document is in the digest */
static uint64_t result_digest(const struct node *root)
{
	struct buf b = {0};
	uint64_t h;

	canon(&b, root);
	h = hash_bytes(HASH_INIT, b.s, b.len);
	buf_free(&b);
	return h;
}

/* ---- integer random fills ---- */

/* the value of key in mapping m, or NULL */
static const struct node *map_get(const struct node *m, const char *key)
{
	size_t i;

	for (i = 0; m && m->kind == N_MAP && i < m->n; i += 2)
		if (m->kid[i]->kind == N_SCALAR && !strcmp(m->kid[i]->s, key))
			return m->kid[i + 1];
	return NULL;
}

/* a random fill (fl, as written at item: a buffer or constant of kind and name) of an integer
   type t draws floor(min + (max - min) * u), u uniform in [0, 1): refuse bounds that are not
   integers, beyond t or that leave one value, none of which a user means */
static void check_int_random(struct reader *x, const struct node *item, const char *kind,
                             const char *name, enum elem t, const struct fill *fl)
{
	/* the smallest value of t, and one more than its largest (exact doubles) */
	static const double tmin[] = {0, 0, -2147483648.0, 0, -9223372036854775808.0, 0};
	static const double tend[] = {0, 0, 2147483648.0, 4294967296.0, 9223372036854775808.0,
	                              18446744073709551616.0};
	const struct node *fill = map_get(item, "fill"), *r, *at[2];
	const double b[2] = {fl->lo, fl->hi};
	const char *key[2] = {"min", "max"};
	int i;

	if (elem_scalar(t) == EL_F32 || elem_scalar(t) == EL_F64 || fl->kind != FILL_RANDOM ||
	    !fill)
		return;
	r = fill->kid[1]; /* {random: r} */
	for (i = 0; i < 2; i++) {
		at[i] = map_get(r, key[i]);
		if (at[i] && b[i] != floor(b[i]))
			read_err(x, at[i], "'%s' must be an integer for %s '%s' of type %s, not '%s'",
			         key[i], kind, read_show(x, name), elem_yaml[t], read_show(x, at[i]->s));
	}
	if (b[0] < tmin[t])
		read_err(x, at[0] ? at[0] : r, "'min'%s %.0f is below the smallest %s, %.0f, for %s "
		         "'%s'", at[0] ? "" : " (default)", b[0], elem_yaml[t], tmin[t], kind,
		         read_show(x, name));
	if (b[1] > tend[t])
		read_err(x, at[1] ? at[1] : r, "'max'%s %.0f is beyond the largest %s, %.0f (max is "
		         "excluded: at most %.0f), for %s '%s'", at[1] ? "" : " (default)", b[1],
		         elem_yaml[t], tend[t] - 1, tend[t], kind, read_show(x, name));
	if (b[1] - b[0] < 2)
		read_err(x, r, "'min' %.0f and 'max' %.0f leave %s '%s' of type %s one value, %.0f "
		         "(max is excluded): not a random fill; widen the range", b[0], b[1], kind,
		         read_show(x, name), elem_yaml[t], b[0]);
}

/* check_int_random for every buffer (the items of seq) and constant (of cseq; may be NULL) */
static void check_int_fills(struct reader *x, const struct node *seq, const struct node *cseq)
{
	const struct config *c = x->c;
	size_t i;

	for (i = 0; i < c->nbuffers; i++)
		check_int_random(x, seq->kid[i], "buffer", c->buffers[i].name, c->buffers[i].type,
		                 &c->buffers[i].fill);
	for (i = 0; i < c->nconstants; i++)
		check_int_random(x, cseq->kid[i], "constant", c->constants[i].name,
		                 c->constants[i].type, &c->constants[i].fill);
}

/* ---- the root ---- */

static void walk(struct reader *x)
{
	enum { NAME, TEMPLATE, ENTRY, OPTIONS, SIZES, PARAMS, CONSTRAINTS, BUFFERS, CONSTANTS,
	       ARGS, LAUNCH, BYTES, REFERENCE, TOLERANCE, TIMING, ACCESSES, VERIFY, SEARCH };
	/* whether each section can change a result, and how the journal covers it: enum dig */
	struct field f[] = {
		REQ("name", D_NONE), REQ("template", D_CUBIN), REQ("entry", D_RESULT),
		OPT("options", D_CUBIN), REQ("sizes", D_SIZES), REQ("params", D_VARIANT),
		OPT("constraints", D_VARIANT), REQ("buffers", D_RESULT), OPT("constants", D_RESULT),
		REQ("args", D_RESULT), REQ("launch", D_VARIANT), REQ("bytes", D_VARIANT),
		REQ("reference", D_RESULT), OPT("tolerance", D_RESULT), OPT("timing", D_RESULT),
		OPT("accesses", D_NONE), OPT("verify", D_RESULT), OPT("search", D_NONE),
	};
	struct config *c = x->c;
	const char *s;
	size_t i;

	read_fields(x, x->t.root, "root", f, LEN(f));

	s = read_text(x, f[NAME].v, "name");
	for (i = 0; s[i]; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			break;
	if (s[i])
		read_err(x, f[NAME].v, "invalid name '%s': use letters, digits and '_'",
		         read_show(x, s));
	if (isdigit((unsigned char)s[0]))
		read_err(x, f[NAME].v, "invalid name '%s': it must not start with a digit (it "
		         "begins C identifiers in the launch header)", read_show(x, s));
	if (i > CFG_NAME_MAX)
		read_err(x, f[NAME].v, "name '%s' has %zu characters: at most %d", read_show(x, s), i,
		         CFG_NAME_MAX);
	c->name = xstrdup(s);
	c->kernel.source = get_source(x, &f[TEMPLATE], "template");
	c->kernel.entry = xstrdup(read_ident(x, f[ENTRY].v, "entry"));

	if (f[OPTIONS].v) {
		const struct node *n = f[OPTIONS].v;
		read_want(x, n, N_SEQ, "options");
		c->options = xcalloc(n->n, sizeof *c->options);
		for (i = 0; i < n->n; i++) {
			s = read_text(x, n->kid[i], "options");
			options_check(&x->t, n->kid[i], s);
			c->options[c->noptions++] = xstrdup(s);
		}
	}

	get_sizes(x, f[SIZES].v);
	params_read(x, f[PARAMS].v);

	if (f[CONSTRAINTS].v) {
		const struct node *n = f[CONSTRAINTS].v;
		read_want(x, n, N_SEQ, "constraints");
		c->constraints = xcalloc(n->n, sizeof *c->constraints);
		for (i = 0; i < n->n; i++) {
			struct constraint *k = &c->constraints[c->nconstraints++];
			k->loc = read_loc(n->kid[i]);
			read_expr(x, n->kid[i], "constraints", &x->all, &k->e);
		}
	}

	get_buffers(x, f[BUFFERS].v);
	if (f[CONSTANTS].v)
		get_constants(x, f[CONSTANTS].v);
	check_int_fills(x, f[BUFFERS].v, f[CONSTANTS].v);
	get_args(x, f[ARGS].v, &c->kernel, &x->all);
	get_launch(x, f[LAUNCH].v, &c->kernel.launch, &x->all);
	read_expr(x, f[BYTES].v, "bytes", &x->all, &c->bytes);
	get_reference(x, f[REFERENCE].v);

	c->rtol = 1e-5;
	c->atol = 1e-6;
	if (f[TOLERANCE].v) {
		struct field t[] = {OPT("rel", D_RESULT), OPT("abs", D_RESULT)};
		read_fields(x, f[TOLERANCE].v, "tolerance", t, LEN(t));
		for (i = 0; i < LEN(t); i++) {
			double d;
			if (!t[i].v)
				continue;
			d = read_double(x, t[i].v, t[i].key);
			if (d < 0)
				read_err(x, t[i].v, "'%s' must not be negative", t[i].key);
			*(i ? &c->atol : &c->rtol) = d;
		}
	}

	c->warmup = 1;
	c->samples = 10;
	c->l2 = CFG_L2_AUTO;
	c->tie = 0.005;
	c->playoff = 5;
	if (f[TIMING].v)
		get_timing(x, f[TIMING].v);
	if (f[ACCESSES].v)
		accesses_read(x, f[ACCESSES].v);
	if (f[VERIFY].v)
		get_verify(x, f[VERIFY].v);
	if (f[SEARCH].v)
		get_search(x, f[SEARCH].v);
	c->result_digest = result_digest(x->t.root);
}

/* ---- interface ---- */

/* cfg_parse, with the source paths checked unless detached */
static struct config *parse_text(const char *path, const char *text, size_t len, int detached,
                                 char *err, size_t errlen)
{
	struct reader *x = xcalloc(1, sizeof *x); /* lives in memory across the longjmp */
	struct config *c = NULL;

	x->detached = detached;
	x->t.path = path;
	x->t.text = text;
	x->t.len = len;
	if (setjmp(x->t.fail) == 0) {
		x->dir = path_dir(path);
		x->c = xcalloc(1, sizeof *x->c);
		x->c->path = xstrdup(path);
		vars_set(&x->sizes, CFG_SMS, 0); /* set by the tuner */
		vars_set(&x->all, CFG_SMS, 0);
		yamltree_parse(&x->t);
		walk(x);
		c = x->c;
		x->c = NULL;
	} else if (errlen > 0) {
		snprintf(err, errlen, "%s", x->t.err);
	}
	reader_free(x);
	free(x);
	return c;
}

struct config *cfg_parse(const char *path, const char *text, size_t len, char *err,
                         size_t errlen)
{
	return parse_text(path, text, len, 0, err, errlen);
}

struct config *cfg_parse_detached(const char *path, const char *text, size_t len, char *err,
                                  size_t errlen)
{
	return parse_text(path, text, len, 1, err, errlen);
}

struct config *cfg_load_text(const char *path, char **textp, size_t *lenp)
{
	size_t len, errlen = strlen(path) + 64 + YAMLTREE_MSG_MAX;
	char *text = file_read_max(path, MAXBYTES, &len), *err;
	struct config *c;

	if (!text)
		fatal("%s: cannot read config:", path);
	if (len > MAXBYTES) {
		free(text);
		fatal("%s: more than %d bytes: too large for a config", path, MAXBYTES);
	}
	err = xmalloc(errlen);
	c = cfg_parse(path, text, len, err, errlen);
	if (!c) {
		free(text);
		fatal("%s", err);
	}
	free(err);
	if (textp) {
		*textp = text;
		*lenp = len;
	} else {
		free(text);
	}
	return c;
}

size_t elem_size(enum elem t)
{
	if ((size_t)t >= LEN(elem_bytes))
		die("bad element type %d", (int)t);
	return elem_bytes[t];
}

size_t elem_comps(enum elem t)
{
	if ((size_t)t >= LEN(elem_ncomps))
		die("bad element type %d", (int)t);
	return (size_t)elem_ncomps[t];
}

enum elem elem_scalar(enum elem t)
{
	return t == EL_F32X2 || t == EL_F32X4 ? EL_F32 : t == EL_F64X2 ? EL_F64 : t;
}

const char *elem_name(enum elem t)
{
	if ((size_t)t >= LEN(elem_c))
		die("bad element type %d", (int)t);
	return elem_c[t];
}
