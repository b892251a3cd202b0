#!/bin/sh
# The test suite: unit tests (out/bin/unit) then end-to-end runs of out/bin/tuner.
# TUNER_BINDIR names another build's bin directory (e.g. out/asan/bin, the sanitized build).
# Needs no GPU. Ends with "N passed, N failed", and ", N skipped" after it where tests could not
# run here (Slurm or a browser missing: scripts/setup --full installs them); exits non-zero on
# any failure.
# TUNER_NVCC names nvcc for the emitted-source checks (default: nvcc on PATH).
set -u
cd "$(dirname "$0")/.." || exit 2
export TUNER_SRCDIR="$PWD" SOURCE_DATE_EPOCH=1767225600 # 2026-01-01T00:00:00Z: stable goldens
B=${TUNER_BINDIR:-out/bin}
T=$B/tuner
NVCC=${TUNER_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
. tests/lib.sh
tmpdir test
export TUNER_CACHE="$tmp/cache"

# unit tests
$B/unit >"$tmp/unit.log" 2>&1
cat "$tmp/unit.log"
line=$(tail -n 1 "$tmp/unit.log")
up=$(echo "$line" | sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
uf=$(echo "$line" | sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
if [ -z "$up" ]; then bad "unit binary finished" "$line"; else pass=$((pass + up)); fail=$((fail + uf)); fi

# command line
expect cli_help 0 $T --help
has cli_help_text "usage: tuner" "$tmp/stdout"
expect cli_version 0 $T --version
expect cli_no_config 2 $T
expect cli_unknown_option 2 $T --frobnicate configs/filter21.yaml
expect cli_bad_jobs 2 $T -j zero configs/filter21.yaml
expect cli_bad_arch 2 $T --arch sm_9000 configs/filter21.yaml
expect cli_missing_config 2 $T --out "$tmp/o" nonexistent.yaml
has cli_missing_config_msg "nonexistent.yaml" "$tmp/stderr"
expect cli_unknown_size 2 $T --size nope=3 configs/filter21.yaml
expect cli_emit_unknown 2 $T --out "$tmp/o" --emit vdeadbeef tests/kernels/scale.yaml
[ ! -e "$tmp/o" ] && ok "errors write nothing" || bad "errors write nothing" "$(find "$tmp/o")"

# scripts/setup: the missing Debian packages installed as root, the command printed otherwise
# (dpkg-query, id, sudo and apt-get faked: FAKE_MISSING lists what dpkg-query says is missing)
mkdir "$tmp/fb"
printf '#!/bin/sh\ncase " $FAKE_MISSING " in *" $4 "*) echo not-installed ;; *) echo installed ;; esac\n' >"$tmp/fb/dpkg-query"
printf '#!/bin/sh\necho "${FAKE_UID:-1000}"\n' >"$tmp/fb/id"
printf '#!/bin/sh\nexit 1\n' >"$tmp/fb/sudo"
printf '#!/bin/sh\necho "$@" >>"$FAKE_APT"\n' >"$tmp/fb/apt-get"
chmod +x "$tmp/fb/"*
setup() { env PATH="$tmp/fb:$PATH" FAKE_APT="$tmp/apt.log" "$@"; }
expect setup_ready 0 setup env FAKE_MISSING= scripts/setup
has setup_ready_said "^setup: ready: ./configure.py && ninja$" "$tmp/stdout"
has setup_cuda_said "^setup: CUDA Toolkit .* in .* (configure.py uses it)$" "$tmp/stdout"
expect setup_not_root 1 setup env FAKE_MISSING="libyaml-dev groff-base" scripts/setup
has setup_not_root_command "^  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y libyaml-dev groff-base$" "$tmp/stdout"
expect setup_print 1 setup env FAKE_MISSING=chromium FAKE_UID=0 scripts/setup --full --print
has setup_print_command "apt-get install -y chromium$" "$tmp/stdout"
[ ! -e "$tmp/apt.log" ] && ok setup_print_installs_nothing || bad setup_print_installs_nothing "$(cat "$tmp/apt.log")"
expect setup_root 0 setup env FAKE_MISSING="ninja-build slurm-wlm" FAKE_UID=0 scripts/setup --full
if [ "$(cat "$tmp/apt.log" 2>/dev/null)" = "$(printf 'update\ninstall -y ninja-build slurm-wlm')" ]; then
	ok setup_root_installs; else bad setup_root_installs "$(cat "$tmp/apt.log" 2>&1)"; fi
expect setup_usage 2 scripts/setup --frobnicate
# a CUDA home whose path has a space: setup says ready, and configure.py's build.ninja builds
# a tuner that runs; one with a quote: both refuse it with the same words, nothing written
cudareal=$(dirname "$(dirname "$(readlink -f "$NVCC")")")
ln -s "$cudareal" "$tmp/cu da"
ln -s "$cudareal" "$tmp/cu\"da"
expect setup_cuda_space 0 setup env CUDA_HOME="$tmp/cu da" FAKE_MISSING= scripts/setup
has setup_cuda_space_said "^setup: CUDA Toolkit .* in $tmp/cu da (configure.py uses it)$" "$tmp/stdout"
sb=out/t-space-$$
expect configure_cuda_space 0 env CUDA_HOME="$tmp/cu da" ./configure.py --builddir "$sb"
expect build_cuda_space 0 ninja -f "$sb/build.ninja" "$sb/bin/tuner"
expect build_cuda_space_runs 0 "$sb/bin/tuner" --dry-run --arch sm_90 tests/kernels/scale.yaml
rm -rf "$sb"
why=": its path has a quote, backslash or control character, which the build cannot pass on"
expect setup_cuda_quote 1 setup env CUDA_HOME="$tmp/cu\"da" FAKE_MISSING= scripts/setup
has setup_cuda_quote_said "^setup: CUDA Toolkit $tmp/cu\"da$why" "$tmp/stdout"
expect configure_cuda_quote 1 env CUDA_HOME="$tmp/cu\"da" ./configure.py --builddir "$sb"
has configure_cuda_quote_said "^configure.py: CUDA Toolkit $tmp/cu\"da$why" "$tmp/stderr"
[ ! -e "$sb" ] && ok configure_cuda_quote_nothing || bad configure_cuda_quote_nothing "$(ls "$sb")"
rm -rf "$sb"

# the architecture without a GPU: --arch, else TUNER_ARCH, else NVRTC's newest (said so)
TUNER_ARCH=sm_90 $T -j 2 --out "$tmp/ta" tests/kernels/scale.yaml >"$tmp/stdout" 2>"$tmp/stderr"
[ -f "$tmp/ta/scale/untimed-sm_90/results.json" ] && has cli_tuner_arch "compiled for sm_90 only$" "$tmp/stdout" ||
	bad cli_tuner_arch "$(ls "$tmp/ta/scale" 2>&1)"
expect cli_tuner_arch_bad 2 env TUNER_ARCH=sm_9000 $T --dry-run tests/kernels/scale.yaml
has cli_tuner_arch_bad_msg "TUNER_ARCH: 'sm_9000' is not an architecture" "$tmp/stderr"
$T -j 2 --out "$tmp/tn" tests/kernels/scale.yaml >"$tmp/stdout" 2>"$tmp/stderr"
has cli_default_arch_said "the newest NVRTC knows.*--arch sm_XX or TUNER_ARCH names yours" "$tmp/stdout"

# what a run says: first what it will do (no GPU: nothing timed, for which architecture), last
# where report.html is; -q still says that nothing was timed
expect plan_untimed 0 $T -j 2 --arch sm_90 --out "$tmp/pl" tests/kernels/scale.yaml
if head -n 2 "$tmp/stderr" | tr '\n' ' ' | grep -q "^tuner: no GPU (.*): nothing will be timed;   compiling for sm_90 to report"; then
	ok plan_untimed_first_line; else bad plan_untimed_first_line "$(head -n 3 "$tmp/stderr")"; fi
if tail -n 1 "$tmp/stderr" | grep -q "^tuner: the run at a glance: $tmp/pl/scale/untimed-sm_90/report.html (nothing timed: no best.cu)$"; then
	ok plan_last_line_report; else bad plan_last_line_report "$(tail -n 3 "$tmp/stderr")"; fi
expect quiet_untimed 0 $T -q -j 2 --arch sm_90 --out "$tmp/pl" tests/kernels/scale.yaml
if [ "$(cat "$tmp/stdout")" = "nothing was timed: $(sed -n 's/^tuner: no GPU (\(.*\)): nothing.*/\1/p' "$tmp/stderr" | head -n 1)" ] ||
	grep -q "^nothing was timed: .*; compiled for sm_90 only$" "$tmp/stdout" && [ "$(wc -l <"$tmp/stdout")" -eq 1 ] && [ ! -s "$tmp/stderr" ]; then
	ok quiet_untimed_said; else bad quiet_untimed_said "$(cat "$tmp/stdout" "$tmp/stderr")"; fi
expect emit_dry_run_refused 2 $T --dry-run --emit v21e58637 tests/kernels/scale.yaml
has emit_dry_run_refused_msg "^tuner: --emit v21e58637 with --dry-run: a dry run compiles and writes nothing" "$tmp/stderr"
expect bundle_no_results 2 $T bundle
if [ "$(wc -l <"$tmp/stderr")" -eq 2 ] && grep -q "^usage: tuner bundle \[--out DIR\]" "$tmp/stderr"; then
	ok bundle_no_results_short; else bad bundle_no_results_short "$(cat "$tmp/stderr")"; fi
expect merge_no_dir 2 $T merge
has merge_no_dir_short "^usage: tuner merge " "$tmp/stderr"

# a config's own search (search: {budget, strategy}), unless the command line names one;
# --budget all tries every variant, and a shard its whole share; without a GPU the config's
# budget limits nothing (it is for timing): every kept variant compiled, in order
mkdir "$tmp/cs"
cp tests/kernels/scale.cu tests/kernels/scale_ref.cu "$tmp/cs/"
{ cat tests/kernels/scale.yaml; echo "search: {budget: 2, strategy: random}"; } >"$tmp/cs/scale.yaml"
search_of() { python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["search"]["strategy"], d["search"]["budget"], sum(v["status"] == "untimed" for v in d["variants"]))' "$1"; }
for c in "cs_config exhaustive 0 5 " "cs_all random 0 5 --budget all" \
	"cs_cli exhaustive 3 3 --budget 3 --strategy exhaustive" "cs_shard exhaustive 0 3 --shard 1/2"; do
	set -- $c
	n=$1 w="$2 $3 $4"
	shift 4
	expect "$n" 0 $T -j 2 --arch sm_90 "$@" --out "$tmp/$n" "$tmp/cs/scale.yaml"
	[ "$n" = cs_config ] && has cs_config_said "^  (the config's search, random with budget 2, limits timing, and nothing is timed; --budget N limits this run)$" "$tmp/stderr"
	got=$(search_of "$(find "$tmp/$n" -name results.json | head -n 1)" 2>&1)
	[ "$got" = "$w" ] && ok "${n}_search" || bad "${n}_search" "got '$got', want '$w'"
done
# --dry-run says the search it would make, and where its strategy and budget come from
expect cs_dry_config 0 $T --dry-run "$tmp/cs/scale.yaml"
has cs_dry_config_said "^search: exhaustive (the default), all 5 kept variants$" "$tmp/stdout"
expect cs_dry_cli 0 $T --dry-run --budget 3 "$tmp/cs/scale.yaml"
has cs_dry_cli_said "^search: random (the config's search), at most 3 of the 5 kept variants (--budget)$" "$tmp/stdout"
expect cs_dry_none 0 $T --dry-run --strategy guided tests/kernels/scale.yaml
has cs_dry_none_said "^search: guided (--strategy), all 5 kept variants (no budget)$" "$tmp/stdout"

# SMS in expressions: the GPU's multiprocessor count; without a GPU --sms N (default 1)
expect cli_bad_sms 2 $T --sms 0 configs/reduction.yaml
expect cli_sms_default 0 $T --dry-run configs/reduction.yaml
has cli_sms_default_grid "EPT=16 GRID=4 SPLIT=0 FINISH=0 BANK_BYTES=4  *1024  *4 " "$tmp/stdout"
expect cli_sms 0 $T --dry-run --sms 132 configs/reduction.yaml
has cli_sms_grid "EPT=16 GRID=4 SPLIT=0 FINISH=0 BANK_BYTES=4  *1024  *528 " "$tmp/stdout"

# every shipped config (the exploration configs in bench/explore/ and the test-only kernels
# too): dry run, then compile every variant
for cfg in configs/*.yaml bench/explore/*.yaml tests/kernels/*.yaml; do
	k=$(basename "$cfg" .yaml)
	expect "dry_run_$k" 0 $T --dry-run "$cfg"
	has "dry_run_count_$k" "variants: [0-9]* kept" "$tmp/stdout"
	# a space of thousands compiles a random 300 of them here (minutes of NVRTC otherwise)
	kept=$(sed -n 's/^[0-9]* variants: \([0-9]*\) kept.*/\1/p' "$tmp/stdout")
	budget=""
	[ "${kept:-0}" -gt 2000 ] && budget="--budget 300 --strategy random"
	expect "compile_all_$k" 0 $T -j 2 --arch sm_90 --all $budget --out "$tmp/out" "$cfg"
	has "untimed_said_$k" "nothing was timed" "$tmp/stdout"
	if grep -q "compile-error" "$tmp/stdout"; then bad "no_compile_errors_$k" "$(grep compile-error "$tmp/stdout" | head)"; else ok "no_compile_errors_$k"; fi
	j=$(ls "$tmp"/out/*/untimed-sm_90/results.json 2>/dev/null | grep "/$(sed -n 's/^name: *//p' "$cfg")/" | head -n 1)
	if [ -n "$j" ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["timed"] is False and d["arch"] == "sm_90" and d["variants"], "header"
assert isinstance(d["verify_sizes"], list), "verify_sizes"
s = d["sources"]
assert s["config"]["copy"] == "config.yaml" and len(s["config"]["fnv1a64"]) == 16, s
assert s["template"]["copy"] == "template.cu" and s["template"]["path"], s
for v in d["variants"]:
    assert set(v) >= {"id", "params", "status"}, v
    if v["status"] == "untimed":
        assert v["registers"] > 0 and v["spill_stores"] >= 0 and "shared_static" in v, v
' "$j" 2>"$tmp/py"; then ok "results_json_$k"; else bad "results_json_$k" "$j $(cat "$tmp/py")"; fi
	# the config and template as tuned, beside the results (tuner bundle regenerates from them)
	if [ -n "$j" ] && cmp -s "$cfg" "$(dirname "$j")/config.yaml" &&
		cmp -s "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sources"]["template"]["path"])' "$j")" "$(dirname "$j")/template.cu"; then
		ok "sources_copied_$k"
	else
		bad "sources_copied_$k" "$(ls "$(dirname "$j")")"
	fi
	expect "cache_rerun_$k" 0 $T -j 2 --arch sm_90 $budget --out "$tmp/out" "$cfg"
	has "cache_hit_$k" "compiled 0," "$tmp/stderr"
done

# dropped variants: counted by rule in --dry-run, results.json and results.csv, listed one by
# one only with --list-dropped; -q --dry-run prints the counts alone
expect dropped_dry_run 0 $T --dry-run tests/kernels/scale.yaml
has dropped_dry_run_count "^         1  constraint 'BLOCK \* UNROLL <= 256'$" "$tmp/stdout"
if grep -q "dropped: " "$tmp/stdout"; then bad dropped_dry_run_unlisted "$(cat "$tmp/stdout")"; else ok dropped_dry_run_unlisted; fi
expect dropped_dry_run_listed 0 $T --dry-run --list-dropped tests/kernels/scale.yaml
has dropped_dry_run_listed_row "^v[0-9a-f]*  BLOCK=256 UNROLL=2 .* dropped: constraint 'BLOCK \* UNROLL <= 256'$" "$tmp/stdout"
# within 120 columns: 1-D launches listed as "256", 2-D ones as "32x4"; a list too wide for
# "A=1 B=2" gives each parameter a column, and dropped rows whose reasons would not fit name
# their rule by its number in the list of rules
expect dry_run_2d 0 $T --dry-run configs/transpose.yaml
has dry_run_2d_dims "^v4457a76e  TILE=32 TH=32 VEC=1 ROWS=4 PAD=0 SWIZZLE=0 GROUP=0 BANK_BYTES=4  *32x4  *256x256  *4096  kept$" "$tmp/stdout"
expect dry_run_wide 0 $T --dry-run --list-dropped configs/filter21.yaml
has dry_run_wide_heads "^id  *BLOCK OUT PACK PAD VEC BANK_BYTES ASYNC STAGES GRID SMEM  block  grid  *shared  status$" "$tmp/stdout"
has dry_run_wide_row "^vde63ecc8  *64   1    1   0   1          4     0      1    0    0  64  *1048576  *0  kept$" "$tmp/stdout"
has dry_run_wide_dropped "^vde627689 .*  -  *-  *0  dropped: rule 2$" "$tmp/stdout"
has dry_run_wide_rule "^  rule 2:  *5760  constraint 'BLOCK > 64 || SMEM == 0'$" "$tmp/stdout"
# how many programs the kept variants are (docs/how-it-works.md, "One compile per program")
expect dry_run_programs 0 $T --dry-run configs/reduction.yaml
has dry_run_programs_said "^the kept variants are 368 programs (each compiled once): METHOD, GRID, SPLIT, BANK_BYTES reach the code only" "$tmp/stdout"
expect dry_run_programs_none 0 $T --dry-run configs/stencil2d.yaml
cp "$tmp/stdout" "$tmp/programs_none.out"
expect dry_run_programs_none_said 1 grep -q "programs" "$tmp/programs_none.out"
expect dropped_dry_run_quiet 0 $T -q --dry-run tests/kernels/scale.yaml
if [ "$(wc -l <"$tmp/stdout")" -eq 3 ] && ! grep -q " kept$" "$tmp/stdout"; then ok dropped_dry_run_quiet_counts; else bad dropped_dry_run_quiet_counts "$(cat "$tmp/stdout")"; fi
for l in "" --list-dropped; do
	expect "dropped_run${l:+_listed}" 0 $T -q -j 2 --arch sm_90 $l --out "$tmp/dr$l" tests/kernels/scale.yaml
	if python3 -c '
import csv, json, sys
d = json.load(open(sys.argv[1] + "/results.json"))
listed = sys.argv[2] == "1"
dr = d["dropped"]
assert dr["count"] == 1 and dr["listed"] is listed, dr
assert [(r["rule"], r["count"]) for r in dr["by_rule"]] == [("constraint \u0027BLOCK * UNROLL <= 256\u0027", 1)], dr
rows = [v for v in d["variants"] if v["status"] == "dropped"]
assert len(rows) == listed and len(d["variants"]) == 5 + listed, d["variants"]
assert all(r["reason"] == dr["by_rule"][0]["rule"] and r["id"] == dr["by_rule"][0]["first"] for r in rows), rows
assert d["winner"] is None, d["winner"]
c = list(csv.DictReader(open(sys.argv[1] + "/results.csv")))
assert [r["id"] for r in c] == [v["id"] for v in d["variants"]], c
' "$tmp/dr$l/scale/untimed-sm_90" "${l:+1}" 2>"$tmp/py"; then ok "dropped_results${l:+_listed}"; else bad "dropped_results${l:+_listed}" "$(cat "$tmp/py")"; fi
done
# the schema check refuses what breaks the schema or its promises
python3 - "$tmp/dr/scale/untimed-sm_90/results.json" "$tmp/broken" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
os.makedirs(sys.argv[2])
for name, change in (("status", lambda d: d["variants"][0].update(status="great")),
                     ("winner", lambda d: d.pop("winner")),
                     ("count", lambda d: d["dropped"].update(count=2)),
                     ("untimed_winner", lambda d: d.update(winner=d["variants"][0]["id"]))):
    e = json.loads(json.dumps(d))
    change(e)
    json.dump(e, open(os.path.join(sys.argv[2], name + ".json"), "w"))
PY
for f in status winner count untimed_winner; do
	expect "schema_refuses_$f" 1 $(schema_py) tests/results_check.py "$tmp/broken/$f.json"
done
rm -r "$tmp/broken"

# the table: the first 20 rows (every one with --all), at most 120 columns, no column empty in
# this run (nothing timed: no median_ms, GB/s, %copy), what every row shares said once
expect table_default 0 $T -j 2 --arch sm_90 --out "$tmp/out" configs/filter21.yaml
if [ "$(grep -c '^ *- *v[0-9a-f]\{8\} ' "$tmp/stdout")" -eq 20 ] && grep -q "^\.\.\. 205 more (--all or -v lists them" "$tmp/stdout" &&
	awk '/^ *(rank|[0-9]+=?|-)  / && length($0) > 120 { exit 1 }' "$tmp/stdout" && grep -q "^rank  id  *params  *regs  spill  smem  bank  status$" "$tmp/stdout" &&
	grep -q "^every row: PAD=0 ASYNC=0 STAGES=1 GRID=0$" "$tmp/stdout"; then
	ok table_default_shape; else bad table_default_shape "$(head -n 25 "$tmp/stdout")"; fi
expect table_all 0 $T -j 2 --arch sm_90 --all --out "$tmp/out" configs/filter21.yaml
if [ "$(grep -c '^ *- *v[0-9a-f]\{8\} ' "$tmp/stdout")" -eq 225 ] && ! grep -q "more (--all" "$tmp/stdout"; then
	ok table_all_rows; else bad table_all_rows "$(grep -c '^ *- *v' "$tmp/stdout") rows"; fi

# the emitted source of a variant compiles with plain nvcc, and matches its golden copy
id=$($T --dry-run tests/kernels/scale.yaml | awk '$NF == "kept" { print $1; exit }')
expect emit_variant 0 $T --arch sm_90 --out "$tmp/e" --emit "$id" tests/kernels/scale.yaml
src="$tmp/e/scale/untimed-sm_90/$id.cu"
hdr="$tmp/e/scale/untimed-sm_90/$id.h"
if [ -x "$NVCC" ] || command -v "$NVCC" >/dev/null 2>&1; then
	expect emit_nvcc_compiles 0 "$NVCC" -arch=sm_90 -cubin -o "$tmp/e.cubin" "$src"
	printf '#include "%s"\nint main(void){unsigned b[3],g[3],s;scale_launch(4099,1,b,g,&s);return !(b[0]*g[0]>=4099 && scale_in_count(4099,1)==4099 && SCALE_OUT_ROLE==TUNER_ROLE_OUT && !SCALE_IN_ZERO);}\n' "$hdr" >"$tmp/h.cu"
	expect emit_header_compiles 0 "$NVCC" -o "$tmp/h" "$tmp/h.cu"
	expect emit_header_geometry 0 "$tmp/h"
	# the embedding docs/results.md shows: the source and the header in one application file
	cat >"$tmp/app.cu" <<-EOF
	#include "$src"
	#include "$hdr"
	int main()
	{
		int n = 4099;
		float *in, *out;
		unsigned block[3], grid[3], smem;
		cudaMalloc(&in, n * sizeof *in);
		cudaMalloc(&out, n * sizeof *out);
		cudaMemcpyToSymbol(bias, scale_bias_values, sizeof scale_bias_values);
		scale_launch(n, tuner_device_sms(), block, grid, &smem);
		scale<<<dim3(grid[0], grid[1], grid[2]), dim3(block[0], block[1], block[2]), smem>>>(out, in, n);
		return cudaDeviceSynchronize() != cudaSuccess;
	}
	EOF
	expect emit_app_compiles 0 "$NVCC" -arch=sm_90 -o "$tmp/app" "$tmp/app.cu"
else
	bad emit_nvcc_compiles "nvcc not found ($NVCC)"
fi
for f in "$src" "$hdr"; do
	g=tests/golden/scale.$(echo "$f" | sed 's/.*\.//')
	if diff -u "$g" "$f" >"$tmp/diff" 2>&1; then ok "golden_$(basename "$g")"; else bad "golden_$(basename "$g")" "$(head -n 40 "$tmp/diff")"; fi
done

# SMS in an emitted launch header: not the count the variant was tuned with (here --sms 7) but
# the one the launch is given: 4 blocks per SM, 28 in all on 7 SMs and 528 on 132; the scratch
# buffers' element counts and that they must be zero before the first launch
id=$($T --dry-run --sms 7 configs/reduction.yaml | awk '/EPT=16 GRID=4 SPLIT=0 FINISH=0 BANK_BYTES=4/ && $NF == "kept" { print $1; exit }')
expect emit_sms 0 $T --arch sm_90 --sms 7 --out "$tmp/s" --emit "$id" configs/reduction.yaml
has emit_sms_header "4LL \* SMS" "$tmp/s/reduction/untimed-sm_90/$id.h"
has emit_scratch_zero "#define REDUCTION_PARTIALS_ZERO 1" "$tmp/s/reduction/untimed-sm_90/$id.h"
if [ -x "$NVCC" ] || command -v "$NVCC" >/dev/null 2>&1; then
	printf '#include "%s"\nint main(void){unsigned b[3],g[3],s,h[3];reduction_launch(1 << 26,7,b,g,&s);reduction_launch(1 << 26,132,b,h,&s);return g[0] != 28 || h[0] != 528 || reduction_partials_count(1 << 26,7) != 2 * (32768 + 32) || reduction_counter_count(1 << 26,7) != 33 || REDUCTION_PARTIALS_ROLE != TUNER_ROLE_SCRATCH;}\n' "$tmp/s/reduction/untimed-sm_90/$id.h" >"$tmp/hs.cu"
	expect emit_sms_compiles 0 "$NVCC" -o "$tmp/hs" "$tmp/hs.cu"
	expect emit_sms_geometry 0 "$tmp/hs"
fi

# refill and extra verification sizes without a GPU (tests/gpu/verify.sh runs them on one):
# results.json lists the extra sizes, which --size leaves alone; the launch header of a buffer
# refilled before every launch says so, and of that buffer only
expect verify_sizes_run 0 $T -j 2 --arch sm_90 --size n=4096 --out "$tmp/v" tests/kernels/pairs.yaml
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["sizes"] == {"n": 4096}, d["sizes"]
assert d["verify_sizes"] == [{"n": 1000003}, {"n": 1}], d["verify_sizes"]
assert all(v["status"] == "untimed" for v in d["variants"]), d["variants"]
' "$tmp/v/pairs/untimed-sm_90/results.json" 2>"$tmp/py"; then ok verify_sizes_json; else bad verify_sizes_json "$(cat "$tmp/py")"; fi
id=$($T --dry-run tests/kernels/hist.yaml | awk '/PRIVATE=1/ && $NF == "kept" { print $1; exit }')
expect emit_refill 0 $T --arch sm_90 --out "$tmp/r" --emit "$id" tests/kernels/hist.yaml
h=$tmp/r/hist/untimed-sm_90/$id.h
has emit_refill_macro "#define HIST_BINS_REFILL 1" "$h"
has emit_refill_zero "#define HIST_BINS_ZERO 1" "$h"
has emit_refill_doc "out, read and written by the kernel: it must be all zero before every launch" "$h"
if [ -f "$h" ] && ! grep -q "HIST_DATA_REFILL" "$h"; then ok emit_refill_only_refilled; else bad emit_refill_only_refilled "$(grep REFILL "$h")"; fi
if [ -x "$NVCC" ] || command -v "$NVCC" >/dev/null 2>&1; then
	printf '#include "%s"\nint main(void){return !(HIST_BINS_REFILL && HIST_BINS_ZERO && HIST_BINS_ROLE == TUNER_ROLE_OUT && hist_bins_count(1 << 24, 1) == 256);}\n' "$h" >"$tmp/hr.cu"
	expect emit_refill_compiles 0 "$NVCC" -o "$tmp/hr" "$tmp/hr.cu"
	expect emit_refill_header_values 0 "$tmp/hr"
fi

# built without CUPTI's headers (configure.py finds none), --counters is unavailable and says why
printf '#include "counters.h"\n#include <string.h>\nint main(void)\n{\n\tchar w[256] = "";\n\treturn counters_open(NULL, 0, counters_smem[0], 6, w, sizeof w) != NULL || !strstr(w, "without CUPTI");\n}\n' >"$tmp/nocupti.c"
cuinc=$(dirname "$(dirname "$NVCC")")/include
if ${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -DTUNER_NO_CUPTI -Ituner -I"$cuinc" "$tmp/nocupti.c" \
	tuner/counters.c tuner/util.c tuner/wrap.c -ldl -o "$tmp/nocupti" >"$tmp/cc.log" 2>&1; then
	expect counters_without_cupti 0 "$tmp/nocupti"
else
	bad counters_without_cupti "$(head -c 2000 "$tmp/cc.log")"
fi

# parameter values that are expressions of the sizes: evaluated under the sizes of the run
# (--size included), a value equal to an earlier one dropped with a warning; a variant's id
# depends on its values alone; merge and bundle evaluate them under the sizes results.json
# records
mkdir "$tmp/sz"
cp tests/kernels/scale.cu tests/kernels/scale_ref.cu "$tmp/sz/"
sed -e 's|^  BLOCK: \[64, 128, 256\]$|  BLOCK: [64, "n / 32", 256]|' \
	-e 's|^  UNROLL: \[1, 2\]$|  UNROLL: {from: 1, to: "ceil_div(n, 2048)"}|' tests/kernels/scale.yaml >"$tmp/sz/sized.yaml"
expect sized_dry_run 0 $T --dry-run --list-dropped "$tmp/sz/sized.yaml"
has sized_id_of_values "^v21e58637  BLOCK=64 UNROLL=1 " "$tmp/stdout" # as scale.yaml's
has sized_values "^9 variants: 6 kept" "$tmp/stdout" # n = 4099: BLOCK 64 128 256, UNROLL 1 2 3
has sized_values_128 " BLOCK=128 UNROLL=3 " "$tmp/stdout"
expect sized_dry_run_size 0 $T --dry-run --size n=8192 "$tmp/sz/sized.yaml"
has sized_size_values "^8 variants: 5 kept" "$tmp/stdout" # BLOCK 64 256, UNROLL 1 .. 4
has sized_size_values_4 " BLOCK=64 UNROLL=4 " "$tmp/stdout"
has sized_duplicate_warned "^tuner: warning: $tmp/sz/sized.yaml:10:25: 'BLOCK': value 256 repeats an earlier one with n=8192: tried once$" "$tmp/stderr"
expect sized_range_empty 2 $T --dry-run --size n=0 "$tmp/sz/sized.yaml"
has sized_range_empty_msg "^tuner: $tmp/sz/sized.yaml:11:26: 'UNROLL': 'to' (0) is below 'from' (1) with n=0$" "$tmp/stderr"
# the points' table where the spaces differ: a variant once, "-" at a point whose space lacks it,
# its registers once (alike wherever it is), its place in each point's order side by side
expect sized_points 0 $T -j 2 --arch sm_90 --size n=4099,8192 --out "$tmp/szp" "$tmp/sz/sized.yaml"
if grep -q "^id  *params  *regs  #@1  #@2  grid@1  grid@2$" "$tmp/stdout" &&
	grep -q "^v4f7d607e  BLOCK=128 UNROLL=1  *[0-9]*  *4  *-  *33  *-$" "$tmp/stdout" &&
	grep -q "^v21dbd9da  BLOCK=64 UNROLL=4  *[0-9]*  *-  *4  *-  *32$" "$tmp/stdout" &&
	[ "$(grep -c '^v[0-9a-f]\{8\} ' "$tmp/stdout")" -eq 7 ] && unwrap "$tmp/stdout" | grep -q "; -: not in that point's space$"; then
	ok sized_points_table; else bad sized_points_table "$(cat "$tmp/stdout")"; fi
expect sized_whole 0 $T -j 2 --arch sm_90 --size n=8192 --out "$tmp/szw" "$tmp/sz/sized.yaml"
for k in 1 2; do
	expect "sized_shard_$k" 0 $T -j 2 --arch sm_90 --size n=8192 --shard $k/2 --out "$tmp/szs" "$tmp/sz/sized.yaml"
done
expect sized_merge 0 $T merge "$tmp/szs/scale/untimed-sm_90"
if python3 tests/merge_equal.py "$tmp/szw/scale/untimed-sm_90/results.json" "$tmp/szs/scale/untimed-sm_90/results.json" >"$tmp/eq" 2>&1; then
	ok sized_merge_equals_whole
else
	bad sized_merge_equals_whole "$(cat "$tmp/eq")"
fi
# three synthetic GPUs' results of the --size run bundle; a winner with UNROLL=4 (not a value
# under the config's own n) is one of its kernels
if python3 tests/bundle/fake_gpus.py "$tmp/szw/scale/untimed-sm_90" "$tmp/szb/scale" >"$tmp/szb.ids" 2>"$tmp/stderr"; then
	expect sized_bundle 0 $T bundle --out "$tmp/szb-out" "$tmp/szb/scale"
	has sized_bundle_unroll4 "UNROLL=4" "$(ls "$tmp"/szb-out/*.cu | head -n 1)"
else
	bad sized_bundle "$(cat "$tmp/stderr")"
fi

# interrupts: SIGKILL mid-compile leaves nothing half-written and the re-run reuses the cache
# (SIGINT and SIGTERM: tests/hostile.sh); two runs at once agree
c="$tmp/kc"
setsid $T -j 2 --arch sm_90 --cache "$c" --out "$tmp/k" configs/filter21.yaml >/dev/null 2>&1 &
pid=$!
wait_cache "$c"
kill -KILL -$pid 2>/dev/null
wait $pid 2>/dev/null
left=$(find "$tmp/k" -name '*.tmp*' 2>/dev/null | wc -l)
[ "$left" -eq 0 ] && [ ! -e "$tmp/k/filter21/untimed-sm_90/results.json" ] && ok "sigkill_leaves_nothing_half_written" || bad "sigkill_leaves_nothing_half_written" "$(find "$tmp/k" "$c" | head)"
n1=$(count "$c")
expect sigkill_rerun 0 $T -j 2 --arch sm_90 --cache "$c" --out "$tmp/k" configs/filter21.yaml
hits=$(sed -n 's/.*, \([0-9]*\) from the cache.*/\1/p' "$tmp/stderr")
[ "${hits:-0}" -ge "$n1" ] && [ "$n1" -ge 1 ] && ok "sigkill_rerun_uses_cache" || bad "sigkill_rerun_uses_cache" "$n1 cached before, $hits hits: $(cat "$tmp/stderr")"

for n in 1 2; do
	$T -j 1 --arch sm_90 --cache "$tmp/cc" --out "$tmp/cc-out" tests/kernels/scale.yaml >"$tmp/cc$n.out" 2>&1 &
done
wait
j="$tmp/cc-out/scale/untimed-sm_90/results.json"
if python3 -c 'import json,sys; assert len(json.load(open(sys.argv[1]))["variants"]) == 5' "$j" 2>/dev/null &&
	[ "$(find "$tmp/cc-out" "$tmp/cc" -name '*.tmp*' | wc -l)" -eq 0 ]; then ok "concurrent_runs"; else bad "concurrent_runs" "$(cat "$tmp/cc1.out" "$tmp/cc2.out")"; fi

# the bank model: tuner explain, the table's column and results.json (docs/bank-model.md)
expect explain_transpose 0 $T explain configs/transpose.yaml
has explain_summary "^every access conflict-free in [0-9]* of 560 variants; bank ratio 1.00 " "$tmp/stdout"
has explain_summary_worst "^  tile_load  *420  *[0-9]*  32 (v[0-9a-f]* TILE=32 " "$tmp/stdout"
# degree of tile_load in the 32 x 32 tile (VEC 1, ROWS 8): 32-way unpadded, conflict-free padded
degree() { awk -v p="$1" '$2 " " $3 " " $4 " " $5 " " $6 " " $7 " " $8 " " $9 == p { f = 1; next }
	/^v/ { f = 0 } f && $1 == "tile_load" { print $7 }' "$tmp/stdout"; }
d0=$(degree "TILE=32 TH=32 VEC=1 ROWS=8 PAD=0 SWIZZLE=0 GROUP=1 BANK_BYTES=4")
d1=$(degree "TILE=32 TH=32 VEC=1 ROWS=8 PAD=1 SWIZZLE=0 GROUP=1 BANK_BYTES=4")
[ "$d0" = 32 ] && [ "$d1" = 1 ] && ok "explain_tile_column" || bad "explain_tile_column" "degree unpadded '$d0', padded '$d1'"
# explain --sass: without a disassembler (none here, or TUNER_DISASM naming none) it says so and
# checks nothing; on a GPU machine tests/gpu/sass.sh runs it
expect explain_sass_absent 0 env TUNER_DISASM=/nonexistent/nvdisasm $T explain --sass configs/transpose.yaml
has explain_sass_absent_said "^tuner explain --sass: skipped: TUNER_DISASM=/nonexistent/nvdisasm is not a program" "$tmp/stdout"
expect explain_sass_not_tune 2 $T --sass configs/transpose.yaml
# a compile-only run at several points: each point's page names it, the GPU directory's page
# links them
expect untimed_points 0 $T -j 2 --arch sm_90 --size n=4096,8192 --out "$tmp/up" tests/kernels/scale.yaml
ug=$tmp/up/scale/untimed-sm_90
for x in 4096 8192; do
	has "untimed_points_page_n=$x" "no GPU: compiled for sm_90, at n=$x</span>" "$ug/n=$x/report.html"
	has "untimed_points_link_n=$x" "<li><a href=\"n=$x/report.html\">n=$x</a></li>" "$ug/report.html"
done
# ... and its table shows each variant once, the points side by side where they differ (the
# grid), once what is the same at both (registers, ...), and says nothing was timed once
if [ "$(grep -c '^v[0-9a-f]\{8\} ' "$tmp/stdout")" -eq 5 ] &&
	[ "$(grep '^v[0-9a-f]\{8\} ' "$tmp/stdout" | awk '{ print $1 }' | sort -u | wc -l)" -eq 5 ] &&
	grep -q "^the variants at 2 points, each once; where the points differ, a column each: @1 n=4096, @2 n=8192$" "$tmp/stdout" &&
	grep -q "^every row: regs [0-9]*, spill 0, smem 0, status untimed$" "$tmp/stdout" &&
	grep -q "^id  *params  *grid@1  grid@2$" "$tmp/stdout" &&
	grep -q "^v21e58637  BLOCK=64 UNROLL=1  *64  *128$" "$tmp/stdout" &&
	[ "$(grep -c '^nothing was timed' "$tmp/stdout")" -eq 1 ] && [ "$(grep -c '^id ' "$tmp/stdout")" -eq 1 ] &&
	[ "$(grep -c 'compiling for sm_90 with' "$tmp/stderr")" -eq 1 ]; then
	ok untimed_points_table; else bad untimed_points_table "$(cat "$tmp/stdout")"; fi
# a column differs where the points do: the reduction's grid at two sizes, its registers alike;
# twenty rows of 1076 (--all: every one, each once); -q prints the untimed line alone
expect untimed_points_reduction 0 $T -j 2 --arch sm_90 --size n=65536,1048576 --out "$tmp/up" configs/reduction.yaml
if grep -q "^id  *params  *regs  grid@1  grid@2$" "$tmp/stdout" && grep -q "^ve7176159  VEC=1 EPT=4 GRID=0 SPLIT=0  *[0-9]*  *128  *2048$" "$tmp/stdout" &&
	[ "$(grep -c '^v[0-9a-f]\{8\} ' "$tmp/stdout")" -eq 20 ] && grep -q '^\.\.\. 1056 more (--all' "$tmp/stdout"; then
	ok untimed_points_reduction_table; else bad untimed_points_reduction_table "$(head -n 30 "$tmp/stdout")"; fi
expect untimed_points_all 0 $T -j 2 --all --arch sm_90 --size n=65536,1048576 --out "$tmp/up" configs/reduction.yaml
[ "$(grep '^v[0-9a-f]\{8\} ' "$tmp/stdout" | awk '{ print $1 }' | sort -u | wc -l)" -eq 1076 ] &&
	[ "$(grep -c '^v[0-9a-f]\{8\} ' "$tmp/stdout")" -eq 1076 ] && ok untimed_points_all_once ||
	bad untimed_points_all_once "$(grep -c '^v' "$tmp/stdout") rows"
expect untimed_points_quiet 0 $T -q -j 2 --arch sm_90 --size n=65536,1048576 --out "$tmp/up" configs/reduction.yaml
[ "$(wc -l <"$tmp/stdout")" -eq 1 ] && has untimed_points_quiet_said "^nothing was timed: " "$tmp/stdout" ||
	bad untimed_points_quiet_said "$(cat "$tmp/stdout")"
# explain --sass with a disassembler found as the tuner looks for one (scripts/nvdisasm installs
# nvdisasm for the user; .ci/run does): a variant whose stores are as declared agrees; a copy of
# the config declaring VEC-wide stores where the padding breaks their alignment names it (exit 1)
sid=$($T --dry-run configs/transpose.yaml 2>/dev/null |
	awk '/ TILE=32 TH=32 VEC=4 ROWS=8 PAD=1 SWIZZLE=0 GROUP=0 BANK_BYTES=4 / { print $1; exit }')
$T explain --sass --emit "$sid" --arch sm_90 configs/transpose.yaml >"$tmp/sass.out" 2>&1
if grep -q "^tuner explain --sass: skipped: no disassembler" "$tmp/sass.out"; then
	skip explain_sass "$(sed -n 's/.*skipped: //p' "$tmp/sass.out")"
else
	expect explain_sass_agrees 0 $T explain --sass --emit "$sid" --arch sm_90 configs/transpose.yaml
	has explain_sass_agrees_said "^tuner explain --sass: 0 of 1 variants compiled for sm_90 differ" "$tmp/stdout"
	mkdir -p "$tmp/sass/configs"
	ln -s "$PWD/templates" "$tmp/sass/templates"
	sed 's/^    width: 4 \* min(VEC, .*/    width: 4 * VEC/' configs/transpose.yaml >"$tmp/sass/configs/t.yaml"
	expect explain_sass_differs 1 $T explain --sass --emit "$sid" --arch sm_90 "$tmp/sass/configs/t.yaml"
	has explain_sass_differs_said "^  declared: 16-byte stores (1 access), but the code has no STS.128" "$tmp/stdout"
fi
# explain at several points: each one, named
expect explain_points 0 $T explain --size cols=1024,2048 configs/transpose.yaml
if [ "$(grep '^tuner explain: point' "$tmp/stdout")" = "tuner explain: point 1 of 2: rows=8192 cols=1024
tuner explain: point 2 of 2: rows=8192 cols=2048" ]; then ok explain_points_named; else bad explain_points_named "$(grep -n 'point' "$tmp/stdout" | head)"; fi
# a later point whose variants and prediction are the first's says so instead of repeating it
[ "$(grep -c '^the same 560 variants as at point 1, and the bank model sees no size: the same prediction$' "$tmp/stdout")" -eq 1 ] &&
	[ "$(grep -c '^configs/transpose.yaml: 560 variants kept' "$tmp/stdout")" -eq 1 ] && ok explain_points_once ||
	bad explain_points_once "$(grep -n 'point\|variants kept' "$tmp/stdout" | head)"
# what explain priced: the sizes, the architecture and where it came from (the model is static)
expect explain_priced 0 $T explain --arch sm_90 configs/transpose.yaml
has explain_priced_said "^configs/transpose.yaml: 560 variants kept of [0-9]* at rows=8192 cols=8192, priced for sm_90, as --arch says$" "$tmp/stdout"
has explain_priced_static "^the bank model's prediction (docs/bank-model.md): a static model of the declared accesses under sm_90's bank rules$" "$tmp/stdout"
expect explain_priced_env 0 env TUNER_ARCH=sm_80 $T explain configs/reduction.yaml
has explain_priced_env_said "^configs/reduction.yaml: 1076 variants kept of 4320 at n=67108864, priced for sm_80, as TUNER_ARCH says$" "$tmp/stdout"
expect explain_priced_default 0 $T explain configs/reduction.yaml
has explain_priced_default_said "^configs/reduction.yaml: .* priced for sm_[0-9]*, \(the newest NVRTC knows (no GPU;\|the GPU's (\)" "$tmp/stdout"
expect explain_no_accesses 2 $T explain tests/kernels/scale.yaml
has explain_no_accesses_msg "no 'accesses' declared" "$tmp/stderr"
expect bank_table 0 $T -j 2 --arch sm_90 --out "$tmp/out" configs/transpose.yaml
has bank_table_says_predicted "bank: predicted by the model" "$tmp/stdout"
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
n = 0
for v in d["variants"]:
    if v["status"] == "dropped":
        assert "bank" not in v, v
        continue
    b = v["bank"]
    assert b["rules"] == "sm_70+" and b["predicted"] is True and b["accesses"] and b["kepler8"], v
    for a in b["accesses"] + b["kepler8"]:
        assert set(a) >= {"name", "requests", "wavefronts", "ideal", "mean", "ideal_mean", "max", "degree"}, a
        assert a["wavefronts"] >= a["ideal"] > 0, a
    p = v["params"]
    if (p["TILE"], p["VEC"], p["PAD"], p["SWIZZLE"]) == (32, 1, 0, 0):
        load = [a for a in b["accesses"] if a["name"] == "tile_load"][0]
        assert load["degree"] == 32 and load["mean"] == 32, load
        n += 1
assert n > 0
' "$tmp/out/transpose/untimed-sm_90/results.json" 2>"$tmp/py"; then ok "results_json_bank"; else bad "results_json_bank" "$(cat "$tmp/py")"; fi

# the house's shape: no circle among tuner/'s modules (includes and the objects' symbols,
# scripts/modules.py), headers within their budget (include lines between them, the longest
# chain, the widest reach: scripts/includes.py), no source file over 1000 lines
expect modules_no_circle 0 python3 scripts/modules.py "$(dirname "$B")/obj/tuner"
expect architecture_holds 0 python3 scripts/modules.py --doc docs/architecture.md "$(dirname "$B")/obj/tuner"
expect headers_budget 0 python3 scripts/includes.py --check
long=$(wc -l tuner/*.c | awk '$2 != "total" && $1 > 1000 {print $2 ": " $1 " lines"}')
[ -z "$long" ] && ok sources_short || bad sources_short "$long"
# no function over 120 lines (a definition starts at column 0 and ends at the first "}" there)
long=$(awk 'FNR == 1 { start = 0 } /^[a-z].*\(/ && !/;$/ { start = FNR; name = $0 }
	/^}/ && start { if (FNR - start + 1 > 120) print FILENAME ": " name " " FNR - start + 1 " lines"; start = 0 }' tuner/*.c)
[ -z "$long" ] && ok functions_short || bad functions_short "$long"

# a path that would close the provenance comment stays inside it: nothing of it is code
inj="$tmp/inj/x*/ int pwned = 1; /*y"
mkdir -p "$inj" && cp tests/kernels/scale.yaml tests/kernels/scale.cu tests/kernels/scale_ref.cu "$inj/"
expect emit_path_comment 0 $T -q -j 2 --arch sm_90 --out "$tmp/inj/o" --emit v21e58637 "$inj/scale.yaml"
for f in "$tmp"/inj/o/scale/*/v21e58637.h "$tmp"/inj/o/scale/*/v21e58637.cu; do
	if [ -f "$f" ] && ! cc -E -P -x c "$f" 2>/dev/null | grep -q pwned; then ok "emit_path_comment_$(basename "$f")"
	else bad "emit_path_comment_$(basename "$f")" "$(head -n 5 "$f" 2>&1)"; fi
done

# a suite that cannot run here says why and counts as skipped, not as passed or failed
expect skip_counted 0 env TUNER_NO_SLURM=1 sh tests/slurm.sh "$T"
has skip_counted_line "^slurm: 0 passed, 0 failed, 1 skipped$" "$tmp/stdout"
has skip_counted_reason "^skip slurm: TUNER_NO_SLURM=1 " "$tmp/stdout"

# sub-suites, each ending "NAME: N passed, N failed" (", N skipped" may follow): tuner bundle
# (the example application, the selection, the test kernel's bundle, bad input), bad input
# through the real binary (exit 2, the message, within the time limit, nothing written), the
# GPU side on a fake driver (tests/fakegpu.sh: extra verification sizes, refills), hostile runs
# (interrupts, corrupt cache, concurrent writers), results from elsewhere (tests/foreign.sh:
# names escaped, bad siblings skipped, bounded reads, --seed, merge's L2), scripts/slurm-tune on a one-node Slurm
# cluster the suite starts (two shards merged equal one unsharded run; skipped without Slurm or
# with TUNER_NO_SLURM=1), large spaces and shards (tests/search.sh), report.html in a headless
# browser and results.t4.json against the T4 schema (tests/report.sh; the browser skipped
# without chromium or with TUNER_NO_BROWSER=1), every line the tuner prints within 120 columns
# (tests/width.sh: the shipped configs compiled, at several sizes, --dry-run, explain, bundle,
# --help, a run on the fake driver) and ninja install with the man page (this
# build's configuration in its own build directory, $B/../install-test) and the CMake package
# (examples/CMakeLists.txt built against the installed tree; skipped without cmake or nvcc).
# suite NAME SCRIPT ARGS...
suite() {
	name=$1
	shift
	"$@" >"$tmp/$name.log" 2>&1
	cat "$tmp/$name.log"
	line=$(tail -n 1 "$tmp/$name.log")
	re="^$name: \([0-9]*\) passed, \([0-9]*\) failed\(, \([0-9]*\) skipped\)\{0,1\}\$"
	sp=$(echo "$line" | sed -n "s/$re/\1/p")
	sf=$(echo "$line" | sed -n "s/$re/\2/p")
	ss=$(echo "$line" | sed -n "s/$re/\4/p")
	if [ -z "$sp" ]; then bad "$1 finished" "$line"; else
		pass=$((pass + sp)) fail=$((fail + sf)) skipped=$((skipped + ${ss:-0})); fi
}
# the GPU check's table (tests/gpu/dispatch.py) from one harness process and from three
# (DISPATCH_PROCS): each candidate's time the median of its processes' medians, a check that
# failed in any process failing the row. vB is 2 % faster than the pick in the first process,
# 2 % slower over the three.
d=$tmp/dp
mkdir -p "$d"
: >"$d/agree"
# harness N VB CHECK: process N's output, vB's median VB, the pick's check CHECK
harness() {
	printf 'time p n=100 entry0 vA 1.000 0.990 graph %s pick\ntime p n=100 entry1 vB %s 0.970 graph ok -\n' "$3" "$2" >"$d/t$1"
}
harness 1 0.980 ok
harness 2 1.050 ok
harness 3 1.020 ok
harness 4 1.020 FAIL@0:1/2
expect dispatch_table_one 1 python3 tests/gpu/dispatch.py table "$d/table" k "$d/t1" "$d/agree"
has dispatch_table_one_gap "^k  *n=100  *point  *graph  *vA  *1.00  *vB  *2.04 .*FAIL$" "$tmp/stdout"
expect dispatch_table_procs 0 python3 tests/gpu/dispatch.py table "$d/table" k "$d/t1,$d/t2,$d/t3" "$d/agree"
has dispatch_table_procs_median "^k  *n=100  *point  *graph  *vA  *1.00  *vA  *0.00 .*PASS$" "$tmp/stdout"
expect dispatch_table_procs_check 1 python3 tests/gpu/dispatch.py table "$d/table" k "$d/t2,$d/t4,$d/t3" "$d/agree"
has dispatch_table_procs_check_said "FAIL (entry0 FAIL@0:1/2)$" "$tmp/stdout"
# DISPATCH_ALONE: vA built alone runs 10 % faster than its bundle entry: a build line, and the
# verdict (among the bundle's entries) unchanged
harness 5 1.050 ok
printf 'time p n=100 alone1 vA 0.900 0.890 graph ok -\n' >>"$d/t5"
expect dispatch_table_alone 0 python3 tests/gpu/dispatch.py table "$d/table" k "$d/t5" "$d/agree"
has dispatch_table_alone_line "^k  *n=100  *build: vA in the bundle 1.00 us, alone 0.90 us (bundle +11.11 %)$" "$tmp/stdout"

suite bundle tests/bundle/run.sh "$T" "$tmp/out" "$NVCC"
suite bad tests/bad.sh "$T"
suite fakegpu tests/fakegpu.sh "$T"
suite hostile tests/hostile.sh "$T"
suite foreign tests/foreign.sh "$T"
suite search tests/search.sh "$T"
suite report tests/report.sh "$T"
suite width tests/width.sh "$T"
suite slurm tests/slurm.sh "$T"
suite install tests/install.sh "$B" "$tmp/out" "$NVCC"

schema_all results_schema /szb/ # szb: synthetic results (tests/bundle/fake_gpus.py), not the tuner's
finish
