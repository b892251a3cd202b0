/* report: the ranked table, results.json and results.csv. */
#include "report.h"
#include "winner.h"

#include "counters.h"

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

/* measured wavefronts (as the addresses need them) over conflict-free wavefronts, loads and
   stores together (0: none) */
static double meas_ratio(const struct result *x)
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
		if (meas && meas_ratio(x) > 0) {
			struct bank_check l, s2;
			int gap = (report_bank_check(c, v, x, 0, &l) > 0 && !l.match) ||
			          (report_bank_check(c, v, x, 1, &s2) > 0 && !s2.match);
			snprintf(ms, sizeof ms, "  %6.2f%c", meas_ratio(x), gap ? '*' : ' ');
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
		fprintf(f, "nothing was timed: %s; compiled for %s only%s\n", ri->why_untimed, ri->arch,
		        ri->arch_default ? " (the newest NVRTC knows: registers and spills depend on "
		        "the architecture; --arch sm_XX or TUNER_ARCH names yours)" : "");
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

static void json_num(struct buf *b, double x)
{
	if (isfinite(x))
		buf_printf(b, "%.6g", x);
	else
		buf_puts(b, "null");
}

/* ', "key": x' */
static void json_kv(struct buf *b, const char *key, double x)
{
	buf_printf(b, ", \"%s\": ", key);
	json_num(b, x);
}

/* the present accesses of st as a JSON list */
static void json_bank(struct buf *b, const struct config *c, const struct bank_stats *st)
{
	size_t i, n = 0;

	buf_puts(b, "[");
	for (i = 0; i < c->naccesses; i++) {
		const struct bank_stats *a = &st[i];
		if (!a->present)
			continue;
		buf_puts(b, n++ ? ", {\"name\": " : "{\"name\": ");
		buf_json_str(b, c->accesses[i].name);
		buf_printf(b, ", \"requests\": %lld, \"wavefronts\": %lld, \"ideal\": %lld, "
		           "\"mean\": ", (long long)a->requests, (long long)a->wavefronts,
		           (long long)a->ideal);
		json_num(b, bank_mean(a));
		json_kv(b, "ideal_mean", bank_mean_ideal(a));
		buf_printf(b, ", \"max\": %d, \"degree\": %d}", a->max, a->degree);
	}
	buf_puts(b, "]");
}

/* ", \"measured\": {...}": the counters beside the prediction, per kind of request */
static void json_counted(struct buf *b, const struct config *c, const struct variant *v,
                         const struct result *x)
{
	static const char *const ops[2] = {"loads", "stores"};
	int op, n = 0;

	if (x->status == ST_OK && result_run(x)->nprobe < 0) {
		buf_puts(b, ", \"counters_error\": ");
		buf_json_str(b, result_run(x)->probe_why);
	}
	if (x->status != ST_OK || result_run(x)->nprobe < CNT_BASE)
		return;
	buf_puts(b, ", \"measured\": {");
	for (op = 0; op < 2; op++) {
		struct bank_check k;
		double m[CNT_PER_OP];
		int got = report_bank_check(c, v, x, op, &k);
		counted(x, op, m);
		buf_printf(b, "%s\"%s\": {\"requests\": %.17g, \"pipeline_wavefronts\": %.17g, "
		           "\"pipeline_conflicts\": %.17g", n++ ? ", " : "", ops[op], m[CNT_REQUESTS],
		           m[CNT_WAVEFRONTS], m[CNT_CONFLICTS]);
		if (result_run(x)->nprobe > CNT_SASS(op))
			buf_printf(b, ", \"wavefronts\": %.17g", result_run(x)->probe[CNT_SASS(op)]);
		if (got < 0)
			buf_puts(b, ", \"incomplete\": true");
		if (got > 0) {
			json_kv(b, "per_request", k.meas);
			json_kv(b, "pipeline_per_request", k.meas_pipe);
			json_kv(b, "predicted_per_request", k.pred);
			json_kv(b, "ideal_per_request", k.meas_ideal);
			json_kv(b, "predicted_ideal_per_request", k.pred_ideal);
			json_kv(b, "requests_per_block", k.meas_requests);
			json_kv(b, "predicted_requests_per_block", k.pred_requests);
			buf_printf(b, ", \"match\": %s", k.match ? "true" : "false");
		}
		buf_puts(b, "}");
	}
	json_kv(b, "ratio", meas_ratio(x));
	buf_puts(b, "}");
}

/* results.json's extra verification sizes: an object of every size per entry */
static void json_verify_sizes(struct buf *b, const struct config *c)
{
	size_t i, k;

	for (k = 0; k < c->nverify; k++) {
		buf_puts(b, k ? ", {" : "{");
		for (i = 0; i < c->nsizes; i++) {
			buf_puts(b, i ? ", " : "");
			buf_json_str(b, c->sizes[i].name);
			buf_printf(b, ": %lld", (long long)c->verify[k].vals[i]);
		}
		buf_puts(b, "}");
	}
}

/* results.json's ties and the winner's edges of the space */
static void json_winner(struct buf *b, const struct config *c, const struct space *s,
                        const struct result *r, const size_t *order)
{
	struct buf e = {0};
	size_t k, nt = 0;
	char *p, *q;

	for (k = 0; k < s->n; k++)
		nt += r[k].tie;
	buf_printf(b, "  \"ties\": %zu,\n  \"tie_rule\": \"%s\",\n  \"tie_within\": %g,\n"
	           "  \"edge\": [", nt, WINNER_TIE_RULE, c->tie);
	if (s->n && r[order[0]].status == ST_OK && report_edges(&e, c, &s->v[order[0]]))
		for (p = e.s, k = 0; (q = strchr(p, '\n')); p = q + 1, k++) {
			*q = '\0';
			buf_puts(b, k ? ", " : "");
			buf_json_str(b, p);
		}
	buf_puts(b, "],\n");
	buf_free(&e);
}

/* with out: write what b holds to out once it is large, or at the end (flush) */
#define spill(b, out) buf_spill(b, out, 1 << 16, "the results")

void report_json(struct buf *b, FILE *out, const struct config *c, const struct space *s,
                 const struct result *r, const size_t *order, const struct runinfo *ri)
{
	size_t k, i;
	int first;

	buf_puts(b, "{\n  \"kernel\": ");
	buf_json_str(b, c->name);
	buf_puts(b, ",\n  \"config\": ");
	buf_json_str(b, c->path);
	if (ri->sources_copied) {
		buf_printf(b, ",\n  \"sources\": {\"config\": {\"copy\": \"%s\", \"fnv1a64\": "
		           "\"%016llx\"}, \"template\": {\"path\": ", TUNE_CONFIG_COPY,
		           (unsigned long long)ri->config_hash);
		buf_json_str(b, c->kernel.source);
		buf_printf(b, ", \"copy\": \"%s\", \"fnv1a64\": \"%016llx\"}}", TUNE_TEMPLATE_COPY,
		           (unsigned long long)ri->template_hash);
	}
	buf_printf(b, ",\n  \"arch\": \"%s\",\n  \"nvrtc\": \"%s\",\n  \"date\": \"%s\",\n", ri->arch,
	           ri->nvrtc, ri->date);
	buf_printf(b, "  \"timed\": %s,\n", ri->timed ? "true" : "false");
	if (ri->timed) {
		buf_puts(b, "  \"gpu\": ");
		buf_json_str(b, ri->gpu.name);
		buf_printf(b, ",\n  \"compute_capability\": \"%d.%d\",\n  \"sms\": %d,\n"
		           "  \"driver\": %d,\n", ri->gpu.cc_major, ri->gpu.cc_minor, ri->gpu.sms,
		           ri->gpu.driver_version);
		buf_puts(b, "  \"copy_gbs\": ");
		json_num(b, ri->copy_gbs);
		buf_puts(b, ",\n  \"read_gbs\": ");
		json_num(b, ri->read_gbs);
		buf_printf(b, ",\n  \"bank_mode_ignored\": %s,\n", ri->bank_ignored ? "true" : "false");
		json_winner(b, c, s, r, order);
		buf_printf(b, "  \"tie_gpus\": %zu,\n", ri->tie_gpus);
		if (ri->tie_key)
			buf_printf(b, "  \"tie_chosen_by\": \"%s\",\n", winner_tie_keys[ri->tie_key]);
		if (ri->kept_winner)
			buf_puts(b, "  \"winner_kept\": true,\n");
		if (ri->playoff)
			buf_printf(b, "  \"playoff\": {\"variants\": %zu, \"rounds\": %d, \"within\": "
			           "%g, \"earlier_winner\": %s},\n", ri->playoff, ri->playoff_rounds,
			           ri->playoff_net, ri->playoff_earlier ? "true" : "false");
		if (ri->retune_json.len) {
			buf_puts(b, "  \"retune\": ");
			buf_puts(b, ri->retune_json.s);
			buf_puts(b, ",\n");
		}
		if (ri->counters > 0) {
			int set = ri->counters - 1, j, n = counters_set_len(set);
			buf_puts(b, "  \"counters\": {\"metrics\": [");
			for (j = 0; j < n; j++)
				buf_printf(b, "%s\"%s\"", j ? ", " : "", counters_smem[set][j]);
			buf_printf(b, "], \"passes\": %d, \"tolerance\": %g},\n", ri->counter_passes,
			           REPORT_BANK_TOL);
		}
		else if (ri->counters < 0) {
			buf_puts(b, "  \"counters_error\": ");
			buf_json_str(b, ri->counters_why);
			buf_puts(b, ",\n");
		}
	} else {
		buf_puts(b, "  \"why_untimed\": ");
		buf_json_str(b, ri->why_untimed);
		buf_puts(b, ",\n");
	}
	buf_puts(b, "  \"sizes\": {");
	for (i = 0; i < c->nsizes; i++) {
		buf_printf(b, "%s", i ? ", " : "");
		buf_json_str(b, c->sizes[i].name);
		buf_printf(b, ": %lld", (long long)c->sizes[i].val);
	}
	buf_puts(b, "},\n  \"verify_sizes\": [");
	json_verify_sizes(b, c);
	buf_printf(b, "],\n  \"limits\": {\"max_threads\": %d, \"smem_block\": %lld, "
	           "\"smem_optin\": %lld, \"sms\": %lld},\n", ri->lim.max_threads,
	           (long long)ri->lim.smem_default, (long long)ri->lim.smem_optin,
	           (long long)ri->sms);
	buf_puts(b, "  \"tolerance\": {\"rel\": "); /* max_rel_err: where |ref| > abs */
	json_num(b, c->rtol);
	buf_puts(b, ", \"abs\": ");
	json_num(b, c->atol);
	buf_puts(b, "},\n");
	if (ri->shard_n)
		buf_printf(b, "  \"shard\": [%d, %d],\n", ri->shard_k, ri->shard_n);
	buf_printf(b, "  \"search\": {\"strategy\": \"%s\", \"budget\": %zu, \"seed\": %llu, "
	           "\"timed\": %zu, \"skipped\": %zu", ri->strategy ? ri->strategy : "exhaustive",
	           ri->budget, (unsigned long long)ri->seed, ri->ntimed, ri->nskipped);
	if (ri->first_timed_s > 0)
		buf_printf(b, ", \"first_timed_s\": %.3f", ri->first_timed_s);
	buf_printf(b, ", \"wall_s\": %.3f},\n", ri->compile_s);
	buf_puts(b, "  \"variants\": [");
	for (k = 0, first = 1; k < s->n; k++) {
		const struct variant *v = &s->v[order[k]];
		const struct result *x = &r[order[k]];

		if (x->status == ST_SKIPPED) /* counted above; a budget may leave millions */
			continue;
		buf_puts(b, first ? "\n" : ",\n");
		first = 0;
		spill(b, out);
		buf_printf(b, "    {\"id\": \"%s\", \"params\": {", v->id);
		for (i = 0; i < c->nparams; i++) {
			buf_printf(b, "%s", i ? ", " : "");
			buf_json_str(b, c->params[i].name);
			buf_printf(b, ": %lld", (long long)v->vals[i]);
		}
		buf_printf(b, "}, \"status\": \"%s\"", result_status(x->status));
		if (x->status == ST_DROPPED) {
			buf_puts(b, ", \"reason\": ");
			buf_json_str(b, v->drop);
			buf_puts(b, "}");
			continue;
		}
		if (x->reason) {
			buf_puts(b, ", \"reason\": ");
			buf_json_str(b, x->reason);
		}
		if (x->twin >= 0)
			buf_printf(b, ", \"twin_of\": \"%s\"", s->v[x->twin].id);
		if (x->resumed)
			buf_puts(b, ", \"resumed\": true");
		if (x->tie)
			buf_puts(b, ", \"tie\": true");
		buf_printf(b, ", \"block\": [%lld, %lld, %lld], \"grid\": [%lld, %lld, %lld]",
		           (long long)v->block[0], (long long)v->block[1], (long long)v->block[2],
		           (long long)v->grid[0], (long long)v->grid[1], (long long)v->grid[2]);
		buf_printf(b, ", \"shared_dynamic\": %lld, \"bank_bytes\": %d, \"bytes\": %lld",
		           (long long)v->shared, v->bank_bytes, (long long)v->bytes);
		if (x->co.ok)
			buf_printf(b, ", \"registers\": %d, \"spill_stores\": %d, \"spill_loads\": %d, "
			           "\"stack\": %d, \"shared_static\": %d, \"cache_hit\": %s",
			           x->co.regs, x->co.spill_stores, x->co.spill_loads, x->co.stack,
			           x->co.smem_static, x->cache_hit ? "true" : "false");
		if (x->status == ST_OK || x->status == ST_MISMATCH ||
		    ((x->status == ST_TWIN || x->status == ST_COLLAPSED) && ri->timed)) {
			json_kv(b, "max_abs_err", result_run(x)->max_abs_err);
			json_kv(b, "max_rel_err", result_run(x)->max_rel_err);
			if (x->run && x->run->device >= 0 && !x->resumed)
				buf_printf(b, ", \"device\": %d", x->run->device);
		}
		if (x->status == ST_OK) {
			buf_printf(b, ", \"samples\": %d, \"median_ms\": ", result_run(x)->t.n);
			json_num(b, result_run(x)->t.median_ms);
			json_kv(b, "min_ms", result_run(x)->t.min_ms);
			json_kv(b, "max_ms", result_run(x)->t.max_ms);
			json_kv(b, "mean_ms", result_run(x)->t.mean_ms);
			json_kv(b, "spread", result_run(x)->t.spread);
			json_kv(b, "gbs", x->gbs);
			json_kv(b, "pct_copy", x->pct_copy);
			json_kv(b, "pct_read", x->pct_read);
			if (result_run(x)->resident > 0)
				buf_printf(b, ", \"resident_blocks\": %d", result_run(x)->resident);
			if (x->po_n) {
				buf_printf(b, ", \"playoff\": {\"rounds\": %d", x->po_n);
				json_kv(b, "median_ms", x->po_ms);
				json_kv(b, "se_ms", x->po_se);
				buf_puts(b, "}");
			}
		}
		if (x->bank) {
			buf_puts(b, ", \"bank\": {\"rules\": ");
			buf_json_str(b, x->bank_rules->name);
			buf_puts(b, ", \"predicted\": true, \"ratio\": ");
			json_num(b, report_bank_ratio(x->bank, c->naccesses));
			buf_puts(b, ", \"accesses\": ");
			json_bank(b, c, x->bank);
			buf_puts(b, ", \"kepler8\": ");
			json_bank(b, c, x->bank8);
			json_counted(b, c, v, x);
			buf_puts(b, "}");
		}
		if (x->status == ST_COMPILE_ERROR) {
			buf_puts(b, ", \"log\": ");
			buf_json_str(b, x->co.log ? x->co.log : "");
		}
		buf_puts(b, "}");
	}
	buf_puts(b, "\n  ]\n}\n");
	buf_spill(b, out, 0, "the results");
}

static void csv_str(struct buf *b, const char *s)
{
	buf_puts(b, "\"");
	for (; s && *s; s++) {
		if (*s == '"')
			buf_puts(b, "\"");
		buf_add(b, *s == '\n' ? " " : s, 1);
	}
	buf_puts(b, "\"");
}

void report_csv(struct buf *b, FILE *out, const struct config *c, const struct space *s,
                const struct result *r, const size_t *order)
{
	size_t k, i;

	buf_puts(b, "id");
	for (i = 0; i < c->nparams; i++)
		buf_printf(b, ",%s", c->params[i].name);
	buf_puts(b, ",status,median_ms,min_ms,spread,gbs,pct_copy,pct_read,max_abs_err,registers,"
	            "spill_bytes,shared_bytes,bank_predicted,bank_counted,twin_of,reason\n");
	for (k = 0; k < s->n; k++) {
		const struct variant *v = &s->v[order[k]];
		const struct result *x = &r[order[k]];

		if (x->status == ST_SKIPPED)
			continue;
		spill(b, out);
		buf_puts(b, v->id);
		for (i = 0; i < c->nparams; i++)
			buf_printf(b, ",%lld", (long long)v->vals[i]);
		buf_printf(b, ",%s", result_status(x->status));
		if (x->status == ST_OK)
			buf_printf(b, ",%.6g,%.6g,%.4g,%.2f,%.2f,%.2f,%.3g", result_run(x)->t.median_ms,
			           result_run(x)->t.min_ms, result_run(x)->t.spread, x->gbs, x->pct_copy, x->pct_read,
			           result_run(x)->max_abs_err);
		else
			buf_puts(b, ",,,,,,,");
		if (x->co.ok)
			buf_printf(b, ",%d,%d,%lld", x->co.regs, x->co.spill_stores + x->co.spill_loads,
			           (long long)(x->co.smem_static + v->shared));
		else
			buf_puts(b, ",,,");
		if (x->bank && report_bank_ratio(x->bank, c->naccesses) > 0)
			buf_printf(b, ",%.4g", report_bank_ratio(x->bank, c->naccesses));
		else
			buf_puts(b, ",");
		if (meas_ratio(x) > 0)
			buf_printf(b, ",%.4g", meas_ratio(x));
		else
			buf_puts(b, ",");
		buf_printf(b, ",%s,", x->twin >= 0 ? s->v[x->twin].id : "");
		csv_str(b, x->status == ST_DROPPED ? v->drop : x->reason);
		buf_puts(b, "\n");
	}
	buf_spill(b, out, 0, "the results");
}

void report_variants(FILE *f, const struct config *c, const struct space *s)
{
	size_t k, wi = 9, wp = 6;

	for (k = 0; k < s->n; k++) { /* columns as wide as their widest entry */
		char *p = space_params_str(c, &s->v[k]);
		wi = strlen(s->v[k].id) > wi ? strlen(s->v[k].id) : wi;
		wp = strlen(p) > wp ? strlen(p) : wp;
		free(p);
	}
	fprintf(f, "%-*s  %-*s  %-16s  %-16s  %8s  %s\n", (int)wi, "id", (int)wp, "params", "block",
	        "grid", "shared", "status");
	for (k = 0; k < s->n; k++) {
		const struct variant *v = &s->v[k];
		char *p = space_params_str(c, v), bl[48], gr[48];

		snprintf(bl, sizeof bl, "%lldx%lldx%lld", (long long)v->block[0],
		         (long long)v->block[1], (long long)v->block[2]);
		snprintf(gr, sizeof gr, "%lldx%lldx%lld", (long long)v->grid[0],
		         (long long)v->grid[1], (long long)v->grid[2]);
		fprintf(f, "%-*s  %-*s  %-16s  %-16s  %8lld  %s%s\n", (int)wi, v->id, (int)wp, p,
		        v->drop ? "-" : bl, v->drop ? "-" : gr, (long long)v->shared,
		        v->drop ? "dropped: " : "kept", v->drop ? v->drop : "");
		free(p);
	}
	fprintf(f, "%zu variants: %zu kept, %zu dropped\n", s->n, s->nkept, s->n - s->nkept);
}
