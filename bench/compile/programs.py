#!/usr/bin/env python3
"""The sources bench/compile/programs.c compiles, and the comparison of the code it made.

programs.py write DIR TEMPLATE ENTRY N: N variants of the transpose template (TILE 32, square
tile; PAD 0 1 2, ROWS 4 8 16) as DIR/def<i>.h (#define lines), and DIR/batch.cu: each variant
in a namespace of its own, its entry renamed <entry>_v<i> by a macro, and every macro the
template defines undefined after it.
programs.py same DIR ENTRY N: whether the code (.text) of each variant's kernel in
DIR/batch.cubin is byte for byte that of DIR/single<i>.cubin."""
import re
import struct
import sys


def variants(n):
    out = []
    for pad in (0, 1, 2):
        for rows in (4, 8, 16):
            out.append(dict(TILE=32, TH=32, ROWS=rows, PAD=pad, SWIZZLE=0, VEC=1, GROUP=8,
                            BANK_BYTES=4))
    return out[:n]


def write(d, tmpl_path, entry, n):
    t = open(tmpl_path).read()
    defined = sorted(set(re.findall(r"^\s*#\s*define\s+([A-Za-z_]\w*)", t, re.M)))
    parts = []
    for i, v in enumerate(variants(n)):
        defs = "".join("#define %s %d\n" % kv for kv in v.items())
        open("%s/def%d.h" % (d, i), "w").write(defs)
        undef = "".join("#undef %s\n" % k for k in list(v) + defined + [entry])
        parts.append("namespace v%d {\n%s#define %s %s_v%d\n%s\n%s}\n"
                     % (i, defs, entry, entry, i, t, undef))
    open("%s/batch.cu" % d, "w").write("".join(parts))


def sections(path):
    b = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", b, 0x28)
    entsize, num, strndx = struct.unpack_from("<HHH", b, 0x3a)
    hs = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * entsize) for i in range(num)]
    names = b[hs[strndx][4]:hs[strndx][4] + hs[strndx][5]]
    out = {}
    for h in hs:
        name = names[h[0]:names.index(b"\0", h[0])].decode()
        out[name] = b[h[4]:h[4] + h[5]] if h[1] != 8 else b""  # SHT_NOBITS: no bytes
    return out


def same(d, entry, n):
    batch = sections("%s/batch.cubin" % d)
    ok = 0
    for i in range(n):
        single = sections("%s/single%d.cubin" % (d, i))
        a, b = batch.get(".text.%s_v%d" % (entry, i)), single.get(".text.%s" % entry)
        print("variant %d: code %d bytes, %s" % (i, len(b or b""), "the same" if a and a == b else "DIFFERENT"))
        ok += bool(a) and a == b
    print("%d of %d variants compiled to the same code in one program as alone" % (ok, n))
    return ok == n


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    else:
        sys.exit(0 if same(sys.argv[2], sys.argv[3], int(sys.argv[4])) else 1)
