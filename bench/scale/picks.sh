#!/bin/sh
# Picks of independent runs, for a machine with a CUDA GPU: for each config named (default
# the reduction and the transpose), one run to warm the compile cache, then RUNS (default 6)
# warm runs into fresh directories; for each, the pick, how much slower its play-off median is
# than the run's fastest, the play-off's candidates (those that stayed), the leavers, the ties
# and the tie rule's key, and the 5 fastest candidates with their play-off medians, standard
# errors and first medians. Usage: bench/scale/picks.sh OUTDIR [CONFIG...]   (TUNER_YAML_PREFIX
# as for tests/gpu/run.sh; RUNS=N)
set -eu
cd "$(dirname "$0")/../.."
outdir=$1
shift
[ $# -gt 0 ] || set -- configs/reduction.yaml configs/transpose.yaml
mkdir -p "$outdir"
. tests/gpu/lib.sh
gpu_build
gpu_header name,driver_version
export TUNER_CACHE="$outdir/cache"
for cfg in "$@"; do
	out/bin/tuner -q --out "$outdir/warm" "$cfg" >/dev/null 2>&1 || true
	r=1
	while [ "$r" -le "${RUNS:-6}" ]; do
		rm -rf "$outdir/run"
		out/bin/tuner -q --out "$outdir/run" "$cfg" >/dev/null 2>&1 || echo "$cfg: run $r failed"
		python3 - "$outdir"/run/*/*/results.json <<'PY'
import json, sys
sys.path.insert(0, "tests/gpu")
from speed import pick_gap  # the pick and its gap to the run's fastest, as speed.sh's agreement
d = json.load(open(sys.argv[1]))
po = [v for v in d["variants"] if v.get("playoff")]
pick, gap = pick_gap(d)
print("%s pick %s gap %.2f%% candidates %d left %s ties %d chosen by %s"
      % (d["kernel"], pick, 100 * (gap or 0), len(po), d.get("playoff", {}).get("left_early"),
         d["ties"], d.get("tie_chosen_by")))
for v in sorted(po, key=lambda v: v["playoff"]["median_ms"])[:5]:
    p = v["playoff"]
    print("  %s play-off median %.5f ms se %.5f first median %.5f tie %s"
          % (v["id"], p["median_ms"], p["se_ms"], v["median_ms"], bool(v.get("tie"))))
PY
		r=$((r + 1))
	done
done
