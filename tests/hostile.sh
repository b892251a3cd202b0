#!/bin/sh
# Hostile runs through the real binary: interrupts while compiling, a corrupt cache, no home
# for the cache, blank option values, concurrent writers of one output directory, colliding
# variant ids; links, FIFOs and huge files planted in out and cache directories, a write that
# fails midway, bytes that are not UTF-8, a newline in a template's path. usage: tests/hostile.sh [TUNER]  (default: $TUNER_BINDIR/tuner, else
# out/bin/tuner). Ends with "hostile: N passed, N failed"; exits non-zero on any failure.
set -u
cd "$(dirname "$0")/.." || exit 2
T=${1:-${TUNER_BINDIR:-out/bin}/tuner}
. tests/lib.sh
tmpdir hostile
export TUNER_CACHE="$tmp/cache"
secs() { python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 2))" "$1" "$2"; }
# alive PGID: how many processes of the group are left (after a moment for the kernel to reap)
alive() { sleep 0.3; ps -e -o pgid= -o stat= | awk -v g="$1" '$1 == g && $2 !~ /^Z/' | wc -l; }

# an interrupt while compiling ends the compilers within a second, keeps only whole cache
# entries, writes the results so far and exits 130: to the process group (Ctrl-C), and to the
# tuner alone (SIGTERM)
for sig in INT TERM; do
	c="$tmp/c-$sig"
	setsid $T -j 2 --arch sm_90 --cache "$c" --out "$tmp/o-$sig" configs/reduction.yaml \
		>"$tmp/$sig.out" 2>"$tmp/$sig.err" &
	pid=$!
	wait_cache "$c"
	if [ $sig = INT ]; then kill -INT -$pid; else kill -TERM $pid; fi
	t0=$(now)
	wait $pid
	rc=$?
	dt=$(secs "$t0" "$(now)")
	left=$(alive $pid)
	n=$(count "$c")
	python3 -c 'import sys; sys.exit(not float(sys.argv[1]) < 1.5)' "$dt" &&
		ok "sig${sig}_while_compiling_stops_in_a_second" ||
		bad "sig${sig}_while_compiling_stops_in_a_second" "took $dt s"
	[ $rc -eq 130 ] && ok "sig${sig}_while_compiling_exits_130" ||
		bad "sig${sig}_while_compiling_exits_130" "exit $rc: $(cat "$tmp/$sig.err")"
	[ "$left" -eq 0 ] && ok "sig${sig}_leaves_no_worker" ||
		bad "sig${sig}_leaves_no_worker" "$(ps -e -o pid,pgid,stat,args | awk -v g=$pid '$2 == g')"
	[ -z "$(find "$c" -name '*.tmp*')" ] && [ "$n" -lt 315 ] && ok "sig${sig}_cache_whole_entries" ||
		bad "sig${sig}_cache_whole_entries" "$n entries; $(find "$c" -name '*.tmp*')"
	if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
st = [v["status"] for v in d["variants"]]
assert "not-run" in st, st
' "$tmp/o-$sig/reduction/untimed-sm_90/results.json" 2>"$tmp/py"; then ok "sig${sig}_writes_results_so_far"; else bad "sig${sig}_writes_results_so_far" "$(cat "$tmp/py" "$tmp/$sig.err")"; fi
done

# the same on a budget, where the bank model's processes run beside the compilers: an
# interrupt ends them too
c="$tmp/c-budget"
setsid $T -j 2 --arch sm_90 --cache "$c" --budget 200 --strategy random --out "$tmp/o-budget" \
	configs/transpose.yaml >"$tmp/budget.out" 2>"$tmp/budget.err" &
pid=$!
wait_cache "$c"
kill -INT -$pid
t0=$(now)
wait $pid
rc=$?
dt=$(secs "$t0" "$(now)")
left=$(alive $pid)
[ $rc -eq 130 ] && python3 -c 'import sys; sys.exit(not float(sys.argv[1]) < 1.5)' "$dt" &&
	ok "sigINT_on_a_budget_stops" || bad "sigINT_on_a_budget_stops" "exit $rc after $dt s: $(cat "$tmp/budget.err")"
[ "$left" -eq 0 ] && ok "sigINT_on_a_budget_leaves_no_worker" ||
	bad "sigINT_on_a_budget_leaves_no_worker" "$(ps -e -o pid,pgid,stat,args | awk -v g=$pid '$2 == g')"

