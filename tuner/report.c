/* report: the variant list, the ranked table, the ties and the bank model's checks. */
#include "report.h"
#include "bank.h"
#include "observe.h"
#include "result.h"
#include "space.h"
#include "spec.h"
#include "stats.h"
#include "util.h"
#include "winner.h"

#include "counters.h"
#include "wrap.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* the variant of s whose values are v's but val for parameter k, or SIZE_MAX */
static size_t neighbour(const struct config *c, const struct space *s, const struct variant *v,
                        size_t k, int64_t val)
{
	size_t i, j;

	for (i = 0; i < s->n; i++) {
		for (j = 0; j < c->nparams; j++)
			if (s->v[i].vals[j] != (j == k ? val : v->vals[j]))
				break;
		if (j == c->nparams)
			return i;
	}
	return SIZE_MAX;
}

size_t report_edges(struct buf *b, const struct config *c, const struct space *s,
                    const struct result *r, size_t w)
{
	const struct variant *v = &s->v[w];
	size_t i, j, n = 0, k;

	for (i = 0; i < c->nparams; i++) {
		const struct param *p = &c->params[i];
		int64_t lo = INT64_MAX, hi = INT64_MIN, lo2 = INT64_MAX, hi2 = INT64_MIN, in;
		double ms;
		if (p->nvals < 3) /* a switch, or a pair: no side beyond to speak of */
			continue;
		for (j = 0; j < p->nvals; j++) {
			int64_t x = p->vals[j];
			if (x < lo) { lo2 = lo; lo = x; } else if (x < lo2) lo2 = x;
			if (x > hi) { hi2 = hi; hi = x; } else if (x > hi2) hi2 = x;
		}
		if (v->vals[i] != lo && v->vals[i] != hi)
			continue;
		in = v->vals[i] == lo ? lo2 : hi2;
		k = neighbour(c, s, v, i, in);
		if (k == SIZE_MAX || r[k].status != ST_OK || r[w].status != ST_OK)
			continue;
		ms = result_run(&r[k])->t.median_ms;
		if (!(ms > result_run(&r[w])->t.median_ms)) /* slower inward: faster may lie beyond */
			continue;
		buf_printf(b, "%s=%lld is the %s value tried, and %s=%lld is %.1f %% slower\n",
		           p->name, (long long)v->vals[i], v->vals[i] == lo ? "smallest" : "largest",
		           p->name, (long long)in, 100 * (ms / result_run(&r[w])->t.median_ms - 1));
		n++;
	}
	return n;
}

/* a row of the table: the dropped ones with -v, never the skipped */
static int row_shown(const struct result *x)
{
	return !((x->status == ST_DROPPED && verbosity < 2) || x->status == ST_SKIPPED);
}

/* the row's status with a short reason */
static char *status_text(const struct space *s, const struct result *r)
{
	if ((r->status == ST_TWIN || r->status == ST_COLLAPSED) && r->twin >= 0)
		return xasprintf("%s of %s", result_status(r->status), s->v[r->twin].id);
	if (r->reason && r->status != ST_OK && r->status != ST_UNTIMED) {
		/* its first line, escaped: a merged shard's reason is another machine's text */
		char *line = xstrdup(r->reason), *nl = strchr(line, '\n');
		struct buf b = {0};
		if (nl)
			*nl = '\0';
		buf_printf(&b, "%s: ", result_status(r->status));
		buf_safe(&b, line, 60);
		free(line);
		return b.s;
	}
	return xstrdup(result_status(r->status));
}

double report_bank_ratio(const struct bank_stats *st, size_t n)
{
	int64_t wf = 0, ideal = 0;
	size_t i;

	for (i = 0; st && i < n; i++) {
		wf += st[i].wavefronts;
		ideal += st[i].ideal;
	}
	return ideal > 0 ? (double)wf / (double)ideal : 0.0;
}

/* op's counts of x (loads 0, stores 1) by CNT_REQUESTS, CNT_WAVEFRONTS, CNT_CONFLICTS */
static void counted(const struct result *x, int op, double m[CNT_PER_OP])
{
	int w;

	for (w = 0; w < CNT_PER_OP; w++)
		m[w] = result_run(x)->probe[CNT_SLOT(op, w)];
}

