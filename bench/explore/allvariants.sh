#!/bin/sh
# Every kept variant of a small config timed by the dispatch harness (tests/gpu/dispatch.cu:
# graph-replayed and held, interleaved, in one process) beside the tuner's own median of it, at a
# few sizes: does the tuner rank the variants as the harness does? For n-sized kernels
# (filter21, reduction); above the L2 (one flushed launch a sample) graph and held are that
# time. Usage: bench/explore/allvariants.sh CONFIG KERNEL SIZE...
# (OUT, default out/allv; REPEAT, default 1: the tuner's runs at each size, a column each;
# PLACES, default 1: the harness's -P, each variant timed on that many copies of its buffers
# and scratch, every copy's graph-replayed median listed, after spacers of odd multiples of GAP
# MiB (default 1); PROCS, default 0: the same harness
# run in that many more processes, each's fastest eight by graph replay at the first size on a
# line; TIMING: the tuner's timing settings instead of the config's, as a flow mapping such as
# "{warmup: 10, samples: 50}" (a copy of CONFIG beside it with that line added, removed after);
# TUNER_YAML_PREFIX as for tests/gpu/run.sh)
set -eu
cd "$(dirname "$0")/../.."
cfg=$1 k=$2
shift 2
if [ -n "${TIMING:-}" ]; then
	c=$(dirname "$cfg")/.allvariants-$(basename "$cfg")
	trap 'rm -f "$c"' EXIT INT TERM
	grep -v '^timing:' "$cfg" >"$c"
	printf 'timing: %s\n' "$TIMING" >>"$c"
	cfg=$c
fi
o=${OUT:-out/allv}
. tests/gpu/lib.sh
gpu_build
gpu_header name,driver_version,clocks.sm,clocks.max.sm
K=$(echo "$k" | tr a-z A-Z)
arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d .)
rm -rf "$o"
mkdir -p "$o"
R=${REPEAT:-1}
for s in "$@"; do
	r=1
	while [ $r -le "$R" ]; do
		gpu_idle
		out/bin/tuner -q --fresh --out "$o/t$s-$r" --size "n=$s" "$cfg" >"$o/t$s-$r.log" 2>&1
		r=$((r + 1))
	done
done
# each variant's source, as --emit writes it (compiled only: no GPU seen)
i=0 objs=""
for id in $(out/bin/tuner --dry-run "$cfg" | awk '$NF == "kept" { print $1 }'); do
	CUDA_VISIBLE_DEVICES= out/bin/tuner -q --arch "$arch" --out "$o/e" --emit "$id" --size "n=$1" \
		"$cfg" >/dev/null 2>&1 || true
	h=$(find "$o/e" -name "$id.h" | head -n 1)
	i=$((i + 1))
	nvcc -arch="$arch" -O3 -c -I. -Itests/gpu -DKERNEL_$K -DONE_CU="\"${h%.h}.cu\"" \
		-DONE_H="\"$h\"" -DONE_NAME='"v"' -DONE_ID="\"$id\"" -DONE_AT='"*"' \
		-D"$k=one${i}_$k" -o "$o/one$i.o" tests/gpu/dispatch_one.cu >"$o/nvcc$i.log" 2>&1 &
	objs="$objs $o/one$i.o"
done
wait
out/bin/tuner bundle -q --out "$o/bundle" "$o/t$1-1/$k" >"$o/bundle.log" 2>&1
nvcc -arch="$arch" -O3 -c -I. -DKERNEL_$K -DBEST_H="\"$o/bundle/${k}_bundle.h\"" -o "$o/main.o" \
	tests/gpu/dispatch.cu
nvcc -arch="$arch" -O3 -c -I"$o/bundle" -o "$o/best.o" "$o/bundle/${k}_bundle.cu"
# shellcheck disable=SC2086
nvcc -arch="$arch" -o "$o/dispatch" "$o/main.o" "$o/best.o" $objs tests/ref/*.c
sizes=""
for s in "$@"; do sizes="$sizes p:$s"; done
gpu_idle
# shellcheck disable=SC2086
"$o/dispatch" -s 30 -P "${PLACES:-1}" -G "${GAP:-1}" $sizes >"$o/dispatch.txt"
if [ "${PLACES:-1}" -gt 1 ]; then # each variant's graph-replayed median on each copy
	awk '$1 == "place" && $4 == "v" { m[$3 " " $5] = m[$3 " " $5] " " $7 }
		END { for (k in m) print "copies " k ":" m[k] }' "$o/dispatch.txt" | sort
fi
python3 - "$o" "$k" "$R" "$@" <<'PY'
import glob, json, sys
o, k, R, sizes = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
h = {}
for line in open(o + "/dispatch.txt"):
    f = line.split()
    if f[0] == "time" and f[3] == "v":
        # above the L2 one flushed launch a sample: its time in both columns
        for m in (("graph", "held") if f[7] == "flushed" else (f[7],)):
            h.setdefault((f[2], f[4]), {})[m] = float(f[5])
for s in sizes:
    runs = [json.load(open(glob.glob("%s/t%s-%d/%s/*/results.json" % (o, s, r, k))[0])) for r in range(1, R + 1)]
    tus = []  # each run's medians (the play-off's where it has one), by id
    for r in runs:
        tus.append({v["id"]: (v["playoff"]["median_ms"] if "playoff" in v else v["median_ms"]) * 1e3
                    for v in r["variants"] if v.get("status") == "ok"})
    vs = [v for v in runs[0]["variants"] if v.get("status") == "ok" and ("n=" + s, v["id"]) in h
          and all(v["id"] in t for t in tus)]
    g0 = min(h[("n=" + s, v["id"])]["graph"] for v in vs)
    h0 = min(h[("n=" + s, v["id"])]["held"] for v in vs)
    t0 = [min(t[v["id"]] for v in vs) for t in tus]
    print("n=%s: %d variants; the tuner's winners %s; %% over each column's fastest (tuner: each run's"
          " median, the play-off's where it had one; * its winner)" % (s, len(vs), " ".join(r["winner"] for r in runs)))
    print("  %-10s %-44s %8s %8s %7s %7s  %s" % ("id", "params", "graph", "held", "g %", "h %", "tuner %% in runs 1..%d" % R))
    for v in sorted(vs, key=lambda v: h[("n=" + s, v["id"])]["graph"]):
        g, hh = h[("n=" + s, v["id"])]["graph"], h[("n=" + s, v["id"])]["held"]
        p = " ".join("%s=%s" % kv for kv in v["params"].items() if kv[0] not in ("BANK_BYTES", "METHOD", "SPLIT", "GRID"))
        ts = " ".join("%6.2f%s" % (100 * (t[v["id"]] / t0[i] - 1), "*" if runs[i]["winner"] == v["id"] else " ")
                      for i, t in enumerate(tus))
        print("  %-10s %-44s %8.3f %8.3f %7.2f %7.2f  %s" % (v["id"], p, g, hh, 100 * (g / g0 - 1), 100 * (hh / h0 - 1), ts))
PY
p=1
while [ $p -le "${PROCS:-0}" ]; do # the same binary again, in a process of its own
	gpu_idle
	printf 'process %s:' $((p + 1))
	"$o/dispatch" -s 30 "p:$1" | awk '$1 == "time" && $4 == "v" && ($8 == "graph" || $8 == "flushed") { print $5, $6 }' |
		sort -k2 -n | head -n 8 | tr '\n' ';'
	echo
	p=$((p + 1))
done