# a cache entry with one flipped byte is reported once, compiled again and replaced
c="$tmp/cc"
$T -j 2 --arch sm_90 --cache "$c" --out "$tmp/cc-out" tests/kernels/scale.yaml >/dev/null 2>&1
e=$(find "$c" -name '*.bin' | sort | head -n 1)
python3 -c '
import sys
p = sys.argv[1]
d = bytearray(open(p, "rb").read())
d[len(d) // 2] ^= 0x40
open(p, "wb").write(d)
' "$e"
$T -j 2 --arch sm_90 --cache "$c" --out "$tmp/cc-out" tests/kernels/scale.yaml >"$tmp/cc.out" 2>"$tmp/cc.err"
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c 'corrupt entry' "$tmp/cc.err")" -eq 1 ] && grep -q "compiled 1, " "$tmp/cc.err" &&
	ok "cache_corrupt_entry_recompiled" || bad "cache_corrupt_entry_recompiled" "exit $rc: $(cat "$tmp/cc.err")"
$T -j 2 --arch sm_90 --cache "$c" --out "$tmp/cc-out" tests/kernels/scale.yaml >"$tmp/cc.out" 2>"$tmp/cc.err"
grep -q "compiled 0, " "$tmp/cc.err" && ! grep -q corrupt "$tmp/cc.err" &&
	ok "cache_corrupt_entry_replaced" || bad "cache_corrupt_entry_replaced" "$(cat "$tmp/cc.err")"

# no usable home: no cache, one warning, nothing created
env -u TUNER_CACHE -u XDG_CACHE_HOME HOME="$tmp/no/such/home" $T -j 2 --arch sm_90 \
	--out "$tmp/h-out" tests/kernels/scale.yaml >"$tmp/h.out" 2>"$tmp/h.err"
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c 'no compile cache' "$tmp/h.err")" -eq 1 ] && [ ! -e "$tmp/no" ] &&
	ok "no_home_no_cache" || bad "no_home_no_cache" "exit $rc: $(cat "$tmp/h.err"; ls "$tmp")"

# blank values: an error, nothing written (--out '' would write at the filesystem root)
for o in --out --cache --arch --emit --size; do
	$T $o '' --dry-run tests/kernels/scale.yaml >"$tmp/b.out" 2>"$tmp/b.err"
	rc=$?
	[ $rc -eq 2 ] && grep -q -- "$o: an empty or blank value" "$tmp/b.err" && ok "blank_value_$o" ||
		bad "blank_value_$o" "exit $rc: $(cat "$tmp/b.err")"
done
$T --out '  ' tests/kernels/scale.yaml >/dev/null 2>"$tmp/b.err"
[ $? -eq 2 ] && ok "blank_value_spaces" || bad "blank_value_spaces" "$(cat "$tmp/b.err")"
$T --timeout 1e-300 tests/kernels/scale.yaml >/dev/null 2>"$tmp/b.err"
[ $? -eq 2 ] && ok "timeout_too_small" || bad "timeout_too_small" "$(cat "$tmp/b.err")"

# two runs of different configs that share a kernel name, into one directory: its files
# always come from one run (TUNER_TEST_WRITE_PAUSE: 0.3 s between results.csv and the next file)
sed -e 's/^  BLOCK: \[64, 128, 256\]/  BLOCK: [64, 128]/' tests/kernels/scale.yaml >tests/kernels/.scale2.yaml
mixed=0
for try in 1 2 3 4 5 6 7 8; do
	rm -rf "$tmp/w"
	TUNER_TEST_WRITE_PAUSE=1 $T -j 1 --arch sm_90 --out "$tmp/w" tests/kernels/scale.yaml >/dev/null 2>&1 &
	a=$!
	TUNER_TEST_WRITE_PAUSE=1 $T -j 1 --arch sm_90 --out "$tmp/w" tests/kernels/.scale2.yaml >/dev/null 2>&1 &
	b=$!
	wait $a $b
	python3 -c '
