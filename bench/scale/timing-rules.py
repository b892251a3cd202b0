#!/usr/bin/env python3
"""The table of bench/scale/timing-rules.sh: ROWS holds "kernel|warmup/samples|round|wall|
results.json" lines. For each kernel and setting: the mean wall time, the picks of the rounds,
whether each pick is the shipped setting's pick of its round or one of that run's ties, and how
far the medians of the variants that both runs timed with all their samples moved (the median
and the largest of |m / m_shipped - 1|). The shipped setting's own rows compare each round with
the round before it: how far its medians move from run to run, the floor for the others."""
import collections
import json
import statistics
import sys

SHIPPED = "3/20"


def load(path):
    with open(path) as f:
        return json.load(f)


def full(d):
    """{id: median_ms} of the variants timed with every sample their run took"""
    ok = [v for v in d["variants"] if v.get("status") == "ok" and "median_ms" in v]
    most = max((v.get("samples", 0) for v in ok), default=0)
    return {v["id"]: v["median_ms"] for v in ok if v.get("samples", 0) == most}


def main(rows_path):
    runs = collections.OrderedDict()
    with open(rows_path) as f:
        for line in f:
            k, s, r, wall, path = line.rstrip("\n").split("|")
            runs[(k, s, int(r))] = (float(wall), load(path) if path else None)
    kernels = list(collections.OrderedDict((k, 1) for k, _, _ in runs))
    settings = list(collections.OrderedDict((s, 1) for _, s, _ in runs))
    print("%-10s %-10s %7s  %-36s %-14s %s" % ("kernel", "warm/samp", "wall", "picks",
                                              "shipped's pick", "medians moved (median, max)"))
    for k in kernels:
        for s in settings:
            rs = sorted(r for kk, ss, r in runs if kk == k and ss == s)
            walls, picks, same, moved = [], [], 0, []
            for r in rs:
                wall, d = runs[(k, s, r)]
                walls.append(wall)
                # the shipped setting against its own previous round: the floor
                base = runs.get((k, SHIPPED, r - 1 if s == SHIPPED else r), (0, None))[1]
                pick = d["variants"][0]["id"] if d else "-"
                picks.append(pick)
                if not d or not base:
                    continue
                ties = {v["id"] for v in base["variants"] if v.get("tie")}
                ties.add(base["variants"][0]["id"])
                same += pick in ties
                a, b = full(d), full(base)
                moved += [abs(a[i] / b[i] - 1) for i in a if i in b and b[i] > 0]
            mv = ("%.2f %% %.2f %%" % (100 * statistics.median(moved), 100 * max(moved))
                  if moved else "-")
            n = len(rs) - (s == SHIPPED)
            print("%-10s %-10s %6.2fs  %-36s %d of %d tie    %s" % (
                k, s, sum(walls) / len(walls), " ".join(picks), same, n, mv))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write("usage: timing-rules.py ROWS\n")
        sys.exit(2)
    main(sys.argv[1])
