#!/bin/sh
# Does a kernel built in a bundle (each entry in a namespace of one translation unit) compile to
# the code the tuner timed (the variant's emitted source alone)? filter21-pair.yaml with BLOCK
# 64-512 and OUT 4, 8, compiled only (no GPU); synthetic results over it
# (tests/bundle/fake_gpus.py: NOTHING timed) make a bundle of four entries; nvcc -O3 builds
# the bundle and ID's emitted source; the machine code of ID in each compared instruction by
# instruction (16-byte words of the cubins' .text), and where cuobjdump is at hand, ID's SASS
# from each: the line counts, the differences, and the lines that differ other than FMAs and
# constant loads. Usage: bench/explore/bundle-sass.sh [ID]   (default v30ea42ba, the bundle's
# second entry; OUT, default out/bundle-sass; TUNER, default out/bin/tuner: the tuner whose
# bundle is compared; NVCC, default nvcc). tests/bundle/run.sh runs it: an entry that differs
# in more words than its constants' loads fails there.
set -eu
cd "$(dirname "$0")/../.."
id=${1:-v30ea42ba} o=${OUT:-out/bundle-sass}
rm -rf "$o"
mkdir -p "$o"
cfg=$o/filter21.yaml # beside the outputs, the templates by their absolute paths
sed "s/  BLOCK: \[64, 128, 256\]/  BLOCK: [64, 128, 256, 512]/; s/  OUT: \[8\]/  OUT: [4, 8]/
	s|\.\./\.\./templates/|$PWD/templates/|" bench/explore/filter21-pair.yaml >"$cfg"
CUDA_VISIBLE_DEVICES= "${TUNER:-out/bin/tuner}" -q --arch sm_90 --out "$o/u" "$cfg" >/dev/null
CUDA_VISIBLE_DEVICES= "${TUNER:-out/bin/tuner}" -q --arch sm_90 --out "$o/e" --emit "$id" "$cfg" >/dev/null
python3 tests/bundle/fake_gpus.py "$o/u/filter21/untimed-sm_90" "$o/g/filter21" >/dev/null
${TUNER:-out/bin/tuner} bundle -q --out "$o/b" "$o/g/filter21"
${NVCC:-nvcc} -arch=sm_90 -O3 -cubin -I"$o/b" -o "$o/b.cubin" "$o/b/filter21_bundle.cu"
src=$(find "$o/e" -name "$id.cu" | head -n 1)
${NVCC:-nvcc} -arch=sm_90 -O3 -cubin -I"$(dirname "$src")" -o "$o/s.cubin" "$src"
python3 - "$o/s.cubin" "$o/b.cubin" "$id" <<'PY'
import struct, sys
def text(path, part):  # the .text section whose name holds part
    d = open(path, "rb").read()
    off, = struct.unpack_from("<Q", d, 0x28)
    size, num, strx = struct.unpack_from("<HHH", d, 0x3a)
    sh = [struct.unpack_from("<IIQQQQIIQQ", d, off + i * size) for i in range(num)]
    names = sh[strx][4]
    for h in sh:
        name = d[names + h[0]:d.index(b"\0", names + h[0])].decode()
        if name.startswith(".text") and part in name:
            return d[h[4]:h[4] + h[5]]
    sys.exit("no .text with %s in %s" % (part, path))
a, b = text(sys.argv[1], "filter21"), text(sys.argv[2], sys.argv[3])
n = sum(a[i:i + 16] != b[i:i + 16] for i in range(0, min(len(a), len(b)), 16))
print("instructions: %d alone, %d in the bundle; %d differ" % (len(a) // 16, len(b) // 16, n))
PY
command -v cuobjdump >/dev/null || exit 0
sass() { cuobjdump -sass -fun "$2" "$1" | grep -E '^\s+/\*[0-9a-f]{4}\*/' |
	sed 's|/\*[0-9a-f]*\*/||; s| */\*.*||'; }
sass "$o/b.cubin" "_ZN24tuner_filter21_${id}8filter21EPfPKfi" >"$o/b.s"
sass "$o/s.cubin" filter21 >"$o/s.s"
wc -l "$o/s.s" "$o/b.s"
echo "differing lines: $(diff "$o/s.s" "$o/b.s" | grep -c '^[<>]' || true)"
echo "other than FFMA, ULDC and the registers that hold the parameters:"
diff "$o/s.s" "$o/b.s" | grep '^[<>]' | grep -v 'FFMA\|ULDC' || true
