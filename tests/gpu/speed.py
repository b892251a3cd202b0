#!/usr/bin/env python3
"""The tables of tests/gpu/speed.sh, from the runs' wall times and results.json files.

  speed.py table ROWS        one row per line of ROWS: LABEL|WALL_S|RESULTS.json|TARGET_S
                             (TARGET_S: "-" for none); the run's phases from search.phases
  speed.py ratio NDEV ONE_WALL ONE.json ALL_WALL ALL.json
                             --devices all (NDEV GPUs) against one GPU
  speed.py agree K=RESULTS.json ...
                             independent runs of each kernel K: do they pick the same
                             kernel, is each pick within 0.5 % of its run's fastest

Exit status 0 (a run's shortfalls are in the tables), 2 on bad arguments or a results.json
that cannot be read.
"""
import collections
import json
import sys

# the columns of the phase table: (heading, kind, phase names summed)
COLUMNS = [
    ("load", "serial", ("load", "expand")),
    ("driver", "serial", ("driver",)),
    ("bank", "serial", ("bank model", "bank model: the guided start's sample")),
    ("stream", "serial", ("stream",)),
    ("finish", "serial", ("summary", "ranking", "table")),
    ("write", "serial", None),  # every file written: the serial phases after the table
    ("ref", "span", ("reference compile",)),
    ("compile", "span", ("compiling",)),
    ("start-up", "span", ("compiler start-up",)),
    ("timing", "span", ("timing",)),
    ("buffers", "span", ("GPU buffers",)),
    ("setup", "span", ("GPU helpers and reference",)),
    ("roofs", "span", ("rooflines",)),
    ("play-off", "span", ("play-off",)),
    ("bank+", "span", ("bank model beside the stream",)),
    ("verify", "total", ("verify",)),
    ("extra", "total", ("extra-size verification",)),
    ("samples", "total", ("timing samples",)),
]
NOT_WRITES = {"load", "driver", "expand", "bank model", "bank model: the guided start's sample",
              "reference compile", "stream", "summary", "ranking", "table"}
# "reference compile": serial before 5d094a8
TIE = 0.005  # the agreement's "within 0.5 % of the run's fastest"


