#!/bin/sh
# Ties: tune each shipped config TIES_RUNS times (default 3) on this GPU (--fresh) and compare
# the winners and the tie sets; where the top is a tie every run should emit the same kernel
# (the play-off and the tie rule). configs/stencil2d.yaml is tuned on a fixed random sample
# of 300 variants (--budget 300 --strategy random --seed 1), the others whole.
# Per config it prints the winners, the play-off's size, the ties, and how far apart the runs
# put the same candidates (the largest difference, between two runs, of a candidate's
# play-off median relative to that run's fastest: what timing.tie must cover). Then it tunes
# once more into the first run's directory, where the first run's winner stays while it is
# within twice the tie band.
# With TIES_OTHER=DIR (DIR/<kernel>/<gpu>/results.json: another GPU's results, as a run there
# wrote them) every run has them beside its own, so that the tie rule's first key, how the ties
# ran on the other GPUs tuned beside this one, applies.
# Usage: tests/gpu/ties.sh [OUTDIR]   (TUNER_YAML_PREFIX: libyaml outside the system, if needed;
# the runs an earlier set left in OUTDIR are removed first)
# Exit status: 1 if a run failed or the runs' winners differ.
set -eu
cd "$(dirname "$0")/../.."
outdir=${1:-out/ties}
runs=${TIES_RUNS:-3}
# an earlier set's results in a run's directory would name an earlier winner, which stays while
# it ties: each set starts from empty directories, so that its runs are independent
rm -rf "$outdir"/[0-9]* "$outdir"/*.first.json "$outdir"/*.log
mkdir -p "$outdir"
. tests/gpu/lib.sh
gpu_build
gpu_header name,driver_version
export TUNER_CACHE="$outdir/cache"
# results_of LOG: the results.json a run wrote, as its log names it
results_of() { sed -n 's/^tuner: results in //p' "$1"; }
status=0
for k in filter21 transpose reduction stencil2d; do
	extra=""
	[ "$k" = stencil2d ] && extra="--budget 300 --strategy random --seed 1"
	files=""
	n=1
	while [ "$n" -le "$runs" ]; do
		if [ -n "${TIES_OTHER:-}" ] && [ -d "$TIES_OTHER/$k" ]; then
			mkdir -p "$outdir/$n/$k"
			cp -R "$TIES_OTHER/$k"/. "$outdir/$n/$k/"
		fi
		# shellcheck disable=SC2086
		out/bin/tuner --fresh $extra --out "$outdir/$n" "configs/$k.yaml" >"$outdir/$k.$n.log" 2>&1 ||
			{ echo "$k: run $n failed: $(tail -n 2 "$outdir/$k.$n.log")"; status=1; }
		[ "$n" -gt 1 ] && files="$files $(results_of "$outdir/$k.$n.log")"
		n=$((n + 1))
	done
	# once more into the first run's directory: its winner stays while it ties
	cp "$(results_of "$outdir/$k.1.log")" "$outdir/$k.first.json"
	# shellcheck disable=SC2086
	out/bin/tuner --fresh $extra --out "$outdir/1" "configs/$k.yaml" >"$outdir/$k.again.log" 2>&1 ||
		{ echo "$k: the re-run failed: $(tail -n 2 "$outdir/$k.again.log")"; status=1; }
	files="$outdir/$k.first.json $files $outdir/$k.first.json $(results_of "$outdir/$k.again.log")"
	# shellcheck disable=SC2086
	python3 - "$k" $files <<'PY' || status=1
import json, sys
k, runs = sys.argv[1], [json.load(open(f)) for f in sys.argv[2:]]
first, again = runs[-2:]
runs = runs[:-2]
kept = first["variants"][0]["id"] == again["variants"][0]["id"]
wins, rel = [], {}
for d in runs:
    ok = [v for v in d["variants"] if v["status"] == "ok"]
    po = [v for v in ok if "playoff" in v]
    wins.append(ok[0]["id"])
    if po:
        f = min(v["playoff"]["median_ms"] for v in po)
        for v in po:
            rel.setdefault(v["id"], []).append(v["playoff"]["median_ms"] / f - 1)
both = {i: r for i, r in rel.items() if len(r) == len(runs)}
gap = max((max(r) - min(r) for r in both.values()), default=0)
same = len(set(wins)) == 1
print("%-10s winners %s (%s); play-off %s; ties %s; winner %s %% of copy; candidates in every "
      "run %d, largest gap between runs %.2f %%; re-run in run 1's directory: %s (%s%s)" % (k,
      " ".join(wins), "same" if same else "DIFFER",
      "/".join(str(d.get("playoff", {}).get("variants", 0)) for d in runs),
      "/".join(str(d.get("ties", 0)) for d in runs),
      "/".join("%.1f" % d["variants"][0]["pct_copy"] for d in runs), len(both), 100 * gap,
      again["variants"][0]["id"], "same" if kept else "DIFFER",
      ", kept as a tie" if again.get("winner_kept") else ""))
sys.exit(0 if same and kept else 1)
PY
done
exit $status