int report_bank_check(const struct config *c, const struct variant *v, const struct result *x,
                      int op, struct bank_check *k)
{
	double m[CNT_PER_OP], wf = 0, ideal = 0, req = 0, blocks = 1, addr;
	size_t i;
	int d;

	memset(k, 0, sizeof *k);
	if (x->status != ST_OK || result_run(x)->nprobe < CNT_BASE || !x->bank)
		return 0;
	counted(x, op, m);
	for (i = 0; i < c->naccesses; i++) {
		if (!x->bank[i].present || c->accesses[i].store != op)
			continue;
		wf += (double)x->bank[i].wavefronts;
		ideal += (double)x->bank[i].ideal;
		req += (double)x->bank[i].requests;
	}
	if (req == 0 && m[CNT_REQUESTS] == 0 && m[CNT_WAVEFRONTS] == 0)
		return 0;
	if (m[CNT_REQUESTS] == 0 && m[CNT_WAVEFRONTS] > 0)
		return -1;
	addr = result_run(x)->nprobe > CNT_SASS(op) ? result_run(x)->probe[CNT_SASS(op)]
	                                            : m[CNT_WAVEFRONTS];
	for (d = 0; d < 3; d++)
		blocks *= (double)(v->grid[d] > 0 ? v->grid[d] : 1);
	k->pred = req > 0 ? wf / req : 0;
	k->pred_ideal = req > 0 ? ideal / req : 0;
	k->pred_requests = req;
	k->meas = m[CNT_REQUESTS] > 0 ? addr / m[CNT_REQUESTS] : 0;
	k->meas_pipe = m[CNT_REQUESTS] > 0 ? m[CNT_WAVEFRONTS] / m[CNT_REQUESTS] : 0;
	k->meas_ideal = m[CNT_REQUESTS] > 0 ? (m[CNT_WAVEFRONTS] - m[CNT_CONFLICTS]) /
	                                      m[CNT_REQUESTS] : 0;
	k->meas_requests = m[CNT_REQUESTS] / blocks;
	k->match = req > 0 && m[CNT_REQUESTS] > 0 &&
	           fabs(k->meas - k->pred) <= REPORT_BANK_TOL * k->pred;
	return 1;
}

double report_meas_ratio(const struct result *x)
{
	double ideal = 0, wf = 0, m[CNT_PER_OP];
	int op;

	if (x->status != ST_OK || result_run(x)->nprobe < CNT_BASE)
		return 0;
	for (op = 0; op < 2; op++) {
		counted(x, op, m);
		ideal += m[CNT_WAVEFRONTS] - m[CNT_CONFLICTS];
		wf += result_run(x)->nprobe > CNT_SASS(op) ? result_run(x)->probe[CNT_SASS(op)]
		                                           : m[CNT_WAVEFRONTS];
	}
	return ideal > 0 ? wf / ideal : 0;
}

/* the counters' summary under the table: agreement, then the gaps (all with -v) */
static void counters_summary(FILE *f, const struct config *c, const struct space *s,
                             const struct result *r, const size_t *order,
                             const struct runinfo *ri)
{
	size_t k, agree = 0, all = 0, shown = 0, incomplete = 0, failed = 0;
	const char *first = "";
	double addr = 0, pipe = 0;
	int op;

	if (ri->counters < 0) {
		fprintf(f, "counters: not read: %s\n", ri->counters_why);
		return;
	}
	for (k = 0; k < s->n; k++)
		if (r[k].status == ST_OK && result_run(&r[k])->nprobe < 0 && !failed++)
			first = result_run(&r[k])->probe_why;
	if (failed)
		fprintf(f, "counters: %zu variants not counted; the first: %s\n", failed, first);
	for (k = 0; k < s->n; k++)
		for (op = 0; op < 2; op++) {
			struct bank_check bc;
			int got = report_bank_check(c, &s->v[order[k]], &r[order[k]], op, &bc);
			incomplete += got < 0;
			if (got > 0) {
				all++;
				agree += (size_t)bc.match;
				addr += bc.meas * result_run(&r[order[k]])->probe[CNT_SLOT(op, CNT_REQUESTS)];
				pipe += bc.meas_pipe * result_run(&r[order[k]])->probe[CNT_SLOT(op, CNT_REQUESTS)];
			}
		}
	if (!all) {
		fprintf(f, "counters: no verified variant with declared accesses was counted\n");
		return;
	}
	fprintf(f, "counters: shared-memory wavefronts per request %swithin %g %% of the prediction "
	           "for %zu of %zu accesses (%.1f %%; loads and stores of each counted variant)\n",
	        ri->counters == 1 ? "as the addresses need them (SASS-level) " : "",
	        100 * REPORT_BANK_TOL, agree, all, 100.0 * (double)agree / all);
	if (ri->counters == 1 && addr > 0)
		fprintf(f, "counters: the L1 pipeline spent %.1f %% more wavefronts than the addresses "
		           "need (its bank-conflict counters include conflicts with other L1 traffic)\n",
		        100 * (pipe - addr) / addr);
	if (incomplete)
		fprintf(f, "counters: %zu accesses not compared: no requests counted where the L1 "
		           "pipeline saw wavefronts\n", incomplete);
	for (k = 0; k < s->n; k++)
		for (op = 0; op < 2; op++) {
			struct bank_check bc;
			if (report_bank_check(c, &s->v[order[k]], &r[order[k]], op, &bc) <= 0 || bc.match)
				continue;
			if (shown++ >= 8 && verbosity < 2)
				continue;
			fprintf(f, "  %s %s: predicted %.3f, measured %.3f wavefronts per request (%+.1f %%);"
			           " requests per block %.6g predicted, %.6g measured\n",
			        s->v[order[k]].id, op ? "stores" : "loads", bc.pred, bc.meas,
			        bc.pred > 0 ? 100 * (bc.meas - bc.pred) / bc.pred : 100.0,
			        bc.pred_requests, bc.meas_requests);
		}
	if (shown > 8 && verbosity < 2)
		fprintf(f, "  ... %zu more (-v lists them; results.json has every access)\n", shown - 8);
}

