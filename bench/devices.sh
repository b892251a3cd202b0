#!/bin/sh
# bench/devices.sh [OUTDIR]: on a machine with two CUDA GPUs of one model, the timing throughput
# of --devices: configs/stencil2d.yaml on a random 1500 of its variants (--no-race), the compile
# cache warmed first, then --fresh runs on --devices 0 and --devices 0,1, twice each. Prints the
# process's wall time, results.json's search.wall_s (the stream: compiling from the cache and
# timing) and how many variants each device timed. TUNER_YAML_PREFIX, TUNER_JANSSON_PREFIX,
# TUNER_COMMIT as for tests/gpu/run.sh.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${1:-out/devices}
mkdir -p "$OUT"
. tests/gpu/lib.sh
gpu_build > $OUT/build.log 2>&1 || { tail $OUT/build.log; exit 1; }
gpu_header name,driver_version
export TUNER_CACHE=$OUT/cache
C=configs/stencil2d.yaml
B="--budget 1500 --strategy random --seed 3 --no-race"
t0=$(date +%s.%N); out/bin/tuner $B --devices 0 --out $OUT/w $C > $OUT/warm.log 2>&1; echo "warm rc $? $(python3 -c "print(round($(date +%s.%N)-$t0,1))") s"
for d in 0 0,1 0 0,1; do
  t0=$(date +%s.%N)
  out/bin/tuner --fresh $B --devices $d --out $OUT/d$d $C > $OUT/run-$d.log 2>&1; rc=$?
  t1=$(date +%s.%N)
  python3 - $d $rc $t0 $t1 $OUT/d$d/stencil2d/*/results.json <<'PY'
import json, sys, collections
d, rc, t0, t1, f = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
j = json.load(open(f))
dev = collections.Counter(v.get("device") for v in j["variants"] if v["status"] in ("ok", "mismatch"))
s = j["search"]
print("devices %-4s rc %s wall %.1f s (tuner's %.1f s), timed %d, per device %s, winner %s %.1f %% of copy"
      % (d, rc, t1 - t0, s["wall_s"], s["timed"], dict(dev), j["variants"][0]["id"], j["variants"][0].get("pct_copy", 0)))
PY
done
