/* read: a config's tree read into struct config: typed values checked at their nodes. */
#ifndef TUNER_READ_H
#define TUNER_READ_H

#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>
#include "spec.h"
#include "vars.h"
#include "yamltree.h"

struct expr;

/* Whether a config field can change a variant's GPU result (its output, the check against
   the reference, its timing), so that the journal must not reuse a result across a change of
   it, and whether the journal hashes it through config.result_digest or otherwise. Every
   entry of a field table says which. A value is in the digest when the entries of all the
   fields it is in say D_RESULT; what no table checks (list items, a fill's kind, the items of
   sizes or params) is as the field it is in. The sections, as the tables of config.c, params.c
   and accesses.c say:
   - in the digest: entry, buffers, constants, args, reference (but its source), tolerance,
     timing, verify (journal_context also hashes its sizes as resolved, the file's sizes
     filling in what an entry leaves out);
   - per variant, so left out: params and constraints (they choose the variants), launch and
     bytes (journal_key hashes each variant's parameters, geometry and bytes);
   - compiled: template, options and reference.source reach a result only through a cubin,
     and journal_key and journal_context hash the cubins;
   - sizes: journal_context hashes the sizes as bound, so that --size counts;
   - never a result: name (output paths only), accesses (the bank model's prediction).
   Only what the file says is hashed, not the loader's defaults: change a default, change the
   journal's MAGIC. */
enum dig {
	D_UNMARKED, /* a value no table checked: as the field it is in */
	D_RESULT,   /* can change a result: in the digest (if its section is) */
	D_VARIANT,  /* per variant: the journal key hashes the variant */
	D_CUBIN,    /* reaches a result only through a cubin the journal key hashes */
	D_SIZES,    /* the sizes: journal_context hashes them as bound */
	D_NONE,     /* changes no result */
};

/* a config being read */
struct reader {
	struct yamltree t;      /* the document; an error jumps back to cfg_parse */
	char *dir;              /* directory of t.path */
	size_t capat;           /* of c->at */
	struct config *c;       /* under construction; freed on error */
	struct vars sizes;      /* every size bound to 0 */
	struct vars all;        /* every size and parameter bound to 0 */
	int detached;           /* cfg_parse_detached: source paths are not checked */
};

/* a key of a fixed-schema mapping, and whether it can change a result (enum dig) */
struct field {
	const char *key;
	int req;
	enum dig dig;
	struct node *k, *v;
};
#define REQ(key, dig) {key, 1, dig, NULL, NULL}
#define OPT(key, dig) {key, 0, dig, NULL, NULL}

/* s as quoted in a message (yamltree_show) */
const char *read_show(struct reader *x, const char *s);
/* report an error at a 1-based position and return to cfg_parse */
__attribute__((format(printf, 4, 5)))
noreturn void read_err_at(struct reader *x, int line, int col, const char *fmt, ...);
/* report an error at a node and return to cfg_parse */
__attribute__((format(printf, 3, 4)))
noreturn void read_err(struct reader *x, const struct node *n, const char *fmt, ...);
/* where n is in the file */
struct loc read_loc(const struct node *n);
/* refuse n unless it is of kind k (what: its name in the message) */
void read_want(struct reader *x, const struct node *n, enum nkind k, const char *what);
/* check a fixed-schema mapping: every key known, every required key present; f[i].k and
   f[i].v get the key and value of f[i].key (NULL if absent), the value its dig */
void read_fields(struct reader *x, const struct node *m, const char *what, struct field *f,
                 size_t nf);
/* n's text: a scalar, not null */
const char *read_str(struct reader *x, const struct node *n, const char *what);
/* a string that names something: neither empty nor only white space */
const char *read_text(struct reader *x, const struct node *n, const char *what);
/* 1 if s is a C identifier */
int read_is_ident(const char *s);
/* an identifier; a size or parameter (what) may not be CFG_SMS */
const char *read_ident(struct reader *x, const struct node *n, const char *what);
/* s as an integer, decimal or 0x hex, into *out: 0, -1 if not an integer, -2 if out of range */
int read_i64(const char *s, int64_t *out);
/* an integer from lo to hi */
int64_t read_int(struct reader *x, const struct node *n, const char *what, int64_t lo,
                 int64_t hi);
/* a finite number */
double read_double(struct reader *x, const struct node *n, const char *what);
/* true or false */
int read_bool(struct reader *x, const struct node *n, const char *what);
/* the 1-based column of byte col of n's text (exact for one-line flow scalars) */
int read_col(const struct node *n, int col);
/* 1 if n may be the start of an expression that a ',' in a flow collection cut short: an
   unquoted flow scalar with an unclosed '(' */
int read_cut_expr(const struct node *n);
/* parse n as an expression into *dst, using only the names in v; its place goes into c->at */
void read_expr(struct reader *x, const struct node *n, const char *what, const struct vars *v,
               struct expr **dst);
/* read_expr that also takes floating-point values (expr_real) */
void read_expr_real(struct reader *x, const struct node *n, const char *what,
                    const struct vars *v, struct expr **dst);

#endif
