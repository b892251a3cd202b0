#!/bin/sh
# Bad input through the real binary: every config in tests/bad and tests/bad/late, plus inputs
# too big to commit (generated here) and files that are not configs. Each must give exit status
# 2, its error on stderr (tests/bad/NAME.err: the whole of stderr; tests/bad/late/NAME.err: the
# first line, the tuner run with -q), nothing on stdout, within TUNER_BAD_SECONDS (default 1;
# 10 more for cases that compile), and leave the --out directory as it was, and the --cache
# directory too unless the case compiles (compiling a good reference may cache it).
# usage: tests/bad.sh [TUNER]   (default: $TUNER_BINDIR/tuner, else out/bin/tuner)
# Ends with "bad: N passed, N failed"; exits non-zero on any failure.
set -u
cd "$(dirname "$0")/.." || exit 2
T=${1:-${TUNER_BINDIR:-out/bin}/tuner}
limit=${TUNER_BAD_SECONDS:-1}
. tests/lib.sh
tmpdir bad

# what is in the output and cache directories, to see that a failed run changed nothing
snap() { find "$tmp/o" ${cache:+"$tmp/c"} -printf '%p %y %s %T@ %m\n' | sort; }
cache=1 # 0 while a case may fill the cache

mkdir "$tmp/o" "$tmp/c" "$tmp/gen"
echo keep >"$tmp/o/sentinel"
echo keep >"$tmp/c/sentinel"
snap >"$tmp/snap0"

# run NAME LIMIT TUNER-ARGS...: run the tuner on a bad config; the checks common to every case
# pass or fail NAME; the caller compares $tmp/err with what it wants
run() {
	name=$1 lim=$2
	shift 2
	t0=$(now)
	"$T" --out "$tmp/o" --cache "$tmp/c" --arch sm_90 -j 2 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	st=$?
	t1=$(now)
	snap >"$tmp/snap1"
	why=""
	[ "$st" -eq 2 ] || why="exit $st, want 2"
	[ -s "$tmp/out" ] && why="${why:+$why; }stdout not empty: $(head -c 300 "$tmp/out")"
	if ! awk -v a="$t0" -v b="$t1" -v l="$lim" 'BEGIN { exit !(b - a < l) }'; then
		why="${why:+$why; }took $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s (limit $lim s)"
	fi
	if ! cmp -s "$tmp/snap0" "$tmp/snap1"; then
		why="${why:+$why; }changed the output or cache directory: $(diff "$tmp/snap0" "$tmp/snap1" | head -n 5)"
		rm -rf "$tmp/o" "$tmp/c"
		mkdir "$tmp/o" "$tmp/c"
		echo keep >"$tmp/o/sentinel"
		echo keep >"$tmp/c/sentinel"
		snap >"$tmp/snap0"
	fi
	case $(head -n 1 "$tmp/err") in
	"tuner: "*) ;;
	*) why="${why:+$why; }stderr does not start with 'tuner: '" ;;
	esac
	if [ -n "$why" ]; then
		bad "$name" "$why
$(head -c 2000 "$tmp/err")"
		return 1
	fi
	return 0
}

# want NAME TEXT: stderr must be exactly TEXT (one line)
want() {
	printf '%s\n' "$2" >"$tmp/want"
	if cmp -s "$tmp/want" "$tmp/err"; then ok "$1"; else bad "$1" "$(diff -u "$tmp/want" "$tmp/err" | tail -n +3 | head -c 2000)"; fi
}

