#!/usr/bin/env python3
"""Write a C file defining `const char NAME[]` with the exact bytes of a text file.

Usage: embed.py NAME IN OUT. One string literal per line of IN; backslashes, quotes, tabs,
newlines and a '?' after a '?' (trigraphs) are escaped, any byte outside printable ASCII is
written in octal. IN must not contain a NUL byte (the C string would end there).
"""
import os
import sys


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


def main():
    if len(sys.argv) != 4:
        sys.stderr.write("usage: embed.py NAME IN OUT\n")
        sys.exit(2)
    name, src, dst = sys.argv[1:]
    with open(src, "rb") as f:
        data = f.read()
    if b"\0" in data:
        sys.stderr.write("embed.py: %s: a NUL byte cannot be embedded in a C string\n" % src)
        sys.exit(1)
    lines = data.splitlines(keepends=True)
    body = "\n".join("\t" + literal(l) for l in lines) if lines else '\t""'
    text = ("/* %s, embedded by tuner/embed.py: edit that file, not this one */\n"
            "extern const char %s[];\n"
            "const char %s[] =\n%s;\n" % (src, name, name, body))
    os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
    with open(dst + ".tmp", "w") as f:
        f.write(text)
    os.replace(dst + ".tmp", dst)


if __name__ == "__main__":
    main()
