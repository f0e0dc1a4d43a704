#!/bin/bash
# report.html and compare.html in a real browser (Debian's chromium,
# headless, no network).
#
# 1. As printed: the pages kreport writes for the project's example folder,
#    for two generated runs compared, and for a hub capture are rendered to
#    a 1280x4000 screenshot and to their DOM, then
#   - the screenshot is not one colour, and the chart colours #0072B2 and
#     #E69F00 (EXEC and WAIT, or BEST and CANDIDATE) are on it, so the inline
#     SVG was drawn (PNG decoded with Python's standard library);
#   - the DOM has the document's headings, one <svg> per chart, no element
#     that loads anything, and exactly the scripts the page means to carry
#     (report.html: the explorer's data and its one script), and the file
#     is well-formed XML;
#   - report.html stays under 2 MB for pa_mqa_logits_fp4 (both captures, and
#     the big one alone).
# 2. Used: tests/browser.js drives Chromium through the DevTools protocol
#    (puppeteer-core from npm, installed here into $KR_BUILD/browser-driver,
#    a folder of the build tree) over report.html of every hub capture, of
#    the example folders, of a generated 2,000-wave capture, and over
#    compare.html: it sorts, filters, clicks a wait and checks its
#    producers, picks a wave and checks its timeline on the screenshot,
#    zooms and narrows the table to a cycle range, uses the keyboard, the
#    dark and light schemes, JavaScript off, and fails on any console error
#    or request; the hub's largest capture must be interactive in under 2 s.
#    The same checks run in Firefox (Debian's firefox-esr, installed when
#    missing and root; through WebDriver BiDi, without the colour-scheme and
#    JavaScript-off checks, which need the DevTools protocol) over the
#    example folder, compare.html and the hub's largest capture.
#    Skipped with a message when npm or the package cannot be had.
# Installs chromium when it is missing and we are root; otherwise skips.
set -u
bin="${KR_BIN:-}"; src="${KR_SRC:-}"; hub="${KR_HUB:-}"
if [ -z "$bin" ] || [ ! -x "$bin" ] || [ -z "$src" ]; then
    echo "browser.sh: KR_BIN/KR_SRC not set, skipped"; exit 77
fi
browser=""
for c in chromium chromium-browser; do
    command -v "$c" >/dev/null 2>&1 && { browser=$(command -v "$c"); break; }
done
if [ -z "$browser" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "browser.sh: installing Debian's chromium"
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -qq chromium >/dev/null 2>&1 ||
            { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq chromium >/dev/null 2>&1; }
        browser=$(command -v chromium || true)
    fi
    if [ -z "$browser" ]; then
        echo "browser.sh: chromium is not installed and cannot be installed here (not root), skipped"
        exit 77
    fi
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "browser.sh: $*"; }

# Headless, offline, a fresh profile per run (flags that keep Chromium from
# reaching for the network it does not have).
run_browser() {  # name, then arguments
    local name=$1; shift
    timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --disable-extensions --hide-scrollbars --user-data-dir="$tmp/profile-$name-$RANDOM" "$@" \
        2>>"$tmp/$name.stderr"
}

