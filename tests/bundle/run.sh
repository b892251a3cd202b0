#!/bin/sh
# tuner bundle, without a GPU: the example application and its bundles (examples/build.sh,
# compiled with nvcc, not run), the selection compiled with the host's C compiler alone and
# asked about GPUs tuned and never tuned, a bundle of the test kernel against its golden copy,
# results.json of an older tuner, a changed template flagged, and bad input (exit 2, the file
# named, nothing written), and tests/gpu/dispatch.cu built against the shipped kernels' bundles.
# The GPU results are synthetic (tests/bundle/fake_gpus.py).
# usage: tests/bundle/run.sh TUNER UNTIMED NVCC
#   UNTIMED: the --out directory of compile-only runs of the shipped configs and
#   tests/kernels/scale.yaml with --arch sm_90 (tests/run.sh makes it)
# Ends with "bundle: N passed, N failed"; exits non-zero on any failure.
set -u
cd "$(dirname "$0")/../.." || exit 2
T=$1 U=$2 NVCC=$3
. tests/lib.sh
tmpdir bundle
FAKE=tests/bundle/fake_gpus.py
H100="NVIDIA H100 80GB HBM3"

# fake DIR UNTIMED-KERNEL-DIR [--legacy]: three synthetic GPUs' results in DIR
fake() { mkdir -p "$(dirname "$1")" && python3 "$FAKE" ${3:-} "$2" "$1" >"$1.ids" || bad "fake $1" "$2"; }
# run_bad DIR: tuner bundle DIR; $why says what is wrong with a refusal: an exit status other
# than 2, anything on stdout, anything written (neither DIR/bundle nor the --out directory)
run_bad() {
	"$T" bundle --out "$tmp/none" "$1" >"$tmp/stdout" 2>"$tmp/stderr"
	st=$?
	why=""
	[ "$st" -eq 2 ] || why="exit $st, want 2"
	[ -s "$tmp/stdout" ] && why="$why; stdout: $(head -c 300 "$tmp/stdout")"
	if [ -e "$tmp/none" ] || [ -e "$1/bundle" ]; then why="$why; wrote $(ls -d "$tmp/none" "$1/bundle" 2>/dev/null)"; fi
}
# refuse NAME DIR MESSAGE: bundling DIR is refused with MESSAGE, the last line of stderr
refuse() {
	run_bad "$2"
	[ "$(tail -n 1 "$tmp/stderr")" = "$3" ] || why="$why; stderr:
$(head -c 1000 "$tmp/stderr")
want:
$3"
	if [ -z "$why" ]; then ok "$1"; else bad "$1" "$why"; fi
}
# refuse_like NAME DIR REGEX: as refuse, the last line of stderr matching REGEX (grep -E)
refuse_like() {
	run_bad "$2"
	tail -n 1 "$tmp/stderr" | grep -qE -- "$3" || why="$why; stderr:
$(head -c 1000 "$tmp/stderr")
want a match of:
$3"
	if [ -z "$why" ]; then ok "$1"; else bad "$1" "$why"; fi
}

# the example: bundles of filter21 and reduction from synthetic GPUs, the application compiled
expect example_builds 0 examples/build.sh "$T" "$tmp/ex" "$NVCC"
# it says what it does while it works, and nvcc warns of nothing in the bundles
has example_says_progress "^examples: filter21: every variant compiled for sm_90" "$tmp/stdout"
if grep -i "warning" "$tmp/stdout" "$tmp/stderr" >"$tmp/warn"; then bad example_no_warnings "$(head -n 8 "$tmp/warn")"; else ok example_no_warnings; fi
[ -x "$tmp/ex/app" ] && ok example_app || bad example_app "no $tmp/ex/app"
for k in filter21 reduction; do
	h=$tmp/ex/bundle/${k}_bundle.h
	has "bundle_${k}_gencode" "nvcc flags: -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90$" "$h"
	has "bundle_${k}_portable" "portable default: $(sed -n 's/^portable //p' "$tmp/ex/results/$k.ids")" "$h"
	has "bundle_${k}_exact_entry" "{\"$H100\", 9, 0, 132, 0, \"$(sed -n 's/^nvidia-h100-80gb-hbm3-sm90 //p' "$tmp/ex/results/$k.ids")\"" "$h"
	# the selection with the host's C compiler alone, for GPUs tuned and never tuned
	if ${CC:-cc} -std=c11 -Wall -Wextra -Wpedantic -Werror -DKERNEL=$k \
		-DPORTABLE="\"$(sed -n 's/^portable //p' "$tmp/ex/results/$k.ids")\"" \
		-I"$tmp/ex/bundle" tests/bundle/select.c -o "$tmp/select_$k" >"$tmp/cc.log" 2>&1; then
		expect "bundle_${k}_select" 0 "$tmp/select_$k"
		sed 's/^/  /' "$tmp/stdout"
	else
		bad "bundle_${k}_select" "$(cat "$tmp/cc.log")"
	fi
