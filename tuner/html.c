/* html: report.html (html.h). The page is static HTML (the summary, readable without a
   script), the data as JSON, and a script that draws the chart and the table from it. */
#include "html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "bench.h" /* struct run_result */

/* report.html's style sheet, tuner/html.css as it is (embedded by tuner/embed.py) */
extern const char html_css[];

/* draws the chart (SVG markup set as innerHTML: no namespace URL is needed) and the table;
   sets <body data-status="ok N"> with N the points drawn, or "error: ..." (the error is also
   shown at the top of the page); with #selftest in the address it draws every choice of the
   three <select>s and sets data-selftest="ok K views" or "failed: ..." */
static const char *const js[] = {
	"(function () {\n",
	"'use strict';\n",
	"var body = document.body;\n",
	"function $(id) { return document.getElementById(id); }\n",
	"function esc(s) {\n",
	"  return String(s).replace(/[&<>\"']/g, function (c) {\n",
	"    return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '\"': '&quot;', \"'\": '&#39;'}[c];\n",
	"  });\n",
	"}\n",
	"function num(x) { return typeof x === 'number' && isFinite(x); }\n",
	"function fmt(x, d) {\n",
	"  if (!num(x)) return '';\n",
	"  if (Math.abs(x) >= 1000 || d === 0) return String(Math.round(x));\n",
	"  return x.toPrecision(d || 4).replace(/\\.?0+$/, '');\n",
	"}\n",
	"var PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#b07aa1', '#76b7b2', '#edc948',\n",
	"               '#ff9da7', '#9c755f', '#17becf'];\n",
	"try {\n",
	"  var D = JSON.parse($('data').textContent);\n",
	"  var rows = D.rows, P = D.params;\n",
	"  var want = D.timed ? 'ok' : 'untimed';\n",
	"  var pts = rows.filter(function (r) { return r.st === want; });\n",
	"  var Y = D.timed ? [['gbs', 'GB/s'], ['ms', 'median time (ms)'], ['pc', '% of copy']] : [];\n",
	"  Y = Y.concat([['regs', 'registers per thread'], ['spill', 'spill bytes (stores + loads)'],\n",
	"                ['smem', 'shared memory bytes (static + dynamic)']]);\n",
	"  if (D.bank) Y.push(['bank', 'bank model: predicted wavefronts / conflict-free']);\n",
	"  var X = [['rank', 'rank']].concat(P.map(function (p, i) { return [String(i), p]; }));\n",
	"  var C = [['', 'nothing']].concat(P.map(function (p, i) { return [String(i), p]; }));\n",
	"  function fill(sel, opts, dflt) {\n",
	"    sel.innerHTML = opts.map(function (o) {\n",
	"      return '<option value=\"' + esc(o[0]) + '\">' + esc(o[1]) + '</option>';\n",
	"    }).join('');\n",
	"    sel.value = dflt;\n",
	"  }\n",
	"  var selX = $('sel-x'), selY = $('sel-y'), selC = $('sel-c');\n",
	"  fill(selX, X, 'rank');\n",
	"  /* untimed: the bank model's prediction where there is one (it ranks the variants) */\n",
	"  var y0 = D.timed ? 'gbs' : D.bank ? 'bank' : 'regs';\n",
	"  fill(selY, Y, y0);\n",
	"  /* colour by the parameter with the most values (more than one) by default */\n",
	"  var best = '', most = 1;\n",
	"  P.forEach(function (p, i) {\n",
	"    var n = distinct(pts, function (r) { return r.p[i]; }).length;\n",
	"    if (n > most) { most = n; best = String(i); }\n",
	"  });\n",
	"  fill(selC, C, best);\n",
	"\n",
	"  function distinct(list, f) {\n",
	"    var seen = {}, out = [];\n",
	"    list.forEach(function (r) {\n",
	"      var v = f(r);\n",
	"      if (!(v in seen)) { seen[v] = 1; out.push(v); }\n",
	"    });\n",
	"    return out.sort(function (a, b) { return a - b; });\n",
	"  }\n",
	"  /* a small offset in [-0.3, 0.3] from a variant's id, the same on every load */\n",
	"  function jitter(id) {\n",
	"    var h = 2166136261;\n",
	"    for (var i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619) >>> 0;\n",
	"    return (h % 1000) / 1000 * 0.6 - 0.3;\n",
	"  }\n",
	"  function colorOf(vals) {\n",
	"    var m = {};\n",
	"    vals.forEach(function (v, i) {\n",
	"      m[v] = vals.length <= PALETTE.length ? PALETTE[i]\n",
	"           : 'hsl(' + Math.round(240 - 240 * i / (vals.length - 1)) + ',70%,45%)';\n",
	"    });\n",
	"    return m;\n",
	"  }\n",
	"  function label(r) {\n",
	"    return r.id + ' ' + P.map(function (p, i) { return p + '=' + r.p[i]; }).join(' ');\n",
	"  }\n",
	"  function ticks(lo, hi) {\n",
	"    var span = hi - lo, step = Math.pow(10, Math.floor(Math.log10(span || 1)));\n",
	"    if (span / step > 8) step *= 2;\n",
	"    if (span / step > 8) step *= 2.5;\n",
	"    if (span / step < 3) step /= 2;\n",
	"    var out = [];\n",
	"    for (var t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(t);\n",
	"    return out;\n",
	"  }\n",
	"\n",
	"  function draw() {\n",
	"    var xk = selX.value, yk = selY.value, ck = selC.value;\n",
	"    var W = 900, H = 440, L = 70, R = 150, T = 20, B = 50;\n",
	"    var pw = W - L - R, ph = H - T - B;\n",
	"    var shown = pts.filter(function (r) { return num(r[yk]); });\n",
	"    var xs, xcat = null;\n",
	"    if (xk === 'rank') {\n",
	"      xs = function (r) { return r.rank; };\n",
	"    } else {\n",
	"      var k = +xk;\n",
	"      xcat = distinct(shown, function (r) { return r.p[k]; });\n",
	"      var pos = {};\n",
	"      xcat.forEach(function (v, i) { pos[v] = i; });\n",
	"      xs = function (r) { return pos[r.p[k]] + jitter(r.id); };\n",
	"    }\n",
	"    var x0, x1;\n",
	"    if (xcat) { x0 = -0.5; x1 = xcat.length - 0.5; }\n",
	"    else {\n",
	"      x0 = 0; x1 = 1;\n",
	"      shown.forEach(function (r) { x1 = Math.max(x1, r.rank); });\n",
	"      x1 += 1;\n",
	"    }\n",
	"    var y1 = 0;\n",
	"    shown.forEach(function (r) { y1 = Math.max(y1, r[yk]); });\n",
	"    var roof = [];\n",
	"    if (yk === 'gbs') {\n",
	"      if (num(D.copy_gbs) && D.copy_gbs > 0) roof.push(['copy', D.copy_gbs, '#333']);\n",
	"      if (num(D.read_gbs) && D.read_gbs > 0) roof.push(['read-only', D.read_gbs, '#888']);\n",
	"      roof.forEach(function (q) { y1 = Math.max(y1, q[1]); });\n",
	"    }\n",
	"    y1 = y1 > 0 ? y1 * 1.08 : 1;\n",
	"    function sx(v) { return L + (v - x0) / (x1 - x0) * pw; }\n",
	"    function sy(v) { return T + ph - v / y1 * ph; }\n",
	"    var s = [];\n",
	"    s.push('<svg viewBox=\"0 0 ' + W + ' ' + H +\n",
	"           '\" width=\"100%\" role=\"img\" aria-label=\"variants\">');\n",
	"    s.push('<rect x=\"' + L + '\" y=\"' + T + '\" width=\"' + pw + '\" height=\"' + ph +\n",
	"           '\" fill=\"#fff\" stroke=\"#bbb\"/>');\n",
	"    ticks(0, y1).forEach(function (t) {\n",
	"      var y = sy(t).toFixed(1);\n",
	"      s.push('<line x1=\"' + L + '\" x2=\"' + (L + pw) + '\" y1=\"' + y + '\" y2=\"' + y +\n",
	"             '\" stroke=\"#eee\"/><text x=\"' + (L - 6) + '\" y=\"' + y +\n",
	"             '\" text-anchor=\"end\" dominant-baseline=\"middle\">' + fmt(t) + '</text>');\n",
	"    });\n",
	"    if (xcat) {\n",
	"      xcat.forEach(function (v, i) {\n",
	"        s.push('<text x=\"' + sx(i).toFixed(1) + '\" y=\"' + (T + ph + 18) +\n",
	"               '\" text-anchor=\"middle\">' + esc(v) + '</text>');\n",
	"      });\n",
	"    } else {\n",
	"      ticks(x0, x1).forEach(function (t) {\n",
	"        if (t < 1 || t !== Math.round(t)) return;\n",
	"        s.push('<text x=\"' + sx(t).toFixed(1) + '\" y=\"' + (T + ph + 18) +\n",
	"               '\" text-anchor=\"middle\">' + t + '</text>');\n",
	"      });\n",
	"    }\n",
	"    s.push('<text x=\"' + (L + pw / 2) + '\" y=\"' + (H - 8) + '\" text-anchor=\"middle\">' +\n",
	"           esc(xk === 'rank' ? 'rank (1: best)' : P[+xk]) + '</text>');\n",
	"    s.push('<text transform=\"translate(16,' + (T + ph / 2) +\n",
	"           ') rotate(-90)\" text-anchor=\"middle\">' +\n",
	"           esc(selY.options[selY.selectedIndex].text) + '</text>');\n",
	"    roof.forEach(function (q) {\n",
	"      var y = sy(q[1]).toFixed(1);\n",
	"      s.push('<line class=\"roof\" x1=\"' + L + '\" x2=\"' + (L + pw) + '\" y1=\"' + y +\n",
	"             '\" y2=\"' + y + '\" stroke=\"' + q[2] + '\" stroke-dasharray=\"6 4\"/>');\n",
	"      s.push('<text x=\"' + (L + pw - 6) + '\" y=\"' + (y - 4) + '\" text-anchor=\"end\">' +\n",
	"             esc(q[0]) + ' ' + fmt(q[1]) + ' GB/s</text>');\n",
	"    });\n",
	"    var cmap = null, cvals = [];\n",
	"    if (ck !== '') {\n",
	"      cvals = distinct(shown, function (r) { return r.p[+ck]; });\n",
	"      cmap = colorOf(cvals);\n",
	"    }\n",
	"    var win = null;\n",
	"    /* the best last, so that they are drawn on top */\n",
	"    for (var i = shown.length - 1; i >= 0; i--) {\n",
	"      var r = shown[i], cx = sx(xs(r)).toFixed(1), cy = sy(r[yk]).toFixed(1);\n",
	"      var col = cmap ? cmap[r.p[+ck]] : PALETTE[0];\n",
	"      s.push('<circle class=\"pt\" cx=\"' + cx + '\" cy=\"' + cy + '\" r=\"3.5\" fill=\"' + col +\n",
	"             '\" fill-opacity=\"0.8\"><title>' + esc(label(r) + ': ' + fmt(r[yk]) + ' ' +\n",
	"             (yk === 'gbs' ? 'GB/s' : yk === 'ms' ? 'ms' : '') + (r.tie ? ' (tie)' : '')) +\n",
	"             '</title></circle>');\n",
	"      if (r.tie) s.push('<circle class=\"tie\" cx=\"' + cx + '\" cy=\"' + cy +\n",
	"                        '\" r=\"6.5\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.2\"/>');\n",
	"      if (r.win) win = [cx, cy, r];\n",
	"    }\n",
	"    if (win) {\n",
	"      var right = +win[0] > L + 0.7 * pw; /* the label on the side with room */\n",
	"      s.push('<circle class=\"win\" cx=\"' + win[0] + '\" cy=\"' + win[1] +\n",
	"             '\" r=\"10\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"2.5\"/><text x=\"' +\n",
	"             (+win[0] + (right ? -13 : 13)) + '\" y=\"' + (+win[1] - 8) + '\" text-anchor=\"' +\n",
	"             (right ? 'end' : 'start') + '\" fill=\"#d62728\">winner ' + esc(win[2].id) +\n",
	"             '</text>');\n",
	"    }\n",
	"    var ly = T + 8, lx = L + pw + 10;\n",
	"    if (cmap) {\n",
	"      s.push('<text x=\"' + lx + '\" y=\"' + (ly += 10) + '\" font-weight=\"bold\">' +\n",
	"             esc(P[+ck]) + '</text>');\n",
	"      cvals.slice(0, 16).forEach(function (v) {\n",
	"        ly += 16;\n",
	"        s.push('<circle cx=\"' + (lx + 5) + '\" cy=\"' + (ly - 4) + '\" r=\"5\" fill=\"' +\n",
	"               cmap[v] + '\"/>');\n",
	"        s.push('<text x=\"' + (lx + 14) + '\" y=\"' + ly + '\">' + esc(v) + '</text>');\n",
	"      });\n",
	"      if (cvals.length > 16) s.push('<text x=\"' + lx + '\" y=\"' + (ly += 16) + '\">... ' +\n",
	"                                    (cvals.length - 16) + ' more</text>');\n",
	"    }\n",
	"    if (D.timed) {\n",
	"      ly += 26;\n",
	"      s.push('<circle cx=\"' + (lx + 5) + '\" cy=\"' + (ly - 4) + '\" r=\"6.5\" fill=\"none\" ' +\n",
	"             'stroke=\"#000\"/><text x=\"' + (lx + 14) + '\" y=\"' + ly + '\">tie</text>');\n",
	"      ly += 18;\n",
	"      s.push('<circle cx=\"' + (lx + 5) + '\" cy=\"' + (ly - 4) + '\" r=\"7\" fill=\"none\" ' +\n",
	"             'stroke=\"#d62728\" stroke-width=\"2.5\"/><text x=\"' + (lx + 14) + '\" y=\"' + ly +\n",
	"             '\">winner</text>');\n",
	"    }\n",
	"    s.push('</svg>');\n",
	"    var chart = $('chart');\n",
	"    chart.innerHTML = s.join('');\n",
	"    var n = chart.querySelectorAll('circle.pt').length;\n",
	"    $('chart-note').textContent = n + ' variants drawn' +\n",
	"      (n < pts.length ? ' (' + (pts.length - n) + ' without this value)' : '') +\n",
	"      (D.shown < D.tried ? '; the page holds the best ' + D.shown + ' of the ' + D.tried +\n",
	"       ' variants tried' : '') + '.';\n",
	"    return n;\n",
	"  }\n",
	"\n",
	"  var cols = [['rank', 'rank'], ['id', 'id']];\n",
	"  cols = cols.concat(P.map(function (p, i) { return ['#' + i, p]; }));\n",
	"  cols = cols.concat([['st', 'status']]);\n",
	"  if (D.timed) cols = cols.concat([['ms', 'median ms'], ['gbs', 'GB/s'], ['pc', '% copy']]);\n",
	"  cols = cols.concat([['regs', 'regs'], ['spill', 'spill B'], ['smem', 'smem B']]);\n",
	"  if (D.bank) cols.push(['bank', 'bank predicted']);\n",
	"  if (D.counters && rows.some(function (r) { return r.ld; }))\n",
	"    cols.push(['ld', 'loads: predicted / counted']);\n",
	"  if (D.counters && rows.some(function (r) { return r.sd; }))\n",
	"    cols.push(['sd', 'stores: predicted / counted']);\n",
	"  cols.push(['note', 'note']);\n",
	"  function cmp(c) {\n",
	"    if (!c) return '';\n",
	"    return fmt(c[0]) + ' / ' + fmt(c[1]) + (c[2] ? '' : ' *');\n",
	"  }\n",
	"  function cell(r, k) {\n",
	"    if (k[0] === '#') return String(r.p[+k.slice(1)]);\n",
	"    switch (k) {\n",
	"    case 'rank': return String(r.rank);\n",
	"    case 'id': return r.id;\n",
	"    case 'st': return r.st;\n",
	"    case 'ms': return fmt(r.ms, 5);\n",
	"    case 'gbs': return fmt(r.gbs, 4);\n",
	"    case 'pc': return fmt(r.pc, 3);\n",
	"    case 'regs': case 'spill': case 'smem': return num(r[k]) ? String(r[k]) : '';\n",
	"    case 'bank': return fmt(r.bank, 4);\n",
	"    case 'ld': return cmp(r.ld);\n",
	"    case 'sd': return cmp(r.sd);\n",
	"    case 'note':\n",
	"      return (r.win ? 'winner' : '') + (r.tie ? (r.win ? ', ' : '') + 'tie' : '') +\n",
	"             (r.reason ? ((r.win || r.tie) ? '; ' : '') + r.reason : '');\n",
	"    }\n",
	"    return '';\n",
	"  }\n",
	"  var limit = 200;\n",
	"  function table() {\n",
	"    var h = ['<thead><tr>'];\n",
	"    cols.forEach(function (c) { h.push('<th>' + esc(c[1]) + '</th>'); });\n",
	"    h.push('</tr></thead><tbody>');\n",
	"    rows.slice(0, limit).forEach(function (r) {\n",
	"      var cls = 'st-' + r.st + (r.win ? ' win' : '') + (r.tie ? ' tie' : '');\n",
	"      h.push('<tr class=\"' + esc(cls) + '\">');\n",
	"      cols.forEach(function (c) { h.push('<td>' + esc(cell(r, c[0])) + '</td>'); });\n",
	"      h.push('</tr>');\n",
	"    });\n",
	"    h.push('</tbody>');\n",
	"    $('table').innerHTML = h.join('');\n",
	"    var more = $('more');\n",
	"    more.hidden = rows.length <= limit;\n",
	"    more.textContent = 'show all ' + rows.length + ' rows';\n",
	"    return Math.min(limit, rows.length);\n",
	"  }\n",
	"  $('more').addEventListener('click', function () { limit = rows.length; table(); });\n",
	"  [selX, selY, selC].forEach(function (e) { e.addEventListener('change', draw); });\n",
	"  var n = draw();\n",
	"  table();\n",
	"  if (location.hash === '#selftest') {\n",
	"    /* every choice of the three <select>s: each draws the points that have its value */\n",
	"    var bad = [], combos = 0;\n",
	"    Y.forEach(function (y) {\n",
	"      X.forEach(function (x) {\n",
	"        C.forEach(function (c) {\n",
	"          selX.value = x[0]; selY.value = y[0]; selC.value = c[0];\n",
	"          var got = draw(), exp = pts.filter(function (r) { return num(r[y[0]]); }).length;\n",
	"          combos++;\n",
	"          if (got !== exp)\n",
	"            bad.push(x[0] + '/' + y[0] + '/' + c[0] + ': ' + got + ' != ' + exp);\n",
	"        });\n",
	"      });\n",
	"    });\n",
	"    limit = rows.length;\n",
	"    var nrows = table();\n",
	"    if (nrows !== rows.length) bad.push('table: ' + nrows + ' rows of ' + rows.length);\n",
	"    selX.value = 'rank'; selY.value = y0; selC.value = best;\n",
	"    draw();\n",
	"    body.setAttribute('data-selftest', bad.length ? 'failed: ' + bad.join('; ')\n",
	"                                                  : 'ok ' + combos + ' views');\n",
	"  }\n",
	"  body.setAttribute('data-status', 'ok ' + n);\n",
	"} catch (e) {\n",
	"  body.setAttribute('data-status', 'error: ' + e);\n",
	"  var pre = document.createElement('pre');\n",
	"  pre.className = 'err';\n",
	"  pre.textContent = 'The report script failed: ' + e + (e && e.stack ? '\\n' + e.stack : '');\n",
	"  body.insertBefore(pre, body.firstChild);\n",
	"}\n",
	"})();\n",
	NULL,
};

