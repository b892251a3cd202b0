#!/bin/sh
# ninja install and the man page. The build under test (BINDIR's build directory, its options
# read from the first line of its build.ninja) is configured again in BUILDDIR/install-test with
# --prefix BUILDDIR/install-test/prefix (its own build.ninja and .ninja_log: nothing of the
# build under test is touched; later runs only re-link what changed), then installed with
# DESTDIR: every file where it belongs and nothing outside DESTDIR; the installed binary runs;
# every installed config dry-runs from the installed tree; the man page renders without a
# warning, has every option line of --help (with its continuation lines) and every usage line,
# names every environment variable the sources read, and the prefix; reinstalling, installing
# without DESTDIR and uninstalling work. Needs groff (apt-get install groff-base). With UNTIMED
# and where cmake and NVCC are, the CMake package builds examples/CMakeLists.txt (below).
# usage: tests/install.sh [BINDIR [UNTIMED NVCC]]   (default: $TUNER_BINDIR, else out/bin; UNTIMED
#   as tests/bundle/run.sh takes it, for the CMake package's test, skipped without it)
# Ends with "install: N passed, N failed"; exits non-zero on any failure.
set -u
cd "$(dirname "$0")/.." || exit 2
B=${1:-${TUNER_BINDIR:-out/bin}}
U=${2:-} NVCC=${3:-nvcc}
. tests/lib.sh
tmpdir install
export TUNER_CACHE="$tmp/cache"