done
h=$tmp/ex/bundle/reduction_bundle.h
has bundle_scratch_zero "#define REDUCTION_BUNDLE_PARTIALS_ZERO 1" "$h"
has bundle_scratch_role "#define REDUCTION_BUNDLE_COUNTER_ROLE TUNER_ROLE_SCRATCH" "$h"
has bundle_scratch_count "static inline long long reduction_bundle_partials_count(int entry, long long n, long long sms)" "$h"
has bundle_sms_at_run_time "tuner_min((4LL \* SMS)\|tuner_min((8LL \* SMS)\|(GRID\|\* SMS" "$h"
has bundle_constants "static const float filter21_bundle_coef_values\[21\]" "$tmp/ex/bundle/filter21_bundle.h"
has bundle_namespace "^namespace tuner_filter21_v[0-9a-f]* {" "$tmp/ex/bundle/filter21_bundle.cu"
has bundle_linkage 'extern "C++" __global__' "$tmp/ex/bundle/filter21_bundle.cu"

# tests/gpu/dispatch.cu (the GPU check of size dispatch) builds against each shipped kernel's
# bundle (the API of a best.cu tuned at several sizes) and a variant's emitted source (a
# single-size best.cu), as tests/gpu/dispatch.sh builds it
if command -v "$NVCC" >/dev/null 2>&1; then
	for k in filter21 transpose reduction; do
		d=$tmp/dispatch/$k K=$(echo "$k" | tr '[:lower:]' '[:upper:]')
		fake "$d/r/$k" "$U/$k/untimed-sm_90"
		id=$(sed -n 's/^portable //p' "$d/r/$k.ids")
		e=$d/e/$k/untimed-sm_90
		if "$T" bundle -q --out "$d" "$d/r/$k" >"$d/log" 2>&1 &&
			"$T" -q -j 2 --arch sm_90 --emit "$id" --out "$d/e" "configs/$k.yaml" >>"$d/log" 2>&1 &&
			"$NVCC" -arch=sm_90 -c -I. -DKERNEL_$K -DBEST_H="\"$d/${k}_bundle.h\"" -o "$d/main.o" \
				tests/gpu/dispatch.cu >>"$d/log" 2>&1 &&
			"$NVCC" -arch=sm_90 -c -I. -Itests/gpu -DKERNEL_$K -DONE_CU="\"$e/$id.cu\"" \
				-DONE_H="\"$e/$id.h\"" -DONE_NAME='"tuned"' -DONE_ID="\"$id\"" -DONE_AT='"*"' \
				-D$k=one1_$k -o "$d/one.o" tests/gpu/dispatch_one.cu >>"$d/log" 2>&1 &&
			"$NVCC" -arch=sm_90 -c -I"$d" -o "$d/best.o" "$d/${k}_bundle.cu" >>"$d/log" 2>&1 &&
			"$NVCC" -arch=sm_90 -o "$d/dispatch" "$d/main.o" "$d/one.o" "$d/best.o" tests/ref/*.c \
				>>"$d/log" 2>&1; then
			ok "dispatch_harness_$k"
		else
			bad "dispatch_harness_$k" "$(tail -n 30 "$d/log")"
		fi
	done
	# an entry of a bundle compiles to the code of the variant alone, but for its constants'
	# loads: filter21's v30ea42ba, the second of four entries, its 21 coefficients after the
	# first's (at 0x54 unaligned: 179 of its 464 instructions differed; 11, the loads, aligned)
	if TUNER=$T NVCC=$NVCC OUT=$tmp/bsass sh bench/explore/bundle-sass.sh v30ea42ba >"$tmp/bsass.log" 2>&1 &&
		awk '/^instructions: / { if ($2 == $4 && $8 <= 16) ok = 1 } END { exit !ok }' "$tmp/bsass.log"; then
		ok bundle_entry_same_code
	else
		bad bundle_entry_same_code "$(tail -n 5 "$tmp/bsass.log")"
	fi
else
	skip dispatch_harness "no nvcc ($NVCC)"
fi

# any kernel: the test kernel's bundle against its golden copy, and nvcc compiles it
fake "$tmp/scale" "$U/scale/untimed-sm_90"
expect bundle_scale 0 "$T" bundle "$tmp/scale"
for f in h cu; do
	sed "s#$tmp#TMP#g" "$tmp/scale/bundle/scale_bundle.$f" >"$tmp/scale_bundle.$f"
	if diff -u "tests/golden/scale_bundle.$f" "$tmp/scale_bundle.$f" >"$tmp/diff" 2>&1; then ok "golden_scale_bundle.$f"; else bad "golden_scale_bundle.$f" "$(head -n 40 "$tmp/diff")"; fi
done
expect bundle_scale_nvcc 0 "$NVCC" $(sed -n 's/^ \* nvcc flags: //p' "$tmp/scale/bundle/scale_bundle.h") \
	-Xcompiler -Wall,-Wextra -c -o "$tmp/scale.o" "$tmp/scale/bundle/scale_bundle.cu"
expect bundle_scale_out 0 "$T" bundle -q --out "$tmp/scale-out" "$tmp/scale"
# each GPU's entry is the tuner's winner, the first verified variant of its ranked results
# (ties by the tuner's rule), even where another verified one has a smaller median
mkdir -p "$tmp/rank"
cp -R "$tmp/scale" "$tmp/rank/scale"
rm -rf "$tmp/rank/scale/bundle"
first=$(python3 - "$tmp/rank/scale" <<'PY'
import glob, json, sys
p = [f for f in glob.glob(sys.argv[1] + "/*/results.json") if "h100" in f][0]
d = json.load(open(p))
ok = [i for i, v in enumerate(d["variants"]) if v["status"] == "ok"]
v = d["variants"].pop(ok[1])  # the second verified one goes first, slower than the fastest
d["variants"].insert(0, v)
json.dump(d, open(p, "w"), indent=1)
print(v["id"])
PY
)
expect bundle_winner_first_ranked 0 "$T" bundle -q "$tmp/rank/scale"
has bundle_winner_is_ranked "{\"NVIDIA H100 80GB HBM3\", 9, 0, 132, [0-9]*, \"$first\"" "$tmp/rank/scale/bundle/scale_bundle.h"

