#!/bin/sh
# Tuning speed, for a machine with a CUDA GPU (the targets of issue 24): for each model of GPU
# on the host (on its first device; CUDA_VISIBLE_DEVICES), one table of
#  - the wall time of `tuner -q --fresh --out DIR configs/K.yaml` for filter21, transpose and
#    reduction, cold (an empty compile cache) and warm (the cache kept), against the targets
#    (filter21 <= 2.0 s cold, 1.0 s warm; transpose, reduction <= 3.0 s, 1.5 s), and
#    stencil2d `--budget 300 --strategy guided` cold, and stencil2d's own search (guided, 1644
#    of its variants) warm, each with its phases (results.json's search.phases);
#  - with several GPUs of the model, `--devices all` against one of them: stencil2d, a random
#    1500 variants, --no-race, the compile cache warm (target: 3.5x on 4 GPUs);
#  - the agreement: 3 independent runs of each of filter21, transpose and reduction into fresh
#    directories (warm cache): how many pick their kernel's usual pick (target: 8 of 9), and
#    whether each pick is within 0.5 % of its run's fastest.
# The tables come from tests/gpu/speed.py (tests/fakegpu.sh runs it on the fake driver's
# results). Meant to end within 9 minutes: with a baseline (and its agreement), calls that
# built and ran it took 2.8-3.5 minutes on one H100 (11d8dd2 to 512c367); without one, 2.9 on
# the four-H100 host (6b0d0a0).
# Usage: tests/gpu/speed.sh [OUTDIR]   (default out/speed; TUNER_YAML_PREFIX as for
# tests/gpu/run.sh; the runs an earlier call left there are removed first). With
# TUNER_BASELINE=DIR (a tree of another commit, built: DIR/out/bin/tuner), that build's cold
# and warm runs too, on the same machine, as rows "K cold, baseline" (and its own-search run of
# stencil2d, and its agreement, run by run beside this build's). With TUNER_SPEED_ONE=1 the
# one-GPU run of the four-GPU measurement is made on a host of one GPU too (its serial
# phases bound what more GPUs can gain).
set -eu
cd "$(dirname "$0")/../.."
outdir=${1:-out/speed}
mkdir -p "$outdir"
rm -rf "$outdir"/gpu-*
. tests/gpu/lib.sh
gpu_build
gpu_header name,driver_version,persistence_mode
py=tests/gpu/speed.py
now() { date +%s.%N; }

# tune DIR LOG ARGS...: one run of the tuner (-q --fresh) into the empty directory DIR; its wall
# time into $wall, its results.json into $res ("-" if it wrote none)
tune() {
	dir=$1 log=$2
	shift 2
	rm -rf "$dir"
	gpu_idle
	t0=$(now)
	${T:-out/bin/tuner} -q --fresh --out "$dir" "$@" </dev/null >"$log" 2>&1 ||
		echo "tuner failed: $* (see $log)"
	t1=$(now)
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	res=$(find "$dir" -name results.json | head -n 1)
	[ -n "$res" ] || res=-
}

# the models: "name|indices|compute capability" per line
nvidia-smi --query-gpu=index,name,compute_cap --format=csv,noheader | python3 -c '
import sys
models = {}
for line in sys.stdin:
    i, name, cc = [x.strip() for x in line.split(",")]
    models.setdefault(name, [[], cc])[0].append(i)
for name, (ids, cc) in models.items():
    print("%s|%s|%s" % (name, ",".join(ids), cc))
' >"$outdir/models"

