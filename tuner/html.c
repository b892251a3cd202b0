/* html: report.html (html.h). The page is static HTML (the summary, readable without a
   script), the data as JSON, and a script that draws the chart and the table from it. */
#include "html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "result.h"
#include "space.h"
#include "spec.h"
#include "util.h"
#include "winner.h"

/* report.html's style sheet and script, tuner/html.css and tuner/html.js as they are (embedded
   by tuner/embed.py). The script draws the chart (SVG markup set as innerHTML: no namespace URL
   is needed) and the table; sets <body data-status="ok N"> with N the points drawn, or
   "error: ..." (the error is also shown at the top of the page); with #selftest in the address
   it draws every choice of the three <select>s and sets data-selftest="ok K views" or
   "failed: ..." */
extern const char html_css[], html_js[];

void html_text(struct buf *b, const char *s)
{
	while (s && *s)
		switch (*s) {
		case '&': buf_puts(b, "&amp;"); s++; break;
		case '<': buf_puts(b, "&lt;"); s++; break;
		case '>': buf_puts(b, "&gt;"); s++; break;
		case '"': buf_puts(b, "&quot;"); s++; break;
		case '\'': buf_puts(b, "&#39;"); s++; break;
		default: s += buf_utf8_char(b, s);
		}
}

/* ,"key":x (null when not finite) */
static void kv(struct buf *b, const char *key, double x)
{
	if (isfinite(x))
		buf_printf(b, ",\"%s\":%.6g", key, x);
	else
		buf_printf(b, ",\"%s\":null", key);
}

/* ,"key":"s" */
static void ks(struct buf *b, const char *key, const char *s)
{
	buf_printf(b, ",\"%s\":", key);
	buf_json_str_html(b, s);
}

/* the first line of a reason, at most 160 bytes (results.json has all of it) */
static char *first_line(const char *s)
{
	size_t n = strcspn(s, "\n");

	return xstrndup(s, n > 160 ? 160 : n);
}

/* " Launch: ..." after the winner's figures, where its launch cost was measured; the
   launch-bound case in bold with what an application does about it */
static void launch_note(struct buf *b, const struct run_result *x)
{
	struct buf e = {0};
	int bound = report_launch(&e, x);

	if (e.len) {
		buf_puts(b, bound ? " <strong class=\"launch\">Launch: " : " Launch: ");
		html_text(b, e.s);
		buf_puts(b, bound ? "</strong>; " : ".");
		if (bound) {
			html_text(b, report_launch_advice);
			buf_puts(b, ".");
		}
	}
	buf_free(&e);
}

/* one variant's row of the data */
static void row(struct buf *b, const struct config *c, const struct space *s,
                const struct result *r, size_t i, size_t rank, int win)
{
	const struct variant *v = &s->v[i];
	const struct result *x = &r[i];
	size_t p;
	int op;

	buf_printf(b, "{\"id\":");
	buf_json_str_html(b, v->id);
	buf_printf(b, ",\"rank\":%zu,\"p\":[", rank);
	for (p = 0; p < c->nparams; p++)
		buf_printf(b, "%s%lld", p ? "," : "", (long long)v->vals[p]);
	buf_printf(b, "],\"st\":\"%s\"", result_status(x->status));
	if (x->status == ST_OK) {
		kv(b, "ms", result_run(x)->t.median_ms);
		kv(b, "gbs", x->gbs);
		kv(b, "pc", x->pct_copy);
	}
	if (x->co.ok && x->co.regs >= 0) {
		buf_printf(b, ",\"regs\":%d,\"spill\":%d,\"smem\":%lld", x->co.regs,
		           x->co.spill_stores + x->co.spill_loads,
		           (long long)(x->co.smem_static + v->shared));
	}
	if (x->bank && x->bank_ratio > 0)
		kv(b, "bank", x->bank_ratio);
	for (op = 0; op < 2; op++) {
		struct bank_check k;
		if (report_bank_check(c, v, x, op, &k) > 0)
			buf_printf(b, ",\"%s\":[%.6g,%.6g,%d]", op ? "sd" : "ld", k.pred, k.meas, k.match);
	}
	if (x->tie)
		buf_puts(b, ",\"tie\":true");
	if (win)
		buf_puts(b, ",\"win\":true");
	if ((x->status == ST_TWIN || x->status == ST_COLLAPSED) && x->twin >= 0) {
		char *t = xasprintf("%s of %s", result_status(x->status), s->v[x->twin].id);
		ks(b, "reason", t);
		free(t);
	} else if (x->reason && x->status != ST_OK && x->status != ST_UNTIMED) {
		char *t = first_line(x->reason);
		ks(b, "reason", t);
		free(t);
	}
	buf_puts(b, "}");
}

