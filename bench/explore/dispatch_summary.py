"""The sizes between the points in tests/gpu/dispatch.sh's tables, summed up per file: how many
picks lie within 3 % of the tuner's own winner of a run at that size ("tuned %"), the worst
and the mean excess (a negative gap counts 0), by kernel; and the worst gap of a midpoint's
pick to the fastest entry there. A file of several runs (bench/data/dispatch-mid-*.txt):
each run's table from its "commit ..." line on, after the "## ..." line that names it.
Usage: python3 bench/explore/dispatch_summary.py TABLE..."""
import sys


def runs(path):
    """(label, lines) of each run in path: from a "commit ..." line to the next"""
    name, out = "", []
    for line in open(path):
        if line.startswith("## "):
            name = line[3:].strip()
        elif line.startswith("commit "):
            out.append(["%s run %d%s" % (path, len(out) + 1, " (%s)" % name if name else ""), []])
        if out:
            out[-1][1].append(line)
    return out


for f, text in (r for path in sys.argv[1:] for r in runs(path)):
    res, mids = {}, {}
    for line in text:
        p = line.split()
        if len(p) < 12 or p[2] not in ("between", "mid"):
            continue
        if p[2] == "mid":
            mids.setdefault(p[0], []).append(float(p[7]))
        elif p[8] != "-":
            res.setdefault(p[0], []).append(float(p[8]))
    gaps = [t for v in res.values() for t in v]
    if not gaps:
        print("%s: no sizes between" % f)
        continue
    print("%s: within 3 %%: %d of %d, worst %.2f %%, mean excess %.2f %% (%s)%s" % (
        f, sum(t <= 3 for t in gaps), len(gaps), max(gaps), sum(max(t, 0) for t in gaps) / len(gaps),
        ", ".join("%s %d/%d" % (k, sum(t <= 3 for t in v), len(v)) for k, v in res.items()),
        "; midpoints' worst gap: " + ", ".join("%s %.2f %%" % (k, max(v)) for k, v in mids.items())
        if mids else ""))
