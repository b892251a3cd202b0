#!/bin/sh
# Tuning speed, for a machine with a CUDA GPU: build, then tune each shipped config end to
# end from a cold compile cache and again from a warm one, with the time at the end of each
# phase (-v), then re-time the warm runs with each L2 flush choice (the config's
# timing.flush_l2: true, flush=read, the default; false, flush=none) and without racing
# (--no-race). Prints one table.
# Usage: tests/gpu/speed.sh [OUTDIR]   (TUNER_YAML_PREFIX as for tests/gpu/run.sh)
set -eu
cd "$(dirname "$0")/../.."
outdir=${1:-out/speed}
mkdir -p "$outdir"
. tests/gpu/lib.sh
gpu_build
gpu_header name,driver_version,persistence_mode
fresh=""
out/bin/tuner --help | grep -q -- --fresh && fresh=--fresh # time everything, resume nothing
export TUNER_CACHE="$outdir/cache"
rm -rf "$TUNER_CACHE"
now() { date +%s.%N; }
# flushcfg CONFIG true|false: a copy of CONFIG with timing.flush_l2 set, beside it (its relative
# paths, hence its sources and compile-cache keys, unchanged; removed by the caller)
flushcfg() {
	f=configs/.speed-$(basename "$1" .yaml)-flush-$2.yaml
	if grep -q '^timing: *{.*}' "$1"; then
		sed -e '/^timing:/s/,* *flush_l2: *[a-z]*//' \
		    -e "s/^timing: *{ *\(.*\)}/timing: {\1, flush_l2: $2}/" -e '/^timing:/s/{, /{/' \
		    "$1" >"$f"
	elif grep -q '^timing:' "$1"; then
		echo "speed.sh: $1: timing is not a one-line {...} map" >&2
		exit 1
	else
		{ cat "$1"; echo "timing: {flush_l2: $2}"; } >"$f"
	fi
	echo "$f"
}
trap 'rm -f configs/.speed-*-flush-*.yaml' EXIT INT TERM
row() { # row LABEL CONFIG LOG: one tuner run, timed
	t0=$(now)
	out/bin/tuner $fresh -v ${4:-} --out "$outdir/o" "$2" >"$3" 2>&1 || echo "tuner failed: $2 (see $3)"
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
# phase ends (-v): GPU open, bank model, compiled, first result, variants run, reported
ph = [grab(r"tuner: ([0-9.]+) s: " + p) for p in
      ("GPU opened", "bank model", "compiled", "first result", "variants run", "reported")]
raced = grab(r"\n([0-9]+) variants were timed with")
print("%-26s wall %5.2f s | gpu-open %s bank %s compiled %s first %s variants %s reported %s"
      " | raced %s | best %s" % ((label, float(t1) - float(t0)) + tuple(ph) + (raced, best)))
PY
}
for k in filter21 reduction transpose; do
	row "$k cold" configs/$k.yaml "$outdir/$k.cold.log"
	row "$k warm" configs/$k.yaml "$outdir/$k.warm.log"
done
for k in filter21 reduction transpose; do
	row "$k warm --no-race" configs/$k.yaml "$outdir/$k.norace.log" --no-race
	for m in read none; do
		cfg=$(flushcfg configs/$k.yaml "$([ $m = read ] && echo true || echo false)")
		row "$k warm flush=$m" "$cfg" "$outdir/$k.$m.log"
		rm -f "$cfg"
	done
done

# the compile phase alone (no GPU work: --arch names another architecture), from 1 to 16
# worker processes, on the largest shipped space
# where the GPU phase goes: the worker's time per verified variant (TUNER_BENCH_PROFILE=1):
# load and set up, verify (poison, launch, compare), timing (warm-up, samples, L2 flushes)
echo "worker time per verified variant, warm, ms:"
for k in filter21 reduction transpose; do
	TUNER_BENCH_PROFILE=1 out/bin/tuner --fresh --out "$outdir/o" configs/$k.yaml >"$outdir/$k.prof.log" 2>&1 || true
	grep "^bench: v" "$outdir/$k.prof.log" | awk -v k=$k '{s += $4; v += $6; t += $8; u += $10; n++}
		END { if (n) printf "  %-10s %3d variants: setup %.3f verify %.3f timing %.3f unload %.3f\n", k, n, s / n, v / n, t / n, u / n }'
done

# a first compile for an architecture is slower (NVRTC loads what it needs for it): one
# discarded run first
echo "compile scaling, configs/transpose.yaml, --no-cache --arch sm_89 (after a discarded run):"
out/bin/tuner --no-cache --arch sm_89 --out "$outdir/scaling" configs/transpose.yaml >/dev/null 2>&1 || true
for j in 1 2 4 8 16; do
	out/bin/tuner -j $j --no-cache --arch sm_89 --out "$outdir/scaling" configs/transpose.yaml \
		>"$outdir/scaling.$j.log" 2>&1 || echo "tuner failed (see $outdir/scaling.$j.log)"
	sed -n "s/^tuner: compiled \([0-9]*\), .* in \([0-9.]*\) s$/  -j $j: \1 kernels in \2 s/p" "$outdir/scaling.$j.log"
done