void report_untimed(FILE *f, const struct runinfo *ri)
{
	struct wrapped w;

	wrap_begin(&w);
	fprintf(w.f, "nothing was timed: %s; compiled for %s only%s\n", ri->why_untimed, ri->arch,
	        ri->arch_default ? "\n  (the newest NVRTC knows: registers and spills depend on "
	        "the architecture; --arch sm_XX or TUNER_ARCH names yours)" : "");
	wrap_end(&w, f);
}

/* the table's columns (the grid: only the table of several points shows it) */
enum { C_RANK, C_ID, C_PARAMS, C_MS, C_GBS, C_PCT, C_REGS, C_SPILL, C_SMEM, C_GRID, C_BANK,
       C_COUNTED, C_STATUS, NCOL };
static const char *const col_head[NCOL] = {"rank", "id", "params", "median_ms", "GB/s", "%copy",
                                           "regs", "spill", "smem", "grid", "bank", "counted",
                                           "status"};
static const char col_right[NCOL] = {1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0};

/* the values v without the parameters constant over the rows (keep[i] 0), as "A=1 B=2"
   (malloc'd) */
static char *varying(const struct config *c, const int64_t *v, const char *keep)
{
	struct buf b = {0};
	size_t i;

	for (i = 0; i < c->nparams; i++)
		if (keep[i])
			buf_printf(&b, "%s%s=%lld", b.len ? " " : "", c->params[i].name,
			           (long long)v[i]);
	if (!b.s)
		buf_puts(&b, "");
	return b.s;
}

/* a launch's grid as "1024", "256x256" or "4x4x2": its trailing 1s left out (malloc'd) */
static char *grid_text(const int64_t g[3])
{
	if (g[2] != 1)
		return xasprintf("%lldx%lldx%lld", (long long)g[0], (long long)g[1], (long long)g[2]);
	if (g[1] != 1)
		return xasprintf("%lldx%lld", (long long)g[0], (long long)g[1]);
	return xasprintf("%lld", (long long)g[0]);
}

/* the cells of variant i's row but the rank and the parameters (z[C_RANK], z[C_PARAMS] left
   NULL); meas: the counters are shown */
static void fill_cells(char **z, const struct config *c, const struct space *s,
                       const struct result *x, size_t i, int meas)
{
	const struct variant *v = &s->v[i];
	int d = x->co.ok && x->co.regs >= 0;

	z[C_ID] = xstrdup(v->id);
	z[C_MS] = x->status == ST_OK ? xasprintf("%.4f", result_run(x)->t.median_ms) : xstrdup("-");
	z[C_GBS] = x->status == ST_OK ? xasprintf("%.1f", x->gbs) : xstrdup("-");
	z[C_PCT] = x->status == ST_OK ? xasprintf("%.1f", x->pct_copy) : xstrdup("-");
	z[C_REGS] = d ? xasprintf("%d", x->co.regs) : xstrdup("-");
	z[C_SPILL] = d ? xasprintf("%d", x->co.spill_stores + x->co.spill_loads) : xstrdup("-");
	z[C_SMEM] = d ? xasprintf("%lld", (long long)(x->co.smem_static + v->shared)) : xstrdup("-");
	z[C_GRID] = v->drop ? xstrdup("-") : grid_text(v->grid);
	z[C_BANK] = c->naccesses && x->bank && x->bank_ratio > 0
	            ? xasprintf("%.2f", x->bank_ratio) : xstrdup("-");
	if (meas && report_meas_ratio(x) > 0) {
		struct bank_check l, s2;
		int gap = (report_bank_check(c, v, x, 0, &l) > 0 && !l.match) ||
		          (report_bank_check(c, v, x, 1, &s2) > 0 && !s2.match);
		z[C_COUNTED] = xasprintf("%.2f%s", report_meas_ratio(x), gap ? "*" : "");
	} else {
		z[C_COUNTED] = xstrdup("-");
	}
	z[C_STATUS] = status_text(s, x);
}

/* cell of width w: cut with '~' where longer */
static void cell(FILE *f, const char *s, int w, int right, int last)
{
	int n = (int)strlen(s);

	if (n > w)
		fprintf(f, "%.*s~", w - 1, s);
	else if (last && !right)
		fputs(s, f);
	else
		fprintf(f, right ? "%*s" : "%-*s", w, s);
	fputs(last ? "\n" : "  ", f);
}

/* what the bank column is */
static void bank_note(FILE *f, const struct config *c, const struct runinfo *ri)
{
	if (c->naccesses)
		fprintf(f, "bank: predicted by the model (docs/bank-model.md), not measured: "
		           "wavefronts / conflict-free wavefronts over the declared accesses%s\n",
		        ri->timed ? "" : "; untimed variants are listed by it, then by spills");
}

/* the lines under the table: what was not timed or the rooflines, the other GPUs, the launch,
   the play-off, the ties, the edge of the space, the race, the bank model and the counters */
