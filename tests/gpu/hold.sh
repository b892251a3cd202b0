#!/bin/sh
# Samples in the L2, held and not (a machine with a CUDA GPU): each kernel tuned RUNS times at a
# size that fits in the L2 with TUNER_TIMING_HOLD=0 (launches queued back to back from the host,
# as before the hold) and with the hold (timing.c), then once at its default size (flushed: the
# hold does not apply). One table: per kernel, size and mode, each run's winner, its median a
# launch (us), the host's cost of a launch (us), and whether the run says launch-bound.
# Usage: tests/gpu/hold.sh [OUTDIR]   (TUNER_YAML_PREFIX as for tests/gpu/run.sh; HOLD_RUNS=3,
# HOLD_KERNELS="filter21 reduction transpose")
set -eu
cd "$(dirname "$0")/../.."
outdir=${1:-out/hold}
nruns=${HOLD_RUNS:-3}
mkdir -p "$outdir"
. tests/gpu/lib.sh
gpu_build
gpu_header name,driver_version
export TUNER_CACHE="$outdir/cache"
# small KERNEL: the --size options of a size that fits in the L2 of every GPU the project
# times on
small() {
	case $1 in
	transpose) echo --size rows=256 --size cols=256 ;;
	*) echo --size n=65536 ;;
	esac
}
# row KERNEL SIZE MODE RUN DIR: the run's winner, its median (us), launch cost, bound
row() {
	python3 - "$@" <<'EOF'
import json, glob, sys
k, size, mode, run, d = sys.argv[1:6]
r = json.load(open(glob.glob(d + "/" + k + "/*/results.json")[0]))
w = [v for v in r["variants"] if v["id"] == r["winner"]][0]
l = r.get("launch", {})
print("%-10s %-18s %-5s %d  %-10s %9.2f  %9.2f  %s" % (k, size, mode, int(run), r["winner"],
      1e3 * w["median_ms"], w.get("launch_us", 0), "bound" if l.get("bound") else "-"))
EOF
}
printf '%-10s %-18s %-5s %s  %-10s %9s  %9s  %s\n' kernel size mode run winner gpu_us launch_us launch
for k in ${HOLD_KERNELS:-filter21 reduction transpose}; do
	cfg=configs/$k.yaml
	for mode in off on; do
		hold=1
		[ $mode = off ] && hold=0
		run=1
		while [ $run -le "$nruns" ]; do
			d=$outdir/$k-$mode-$run
			rm -rf "$d"
			gpu_idle
			# shellcheck disable=SC2046
			TUNER_TIMING_HOLD=$hold out/bin/tuner -q --fresh $(small $k) --out "$d" \
				"$cfg" >"$d.log" 2>&1 || { echo "tuner failed: $d.log"; tail -n 3 "$d.log"; }
			row "$k" "$(small $k | sed 's/--size //g; s/ /,/')" $mode $run "$d" || true
			run=$((run + 1))
		done
	done
	d=$outdir/$k-default
	rm -rf "$d"
	gpu_idle
	out/bin/tuner -q --fresh --out "$d" "$cfg" >"$d.log" 2>&1 || echo "tuner failed: $d.log"
	row "$k" default flush 1 "$d" || true
	grep -h '^best' "$d.log" | head -n 1 || true
done
