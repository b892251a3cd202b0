#!/bin/sh
# scripts/slurm-tune on a real Slurm: starts a single-node cluster of its own on this machine
# (munged, slurmctld and slurmd with a configuration, key, ports, state and logs in a temporary
# directory; no cgroups needed), submits a two-shard compile-only run of a small transpose
# config with `scripts/slurm-tune --wait`, and checks that the merged results are those of an
# unsharded run: the same variants in the same order, statuses and resource figures, the same
# results.csv, config.yaml and template.cu; each shard holds its share of the kept variants
# (position p in config order goes to shard p % 2 + 1). Also: slurm-tune's usage errors, and a
# run whose shards fail ends --wait with a failure instead of leaving the merge job pending.
# Needs the Debian packages slurm-wlm and munge; without them, or with TUNER_NO_SLURM=1, the
# suite is skipped (said so, and counted). The daemons and jobs run as the user running it. Every daemon it
# starts is stopped on exit; waits are bounded (TUNER_SLURM_SECONDS, default 150, for the
# whole suite).
# usage: tests/slurm.sh [TUNER]   (default: $TUNER_BINDIR/tuner, else out/bin/tuner)
# Ends with "slurm: N passed, N failed" (", 1 skipped" when skipped); exits non-zero on any
# failure.
set -u
cd "$(dirname "$0")/.." || exit 2
T=${1:-${TUNER_BINDIR:-out/bin}/tuner}
case $T in /*) ;; *) T=$PWD/$T ;; esac
limit=${TUNER_SLURM_SECONDS:-150}
. tests/lib.sh
t0=$(date +%s)
left() { echo $((limit - ($(date +%s) - t0))); } # seconds left of the suite's limit

if [ "${TUNER_NO_SLURM:-}" = 1 ]; then
	skip slurm "TUNER_NO_SLURM=1 (scripts/slurm-tune is not tested against a real Slurm)"
	finish slurm
fi
PATH=$PATH:/usr/sbin:/sbin
missing=""
for b in munged munge slurmctld slurmd sbatch sinfo squeue scontrol scancel python3; do
	command -v $b >/dev/null 2>&1 || missing="$missing $b"
done
if [ -n "$missing" ]; then
	skip slurm "not found:$missing: scripts/slurm-tune is not tested against a real Slurm (apt-get install slurm-wlm munge, or scripts/setup --full)"
	finish slurm
fi

tmpdir slurm
chmod 700 "$tmp"
pids="" sp=""
cleanup() {
	[ -n "$sp" ] && kill "$sp" 2>/dev/null # a slurm-tune --wait
	if [ -n "$pids" ]; then
		# the jobs first (their processes belong to slurmstepd, not to us), then the daemons
		# shellcheck disable=SC2046
		scancel --quiet --full $(squeue -h -o %i 2>/dev/null) 2>/dev/null
		i=0
		while [ -n "$(squeue -h -o %i 2>/dev/null)" ] && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
		for p in $pids; do kill -TERM "$p" 2>/dev/null; done
		i=0
		while [ $i -lt 50 ]; do
			alive=""
			for p in $pids; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
			[ -z "$alive" ] && break
			sleep 0.1
			i=$((i + 1))
		done
		for p in $alive; do kill -KILL "$p" 2>/dev/null; done
		wait 2>/dev/null
	fi
	rmtmp
}
trap cleanup EXIT
# the daemons' logs, for a failure's message
logs() { for f in "$tmp"/log/*.log; do echo "--- $f" && tail -n 8 "$f"; done; }

# Slurm and sbatch read SBATCH_*/SLURM_* settings from the environment: none of the caller's
for v in $(env | sed -n 's/^\(S\(LURM\|BATCH\|QUEUE\|INFO\|ALLOC\|RUN\)_[A-Za-z0-9_]*\)=.*/\1/p'); do
	unset "$v"
done

