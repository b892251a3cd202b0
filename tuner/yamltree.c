/* yamltree: one YAML document (libyaml) as a tree of nodes with their places in the text. */
#include "yamltree.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "util.h"

/* a key of a mapping (in the hash set of keys seen) */
struct seen {
	const struct node *map, *key;
};

struct yamltree_live {
	yaml_parser_t parser;
	int parser_live;
	yaml_event_t ev;
	int ev_live;
	struct seen *seen;      /* every mapping key so far, hashed, to find duplicates */
	size_t nseen, capseen;
};

static void node_free(struct node *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->n; i++)
		node_free(n->kid[i]);
	free(n->kid);
	free(n->s);
	free(n);
}

const char *yamltree_show(struct yamltree *x, const char *s)
{
	char *b = x->show[x->nshow++ % LEN(x->show)];
	struct buf o = {0};

	buf_safe(&o, s, YAMLTREE_SHOW_MAX);
	snprintf(b, sizeof x->show[0], "%s", o.s ? o.s : "");
	buf_free(&o);
	return b;
}

noreturn void yamltree_verr(struct yamltree *x, int line, int col, const char *fmt, va_list ap)
{
	char msg[YAMLTREE_MSG_MAX];

	vsnprintf(msg, sizeof msg, fmt, ap);
	x->err = xasprintf("%s:%d:%d: %s", x->path, line, col, msg);
	longjmp(x->fail, 1);
}

noreturn void yamltree_err_at(struct yamltree *x, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	yamltree_verr(x, line, col, fmt, ap);
}

noreturn void yamltree_err(struct yamltree *x, const struct node *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	yamltree_verr(x, n->line, n->col, fmt, ap);
}

/* ---- YAML events -> tree ---- */

/* the length of the line break at byte i, or 0: as libyaml counts lines, CR LF, CR, LF,
   NEL, LS and PS each end one */
static size_t line_break(const struct yamltree *x, size_t i)
{
	const unsigned char *t = (const unsigned char *)x->text;
	size_t n = x->len - i;

	if (t[i] == '\r')
		return n > 1 && t[i + 1] == '\n' ? 2 : 1;
	if (t[i] == '\n')
		return 1;
	if (n > 1 && t[i] == 0xc2 && t[i + 1] == 0x85)
		return 2;
	if (n > 2 && t[i] == 0xe2 && t[i + 1] == 0x80 && (t[i + 2] == 0xa8 || t[i + 2] == 0xa9))
		return 3;
	return 0;
}

/* the 1-based line and column (in characters) of byte off */
static void line_col(const struct yamltree *x, size_t off, int *line, int *col)
{
	size_t i = 0, b;

	*line = *col = 1;
	while (i < off && i < x->len) {
		if ((b = line_break(x, i))) {
			++*line;
			*col = 1;
			i += b;
			continue;
		}
		if (((unsigned char)x->text[i] & 0xc0) != 0x80)
			++*col;
		i++;
	}
}

/* the byte at a 1-based line and column (in characters), or 0 */
static char char_at(const struct yamltree *x, int line, int col)
{
	size_t i = 0, b;

	while (line > 1 && i < x->len) {
		if ((b = line_break(x, i))) {
			line--;
			i += b;
		} else {
			i++;
		}
	}
	for (; i < x->len && !line_break(x, i); i++) {
		if (((unsigned char)x->text[i] & 0xc0) == 0x80)
			continue;
		if (--col == 0)
			return x->text[i];
	}
	return 0;
}

