#!/usr/bin/env python3
"""Install or uninstall files under $DESTDIR$PREFIX (ninja install, ninja uninstall).

usage: tuner/install.py install|uninstall PREFIX [MODE SRC DEST]...

DEST is relative to PREFIX; MODE is octal (755, 644). A file is installed through a temporary
copy beside it and a rename, so a running binary can be replaced. Uninstalling removes the files,
then the directories left empty that are the package's own (a path component named "tuner",
as share/tuner, share/doc/tuner and lib/cmake/tuner), never bin/ or share/man/.
"""
import os
import shutil
import sys


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("install", "uninstall") or len(sys.argv) % 3:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        sys.exit(2)
    what, prefix, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    root = os.environ.get("DESTDIR", "") + prefix.rstrip("/")
    files = [(int(rest[i], 8), rest[i + 1], rest[i + 2]) for i in range(0, len(rest), 3)]
    try:
        if what == "install":
            for mode, src, dest in files:
                d = root + "/" + dest
                os.makedirs(os.path.dirname(d), mode=0o755, exist_ok=True)
                tmp = "%s.tmp.%d" % (d, os.getpid())
                try:
                    shutil.copyfile(src, tmp)
                    os.chmod(tmp, mode)
                    os.replace(tmp, d)
                except OSError:
                    if os.path.lexists(tmp):
                        os.remove(tmp)
                    raise
                print("install -m %o %s %s" % (mode, src, d))
        else:
            dirs = set()
            for mode, src, dest in files:
                d = root + "/" + dest
                if os.path.lexists(d):
                    os.remove(d)
                    print("rm %s" % d)
                parts = dest.split("/")[:-1]
                for i in range(len(parts), 0, -1):
                    if "tuner" in parts[:i]:
                        dirs.add("/".join(parts[:i]))
            for rel in sorted(dirs, key=lambda p: -p.count("/")):
                d = root + "/" + rel
                if os.path.isdir(d) and not os.listdir(d):
                    os.rmdir(d)
                    print("rmdir %s" % d)
    except OSError as e:
        sys.stderr.write("install.py: %s\n" % e)
        sys.exit(1)


if __name__ == "__main__":
    main()