# a cluster of one node: this machine, as slurmd -C describes it, on ports of its own
host=$(uname -n | cut -d. -f1)
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/log" "$tmp/munge" "$tmp/run"
hw=$(slurmd -C 2>/dev/null | sed -n 's/^NodeName=[^ ]* //p' | head -n 1)
[ -n "$hw" ] || hw="CPUs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)"
# two free ports in a row: slurmctld's and slurmd's
port=$(python3 -c '
import random, socket
for _ in range(200):
    p = random.randrange(20000, 60000)
    try:
        for q in (p, p + 1):
            s = socket.socket()
            s.bind(("", q))
            s.close()
    except OSError:
        continue
    print(p)
    break
')
[ -n "$port" ] || { bad slurm_ports "no two free ports in a row"; end; }
export SLURM_CONF="$tmp/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=tunertest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
KillWait=2
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 NodeHostname=$host $hw State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
# slurmd 22.05 initializes its cgroup plugin even when no plugin uses cgroups, and fails where
# none are mounted (containers): point it at an empty tree of its own
mkdir -p "$tmp/cgroup/systemd"
printf 'CgroupPlugin=cgroup/v1\nCgroupMountpoint=%s\n' "$tmp/cgroup" >"$tmp/cgroup.conf"

# munged with a key of its own, on a socket of its own
dd if=/dev/urandom of="$tmp/munge/key" bs=1024 count=1 2>/dev/null
chmod 400 "$tmp/munge/key"
chmod 755 "$tmp/munge"
munged -F --force --socket="$tmp/munge/sock" --key-file="$tmp/munge/key" \
	--pid-file="$tmp/munge/pid" --seed-file="$tmp/munge/seed" --log-file="$tmp/log/munged.log" \
	>>"$tmp/log/munged.log" 2>&1 &
pids="$pids $!"
# wait FOR SECONDS CMD...: run CMD every 0.2 s until it succeeds (0) or SECONDS pass (1)
wait_for() {
	n=$(($1 * 5))
	shift
	while [ "$n" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
		n=$((n - 1))
	done
	return 1
}
munge_ok() { munge -n -S "$tmp/munge/sock" | unmunge -S "$tmp/munge/sock"; }
if ! wait_for 15 munge_ok; then
	bad slurm_munged "munged did not answer on $tmp/munge/sock within 15 s
$(logs)"
	finish slurm
fi
slurmctld -D -c -f "$SLURM_CONF" >>"$tmp/log/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -N "$host" -f "$SLURM_CONF" >>"$tmp/log/slurmd.out" 2>&1 &
pids="$pids $!"
idle() { [ "$(sinfo -h -N -n "$host" -o %T 2>/dev/null)" = idle ]; }
t1=$(date +%s)
if wait_for 40 idle; then
	ok "slurm_node_idle ($host, $(($(date +%s) - t1)) s)"
else
	bad slurm_node_idle "node $host not idle within 40 s: $(sinfo -N -o '%N %T %E' 2>&1 | tail -n 1)
$(scontrol show node "$host" 2>&1 | grep -i reason)
$(logs)"
	finish slurm
fi

# a small config: ~20 kept variants of transpose (and dropped ones, by both of its constraints)
cfg=$tmp/small.yaml
sed -e "s|\.\./templates/|$PWD/templates/|" -e '/^params:/,/^$/c\
params:\
  TILE: [32]\
  TH: [32]\
  VEC: [1, 4]\
  ROWS: [8]\
  PAD: [0, 1]\
  SWIZZLE: [0, 1]\
  GROUP: [1, 8]\
  BANK_BYTES: [4, 8]\
' configs/transpose.yaml >"$cfg"
"$T" --dry-run "$cfg" >"$tmp/dry" 2>&1 || { bad small_config "$(cat "$tmp/dry")"; end; }
kept=$(awk '$NF == "kept" { print $1 }' "$tmp/dry")
echo "small config: $(tail -n 1 "$tmp/dry")"

# usage errors: exit 2 and a message, nothing submitted
st=scripts/slurm-tune
uerr() { # NAME PATTERN ARGS...
	name=$1 pat=$2
	shift 2
	"$@" >"$tmp/u.out" 2>"$tmp/u.err"
	s=$?
	if [ $s -eq 2 ] && grep -q -- "$pat" "$tmp/u.err"; then ok "$name"; else bad "$name" "exit $s: $(cat "$tmp/u.err")"; fi
}
mkdir "$tmp/empty"
uerr tune_no_sbatch "sbatch not found" env PATH="$tmp/empty" /bin/sh $st --tuner "$T" "$cfg"
uerr tune_bad_shards "is not a positive number" $st --shards 0 --tuner "$T" "$cfg"
uerr tune_bad_shards_word "is not a positive number" $st --shards two --tuner "$T" "$cfg"
uerr tune_missing_config "nope.yaml: no such config" $st --tuner "$T" "$tmp/nope.yaml"
uerr tune_no_config "usage:" $st --tuner "$T"
uerr tune_no_tuner "no tuner there" $st --tuner "$tmp/none" "$cfg"
uerr tune_own_out "slurm-tune sets --shard and --out" $st --tuner "$T" "$cfg" --out x
# a path with a newline would end the job script's comment line naming it, and run the rest
nl="$tmp/a
touch $tmp/pwned
#"
mkdir -p "$nl" && cp "$cfg" "$nl/c.yaml"
uerr tune_newline_config "the config's path: a control character" $st --tuner "$T" "$nl/c.yaml"
uerr tune_newline_out "the output directory: a control character" $st --tuner "$T" --out "$nl/o" "$cfg"
[ -z "$(squeue -h -o %i)" ] && ok "usage_errors_submit_nothing" || bad usage_errors_submit_nothing "$(squeue)"

export TUNER_SLURM_POLL=1 # --wait polls every second at most
# waited for: slurm-tune's exit status, within the time left
run_wait() { # LOG ARGS...: scripts/slurm-tune --wait ARGS, killed when the suite's time is up
	log=$1
	shift
	$st --wait "$@" >"$log" 2>&1 &
	sp=$!
	n=$(($(left) * 5))
	while kill -0 $sp 2>/dev/null && [ $n -gt 0 ]; do sleep 0.2; n=$((n - 1)); done
	if kill -0 $sp 2>/dev/null; then
		kill $sp 2>/dev/null
		wait $sp 2>/dev/null
		sp=""
		echo "(killed: the suite's $limit s were up)" >>"$log"
		return 124
	fi
	wait $sp
	set -- $?
	sp=""
	return "$1"
}

# shards that fail (an option the tuner refuses): --wait ends, with a failure, and the merge
# job does not stay pending
t1=$(date +%s)
run_wait "$tmp/fail.log" --shards 2 --tuner "$T" --out "$tmp/fail" "$cfg" --arch sm_90 --frobnicate
s=$?
if [ $s -eq 1 ] && grep -q "ended CANCELLED" "$tmp/fail.log" && grep -q "^shard 2: FAILED" "$tmp/fail.log" &&
	grep -q "tuner: unknown option '--" "$tmp/fail.log"; then
	ok "failed_shards_end_wait ($(($(date +%s) - t1)) s)"
else
	bad failed_shards_end_wait "exit $s: $(cat "$tmp/fail.log")
$(squeue 2>&1)"
fi

# the real thing: two shards, compile-only, merged; and the same config unsharded
export TUNER_CACHE="$tmp/cache-sharded"
out=$tmp/sharded
t1=$(date +%s)
run_wait "$tmp/tune.log" --shards 2 --tuner "$T" --out "$out" "$cfg" --arch sm_90 -j 1
s=$?
dir=$out/transpose/untimed-sm_90
if [ $s -eq 0 ] && [ -f "$dir/results.json" ]; then
	ok "sharded_run ($(($(date +%s) - t1)) s)"
else
	bad sharded_run "exit $s: $(cat "$tmp/tune.log")"
fi
grep -q "^shards: job [0-9]" "$tmp/tune.log" && grep -q "^merge:  job [0-9]" "$tmp/tune.log" &&
	ok "tune_says_jobs" || bad tune_says_jobs "$(cat "$tmp/tune.log")"
export TUNER_CACHE="$tmp/cache-whole"
"$T" -j 2 --arch sm_90 --out "$tmp/whole" "$cfg" >"$tmp/whole.log" 2>&1 ||
	bad unsharded_run "$(cat "$tmp/whole.log")"
ref=$tmp/whole/transpose/untimed-sm_90

# the merge equals the unsharded run; each shard holds exactly its share
if [ ! -f "$dir/results.json" ]; then
	bad merged_results "no $dir/results.json: nothing to compare"
	finish slurm
fi
for f in results.csv config.yaml template.cu; do
	if cmp -s "$ref/$f" "$dir/$f"; then ok "merged_$f"; else bad "merged_$f" "$(diff "$ref/$f" "$dir/$f" 2>&1 | head -n 10)"; fi
done
echo "$kept" >"$tmp/kept"
if python3 - "$ref/results.json" "$dir/results.json" "$dir" "$tmp/kept" >"$tmp/cmp" 2>&1 <<'EOF'; then
import json, os, sys
whole, merged = (json.load(open(p)) for p in sys.argv[1:3])
bad = []
for k in ("kernel", "config", "sources", "arch", "timed", "sizes", "nvrtc"):
    if whole.get(k) != merged.get(k):
        bad.append("%s: %r vs %r" % (k, whole.get(k), merged.get(k)))
wi = [v["id"] for v in whole["variants"]]
mi = [v["id"] for v in merged["variants"]]
if wi != mi:
    bad.append("variants: %d vs %d, %d in common, %s" % (len(wi), len(mi), len(set(wi) & set(mi)),
               "same set, another order" if sorted(wi) == sorted(mi) else "different sets"))
m = {v["id"]: v for v in merged["variants"]}
for w in whole["variants"]:
    v = m.get(w["id"])
    if v is None:
        continue
    for k in ("status", "reason", "params", "block", "grid", "shared_dynamic", "shared_static",
              "registers", "spill_stores", "spill_loads", "stack", "bank_bytes", "bytes", "bank"):
        if w.get(k) != v.get(k):
            bad.append("%s %s: %r vs %r" % (w["id"], k, w.get(k), v.get(k)))
n = sum(v["status"] == "untimed" for v in whole["variants"])
if n == 0 or n != sum(v["status"] != "dropped" for v in whole["variants"]):
    bad.append("unsharded run: %d untimed, want every kept variant" % n)
# shard K of 2 compiled the kept variants at positions p (config order) with p % 2 + 1 == K
kept = open(sys.argv[4]).read().split()
for K in (1, 2):
    d = os.path.join(sys.argv[3], "shard-%d-of-2" % K)
    for f in ("results.json", "results.csv", "config.yaml", "template.cu"):
        if not os.path.isfile(os.path.join(d, f)):
            bad.append("no %s/%s" % (os.path.basename(d), f))
    try:
        s = json.load(open(os.path.join(d, "results.json")))
    except (OSError, ValueError) as e:
        bad.append("shard %d: %s" % (K, e))
        continue
    got = sorted(v["id"] for v in s["variants"] if v["status"] == "untimed")
    want = sorted(i for p, i in enumerate(kept) if p % 2 + 1 == K)
    if got != want:
        bad.append("shard %d compiled %d variants, want %d: %s" % (K, len(got), len(want),
                   sorted(set(got) ^ set(want))[:4]))
print("%d variants (%d kept), %s" % (len(wi), len(kept), "the same" if not bad else "DIFFER"))
for b in bad[:12]:
    print("  " + b)
sys.exit(1 if bad else 0)
EOF
	ok "merged_equals_unsharded: $(head -n 1 "$tmp/cmp")"
else
	bad merged_equals_unsharded "$(cat "$tmp/cmp")"
fi

schema_all results_schema_slurm
echo "slurm suite: $(($(date +%s) - t0)) s"
finish slurm
