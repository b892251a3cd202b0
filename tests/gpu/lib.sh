# Shared by the GPU scripts (sourced from the repository root): build the tuner, print what ran.
# TUNER_YAML_PREFIX, TUNER_JANSSON_PREFIX: libyaml and jansson outside the system, if needed;
# TUNER_COMMIT: the commit to print where the tree has no .git.

# configure (quietly) and build out/bin/tuner
gpu_build() {
	./configure.py ${TUNER_YAML_PREFIX:+--yaml-prefix "$TUNER_YAML_PREFIX"} \
		${TUNER_JANSSON_PREFIX:+--jansson-prefix "$TUNER_JANSSON_PREFIX"} >/dev/null
	ninja out/bin/tuner >/dev/null
}

# gpu_header FIELDS: the commit and time, then nvidia-smi's FIELDS (a --query-gpu list)
gpu_header() {
	c=${TUNER_COMMIT:-}
	if [ -z "$c" ]; then # a tree whose files differ from its .git's HEAD says so
		c=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
		n=$(git status --porcelain --untracked-files=no 2>/dev/null | wc -l)
		[ "$n" -gt 0 ] && c="$c + $n changed files"
	fi
	echo "commit $c, $(date -u +%Y-%m-%dT%H:%MZ)"
	nvidia-smi --query-gpu="$1" --format=csv,noheader || true
}

# gpu_budget CFG: the tuner options that tune a space of more than 2000 variants on a random
# 300 of them (as tests/run.sh compiles them), nothing for a smaller one
gpu_budget() {
	kept=$(out/bin/tuner --dry-run "$1" 2>/dev/null | sed -n 's/^[0-9]* variants: \([0-9]*\) kept.*/\1/p')
	[ "${kept:-0}" -gt 2000 ] && echo "--budget 300 --strategy random"
	true
}

# until no process holds a GPU (at most 20 s): the GPU workers of the run before end after it
# (the tuner does not wait for their contexts' teardown), and a run that starts meanwhile waits
# for the driver; each run is timed from an idle GPU
gpu_idle() {
	gi=0
	while [ $gi -lt 100 ] &&
		[ -n "$(nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null)" ]; do
		sleep 0.2
		gi=$((gi + 1))
	done
}

