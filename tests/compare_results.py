#!/usr/bin/env python3
"""compare_results.py A B: two results.json of one config (e.g. before and after a change that
must not change behaviour): the same variants, ids, statuses and resources, and the winner.
Prints one line; exits 1 if the variants or statuses differ. Timings are not compared (two runs
differ by noise): where the winners differ, it prints where each ranks in the other run.
Variants that built to the same code (twins, and those collapsed because the GPU ignores the
bank mode) are timed once, through whichever of them finished compiling first: a group of them
compares as one, by its members and the status of the one timed for it."""
import json
import sys


def load(path):
    with open(path) as f:
        d = json.load(f)
    return d, {v["id"]: v for v in d["variants"]}


def groups(v):
    """each variant's group: the ids that share one timing with it (twin_of), and its status"""
    rep = {i: x.get("twin_of") or i for i, x in v.items()
           if x["status"] in ("twin", "collapsed") or "twin_of" not in x}
    members = {}
    for i, r in rep.items():
        members.setdefault(r, set()).add(i)
    return {i: (frozenset(members[r]), v[r]["status"] if r in v else None)
            for i, r in rep.items()}


def winner(d):
    """the first verified variant (results.json lists them best first), or None"""
    return next((v["id"] for v in d["variants"] if v["status"] == "ok"), None)


def main():
    (a, va), (b, vb) = load(sys.argv[1]), load(sys.argv[2])
    bad, unknown = [], 0
    if list(va) != list(vb) and sorted(va) != sorted(vb):
        bad.append("variant ids differ: %d vs %d, %d in common"
                   % (len(va), len(vb), len(set(va) & set(vb))))
    timed = a.get("timed")
    ga, gb = groups(va), groups(vb)
    for i in sorted(set(va) & set(vb)):
        x, y = va[i], vb[i]
        for k in ("params", "block", "grid", "shared_dynamic", "shared_static", "bank_bytes",
                  "bytes", "registers", "spill_stores", "spill_loads", "stack", "bank"):
            if x.get(k) != y.get(k):
                if k in ("registers", "stack", "spill_stores", "spill_loads") and \
                        -1 in (x.get(k), y.get(k)):
                    unknown += 1  # NVRTC gave no ptxas report in one of the runs
                    continue
                bad.append("%s: %s %s vs %s" % (i, k, x.get(k), y.get(k)))
        sx, sy = x.get("status"), y.get("status")
        # a GPU run may end a variant in a fault or a time-out by chance; twins follow timing
        if sx != sy and not (len(ga.get(i, ((), 0))[0]) > 1 and ga.get(i) == gb.get(i)):
            bad.append("%s: status %s vs %s" % (i, sx, sy))
    wa, wb = winner(a), winner(b)
    if wa != wb and ga.get(wa) and ga.get(wa) == gb.get(wb):
        wb = wa  # the same build, timed through another of its twins
    note = ""
    if timed and wa != wb:
        ra = [v["id"] for v in a["variants"]]
        rb = [v["id"] for v in b["variants"]]
        pa = vb.get(wa, {}).get("pct_copy")
        pa = "%.1f" % pa if pa is not None else "-"
        note = "; winners differ: %s (rank %d in B, %s %% of copy there%s), %s (rank %d in A)" % (
            wa, rb.index(wa) + 1 if wa in rb else -1, pa,
            ", a tie there" if vb.get(wa, {}).get("tie") else "", wb,
            ra.index(wb) + 1 if wb in ra else -1)
    if unknown:
        note += "; %d resource figures unknown (-1) in one run only" % unknown
    print("%s: %d variants, %s%s%s" % (sys.argv[2], len(vb), "same variants and statuses"
                                       if not bad else "DIFFER: " + "; ".join(bad[:5]),
                                       ", same winner %s" % wa if timed and wa == wb else "",
                                       note))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
