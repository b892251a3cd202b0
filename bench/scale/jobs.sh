#!/bin/sh
# Cold runs at several -j, for a machine with a CUDA GPU: transpose and reduction, each with an
# empty compile cache, at -j 16, 14, 12 and 10 (or the values given in JOBS), twice each
# alternating; for each run the wall time, the CPU time the host spent busy meanwhile (from
# /proc/stat: the tuner's compilers are not all reaped by the process, so its own rusage misses
# them; on a host doing nothing else it is the run's) and the stream's phases (results.json's search.phases: compiling's span, the compiler
# start-up, the GPU worker's timing). Where the compilers, the parent and the GPU worker share
# the cores, fewer compilers may leave the GPU worker and the parent more.
# Usage: bench/scale/jobs.sh OUTDIR   (TUNER_YAML_PREFIX as for tests/gpu/run.sh)
set -eu
cd "$(dirname "$0")/../.."
outdir=$1
mkdir -p "$outdir"
. tests/gpu/lib.sh
gpu_build
gpu_header name,driver_version
echo "cores: $(nproc)"
for cfg in transpose reduction; do
	for rep in 1 2; do
		for j in ${JOBS:-16 14 12 10}; do
			rm -rf "$outdir/cache" "$outdir/o"
			gpu_idle
			head -n 1 /proc/stat >"$outdir/stat0"
			t0=$(date +%s.%N)
			TUNER_CACHE="$outdir/cache" out/bin/tuner -q -j "$j" --out "$outdir/o" \
				"configs/$cfg.yaml" >/dev/null 2>&1 || echo "$cfg -j $j: failed"
			t1=$(date +%s.%N)
			head -n 1 /proc/stat >"$outdir/stat1"
			python3 - "$cfg" "$j" "$t0" "$t1" "$outdir" "$(getconf CLK_TCK)" "$outdir"/o/*/*/results.json <<'PY'
import json, sys
cfg, j, t0, t1, od, hz, rf = sys.argv[1:8]
def busy(f):  # the "cpu" line: user nice system idle iowait irq softirq ...; busy = all but idle, iowait
    v = [int(x) for x in open(f).read().split()[1:8]]
    return sum(v[0:3]) + sum(v[5:7])
wall = float(t1) - float(t0)
cpu = (busy(od + "/stat1") - busy(od + "/stat0")) / float(hz)
d = json.load(open(rf))
ph = {}
for p in d["search"]["phases"]:
    ph[p["name"]] = ph.get(p["name"], 0) + p["s"]
print("%-10s -j %-3s wall %5.2f s  busy %6.2f cpu s (%.1f cores)  %s" % (
    cfg, j, wall, cpu, cpu / wall,
    "  ".join("%s %.2f" % (k, ph[k]) for k in ("stream", "compiling", "compiler start-up",
                                                "timing", "timing samples") if k in ph)))
PY
		done
	done
done
