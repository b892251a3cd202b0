#!/bin/sh
# bench/scale/devices.sh [OUTDIR [CONFIG]]: on a machine with two CUDA GPUs of one model, the timing
# throughput of --devices: CONFIG (default configs/stencil2d.yaml) with --no-race, a space over
# 2000 variants on a random 1500 of them, the compile cache warmed first, then --fresh runs on
# --devices 0 and --devices 0,1, twice each. Prints the
# process's wall time, results.json's search.wall_s (the stream: compiling from the cache and
# timing), the timing phase (search.wall_s less search.first_timed_s, the play-off included)
# and how many variants each device timed. TUNER_YAML_PREFIX, TUNER_JANSSON_PREFIX,
# TUNER_COMMIT as for tests/gpu/run.sh.
set -u
cd "$(dirname "$0")/../.." || exit 1
OUT=${1:-out/devices}
mkdir -p "$OUT"
. tests/gpu/lib.sh
gpu_build > $OUT/build.log 2>&1 || { tail $OUT/build.log; exit 1; }
gpu_header name,driver_version
export TUNER_CACHE=$OUT/cache
C=${2:-configs/stencil2d.yaml}
k=$(sed -n 's/^name: *//p' "$C")
B="--no-race"
kept=$(out/bin/tuner --dry-run "$C" 2>/dev/null | sed -n 's/^[0-9]* variants: \([0-9]*\) kept.*/\1/p')
[ "${kept:-0}" -gt 2000 ] && B="--budget 1500 --strategy random --seed 3 --no-race"
t0=$(date +%s.%N); out/bin/tuner $B --devices 0 --out $OUT/w $C > $OUT/warm.log 2>&1; echo "warm rc $? $(python3 -c "print(round($(date +%s.%N)-$t0,1))") s"
for d in 0 0,1 0 0,1; do
  t0=$(date +%s.%N)
  out/bin/tuner --fresh $B --devices $d --out $OUT/d$d $C > $OUT/run-$d.log 2>&1; rc=$?
  t1=$(date +%s.%N)
  python3 - $d $rc $t0 $t1 $OUT/d$d/$k/*/results.json <<'PY'
import json, sys, collections
d, rc, t0, t1, f = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
j = json.load(open(f))
dev = collections.Counter(v.get("device") for v in j["variants"] if v["status"] in ("ok", "mismatch"))
s = j["search"]
ph = s["wall_s"] - s.get("first_timed_s", 0)
print("devices %-4s rc %s wall %.1f s (tuner's %.1f s; timing phase, from the first timed variant, %.2f s: %.0f variants/s), timed %d, per device %s, winner %s %.1f %% of copy"
      % (d, rc, t1 - t0, s["wall_s"], ph, s["timed"] / ph, s["timed"], dict(dev), j["variants"][0]["id"], j["variants"][0].get("pct_copy", 0)))
PY
done