[ -f "$tmp/scale-out/scale_bundle.cu" ] && [ -f "$tmp/scale-out/scale_bundle.h" ] && ok bundle_out_dir || bad bundle_out_dir "$(ls "$tmp/scale-out")"

# results.json of a tuner that kept no copies: regenerated from the recorded config, said so
fake "$tmp/old/scale" "$U/scale/untimed-sm_90" --legacy
expect bundle_legacy 0 "$T" bundle "$tmp/old/scale"
has bundle_legacy_warns "written by an older tuner" "$tmp/stderr"
has bundle_legacy_flagged "results without copies of the config and template" "$tmp/old/scale/bundle/scale_bundle.h"

# a template changed since tuning: the bundle holds the tuned copy and says so
mkdir -p "$tmp/k"
cp tests/kernels/scale.yaml tests/kernels/scale.cu tests/kernels/scale_ref.cu "$tmp/k/"
"$T" -q -j 2 --arch sm_90 --out "$tmp/ku" "$tmp/k/scale.yaml" >/dev/null 2>&1
fake "$tmp/kf/scale" "$tmp/ku/scale/untimed-sm_90"
echo "/* changed after tuning */" >>"$tmp/k/scale.cu"
expect bundle_changed_template 0 "$T" bundle "$tmp/kf/scale"
has bundle_changed_warns "$tmp/k/scale.cu changed since NVIDIA A100-SXM4-80GB was tuned" "$tmp/stderr"
has bundle_changed_flagged "CHANGED since $H100 was tuned: $tmp/k/scale.cu" "$tmp/kf/scale/bundle/scale_bundle.h"

