#!/bin/sh
# GPU check, for a machine with a CUDA GPU: build, tune every shipped config (and the test-only
# kernel), and print each winner with its % of a copy kernel timed in the same run.
# Usage: tests/gpu/run.sh [OUTDIR]   (TUNER_YAML_PREFIX: libyaml outside the system, if needed;
# TUNER_COMMIT: the commit to print where the tree has no .git)
set -eu
cd "$(dirname "$0")/../.."
outdir=${1:-out}
mkdir -p "$outdir"
. tests/gpu/lib.sh
gpu_build
gpu_header name,driver_version,memory.total
export TUNER_CACHE="$outdir/cache"
status=0
for cfg in configs/*.yaml tests/kernels/*.yaml; do
	# a space of more than 2000 variants: a random 300 of them (as tests/run.sh compiles)
	extra=$(gpu_budget "$cfg")
	echo "== $cfg${extra:+ ($extra)}"
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086
	out/bin/tuner --fresh $extra --out "$outdir" "$cfg" >"$outdir/$(basename "$cfg" .yaml).log" 2>&1 || status=1
	t1=$(date +%s.%N)
	tail -n 4 "$outdir/$(basename "$cfg" .yaml).log"
	echo "wall $(echo "$t1 - $t0" | bc 2>/dev/null || python3 -c "print(round($t1-$t0,2))") s"
done
# defective variants: a fault, a hang and a race are recorded and the correct one still wins
echo "== tests/gpu/faults/faults.yaml (--timeout 3)"
out/bin/tuner --timeout 3 --out "$outdir/faults-out" tests/gpu/faults/faults.yaml >"$outdir/faults.log" 2>&1 || status=1
tail -n 8 "$outdir/faults.log"
python3 - "$outdir"/faults-out/faults/*/results.json <<'PY' || status=1
import json, sys
d = json.load(open(sys.argv[1]))
got = {v["params"]["DEFECT"]: v["status"] for v in d["variants"]}
want = {0: "ok", 1: "fault", 2: "timeout", 3: "mismatch", 4: "mismatch"}
unwritten = [v.get("reason", "") for v in d["variants"] if v["params"]["DEFECT"] == 4]
if not unwritten or "was never written" not in unwritten[0]:
    got[4] = "mismatch without 'was never written': %s" % unwritten
print("faults: %s (want %s): %s" % (got, want, "PASS" if got == want else "FAIL"))
sys.exit(got != want)
PY

