#!/usr/bin/env python3
"""modules.py [OBJDIR]: the module graph of tuner/ and its circles.

A module is tuner/x.c with tuner/x.h. Module a depends on module b when one of a's files
includes "b.h", or (with OBJDIR, the build's object directory, e.g. out/obj/tuner) when a.o
uses a symbol that b.o defines. Prints each group of modules that depend on each other in a
circle (a strongly connected group of two or more) and exits 1 if there is one; with -v, the
whole graph too."""
import os
import re
import subprocess
import sys

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tuner")


def includes():
    edges = {}
    for f in sorted(os.listdir(TOP)):
        m, ext = os.path.splitext(f)
        if ext not in (".c", ".h"):
            continue
        with open(os.path.join(TOP, f), encoding="utf-8") as fh:
            for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)\.h"', fh.read(), re.M):
                if os.path.exists(os.path.join(TOP, inc + ".h")):
                    edges.setdefault(m, set()).add(inc)
                edges.setdefault(inc, set())
        edges.setdefault(m, set())
    return edges


def symbols(objdir, edges):
    defs, uses = {}, {}
    for f in sorted(os.listdir(objdir)):
        if not f.endswith(".o"):
            continue
        m = f[:-2]
        out = subprocess.run(["nm", os.path.join(objdir, f)], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "U":
                uses.setdefault(m, set()).add(parts[1])
            elif len(parts) == 3 and parts[1] in "TDBR":
                defs[parts[2]] = m
    for m, us in uses.items():
        for u in us:
            if u in defs and defs[u] != m:
                edges.setdefault(m, set()).add(defs[u])


def sccs(edges):
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            out.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return [g for g in out if len(g) > 1]


def main():
    args = [a for a in sys.argv[1:] if a != "-v"]
    edges = {k: set(v) - {k} for k, v in includes().items()}
    if args:
        symbols(args[0], edges)
        edges = {k: set(v) - {k} for k, v in edges.items()}
    if "-v" in sys.argv:
        for m in sorted(edges):
            print("%s -> %s" % (m, " ".join(sorted(edges[m]))))
    groups = sccs(edges)
    for g in groups:
        print("circle: " + " ".join(g))
    print("%d modules, %d circles" % (len(edges), len(groups)))
    return 1 if groups else 0


if __name__ == "__main__":
    sys.exit(main())
