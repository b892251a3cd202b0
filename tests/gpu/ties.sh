#!/bin/sh
# Ties: tune every shipped config twice on this GPU (--fresh) and compare the winners and the
# tie sets; where the top is a tie the two runs should emit the same kernel (the tie rule).
# Usage: tests/gpu/ties.sh [OUTDIR]   (TUNER_YAML_PREFIX: libyaml outside the system, if needed)
set -eu
cd "$(dirname "$0")/../.."
outdir=${1:-out/ties}
mkdir -p "$outdir"
. tests/gpu/lib.sh
gpu_build
gpu_header name,driver_version
export TUNER_CACHE="$outdir/cache"
status=0
for cfg in configs/*.yaml; do
	k=$(basename "$cfg" .yaml)
	for n in 1 2; do
		out/bin/tuner --fresh --out "$outdir/$n" "$cfg" >"$outdir/$k.$n.log" 2>&1 || status=1
	done
	python3 - "$k" "$outdir"/1/"$k"/*/results.json "$outdir"/2/"$k"/*/results.json <<'PY' || status=1
import json, sys
k, a, b = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
def top(d):
    ok = [v for v in d["variants"] if v["status"] == "ok"]
    fastest = min(ok, key=lambda v: v["median_ms"])
    return ok[0], fastest, [v["id"] for v in ok if v.get("tie")]
wa, fa, ta = top(a)
wb, fb, tb = top(b)
same = wa["id"] == wb["id"]
print("%-10s winners %s %s (%s), fastest %s %s, ties %d and %d, %d in both; run 2's winner "
      "%.1f %% of copy, its fastest %.1f %%" % (k, wa["id"], wb["id"], "same" if same else "DIFFER",
      fa["id"], fb["id"], len(ta), len(tb), len(set(ta) & set(tb)), wb["pct_copy"], fb["pct_copy"]))
PY
done
exit $status
