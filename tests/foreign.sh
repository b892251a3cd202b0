#!/bin/sh
# Results from elsewhere, through the real binary: other GPUs' results beside a run, shards to
# merge and directories to bundle that another user or machine wrote. A name or path in them
# reaches generated code and the terminal only escaped; a bad sibling is skipped with a warning
# before any work; results files are bounded before they are parsed; a recorded config path
# leads to no file outside; what the tuner writes it reads back.
# usage: tests/foreign.sh [TUNER]  (default: $TUNER_BINDIR/tuner, else out/bin/tuner)
# Ends with "foreign: N passed, N failed"; exits non-zero on any failure.
set -u
cd "$(dirname "$0")/.." || exit 2
T=${1:-${TUNER_BINDIR:-out/bin}/tuner}
. tests/lib.sh
tmpdir foreign
export TUNER_CACHE="$tmp/cache"
fake=$(dirname "$(dirname "$T")")/fakecuda
# ftune ARGS...: a run on the fake GPU; exit status in $rc, stdout and stderr in $tmp/f.*
ftune() { LD_LIBRARY_PATH="$fake" timeout 60 "$T" -j 2 "$@" >"$tmp/f.out" 2>"$tmp/f.err"; rc=$?; }
# edit JSON PYTHON: run PYTHON on j, the results of JSON, and write them back
edit() { python3 -c "import json, sys
j = json.load(open(sys.argv[1]))
$2
json.dump(j, open(sys.argv[1], 'w'))" "$1"; }
# clean FILE...: no escape character, no C1 control, no comment closed early in FILE
esc=$(printf '\033')
clean() { ! grep -q "$esc" "$@" && ! grep -qP '\xc2[\x80-\x9f]' "$@"; }
# code HEADER: the name reaches the code only as a string literal (the C preprocessor drops
# the comments: a name that closed one would leave its "int pwned;" as code)
code() { cpp -P "$1" 2>/dev/null | grep pwned | grep -vqF '{"X */ int pwned; /* \033[2J\012tuner: best: forged"'; }
EVIL='X */ int pwned; /* \u001b[2J\ntuner: best: forged'

# ---- generated code: a GPU name holding */ in every line of the bundle header that names one
U=$tmp/u
$T -q -j 2 --arch sm_90 --out "$U" tests/kernels/scale.yaml >/dev/null 2>&1
b=$tmp/b/scale
mkdir -p "$tmp/b" && python3 tests/bundle/fake_gpus.py "$U/scale/untimed-sm_90" "$b" >/dev/null
printf 'name: other\n' >"$tmp/changed.yaml" # the recorded config, changed since: CHANGED since
edit "$b/nvidia-h200-sm90/results.json" "j['gpu'] = '$EVIL'; j['config'] = '$tmp/changed.yaml'
j['sizes']['m'] = 1; j['compute_capability'] = '7.0'  # the oldest: the portable default's
a = json.load(open(sys.argv[1].replace('nvidia-h200-sm90', 'nvidia-a100-sxm4-80gb-sm80')))
bad = [v['id'] for v in a['variants'] if v['status'] == 'mismatch']
j['variants'] = [v for v in j['variants'] if v['status'] != 'ok' or v['id'] in bad]"
$T bundle "$b" >"$tmp/b.out" 2>"$tmp/b.err"
rc=$?
h=$b/bundle/scale_bundle.h
if [ $rc -eq 0 ] && grep -q "CHANGED since X \* / int pwned" "$h" && grep -q "other sizes than" "$h" &&
	grep -q "no variant was timed on every GPU.* X \* / int pwned" "$h" && ! code "$h" &&
	! sed -n '/^ \* /p' "$h" | grep -q "^tuner: best" && clean "$h" "$b/bundle/scale_bundle.cu" "$tmp/b.err"; then
	ok bundle_foreign_gpu_name_escaped
else
	bad bundle_foreign_gpu_name_escaped "exit $rc: $(cat "$tmp/b.err"; grep -n "pwned" "$h")"
fi
# and results of an older tuner (no copies) with such a name: the legacy line too
l=$tmp/l/scale
mkdir -p "$tmp/l" && python3 tests/bundle/fake_gpus.py --legacy "$U/scale/untimed-sm_90" "$l" >/dev/null
edit "$l/nvidia-h200-sm90/results.json" "j['gpu'] = '$EVIL'"
$T bundle "$l" >/dev/null 2>"$tmp/l.err"
rc=$?
[ $rc -eq 0 ] && grep -q "X \* / int pwned.*results without copies" "$l/bundle/scale_bundle.h" &&
	! code "$l/bundle/scale_bundle.h" && clean "$l/bundle/scale_bundle.h" "$tmp/l.err" &&
	ok bundle_legacy_name_escaped || bad bundle_legacy_name_escaped "exit $rc: $(cat "$tmp/l.err")"

# ---- a recorded config outside: never read unless a .yaml, its text never shown
for cfg in /etc/shadow /etc/passwd "$tmp/secret.yaml"; do
	printf 'SECRET_LINE_42: 1\n' >"$tmp/secret.yaml"
	rm -rf "$l/bundle"
	edit "$l/nvidia-h200-sm90/results.json" "j['gpu'] = 'NVIDIA H200'; j['config'] = '$cfg'"
	$T bundle "$l" >/dev/null 2>"$tmp/s.err"
	rc=$?
	n=$(basename "$cfg")
	[ $rc -eq 2 ] && grep -q "^tuner: $l/nvidia-h200-sm90/results.json: no copy of the config beside it.*'$cfg'" "$tmp/s.err" &&
		! grep -q "root:\|SECRET_LINE_42\|unknown key" "$tmp/s.err" && [ ! -e "$l/bundle" ] &&
		ok "bundle_recorded_config_${n}_not_shown" || bad "bundle_recorded_config_${n}_not_shown" "exit $rc: $(cat "$tmp/s.err")"
done

# ---- other GPUs' directories beside a run: a points file naming a directory outside, a huge
# results.json, a name with escapes and a newline; each warned about before the run works
o=$tmp/o
ftune --out "$o" tests/fakecuda/pairs.yaml
k=$o/fake_pairs
mkdir -p "$k/evil-points" "$k/huge" "$k/named"
echo '{"points": [{"dir": "../../../etc"}]}' >"$k/evil-points/results.json"
truncate -s 200M "$k/huge/results.json"
cp "$k/fake-gpu-sm90/results.json" "$k/named/results.json"
edit "$k/named/results.json" "j['gpu'] = '$EVIL'"
t0=$(now)
ftune --out "$o" tests/fakecuda/pairs.yaml
dt=$(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 2))" "$t0" "$(now)")
unwrap "$tmp/f.err" >"$tmp/f.err.u" # the warnings are wrapped at 120 columns
first=$(grep -n "tuner: timing on" "$tmp/f.err.u" | cut -d: -f1)
w1=$(grep -n "warning: $k/evil-points/results.json: points\[0\]: no 'dir' naming a point's directory" "$tmp/f.err.u" | cut -d: -f1)
w2=$(grep -n "warning: $k/huge/results.json: 209715200 bytes, more than the 64 MiB results may hold" "$tmp/f.err.u" | cut -d: -f1)
[ $rc -eq 0 ] && [ -n "$w1" ] && [ -n "$w2" ] && [ -n "$first" ] && [ "$w1" -lt "$first" ] && [ "$w2" -lt "$first" ] &&
	[ -f "$k/fake-gpu-sm90/results.json" ] && ok sibling_bad_skipped_before_work ||
	bad sibling_bad_skipped_before_work "exit $rc: $(cat "$tmp/f.err")"
