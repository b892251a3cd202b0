#!/bin/sh
# Large spaces without a GPU: a space of 10^6 kept variants listed (--dry-run) and searched on
# a budget (compile-only) in under 1 GB of resident memory; the budget and the strategies'
# picks; --shard K/N and tuner merge against an unsharded run; their bad input (exit 2,
# nothing written).
# usage: tests/search.sh [TUNER]   (default: $TUNER_BINDIR/tuner, else out/bin/tuner)
# Ends with "search: N passed, N failed"; exits non-zero on any failure.
set -u
cd "$(dirname "$0")/.." || exit 2
T=${1:-${TUNER_BINDIR:-out/bin}/tuner}
. tests/lib.sh
tmpdir search
export TUNER_CACHE="${TUNER_CACHE:-$tmp/cache}"

# peak NAME KB CMD...: CMD exits 0 with a peak resident set (itself and its children) under KB
peak() {
	name=$1 lim=$2
	shift 2
	kb=$(python3 -c '
import resource, subprocess, sys
rc = subprocess.run(sys.argv[2:], stdout=open(sys.argv[1] + ".out", "w"), stderr=subprocess.STDOUT).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if rc == 0 else -rc - 1)
' "$tmp/peak" "$@")
	if [ "$kb" -ge 0 ] 2>/dev/null && [ "$kb" -lt "$lim" ]; then
		ok "$name ($((kb / 1024)) MB)"
	else
		bad "$name" "peak $kb KB (limit $lim; negative: exit status $((-kb - 1))): $(tail -n 5 "$tmp/peak.out")"
	fi
}
# json FILE EXPR: evaluate the python expression EXPR over the results d of FILE; exit 0 if true
json() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
v = [x for x in d["variants"]]
sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}

# a space of 10^6 kept variants: the transpose with three ranges of 100 values
sed -e 's/^name: transpose/name: big/' -e "s#\.\./templates#$PWD/templates#" configs/transpose.yaml |
	python3 -c '
import re, sys
t = sys.stdin.read()
s, e = t.index("params:"), t.index("constraints:")
t = t[:s] + """params:
  TILE: [32]
  TH: [32]
  VEC: [1]
  ROWS: [8]
  PAD: {from: 0, to: 99}
  SWIZZLE: [0]
  GROUP: {from: 1, to: 100}
  BANK_BYTES: [4]
  X: {from: 0, to: 99}

""" + t[e:]
print(t, end="")' >"$tmp/big.yaml"
# a sanitized build's shadow memory and redzones are not the tuner's: 4 GB there
lim=1048576
[ -n "${ASAN_OPTIONS:-}" ] && lim=4194304
peak big_dry_run_under_1gb $lim $T --dry-run "$tmp/big.yaml"
has big_dry_run_count "1000000 variants: 1000000 kept" "$tmp/peak.out"
peak big_budget_under_1gb $lim $T -j 2 --arch sm_90 --budget 24 --strategy random --out "$tmp/big" "$tmp/big.yaml"
r=$tmp/big/big/untimed-sm_90/results.json
json "$r" 'len(v) == 24 and all(x["status"] == "untimed" for x in v) and d["search"]["skipped"] == 999976' &&
	ok big_budget_results || bad big_budget_results "$(head -c 1500 "$r")"
has big_budget_said "random search: 24 of 1000000 candidate variants tried" "$tmp/peak.out"

# the budget and the picks: exhaustive takes the first in config order; random and guided are
# reproducible by their seed and differ between seeds
cfg=configs/reduction.yaml
expect budget_exhaustive 0 $T -j 2 --arch sm_90 --budget 7 --out "$tmp/b1" $cfg
$T --dry-run $cfg | awk '$NF == "kept" { print $1 }' | head -n 7 | sort >"$tmp/first7"
python3 -c 'import json, sys; print("\n".join(sorted(x["id"] for x in json.load(open(sys.argv[1]))["variants"] if x["status"] != "dropped")))' \
	"$tmp/b1/reduction/untimed-sm_90/results.json" >"$tmp/got7"
