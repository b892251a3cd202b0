#!/usr/bin/env python3
"""Write a C file defining `const char NAME[]` with the exact bytes of a text file.

Usage: embed.py NAME IN OUT. IN is any text: configure.py embeds tuner/NAME.EXT for each EXT
of its EMBEDDED (the helper kernels, report.html's CSS and script) as NAME_EXT. One string
literal per line of IN; backslashes, quotes, tabs, newlines and a '?' after a '?' (trigraphs)
are escaped, any byte outside printable ASCII is written in octal. IN must not contain a NUL
byte (the C string would end there).

A line `#include "FILE"` of IN, FILE beside IN, is replaced by FILE's text (one level: FILE's
own includes stay as they are), so that a header shared with the C side travels with the text;
OUT.d names the files read, for ninja.
"""
import os
import re
import sys

INCLUDE = re.compile(rb'^#include "([A-Za-z0-9_.-]+)"[ \t]*\r?\n?$')


def literal(line):
    out, prev = [], b""
    for c in line:
        ch = bytes([c])
        if ch == b"\\":
            out.append("\\\\")
        elif ch == b'"':
            out.append('\\"')
        elif ch == b"\n":
            out.append("\\n")
        elif ch == b"\t":
            out.append("\\t")
        elif ch == b"?" and prev == b"?":
            out.append("\\?")
        elif 0x20 <= c < 0x7f:
            out.append(ch.decode("ascii"))
        else:
            out.append("\\%03o" % c)  # three digits: a following digit stays a digit
        prev = ch
    return '"%s"' % "".join(out)


def read(path):
    """the bytes of path; exit 1 if it holds a NUL byte"""
    with open(path, "rb") as f:
        data = f.read()
    if b"\0" in data:
        sys.stderr.write("embed.py: %s: a NUL byte cannot be embedded in a C string\n" % path)
        sys.exit(1)
    return data


def main():
    if len(sys.argv) != 4:
        sys.stderr.write("usage: embed.py NAME IN OUT\n")
        sys.exit(2)
    name, src, dst = sys.argv[1:]
    deps = [src]
    lines = []
    for line in read(src).splitlines(keepends=True):
        m = INCLUDE.match(line)
        if not m:
            lines.append(line)
            continue
        inc = os.path.join(os.path.dirname(src), m.group(1).decode())
        deps.append(inc)
        data = read(inc)
        lines += data.splitlines(keepends=True)
        if data and not data.endswith(b"\n"):
            lines[-1] += b"\n"
    body = "\n".join("\t" + literal(l) for l in lines) if lines else '\t""'
    text = ("/* %s, embedded by tuner/embed.py: edit that file, not this one */\n"
            "extern const char %s[];\n"
            "const char %s[] =\n%s;\n" % (src, name, name, body))
    os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
    with open(dst + ".tmp", "w") as f:
        f.write(text)
    os.replace(dst + ".tmp", dst)
    with open(dst + ".d.tmp", "w") as f:
        f.write("%s: %s\n" % (dst, " ".join(deps)))
    os.replace(dst + ".d.tmp", dst + ".d")


if __name__ == "__main__":
    main()
