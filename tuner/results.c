/* results: results.json written from a run's results (resultsread.c reads it back). */
#include "results.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bank.h"
#include "winner.h"
#include "config.h"
#include "counters.h"
#include "drops.h"
#include "report.h"
#include "space.h"

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
		const double *m = result_run(x)->probe;
		struct bank_check k;
		int got = report_bank_check(c, v, x, op, &k);
		buf_printf(b, "%s\"%s\": {\"requests\": %.17g, \"pipeline_wavefronts\": %.17g, "
		           "\"pipeline_conflicts\": %.17g", n++ ? ", " : "", ops[op],
		           m[CNT_SLOT(op, CNT_REQUESTS)], m[CNT_SLOT(op, CNT_WAVEFRONTS)],
		           m[CNT_SLOT(op, CNT_CONFLICTS)]);
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
	json_kv(b, "ratio", report_meas_ratio(x));
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
	if (s->n && r[order[0]].status == ST_OK && report_edges(&e, c, s, r, order[0]))
		for (p = e.s, k = 0; (q = strchr(p, '\n')); p = q + 1, k++) {
			*q = '\0';
			buf_puts(b, k ? ", " : "");
			buf_json_str(b, p);
		}
	buf_puts(b, "],\n");
	buf_free(&e);
	if (s->n && r[order[0]].status == ST_OK)
		report_launch_json(b, result_run(&r[order[0]]));
}

/* results.json's "winner" (the first of the ranking where it verified and was timed, else
   null) and "dropped": how many, and how many by each rule (drops.h) */
static void json_drops(struct buf *b, const struct space *s, const size_t *order,
                       const struct result *r, const struct runinfo *ri)
{
	struct drops d;
	size_t k;

	if (ri->timed && s->n && r[order[0]].status == ST_OK)
		buf_printf(b, "  \"winner\": \"%s\",\n", s->v[order[0]].id);
	else
		buf_puts(b, "  \"winner\": null,\n");
	drops_count(s, &d);
	buf_printf(b, "  \"dropped\": {\"count\": %zu, \"listed\": %s, \"by_rule\": [", d.total,
	           ri->list_dropped ? "true" : "false");
	for (k = 0; k < d.n; k++) {
		buf_puts(b, k ? ",\n    {\"rule\": " : "\n    {\"rule\": ");
		buf_json_str(b, d.v[k].rule);
		buf_printf(b, ", \"count\": %zu, \"first\": \"%s\"}", d.v[k].n, s->v[d.v[k].first].id);
	}
	buf_puts(b, d.n ? "\n  ]},\n" : "]},\n");
	drops_free(&d);
}

/* with out: write what b holds to out once it is large, or at the end (flush) */
#define spill(b, out) buf_spill(b, out, 1 << 16, "the results")

const char *const results_phase_kinds[PHASE_KINDS] = {
	[PHASE_SERIAL] = "serial", [PHASE_SPAN] = "span", [PHASE_TOTAL] = "total",
};

/* 1 if phase p comes after q in search.phases: by their start, a serial phase before the
   spans that begin with it, the totals last */
static int phase_after(const struct runphase *p, const struct runphase *q)
{
	if ((p->kind == PHASE_TOTAL) != (q->kind == PHASE_TOTAL))
		return p->kind == PHASE_TOTAL;
	if (p->start_s != q->start_s)
		return p->start_s > q->start_s;
	return p->kind > q->kind;
}

