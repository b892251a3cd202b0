#!/bin/sh
# The GPU side of a run without a GPU: the tuner with a fake libcuda.so.1 (tests/fakecuda/cuda.c,
# which runs the helpers and the kernels of tests/fakecuda/*.yaml on the host and logs every
# launch and event) tunes a kernel with extra verification sizes and one with a buffer refilled
# before every launch. It checks what the tuner does with the driver and what it writes: the
# reference and each variant run at every extra size with the launch of that size, an odd-size
# bug is a mismatch naming the size, the refill comes before the L2 flush and the timed
# interval of every launch, a missing refill is a mismatch after the timed launches, and the
# journal, results.json and best.cu, and the play-off: its rounds, its results resumed from the
# journal, an earlier winner kept while it ties (within twice the band: FAKECUDA_SLOW), the tie
# that ran best on another GPU tuned beside this one; float and double arguments; a parameter
# whose values depend on an earlier one; float2 buffers. And --devices over fake GPUs of two models
# (FAKECUDA_DEVICES): a run per model, side by side, each into its own directory. What a real GPU does with the kernels:
# tests/gpu/verify.sh.
# usage: tests/fakegpu.sh [TUNER [FAKEDIR]]   (defaults: $TUNER_BINDIR/tuner, else
# out/bin/tuner; the directory of the fake libcuda.so.1, beside the tuner's bin: fakecuda)
# Ends with "fakegpu: N passed, N failed"; exits non-zero on any failure.
set -u
cd "$(dirname "$0")/.." || exit 2
T=${1:-${TUNER_BINDIR:-out/bin}/tuner}
fake=${2:-$(dirname "$(dirname "$T")")/fakecuda}
. tests/lib.sh
tmpdir fakegpu
export TUNER_CACHE="${TUNER_CACHE:-$tmp/cache}"

# tune NAME STATUS LOG TUNER-ARGS...: the tuner on the fake GPU, its launches logged to LOG;
# its exit status must be STATUS
tune() {
	name=$1 want=$2 log=$3
	shift 3
	rm -f "$log"
	expect "$name" "$want" env LD_LIBRARY_PATH="$fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		FAKECUDA_LOG="$log" "$T" "$@"
}
# check NAME FILE PYTHON: PYTHON (reading the JSON of FILE as d) raises nothing
check() {
	if python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
$3" "$2" 2>"$tmp/py"; then ok "$1"; else bad "$1" "$(cat "$tmp/py")"; fi
}

if [ ! -f "$fake/libcuda.so.1" ]; then
	bad fake_driver "no $fake/libcuda.so.1 (ninja builds it)"
	finish fakegpu
fi

# extra verification sizes: TAIL 0 is right at n = 4096 and wrong at 1001 and 1
o=$tmp/o
tune pairs_run 0 "$tmp/pairs.log" --out "$o" tests/fakecuda/pairs.yaml
cp "$tmp/stderr" "$tmp/pairs_run.err"
has pairs_said_timed "rooflines on Fake GPU" "$tmp/stdout"
# the first line says where it times; the last names report.html and best.cu
if head -n 1 "$tmp/pairs_run.err" | grep -q "^tuner: timing on Fake GPU (sm_90): every variant tried is compiled, verified"; then
	ok pairs_plan_first_line; else bad pairs_plan_first_line "$(head -n 3 "$tmp/pairs_run.err")"; fi
if unwrap "$tmp/pairs_run.err" | tail -n 1 | grep -q "^tuner: the run at a glance: $o/fake_pairs/fake-gpu-sm90/report.html; the winner: best.cu beside it$"; then
	ok pairs_last_line; else bad pairs_last_line "$(tail -n 3 "$tmp/pairs_run.err")"; fi
j=$o/fake_pairs/fake-gpu-sm90/results.json
check pairs_results "$j" '
assert d["timed"] is True, "timed"
assert d["verify_sizes"] == [{"n": 1001}, {"n": 1}], d["verify_sizes"]
st = {(v["params"]["BLOCK"], v["params"]["TAIL"]): (v["status"], v.get("reason", "")) for v in d["variants"]}
for b in (32, 64):
    assert st[b, 1][0] == "ok", st
    assert st[b, 0][0] == "mismatch", st
    assert st[b, 0][1].startswith("at n=1001: 1 of 1001 elements differ; first at out[1000]: "), st
'
has pairs_provenance "verified against the reference at n=4096, n=1001, n=1: max abs error 0" \
	"$o/fake_pairs/fake-gpu-sm90/best.cu"
# the reference at each size with its launch there; the variants at each extra size with theirs
for l in "fake_pairs_ref 64x64" "fake_pairs_ref 16x64" "fake_pairs_ref 1x64" "fake_pairs 64x32" \
	"fake_pairs 16x32" "fake_pairs 1x32" "fake_pairs 32x64" "fake_pairs 8x64" "fake_pairs 1x64"; do
	has "pairs_launch_$(echo "$l" | tr ' ' _)" "^launch $l\$" "$tmp/pairs.log"
done
# a TAIL 0 variant stops at its first failing size: each of the two runs once at n = 1001 and
# never at n = 1; a TAIL 1 variant runs at both as often as it is run at all
n1001=$(grep -c -e '^launch fake_pairs 16x32$' -e '^launch fake_pairs 8x64$' "$tmp/pairs.log")
n1=$(grep -c '^launch fake_pairs 1x' "$tmp/pairs.log")
if [ "$((n1001 - n1))" -eq 2 ] && [ "$n1" -ge 2 ]; then ok pairs_stops_at_mismatch; else
	bad pairs_stops_at_mismatch "$(grep '^launch fake_pairs ' "$tmp/pairs.log" | sort | uniq -c)"; fi
# where the time went (-v, search.phases): the serial phases follow one another from the
# start and add up to run_s, nearly all of the process's wall time; the compiling, the
# timing, the worker's setup steps and the play-off are spans within them, the worker's
# verification and timing totals over the variants; no time is negative
t0=$(now)
tune phases_run 0 "$tmp/ph.log" -v --out "$tmp/ph" tests/fakecuda/pairs.yaml
t1=$(now)
has phases_said "^tuner: *[0-9.]* s  stream ([0-9.]* s in all)" "$tmp/stderr"
has phases_said_span "^tuner: *[0-9.]* s    rooflines, from [0-9.]* s, beside the others" "$tmp/stderr"
check phases "$tmp/ph/fake_pairs/fake-gpu-sm90/results.json" '
wall = '"$t1"' - '"$t0"'
s = d["search"]
ph = s["phases"]
assert all(p["s"] >= 0 and p.get("start_s", 0) >= 0 for p in ph), ph
serial = [p for p in ph if p["kind"] == "serial"]
names = [p["name"] for p in serial]
assert names == ["load", "driver", "expand", "bank model", "stream", "summary", "ranking",
                 "table", "config.yaml and template.cu", "results.csv", "report.html",
                 "best.cu and best.h"], names
spans = [p["name"] for p in ph if p["kind"] == "span"]
assert "reference compile" in spans and "compiling" in spans, spans
at = 0
for p in serial:
    assert abs(p["start_s"] - at) < 0.0005, (p, at)
    at = p["start_s"] + p["s"]
assert abs(at - s["run_s"]) < 0.002, (at, s["run_s"])
assert s["run_s"] <= wall and wall - s["run_s"] < max(0.5, 0.25 * wall), (s["run_s"], wall)
spans = {p["name"]: p for p in ph if p["kind"] == "span"}
for n in ("compiling", "timing", "GPU buffers", "GPU helpers and reference", "rooflines", "play-off"):
    assert n in spans and spans[n]["start_s"] + spans[n]["s"] <= s["run_s"] + 0.001, (n, spans.get(n))
st = [p for p in serial if p["name"] == "stream"][0]
for n in ("compiling", "timing", "play-off"):
    assert st["start_s"] - 0.001 <= spans[n]["start_s"] and spans[n]["start_s"] + spans[n]["s"] <= st["start_s"] + st["s"] + 0.001, (n, spans[n], st)
assert spans["rooflines"]["start_s"] >= spans["GPU helpers and reference"]["start_s"], spans
totals = [p["name"] for p in ph if p["kind"] == "total"]
assert totals == ["verify", "extra-size verification", "timing samples"], totals
'
# a re-run takes every result from the journal; other extra sizes re-run every variant
cp "$j" "$tmp/pairs_first.json"
tune pairs_rerun 0 "$tmp/pairs2.log" --out "$o" tests/fakecuda/pairs.yaml
has pairs_resumed "4 results kept from an earlier run" "$tmp/stderr"
# with nothing timed again, both rooflines as the first run had them (the read-only one was 0)
check pairs_resumed_rooflines "$j" '
import json
f = json.load(open("'"$tmp"'/pairs_first.json"))
assert f["read_gbs"] > 0 and abs(d["read_gbs"] - f["read_gbs"]) <= 1e-6 * f["read_gbs"], (f["read_gbs"], d["read_gbs"])
assert abs(d["copy_gbs"] - f["copy_gbs"]) <= 1e-6 * f["copy_gbs"], (f["copy_gbs"], d["copy_gbs"])
# the play-off: the two verified variants timed again, 5 rounds each (the fake's timings are
# all alike: a tie); the re-run took its results from the journal too and launched nothing
check pairs_playoff "$j" '
p = d["playoff"]
assert p["variants"] == 2 and p["rounds"] == 5 and 0 < p["within"] < 1, p
ok = [v for v in d["variants"] if v["status"] == "ok"]
assert len(ok) == 2 and all(v["playoff"]["rounds"] == 5 and v.get("tie") for v in ok), ok
assert d["ties"] == 2, d
'
has pairs_playoff_said "play-off: timing the 2 fastest again, 5 rounds" "$tmp/pairs_run.err"
# each round of the play-off in a GPU process of its own: a context for the first timings,
# then one a round, each before that round's launches
if [ "$(grep -c '^context$' "$tmp/pairs.log")" -eq 6 ] &&
	awk '/^context$/ { c++ } /^launch fake_pairs 64x32$/ { if (c > 1) n[c]++ } END { for (k = 2; k <= 6; k++) if (n[k] < 1) exit 1 }' "$tmp/pairs.log"; then
	ok pairs_playoff_fresh_processes; else bad pairs_playoff_fresh_processes "$(grep -c '^context$' "$tmp/pairs.log") contexts"; fi
# the ties in one line, the rule in full with -v
tune pairs_ties_verbose 0 "$tmp/pairs6.log" -v --out "$o" tests/fakecuda/pairs.yaml
has pairs_ties_verbose_rule "^ties (=): 2 variants cannot be told apart from the fastest (their medians" "$tmp/stdout"
tune pairs_ties_line 0 "$tmp/pairs6.log" --out "$o" tests/fakecuda/pairs.yaml
if [ "$(grep -c '^ties (=)' "$tmp/stdout")" -eq 1 ] && unwrap "$tmp/stdout" | grep -q "^ties (=): 2 within 0.5 % of the fastest (results of 0 other GPUs read); .*; the tie rule: -v or report.html$"; then
	ok pairs_ties_one_line; else bad pairs_ties_one_line "$(cat "$tmp/stdout")"; fi
