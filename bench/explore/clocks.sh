#!/bin/sh
# The GPU's clocks while the tuner times: one run to compile (and time) the config's variants,
# then a second, --fresh, with nvidia-smi reading the SM and memory clocks, the power and the
# P-state every 20 ms beside it; prints how many readings gave each SM clock. Reads only; sets
# nothing on the GPU.
# Usage: bench/explore/clocks.sh [TUNER OPTIONS] CONFIG   (OUT, default out/clocks;
# TUNER_YAML_PREFIX as for tests/gpu/run.sh), e.g. --size n=65536 bench/explore/reduction-small.yaml
set -eu
cd "$(dirname "$0")/../.."
o=${OUT:-out/clocks}
. tests/gpu/lib.sh
gpu_build
rm -rf "$o"
mkdir -p "$o"
out/bin/tuner -q --out "$o/first" "$@" >/dev/null 2>&1 || true
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,pstate --format=csv,noheader \
	-lms 20 >"$o/clocks.txt" 2>&1 &
smi=$!
sleep 1
out/bin/tuner -q --fresh --out "$o/run" "$@" 2>&1 | tail -n 2
sleep 1
kill "$smi"
echo "$(wc -l <"$o/clocks.txt") readings (timestamp, SM clock, memory clock, power, P-state: $o/clocks.txt); SM clocks:"
awk -F', ' '{ print $2 }' "$o/clocks.txt" | sort | uniq -c | sort -rn
