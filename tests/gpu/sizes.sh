#!/bin/sh
# Several problem sizes, for a machine with a CUDA GPU: the cost of tuning filter21 at four
# points against its largest point alone (cold compile cache and warm, wall time of the whole
# process), and for filter21 and transpose the table of every point's winner at every point
# (the run's own timings, from the GPU directory's results.json), the best single variant and
# what choosing by size gains. Prints one table.
# Usage: tests/gpu/sizes.sh [OUTDIR]   (TUNER_YAML_PREFIX as for tests/gpu/run.sh)
set -eu
cd "$(dirname "$0")/../.."
outdir=${1:-out/sizes}
mkdir -p "$outdir"
. tests/gpu/lib.sh
gpu_build
gpu_header name,driver_version
now() { date +%s.%N; }
# wall LABEL ARGS...: one tuner run into a fresh directory, its wall time printed
wall() {
	label=$1
	shift
	rm -rf "$outdir/o"
	t0=$(now)
	out/bin/tuner -q --fresh --out "$outdir/o" "$@" >"$outdir/$label.log" 2>&1 ||
		echo "tuner failed: $label (see $outdir/$label.log)"
	t1=$(now)
	python3 -c "import sys; print('%-34s %6.2f s' % (sys.argv[1], float(sys.argv[3]) - float(sys.argv[2])))" \
		"$label" "$t0" "$t1"
}
export TUNER_CACHE="$outdir/cache"
f4=n=65536,1048576,8388608,67108864
echo "wall time of the whole process:"
for c in cold warm; do
	[ $c = cold ] && rm -rf "$TUNER_CACHE"
	wall "filter21 n=67108864 $c" configs/filter21.yaml
	[ $c = cold ] && rm -rf "$TUNER_CACHE"
	wall "filter21 4 points $c" --size $f4 configs/filter21.yaml
done
# where each point's time went (its results.json's search.phases: the serial phases, and the
# spans and totals over 0.05 s), from the last four-point run
python3 - "$outdir/o/filter21" <<'PY'
import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/*/*/results.json")):
    d = json.load(open(f))
    ph = d["search"].get("phases", [])
    print("  %-40s run_s %.2f: %s" % (f.split("/")[-2], d["search"].get("run_s", 0),
          ", ".join("%s %.2f" % (p["name"], p["s"]) for p in ph if p["s"] >= 0.05)))
PY
# the points side by side, from the last run of each
show() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pts = d["points"]
print("%s on %s; l2 policy per point:" % (d["kernel"], d["gpu"]))
for p in pts:
    r = json.load(open(sys.argv[1].rsplit("/", 1)[0] + "/" + p["dir"] + "/results.json"))
    print("  %-22s %s: %s" % (p["label"], r["l2"]["policy"], r["l2"]["why"]))
print("%-22s %10s  %s" % ("point", "winner ms", "each point's winner there, % of the point's winner"))
m = d["winners_at_points"]["pct"]
for i, p in enumerate(pts):
    cells = " ".join("%6s" % ("%.1f" % x if x is not None else "-") for x in m[i])
    print("%-22s %10.4f  %s   (winner %s)" % (p["label"], p["median_ms"] or 0, cells, p["winner"]))
s = d["single"]
if s:
    print("best single variant %s: %s %%; choosing by size gains %.1f %% (geometric mean); emitted: %s"
          % (s["id"], ", ".join("%.1f" % x for x in s["pct"]), s["gain_pct"], d["emitted"]))
PY
}
show "$outdir/o/filter21"/*/results.json
# transpose at square sizes: a copy of its config listing the points, beside it (its relative
# paths, hence its sources and cache keys, unchanged)
tc=configs/.sizes-transpose.yaml
trap 'rm -f "$tc"' EXIT INT TERM
python3 - configs/transpose.yaml "$tc" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
pts = "".join("  - {rows: %d, cols: %d}\n" % (n, n) for n in (1024, 2048, 4096, 8192))
t, k = re.subn(r"^sizes:\n(  .*\n)+", "sizes:\n" + pts, t, flags=re.M)
assert k == 1
open(sys.argv[2], "w").write(t)
PY
rm -rf "$outdir/t"
t0=$(now)
out/bin/tuner -q --fresh --out "$outdir/t" "$tc" >"$outdir/transpose.log" 2>&1 ||
	echo "tuner failed: transpose (see $outdir/transpose.log)"
echo "transpose 4 points: $(python3 -c "import sys; print('%.2f s' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$(now)")"
show "$outdir/t/transpose"/*/results.json
