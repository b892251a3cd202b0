/* accesses: the accesses section: the kernel's shared-memory instructions, for the bank model. */
#include "accesses.h"

#include <ctype.h>
#include <string.h>

#include "bank.h"
#include "expr.h"
#include "read.h"
#include "spec.h"
#include "util.h"

/* the thread names bank_eval binds per lane */
static const char *const lane_names[] = {"tx", "ty", "tz", "tid", "lane", "warp", "nthreads"};

/* bind name (a loop variable or a let of access a) in v, checking it is new there */
static void bind_lane_name(struct reader *x, const struct node *n, const char *name,
                           struct vars *v)
{
	int64_t dummy;

	if (bank_reserved(name))
		read_err(x, n, "'%s' is a thread name of accesses; choose another name",
		         read_show(x, name));
	if (vars_get(&x->sizes, name, &dummy))
		read_err(x, n, "'%s' clashes with a size", read_show(x, name));
	if (vars_get(&x->all, name, &dummy))
		read_err(x, n, "'%s' clashes with a parameter", read_show(x, name));
	if (vars_get(v, name, &dummy))
		read_err(x, n, "'%s' is already a loop variable or let of this access",
		         read_show(x, name));
	if (v->n == VARS_MAX)
		read_err(x, n, "more than %d names (sizes, parameters, thread names, loop variables "
		         "and lets)", VARS_MAX);
	vars_set(v, name, 0);
}

/* n, a mapping of exactly one key, as what: its key node and value node */
static void one_key(struct reader *x, const struct node *n, const char *what, struct node **k,
                    struct node **v)
{
	read_want(x, n, N_MAP, what);
	if (n->n != 2)
		read_err(x, n, "each item of '%s' must be a mapping of one name", what);
	*k = n->kid[0];
	*v = n->kid[1];
}

/* parse n as a field of an access that is the same for every thread: sizes and parameters
   only (lv: those and the thread names, to say why a thread name is refused) */
static void get_uniform(struct reader *x, const struct node *n, const char *what,
                        const struct vars *lv, struct expr **dst)
{
	const char *name;
	int col = 0;

	read_expr(x, n, what, lv, dst);
	name = expr_unknown(*dst, &x->all, &col);
	if (name)
		read_err_at(x, n->line, read_col(n, col), "thread name '%s' not allowed in '%s' (sizes "
		            "and parameters only)", read_show(x, name), what);
}

/* arr, of n items of size bytes, grown by one zeroed item */
static void *grow(void *arr, size_t n, size_t size)
{
	char *p = xreallocarray(arr, n + 1, size);

	memset(p + n * size, 0, size);
	return p;
}

/* parse item v of a list of one-name mappings (loops, let), named name at key k, into a */
typedef void named_fn(struct reader *x, struct bank_access *a, const struct node *k,
                      const char *name, const struct node *v, struct vars *lv);

/* seq, a list of at most CFG_ITEMS_MAX mappings of one name each, as what (plural: for the
   message, kind: what a name is): fn parses each item, in order */
static void get_named(struct reader *x, const struct node *seq, const char *what,
                      const char *plural, const char *kind, struct bank_access *a,
                      struct vars *lv, named_fn *fn)
{
	size_t i;

	read_want(x, seq, N_SEQ, what);
	if (seq->n > CFG_ITEMS_MAX)
		read_err(x, seq->kid[CFG_ITEMS_MAX], "more than %d %s", CFG_ITEMS_MAX, plural);
	for (i = 0; i < seq->n; i++) {
		struct node *k, *v;
		one_key(x, seq->kid[i], what, &k, &v);
		fn(x, a, k, read_ident(x, k, kind), v, lv);
	}
}

/* a loop: "var: count" or "var: {from, while, next}" */
static void loop_item(struct reader *x, struct bank_access *a, const struct node *k,
                      const char *name, const struct node *v, struct vars *lv)
{
	struct bank_loop *l;

	a->loops = grow(a->loops, a->nloops, sizeof *a->loops);
	l = &a->loops[a->nloops++]; /* a owns what is parsed into l from here on */
	l->var = xstrdup(name);
	if (v->kind == N_MAP) {
		struct field f[] = {REQ("from", D_NONE), REQ("while", D_NONE),
		                    REQ("next", D_NONE)};
		read_fields(x, v, "loops", f, LEN(f));
		read_expr(x, f[0].v, "from", lv, &l->from);
		bind_lane_name(x, k, name, lv);
		read_expr(x, f[1].v, "while", lv, &l->cond);
		read_expr(x, f[2].v, "next", lv, &l->next);
	} else {
		read_expr(x, v, name, lv, &l->count);
		bind_lane_name(x, k, name, lv);
	}
}

