#!/bin/sh
# NVRTC's time per variant, one program per variant against one program of 8 variants, with
# and without -minimal, and whether a variant's code is the same either way (the transpose
# template, sm_90; no GPU needed, the toolkit's NVRTC). The lever for the cold runs of issue 24:
# docs/benchmarks.md, "Compiling". Usage: bench/compile/programs.sh [CUDA]  (default
# /usr/local/cuda)
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
