#!/bin/sh
# Play-off rounds in fresh GPU processes, before (commit BEFORE, built beside in out/before)
# and after (this tree): the tuner's picks at 2^16 run after run on bench/explore/reduction-small.yaml
# against the dispatch harness (allvariants.sh), and the cost of a whole run of
# configs/filter21.yaml and configs/reduction.yaml at 2^16 and 2^26 (runcost.sh).
# Usage: bench/explore/fresh-rounds.sh BEFORE   (TUNER_YAML_PREFIX as for tests/gpu/run.sh)
set -eu
cd "$(dirname "$0")/../.."
before=$1
rm -rf out/before
git worktree prune
git worktree add -f --detach out/before "$before" >/dev/null 2>&1
(cd out/before && . tests/gpu/lib.sh && gpu_build)
REPEAT=4 PROCS=2 OUT=out/fresh sh bench/explore/allvariants.sh bench/explore/reduction-small.yaml reduction 65536
for c in configs/filter21.yaml configs/reduction.yaml; do
	echo "before ($before):"
	TUNER=out/before/out/bin/tuner OUT=out/rc-before sh bench/explore/runcost.sh "$c" 65536 67108864 | grep " n="
	echo "after:"
	OUT=out/rc-after sh bench/explore/runcost.sh "$c" 65536 67108864 | grep " n="
done
git worktree remove -f out/before
