#!/bin/sh
# Behaviour unchanged: tune every shipped config with the tuner built from another tree (e.g.
# a `git archive` of the commit before a restructuring) and with this one, on this GPU, and
# compare their results.json (tests/compare_results.py: variants, ids, statuses, resources,
# winners); a space of more than 2000 variants on the same random 300 (gpu_budget).
# Usage: tests/gpu/same.sh OLDTREE [OUTDIR]
# (TUNER_YAML_PREFIX: libyaml outside the system, if needed; SAME_CONFIGS: the configs to
# compare, default every configs/*.yaml)
set -eu
cd "$(dirname "$0")/../.."
old=$(cd "$1" && pwd)
outdir=${2:-out/same}
mkdir -p "$outdir"
. tests/gpu/lib.sh
gpu_build
(cd "$old" && gpu_build)
gpu_header name,driver_version
status=0
for cfg in ${SAME_CONFIGS:-configs/*.yaml}; do
	k=$(basename "$cfg" .yaml)
	for w in old new; do
		b=out/bin/tuner
		[ $w = old ] && b=$old/out/bin/tuner
		rm -rf "$outdir/$w"
		TUNER_CACHE="$outdir/cache-$w" $b --fresh --no-race $(gpu_budget "$cfg") \
			--out "$outdir/$w" "$cfg" \
			>"$outdir/$w-$k.log" 2>&1 || { status=1; tail -n 5 "$outdir/$w-$k.log"; }
		cp "$outdir/$w/$k"/*/results.json "$outdir/$w-$k.json"
	done
	python3 tests/compare_results.py "$outdir/old-$k.json" "$outdir/new-$k.json" || status=1
done
exit $status