# the corpus: the whole of stderr is the golden .err
for y in tests/bad/*.yaml; do
	n=$(basename "$y" .yaml)
	run "bad_$n" "$limit" "$y" || continue
	if [ ! -f "tests/bad/$n.err" ]; then
		bad "bad_$n" "no tests/bad/$n.err"
	elif cmp -s "tests/bad/$n.err" "$tmp/err"; then
		ok "bad_$n"
	else
		bad "bad_$n" "$(diff -u "tests/bad/$n.err" "$tmp/err" | tail -n +3 | head -c 2000)"
	fi
done

# errors found after loading (expanding the space, compiling): the first line of stderr
for y in tests/bad/late/*.yaml; do
	n=$(basename "$y" .yaml)
	case $n in *compile*) lim=$((limit + 10)) cache= ;; *) lim=$limit cache=1 ;; esac
	snap >"$tmp/snap0"
	run "late_$n" "$lim" -q "$y" || continue
	head -n 1 "$tmp/err" >"$tmp/first"
	if [ ! -f "tests/bad/late/$n.err" ]; then
		bad "late_$n" "no tests/bad/late/$n.err"
	elif cmp -s "tests/bad/late/$n.err" "$tmp/first"; then
		ok "late_$n"
	else
		bad "late_$n" "$(diff -u "tests/bad/late/$n.err" "$tmp/first" | tail -n +3 | head -c 2000)"
	fi
done
cache=1
snap >"$tmp/snap0"

# generated: too big to commit. g/ sits beside a copy of the test template, as tests/bad does
g=$tmp/gen/g
mkdir "$g" "$tmp/gen/data"
cp tests/data/good.cu "$tmp/gen/data/good.cu"
sed 4d tests/bad/unknown_key.yaml >"$g/base.yaml" # its one error was line 4, 'tile_m: 32'
# gen NAME LINE TEXT: base.yaml with its line LINE replaced by TEXT (TEXT from stdin when "-")
gen() {
	if [ "$3" = - ]; then cat >"$tmp/line"; else printf '%s\n' "$3" >"$tmp/line"; fi
	awk -v l="$2" -v f="$tmp/line" 'NR == l { while ((getline s < f) > 0) print s; next } { print }' \
		"$g/base.yaml" >"$g/$1.yaml"
}
rep() { awk -v s="$1" -v n="$2" 'BEGIN { while (n-- > 0) printf "%s", s }'; }

# 50000 levels of nesting; the root mapping is a level, so the 64th '[' is one too many
N=50000
gen deep_flow 17 "args: $(rep '[' $N)$(rep ']' $N)"
run gen_deep_flow "$limit" "$g/deep_flow.yaml" &&
	want gen_deep_flow "tuner: $g/deep_flow.yaml:17:70: nested deeper than 64 levels"
gen deep_flow_unclosed 17 "args: $(rep '[' $N)"
run gen_deep_flow_unclosed "$limit" "$g/deep_flow_unclosed.yaml" &&
	want gen_deep_flow_unclosed "tuner: $g/deep_flow_unclosed.yaml:17:70: nested deeper than 64 levels"
gen deep_map 17 "args: $(rep '{a: ' $N)x$(rep '}' $N)"
run gen_deep_map "$limit" "$g/deep_map.yaml" &&
	want gen_deep_map "tuner: $g/deep_map.yaml:17:259: nested deeper than 64 levels"
gen deep_block 17 "args:
$(rep '- ' $N)x"
run gen_deep_block "$limit" "$g/deep_block.yaml" &&
	want gen_deep_block "tuner: $g/deep_block.yaml:18:127: nested deeper than 64 levels"

# huge scalars: just under the size limit (the message quotes 60 bytes of it), and over it
big=$(rep aaaaaaaaaa 100000)
gen big_name 1 "name: $big-"
run gen_big_name "$limit" "$g/big_name.yaml" &&
	want gen_big_name "tuner: $g/big_name.yaml:1:7: invalid name '$(rep a 60)...': use letters, digits and '_'"
gen big_template 2 "template: $big"
run gen_big_template "$limit" "$g/big_template.yaml" &&
	want gen_big_template "tuner: $g/big_template.yaml:2:1: template '$(rep a 60)...': File name too long"
# a template one byte over the size limit (4 MiB) is refused where the config names it
awk 'BEGIN { for (i = 0; i < 65536; i++) printf "%063d\n", 0; printf "x" }' >"$tmp/gen/data/big.cu"
gen big_source 2 "template: ../data/big.cu"
run gen_big_source "$limit" "$g/big_source.yaml" &&
	want gen_big_source "tuner: $g/big_source.yaml:2:1: template '../data/big.cu' has more than 4194304 bytes: too large for a source file"
gen huge_scalar 1 "name: $big$big$big"
run gen_huge_scalar "$limit" "$g/huge_scalar.yaml" &&
	want gen_huge_scalar "tuner: $g/huge_scalar.yaml: more than 1048576 bytes: too large for a config"

# wide collections: linear, not quadratic, in their size
{ printf 'sizes: {'; awk 'BEGIN { for (i = 0; i < 60000; i++) printf "k%d: 1, ", i; print "k7: 2}" }'; } >"$g/many_keys.yaml"
run gen_many_keys "$limit" "$g/many_keys.yaml" &&
	want gen_many_keys "tuner: $g/many_keys.yaml:1:$((9 + $(awk 'BEGIN { n = 0; for (i = 0; i < 60000; i++) n += length("k" i ": 1, "); print n }'))): duplicate key 'k7'"
awk 'BEGIN { printf "  BLOCK: ["; for (i = 0; i < 100000; i++) printf "%d, ", i; print "99999]" }' | gen many_values 7 -
run gen_many_values "$limit" "$g/many_values.yaml" &&
	want gen_many_values "tuner: $g/many_values.yaml:7:$((11 + $(awk 'BEGIN { n = 0; for (i = 0; i < 100000; i++) n += length(i ", "); print n }'))): duplicate value 99999 in 'BLOCK'"
{
	sed -n 1,7p "$g/base.yaml"
	awk 'BEGIN { print "buffers:"; for (i = 0; i < 2000; i++) printf "  - {name: b%d, type: float, count: n, role: out}\n", i }'
	sed -n '17,$p' "$g/base.yaml"
} >"$g/many_buffers.yaml"
run gen_many_buffers "$limit" "$g/many_buffers.yaml" &&
	want gen_many_buffers "tuner: $g/many_buffers.yaml:1033:5: more than 1024 buffers"

# files that are not configs
head -c 65536 "$T" >"$g/binary.yaml"
run gen_binary "$limit" "$g/binary.yaml" &&
	want gen_binary "tuner: $g/binary.yaml:1:1: control characters are not allowed"
awk 'BEGIN { srand(1); for (i = 0; i < 65536; i++) printf "%c", int(rand() * 256) }' >"$g/random.yaml"
if run gen_random "$limit" "$g/random.yaml"; then
	if [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^tuner: $g/random.yaml:[0-9]*:[0-9]*: " "$tmp/err"; then
		ok gen_random
	else
		bad gen_random "$(head -c 500 "$tmp/err")"
	fi
fi
run gen_dev_zero "$limit" /dev/zero &&
	want gen_dev_zero "tuner: /dev/zero: cannot read config: not a regular file"
truncate -s 8G "$g/sparse.yaml"
run gen_sparse_8g "$limit" "$g/sparse.yaml" &&
	want gen_sparse_8g "tuner: $g/sparse.yaml: more than 1048576 bytes: too large for a config"
run gen_directory "$limit" tests/bad &&
	want gen_directory "tuner: tests/bad: cannot read config: Is a directory"
run gen_missing "$limit" "$g/nonexistent.yaml" &&
	want gen_missing "tuner: $g/nonexistent.yaml: cannot read config: No such file or directory"
ln -s loop.yaml "$g/loop.yaml"
run gen_symlink_loop "$limit" "$g/loop.yaml" &&
	want gen_symlink_loop "tuner: $g/loop.yaml: cannot read config: Too many levels of symbolic links"
cp "$g/base.yaml" "$g/unreadable.yaml"
chmod 000 "$g/unreadable.yaml"
if [ "$(id -u)" -eq 0 ]; then
	skip gen_unreadable "running as root, who may read any file"
else
	run gen_unreadable "$limit" "$g/unreadable.yaml" &&
		want gen_unreadable "tuner: $g/unreadable.yaml: cannot read config: Permission denied"
fi
# size overrides checked when the variants are expanded, with or without a GPU: an expression
# that overflows, buffers the GPU could not hold, an argument that does not fit its type
run gen_size_overflow "$limit" --size n=9223372036854775807 "$g/base.yaml" &&
	want gen_size_overflow "tuner: $g/base.yaml:11:14: buffer 'in' count 'n + 2': overflow in '+'"
run gen_size_huge "$limit" --size n=4611686018427387904 "$g/base.yaml" &&
	want gen_size_huge "tuner: $g/base.yaml:11:12: buffer 'in' count 'n + 2': 4611686018427387906 elements of 4 bytes: more than the 1099511627776 bytes a buffer may have"
run gen_size_zero "$limit" --size n=0 "$g/base.yaml" &&
	want gen_size_zero "tuner: $g/base.yaml:15:12: buffer 'out' count 'n': 0 elements: a buffer needs at least one"
run gen_size_int "$limit" --size n=2147483648 "$g/base.yaml" &&
	want gen_size_int "tuner: $g/base.yaml:17:17: argument 3 'n' for BLOCK=128: 2147483648 does not fit int"

# parameter values that are expressions of the sizes, evaluated under --size: a range it
# empties
gen sized 7 '  BLOCK: {from: 32, to: "n / 4", times: 2}'
run gen_size_param_range "$limit" --size n=100 "$g/sized.yaml" &&
	want gen_size_param_range "tuner: $g/sized.yaml:7:26: 'BLOCK': 'to' (25) is below 'from' (32) with n=100"

# several points (--size's values): every point checked before the first is compiled, so that
# an error at a later one writes nothing: a size a buffer cannot take, a parameter's value
# that divides by zero there only
run gen_points_second_zero "$limit" --size n=4096,0 "$g/base.yaml" &&
	want gen_points_second_zero "tuner: $g/base.yaml:15:12: buffer 'out' count 'n': 0 elements: a buffer needs at least one"
gen divides 7 '  BLOCK: {from: 32, to: "409600 / (n - 100)", times: 2}'
run gen_points_second_divides "$limit" --size n=1000,100 "$g/divides.yaml" &&
	want gen_points_second_divides "tuner: $g/divides.yaml:7:33: 'BLOCK' to '409600 / (n - 100)': division by zero with n=100"

finish bad
