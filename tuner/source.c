/* source: template + parameter values -> CUDA source text. */
#include "source.h"

void source_defines(struct buf *b, const struct config *c, const struct variant *v)
{
	size_t i;

	for (i = 0; i < c->nparams; i++)
		buf_printf(b, "#define %s %lld\n", c->params[i].name, (long long)v->vals[i]);
}

char *source_variant(const struct config *c, const struct variant *v, const char *tmpl)
{
	struct buf b = {0};
	const char *p;

	source_defines(&b, c, v);
	buf_puts(&b, "#line 1 \"");
	for (p = c->kernel.source; *p; p++) {
		if (*p == '"' || *p == '\\')
			buf_puts(&b, "\\");
		buf_add(&b, p, 1);
	}
	buf_puts(&b, "\"\n");
	buf_puts(&b, tmpl);
	return b.s;
}
