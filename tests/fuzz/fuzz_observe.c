/* libFuzzer target: a template's conditionals read for the parameters they hide (observe.c).
 * The input up to its first nul is a template, over a fixed config of three parameters; the
 * values of a few variants are worked out and identified.
 * Checks: no crash, leak or hang; a value observe_values gives is one of the parameter's, or
 * the variant's own; a parameter that is not hidden keeps its value. */
#include "config.h"
#include "observe.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct config *cfg(void)
{
	static struct config *c;
	static const char y[] =
		"name: f\ntemplate: f.cu\nentry: k\nsizes: {n: 64}\n"
		"params:\n  A: [1, 2, 3]\n  B: [0, 4, 8, -1]\n  C: [5, 6]\n"
		"buffers:\n  - {name: x, type: float, count: n, role: out}\n"
		"args: [x, n]\nreference: {source: r.cu, entry: r, launch: {block: [32], grid: [2]}}\n"
		"launch: {block: [32], grid: [2]}\nbytes: 4 * n\n";
	char err[512];

	if (!c && !(c = cfg_parse_detached("/nonexistent/f.yaml", y, strlen(y), err, sizeof err)))
		abort();
	return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config *c = cfg();
	char *t = xstrndup((const char *)data, size);
	struct observe *o = observe_new(c, t);
	static const int64_t in[][3] = {{1, 0, 5}, {3, 8, 6}, {2, -1, 5}, {3, 4, 6}};
	size_t i, k, j;

	for (i = 0; i < sizeof in / sizeof in[0]; i++) {
		int64_t out[3];
		uint64_t id[2];
		observe_values(o, in[i], out);
		observe_id(o, in[i], id);
		for (k = 0; k < 3; k++) {
			const struct param *p = &c->params[k];
			int found = out[k] == in[i][k];
			if (!observe_hidden(o, k) && !found)
				abort();
			for (j = 0; j < p->nvals && !found; j++)
				found = p->vals[j] == out[k];
			if (!found)
				abort();
		}
	}
	observe_free(o);
	free(t);
	return 0;
}
