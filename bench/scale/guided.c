/*
 * guided: the CPU time of the guided search alone (tuner/search.c) over configs/stencil2d.yaml's
 * 16440 kept variants, each result answered at once with a made-up time, up to 18 outstanding
 * (the window a 16-core GPU host gives: jobs + 2). No compiling, no GPU: what the search costs
 * while the GPU waits. Build after ninja, from the repository root:
 *   cc -O2 -Ituner bench/scale/guided.c $(find out/obj/tuner -name '*.o' ! -name main.o) \
 *      out/obj/gen/helpers_cu.o -lyaml -ljansson -lm -ldl -L$CUDA/lib64 -lnvrtc \
 *      -Wl,-rpath,$CUDA/lib64 -o out/bench/guided
 *   out/bench/guided 1644
 */
#include "config.h"
#include "search.h"
#include "space.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
int main(int argc, char **argv)
{
	struct limits lim = {1024, 48 * 1024, 227 * 1024};
	struct vars sizes = {0};
	struct space s;
	struct config *c = cfg_load("configs/stencil2d.yaml");
	size_t *cand, n = 0, i, budget = argc > 1 ? (size_t)atoi(argv[1]) : 1644, out[18], nout = 0,
	       picks = 0;
	struct search *q;
	clock_t t0;

	cfg_size_vars(c, 1, &sizes);
	space_expand(c, &sizes, &lim, &s);
	cand = calloc(s.n, sizeof *cand);
	for (i = 0; i < s.n; i++)
		if (!s.v[i].drop)
			cand[n++] = i;
	t0 = clock();
	q = search_new(SEARCH_GUIDED, c, &s, cand, n, budget, 1, NULL, 18);
	for (;;) {
		int got = nout < 18 ? search_next(q, &i) : 0;
		if (got > 0) {
			out[nout++] = i;
			picks++;
			continue;
		}
		if (!nout)
			break;
		i = out[0];
		memmove(out, out + 1, --nout * sizeof *out);
		search_result(q, i, 1, 1.0 + (double)((i * 2654435761u) % 1000) / 1000);
	}
	printf("guided over %zu kept, budget %zu, window 18: %zu picks, %.2f s CPU\n", n, budget,
	       picks, (double)(clock() - t0) / CLOCKS_PER_SEC);
	return 0;
}