cmp -s "$tmp/first7" "$tmp/got7" && ok budget_exhaustive_first || bad budget_exhaustive_first "$(diff "$tmp/first7" "$tmp/got7")"
picks() { # the variants a run tried, sorted
	python3 -c 'import json, sys; print(" ".join(sorted(x["id"] for x in json.load(open(sys.argv[1]))["variants"] if x["status"] not in ("dropped",))))' "$1"
}
for st in random guided; do
	$T -q -j 2 --arch sm_90 --budget 9 --strategy $st --seed 5 --out "$tmp/s5a" $cfg >/dev/null 2>&1
	$T -q -j 2 --arch sm_90 --budget 9 --strategy $st --seed 5 --out "$tmp/s5b" $cfg >/dev/null 2>&1
	$T -q -j 2 --arch sm_90 --budget 9 --strategy $st --seed 6 --out "$tmp/s6" $cfg >/dev/null 2>&1
	a=$(picks "$tmp/s5a/reduction/untimed-sm_90/results.json")
	b=$(picks "$tmp/s5b/reduction/untimed-sm_90/results.json")
	c=$(picks "$tmp/s6/reduction/untimed-sm_90/results.json")
	[ -n "$a" ] && [ "$a" = "$b" ] && ok "${st}_seed_reproducible" || bad "${st}_seed_reproducible" "$a / $b"
	[ "$a" != "$c" ] && ok "${st}_seed_matters" || bad "${st}_seed_matters" "$a"
	[ "$(echo "$a" | wc -w)" -eq 9 ] && ok "${st}_budget_kept" || bad "${st}_budget_kept" "$a"
	rm -rf "$tmp/s5a" "$tmp/s5b" "$tmp/s6"
done

# the bank model beside the stream (a run on a budget predicts what it tried): the same
# predictions as when evaluated after the stream in one process (-j 1); an access that fails
# is reported the same way (the first failing variant in config order)
bank() { # the tried variants' ids and bank predictions
	python3 -c 'import json, sys; print(json.dumps([(x["id"], x.get("bank")) for x in json.load(open(sys.argv[1]))["variants"] if x["status"] != "dropped"]))' "$1"
}
expect bank_beside 0 $T -v -j 2 --arch sm_90 --budget 16 --strategy random --seed 4 --out "$tmp/bb2" configs/transpose.yaml
has bank_beside_said "^tuner: bank model: 16 of 16 classes evaluated beside the stream (0 of them before it, for the guided start)$" "$tmp/stderr"
expect bank_after 0 $T -q -j 1 --arch sm_90 --budget 16 --strategy random --seed 4 --out "$tmp/bb1" configs/transpose.yaml
a=$(bank "$tmp/bb2/transpose/untimed-sm_90/results.json")
b=$(bank "$tmp/bb1/transpose/untimed-sm_90/results.json")
json "$tmp/bb2/transpose/untimed-sm_90/results.json" 'any(p["name"] == "bank model beside the stream" and p["kind"] == "span" for p in d["search"]["phases"])' &&
	ok bank_beside_span || bad bank_beside_span
[ "$a" = "$b" ] && echo "$a" | grep -q '"wavefronts"' && ok bank_beside_same ||
	bad bank_beside_same "$(printf '%s\n%s' "$a" "$b" | head -c 2000)"
sed -e "s#\.\./templates#$PWD/templates#" configs/transpose.yaml >"$tmp/bankfail.yaml"
printf '  - name: fails\n    array: tile\n    elem: 4\n    index: tx / (PAD - 1)\n' >>"$tmp/bankfail.yaml"
expect bank_beside_fails 2 $T -q -j 2 --arch sm_90 --budget 16 --strategy random --seed 4 --out "$tmp/bf2" "$tmp/bankfail.yaml"
cp "$tmp/stderr" "$tmp/bf2.err"
expect bank_after_fails 2 $T -q -j 1 --arch sm_90 --budget 16 --strategy random --seed 4 --out "$tmp/bf1" "$tmp/bankfail.yaml"
grep -q "access 'fails', index, for .* PAD=0 .*outside shared memory" "$tmp/bf2.err" && cmp -s "$tmp/bf2.err" "$tmp/stderr" &&
	ok bank_beside_fails_same || bad bank_beside_fails_same "$(cat "$tmp/bf2.err" "$tmp/stderr")"