# bad input: exit 2, the file named, nothing written
refuse bad_no_dir "$tmp/nonexistent" "tuner: $tmp/nonexistent: cannot open the results directory: No such file or directory"
mkdir "$tmp/empty"
refuse bad_no_results "$tmp/empty" "tuner: $tmp/empty: no results: no subdirectory holds a results.json (tune first: tuner CONFIG writes OUT/<kernel>/<gpu>/results.json)"
mkdir -p "$tmp/untimed/scale"
cp -r "$U/scale/untimed-sm_90" "$tmp/untimed/scale/"
refuse bad_only_untimed "$tmp/untimed/scale" "tuner: $tmp/untimed/scale: nothing timed: its 1 result directory holds compile-only results (made without a GPU); tune on a GPU first"
# new case DIR: a fresh copy of the synthetic scale results in DIR
case_dir() { rm -rf "$1"; mkdir -p "$(dirname "$1")"; cp -r "$tmp/scale" "$1"; rm -rf "$1/bundle"; }
x=$tmp/x/scale
case_dir "$x"
fake "$x/../red" "$U/reduction/untimed-sm_90"
cp -r "$x/../red/nvidia-h200-sm90" "$x/other-gpu"
refuse bad_other_kernel "$x" "tuner: $x/other-gpu/results.json: results of kernel 'reduction', not 'scale': a different kernel's results in $x/other-gpu"
case_dir "$x"
echo '{"kernel": "scale", "timed": tr' >"$x/nvidia-h200-sm90/results.json"
refuse bad_corrupt "$x" "tuner: $x/nvidia-h200-sm90/results.json:1:31: invalid token near 'tr'"
case_dir "$x"
head -c 700 "$tmp/scale/nvidia-h200-sm90/results.json" >"$x/nvidia-h200-sm90/results.json"
refuse_like bad_truncated "$x" "^tuner: $x/nvidia-h200-sm90/results.json:[0-9]+:[0-9]+: .+"
case_dir "$x"
echo '[]' >"$x/nvidia-h200-sm90/results.json"
refuse bad_not_object "$x" "tuner: $x/nvidia-h200-sm90/results.json: not a results.json: the top is not an object"
case_dir "$x"
sed 's/"variants"/"variant"/' "$tmp/scale/nvidia-h200-sm90/results.json" >"$x/nvidia-h200-sm90/results.json"
refuse bad_no_variants "$x" "tuner: $x/nvidia-h200-sm90/results.json: no 'variants'"
case_dir "$x"
rm "$x/nvidia-a100-sxm4-80gb-sm80/config.yaml"
refuse bad_no_config "$x" "tuner: $x/nvidia-a100-sxm4-80gb-sm80/config.yaml: cannot read the config NVIDIA A100-SXM4-80GB was tuned with (no config to regenerate from): No such file or directory"
fake "$tmp/gone/scale" "$tmp/ku/scale/untimed-sm_90" --legacy
mv "$tmp/k/scale.yaml" "$tmp/k/moved.yaml"
refuse bad_no_config_legacy "$tmp/gone/scale" "tuner: $tmp/gone/scale/nvidia-a100-sxm4-80gb-sm80/results.json: no copy of the config beside it (written by an older tuner), and the config it names, '$tmp/k/scale.yaml', cannot be read: no config to regenerate from: No such file or directory"
case_dir "$x"
echo "// edited" >>"$x/nvidia-h200-sm90/template.cu"
refuse_like bad_copy_changed "$x" "^tuner: $x/nvidia-h200-sm90/template.cu: changed since NVIDIA H200 was tuned with it \(fnv1a64 [0-9a-f]{16} in $x/nvidia-h200-sm90/results.json, [0-9a-f]{16} now\): re-tune there, or restore it$"
case_dir "$x"
# a GPU tuned with another template, its results consistent with it
python3 - "$x/nvidia-h200-sm90" <<-'EOF'
	import json, sys
	d = sys.argv[1]
	t = open(d + "/template.cu", "rb").read() + b"// another template\n"
	open(d + "/template.cu", "wb").write(t)
	h = 0xcbf29ce484222325
	for c in t:
	    h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
	j = json.load(open(d + "/results.json"))
	j["sources"]["template"]["fnv1a64"] = "%016x" % h
	json.dump(j, open(d + "/results.json", "w"))
