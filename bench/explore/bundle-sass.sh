#!/bin/sh
# Does a kernel built in a bundle (each entry in a namespace of one translation unit) compile to
# the code the tuner timed (the variant's emitted source alone)? filter21-pair.yaml with BLOCK
# 64-512 and OUT 4, 8, compiled only (no GPU); synthetic results over it
# (tests/bundle/fake_gpus.py: NOTHING timed) make a bundle of four entries; nvcc -O3 builds
# the bundle and ID's emitted source, and cuobjdump lists ID's SASS from each: the line counts,
# the differences, and the lines that differ other than FMAs and constant loads.
# Usage: bench/explore/bundle-sass.sh [ID]   (default v30ea42ba, the bundle's second entry;
# OUT, default out/bundle-sass; needs nvcc and cuobjdump)
set -eu
cd "$(dirname "$0")/../.."
id=${1:-v30ea42ba} o=${OUT:-out/bundle-sass}
command -v cuobjdump >/dev/null || { echo "bundle-sass.sh: no cuobjdump" >&2; exit 2; }
rm -rf "$o"
mkdir -p "$o"
cfg=bench/explore/.bundle-sass.yaml
trap 'rm -f "$cfg"' EXIT INT TERM
sed 's/  BLOCK: \[64, 128, 256\]/  BLOCK: [64, 128, 256, 512]/; s/  OUT: \[8\]/  OUT: [4, 8]/' \
	bench/explore/filter21-pair.yaml >"$cfg"
CUDA_VISIBLE_DEVICES= out/bin/tuner -q --arch sm_90 --out "$o/u" "$cfg" >/dev/null
CUDA_VISIBLE_DEVICES= out/bin/tuner -q --arch sm_90 --out "$o/e" --emit "$id" "$cfg" >/dev/null
python3 tests/bundle/fake_gpus.py "$o/u/filter21/untimed-sm_90" "$o/g/filter21" >/dev/null
out/bin/tuner bundle -q --out "$o/b" "$o/g/filter21"
nvcc -arch=sm_90 -O3 -cubin -I"$o/b" -o "$o/b.cubin" "$o/b/filter21_bundle.cu"
src=$(find "$o/e" -name "$id.cu" | head -n 1)
nvcc -arch=sm_90 -O3 -cubin -I"$(dirname "$src")" -o "$o/s.cubin" "$src"
sass() { cuobjdump -sass -fun "$2" "$1" | grep -E '^\s+/\*[0-9a-f]{4}\*/' |
	sed 's|/\*[0-9a-f]*\*/||; s| */\*.*||'; }
sass "$o/b.cubin" "_ZN24tuner_filter21_${id}8filter21EPfPKfi" >"$o/b.s"
sass "$o/s.cubin" filter21 >"$o/s.s"
wc -l "$o/s.s" "$o/b.s"
echo "differing lines: $(diff "$o/s.s" "$o/b.s" | grep -c '^[<>]' || true)"
echo "other than FFMA, ULDC and the registers that hold the parameters:"
diff "$o/s.s" "$o/b.s" | grep '^[<>]' | grep -v 'FFMA\|ULDC' || true
