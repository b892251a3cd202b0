#!/usr/bin/env python3
"""Replay the tie decision of tests/gpu/ties.sh's runs under other tie bands and rules.

usage: bench/ties/ties_rule.py TIESDIR [TUNER]
TIESDIR is what tests/gpu/ties.sh wrote (KERNEL.first.json for run 1, N/KERNEL/*/results.json
for runs 2..); TUNER (default out/bin/tuner) lists each config's variants in config order
(--dry-run), which the tie rule's last key needs. For each kernel, band (timing.tie) and rule it
prints the winners the runs would have had from their play-off medians and standard errors:
rule 'res' is the tuner's before 2026-11-26 (least shared memory, then fewest registers, then
config order), 'warps' the most resident warps a multiprocessor then as 'res', 'work' the
tuner's since (the most bytes moved by the blocks resident on a multiprocessor, then as 'res'),
'fast' takes the fastest play-off median among the ties. "slowest" is the lowest, over the
winners, of a winner's mean speed over the runs, as % of each run's fastest. The resident blocks are the results'
"resident_blocks"; results written before that field estimate them with sm_90's limits (2048
threads, 32 blocks, 64K registers in steps of 8 a thread, 228 KB of shared memory with 1 KB a
block) and the grid's share of 132 multiprocessors. The play-off's
candidates are the runs' own (chosen under the band they ran with), so a band wider than that
is not replayed.
"""
import glob
import json
import math
import os
import subprocess
import sys


RULES = ("res", "fast", "warps", "work")


def config_order(tuner, kernel):
    out = subprocess.run([tuner, "--dry-run", "configs/%s.yaml" % kernel], capture_output=True,
                         text=True, check=True).stdout
    ids = [l.split()[0] for l in out.splitlines() if l[:1] == "v" and len(l.split()) > 1]
    return {i: k for k, i in enumerate(ids)}


def resident(v):
    """v's blocks on a multiprocessor at once: its results' count, else sm_90's (see above)"""
    th = v["block"][0] * v["block"][1] * v["block"][2]
    w = (th + 31) // 32
    if "resident_blocks" in v:
        return v["resident_blocks"]
    regs = (max(v["registers"], 1) + 7) // 8 * 8
    smem = v["shared_static"] + v["shared_dynamic"]
    blocks = min(32, 2048 // th, 65536 // (32 * w * regs), 233472 // (smem + 1024))
    return min(blocks, -(-v["grid"][0] * v["grid"][1] * v["grid"][2] // 132))


def warps(v):
    return resident(v) * ((v["block"][0] * v["block"][1] * v["block"][2] + 31) // 32)


def work(v):
    return v["bytes"] * resident(v) / (v["grid"][0] * v["grid"][1] * v["grid"][2])


def pct(d, vid):
    """vid's speed in run d as % of d's fastest (play-off medians where vid took part in the
    play-off, else first medians; a twin's or collapsed variant's are those of the variant it
    shares its build with); None where d did not verify it"""
    ok = {v["id"]: v for v in d["variants"] if v["status"] == "ok"}
    same = {v["id"]: v.get("twin_of") for v in d["variants"] if v["status"] in ("twin", "collapsed")}
    vid = same.get(vid) or vid
    if vid not in ok:
        return None
    v = ok[vid]
    if "playoff" in v:
        return 100 * min(x["playoff"]["median_ms"] for x in ok.values() if "playoff" in x) / \
            v["playoff"]["median_ms"]
    return 100 * min(x["median_ms"] for x in ok.values()) / v["median_ms"]


def mean(xs):
    """the mean of the xs that are not None (0 if none is)"""
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else 0


def winner(d, order, tie, rule):
    po = [v for v in d["variants"] if v["status"] == "ok" and "playoff" in v]
    if not po:
        return d["variants"][0]["id"]
    f = min(po, key=lambda v: v["playoff"]["median_ms"])
    mf, hf = f["playoff"]["median_ms"], f["playoff"]["se_ms"]
    ties = [v for v in po if v["playoff"]["median_ms"] - mf <=
            max(2 * math.hypot(v["playoff"]["se_ms"], hf), tie * mf)]
    res = lambda v: (v["shared_static"] + v["shared_dynamic"], v["registers"],
                     order.get(v["id"], len(order)))
    if rule == "warps":
        key = lambda v: (-warps(v),) + res(v)
    elif rule == "work":
        key = lambda v: (-work(v),) + res(v)
    elif rule == "res":
        key = res
    else:
        key = lambda v: v["playoff"]["median_ms"]
    return min(ties, key=key)["id"]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    top, tuner = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "out/bin/tuner"
    for first in sorted(glob.glob(os.path.join(top, "*.first.json"))):
        k = os.path.basename(first)[:-len(".first.json")]
        runs = [first] + sorted(glob.glob(os.path.join(top, "[0-9]*", k, "*", "results.json")))
        runs = [json.load(open(f)) for f in runs if not f.startswith(os.path.join(top, "1", ""))]
        order = config_order(tuner, k)
        for tie in (0.003, 0.005, 0.01):
            for rule in RULES:
                w = [winner(d, order, tie, rule) for d in runs]
                slow = min(mean(pct(d, i) for d in runs) for i in w)
                print("%-10s tie %.3f %-4s %-6s %s  (slowest: %.1f %%)" % (k, tie, rule,
                      "same" if len(set(w)) == 1 else "DIFFER", " ".join(w), slow))


if __name__ == "__main__":
    main()
