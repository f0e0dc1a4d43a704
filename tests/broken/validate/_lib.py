"""Helpers for the broken-capture cases of tests/validate.sh.

Each case script is run as `python3 CASE.py CAPTURE_DIR ROOT_DIR` on a fresh
copy of a `kreport synth` bundle and applies exactly one defect. The header
lines of the case say what validate must report:

    # expect: <exit> <severity> <check id> [text the finding must contain]
    # expect: 3 load <file name>          (a load error naming that file)
    # layout: capture | example           (default capture)
    # path: <capture path relative to the example root>   (example layout)
    # args: <extra validate arguments, {ROOT} = the bundle root>
    # optional: <reason>   (skip with a message when the finding is absent)

JSON is written back compactly, as the rocprofv3 writer does.
"""
import glob
import json
import os
import sys


class Capture:
    def __init__(self, path):
        self.path = path

    def file(self, name):
        return os.path.join(self.path, name)

    def load(self, name):
        with open(self.file(name)) as f:
            return json.load(f)

    def save(self, name, obj):
        with open(self.file(name), "w") as f:
            json.dump(obj, f, separators=(",", ":"))

    def waves(self):
        return sorted(os.path.basename(p) for p in glob.glob(self.file("se*_sm*_sl*_wv*.json")))

    def remove(self, name):
        os.remove(self.file(name))

    def edit(self, name, fn):
        """Loads name, calls fn(obj), saves it."""
        obj = self.load(name)
        fn(obj)
        self.save(name, obj)


def capture():
    return Capture(sys.argv[1])


def root():
    return sys.argv[2]
