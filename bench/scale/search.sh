#!/bin/sh
# bench/scale/search.sh [CONFIG] [OUTDIR]: on a machine with a CUDA GPU, the budgeted search against
# the exhaustive ground truth. Tunes CONFIG (default configs/stencil2d.yaml) exhaustively once
# (a cold compile cache: the time to the first timed variant beside the wall time), then with
# --strategy guided and --strategy random at a budget of SEARCH_PCT % (default 10) of the kept
# variants for SEARCH_SEEDS seeds (default 10). Each search's pick is looked up in the
# exhaustive run (its median there over the exhaustive best: the same kernel timed in the same
# run, so run-to-run noise does not decide) and also given as timed in its own run. Prints a
# table per strategy and the medians over the seeds. OUTDIR (default out/search) keeps every
# run's results.json and logs. SEARCH_DEVICES: also an exhaustive run with --devices that.
# SEARCH_TRUTH: an exhaustive run's results.json (.gz) to use instead of running one;
# SEARCH_STRATEGIES (default "guided random"), SEARCH_FIRST_SEED (default 1); SEARCH_DEADLINE:
# seconds after which no further search is started (the table covers those that ran).
# TUNER_YAML_PREFIX, TUNER_JANSSON_PREFIX, TUNER_COMMIT as for the other GPU scripts.
set -u
cd "$(dirname "$0")/../.." || exit 1
cfg=${1:-configs/stencil2d.yaml}
out=${2:-out/search}
pct=${SEARCH_PCT:-10}
seeds=${SEARCH_SEEDS:-10}
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
. tests/gpu/lib.sh
if ! (gpu_build) >"$out/build.log" 2>&1; then
	cat "$out/build.log"
	echo "search: the tuner does not build"
	exit 1
fi
gpu_header name,driver_version,compute_cap
export TUNER_CACHE="$out/cache"
start=$(date +%s)
k=$(sed -n 's/^name: *//p' "$cfg")
kept=$(out/bin/tuner --dry-run "$cfg" | sed -n 's/^[0-9]* variants: \([0-9]*\) kept.*/\1/p')
budget=$((kept * pct / 100))
echo "$cfg: $kept kept variants; budget $budget ($pct %); $seeds seeds"
if [ -n "${SEARCH_TRUTH:-}" ]; then
	truth=$out/truth.json
	case $SEARCH_TRUTH in *.gz) gzip -dc "$SEARCH_TRUTH" >"$truth" ;; *) cp "$SEARCH_TRUTH" "$truth" ;; esac
	echo "exhaustive ground truth from $SEARCH_TRUTH"
else
	rm -rf "$TUNER_CACHE" "$out/exh"
	out/bin/tuner --budget all --strategy exhaustive --out "$out/exh" "$cfg" >"$out/exh.log" 2>&1 || { tail "$out/exh.log"; exit 1; }
	grep -E "^tuner: (timed|[0-9]+ variants in)" "$out/exh.log"
	truth=$(ls "$out"/exh/"$k"/*/results.json)
	gzip -c "$truth" >"$out/truth.json.gz"
fi
if [ -n "${SEARCH_DEVICES:-}" ]; then
	out/bin/tuner --budget all --strategy exhaustive --devices "$SEARCH_DEVICES" --fresh --out "$out/dev" "$cfg" >"$out/dev.log" 2>&1 ||
		tail "$out/dev.log"
	grep -E "^tuner: timed|^best" "$out/dev.log"
fi
first=${SEARCH_FIRST_SEED:-1}
for st in ${SEARCH_STRATEGIES:-guided random}; do
	s=$first
	while [ "$s" -lt $((first + seeds)) ]; do
		if [ -n "${SEARCH_DEADLINE:-}" ] && [ $(($(date +%s) - start)) -ge "$SEARCH_DEADLINE" ]; then
			echo "deadline: $st seed $s and later not run"
			break
		fi
		t0=$(date +%s)
		out/bin/tuner -q --strategy $st --budget "$budget" --seed "$s" --out "$out/$st-$s" "$cfg" \
			>"$out/$st-$s.log" 2>&1 || { echo "$st seed $s failed:"; tail -n 3 "$out/$st-$s.log"; }
		echo "$st seed $s: $(($(date +%s) - t0)) s"
		s=$((s + 1))
	done
done
python3 - "$truth" "$out" "$k" "$seeds" "$budget" "$first" <<'EOF'
import glob, json, statistics, sys
truth, out, k, seeds, budget = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
first = int(sys.argv[6])
t = json.load(open(truth))
ok = {v["id"]: v for v in t["variants"] if v["status"] == "ok"}
best = min(v["median_ms"] for v in ok.values())
bid = min(ok, key=lambda i: ok[i]["median_ms"])
s = t["search"]
print("exhaustive: %d verified; best %s %.4f ms, %.1f %% of copy; first timed after %.2f s, "
      "wall %.2f s" % (len(ok), bid, best, ok[bid]["pct_copy"], s.get("first_timed_s", 0), s["wall_s"]))
for st in ("guided", "random"):
    if not glob.glob("%s/%s-*" % (out, st)):
        continue
    gaps, own, hits = [], [], 0
    print("%s, budget %d:" % (st, budget))
    print("  seed  timed  pick        in exhaustive  own run")
    for seed in range(first, first + seeds):
        f = glob.glob("%s/%s-%d/%s/*/results.json" % (out, st, seed, k))
        if not f:
            print("  %4d  (no results)" % seed)
            continue
        d = json.load(open(f[0]))
        vs = [v for v in d["variants"] if v["status"] == "ok"]
        if not vs:
            print("  %4d  (nothing verified)" % seed)
            continue
        w = min(vs, key=lambda v: v["median_ms"])
        gap = 100 * (ok[w["id"]]["median_ms"] / best - 1) if w["id"] in ok else float("nan")
        gaps.append(gap)
        own.append(w["pct_copy"])
        hits += gap <= 1
        print("  %4d  %5d  %s  %+8.2f %%    %.1f %% of copy" % (seed, d["search"]["timed"], w["id"], gap, w["pct_copy"]))
    if gaps:
        print("  median gap to the exhaustive best: %+.2f %%; within 1 %%: %d of %d seeds" %
              (statistics.median(gaps), hits, len(gaps)))
EOF