EOF
refuse bad_mixed_templates "$x" "tuner: $x/nvidia-h200-sm90/template.cu differs from $x/nvidia-h100-80gb-hbm3-sm90/template.cu: NVIDIA H200 and NVIDIA H100 80GB HBM3 were tuned with different templates; re-tune one of them (or bundle them apart)"
case_dir "$x"
sed 's/"BLOCK"/"BLOCKS"/g' "$tmp/scale/nvidia-h200-sm90/results.json" >"$x/nvidia-h200-sm90/results.json"
refuse bad_other_params "$x" "tuner: $x/nvidia-h200-sm90/results.json: variant $(sed -n 's/^nvidia-h200-sm90 //p' "$tmp/scale.ids"): no integer parameter 'BLOCK' (the config $x/nvidia-h200-sm90/config.yaml has it): results of another config"
# results whose sizes were changed after the run: n = 0 (the winner cannot run there), a size
# the winner runs at with another grid than the one recorded, and a grid changed
h200win=$(sed -n 's/^nvidia-h200-sm90 //p' "$tmp/scale.ids")
# edit JSON PYTHON: run PYTHON on j, the results of JSON, and write them back
edit() { python3 -c "import json, sys
j = json.load(open(sys.argv[1]))
$2
json.dump(j, open(sys.argv[1], 'w'))" "$1"; }
case_dir "$x"
edit "$x/nvidia-h200-sm90/results.json" 'j["sizes"]["n"] = 0'
refuse_like bad_sizes_zero "$x" "^tuner: $x/nvidia-h200-sm90/results.json: variant $h200win cannot run at the sizes the results record \(n=0\): grid\[0\] = 0 is not positive; results and config .* disagree: retune$"
case_dir "$x"
edit "$x/nvidia-h200-sm90/results.json" 'j["sizes"]["n"] = 81980'
refuse_like bad_sizes_changed "$x" "^tuner: $x/nvidia-h200-sm90/results.json: variant $h200win records block .* at the sizes recorded \(n=81980\): results and config disagree: retune$"
case_dir "$x"
edit "$x/nvidia-h200-sm90/results.json" 'for v in j["variants"]:
    if "grid" in v: v["grid"][0] += 1'
refuse_like bad_grid_changed "$x" "^tuner: $x/nvidia-h200-sm90/results.json: variant $h200win records block .*: results and config disagree: retune$"
# bounded work: three GPUs of 40 000 variants each are read and chosen from in seconds (a
# scan per lookup took 25 s here)
fake "$tmp/big/scale" "$U/scale/untimed-sm_90"
python3 - "$tmp/big/scale" <<'PY' || bad big_results "cannot make them"
import glob, json, sys
for p in glob.glob(sys.argv[1] + "/*/results.json"):
    d = json.load(open(p))
    base = d["variants"]
    for i in range(40000):
        v = dict(base[4 + i % (len(base) - 4)])
        v["id"] = "v%08x" % (0x10000000 + i)
        v.pop("twin_of", None)
        if v.get("status") == "ok":
            v["median_ms"] = 2.0 + i * 1e-6
        base.append(v)
    json.dump(d, open(p, "w"))
PY
t0=$(now)
expect big_bundle 0 "$T" bundle "$tmp/big/scale"
s=$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$t0" "$(now)")
python3 -c "import sys; sys.exit(float(sys.argv[1]) > 12)" "$s" && ok big_bundle_fast || bad big_bundle_fast "$s s"
expect bad_usage 2 "$T" bundle
expect bad_usage_two 2 "$T" bundle "$tmp/scale" "$tmp/scale"

finish bundle
