#!/bin/bash
# The layer rule of docs/architecture.md is enforced by the build: each layer
# compiles against a view that holds only the headers it may include. This
# test compiles probe files against the views and requires the forbidden
# includes to fail and the allowed ones to pass.
set -u
views="$KR_BUILD/views"
cc="${KR_CC:-cc}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
probe() {  # view include expect(ok|fail)
    printf '#include "%s"\nint kr_probe;\n' "$2" > "$tmp/p.c"
    if "$cc" -std=c11 -D_POSIX_C_SOURCE=200809L -fsyntax-only -I"$views/$1" "$tmp/p.c" 2>/dev/null; then got=ok; else got=fail; fi
    if [ "$got" = "$3" ]; then pass=$((pass+1)); else fail=$((fail+1)); echo "layers: $1 including $2: expected $3, got $got"; fi
}
probe report bundle/model.h ok
probe report analyzer/totals.h ok
probe report report/doc.h ok
probe report bundle/capture.h fail
probe report bundle/load_wave.h fail
probe report bundle/isa.h fail
probe analyzer bundle/model.h ok
probe analyzer common/err.h ok
probe analyzer bundle/capture.h fail
probe analyzer report/doc.h fail
probe bundle analyzer/totals.h fail
probe bundle report/doc.h fail
probe bundle bundle/capture.h ok
probe common bundle/model.h fail
probe synth synth/synth.h ok
probe synth common/err.h ok
probe synth bundle/model.h fail
probe synth analyzer/totals.h fail
probe synth report/doc.h fail
echo "layers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
