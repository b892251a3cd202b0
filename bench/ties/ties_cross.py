#!/usr/bin/env python3
"""How each run's winner on one GPU runs on another: tests/gpu/ties.sh's runs on both.

usage: bench/ties/ties_cross.py [--rules | --ties] FROM_DIR TO_DIR [TUNER]
FROM_DIR and TO_DIR are what tests/gpu/ties.sh wrote on two GPUs (KERNEL.first.json for run 1,
N/KERNEL/*/results.json for runs 2..). For each kernel and each run on FROM's GPU it prints the
winner and, for each run on TO's GPU, the winner's speed there as % of that run's fastest (by
play-off median where both took part in the play-off, else by first median); "-" where that
run did not verify it. With --rules, instead, for each tie rule of bench/ties/ties_rule.py (at
bands of 0.5 and 1 %) the winners FROM's runs would have had, whether they are the same, and the lowest of
their mean speeds over TO's runs (TUNER: as for bench/ties/ties_rule.py). With --ties, every variant
that tied in one of FROM's runs: in how many, its resident warps and work (KB moved by the blocks
resident on a multiprocessor) and shared memory there, and its speed on each of TO's runs.
"""
import glob
import json
import os
import sys

import ties_rule


def runs(top, k):
    first = os.path.join(top, k + ".first.json")
    rest = sorted(glob.glob(os.path.join(top, "[0-9]*", k, "*", "results.json")))
    rest = [f for f in rest if not f.startswith(os.path.join(top, "1", ""))]
    return [json.load(open(f)) for f in ([first] if os.path.exists(first) else []) + rest]


pct = ties_rule.pct


def main():
    args = sys.argv[1:]
    mode = args[0] if args[:1] in (["--rules"], ["--ties"]) else ""
    rules = mode == "--rules"
    args = args[1:] if mode else args
    if len(args) not in (2, 3):
        sys.exit(__doc__)
    src, dst = args[:2]
    for first in sorted(glob.glob(os.path.join(src, "*.first.json"))):
        k = os.path.basename(first)[:-len(".first.json")]
        there = runs(dst, k)
        if not there:
            continue
        if mode == "--ties":
            seen = {}
            for d in runs(src, k):
                for v in d["variants"]:
                    if v.get("tie"):
                        seen.setdefault(v["id"], [0, v])[0] += 1
            for i, (n, v) in sorted(seen.items(), key=lambda x: -x[1][0]):
                print("%-10s %s tied in %d  warps %3d  work %6.0f KB  smem %5d  on %s: %s" % (
                    k, i, n, ties_rule.warps(v), ties_rule.work(v) / 1024,
                    v["shared_static"] + v["shared_dynamic"], there[0]["gpu"],
                    " ".join("-" if x is None else "%.1f" % x for x in (pct(t, i) for t in there))))
            continue
        if rules:
            order = ties_rule.config_order(args[2] if len(args) > 2 else "out/bin/tuner", k)
            for tie in (0.005, 0.01):
                for rule in ties_rule.RULES:
                    w = [ties_rule.winner(d, order, tie, rule) for d in runs(src, k)]
                    on = [ties_rule.mean(pct(t, i) for t in there) for i in w]
                    print("%-10s %.3f %-5s %-6s lowest mean on %s %.1f  %s" % (
                        k, tie, rule, "same" if len(set(w)) == 1 else "DIFFER", there[0]["gpu"],
                        min(on), " ".join(sorted(set(w)))))
            continue
        for n, d in enumerate(runs(src, k), 1):
            w = d["variants"][0]["id"]
            p = [pct(t, w) for t in there]
            print("%-10s run %d  %-10s on %s: %s" % (k, n, w, there[0]["gpu"], " ".join(
                "-" if x is None else "%.1f" % x for x in p)))


if __name__ == "__main__":
    main()