python3 -c 'import sys; sys.exit(float(sys.argv[1]) > 10)' "$dt" && ok sibling_huge_bounded || bad sibling_huge_bounded "$dt s"
[ "$(grep -c "^tuner: best\|^best:" "$tmp/f.out")" -le 1 ] && grep -qF "re-tuning: X * / int pwned; / * \\x1b[2J\\x0atuner: best: forged's winner" "$tmp/f.out" &&
	clean "$tmp/f.out" "$tmp/f.err" && ok sibling_gpu_name_escaped || bad sibling_gpu_name_escaped "$(grep -a "re-tuning" "$tmp/f.out")"

# ---- bounded reads for bundle: a 200 MB points array, a 100 MB results.json
m=$tmp/m/scale
mkdir -p "$tmp/m" && cp -r "$b" "$m" && rm -rf "$m/bundle"
python3 -c 'import sys; open(sys.argv[1], "w").write("{\"points\": [" + ",".join(["{\"dir\": \"n=1\"}"] * 14000000) + "]}")' "$m/nvidia-h200-sm90/results.json"
t0=$(now)
$T bundle "$m" >/dev/null 2>"$tmp/m.err"
rc=$?
dt=$(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 2))" "$t0" "$(now)")
[ $rc -eq 2 ] && grep -q "^tuner: $m/nvidia-h200-sm90/results.json: [0-9]* bytes, more than the 64 MiB results may hold (RESULTS_MAX): not read$" "$tmp/m.err" &&
	python3 -c 'import sys; sys.exit(float(sys.argv[1]) > 2)' "$dt" && ok bundle_huge_points_refused_at_once ||
	bad bundle_huge_points_refused_at_once "exit $rc after $dt s: $(cat "$tmp/m.err")"