# the build under test: its directory (as configure.py's --builddir) and its manifest
bdir=$(dirname "$B")
case $bdir in
"$PWD"/*) bdir=${bdir#"$PWD"/} ;;
/* | ../*) bdir=out ;;
esac
[ "$bdir" = out ] && m=build.ninja || m=$bdir/build.ninja
ib=$bdir/install-test
prefix=$PWD/$ib/prefix
root=$tmp/dest$prefix

# its options (configure.py writes them shell-quoted), less --builddir and --prefix
set --
if [ -f "$m" ]; then
	l=$(head -n 1 "$m")
	l=${l#"# written by configure.py"}
	eval "set -- ${l%"; edits are lost on regeneration"}"
fi
skip=""
for a do
	shift
	if [ -n "$skip" ]; then skip=""; continue; fi
	case $a in
	--builddir | --prefix) skip=1; continue ;;
	--builddir=* | --prefix=*) continue ;;
	esac
	set -- "$@" "$a"
done
if ./configure.py "$@" --builddir "$ib" --prefix "$prefix" >"$tmp/configure.log" 2>&1; then
	ok "configure_$(echo "$ib" | tr / _)"
else
	bad "configure_$(echo "$ib" | tr / _)" "./configure.py $* --builddir $ib --prefix $prefix: $(cat "$tmp/configure.log")"
	finish install
fi

# DESTDIR=... ninja install
rm -rf "$prefix"
if DESTDIR="$tmp/dest" ninja -f "$ib/build.ninja" install >"$tmp/install.log" 2>&1; then
	ok install
else
	bad install "$(tail -n 30 "$tmp/install.log")"
	finish install
fi
[ ! -e "$prefix" ] && ok install_destdir_honored || bad install_destdir_honored "$(find "$prefix" | head)"

# every file where it belongs, as in the tree (the binary and the man page: as built)
miss=""
[ -x "$root/bin/tuner" ] || miss="$miss bin/tuner"
cmp -s "$ib/man/tuner.1" "$root/share/man/man1/tuner.1" || miss="$miss share/man/man1/tuner.1"
for f in templates/*.cu configs/*.yaml; do
	cmp -s "$f" "$root/share/tuner/$f" || miss="$miss share/tuner/$f"
done
for f in README.md docs/*.md docs/*.json; do
	cmp -s "$f" "$root/share/doc/tuner/$f" || miss="$miss share/doc/tuner/$f"
done
cmp -s cmake/tunerConfig.cmake "$root/lib/cmake/tuner/tunerConfig.cmake" || miss="$miss lib/cmake/tuner/tunerConfig.cmake"
grep -qx "set(PACKAGE_VERSION \"$(sed -n 's/^#define TUNER_VERSION "\(.*\)"$/\1/p' tuner/version.h)\")" \
	"$root/lib/cmake/tuner/tunerConfigVersion.cmake" 2>/dev/null || miss="$miss lib/cmake/tuner/tunerConfigVersion.cmake"
[ -z "$miss" ] && ok install_files || bad install_files "missing or different:$miss
$(cd "$tmp/dest" && find . -type f | sort)"
# nothing else (no temporaries), and the modes
other=$(cd "$root" && find . -type f ! -path ./bin/tuner ! -path ./share/man/man1/tuner.1 \
	! -path './share/tuner/templates/*.cu' ! -path './share/tuner/configs/*.yaml' \
	! -path './share/doc/tuner/*.md' ! -path './share/doc/tuner/docs/*.json' \
	! -path ./lib/cmake/tuner/tunerConfig.cmake ! -path ./lib/cmake/tuner/tunerConfigVersion.cmake)
modes=$(cd "$root" && find . -type f -printf '%m %p\n' | grep -v -e '^755 ./bin/tuner$' -e '^644 ./share/' -e '^644 ./lib/cmake/tuner/')
[ -z "$other$modes" ] && ok install_nothing_else || bad install_nothing_else "$other $modes"

# the installed binary runs, and is the same version
v=$("$B/tuner" --version 2>&1)
iv=$("$root/bin/tuner" --version 2>&1)
[ -n "$iv" ] && [ "$iv" = "$v" ] && ok installed_version || bad installed_version "'$iv', want '$v'"

# every installed config works from the installed tree (its ../templates/X.cu resolved there)
for cfg in "$root"/share/tuner/configs/*.yaml; do
	k=$(basename "$cfg" .yaml)
	if (cd "$root" && bin/tuner --dry-run "share/tuner/configs/$k.yaml") >"$tmp/dry" 2>&1 &&
		grep -q "variants: [0-9]* kept" "$tmp/dry"; then
		ok "installed_dry_run_$k"
	else
		bad "installed_dry_run_$k" "$(tail -n 5 "$tmp/dry")"
	fi
done

# the CMake package: examples/CMakeLists.txt configured against the installed tree, built with
# nvcc; its bundles made by the installed tuner, from synthetic results of UNTIMED's
# compile-only runs (tests/bundle/fake_gpus.py), for the architectures they hold; a rebuild
# does nothing, a results.json touched re-runs that kernel's tuner bundle alone, a GPU removed
# from the results is no longer compiled for
if [ -z "$U" ]; then
	skip cmake_example "no compile-only results given (tests/install.sh BINDIR UNTIMED NVCC)"
elif ! command -v cmake >/dev/null 2>&1; then
	skip cmake_example "cmake not found: apt-get install cmake"
elif ! command -v "$NVCC" >/dev/null 2>&1; then
	skip cmake_example "$NVCC not found"
else
	c=$tmp/cmake o=$tmp/cmake/build/tuner/app
	for k in filter21 reduction; do
		python3 tests/bundle/fake_gpus.py "$U/$k/untimed-sm_90" "$c/results/$k" >/dev/null ||
			bad "cmake_results_$k" "$U/$k/untimed-sm_90"
	done
	# cmake_build NAME: build the example (ninja -v), its output in $tmp/cm.log
	cmake_build() {
		if ninja -v -C "$c/build" >"$tmp/cm.log" 2>&1; then ok "$1"; else bad "$1" "$(tail -n 30 "$tmp/cm.log")"; fi
	}
	# ran KERNEL: the build ran the installed tuner's bundle of KERNEL's results
	ran() { grep -qF "$root/bin/tuner bundle --out $o $c/results/$1" "$tmp/cm.log"; }
	# compiled PATTERN: the build compiled filter21's bundle with nvcc flags matching PATTERN
	compiled() { grep -F "/filter21_bundle.cu" "$tmp/cm.log" | grep -q -E -- "$1"; }
	if cmake -S examples -B "$c/build" -G Ninja -DCMAKE_PREFIX_PATH="$root" \
		-DCMAKE_CUDA_COMPILER="$(command -v "$NVCC")" -DTUNER_RESULTS="$c/results" \
		>"$tmp/cm.log" 2>&1; then
		ok cmake_configure
	else
		bad cmake_configure "$(tail -n 30 "$tmp/cm.log")"
	fi
	cmake_build cmake_build
	[ -x "$c/build/app" ] && ok cmake_app || bad cmake_app "no $c/build/app"
	for k in filter21 reduction; do
		ran "$k" && ok "cmake_bundle_ran_$k" || bad "cmake_bundle_ran_$k" "$(grep bundle "$tmp/cm.log")"
		has "cmake_bundle_$k" "nvcc flags: -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90$" "$o/${k}_bundle.h"
	done
	p80='arch=compute_80,code=\[sm_80\]'
	p90='arch=compute_90,code=\[compute_90,sm_90\]'
	compiled "$p80" && compiled "$p90" && ok cmake_architectures ||
		bad cmake_architectures "$(grep -F filter21_bundle.cu "$tmp/cm.log")"
	cmake_build cmake_rebuild
	grep -q "no work to do" "$tmp/cm.log" && ok cmake_rebuild_nothing || bad cmake_rebuild_nothing "$(cat "$tmp/cm.log")"
	sleep 1 # a newer mtime than the bundle's on any file system
	touch "$c/results/filter21/nvidia-h200-sm90/results.json"
	cmake_build cmake_rebuild_touched
	ran filter21 && ! ran reduction && ok cmake_rebundled || bad cmake_rebundled "$(cat "$tmp/cm.log")"
	rm -r "$c/results/filter21/nvidia-a100-sxm4-80gb-sm80" "$c/results/reduction/nvidia-a100-sxm4-80gb-sm80"
	cmake_build cmake_rebuild_removed
	! compiled "$p80" && compiled "$p90" && ok cmake_architectures_follow ||
		bad cmake_architectures_follow "$(grep -F filter21_bundle.cu "$tmp/cm.log")"
	has cmake_bundle_removed "nvcc flags: -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90$" "$o/filter21_bundle.h"
fi

# the man page: renders without a warning, and says what --help says
man=$root/share/man/man1/tuner.1
if ! command -v groff >/dev/null 2>&1; then
	bad man_renders "groff not found: apt-get install groff-base"
	finish install
fi
if groff -man -Tutf8 -ww -z "$man" >"$tmp/groff.err" 2>&1 && [ ! -s "$tmp/groff.err" ]; then
	ok man_renders
else
	bad man_renders "$(cat "$tmp/groff.err")"
fi
# as plain text in lines long enough never to break
groff -man -Tascii -P-cbou -rLL=2000n "$man" >"$tmp/man.txt" 2>/dev/null
"$root/bin/tuner" --help >"$tmp/help.txt" 2>&1
python3 - "$tmp/help.txt" "$tmp/man.txt" >"$tmp/py" 2>&1 <<'EOF'
import re, sys
help = open(sys.argv[1]).read().splitlines()
man = open(sys.argv[2]).read()
norm = lambda s: " ".join(s.split())
def section(name):
    m = re.search(r"^%s\n(.*?)(?=^\S|\Z)" % name, man, re.S | re.M)
    return norm(m.group(1)) if m else ""
# the option lines of --help: in each block, an option at the block's indent and the deeper
# lines under it
entries, indent = [], None
for l in help:
    ind = len(l) - len(l.lstrip())
    if not l.strip():
        indent = None
    elif l.lstrip().startswith("-") and ind > 0 and indent in (None, ind):
        indent = ind
        entries.append(l.strip())
    elif indent is not None and ind > indent:
        entries[-1] += " " + l.strip()
if not entries:
    sys.exit("no option lines in --help")
opts = section("OPTIONS")
bad = [norm(e) for e in entries if norm(e) not in opts]
names = [n for e in entries for n in re.findall(r"(?<![\w-])--?[A-Za-z][\w-]*", re.split(r"\s{2,}", e)[0])]
print("%d option lines, %d options: %s" % (len(entries), len(names), " ".join(names)))
for b in bad:
    print("not in OPTIONS: " + b)
syn = section("SYNOPSIS")
for l in help:
    u = norm(re.sub(r"^usage:", "", l))
    if (l.startswith("usage:") or (l.startswith(" ") and u.split()[:1] == ["tuner"])) and u not in syn:
        print("not in SYNOPSIS: " + u)
        bad.append(u)
sys.exit(1 if bad else 0)
EOF
if [ $? -eq 0 ]; then
	ok man_has_every_option
	head -n 1 "$tmp/py" | sed 's/^/  /'
else
	bad man_has_every_option "$(cat "$tmp/py")"
fi
# the environment: what the sources read, less the test hooks (TUNER_TEST_*) and the variable
# the tuner only sets for NVRTC (CUDA_CACHE_DISABLE)
sed -n '/^ENVIRONMENT$/,/^[A-Z]/p' "$tmp/man.txt" >"$tmp/env.txt"
miss=""
for v in $(grep -ho 'getenv("[A-Za-z0-9_]*")' tuner/*.c | sed 's/getenv("\(.*\)")/\1/' | sort -u); do
	case $v in TUNER_TEST_* | CUDA_CACHE_DISABLE) continue ;; esac
	grep -qE "^ {1,8}$v( |\$)" "$tmp/env.txt" || miss="$miss $v"
done
[ -z "$miss" ] && ok man_environment || bad man_environment "not in ENVIRONMENT:$miss"
grep -qF "$prefix/share/tuner/configs/" "$tmp/man.txt" && ok man_prefix ||
	bad man_prefix "no $prefix/share/tuner/configs/ in the man page"

# install again over the installed tree; without DESTDIR; uninstall
if DESTDIR="$tmp/dest" ninja -f "$ib/build.ninja" install >"$tmp/install.log" 2>&1 &&
	[ -z "$(find "$tmp/dest" -name '*.tmp*')" ]; then
	ok reinstall
else
	bad reinstall "$(tail -n 30 "$tmp/install.log")"
fi
if ninja -f "$ib/build.ninja" install >"$tmp/install.log" 2>&1 && "$prefix/bin/tuner" --version >/dev/null; then
	ok install_without_destdir
else
	bad install_without_destdir "$(tail -n 30 "$tmp/install.log")"
fi
rm -rf "$prefix"
if DESTDIR="$tmp/dest" ninja -f "$ib/build.ninja" uninstall >"$tmp/install.log" 2>&1 &&
	[ -z "$(find "$tmp/dest" -type f)" ] && [ ! -e "$root/share/tuner" ] && [ ! -e "$root/share/doc/tuner" ] &&
	[ ! -e "$root/lib/cmake/tuner" ]; then
	ok uninstall
else
	bad uninstall "$(tail -n 30 "$tmp/install.log"; find "$tmp/dest" -type f)"
fi
finish install
