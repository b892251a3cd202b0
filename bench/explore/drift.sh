#!/bin/sh
# Is a kernel's speed settled by its process, or does it drift with time? Every candidate of a
# dispatch harness timed at SIZE again and again in one process (REPS passes, default 12),
# then the same in more processes (PROCS, default 2): per process, each candidate's median,
# fastest and slowest over the passes (graph-replayed, or flushed above the L2).
# Usage: bench/explore/drift.sh CONFIG KERNEL SIZE: every kept variant of CONFIG, built by
# allvariants.sh; HARNESS=PATH bench/explore/drift.sh SIZE: a harness built already (e.g.
# tests/gpu/dispatch.sh's out/dispatch/KERNEL/dispatch, its bundle's entries).
# (OUT, default out/drift; TUNER_YAML_PREFIX as for tests/gpu/run.sh)
set -eu
cd "$(dirname "$0")/../.."
o=${OUT:-out/drift}
if [ -n "${HARNESS:-}" ]; then
	h=$HARNESS size=$1
else
	OUT=$o sh bench/explore/allvariants.sh "$1" "$2" "$3" >"$o.allv.txt"
	head -n 2 "$o.allv.txt"
	h=$o/dispatch size=$3
fi
args=""
r=1
while [ $r -le "${REPS:-12}" ]; do
	args="$args p:$size"
	r=$((r + 1))
done
p=1
while [ $p -le "${PROCS:-2}" ]; do
	echo "process $p, from $(date -u +%H:%M:%S): median (fastest .. slowest) of ${REPS:-12} passes, us"
	# shellcheck disable=SC2086
	"$h" -s 30 $args >"$o.p$p.txt" || true
	python3 - "$o.p$p.txt" <<'PY'
import statistics, sys
t = {}  # (name, id) -> its times, pass after pass
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "time" and f[7] in ("graph", "flushed"):
        t.setdefault((f[3], f[4]), []).append(float(f[5]))
for k in sorted(t, key=lambda k: statistics.median(t[k]))[:8]:
    x = t[k]
    print("  %-8s %-10s %8.3f (%.3f .. %.3f)" % (k[0], k[1], statistics.median(x), min(x), max(x)))
PY
	p=$((p + 1))
done
