#!/usr/bin/env python3
"""Synthetic timed results, for the tests and the example: NOTHING here was measured on a GPU.

usage: tests/bundle/fake_gpus.py [--legacy] UNTIMED OUT

UNTIMED is the directory of a compile-only run (OUT/<kernel>/untimed-sm_XX: results.json and
the config.yaml and template.cu copies beside it). Three GPU directories are written under OUT
(a kernel directory, as `tuner bundle` reads it), each as a timed run on that GPU would write
it, with made-up times: "NVIDIA H100 80GB HBM3" (9.0, 132 SMs), "NVIDIA H200" (9.0, 132 SMs)
and "NVIDIA A100-SXM4-80GB" (8.0, 108 SMs). Of the compiled variants, sorted by id, the first
three win on one GPU each (0.80 ms there, 2.00 ms on the others), the fourth is 0.84 ms
everywhere (so it is the portable default, at 0.80 / 0.84 = 95.2 % of each GPU's best), the
fifth mismatches on the A100, and the rest take 1.0 to 1.5 ms. Prints the winners and the
portable default, one "GPU-slug id" per line, then "portable id".

--legacy writes results.json as a tuner without copies of its sources did: no "sources", no
"sms", no config.yaml or template.cu beside it.
"""
import copy
import hashlib
import json
import os
import shutil
import sys

GPUS = [  # name, cc major, cc minor, SMs, directory (as gpu_slug names it)
    ("NVIDIA H100 80GB HBM3", 9, 0, 132, "nvidia-h100-80gb-hbm3-sm90"),
    ("NVIDIA H200", 9, 0, 132, "nvidia-h200-sm90"),
    ("NVIDIA A100-SXM4-80GB", 8, 0, 108, "nvidia-a100-sxm4-80gb-sm80"),
]
COPY_GBS = 700.0  # made up


def noise(vid, gpu):
    """a made-up time in [1.0, 1.5) ms, the same on every run"""
    h = hashlib.sha256(("%s/%s" % (vid, gpu)).encode()).digest()
    return 1.0 + 0.5 * int.from_bytes(h[:4], "big") / 2**32


def main():
    args = sys.argv[1:]
    legacy = "--legacy" in args
    args = [a for a in args if a != "--legacy"]
    if len(args) != 2:
        sys.exit(__doc__)
    src, out = args
    with open(os.path.join(src, "results.json")) as f:
        base = json.load(f)
    kept = sorted(v["id"] for v in base["variants"] if v["status"] == "untimed")
    if len(kept) < 5:
        sys.exit("fake_gpus.py: %s has %d compiled variants; 5 are needed" % (src, len(kept)))
    wins, portable, bad = kept[:3], kept[3], kept[4]
    for gi, (name, major, minor, sms, slug) in enumerate(GPUS):
        d = copy.deepcopy(base)
        d.pop("why_untimed", None)
        d["arch"] = "sm_%d%d" % (major, minor)
        d["timed"] = True
        new = {}
        for k, v in d.items():  # the key order of a timed run's results.json
            new[k] = v
            if k == "timed":
                new["gpu"] = name
                new["compute_capability"] = "%d.%d" % (major, minor)
                if not legacy:
                    new["sms"] = sms
                new["driver"] = 13000
                new["copy_gbs"] = COPY_GBS
                new["read_gbs"] = COPY_GBS * 1.1
                new["bank_mode_ignored"] = True
        d = new
        if legacy:
            d.pop("sources", None)
        for v in d["variants"]:
            if v["status"] != "untimed":
                continue
            vid = v["id"]
            if vid == bad and minor == 0 and major == 8:
                v["status"] = "mismatch"
                v["reason"] = "synthetic: out[3] = 1 where the reference has 2"
                continue
            ms = (0.80 if vid == wins[gi] else 2.00 if vid in wins else
                  0.84 if vid == portable else noise(vid, name))
            v["status"] = "ok"
            v["samples"] = 20
            v["median_ms"] = ms
            v["min_ms"] = ms * 0.99
            v["max_ms"] = ms * 1.02
            v["mean_ms"] = ms * 1.001
            v["spread"] = 0.03
            v["gbs"] = v["bytes"] / (ms * 1e6) if v.get("bytes") else 0
            v["pct_copy"] = 100 * v["gbs"] / COPY_GBS
            v["pct_read"] = v["pct_copy"] / 1.1
            v["max_abs_err"] = 0
            v["max_rel_err"] = 0
        ok = sorted((v for v in d["variants"] if v["status"] == "ok"), key=lambda v: v["median_ms"])
        d["variants"] = ok + [v for v in d["variants"] if v["status"] != "ok"]
        gdir = os.path.join(out, slug)
        os.makedirs(gdir, exist_ok=True)
        with open(os.path.join(gdir, "results.json"), "w") as f:
            json.dump(d, f, indent=1)
            f.write("\n")
        if not legacy:
            for c in ("config.yaml", "template.cu"):
                shutil.copyfile(os.path.join(src, c), os.path.join(gdir, c))
        print(slug, wins[gi])
    print("portable", portable)


if __name__ == "__main__":
    main()