# an access whose loop does not end, beside the stream: the same report as evaluated after it
sed -e "s#\.\./templates#$PWD/templates#" configs/transpose.yaml >"$tmp/loopfail.yaml"
printf '  - name: forever\n    array: tile\n    elem: 4\n    loops: [{d: {from: 1, while: d > 0, next: d + 0}}]\n    index: tx\n' >>"$tmp/loopfail.yaml"
expect bank_beside_loop 2 $T -q -j 2 --arch sm_90 --budget 16 --strategy random --seed 4 --out "$tmp/lf2" "$tmp/loopfail.yaml"
cp "$tmp/stderr" "$tmp/lf2.err"
expect bank_after_loop 2 $T -q -j 1 --arch sm_90 --budget 16 --strategy random --seed 4 --out "$tmp/lf1" "$tmp/loopfail.yaml"
grep -q "access 'forever', loops\[0\].while, for .*: more than 16384 iterations: does the loop end?" "$tmp/lf2.err" &&
	cmp -s "$tmp/lf2.err" "$tmp/stderr" && ok bank_beside_loop_same || bad bank_beside_loop_same "$(cat "$tmp/lf2.err" "$tmp/stderr")"

# two points of a guided run on a budget: each point's tried variants have their prediction
expect guided_points 0 $T -q -j 2 --arch sm_90 --budget 12 --strategy guided --seed 2 --size cols=4096,8192 --out "$tmp/gp" configs/transpose.yaml
for pt in "rows=8192_cols=4096" "rows=8192_cols=8192"; do
	json "$tmp/gp/transpose/untimed-sm_90/$pt/results.json" 'len([x for x in v if x["status"] != "dropped"]) == 12 and all(x["bank"]["predicted"] for x in v if x["status"] != "dropped")' &&
		ok "guided_points_predicted_$pt" || bad "guided_points_predicted_$pt"
done

# the guided search predicts a sample for its start (8 times its prior half: 32 here), not the
# whole space, then what it tried; an access that fails in the sample ends the run before
# anything is compiled
expect guided_sample 0 $T -v -j 2 --arch sm_90 --budget 24 --strategy guided --seed 4 --out "$tmp/gs" configs/transpose.yaml
has guided_sample_phase "^tuner: *[0-9.]* s  bank model: the guided start's sample" "$tmp/stderr"
has guided_sample_said "^tuner: bank model: 2[0-9] of 2[0-9] classes evaluated beside the stream ([1-9][0-9]* of them before it, for the guided start)$" "$tmp/stderr"
json "$tmp/gs/transpose/untimed-sm_90/results.json" 'len([x for x in v if x["status"] != "dropped"]) == 24 and all(x["bank"]["predicted"] for x in v if x["status"] != "dropped")' &&
	ok guided_sample_predicted || bad guided_sample_predicted
expect guided_sample_fails 2 $T -q -j 2 --arch sm_90 --budget 24 --strategy guided --seed 4 --out "$tmp/gf" "$tmp/bankfail.yaml"
has guided_sample_fails_said "access 'fails', index, for .* PAD=0 .*outside shared memory" "$tmp/stderr"
[ ! -e "$tmp/gf" ] && ok guided_sample_fails_early || bad guided_sample_fails_early "$(ls -R "$tmp/gf")"

# shards: three shards merged are the unsharded run (same variants, order, statuses,
# resources, reasons); a fourth run of another config cannot join them
expect shard_whole 0 $T -j 2 --arch sm_90 --out "$tmp/whole" $cfg
for k in 1 2 3; do
	expect "shard_$k" 0 $T -j 2 --arch sm_90 --shard $k/3 --out "$tmp/sh" $cfg
