#!/usr/bin/env python3
"""Check results.json files against docs/results.schema.json (JSON Schema 2020-12, with the
python module jsonschema: python3-jsonschema) and against what the schema cannot say: the
winner is the first variant listed, verified and timed; the dropped count is the sum of its
rules' counts, and where they are listed, the number of dropped variants listed; every
twin_of names a listed variant that is no twin itself; the rules name dropped variants in
config order only once each.

usage: tests/results_check.py FILE...   or   tests/results_check.py --from LIST (a file per line)
Prints "N files valid"; exits 1 with each file's problems otherwise, 2 without jsonschema.
"""
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    print("no python module jsonschema (apt-get install python3-jsonschema)")
    sys.exit(2)

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = json.load(open(os.path.join(HERE, "..", "docs", "results.schema.json")))
jsonschema.Draft202012Validator.check_schema(SCHEMA)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
POINTS = json.load(open(os.path.join(HERE, "..", "docs", "points.schema.json")))
jsonschema.Draft202012Validator.check_schema(POINTS)
POINTS_VALIDATOR = jsonschema.Draft202012Validator(POINTS)


def points_problems(d):
    """a run at several sizes: its GPU directory's file (docs/points.schema.json)"""
    out = ["%s: %s" % ("/".join(str(p) for p in e.absolute_path) or "(top)", e.message)
           for e in sorted(POINTS_VALIDATOR.iter_errors(d), key=lambda e: list(e.absolute_path))[:10]]
    if out:
        return out
    n = len(d["points"])
    m = d["winners_at_points"]["pct"]
    if len(m) != n or any(len(row) != n for row in m):
        out.append("winners_at_points: not %d x %d" % (n, n))
    if d["single"] is not None and len(d["single"]["pct"]) != n:
        out.append("single: not one pct a point")
    return out


def problems(d):
    if isinstance(d, dict) and "points" in d and "variants" not in d:
        return points_problems(d)
    out = ["%s: %s" % ("/".join(str(p) for p in e.absolute_path) or "(top)", e.message)
           for e in sorted(VALIDATOR.iter_errors(d), key=lambda e: list(e.absolute_path))[:10]]
    if out:
        return out
    v = d["variants"]
    ok = [x["id"] for x in v if x["status"] == "ok"]
    if d["timed"] and ok and v[0]["status"] == "ok":
        if d["winner"] != v[0]["id"]:
            out.append("winner %s is not the first variant, %s" % (d["winner"], v[0]["id"]))
    elif d["winner"] is not None:
        out.append("winner %s without a verified first variant" % d["winner"])
    dr = d["dropped"]
    if sum(r["count"] for r in dr["by_rule"]) != dr["count"]:
        out.append("dropped: the rules' counts do not add up to %d" % dr["count"])
    listed = sum(x["status"] == "dropped" for x in v)
    if listed != (dr["count"] if dr["listed"] else 0):
        out.append("%d dropped variants listed, of %d (listed: %s)" % (listed, dr["count"], dr["listed"]))
    if len({r["rule"] for r in dr["by_rule"]}) != len(dr["by_rule"]):
        out.append("dropped: a rule twice")
    ids = {x["id"]: x for x in v}
    if len(ids) != len(v):
        out.append("a variant listed twice")
    for x in v:
        t = x.get("twin_of")
        if t is not None and (t not in ids or "twin_of" in ids[t]):
            out.append("%s: twin_of %s is no variant that stands for its group" % (x["id"], t))
    return out


def main():
    bad = 0
    files = sys.argv[1:]
    if files[:1] == ["--from"] and len(files) == 2:
        files = open(files[1]).read().splitlines()
    for f in files:
        try:
            p = problems(json.load(open(f)))
        except (OSError, ValueError) as e:
            p = [str(e)]
        for line in p:
            print("%s: %s" % (f, line))
        bad += bool(p)
    if bad:
        sys.exit(1)
    print("%d files valid" % len(files))


main()