static void table_notes(FILE *f, const struct config *c, const struct space *s,
                        const struct result *r, const size_t *order, const struct runinfo *ri)
{
	size_t k, rank;
	int meas = ri->counters != 0 && c->naccesses;

	if (!ri->timed)
		report_untimed(f, ri);
	else if (ri->copy.median_ms > 0)
		fprintf(f, "rooflines on %s: copy %.1f GB/s (median %.4f ms), read-only %.1f GB/s; "
		        "every sample %s (%s)\n", ri->gpu.name, ri->copy_gbs, ri->copy.median_ms,
		        ri->read_gbs, ri->l2_flush ? "after an L2 flush" : "with the L2 as the launch "
		        "before left it", ri->l2_why);
	else /* every result came from the journal: no worker timed the rooflines this time */
		fprintf(f, "rooflines on %s: not timed in this run (every result is an earlier run's); "
		           "copy %.1f GB/s then\n", ri->gpu.name, ri->copy_gbs);
	if (ri->retune_text.len)
		fputs(ri->retune_text.s, f);
	if (ri->timed && s->n && r[order[0]].status == ST_OK) {
		struct buf e = {0};
		if (report_launch(&e, result_run(&r[order[0]])))
			fprintf(f, "launch: %s;\n  %s\n", e.s, report_launch_advice);
		else if (e.len && verbosity >= 2)
			fprintf(f, "launch: %s\n", e.s);
		buf_free(&e);
	}
	for (k = rank = 0; ri->timed && k < s->n; k++)
		rank += r[k].tie;
	if (ri->playoff && verbosity >= 2)
		fprintf(f, "play-off: %zu variants, those with medians within %g %% of the fastest's%s, "
		           "timed again in %d rounds, one after another in turn; the ties and the "
		           "winner come from their rounds' medians; %zu left early, their rounds so "
		           "far putting their median beyond another's whatever the rest\n", ri->playoff,
		        100 * ri->playoff_net,
		        ri->playoff_earlier ? " and the run before's winner (within twice that)" : "",
		        ri->playoff_rounds, ri->playoff_left);
	else if (ri->playoff)
		fprintf(f, "play-off: the %zu fastest (within %g %%)%s timed again, %d rounds\n",
		        ri->playoff, 100 * ri->playoff_net,
		        ri->playoff_earlier ? " and the run before's winner (within twice that)" : "",
		        ri->playoff_rounds);
	if (rank && verbosity >= 2)
		fprintf(f, "ties (=): %zu variants cannot be told apart from the fastest (their medians "
		           "are within %g %% of its); the winner among them has %s (results of %zu other GPU%s read)%s%s%s\n", rank,
		        100 * c->tie, WINNER_TIE_RULE, ri->tie_gpus, ri->tie_gpus == 1 ? "" : "s",
		        ri->kept_winner ? "; but the run before's winner stays while it is within "
		                          "twice that band: it is kept" : "",
		        ri->tie_key ? "; here it was chosen by " : "", winner_tie_keys[ri->tie_key]);
	else if (rank) /* the rule in full: -v, report.html */
		fprintf(f, "ties (=): %zu within %g %% of the fastest (results of %zu other GPU%s "
		           "read)%s%s%s; the tie rule: -v or report.html\n", rank, 100 * c->tie,
		        ri->tie_gpus, ri->tie_gpus == 1 ? "" : "s",
		        ri->kept_winner ? "; the run before's winner, within twice that band: it is "
		                          "kept" : "",
		        ri->tie_key ? "; here it was chosen by " : "", winner_tie_keys[ri->tie_key]);
	if (ri->timed && s->n && r[order[0]].status == ST_OK) {
		struct buf e = {0};
		if (report_edges(&e, c, s, r, order[0])) {
			char *p = e.s, *q;
			fprintf(f, "edge of the space: the winner's ");
			for (; (q = strchr(p, '\n')); p = q + 1)
				fprintf(f, "%.*s%s", (int)(q - p), p, q[1] ? "; " : "");
			fprintf(f, "; a better variant may lie beyond\n");
		}
		buf_free(&e);
	}
	for (k = rank = 0; ri->timed && k < s->n; k++)
		rank += r[k].status == ST_OK && result_run(&r[k])->t.n < c->samples;
	if (rank)
		fprintf(f, "%zu variants were timed with fewer than %d samples: the race stopped them "
		           "once their samples put them beyond the play-off's reach (--no-race times "
		           "every sample)\n", rank, c->samples);
	bank_note(f, c, ri);
	if (meas) {
		fprintf(f, "counted: the same ratio from the GPU's counters (CUPTI); * marks a gap "
		           "between prediction and measurement\n");
		counters_summary(f, c, s, r, order, ri);
	}
	for (k = rank = 0; k < s->n; k++)
		rank += s->v[k].bank_bytes == 8;
	if (ri->bank_ignored && rank)
		fprintf(f, "bank mode: the GPU keeps 4-byte banks (8-byte ones are Kepler's); "
		           "8-byte variants were collapsed into their 4-byte twins\n");
}

