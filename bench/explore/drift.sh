#!/bin/sh
# Is a small kernel's speed settled by its process, or does it drift with time? Every kept
# variant of CONFIG (allvariants.sh builds the harness) timed at SIZE again and again in one
# harness process (REPS passes, default 12), then the same in a second process: each pass's
# fastest five by graph replay, on a line. Usage: bench/explore/drift.sh CONFIG KERNEL SIZE
# (OUT, default out/drift; TUNER_YAML_PREFIX as for tests/gpu/run.sh)
set -eu
cd "$(dirname "$0")/../.."
o=${OUT:-out/drift}
OUT=$o sh bench/explore/allvariants.sh "$1" "$2" "$3" >"$o.allv.txt"
head -n 2 "$o.allv.txt"
args=""
r=1
while [ $r -le "${REPS:-12}" ]; do
	args="$args p:$3"
	r=$((r + 1))
done
for p in 1 2; do
	echo "process $p, from $(date -u +%H:%M:%S):"
	# shellcheck disable=SC2086
	"$o/dispatch" -s 30 $args >"$o/drift$p.txt"
	python3 - "$o/drift$p.txt" <<'PY'
import sys
passes = []  # the k-th time line of a variant belongs to pass k
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "time" and f[3] == "v" and f[7] == "graph":  # the variants, not the bundle's entries
        k = sum(1 for p in passes if f[4] in p)
        if k == len(passes):
            passes.append({})
        passes[k][f[4]] = float(f[5])
for k, p in enumerate(passes):
    top = sorted(p.items(), key=lambda x: x[1])[:5]
    print("  pass %2d: %s" % (k + 1, " ".join("%s %.3f" % t for t in top)))
PY
done
