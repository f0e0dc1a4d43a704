// browser.js — drives headless Chromium through the DevTools protocol
// (puppeteer-core, installed by tests/browser.sh) over pages kreport wrote,
// and checks what a user would see. Usage:
//   node browser.js DRIVER_DIR chromium|firefox BROWSER OUT_DIR PAGE.json
// Chromium is driven through the DevTools protocol, Firefox through
// WebDriver BiDi, which has no way to switch the colour scheme or
// JavaScript off: those checks run in Chromium only.
// PAGE.json: [{"name", "html", "kind": "report"|"compare", "budget_ms"}].
// Expectations come from the data inside each page, read here with
// JSON.parse and recomputed independently of the page's script: the
// largest stall, the rows a filter keeps, a wait's producers, the rows the
// kept streams execute in a cycle range. Screenshots are decoded here
// (PNG, zlib) and their pixels compared with the colours the page must
// show at the places it must show them. Prints one line per failure and
// "browser.js: N passed, N failed"; exit 1 on any failure.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const [driverDir, kind, browserPath, outDir, pagesFile] = process.argv.slice(2);
const firefox = kind === 'firefox';
const puppeteer = require(path.resolve(driverDir, 'node_modules', 'puppeteer-core'));
let passed = 0, failed = 0;
function check(cond, what) {
  if (cond) passed++;
  else { failed++; console.log('browser.js: ' + what); }
}

// ---- PNG (8-bit RGB/RGBA, not interlaced) to {w, h, bpp, px} ----
function decodePng(buf) {
  let pos = 8, w = 0, h = 0, ctype = 0;
  const idat = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos), type = buf.toString('ascii', pos + 4, pos + 8);
    const body = buf.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') { w = body.readUInt32BE(0); h = body.readUInt32BE(4); ctype = body[9]; }
    else if (type === 'IDAT') idat.push(body);
    pos += 12 + len;
  }
  const bpp = ctype === 6 ? 4 : 3, stride = w * bpp;
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const px = Buffer.alloc(h * stride);
  for (let y = 0; y < h; y++) {
    const f = raw[y * (stride + 1)], src = y * (stride + 1) + 1, dst = y * stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? px[dst + x - bpp] : 0, b = y ? px[dst - stride + x] : 0;
      const c = x >= bpp && y ? px[dst - stride + x - bpp] : 0;
      let v = raw[src + x];
      if (f === 1) v += a;
      else if (f === 2) v += b;
      else if (f === 3) v += (a + b) >> 1;
      else if (f === 4) {
        const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      px[dst + x] = v & 255;
    }
  }
  return {w, h, bpp, px};
}
function hex(c) { return [parseInt(c.slice(1, 3), 16), parseInt(c.slice(3, 5), 16), parseInt(c.slice(5, 7), 16)]; }
// pixels of colour c (exactly) within rows y0..y1 (all when omitted)
function count(img, c, y0, y1) {
  const [r, g, b] = hex(c);
  let n = 0;
  for (let y = y0 || 0; y < (y1 === undefined ? img.h : Math.min(img.h, y1)); y++)
    for (let x = 0; x < img.w; x++) {
      const i = (y * img.w + x) * img.bpp;
      if (img.px[i] === r && img.px[i + 1] === g && img.px[i + 2] === b) n++;
    }
  return n;
}
function near(img, x, y, c, tol) {
  const i = (Math.round(y) * img.w + Math.round(x)) * img.bpp, [r, g, b] = hex(c);
  return Math.abs(img.px[i] - r) <= tol && Math.abs(img.px[i + 1] - g) <= tol && Math.abs(img.px[i + 2] - b) <= tol;
}
async function shot(page, name, clip) {
  const file = path.join(outDir, name + '.png');
  await page.screenshot({path: file, clip: clip || undefined});
  return decodePng(fs.readFileSync(file));
}
async function clipOf(page, sel) {
  const r = await page.$eval(sel, e => { e.scrollIntoView({block: 'center'}); const b = e.getBoundingClientRect();
    return {x: b.left + window.scrollX, y: b.top + window.scrollY, width: b.width, height: b.height}; });
  return {x: Math.floor(r.x), y: Math.floor(r.y), width: Math.ceil(r.width), height: Math.ceil(r.height)};
}

function pageData(html, id) {
  const m = new RegExp('<script type="application/json" id="' + id + '">([\\s\\S]*?)</script>').exec(fs.readFileSync(html, 'utf8'));
  return m ? JSON.parse(m[1]) : null;
}

