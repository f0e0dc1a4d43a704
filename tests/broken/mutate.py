#!/usr/bin/env python3
"""Applies one defect to a capture folder: mutate.py CAPTURE FILE OP [ARG].
OPs: text PY (t is the file's text; the expression's value is written back),
delete, mkdir (replace the file by a directory), bytes PY (b is the raw bytes)."""
import os
import shutil
import sys

cap, name, op = sys.argv[1], sys.argv[2], sys.argv[3]
arg = sys.argv[4] if len(sys.argv) > 4 else ""
path = os.path.join(cap, name)
first_wave = sorted(f for f in os.listdir(cap) if f.startswith("se") and f.endswith(".json"))[0]
if name == "WAVE":
    path = os.path.join(cap, first_wave)
if op == "delete":
    os.remove(path)
elif op == "mkdir":
    os.remove(path)
    os.mkdir(path)
elif op == "text":
    t = open(path, encoding="utf-8").read()
    out = eval(arg, {"t": t, "wave": first_wave})
    open(path, "w", encoding="utf-8").write(out)
elif op == "bytes":
    b = open(path, "rb").read()
    open(path, "wb").write(eval(arg, {"b": b}))
else:
    sys.exit(f"unknown op {op}")