def die(msg):
    print("speed.py: " + msg, file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        die("%s: %s" % (path, e))


def phase_sums(d):
    """{heading: seconds} of search.phases, None where the run had no such phase"""
    ph = d.get("search", {}).get("phases", [])
    out = {}
    for head, kind, names in COLUMNS:
        hit = [p["s"] for p in ph if p["kind"] == kind and
               (p["name"] in names if names else p["name"] not in NOT_WRITES)]
        out[head] = sum(hit) if hit else None
    return out


def ok_variants(d):
    return [v for v in d.get("variants", []) if v.get("status") == "ok"]


def raced(d):
    """how many verified variants got fewer samples than the most any got"""
    ok = ok_variants(d)
    most = max((v.get("samples", 0) for v in ok), default=0)
    return sum(1 for v in ok if v.get("samples", 0) < most)


def table(rows_file):
    rows = []
    with open(rows_file) as f:
        for line in f:
            if line.strip():
                label, wall, path, target = line.rstrip("\n").split("|")
                rows.append((label, float(wall), path, target))
    width = max([len(r[0]) for r in rows] + [3])
    heads = ["wall", "target", "run_s", "rest"] + [c[0] for c in COLUMNS] + ["timed", "raced"]
    print("%-*s %s  winner (%% of copy)" % (width, "run", " ".join("%8s" % h for h in heads)))
    for label, wall, path, target in rows:
        d = load(path) if path != "-" else {}
        s = d.get("search", {})
        ph = phase_sums(d)
        run_s = s.get("run_s")
        met = "-" if target == "-" else ("%.1f %s" % (float(target),
                                               "ok" if wall <= float(target) else "NO"))
        cells = ["%.2f" % wall, met, "%.2f" % run_s if run_s is not None else "-",
                 "%.2f" % (wall - run_s) if run_s is not None else "-"]
        cells += ["%.2f" % ph[c[0]] if ph[c[0]] is not None else "-" for c in COLUMNS]
        cells += [str(s.get("timed", "-")), str(raced(d)) if d else "-"]
        ok = ok_variants(d)
        win = "%s (%.1f)" % (ok[0]["id"], ok[0].get("pct_copy", 0)) if ok else "-"
        print("%-*s %s  %s" % (width, label, " ".join("%8s" % c for c in cells), win))
    print("wall: the whole process; run_s: its serial phases (load .. write), which add up to "
          "it less rest (start, results.json, renames, exit); ref .. bank+: spans within "
          "them (bank+: the bank model beside the stream); verify, extra, samples: the GPU "
          "worker's time summed over the variants")


def serial(d, name):
    return sum(p["s"] for p in d.get("search", {}).get("phases", [])
               if p["kind"] == "serial" and p["name"] == name)


def ratio(ndev, one_wall, one_path, all_wall, all_path):
    one, every = load(one_path), load(all_path)
    ndev, one_wall, all_wall = int(ndev), float(one_wall), float(all_wall)
    whole = one_wall / all_wall if all_wall > 0 else 0
    s1, sn = serial(one, "stream"), serial(every, "stream")
    print("--devices all on %d GPUs against one: whole process %.2f s / %.2f s = %.2fx "
          "(target: at least 3.5x on 4 GPUs: %s); stream %.2f s / %.2f s = %.2fx; the rest "
          "(outside the stream) %.2f s / %.2f s" % (
              ndev, one_wall, all_wall, whole,
              "-" if ndev != 4 else "ok" if whole >= 3.5 else "NO",
              s1, sn, s1 / sn if sn > 0 else 0, one_wall - s1, all_wall - sn))


def pick_gap(d):
    """the pick (the run's winner) and how much slower it ran than the run's fastest: on the
    play-off's medians where it took part, else on the first medians"""
    ok = ok_variants(d)
    if not ok:
        return None, None
    pick = ok[0]
    po = [v for v in ok if "playoff" in v]
    if "playoff" in pick and po:
        fastest = min(v["playoff"]["median_ms"] for v in po)
        return pick["id"], pick["playoff"]["median_ms"] / fastest - 1
    fastest = min(v["median_ms"] for v in ok)
    return pick["id"], pick["median_ms"] / fastest - 1


def agree(args):
    runs = collections.OrderedDict()
    for a in args:
        k, _, path = a.partition("=")
        runs.setdefault(k, []).append(load(path))
    same = within = cases = 0
    for k, ds in runs.items():
        picks = [pick_gap(d) for d in ds]
        ids = [p[0] for p in picks]
        usual = collections.Counter(ids).most_common(1)[0][0]
        n_same = sum(1 for i in ids if i is not None and i == usual)
        n_within = sum(1 for _, g in picks if g is not None and g <= TIE + 1e-12)
        same += n_same
        within += n_within
        cases += len(ds)
        print("agreement %-10s picks %s: %d of %d the same; within 0.5 %% of the run's fastest: "
              "%s" % (k, " ".join(str(i) for i in ids), n_same, len(ds),
                      " ".join("-" if g is None else "%.2f %%" % (100 * g) for _, g in picks)))
    print("agreement: %d of %d runs pick their kernel's usual pick (target: at least %d), %d of "
          "%d within 0.5 %% of their run's fastest" % (same, cases, cases - cases // 9, within,
                                                      cases))


def main(argv):
    if len(argv) == 2 and argv[0] == "table":
        table(argv[1])
    elif len(argv) == 6 and argv[0] == "ratio":
        ratio(*argv[1:])
    elif len(argv) >= 2 and argv[0] == "agree" and all("=" in a for a in argv[1:]):
        agree(argv[1:])
    else:
        die("usage: speed.py table ROWS | ratio NDEV ONE_WALL ONE.json ALL_WALL ALL.json | "
            "agree K=RESULTS.json ...")


if __name__ == "__main__":
    main(sys.argv[1:])
