#!/bin/sh
# Does where a kernel's buffers land in memory move its time above the L2? filter21 and the
# reduction tuned at 2^23 and 2^26 (no midpoints), each point's entries timed by the dispatch
# harness on PLACES copies of the buffers (-P, each its own allocation) in three processes.
# Prints the harness's "place" and "time" lines of the flushed sizes.
# Usage: bench/explore/placement.sh [OUTDIR] (default out/placement); PLACES (default 4).
set -eu
cd "$(dirname "$0")/../.."
o=${1:-out/placement}
P=${PLACES:-4}
DISPATCH_KERNELS="filter21 reduction" DISPATCH_POINTS="8388608 67108864" DISPATCH_BETWEEN="" \
	DISPATCH_ARGS="--midpoints 0" DISPATCH_PLACES=$P sh tests/gpu/dispatch.sh "$o" || true
for k in filter21 reduction; do
	for run in 1 2 3; do
		if [ $run -gt 1 ]; then
			"$o/$k/dispatch" -P "$P" p:8388608 p:67108864 >"$o/$k/again$run.txt" 2>&1 || true
			f=$o/$k/again$run.txt
		else
			f=$o/$k/dispatch.txt
		fi
		echo "== $k process $run"
		grep -E '^(place|time) p ' "$f" | grep -v ' held ' || true
	done
done
