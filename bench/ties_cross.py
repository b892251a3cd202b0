#!/usr/bin/env python3
"""How each run's winner on one GPU runs on another: tests/gpu/ties.sh's runs on both.

usage: bench/ties_cross.py FROM_DIR TO_DIR
FROM_DIR and TO_DIR are what tests/gpu/ties.sh wrote on two GPUs (KERNEL.first.json for run 1,
N/KERNEL/*/results.json for runs 2..). For each kernel and each run on FROM's GPU it prints the
winner and, for each run on TO's GPU, the winner's speed there as % of that run's fastest (by
play-off median where both took part in the play-off, else by first median); "-" where that
run did not verify it.
"""
import glob
import json
import os
import sys


def runs(top, k):
    first = os.path.join(top, k + ".first.json")
    rest = sorted(glob.glob(os.path.join(top, "[0-9]*", k, "*", "results.json")))
    rest = [f for f in rest if not f.startswith(os.path.join(top, "1", ""))]
    return [json.load(open(f)) for f in ([first] if os.path.exists(first) else []) + rest]


def pct(d, vid):
    """vid's speed in run d as % of d's fastest"""
    ok = {v["id"]: v for v in d["variants"] if v["status"] == "ok"}
    if vid not in ok:
        return None
    v = ok[vid]
    po = [x for x in ok.values() if "playoff" in x]
    if "playoff" in v:
        return 100 * min(x["playoff"]["median_ms"] for x in po) / v["playoff"]["median_ms"]
    return 100 * min(x["median_ms"] for x in ok.values()) / v["median_ms"]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, dst = sys.argv[1:]
    for first in sorted(glob.glob(os.path.join(src, "*.first.json"))):
        k = os.path.basename(first)[:-len(".first.json")]
        there = runs(dst, k)
        if not there:
            continue
        for n, d in enumerate(runs(src, k), 1):
            w = d["variants"][0]["id"]
            p = [pct(t, w) for t in there]
            print("%-10s run %d  %-10s on %s: %s" % (k, n, w, there[0]["gpu"], " ".join(
                "-" if x is None else "%.1f" % x for x in p)))


if __name__ == "__main__":
    main()
