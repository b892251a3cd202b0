/* source: template + parameter values -> CUDA source text. */
#include "source.h"

#include <stdlib.h>

#include "observe.h"
#include "space.h"
#include "spec.h"
#include "util.h"

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
	int n;

	source_defines(&b, c, v);
	/* the template's path as a C string literal: a newline or a quote in it cannot end the
	   directive and put text of its own into the source; a control character and a byte
	   of no valid UTF-8 sequence (which NVRTC refuses there) as an octal escape */
	buf_puts(&b, "#line 1 \"");
	for (p = c->kernel.source; *p; p += n) {
		unsigned char u = (unsigned char)*p;
		n = 1;
		if (u == '"' || u == '\\')
			buf_printf(&b, "\\%c", u);
		else if (u < 0x20 || u == 0x7f || !(n = utf8_len(p))) {
			buf_printf(&b, "\\%03o", u);
			n = 1;
		} else
			buf_add(&b, p, (size_t)n);
	}
	buf_puts(&b, "\"\n");
	buf_puts(&b, tmpl);
	return b.s;
}

char *source_compiled(const struct config *c, const struct variant *v, const char *tmpl,
                      const struct observe *o)
{
	struct variant w = *v;
	char *src;

	if (!o)
		return source_variant(c, v, tmpl);
	w.vals = xcalloc(c->nparams + 1, sizeof *w.vals);
	observe_values(o, v->vals, w.vals);
	src = source_variant(c, &w, tmpl);
	free(w.vals);
	return src;
}