/* search.run_s and search.phases: where the run's time went, up to the writing of this file */
static void json_phases(struct buf *b, const struct runinfo *ri)
{
	int o[RUN_PHASES_MAX], i, j;

	if (!ri->nphases)
		return;
	for (i = 0; i < ri->nphases; i++) { /* sorted, stable */
		for (j = i; j > 0 && phase_after(&ri->phases[o[j - 1]], &ri->phases[i]); j--)
			o[j] = o[j - 1];
		o[j] = i;
	}
	buf_printf(b, ", \"run_s\": %.4f, \"phases\": [", ri->run_s);
	for (i = 0; i < ri->nphases; i++) {
		const struct runphase *p = &ri->phases[o[i]];
		buf_puts(b, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
		buf_json_str(b, p->name);
		buf_printf(b, ", \"kind\": \"%s\"", results_phase_kinds[p->kind]);
		if (p->kind != PHASE_TOTAL)
			buf_printf(b, ", \"start_s\": %.4f", p->start_s);
		buf_printf(b, ", \"s\": %.4f}", p->s);
	}
	buf_puts(b, "]");
}

/* a timed run's keys: the GPU, rooflines, L2, winner and how, the other GPUs, counters */
static void json_timed(struct buf *b, const struct config *c, const struct space *s,
                       const struct result *r, const size_t *order, const struct runinfo *ri)
{
	buf_puts(b, "  \"gpu\": ");
	buf_json_str(b, ri->gpu.name);
	buf_printf(b, ",\n  \"compute_capability\": \"%d.%d\",\n  \"sms\": %d,\n"
	           "  \"driver\": %d,\n", ri->gpu.cc_major, ri->gpu.cc_minor, ri->gpu.sms,
	           ri->gpu.driver_version);
	buf_puts(b, "  \"copy_gbs\": ");
	json_num(b, ri->copy_gbs);
	buf_puts(b, ",\n  \"read_gbs\": ");
	json_num(b, ri->read_gbs);
	buf_printf(b, ",\n  \"l2\": {\"policy\": \"%s\", \"flush\": %s, \"why\": ",
	           cfg_l2_words[c->l2], ri->l2_flush ? "true" : "false");
	buf_json_str(b, ri->l2_why);
	buf_printf(b, "},\n  \"bank_mode_ignored\": %s,\n", ri->bank_ignored ? "true" : "false");
	json_winner(b, c, s, r, order);
	buf_printf(b, "  \"tie_gpus\": %zu,\n", ri->tie_gpus);
	if (ri->tie_key)
		buf_printf(b, "  \"tie_chosen_by\": \"%s\",\n", winner_tie_keys[ri->tie_key]);
	if (ri->kept_winner)
		buf_puts(b, "  \"winner_kept\": true,\n");
	if (ri->playoff)
		buf_printf(b, "  \"playoff\": {\"variants\": %zu, \"rounds\": %d, \"within\": "
		           "%g, \"earlier_winner\": %s, \"left_early\": %zu},\n", ri->playoff,
		           ri->playoff_rounds, ri->playoff_net, ri->playoff_earlier ? "true" : "false",
		           ri->playoff_left);
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
}

/* one variant's object, without its closing brace */
static void json_variant(struct buf *b, const struct config *c, const struct space *s,
                         const struct variant *v, const struct result *x,
                         const struct runinfo *ri)
{
	size_t i;

	buf_printf(b, "    {\"id\": \"%s\", \"params\": {", v->id);
	for (i = 0; i < c->nparams; i++) {
		buf_printf(b, "%s", i ? ", " : "");
		buf_json_str(b, c->params[i].name);
		buf_printf(b, ": %lld", (long long)v->vals[i]);
	}
	buf_printf(b, "}, \"status\": \"%s\"", result_status(x->status));
	if (x->status == ST_DROPPED || x->reason) {
		buf_puts(b, ", \"reason\": ");
		buf_json_str(b, x->status == ST_DROPPED ? v->drop : x->reason);
	}
	if (x->status == ST_DROPPED)
		return;
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
		buf_printf(b, ", \"samples\": %d, ", result_run(x)->t.n);
		if (result_run(x)->t.reps > 1)
			buf_printf(b, "\"launches_per_sample\": %d, ", result_run(x)->t.reps);
		if (result_run(x)->t.held)
			buf_puts(b, "\"held\": true, ");
		if (result_run(x)->t.launch_us > 0)
			buf_printf(b, "\"launch_us\": %.6g, ", result_run(x)->t.launch_us);
		buf_puts(b, "\"median_ms\": ");
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
		json_num(b, x->bank_ratio);
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
}

void results_write(struct buf *b, FILE *out, const struct config *c, const struct space *s,
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
		           "\"%016llx\"}, \"template\": {\"path\": ", RESULTS_CONFIG_COPY,
		           (unsigned long long)ri->config_hash);
		buf_json_str(b, c->kernel.source);
		buf_printf(b, ", \"copy\": \"%s\", \"fnv1a64\": \"%016llx\"}}", RESULTS_TEMPLATE_COPY,
		           (unsigned long long)ri->template_hash);
	}
	buf_printf(b, ",\n  \"arch\": \"%s\",\n  \"nvrtc\": \"%s\",\n  \"date\": \"%s\",\n", ri->arch,
	           ri->nvrtc, ri->date);
	buf_printf(b, "  \"timed\": %s,\n", ri->timed ? "true" : "false");
	if (ri->timed) {
		json_timed(b, c, s, r, order, ri);
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
	if (ri->mid_lo) {
		buf_puts(b, "  \"midpoint\": {\"between\": [");
		buf_json_str(b, ri->mid_lo);
		buf_puts(b, ", ");
		buf_json_str(b, ri->mid_hi);
		buf_puts(b, "]},\n");
	}
	buf_printf(b, "  \"search\": {\"strategy\": \"%s\", \"budget\": %zu, \"seed\": %llu, "
	           "\"timed\": %zu, \"skipped\": %zu", ri->strategy ? ri->strategy : "exhaustive",
	           ri->budget, (unsigned long long)ri->seed, ri->ntimed, ri->nskipped);
	if (ri->first_timed_s > 0)
		buf_printf(b, ", \"first_timed_s\": %.3f", ri->first_timed_s);
	buf_printf(b, ", \"wall_s\": %.3f", ri->compile_s);
	json_phases(b, ri);
	buf_puts(b, "},\n");
	json_drops(b, s, order, r, ri);
	buf_puts(b, "  \"variants\": [");
	for (k = 0, first = 1; k < s->n; k++) {
		const struct variant *v = &s->v[order[k]];
		const struct result *x = &r[order[k]];

		if (x->status == ST_SKIPPED) /* counted above; a budget may leave millions */
			continue;
		if (x->status == ST_DROPPED && !ri->list_dropped) /* counted by rule above */
			continue;
		buf_puts(b, first ? "\n" : ",\n");
		first = 0;
		spill(b, out);
		json_variant(b, c, s, v, x, ri);
		buf_puts(b, "}");
	}
	buf_puts(b, "\n  ]\n}\n");
	buf_spill(b, out, 0, "the results");
}
