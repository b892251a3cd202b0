#!/bin/sh
# What the timing rules cost a warm run and what they buy, on a machine with a CUDA GPU (issue
# 24: warm runs are GPU time under the timing rules): filter21, transpose and reduction, warm
# cache, with timing {warmup, samples} as shipped (3, 20) and at 1 / 20, 0 / 20, 3 / 10 and
# 1 / 10, round by round alternating the settings (R rounds, default 3): the wall time, the
# pick, and how far the medians of the variants timed in full moved against the shipped
# setting's run of the same round (the shipped setting's: against its round before, the floor). The table comes from bench/scale/timing-rules.py.
# Usage: bench/scale/timing-rules.sh [OUTDIR]   (default out/timing-rules; TUNER_YAML_PREFIX as
# for tests/gpu/run.sh; TUNER_RULES_ROUNDS=R)
set -eu
cd "$(dirname "$0")/../.."
. tests/gpu/lib.sh
gpu_build
gpu_header name,driver_version
out=${1:-out/timing-rules}
rm -rf "$out"
mkdir -p "$out"
rounds=${TUNER_RULES_ROUNDS:-3}
export TUNER_CACHE="$out/cache"
trap 'rm -f configs/.rules-*.yaml' EXIT
now() { date +%s.%N; }
: >"$out/rows"
for k in filter21 transpose reduction; do
	for s in 3/20 1/20 0/20 3/10 1/10; do
		w=${s%/*} n=${s#*/} f=configs/.rules-$w-$n-$k.yaml
		sed "s|^timing: {warmup: [0-9]*, samples: [0-9]*}|timing: {warmup: $w, samples: $n}|" \
			configs/$k.yaml >"$f"
		grep -q "^timing: {warmup: $w, samples: $n}" "$f" || { echo "$k: no timing line"; exit 1; }
	done
	out/bin/tuner -q --out "$out/prime" configs/$k.yaml >/dev/null 2>&1 # the cache warmed
	r=1
	while [ $r -le "$rounds" ]; do
		for s in 3/20 1/20 0/20 3/10 1/10; do
			w=${s%/*} n=${s#*/} d=$out/$k-$w-$n-$r
			t0=$(now)
			out/bin/tuner -q --fresh --out "$d" configs/.rules-$w-$n-$k.yaml >/dev/null 2>&1 ||
				echo "tuner failed: $k $s round $r"
			t1=$(now)
			echo "$k|$s|$r|$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')|$(find "$d" -name results.json | head -n 1)" >>"$out/rows"
		done
		r=$((r + 1))
	done
done
python3 bench/scale/timing-rules.py "$out/rows"
