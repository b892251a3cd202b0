#!/usr/bin/env python3
"""compare_results.py A B: two results.json of one config (e.g. before and after a change that
must not change behaviour): the same variants, ids, statuses and resources, and the winner.
Prints one line; exits 1 if the variants or statuses differ. Timings are not compared (two runs
differ by noise): where the winners differ, it prints where each ranks in the other run."""
import json
import sys


def load(path):
    with open(path) as f:
        d = json.load(f)
    return d, {v["id"]: v for v in d["variants"]}


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
        if sx != sy:
            bad.append("%s: status %s vs %s" % (i, sx, sy))
    wa, wb = winner(a), winner(b)
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
