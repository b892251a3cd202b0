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
# that ran best on another GPU tuned beside this one. And --devices over fake GPUs of two models
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
if tail -n 1 "$tmp/pairs_run.err" | grep -q "^tuner: the run at a glance: $o/fake_pairs/fake-gpu-sm90/report.html; the winner: $o/fake_pairs/fake-gpu-sm90/best.cu$"; then
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
# a re-run takes every result from the journal; other extra sizes re-run every variant
tune pairs_rerun 0 "$tmp/pairs2.log" --out "$o" tests/fakecuda/pairs.yaml
has pairs_resumed "4 results kept from an earlier run" "$tmp/stderr"
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
# the ties in one line, the rule in full with -v
tune pairs_ties_verbose 0 "$tmp/pairs6.log" -v --out "$o" tests/fakecuda/pairs.yaml
has pairs_ties_verbose_rule "^ties (=): 2 variants cannot be told apart from the fastest (their medians" "$tmp/stdout"
tune pairs_ties_line 0 "$tmp/pairs6.log" --out "$o" tests/fakecuda/pairs.yaml
if [ "$(grep -c '^ties (=)' "$tmp/stdout")" -eq 1 ] && grep -q "^ties (=): 2 within 0.5 % of the fastest (results of 0 other GPUs read); .*; the tie rule: -v or report.html$" "$tmp/stdout"; then
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
# hysteresis: BLOCK 32 made slower than BLOCK 64 (FAKECUDA_SLOW). At 0.8 % (beyond timing.tie's
# 0.5 %) it is no tie of a run of its own, but as the run before's winner it stays (within
# twice the band); at 1.5 % (beyond the play-off's 1 %) it still takes part as the earlier
# winner (within twice that) and loses
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
# without an earlier winner, 1.5 % is beyond the play-off's net: no play-off
FAKECUDA_SLOW=32:1.015 tune hyst_alone 0 "$tmp/hyst.log" --out "$tmp/oh2" tests/fakecuda/pairs.yaml
check hyst_alone_playoff "$tmp/oh2/fake_pairs/fake-gpu-sm90/results.json" '
assert "playoff" not in d and d["variants"][0]["params"]["BLOCK"] == 64, d.get("playoff")
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

# refill: launch: bins zeroed before every launch, the verified one, the warm-ups and the
# samples, outside the timed interval (an L2 flush and the events bracket only the kernel)
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
# first event
if awk '
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
unset FAKECUDA_DEVICES

schema_all results_schema_fakegpu
finish fakegpu
