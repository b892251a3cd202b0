#!/bin/sh
# The reduction's two finishes (FINISH 0: an arrival counter finds the last block; 1: block
# nb - 1 waits for the slots) side by side at small sizes: bench/explore/reduction-finish.yaml
# (24 variants) tuned three times by tests/gpu/dispatch.sh at 2^18 and 2^20 (and 2^19 between),
# then each run's median of every variant at each point. Usage: bench/explore/finish.sh [OUTDIR]
set -eu
cd "$(dirname "$0")/../.."
o=${1:-out/finish}
DISPATCH_KERNELS=reduction DISPATCH_CONFIG=bench/explore/reduction-finish.yaml \
	DISPATCH_POINTS="262144 1048576" DISPATCH_BETWEEN="524288" DISPATCH_RUNS=3 \
	DISPATCH_ARGS="--midpoints 0" sh tests/gpu/dispatch.sh "$o" || true
python3 - "$o" <<'PY'
import glob, json, os, sys
o = sys.argv[1]
rows = {}
for run in (1, 2, 3):
    for f in glob.glob("%s/reduction/run%d/*/*/n=*/results.json" % (o, run)):
        r = json.load(open(f))
        for v in r["variants"]:
            if v.get("status") == "ok":
                key = (os.path.basename(os.path.dirname(f)), v["id"])
                us = v["median_ms"] * 1e3
                if "playoff" in v:  # the play-off's median, starred
                    us = "%6.2f*" % (v["playoff"]["median_ms"] * 1e3)
                rows.setdefault(key, [v["params"], {}])[1][run] = us
print("%-10s %-10s %-40s %s" % ("size", "id", "params", "median us in runs 1 2 3"))
num = lambda x: float(str(x).rstrip("*"))
for (size, vid), (params, us) in sorted(rows.items(), key=lambda kv: (kv[0][0], min(num(u) for u in kv[1][1].values()))):
    p = " ".join("%s=%s" % (k, params[k]) for k in ("BLOCK", "VEC", "EPT", "FINISH"))
    print("%-10s %-10s %-40s %s" % (size, vid, p, " ".join("%7s" % (us[r] if isinstance(us.get(r), str) else "%6.2f" % us.get(r, 0)) for r in (1, 2, 3))))
PY