async function newPage(browser, errors, name) {
  const page = await browser.newPage();
  await page.setViewport({width: 1400, height: 1000});
  page.on('console', m => { if (m.type() === 'error' || m.type() === 'warn' || m.type() === 'warning') errors.push(name + ': console ' + m.type() + ': ' + m.text()); });
  page.on('pageerror', e => errors.push(name + ': page error: ' + e.message));
  page.on('requestfailed', r => errors.push(name + ': request failed: ' + r.url()));
  page.on('request', r => { if (!r.url().startsWith('file://') && !r.url().startsWith('data:')) errors.push(name + ': request to ' + r.url()); });
  return page;
}

// a click as a user makes it: the element scrolled into view first (inside its scrolling pane too)
// (for the instruction table's rows, the table: scrolling its pane draws its rows anew)
async function click(page, sel) {
  await page.$eval(sel.startsWith('#kx-table tbody') ? '#kx-tablewrap' : sel, e => e.scrollIntoView({block: 'center'}));
  await page.click(sel);
}
async function statusRows(page) {
  const t = await page.$eval('#kx-status', e => e.textContent);
  return parseInt(t, 10);
}
async function firstRow(page) {
  return page.$eval('#kx-table tbody tr', tr => +tr.getAttribute('data-row'));
}
async function setFilter(page, text) {
  await page.$eval('#kx-filter', (e, t) => { e.value = t; e.dispatchEvent(new Event('input')); }, text);
}
async function setSelect(page, sel, value) {
  await page.$eval(sel, (e, v) => { e.value = String(v); e.dispatchEvent(new Event('change')); }, value);
}

