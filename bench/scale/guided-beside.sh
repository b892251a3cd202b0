#!/bin/sh
# bench/scale/guided-beside.sh: on a machine with a CUDA GPU, whether the bank model beside the
# stream slows stencil2d's own search (guided, 1644 of its variants). Builds this tree and a
# copy of it (DIR, default /tmp/tuner-nobeside) whose guided runs evaluate the tried variants
# after the stream instead; then, on GPU 0, two warm runs of each, alternating, and one cold
# `--budget 300 --strategy guided` run of each, printing their wall time and phases (-v).
# TUNER_YAML_PREFIX, TUNER_JANSSON_PREFIX as for tests/gpu/run.sh. The copy is made from the
# committed tree (git archive HEAD, or the files here where there is no .git).
set -eu
cd "$(dirname "$0")/../.."
nob=${1:-/tmp/tuner-nobeside}
. tests/gpu/lib.sh
gpu_build
rm -rf "$nob" && mkdir -p "$nob"
if git rev-parse HEAD >/dev/null 2>&1; then git archive HEAD | tar -x -C "$nob"; else
	tar -c --exclude=./out --exclude=./.git . | tar -x -C "$nob"; fi
sed -i 's/^\tif (!run_stop && predict_ahead_task(t->ahead, &tasks\[ntask\]) == 0)$/\tif (!run_stop \&\& t->o.strategy != SEARCH_GUIDED \&\& predict_ahead_task(t->ahead, \&tasks[ntask]) == 0)/' "$nob/tuner/stream.c"
grep -q 'strategy != SEARCH_GUIDED && predict_ahead_task' "$nob/tuner/stream.c" || { echo "the copy was not changed"; exit 1; }
(cd "$nob" && ./configure.py ${TUNER_YAML_PREFIX:+--yaml-prefix "$TUNER_YAML_PREFIX"} \
	${TUNER_JANSSON_PREFIX:+--jansson-prefix "$TUNER_JANSSON_PREFIX"} >/dev/null && ninja out/bin/tuner >/dev/null)
gpu_header name,driver_version
export CUDA_VISIBLE_DEVICES=0 TUNER_CACHE=${TMPDIR:-/tmp}/tuner-beside-cache
log=${TMPDIR:-/tmp}/tuner-beside.log
run() { # LABEL TUNER ARGS...
	label=$1 b=$2
	shift 2
	sleep 1
	t0=$(date +%s.%N)
	$b -v --fresh --out "${TMPDIR:-/tmp}/tuner-beside-out" "$@" >"$log" 2>&1 || echo "$label: the run failed"
	t1=$(date +%s.%N)
	echo "$label $b: $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s; $(grep -E '^tuner: +[0-9.]+ s  +(bank model|stream|compiling|timing|bank model beside)' "$log" | tr -s ' ' | tr '\n' ';')"
}
out/bin/tuner -q --out "${TMPDIR:-/tmp}/tuner-beside-out" configs/stencil2d.yaml >/dev/null 2>&1 || true
for r in 1 2; do
	for b in out/bin/tuner "$nob/out/bin/tuner"; do
		run "own warm" "$b" configs/stencil2d.yaml
	done
done
for b in out/bin/tuner "$nob/out/bin/tuner"; do
	rm -rf "${TUNER_CACHE:?}"
	run "guided 300 cold" "$b" --budget 300 --strategy guided configs/stencil2d.yaml
done
