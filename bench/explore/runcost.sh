#!/bin/sh
# The wall time of a whole tuner run (--fresh, -q) of CONFIG at each SIZE (n=...), and its
# play-off's size, on the GPU here. Usage: bench/explore/runcost.sh CONFIG SIZE...
# (OUT, default out/runcost; TUNER, default out/bin/tuner, built here; TUNER_YAML_PREFIX as
# for tests/gpu/run.sh)
set -eu
cd "$(dirname "$0")/../.."
cfg=$1
shift
o=${OUT:-out/runcost}
. tests/gpu/lib.sh
gpu_build
gpu_header name,driver_version
for s in "$@"; do
	gpu_idle
	t0=$(date +%s.%N)
	"${TUNER:-out/bin/tuner}" -q --fresh --out "$o" --size "n=$s" "$cfg" >"$o.log" 2>&1
	t1=$(date +%s.%N)
	python3 - "$o" "$cfg" "$s" "$t0" "$t1" <<'PY'
import glob, json, os, sys
o, cfg, s, t0, t1 = sys.argv[1:]
f = max(glob.glob(o + "/*/*/results.json"), key=os.path.getmtime)
d = json.load(open(f))
p = d.get("playoff", {})
print("%s n=%s: %.1f s; winner %s; play-off %s variants, %s rounds" % (
    os.path.basename(cfg), s, float(t1) - float(t0), d["winner"], p.get("variants", 0), p.get("rounds", 0)))
PY
done
