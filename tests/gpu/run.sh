#!/bin/sh
# GPU check, for a machine with a CUDA GPU: build, tune every shipped config (and the test-only
# kernel), and print each winner with its % of a copy kernel timed in the same run.
# Usage: tests/gpu/run.sh [OUTDIR]   (TUNER_YAML_PREFIX: libyaml outside the system, if needed;
# TUNER_COMMIT: the commit to print where the tree has no .git)
set -eu
cd "$(dirname "$0")/../.."
outdir=${1:-out}
yp=""
[ -n "${TUNER_YAML_PREFIX:-}" ] && yp="--yaml-prefix $TUNER_YAML_PREFIX"
./configure.py $yp >/dev/null
ninja out/bin/tuner >/dev/null
echo "commit ${TUNER_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}, $(date -u +%Y-%m-%dT%H:%MZ)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
export TUNER_CACHE="$outdir/cache"
status=0
for cfg in configs/*.yaml tests/kernels/*.yaml; do
	echo "== $cfg"
	t0=$(date +%s.%N)
	out/bin/tuner --out "$outdir" "$cfg" >"$outdir/$(basename "$cfg" .yaml).log" 2>&1 || status=1
	t1=$(date +%s.%N)
	tail -n 4 "$outdir/$(basename "$cfg" .yaml).log"
	echo "wall $(echo "$t1 - $t0" | bc 2>/dev/null || python3 -c "print(round($t1-$t0,2))") s"
done
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
        rows.append((d["kernel"], "-", "-", "-", "-", " ".join("%s=%d" % kv for kv in st.items())))
        continue
    b = min(ok, key=lambda v: v["median_ms"])
    p = " ".join("%s=%s" % kv for kv in b["params"].items())
    rows.append((d["kernel"], b["id"] + " " + p, "%.1f" % b["gbs"], "%.1f" % b["pct_copy"],
                 "%.1f" % d["copy_gbs"], " ".join("%s=%d" % kv for kv in st.items())))
print("%-10s %-58s %8s %6s %8s  %s" % ("kernel", "best variant", "GB/s", "%copy", "copyGB/s", "statuses"))
for r in rows:
    print("%-10s %-58s %8s %6s %8s  %s" % r)
PY
exit $status
