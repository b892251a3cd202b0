#!/bin/sh
# bench/compare/roofline.sh [OUTDIR]: on a machine with a CUDA GPU, build the tuner, tune the three
# shipped configs, re-tune them at edge sizes (every variant must verify), build and run
# bench/compare/compare.cu (copy, read-only, naive baselines, CUB and the tuner's winners timed in one
# process) and bench/compare/torch_compare.py where PyTorch is installed, then print one table.
# OUTDIR (default out/roofline) receives the logs, results.json files and emitted winners.
# TUNER_YAML_PREFIX, TUNER_JANSSON_PREFIX: libyaml and jansson outside the system; TUNER_COMMIT: the commit to print where the
# tree has no .git; TUNER_CACHE: compile cache (default OUTDIR/cache); ROOFLINE_BUDGET: seconds
# after which the remaining edge-size runs are skipped (and reported as such).
# Exit status: 0 when every step ran and every check passed, 1 otherwise.
set -u
cd "$(dirname "$0")/../.." || exit 1
out=${1:-out/roofline}
mkdir -p "$out" out/bench || exit 1
out=$(cd "$out" && pwd)
status=0
start=$(date +%s)
fail() { echo "roofline: $*"; status=1; }
now() { date +%s.%N; }
dt() { python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$2"; }

. tests/gpu/lib.sh
if ! (gpu_build) >"$out/build.log" 2>&1; then
	cat "$out/build.log"
	echo "roofline: the tuner does not build"
	exit 1
fi
echo "commit ${TUNER_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}, $(date -u +%Y-%m-%dT%H:%MZ)"
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader || true
export TUNER_CACHE="${TUNER_CACHE:-$out/cache}"

# 1. tune the shipped configs at their sizes
: >"$out/walltimes"
for k in filter21 transpose reduction; do
	t0=$(now)
	timeout 150 out/bin/tuner --fresh --out "$out/tune" "configs/$k.yaml" >"$out/$k.log" 2>&1 ||
		fail "tuner configs/$k.yaml failed (exit $?): $(tail -n 3 "$out/$k.log")"
	echo "$k $(dt "$t0" "$(now)")" >>"$out/walltimes"
done

# 2. compare (and PyTorch): baselines and the winners in one process
nvcc=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')
arch=${cc:+sm_$cc}
arch=${arch:-native}
objs="" defs=""
for k in filter21 transpose reduction; do
	src=""
	for f in "$out"/tune/"$k"/*/best.cu; do [ -f "$f" ] && src=$f; done
	[ -n "$src" ] || { fail "no winner for $k"; continue; }
	K=$(echo $k | tr '[:lower:]' '[:upper:]')
	if "$nvcc" -O3 -arch="$arch" -c "-DWIN_$K" -DWIN_SRC="\"$src\"" -DWIN_HDR="\"${src%.cu}.h\"" \
		bench/compare/winner.cu -o out/bench/win_$k.o >>"$out/compare-build.log" 2>&1; then
		objs="$objs out/bench/win_$k.o"
		defs="$defs -DHAVE_WIN_$K"
	else
		fail "the $k winner does not build with nvcc (compare-build.log)"
	fi
done
# shellcheck disable=SC2086
if "$nvcc" -O3 -arch="$arch" $defs -o out/bench/compare bench/compare/compare.cu tests/ref/filter21.c \
	tests/ref/transpose.c tests/ref/sum.c $objs >>"$out/compare-build.log" 2>&1; then
	timeout 200 out/bench/compare >"$out/compare.log" 2>&1 || fail "compare failed (exit $?)"
else
	fail "compare does not build: $(tail -n 5 "$out/compare-build.log")"
	: >"$out/compare.log"
fi
: >"$out/torch.log"
if python3 -c 'import torch, sys; sys.exit(not torch.cuda.is_available())' 2>/dev/null; then
	timeout 200 python3 bench/compare/torch_compare.py >"$out/torch.log" 2>&1 || fail "torch_compare failed (exit $?)"
fi

# 3. every variant again at edge sizes: n = 1, primes, sizes that are no multiple of a block
#    or tile (the tuner verifies each variant against the reference; any failure counts)
: >"$out/edge.txt"
edge() {
	label=$1 cfg=$2
	shift 2
	if [ "${ROOFLINE_BUDGET:-0}" -gt 0 ] && [ "$(($(date +%s) - start))" -gt "$ROOFLINE_BUDGET" ]; then
		echo "$label $cfg skipped $*" >>"$out/edge.txt"
		return
	fi
	timeout 120 out/bin/tuner -q --out "$out/edge/$label" "$@" "configs/$cfg.yaml" \
		>"$out/edge/$label.log" 2>&1
	echo "$label $cfg $? $*" >>"$out/edge.txt"
}
mkdir -p "$out/edge"
for n in 1 2 97 4099 1000003; do edge "filter21-n$n" filter21 --size n=$n; done
edge transpose-1x1 transpose --size rows=1 --size cols=1
edge transpose-1000x777 transpose --size rows=1000 --size cols=777
edge transpose-97x8209 transpose --size rows=97 --size cols=8209
edge transpose-2053x4100 transpose --size rows=2053 --size cols=4100
edge transpose-4096x2050 transpose --size rows=4096 --size cols=2050
for n in 1 3 4099 1000003 16777259; do edge "reduction-n$n" reduction --size n=$n; done

# 4. one table
python3 - "$out" <<'PY' || status=1
import glob, json, os, sys
out = sys.argv[1]
bad = 0

def timed(path):
    d = {}
    if os.path.exists(path):
        for line in open(path):
            f = line.split()
            if len(f) == 7 and f[0] == "time" and f[1] != "name":
                d[f[1]] = float(f[6])
    return d

cmp = timed(out + "/compare.log")
cmp.update(timed(out + "/torch.log"))
copy, read = cmp.get("copy"), cmp.get("read")
lib = {"filter21": ("filter21.cudnn", "cuDNN"), "transpose": ("transpose.torch", "PyTorch"),
       "reduction": ("reduction.cub", "CUB")}

def pct(a, b):
    return "%.1f" % (100 * a / b) if a and b else "-"

def times(a, b):
    return "%.2f" % (a / b) if a and b else "-"

print()
print("%-10s %-60s %8s %6s %6s | %8s %6s %6s %7s %13s" % ("kernel", "best variant (tuner)",
      "GB/s", "%copy", "%read", "GB/s", "%copy", "%read", "x naive", "x library"))
extra = []
for k in ("filter21", "transpose", "reduction"):
    js = glob.glob("%s/tune/%s/*/results.json" % (out, k))
    best, d = None, {}
    if js:
        d = json.load(open(js[0]))
        ok = [v for v in d.get("variants", []) if v.get("status") == "ok"]
        if ok:
            best = min(ok, key=lambda v: v["median_ms"])
    if not best:
        print("%-10s no verified variant" % k)
        bad += 1
        continue
    p = best["id"] + " " + " ".join("%s=%s" % kv for kv in best["params"].items())
    w = cmp.get(k + ".win")
    ln, lname = lib[k]
    tr = best.get("pct_read") if k == "reduction" else None
    print("%-10s %-60s %8.1f %6.1f %6s | %8s %6s %6s %7s %13s" % (
        k, p, best["gbs"], best["pct_copy"], "%.1f" % tr if tr else "-",
        "%.1f" % w if w else "-", pct(w, copy),
        pct(w, read) if k == "reduction" else "-", times(w, cmp.get(k + ".naive")),
        (times(w, cmp.get(ln)) + " " + lname) if cmp.get(ln) else "-"))
    st = {}
    for v in d.get("variants", []):
        st[v["status"]] = st.get(v["status"], 0) + 1
    extra.append("%s: tuner copy %.1f GB/s, read %.1f GB/s; statuses %s" % (
                 k, d.get("copy_gbs", 0), d.get("read_gbs", 0),
                 " ".join("%s=%d" % kv for kv in sorted(st.items()))))
print("left of |: the tuner's run (its copy and read kernels and L2 flush); right: "
      "bench/compare/compare.cu, one process, L2 flushed by reading 3 x L2")
print("baselines (GB/s): " + ", ".join("%s %.1f" % kv for kv in sorted(cmp.items())))
for e in extra:
    print(e)
# the transpose against the tile copies that move whole tiles to their transposed places
# (bench/compare/compare.cu: the same DRAM traffic without the in-tile shuffle), in launch or banded
# order and in column order
w = cmp.get("transpose.win")
for label, names in (("launch/banded order", ("tilecopy.tr64", "tilecopy.tr64g8", "tilecopy.tr128")),
                     ("column order", ("tilecopy.tr64c", "tilecopy.tr128c"))):
    tc = [(cmp[n], n) for n in names if cmp.get(n)]
    if w and tc:
        print("transpose.win / best transposed tile copy, %s (%s): %.3fx" % (label, max(tc)[1],
              w / max(tc)[0]))
if os.path.exists(out + "/walltimes"):
    print("tune wall time (s): " + ", ".join(l.strip().replace(" ", " ") for l in open(out + "/walltimes")))

# edge sizes: every variant verified
runs = fails = nvar = 0
for line in open(out + "/edge.txt"):
    label, cfg, rc = line.split()[:3]
    runs += 1
    js = glob.glob("%s/edge/%s/*/*/results.json" % (out, label))
    st = {}
    if js:
        for v in json.load(open(js[0])).get("variants", []):
            st[v["status"]] = st.get(v["status"], 0) + 1
    wrong = {s: c for s, c in st.items() if s not in ("ok", "twin", "collapsed", "dropped")}
    nvar += st.get("ok", 0)
    if rc != "0" or wrong or not st.get("ok"):
        fails += 1
        print("edge FAIL %s (%s): exit %s, %s" % (label, " ".join(line.split()[3:]), rc,
              " ".join("%s=%d" % kv for kv in sorted(st.items())) or "no results"))
print("edge sizes: %d tuner runs, %d variant runs verified, %d run(s) failed" % (runs, nvar, fails))
bad += fails
checks = [l for f in ("compare.log", "torch.log") if os.path.exists(out + "/" + f)
          for l in open(out + "/" + f) if l.startswith("check ")]
nfail = sum(1 for l in checks if " FAIL" in l)
print("compare checks: %d, failed %d" % (len(checks), nfail))
for l in checks:
    if " FAIL" in l:
        print("  " + l.rstrip())
bad += nfail
sys.exit(1 if bad else 0)
PY
exit $status
