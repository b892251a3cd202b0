#!/usr/bin/env python3
"""usage: merge_equal.py A.json B.json: exit 0 if the two results.json hold the same variants
in the same order with the same statuses, reasons, launch and resource figures and timings
(what a merge of shards must reproduce of one unsharded run); else print the differences."""
import json
import sys

SAME = ("status", "reason", "params", "block", "grid", "shared_dynamic", "bank_bytes", "bytes",
        "registers", "spill_stores", "spill_loads", "stack", "shared_static", "twin_of", "log",
        "median_ms", "samples", "gbs", "pct_copy", "max_abs_err", "tie", "bank")


def main():
    a, b = (json.load(open(p)) for p in sys.argv[1:3])
    ia = [v["id"] for v in a["variants"]]
    ib = [v["id"] for v in b["variants"]]
    bad = []
    if ia != ib:
        bad.append("variants or their order differ: %d vs %d; first difference at %s" % (
            len(ia), len(ib), next((k for k, (x, y) in enumerate(zip(ia, ib)) if x != y), "the end")))
    vb = {v["id"]: v for v in b["variants"]}
    for v in a["variants"]:
        w = vb.get(v["id"], {})
        for f in SAME:
            if v.get(f) != w.get(f):
                bad.append("%s: %s: %r vs %r" % (v["id"], f, v.get(f), w.get(f)))
    for k in ("kernel", "config", "arch", "timed", "gpu", "sizes", "limits", "winner"):
        if a.get(k) != b.get(k):
            bad.append("%s: %r vs %r" % (k, a.get(k), b.get(k)))
    print("\n".join(bad[:20]) if bad else "same: %d variants" % len(ia))
    return 1 if bad else 0


sys.exit(main())
