#!/bin/sh
# Every line the tuner prints is at most 120 columns, and nothing is said again at a later point
# that holds for all: every shipped config (configs/*.yaml)
# compiled without a GPU at its own size, two of them at several sizes, --dry-run (with
# --list-dropped too, and at several sizes), tuner explain (at several sizes too), tuner
# bundle over synthetic GPUs' results (tests/bundle/fake_gpus.py), --help and a timed run on
# the fake driver (tests/fakecuda). Prose is wrapped and tables built to fit, so a line over
# 120 columns on stdout or stderr fails, with the line.
# usage: tests/width.sh [TUNER]   (default: $TUNER_BINDIR/tuner, else out/bin/tuner; run alone
# it compiles into a cache of its own, minutes of NVRTC: TUNER_CACHE names a warm one)
# Ends with "width: N passed, N failed"; exits non-zero on any failure.
set -u
cd "$(dirname "$0")/.." || exit 2
T=${1:-${TUNER_BINDIR:-out/bin}/tuner}
fake=$(dirname "$(dirname "$T")")/fakecuda
. tests/lib.sh
tmpdir width
export TUNER_CACHE="${TUNER_CACHE:-$tmp/cache}"
W=120

# narrow NAME STATUS CMD...: CMD exits with STATUS and no line of its stdout or stderr is
# longer than $W columns (characters, tabs as one)
narrow() {
	name=$1
	expect "$@"
	cat "$tmp/stdout" "$tmp/stderr" | LC_ALL=C.UTF-8 awk -v w=$W 'length($0) > w { print length($0) ": " $0 }' >"$tmp/long"
	if [ -s "$tmp/long" ]; then
		bad "${name}_width" "$(wc -l <"$tmp/long") lines over $W columns:
$(head -n 8 "$tmp/long" | cut -c 1-400)"
	else
		ok "${name}_width"
	fi
}

narrow help 0 $T --help
for cfg in configs/*.yaml; do
	k=$(basename "$cfg" .yaml)
	narrow "dry_run_$k" 0 $T --dry-run --arch sm_90 "$cfg"
	# a space of thousands compiles a random 300 of them, as tests/run.sh's (the same picks)
	kept=$(sed -n 's/^[0-9]* variants: \([0-9]*\) kept.*/\1/p' "$tmp/stdout")
	budget=""
	[ "${kept:-0}" -gt 2000 ] && budget="--budget 300 --strategy random"
	narrow "dry_run_dropped_$k" 0 $T --dry-run --list-dropped --arch sm_90 "$cfg"
	narrow "run_$k" 0 $T -j 2 --arch sm_90 $budget --out "$tmp/out" "$cfg"
	if grep -q '^accesses:' "$cfg"; then
		narrow "explain_$k" 0 $T explain --arch sm_90 "$cfg"
	fi
	# synthetic GPUs' results of the compile-only run, bundled
	d=$tmp/out/$(sed -n 's/^name: *//p' "$cfg")/untimed-sm_90
	if python3 tests/bundle/fake_gpus.py "$d" "$tmp/fake/$k" >/dev/null 2>"$tmp/py"; then
		narrow "bundle_$k" 0 $T bundle --out "$tmp/bundle" "$tmp/fake/$k"
	else
		bad "bundle_$k" "$(cat "$tmp/py")"
	fi
done
# several points: compile-only, --dry-run and explain
narrow points_reduction 0 $T -j 2 --arch sm_90 --size n=65536,1048576 --out "$tmp/out" configs/reduction.yaml
narrow points_filter21 0 $T -j 2 --arch sm_90 --size n=65536,1048576,67108864 --out "$tmp/out" configs/filter21.yaml
narrow points_dry_run 0 $T --dry-run --arch sm_90 --size n=65536,1048576 configs/reduction.yaml
# ... which says the search once where the points keep as many variants
[ "$(grep -c '^search: ' "$tmp/stdout")" -eq 1 ] && [ "$(grep -c '^at n=' "$tmp/stdout")" -eq 2 ] &&
	ok points_dry_run_search_once || bad points_dry_run_search_once "$(grep -n '^search\|^at ' "$tmp/stdout")"
narrow points_explain 0 $T explain --arch sm_90 --size cols=1024,2048 configs/transpose.yaml
# a timed run on the fake driver: the rooflines, the play-off, the ties, the winner
if [ -f "$fake/libcuda.so.1" ]; then
	narrow timed_fake 0 env LD_LIBRARY_PATH="$fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		FAKECUDA_LOG="$tmp/fake.log" $T --out "$tmp/timed" tests/fakecuda/pairs.yaml
else
	bad timed_fake "no $fake/libcuda.so.1 (ninja builds it)"
fi
finish width
