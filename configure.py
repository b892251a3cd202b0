#!/usr/bin/env python3
"""Probe the toolchain and write build.ninja (standard library only)."""
import argparse
import glob
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.abspath(__file__))
WARN = "-Wall -Wextra -Wshadow -Wmissing-prototypes -Wpedantic -Wno-unused-parameter"


def fail(msg):
    sys.stderr.write("configure.py: %s\n" % msg)
    sys.exit(1)


def find_cuda():
    cands = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")]
    nvcc = shutil.which("nvcc")
    if nvcc:
        cands.append(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
    cands.append("/usr/local/cuda")
    for c in cands:
        if c and os.path.isfile(os.path.join(c, "include", "nvrtc.h")):
            return c
    fail("CUDA toolkit not found (no include/nvrtc.h under $CUDA_HOME, $CUDA_PATH, nvcc's "
         "prefix or /usr/local/cuda): install the CUDA Toolkit or set CUDA_HOME")


def try_compile(cc, cflags, ldflags, src):
    with tempfile.TemporaryDirectory() as d:
        c = os.path.join(d, "t.c")
        with open(c, "w") as f:
            f.write(src)
        cmd = [cc] + shlex.split(cflags) + [c, "-o", os.path.join(d, "t")] + shlex.split(ldflags)
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        return r.returncode == 0, r.stdout.decode(errors="replace")


def pkg(name, what):
    if not shutil.which("pkg-config"):
        return "", ""
    r = subprocess.run(["pkg-config", "--cflags", "--libs", name], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL)
    if r.returncode != 0:
        return "", ""
    c = subprocess.run(["pkg-config", "--cflags", name], stdout=subprocess.PIPE).stdout.decode().strip()
    l = subprocess.run(["pkg-config", "--libs", name], stdout=subprocess.PIPE).stdout.decode().strip()
    return c, l


class Writer:
    def __init__(self):
        self.lines = []

    def var(self, k, v):
        self.lines.append("%s = %s" % (k, v))

    def rule(self, name, command, **kw):
        self.lines.append("rule %s" % name)
        self.lines.append("  command = %s" % command)
        for k, v in kw.items():
            self.lines.append("  %s = %s" % (k, v))

    def build(self, outs, rule, ins=(), implicit=(), order=(), **kw):
        s = "build %s: %s" % (" ".join(outs), rule)
        if ins:
            s += " " + " ".join(ins)
        if implicit:
            s += " | " + " ".join(implicit)
        if order:
            s += " || " + " ".join(order)
        self.lines.append(s)
        for k, v in kw.items():
            self.lines.append("  %s = %s" % (k, v))

    def text(self):
        return "\n".join(self.lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sanitize", action="store_true",
                    help="build with AddressSanitizer and UndefinedBehaviorSanitizer")
    ap.add_argument("--debug", action="store_true", help="-O1 -g")
    ap.add_argument("--yaml-prefix", metavar="DIR",
                    help="libyaml installed under DIR (include/yaml.h, lib/libyaml.so)")
    args = ap.parse_args()

    cc = os.environ.get("CC", "cc")
    if not shutil.which(cc):
        fail("C compiler '%s' not found: apt-get install gcc (or set CC)" % cc)
    if not shutil.which("ninja"):
        sys.stderr.write("configure.py: warning: ninja not found: apt-get install ninja-build\n")

    cuda = find_cuda()
    cuinc = os.path.join(cuda, "include")
    culib = None
    for d in ("lib64", "lib", "targets/x86_64-linux/lib"):
        if glob.glob(os.path.join(cuda, d, "libnvrtc.so*")):
            culib = os.path.join(cuda, d)
            break
    if not culib:
        fail("NVRTC library not found under %s (libnvrtc.so): install the CUDA Toolkit's "
             "NVRTC (cuda-nvrtc-dev)" % cuda)
    if not os.path.isfile(os.path.join(cuinc, "cuda.h")):
        fail("cuda.h not found in %s: install the CUDA Toolkit's driver API headers" % cuinc)

    if args.yaml_prefix:
        yp = os.path.abspath(args.yaml_prefix)
        ycflags = "-I%s/include" % yp
        ylibs = "-L%s/lib -Wl,-rpath,%s/lib -lyaml" % (yp, yp)
    else:
        ycflags, ylibs = pkg("yaml-0.1", "libyaml")
    if not ylibs:
        ylibs = "-lyaml"
    ok, out = try_compile(cc, ycflags, ylibs,
                          "#include <yaml.h>\nint main(void){yaml_parser_t p;"
                          "return !yaml_parser_initialize(&p);}\n")
    if not ok:
        fail("libyaml not found (yaml.h / -lyaml): apt-get install libyaml-dev")

    cflags = "-std=c11 -D_POSIX_C_SOURCE=200809L " + WARN
    ldflags = ""
    if args.debug or args.sanitize:
        cflags += " -O1 -g -fno-omit-frame-pointer"
    else:
        cflags += " -O2 -g"
    if args.sanitize:
        cflags += " -fsanitize=address,undefined -fno-sanitize-recover=undefined"
        ldflags += " -fsanitize=address,undefined"
    ok, out = try_compile(cc, cflags + " -I" + cuinc, "-L%s -lnvrtc" % culib,
                          "#include <nvrtc.h>\nint main(void){int a,b;return nvrtcVersion(&a,&b);}\n")
    if not ok:
        fail("cannot build against NVRTC in %s:\n%s" % (culib, out))
    nvcc = os.path.join(cuda, "bin", "nvcc")

    w = Writer()
    w.lines.append("# written by configure.py %s; edits are lost on regeneration"
                   % " ".join(sys.argv[1:]))
    w.var("ninja_required_version", "1.5")
    w.var("cc", cc)
    w.var("cflags", cflags + " -I%s %s" % (cuinc, ycflags))
    w.var("ldflags", ldflags + " -L%s -Wl,-rpath,%s" % (culib, culib))
    w.var("libs", "-lnvrtc %s -ldl -lm" % ylibs)
    w.var("nvcc", nvcc)
    w.rule("cc", "$cc -MMD -MF $out.d $cflags -c $in -o $out", depfile="$out.d", deps="gcc",
           description="CC $out")
    w.rule("link", "$cc $ldflags $in -o $out $libs", description="LINK $out")
    w.rule("configure", " ".join([shlex.quote(sys.executable), "configure.py"] +
                                 [shlex.quote(a) for a in sys.argv[1:]]),
           generator="1", description="CONFIGURE")
    w.rule("test", "TUNER_NVCC=$nvcc tests/run.sh", pool="console", description="TEST")

    srcs = sorted(glob.glob(os.path.join("tuner", "*.c")))
    tsrcs = sorted(glob.glob(os.path.join("tests", "*.c")))
    objs = []
    for s in srcs + tsrcs:
        o = os.path.join("out", "obj", s[:-2] + ".o")
        extra = {"cflags": "$cflags -Ituner"} if s.startswith("tests") else {}
        w.build([o], "cc", [s], **extra)
        objs.append((s, o))
    lib = [o for s, o in objs if s.startswith("tuner") and not s.endswith("main.c")]
    main_o = [o for s, o in objs if s.endswith("tuner/main.c")]
    test_o = [o for s, o in objs if s.startswith("tests")]
    w.build(["out/bin/tuner"], "link", lib + main_o)
    w.build(["out/bin/unit"], "link", lib + test_o)
    w.build(["build.ninja"], "configure", implicit=["configure.py", "tuner", "tests"] + srcs + tsrcs)
    w.build(["test"], "test", implicit=["out/bin/tuner", "out/bin/unit"])
    w.lines.append("build all: phony out/bin/tuner out/bin/unit")
    w.lines.append("default all")

    with open(os.path.join(ROOT, "build.ninja.tmp"), "w") as f:
        f.write(w.text())
    os.replace(os.path.join(ROOT, "build.ninja.tmp"), os.path.join(ROOT, "build.ninja"))
    print("configure.py: CUDA %s, NVRTC in %s, libyaml %s; wrote build.ninja"
          % (cuda, culib, ylibs))


if __name__ == "__main__":
    main()