static void yaml_fail(struct yamltree *x)
{
	yaml_parser_t *p = &x->live->parser;
	const char *problem = p->problem ? p->problem : "invalid yaml";
	int line = (int)p->problem_mark.line + 1, col = (int)p->problem_mark.column + 1;
	int eline, ecol;
	char ctxbuf[128] = "";

	if (p->error == YAML_MEMORY_ERROR)
		die("libyaml: out of memory");
	line_col(x, x->len, &eline, &ecol);
	if (p->error != YAML_READER_ERROR && p->encoding == YAML_UTF8_ENCODING && x->len > 0 &&
	    !line_break(x, x->len - 1) && line == eline + 1 && col == 1) {
		/* libyaml ends the last line before the end of the stream: say where the text ends */
		line = eline;
		col = ecol;
	} else if (p->error == YAML_READER_ERROR) {
		/* the reader reports a byte offset only; a bad trailing octet, at the character */
		size_t off = p->problem_offset, k;
		if (!strcmp(problem, "invalid trailing UTF-8 octet"))
			for (k = 1; k <= 3 && k <= off && off < x->len; k++)
				if (((unsigned char)x->text[off - k] & 0xc0) == 0xc0) {
					off -= k;
					break;
				}
		line_col(x, off, &line, &col);
	}
	if (p->error == YAML_SCANNER_ERROR && char_at(x, line, col) == '\t')
		yamltree_err_at(x, line, col, "tab character: indent with spaces");
	if (p->context && (p->context_mark.line != p->problem_mark.line ||
	                   p->context_mark.column != p->problem_mark.column))
		snprintf(ctxbuf, sizeof ctxbuf, " (%s at %d:%d)", p->context,
		         (int)p->context_mark.line + 1, (int)p->context_mark.column + 1);
	yamltree_err_at(x, line, col, "%s%s", problem, ctxbuf);
}

static void check_props(struct yamltree *x, const yaml_mark_t *m, const yaml_char_t *anchor,
                        const yaml_char_t *tag)
{
	static const char std[] = "tag:yaml.org,2002:";

	if (anchor)
		yamltree_err_at(x, (int)m->line + 1, (int)m->column + 1,
		                "anchors are not supported");
	if (tag && strncmp((const char *)tag, std, sizeof std - 1))
		yamltree_err_at(x, (int)m->line + 1, (int)m->column + 1, "unsupported tag '%s'",
		                yamltree_show(x, (const char *)tag));
}

int yamltree_null(const struct node *n)
{
	static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};
	size_t i;

	if (n->kind != N_SCALAR || n->quoted || n->block)
		return 0;
	for (i = 0; i < LEN(nulls); i++)
		if (!strcmp(n->s, nulls[i]))
			return 1;
	return 0;
}

static size_t seen_slot(const struct seen *tab, size_t cap, const struct node *map,
                        const struct node *key)
{
	uintptr_t m = (uintptr_t)map;
	size_t i = (size_t)hash_bytes(hash_bytes(HASH_INIT, &m, sizeof m), key->s, strlen(key->s));

	for (i &= cap - 1; tab[i].key; i = (i + 1) & (cap - 1))
		if (tab[i].map == map && !strcmp(tab[i].key->s, key->s))
			break;
	return i;
}

/* 1 if map already has key (as a string), else remember it; linear in the number of keys */
static int seen_add(struct yamltree_live *x, const struct node *map, const struct node *key)
{
	size_t i;

	if (2 * (x->nseen + 1) > x->capseen) {
		size_t cap = x->capseen ? 2 * x->capseen : 64;
		struct seen *tab = xcalloc(cap, sizeof *tab);
		for (i = 0; i < x->capseen; i++)
			if (x->seen[i].key)
				tab[seen_slot(tab, cap, x->seen[i].map, x->seen[i].key)] = x->seen[i];
		free(x->seen);
		x->seen = tab;
		x->capseen = cap;
	}
	i = seen_slot(x->seen, x->capseen, map, key);
	if (x->seen[i].key)
		return 1;
	x->seen[i].map = map;
	x->seen[i].key = key;
	x->nseen++;
	return 0;
}

/* hang n under the innermost open collection (or make it the root) */
static void attach(struct yamltree *x, struct node **stack, int depth, struct node *n)
{
	struct node *p;

	if (depth == 0) {
		node_free(x->root); /* cannot happen: one document, one root */
		x->root = n;
		return;
	}
	p = stack[depth - 1];
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 8;
		p->kid = xreallocarray(p->kid, p->cap, sizeof *p->kid);
	}
	p->kid[p->n++] = n;
	n->flow |= p->flow;
	if (p->kind != N_MAP)
		return;
	if (p->n % 2 == 0) {
		/* a value: an empty one is reported at its key */
		struct node *k = p->kid[p->n - 2];
		if (n->kind == N_SCALAR && !n->quoted && !n->s[0]) {
			n->line = k->line;
			n->col = k->col;
		}
		return;
	}
	if (n->kind != N_SCALAR)
		yamltree_err(x, n, "mapping keys must be scalars");
	if (seen_add(x->live, p, n))
		yamltree_err(x, n, "duplicate key '%s'", yamltree_show(x, n->s));
}

