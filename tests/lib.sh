# What the shell suites share, sourced by each after its cd to the repository root
# (. tests/lib.sh): the counters, ok and bad, expect and has, a few helpers (the time, the
# compile cache's entries), a temporary directory removed on exit, and the summary line with
# the exit status. A test that cannot run here (a system service or a program missing) is
# skipped with its reason and counted apart.

pass=0 fail=0 skipped=0

# ok NAME: one test passed
ok() { pass=$((pass + 1)); echo "ok   $1"; }
# bad NAME [WHY]: one test failed; WHY, when given, follows indented (its first 40 lines)
bad() {
	fail=$((fail + 1))
	echo "FAIL $1"
	if [ $# -gt 1 ]; then printf '%s\n' "$2" | head -n 40 | sed 's/^/  /'; fi
}
# skip NAME WHY: a test not run here, and why
skip() { skipped=$((skipped + 1)); echo "skip $1: $2"; }
# expect NAME STATUS CMD...: run CMD (its output in $tmp/stdout and $tmp/stderr), check its
# exit status
expect() {
	name=$1 want=$2
	shift 2
	"$@" >"$tmp/stdout" 2>"$tmp/stderr"
	got=$?
	if [ "$got" -eq "$want" ]; then ok "$name"; else bad "$name" "exit $got, want $want: $(cat "$tmp/stderr" "$tmp/stdout" | head -c 3000)"; fi
}
# unwrap FILE: FILE with the lines the tuner wrapped at 120 columns joined again: a line that
# starts with spaces continues the one before where its first word would not have fit there
unwrap() {
	awk 'NR > 1 && /^ +[^ ]/ && plen + 1 + length($1) > 120 {
		line = line " " substr($0, match($0, /[^ ]/)); plen = length($0); next }
	NR > 1 { print line }
	{ line = $0; plen = length($0) }
	END { if (NR) print line }' "$1"
}
# has NAME PATTERN FILE: FILE has a line matching PATTERN (grep), or a line the tuner wrapped
# does, joined again (unwrap)
has() {
	if grep -q -- "$2" "$3" || unwrap "$3" | grep -q -- "$2"; then ok "$1"; else bad "$1" "no '$2' in $3: $(head -c 2000 "$3")"; fi
}
# schema_py: the python that has the module jsonschema (python3, else Debian's), or python3
schema_py() {
	if ! python3 -c 'import jsonschema' 2>/dev/null && /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
		echo /usr/bin/python3
	else
		echo python3
	fi
}
# schema NAME FILE...: every results.json FILE is valid against docs/results.schema.json and
# keeps the promises it cannot state (tests/results_check.py); skipped without the python
# module jsonschema
schema() {
	name=$1
	shift
	$(schema_py) tests/results_check.py "$@" >"$tmp/schema.out" 2>&1
	case $? in
	0) ok "$name ($(cat "$tmp/schema.out"))" ;;
	2) skip "$name" "$(cat "$tmp/schema.out")" ;;
	*) bad "$name" "$(cat "$tmp/schema.out")" ;;
	esac
}
# schema_all NAME [PATTERN]: schema over every results.json the suite's runs left under $tmp
# (those whose path matches the grep -E PATTERN left out: made wrong on purpose)
schema_all() {
	find "$tmp" -name results.json | sort | grep -Ev "${2:-^$}" >"$tmp/schema.list"
	if [ -s "$tmp/schema.list" ]; then
		schema "$1" --from "$tmp/schema.list"
	else
		bad "$1" "no results.json under $tmp"
	fi
}
# now: the time in seconds, with nanoseconds
now() { date +%s.%N; }
# count DIR: how many compile cache entries DIR holds (not temporaries)
count() { find "$1" -name '*.bin' 2>/dev/null | wc -l; }
# wait_cache DIR: wait until DIR holds at least one cache entry (at most 60 s)
wait_cache() {
	i=0
	while [ "$(count "$1")" -lt 1 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
}
# finish [SUITE]: print "SUITE: N passed, N failed" ("N passed, N failed" without SUITE),
# followed by ", N skipped" where some were, and exit, non-zero on any failure
finish() {
	if [ "$skipped" -gt 0 ]; then s=", $skipped skipped"; else s=""; fi
	echo "${1:+$1: }$pass passed, $fail failed$s"
	[ "$fail" -eq 0 ]
	exit
}

# tmpdir NAME: $tmp, a new directory (an absolute path) removed on exit; INT and TERM exit 130
tmpdir() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/tuner-$1.XXXXXX") && tmp=$(cd "$tmp" && pwd) || exit 2
	trap rmtmp EXIT
	trap 'exit 130' INT TERM
}
# rmtmp: remove $tmp, with what a test made unreadable there
rmtmp() {
	chmod -R u+rwx "$tmp" 2>/dev/null
	rm -rf "$tmp"
}