done
g=$tmp/sh/reduction/untimed-sm_90
[ ! -e "$g/results.json" ] && ok shard_writes_only_its_dir || bad shard_writes_only_its_dir "$(ls "$g")"
json "$g/shard-2-of-3/results.json" 'd["shard"] == [2, 3] and 0 < len([x for x in v if x["status"] != "dropped"]) < 400' &&
	ok shard_a_third || bad shard_a_third "$(head -c 800 "$g/shard-2-of-3/results.json")"
expect merge 0 $T merge "$g"
python3 tests/merge_equal.py "$tmp/whole/reduction/untimed-sm_90/results.json" "$g/results.json" >"$tmp/eq" 2>&1 &&
	ok merge_equals_unsharded || bad merge_equals_unsharded "$(cat "$tmp/eq")"
for f in results.csv config.yaml template.cu; do
	[ -s "$g/$f" ] && ok "merge_writes_$f" || bad "merge_writes_$f"
done

# bad input: exit 2 with the reason, nothing written
mkdir -p "$tmp/none"
bad_case() { # NAME PATTERN TUNER-ARGS...
	n=$1 p=$2
	shift 2
	expect "$n" 2 $T "$@"
	has "${n}_said" "$p" "$tmp/stderr"
}
bad_case shard_3_of_2 "not K/N with 1 <= K <= N" --shard 3/2 --out "$tmp/none" $cfg
bad_case shard_0_of_0 "not K/N with 1 <= K <= N" --shard 0/0 --out "$tmp/none" $cfg
bad_case shard_garbage "not K/N" --shard 1/x --out "$tmp/none" $cfg
bad_case budget_0 "not a number of variants from 1" --budget 0 --out "$tmp/none" $cfg
bad_case budget_negative "not a number of variants from 1" --budget -3 --out "$tmp/none" $cfg
bad_case strategy_unknown "none of exhaustive, random, guided" --strategy best --out "$tmp/none" $cfg
bad_case seed_bad "not a non-negative number" --seed x --out "$tmp/none" $cfg
[ -z "$(ls -A "$tmp/none")" ] && ok bad_options_write_nothing || bad bad_options_write_nothing "$(ls -R "$tmp/none")"

# merging: a missing shard, shards of another config or template, an empty directory
cp -r "$g" "$tmp/m1"
rm -rf "$tmp/m1/shard-2-of-3" "$tmp/m1/results.json" "$tmp/m1/results.csv"
bad_case merge_missing_shard "shard 2 of 3 is missing" merge "$tmp/m1"
[ ! -e "$tmp/m1/results.json" ] && ok merge_missing_writes_nothing || bad merge_missing_writes_nothing
cp -r "$g" "$tmp/m2"
rm -f "$tmp/m2/results.json" "$tmp/m2/results.csv"
echo "# changed" >>"$tmp/m2/shard-3-of-3/config.yaml"
bad_case merge_other_config "shards of different configs" merge "$tmp/m2"
[ ! -e "$tmp/m2/results.json" ] && ok merge_other_config_writes_nothing || bad merge_other_config_writes_nothing
cp -r "$g" "$tmp/m3"
rm -f "$tmp/m3/results.json"
echo "// changed" >>"$tmp/m3/shard-1-of-3/template.cu"
bad_case merge_other_template "shards of different templates" merge "$tmp/m3"
$T -q -j 2 --arch sm_90 --shard 1/2 --out "$tmp/m4" $cfg >/dev/null 2>&1
cp -r "$g/shard-1-of-3" "$tmp/m4/reduction/untimed-sm_90/"
bad_case merge_two_splits "shards of different splits" merge "$tmp/m4/reduction/untimed-sm_90"
mkdir -p "$tmp/m5"
bad_case merge_no_shards "no shard-K-of-N directories" merge "$tmp/m5"
bad_case merge_no_dir "cannot open the GPU directory" merge "$tmp/nonexistent"
bad_case devices_without_gpu "--devices" --devices 7 --out "$tmp/none" $cfg

schema_all results_schema_search
finish search
