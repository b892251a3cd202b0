#!/bin/sh
# GPU check of a buffer's refill and of the extra verification sizes, on a machine with a CUDA
# GPU (tests/fakegpu.sh checks the same on a fake driver, without one):
# - tests/kernels/hist.yaml, a histogram counted with atomicAdd onto bins, which 'refill:
#   launch' zeroes before every launch: every variant verifies and is timed; the same config
#   without the refill (bins poisoned once per variant) is a mismatch after the timed launches
#   for every variant, and the run exits 1 (nothing verified): the refill is what makes it right;
# - tests/kernels/pairs.yaml, whose TAIL 0 leaves out the last element of an odd n: right at the
#   tuning size, so only the extra sizes (n=1000003, n=1) can tell; TAIL 0 must be a mismatch
#   whose reason names n=1000003, TAIL 1 must verify and win, and best.cu must say where it
#   was verified.
# Each check prints PASS or FAIL. Usage: tests/gpu/verify.sh [OUTDIR]   (default out/verify;
# TUNER_YAML_PREFIX: libyaml outside the system, if needed; tests/gpu/run.sh runs it too)
set -eu
cd "$(dirname "$0")/../.."
outdir=${1:-out/verify}
mkdir -p "$outdir"
. tests/gpu/lib.sh
gpu_build
gpu_header name,driver_version
export TUNER_CACHE="$outdir/cache"
status=0
# tune NAME OUT CONFIG: tune CONFIG afresh into OUT, its output into $outdir/NAME.log (its last
# lines shown), its exit status into rc
tune() {
	rc=0
	out/bin/tuner --fresh --out "$2" "$3" >"$outdir/$1.log" 2>&1 || rc=$?
	tail -n 6 "$outdir/$1.log"
}

echo "== tests/kernels/hist.yaml (refill: launch)"
tune hist "$outdir" tests/kernels/hist.yaml
python3 - "$rc" "$outdir"/hist/*/results.json <<'PY' || status=1
import json, sys
rc, d = int(sys.argv[1]), json.load(open(sys.argv[2]))
st = sorted((v["id"], v["status"], v.get("reason", "")[:120]) for v in d["variants"])
ok = rc == 0 and d["timed"] and st and all(s == "ok" for _, s, _ in st)
print("hist with refill: exit %d, %s: %s" % (rc, st, "PASS" if ok else "FAIL"))
sys.exit(not ok)
PY
grep -q "^#define HIST_BINS_REFILL 1" "$outdir"/hist/*/best.h && echo "hist best.h says bins is refilled: PASS" ||
	{ echo "hist best.h says bins is refilled: FAIL"; status=1; }

echo "== tests/kernels/hist.yaml without its refill (bins poisoned once per variant)"
rm -rf "$outdir/norefill"
mkdir -p "$outdir/norefill"
cp tests/kernels/hist.cu tests/kernels/hist_ref.cu "$outdir/norefill/"
sed '/refill: launch/d; /fill: {const: 0}/d' tests/kernels/hist.yaml >"$outdir/norefill/hist.yaml"
tune norefill "$outdir/norefill-out" "$outdir/norefill/hist.yaml"
python3 - "$rc" "$outdir"/norefill-out/hist/*/results.json <<'PY' || status=1
import json, sys
rc, d = int(sys.argv[1]), json.load(open(sys.argv[2]))
st = sorted((v["id"], v["status"], v.get("reason", "")[:120]) for v in d["variants"])
ok = rc == 1 and st and all(s == "mismatch" and r.startswith("after the timed launches: ")
                            for _, s, r in st)
print("hist without refill: exit %d, %s: %s" % (rc, st, "PASS" if ok else "FAIL"))
sys.exit(not ok)
PY

echo "== tests/kernels/pairs.yaml (verify sizes n=1000003, n=1)"
tune pairs "$outdir" tests/kernels/pairs.yaml
python3 - "$rc" "$outdir"/pairs/*/results.json <<'PY' || status=1
import json, sys
rc, d = int(sys.argv[1]), json.load(open(sys.argv[2]))
got = {(v["params"]["BLOCK"], v["params"]["TAIL"]): (v["status"], v.get("reason", ""))
       for v in d["variants"]}
good = [k for k in got if k[1] == 1]
bug = [k for k in got if k[1] == 0]
ok = (rc == 0 and d["timed"] and d["verify_sizes"] == [{"n": 1000003}, {"n": 1}]
      and good and bug and all(got[k][0] == "ok" for k in good)
      and all(got[k][0] == "mismatch" and
              got[k][1].startswith("at n=1000003: 1 of 1000003 elements differ; first at "
                                   "out[1000002]: ") for k in bug))
win = [v for v in d["variants"] if v["status"] == "ok"]
ok = ok and win and win[0]["params"]["TAIL"] == 1
print("pairs: exit %d, %s: %s" % (rc, sorted((k, s, r[:100]) for k, (s, r) in got.items()),
                                  "PASS" if ok else "FAIL"))
sys.exit(not ok)
PY
grep -q "verified against the reference at n=16777216, n=1000003, n=1: " "$outdir"/pairs/*/best.cu &&
	echo "pairs best.cu names the sizes it was verified at: PASS" ||
	{ echo "pairs best.cu names the sizes it was verified at: FAIL"; grep -n verified "$outdir"/pairs/*/best.cu || true; status=1; }
exit $status