import csv, json, sys
d = json.load(open(sys.argv[1] + "/results.json"))
rows = list(csv.DictReader(open(sys.argv[1] + "/results.csv")))
assert sorted(v["id"] for v in d["variants"]) == sorted(r["id"] for r in rows), "mixed"
' "$tmp/w/scale/untimed-sm_90" 2>/dev/null || mixed=$((mixed + 1))
done
rm -f tests/kernels/.scale2.yaml
[ $mixed -eq 0 ] && ok "one_directory_one_run" || bad "one_directory_one_run" "$mixed of 8 tries mixed two runs' files"

# variant ids are unique even where 8 hex digits collide, and --emit takes the longer ones
id=$($T --dry-run tests/kernels/ids.yaml | awk 'length($1) == 17 { print $1; exit }')
[ -n "$id" ] && [ "$($T --dry-run tests/kernels/ids.yaml | awk '/^v/ { print $1 }' | sort -u | wc -l)" -eq 4 ] &&
	ok "ids_unique" || bad "ids_unique" "$($T --dry-run tests/kernels/ids.yaml)"
cols=$($T --dry-run tests/kernels/ids.yaml | awk '/^v/ { print index($0, "  64  ") }' | sort -u | wc -l)
[ "$cols" -eq 1 ] && ok "dry_run_columns_aligned" || bad "dry_run_columns_aligned" "$($T --dry-run tests/kernels/ids.yaml)"
$T -j 1 --arch sm_90 --out "$tmp/e" --emit "$id" tests/kernels/ids.yaml >/dev/null 2>"$tmp/e.err" &&
	[ -f "$tmp/e/ids/untimed-sm_90/$id.cu" ] && ok "emit_long_id" || bad "emit_long_id" "$(cat "$tmp/e.err")"

# memory does not grow with template size x variants: a 3 MiB template (a comment in front of
# scale.cu) in 64 variants compiles in well under the 200 MiB its sources would take at once
mkdir -p "$tmp/big"
cp tests/kernels/scale_ref.cu "$tmp/big/"
python3 -c '
import sys
pad = "/*" + ("x" * 78 + "\n") * 40000 + "*/\n"
open(sys.argv[2], "w").write(pad + open(sys.argv[1]).read())
' tests/kernels/scale.cu "$tmp/big/big.cu"
sed -e 's/^template: scale.cu/template: big.cu/' \
	-e 's/^  BLOCK: \[64, 128, 256\]/  BLOCK: [64]\n  A: [1, 2, 3, 4, 5, 6, 7, 8]/' \
	-e 's/^  UNROLL: \[1, 2\]/  UNROLL: [1]\n  B: [1, 2, 3, 4, 5, 6, 7, 8]/' tests/kernels/scale.yaml >"$tmp/big/big.yaml"
rss=$(python3 -c '
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024 if r.returncode == 0 else -1)
' $T -q -j 2 --no-cache --arch sm_90 --out "$tmp/big/o" "$tmp/big/big.yaml")
[ "$rss" -ge 0 ] && [ "$rss" -lt 150 ] && ok "big_template_memory_bounded" ||
	bad "big_template_memory_bounded" "peak resident memory $rss MiB (-1: the run failed)"

# some variants do not compile: the counts add up, the first failure's log is shown, exit 0
mkdir -p "$tmp/part"
cp tests/kernels/scale.yaml tests/kernels/scale_ref.cu "$tmp/part/"
{ cat tests/kernels/scale.cu; printf '#if UNROLL == 2\n#error "UNROLL 2 is not supported here"\n#endif\n'; } >"$tmp/part/scale.cu"
$T -j 2 --arch sm_90 --out "$tmp/part/o" "$tmp/part/scale.yaml" >"$tmp/part.out" 2>"$tmp/part.err"
rc=$?
[ $rc -eq 0 ] && grep -q "5 variants in .* s: 3 built, 2 failed to compile, 0 over the shared-memory limit" "$tmp/part.err" &&
	grep -q "the first that failed, v[0-9a-f]* (BLOCK=64 UNROLL=2), says:" "$tmp/part.err" &&
	grep -q "UNROLL 2 is not supported here" "$tmp/part.err" && ok "compile_failures_counted" ||
	bad "compile_failures_counted" "exit $rc: $(cat "$tmp/part.err")"

