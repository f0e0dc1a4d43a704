#!/usr/bin/env python3
"""Applies one defect to a capture folder: mutate.py CAPTURE FILE OP [ARG].

FILE is a name inside the capture folder, WAVE for its first wave file, or
"../NAME" for a file beside the folder (the run directory). A "../" file
that does not exist yet starts from the file of that name in the run-layout
bundle named by $KR_BROKEN_RUN (out_results.json, out_kernel_trace.csv,
out_agent_info.csv), so one defect is applied to an otherwise valid file;
any other file that does not exist starts empty.

OPs:
  text PY      t is the file's text (UTF-8); the expression's value is written back
  bytes PY     b is the raw bytes; the value (bytes) is written back
  delete       remove the file
  mkdir        replace the file by an empty directory
  symlink PY   replace the file by a symlink to the expression's value (a string)
  fifo         replace the file by a named pipe
  copy NAME    write a copy of NAME (a file of the capture, or WAVE) as FILE
In every expression: t/b as above, wave (first wave file name), cap (the
capture folder, absolute), parent (its parent, absolute), re, J(text) (parse
JSON), D(value) (compact JSON as the writer prints it) and secret() (writes
parent/outside.py, a file outside the capture whose every line holds the
text OUTSIDE_SECRET, and returns its absolute path)."""
import json
import os
import re
import shutil
import sys

cap, name, op = sys.argv[1], sys.argv[2], sys.argv[3]
arg = sys.argv[4] if len(sys.argv) > 4 else ""
cap = os.path.abspath(cap)
parent = os.path.dirname(cap)
first_wave = sorted(f for f in os.listdir(cap) if f.startswith("se") and f.endswith(".json"))[0]


def resolve(n):
    if n == "WAVE":
        return os.path.join(cap, first_wave)
    if n.startswith("../"):
        return os.path.join(parent, n[3:])
    return os.path.join(cap, n)


path = resolve(name)


def secret():
    p = os.path.join(parent, "outside.py")
    with open(p, "w") as f:
        f.write("".join("OUTSIDE_SECRET %d\n" % i for i in range(1, 101)))
    return p


env = {"wave": first_wave, "cap": cap, "parent": parent, "re": re, "secret": secret,
       "J": json.loads, "D": lambda v: json.dumps(v, separators=(",", ":"), ensure_ascii=False)}
if name.startswith("../") and not os.path.lexists(path) and op in ("text", "bytes"):
    template = os.path.join(os.environ.get("KR_BROKEN_RUN", ""), name[3:])
    if os.path.exists(template):
        shutil.copyfile(template, path)
if not os.path.lexists(path) and op in ("text", "bytes"):
    open(path, "w").close()


def remove(p):
    if os.path.isdir(p) and not os.path.islink(p):
        shutil.rmtree(p)
    elif os.path.lexists(p):
        os.remove(p)


if op == "delete":
    os.remove(path)
elif op == "mkdir":
    remove(path)
    os.mkdir(path)
elif op == "text":
    t = open(path, encoding="utf-8").read()
    out = eval(arg, dict(env, t=t))
    open(path, "w", encoding="utf-8").write(out)
elif op == "bytes":
    b = open(path, "rb").read()
    open(path, "wb").write(eval(arg, dict(env, b=b)))
elif op == "symlink":
    target = eval(arg, dict(env))
    remove(path)
    os.symlink(target, path)
elif op == "fifo":
    remove(path)
    os.mkfifo(path)
elif op == "copy":
    shutil.copyfile(resolve(arg), path)
else:
    sys.exit(f"unknown op {op}")
