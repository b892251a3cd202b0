#!/bin/sh
# bench/scale/devices-builds.sh: on a host of several CUDA GPUs of one model, the four-GPU
# measurement of tests/gpu/speed.sh (stencil2d, a random 1500 variants, --no-race, the compile
# cache warmed first) for this build and, with TUNER_BASELINE=DIR (a tree of another commit,
# built: DIR/out/bin/tuner), for that one, in one call: the run on one GPU once each, then
# --devices all twice each, alternating. Each run starts from an idle GPU and uses its build's
# own defaults where the config says nothing. Prints wall time, the driver and stream phases and
# the winner per run. TUNER_YAML_PREFIX, TUNER_JANSSON_PREFIX, TUNER_COMMIT as for
# tests/gpu/run.sh.
set -eu
cd "$(dirname "$0")/../.."
. tests/gpu/lib.sh
gpu_build
gpu_header name,driver_version
n=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')
export TUNER_CACHE=${TMPDIR:-/tmp}/tuner-devices-builds.$$
trap 'rm -rf "$TUNER_CACHE" "$TUNER_CACHE.out"' EXIT
# the cache warmed for the same picks without timing (no GPU visible: compiled for the GPU's
# architecture; the budget there counts compiled variants, here timed ones)
CUDA_VISIBLE_DEVICES='' out/bin/tuner -q --arch "sm_$cc" --budget 1800 --strategy random \
	--out "$TUNER_CACHE.out" configs/stencil2d.yaml >/dev/null 2>&1 || true
one() { # BUILD LABEL ARGS...
	b=$1 l=$2
	shift 2
	gpu_idle
	rm -rf "$TUNER_CACHE.out"
	t0=$(date +%s.%N)
	"$b" -q --fresh --no-race --budget 1500 --strategy random "$@" --out "$TUNER_CACHE.out" \
		configs/stencil2d.yaml >/dev/null 2>&1 || echo "$l: the tuner failed"
	t1=$(date +%s.%N)
	python3 - "$l" "$t0" "$t1" "$TUNER_CACHE.out"/stencil2d/*/results.json <<'PY'
import json, sys
l, t0, t1, f = sys.argv[1:5]
d = json.load(open(f))
ph = {p["name"]: p["s"] for p in d["search"]["phases"]}
print("%-28s wall %.2f s  driver %.2f  stream %.2f  winner %s" % (
    l, float(t1) - float(t0), ph.get("driver", 0), ph.get("stream", 0), d["variants"][0]["id"]))
PY
}
export CUDA_VISIBLE_DEVICES="$(seq -s, 0 $((n - 1)))"
base=${TUNER_BASELINE:+$TUNER_BASELINE/out/bin/tuner}
one out/bin/tuner "this build, 1 GPU"
[ -z "$base" ] || one "$base" "baseline, 1 GPU"
for r in 1 2; do
	one out/bin/tuner "this build, $n GPUs" --devices all
	[ -z "$base" ] || one "$base" "baseline, $n GPUs" --devices all
done
