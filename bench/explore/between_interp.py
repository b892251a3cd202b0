"""What a rule that interpolates would have picked between the points: for each size between
two tuned points in a tests/gpu/dispatch.cu output, every bundle entry timed at both points and
there, its time predicted linearly in the size (the kernel's work) from its times at the two
points, and the entry predicted fastest, against the pick the bundle made; both as % slower
than the tuner's own winner of a run at that size ("tuned"). Times are the harness's, so this
asks whether the rule would pick well given good times at the points, not the tuner's.
usage: python3 bench/explore/between_interp.py HARNESS_TIMES [graph|held]
(HARNESS_TIMES: the "time ..." lines of one kernel, e.g. from bench/data/dispatch-h200-*.txt)"""
import collections
import re
import sys


def size(label):
    v = 1
    for x in re.findall(r"=(\d+)", label):
        v *= int(x)
    return v


mode = sys.argv[2] if len(sys.argv) > 2 else "graph"
t, kinds, pick, tuned = collections.defaultdict(dict), {}, {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) != 10 or f[0] != "time" or f[3] == "cub" or f[3].startswith("run"):
        continue
    if f[7] not in (mode, "flushed"):
        continue
    t[f[2]][f[4]] = float(f[5])
    kinds[f[2]] = f[1]
    if f[9] == "pick":
        pick[f[2]] = f[4]
    if f[3] == "tuned":
        tuned[f[2]] = float(f[5])
pts = sorted((k for k in t if kinds[k] == "p"), key=size)
for b in sorted((k for k in t if kinds[k] == "b"), key=size):
    s = size(b)
    lo = max((p for p in pts if size(p) < s), key=size)
    hi = min((p for p in pts if size(p) > s), key=size)
    fr = (s - size(lo)) / (size(hi) - size(lo))
    pred = {v: t[lo][v] + fr * (t[hi][v] - t[lo][v]) for v in t[lo] if v in t[hi] and v in t[b]}
    pv = min(pred, key=pred.get)
    ref = tuned.get(b, min(t[b].values()))
    print("%-22s interpolated %s %6.2f %%   picked %s %6.2f %%" % (
        b, pv, 100 * (t[b][pv] / ref - 1), pick[b], 100 * (t[b][pick[b]] / ref - 1)))
