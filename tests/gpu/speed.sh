#!/bin/sh
# Tuning speed, for a machine with a CUDA GPU: build, then tune filter21 and reduction end to
# end from a cold compile cache and again from a warm one, with the GPU phase's time per
# variant (TUNER_BENCH_PROFILE=1), then re-time the warm runs with each L2 flush mode
# (TUNER_FLUSH=read, the default; write, the old memset; none). Prints one table.
# Usage: tests/gpu/speed.sh [OUTDIR]   (TUNER_YAML_PREFIX as for tests/gpu/run.sh)
set -eu
cd "$(dirname "$0")/../.."
outdir=${1:-out/speed}
mkdir -p "$outdir"
yp=""
[ -n "${TUNER_YAML_PREFIX:-}" ] && yp="--yaml-prefix $TUNER_YAML_PREFIX"
./configure.py $yp >/dev/null
ninja out/bin/tuner >/dev/null
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader || true
fresh=""
out/bin/tuner --help | grep -q -- --fresh && fresh=--fresh # time everything, resume nothing
export TUNER_CACHE="$outdir/cache" TUNER_BENCH_PROFILE=1
rm -rf "$TUNER_CACHE"
now() { date +%s.%N; }
row() { # row LABEL CONFIG LOG: one tuner run, timed
	t0=$(now)
	out/bin/tuner $fresh --out "$outdir/o" "$2" >"$3" 2>&1 || echo "tuner failed: $2 (see $3)"
	t1=$(now)
	python3 - "$1" "$t0" "$t1" "$3" "$outdir/o" "$2" <<'PY'
import glob, json, re, sys
label, t0, t1, log, outdir, cfg = sys.argv[1:]
text = open(log).read()
def grab(pat, default="-"):
    m = re.search(pat, text)
    return m.group(1) if m else default
name = re.search(r"^name:\s*(\S+)", open(cfg).read(), re.M).group(1)
best = "-"
for f in glob.glob("%s/%s/*/results.json" % (outdir, name)):
    d = json.load(open(f))
    ok = [v for v in d["variants"] if v["status"] == "ok"]
    if ok:
        b = min(ok, key=lambda v: v["median_ms"])
        best = "%s %.4f ms %.0f GB/s %.1f%%" % (b["id"], b["median_ms"], b["gbs"], b["pct_copy"])
print("%-28s wall %6.2f s  compile %5s s  gpu_open %5s s  gpu %5s s  per-variant %6s ms"
      "  copy %6s  read %6s  best %s" % (
    label, float(t1) - float(t0), grab(r"in ([0-9.]+) s\n"), grab(r"gpu_open ([0-9.]+) s"),
    grab(r"on the GPU in ([0-9.]+) s"), grab(r"total ([0-9.]+) ms"),
    grab(r"copy ([0-9.]+) GB/s, read"), grab(r"read ([0-9.]+) GB/s \("), best))
PY
}
for k in filter21 reduction transpose; do
	row "$k cold" configs/$k.yaml "$outdir/$k.cold.log"
	row "$k warm" configs/$k.yaml "$outdir/$k.warm.log"
done
for k in filter21 reduction; do
	for m in read write none; do
		TUNER_FLUSH=$m row "$k warm flush=$m" configs/$k.yaml "$outdir/$k.$m.log"
	done
done

# the compile phase alone (no GPU work: --arch names another architecture), from 1 to 16
# worker processes, on the largest shipped space
echo "compile scaling, configs/transpose.yaml, --no-cache --arch sm_89:"
for j in 1 2 4 8 16; do
	out/bin/tuner -j $j --no-cache --arch sm_89 --out "$outdir/scaling" configs/transpose.yaml \
		>"$outdir/scaling.$j.log" 2>&1 || echo "tuner failed (see $outdir/scaling.$j.log)"
	sed -n "s/^tuner: compiled \([0-9]*\), .* in \([0-9.]*\) s$/  -j $j: \1 kernels in \2 s/p" "$outdir/scaling.$j.log"
done
