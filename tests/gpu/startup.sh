#!/bin/sh
# The CUDA driver's start-up on this host (what a GPU worker's `driver` phase and `GPU buffers`
# span hold): tests/gpu/startup.c in one process seeing one GPU, seeing every GPU, and in one
# process per GPU side by side, each seeing its own (as the GPU workers of --devices all do), and
# one per GPU one after another, each started once the one before has its buffers and holding
# its context meanwhile ("ready": since the first one's start).
# Usage: tests/gpu/startup.sh   (needs cc and the toolkit's cuda.h; CUDA_HOME, default
# /usr/local/cuda)
set -eu
cd "$(dirname "$0")/../.."
. tests/gpu/lib.sh
gpu_header name,driver_version,persistence_mode
cuda=${CUDA_HOME:-/usr/local/cuda}
bin=${TMPDIR:-/tmp}/tuner-startup.$$
trap 'rm -f "$bin"' EXIT
cc -O2 -o "$bin" tests/gpu/startup.c -I"$cuda/include" -L"$cuda/lib64/stubs" -lcuda
n=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
all=$(seq -s, 0 $((n - 1)))
for r in 1 2 3; do
	echo "round $r"
	printf '  one GPU seen:        '; CUDA_VISIBLE_DEVICES=0 "$bin"
	sleep 1
	printf '  all %d seen:          ' "$n"; CUDA_VISIBLE_DEVICES=$all "$bin"
	sleep 1
	if [ "$n" -gt 1 ]; then
		k=0
		while [ $k -lt "$n" ]; do
			CUDA_VISIBLE_DEVICES=$k "$bin" >"$bin.$k" &
			k=$((k + 1))
		done
		wait
		k=0
		while [ $k -lt "$n" ]; do
			printf '  %d side by side, %d: ' "$n" $k; cat "$bin.$k"; rm -f "$bin.$k"
			k=$((k + 1))
		done
		sleep 1
		k=0
		while [ $k -lt "$n" ]; do
			: >"$bin.$k"
			CUDA_VISIBLE_DEVICES=$k "$bin" 4 256 $((n + 1)) >"$bin.$k" &
			while [ ! -s "$bin.$k" ]; do sleep 0.01; done
			k=$((k + 1))
		done
		wait
		s0=$(sed 's/.*(monotonic \([0-9.]*\) to .*/\1/' "$bin.0")
		k=0
		while [ $k -lt "$n" ]; do
			printf '  %d one after another, %d: ready %s s; ' "$n" $k \
				"$(sed 's/.* to \([0-9.]*\))$/\1/' "$bin.$k" | awk -v a="$s0" '{ printf "%.3f", $1 - a }')"
			cat "$bin.$k"; rm -f "$bin.$k"
			k=$((k + 1))
		done
		sleep 1
	fi
done
