#!/bin/sh
# tuner bundle on real results: bundle the filter21 and reduction results under RESULTS (one
# directory per GPU, from tests/gpu/run.sh on one or more GPUs), build examples/app.cu against
# those bundles with nvcc and run it on this GPU: it picks its entry, says which and why, and
# checks the results against the CPU reference.
# Usage: tests/gpu/bundle.sh RESULTS [OUTDIR]   (TUNER_YAML_PREFIX as for the other scripts)
set -eu
cd "$(dirname "$0")/../.."
res=$1
outdir=${2:-out/gpu-bundle}
mkdir -p "$outdir"
. tests/gpu/lib.sh
gpu_build
gpu_header name,driver_version
for k in filter21 reduction; do
	ls -d "$res/$k"/*/ | sed "s|^|$k: |"
	out/bin/tuner bundle --out "$outdir" "$res/$k"
done
flags=$(sed -n 's/^ \* nvcc flags: //p' "$outdir/filter21_bundle.h")
nvcc $flags -I"$outdir" -Itests/ref -o "$outdir/app" examples/app.cu \
	"$outdir/filter21_bundle.cu" "$outdir/reduction_bundle.cu" tests/ref/filter21.c tests/ref/sum.c
"$outdir/app"