# arguments that do not match the kernel's parameters: every variant a launch-error naming
# the argument, nothing launched (the worker does not die)
for k in count size; do
	echo "== tests/gpu/args/$k.yaml"
	rc=0
	out/bin/tuner --out "$outdir/args-out" tests/gpu/args/$k.yaml >"$outdir/args-$k.log" 2>&1 || rc=$?
	python3 - "$rc" "$k" "$outdir"/args-out/args_$k/*/results.json <<'PY' || status=1
import json, sys
rc, k, d = int(sys.argv[1]), sys.argv[2], json.load(open(sys.argv[3]))
want = {"count": "the kernel takes 3 parameters; the config's args pass 2",
        "size": "argument 3 ('n') is 8 bytes"}[k]
kept = [v for v in d["variants"] if v["status"] != "dropped"]
ok = rc == 1 and kept and all(v["status"] == "launch-error" and want in v.get("reason", "")
                              for v in kept)
print("args %s: exit %d, %s: %s" % (k, rc, sorted({v["status"] + ": " + v.get("reason", "")[:90]
                                                    for v in kept}), "PASS" if ok else "FAIL"))
sys.exit(not ok)
PY
done

# a buffer refilled before every launch, and the extra verification sizes (also run alone:
# tests/gpu/verify.sh [OUTDIR])
echo "== tests/gpu/verify.sh"
tests/gpu/verify.sh "$outdir/verify-out" || status=1

# resume: SIGKILL a run part-way through its timing, run again: nothing finished is re-timed
echo "== resume after SIGKILL (configs/filter21.yaml)"
rm -rf "$outdir/resume-out"
setsid out/bin/tuner --out "$outdir/resume-out" configs/filter21.yaml >"$outdir/resume1.log" 2>&1 &
pid=$!
i=0
while [ "$(cat "$outdir"/resume-out/filter21/*/journal 2>/dev/null | wc -l)" -lt 10 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
kill -KILL -$pid 2>/dev/null || true
wait $pid 2>/dev/null || true
before=$(cat "$outdir"/resume-out/filter21/*/journal | wc -l)
out/bin/tuner --out "$outdir/resume-out" configs/filter21.yaml >"$outdir/resume2.log" 2>&1 || status=1
kept=$(sed -n 's/^tuner: \([0-9]*\) results kept from an earlier run.*/\1/p' "$outdir/resume2.log")
timing=$(sed -n 's/^tuner: verifying and timing \([0-9]*\) variants.*/\1/p' "$outdir/resume2.log")
echo "resume: killed with $before results in the journal; the re-run kept ${kept:-0} and timed ${timing:-0}: $([ "${kept:-0}" -ge "$before" ] && [ "$before" -ge 10 ] && echo PASS || echo FAIL)"
[ "${kept:-0}" -ge "$before" ] && [ "$before" -ge 10 ] || status=1
# a third run has every result from the journal: it says its rooflines were not timed
out/bin/tuner --out "$outdir/resume-out" configs/filter21.yaml >"$outdir/resume3.log" 2>&1 || status=1
grep -q "rooflines on .*: not timed in this run" "$outdir/resume3.log" && echo "resumed rooflines: PASS" ||
	{ echo "resumed rooflines: FAIL"; grep rooflines "$outdir/resume3.log"; status=1; }

# Ctrl-C while timing: the worker is gone within a second, the results so far are written, 130
echo "== SIGINT while timing (configs/transpose.yaml)"
rm -rf "$outdir/int-out"
setsid out/bin/tuner --fresh --out "$outdir/int-out" configs/transpose.yaml >"$outdir/int.log" 2>&1 &
pid=$!
i=0
while [ "$(cat "$outdir"/int-out/transpose/*/journal 2>/dev/null | wc -l)" -lt 20 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
t0=$(date +%s.%N)
kill -INT -$pid 2>/dev/null || true
rc=0
wait $pid || rc=$?
dt=$(python3 -c "import sys; print(round($(date +%s.%N) - $t0, 2))")
sleep 0.3
left=$(ps -e -o pgid= -o stat= | awk -v g=$pid '$1 == g && $2 !~ /^Z/' | wc -l)
notrun=$(python3 -c "import glob, json; print(sum(v['status'] == 'not-run' for v in json.load(open(glob.glob('$outdir/int-out/transpose/*/results.json')[0]))['variants']))" 2>/dev/null || echo 0)
ok=$([ $rc -eq 130 ] && [ "$left" -eq 0 ] && [ "$notrun" -gt 0 ] && python3 -c "import sys; sys.exit(not $dt < 1.5)" && echo PASS || echo FAIL)
echo "sigint: exit $rc after $dt s, $left processes left, $notrun variants not run: $ok"
[ "$ok" = PASS ] || status=1

python3 - "$outdir" <<'PY'
import glob, json, sys
rows = []
for f in sorted(glob.glob(sys.argv[1] + "/*/*/results.json")):
    d = json.load(open(f))
    if not d.get("timed"):
        continue
    st = {}
    for v in d["variants"]:
        st[v["status"]] = st.get(v["status"], 0) + 1
    ok = [v for v in d["variants"] if v["status"] == "ok"]
    if not ok:
        rows.append((d["kernel"], "-", "-", "-", "-", "-", " ".join("%s=%d" % kv for kv in st.items())))
        continue
    b = ok[0]  # results.json is ranked: the tuner's winner (ties by its rule)
    p = " ".join("%s=%s" % kv for kv in b["params"].items())
    rows.append((d["kernel"], b["id"] + " " + p, "%.1f" % b["gbs"], "%.1f" % b["pct_copy"],
                 "%.1f" % b.get("pct_read", 0), "%.1f" % d["copy_gbs"],
                 " ".join("%s=%d" % kv for kv in st.items())))
print("%-10s %-58s %8s %6s %6s %8s  %s" % ("kernel", "best variant", "GB/s", "%copy", "%read", "copyGB/s", "statuses"))
for r in rows:
    print("%-10s %-58s %8s %6s %6s %8s  %s" % r)
PY
exit $status
