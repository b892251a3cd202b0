#!/bin/sh
# Size dispatch as an application sees it, for a machine with a CUDA GPU: filter21, transpose
# and reduction tuned at four points each (tuner --size; with its midpoints between them),
# tests/gpu/dispatch.cu built with nvcc against the run's best.cu, and at the points, the
# midpoints and six sizes between them (none a midpoint) every entry verified and timed,
# interleaved (graph-replayed below the L2, after a read flush above it) in three processes of
# the harness (a process can settle a kernel's speed: docs/benchmarks.md; each candidate's time
# the median of its three), beside the tuner's own winner of a run at each size between; for the
# reduction, CUB from 2^16 to 2^27 too. One table (tests/gpu/dispatch.py): FAIL where the pick is
# more than 1 % slower than the fastest entry at a point or a midpoint, more than 3 % slower than
# the tuner's winner at a size between, or wrong; with DISPATCH_RUNS=3 also where three runs'
# winners at a point lie more than 1 % apart. Exits 1 on any FAIL.
# Usage: tests/gpu/dispatch.sh [OUTDIR]   (default out/dispatch: table.txt and each kernel's
# runs, logs and harness; TUNER_YAML_PREFIX as for tests/gpu/run.sh). DISPATCH_KERNELS (default
# "filter21 transpose reduction"), DISPATCH_SAMPLES (default 30), DISPATCH_RUNS (default 1),
# DISPATCH_POINTS and DISPATCH_BETWEEN (the sizes tuned at and between, for one kind of kernel),
# DISPATCH_CONFIG (a config for the one kernel in DISPATCH_KERNELS other than the transpose,
# instead of configs/KERNEL.yaml), DISPATCH_ARGS (more of the tuner's options, for every run:
# --midpoints 0), DISPATCH_PLACES (the harness's -P: flushed sizes timed on that many copies of
# the buffers), DISPATCH_PROCS (default 3: the harness's processes), DISPATCH_ALONE (default 1:
# each point's winner also built alone from its point's best.cu, as the tuner timed it, and
# timed at every size beside its bundle entry: the table's "build" lines; 0: not), NVCC
# (default nvcc).
set -eu
cd "$(dirname "$0")/../.."
outdir=${1:-out/dispatch}
mkdir -p "$outdir"
: >"$outdir/table.txt"
. tests/gpu/lib.sh
gpu_build
gpu_header name,driver_version | tee -a "$outdir/table.txt"
export TUNER_CACHE="$outdir/cache"
NVCC=${NVCC:-nvcc}
arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d .)
runs=${DISPATCH_RUNS:-1}
tc=configs/.dispatch-transpose.yaml
trap 'rm -f "$tc"' EXIT INT TERM
status=0

# tune DIR LOG ARGS...: one quiet, fresh run into DIR; its GPU directory in $gdir
tune() {
	dir=$1 log=$2
	shift 2
	rm -rf "$dir"
	gdir=""
	gpu_idle
	# shellcheck disable=SC2086
	out/bin/tuner -q --fresh --out "$dir" ${DISPATCH_ARGS:-} "$@" </dev/null >"$log" 2>&1 ||
		{ echo "tuner failed: $* (see $log)"; return 1; }
	gdir=$(dirname "$(find "$dir" -mindepth 3 -maxdepth 3 -name results.json | head -n 1)")
}
# one NAME AT DIR: dispatch_one.cu with DIR/best.cu (its kernel renamed), timed at size label AT
one() {
	i=$((i + 1))
	id=$(sed -n 's/^ \* [a-z0-9_]* variant \(v[0-9a-f]*\),.*/\1/p' "$3/best.h" | head -n 1)
	"$NVCC" -arch="$arch" -O3 -c -I. -Itests/gpu -DKERNEL_$K -DONE_CU="\"$3/best.cu\"" \
		-DONE_H="\"$3/best.h\"" -DONE_NAME="\"$1\"" -DONE_ID="\"$id\"" -DONE_AT="\"$2\"" \
		-D$k=one${i}_$k -o "$w/one$i.o" tests/gpu/dispatch_one.cu >>"$w/nvcc.log" 2>&1
	objs="$objs $w/one$i.o"
}
# label S: the size label (a point's directory name) of size S
label() { if [ $k = transpose ]; then echo "rows=${1}_cols=$1"; else echo "n=$1"; fi; }