/* the page's head and its title line: the kernel, the GPU (or the architecture without one),
   the point's sizes */
static void page_head(struct buf *b, const struct config *c, const struct runinfo *ri)
{
	size_t k;

	buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	            "<title>tuner: ");
	html_text(b, c->name);
	buf_puts(b, " on ");
	html_text(b, ri->timed ? ri->gpu.name : ri->arch);
	buf_puts(b, "</title>\n<style>\n");
	buf_puts(b, html_css);
	buf_puts(b, "</style>\n</head>\n<body data-status=\"no script\">\n<h1>");
	html_text(b, c->name);
	buf_puts(b, " <span class=\"sub\">on ");
	if (ri->timed) {
		html_text(b, ri->gpu.name);
		buf_printf(b, " (compute capability %d.%d, %d SMs)", ri->gpu.cc_major,
		          ri->gpu.cc_minor, ri->gpu.sms);
	} else {
		buf_puts(b, "no GPU: compiled for ");
		html_text(b, ri->arch);
	}
	for (k = 0; k < c->nsizes; k++) { /* the point: a run at several sizes has a page each */
		buf_puts(b, k ? " " : ", at ");
		html_text(b, c->sizes[k].name);
		buf_printf(b, "=%lld", (long long)c->sizes[k].val);
	}
}

/* a timed run's summary: how many were timed, the winner, the rooflines, the L2, the ties */
static void timed_summary(struct buf *b, const struct config *c, const struct space *s,
                          const struct result *r, const size_t *order,
                          const struct runinfo *ri, size_t nok, size_t ties, int win)
{
	char *t;

	buf_printf(b, "<p class=\"sum\">%zu variants verified and timed.", nok);
	if (win) {
		const struct result *w = &r[order[0]];
		t = space_params_str(c, &s->v[order[0]]);
		buf_printf(b, " Winner: <strong>%s</strong> (", s->v[order[0]].id);
		html_text(b, t);
		buf_printf(b, "), %.4g ms, %.1f GB/s, %.1f %% of copy.", result_run(w)->t.median_ms,
		          w->gbs, w->pct_copy);
		free(t);
		launch_note(b, result_run(w));
	}
	buf_printf(b, " Rooflines: copy %.1f GB/s, read-only %.1f GB/s.", ri->copy_gbs,
	          ri->read_gbs);
	buf_puts(b, ri->l2_flush ? " Every sample after an L2 flush (" :
	                           " Every sample with the L2 as the launch before left it (");
	html_text(b, ri->l2_why);
	buf_puts(b, ").");
	if (ties >= 2) {
		buf_printf(b, " %zu variants cannot be told apart from the fastest (ties, ringed: "
		          "medians within %g %% of its): the winner among them has ", ties,
		          100 * c->tie);
		html_text(b, WINNER_TIE_RULE);
		if (ri->kept_winner)
			buf_puts(b, "; the run before's winner, which ties, is kept");
		else if (ri->tie_key) {
			buf_puts(b, "; here it was chosen by ");
			html_text(b, winner_tie_keys[ri->tie_key]);
		}
		buf_puts(b, ".");
	}
}

/* the data's keys after the kernel's name: the run, the GPU, the parameters' names, whether
   the bank model and the counters are there */
static void data_keys(struct buf *b, const struct config *c, const struct runinfo *ri)
{
	size_t i;

	ks(b, "config", c->path);
	ks(b, "arch", ri->arch);
	ks(b, "nvrtc", ri->nvrtc);
	ks(b, "date", ri->date);
	buf_printf(b, ",\"timed\":%s", ri->timed ? "true" : "false");
	if (ri->timed) {
		ks(b, "gpu", ri->gpu.name);
		kv(b, "copy_gbs", ri->copy_gbs);
		kv(b, "read_gbs", ri->read_gbs);
	} else {
		ks(b, "why_untimed", ri->why_untimed ? ri->why_untimed : "");
	}
	buf_puts(b, ",\"params\":[");
	for (i = 0; i < c->nparams; i++) {
		buf_puts(b, i ? "," : "");
		buf_json_str_html(b, c->params[i].name);
	}
	buf_printf(b, "],\"bank\":%s,\"counters\":%s", c->naccesses ? "true" : "false",
	          ri->counters > 0 && c->naccesses ? "true" : "false");
}