async function checkReport(browser, p) {
  const errors = [];
  const D = pageData(p.html, 'kx-data');
  check(D && D.captures.length >= 1, p.name + ': no explorer data in the page');
  if (!D) return;
  const page = await newPage(browser, errors, p.name);
  const t0 = Date.now();
  await page.goto('file://' + p.html, {waitUntil: 'load'});
  const ready = await page.waitForSelector('html[data-kx-ready]', {timeout: 15000}).then(() => true, () => false);
  const wall = Date.now() - t0;
  // from the start of navigation to the end of the explorer's script, as the page measured it
  const ms = +(await page.$eval('html', e => e.getAttribute('data-kx-ready')).catch(() => -1));
  check(ready, p.name + ': the explorer did not start');
  if (!ready) { errors.forEach(e => check(false, e)); await page.close(); return; }
  const bytes = fs.statSync(p.html).size;
  console.log('browser.js (' + kind + '): ' + p.name + ': ' + bytes + ' bytes, interactive after ' + Math.round(ms) + ' ms (' + wall + ' ms wall)');
  if (p.budget_ms && !firefox) check(wall < p.budget_ms, p.name + ': interactive after ' + wall + ' ms, budget ' + p.budget_ms);
  const C = D.captures[0], R = C.rows;

  // sort: Stall descending puts the largest stall first, a second click the smallest
  await click(page, 'th[data-key=stall] button');
  const maxStall = Math.max.apply(null, R.map(r => r[6])), minStall = Math.min.apply(null, R.map(r => r[6]));
  check(R[await firstRow(page)][6] === maxStall, p.name + ': sorting by Stall does not put the largest first');
  check(await page.$eval('th[data-key=stall]', e => e.getAttribute('aria-sort')) === 'descending', p.name + ': aria-sort');
  await click(page, 'th[data-key=stall] button');
  check(R[await firstRow(page)][6] === minStall, p.name + ': second click does not sort ascending');
  await click(page, 'th[data-key=isa] button');
  const isaFirst = R.map(r => r[1]).sort()[0];
  check(R[await firstRow(page)][1] === isaFirst, p.name + ': sorting by ISA text');
  await click(page, 'th[data-key=idx] button');

  // filter by text and by class: the counts the data give
  await setFilter(page, 's_waitcnt');
  const want = R.filter(r => r[1].toLowerCase().includes('s_waitcnt')).length;
  check(await statusRows(page) === want, p.name + ': text filter kept ' + await statusRows(page) + ' rows, want ' + want);
  const shown = await page.$$eval('#kx-table tbody tr td:nth-child(3)', tds => tds.map(t => t.textContent));
  check(shown.length > 0 && shown.every(t => t.includes('s_waitcnt')), p.name + ': a filtered row lacks the text');
  await setFilter(page, '');
  const vmem = D.classes.indexOf('VMEM');
  await setSelect(page, '#kx-class', vmem);
  check(await statusRows(page) === R.filter(r => r[9] === vmem).length, p.name + ': class filter');
  await setSelect(page, '#kx-class', -1);
  check(await statusRows(page) === R.length, p.name + ': every row back');

  // the wait with the most stall: its producers in the detail, highlighted in the table
  const w = C.waits.slice().sort((a, b) => b[2] - a[2])[0];
  if (w && w[6].length) {
    await setFilter(page, R[w[0]][0]);
    await click(page, '#kx-table tbody tr[data-row="' + w[0] + '"]');
    const prodRows = await page.$$eval('#kx-producers tr a[data-goto]', as => as.map(a => +a.getAttribute('data-goto')));
    check(JSON.stringify(prodRows) === JSON.stringify(w[6].map(x => x[0])), p.name + ': producers of wait row ' + w[0] +
      ' shown ' + JSON.stringify(prodRows) + ', want ' + JSON.stringify(w[6].map(x => x[0])));
    const cells = await page.$$eval('#kx-producers tr', trs => trs.slice(1).map(tr => Array.from(tr.cells).map(c => c.textContent)));
    const fmt = v => v < 0 ? '—' : String(v).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    check(cells.length && cells[0][7] === fmt(w[6][0][6]), p.name + ': producer distance (cycles) ' + (cells[0] || [])[7]);
    // the table shows the producers marked: their class only, the wait stays selected
    await setFilter(page, '');
    await setSelect(page, '#kx-class', R[w[6][0][0]][9]);
    const marked = await page.$$eval('#kx-table tbody tr.kx-prod', trs => trs.map(t => +t.getAttribute('data-row')));
    check(marked.includes(w[6][0][0]), p.name + ': producer row ' + w[6][0][0] + ' not marked in the table');
    const tclip = await clipOf(page, '#kx-tablewrap');
    const timg = await shot(page, p.name + '-producers', tclip);
    check(count(timg, '#cfe8ff') > 500, p.name + ': no producer highlight (#cfe8ff) on the table screenshot');
    await setSelect(page, '#kx-class', -1);
    // and back: the producer lists the waits it feeds, this one among them
    await click(page, '#kx-producers a[data-goto="' + w[6][0][0] + '"]');
    const feeds = await page.$$eval('#kx-feeds tr a[data-goto]', as => as.map(a => +a.getAttribute('data-goto')));
    check(feeds.includes(w[0]), p.name + ': producer ' + w[6][0][0] + ' does not list wait ' + w[0]);
  } else {
    check(C.waits.length === 0 || C.links === 'none', p.name + ': no wait with producers although links are ' + C.links);
  }

  // source: a row with a line selects it in the source pane, a line marks its rows
  const withSrc = R.findIndex(r => r[2] >= 0 && C.files[r[2]].text);
  if (withSrc >= 0) {
    await setFilter(page, R[withSrc][0]);
    await click(page, '#kx-table tbody tr[data-row="' + withSrc + '"]');
    const line = await page.$eval('#kx-source tr.kx-sel', tr => +tr.getAttribute('data-line')).catch(() => -1);
    check(line === R[withSrc][3], p.name + ': row ' + withSrc + ' shows source line ' + line + ', want ' + R[withSrc][3]);
    await setFilter(page, '');
    await click(page, '#kx-source tr[data-line="' + R[withSrc][3] + '"]');
    const same = R.map((r, i) => i).filter(i => R[i][2] === R[withSrc][2] && R[i][3] === R[withSrc][3]);
    const hi = await page.$$eval('#kx-table tbody tr.kx-srchi', trs => trs.map(t => +t.getAttribute('data-row')));
    check(hi.length > 0 && hi.every(i => same.includes(i)), p.name + ': source line click marks rows ' + JSON.stringify(hi.slice(0, 5)));
  }

  // keyboard: the table takes focus and the arrow keys select
  await page.focus('#kx-tablewrap');
  await page.keyboard.press('ArrowDown');
  check(await page.$eval('#kx-detail h4', e => e.textContent.startsWith('Row ')).catch(() => false), p.name + ': arrow key selects no row');
  // the timeline by keyboard: + halves the view around its middle, Home shows the whole dispatch
  await page.focus('#kx-timeline');
  await page.keyboard.press('+');
  const span = await page.evaluate(() => +document.getElementById('kx-to').value - +document.getElementById('kx-from').value);
  check(Math.abs(span - C.span / 2) <= 2, p.name + ': + on the timeline shows ' + span + ' cycles, want ' + C.span / 2);
  await page.keyboard.press('Home');
  check(await page.$eval('#kx-to', e => +e.value) === C.span, p.name + ': Home on the timeline');
  const tabbable = await page.$$eval('#kx-app button, #kx-app select, #kx-app input, #kx-tablewrap',
    es => es.every(e => e.tabIndex >= 0));
  check(tabbable, p.name + ': a control is not reachable by keyboard');

  // the timeline: SE stacks drawn; a wave picked draws its states and its records
  const tl = await clipOf(page, '#kx-timeline');
  const timg = await shot(page, p.name + '-timeline', tl);
  check(count(timg, '#0072B2') + count(timg, '#E69F00') > 2000, p.name + ': timeline shows no EXEC/WAIT');
  if (C.streams.length) {
    const wi = C.streams[C.streams.length - 1].wave;
    await setSelect(page, '#kx-wave', wi);
    check(await page.$eval('#kx-wavecanvas', e => +e.getAttribute('data-wave')) === wi, p.name + ': wave ' + wi + ' not drawn');
    // zoomed to the wave's lifetime
    await page.$eval('#kx-from', (e, v) => { e.value = v; }, C.waves[wi][5]);
    await page.$eval('#kx-to', (e, v) => { e.value = v; }, C.waves[wi][6]);
    await click(page, '#kx-zoom');
    const wc = await clipOf(page, '#kx-wavecanvas');
    const wimg = await shot(page, p.name + '-wave', wc);
    // states bar at y 12..28, records at y 40..56 of the canvas (CSS pixels = screenshot pixels)
    const statesPx = ['#56B4E9', '#0072B2', '#E69F00', '#D55E00'].reduce((s, c) => s + count(wimg, c, 12, 28), 0);
    check(statesPx > 200, p.name + ': wave ' + wi + ' states bar not drawn (' + statesPx + ' px)');
    const cats = ['#CC79A7', '#009E73', '#E69F00', '#F0E442', '#56B4E9', '#0072B2', '#000000', '#777777', '#aaaaaa', '#555555', '#882255'];
    const recPx = cats.reduce((s, c) => s + count(wimg, c, 40, 56), 0);
    check(recPx > 200, p.name + ': wave ' + wi + ' records not drawn (' + recPx + ' px)');
    // zoom to the middle third and narrow the table: rows executed there by the kept streams
    const a = Math.round(C.span / 3), b = Math.round(2 * C.span / 3);
    await page.$eval('#kx-from', (e, v) => { e.value = v; }, a);
    await page.$eval('#kx-to', (e, v) => { e.value = v; }, b);
    await click(page, '#kx-zoom');
    await click(page, '#kx-narrow');
    const inRange = new Set();
    C.streams.forEach(st => { let t = 0; for (let k = 0; k < st.rec.length; k += 5) { t += st.rec[k];
      if (t >= a && t <= b && st.rec[k + 1] >= 0) inRange.add(st.rec[k + 1]); } });
    check(await statusRows(page) === inRange.size, p.name + ': range kept ' + await statusRows(page) + ' rows, want ' + inRange.size);
    check(await page.$eval('th[data-key=rhit]', e => !e.hidden), p.name + ': range columns not shown');
    await click(page, '#kx-clear');
    check(await statusRows(page) === R.length, p.name + ': clearing the range');
    await click(page, '#kx-reset');
  }
  if (firefox) { await page.close(); errors.forEach(e => check(false, e)); return; }
  // dark scheme: dark background, light text
  await page.emulateMediaFeatures([{name: 'prefers-color-scheme', value: 'dark'}]);
  const dimg = await shot(page, p.name + '-dark');
  check(near(dimg, 5, 5, '#15181c', 2), p.name + ': dark scheme background');
  const dtl = await shot(page, p.name + '-dark-timeline', await clipOf(page, '#kx-timeline'));
  let light = 0;
  for (let i = 0; i < dtl.px.length; i += dtl.bpp) light += dtl.px[i] > 200 && dtl.px[i + 1] > 200 && dtl.px[i + 2] > 200;
  check(light > 50, p.name + ': timeline labels not light on the dark scheme (' + light + ' px)');
  const fg = await page.$eval('body', e => getComputedStyle(e).color);
  check(fg === 'rgb(228, 230, 232)', p.name + ': dark scheme text colour ' + fg);
  await page.emulateMediaFeatures([{name: 'prefers-color-scheme', value: 'light'}]);
  const limg = await shot(page, p.name + '-light');
  check(near(limg, 5, 5, '#ffffff', 2), p.name + ': light scheme background');
  await page.close();

  // without JavaScript: the report reads as before, the explorer says why it is absent
  const nj = await newPage(browser, errors, p.name + ' (no JavaScript)');
  await nj.setJavaScriptEnabled(false);
  await nj.goto('file://' + p.html, {waitUntil: 'load'});
  const txt = await nj.evaluate(() => document.body.innerText);
  check(txt.includes('The explorer needs JavaScript'), p.name + ': no note without JavaScript');
  check(await nj.$eval('#kx-app', e => e.hidden && e.childElementCount === 0), p.name + ': explorer built without JavaScript');
  check(await nj.$$eval('figure svg', s => s.length) >= 5, p.name + ': charts missing without JavaScript');
  const nimg = await shot(nj, p.name + '-nojs', {x: 0, y: 0, width: 1400, height: 1000});
  check(nimg.w === 1400 && count(nimg, '#ffffff') < nimg.w * nimg.h, p.name + ': blank page without JavaScript');
  await nj.close();
  errors.forEach(e => check(false, e));
}