static struct node *node_new(enum nkind k, const yaml_mark_t *m)
{
	struct node *n = xcalloc(1, sizeof *n);

	n->kind = k;
	n->line = (int)m->line + 1;
	n->col = (int)m->column + 1;
	return n;
}

void yamltree_parse(struct yamltree *x)
{
	struct yamltree_live *l = x->live = xcalloc(1, sizeof *x->live);
	struct node *stack[YAMLTREE_DEPTH], *n;
	yaml_event_t *ev = &l->ev;
	int depth = 0, docs = 0, done = 0;

	if (!yaml_parser_initialize(&l->parser))
		die("libyaml: cannot initialize the parser");
	l->parser_live = 1;
	yaml_parser_set_input_string(&l->parser, (const unsigned char *)x->text, x->len);
	while (!done) {
		if (!yaml_parser_parse(&l->parser, ev))
			yaml_fail(x);
		l->ev_live = 1;
		switch (ev->type) {
		case YAML_DOCUMENT_START_EVENT:
			if (docs++)
				yamltree_err_at(x, (int)ev->start_mark.line + 1,
				                (int)ev->start_mark.column + 1, "more than one document");
			break;
		case YAML_ALIAS_EVENT:
			yamltree_err_at(x, (int)ev->start_mark.line + 1, (int)ev->start_mark.column + 1,
			                "aliases are not supported");
		case YAML_SCALAR_EVENT:
			check_props(x, &ev->start_mark, ev->data.scalar.anchor, ev->data.scalar.tag);
			n = node_new(N_SCALAR, &ev->start_mark);
			n->s = xstrndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
			n->quoted = ev->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
			            ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
			n->block = ev->data.scalar.style == YAML_LITERAL_SCALAR_STYLE ||
			           ev->data.scalar.style == YAML_FOLDED_SCALAR_STYLE;
			attach(x, stack, depth, n);
			if (strlen(n->s) != ev->data.scalar.length)
				yamltree_err(x, n, "scalar contains a nul character");
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (ev->type == YAML_SEQUENCE_START_EVENT)
				check_props(x, &ev->start_mark, ev->data.sequence_start.anchor,
				            ev->data.sequence_start.tag);
			else
				check_props(x, &ev->start_mark, ev->data.mapping_start.anchor,
				            ev->data.mapping_start.tag);
			if (depth == YAMLTREE_DEPTH)
				yamltree_err_at(x, (int)ev->start_mark.line + 1,
				                (int)ev->start_mark.column + 1, "nested deeper than %d levels",
				                YAMLTREE_DEPTH);
			n = node_new(ev->type == YAML_SEQUENCE_START_EVENT ? N_SEQ : N_MAP,
			             &ev->start_mark);
			n->flow = ev->type == YAML_SEQUENCE_START_EVENT
			          ? ev->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE
			          : ev->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
			attach(x, stack, depth, n);
			stack[depth++] = n;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		default:
			break;
		}
		yaml_event_delete(ev);
		l->ev_live = 0;
	}
	yaml_parser_delete(&l->parser);
	l->parser_live = 0;
	if (!x->root || yamltree_null(x->root))
		yamltree_err_at(x, 1, 1, "empty config");
	if (x->root->kind != N_MAP)
		yamltree_err(x, x->root, "root must be a mapping");
}


void yamltree_free(struct yamltree *x)
{
	if (x->live) {
		if (x->live->ev_live)
			yaml_event_delete(&x->live->ev);
		if (x->live->parser_live)
			yaml_parser_delete(&x->live->parser);
		free(x->live->seen);
		free(x->live);
		x->live = NULL;
	}
	node_free(x->root);
	x->root = NULL;
	free(x->err);
	x->err = NULL;
}
