/* report: the variant list, the ranked table, the ties and the bank model's checks. */
#include "report.h"
#include "winner.h"

#include "counters.h"
#include "drops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t report_edges(struct buf *b, const struct config *c, const struct variant *v)
{
	size_t i, j, n = 0;

	for (i = 0; i < c->nparams; i++) {
		const struct param *p = &c->params[i];
		int64_t lo = p->vals[0], hi = p->vals[0];
		if (p->nvals < 2)
			continue;
		for (j = 1; j < p->nvals; j++) {
			lo = p->vals[j] < lo ? p->vals[j] : lo;
			hi = p->vals[j] > hi ? p->vals[j] : hi;
		}
		if (lo == hi || (v->vals[i] != lo && v->vals[i] != hi))
			continue;
		buf_printf(b, "%s=%lld is the %s value tried\n", p->name, (long long)v->vals[i],
		           v->vals[i] == lo ? "smallest" : "largest");
		n++;
	}
	return n;
}

/* the row's status with a short reason */
static char *status_text(const struct space *s, const struct result *r)
{
	if ((r->status == ST_TWIN || r->status == ST_COLLAPSED) && r->twin >= 0)
		return xasprintf("%s of %s", result_status(r->status), s->v[r->twin].id);
	if (r->reason && r->status != ST_OK && r->status != ST_UNTIMED) {
		const char *nl = strchr(r->reason, '\n');
		int n = nl ? (int)(nl - r->reason) : (int)strlen(r->reason);
		return xasprintf("%s: %.*s", result_status(r->status), n > 60 ? 60 : n, r->reason);
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
	fprintf(f, "nothing was timed: %s; compiled for %s only%s\n", ri->why_untimed, ri->arch,
	        ri->arch_default ? " (the newest NVRTC knows: registers and spills depend on "
	        "the architecture; --arch sm_XX or TUNER_ARCH names yours)" : "");
}

void report_table(FILE *f, const struct config *c, const struct space *s, const struct result *r,
                  const size_t *order, const struct runinfo *ri)
{
	size_t k, rank = 0, w = 6;
	int meas = ri->counters != 0 && c->naccesses;

	for (k = 0; k < s->n; k++) {
		char *p = space_params_str(c, &s->v[k]);
		if (strlen(p) > w)
			w = strlen(p);
		free(p);
	}
	fprintf(f, "%4s  %-9s  %-*s  %9s  %8s  %6s  %4s  %5s  %7s  %s%s%s\n", "rank", "id", (int)w,
	        "params", "median_ms", "GB/s", "%copy", "regs", "spill", "smem",
	        c->naccesses ? "  bank  " : "", meas ? " counted " : "", "status");
	for (k = 0; k < s->n; k++) {
		const struct variant *v = &s->v[order[k]];
		const struct result *x = &r[order[k]];
		char *p, *st, rk[16] = "-", t[32] = "-", g[32] = "-", pc[32] = "-", rg[16] = "-",
		     sp[16] = "-", sm[16] = "-", bk[24] = "", ms[24] = "";

		if ((x->status == ST_DROPPED && verbosity < 2) || x->status == ST_SKIPPED)
			continue;
		if (x->status == ST_OK) {
			snprintf(rk, sizeof rk, "%zu%s", ++rank, x->tie ? "=" : "");
			snprintf(t, sizeof t, "%.4f", result_run(x)->t.median_ms);
			snprintf(g, sizeof g, "%.1f", x->gbs);
			snprintf(pc, sizeof pc, "%.1f", x->pct_copy);
		}
		if (x->co.ok && x->co.regs >= 0) {
			snprintf(rg, sizeof rg, "%d", x->co.regs);
			snprintf(sp, sizeof sp, "%d", x->co.spill_stores + x->co.spill_loads);
			snprintf(sm, sizeof sm, "%lld", (long long)(x->co.smem_static + v->shared));
		}
		if (c->naccesses && x->bank && report_bank_ratio(x->bank, c->naccesses) > 0)
			snprintf(bk, sizeof bk, "  %6.2f", report_bank_ratio(x->bank, c->naccesses));
		else if (c->naccesses)
			snprintf(bk, sizeof bk, "  %6s", "-");
		if (meas && report_meas_ratio(x) > 0) {
			struct bank_check l, s2;
			int gap = (report_bank_check(c, v, x, 0, &l) > 0 && !l.match) ||
			          (report_bank_check(c, v, x, 1, &s2) > 0 && !s2.match);
			snprintf(ms, sizeof ms, "  %6.2f%c", report_meas_ratio(x), gap ? '*' : ' ');
		} else if (meas) {
			snprintf(ms, sizeof ms, "  %6s ", "-");
		}
		p = space_params_str(c, v);
		st = status_text(s, x);
		fprintf(f, "%4s  %-9s  %-*s  %9s  %8s  %6s  %4s  %5s  %7s%s%s  %s\n", rk, v->id, (int)w,
		        p, t, g, pc, rg, sp, sm, bk, ms, st);
		free(p);
		free(st);
	}
	if (!ri->timed)
		report_untimed(f, ri);
	else if (ri->copy.median_ms > 0)
		fprintf(f, "rooflines on %s: copy %.1f GB/s (median %.4f ms), read-only %.1f GB/s\n",
		        ri->gpu.name, ri->copy_gbs, ri->copy.median_ms, ri->read_gbs);
	else /* every result came from the journal: no worker timed the rooflines this time */
		fprintf(f, "rooflines on %s: not timed in this run (every result is an earlier run's); "
		           "copy %.1f GB/s then\n", ri->gpu.name, ri->copy_gbs);
	if (ri->retune_text.len)
		fputs(ri->retune_text.s, f);
	for (k = rank = 0; ri->timed && k < s->n; k++)
		rank += r[k].tie;
	if (ri->playoff)
		fprintf(f, "play-off: %zu variants, those with medians within %g %% of the fastest's%s, "
		           "timed again in %d rounds, one after another in turn; the ties and the "
		           "winner come from their rounds' medians\n", ri->playoff,
		        100 * ri->playoff_net,
		        ri->playoff_earlier ? " and the run before's winner (within twice that)" : "",
		        ri->playoff_rounds);
	if (rank)
		fprintf(f, "ties (=): %zu variants cannot be told apart from the fastest (their medians "
		           "differ by less than twice their standard error, or %g %%); the winner "
		           "among them has %s (results of %zu other GPU%s read)%s%s%s\n", rank,
		        100 * c->tie, WINNER_TIE_RULE, ri->tie_gpus, ri->tie_gpus == 1 ? "" : "s",
		        ri->kept_winner ? "; but the run before's winner stays while it is within "
		                          "twice that band: it is kept" : "",
		        ri->tie_key ? "; here it was chosen by " : "", winner_tie_keys[ri->tie_key]);
	if (ri->timed && s->n && r[order[0]].status == ST_OK) {
		struct buf e = {0};
		if (report_edges(&e, c, &s->v[order[0]])) {
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
		fprintf(f, "%zu variants were timed with %d samples, not %d: their median was already "
		           "too slow to win (--no-race times every sample)\n", rank, WINNER_RACE_SAMPLES,
		        c->samples);
	if (c->naccesses)
		fprintf(f, "bank: predicted by the model (docs/bank-model.md), not measured: "
		           "wavefronts / conflict-free wavefronts over the declared accesses%s\n",
		        ri->timed ? "" : "; untimed variants are listed by it, then by spills");
	if (meas) {
		fprintf(f, "counted: the same ratio from the GPU's counters (CUPTI); * marks a gap "
		           "between prediction and measurement\n");
		counters_summary(f, c, s, r, order, ri);
	}
	for (k = rank = 0; k < s->n; k++)
		rank += s->v[k].bank_bytes == 8;
	if (ri->bank_ignored && rank)
		fprintf(f, "bank mode: the GPU reports 4-byte banks after a request for 8; "
		           "8-byte variants were collapsed into their 4-byte twins\n");
}

void report_errors(struct buf *b, const struct run_result *x, const struct config *c)
{
	buf_printf(b, "max abs error %.3g, max rel error %.3g (where |ref| > %g)", x->max_abs_err,
	           x->max_rel_err, c->atol);
}

void report_variants(FILE *f, const struct config *c, const struct space *s, int list_dropped)
{
	size_t k, wi = 9, wp = 6;
	struct drops d;

	for (k = 0; k < s->n && verbosity > 0; k++) { /* columns as wide as their widest entry */
		char *p;
		if (s->v[k].drop && !list_dropped)
			continue;
		p = space_params_str(c, &s->v[k]);
		wi = strlen(s->v[k].id) > wi ? strlen(s->v[k].id) : wi;
		wp = strlen(p) > wp ? strlen(p) : wp;
		free(p);
	}
	if (verbosity > 0)
		fprintf(f, "%-*s  %-*s  %-16s  %-16s  %8s  %s\n", (int)wi, "id", (int)wp, "params",
		        "block", "grid", "shared", "status");
	for (k = 0; k < s->n && verbosity > 0; k++) {
		const struct variant *v = &s->v[k];
		char *p, bl[48], gr[48];

		if (v->drop && !list_dropped)
			continue;
		p = space_params_str(c, v);
		snprintf(bl, sizeof bl, "%lldx%lldx%lld", (long long)v->block[0],
		         (long long)v->block[1], (long long)v->block[2]);
		snprintf(gr, sizeof gr, "%lldx%lldx%lld", (long long)v->grid[0],
		         (long long)v->grid[1], (long long)v->grid[2]);
		fprintf(f, "%-*s  %-*s  %-16s  %-16s  %8lld  %s%s\n", (int)wi, v->id, (int)wp, p,
		        v->drop ? "-" : bl, v->drop ? "-" : gr, (long long)v->shared,
		        v->drop ? "dropped: " : "kept", v->drop ? v->drop : "");
		free(p);
	}
	drops_count(s, &d);
	if (d.n)
		fprintf(f, "dropped, by the rule that dropped them%s:\n",
		        list_dropped ? "" : " (--list-dropped lists them)");
	for (k = 0; k < d.n; k++)
		fprintf(f, "  %8zu  %s\n", d.v[k].n, d.v[k].rule);
	drops_free(&d);
	fprintf(f, "%zu variants: %zu kept, %zu dropped\n", s->n, s->nkept, s->n - s->nkept);
}