for k in ${DISPATCH_KERNELS:-filter21 transpose reduction}; do
	w=$outdir/$k
	mkdir -p "$w"
	: >"$w/nvcc.log"
	: >"$w/agree"
	K=$(echo $k | tr a-z A-Z)
	if [ $k = transpose ]; then # square points: a copy of the config listing them, beside it
		pts=${DISPATCH_POINTS:-1024 2048 4096 8192} mid=${DISPATCH_BETWEEN-1280 1792 2560 3584 5120 7168}
		python3 - configs/transpose.yaml "$tc" "$pts" <<-'PY'
		import re, sys
		t = open(sys.argv[1]).read()
		pts = "".join("  - {rows: %s, cols: %s}\n" % (n, n) for n in sys.argv[3].split())
		t, k = re.subn(r"^sizes:\n(  .*\n)+", "sizes:\n" + pts, t, flags=re.M)
		assert k == 1
		open(sys.argv[2], "w").write(t)
		PY
		set -- "$tc"
	else
		pts=${DISPATCH_POINTS:-65536 1048576 8388608 67108864} mid=${DISPATCH_BETWEEN-200000 500000 1600000 3000000 12000000 24000000}
		set -- --size "n=$(echo $pts | tr ' ' ,)" "${DISPATCH_CONFIG:-configs/$k.yaml}"
	fi
	echo "== $k: $runs run(s) at $pts, runs at $mid"
	objs="" i=0 first=""
	r=1
	while [ $r -le "$runs" ]; do
		tune "$w/run$r" "$w/run$r.log" "$@" || { status=1; continue 2; }
		python3 tests/gpu/dispatch.py winners "$gdir" >"$w/winners$r"
		if [ $r = 1 ]; then
			first=$gdir
		else # a winner not among the first run's: its point's best.cu, timed beside them
			while read -r l id; do
				grep -q " $id\$" "$w/winners1" || one run$r "$l" "$gdir/$l"
			done <"$w/winners$r"
		fi
		sed "s/ / $r /" "$w/winners$r" >>"$w/agree"
		r=$((r + 1))
	done
	emitted=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["emitted"])' "$first/results.json")
	if [ "$emitted" = "by size" ]; then
		bdir=$first best=$first/best.cu
	elif [ "$emitted" = single ]; then # one variant for every size: it is the pick, beside the
		# points' winners (tuner bundle: an entry per point)
		out/bin/tuner bundle -q --out "$w/bundle" "$w/run1/$k" >"$w/bundle.log" 2>&1 || status=1
		bdir=$w/bundle best=$w/bundle/${k}_bundle.cu
		one pick '*' "$first"
	else
		echo "$k: no best.cu chooses by size ($first/results.json: emitted $emitted): FAIL"
		status=1
		continue
	fi
	if [ "${DISPATCH_ALONE:-1}" = 1 ]; then # each point's winner built alone, beside its entry
		j=0 seen=""
		while read -r l id; do
			case " $seen " in *" $id "*) continue ;; esac
			seen="$seen $id" j=$((j + 1))
			one "alone$j" '*' "$first/$l"
		done <"$w/winners1"
	fi
	sizes=""
	for s in $pts; do
		[ $k = transpose ] && sizes="$sizes p:${s}x$s" || sizes="$sizes p:$s"
	done
	mids=$(python3 tests/gpu/dispatch.py midpoints "$first") # timed like the points
	for s in $mids; do
		case " $mid " in *" ${s%%x*} "*) ;; *) sizes="$sizes m:$s" ;; esac
	done
	for s in $mid; do
		if [ $k = transpose ]; then
			tune "$w/at$s" "$w/at$s.log" --size rows=$s --size cols=$s configs/$k.yaml || status=1
			sizes="$sizes b:${s}x$s"
		else
			tune "$w/at$s" "$w/at$s.log" --size n=$s "${DISPATCH_CONFIG:-configs/$k.yaml}" || status=1
			sizes="$sizes b:$s"
		fi
		[ -f "$gdir/best.cu" ] && one tuned "$(label $s)" "$gdir"
	done
	cub=""
	if [ $k = reduction ]; then # CUB beside the pick from 2^16 to 2^27
		cub=-c
		for e in 16 17 18 19 20 21 22 23 24 25 26 27; do # those not tuned at or between
			case " $pts $mid $mids " in *" $((1 << e)) "*) ;; *) sizes="$sizes c:$((1 << e))" ;; esac
		done
	fi
	hdr=$(echo "$best" | sed 's/\.cu$/.h/')
	# shellcheck disable=SC2086
	if "$NVCC" -arch="$arch" -O3 -c -I. -DKERNEL_$K -DBEST_H="\"$hdr\"" -o "$w/main.o" \
		tests/gpu/dispatch.cu >>"$w/nvcc.log" 2>&1 &&
		"$NVCC" -arch="$arch" -O3 -c -I"$bdir" -o "$w/best.o" "$best" >>"$w/nvcc.log" 2>&1 &&
		"$NVCC" -arch="$arch" -o "$w/dispatch" "$w/main.o" "$w/best.o" $objs tests/ref/*.c \
			>>"$w/nvcc.log" 2>&1; then
		gpu_idle
		# shellcheck disable=SC2086
		"$w/dispatch" -s "${DISPATCH_SAMPLES:-30}" -P "${DISPATCH_PLACES:-1}" $cub $sizes >"$w/dispatch.txt" 2>"$w/dispatch.err" || status=1
		head -n 2 "$w/dispatch.txt"
		times=$w/dispatch.txt p=2
		while [ $p -le "${DISPATCH_PROCS:-3}" ]; do # the same harness in more processes
			gpu_idle
			# shellcheck disable=SC2086
			"$w/dispatch" -s "${DISPATCH_SAMPLES:-30}" -P "${DISPATCH_PLACES:-1}" $cub $sizes \
				>"$w/dispatch$p.txt" 2>>"$w/dispatch.err" || status=1
			times=$times,$w/dispatch$p.txt p=$((p + 1))
		done
	else
		echo "$k: the harness did not build (see $w/nvcc.log)"
		: >"$w/dispatch.txt"
		times=$w/dispatch.txt
	fi
	python3 tests/gpu/dispatch.py table "$outdir/table.txt" $k "$times" "$w/agree" || status=1
done
exit $status
