/* The aligned instruction tables of compare.html: BEST and CANDIDATE side by
   side (report/compare_html.c writes the data in #kx-data); sort by any
   column, filter by text or pair kind, rows shaded by their change of
   stall share. Loads nothing, writes nothing but the page. */
(function () {
  'use strict';
  var dataEl = document.getElementById('kx-data');
  var app = document.getElementById('kx-app');
  if (!dataEl || !app) return;
  var D = JSON.parse(dataEl.textContent);
  var KIND = 0, BROW = 1, BSTALL = 2, BHIT = 3, BLAT = 4, CROW = 5, CSTALL = 6, CHIT = 7, CLAT = 8, BISA = 9, CISA = 10;
  var P, S = {pair: 0, sort: 'pos', desc: false, text: '', kind: -1};
  function v(x) { return x < 0 ? 0 : x; }
  function share(r) {
    var tb = P.stall_total[0], tc = P.stall_total[1];
    return (tc ? v(r[CSTALL]) / tc : 0) - (tb ? v(r[BSTALL]) / tb : 0);
  }
  var COLS = [
    {key: 'pos', name: '#', num: true, get: function (r, i) { return i; }},
    {key: 'kind', name: 'Pairing', get: function (r) { return D.kinds[r[KIND]]; }},
    {key: 'brow', name: 'BEST row', num: true, get: function (r) { return r[BROW]; }},
    {key: 'bisa', name: 'BEST ISA', get: function (r) { return r[BISA]; }},
    {key: 'bstall', name: 'Stall', num: true, get: function (r) { return r[BSTALL]; }},
    {key: 'bhit', name: 'Hit', num: true, get: function (r) { return r[BHIT]; }},
    {key: 'crow', name: 'CANDIDATE row', num: true, get: function (r) { return r[CROW]; }},
    {key: 'cisa', name: 'CANDIDATE ISA', get: function (r) { return r[CROW] < 0 ? '' : (r[CISA] || '(same text)'); }},
    {key: 'cstall', name: 'Stall', num: true, get: function (r) { return r[CSTALL]; }},
    {key: 'chit', name: 'Hit', num: true, get: function (r) { return r[CHIT]; }},
    {key: 'dstall', name: 'Δ Stall', num: true, abs: true, get: function (r) { return v(r[CSTALL]) - v(r[BSTALL]); }},
    {key: 'dlat', name: 'Δ Latency', num: true, abs: true, get: function (r) { return v(r[CLAT]) - v(r[BLAT]); }},
    {key: 'dshare', name: 'Δ stall share (pp)', num: true, abs: true, get: function (r) { return Math.round(share(r) * 10000) / 100; }}
  ];
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      if (k.slice(0, 2) === 'on') e.addEventListener(k.slice(2), attrs[k]);
      else if (k === 'class') e.className = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function fmt(x, key) {
    if (x === null || x === undefined) return '';
    if (key === 'dshare') return (x > 0 ? '+' : '') + x.toFixed(2);
    if (x < 0 && (key === 'brow' || key === 'crow' || key === 'bstall' || key === 'bhit' || key === 'cstall' || key === 'chit')) return '—';
    return (x > 0 && key.charAt(0) === 'd' ? '+' : '') + String(x).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  }
  // shading by the change of stall share: 0.1 pp and 1 pp steps
  function shade(r) {
    var d = share(r) * 100;
    if (d >= 1) return 'kx-worse2';
    if (d >= 0.1) return 'kx-worse1';
    if (d <= -1) return 'kx-better2';
    if (d <= -0.1) return 'kx-better1';
    return '';
  }
  var tbody, thead, statusEl, wrap;
  function render() {
    var col = COLS.filter(function (c) { return c.key === S.sort; })[0] || COLS[0];
    var idx = [];
    P.rows.forEach(function (r, i) {
      if (S.kind >= 0 && r[KIND] !== S.kind) return;
      if (S.text && (r[BISA] + ' ' + r[CISA]).toLowerCase().indexOf(S.text) < 0) return;
      idx.push(i);
    });
    idx.sort(function (a, b) {
      var x = col.get(P.rows[a], a), y = col.get(P.rows[b], b);
      if (col.abs) { x = Math.abs(x); y = Math.abs(y); }
      var c = col.num ? x - y : (x < y ? -1 : x > y ? 1 : 0);
      return (S.desc ? -c : c) || a - b;
    });
    Array.prototype.forEach.call(thead.querySelectorAll('th'), function (th) {
      th.setAttribute('aria-sort', th.getAttribute('data-key') === S.sort ? (S.desc ? 'descending' : 'ascending') : 'none');
    });
    statusEl.textContent = idx.length + ' of ' + P.rows.length + ' aligned rows; alignment ' + P.method +
      ', quality ' + (P.quality * 100).toFixed(1) + ' %';
    var frag = document.createDocumentFragment();
    idx.forEach(function (i) {
      var r = P.rows[i];
      var tr = el('tr', {'data-row': i, class: shade(r)});
      COLS.forEach(function (c) {
        var x = c.get(r, i);
        tr.appendChild(el('td', c.num ? {class: 'n'} : null, c.num ? fmt(x, c.key) : x));
      });
      frag.appendChild(tr);
    });
    while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
    tbody.appendChild(frag);
  }
  function build() {
    app.hidden = false;
    var bar = el('div', {class: 'kx-bar'});
    if (D.pairs.length > 1) {
      var ps = el('select', {id: 'kx-pair', 'aria-label': 'Pair of captures', onchange: function () { P = D.pairs[+ps.value]; render(); }});
      D.pairs.forEach(function (p, k) { ps.appendChild(el('option', {value: k}, p.name)); });
      bar.appendChild(ps);
    }
    var f = el('input', {id: 'kx-filter', type: 'search', placeholder: 'filter: ISA text', 'aria-label': 'Filter rows by ISA text',
      oninput: function () { S.text = f.value.toLowerCase(); render(); }});
    bar.appendChild(f);
    var ks = el('select', {id: 'kx-kind', 'aria-label': 'Filter rows by pairing', onchange: function () { S.kind = +ks.value; render(); }});
    ks.appendChild(el('option', {value: -1}, 'every pairing'));
    D.kinds.forEach(function (k, i) { ks.appendChild(el('option', {value: i}, k)); });
    bar.appendChild(ks);
    statusEl = el('span', {id: 'kx-status', role: 'status'});
    bar.appendChild(statusEl);
    app.appendChild(bar);
    wrap = el('div', {class: 'kx-tablewrap', id: 'kx-cmpwrap', tabindex: '0', 'aria-label': 'Aligned instruction rows'});
    var t = el('table', {class: 'kx-table', id: 'kx-cmp'});
    thead = el('thead');
    var hr = el('tr');
    COLS.forEach(function (c) {
      var th = el('th', {'data-key': c.key, scope: 'col'});
      th.appendChild(el('button', {type: 'button', onclick: function () {
        if (S.sort === c.key) S.desc = !S.desc; else { S.sort = c.key; S.desc = !!c.abs; }
        render();
      }}, c.name));
      hr.appendChild(th);
    });
    thead.appendChild(hr);
    t.appendChild(thead);
    tbody = el('tbody');
    t.appendChild(tbody);
    wrap.appendChild(t);
    app.appendChild(wrap);
  }
  if (!D.pairs.length) return;
  P = D.pairs[0];
  build();
  render();
  document.documentElement.setAttribute('data-kx-ready', String(Math.round(performance.now())));
})();