# the status line: on a terminal ([n/N] compiling, rate), not with -q, not into a file
script -qec "$T -j 2 --no-cache --arch sm_90 --out $tmp/p1 tests/kernels/scale.yaml" /dev/null >"$tmp/tty.log" 2>&1
grep -q "\[5/5\] compiling, [0-9.]*/s" "$tmp/tty.log" && ok "progress_on_a_terminal" || bad "progress_on_a_terminal" "$(cat -v "$tmp/tty.log" | head -5)"
# a run whose every variant comes from the cache counts them too
$T -q -j 2 --cache "$tmp/pc" --arch sm_90 --out "$tmp/p4" tests/kernels/scale.yaml >/dev/null 2>&1
script -qec "$T -j 2 --cache $tmp/pc --arch sm_90 --out $tmp/p4 tests/kernels/scale.yaml" /dev/null >"$tmp/tty.log" 2>&1
grep -q "\[5/5\] compiling, [0-9.]*/s" "$tmp/tty.log" && grep -q "NVRTC compiled 0," "$tmp/tty.log" &&
	ok "progress_cached" || bad "progress_cached" "$(cat -v "$tmp/tty.log" | head -5)"
script -qec "$T -q -j 2 --no-cache --arch sm_90 --out $tmp/p2 tests/kernels/scale.yaml" /dev/null >"$tmp/tty.log" 2>&1
! grep -q "compiling, " "$tmp/tty.log" && ok "progress_quiet" || bad "progress_quiet" "$(cat -v "$tmp/tty.log" | head -5)"
$T -j 2 --no-cache --arch sm_90 --out "$tmp/p3" tests/kernels/scale.yaml >"$tmp/p.out" 2>"$tmp/p.err"
! grep -q "compiling, " "$tmp/p.err" && ok "progress_not_in_a_file" || bad "progress_not_in_a_file" "$(cat -v "$tmp/p.err" | head -5)"

