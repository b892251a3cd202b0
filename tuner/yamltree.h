/* yamltree: one YAML document (libyaml) as a tree of nodes with their places in the text. */
#ifndef TUNER_YAMLTREE_H
#define TUNER_YAMLTREE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdnoreturn.h>

#define YAMLTREE_DEPTH 64     /* deepest nesting of sequences and mappings */
#define YAMLTREE_SHOW_MAX 60  /* bytes of a user's string quoted in a message */
#define YAMLTREE_MSG_MAX 512  /* bytes of a message after the location */

enum nkind { N_SCALAR, N_SEQ, N_MAP };

struct node {
	enum nkind kind;
	int line, col;          /* 1-based */
	char *s;                /* scalar text */
	int quoted;             /* scalar in single or double quotes */
	int block;              /* literal or folded block scalar */
	int flow;               /* a collection in flow style, or a scalar inside one */
	int dig;                /* what the field table that checked this value says of it
	                           (read.h: enum dig); 0 if none did */
	struct node **kid;      /* seq: items; map: key, value, key, value, ... */
	size_t n, cap;
};

struct yamltree_live; /* libyaml's parser and the keys seen, while parsing */

struct yamltree {
	const char *path;       /* as given by the user, for messages */
	const char *text;       /* the caller's */
	size_t len;
	jmp_buf fail;           /* an error jumps back here (the caller's setjmp) */
	char *err;              /* "path:line:col: msg", set before the jump */
	struct node *root;      /* the document, a mapping */
	struct yamltree_live *live;
	char show[4][YAMLTREE_SHOW_MAX * 4 + 8]; /* yamltree_show's results, used in turn */
	int nshow;
};

/* parse t->text (t->len bytes) into t->root: one document, a mapping, nested at most
   YAMLTREE_DEPTH deep, without anchors, aliases, tags other than YAML's or duplicate keys */
void yamltree_parse(struct yamltree *t);
/* free what t holds: its tree, the parser's state, the error */
void yamltree_free(struct yamltree *t);
/* s as quoted in a message: buf_safe's text of at most YAMLTREE_SHOW_MAX bytes of s; valid
   until four more calls */
const char *yamltree_show(struct yamltree *t, const char *s);
/* report an error at a 1-based position (ap: fmt's arguments) and jump to t->fail */
__attribute__((format(printf, 4, 0)))
noreturn void yamltree_verr(struct yamltree *t, int line, int col, const char *fmt, va_list ap);
/* report an error at a 1-based position and jump to t->fail */
__attribute__((format(printf, 4, 5)))
noreturn void yamltree_err_at(struct yamltree *t, int line, int col, const char *fmt, ...);
/* report an error at node n and jump to t->fail */
__attribute__((format(printf, 3, 4)))
noreturn void yamltree_err(struct yamltree *t, const struct node *n, const char *fmt, ...);
/* 1 if n is a null scalar: empty, "~" or "null" unquoted */
int yamltree_null(const struct node *n);

#endif