void report_table(FILE *f, const struct config *c, const struct space *s, const struct result *r,
                  const size_t *order, const struct runinfo *ri)
{
	size_t k, j, rank = 0, nrows = 0, shown = 0, cap;
	int meas = ri->counters != 0 && c->naccesses, w[NCOL], use[NCOL], total = 0, d;
	int all = ri->table_all || verbosity >= 2;
	char *(*cells)[NCOL], *keep = xcalloc(c->nparams + 1, 1);
	const struct variant *v0 = NULL;
	struct buf b = {0};
	struct wrapped notes;

	for (k = 0; k < s->n; k++)
		nrows += row_shown(&r[order[k]]);
	cap = all || nrows < REPORT_TABLE_ROWS ? nrows : REPORT_TABLE_ROWS;
	cells = xcalloc(cap + 1, sizeof *cells);
	for (k = 0; k < s->n && shown < cap; k++) { /* the parameters that vary over them */
		const struct variant *v = &s->v[order[k]];
		if (!row_shown(&r[order[k]]))
			continue;
		shown++;
		if (!v0)
			v0 = v;
		for (j = 0; j < c->nparams; j++)
			keep[j] |= v->vals[j] != v0->vals[j];
	}
	for (k = shown = 0; k < s->n && shown < cap; k++) {
		const struct variant *v = &s->v[order[k]];
		const struct result *x = &r[order[k]];
		char **z = cells[shown];

		if (!row_shown(x))
			continue;
		shown++;
		fill_cells(z, c, s, x, order[k], meas);
		z[C_RANK] = x->status == ST_OK ? xasprintf("%zu%s", ++rank, x->tie ? "=" : "")
		                               : xstrdup("-");
		z[C_PARAMS] = shown == 1 && cap == 1 ? space_params_str(c, v) : varying(c, v->vals, keep);
	}
	/* a column only where some row has something in it */
	for (d = 0; d < NCOL; d++) {
		w[d] = (int)strlen(col_head[d]);
		use[d] = d == C_RANK || d == C_ID || d == C_STATUS || (d == C_PARAMS && c->nparams);
		if (d == C_GRID) /* --dry-run lists it */
			continue;
		for (k = 0; k < shown; k++) {
			use[d] |= strcmp(cells[k][d], "-") != 0 && *cells[k][d];
			w[d] = (int)strlen(cells[k][d]) > w[d] ? (int)strlen(cells[k][d]) : w[d];
		}
		total += use[d] ? w[d] + 2 : 0;
	}
	use[C_COUNTED] &= meas;
	/* at most REPORT_TABLE_WIDTH columns (but with -v): the status, then the parameters cut */
	for (d = C_STATUS; total - 2 > REPORT_TABLE_WIDTH && verbosity < 2 && d >= C_PARAMS;
	     d -= C_STATUS - C_PARAMS) {
		int cut = total - 2 - REPORT_TABLE_WIDTH, min = d == C_STATUS ? 16 : 24;
		int to = w[d] - cut < min ? min : w[d] - cut;
		if (to < w[d] && use[d]) {
			total -= w[d] - to;
			w[d] = to;
		}
	}
	if (shown > 1) { /* what every row shares, said once */
		for (j = 0; j < c->nparams; j++)
			if (!keep[j])
				buf_printf(&b, "%s %s=%lld", b.len ? "" : "every row:", c->params[j].name,
				           (long long)v0->vals[j]);
		if (b.len)
			buf_puts(&b, "\n");
		wrap_put(f, b.s ? b.s : "", WRAP_WIDTH);
		buf_free(&b);
	}
	for (d = 0, j = NCOL; d < NCOL; d++)
		j = use[d] ? (size_t)d : j;
	for (d = 0; d < NCOL; d++)
		if (use[d])
			cell(f, col_head[d], w[d], col_right[d], (size_t)d == j);
	for (k = 0; k < shown; k++)
		for (d = 0; d < NCOL; d++) {
			if (use[d])
				cell(f, cells[k][d], w[d], col_right[d], (size_t)d == j);
			free(cells[k][d]);
		}
	if (shown < nrows)
		fprintf(f, "... %zu more (--all or -v lists them; report.html and results.csv have "
		           "every one)\n", nrows - shown);
	free(cells);
	free(keep);
	wrap_begin(&notes);
	table_notes(notes.f, c, s, r, order, ri);
	wrap_end(&notes, f);
}

const char report_launch_advice[] =
	"launched back to back it waits on the host: capture its launches in a CUDA graph, fuse it "
	"with its neighbours, or give each launch more work";

int report_launch(struct buf *b, const struct run_result *x)
{
	double k = stats_launch_ratio(&x->t);

	if (!(k > 0))
		return 0;
	buf_printf(b, "the host launches it in %.2f us, the GPU %s it in %.2f us: ", x->t.launch_us,
	           x->t.held ? "runs" : "(launches queued back to back) runs", x->t.median_ms * 1e3);
	if (k > 1)
		buf_printf(b, "launch-bound (%.1fx)", k);
	else
		buf_puts(b, "not launch-bound");
	return k > 1;
}

