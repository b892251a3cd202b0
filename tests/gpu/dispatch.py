"""tests/gpu/dispatch.sh's table, from the harness's lines (tests/gpu/dispatch.cu).
dispatch.py winners GPUDIR: "LABEL ID" per point of a run tuned at several points.
dispatch.py midpoints GPUDIR: the sizes of its midpoints, one a line.
dispatch.py table TABLE KERNEL TIMES AGREE: the rows of one kernel, printed and appended to
TABLE; exits 1 on any FAIL. AGREE: "LABEL RUN ID" per point and run (DISPATCH_RUNS). TIMES: the
harness's output, or several (comma-separated: one harness binary run in several processes,
DISPATCH_PROCS), each candidate's time then the median of its processes' medians (a process can
settle a kernel's speed: docs/benchmarks.md), its check the first that is not ok.
The verdicts follow the graph-replayed (in the L2) or flushed timings; "held %" is the pick's
gap to the fastest entry timed as the tuner times (held), beside them, and the runs' line
gives the held spread too."""
import json
import statistics
import sys

if sys.argv[1] == "winners":
    for p in json.load(open(sys.argv[2] + "/results.json"))["points"]:
        print(p["dir"], p["winner"])
    sys.exit(0)
if sys.argv[1] == "midpoints":  # each midpoint's sizes, as the harness takes them (ROWSxCOLS)
    for p in json.load(open(sys.argv[2] + "/results.json")).get("midpoints", []):
        print("x".join(str(v) for v in p["sizes"].values()))
    sys.exit(0)

table, kernel, times, agree = sys.argv[2:6]
rows, held, kinds, lines, fail = {}, {}, {}, [], False
seen = {}  # (label, name, mode) -> its row, its medians in every process
for path in times.split(","):
    for line in open(path):
        f = line.split()
        if len(f) == 10 and f[0] == "time":
            kind, label, name, vid, med, _, mode, check, pick = f[1:]
            kinds[label] = kind
            key = (label, name, mode)
            if key not in seen:
                seen[key] = (dict(name=name, id=vid, us=0.0, mode=mode, check=check, pick=pick == "pick"), [])
                (held if mode == "held" else rows).setdefault(label, []).append(seen[key][0])
            r, us = seen[key]
            us.append(float(med))
            if r["check"] == "ok":
                r["check"] = check
for r, us in seen.values():
    r["us"] = statistics.median(us)
if not rows:
    lines.append("%-9s no timings (see %s and the harness's errors beside it): FAIL" % (kernel, times))
    fail = True
for label, rs in rows.items():
    pick = [r for r in rs if r["pick"]]
    ours = [r for r in rs if r["name"] != "cub"]
    bad = [r["name"] + " " + r["check"] for r in ours if r["check"] != "ok"]
    if not pick:
        lines.append("%-9s %-22s no pick: FAIL" % (kernel, label))
        fail = True
        continue
    p = pick[0]
    cands = [r for r in rs if r["name"].startswith("entry") or r["name"] == "pick"]
    fast = min(cands, key=lambda r: r["us"])
    gap = 100 * (p["us"] / fast["us"] - 1)
    tuned = [r for r in rs if r["name"] == "tuned"]
    tgap = 100 * (p["us"] / tuned[0]["us"] - 1) if tuned else None
    cub = [r for r in rs if r["name"] == "cub"]
    hc = [r for r in held.get(label, []) if r["name"].startswith("entry") or r["name"] == "pick"]
    hp = [r for r in hc if r["pick"]]
    hgap = 100 * (hp[0]["us"] / min(r["us"] for r in hc) - 1) if hp else None
    kind = kinds[label]
    ok = not bad and (kind not in "pm" or gap <= 1.0) and (kind != "b" or (tgap is not None and tgap <= 3.0))
    fail |= not ok
    lines.append("%-9s %-22s %-7s %-7s %-9s %8.2f  %-9s %6.2f %7s %6s %6s  %s" % (
        kernel, label, {"p": "point", "m": "mid", "b": "between", "c": "-"}[kind], p["mode"], p["id"],
        p["us"], fast["id"], gap, "%.2f" % tgap if tgap is not None else "-",
        "%.2f" % hgap if hgap is not None else "-",
        "%.3f" % (cub[0]["us"] / p["us"]) if cub else "-",
        ("PASS" if ok else "FAIL") + (" (" + ", ".join(bad) + ")" if bad else "")))
# DISPATCH_ALONE: each entry as the application's bundle builds it against the same variant
# built alone (dispatch_one.cu over its point's best.cu, as the tuner compiled it); no verdict
for label, rs in rows.items():
    for a in sorted((r for r in rs if r["name"].startswith("alone")), key=lambda r: r["id"]):
        e = [r for r in rs if r["name"].startswith("entry") and r["id"] == a["id"]]
        if e:
            lines.append("%-9s %-22s build: %s in the bundle %.2f us, alone %.2f us (bundle %+.2f %%)" % (
                kernel, label, a["id"], e[0]["us"], a["us"], 100 * (e[0]["us"] / a["us"] - 1)))
# DISPATCH_RUNS: each run's winner at each point, timed at that point, within 1 % of each other
won = {}
for line in open(agree):
    label, run, vid = line.split()
    won.setdefault(label, []).append((run, vid))
for label, ws in won.items():
    if len(ws) < 2:
        continue
    # a run's winner as that run built it (runR, dispatch_one.cu) where the harness has it,
    # else as the bundle's entry of that variant: the same variant has timed 7 % apart in the
    # two builds (filter21 at 2^16, bc990f1)
    def timed(rs, run, vid):
        t = sorted((r["name"] != "run" + run, r["us"]) for r in rs
                   if r["id"] == vid and r["name"] != "cub" and not r["name"].startswith("alone"))
        return [t[0][1]] if t else []
    us = {}
    for run, vid in ws:
        t = timed(rows.get(label, []), run, vid)
        us[run] = (vid, t[0] if t else None)
    ts = [t for _, t in us.values() if t]
    spread = 100 * (max(ts) / min(ts) - 1) if len(ts) == len(us) else None
    hs = [timed(held.get(label, []), run, v) for run, (v, _) in us.items()]
    hspread = 100 * (max(hs)[0] / min(hs)[0] - 1) if all(hs) and hs else None
    ok = spread is not None and spread <= 1.0
    fail |= not ok
    lines.append("%-9s %-22s runs: %s; spread %s %%%s: %s" % (
        kernel, label, ", ".join("%s %s %s" % (r, v, "%.2f us" % t if t else "untimed")
                                 for r, (v, t) in sorted(us.items())),
        "%.2f" % spread if spread is not None else "-",
        " (held %.2f %%)" % hspread if hspread is not None else "", "PASS" if ok else "FAIL"))
head = "%-9s %-22s %-7s %-7s %-9s %8s  %-9s %6s %7s %6s %6s  %s" % (
    "kernel", "size", "at", "timing", "pick", "pick us", "fastest", "gap %", "tuned %", "held %",
    "xCUB", "verdict")
with open(table, "a") as t:
    for s in [head] + lines:
        print(s)
        t.write(s + "\n")
sys.exit(1 if fail else 0)
