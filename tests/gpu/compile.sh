#!/bin/sh
# Where cold compiling goes, for a machine with a CUDA GPU (issue 24's cold targets): for
# filter21, transpose and reduction, compiling only (no GPU visible, --arch of GPU 0):
#  - every kept variant with -j (the cores) and an empty cache, and the same with --no-cache
#    (their difference: storing the results);
#  - the first 16 variants with -j 1 and --no-cache: one NVRTC start-up and 18 compiles (with the
#    reference and the helper kernels); ms/compile is that wall time / 16, so an upper bound;
# and how long a write and fsync of a 4 KiB file takes in the cache's directory; then, for the
# reduction and filter21, every kept variant compiled with --no-cache at -j 8, 16, 32 and the
# number of cores (where it is more), to see where more compiler processes stop paying.
# Usage: tests/gpu/compile.sh [OUTDIR]   (default out/compile; TUNER_YAML_PREFIX as for
# tests/gpu/run.sh)
set -eu
cd "$(dirname "$0")/../.."
outdir=${1:-out/compile}
rm -rf "$outdir"
mkdir -p "$outdir"
. tests/gpu/lib.sh
gpu_build
gpu_header name,driver_version
arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i 0 | tr -d .)
echo "cores: $(nproc); $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

python3 - "$outdir" <<'PY'
import os, sys, time
d = sys.argv[1]
ts = []
for i in range(50):
    p = os.path.join(d, "fsync-%d" % i)
    t0 = time.perf_counter()
    with open(p, "wb") as f:
        f.write(b"x" * 4096)
        f.flush()
        os.fsync(f.fileno())
    ts.append(time.perf_counter() - t0)
    os.unlink(p)
ts.sort()
print("write+fsync of 4 KiB: median %.2f ms, max %.2f ms (50 files)" % (ts[25] * 1e3, ts[-1] * 1e3))
PY

printf '%-10s %8s %8s %8s %10s %12s\n' config kept cached no-cache 'j1 16' 'ms/compile'
for k in filter21 transpose reduction; do
	kept=$(out/bin/tuner --dry-run configs/$k.yaml 2>/dev/null |
		sed -n 's/^[0-9]* variants: \([0-9]*\) kept.*/\1/p')
	export CUDA_VISIBLE_DEVICES=''
	t0=$(now)
	TUNER_CACHE=$outdir/cache-$k out/bin/tuner -q --arch $arch --out "$outdir/a" configs/$k.yaml \
		>"$outdir/$k.cached.log" 2>&1 || true
	t1=$(now)
	out/bin/tuner -q --no-cache --arch $arch --out "$outdir/b" configs/$k.yaml \
		>"$outdir/$k.nocache.log" 2>&1 || true
	t2=$(now)
	out/bin/tuner -q -j 1 --budget 16 --no-cache --arch $arch --out "$outdir/c" \
		configs/$k.yaml >"$outdir/$k.j1.log" 2>&1 || true
	t3=$(now)
	unset CUDA_VISIBLE_DEVICES
	printf '%-10s %8s %8s %8s %10s %12s\n' $k "$kept" "$(secs $t0 $t1)" "$(secs $t1 $t2)" \
		"$(secs $t2 $t3)" "$(awk -v a="$t2" -v b="$t3" 'BEGIN { printf "%.0f", (b - a) * 1000 / 16 }')"
done

cores=$(nproc)
for k in reduction filter21; do
	for j in $(printf '%s\n' 8 16 32 "$cores" | sort -nu); do
		[ "$j" -le "$cores" ] || continue
		t0=$(now)
		CUDA_VISIBLE_DEVICES='' out/bin/tuner -q -j "$j" --no-cache --arch $arch --out "$outdir/j" \
			configs/$k.yaml >"$outdir/$k.j$j.log" 2>&1 || true
		t1=$(now)
		echo "$k -j $j: $(secs $t0 $t1) s"
	done
done