void html_report(FILE *f, const struct config *c, const struct space *s, const struct result *r,
                 const size_t *order, const struct runinfo *ri)
{
	struct buf b = {0};
	size_t k, tried = 0, dropped = 0, skipped = 0, nok = 0, shown = 0, ties = 0, i;
	const size_t max = HTML_MAX_POINTS;
	int win = ri->timed && s->n && r[order[0]].status == ST_OK;

	for (k = 0; k < s->n; k++) {
		dropped += r[k].status == ST_DROPPED;
		skipped += r[k].status == ST_SKIPPED;
		nok += r[k].status == (ri->timed ? ST_OK : ST_UNTIMED);
		ties += r[k].tie;
	}
	tried = s->n - dropped - skipped;
	shown = tried < max ? tried : max;

	page_head(&b, c, ri);
	buf_puts(&b, "</span></h1>\n<p class=\"meta\">config ");
	html_text(&b, c->path);
	buf_puts(&b, " &middot; NVRTC ");
	html_text(&b, ri->nvrtc);
	buf_puts(&b, " &middot; ");
	html_text(&b, ri->date);
	buf_printf(&b, " &middot; %zu variants: %zu tried, %zu dropped, %zu skipped", s->n, tried,
	           dropped, skipped);
	buf_puts(&b, " &middot; search ");
	html_text(&b, ri->strategy ? ri->strategy : "exhaustive");
	if (ri->shard_n)
		buf_printf(&b, " &middot; shard %d of %d", ri->shard_k, ri->shard_n);
	buf_puts(&b, "</p>\n");
	if (!ri->timed) {
		buf_puts(&b, "<p class=\"untimed\" id=\"untimed\"><strong>Nothing was timed</strong>: ");
		html_text(&b, ri->why_untimed && *ri->why_untimed ? ri->why_untimed : "no GPU");
		buf_printf(&b, ". The %zu variants that compiled were compiled for ", nok);
		html_text(&b, ri->arch);
		buf_puts(&b, " only. There are no timings on this page: the chart and the table show "
		             "what each compiled variant uses (registers, spills, shared memory)");
		buf_puts(&b, c->naccesses ? " and the bank model's prediction, by which they are "
		                            "ranked, then by spills" : "");
		buf_puts(&b, ".</p>\n");
	} else {
		timed_summary(&b, c, s, r, order, ri, nok, ties, win);
		buf_puts(&b, "</p>\n");
	}
	if (shown < tried)
		buf_printf(&b, "<p class=\"cap\" id=\"cap\">This page holds the best %zu of the %zu "
		           "variants tried (at most %zu are drawn); results.json and results.csv list "
		           "them all.</p>\n", shown, tried, max);
	buf_puts(&b, "<noscript><p>The chart and the table are drawn by the page's script; "
	             "results.json and results.csv hold the same data.</p></noscript>\n"
	             "<div class=\"controls\"><label>x: <select id=\"sel-x\"></select></label>"
	             "<label>y: <select id=\"sel-y\"></select></label>"
	             "<label>colour by: <select id=\"sel-c\"></select></label></div>\n"
	             "<div id=\"chart\"></div>\n<p class=\"note\" id=\"chart-note\"></p>\n"
	             "<h2>Variants</h2>\n<p class=\"note\">In rank order");
	buf_puts(&b, ri->timed ? " (verified ones by median time)" : "");
	buf_puts(&b, c->naccesses ? ". bank predicted: the bank model's wavefronts over "
	                            "conflict-free wavefronts of the declared accesses "
	                            "(docs/bank-model.md), not measured" : "");
	buf_puts(&b, ri->counters > 0 && c->naccesses ? ". loads, stores: predicted / counted "
	                                                "shared-memory wavefronts per request (the "
	                                                "GPU's counters); * marks a gap" : "");
	buf_puts(&b, ".</p>\n<div class=\"tablewrap\"><table id=\"table\"></table></div>\n"
	             "<button id=\"more\" hidden></button>\n"
	             "<script type=\"application/json\" id=\"data\">{\"kernel\":");
	buf_json_str_html(&b, c->name);
	data_keys(&b, c, ri);
	buf_printf(&b, ",\"variants\":%zu,\"tried\":%zu,\"dropped\":%zu,\"skipped\":%zu,"
	           "\"shown\":%zu,\"cap\":%zu,\"ties\":%zu", s->n, tried, dropped, skipped, shown,
	           max, ties);
	ks(&b, "winner", win ? s->v[order[0]].id : "");
	buf_puts(&b, ",\"rows\":[\n");
	for (k = 0, i = 0; k < s->n && i < shown; k++) {
		const struct result *x = &r[order[k]];
		if (x->status == ST_SKIPPED || x->status == ST_DROPPED)
			continue;
		buf_puts(&b, i ? ",\n" : "");
		row(&b, c, s, r, order[k], i + 1, win && k == 0);
		i++;
		buf_spill(&b, f, 1 << 16, "the report");
	}
	buf_puts(&b, "\n]}</script>\n<script>\n");
	buf_puts(&b, html_js);
	buf_puts(&b, "</script>\n</body>\n</html>\n");
	buf_spill(&b, f, 0, "the report");
	buf_free(&b);
}

