#!/bin/sh
# The declared accesses against the code, where the CUDA Toolkit's disassembler is (the GPU
# machines have nvdisasm): tuner explain --sass over the shipped configs with accesses, then a
# copy of the transpose's config whose tile_store declares VEC floats a store even where the
# padding breaks their alignment (the code then stores one float at a time): the check must
# name those variants. Prints what it found; exits non-zero if the deliberate mismatch is not
# found.
# Usage: tests/gpu/sass.sh [OUTDIR]   (TUNER_YAML_PREFIX as for tests/gpu/run.sh)
set -eu
cd "$(dirname "$0")/../.."
outdir=${1:-out/sass}
mkdir -p "$outdir"
. tests/gpu/lib.sh
gpu_build
gpu_header name
export TUNER_CACHE="$outdir/cache"
for k in transpose filter21 reduction stencil2d; do # 60 of each, spread over the space
	grep -q '^accesses:' configs/$k.yaml || continue
	out/bin/tuner explain --sass --budget 60 --arch sm_90 configs/$k.yaml >"$outdir/$k.txt" 2>&1 || true
	echo "$k: $(tail -n 1 "$outdir/$k.txt")"
	grep -A3 "differ:$" "$outdir/$k.txt" | head -n 12 | sed 's/^/    /'
done
wrong=configs/.sass-transpose-wrong.yaml
trap 'rm -f "$wrong"' EXIT INT TERM
python3 - configs/transpose.yaml "$wrong" <<'PY'
import sys
t = open(sys.argv[1]).read()
old = "    width: 4 * min(VEC, (PAD % 4 == 0) * 4 + (PAD % 4 == 2) * 2 + (PAD % 2 == 1))\n"
assert t.count(old) == 1
open(sys.argv[2], "w").write(t.replace(old, "    width: 4 * VEC\n"))
PY
out/bin/tuner explain --sass --budget 60 --arch sm_90 "$wrong" >"$outdir/wrong.txt" 2>&1 || true
echo "deliberate mismatch: $(tail -n 1 "$outdir/wrong.txt")"
grep -m 4 -A2 "differ:$" "$outdir/wrong.txt" | sed 's/^/    /'
grep -q "declared: 16-byte stores" "$outdir/wrong.txt"
