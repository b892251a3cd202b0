/* wrap: prose wrapped to fit in a width of columns. */
#include "wrap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* where the line [p, end) (the first of its text when first) breaks to fit in room columns:
   its last space within them after its indent, else its first space after them; NULL: it
   fits, or has no space to break at */
static const char *wrap_at(const char *p, const char *end, size_t room, size_t indent)
{
	const char *q, *cut = NULL;

	if ((size_t)(end - p) <= room)
		return NULL;
	for (q = p + indent; q < end && (q <= p + room || !cut); q++)
		if (*q == ' ' && q > p + indent && q[-1] != ' ')
			cut = q;
	return cut;
}

void wrap_begin(struct wrapped *w)
{
	w->s = NULL;
	w->len = 0;
	if (!(w->f = open_memstream(&w->s, &w->len))) { /* out of memory: as xmalloc would */
		fputs("tuner: internal error: out of memory opening a stream in memory\n", stderr);
		abort();
	}
}

void wrap_end(struct wrapped *w, FILE *f)
{
	if (fclose(w->f)) {
		fputs("tuner: internal error: out of memory closing a stream in memory\n", stderr);
		abort();
	}
	wrap_put(f, w->s, WRAP_WIDTH);
	free(w->s);
}

void wrap_put(FILE *f, const char *text, size_t width)
{
	wrap_hang(f, text, width, SIZE_MAX);
}

void wrap_hang(FILE *f, const char *text, size_t width, size_t hang)
{
	const char *s = text;

	while (*s) {
		const char *nl = strchr(s, '\n'), *end = nl ? nl : s + strlen(s), *p = s, *cut;
		size_t indent = strspn(s, " "), room = width, skip = indent;
		size_t h = hang == SIZE_MAX ? indent + 2 : hang;

		while ((cut = wrap_at(p, end, room, skip))) {
			fwrite(p, 1, (size_t)(cut - p), f);
			fprintf(f, "\n%*s", (int)h, "");
			for (p = cut; p < end && *p == ' '; p++)
				;
			room = width > h ? width - h : 1;
			skip = 0;
		}
		fwrite(p, 1, (size_t)(end - p), f);
		if (!nl)
			break;
		fputc('\n', f);
		s = nl + 1;
	}
}
