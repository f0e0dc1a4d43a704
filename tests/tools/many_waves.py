#!/usr/bin/env python3
"""many_waves.py CAPTURE COPIES — turns a capture `kreport synth` wrote into
one with COPIES times its waves, for the browser test's large page: copy k
of every wave runs after copy k-1 (its times shifted by k x the capture's
span), in a slot of its own, as the waves of a long dispatch follow one
another. filenames.json lists them all; occupancy.json gets each copy's
start and end. Code, sources and the rest stay as they are."""
import glob
import json
import os
import sys

cap, copies = sys.argv[1], int(sys.argv[2])
fn_path = os.path.join(cap, 'filenames.json')
fn = json.load(open(fn_path))
waves = []          # (se, simd, slot, id, file, begin, end)
for se, a in fn['wave_filenames'].items():
    for simd, b in a.items():
        for slot, c in b.items():
            for wid, (f, begin, end) in c.items():
                waves.append((int(se), int(simd), int(slot), int(wid), f, begin, end))
nslots = max(w[2] for w in waves) + 1
lo = min(w[5] for w in waves)
hi = max(w[6] for w in waves)
span = hi - lo + 16
occ_path = os.path.join(cap, 'occupancy.json')
occ = json.load(open(occ_path))
out = {}
for se, simd, slot, wid, f, begin, end in waves:
    d = json.load(open(os.path.join(cap, f)))
    for k in range(copies):
        shift = k * span
        w = json.loads(json.dumps(d))
        w['wave']['begin'] += shift
        w['wave']['end'] += shift
        w['wave']['slot'] = slot + k * nslots
        for r in w['wave']['instructions']:
            r[0] += shift
        name = f'se{se}_sm{simd}_sl{slot + k * nslots}_wv{wid}.json'
        if k:
            json.dump(w, open(os.path.join(cap, name), 'w'))
            rows = occ.setdefault(str(se), [])
            cu = w['wave']['cu']
            rows.append([begin + shift, cu, simd, slot + k * nslots, 1, 1])
            rows.append([end + shift, cu, simd, slot + k * nslots, 0, 1])
        out.setdefault(str(se), {}).setdefault(str(simd), {}).setdefault(str(slot + k * nslots), {})[str(wid)] = \
            [name if k else f, begin + shift, end + shift]
fn['wave_filenames'] = out
json.dump(fn, open(fn_path, 'w'))
for se, rows in occ.items():
    if isinstance(rows, list):
        rows.sort(key=lambda r: (r[0], r[4]))
json.dump(occ, open(occ_path, 'w'))
print(f'many_waves.py: {len(waves) * copies} waves')
