/* t4: results.t4.json (t4.h). */
#include "t4.h"

#include <math.h>
#include <string.h>

#include "report.h"
#include "result.h"
#include "space.h"
#include "spec.h"
#include "util.h"

const char *t4_invalidity(const struct result *r, size_t i)
{
	enum status st = r[i].status;

	if ((st == ST_TWIN || st == ST_COLLAPSED) && r[i].twin >= 0)
		st = r[r[i].twin].status;
	switch (st) {
	case ST_OK: return "correct";
	case ST_MISMATCH: return "correctness";
	case ST_COMPILE_ERROR: return "compile";
	case ST_RESOURCES:
	case ST_FAULT:
	case ST_LAUNCH_ERROR: return "runtime";
	case ST_TIMEOUT: return "timeout";
	case ST_DROPPED: return "constraints";
	default: return NULL; /* untimed, not run, skipped, a twin of one of those */
	}
}

/* one measurement, when x is finite: {"name": name, "value": x, "unit": unit} */
static void measure(struct buf *b, int *n, const char *name, double x, const char *unit)
{
	if (!isfinite(x))
		return;
	buf_printf(b, "%s{\"name\": \"%s\", \"value\": %.17g, \"unit\": \"%s\"}", (*n)++ ? ", " : "",
	           name, x, unit);
}

void t4_results(FILE *f, const struct config *c, const struct space *s, const struct result *r,
                const size_t *order, const struct runinfo *ri)
{
	struct buf b = {0};
	size_t k, p, n = 0;

	buf_puts(&b, "{\n  \"schema_version\": \"" T4_SCHEMA_VERSION "\",\n  \"results\": [");
	for (k = 0; k < s->n; k++) {
		size_t i = order[k];
		const struct variant *v = &s->v[i];
		const struct result *x = &r[i];
		const char *inv = t4_invalidity(r, i);
		const struct run_result *run = result_run(x);
		int timed = inv && !strcmp(inv, "correct"), m = 0;

		if (!inv)
			continue;
		buf_puts(&b, n++ ? ",\n    {\"timestamp\": " : "\n    {\"timestamp\": ");
		buf_json_str(&b, ri->date);
		buf_puts(&b, ", \"configuration\": {");
		for (p = 0; p < c->nparams; p++) {
			buf_puts(&b, p ? ", " : "");
			buf_json_str(&b, c->params[p].name);
			buf_printf(&b, ": %lld", (long long)v->vals[p]);
		}
		buf_puts(&b, "}, \"times\": {\"runtimes\": [");
		if (timed && isfinite(run->t.median_ms))
			buf_printf(&b, "%.17g", run->t.median_ms);
		buf_printf(&b, "]}, \"invalidity\": \"%s\", \"correctness\": %d, \"measurements\": [",
		           inv, timed);
		if (timed) {
			measure(&b, &m, "time", run->t.median_ms, "ms");
			measure(&b, &m, "time_min", run->t.min_ms, "ms");
			measure(&b, &m, "time_max", run->t.max_ms, "ms");
			measure(&b, &m, "time_mean", run->t.mean_ms, "ms");
			measure(&b, &m, "samples", run->t.n, "");
			measure(&b, &m, "spread", run->t.spread, "");
			measure(&b, &m, "gbs", x->gbs, "GB/s");
			measure(&b, &m, "pct_copy", x->pct_copy, "%");
			measure(&b, &m, "pct_read", x->pct_read, "%");
		}
		if (timed || !strcmp(inv, "correctness")) {
			measure(&b, &m, "max_abs_err", run->max_abs_err, "");
			measure(&b, &m, "max_rel_err", run->max_rel_err, "");
		}
		if (x->co.ok && x->co.regs >= 0) {
			measure(&b, &m, "registers", x->co.regs, "");
			measure(&b, &m, "spill_bytes", x->co.spill_stores + x->co.spill_loads, "B");
			measure(&b, &m, "shared_bytes", (double)(x->co.smem_static + v->shared), "B");
		}
		if (x->bank && x->bank_ratio > 0)
			measure(&b, &m, "bank_ratio_predicted", x->bank_ratio, "");
		buf_puts(&b, "], \"objectives\": [\"time\"]}");
		buf_spill(&b, f, 1 << 16, "the T4 results");
	}
	buf_puts(&b, n ? "\n  ]\n}\n" : "]\n}\n");
	buf_spill(&b, f, 0, "the T4 results");
	buf_free(&b);
}