async function checkCompare(browser, p) {
  const errors = [];
  const D = pageData(p.html, 'kx-data');
  const page = await newPage(browser, errors, p.name);
  await page.goto('file://' + p.html, {waitUntil: 'load'});
  const ready = await page.waitForSelector('html[data-kx-ready]', {timeout: 15000}).then(() => true, () => false);
  check(ready && D, p.name + ': the side-by-side table did not start');
  if (ready && D && D.pairs.length) {
    const P = D.pairs[0];
    const n = await page.$$eval('#kx-cmp tbody tr', trs => trs.length);
    check(n === P.rows.length, p.name + ': ' + n + ' aligned rows shown, ' + P.rows.length + ' in the data');
    await click(page, 'th[data-key=dstall] button');
    const first = await page.$eval('#kx-cmp tbody tr', tr => +tr.getAttribute('data-row'));
    const d = r => (r[6] < 0 ? 0 : r[6]) - (r[2] < 0 ? 0 : r[2]);
    const want = Math.max.apply(null, P.rows.map(r => Math.abs(d(r))));
    check(Math.abs(d(P.rows[first])) === want, p.name + ': sorting by |Δ stall| does not put the largest first');
    const img = await shot(page, p.name + '-cmp', await clipOf(page, '#kx-cmpwrap'));
    // the rows the data say moved by 0.1 pp of stall share or more are shaded, in the colour of their sign
    const sh = r => (P.stall_total[1] ? Math.max(0, r[6]) / P.stall_total[1] : 0) - (P.stall_total[0] ? Math.max(0, r[2]) / P.stall_total[0] : 0);
    const moved = P.rows.filter(r => Math.abs(sh(r)) >= 0.001).length;
    const shaded = await page.$$eval('#kx-cmp tbody tr', trs => trs.filter(t => /kx-(worse|better)/.test(t.className)).length);
    check(shaded === moved, p.name + ': ' + shaded + ' rows shaded, ' + moved + ' moved by 0.1 pp or more');
    const px = ['#fbe3da', '#f4c7b8', '#e2f1fb', '#c5e3f6'].reduce((s, c) => s + count(img, c), 0);
    check(moved === 0 || px > 500, p.name + ': no delta shading on the screenshot (' + px + ' px)');
  }
  await page.close();
  errors.forEach(e => check(false, e));
}

(async () => {
  const pages = JSON.parse(fs.readFileSync(pagesFile, 'utf8'));
  const browser = firefox
    ? await puppeteer.launch({product: 'firefox', protocol: 'webDriverBiDi', executablePath: browserPath, headless: true})
    : await puppeteer.launch({executablePath: browserPath, headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
             '--disable-component-update', '--disable-sync', '--disable-extensions', '--hide-scrollbars']});
  try {
    for (const p of pages) {
      if (p.kind === 'report') await checkReport(browser, p);
      else await checkCompare(browser, p);
    }
  } catch (e) {
    check(false, 'driver error: ' + (e && e.stack || e));
  }
  await browser.close();
  console.log('browser.js (' + kind + '): ' + passed + ' passed, ' + failed + ' failed');
  process.exit(failed ? 1 : 0);
})();
