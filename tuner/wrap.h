/* wrap: prose wrapped to fit in a width of columns: each line longer than the width broken at
   spaces, the rest of it indented (docs/how-it-works.md, "What a run prints"). */
#ifndef TUNER_WRAP_H
#define TUNER_WRAP_H

#include <stddef.h>
#include <stdio.h>

/* the most columns a line of prose the tuner prints takes */
#define WRAP_WIDTH 120
/* text to f, each of its lines longer than width broken at spaces, the rest of it indented
   two columns more than the line (a word longer than that is left whole) */
void wrap_put(FILE *f, const char *text, size_t width);
/* wrap_put with the rest of a line indented hang columns */
void wrap_hang(FILE *f, const char *text, size_t width, size_t hang);
/* a stream in memory (f) whose text wrap_end prints to another, wrapped to WRAP_WIDTH */
struct wrapped {
	FILE *f;
	char *s;
	size_t len;
};
void wrap_begin(struct wrapped *w);
void wrap_end(struct wrapped *w, FILE *f);

#endif
