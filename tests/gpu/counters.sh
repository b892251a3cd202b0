#!/bin/sh
# The bank model against the GPU's counters, for a machine with a CUDA GPU: build, tune every
# shipped config with --counters (shared-memory requests, wavefronts and bank conflicts of each
# variant through CUPTI's range profiler) and print how often the predicted wavefronts per
# request agree with the measured ones, per config and in all, plus every gap.
# Usage: tests/gpu/counters.sh [OUTDIR]   (TUNER_YAML_PREFIX, TUNER_COMMIT as for run.sh)
set -eu
cd "$(dirname "$0")/../.."
outdir=${1:-out/counters}
mkdir -p "$outdir"
. tests/gpu/lib.sh
gpu_build
gpu_header name,driver_version
export TUNER_CACHE="$outdir/cache"
status=0
for cfg in configs/*.yaml; do
	k=$(basename "$cfg" .yaml)
	# a space of more than 2000 variants: a random 300 of them (as tests/gpu/run.sh)
	extra=$(gpu_budget "$cfg")
	# shellcheck disable=SC2086
	out/bin/tuner --counters --fresh $extra --out "$outdir" "$cfg" >"$outdir/$k.log" 2>&1 || status=1
	grep -E "^counters|^rooflines" "$outdir/$k.log" | sed "s/^/$k: /"
done
python3 - "$outdir" <<'PY' || status=1
import glob, json, sys
rows, agree, total, gaps, skipped, addr, pipe = [], 0, 0, [], 0, 0.0, 0.0
for f in sorted(glob.glob(sys.argv[1] + "/*/*/results.json")):
    d = json.load(open(f))
    if "counters" not in d:
        print("%s: no counters (%s)" % (d["kernel"], d.get("counters_error", "?")))
        sys.exit(1)
    a = n = 0
    for v in d["variants"]:
        m = v.get("bank", {}).get("measured")
        if not m:
            continue
        for op in ("loads", "stores"):
            x = m[op]
            skipped += x.get("incomplete", False)
            if "match" not in x:
                continue
            addr += x["per_request"] * x["requests"]
            pipe += x["pipeline_per_request"] * x["requests"]
            n += 1
            a += x["match"]
            if not x["match"]:
                gaps.append("%s %s %s: predicted %.3f measured %.3f wavefronts/request"
                            % (d["kernel"], v["id"], op, x["predicted_per_request"],
                               x["per_request"]))
    rows.append("%-10s %4d of %4d accesses agree (%.1f %%), %d profiler pass(es), "
                "tolerance %g %%" % (d["kernel"], a, n, 100.0 * a / max(n, 1),
                                     d["counters"]["passes"], 100 * d["counters"]["tolerance"]))
    agree += a
    total += n
for r in rows:
    print(r)
print("%-10s %4d of %4d accesses agree (%.1f %%)" % ("all", agree, total, 100.0 * agree / max(total, 1)))
print("accesses not compared (no requests counted): %d" % skipped)
if addr > 0:
    print("L1 pipeline wavefronts above what the addresses need: %.1f %%" % (100 * (pipe - addr) / addr))
for g in gaps:
    print("  gap: " + g)
sys.exit(total == 0)
PY
# several points in one run: every point's variants have their counters
out/bin/tuner --counters --fresh --size n=65536,1048576 --out "$outdir/points" configs/filter21.yaml \
	>"$outdir/points.log" 2>&1 || status=1
grep -E "^counters" "$outdir/points.log" | sed "s/^/points: /"
python3 - "$outdir/points" <<'PY' || status=1
import glob, json, sys
fs = sorted(glob.glob(sys.argv[1] + "/filter21/*/n=*/results.json"))
bad = 0
for f in fs:
    d = json.load(open(f))
    n = sum(1 for v in d["variants"] if v.get("bank", {}).get("measured"))
    print("points: %s: counters %s, %d variants measured" % (f.split("/")[-2], "counters" in d and "ok" or d.get("counters_error", "?"), n))
    bad += n == 0
print("points: %s" % ("PASS" if fs and not bad else "FAIL"))
sys.exit(bad or not fs)
PY
exit $status
