#!/usr/bin/env python3
"""Check a results.t4.json against the T4 results schema, version 1.0.0.

usage: tests/t4_check.py FILE [RESULTS]

The schema below restates the constraints of the "Open Autotuning Results Schema" 1.0.0 (T4),
as Kernel Tuner ships it (kernel_tuner/schema/T4/1.0.0/results-schema.json; JSON Schema draft
2020-12): an object with "schema_version" (a string "MAJOR.MINOR.PATCH") and "results", an
array of objects that require "configuration" (object), "times" (object: "compilation_time",
"framework", "search_algorithm", "validation" numbers, "runtimes" an array), "invalidity" (one
of timeout, compile, runtime, correctness, constraints, correct) and "correctness" (number),
and may have "timestamp" (string), "objectives" (array) and "measurements" (objects of "name"
string, "value" number, "unit" string; the newer copy of the schema also allows a string or
an array as a value, the older only a number, which is what tuner writes). With the python
module jsonschema the file is validated against it; without, the same constraints are checked
by hand (said in its line; TUNER_T4_BY_HAND=1 checks by hand in any case). Either way the tuner's own promises are checked too: every
runtime a positive number of milliseconds, "time" measured and the only objective where a
variant is correct, correctness 1 exactly there, and with RESULTS, that many results.
Prints one line saying how it was checked; exits 1 with the problems otherwise.
"""
import json
import os
import re
import sys

NUM = {"type": "number"}
SCHEMA = {
    "type": "object",
    "properties": {
        "schema_version": {"type": "string", "pattern": "^[0-9]{1,}.[0-9]{1,}.[0-9]{1,}$"},
        "results": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "timestamp": {"type": "string"},
                    "configuration": {"type": "object"},
                    "objectives": {"type": "array"},
                    "times": {
                        "type": "object",
                        "properties": {
                            "compilation_time": NUM,
                            "runtimes": {"type": "array"},
                            "framework": NUM,
                            "search_algorithm": NUM,
                            "validation": NUM,
                        },
                    },
                    "invalidity": {"enum": ["timeout", "compile", "runtime", "correctness",
                                            "constraints", "correct"]},
                    "correctness": NUM,
                    "measurements": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"name": {"type": "string"}, "value": NUM,
                                           "unit": {"type": "string"}},
                        },
                    },
                },
                "required": ["configuration", "times", "invalidity", "correctness"],
            },
        },
    },
}


def is_num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def by_hand(d):
    """the schema's constraints, checked without jsonschema"""
    bad = []
    if not isinstance(d, dict):
        return ["not an object"]
    v = d.get("schema_version")
    if "schema_version" in d and not (isinstance(v, str) and
                                      re.search(SCHEMA["properties"]["schema_version"]["pattern"], v)):
        bad.append("schema_version %r" % (v,))
    res = d.get("results", [])
    if not isinstance(res, list):
        return bad + ["results is not an array"]
    item = SCHEMA["properties"]["results"]["items"]
    for i, r in enumerate(res):
        if not isinstance(r, dict):
            bad.append("results[%d] is not an object" % i)
            continue
        for k in item["required"]:
            if k not in r:
                bad.append("results[%d] has no %s" % (i, k))
        if "timestamp" in r and not isinstance(r["timestamp"], str):
            bad.append("results[%d].timestamp" % i)
        for k in ("configuration", "times"):
            if k in r and not isinstance(r[k], dict):
                bad.append("results[%d].%s is not an object" % (i, k))
        for k in ("objectives", "measurements"):
            if k in r and not isinstance(r[k], list):
                bad.append("results[%d].%s is not an array" % (i, k))
        t = r.get("times", {})
        if isinstance(t, dict):
            for k in ("compilation_time", "framework", "search_algorithm", "validation"):
                if k in t and not is_num(t[k]):
                    bad.append("results[%d].times.%s" % (i, k))
            if "runtimes" in t and not isinstance(t["runtimes"], list):
                bad.append("results[%d].times.runtimes" % i)
        if "invalidity" in r and r["invalidity"] not in item["properties"]["invalidity"]["enum"]:
            bad.append("results[%d].invalidity %r" % (i, r["invalidity"]))
        if "correctness" in r and not is_num(r["correctness"]):
            bad.append("results[%d].correctness" % i)
        for j, m in enumerate(r.get("measurements", []) if isinstance(r.get("measurements"), list) else []):
            if not (isinstance(m, dict) and isinstance(m.get("name", ""), str) and
                    is_num(m.get("value", 0)) and isinstance(m.get("unit", ""), str)):
                bad.append("results[%d].measurements[%d] %r" % (i, j, m))
    return bad


def ours(d, want):
    """what tuner promises beyond the schema"""
    bad = []
    if d.get("schema_version") != "1.0.0":
        bad.append("schema_version %r, not 1.0.0" % d.get("schema_version"))
    res = d.get("results", [])
    if want is not None and len(res) != want:
        bad.append("%d results, want %d" % (len(res), want))
    for i, r in enumerate(res):
        rt = r["times"].get("runtimes")
        names = {m["name"]: m for m in r.get("measurements", [])}
        if not all(is_num(x) and x > 0 for x in rt or []):
            bad.append("results[%d]: runtimes %r" % (i, rt))
        if r["invalidity"] == "correct":
            if not rt or "time" not in names or names["time"]["unit"] != "ms" or \
                    names["time"]["value"] != rt[0] or r["correctness"] != 1:
                bad.append("results[%d]: correct without its time in ms: %r" % (i, r))
        elif rt or r["correctness"] != 0:
            bad.append("results[%d]: %s with runtimes or correctness: %r" % (i, r["invalidity"], r))
        if r.get("objectives") != ["time"]:
            bad.append("results[%d]: objectives %r" % (i, r.get("objectives")))
        if not r["configuration"] or not all(is_num(x) for x in r["configuration"].values()):
            bad.append("results[%d]: configuration %r" % (i, r["configuration"]))
    return bad


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    want = int(sys.argv[2]) if len(sys.argv) == 3 else None
    try:
        with open(sys.argv[1]) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("%s: %s" % (sys.argv[1], e))
    try:
        if os.environ.get("TUNER_T4_BY_HAND"):  # the tests check both ways
            raise ImportError
        import jsonschema
        cls = getattr(jsonschema, "Draft202012Validator", None) or jsonschema.Draft7Validator
        errs = ["%s: %s" % ("/".join(map(str, e.absolute_path)), e.message)
                for e in cls(SCHEMA).iter_errors(d)]
        how = "validated with jsonschema (%s)" % cls.__name__
    except ImportError:
        errs = by_hand(d)
        how = "checked by hand (%s)" % ("TUNER_T4_BY_HAND" if os.environ.get("TUNER_T4_BY_HAND")
                                        else "no python module jsonschema")
    if not errs:
        errs = ours(d, want)
    if errs:
        print("%s: T4 schema %s: %d problems" % (sys.argv[1], how, len(errs)))
        for e in errs[:20]:
            print("  " + e)
        sys.exit(1)
    print("%s: T4 results schema 1.0.0 %s: %d results" % (sys.argv[1], how,
                                                         len(d.get("results", []))))


if __name__ == "__main__":
    main()