void report_launch_json(struct buf *b, const struct run_result *x)
{
	double k = stats_launch_ratio(&x->t);

	if (!(k > 0))
		return;
	buf_printf(b, "  \"launch\": {\"host_us\": %.6g, \"gpu_us\": %.6g, \"ratio\": %.6g, "
	              "\"bound\": %s, \"held\": %s", x->t.launch_us, x->t.median_ms * 1e3, k,
	           k > 1 ? "true" : "false", x->t.held ? "true" : "false");
	if (k > 1) {
		buf_puts(b, ", \"advice\": ");
		buf_json_str(b, report_launch_advice);
	}
	buf_puts(b, "},\n");
}

void report_errors(struct buf *b, const struct run_result *x, const struct config *c)
{
	buf_printf(b, "max abs error %.3g, max rel error %.3g (where |ref| > %g)", x->max_abs_err,
	           x->max_rel_err, c->atol);
}

/* the table of several points */

/* one point's rows: the variants its table shows, in its order, with their cells */
struct report_rows {
	const char *label;
	size_t n;
	char (*id)[40];
	int64_t *vals;            /* n rows of the config's parameters */
	char *(*cell)[NCOL];      /* but C_RANK and C_PARAMS */
	size_t *by;               /* the rows in the order of their ids */
};

struct report_rows *report_rows_new(const struct config *c, const struct space *s,
                                    const struct result *r, const size_t *order,
                                    const char *label)
{
	struct report_rows *p = xcalloc(1, sizeof *p);
	size_t k, n = 0, np = c->nparams;

	for (k = 0; k < s->n; k++)
		n += row_shown(&r[order[k]]);
	p->label = label;
	p->id = xcalloc(n + 1, sizeof *p->id);
	p->vals = xcalloc(n * np + 1, sizeof *p->vals);
	p->cell = xcalloc(n + 1, sizeof *p->cell);
	for (k = 0; k < s->n; k++) {
		if (!row_shown(&r[order[k]]))
			continue;
		memcpy(p->id[p->n], s->v[order[k]].id, sizeof p->id[0]);
		memcpy(p->vals + p->n * np, s->v[order[k]].vals, np * sizeof *p->vals);
		fill_cells(p->cell[p->n], c, s, &r[order[k]], order[k], 0);
		p->n++;
	}
	p->by = space_id_order((const char (*)[40])p->id, p->n);
	return p;
}

void report_rows_free(struct report_rows *p)
{
	size_t k;
	int d;

	if (!p)
		return;
	for (k = 0; k < p->n; k++)
		for (d = 0; d < NCOL; d++)
			free(p->cell[k][d]);
	free(p->id);
	free(p->vals);
	free(p->cell);
	free(p->by);
	free(p);
}

/* the row of variant id in p, or -1 */
static long rows_find(const struct report_rows *p, const char *id)
{
	return space_id_find((const char (*)[40])p->id, p->by, p->n, id);
}

/* the columns the points may tell apart, and the rows' order (C_RANK: its place at a point) */
static const int per_point[] = {C_RANK, C_REGS, C_SPILL, C_SMEM, C_GRID, C_BANK, C_STATUS};
#define NPER (sizeof per_point / sizeof *per_point)

/* the table of several points being laid out */
struct sbs {
	const struct config *c;
	struct report_rows *const *p;
	size_t np, n;             /* points; rows shown */
	long *at;                 /* at[k * np + j]: row k's row at point j, -1: not there */
	size_t *own;              /* the point whose row k is shown (its first) */
	char (*place)[24];        /* place[k * np + j]: row k's place at point j, "-": none */
	int differs[NPER];        /* the column differs between the points */
	int same[NPER];           /* every row has the same value in it, at every point */
	int used[NPER];           /* some row has a value in it */
	int w[NPER], wid, wpar;   /* widths of a point's column, of id and of params */
	char *keep;               /* the parameters that vary over the rows */
	char **par;               /* row k's varying parameters */
};

/* the head of column per_point[d] */
static const char *sbs_head(size_t d)
{
	return per_point[d] == C_RANK ? "#" : col_head[per_point[d]];
}

/* row k's cell of column per_point[d] at point j */
static const char *sbs_cell(const struct sbs *t, size_t k, size_t j, size_t d)
{
	long i = t->at[k * t->np + j];

	if (per_point[d] == C_RANK)
		return t->place[k * t->np + j];
	return i < 0 ? "-" : t->p[j]->cell[i][per_point[d]];
}

/* the rows: the first point's, then each later one's not seen before, at most cap of them;
   how many there are in all */
static size_t sbs_rows(struct sbs *t, size_t cap)
{
	size_t j, i, q, all = 0;

	t->at = xcalloc(cap * t->np + 1, sizeof *t->at);
	t->own = xcalloc(cap + 1, sizeof *t->own);
	t->place = xcalloc(cap * t->np + 1, sizeof *t->place);
	for (j = 0; j < t->np; j++)
		for (i = 0; i < t->p[j]->n; i++) {
			for (q = 0; q < j && rows_find(t->p[q], t->p[j]->id[i]) < 0; q++)
				;
			if (q < j) /* an earlier point's row */
				continue;
			if (all++ >= cap)
				continue;
			t->own[t->n] = j;
			for (q = 0; q < t->np; q++) {
				long at = q == j ? (long)i : rows_find(t->p[q], t->p[j]->id[i]);
				t->at[t->n * t->np + q] = at;
				snprintf(t->place[t->n * t->np + q], sizeof t->place[0], "%ld", at + 1);
				if (at < 0)
					strcpy(t->place[t->n * t->np + q], "-");
			}
			t->n++;
		}
	return all;
}