void html_text(struct buf *b, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '&': buf_puts(b, "&amp;"); break;
		case '<': buf_puts(b, "&lt;"); break;
		case '>': buf_puts(b, "&gt;"); break;
		case '"': buf_puts(b, "&quot;"); break;
		case '\'': buf_puts(b, "&#39;"); break;
		default: buf_add(b, s, 1);
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
	if (x->bank && report_bank_ratio(x->bank, c->naccesses) > 0)
		kv(b, "bank", report_bank_ratio(x->bank, c->naccesses));
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

void html_report(FILE *f, const struct config *c, const struct space *s, const struct result *r,
                 const size_t *order, const struct runinfo *ri)
{
	struct buf b = {0};
	size_t k, tried = 0, dropped = 0, skipped = 0, nok = 0, shown = 0, ties = 0, i;
	const size_t max = HTML_MAX_POINTS;
	int win = ri->timed && s->n && r[order[0]].status == ST_OK;
	const char *const *line;
	char *t;

	for (k = 0; k < s->n; k++) {
		dropped += r[k].status == ST_DROPPED;
		skipped += r[k].status == ST_SKIPPED;
		nok += r[k].status == (ri->timed ? ST_OK : ST_UNTIMED);
		ties += r[k].tie;
	}
	tried = s->n - dropped - skipped;
	shown = tried < max ? tried : max;

	buf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	             "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	             "<title>tuner: ");
	html_text(&b, c->name);
	buf_puts(&b, " on ");
	html_text(&b, ri->timed ? ri->gpu.name : ri->arch);
	buf_puts(&b, "</title>\n<style>\n");
	buf_puts(&b, html_css);
	buf_puts(&b, "</style>\n</head>\n<body data-status=\"no script\">\n<h1>");
	html_text(&b, c->name);
	buf_puts(&b, " <span class=\"sub\">on ");
	if (ri->timed) {
		html_text(&b, ri->gpu.name);
		buf_printf(&b, " (compute capability %d.%d, %d SMs)", ri->gpu.cc_major,
		           ri->gpu.cc_minor, ri->gpu.sms);
	} else {
		buf_puts(&b, "no GPU: compiled for ");
		html_text(&b, ri->arch);
	}
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
		buf_printf(&b, "<p class=\"sum\">%zu variants verified and timed.", nok);
		if (win) {
			const struct result *w = &r[order[0]];
			t = space_params_str(c, &s->v[order[0]]);
			buf_printf(&b, " Winner: <strong>%s</strong> (", s->v[order[0]].id);
			html_text(&b, t);
			buf_printf(&b, "), %.4g ms, %.1f GB/s, %.1f %% of copy.", result_run(w)->t.median_ms,
			           w->gbs, w->pct_copy);
			free(t);
		}
		buf_printf(&b, " Rooflines: copy %.1f GB/s, read-only %.1f GB/s.", ri->copy_gbs,
		           ri->read_gbs);
		if (ties >= 2) {
			buf_printf(&b, " %zu variants cannot be told apart from the fastest (ties, ringed): "
			           "the winner among them has ", ties);
			html_text(&b, REPORT_TIE_RULE);
			if (ri->kept_winner)
				buf_puts(&b, "; the run before's winner, which ties, is kept");
			else if (ri->tie_key) {
				buf_puts(&b, "; here it was chosen by ");
				html_text(&b, report_tie_keys[ri->tie_key]);
			}
			buf_puts(&b, ".");
		}
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
	ks(&b, "config", c->path);
	ks(&b, "arch", ri->arch);
	ks(&b, "nvrtc", ri->nvrtc);
	ks(&b, "date", ri->date);
	buf_printf(&b, ",\"timed\":%s", ri->timed ? "true" : "false");
	if (ri->timed) {
		ks(&b, "gpu", ri->gpu.name);
		kv(&b, "copy_gbs", ri->copy_gbs);
		kv(&b, "read_gbs", ri->read_gbs);
	} else {
		ks(&b, "why_untimed", ri->why_untimed ? ri->why_untimed : "");
	}
	buf_puts(&b, ",\"params\":[");
	for (i = 0; i < c->nparams; i++) {
		buf_puts(&b, i ? "," : "");
		buf_json_str_html(&b, c->params[i].name);
	}
	buf_printf(&b, "],\"bank\":%s,\"counters\":%s", c->naccesses ? "true" : "false",
	           ri->counters > 0 && c->naccesses ? "true" : "false");
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
	for (line = js; *line; line++)
		buf_puts(&b, *line);
	buf_puts(&b, "</script>\n</body>\n</html>\n");
	buf_spill(&b, f, 0, "the report");
	buf_free(&b);
}
