/* csv: results.csv, one row per variant results.json lists, written from a run's results. */
#include "csv.h"

#include <stdio.h>

#include "report.h"
#include "result.h"
#include "space.h"
#include "spec.h"
#include "util.h"

static void csv_str(struct buf *b, const char *s)
{
	buf_puts(b, "\"");
	while (s && *s) {
		if (*s == '"')
			buf_puts(b, "\"");
		if (*s == '\n' || *s == '\r') {
			buf_puts(b, " ");
			s++;
		} else {
			s += buf_utf8_char(b, s);
		}
	}
	buf_puts(b, "\"");
}

void csv_write(struct buf *b, FILE *out, const struct config *c, const struct space *s,
               const struct result *r, const size_t *order, const struct runinfo *ri)
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

		if (x->status == ST_SKIPPED || (x->status == ST_DROPPED && !ri->list_dropped))
			continue;
		buf_spill(b, out, 1 << 16, "results.csv");
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
		if (x->bank && x->bank_ratio > 0)
			buf_printf(b, ",%.4g", x->bank_ratio);
		else
			buf_puts(b, ",");
		if (report_meas_ratio(x) > 0)
			buf_printf(b, ",%.4g", report_meas_ratio(x));
		else
			buf_puts(b, ",");
		buf_printf(b, ",%s,", x->twin >= 0 ? s->v[x->twin].id : "");
		csv_str(b, x->status == ST_DROPPED ? v->drop : x->reason);
		buf_puts(b, "\n");
	}
	buf_spill(b, out, 0, "results.csv");
}