/* what tells the rows apart: the parameters that vary, the columns that differ between the
   points, those the same in every row, the widths */
static void sbs_columns(struct sbs *t)
{
	const struct config *c = t->c;
	size_t k, j, d, np = c->nparams;
	int hw;

	t->keep = xcalloc(np + 1, 1);
	t->par = xcalloc(t->n + 1, sizeof *t->par);
	t->wid = 2;
	t->wpar = (int)strlen("params");
	for (k = 0; k < t->n; k++) {
		const int64_t *v = t->p[t->own[k]]->vals + (size_t)t->at[k * t->np + t->own[k]] * np;
		const int64_t *v0 = t->p[t->own[0]]->vals + (size_t)t->at[t->own[0]] * np;
		for (j = 0; j < np; j++)
			t->keep[j] |= v[j] != v0[j];
	}
	for (k = 0; k < t->n; k++) {
		const char *id = t->p[t->own[k]]->id[t->at[k * t->np + t->own[k]]];
		t->par[k] = varying(c, t->p[t->own[k]]->vals + (size_t)t->at[k * t->np + t->own[k]] * np,
		                    t->keep);
		t->wpar = (int)strlen(t->par[k]) > t->wpar ? (int)strlen(t->par[k]) : t->wpar;
		t->wid = (int)strlen(id) > t->wid ? (int)strlen(id) : t->wid;
	}
	for (d = 0; d < NPER; d++) {
		const char *first = t->n ? sbs_cell(t, 0, t->own[0], d) : "";
		t->same[d] = t->n > 1;
		t->w[d] = (int)strlen(sbs_head(d));
		for (k = 0; k < t->n; k++)
			for (j = 0; j < t->np; j++) {
				const char *x = sbs_cell(t, k, j, d);
				t->w[d] = (int)strlen(x) > t->w[d] ? (int)strlen(x) : t->w[d];
				if (t->at[k * t->np + j] < 0) /* not there: no value to compare */
					continue;
				t->differs[d] |= strcmp(x, sbs_cell(t, k, t->own[k], d)) != 0;
				t->same[d] &= !strcmp(x, first);
				t->used[d] |= strcmp(x, "-") && *x;
			}
		hw = (int)strlen(sbs_head(d)) + snprintf(NULL, 0, "@%zu", t->np); /* "regs@12" */
		if (t->differs[d] && hw > t->w[d])
			t->w[d] = hw;
		/* the place and the grid only where the points tell them apart (--dry-run lists a
		   point's grid); a column without values, or the same in every row, is not one */
		t->used[d] &= (per_point[d] != C_RANK && per_point[d] != C_GRID) || t->differs[d];
		t->used[d] &= !t->same[d] || t->differs[d];
		t->used[d] |= per_point[d] == C_STATUS && !t->same[d];
	}
}

/* the columns the table shows; its width */
static int sbs_width(const struct sbs *t, size_t npshow)
{
	int total = t->wid + (t->c->nparams ? 2 + t->wpar : 0);
	size_t d;

	for (d = 0; d < NPER; d++)
		if (t->used[d])
			total += (t->w[d] + 2) * (t->differs[d] ? (int)npshow : 1);
	return total;
}

/* within REPORT_TABLE_WIDTH (but with -v): a status of one column cut to 16, the parameters
   to 24, then the later points' columns left out; how many points' columns are shown */
static size_t sbs_fit(struct sbs *t)
{
	size_t npshow = t->np, ds = NPER - 1; /* per_point[ds] == C_STATUS */
	int over = sbs_width(t, npshow) - REPORT_TABLE_WIDTH, to;

	if (over <= 0 || verbosity >= 2)
		return npshow;
	if (!t->differs[ds] && t->used[ds]) {
		to = t->w[ds] - over < 16 ? 16 : t->w[ds] - over;
		over -= t->w[ds] - (to < t->w[ds] ? to : t->w[ds]);
		t->w[ds] = to < t->w[ds] ? to : t->w[ds];
	}
	if (over > 0 && t->c->nparams) {
		to = t->wpar - over < 24 ? 24 : t->wpar - over;
		t->wpar = to < t->wpar ? to : t->wpar;
	}
	while (npshow > 1 && sbs_width(t, npshow) > REPORT_TABLE_WIDTH)
		npshow--;
	return npshow;
}