# a parameter the template never uses: one warning each (ids.yaml's A and B), none for scale
$T -q -j 2 --arch sm_90 --out "$tmp/u" tests/kernels/ids.yaml >/dev/null 2>"$tmp/u.err"
$T -q -j 2 --arch sm_90 --out "$tmp/u" tests/kernels/scale.yaml >/dev/null 2>"$tmp/u2.err"
[ "$(grep -c "parameter 'A' changes no variant's cubin or launch" "$tmp/u.err")" -eq 1 ] &&
	[ "$(grep -c "parameter 'B' changes no variant's cubin or launch" "$tmp/u.err")" -eq 1 ] &&
	! grep -q "changes no variant" "$tmp/u2.err" && ok "unused_parameter_warned" ||
	bad "unused_parameter_warned" "$(cat "$tmp/u.err" "$tmp/u2.err")"

# ---- an out, cache or config directory that another user can write (a shared scratch): no
# link planted there is followed, no FIFO waited for, no huge file read, nothing outside
# written or created; every such failure is an exit 2 naming the file, in bounded time
fake=$(dirname "$(dirname "$T")")/fakecuda
side=$tmp/outside
mkdir -p "$side"
echo precious >"$side/victim"
intact() { [ "$(cat "$side/victim")" = precious ] && [ ! -e "$side/made" ]; }
# fake GPU, its exit status in $rc, stderr in $tmp/f.err
ftune() { LD_LIBRARY_PATH="$fake" timeout 60 "$T" -q -j 2 "$@" >/dev/null 2>"$tmp/f.err"; rc=$?; }

# the temporaries: links planted at NAME.tmp.PID for every output (the PID is the tuner's, as
# exec keeps it) to a file outside, are not written through
lo=$tmp/ln
$T -q -j 2 --arch sm_90 --out "$lo" tests/kernels/scale.yaml >/dev/null 2>&1
d=$lo/scale/untimed-sm_90
sh -c 'for f in results.json results.csv report.html config.yaml template.cu; do
	ln -s "$2" "$1/$f.tmp.$$"; done; exec "$3" -q -j 2 --arch sm_90 --out "$4" tests/kernels/scale.yaml' \
	- "$d" "$side/victim" "$T" "$lo" >/dev/null 2>"$tmp/ln.err"
rc=$?
[ $rc -eq 0 ] && intact && [ -f "$d/results.json" ] && [ ! -L "$d/results.json" ] && [ ! -L "$d/report.html" ] &&
	ok "planted_temporaries_not_followed" ||
	bad "planted_temporaries_not_followed" "exit $rc, outside: $(cat "$side/victim" | head -c 200); $(ls -l "$d"; cat "$tmp/ln.err")"
# .lock a link to a file outside that is not there: refused, nothing created there
rm -f "$d/.lock" && ln -s "$side/made" "$d/.lock"
$T -q -j 2 --arch sm_90 --out "$lo" tests/kernels/scale.yaml >/dev/null 2>"$tmp/ln.err"
rc=$?
[ $rc -eq 2 ] && intact && grep -q "cannot open '$d/.lock': Too many levels of symbolic links" "$tmp/ln.err" &&
	ok "planted_lock_link_refused" || bad "planted_lock_link_refused" "exit $rc: $(cat "$tmp/ln.err"; ls "$side")"
rm -f "$d/.lock" "$side/made"
# the kernel's directory a link to one elsewhere: refused, nothing written there
mkdir -p "$side/k"
rm -rf "$lo/scale" && ln -s "$side/k" "$lo/scale"
$T -q -j 2 --arch sm_90 --out "$lo" tests/kernels/scale.yaml >/dev/null 2>"$tmp/ln.err"
rc=$?
[ $rc -eq 2 ] && [ -z "$(ls -A "$side/k")" ] && grep -q "cannot create '$lo/scale/untimed-sm_90'" "$tmp/ln.err" &&
	ok "planted_directory_link_refused" || bad "planted_directory_link_refused" "exit $rc: $(cat "$tmp/ln.err"; find "$side/k")"

# the journal (a run on the fake GPU): a link to a file outside, a FIFO, a sparse file of 8 GiB
fo=$tmp/fj
ftune --out "$fo" tests/fakecuda/pairs.yaml
j=$fo/fake_pairs/fake-gpu-sm90/journal
[ $rc -eq 0 ] && [ -s "$j" ] && ok "fake_gpu_journal_written" || bad "fake_gpu_journal_written" "exit $rc: $(cat "$tmp/f.err")"
for fresh in "" --fresh; do
	rm -f "$j" && ln -s "$side/victim" "$j"
	ftune $fresh --out "$fo" tests/fakecuda/pairs.yaml
	[ $rc -eq 2 ] && intact && grep -q "$j: cannot read the journal: Too many levels of symbolic links" "$tmp/f.err" &&
		ok "journal_link_refused$fresh" || bad "journal_link_refused$fresh" "exit $rc: $(cat "$tmp/f.err"; head -c 300 "$side/victim")"
done
rm -f "$j" && mkfifo "$j"
ftune --out "$fo" tests/fakecuda/pairs.yaml
[ $rc -eq 2 ] && grep -q "$j: cannot read the journal: not a regular file" "$tmp/f.err" &&
	ok "journal_fifo_refused_at_once" || bad "journal_fifo_refused_at_once" "exit $rc (124: it waited): $(cat "$tmp/f.err")"
rm -f "$j" && truncate -s 8G "$j"
ftune --out "$fo" tests/fakecuda/pairs.yaml
[ $rc -eq 2 ] && grep -q "$j: cannot read the journal: File too large" "$tmp/f.err" &&
	ok "journal_huge_refused" || bad "journal_huge_refused" "exit $rc: $(cat "$tmp/f.err")"
rm -f "$j"
# a copy of the template that is a FIFO: bundle says so at once
t=$fo/fake_pairs/fake-gpu-sm90/template.cu
ftune --out "$fo" tests/fakecuda/pairs.yaml
rm -f "$t" && mkfifo "$t"
timeout 60 $T bundle --out "$tmp/fb" "$fo/fake_pairs" >/dev/null 2>"$tmp/f.err"
rc=$?
[ $rc -eq 2 ] && grep -q "$t: cannot read the template .*: not a regular file" "$tmp/f.err" &&
	ok "bundle_fifo_copy_refused" || bad "bundle_fifo_copy_refused" "exit $rc (124: it waited): $(cat "$tmp/f.err")"

# cache entries: a FIFO and a link to /dev/zero are corrupt entries, compiled again and replaced
c=$tmp/fc
$T -q -j 2 --arch sm_90 --cache "$c" --out "$tmp/fco" tests/kernels/scale.yaml >/dev/null 2>&1
set -- $(find "$c" -name '*.bin' | sort)
rm -f "$1" "$2" && mkfifo "$1" && ln -s /dev/zero "$2"
timeout 60 $T -j 2 --arch sm_90 --cache "$c" --out "$tmp/fco" tests/kernels/scale.yaml >/dev/null 2>"$tmp/c.err"
rc=$?
[ $rc -eq 0 ] && grep -q "corrupt entr" "$tmp/c.err" && [ -f "$1" ] && [ ! -L "$2" ] && [ -f "$2" ] &&
	ok "cache_fifo_and_link_replaced" || bad "cache_fifo_and_link_replaced" "exit $rc (124: it waited): $(cat "$tmp/c.err"; ls -l "$1" "$2")"

# the config itself a FIFO, or a link to /dev/zero (links the user names are followed)
mkfifo "$tmp/fifo.yaml" && ln -s /dev/zero "$tmp/zero.yaml"
for f in fifo zero; do
	timeout 60 $T --dry-run "$tmp/$f.yaml" >/dev/null 2>"$tmp/z.err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "$tmp/$f.yaml: cannot read config: not a regular file" "$tmp/z.err" &&
		ok "config_${f}_refused" || bad "config_${f}_refused" "exit $rc (124: it waited): $(cat "$tmp/z.err")"
done

# a write that fails midway (a file-size limit: report.html is over it; a directory where
# report.html goes): the run before's files stay as they were, no temporary is left
wo=$tmp/wf
$T -q -j 2 --no-cache --arch sm_90 --out "$wo" tests/kernels/scale.yaml >/dev/null 2>&1
d=$wo/scale/untimed-sm_90
cp -r "$d" "$tmp/wf.before"
sh -c 'trap "" XFSZ; ulimit -f 8; exec "$@"' - $T -q -j 2 --no-cache --arch sm_90 --size n=5000 --out "$wo" \
	tests/kernels/scale.yaml >/dev/null 2>"$tmp/w.err"
rc=$?
[ $rc -eq 2 ] && grep -q "cannot write '$d/report.html': File too large" "$tmp/w.err" &&
	diff -r "$tmp/wf.before" "$d" >/dev/null && [ -z "$(find "$wo" -name '*.tmp.*')" ] &&
	ok "full_disk_keeps_earlier_results" ||
	bad "full_disk_keeps_earlier_results" "exit $rc: $(cat "$tmp/w.err"; diff -r "$tmp/wf.before" "$d" | head -5; find "$wo" -name '*.tmp.*')"
rm "$d/report.html" "$tmp/wf.before/report.html" && mkdir "$d/report.html"
$T -q -j 2 --no-cache --arch sm_90 --size n=5000 --out "$wo" tests/kernels/scale.yaml >/dev/null 2>"$tmp/w.err"
rc=$?
[ $rc -eq 2 ] && grep -q "cannot write '$d/report.html': Is a directory" "$tmp/w.err" &&
	diff -r -x report.html "$tmp/wf.before" "$d" >/dev/null && [ -z "$(find "$wo" -name '*.tmp.*')" ] &&
	ok "failed_rename_puts_back_earlier_results" ||
	bad "failed_rename_puts_back_earlier_results" "exit $rc: $(cat "$tmp/w.err"; diff -r -x report.html "$tmp/wf.before" "$d" | head -5; find "$wo" -name '*.tmp.*')"

# bytes that are not UTF-8 in the config's path, and so in NVRTC's messages (which name the
# template), give valid JSON (U+FFFD for each bad byte), and merge takes the shards such a run
# writes
u=$(printf '%s/u\377\376' "$tmp")
mkdir -p "$u"
cp tests/kernels/scale.yaml tests/kernels/scale_ref.cu "$u/"
{ cat tests/kernels/scale.cu; printf '#if BLOCK == 128\n#error "BLOCK 128 fails here"\n#endif\n'; } >"$u/scale.cu"
$T -q -j 2 --arch sm_90 --out "$tmp/uo" "$u/scale.yaml" >/dev/null 2>"$tmp/u8.err"
rc=$?
for k in 1 2; do
	$T -q -j 2 --arch sm_90 --shard $k/2 --out "$tmp/us" "$u/scale.yaml" >/dev/null 2>>"$tmp/u8.err"
done
$T merge -q "$tmp/us/scale/untimed-sm_90" >/dev/null 2>>"$tmp/u8.err"
mrc=$?
if [ $rc -eq 0 ] && [ $mrc -eq 0 ] && python3 -c '
import json, sys
for p in sys.argv[1:]:
    d = json.load(open(p, encoding="utf-8"))
    assert d["config"].endswith("/u\ufffd\ufffd/scale.yaml"), d["config"]
    rs = [v.get("reason", "") for v in d["variants"]]
    assert any("/u\ufffd\ufffd/scale.cu(" in r and "BLOCK 128 fails here" in r for r in rs), rs
' "$tmp/uo/scale/untimed-sm_90/results.json" "$tmp/us/scale/untimed-sm_90/results.json" 2>"$tmp/py"; then
	ok "non_utf8_valid_json"
else
	bad "non_utf8_valid_json" "exit $rc, merge $mrc: $(cat "$tmp/py" "$tmp/u8.err")"
fi
# and results.csv and report.html of that run are UTF-8 too
if python3 -c '
import sys
for p in sys.argv[1:]:
    t = open(p, encoding="utf-8").read()
    assert "/u\ufffd\ufffd/scale." in t, p
' "$tmp/uo/scale/untimed-sm_90/results.csv" "$tmp/uo/scale/untimed-sm_90/report.html" 2>"$tmp/py"; then
	ok "non_utf8_valid_csv_html"
else
	bad "non_utf8_valid_csv_html" "$(cat "$tmp/py")"
fi

# a template path holding a newline cannot put a line of its own into the source NVRTC
# compiles (here: an #include of a file outside, whose text the errors would show)
echo "SECRET_LINE_42" >"$side/secret"
nd=$tmp/nl
mkdir -p "$nd"
python3 -c '
import os, sys
nd, secret = sys.argv[1], sys.argv[2]
sub = "t\n#include <%s>\n//" % secret
os.makedirs(os.path.join(nd, sub), exist_ok=True)
open(os.path.join(nd, sub, "scale.cu"), "w").write(open("tests/kernels/scale.cu").read())
open(os.path.join(nd, "scale_ref.cu"), "w").write(open("tests/kernels/scale_ref.cu").read())
cfg = open("tests/kernels/scale.yaml").read().replace("template: scale.cu",
    "template: " + __import__("json").dumps(sub + "/scale.cu"))
open(os.path.join(nd, "scale.yaml"), "w").write(cfg)
' "$nd" "$side/secret"
$T -j 2 --no-cache --arch sm_90 --out "$nd/o" "$nd/scale.yaml" >"$tmp/nl.out" 2>"$tmp/nl.err"
rc=$?
[ $rc -eq 0 ] && ! grep -rq SECRET_LINE_42 "$tmp/nl.out" "$tmp/nl.err" "$nd/o" &&
	ok "newline_template_path_escaped" || bad "newline_template_path_escaped" "exit $rc: $(cat "$tmp/nl.err")"

# SOURCE_DATE_EPOCH beyond what a date can say, negative or not a number: refused, named
for e in 99999999999999999 253402300800 -1 abc; do
	SOURCE_DATE_EPOCH=$e $T --dry-run tests/kernels/scale.yaml >"$tmp/e.out" 2>"$tmp/e.err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(cat "$tmp/e.err")" = "tuner: SOURCE_DATE_EPOCH '$e': not a time in seconds from 0 to 253402300799 (9999-12-31T23:59:59Z)" ] &&
		ok "source_date_epoch_refused_$e" || bad "source_date_epoch_refused_$e" "exit $rc: $(cat "$tmp/e.err")"
done
SOURCE_DATE_EPOCH=253402300799 $T -q --arch sm_90 --out "$tmp/epoch" tests/kernels/scale.yaml >/dev/null 2>"$tmp/e.err"
grep -q '"date": "9999-12-31T23:59:59Z"' "$tmp/epoch/scale/untimed-sm_90/results.json" &&
	ok source_date_epoch_last || bad source_date_epoch_last "$(cat "$tmp/e.err")"

# explain --sass with disassemblers that misbehave (TUNER_DISASM names each): one that hangs
# is killed with what it started at TUNER_DISASM_TIMEOUT, one that floods is cut at the limit,
# a listing cut short is an error of the disassembler (not a variant that differs), an
# interrupt exits 130; each leaves no temporary cubin (TMPDIR) and no process
fd=$tmp/disasm
mkdir -p "$fd/tmp"
printf '#!/bin/sh\necho $$ >"$FAKE_PIDS"\nsleep 1000 &\necho $! >>"$FAKE_PIDS"\nwait\n' >"$fd/hang"
printf '#!/bin/sh\nexec yes "        /*0000*/                   LDS R2, [R0] ;"\n' >"$fd/flood"
head='\t.section\t.text.k,"ax",@progbits\n\t.size\tk,(.L_x_2 - k)\nk:\n        /*0000*/                   LDS R2, [R0] ;\n        /*0010*/                   EXIT ;\n'
printf '#!/bin/sh\nprintf '"'$head'"'\n' >"$fd/cut"
printf '#!/bin/sh\nprintf '"'$head'"'\nprintf "        /*0020*/     BRA"\n' >"$fd/midline"
printf '#!/bin/sh\nprintf '"'$head.L_x_2:\\\\n'"'\n' >"$fd/whole"
chmod +x "$fd"/*
# sass NAME DISASM WANT-STATUS WANT-TEXT [ENV...]: explain --sass on one variant; its output
# holds WANT-TEXT
sass() {
	n=$1 d=$2 st=$3 msg=$4
	shift 4
	: >"$fd/pids"
	t0=$(now)
	timeout 60 env "$@" FAKE_PIDS="$fd/pids" TMPDIR="$fd/tmp" TUNER_DISASM="$fd/$d" $T explain --sass \
		--budget 1 --arch sm_90 -j 1 configs/transpose.yaml >"$tmp/sass.out" 2>"$tmp/sass.err"
	rc=$?
	dt=$(secs "$t0" "$(now)")
	left=$(for p in $(cat "$fd/pids"); do ps -o stat= -p "$p"; done | grep -vc '^Z')
	if [ $rc -eq "$st" ] && cat "$tmp/sass.out" "$tmp/sass.err" | grep -q -- "$msg" && [ -z "$(ls "$fd/tmp")" ] &&
		[ "$left" -eq 0 ] && python3 -c 'import sys; sys.exit(not float(sys.argv[1]) < 20)' "$dt"; then
		ok "sass_$n"
	else
		bad "sass_$n" "exit $rc after $dt s, $left processes left, temporaries: $(ls "$fd/tmp"): $(head -c 1000 "$tmp/sass.err")"
	fi
}
sass whole_listing whole 1 "^tuner explain --sass: 1 of 1 variants compiled for sm_90 differ"
sass hang_timed_out hang 2 "hang did not finish within 1 s on the cubin (TUNER_DISASM_TIMEOUT)" TUNER_DISASM_TIMEOUT=1
sass flood_capped flood 2 "flood listed more than 67108864 bytes for the cubin: not a listing"
sass cut_short_error cut 2 "variant v[0-9a-f]*: the disassembler's listing ends before a kernel does: cut short"
sass cut_midline_error midline 2 "the disassembler's listing ends inside a line: cut short"
for sig in INT TERM; do
	: >"$fd/pids"
	FAKE_PIDS="$fd/pids" TMPDIR="$fd/tmp" TUNER_DISASM="$fd/hang" setsid $T explain --sass --budget 1 \
		--arch sm_90 -j 1 configs/transpose.yaml >"$tmp/sass.out" 2>"$tmp/sass.err" &
	pid=$!
	for i in $(seq 100); do [ -s "$fd/pids" ] && break; sleep 0.1; done
	sleep 0.3
	if [ $sig = INT ]; then kill -INT -$pid; else kill -TERM $pid; fi
	wait $pid
	rc=$?
	left=$(for p in $(cat "$fd/pids"); do ps -o stat= -p "$p"; done | grep -vc '^Z')
	[ $rc -eq 130 ] && [ -z "$(ls "$fd/tmp")" ] && [ "$left" -eq 0 ] && ok "sass_sig${sig}_exits_130" ||
		bad "sass_sig${sig}_exits_130" "exit $rc, $left processes left, temporaries: $(ls "$fd/tmp"): $(cat "$tmp/sass.err")"
done

schema_all results_schema_hostile
finish hostile
