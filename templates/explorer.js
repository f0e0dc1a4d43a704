/* The instruction explorer of report.html (report/explorer.h holds what the
   data are and their bounds). Reads the JSON in #kx-data, builds the
   explorer in #kx-app; loads nothing, writes nothing but the page. */
(function () {
  'use strict';
  var dataEl = document.getElementById('kx-data');
  var app = document.getElementById('kx-app');
  if (!dataEl || !app) return;
  var D = JSON.parse(dataEl.textContent);
  var STATE_COLORS = ['#bdbdbd', '#56B4E9', '#0072B2', '#E69F00', '#D55E00'];
  var CAT_COLORS = ['#999999', '#CC79A7', '#009E73', '#E69F00', '#F0E442', '#56B4E9', '#0072B2',
                    '#000000', '#777777', '#aaaaaa', '#555555', '#CC79A7', '#882255'];
  // row fields
  var VA = 0, ISA = 1, FILE = 2, LINE = 3, HIT = 4, LAT = 5, STALL = 6, IDLE = 7, NH = 8, CLS = 9, BKT = 10,
      LOOP = 11, PHASE = 12;
  var COLS = [
    {key: 'idx', name: '#', num: true, get: function (r, i) { return i; }},
    {key: 'va', name: 'Address', get: function (r) { return r[VA]; }, sortv: function (r) { return parseInt(r[VA], 16); }},
    {key: 'isa', name: 'ISA', get: function (r) { return r[ISA]; }},
    {key: 'src', name: 'Source', get: function (r) { return srcText(r); }},
    {key: 'hit', name: 'Hit', num: true, heat: true, get: function (r) { return r[HIT]; }},
    {key: 'lat', name: 'Latency', num: true, heat: true, get: function (r) { return r[LAT]; }},
    {key: 'stall', name: 'Stall', num: true, heat: true, get: function (r) { return r[STALL]; }},
    {key: 'idle', name: 'Idle', num: true, heat: true, get: function (r) { return r[IDLE]; }},
    {key: 'nh', name: 'Non-hidden', num: true, heat: true, get: function (r) { return r[NH]; }},
    {key: 'cls', name: 'Class', get: function (r) { return D.classes[r[CLS]] || ''; }},
    {key: 'bkt', name: 'Stall bucket', get: function (r) { return r[BKT] < 0 ? '' : D.buckets[r[BKT]]; }},
    {key: 'loop', name: 'Loop / phase', get: function (r) { return loopText(r); }},
    {key: 'rhit', name: 'Hit in range', num: true, range: true, get: function (r, i) { return S.range ? S.rangeHit[i] : null; }},
    {key: 'rstall', name: 'Stall in range', num: true, range: true, get: function (r, i) { return S.range ? S.rangeStall[i] : null; }}
  ];
  var ROW_H = 22, VIEW_ROWS = 24;
  var S = {cap: 0, sort: 'idx', desc: false, text: '', cls: -1, sel: -1, range: null, view: null,
           wave: -1, order: [], prod: {}, feeds: {}, srcHi: {}, rangeHit: null, rangeStall: null};
  var C, rowsMax, waitOf, feedsOf;

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      if (k === 'class') e.className = attrs[k];
      else if (k.slice(0, 2) === 'on') e.addEventListener(k.slice(2), attrs[k]);
      else e.setAttribute(k, attrs[k]);
    }
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function fmt(v) {
    if (v === null || v === undefined) return '';
    if (v < 0) return '—';
    return String(v).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  }
  function srcText(r) {
    if (r[FILE] < 0) return '';
    var p = C.files[r[FILE]].path;
    return p.slice(p.lastIndexOf('/') + 1) + ':' + r[LINE];
  }
  function loopText(r) {
    var t = '';
    if (r[PHASE] >= 0) t = C.phases[r[PHASE]][0];
    if (r[LOOP] >= 0) {
      var l = C.loops[r[LOOP]];
      t = 'loop ' + (r[LOOP] + 1) + (l[2] ? ' (depth ' + l[2] + ')' : '') + (l[4] ? ', main' : '');
    }
    return t;
  }

  /* ---- capture ---- */
  function loadCapture(k) {
    S.cap = k; C = D.captures[k];
    S.sel = -1; S.range = null; S.wave = C.streams.length ? C.streams[0].wave : -1;
    S.view = [0, Math.max(1, C.span)];
    rowsMax = {};
    COLS.forEach(function (c) {
      if (!c.heat) return;
      var m = 0;
      C.rows.forEach(function (r, i) { var v = c.get(r, i); if (v > m) m = v; });
      rowsMax[c.key] = m;
    });
    waitOf = {}; feedsOf = {};
    C.waits.forEach(function (w) {
      waitOf[w[0]] = w;
      w[6].forEach(function (p) { (feedsOf[p[0]] = feedsOf[p[0]] || []).push([w, p]); });
    });
    buildSourceSelect();
    refresh();
    drawTimeline();
    drawWave();
  }

  /* ---- the table ---- */
  var tableWrap, tbody, thead, spacerTop, spacerBot, statusEl, detailEl;
  function visibleRow(r, i) {
    if (S.cls >= 0 && r[CLS] !== S.cls) return false;
    if (S.range && !S.rangeHit[i]) return false;
    if (S.text) {
      var t = S.text;
      if (r[ISA].toLowerCase().indexOf(t) < 0 && r[VA].indexOf(t) < 0 && srcText(r).toLowerCase().indexOf(t) < 0 &&
          loopText(r).indexOf(t) < 0)
        return false;
    }
    return true;
  }
  function refresh() {
    var col = COLS.filter(function (c) { return c.key === S.sort; })[0] || COLS[0];
    var idx = [];
    for (var i = 0; i < C.rows.length; i++) if (visibleRow(C.rows[i], i)) idx.push(i);
    var key = col.sortv || col.get;
    idx.sort(function (a, b) {
      var x = key(C.rows[a], a), y = key(C.rows[b], b);
      if (x === null) x = -1; if (y === null) y = -1;
      var c = col.num || col.sortv ? x - y : (x < y ? -1 : x > y ? 1 : 0);
      if (S.desc) c = -c;
      return c || a - b;
    });
    S.order = idx;
    if (tableWrap.scrollTop > idx.length * ROW_H) tableWrap.scrollTop = 0;
    Array.prototype.forEach.call(thead.querySelectorAll('th'), function (th) {
      var k = th.getAttribute('data-key');
      th.setAttribute('aria-sort', k === S.sort ? (S.desc ? 'descending' : 'ascending') : 'none');
      th.hidden = !!(colByKey(k).range && !S.range);
    });
    statusEl.textContent = idx.length + ' of ' + C.rows.length + ' rows' +
      (S.range ? ', in cycles ' + fmt(S.range[0]) + '–' + fmt(S.range[1]) + ' of the ' + C.streams.length +
       ' waves whose streams the page holds (of ' + C.nwaves + ')' : '');
    renderRows();
  }
  function colByKey(k) { for (var i = 0; i < COLS.length; i++) if (COLS[i].key === k) return COLS[i]; return COLS[0]; }
  function heat(v, m) {
    if (!(m > 0) || !(v > 0)) return '';
    return 'background:rgba(213,94,0,' + (0.08 + 0.55 * v / m).toFixed(3) + ')';
  }
  var drawnRows = '';
  function renderRows(onScroll) {
    // a filter may leave fewer rows than the scroll position passed: start within them
    var first = Math.max(0, Math.min(Math.floor(tableWrap.scrollTop / ROW_H) - 8, S.order.length - VIEW_ROWS));
    var last = Math.min(S.order.length, first + VIEW_ROWS + 24);
    // a scroll within the rows drawn already keeps them (and what the user is about to click)
    if (onScroll && drawnRows === first + ':' + last) return;
    drawnRows = first + ':' + last;
    spacerTop.style.height = first * ROW_H + 'px';
    spacerBot.style.height = (S.order.length - last) * ROW_H + 'px';
    var frag = document.createDocumentFragment();
    for (var k = first; k < last; k++) {
      var i = S.order[k], r = C.rows[i];
      var tr = el('tr', {'data-row': i, tabindex: '-1'});
      var cls = [];
      if (i === S.sel) cls.push('kx-sel');
      if (S.prod[i]) cls.push('kx-prod');
      if (S.feeds[i]) cls.push('kx-feeds');
      if (S.srcHi[i]) cls.push('kx-srchi');
      if (r[LOOP] >= 0) cls.push('kx-loop' + Math.min(3, C.loops[r[LOOP]][2]));
      if (r[CLS] === 0) cls.push('kx-label');
      tr.className = cls.join(' ');
      for (var c = 0; c < COLS.length; c++) {
        var col = COLS[c];
        if (col.range && !S.range) continue;
        var v = col.get(r, i);
        var td = el('td', col.num ? {class: 'n'} : null, col.num ? fmt(v) : v);
        if (col.heat) td.setAttribute('style', heat(v, rowsMax[col.key]));
        if (col.key === 'isa' && S.prod[i]) td.appendChild(el('span', {class: 'kx-tag'}, S.prod[i]));
        if (col.key === 'isa' && S.feeds[i]) td.appendChild(el('span', {class: 'kx-tag kx-tagf'}, S.feeds[i]));
        tr.appendChild(td);
      }
      frag.appendChild(tr);
    }
    while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
    tbody.appendChild(frag);
  }
  function scrollToRow(i) {
    var k = S.order.indexOf(i);
    if (k < 0) return;
    var top = k * ROW_H, h = tableWrap.clientHeight - 30;
    if (top < tableWrap.scrollTop || top > tableWrap.scrollTop + h) tableWrap.scrollTop = Math.max(0, top - h / 3);
    renderRows();
  }

  /* ---- selection: waits, producers, source ---- */
  function select(i, fromSource) {
    S.sel = i; S.prod = {}; S.feeds = {};
    if (!fromSource) S.srcHi = {};
    var r = C.rows[i];
    while (detailEl.firstChild) detailEl.removeChild(detailEl.firstChild);
    detailEl.appendChild(el('h4', null, 'Row ' + i + ' at ' + r[VA] + ': ' + r[ISA]));
    var facts = 'Hit ' + fmt(r[HIT]) + ', Latency ' + fmt(r[LAT]) + ', Stall ' + fmt(r[STALL]) + ', Idle ' +
      fmt(r[IDLE]) + ', non-hidden latency ' + (r[NH] < 0 ? 'unknown' : fmt(r[NH])) + '; ' + (D.classes[r[CLS]] || '') +
      (r[BKT] >= 0 ? ', ' + D.buckets[r[BKT]] : '') + (srcText(r) ? '; ' + srcText(r) : '') +
      (loopText(r) ? '; ' + loopText(r) : '');
    detailEl.appendChild(el('p', null, facts));
    var w = waitOf[i];
    if (w) {
      detailEl.appendChild(el('p', null, 'Wait over the whole dispatch: ' + fmt(w[1]) + ' executions, ' + fmt(w[3]) +
        ' released at least one producer (' + C.links + ' links); stall ' + fmt(w[2]) + ' cycles, attributed ' + fmt(w[4]) +
        (w[5] >= 0 ? ', exposed latency p50 ' + fmt(w[5]) + ' cycles' : '') + '. Producers (marked ◀ in the table):'));
      var t = el('table', {class: 'kx-mini', id: 'kx-producers'});
      var h = el('tr');
      ['Producer row', 'ISA', 'Waited', 'Links', 'Critical', 'Exposed latency (wait stall attributed)', 'Distance p50 (insts)', 'Distance p50 (cycles)']
        .forEach(function (x) { h.appendChild(el('th', null, x)); });
      t.appendChild(h);
      w[6].forEach(function (p) {
        S.prod[p[0]] = '◀ ' + (p[6] >= 0 ? 'distance ' + fmt(p[6]) + ' cyc' : 'producer') + (p[4] ? ', exposed ' + fmt(p[4]) : '');
        var tr = el('tr');
        var a = el('a', {href: '#kx-app', 'data-goto': p[0]}, String(p[0]));
        var td0 = el('td'); td0.appendChild(a); tr.appendChild(td0);
        tr.appendChild(el('td', null, C.rows[p[0]][ISA]));
        [p[1], p[2], p[3], p[4], p[5], p[6]].forEach(function (v) { tr.appendChild(el('td', {class: 'n'}, fmt(v))); });
        t.appendChild(tr);
      });
      detailEl.appendChild(t);
      if (!w[6].length) detailEl.appendChild(el('p', null, 'No producer was linked to this wait (' + C.links + ' links).'));
    }
    var f = feedsOf[i];
    if (f) {
      detailEl.appendChild(el('p', null, 'Producer: the waits it feeds (marked ▶ in the table):'));
      var t2 = el('table', {class: 'kx-mini', id: 'kx-feeds'});
      var h2 = el('tr');
      ['Wait row', 'ISA', 'Waited', 'Exposed latency (wait stall attributed)', 'Distance p50 (cycles)', 'Wait exposed p50']
        .forEach(function (x) { h2.appendChild(el('th', null, x)); });
      t2.appendChild(h2);
      f.forEach(function (wp) {
        var wr = wp[0], p = wp[1];
        S.feeds[wr[0]] = '▶ ' + (p[6] >= 0 ? p[6] + ' cyc' : 'wait');
        var tr = el('tr');
        var td0 = el('td'); td0.appendChild(el('a', {href: '#kx-app', 'data-goto': wr[0]}, String(wr[0]))); tr.appendChild(td0);
        tr.appendChild(el('td', null, C.rows[wr[0]][ISA]));
        [p[1], p[4], p[6], wr[5]].forEach(function (v) { tr.appendChild(el('td', {class: 'n'}, fmt(v))); });
        t2.appendChild(tr);
      });
      detailEl.appendChild(t2);
    }
    if (!fromSource && r[FILE] >= 0) showSource(r[FILE], r[LINE]);
    renderRows();
    scrollToRow(i);
  }

  /* ---- source pane ---- */
  var srcSel, srcPane, lineTotals;
  function buildSourceSelect() {
    while (srcSel.firstChild) srcSel.removeChild(srcSel.firstChild);
    lineTotals = {};
    C.lines.forEach(function (l) { lineTotals[l[0] + ':' + l[1]] = l; });
    C.files.forEach(function (f, k) { srcSel.appendChild(el('option', {value: k}, f.path)); });
    srcSel.disabled = !C.files.length;
    if (C.files.length) showSource(0, 0);
    else {
      while (srcPane.firstChild) srcPane.removeChild(srcPane.firstChild);
      srcPane.appendChild(el('p', null, 'No row of this capture names a source line (code.json Source is empty), so there is no source to show.'));
    }
  }
  function showSource(fi, line) {
    srcSel.value = String(fi);
    var f = C.files[fi];
    while (srcPane.firstChild) srcPane.removeChild(srcPane.firstChild);
    if (!f.text) { srcPane.appendChild(el('p', null, f.path + ': ' + f.why + '. Per-line totals:')); }
    var lines = f.text ? f.text.split('\n') : [];
    var n = lines.length;
    C.lines.forEach(function (l) { if (l[0] === fi && l[1] > n) n = l[1]; });
    var tbl = el('table', {class: 'kx-src'});
    var h = el('tr');
    ['Line', 'Stall', 'Hit', 'Latency', 'Source (' + (f.copy || 'no copy') + ')'].forEach(function (x) { h.appendChild(el('th', null, x)); });
    tbl.appendChild(h);
    var target = null, maxStall = 0;
    C.lines.forEach(function (l) { if (l[0] === fi && l[4] > maxStall) maxStall = l[4]; });
    for (var k = 1; k <= n; k++) {
      var tot = lineTotals[fi + ':' + k];
      if (!f.text && !tot) continue;
      var tr = el('tr', {'data-line': k});
      if (k === line) { tr.className = 'kx-sel'; target = tr; }
      tr.appendChild(el('td', {class: 'n'}, k));
      var st = el('td', {class: 'n'}, tot ? fmt(tot[4]) : '');
      if (tot) st.setAttribute('style', heat(tot[4], maxStall));
      tr.appendChild(st);
      tr.appendChild(el('td', {class: 'n'}, tot ? fmt(tot[2]) : ''));
      tr.appendChild(el('td', {class: 'n'}, tot ? fmt(tot[3]) : ''));
      tr.appendChild(el('td', {class: 'kx-code'}, f.text ? lines[k - 1] : ''));
      tbl.appendChild(tr);
    }
    srcPane.appendChild(tbl);
    if (target) srcPane.scrollTop = Math.max(0, target.offsetTop - srcPane.clientHeight / 3);
  }
  function sourceLineClicked(fi, line) {
    S.srcHi = {};
    var first = -1;
    C.rows.forEach(function (r, i) { if (r[FILE] === fi && r[LINE] === line) { S.srcHi[i] = 1; if (first < 0) first = i; } });
    Array.prototype.forEach.call(srcPane.querySelectorAll('tr.kx-sel'), function (t) { t.className = ''; });
    var tr = srcPane.querySelector('tr[data-line="' + line + '"]');
    if (tr) tr.className = 'kx-sel';
    if (first >= 0) select(first, true); else renderRows();
  }

  /* ---- timelines ---- */
  var tlCanvas, waveCanvas, waveSel, rangeFrom, rangeTo, waveInfo;
  var TL = {left: 70, se: 0, seH: 46, occH: 40, laneH: 3, top: 18};
  function xOf(t, w) { return TL.left + (t - S.view[0]) / (S.view[1] - S.view[0]) * (w - TL.left - 8); }
  function tOf(x, w) { return S.view[0] + (x - TL.left) / (w - TL.left - 8) * (S.view[1] - S.view[0]); }
  function cssColor(name) { return getComputedStyle(app).getPropertyValue(name).trim() || '#000'; }
  function setupCanvas(cv, h) {
    var w = cv.parentNode.clientWidth || 900;
    var ratio = window.devicePixelRatio || 1;
    cv.width = Math.round(w * ratio); cv.height = Math.round(h * ratio);
    cv.style.width = w + 'px'; cv.style.height = h + 'px';
    var g = cv.getContext('2d');
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.clearRect(0, 0, w, h);
    return {g: g, w: w};
  }
  function drawTimeline() {
    var nse = C.se.ids.length, nw = C.waves.length;
    TL.laneH = nw ? Math.max(1, Math.min(8, Math.floor(320 / nw))) : 0;
    var h = TL.top + nse * (TL.seH + 4) + (C.occ.ids.length ? TL.occH + 10 : 0) + nw * TL.laneH + 30;
    var cs = setupCanvas(tlCanvas, h), g = cs.g, w = cs.w;
    var fg = cssColor('--kx-fg');
    g.font = '11px system-ui, sans-serif'; g.fillStyle = fg;
    var span = S.view[1] - S.view[0];
    g.fillText('cycles ' + fmt(Math.round(S.view[0])) + ' – ' + fmt(Math.round(S.view[1])) +
      (C.aligned ? ' (SE clocks aligned)' : ' (raw per-SE clocks)'), TL.left, 12);
    var y = TL.top;
    var bw = C.se.width, nb = C.se.n;
    for (var s = 0; s < nse; s++) {
      // waves in each state: stacked, per bin, as mean waves (cycles / bin length)
      var peak = 0, b, st;
      for (b = 0; b < nb; b++) {
        var tot = 0;
        for (st = 1; st < 5; st++) tot += C.se.cycles[s][st][b];
        var len = Math.min(bw, C.span - b * bw);
        if (len > 0 && tot / len > peak) peak = tot / len;
      }
      g.fillStyle = fg; g.fillText('SE' + C.se.ids[s], 4, y + TL.seH / 2 + 4);
      for (b = 0; b < nb; b++) {
        var t0 = b * bw, t1 = Math.min(C.span, t0 + bw);
        if (t1 < S.view[0] || t0 > S.view[1]) continue;
        var x0 = Math.max(TL.left, xOf(t0, w)), x1 = Math.min(w - 8, xOf(t1, w));
        var base = y + TL.seH;
        for (st = 1; st < 5; st++) {
          var v = C.se.cycles[s][st][b] / (t1 - t0);
          var hh = peak ? v / peak * TL.seH : 0;
          g.fillStyle = STATE_COLORS[st];
          g.fillRect(x0, base - hh, Math.max(1, x1 - x0), hh);
          base -= hh;
        }
      }
      y += TL.seH + 4;
    }
    if (C.occ.ids.length) {
      var ow = C.occ.width, off = C.occ.t0 - C.t0, opeak = 0, k;
      var tot2 = [];
      for (k = 0; k < C.occ.n; k++) {
        var sum = 0;
        for (s = 0; s < C.occ.ids.length; s++) sum += C.occ.cycles[s][k];
        tot2.push(sum / ow);
        if (sum / ow > opeak) opeak = sum / ow;
      }
      g.fillStyle = fg; g.fillText('resident', 4, y + TL.occH / 2 + 4);
      g.strokeStyle = '#009E73'; g.lineWidth = 1.5; g.beginPath();
      for (k = 0; k < C.occ.n; k++) {
        var xx = xOf(off + k * ow + ow / 2, w), yy = y + TL.occH - (opeak ? tot2[k] / opeak * TL.occH : 0);
        if (k) g.lineTo(Math.max(TL.left, Math.min(w - 8, xx)), yy); else g.moveTo(Math.max(TL.left, xx), yy);
      }
      g.stroke();
      y += TL.occH + 10;
    }
    TL.lanesTop = y;
    for (var wi = 0; wi < nw; wi++) {
      var wv = C.waves[wi], tl = wv[9], t = wv[5];
      for (var e = 0; e < tl.length; e += 2) {
        var a = t, z = t + tl[e + 1];
        t = z;
        if (z < S.view[0] || a > S.view[1] || tl[e] === 0) continue;
        var xa = Math.max(TL.left, xOf(a, w)), xz = Math.min(w - 8, xOf(z, w));
        g.fillStyle = STATE_COLORS[tl[e]] || '#888';
        g.fillRect(xa, y, Math.max(0.5, xz - xa), Math.max(1, TL.laneH - (TL.laneH > 3 ? 1 : 0)));
      }
      if (wi === S.wave) { g.strokeStyle = fg; g.lineWidth = 1; g.strokeRect(TL.left - 2, y - 1, w - TL.left - 6, TL.laneH + 1); }
      y += TL.laneH;
    }
    if (nw) { g.fillStyle = fg; g.fillText(nw + ' waves', 4, TL.lanesTop + 10); }
    if (S.range) {
      g.fillStyle = 'rgba(0,114,178,0.15)';
      var ra = xOf(S.range[0], w), rz = xOf(S.range[1], w);
      g.fillRect(ra, TL.top, Math.max(1, rz - ra), y - TL.top);
    }
    if (drag) { g.fillStyle = 'rgba(0,0,0,0.15)'; g.fillRect(Math.min(drag.x0, drag.x1), 0, Math.abs(drag.x1 - drag.x0), h); }
    // legend
    var lx = TL.left;
    for (var si = 1; si < 5; si++) {
      g.fillStyle = STATE_COLORS[si]; g.fillRect(lx, h - 14, 10, 10);
      g.fillStyle = fg; g.fillText(D.states[si], lx + 13, h - 5); lx += 70;
    }
    g.strokeStyle = '#009E73'; g.beginPath(); g.moveTo(lx, h - 9); g.lineTo(lx + 12, h - 9); g.stroke();
    g.fillStyle = fg; g.fillText('resident waves (all SEs, peak ' + C.occ.peak + ')', lx + 15, h - 5);
    rangeFrom.value = Math.round(S.view[0]); rangeTo.value = Math.round(S.view[1]);
    void span;
  }
  var drag = null;
  function streamOf(wi) { for (var k = 0; k < C.streams.length; k++) if (C.streams[k].wave === wi) return C.streams[k]; return null; }
  function drawWave() {
    var h = 90;
    var cs = setupCanvas(waveCanvas, h), g = cs.g, w = cs.w, fg = cssColor('--kx-fg');
    g.font = '11px system-ui, sans-serif';
    waveSel.value = String(S.wave);
    if (S.wave < 0) { g.fillStyle = fg; g.fillText('No wave chosen.', 8, 20); waveInfo.textContent = ''; return; }
    var wv = C.waves[S.wave], tl = wv[9], t = wv[5];
    g.fillStyle = fg; g.fillText('states', 4, 22);
    for (var e = 0; e < tl.length; e += 2) {
      var a = t, z = t + tl[e + 1]; t = z;
      if (z < S.view[0] || a > S.view[1]) continue;
      g.fillStyle = STATE_COLORS[tl[e]] || '#888';
      var xa = Math.max(TL.left, xOf(a, w)), xz = Math.min(w - 8, xOf(z, w));
      g.fillRect(xa, 12, Math.max(0.5, xz - xa), 16);
    }
    var st = streamOf(S.wave);
    g.fillStyle = fg; g.fillText('records', 4, 52);
    var txt = 'Wave ' + S.wave + ': SE' + wv[0] + ' SIMD ' + wv[1] + ' slot ' + wv[2] + ' id ' + wv[3] +
      ', cycles ' + fmt(wv[5]) + '–' + fmt(wv[6]) + ', ' + fmt(wv[7]) + ' instructions' + (wv[8] ? '; timeline drawn from bins' : '');
    if (!st) {
      txt += '. Its instruction stream is not in the page (the page keeps the streams of ' + C.streams.length +
        ' waves: the longest of each SE first, up to ' + D.limits.stream_waves + ').';
      g.fillText('stream not kept', TL.left, 52);
    } else {
      var rec = st.rec, time = 0, drawn = 0;
      for (var k = 0; k < rec.length; k += 5) {
        time += rec[k];
        var dur = Math.max(1, rec[k + 2]), stall = rec[k + 3];
        if (time + stall + dur < S.view[0] || time > S.view[1]) continue;
        var x0 = xOf(time, w), xs = xOf(time + stall, w), x1 = xOf(time + stall + dur, w);
        if (stall) { g.fillStyle = '#D55E00'; g.fillRect(Math.max(TL.left, x0), 58, Math.max(0.5, xs - x0), 8); }
        g.fillStyle = CAT_COLORS[rec[k + 4]] || '#888';
        g.fillRect(Math.max(TL.left, xs), 40, Math.max(0.5, x1 - xs), 16);
        drawn++;
      }
      txt += '; ' + fmt(st.rec.length / 5) + ' of its ' + fmt(st.total) + ' records kept' +
        (st.rec.length / 5 < st.total ? ' (the page keeps ' + fmt(C.stream_cap) + ' a wave)' : '') + ', ' + fmt(drawn) + ' in view.' +
        ' Top bar: issue by category; red: stall before issue. Click a record to find its row.';
    }
    waveInfo.textContent = txt;
    waveCanvas.setAttribute('data-wave', String(S.wave));
  }
  function setView(a, b) {
    a = Math.max(0, Math.min(a, C.span)); b = Math.max(0, Math.min(b, C.span));
    if (b - a < 4) { var m = (a + b) / 2; a = Math.max(0, m - 2); b = Math.min(C.span, a + 4); }
    S.view = [a, b];
    drawTimeline(); drawWave();
  }
  function setRange(a, b) {
    if (a === null) { S.range = null; }
    else {
      S.range = [Math.round(a), Math.round(b)];
      S.rangeHit = new Float64Array(C.rows.length); S.rangeStall = new Float64Array(C.rows.length);
      C.streams.forEach(function (st) {
        var rec = st.rec, time = 0;
        for (var k = 0; k < rec.length; k += 5) {
          time += rec[k];
          if (time < S.range[0] || time > S.range[1] || rec[k + 1] < 0) continue;
          S.rangeHit[rec[k + 1]] += 1; S.rangeStall[rec[k + 1]] += rec[k + 3];
        }
      });
    }
    refresh(); drawTimeline();
  }

  /* ---- layout ---- */
  function build() {
    app.hidden = false;
    var bar = el('div', {class: 'kx-bar'});
    if (D.captures.length > 1) {
      var cs = el('select', {id: 'kx-capture', 'aria-label': 'Capture', onchange: function () { loadCapture(+cs.value); }});
      D.captures.forEach(function (c, k) { cs.appendChild(el('option', {value: k}, c.label)); });
      bar.appendChild(el('label', {for: 'kx-capture'}, 'Capture ')); bar.appendChild(cs);
    }
    var filt = el('input', {id: 'kx-filter', type: 'search', placeholder: 'filter: ISA text, address, file:line, loop',
      'aria-label': 'Filter rows by text', oninput: function () { S.text = filt.value.toLowerCase(); refresh(); }});
    bar.appendChild(filt);
    var clsSel = el('select', {id: 'kx-class', 'aria-label': 'Filter rows by class',
      onchange: function () { S.cls = +clsSel.value; refresh(); }});
    clsSel.appendChild(el('option', {value: -1}, 'every class'));
    D.classes.forEach(function (c, k) { clsSel.appendChild(el('option', {value: k}, c)); });
    bar.appendChild(clsSel);
    statusEl = el('span', {id: 'kx-status', role: 'status'});
    bar.appendChild(statusEl);
    app.appendChild(bar);

    var grid = el('div', {class: 'kx-grid'});
    var left = el('div', {class: 'kx-left'});
    tableWrap = el('div', {class: 'kx-tablewrap', id: 'kx-tablewrap', tabindex: '0',
      'aria-label': 'Instruction table: arrow keys move, Enter selects'});
    var table = el('table', {class: 'kx-table', id: 'kx-table'});
    thead = el('thead');
    var hr = el('tr');
    COLS.forEach(function (c) {
      var th = el('th', {'data-key': c.key, scope: 'col'});
      var b = el('button', {type: 'button', onclick: function () {
        if (S.sort === c.key) S.desc = !S.desc; else { S.sort = c.key; S.desc = !!c.num && c.key !== 'idx'; }
        refresh();
      }}, c.name);
      th.appendChild(b);
      hr.appendChild(th);
    });
    thead.appendChild(hr);
    table.appendChild(thead);
    tbody = el('tbody');
    spacerTop = el('div'); spacerBot = el('div');
    table.appendChild(tbody);
    tableWrap.appendChild(spacerTop); tableWrap.appendChild(table); tableWrap.appendChild(spacerBot);
    // spacers must sit around the rows: keep the table between them and move the header with CSS sticky
    tableWrap.addEventListener('scroll', function () { renderRows(true); });
    tableWrap.addEventListener('click', function (ev) {
      var tr = ev.target.closest('tr[data-row]');
      if (tr) select(+tr.getAttribute('data-row'));
    });
    tableWrap.addEventListener('keydown', function (ev) {
      var k = S.order.indexOf(S.sel);
      if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
        ev.preventDefault();
        k = Math.max(0, Math.min(S.order.length - 1, k + (ev.key === 'ArrowDown' ? 1 : -1)));
        if (S.order.length) select(S.order[k]);
      }
    });
    left.appendChild(tableWrap);
    detailEl = el('div', {class: 'kx-detail', id: 'kx-detail', 'aria-live': 'polite'},
      'Click a row (or focus the table and use the arrow keys) to see its figures; a wait shows its producers, a producer the waits it feeds.');
    left.appendChild(detailEl);
    detailEl.addEventListener('click', function (ev) {
      var a = ev.target.closest('a[data-goto]');
      if (a) { ev.preventDefault(); select(+a.getAttribute('data-goto')); }
    });
    var right = el('div', {class: 'kx-right'});
    srcSel = el('select', {id: 'kx-file', 'aria-label': 'Source file', onchange: function () { showSource(+srcSel.value, 0); }});
    right.appendChild(srcSel);
    srcPane = el('div', {class: 'kx-srcpane', id: 'kx-source', tabindex: '0', 'aria-label': 'Source with per-line totals'});
    srcPane.addEventListener('click', function (ev) {
      var tr = ev.target.closest('tr[data-line]');
      if (tr) sourceLineClicked(+srcSel.value, +tr.getAttribute('data-line'));
    });
    right.appendChild(srcPane);
    right.appendChild(el('p', {class: 'kx-note'}, 'Per line: exclusive totals of the rows whose innermost frame is the line (Sources section). Click a line to mark its rows.'));
    grid.appendChild(left); grid.appendChild(right);
    app.appendChild(grid);

    var tl = el('div', {class: 'kx-tl'});
    tl.appendChild(el('h3', null, 'Timeline: waves in each state per SE, resident waves, one lane per wave'));
    var zb = el('div', {class: 'kx-bar'});
    rangeFrom = el('input', {type: 'number', id: 'kx-from', 'aria-label': 'View from cycle', min: 0});
    rangeTo = el('input', {type: 'number', id: 'kx-to', 'aria-label': 'View to cycle', min: 0});
    zb.appendChild(el('label', {for: 'kx-from'}, 'cycles ')); zb.appendChild(rangeFrom);
    zb.appendChild(el('label', {for: 'kx-to'}, ' to ')); zb.appendChild(rangeTo);
    zb.appendChild(el('button', {type: 'button', id: 'kx-zoom', onclick: function () { setView(+rangeFrom.value, +rangeTo.value); }}, 'Zoom'));
    zb.appendChild(el('button', {type: 'button', id: 'kx-zoomout', onclick: function () {
      var m = (S.view[0] + S.view[1]) / 2, d = S.view[1] - S.view[0]; setView(m - d, m + d); }}, 'Zoom out'));
    zb.appendChild(el('button', {type: 'button', id: 'kx-reset', onclick: function () { setView(0, C.span); }}, 'Whole dispatch'));
    zb.appendChild(el('button', {type: 'button', id: 'kx-narrow', onclick: function () { setRange(S.view[0], S.view[1]); }}, 'Narrow table to view'));
    zb.appendChild(el('button', {type: 'button', id: 'kx-clear', onclick: function () { setRange(null); }}, 'Clear range'));
    tl.appendChild(zb);
    var cwrap = el('div', {class: 'kx-canvas'});
    tlCanvas = el('canvas', {id: 'kx-timeline', role: 'img', tabindex: '0',
      'aria-label': 'Timeline; drag to zoom into a cycle range, click a lane to pick its wave; keys: + and - zoom, arrows pan, Home whole dispatch, Page Up and Page Down pick a wave'});
    cwrap.appendChild(tlCanvas);
    tl.appendChild(cwrap);
    tl.appendChild(el('p', {class: 'kx-note'}, 'Drag across the timeline to zoom into a cycle range (keys: + and - zoom, arrows pan, Home shows all); click a wave lane, or Page Up / Page Down, to pick the wave. ' +
      '"Narrow table to view" keeps the rows the kept streams executed in the view, with their hits and stall there.'));
    var wb = el('div', {class: 'kx-bar'});
    waveSel = el('select', {id: 'kx-wave', 'aria-label': 'Wave', onchange: function () { S.wave = +waveSel.value; drawTimeline(); drawWave(); }});
    C = D.captures[0];
    wb.appendChild(el('label', {for: 'kx-wave'}, 'Wave ')); wb.appendChild(waveSel);
    tl.appendChild(wb);
    var wwrap = el('div', {class: 'kx-canvas'});
    waveCanvas = el('canvas', {id: 'kx-wavecanvas', role: 'img', 'aria-label': 'The chosen wave: its states and its instruction stream'});
    wwrap.appendChild(waveCanvas);
    tl.appendChild(wwrap);
    waveInfo = el('p', {class: 'kx-note', id: 'kx-waveinfo'});
    tl.appendChild(waveInfo);
    app.appendChild(tl);

    tlCanvas.addEventListener('mousedown', function (ev) {
      var r = tlCanvas.getBoundingClientRect();
      drag = {x0: ev.clientX - r.left, x1: ev.clientX - r.left, y: ev.clientY - r.top};
    });
    window.addEventListener('mousemove', function (ev) {
      if (!drag) return;
      drag.x1 = ev.clientX - tlCanvas.getBoundingClientRect().left; drawTimeline();
    });
    window.addEventListener('mouseup', function () {
      if (!drag) return;
      var d = drag, w = tlCanvas.clientWidth; drag = null;
      if (Math.abs(d.x1 - d.x0) > 4) setView(tOf(Math.min(d.x0, d.x1), w), tOf(Math.max(d.x0, d.x1), w));
      else if (d.y >= TL.lanesTop && TL.laneH) {
        var wi = Math.floor((d.y - TL.lanesTop) / TL.laneH);
        if (wi >= 0 && wi < C.waves.length) { S.wave = wi; drawTimeline(); drawWave(); }
      } else drawTimeline();
    });
    // keyboard: + and - zoom around the middle, the arrow keys pan, Home shows the whole dispatch,
    // Page Up / Page Down pick the previous / next wave
    tlCanvas.addEventListener('keydown', function (ev) {
      var a = S.view[0], b = S.view[1], d = b - a, m = (a + b) / 2;
      if (ev.key === '+' || ev.key === '=') setView(m - d / 4, m + d / 4);
      else if (ev.key === '-') setView(m - d, m + d);
      else if (ev.key === 'ArrowLeft') setView(a - d / 5, b - d / 5);
      else if (ev.key === 'ArrowRight') setView(a + d / 5, b + d / 5);
      else if (ev.key === 'Home') setView(0, C.span);
      else if (ev.key === 'PageUp' || ev.key === 'PageDown') {
        S.wave = Math.max(0, Math.min(C.waves.length - 1, S.wave + (ev.key === 'PageDown' ? 1 : -1)));
        drawTimeline(); drawWave();
      } else return;
      ev.preventDefault();
    });
    // source pane: the arrow keys move along the lines, Enter marks the line's rows
    srcPane.addEventListener('keydown', function (ev) {
      var cur = srcPane.querySelector('tr.kx-sel'), next = null;
      if (ev.key === 'ArrowDown') next = cur ? cur.nextElementSibling : srcPane.querySelector('tr[data-line]');
      else if (ev.key === 'ArrowUp') next = cur ? cur.previousElementSibling : null;
      else if (ev.key === 'Enter' && cur) { ev.preventDefault(); sourceLineClicked(+srcSel.value, +cur.getAttribute('data-line')); return; }
      else return;
      ev.preventDefault();
      if (!next || !next.hasAttribute('data-line')) return;
      if (cur) cur.className = '';
      next.className = 'kx-sel';
      next.scrollIntoView({block: 'nearest'});
    });
    waveCanvas.addEventListener('click', function (ev) {
      var st = streamOf(S.wave);
      if (!st) return;
      var r = waveCanvas.getBoundingClientRect(), t = tOf(ev.clientX - r.left, waveCanvas.clientWidth);
      var time = 0, best = -1, bd = Infinity;
      for (var k = 0; k < st.rec.length; k += 5) {
        time += st.rec[k];
        var d = Math.abs(time + st.rec[k + 3] - t);
        if (d < bd && st.rec[k + 1] >= 0) { bd = d; best = st.rec[k + 1]; }
      }
      if (best >= 0) select(best);
    });
    window.addEventListener('resize', function () { drawTimeline(); drawWave(); });
    if (window.matchMedia) {   // canvases take their text colour from the scheme: redraw when it changes
      var mq = window.matchMedia('(prefers-color-scheme: dark)');
      var redraw = function () { drawTimeline(); drawWave(); };
      if (mq.addEventListener) mq.addEventListener('change', redraw); else if (mq.addListener) mq.addListener(redraw);
    }
  }
  function fillWaves() {
    while (waveSel.firstChild) waveSel.removeChild(waveSel.firstChild);
    C.waves.forEach(function (wv, k) {
      waveSel.appendChild(el('option', {value: k}, k + ': SE' + wv[0] + ' SIMD ' + wv[1] + ' slot ' + wv[2] + ' id ' + wv[3] +
        (streamOf(k) ? ' (stream kept)' : '')));
    });
  }

  build();
  var capSel = document.getElementById('kx-capture');
  if (capSel) capSel.addEventListener('change', fillWaves);
  C = D.captures[0];
  fillWaves();
  loadCapture(0);
  document.documentElement.setAttribute('data-kx-ready', String(Math.round(performance.now())));
})();
