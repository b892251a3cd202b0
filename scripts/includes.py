#!/usr/bin/env python3
"""includes.py [-v] [--check]: what tuner/'s headers pull in, and a budget for it.

Only the project's own headers count: an `#include "x.h"` line naming a file tuner/x.h.
Figures, for the headers tuner/*.h and the sources tuner/*.c:
  reach(h)   the headers that compiling h reads besides itself, through the headers it
             includes, transitively;
  users(h)   the tuner/*.c whose compilation reads h, directly or through other headers
             (a change of h recompiles them);
  edges      the include lines from one of tuner/*.h to another;
  reads      the sum over tuner/*.c of the headers each one's compilation reads;
  floors     the longest chain of includes from a tuner/*.c through headers, counted in
             headers: x.c -> a.h -> b.h -> c.h is 3 floors;
  layers     the longest chain of modules (scripts/modules.py's graph from the include lines
             alone: module a depends on b when a.c or a.h includes b.h), counted in modules.
Prints a line per header (reach, users, what it includes), the totals and both chains; -v
adds each header's reach by name. --check exits 1 when the headers exceed the budget below
(tests/run.sh: headers_budget), so that a header which starts including another for a
pointer it could forward-declare, and makes the chain deeper or the reach wider, is caught.
Lower the budget when the headers shrink; raise it only for a type held by value."""
import os
import re
import sys

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tuner")

# the budget (tests/run.sh: headers_budget), as measured once the headers forward-declared
# what they only point to (docs/architecture.md, "Headers"): the include lines between
# headers (each one for a type held by value), the longest chain and the widest reach. The
# headers read are printed, not checked: a new module adds sources that read headers.
MAX_EDGES = 23            # include lines from a header to another (was 91; bundlegen.h 2)
MAX_FLOORS = 4            # the longest chain from a .c through headers (was 11)
MAX_REACH = 8             # headers one header reads besides itself (was 17, journal.h)


def includes(path):
    with open(path, encoding="utf-8") as f:
        names = re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M)
    return [n for n in names if n.endswith(".h") and os.path.isfile(os.path.join(TOP, n))]


def main():
    files = sorted(os.listdir(TOP))
    hdrs = {f: includes(os.path.join(TOP, f)) for f in files if f.endswith(".h")}
    srcs = {f: includes(os.path.join(TOP, f)) for f in files if f.endswith(".c")}
    reach, depth, down = {}, {}, {}

    def visit(h, path=()):
        if h in path:
            sys.exit("includes.py: %s includes itself: %s" % (h, " -> ".join(path + (h,))))
        if h in reach:
            return
        r, best, nxt = set(), 0, None
        for i in hdrs[h]:
            visit(i, path + (h,))
            r |= {i} | reach[i]
            if depth[i] > best:
                best, nxt = depth[i], i
        r.discard(h)
        reach[h], depth[h], down[h] = r, best + 1, nxt

    for h in hdrs:
        visit(h)
    read = {c: set(incs).union(*[reach[i] for i in incs]) for c, incs in srcs.items()}
    users = {h: sorted(c for c in srcs if h in read[c]) for h in hdrs}
    for h in sorted(hdrs):
        print("%-12s reach %2d  users %2d  includes %s" % (h, len(reach[h]), len(users[h]),
                                                        " ".join(hdrs[h]) or "-"))
        if "-v" in sys.argv and reach[h]:
            print("             reaches " + " ".join(sorted(reach[h])))
    reads = sum(len(r) for r in read.values())
    includers = sum(1 for h in hdrs if hdrs[h])
    edges = sum(len(set(i)) for i in hdrs.values())
    top = max(srcs, key=lambda c: (max([depth[i] for i in srcs[c]], default=0), c))
    chain, h = [top], max(srcs[top], key=lambda i: (depth[i], i), default=None)
    while h:
        chain.append(h)
        h = down[h]
    floors = len(chain) - 1
    # the module graph: a.c and a.h include b.h
    mods = {}
    for f, incs in list(hdrs.items()) + list(srcs.items()):
        mods.setdefault(f[:-2], set()).update(i[:-2] for i in incs if i[:-2] != f[:-2])
    layer, below = {}, {}

    def lvisit(m, path=()):
        if m in layer:
            return
        if m in path:  # a circle: scripts/modules.py names it; count it once
            layer[m], below[m] = 1, None
            return
        best, nxt = 0, None
        for d in sorted(mods.get(m, ())):
            lvisit(d, path + (m,))
            if layer[d] > best:
                best, nxt = layer[d], d
        layer[m], below[m] = best + 1, nxt

    for m in mods:
        lvisit(m)
    m = max(sorted(mods), key=lambda x: layer[x])
    mchain = [m]
    while below[m]:
        m = below[m]
        mchain.append(m)
    print("%d headers, %d include another (%d include lines); largest reach %d (%s); "
          "headers read by %d sources: %d"
          % (len(hdrs), includers, edges, max(len(r) for r in reach.values()),
             max(sorted(hdrs), key=lambda x: len(reach[x])), len(srcs), reads))
    print("floors %d: %s" % (floors, " -> ".join(chain)))
    print("layers %d: %s" % (len(mchain), " -> ".join(mchain)))
    if "--check" not in sys.argv:
        return 0
    over = []
    if edges > MAX_EDGES:
        over.append("include lines between headers %d > %d" % (edges, MAX_EDGES))
    if floors > MAX_FLOORS:
        over.append("floors %d > %d" % (floors, MAX_FLOORS))
    for h in sorted(hdrs):
        if len(reach[h]) > MAX_REACH:
            over.append("%s reaches %d headers > %d" % (h, len(reach[h]), MAX_REACH))
    for o in over:
        print("includes.py: over budget: " + o, file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