m=0
while IFS='|' read -r name devs cc; do
	m=$((m + 1))
	g=$outdir/gpu-$m
	mkdir -p "$g"
	first=${devs%%,*}
	ndev=$(echo "$devs" | tr ',' '\n' | wc -l)
	arch=sm_$(echo "$cc" | tr -d .)
	rows=$g/rows
	: >"$rows"
	export TUNER_CACHE="$g/cache"
	export CUDA_VISIBLE_DEVICES="$first"
	for k in filter21 transpose reduction; do
		if [ $k = filter21 ]; then cold=2.0 warm=1.0; else cold=3.0 warm=1.5; fi
		rm -rf "$TUNER_CACHE"
		tune "$g/$k" "$g/$k.cold.log" configs/$k.yaml
		[ "$res" = - ] || cp "$res" "$g/$k.cold.json"
		echo "$k cold|$wall|$([ "$res" = - ] && echo - || echo "$g/$k.cold.json")|$cold" >>"$rows"
		tune "$g/$k" "$g/$k.warm.log" configs/$k.yaml
		echo "$k warm|$wall|$res|$warm" >>"$rows"
	done
	if [ -n "${TUNER_BASELINE:-}" ]; then # the same runs of another build, on this machine
		for k in filter21 transpose reduction; do
			rm -rf "$TUNER_CACHE"
			T=$TUNER_BASELINE/out/bin/tuner
			tune "$g/base-$k" "$g/base-$k.cold.log" configs/$k.yaml
			[ "$res" = - ] || { cp "$res" "$g/base-$k.cold.json"; res=$g/base-$k.cold.json; }
			echo "$k cold, baseline|$wall|$res|-" >>"$rows"
			tune "$g/base-$k" "$g/base-$k.warm.log" configs/$k.yaml
			echo "$k warm, baseline|$wall|$res|-" >>"$rows"
			T=
		done
	fi
	rm -rf "$TUNER_CACHE"
	tune "$g/stencil2d" "$g/stencil2d.log" --budget 300 --strategy guided configs/stencil2d.yaml
	echo "stencil2d guided 300 cold|$wall|$res|-" >>"$rows"
	# stencil2d's own search (guided, a tenth of its variants), warm: the second of two runs
	for b in "" ${TUNER_BASELINE:+"$TUNER_BASELINE/out/bin/tuner"}; do
		T=$b
		tune "$g/stencil2d-own" "$g/stencil2d-own.log" configs/stencil2d.yaml
		tune "$g/stencil2d-own" "$g/stencil2d-own.log" configs/stencil2d.yaml
		[ "$res" = - ] || { cp "$res" "$g/stencil2d-own${b:+-base}.json"; res=$g/stencil2d-own${b:+-base}.json; }
		echo "stencil2d own search (guided 1644) warm${b:+, baseline}|$wall|$res|-" >>"$rows"
		T=
	done

	# the agreement, from warm caches (each build its own, warmed first); with a baseline, its
	# runs too, each beside this build's run of the same kernel and round
	agree="" agree_base="" base_cache=$g/base-cache
	for k in filter21 transpose reduction; do
		tune "$g/agree-warm" "$g/agree-warm.log" configs/$k.yaml
		[ -n "${TUNER_BASELINE:-}" ] || continue
		T=$TUNER_BASELINE/out/bin/tuner TUNER_CACHE=$base_cache
		tune "$g/agree-warm" "$g/agree-warm-base.log" configs/$k.yaml
		T= TUNER_CACHE=$g/cache
	done
	for k in filter21 transpose reduction; do
		for r in 1 2 3; do
			tune "$g/agree-$r" "$g/agree-$k-$r.log" configs/$k.yaml
			[ "$res" = - ] || { cp "$res" "$g/agree-$k-$r.json"; agree="$agree $k=$g/agree-$k-$r.json"; }
			[ -n "${TUNER_BASELINE:-}" ] || continue
			T=$TUNER_BASELINE/out/bin/tuner TUNER_CACHE=$base_cache
			tune "$g/agree-$r" "$g/agree-base-$k-$r.log" configs/$k.yaml
			T= TUNER_CACHE=$g/cache
			[ "$res" = - ] || { cp "$res" "$g/agree-base-$k-$r.json"; agree_base="$agree_base $k=$g/agree-base-$k-$r.json"; }
		done
	done

	ratio=""
	if [ "$ndev" -gt 1 ] || [ -n "${TUNER_SPEED_ONE:-}" ]; then
		# the cache warmed for the same picks without timing (no GPU visible: compiled for the
		# GPU's architecture; the budget there counts compiled variants, here timed ones)
		CUDA_VISIBLE_DEVICES='' out/bin/tuner -q --arch "$arch" --budget 1800 --strategy random \
			--out "$g/warmup" configs/stencil2d.yaml </dev/null >"$g/warmup.log" 2>&1 || true
		export CUDA_VISIBLE_DEVICES="$devs"
		set -- --no-race --budget 1500 --strategy random configs/stencil2d.yaml
		tune "$g/one" "$g/devices-1.log" "$@"
		one_wall=$wall one_res=$res
		echo "stencil2d random 1500 --no-race, 1 GPU|$wall|$res|-" >>"$rows"
		if [ "$ndev" -gt 1 ]; then
			tune "$g/all" "$g/devices-all.log" --devices all "$@"
			echo "stencil2d random 1500 --no-race, $ndev GPUs|$wall|$res|-" >>"$rows"
			ratio="$ndev $one_wall $one_res $wall $res"
		fi
	fi

	echo
	echo "== $name ($arch): GPU $first; $ndev of this model ($devs) =="
	python3 "$py" table "$rows"
	# shellcheck disable=SC2086
	[ -z "$ratio" ] || python3 "$py" ratio $ratio
	# shellcheck disable=SC2086
	[ -z "$agree" ] || python3 "$py" agree $agree
	# shellcheck disable=SC2086
	[ -z "$agree_base" ] || { echo "baseline:"; python3 "$py" agree $agree_base; }
done <"$outdir/models"