check_page() {  # name html expected-svg-count kind (report or compare)
    local name=$1 html=$2 nsvg=$3 kind=$4
    # one run writes the screenshot and prints the DOM
    run_browser "$name" --window-size=1280,4000 --screenshot="$tmp/$name.png" --dump-dom "file://$html" \
        >"$tmp/$name.dom"
    [ -s "$tmp/$name.png" ] && ok || { bad "$name: no screenshot ($(tail -3 "$tmp/$name.stderr"))"; return; }
    [ -s "$tmp/$name.dom" ] && ok || { bad "$name: no DOM ($(tail -3 "$tmp/$name.stderr"))"; return; }
    if python3 - "$tmp/$name.png" "$tmp/$name.dom" "$nsvg" "$kind" "$html" <<'PY'; then ok; else bad "$name: page checks failed"; fi
import struct, sys, zlib
import xml.dom.minidom
from html.parser import HTMLParser
from itertools import accumulate

def decode(path):
    """8-bit RGB/RGBA non-interlaced PNG -> (width, height, bytes per pixel, rows)."""
    d = open(path, 'rb').read()
    if d[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError('not a PNG')
    pos, idat, ctype = 8, [], None
    while pos < len(d):
        ln, typ = struct.unpack('>I4s', d[pos:pos + 8])
        body = d[pos + 8:pos + 8 + ln]
        pos += 12 + ln
        if typ == b'IHDR':
            w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError('unsupported PNG layout')
        elif typ == b'IDAT':
            idat.append(body)
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b''.join(idat))
    stride = w * bpp
    lo7 = int.from_bytes(b'\x7f' * stride, 'big')
    hi1 = int.from_bytes(b'\x80' * stride, 'big')
    prev, rows = bytes(stride), []
    for y in range(h):
        f = raw[y * (stride + 1)]
        cur = raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)]
        if f == 0:
            line = cur
        elif f == 2:      # Up: bytewise add without carries, on big integers
            a, b = int.from_bytes(cur, 'big'), int.from_bytes(prev, 'big')
            line = (((a & lo7) + (b & lo7)) ^ ((a ^ b) & hi1)).to_bytes(stride, 'big')
        elif f == 1:      # Sub: running sum per channel
            out = bytearray(stride)
            for c in range(bpp):
                out[c::bpp] = bytes(v & 255 for v in accumulate(cur[c::bpp]))
            line = bytes(out)
        else:             # Average, Paeth
            out = bytearray(cur)
            for x in range(stride):
                a = out[x - bpp] if x >= bpp else 0
                b = prev[x]
                if f == 3:
                    out[x] = (out[x] + ((a + b) >> 1)) & 255
                else:
                    c = prev[x - bpp] if x >= bpp else 0
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    out[x] = (out[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            line = bytes(out)
        rows.append(line)
        prev = line
    return w, h, bpp, rows

def pixels(rows, bpp, rgb):
    pat = bytes.fromhex(rgb)
    n = 0
    for r in rows:
        i = r.find(pat)
        while i >= 0:
            if i % bpp == 0 and (bpp == 3 or r[i + 3] == 255):
                n += 1
            i = r.find(pat, i + 1)
    return n

errors = []
kind = sys.argv[4]
try:                      # the file as written is well-formed XML too
    xml.dom.minidom.parse(sys.argv[5])
except Exception as e:
    errors.append(f'not well-formed XML: {e}')
w, h, bpp, rows = decode(sys.argv[1])
if (w, h) != (1280, 4000):
    errors.append(f'screenshot is {w}x{h}')
first = rows[0][:bpp]
if all(r == first * w for r in rows):
    errors.append('screenshot is one colour')
for name, rgb in (('blue (EXEC, BEST)', '0072B2'), ('orange (WAIT, CANDIDATE)', 'E69F00')):
    n = pixels(rows, bpp, rgb)
    if n < 500:
        errors.append(f'{name} #{rgb}: {n} pixels on the screenshot, expected a drawn chart')

class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.h1, self.h2, self.cur = [], [], [], None
        self.counts = {}
    def handle_starttag(self, tag, attrs):
        self.counts[tag] = self.counts.get(tag, 0) + 1
        if tag in ('h1', 'h2'):
            self.cur = [tag, '']
        if tag == 'svg' and not dict(attrs).get('aria-label'):
            errors.append('an svg without aria-label')
    def handle_endtag(self, tag):
        if self.cur and tag == self.cur[0]:
            (self.h1 if tag == 'h1' else self.h2).append(self.cur[1].strip())
            self.cur = None
    def handle_data(self, data):
        if self.cur:
            self.cur[1] += data

dom = Dom()
dom.feed(open(sys.argv[2], encoding='utf-8').read())
if kind == 'report':
    h1_ok = len(dom.h1) == 1 and dom.h1[0].endswith('thread-trace analysis')
    want = ['Contents', 'Capture facts', 'Wave states', 'Instruction classes', 'Stalls', 'Occupancy',
            'Hotspots', 'Source lines', 'Recommendations', 'Files and how to re-run']
    min_tables = 10
else:
    h1_ok = len(dom.h1) == 1 and dom.h1[0].endswith(' — synth_kernel_0')
    want = ['Contents', 'Inputs', 'Correctness gate', 'Per-class results', 'Kernel GPU time',
            'Trace explanation', 'Method', 'Re-run']
    min_tables = 5
if not h1_ok:
    errors.append(f'h1: {dom.h1}')
it = iter(dom.h2)       # in this order; other sections may sit between them
if not all(any(h == x for x in it) for h in want):
    errors.append(f'h2 headings: {dom.h2}, expected {want} among them in order')
if dom.counts.get('svg', 0) != int(sys.argv[3]):
    errors.append(f"{dom.counts.get('svg', 0)} svg elements, expected {sys.argv[3]}")
if dom.counts.get('figure', 0) != int(sys.argv[3]):
    errors.append(f"{dom.counts.get('figure', 0)} figures, expected {sys.argv[3]}")
for tag in ('iframe', 'img', 'link', 'object'):
    if dom.counts.get(tag):
        errors.append(f'{dom.counts[tag]} <{tag}> elements')
if dom.counts.get('script', 0) != 2:
    errors.append(f"{dom.counts.get('script', 0)} <script> elements, expected the explorer's data and its script")
if dom.counts.get('table', 0) < min_tables:
    errors.append(f"only {dom.counts.get('table', 0)} tables: the Markdown tables are missing")
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
PY
}

start=$(date +%s)
# 1. the project's example folder: two captures on one page (6 charts each
#    but one stall chart shared: 2 × 5 + 1)
if "$bin" analyze "$src/examples/synth_gfx950" -o "$tmp/example" --format html -q; then ok; else bad "analyze example"; fi
[ -f "$tmp/example/report.html" ] && [ ! -f "$tmp/example/REPORT.md" ] && ok || bad "--format html wrote other files"
check_page example "$tmp/example/report.html" 13 report

# 2. compare.html of two generated runs (seed 0 vs seed 7): GPU time per
#    call, then wave states and stall buckets of the one pair of captures
"$bin" synth "$tmp/run-best" --layout run -q && "$bin" synth "$tmp/run-cand" --layout run --seed 7 -q &&
    "$bin" compare "$tmp/run-best" "$tmp/run-cand" -o "$tmp/cmp" -q && ok || bad "synth + compare failed"
[ -f "$tmp/cmp/compare.html" ] && [ -f "$tmp/cmp/COMPARE.md" ] && ok || bad "compare -o wrote no compare.html"
check_page compare "$tmp/cmp/compare.html" 3 compare

# 3. real captures
if [ -n "$hub" ] && [ -d "$hub/examples/pa_mqa_logits_fp4" ]; then
    pa="$hub/examples/pa_mqa_logits_fp4"
    big="$pa/att_viewer/big/ui_output_agent_55351_dispatch_426"
    if "$bin" analyze "$big" --format html >"$tmp/big.html"; then ok; else bad "analyze pa_mqa big"; fi
    size=$(wc -c <"$tmp/big.html")
    [ "$size" -lt 2097152 ] && ok || bad "pa_mqa big report.html is $size bytes (limit 2 MiB)"
    check_page pa_mqa_big "$tmp/big.html" 7 report
    if "$bin" analyze "$pa" -o "$tmp/pa" --format html -q; then ok; else bad "analyze pa_mqa example"; fi
    size=$(wc -c <"$tmp/pa/report.html")
    [ "$size" -lt 2097152 ] && ok || bad "pa_mqa example report.html is $size bytes (limit 2 MiB)"
else
    echo "browser.sh: hub fixtures not found, real-capture pages skipped"
fi
# 2. the explorer, used
driver="${KR_BUILD:-$src/build}/browser-driver"
if [ ! -f "$driver/node_modules/puppeteer-core/package.json" ]; then
    if ! command -v npm >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "browser.sh: installing Debian's npm"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null 2>&1 ||
            { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null 2>&1; }
    fi
    if command -v npm >/dev/null 2>&1; then
        mkdir -p "$driver" && echo '{"private": true}' >"$driver/package.json"
        # a pinned version that runs on Debian 12's Node.js 18; the browser is Debian's chromium
        PUPPETEER_SKIP_DOWNLOAD=1 timeout 300 npm install --prefix "$driver" --no-audit --no-fund \
            --loglevel=error puppeteer-core@22.15.0 >"$tmp/npm.log" 2>&1 || true
    fi
fi
if ! command -v node >/dev/null 2>&1 || [ ! -f "$driver/node_modules/puppeteer-core/package.json" ]; then
    echo "browser.sh: the DevTools driver (npm puppeteer-core) could not be installed, explorer checks skipped" \
         "($(tail -2 "$tmp/npm.log" 2>/dev/null | tr '\n' ' '))"
else
    pages="$tmp/pages.json"
    printf '[\n' >"$pages"
    add_page() {  # name html kind budget_ms
        [ -s "$pages" ] && [ "$(wc -c <"$pages")" -gt 2 ] && printf ',\n' >>"$pages"
        printf '{"name": "%s", "html": "%s", "kind": "%s", "budget_ms": %s}' "$1" "$2" "$3" "$4" >>"$pages"
    }
    add_page example "$tmp/example/report.html" report 0
    add_page compare "$tmp/cmp/compare.html" compare 0
    # 2,000 waves (125 generated, 16 times over: tests/tools/many_waves.py); it must stay usable
    if "$bin" synth "$tmp/many" --waves 125 -q && python3 "$src/tests/tools/many_waves.py" "$tmp/many"/ui_output_* 16 >/dev/null &&
        "$bin" analyze "$tmp/many"/ui_output_* --format html >"$tmp/many.html"; then
        ok; add_page waves2000 "$tmp/many.html" report 5000
    else
        bad "synth/analyze of 2,000 waves"
    fi
    if [ -n "$hub" ] && [ -d "$hub/examples" ]; then
        k=0
        for cap in "$hub"/examples/*/att_viewer/*/ui_output_agent_*; do
            [ -d "$cap" ] || continue
            k=$((k+1))
            budget=0
            case "$cap" in */pa_mqa_logits_fp4/att_viewer/big/*) budget=2000 ;; esac   # the largest capture
            if "$bin" analyze "$cap" --format html >"$tmp/hub$k.html"; then ok; add_page "hub-$(basename "$cap")" "$tmp/hub$k.html" report $budget
            else bad "analyze $cap"; fi
        done
        for ex in "$hub"/examples/*/; do
            k=$((k+1))
            if "$bin" analyze "$ex" -o "$tmp/ex$k" --format html -q; then ok; add_page "example-$(basename "$ex")" "$tmp/ex$k/report.html" report 0
            else bad "analyze $ex"; fi
        done
    fi
    printf '\n]\n' >>"$pages"
    mkdir -p "$tmp/shots"
    if timeout 900 node "$src/tests/browser.js" "$driver" chromium "$browser" "$tmp/shots" "$pages"; then ok
    else bad "explorer checks failed in chromium (tests/browser.js)"; fi
    # Firefox (Debian's firefox-esr, driven through WebDriver BiDi): the example folder, compare.html
    # and the hub's largest capture
    firefox=$(command -v firefox-esr || command -v firefox || true)
    if [ -z "$firefox" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "browser.sh: installing Debian's firefox-esr"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq firefox-esr >/dev/null 2>&1 ||
            { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq firefox-esr >/dev/null 2>&1; }
        firefox=$(command -v firefox-esr || true)
    fi
    if [ -z "$firefox" ]; then
        echo "browser.sh: firefox is not installed and cannot be installed here (not root), Firefox checks skipped"
    else
        python3 - "$pages" "$tmp/pages-firefox.json" <<'PY'
import json, sys
pages = json.load(open(sys.argv[1]))
keep = [p for p in pages if p['name'] in ('example', 'compare') or p['budget_ms'] == 2000]
json.dump(keep, open(sys.argv[2], 'w'))
PY
        if timeout 900 node "$src/tests/browser.js" "$driver" firefox "$firefox" "$tmp/shots" "$tmp/pages-firefox.json"; then ok
        else bad "explorer checks failed in firefox (tests/browser.js)"; fi
    fi
fi
echo "browser.sh: $pass passed, $fail failed ($(( $(date +%s) - start )) s)"
[ "$fail" -eq 0 ]