/* a let: "name: expression" */
static void let_item(struct reader *x, struct bank_access *a, const struct node *k,
                     const char *name, const struct node *v, struct vars *lv)
{
	struct bank_let *l;

	a->lets = grow(a->lets, a->nlets, sizeof *a->lets);
	l = &a->lets[a->nlets++]; /* a owns what is parsed into l from here on */
	l->name = xstrdup(name);
	read_expr(x, v, name, lv, &l->value);
	bind_lane_name(x, k, name, lv);
}

void accesses_read(struct reader *x, const struct node *seq)
{
	enum { NAME, ARRAY, OP, ELEM, WIDTH, BASE, IF, LOOPS, LET, WHEN, INDEX };
	struct config *c = x->c;
	size_t i, j;

	read_want(x, seq, N_SEQ, "accesses");
	if (seq->n > CFG_ITEMS_MAX)
		read_err(x, seq->kid[CFG_ITEMS_MAX], "more than %d accesses", CFG_ITEMS_MAX);
	/* bank_eval binds the thread names over the sizes and parameters */
	for (i = 0; i < c->nsizes; i++)
		if (bank_reserved(c->sizes[i].name))
			read_err_at(x, c->sizes[i].loc.line, c->sizes[i].loc.col, "size '%s' is a thread "
			            "name of accesses; choose another name", c->sizes[i].name);
	for (i = 0; i < c->nparams; i++)
		if (bank_reserved(c->params[i].name))
			read_err_at(x, c->params[i].loc.line, c->params[i].loc.col, "parameter '%s' is a "
			            "thread name of accesses; choose another name", c->params[i].name);
	c->accesses = xcalloc(seq->n, sizeof *c->accesses);
	c->access_loc = xcalloc(seq->n, sizeof *c->access_loc);
	for (i = 0; i < seq->n; i++) {
		struct field f[] = {REQ("name", D_NONE), REQ("array", D_NONE), OPT("op", D_NONE),
		                    REQ("elem", D_NONE), OPT("width", D_NONE), OPT("base", D_NONE),
		                    OPT("if", D_NONE), OPT("loops", D_NONE), OPT("let", D_NONE),
		                    OPT("when", D_NONE), REQ("index", D_NONE)};
		struct bank_access *a = &c->accesses[c->naccesses];
		struct vars lv = x->all;
		const char *name, *s;

		read_fields(x, seq->kid[i], "accesses", f, LEN(f));
		name = read_text(x, f[NAME].v, "name");
		for (s = name; *s && (isalnum((unsigned char)*s) || *s == '_'); s++)
			;
		if (*s)
			read_err(x, f[NAME].v, "invalid access name '%s': use letters, digits and '_'",
			         read_show(x, name));
		for (j = 0; j < c->naccesses; j++)
			if (!strcmp(c->accesses[j].name, name))
				read_err(x, f[NAME].v, "duplicate access '%s'", read_show(x, name));
		c->access_loc[c->naccesses] = read_loc(seq->kid[i]);
		a->name = xstrdup(name);
		c->naccesses++;
		s = read_text(x, f[ARRAY].v, "array");
		if (!read_is_ident(s))
			read_err(x, f[ARRAY].v, "'%s' is not a valid identifier", read_show(x, s));
		a->array = xstrdup(s);
		if (f[OP].v) {
			s = read_str(x, f[OP].v, "op");
			if (strcmp(s, "load") && strcmp(s, "store"))
				read_err(x, f[OP].v, "unknown op '%s' (load store)", read_show(x, s));
			a->store = !strcmp(s, "store");
		}
		if (lv.n + (int)LEN(lane_names) > VARS_MAX)
			read_err(x, seq->kid[i], "more than %d names (sizes, parameters and thread "
			         "names)", VARS_MAX);
		for (j = 0; j < LEN(lane_names); j++)
			vars_set(&lv, lane_names[j], 0);
		get_uniform(x, f[ELEM].v, "elem", &lv, &a->elem);
		if (f[WIDTH].v)
			get_uniform(x, f[WIDTH].v, "width", &lv, &a->width);
		if (f[BASE].v)
			get_uniform(x, f[BASE].v, "base", &lv, &a->base);
		if (f[IF].v)
			get_uniform(x, f[IF].v, "if", &lv, &a->cond);
		if (f[LOOPS].v)
			get_named(x, f[LOOPS].v, "loops", "loops", "loop variable", a, &lv, loop_item);
		if (f[LET].v)
			get_named(x, f[LET].v, "let", "lets", "let", a, &lv, let_item);
		if (f[WHEN].v)
			read_expr(x, f[WHEN].v, "when", &lv, &a->when);
		read_expr(x, f[INDEX].v, "index", &lv, &a->index);
	}
}
