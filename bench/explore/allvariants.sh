#!/bin/sh
# Every kept variant of a small config timed by the dispatch harness (tests/gpu/dispatch.cu:
# graph-replayed and held, interleaved, in one process) beside the tuner's own median of it, at a
# few sizes: does the tuner rank the variants as the harness does? For n-sized kernels
# (filter21, reduction). Usage: bench/explore/allvariants.sh CONFIG KERNEL SIZE...
# (OUT, default out/allv; TUNER_YAML_PREFIX as for tests/gpu/run.sh)
set -eu
cd "$(dirname "$0")/../.."
cfg=$1 k=$2
shift 2
o=${OUT:-out/allv}
. tests/gpu/lib.sh
gpu_build
gpu_header name,driver_version,clocks.sm,clocks.max.sm
K=$(echo "$k" | tr a-z A-Z)
arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d .)
rm -rf "$o"
mkdir -p "$o"
for s in "$@"; do
	gpu_idle
	out/bin/tuner -q --fresh --out "$o/t$s" --size "n=$s" "$cfg" >"$o/t$s.log" 2>&1
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
out/bin/tuner bundle -q --out "$o/bundle" "$o/t$1/$k" >"$o/bundle.log" 2>&1
nvcc -arch="$arch" -O3 -c -I. -DKERNEL_$K -DBEST_H="\"$o/bundle/${k}_bundle.h\"" -o "$o/main.o" \
	tests/gpu/dispatch.cu
nvcc -arch="$arch" -O3 -c -I"$o/bundle" -o "$o/best.o" "$o/bundle/${k}_bundle.cu"
# shellcheck disable=SC2086
nvcc -arch="$arch" -o "$o/dispatch" "$o/main.o" "$o/best.o" $objs tests/ref/*.c
sizes=""
for s in "$@"; do sizes="$sizes p:$s"; done
gpu_idle
# shellcheck disable=SC2086
"$o/dispatch" -s 30 $sizes >"$o/dispatch.txt"
python3 - "$o" "$k" "$@" <<'PY'
import glob, json, sys
o, k, sizes = sys.argv[1], sys.argv[2], sys.argv[3:]
h = {}
for line in open(o + "/dispatch.txt"):
    f = line.split()
    if f[0] == "time" and f[3] == "v":
        h.setdefault((f[2], f[4]), {})[f[7]] = float(f[5])
for s in sizes:
    r = json.load(open(glob.glob("%s/t%s/%s/*/results.json" % (o, s, k))[0]))
    vs = [v for v in r["variants"] if v.get("status") == "ok" and ("n=" + s, v["id"]) in h]
    for v in vs:
        v["us"] = v["median_ms"] * 1e3
        v["g"], v["h"] = h[("n=" + s, v["id"])]["graph"], h[("n=" + s, v["id"])]["held"]
    g0, h0, t0 = (min(v[x] for v in vs) for x in ("g", "h", "us"))
    print("n=%s: %d variants; tuner's winner %s; %% over each column's fastest" % (s, len(vs), r["winner"]))
    print("  %-10s %-44s %8s %8s %8s %7s %7s %7s" % ("id", "params", "graph", "held", "tuner", "g %", "h %", "t %"))
    for v in sorted(vs, key=lambda v: v["g"]):
        p = " ".join("%s=%s" % kv for kv in v["params"].items() if kv[0] not in ("BANK_BYTES", "METHOD", "SPLIT", "GRID"))
        print("  %-10s %-44s %8.3f %8.3f %8.3f %7.2f %7.2f %7.2f" % (
            v["id"], p, v["g"], v["h"], v["us"], 100 * (v["g"] / g0 - 1), 100 * (v["h"] / h0 - 1),
            100 * (v["us"] / t0 - 1)))
PY