# a row wider than 120 columns is cut to fit: here the mismatch's reason
if awk '/^ *(rank|[0-9]+=?|-)  / && length($0) > 120 { exit 1 }' "$tmp/stdout" &&
	grep -q "  mismatch: at n=1001: .*~$" "$tmp/stdout"; then
	ok pairs_table_120_columns; else bad pairs_table_120_columns "$(cat "$tmp/stdout")"; fi
if [ -f "$tmp/pairs2.log" ] && grep -q "^launch fake_pairs " "$tmp/pairs2.log"; then
	bad pairs_playoff_resumed "$(grep -c '^launch fake_pairs ' "$tmp/pairs2.log") launches"
else
	ok pairs_playoff_resumed
fi
# an earlier winner that ties stays the winner, though the rule would choose the other
python3 - "$j" "$tmp/first.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ok = [i for i, v in enumerate(d["variants"]) if v["status"] == "ok"]
d["variants"][ok[0]], d["variants"][ok[1]] = d["variants"][ok[1]], d["variants"][ok[0]]
json.dump(d, open(sys.argv[1], "w"))
json.dump(d, open(sys.argv[2], "w"))
PY
tune pairs_sticky 0 "$tmp/pairs5.log" --fresh --out "$o" tests/fakecuda/pairs.yaml
check pairs_sticky_winner "$j" '
first = json.load(open(sys.argv[1].replace("'"$j"'", "'"$tmp/first.json"'")))
assert d["variants"][0]["id"] == first["variants"][0]["id"], (d["variants"][0]["id"], first["variants"][0]["id"])
assert d.get("winner_kept") is True, d.get("winner_kept")
assert "tie_chosen_by" not in d, d["tie_chosen_by"]
'
# TUNER_BENCH_PROFILE: a line per variant timed, with its parts and the gap before it
TUNER_BENCH_PROFILE=1 tune bench_profile 0 "$tmp/prof.log" --fresh --out "$tmp/prof" tests/fakecuda/pairs.yaml
n=$(grep -cE "^bench: v[0-9a-f]+ setup [0-9.]+ verify [0-9.]+ timing [0-9.]+ \(samples [0-9.]+, then [0-9.]+\) unload [0-9.]+ ms, [0-9.]+ ms after the variant before" "$tmp/stderr")
[ "$n" -ge 4 ] && ok bench_profile_lines || bad bench_profile_lines "$n lines: $(grep '^bench: v' "$tmp/stderr" | head -n 3)"
# hysteresis: BLOCK 32 made slower than BLOCK 64 (FAKECUDA_SLOW). At 0.8 % (beyond timing.tie's
# 0.5 %) it is no tie of a run of its own (it leaves the play-off after 3 rounds: its fastest
# round slower than BLOCK 64's slowest by more than timing.tie), but as the run before's winner it stays (within
# twice the band, all 5 rounds); at 1.5 % (beyond the play-off's 1 %) it still takes part as
# the earlier winner (within twice that) and loses
oh=$tmp/oh
jh=$oh/fake_pairs/fake-gpu-sm90/results.json
b32() { python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print([v["id"] for v in d["variants"] if v["params"] == {"BLOCK": 32, "TAIL": 1}][0])' "$1"; }
FAKECUDA_SLOW=32:1.008 tune hyst_first 0 "$tmp/hyst.log" --out "$oh" tests/fakecuda/pairs.yaml
check hyst_first_winner "$jh" '
w = d["variants"][0]
assert w["params"]["BLOCK"] == 64 and not w.get("tie") and d["ties"] == 0, (w, d["ties"])
assert d["playoff"]["variants"] == 2 and d["playoff"]["earlier_winner"] is False, d["playoff"]
assert d["playoff"]["left_early"] == 1 and w["playoff"]["rounds"] == 5, (d["playoff"], w)
b32 = [v for v in d["variants"] if v["params"] == {"BLOCK": 32, "TAIL": 1}][0]
assert "playoff" not in b32 and not b32.get("tie"), b32
'
n32=$(grep -c "^launch fake_pairs .*x32" "$tmp/hyst.log") n64=$(grep -c "^launch fake_pairs .*x64" "$tmp/hyst.log")
[ "$n32" -lt "$n64" ] && ok hyst_first_left_launches || bad hyst_first_left_launches "BLOCK 32 $n32, BLOCK 64 $n64 launches"
# at 0.3 % (within timing.tie) BLOCK 32 is a tie: it never leaves the play-off
ot=$tmp/ot
FAKECUDA_SLOW=32:1.003 tune hyst_tie 0 "$tmp/hyst-tie.log" --out "$ot" tests/fakecuda/pairs.yaml
check hyst_tie_stays "$ot/fake_pairs/fake-gpu-sm90/results.json" '
assert d["playoff"]["variants"] == 2 and d["playoff"].get("left_early", 0) == 0, d["playoff"]
assert d["ties"] == 2 and all(v["playoff"]["rounds"] == 5 for v in d["variants"][:2]), d["ties"]
'
# a re-run with nothing changed takes that play-off from the journal, BLOCK 32 as having left
# it after its rounds there: nothing is launched, and it decides as the run before
FAKECUDA_SLOW=32:1.008 tune hyst_first_rerun 0 "$tmp/hyst-rerun.log" --out "$oh" tests/fakecuda/pairs.yaml
if grep -q "^launch fake_pairs " "$tmp/hyst-rerun.log"; then
	bad hyst_first_rerun_launches "$(grep -c '^launch fake_pairs ' "$tmp/hyst-rerun.log") launches"
else ok hyst_first_rerun_launches; fi
check hyst_first_rerun_json "$jh" '
w = d["variants"][0]
assert w["params"]["BLOCK"] == 64 and not w.get("tie") and d["ties"] == 0, (w, d["ties"])
assert d["playoff"]["variants"] == 2 and d["playoff"]["left_early"] == 1, d["playoff"]
assert w["playoff"]["rounds"] == 5, w
b32 = [v for v in d["variants"] if v["params"] == {"BLOCK": 32, "TAIL": 1}][0]
assert "playoff" not in b32 and not b32.get("tie"), b32
'
# the run before chose BLOCK 32
python3 - "$jh" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ok = [i for i, v in enumerate(d["variants"]) if v["status"] == "ok"]
d["variants"][ok[0]], d["variants"][ok[1]] = d["variants"][ok[1]], d["variants"][ok[0]]
json.dump(d, open(sys.argv[1], "w"))
PY
w32=$(b32 "$jh")
FAKECUDA_SLOW=32:1.008 tune hyst_kept 0 "$tmp/hyst.log" --fresh --out "$oh" tests/fakecuda/pairs.yaml
check hyst_kept_winner "$jh" '
w = d["variants"][0]
assert w["id"] == "'"$w32"'" and w.get("tie") and d.get("winner_kept") is True, (w, d.get("winner_kept"))
assert d["ties"] == 2 and d["playoff"]["earlier_winner"] is True, d
assert d["playoff"]["left_early"] == 0 and w["playoff"]["rounds"] == 5, d["playoff"]
'
has hyst_kept_said "within twice that band: it is kept" "$tmp/stdout"
FAKECUDA_SLOW=32:1.015 tune hyst_lost 0 "$tmp/hyst.log" --fresh --out "$oh" tests/fakecuda/pairs.yaml
check hyst_lost_winner "$jh" '
w = d["variants"][0]
assert w["params"]["BLOCK"] == 64 and "winner_kept" not in d and d["ties"] == 0, (w, d)
assert d["playoff"]["variants"] == 2 and d["playoff"]["earlier_winner"] is True, d["playoff"]
b32 = [v for v in d["variants"] if v["id"] == "'"$w32"'"][0]
assert b32["playoff"]["rounds"] == 5 and not b32.get("tie"), b32
'
has hyst_lost_said "and the run before.s winner (within twice that)" "$tmp/stdout"
# without an earlier winner, 1.5 % is beyond the play-off's net where the samples flush the
# L2 (FAKECUDA_L2=1024): no play-off; where they find their data in the L2 the net is 10 %
FAKECUDA_L2=1024 FAKECUDA_SLOW=32:1.015 tune hyst_alone 0 "$tmp/hyst.log" --out "$tmp/oh2" tests/fakecuda/pairs.yaml
check hyst_alone_playoff "$tmp/oh2/fake_pairs/fake-gpu-sm90/results.json" '
assert d["l2"]["flush"] is True, d["l2"]
assert "playoff" not in d and d["variants"][0]["params"]["BLOCK"] == 64, d.get("playoff")
'
FAKECUDA_SLOW=32:1.015 tune hyst_alone_resident 0 "$tmp/hyst.log" --out "$tmp/oh3" tests/fakecuda/pairs.yaml
check hyst_alone_resident_playoff "$tmp/oh3/fake_pairs/fake-gpu-sm90/results.json" '
assert d["l2"]["flush"] is False, d["l2"]
p = d["playoff"]
assert p["variants"] == 2 and p["within"] == 0.1 and d["variants"][0]["params"]["BLOCK"] == 64, p
'
# among ties, the one that ran best on another GPU tuned beside this one: the two verified
# variants tie here (equal fake timings), and the rule alone takes BLOCK 32 (the first in the
# config's order); another GPU's results, where BLOCK 64 ran 10 % faster, make it BLOCK 64
tune elsewhere_control 0 "$tmp/else.log" --out "$tmp/oe0" tests/fakecuda/pairs.yaml
check elsewhere_control_winner "$tmp/oe0/fake_pairs/fake-gpu-sm90/results.json" '
w = d["variants"][0]
assert w["params"]["BLOCK"] == 32 and w.get("tie") and d["tie_gpus"] == 0, (w, d.get("tie_gpus"))
assert {v["params"]["BLOCK"]: v["resident_blocks"] for v in d["variants"] if v["status"] == "ok"} == {32: 16, 64: 8}
assert d["tie_chosen_by"] == "the config\u0027s order", d.get("tie_chosen_by")
'
# then the most work resident on a multiprocessor: the bytes of as many blocks as the driver's
# occupancy calculator fits, or fewer where the grid has fewer a multiprocessor (4 of them here;
# n = 4096: 64 blocks of 32 threads, 32 of 64, each half as much work). BLOCK 32, which fits 8
# (FAKECUDA_RESIDENT), has an eighth of the work resident and gives way to BLOCK 64, which fits
# 32 but has 8 blocks a multiprocessor (a quarter); a re-run takes the counts from the journal
# and chooses the same. Without FAKECUDA_RESIDENT both have a quarter (elsewhere_control below)
FAKECUDA_RESIDENT=32:8 tune resident_run 0 "$tmp/else.log" --out "$tmp/or" tests/fakecuda/pairs.yaml
jr=$tmp/or/fake_pairs/fake-gpu-sm90/results.json
resident_check='
w = d["variants"][0]
assert w["params"]["BLOCK"] == 64 and w.get("tie") and w["resident_blocks"] == 8, w
ok = {v["params"]["BLOCK"]: v["resident_blocks"] for v in d["variants"] if v["status"] == "ok"}
assert ok == {32: 8, 64: 8}, ok
assert "most work resident" in d["tie_rule"], d["tie_rule"]
'
check resident_winner "$jr" "$resident_check
assert d[\"tie_chosen_by\"] == \"the work resident on a multiprocessor\", d.get(\"tie_chosen_by\")"
has resident_said "here it was chosen by the work resident on a multiprocessor" "$tmp/stdout"
FAKECUDA_RESIDENT=32:8 tune resident_resumed 0 "$tmp/else.log" --out "$tmp/or" tests/fakecuda/pairs.yaml
has resident_resumed_said "results kept from an earlier run" "$tmp/stderr"
check resident_resumed_winner "$jr" "$resident_check
assert d.get(\"winner_kept\") is True and \"tie_chosen_by\" not in d, d.get(\"tie_chosen_by\")"
mkdir -p "$tmp/oe/fake_pairs/other-gpu"
python3 - "$tmp/oe0/fake_pairs/fake-gpu-sm90/results.json" "$tmp/oe/fake_pairs/other-gpu/results.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["gpu"] = "Other GPU"
for v in d["variants"]:
    if v["status"] == "ok":
        v["median_ms"] = 1.0 if v["params"]["BLOCK"] == 64 else 1.1
json.dump(d, open(sys.argv[2], "w"))
PY
tune elsewhere_run 0 "$tmp/else.log" --out "$tmp/oe" tests/fakecuda/pairs.yaml
check elsewhere_winner "$tmp/oe/fake_pairs/fake-gpu-sm90/results.json" '
w = d["variants"][0]
assert w["params"]["BLOCK"] == 64 and w.get("tie") and d["ties"] == 2 and d["tie_gpus"] == 1, (w, d["ties"], d.get("tie_gpus"))
assert d["tie_chosen_by"] == "the other GPUs\u0027 results", d.get("tie_chosen_by")
'
has elsewhere_said "(results of 1 other GPU read)" "$tmp/stdout"
# an earlier winner (BLOCK 32, swapped in) gives way to a tie 9 % ahead of it on the other GPU,
# and stays where the other GPU has them within timing.tie (1.0 against 1.004 ms)
swap_ok() { python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ok = [i for i, v in enumerate(d["variants"]) if v["status"] == "ok"]
d["variants"][ok[0]], d["variants"][ok[1]] = d["variants"][ok[1]], d["variants"][ok[0]]
json.dump(d, open(sys.argv[1], "w"))
PY
}
je=$tmp/oe/fake_pairs/fake-gpu-sm90/results.json
swap_ok "$je"
tune elsewhere_over_earlier 0 "$tmp/else.log" --out "$tmp/oe" tests/fakecuda/pairs.yaml
check elsewhere_over_earlier_winner "$je" '
w = d["variants"][0]
assert w["params"]["BLOCK"] == 64 and "winner_kept" not in d, (w, d.get("winner_kept"))
'
swap_ok "$je"
python3 - "$tmp/oe/fake_pairs/other-gpu/results.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for v in d["variants"]:
    if v["status"] == "ok":
        v["median_ms"] = 1.0 if v["params"]["BLOCK"] == 64 else 1.004
json.dump(d, open(sys.argv[1], "w"))
PY
tune elsewhere_earlier_kept 0 "$tmp/else.log" --out "$tmp/oe" tests/fakecuda/pairs.yaml
check elsewhere_earlier_kept_winner "$je" '
w = d["variants"][0]
assert w["params"]["BLOCK"] == 32 and d.get("winner_kept") is True, (w, d.get("winner_kept"))
'
mkdir "$tmp/edit"
cp tests/fakecuda/pairs.cu tests/fakecuda/fake_ref.cu "$tmp/edit/"
sed 's/- {n: 1}$/- {n: 3}/' tests/fakecuda/pairs.yaml >"$tmp/edit/pairs.yaml"
tune pairs_other_sizes 0 "$tmp/pairs3.log" --out "$o" "$tmp/edit/pairs.yaml"
if grep -q "results kept from an earlier run" "$tmp/stderr"; then bad pairs_other_sizes_rerun "$(cat "$tmp/stderr")"; else ok pairs_other_sizes_rerun; fi
has pairs_other_sizes_launch "^launch fake_pairs 1x64\$" "$tmp/pairs3.log"
# --size changes the tuning size only
tune pairs_size 0 "$tmp/pairs4.log" --fresh --size n=2048 --out "$tmp/s" tests/fakecuda/pairs.yaml
check pairs_size_results "$tmp/s/fake_pairs/fake-gpu-sm90/results.json" '
assert d["sizes"] == {"n": 2048} and d["verify_sizes"] == [{"n": 1001}, {"n": 1}], d
'
has pairs_size_provenance "verified against the reference at n=2048, n=1001, n=1:" \
	"$tmp/s/fake_pairs/fake-gpu-sm90/best.cu"

# the race (docs/search.md): with 20 samples, each after an L2 flush (the play-off's net 1 %),
# a variant 5 % slower than the fastest so far
# stops after 5 (its 5 samples all beyond twice the play-off's net), one 1.5 % slower (within
# that limit) gets all 20, and so does every variant with --no-race; counted in the fake
# driver's launches of BLOCK 64 (grid 32) at the tuning size: the verified launch, 1 warm-up,
# the samples (and the TAIL 0 variant's verified launch, before its mismatch at n = 1001).
# -j 1: BLOCK 32, the leader, is timed first
mkdir "$tmp/race"
cp tests/fakecuda/pairs.cu tests/fakecuda/fake_ref.cu "$tmp/race/"
sed 's/^timing: .*/timing: {warmup: 1, samples: 20, l2: flush}/' tests/fakecuda/pairs.yaml >"$tmp/race/pairs.yaml"
# race NAME SLOW ARGS...: the launches of BLOCK 64 and BLOCK 32 at the tuning size into
# $launches, BLOCK 64's samples (results.json) into $samples
race() {
	name=$1 slow=$2
	shift 2
	FAKECUDA_SLOW=64:$slow tune "$name" 0 "$tmp/$name.log" -j 1 --out "$tmp/$name" "$@" "$tmp/race/pairs.yaml"
	launches="$(grep -c '^launch fake_pairs 32x64$' "$tmp/$name.log") $(grep -c '^launch fake_pairs 64x32$' "$tmp/$name.log")"
	samples=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print([v["samples"] for v in d["variants"] if v["params"] == {"BLOCK": 64, "TAIL": 1}][0])' \
		"$tmp/$name/fake_pairs/fake-gpu-sm90/results.json")
}
race race_loser 1.05
if [ "$launches" = "8 23" ] && [ "$samples" = 5 ]; then ok race_loser_stopped; else
	bad race_loser_stopped "launches of BLOCK 64 and 32: $launches, want 8 23; samples $samples"; fi
has race_loser_said "1 variants were timed with fewer than 20 samples" "$tmp/stdout"
race race_loser_norace 1.05 --no-race
if [ "$launches" = "23 23" ] && [ "$samples" = 20 ]; then ok race_norace_all; else
	bad race_norace_all "launches of BLOCK 64 and 32: $launches, want 23 23; samples $samples"; fi
race race_near 1.015
if [ "$launches" = "23 23" ] && [ "$samples" = 20 ]; then ok race_near_all; else
	bad race_near_all "launches of BLOCK 64 and 32: $launches, want 23 23; samples $samples"; fi

# tests/gpu/speed.py, the tables of tests/gpu/speed.sh, on the race's results: the phases,
# the raced variant, --devices against one GPU, the agreement of three runs
rj() { echo "$tmp/$1/fake_pairs/fake-gpu-sm90/results.json"; }
printf '%s\n' "loser|0.9|$(rj race_loser)|1.0" "norace|1.2|$(rj race_loser_norace)|1.0" \
	"none|0.5|-|-" >"$tmp/rows"
if python3 tests/gpu/speed.py table "$tmp/rows" >"$tmp/speed" 2>&1 &&
	grep -q '^loser  *0\.90  *1\.0 ok  *[0-9.]*  *[0-9.]*  *[0-9.]* .* 1  v[0-9a-f]* (' "$tmp/speed" &&
	grep -q '^norace  *1\.20  *1\.0 NO .* 0  v[0-9a-f]* (' "$tmp/speed" &&
	grep -q '^none  *0\.50  *- ' "$tmp/speed"; then ok speed_table; else bad speed_table "$(cat "$tmp/speed")"; fi
if python3 tests/gpu/speed.py ratio 4 2.0 "$(rj race_loser)" 0.5 "$(rj race_near)" >"$tmp/speed" 2>&1 &&
	grep -q "on 4 GPUs against one: whole process 2.00 s / 0.50 s = 4.00x (target: at least 3.5x on 4 GPUs: ok)" "$tmp/speed"
then ok speed_ratio; else bad speed_ratio "$(cat "$tmp/speed")"; fi
if python3 tests/gpu/speed.py agree "p=$(rj race_loser)" "p=$(rj race_loser_norace)" "p=$(rj race_near)" \
	>"$tmp/speed" 2>&1 && grep -q "^agreement p  *picks v[0-9a-f]* v[0-9a-f]* v[0-9a-f]*: 3 of 3 the same" "$tmp/speed" &&
	grep -q "^agreement: 3 of 3 runs pick .* 3 of 3 within 0.5 %" "$tmp/speed"
then ok speed_agree; else bad speed_agree "$(cat "$tmp/speed")"; fi
if python3 tests/gpu/speed.py agree p >/dev/null 2>&1; then bad speed_usage; else ok speed_usage; fi

# refill: launch: bins zeroed before every launch, the verified one, the warm-ups and the
# samples, outside the timed interval (an L2 flush and the events bracket only the kernel)
# timing.l2 auto: the hist buffers (a few KB) fit in the fake's 1 MiB L2: no flush, and the
# run says so; with FAKECUDA_L2=1024 they exceed it (the run below: a flush before each sample)
tune hist_resident 0 "$tmp/hist0.log" --fresh --out "$tmp/l2" tests/fakecuda/hist.yaml
if grep -q "^launch tuner_flush" "$tmp/hist0.log"; then bad l2_resident_no_flush "$(grep -c '^launch tuner_flush' "$tmp/hist0.log") flushes"; else ok l2_resident_no_flush; fi
check l2_resident_json "$tmp/l2/fake_hist/fake-gpu-sm90/results.json" '
l2 = d["l2"]
assert l2["policy"] == "auto" and l2["flush"] is False, l2
assert l2["why"].startswith("auto: 0.0 MiB of buffers at n=") and l2["why"].endswith("fit in the 1.0 MiB L2"), l2'
has l2_resident_said "every sample with the L2 as the launch before left it (auto: " "$tmp/stdout"
# resident samples batch launches: with 0.004 ms an event pair, the warm-up (one, 0.004 ms)
# says 0.004 ms a launch: 13 launches make a sample of 0.05 ms or more
FAKECUDA_MS=0.004 tune l2_batched 0 "$tmp/batch.log" --fresh --no-race --out "$tmp/l2b" tests/fakecuda/pairs.yaml
check l2_batched_json "$tmp/l2b/fake_pairs/fake-gpu-sm90/results.json" '
ok = [v for v in d["variants"] if v["status"] == "ok"]
assert ok and all(v["launches_per_sample"] == 13 for v in ok), [(v["id"], v.get("launches_per_sample")) for v in ok]'
# samples in the L2 are held: each is queued behind tuner_hold (released once its launches
# are queued), so the events time the GPU alone; the host's cost of a launch is recorded
if awk '
/^event/ { if (!inside && p1 !~ /^launch tuner_hold 1x1/) { print NR ": " p1 ", event"; bad = 1 } inside = !inside }
inside && /^launch / && !/^launch (fake_pairs|tuner_copy|tuner_read) / { print NR ": " $0 " inside a sample"; bad = 1 }
{ p1 = $0 }
END { exit bad }
' "$tmp/batch.log" >"$tmp/awk"; then ok held_order; else bad held_order "$(cat "$tmp/awk")"; fi
check held_json "$tmp/l2b/fake_pairs/fake-gpu-sm90/results.json" '
ok = [v for v in d["variants"] if v["status"] == "ok"]
assert ok and all(v.get("held") is True and v["launch_us"] > 0 for v in ok), ok
l = d["launch"]
assert l["held"] is True and l["host_us"] > 0 and abs(l["gpu_us"] - 4 / 13) < 1e-3, l  # an event pair is 4 us here, whatever it holds
assert l["bound"] is (l["host_us"] > l["gpu_us"]) and abs(l["ratio"] - l["host_us"] / l["gpu_us"]) < 1e-4 * l["ratio"], l'
FAKECUDA_MS=0.004 TUNER_TIMING_HOLD=0 tune hold_off 0 "$tmp/nohold.log" --fresh --no-race --out "$tmp/l2n" tests/fakecuda/pairs.yaml
if grep -q '^launch tuner_hold' "$tmp/nohold.log"; then bad hold_off_log; else ok hold_off_log; fi
check hold_off_json "$tmp/l2n/fake_pairs/fake-gpu-sm90/results.json" '
ok = [v for v in d["variants"] if v["status"] == "ok"]
assert ok and not any("held" in v for v in ok) and d["launch"]["held"] is False, ok'
# a kernel that runs 0.01 us: launch-bound, said in the table, results.json, the emitted
# source and header, report.html; its samples hold at most 256 launches
FAKECUDA_MS=0.00001 tune launch_bound 0 "$tmp/lb.log" --fresh --no-race --out "$tmp/lb" tests/fakecuda/pairs.yaml
has launch_bound_table "launch-bound (" "$tmp/stdout"
has launch_bound_advice "capture its launches in a CUDA graph" "$tmp/stdout"
lb=$tmp/lb/fake_pairs/fake-gpu-sm90
check launch_bound_json "$lb/results.json" '
assert d["launch"]["bound"] is True and d["launch"]["ratio"] > 1 and "CUDA graph" in d["launch"]["advice"], d["launch"]
ok = [v for v in d["variants"] if v["status"] == "ok"]
assert ok and all(v["launches_per_sample"] == 256 for v in ok), [v.get("launches_per_sample") for v in ok]'
has launch_bound_header "launch-bound (" "$lb/best.h"
has launch_bound_source "capture its launches in a CUDA graph" "$lb/best.cu"
has launch_bound_html "Launch: the host launches it in" "$lb/report.html"
# at several points: each entry of the GPU directory's best.h says it, and the advice once
FAKECUDA_MS=0.00001 FAKECUDA_SLOW="32/64:2,64:1.5" tune launch_bound_points 0 "$tmp/lbp.log" --fresh --no-race --midpoints 0 --out "$tmp/lbp" --size n=1024,4096 tests/fakecuda/pairs.yaml
if [ "$(grep -c '^ \*  *[01]  Fake GPU, 9.0, 4 at n=[0-9]*: .*, launch-bound ([0-9.e+]* us to launch, [0-9.e+-]* us to run)$' "$tmp/lbp/fake_pairs/fake-gpu-sm90/best.h")" -eq 2 ]; then
	ok launch_bound_points_entries; else bad launch_bound_points_entries "$(grep -n '^ \*  *[0-9]  ' "$tmp/lbp/fake_pairs/fake-gpu-sm90/best.h")"; fi
has launch_bound_points_advice "^ \* launch-bound entries: launched back to back" "$tmp/lbp/fake_pairs/fake-gpu-sm90/best.h"
export FAKECUDA_L2=1024
tune hist_run 0 "$tmp/hist.log" --out "$o" tests/fakecuda/hist.yaml
check hist_results "$o/fake_hist/fake-gpu-sm90/results.json" '
assert [v["status"] for v in d["variants"]] == ["ok", "ok"], d["variants"]
'
if awk '
/^launch tuner_fill 1x/ { if (inside) { print NR ": a refill inside the timed interval"; bad = 1 } filled = 1; next }
/^launch fake_hist / { if (!filled) { print NR ": a launch without its refill"; bad = 1 } filled = 0; n++; next }
/^event/ { inside = !inside; next }
END { if (n < 12 || n % 6) { print n " launches of fake_hist, want runs of 1 verified + 2 warm-up + 3 samples, at least one per variant"; bad = 1 } exit bad }
' "$tmp/hist.log" >"$tmp/awk"; then ok hist_refill_order; else bad hist_refill_order "$(cat "$tmp/awk")"; fi
# each sample: the refill, then the flush (evicting what the refill left in L2), then the
# first event (a worker process's setup, the rooflines, comes before its first fake_hist)
if awk '
/^context$/ { seen = 0 }
/^launch fake_hist / { seen = 1 }
/^event/ {
	if (seen && !inside && !(p1 ~ /^launch tuner_flush / && p2 ~ /^launch tuner_fill 1x/)) {
		print NR ": " p2 ", " p1 ", event"
		bad = 1
	}
	inside = !inside
}
{ p2 = p1; p1 = $0 }
END { exit bad }
' "$tmp/hist.log" >"$tmp/awk"; then ok hist_flush_after_refill; else bad hist_flush_after_refill "$(cat "$tmp/awk")"; fi
unset FAKECUDA_L2
# without its refill and fill (bins poisoned once per variant): the timed launches count onto
# what the earlier ones left, and the check after them says so
mkdir "$tmp/nr"
cp tests/fakecuda/hist.cu tests/fakecuda/fake_ref.cu "$tmp/nr/"
sed '/refill: launch/d; /fill: {const: 0}/d' tests/fakecuda/hist.yaml >"$tmp/nr/hist.yaml"
tune hist_no_refill 1 "$tmp/nr.log" --out "$tmp/nro" "$tmp/nr/hist.yaml"
check hist_no_refill_mismatch "$tmp/nro/fake_hist/fake-gpu-sm90/results.json" '
for v in d["variants"]:
    assert v["status"] == "mismatch", v
    assert v["reason"].startswith("after the timed launches: 256 of 256 elements differ"), v
    assert "refill: launch" in v["reason"], v
'

# the bank mode the fake GPU ignores: each 8-byte variant collapses into its 4-byte twin,
# which stands for the pair though the 8-byte one comes first in the config and, with -j 1,
# compiles first (and is timed); again from the journal, and again compiled in parallel
jb=$tmp/ob/fake_banks/fake-gpu-sm90
banks_check='
assert d["bank_mode_ignored"] is True, d.get("bank_mode_ignored")
by = {v["id"]: v for v in d["variants"]}
for v in d["variants"]:
    p = v["params"]
    if p["BANK_BYTES"] == 4:
        assert v["status"] == "ok" and "twin_of" not in v, v
    else:
        t = by[v["twin_of"]]
        assert v["status"] == "collapsed" and t["params"] == dict(p, BANK_BYTES=4), (v, t)
assert d["variants"][0]["params"]["BANK_BYTES"] == 4, d["variants"][0]
'
for r in "banks_first -j 1" "banks_resumed -j 1" "banks_parallel -j 2 --fresh"; do
	set -- $r
	n=$1
	shift
	tune "$n" 0 "$tmp/banks.log" "$@" --out "$tmp/ob" tests/fakecuda/banks.yaml
	cp "$tmp/stderr" "$tmp/$n.err"
	check "${n}_4byte_stands" "$jb/results.json" "$banks_check"
	has "${n}_best_4byte" "^#define BANK_BYTES 4$" "$jb/best.cu"
	has "${n}_best_said" "^best: v[0-9a-f]* (BANK_BYTES=4 " "$tmp/stdout"
done
has banks_resumed_said "2 results kept from an earlier run" "$tmp/banks_resumed.err"

# a reference that does not compile, on a GPU: it is the compilers' first job, beside the
# variants; the run ends with its log (exit 2) and leaves no output directory
mkdir -p "$tmp/rb"
cp tests/fakecuda/pairs.cu "$tmp/rb/"
printf 'extern "C" __global__ void fake_pairs_ref(float *out, const float *in, int n)\n{\n\tout[0] = \n}\n' >"$tmp/rb/fake_ref.cu"
cp tests/fakecuda/pairs.yaml "$tmp/rb/"
tune ref_broken_timed 2 "$tmp/rb.log" -j 2 --fresh --out "$tmp/orb" "$tmp/rb/pairs.yaml"
has ref_broken_said "the reference kernel 'fake_pairs_ref' (.*fake_ref.cu) does not compile" "$tmp/stderr"
[ ! -e "$tmp/orb" ] && ok ref_broken_nothing_left || bad ref_broken_nothing_left "$(find "$tmp/orb")"

# variants that are one program (shared.yaml): SPREAD 2 and 3 of each BLOCK compiled once,
# with -j 4 the third variant while the second compiles (it waits for that result); NVRTC
# compiles the 4 programs, the reference and the helper kernels; every variant is verified and
# timed at its own grid
export TUNER_CACHE="$tmp/cache-shared"
tune shared_run 0 "$tmp/shared.log" -j 4 --out "$tmp/osh" tests/fakecuda/shared.yaml
cp "$tmp/stderr" "$tmp/shared.err"
# (NVRTC compiles 6 of the 8 jobs: a duplicate waits for its twin's result, or, dispatched
# after that result is stored, finds it in the cache; which of the two is a race)
has shared_compiled_once "NVRTC compiled 6, \([0-9]* from the cache ([^)]*), [1-9] the same program as another variant\|[2-9] from the cache\)" \
	"$tmp/shared.err"
check shared_each_timed "$tmp/osh/fake_shared/fake-gpu-sm90/results.json" '
vs = d["variants"]
assert len(vs) == 6 and all(v["status"] == "ok" for v in vs), vs
grids = {(v["params"]["BLOCK"], v["params"]["SPREAD"]): v["grid"][0] for v in vs}
for b in (32, 64):
    assert [grids[(b, s)] for s in (1, 2, 3)] == [s * 4096 // (2 * b) for s in (1, 2, 3)], grids
assert sum(v["cache_hit"] for v in vs) >= 2, vs
'
# again from the cache: nothing compiled, nothing shared
tune shared_warm 0 "$tmp/shared.log" -j 4 --fresh --out "$tmp/osh" tests/fakecuda/shared.yaml
cp "$tmp/stderr" "$tmp/shared_warm.err"
has shared_warm_none "NVRTC compiled 0, 8 from the cache" "$tmp/shared_warm.err"
expect shared_warm_no_share 1 grep -q "the same program" "$tmp/shared_warm.err"
export TUNER_CACHE="$tmp/cache"

# --devices over GPUs of two models: a run each, side by side, each with its own architecture
# and directory; GPUs of one model share one result set
export FAKECUDA_DEVICES="Fake GPU:9.0:4,Fake GPU:9.0:4,Fake GPU B:8.0:2"
m=$tmp/models
tune models_run 0 "$tmp/models.log" --devices all --out "$m" tests/fakecuda/pairs.yaml
cp "$tmp/stderr" "$tmp/models.err"
cp "$tmp/stdout" "$tmp/models.out"
has models_said "GPUs of 2 models, a run for each, side by side" "$tmp/models.err"
has models_groups "Fake GPU B: --devices 2" "$tmp/models.err"
has models_arch_sm80 "compiling for sm_80" "$tmp/models.err"
has models_output "^== Fake GPU B (--devices 2): exit 0" "$tmp/models.out"
check models_sm90 "$m/fake_pairs/fake-gpu-sm90/results.json" '
assert d["gpu"] == "Fake GPU", d["gpu"]
dev = {v["device"] for v in d["variants"] if v["status"] in ("ok", "mismatch")}
assert dev and dev <= {0, 1}, dev
'
check models_sm80 "$m/fake_pairs/fake-gpu-b-sm80/results.json" '
assert d["gpu"] == "Fake GPU B", d["gpu"]
assert {v["device"] for v in d["variants"] if v["status"] in ("ok", "mismatch")} == {2}, d
'
for g in fake-gpu-sm90 fake-gpu-b-sm80; do
	if [ -s "$m/fake_pairs/$g/best.cu" ]; then ok "models_best_$g"; else bad "models_best_$g" "$(ls "$m/fake_pairs/$g")"; fi
done
# a re-run: every model's results from its own journal, no variant launched again
tune models_rerun 0 "$tmp/models2.log" --devices 0,2,1 --out "$m" tests/fakecuda/pairs.yaml
if [ "$(grep -c "4 results kept from an earlier run" "$tmp/stderr")" -eq 2 ]; then ok models_resumed; else bad models_resumed "$(cat "$tmp/stderr")"; fi
if [ -f "$tmp/models2.log" ] && grep -q "^launch fake_pairs " "$tmp/models2.log"; then bad models_nothing_launched "$(grep -c '^launch fake_pairs ' "$tmp/models2.log") launches"; else ok models_nothing_launched; fi
# two GPUs of one model: one run, one directory
tune models_one 0 "$tmp/models3.log" --devices 0,1 --out "$tmp/one" tests/fakecuda/pairs.yaml
if grep -q "side by side" "$tmp/stderr" || [ "$(ls "$tmp/one/fake_pairs")" != fake-gpu-sm90 ]; then
	bad models_one_model "$(ls "$tmp/one/fake_pairs"; cat "$tmp/stderr")"; else ok models_one_model; fi
# one model's run fails (no NVRTC architecture for cc 1.0): the worst exit status, the other
# model's results written
export FAKECUDA_DEVICES="Fake GPU:9.0:4,Old GPU:1.0:1"
tune models_one_fails 2 "$tmp/models4.log" --devices 0,1 --out "$tmp/fails" tests/fakecuda/pairs.yaml
has models_failure_shown "^== Old GPU (--devices 1): exit 2" "$tmp/stdout"
if [ -s "$tmp/fails/fake_pairs/fake-gpu-sm90/best.cu" ]; then ok models_other_written; else bad models_other_written "$(ls -R "$tmp/fails")"; fi
# an interrupt to the parent reaches every model's run: 130, each run's results so far
export FAKECUDA_DEVICES="Fake GPU:9.0:4,Fake GPU B:8.0:2"
LD_LIBRARY_PATH="$fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" TUNER_CACHE="$tmp/cold" \
	"$T" --devices all --out "$tmp/int" tests/fakecuda/pairs.yaml >"$tmp/int.out" 2>"$tmp/int.err" &
pid=$!
i=0
while ! grep -q "side by side" "$tmp/int.err" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
kill -TERM $pid
wait $pid
got=$?
if [ "$got" -eq 130 ] && [ "$(grep -c ': exit 130$' "$tmp/int.out")" -eq 2 ]; then ok models_interrupt; else
	bad models_interrupt "exit $got: $(cat "$tmp/int.out" "$tmp/int.err")"; fi
export FAKECUDA_DEVICES="Fake GPU:9.0:4,Old GPU:1.0:1"
tune models_no_device 2 "$tmp/models5.log" --devices 0,7 --out "$tmp/nodev" tests/fakecuda/pairs.yaml
has models_no_device_said "no CUDA device 7" "$tmp/stderr"
# the driver's start-up takes time for each device it sees (the fake's FAKECUDA_INIT_MS: 250 ms
# a device, four devices here): a GPU worker's driver sees only its own GPU, the other GPUs'
# workers open beside the rest of the run, and every GPU times variants
export FAKECUDA_DEVICES="Fake GPU:9.0:4,Fake GPU:9.0:4,Fake GPU:9.0:4,Fake GPU:9.0:4"
FAKECUDA_INIT_MS=250 tune init_one 0 "$tmp/init1.log" --fresh --out "$tmp/init1" tests/fakecuda/pairs.yaml
check init_one_driver "$tmp/init1/fake_pairs/fake-gpu-sm90/results.json" '
ph = {p["name"]: p["s"] for p in d["search"]["phases"]}
assert ph["driver"] < 0.7, ph   # 1.0 s with the four devices seen'
FAKECUDA_INIT_MS=250 tune init_all 0 "$tmp/init4.log" --fresh --devices all --out "$tmp/init4" --size n=65536 tests/fakecuda/pairs.yaml
check init_all_json "$tmp/init4/fake_pairs/fake-gpu-sm90/results.json" '
ph = {p["name"]: p["s"] for p in d["search"]["phases"]}
# the models probe sees the four (1.0 s), the first worker its own (0.25 s); 2.0 s when the
# first worker saw four, 2.75 s or more when the workers opened one after another
assert ph["driver"] < 1.7, ph
devs = sorted({v["device"] for v in d["variants"] if "device" in v})
assert len(devs) >= 2 and set(devs) <= {0, 1, 2, 3}, devs'
# with CUDA_VISIBLE_DEVICES the GPUs of --devices all are named without asking the driver
# about all of them: the workers open side by side, each seeing its own
CUDA_VISIBLE_DEVICES=3,1,0,2 FAKECUDA_INIT_MS=250 tune init_named 0 "$tmp/init5.log" --fresh --devices all --out "$tmp/init5" --size n=65536 tests/fakecuda/pairs.yaml
check init_named_json "$tmp/init5/fake_pairs/fake-gpu-sm90/results.json" '
ph = {p["name"]: p["s"] for p in d["search"]["phases"]}
assert ph["driver"] < 0.7, ph   # 1.25 s with a probe of the four first'
# two names for one GPU (its PCI address twice): the workers find out, the driver is asked
CUDA_VISIBLE_DEVICES=1,1 tune named_twice 0 "$tmp/twice.log" -v --devices all --out "$tmp/twice" tests/fakecuda/pairs.yaml
has named_twice_found "^tuner: --devices all: GPU 0 and GPU 1 are one GPU (PCI 0000:02:00); asking the driver about every GPU$" "$tmp/stderr"
# named GPUs of two models: the workers find out, the driver is asked about all, a run each
export FAKECUDA_DEVICES="Fake GPU:9.0:4,Fake GPU:9.0:4,Fake GPU B:8.0:2"
CUDA_VISIBLE_DEVICES=2,0 tune named_models 0 "$tmp/named.log" -v --devices all --out "$tmp/named" tests/fakecuda/pairs.yaml
has named_models_found "^tuner: --devices all: GPU 1 is a Fake GPU, GPU 0 a Fake GPU B; asking the driver about every GPU$" "$tmp/stderr"
has named_models_split "^tuner:   Fake GPU B: --devices 0$" "$tmp/stderr"
has named_models_ran "^== Fake GPU (--devices 1): exit 0" "$tmp/stdout"
unset FAKECUDA_DEVICES

# the L2 decision is the parent's, sent to the GPU worker with the setup: timing.l2 flush
# launches the flush kernel before samples, resident never
for l2 in flush resident; do
	sed -e "s|: fake_ref.cu|: $PWD/tests/fakecuda/fake_ref.cu|" -e "s|: pairs.cu|: $PWD/tests/fakecuda/pairs.cu|" \
		-e "s|^timing: {|timing: {l2: $l2, |" tests/fakecuda/pairs.yaml >"$tmp/l2-$l2.yaml"
	tune "l2_$l2" 0 "$tmp/l2-$l2.log" --fresh --out "$tmp/l2-$l2" "$tmp/l2-$l2.yaml"
	n=$(grep -c '^launch tuner_flush' "$tmp/l2-$l2.log" || true)
	if { [ $l2 = flush ] && [ "$n" -gt 0 ]; } || { [ $l2 = resident ] && [ "$n" -eq 0 ]; }; then
		ok "l2_${l2}_in_the_worker"; else bad "l2_${l2}_in_the_worker" "$n flush launches"; fi
done

# several problem sizes (points): a run each into its own directory, the points side by side in
# the GPU directory's results.json, and best.cu/best.h choosing by size. BLOCK 32 is slow in 64
# blocks or more, BLOCK 64 always: 32 wins at n = 1024 (16 blocks), 64 at the larger points.
p=$tmp/pts
FAKECUDA_SLOW="32/64:2,64:1.5" tune points_run 0 "$tmp/pts.log" --midpoints 0 --out "$p" --size n=1024,4096,65536 tests/fakecuda/pairs.yaml
# no variant runs at 95 % of the fastest at both 1024 and 4096: said, with the remedy
has points_between_said "^between n=1024 and n=4096: no variant runs at 95 % of the fastest at both (v[0-9a-f]* at 75.0 %);$" "$tmp/stderr"
if grep -q "^between n=4096 and n=65536" "$tmp/stderr"; then bad points_between_quiet "$(cat "$tmp/stderr")"; else ok points_between_quiet; fi
g=$p/fake_pairs/fake-gpu-sm90
# one GPU worker serves every point: one context, and each point's rooflines
if [ "$(grep -c '^context' "$tmp/pts.log")" -eq 1 ] && [ "$(grep -c '^launch tuner_copy' "$tmp/pts.log")" -ge 3 ]; then
	ok points_one_worker; else bad points_one_worker "$(grep -c '^context' "$tmp/pts.log") contexts, $(grep -c '^launch tuner_copy' "$tmp/pts.log") copies"; fi
check points_json "$g/results.json" '
assert [x["label"] for x in d["points"]] == ["n=1024", "n=4096", "n=65536"], d["points"]
assert [x["dir"] for x in d["points"]] == ["n=1024", "n=4096", "n=65536"]
w = [x["winner"] for x in d["points"]]
assert w[0] != w[1] and w[1] == w[2], w
m = d["winners_at_points"]["pct"]
assert [m[i][i] for i in range(3)] == [100, 100, 100], m
assert abs(m[0][1] - 100 / 1.5) < 0.01 and abs(m[1][0] - 75) < 0.01, m
assert d["single"]["id"] == w[0] and d["single"]["ties_every_winner"] is False, d["single"]
assert d["emitted"] == "by size"
assert abs(d["single"]["gain_pct"] - 100 * ((4 / 3) ** (2 / 3) - 1)) < 0.01, d["single"]'
for x in n=1024 n=4096 n=65536; do
	if [ -s "$g/$x/results.json" ] && [ -s "$g/$x/best.cu" ]; then ok "points_dir_$x"; else bad "points_dir_$x" "$(ls -R "$g")"; fi
done
has points_table "^n=1024 *100.0 *66.7 *66.7$" "$tmp/stdout"
has points_single_said "the best single variant, v[0-9a-f]*, runs at 100.0 %, 75.0 %, 75.0 %; choosing by size gains 21.1 %" "$tmp/stdout"
# the selection by size, compiled with the host's C compiler: a point's entry at its size, the
# nearest end's beyond the range, and strictly between two points their between entry (3: 1024
# to 4096, BLOCK 32, ratios 1 and 1.33 against BLOCK 64's 1.5 and 1; 4: 4096 to 65536)
cat >"$tmp/sel.c" <<'EOF'
#include "best.h"
int main(void)
{
	long long n[] = {1, 1024, 2047, 2048, 2049, 4096, 16383, 16385, 65536, 1LL << 40};
	int i;
	for (i = 0; i < 10; i++)
		printf("%lld %d\n", n[i], fake_pairs_bundle_at_size(0, n[i], 4));
	printf("portable %d\n", fake_pairs_bundle_at_size(FAKE_PAIRS_BUNDLE_PORTABLE, 1, 4));
	return 0;
}
EOF
if cc -I"$g" -o "$tmp/sel" "$tmp/sel.c" 2>"$tmp/cc.err" && "$tmp/sel" >"$tmp/sel.out" &&
	[ "$(tr '\n' ' ' <"$tmp/sel.out")" = "1 0 1024 0 2047 3 2048 3 2049 3 4096 1 16383 4 16385 4 65536 2 1099511627776 2 portable 5 " ]; then
	ok points_select_by_size; else bad points_select_by_size "$(cat "$tmp/cc.err" "$tmp/sel.out" 2>/dev/null)"; fi
# the same with BLOCK 32 three times slower at 4096 (a ratio 2 there): between the points the
# between entry (2) runs BLOCK 64 (ratios 1.5 and 1, the better worse ratio), though BLOCK 32
# wins at 1024
FAKECUDA_SLOW="32/64:3,64:1.5" tune points_mid 0 "$tmp/mid.log" --midpoints 0 --out "$tmp/mid" --size n=1024,4096 tests/fakecuda/pairs.yaml
if cc -I"$tmp/mid/fake_pairs/fake-gpu-sm90" -o "$tmp/sel2" "$tmp/sel.c" 2>"$tmp/cc.err" && "$tmp/sel2" >"$tmp/sel.out" &&
	[ "$(head -n 5 "$tmp/sel.out" | tr '\n' ' ')" = "1 0 1024 0 2047 2 2048 2 2049 2 " ] &&
	grep -q '^	{"Fake GPU", 9, 0, 4, 1, "v[0-9a-f]*", "BLOCK=64 TAIL=1", .*, 66.6667, 0, 8192, 32768},$' "$tmp/mid/fake_pairs/fake-gpu-sm90/best.h"; then
	ok points_select_between_measured; else bad points_select_between_measured "$(cat "$tmp/cc.err" "$tmp/sel.out" 2>/dev/null)"; fi
# near the lower point the medians interpolated in the bytes moved predict BLOCK 32 faster
# (at n = 1100, 2.5 % of the way: 0.975 + 0.025 * 3 = 1.05 against BLOCK 64's 1.5): the
# 1024 point's winner (0); halfway (n = 2560: 2 against 1.5) the between entry
sed -e 's/long long n\[\] = {[^}]*};/long long n[] = {1100, 2560};/' -e 's/i < 10/i < 2/' "$tmp/sel.c" >"$tmp/sel3.c"
if cc -I"$tmp/mid/fake_pairs/fake-gpu-sm90" -o "$tmp/sel3" "$tmp/sel3.c" 2>"$tmp/cc.err" && "$tmp/sel3" >"$tmp/sel.out" &&
	[ "$(head -n 2 "$tmp/sel.out" | tr '\n' ' ')" = "1100 0 2560 2 " ]; then
	ok points_select_between_interpolated; else bad points_select_between_interpolated "$(cat "$tmp/cc.err" "$tmp/sel.out" 2>/dev/null)"; fi
# midpoints: BLOCK 32 runs three times slower in 32 to 63 blocks only (n = 1985 to 4032), BLOCK
# 64 always 1.2 times: BLOCK 32 ties both points' winners, and without midpoints it is emitted
# alone; the midpoint n = 2112 (the geometric mean 2048 moved to an odd multiple of 64: the two
# sizes share more) times the candidates there and best.cu chooses by size, the
# midpoint's entry and BLOCK 64 between
mp=$tmp/midp
FAKECUDA_SLOW="32/32:3,32/64:1,64:1.2" tune midpoints_none 0 "$tmp/mp.log" --midpoints 0 --out "$mp/0" --size n=1024,4096 tests/fakecuda/pairs.yaml
check midpoints_none_single "$mp/0/fake_pairs/fake-gpu-sm90/results.json" '
assert d["emitted"] == "single" and d["midpoints"] == [] and d["single"]["alone"] is True, d'
FAKECUDA_SLOW="32/32:3,32/64:1,64:1.2" tune midpoints_run 0 "$tmp/mp.log" --out "$mp/1" --size n=1024,4096 tests/fakecuda/pairs.yaml
gm=$mp/1/fake_pairs/fake-gpu-sm90
check midpoints_json "$gm/results.json" '
m = d["midpoints"]
assert [(x["label"], x["dir"], x["between"], x["timed"]) for x in m] == [("n=2112", "n=2112", ["n=1024", "n=4096"], 2)], m
s = d["single"]
assert s["ties_every_winner"] is True and s["alone"] is False and d["emitted"] == "by size", s
assert m[0]["winner"] != s["id"], (m, s)'
check midpoints_point_json "$gm/n=2112/results.json" '
assert d["midpoint"] == {"between": ["n=1024", "n=4096"]}, d.get("midpoint")
ok = [v["id"] for v in d["variants"] if v["status"] == "ok"]
assert len(ok) == 2 and d["search"]["skipped"] == 2, (ok, d["search"])'
has midpoints_said "^tuner: midpoint 1 of 1: n=2112, between n=1024 and n=4096: 2 candidates" "$tmp/stderr"
has midpoints_single_said "it ties every point's winner, not the fastest at the midpoint n=2112 (40.0 %): chosen by size$" "$tmp/stdout"
has midpoints_header_entry "^ \*     1  Fake GPU, 9.0, 4 at n=2112 (a midpoint: its best of the candidates): v[0-9a-f]* (BLOCK=64 TAIL=1)" "$gm/best.h"
has midpoints_html '<li><a href="n=2112/report.html">n=2112</a>, between n=1024 and n=4096: v[0-9a-f]*</li>' "$gm/report.html"
has midpoints_header_between "^ \*     3  Fake GPU between n=1024 and n=2112: v[0-9a-f]* (BLOCK=64 TAIL=1)" "$gm/best.h"
sed -e 's/long long n\[\] = {[^}]*};/long long n[] = {1024, 1500, 2112, 3000, 4096};/' -e 's/i < 10/i < 5/' "$tmp/sel.c" >"$tmp/sel4.c"
if cc -I"$gm" -o "$tmp/sel4" "$tmp/sel4.c" 2>"$tmp/cc.err" && "$tmp/sel4" >"$tmp/sel.out" &&
	[ "$(head -n 5 "$tmp/sel.out" | tr '\n' ' ')" = "1024 0 1500 3 2112 1 3000 4 4096 2 " ]; then
	ok midpoints_select; else bad midpoints_select "$(cat "$tmp/cc.err" "$tmp/sel.out" 2>/dev/null)"; fi
# --midpoints 1: of the variants timed at both points the one best at both (BLOCK 32, which
# also wins both), not BLOCK 64 (83 % at 1024)
FAKECUDA_SLOW="32/32:3,32/64:1,64:1.2" tune midpoints_one 0 "$tmp/mp.log" --midpoints 1 --out "$mp/6" --size n=1024,4096 tests/fakecuda/pairs.yaml
has midpoints_one_said "^tuner: midpoint 1 of 1: n=2112, between n=1024 and n=4096: 1 candidate (the best" "$tmp/stderr"
# tuner bundle reads the midpoints back from the GPU directory
expect midpoints_bundle 0 "$T" bundle --out "$mp/b" "$mp/1/fake_pairs"
has midpoints_bundle_entry "^ \*     1  Fake GPU, 9.0, 4 at n=2112 (a midpoint" "$mp/b/fake_pairs_bundle.h"
# a GPU directory's midpoints naming a directory outside it, or not a list: refused, nothing written
for k in 1 2; do
	case $k in 1) bad='[{"dir": "../../x"}]' msg="midpoints\[0\]: no 'dir' naming a point's directory" ;;
		2) bad='5' msg="'midpoints' is not an array" ;; esac
	rm -rf "$mp/h" "$mp/hb" && cp -r "$mp/1/fake_pairs" "$mp/h"
	python3 -c "
import json, sys
f = sys.argv[1] + '/fake-gpu-sm90/results.json'
d = json.load(open(f))
d['midpoints'] = json.loads(sys.argv[2])
json.dump(d, open(f, 'w'))" "$mp/h" "$bad"
	expect "midpoints_bundle_bad_$k" 2 "$T" bundle --out "$mp/hb" "$mp/h"
	has "midpoints_bundle_bad_said_$k" "$msg" "$tmp/stderr"
	if [ -e "$mp/hb" ]; then bad "midpoints_bundle_bad_nothing_$k" "wrote $mp/hb"; else ok "midpoints_bundle_bad_nothing_$k"; fi
done
rm -rf "$mp/h" # not a tuner's file: left out of the schema check
# the portable default is not restricted to a midpoint's few candidates
has midpoints_portable "^ \*     5  portable default: v[0-9a-f]* (BLOCK=32 TAIL=1), at least 100.0 % of each tuned GPU's best$" "$gm/best.h"
# the midpoint rounded to what the two sizes share: 1000 and 2000 are multiples of 8, 1416 is
# the multiple of 8 nearest their geometric mean (1414.2); a size the config cannot take at
# the midpoint (a buffer of no element at n = 1416) is said, and the points' best.cu written
FAKECUDA_SLOW="32/32:3,64:1.2" tune midpoints_rounded 0 "$tmp/mp.log" --out "$mp/2" --size n=1000,2000 tests/fakecuda/pairs.yaml
if [ -f "$mp/2/fake_pairs/fake-gpu-sm90/n=1416/results.json" ]; then ok midpoints_rounded_dir; else bad midpoints_rounded_dir "$(ls "$mp/2/fake_pairs/fake-gpu-sm90")"; fi
python3 - tests/fakecuda/pairs.yaml "$tmp/mpbad.yaml" "$PWD/tests/fakecuda" <<'EOF'
import sys
t = open(sys.argv[1]).read()
t = t.replace("template: pairs.cu", "template: %s/pairs.cu" % sys.argv[3])
t = t.replace("source: fake_ref.cu", "source: %s/fake_ref.cu" % sys.argv[3])
t = t.replace("    count: n\n    role: in", "    count: (n - 1416) * (n - 1416)\n    role: in", 1)
open(sys.argv[2], "w").write(t)
EOF
FAKECUDA_L2=67108864 FAKECUDA_SLOW="32/32:3,64:1.2" tune midpoints_refused 0 "$tmp/mp.log" --out "$mp/3" --size n=1000,2000 "$tmp/mpbad.yaml"
has midpoints_refused_said "no midpoint between n=1000 and n=2000: the config does not take n=1416" "$tmp/stderr"
if [ -f "$mp/3/fake_pairs/fake-gpu-sm90/best.h" ] && [ ! -e "$mp/3/fake_pairs/fake-gpu-sm90/n=1416" ]; then
	ok midpoints_refused_files; else bad midpoints_refused_files "$(ls -R "$mp/3")"; fi
# across the L2: 65536 is timed in the fake's 1 MiB L2 (8 bytes an element), 1048576 flushed;
# the midpoint is the largest size whose buffers still fit in 3/4 of it (98304, an odd multiple
# of 64 below: 98240), not the geometric mean
FAKECUDA_SLOW="32/32:3,64:1.2" tune midpoints_l2 0 "$tmp/mp.log" --out "$mp/4" --size n=65536,1048576 tests/fakecuda/pairs.yaml
check midpoints_l2_json "$mp/4/fake_pairs/fake-gpu-sm90/results.json" '
assert [x["label"] for x in d["midpoints"]] == ["n=98240"], d["midpoints"]'
check midpoints_l2_timed "$mp/4/fake_pairs/fake-gpu-sm90/n=98240/results.json" '
assert d["l2"]["flush"] is False, d["l2"]'
# no candidate verified at the midpoint (every kernel wrong in 23 to 45 blocks: at n = 2880
# between 1024 and 8192 only): said, and best.cu chooses between the points from the two
# alone; the run's status stays 0
FAKECUDA_WRONG=23-45 FAKECUDA_SLOW="64:1.5,32/64:2" tune midpoints_unverified 0 "$tmp/mp.log" --out "$mp/5" --size n=1024,8192 tests/fakecuda/pairs.yaml
has midpoints_unverified_said "no candidate verified at the midpoint n=2880: best.cu chooses between n=1024 and n=8192 from the two alone" "$tmp/stderr"
check midpoints_unverified_json "$mp/5/fake_pairs/fake-gpu-sm90/results.json" '
assert d["midpoints"] == [] and d["emitted"] == "by size", d'
if grep -q '<a href="n=4096/report.html">n=4096</a>' "$g/report.html" && grep -q "<td>66.7</td>" "$g/report.html"; then
	ok points_report_html; else bad points_report_html "$(head -c 2000 "$g/report.html")"; fi
for x in 1024 4096 65536; do has "points_page_names_n=$x" "<span class=\"sub\">on Fake GPU ([^<]*), at n=$x</span>" "$g/n=$x/report.html"; done
has points_header_entries "^ \*     2  Fake GPU, 9.0, 4 at n=65536: " "$g/best.h"
has points_header_between "^ \*     3  Fake GPU between n=1024 and n=4096: v[0-9a-f]* (BLOCK=32 TAIL=1), at least 75.0 % of the fastest at both$" "$g/best.h"
# a config listing its points does the same; one variant the fastest everywhere: emitted alone
python3 - tests/fakecuda/pairs.yaml "$tmp/pts.yaml" "$PWD/tests/fakecuda" <<'EOF'
import sys
t = open(sys.argv[1]).read()
t = t.replace("sizes:\n  n: 4096\n", "sizes:\n  - {n: 1024}\n  - {n: 4096}\n")
t = t.replace("template: pairs.cu", "template: %s/pairs.cu" % sys.argv[3])
t = t.replace("source: fake_ref.cu", "source: %s/fake_ref.cu" % sys.argv[3])
open(sys.argv[2], "w").write(t)
EOF
tune points_config 0 "$tmp/pts2.log" --out "$p/2" "$tmp/pts.yaml"
check points_single "$p/2/fake_pairs/fake-gpu-sm90/results.json" '
assert [x["label"] for x in d["points"]] == ["n=1024", "n=4096"], d["points"]
assert d["emitted"] == "single" and d["single"]["ties_every_winner"] is True, d'
if grep -q "fake_pairs_bundle" "$p/2/fake_pairs/fake-gpu-sm90/best.h" || ! grep -q "^ \* parameters: " "$p/2/fake_pairs/fake-gpu-sm90/best.h"; then
	bad points_single_emitted "$(head -20 "$p/2/fake_pairs/fake-gpu-sm90/best.h")"; else ok points_single_emitted; fi
# --dry-run asks the GPU for its limits and allocates nothing on it; a run does
rm -f "$tmp/alloc.log"
FAKECUDA_ALLOC_LOG="$tmp/alloc.log" tune dry_run_fake 0 "$tmp/dry.log" --dry-run --size n=1024,4096 tests/fakecuda/pairs.yaml
FAKECUDA_ALLOC_LOG="$tmp/alloc.log" tune dry_run_fake_single 0 "$tmp/dry.log" --dry-run tests/fakecuda/pairs.yaml
# with a GPU the config's budget holds: --dry-run says so (without one it is set aside: run.sh)
{ sed -e "s|: fake_ref.cu|: $PWD/tests/fakecuda/fake_ref.cu|" -e "s|: pairs.cu|: $PWD/tests/fakecuda/pairs.cu|" tests/fakecuda/pairs.yaml
	echo "search: {budget: 2, strategy: random}"; } >"$tmp/pairs_budget.yaml"
tune dry_run_budget 0 "$tmp/dry.log" --dry-run "$tmp/pairs_budget.yaml"
has dry_run_budget_said "^search: random (the config's search), at most 2 of the 4 kept variants (the config's search)$" "$tmp/stdout"
[ ! -e "$tmp/alloc.log" ] && ok dry_run_no_gpu_memory || bad dry_run_no_gpu_memory "$(head -5 "$tmp/alloc.log")"
FAKECUDA_ALLOC_LOG="$tmp/alloc.log" tune dry_run_then_run 0 "$tmp/dry.log" --out "$p/8" tests/fakecuda/pairs.yaml
[ -s "$tmp/alloc.log" ] && ok run_allocates_gpu_memory || bad run_allocates_gpu_memory "no allocation logged"
# a points run into a GPU directory that holds a single run replaces that run's files: the
# GPU directory is one set, the points run's
g6=$p/6/fake_pairs/fake-gpu-sm90
tune points_over_single_first 0 "$tmp/pts6.log" --out "$p/6" --size n=1024 tests/fakecuda/pairs.yaml
tune points_over_single_run 0 "$tmp/pts6.log" --out "$p/6" --size n=1024,4096 tests/fakecuda/pairs.yaml
left=$(cd "$g6" && ls results.csv config.yaml template.cu journal 2>/dev/null)
if [ -z "$left" ] && grep -q '"points"' "$g6/results.json" && [ -s "$g6/n=4096/results.csv" ]; then
	ok points_over_single_replaces; else bad points_over_single_replaces "left: $left; $(ls "$g6")"; fi
# two points runs into one GPU directory take turns at its files: its results.json, report.html
# and best.h are one run's (TUNER_TEST_RENAME_PAUSE: the first renames each file of the GPU
# directory's set 0.5 s after the one before, a window for the other's whole set)
mixed=0
for try in 1 2 3; do
	rm -rf "$p/7"
	for pts in 1024,4096/500 2048,65536/0; do # no point in common: they write at the same time
		FAKECUDA_SLOW="32/64:2,64:1.5" TUNER_TEST_RENAME_PAUSE=${pts#*/} LD_LIBRARY_PATH="$fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
			"$T" -q --out "$p/7" --size n=${pts%/*} tests/fakecuda/pairs.yaml >/dev/null 2>&1 &
	done
	wait
	g7=$p/7/fake_pairs/fake-gpu-sm90
	last=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["points"][1]["label"])' "$g7/results.json")
	grep -q "href=\"$last/report.html\"" "$g7/report.html" && grep -q " at $last: " "$g7/best.h" || mixed=$((mixed + 1))
done
[ $mixed -eq 0 ] && ok points_concurrent_one_set || bad points_concurrent_one_set "$mixed of 3 tries mixed two runs' files"
# another GPU tuned at the same points: each point compares with that GPU's same point
FAKECUDA_DEVICES="Fake GPU B:8.0:2" tune points_other_gpu 0 "$tmp/pts5.log" -v --midpoints 0 --out "$p" --size n=1024,4096,65536 tests/fakecuda/pairs.yaml
if [ "$(grep -c "^re-tuning: Fake GPU's winner" "$tmp/stdout")" -eq 3 ] && ! grep -q "not readable as results" "$tmp/stderr"; then
	ok points_retune_same_point; else bad points_retune_same_point "$(grep -i "re-tuning\|readable" "$tmp/stdout" "$tmp/stderr")"; fi
# tuner bundle reads a GPU tuned at several points as an entry per point (GPU x size)
expect points_bundle 0 "$T" bundle --out "$p/b" "$p/fake_pairs"
has points_bundle_entries "^ \*     1  Fake GPU, 9.0, 4 at n=4096: " "$p/b/fake_pairs_bundle.h"
# the bank model's predictions are the first point's where it sees no size; else each point's
for idx in "tid" "tid % n"; do
	python3 - tests/fakecuda/pairs.yaml "$tmp/acc.yaml" "$PWD/tests/fakecuda" "$idx" <<'EOF'
import sys
t = open(sys.argv[1]).read()
t = t.replace("template: pairs.cu", "template: %s/pairs.cu" % sys.argv[3])
t = t.replace("source: fake_ref.cu", "source: %s/fake_ref.cu" % sys.argv[3])
t += "accesses:\n  - {name: a, array: s, elem: 4, index: \"%s\"}\n" % sys.argv[4]
open(sys.argv[2], "w").write(t)
EOF
	tune "points_bank_run_$([ "$idx" = tid ] && echo 1 || echo 0)" 0 "$tmp/acc.log" -v --midpoints 0 --out "$p/acc" --size n=1024,4096 "$tmp/acc.yaml"
	shared=$(grep -c "bank model: the first point's predictions" "$tmp/stderr")
	if [ "$idx" = tid ]; then want=1; else want=0; fi
	if [ "$shared" -eq "$want" ] && [ "$(grep -c "bank model" "$tmp/stderr")" -eq 2 ]; then ok "points_bank_shared_$want"; else bad "points_bank_shared_$want" "$(grep "bank model" "$tmp/stderr")"; fi
done
# a points file naming a directory outside its own, or too many points: refused, nothing written
for k in 1 2 3; do
	case $k in 1) bad='"../../x"' ;; 2) bad='"."' ;; 3) bad='5' ;; esac
	rm -rf "$p/h" && cp -r "$p/fake_pairs" "$p/h"
	python3 -c "
import json, sys
f = sys.argv[1] + '/fake-gpu-sm90/results.json'
d = json.load(open(f))
d['points'][1]['dir'] = json.loads(sys.argv[2])
json.dump(d, open(f, 'w'))" "$p/h" "$bad"
	expect "points_bundle_bad_dir_$k" 2 "$T" bundle --out "$p/hb" "$p/h"
	has "points_bundle_bad_dir_said_$k" "results.json: points\[1\]: no 'dir' naming a point's directory" "$tmp/stderr"
	if [ -e "$p/hb" ]; then bad "points_bundle_bad_dir_nothing_$k" "wrote $p/hb"; else ok "points_bundle_bad_dir_nothing_$k"; fi
done
# without a GPU: each point compiled, the GPU directory's file says nothing was timed
expect points_untimed 0 env -u LD_LIBRARY_PATH "$T" -q --arch sm_90 --out "$p/u" --size n=1024,4096 tests/fakecuda/pairs.yaml
check points_untimed_json "$p/u/fake_pairs/untimed-sm_90/results.json" '
assert d["timed"] is False and d["emitted"] is None and d["single"] is None, d
assert d["winners_at_points"]["pct"] == [[None, None], [None, None]], d'
# a point where no variant verifies (the fake's kernels in 512 blocks or more do nothing): its
# run exits 1, the others' results stand, and no best.cu chooses by size
FAKECUDA_WRONG=512 tune points_no_winner 1 "$tmp/pts6.log" --out "$p/nw" --size n=1024,65536 tests/fakecuda/pairs.yaml
check points_no_winner_json "$p/nw/fake_pairs/fake-gpu-sm90/results.json" '
assert d["timed"] is True and d["emitted"] is None, d
assert d["points"][0]["winner"] and d["points"][1]["winner"] is None, d["points"]'
has points_no_winner_said "no variant verified at n=65536: no best.cu chooses by size" "$tmp/stderr"
if [ -e "$p/nw/fake_pairs/fake-gpu-sm90/best.cu" ] || [ ! -s "$p/nw/fake_pairs/fake-gpu-sm90/n=1024/best.cu" ]; then
	bad points_no_winner_files "$(ls -R "$p/nw")"; else ok points_no_winner_files; fi
# two GPUs of one model: both workers take each point's setup, and each point uses both
FAKECUDA_DEVICES="Fake GPU:9.0:4,Fake GPU:9.0:4" tune points_devices 0 "$tmp/pts7.log" --devices all --out "$p/dv" --size n=1024,65536 tests/fakecuda/pairs.yaml
check points_devices_json "$p/dv/fake_pairs/fake-gpu-sm90/n=65536/results.json" '
assert sorted({v["device"] for v in d["variants"] if "device" in v}) == [0, 1], d["variants"]'
# what several points cannot do together
tune points_no_shard 2 "$tmp/pts3.log" --shard 1/2 --out "$p/3" --size n=1024,4096 tests/fakecuda/pairs.yaml
has points_no_shard_said "shard one point at a time" "$tmp/stderr"
tune points_too_many 2 "$tmp/pts4.log" --out "$p/4" --size n=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17 tests/fakecuda/pairs.yaml
has points_too_many_said "more than 16 points to tune at" "$tmp/stderr"

# a parameter whose values depend on an earlier one: TAIL is [1, BLOCK / 64], so BLOCK 32 has
# TAIL 1 and 0 and BLOCK 64 only 1 (its 1 twice, tried once); the bundle checks a variant's
# value among those its earlier values give
sed -e 's|  TAIL: \[0, 1\]|  TAIL: [1, "BLOCK / 64"]|' -e "s|: pairs.cu|: $PWD/tests/fakecuda/pairs.cu|" \
	-e "s|: fake_ref.cu|: $PWD/tests/fakecuda/fake_ref.cu|" tests/fakecuda/pairs.yaml >"$tmp/dep.yaml"
d=$tmp/dep
tune dep_run 0 "$tmp/dep.log" --out "$d" "$tmp/dep.yaml"
check dep_variants "$d/fake_pairs/fake-gpu-sm90/results.json" '
got = sorted((v["params"]["BLOCK"], v["params"]["TAIL"], v["status"]) for v in d["variants"])
assert got == [(32, 0, "mismatch"), (32, 1, "ok"), (64, 1, "ok")], got
'
expect dep_bundle 0 "$T" bundle "$d/fake_pairs"
python3 -c "
import json, sys
f = sys.argv[1]
d = json.load(open(f))
w = [v for v in d['variants'] if v['id'] == d['winner']][0]
w['params'] = {'BLOCK': 64, 'TAIL': 0}
json.dump(d, open(f, 'w'))" "$d/fake_pairs/fake-gpu-sm90/results.json"
expect dep_bundle_value_refused 2 "$T" bundle --out "$tmp/dep_b2" "$d/fake_pairs"
has dep_bundle_value_said "TAIL=0 is not among the config's values" "$tmp/stderr"

# float2 buffers: allocated, filled (the device fill checked against the host formula) and
# compared per component; a variant wrong in one component of each element is a mismatch that
# names the element and the component; the header and the bundle take float2 pointers
v=$tmp/vec
tune vec_run 0 "$tmp/vec.log" --out "$v" tests/fakecuda/cswap.yaml
check vec_results "$v/fake_cswap/fake-gpu-sm90/results.json" '
st = {v["params"]["BUG"]: (v["status"], v.get("reason", "")) for v in d["variants"]}
assert st[0] == ("ok", ""), st
assert st[1] == ("mismatch", "999 of 2000 elements differ; first at out[0].y: -1 vs -2"), st
'
has vec_header_doc "^/\* out (float2, argument 1): out, written by the kernel \*/$" \
	"$v/fake_cswap/fake-gpu-sm90/best.h"
expect vec_bundle 0 "$T" bundle "$v/fake_cswap"
has vec_bundle_params "fake_cswap_bundle_launch(int entry, float2 \*out, float2 \*in, long long n," \
	"$v/fake_cswap/bundle/fake_cswap_bundle.h"
expect vec_bundle_nvcc 0 "${TUNER_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}" \
	-arch=sm_90 -Xcompiler -Wall,-Wextra -c -o "$tmp/vec.o" "$v/fake_cswap/bundle/fake_cswap_bundle.cu"

# floating-point scalar arguments: a float and a double worked out from expressions reach the
# kernel as those types (the reference has their values built in), and so do the emitted header
# and bundle, as C computes them; an integer division in one stays an integer division
c=$tmp/coef
tune coef_run 0 "$tmp/coef.log" --out "$c" tests/fakecuda/coef.yaml
check coef_verified "$c/fake_coef/fake-gpu-sm90/results.json" '
assert [v["status"] for v in d["variants"]] == ["ok", "ok"], [(v["status"], v.get("reason")) for v in d["variants"]]
'
has coef_header_call ">>>(out, in, n, (float)((1.0 / 4LL)), (double)((((32LL / (2.0 \* 32LL)) \* n) / 4096LL)));" \
	"$c/fake_coef/fake-gpu-sm90/best.h"
expect coef_bundle 0 "$T" bundle "$c/fake_coef"
has coef_bundle_call "(float)((1.0 / 4LL)), (double)(" "$c/fake_coef/bundle/fake_coef_bundle.cu"
NVCC=${TUNER_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
expect coef_bundle_nvcc 0 "$NVCC" -arch=sm_90 -Xcompiler -Wall,-Wextra -c -o "$tmp/coef.o" \
	"$c/fake_coef/bundle/fake_coef_bundle.cu"
sed -e 's|"BLOCK / (2.0 \* BLOCK) \* n / 4096"|"n / 8192"|' -e "s|: coef.cu|: $PWD/tests/fakecuda/coef.cu|" \
	-e "s|: fake_ref.cu|: $PWD/tests/fakecuda/fake_ref.cu|" tests/fakecuda/coef.yaml >"$tmp/coef_int.yaml"
tune coef_int_division 1 "$tmp/coef.log" --out "$c" "$tmp/coef_int.yaml"
check coef_int_mismatch "$c/fake_coef/fake-gpu-sm90/results.json" '
assert [v["status"] for v in d["variants"]] == ["mismatch", "mismatch"], d["variants"]
'

# explain --sass compiles for the GPU's architecture, as a timed run does: on the fake sm_90
# GPU (NVRTC's newest is another) the cubin the disassembler gets (a stub that keeps it and
# lists one instruction, so every variant differs: exit 1) is an sm_90 one, its ELF flags say
# (bits 8-15); --arch still wins
printf '#!/bin/sh\ncp "$2" "%s"\nprintf "\\t/*0000*/ NOP ;\\n"\n' "$tmp/sass.cubin" >"$tmp/disasm"
chmod +x "$tmp/disasm"
sm() { python3 -c 'import struct, sys; print(struct.unpack_from("<I", open(sys.argv[1], "rb").read(), 48)[0] >> 8 & 255)' "$tmp/sass.cubin"; }
export TUNER_DISASM="$tmp/disasm"
tune sass_gpu_arch 1 "$tmp/sass.log" explain --sass --budget 1 configs/transpose.yaml
has sass_gpu_arch_said "^tuner explain --sass: compiling for sm_90, the GPU's (Fake GPU)$" "$tmp/stdout"
[ "$(sm)" = 90 ] && ok sass_gpu_arch_cubin || bad sass_gpu_arch_cubin "the cubin's architecture: sm_$(sm)"
tune sass_arch_given 1 "$tmp/sass.log" explain --sass --budget 1 --arch sm_80 configs/transpose.yaml
has sass_arch_given_said "^tuner explain --sass: compiling for sm_80, as --arch says$" "$tmp/stdout"
[ "$(sm)" = 80 ] && ok sass_arch_given_cubin || bad sass_arch_given_cubin "the cubin's architecture: sm_$(sm)"
unset TUNER_DISASM

schema_all results_schema_fakegpu "/pts/h/"
finish fakegpu
