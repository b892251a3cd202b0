#!/bin/sh
# NVRTC's time per variant, one program per variant against one program of 8 variants, with
# and without -minimal, and whether a variant's code is the same either way (the transpose
# template, sm_90; no GPU needed, the toolkit's NVRTC). The lever for the cold runs of issue 24:
# docs/benchmarks.md, "Compiling". With PROGRAMS_JOBS=N, N such processes at once (as the
# tuner's compiler processes run), and the mean of their last two rounds for each way.
# Usage: bench/compile/programs.sh [CUDA]  (default /usr/local/cuda)
set -eu
cd "$(dirname "$0")/../.."
cuda=${1:-/usr/local/cuda}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cc -O2 -o "$d/programs" bench/compile/programs.c -I"$cuda/include" -L"$cuda/lib64" -lnvrtc \
	-Wl,-rpath,"$cuda/lib64"
python3 bench/compile/programs.py write "$d" templates/transpose.cu transpose 8
echo "cores: $(nproc); $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
PROGRAMS_DUMP=$d "$d/programs" templates/transpose.cu "$d/batch.cu" "$d"/def?.h
python3 bench/compile/programs.py same "$d" transpose 8
jobs=${PROGRAMS_JOBS:-0}
if [ "$jobs" -gt 1 ]; then
	i=0
	while [ $i -lt "$jobs" ]; do
		"$d/programs" templates/transpose.cu "$d/batch.cu" "$d"/def?.h >"$d/par$i.txt" &
		i=$((i + 1))
	done
	wait
	# the rounds after the first (lines 4-7 of each): the mean ms per variant of each way
	for f in "$d"/par*.txt; do sed -n 4,7p "$f"; done | awk -v j="$jobs" '
		{ w = $1; s1[w] += $7; s8[w] += $(NF - 2); n[w]++ }
		END { for (w in n) printf "%d processes at once, %-9s one program per variant %6.1f ms, one of 8 %6.1f ms per variant\n", j, w, s1[w] / n[w], s8[w] / n[w] }'
fi
