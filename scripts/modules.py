#!/usr/bin/env python3
"""modules.py [-v] [--doc ARCH.md] [OBJDIR]: the module graph of tuner/ and its circles.

A module is tuner/x.c with tuner/x.h. Module a depends on module b when one of a's files
includes "b.h", or (with OBJDIR, the build's object directory, e.g. out/obj/tuner) when a.o
uses a symbol that b.o defines. Prints each group of modules that depend on each other in a
circle (a strongly connected group of two or more) and exits 1 if there is one; with -v, the
whole graph too.

With --doc (docs/architecture.md) it also checks what that file states: its module table
("| `x` | ..." rows under "## The modules") names every module of tuner/ and no other, and
its layers table ("| n | name | `a`, `b` ... |" rows under "## Layers", the lowest first)
places every module in one layer, with no module depending on one of a higher layer. Each
breach is printed; any exits 1."""
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


def section(text, title):
    """the lines of the section '## title' of a markdown text"""
    m = re.search(r"^## %s\n(.*?)(?=^## |\Z)" % re.escape(title), text, re.M | re.S)
    return m.group(1).splitlines() if m else []


def check_doc(path, edges):
    """the breaches of what the architecture document states about the modules"""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    bad = []
    files = {os.path.splitext(f)[0] for f in os.listdir(TOP) if f.endswith(".c")}
    table = set()
    for line in section(text, "The modules"):
        m = re.match(r"\| `([a-z0-9_]+)` \|", line)
        if m:
            table.add(m.group(1))
    for m in sorted(files - table):
        bad.append("module %s (tuner/%s.c) is not in %s's module table" % (m, m, path))
    for m in sorted(table - files):
        bad.append("%s's module table names %s, which has no tuner/%s.c" % (path, m, m))
    layer, names = {}, []
    for line in section(text, "Layers"):
        m = re.match(r"\| (\d+) \| ([^|]+) \| (.*) \|\s*$", line)
        if not m:
            continue
        names.append(m.group(2).strip())
        for x in re.findall(r"`([a-z0-9_]+)`", m.group(3)):
            if x in layer:
                bad.append("%s is in layers %d and %s" % (x, layer[x], m.group(1)))
            layer[x] = int(m.group(1))
    for m in sorted(set(edges) - set(layer)):
        bad.append("module %s is in no layer of %s" % (m, path))
    for m in sorted(edges):
        for d in sorted(edges[m]):
            if m in layer and d in layer and layer[d] > layer[m]:
                bad.append("%s (layer %d, %s) depends on %s (layer %d, %s), a higher layer" %
                           (m, layer[m], names[layer[m] - 1] if layer[m] <= len(names) else "?",
                            d, layer[d], names[layer[d] - 1] if layer[d] <= len(names) else "?"))
    if not layer:
        bad.append("%s states no layers (## Layers)" % path)
    return bad


def main():
    argv = sys.argv[1:]
    doc = None
    if "--doc" in argv:
        i = argv.index("--doc")
        doc = argv[i + 1]
        del argv[i:i + 2]
    args = [a for a in argv if a != "-v"]
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
    bad = check_doc(doc, edges) if doc else []
    for b in bad:
        print(b)
    print("%d modules, %d circles%s" % (len(edges), len(groups),
                                        ", %d breaches of %s" % (len(bad), doc) if doc else ""))
    return 1 if groups or bad else 0


if __name__ == "__main__":
    sys.exit(main())