/* what the table is, what every row shares */
static void sbs_intro(FILE *f, const struct sbs *t, size_t npshow)
{
	size_t j, d, any = 0, absent = 0, np = t->c->nparams;
	const int64_t *v0 = t->p[t->own[0]]->vals + (size_t)t->at[t->own[0]] * np;
	int said = 0;             /* 1: a parameter, -1: a column */

	for (d = 0; d < NPER; d++)
		any += t->used[d] && t->differs[d];
	for (j = 0; j < t->n * t->np; j++)
		absent += t->at[j] < 0;
	fprintf(f, "the variants at %zu points, each once; %s", t->np,
	        any ? "where the points differ, a column each:" : "the same at every point (");
	for (j = 0; j < t->np; j++)
		if (any && j < npshow)
			fprintf(f, "%s @%zu %s", j ? "," : "", j + 1, t->p[j]->label);
		else if (!any)
			fprintf(f, "%s%s", j ? ", " : "", t->p[j]->label);
	fprintf(f, "%s", any ? "" : ")");
	if (npshow < t->np)
		fprintf(f, "; the columns of @%zu to @%zu left out to fit %d columns (-v shows them)",
		        npshow + 1, t->np, REPORT_TABLE_WIDTH);
	fprintf(f, "%s\n", absent ? "; -: not in that point's space" : "");
	if (t->n < 2)
		return;
	for (j = 0; j < np; j++)
		if (!t->keep[j]) /* "every row: A=1 B=2; spill 0, status untimed" */
			fprintf(f, "%s %s=%lld", said++ ? "" : "every row:", t->c->params[j].name,
			        (long long)v0[j]);
	for (d = 0; d < NPER; d++)
		if (t->same[d] && per_point[d] != C_GRID && strcmp(sbs_cell(t, 0, 0, d), "-")) {
			fprintf(f, "%s %s %s", !said ? "every row:" : said > 0 ? ";" : ",", sbs_head(d),
			        sbs_cell(t, 0, 0, d));
			said = -1;
		}
	if (said)
		fputc('\n', f);
}

/* the columns in the order shown: those one column each, then those a column per point, the
   status last of its kind; how many */
static size_t sbs_order(const struct sbs *t, size_t *col)
{
	size_t d, n = 0, pass;

	for (pass = 0; pass < 3; pass++)
		for (d = 0; d < NPER; d++)
			if (t->used[d] && (pass == 1 ? t->differs[d] : !t->differs[d] &&
			                   (per_point[d] == C_STATUS) == (pass == 2)))
				col[n++] = d;
	return n;
}

/* the head and the rows */
static void sbs_print(FILE *f, const struct sbs *t, size_t npshow)
{
	size_t k, j, i, d, col[NPER], ncol = sbs_order(t, col);
	char head[64];

	cell(f, "id", t->wid, 0, !ncol && !t->c->nparams);
	if (t->c->nparams)
		cell(f, "params", t->wpar, 0, !ncol);
	for (i = 0; i < ncol; i++)
		for (d = col[i], j = 0; j < (t->differs[d] ? npshow : 1); j++) {
			if (t->differs[d])
				snprintf(head, sizeof head, "%s@%zu", sbs_head(d), j + 1);
			cell(f, t->differs[d] ? head : sbs_head(d), t->w[d], col_right[per_point[d]],
			     i + 1 == ncol && j + 1 == (t->differs[d] ? npshow : 1));
		}
	for (k = 0; k < t->n; k++) {
		cell(f, t->p[t->own[k]]->id[t->at[k * t->np + t->own[k]]], t->wid, 0,
		     !ncol && !t->c->nparams);
		if (t->c->nparams)
			cell(f, t->par[k], t->wpar, 0, !ncol);
		for (i = 0; i < ncol; i++)
			for (d = col[i], j = 0; j < (t->differs[d] ? npshow : 1); j++)
				cell(f, sbs_cell(t, k, t->differs[d] ? j : t->own[k], d), t->w[d],
				     col_right[per_point[d]],
				     i + 1 == ncol && j + 1 == (t->differs[d] ? npshow : 1));
	}
}

void report_points(FILE *f, const struct config *c, struct report_rows *const *p, size_t np,
                   const struct runinfo *ri)
{
	struct sbs t = {0};
	size_t k, all, cap = SIZE_MAX, npshow;
	struct wrapped w;

	t.c = c;
	t.p = p;
	t.np = np;
	if (!ri->table_all && verbosity < 2)
		cap = REPORT_TABLE_ROWS;
	for (k = all = 0; k < np; k++) /* at most every row of every point */
		all += p[k]->n;
	all = sbs_rows(&t, cap < all ? cap : all);
	if (t.n) {
		sbs_columns(&t);
		npshow = sbs_fit(&t);
		wrap_begin(&w);
		sbs_intro(w.f, &t, npshow);
		wrap_end(&w, f);
		sbs_print(f, &t, npshow);
	}
	if (t.n < all)
		fprintf(f, "... %zu more (--all or -v lists them; each point's report.html and "
		           "results.csv have every one)\n", all - t.n);
	wrap_begin(&w);
	if (!ri->timed)
		report_untimed(w.f, ri);
	bank_note(w.f, c, ri);
	wrap_end(&w, f);
	for (k = 0; k < t.n; k++)
		free(t.par[k]);
	free(t.par);
	free(t.keep);
	free(t.at);
	free(t.own);
	free(t.place);
}
