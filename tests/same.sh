#!/bin/sh
# Behaviour unchanged, without a GPU: run every shipped config compile-only (--arch sm_90) and
# the fake-GPU kernels (tests/fakecuda) with the tuner of another tree (e.g. a worktree of the
# commit before a restructuring) and with this one, then diff every file they wrote, dates,
# wall and launch times masked (tests/same_mask.sed), results.json's phases sorted.
# Usage: tests/same.sh OLDTREE [OUTDIR]
# Prints one line per config; exits 1 if any output differs.
set -u
cd "$(dirname "$0")/.." || exit 2
old=$(cd "$1" && pwd) || exit 2
dir=${2:-out/same}
rm -rf "$dir"
mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || exit 2
export SOURCE_DATE_EPOCH=1767225600 TUNER_CACHE="$dir/cache"
status=0
# run WHO CFG ARGS...: the tuner of WHO (old or new) on CFG into $dir/WHO
run() {
	who=$1 cfg=$2
	shift 2
	t=out/bin/tuner fake=out/fakecuda
	[ "$who" = old ] && t=$old/out/bin/tuner fake=$old/out/fakecuda
	rm -rf "$dir/$who"
	lib=/nonexistent
	case $cfg in tests/fakecuda/*) lib=$fake ;; esac
	LD_LIBRARY_PATH="$lib" "$t" -j 2 --fresh "$@" --out "$dir/$who" "$cfg" \
		>"$dir/$who.stdout" 2>"$dir/$who.stderr"
	echo "exit $?" >>"$dir/$who.stdout"
}
# phases F: a results.json's search.phases in one order (theirs is by start, which varies;
# the file is masked, no longer JSON: its lines are sorted as text)
phases() {
	case $1 in *.json) ;; *) return 0 ;; esac
	python3 - "$1" <<-'PY'
	import sys
	lines = open(sys.argv[1]).read().split("\n")
	for i, l in enumerate(lines):
	    if l.rstrip().endswith('"phases": ['):
	        j = i + 1
	        while j < len(lines) and lines[j].lstrip().startswith("{"):
	            j += 1
	        body = lines[i + 1:j]
	        k = body[-1].rfind("}]")
	        end = body[-1][k + 1:] if k >= 0 else ""
	        body[-1] = body[-1][:k + 1] if k >= 0 else body[-1]
	        body = sorted(x.rstrip(",") for x in body)
	        lines[i + 1:j] = [x + "," for x in body[:-1]] + [body[-1] + end]
	open(sys.argv[1], "w").write("\n".join(lines))
	PY
}
for cfg in configs/*.yaml tests/kernels/*.yaml tests/fakecuda/*.yaml; do
	k=$(echo "${cfg%.yaml}" | tr / -)
	case $cfg in
	tests/fakecuda/*) args="" ;;                                             # the fake GPU times
	configs/stencil2d.yaml) args="--arch sm_90 --budget 300 --strategy random --seed 7" ;;
	*) args="--arch sm_90" ;;
	esac
	rm -rf "$dir/old" "$dir/new"
	for w in old old new; do # the first fills the compile cache: both compared runs hit it
		run $w "$cfg" $args
	done
	for w in old new; do
		mkdir -p "$dir/$w-$k"
		cp "$dir/$w.stdout" "$dir/$w.stderr" "$dir/$w-$k/"
		[ -d "$dir/$w" ] && (cd "$dir/$w" && find . -type f ! -name journal ! -name .lock) |
			while read -r f; do mkdir -p "$dir/$w-$k/$(dirname "$f")"; sed -f tests/same_mask.sed "$dir/$w/$f" >"$dir/$w-$k/$f"; phases "$dir/$w-$k/$f"; done
		sed -i -f tests/same_mask.sed -e "s|$dir/$w/|DIR/|g" "$dir/$w-$k/$w.stdout" "$dir/$w-$k/$w.stderr"
		mv "$dir/$w-$k/$w.stdout" "$dir/$w-$k/stdout"; mv "$dir/$w-$k/$w.stderr" "$dir/$w-$k/stderr"
	done
	if diff -r -u "$dir/old-$k" "$dir/new-$k" >"$dir/$k.diff"; then
		echo "same $k"
	else
		status=1
		echo "DIFF $k: $(grep -c '^[-+][^-+]' "$dir/$k.diff") lines, $dir/$k.diff"
	fi
done
exit $status
