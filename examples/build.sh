#!/bin/sh
# Build the example application, examples/app.cu, with the bundles it embeds (ninja examples).
# The bundles are made here, without a GPU: every variant of filter21 and reduction is compiled
# for sm_90 (tuner --arch sm_90), those compile-only results become three GPUs' timed results
# with MADE-UP timings (tests/bundle/fake_gpus.py: nothing in them was measured), and tuner
# bundle turns each kernel's into OUT/bundle/<kernel>_bundle.{cu,h}. To embed real winners,
# tune on each GPU, gather the out/<kernel>/<gpu> directories and run tuner bundle on them.
# usage: examples/build.sh TUNER OUT [NVCC]   (writes OUT/app; the tuner's cache applies)
set -eu
cd "$(dirname "$0")/.."
T=$1 O=$2 NVCC=${3:-nvcc}
mkdir -p "$O/results"
for k in filter21 reduction; do
	echo "examples: $k: every variant compiled for sm_90 (a minute or two), then three GPUs' made-up results bundled"
	"$T" -q --arch sm_90 --out "$O/untimed" "configs/$k.yaml" >/dev/null
	rm -rf "$O/results/$k"
	python3 tests/bundle/fake_gpus.py "$O/untimed/$k/untimed-sm_90" "$O/results/$k" \
		>"$O/results/$k.ids"
	"$T" bundle -q --out "$O/bundle" "$O/results/$k"
done
# the architectures the bundles hold, as their headers say (the same GPUs for both kernels)
echo "examples: the application with nvcc"
flags=$(sed -n 's/^ \* nvcc flags: //p' "$O/bundle/filter21_bundle.h")
"$NVCC" $flags -Xcompiler -Wall,-Wextra -I"$O/bundle" -Itests/ref -o "$O/app.tmp" \
	examples/app.cu "$O/bundle/filter21_bundle.cu" "$O/bundle/reduction_bundle.cu" \
	tests/ref/filter21.c tests/ref/sum.c
mv "$O/app.tmp" "$O/app"