truncate -s 100M "$m/nvidia-h200-sm90/results.json"
$T bundle "$m" >/dev/null 2>"$tmp/m.err"
rc=$?
[ $rc -eq 2 ] && grep -q "^tuner: $m/nvidia-h200-sm90/results.json: 104857600 bytes, more than the 64 MiB" "$tmp/m.err" &&
	ok bundle_huge_results_refused || bad bundle_huge_results_refused "exit $rc: $(cat "$tmp/m.err")"
# a point's size below 0: the file named
rm -rf "$m" && cp -r "$b" "$m" && rm -rf "$m/bundle"
edit "$m/nvidia-h200-sm90/results.json" "j['sizes']['n'] = -1"
$T bundle "$m" >/dev/null 2>"$tmp/m.err"
rc=$?
[ $rc -eq 2 ] && [ "$(cat "$tmp/m.err")" = "tuner: $m/nvidia-h200-sm90/results.json: sizes: 'n' is -1: a size is 0 or more" ] &&
	ok bundle_negative_size_names_file || bad bundle_negative_size_names_file "exit $rc: $(cat "$tmp/m.err")"

# ---- --seed: what the tuner writes it reads back
expect seed_2_63_refused 2 "$T" --dry-run --seed 9223372036854775808 tests/fakecuda/pairs.yaml
has seed_2_63_said "^tuner: --seed: '9223372036854775808' is not a non-negative number of at most 9223372036854775807" "$tmp/stderr"
sh=$tmp/sh
for i in 1 2; do ftune -q --seed 9223372036854775807 --strategy random --shard $i/2 --out "$sh" tests/fakecuda/pairs.yaml; done
g=$sh/fake_pairs/fake-gpu-sm90
expect seed_2_63_less_1_merges 0 "$T" merge -q "$g"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["search"]["seed"] == 2**63 - 1, d["search"]' \
	"$g/results.json" 2>"$tmp/py" && ok seed_kept_by_merge || bad seed_kept_by_merge "$(cat "$tmp/py")"

# ---- merge keeps the L2 policy, and refuses shards timed under different ones
python3 -c 'import json, sys
m, s = (json.load(open(p))["l2"] for p in sys.argv[1:])
assert m == s and m["why"], (m, s)' "$g/results.json" "$g/shard-1-of-2/results.json" 2>"$tmp/py" &&
	ok merge_keeps_l2 || bad merge_keeps_l2 "$(cat "$tmp/py")"
# a shard's reason reaches the table escaped
edit "$g/shard-2-of-2/results.json" "v = [x for x in j['variants'] if x['status'] == 'ok' and x['id'] != j['winner']][0]; v['status'] = 'mismatch'; v['reason'] = 'bad\\x1b[2J */ evil\\ntuner: best: forged'"
expect merge_reason_run 0 "$T" merge -v "$g"
if grep -q "$(printf '\033')" "$tmp/stdout" || grep -q '^tuner: best: forged' "$tmp/stdout" || ! grep -q 'mismatch: bad\\x1b\[2J \* / evil' "$tmp/stdout"; then
	bad merge_reason_escaped "$(grep -n 'mismatch' "$tmp/stdout" | head -3)"; else ok merge_reason_escaped; fi
edit "$g/shard-2-of-2/results.json" "j['l2']['flush'] = not j['l2']['flush']"
expect merge_l2_differs_refused 2 "$T" merge -q "$g"
has merge_l2_differs_named "^tuner: $g/shard-2-of-2/results.json: timed with the L2 .*, $g/shard-1-of-2/results.json with it .*: shards of different L2 policies$" "$tmp/stderr"

schema_all results_schema_foreign "/(b|l|m)/scale/|/o/fake_pairs/(named|huge|evil-points)/"
finish foreign