/* point i's label, linking its report.html */
static void dir_link(struct buf *b, const char *dir, const char *label)
{
	buf_puts(b, "<a href=\"");
	html_text(b, dir);
	buf_puts(b, "/report.html\">");
	html_text(b, label);
	buf_puts(b, "</a>");
}

static void point_link(struct buf *b, const struct html_points *p, size_t i)
{
	dir_link(b, p->dir[i], p->label[i]);
}

/* the midpoints of p, a list (none: nothing) */
static void mid_list(struct buf *b, const struct html_points *p)
{
	size_t i;

	if (!p->nmid)
		return;
	buf_puts(b, "<p class=\"sum\">Midpoints: between two points, a few candidates (the best at "
	            "both, and their winners) tuned at a size between them; best.cu holds their "
	            "winners too.</p>\n<ul>\n");
	for (i = 0; i < p->nmid; i++) {
		buf_puts(b, "<li>");
		dir_link(b, p->mid_dir[i], p->mid_label[i]);
		buf_puts(b, ", between ");
		html_text(b, p->mid_lo[i]);
		buf_puts(b, " and ");
		html_text(b, p->mid_hi[i]);
		buf_puts(b, ": ");
		html_text(b, p->mid_winner[i] ? p->mid_winner[i] : "no winner");
		buf_puts(b, "</li>\n");
	}
	buf_puts(b, "</ul>\n");
}

void html_points(FILE *f, const struct html_points *p)
{
	struct buf b = {0};
	size_t i, j;

	buf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	             "<title>tuner: ");
	html_text(&b, p->kernel);
	buf_puts(&b, " at several sizes</title>\n<style>\n");
	buf_puts(&b, html_css);
	buf_puts(&b, "</style>\n</head>\n<body>\n<h1>");
	html_text(&b, p->kernel);
	buf_puts(&b, " <span class=\"sub\">on ");
	html_text(&b, p->gpu);
	if (!p->pct) { /* compile-only: the points, each linking its page */
		buf_printf(&b, ", compiled at %zu problem sizes</span></h1>\n<p class=\"sum\">No GPU: "
		               "nothing was verified or timed. Each point's page (the link) lists its "
		               "variants and what each uses.</p>\n<ul>\n", p->np);
		for (i = 0; i < p->np; i++) {
			buf_puts(&b, "<li>");
			point_link(&b, p, i);
			buf_puts(&b, "</li>\n");
		}
		buf_puts(&b, "</ul>\n</body>\n</html>\n");
		buf_spill(&b, f, 0, "report.html");
		buf_free(&b);
		return;
	}
	buf_printf(&b, ", tuned at %zu problem sizes</span></h1>\n<p class=\"sum\">Each point was "
	               "tuned on its own (its report: the link). A row is a point; a column is a "
	               "point's winner; a cell is how that winner runs at the row's point, in %% of "
	               "the speed of the row's own winner, from the medians every variant got "
	               "there.</p>\n<table>\n<thead><tr><th>at</th>", p->np);
	for (j = 0; j < p->np; j++) {
		buf_puts(&b, "<th>winner of ");
		html_text(&b, p->label[j]);
		buf_puts(&b, "</th>");
	}
	buf_puts(&b, "</tr></thead>\n<tbody>\n");
	for (i = 0; i < p->np; i++) {
		buf_puts(&b, "<tr><th>");
		point_link(&b, p, i);
		if (p->winner[i]) {
			buf_puts(&b, " (");
			html_text(&b, p->winner[i]);
			buf_puts(&b, ")");
		}
		buf_puts(&b, "</th>");
		for (j = 0; j < p->np; j++) {
			double x = p->pct[i * p->np + j];
			if (x == x)
				buf_printf(&b, "<td>%.1f</td>", x);
			else
				buf_puts(&b, "<td>-</td>");
		}
		buf_puts(&b, "</tr>\n");
	}
	buf_puts(&b, "</tbody>\n</table>\n<p class=\"sum\">");
	if (p->single) {
		buf_puts(&b, "The best single variant, ");
		html_text(&b, p->single);
		buf_puts(&b, ", runs at");
		for (i = 0; i < p->np; i++)
			buf_printf(&b, "%s %.1f %%", i ? "," : "", p->single_pct[i]);
		buf_printf(&b, " of each point's winner; choosing by size gains %.1f %% (geometric mean "
		               "over the points). best.cu holds %s.", p->gain,
		           p->single_ties ? "it alone: it ties every point's winner"
		                          : "each point's winner, chosen by size");
	} else
		buf_puts(&b, "No variant was timed at every point.");
	buf_puts(&b, "</p>\n");
	mid_list(&b, p);
	buf_puts(&b, "</body>\n</html>\n");
	buf_spill(&b, f, 0, "report.html");
	buf_free(&b);
}
