(function () {
'use strict';
var body = document.body;
function $(id) { return document.getElementById(id); }
function esc(s) {
  return String(s).replace(/[&<>"']/g, function (c) {
    return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c];
  });
}
function num(x) { return typeof x === 'number' && isFinite(x); }
function fmt(x, d) {
  if (!num(x)) return '';
  if (Math.abs(x) >= 1000 || d === 0) return String(Math.round(x));
  return x.toPrecision(d || 4).replace(/\.?0+$/, '');
}
var PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#b07aa1', '#76b7b2', '#edc948',
               '#ff9da7', '#9c755f', '#17becf'];
try {
  var D = JSON.parse($('data').textContent);
  var rows = D.rows, P = D.params;
  var want = D.timed ? 'ok' : 'untimed';
  var pts = rows.filter(function (r) { return r.st === want; });
  var Y = D.timed ? [['gbs', 'GB/s'], ['ms', 'median time (ms)'], ['pc', '% of copy']] : [];
  Y = Y.concat([['regs', 'registers per thread'], ['spill', 'spill bytes (stores + loads)'],
                ['smem', 'shared memory bytes (static + dynamic)']]);
  if (D.bank) Y.push(['bank', 'bank model: predicted wavefronts / conflict-free']);
  var X = [['rank', 'rank']].concat(P.map(function (p, i) { return [String(i), p]; }));
  var C = [['', 'nothing']].concat(P.map(function (p, i) { return [String(i), p]; }));
  function fill(sel, opts, dflt) {
    sel.innerHTML = opts.map(function (o) {
      return '<option value="' + esc(o[0]) + '">' + esc(o[1]) + '</option>';
    }).join('');
    sel.value = dflt;
  }
  var selX = $('sel-x'), selY = $('sel-y'), selC = $('sel-c');
  fill(selX, X, 'rank');
  /* untimed: the bank model's prediction where there is one (it ranks the variants) */
  var y0 = D.timed ? 'gbs' : D.bank ? 'bank' : 'regs';
  fill(selY, Y, y0);
  /* colour by the parameter with the most values (more than one) by default */
  var best = '', most = 1;
  P.forEach(function (p, i) {
    var n = distinct(pts, function (r) { return r.p[i]; }).length;
    if (n > most) { most = n; best = String(i); }
  });
  fill(selC, C, best);

  function distinct(list, f) {
    var seen = {}, out = [];
    list.forEach(function (r) {
      var v = f(r);
      if (!(v in seen)) { seen[v] = 1; out.push(v); }
    });
    return out.sort(function (a, b) { return a - b; });
  }
  /* a small offset in [-0.3, 0.3] from a variant's id, the same on every load */
  function jitter(id) {
    var h = 2166136261;
    for (var i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619) >>> 0;
    return (h % 1000) / 1000 * 0.6 - 0.3;
  }
  function colorOf(vals) {
    var m = {};
    vals.forEach(function (v, i) {
      m[v] = vals.length <= PALETTE.length ? PALETTE[i]
           : 'hsl(' + Math.round(240 - 240 * i / (vals.length - 1)) + ',70%,45%)';
    });
    return m;
  }
  function label(r) {
    return r.id + ' ' + P.map(function (p, i) { return p + '=' + r.p[i]; }).join(' ');
  }
  function ticks(lo, hi) {
    var span = hi - lo, step = Math.pow(10, Math.floor(Math.log10(span || 1)));
    if (span / step > 8) step *= 2;
    if (span / step > 8) step *= 2.5;
    if (span / step < 3) step /= 2;
    var out = [];
    for (var t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(t);
    return out;
  }

  function draw() {
    var xk = selX.value, yk = selY.value, ck = selC.value;
    var W = 900, H = 440, L = 70, R = 150, T = 20, B = 50;
    var pw = W - L - R, ph = H - T - B;
    var shown = pts.filter(function (r) { return num(r[yk]); });
    var xs, xcat = null;
    if (xk === 'rank') {
      xs = function (r) { return r.rank; };
    } else {
      var k = +xk;
      xcat = distinct(shown, function (r) { return r.p[k]; });
      var pos = {};
      xcat.forEach(function (v, i) { pos[v] = i; });
      xs = function (r) { return pos[r.p[k]] + jitter(r.id); };
    }
    var x0, x1;
    if (xcat) { x0 = -0.5; x1 = xcat.length - 0.5; }
    else {
      x0 = 0; x1 = 1;
      shown.forEach(function (r) { x1 = Math.max(x1, r.rank); });
      x1 += 1;
    }
    var y1 = 0;
    shown.forEach(function (r) { y1 = Math.max(y1, r[yk]); });
    var roof = [];
    if (yk === 'gbs') {
      if (num(D.copy_gbs) && D.copy_gbs > 0) roof.push(['copy', D.copy_gbs, '#333']);
      if (num(D.read_gbs) && D.read_gbs > 0) roof.push(['read-only', D.read_gbs, '#888']);
      roof.forEach(function (q) { y1 = Math.max(y1, q[1]); });
    }
    y1 = y1 > 0 ? y1 * 1.08 : 1;
    function sx(v) { return L + (v - x0) / (x1 - x0) * pw; }
    function sy(v) { return T + ph - v / y1 * ph; }
    var s = [];
    s.push('<svg viewBox="0 0 ' + W + ' ' + H +
           '" width="100%" role="img" aria-label="variants">');
    s.push('<rect x="' + L + '" y="' + T + '" width="' + pw + '" height="' + ph +
           '" fill="#fff" stroke="#bbb"/>');
    ticks(0, y1).forEach(function (t) {
      var y = sy(t).toFixed(1);
      s.push('<line x1="' + L + '" x2="' + (L + pw) + '" y1="' + y + '" y2="' + y +
             '" stroke="#eee"/><text x="' + (L - 6) + '" y="' + y +
             '" text-anchor="end" dominant-baseline="middle">' + fmt(t) + '</text>');
    });
    if (xcat) {
      xcat.forEach(function (v, i) {
        s.push('<text x="' + sx(i).toFixed(1) + '" y="' + (T + ph + 18) +
               '" text-anchor="middle">' + esc(v) + '</text>');
      });
    } else {
      ticks(x0, x1).forEach(function (t) {
        if (t < 1 || t !== Math.round(t)) return;
        s.push('<text x="' + sx(t).toFixed(1) + '" y="' + (T + ph + 18) +
               '" text-anchor="middle">' + t + '</text>');
      });
    }
    s.push('<text x="' + (L + pw / 2) + '" y="' + (H - 8) + '" text-anchor="middle">' +
           esc(xk !== 'rank' ? P[+xk] : D.timed ? 'rank (1: best)'
               : 'place in the table (nothing timed: by the bank model, then spills)') + '</text>');
    s.push('<text transform="translate(16,' + (T + ph / 2) +
           ') rotate(-90)" text-anchor="middle">' +
           esc(selY.options[selY.selectedIndex].text) + '</text>');
    roof.forEach(function (q) {
      var y = sy(q[1]).toFixed(1);
      s.push('<line class="roof" x1="' + L + '" x2="' + (L + pw) + '" y1="' + y +
             '" y2="' + y + '" stroke="' + q[2] + '" stroke-dasharray="6 4"/>');
      s.push('<text x="' + (L + pw - 6) + '" y="' + (y - 4) + '" text-anchor="end">' +
             esc(q[0]) + ' ' + fmt(q[1]) + ' GB/s</text>');
    });
    var cmap = null, cvals = [];
    if (ck !== '') {
      cvals = distinct(shown, function (r) { return r.p[+ck]; });
      cmap = colorOf(cvals);
    }
    var win = null;
    /* the best last, so that they are drawn on top */
    for (var i = shown.length - 1; i >= 0; i--) {
      var r = shown[i], cx = sx(xs(r)).toFixed(1), cy = sy(r[yk]).toFixed(1);
      var col = cmap ? cmap[r.p[+ck]] : PALETTE[0];
      s.push('<circle class="pt" cx="' + cx + '" cy="' + cy + '" r="3.5" fill="' + col +
             '" fill-opacity="0.8"><title>' + esc(label(r) + ': ' + fmt(r[yk]) + ' ' +
             (yk === 'gbs' ? 'GB/s' : yk === 'ms' ? 'ms' : '') + (r.tie ? ' (tie)' : '')) +
             '</title></circle>');
      if (r.tie) s.push('<circle class="tie" cx="' + cx + '" cy="' + cy +
                        '" r="6.5" fill="none" stroke="#000" stroke-width="1.2"/>');
      if (r.win) win = [cx, cy, r];
    }
    if (win) {
      var right = +win[0] > L + 0.7 * pw; /* the label on the side with room */
      s.push('<circle class="win" cx="' + win[0] + '" cy="' + win[1] +
             '" r="10" fill="none" stroke="#d62728" stroke-width="2.5"/><text x="' +
             (+win[0] + (right ? -13 : 13)) + '" y="' + (+win[1] - 8) + '" text-anchor="' +
             (right ? 'end' : 'start') + '" fill="#d62728">winner ' + esc(win[2].id) +
             '</text>');
    }
    var ly = T + 8, lx = L + pw + 10;
    if (cmap) {
      s.push('<text x="' + lx + '" y="' + (ly += 10) + '" font-weight="bold">' +
             esc(P[+ck]) + '</text>');
      cvals.slice(0, 16).forEach(function (v) {
        ly += 16;
        s.push('<circle cx="' + (lx + 5) + '" cy="' + (ly - 4) + '" r="5" fill="' +
               cmap[v] + '"/>');
        s.push('<text x="' + (lx + 14) + '" y="' + ly + '">' + esc(v) + '</text>');
      });
      if (cvals.length > 16) s.push('<text x="' + lx + '" y="' + (ly += 16) + '">... ' +
                                    (cvals.length - 16) + ' more</text>');
    }
    if (D.timed) {
      ly += 26;
      s.push('<circle cx="' + (lx + 5) + '" cy="' + (ly - 4) + '" r="6.5" fill="none" ' +
             'stroke="#000"/><text x="' + (lx + 14) + '" y="' + ly + '">tie</text>');
      ly += 18;
      s.push('<circle cx="' + (lx + 5) + '" cy="' + (ly - 4) + '" r="7" fill="none" ' +
             'stroke="#d62728" stroke-width="2.5"/><text x="' + (lx + 14) + '" y="' + ly +
             '">winner</text>');
    }
    s.push('</svg>');
    var chart = $('chart');
    chart.innerHTML = s.join('');
    var n = chart.querySelectorAll('circle.pt').length;
    $('chart-note').textContent = n + ' variants drawn' +
      (n < pts.length ? ' (' + (pts.length - n) + ' without this value)' : '') +
      (D.shown < D.tried ? '; the page holds the best ' + D.shown + ' of the ' + D.tried +
       ' variants tried' : '') + '.';
    return n;
  }

  var cols = [['rank', 'rank'], ['id', 'id']];
  cols = cols.concat(P.map(function (p, i) { return ['#' + i, p]; }));
  cols = cols.concat([['st', 'status']]);
  if (D.timed) cols = cols.concat([['ms', 'median ms'], ['gbs', 'GB/s'], ['pc', '% copy']]);
  cols = cols.concat([['regs', 'regs'], ['spill', 'spill B'], ['smem', 'smem B']]);
  if (D.bank) cols.push(['bank', 'bank predicted']);
  if (D.counters && rows.some(function (r) { return r.ld; }))
    cols.push(['ld', 'loads: predicted / counted']);
  if (D.counters && rows.some(function (r) { return r.sd; }))
    cols.push(['sd', 'stores: predicted / counted']);
  cols.push(['note', 'note']);
  function cmp(c) {
    if (!c) return '';
    return fmt(c[0]) + ' / ' + fmt(c[1]) + (c[2] ? '' : ' *');
  }
  function cell(r, k) {
    if (k[0] === '#') return String(r.p[+k.slice(1)]);
    switch (k) {
    case 'rank': return String(r.rank);
    case 'id': return r.id;
    case 'st': return r.st;
    case 'ms': return fmt(r.ms, 5);
    case 'gbs': return fmt(r.gbs, 4);
    case 'pc': return fmt(r.pc, 3);
    case 'regs': case 'spill': case 'smem': return num(r[k]) ? String(r[k]) : '';
    case 'bank': return fmt(r.bank, 4);
    case 'ld': return cmp(r.ld);
    case 'sd': return cmp(r.sd);
    case 'note':
      return (r.win ? 'winner' : '') + (r.tie ? (r.win ? ', ' : '') + 'tie' : '') +
             (r.reason ? ((r.win || r.tie) ? '; ' : '') + r.reason : '');
    }
    return '';
  }
  var limit = 200;
  function table() {
    var h = ['<thead><tr>'];
    cols.forEach(function (c) { h.push('<th>' + esc(c[1]) + '</th>'); });
    h.push('</tr></thead><tbody>');
    rows.slice(0, limit).forEach(function (r) {
      var cls = 'st-' + r.st + (r.win ? ' win' : '') + (r.tie ? ' tie' : '');
      h.push('<tr class="' + esc(cls) + '">');
      cols.forEach(function (c) { h.push('<td>' + esc(cell(r, c[0])) + '</td>'); });
      h.push('</tr>');
    });
    h.push('</tbody>');
    $('table').innerHTML = h.join('');
    var more = $('more');
    more.hidden = rows.length <= limit;
    more.textContent = 'show all ' + rows.length + ' rows';
    return Math.min(limit, rows.length);
  }
  $('more').addEventListener('click', function () { limit = rows.length; table(); });
  [selX, selY, selC].forEach(function (e) { e.addEventListener('change', draw); });
  var n = draw();
  table();
  if (location.hash === '#selftest') {
    /* every choice of the three <select>s: each draws the points that have its value */
    var bad = [], combos = 0;
    Y.forEach(function (y) {
      X.forEach(function (x) {
        C.forEach(function (c) {
          selX.value = x[0]; selY.value = y[0]; selC.value = c[0];
          var got = draw(), exp = pts.filter(function (r) { return num(r[y[0]]); }).length;
          combos++;
          if (got !== exp)
            bad.push(x[0] + '/' + y[0] + '/' + c[0] + ': ' + got + ' != ' + exp);
        });
      });
    });
    limit = rows.length;
    var nrows = table();
    if (nrows !== rows.length) bad.push('table: ' + nrows + ' rows of ' + rows.length);
    selX.value = 'rank'; selY.value = y0; selC.value = best;
    draw();
    body.setAttribute('data-selftest', bad.length ? 'failed: ' + bad.join('; ')
                                                  : 'ok ' + combos + ' views');
  }
  body.setAttribute('data-status', 'ok ' + n);
} catch (e) {
  body.setAttribute('data-status', 'error: ' + e);
  var pre = document.createElement('pre');
  pre.className = 'err';
  pre.textContent = 'The report script failed: ' + e + (e && e.stack ? '\n' + e.stack : '');
  body.insertBefore(pre, body.firstChild);
}
})();
