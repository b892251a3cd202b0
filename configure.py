#!/usr/bin/env python3
"""Probe the toolchain and write build.ninja (standard library only)."""
import argparse
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.abspath(__file__))
# the texts compiled into the binary, by their extension under tuner/: the helper kernels
# (helpers.cu), report.html's style sheet and script (html.css, html.js)
EMBEDDED = ("cu", "css", "js", "inc")
WARN = ("-Wall -Wextra -Wshadow -Wmissing-prototypes -Wpedantic -Wno-unused-parameter "
        "-Werror=implicit-function-declaration -Werror=int-conversion")


def fail(msg):
    sys.stderr.write("configure.py: %s\n" % msg)
    sys.exit(1)


def sh(path):
    """path as one word of a shell command (spaces and all)"""
    return shlex.quote(path)


def esc(text):
    """text (shell words) as the value of a build.ninja variable or command"""
    return text.replace("$", "$$")


def path_ok(path, what):
    """fails unless path can stand in a C string and build.ninja: no quote, backslash or
    control character (spaces are fine)"""
    if re.search(r'["\\\x00-\x1f\x7f]', path):
        fail("%s %s: its path has a quote, backslash or control character, which the build "
             "cannot pass on; name it by a path without them (a symbolic link)" % (what, path))


def find_cuda():
    cands = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")]
    nvcc = shutil.which("nvcc")
    if nvcc:
        cands.append(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
    cands.append("/usr/local/cuda")
    for c in cands:
        if c and os.path.isfile(os.path.join(c, "include", "nvrtc.h")):
            path_ok(c, "CUDA Toolkit")
            return c
    fail("CUDA toolkit not found (no include/nvrtc.h under $CUDA_HOME, $CUDA_PATH, nvcc's "
         "prefix or /usr/local/cuda): install the CUDA Toolkit 13.0 (scripts/setup and "
         "docs/setup.md say how) or set CUDA_HOME")


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


def library(cc, prefix, pc, lib, probe, missing):
    """cflags and libs of a library installed under prefix (include/, lib/), else as pkg-config
    knows it, else -l<lib>; fails with `missing` if probe does not build against them"""
    if prefix:
        p = os.path.abspath(prefix)
        path_ok(p, "--%s-prefix" % lib)
        cflags = "-I" + sh(p + "/include")
        libs = "-L%s %s -l%s" % (sh(p + "/lib"), sh("-Wl,-rpath," + p + "/lib"), lib)
    else:
        cflags, libs = pkg(pc, lib)
    libs = libs or "-l" + lib
    ok, _ = try_compile(cc, cflags, libs, probe)
    if not ok:
        fail(missing)
    return cflags, libs


def modules(src):
    """the tuner/*.c that src needs: those of the headers it includes, transitively"""
    seen, todo, mods = set(), [src], []
    while todo:
        with open(todo.pop()) as f:
            incs = re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M)
        for inc in incs:
            h = os.path.join("tuner", os.path.basename(inc))
            if h in seen or not os.path.isfile(h):
                continue
            seen.add(h)
            todo.append(h)
            c = h[:-2] + ".c"
            if os.path.isfile(c) and c not in seen:
                seen.add(c)
                todo.append(c)
                mods.append(c)
    return sorted(mods)


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
    ap.add_argument("--jansson-prefix", metavar="DIR",
                    help="jansson installed under DIR (include/jansson.h, lib/libjansson.*)")
    ap.add_argument("--yaml-prefix", metavar="DIR",
                    help="libyaml installed under DIR (include/yaml.h, lib/libyaml.so)")
    ap.add_argument("--builddir", metavar="DIR", default="out",
                    help="objects and binaries under DIR (default: out); any other DIR gets "
                         "its own DIR/build.ninja: ninja -f DIR/build.ninja [test|fuzz]")
    ap.add_argument("--prefix", metavar="DIR", default="/usr/local",
                    help="ninja install puts the files under $DESTDIR/DIR: bin/tuner, "
                         "share/man/man1/tuner.1, share/tuner/{configs,templates}, "
                         "share/doc/tuner, lib/cmake/tuner (default: /usr/local)")
    args = ap.parse_args()
    bdir = os.path.normpath(args.builddir)
    if os.path.isabs(bdir) or bdir.startswith(".."):
        fail("--builddir: give a directory inside the source tree, not %s" % args.builddir)
    if not os.path.isabs(args.prefix) or "\n" in args.prefix:
        fail("--prefix: give an absolute directory, not %s" % args.prefix)
    prefix = os.path.normpath(args.prefix)
    os.chdir(ROOT)
    manifest = "build.ninja" if bdir == "out" else os.path.join(bdir, "build.ninja")

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

    ycflags, ylibs = library(cc, args.yaml_prefix, "yaml-0.1", "yaml",
                             "#include <yaml.h>\nint main(void){yaml_parser_t p;"
                             "return !yaml_parser_initialize(&p);}\n",
                             "libyaml not found (yaml.h / -lyaml): apt-get install libyaml-dev")
    jcflags, jlibs = library(cc, args.jansson_prefix, "jansson", "jansson",
                             "#include <jansson.h>\nint main(void){json_t *j = json_object();"
                             "return !j;}\n",
                             "jansson not found (jansson.h / -ljansson; tuner bundle reads "
                             "results.json with it): apt-get install libjansson-dev")

    cflags = "-std=c11 -D_POSIX_C_SOURCE=200809L " + WARN
    ldflags = ""
    if args.debug or args.sanitize:
        cflags += " -O1 -g -fno-omit-frame-pointer"
    else:
        cflags += " -O2 -g"
    if args.sanitize:
        cflags += " -fsanitize=address,undefined -fno-sanitize-recover=undefined"
        ldflags += " -fsanitize=address,undefined"
    ok, out = try_compile(cc, cflags + " -I" + sh(cuinc), "-L%s -lnvrtc" % sh(culib),
                          "#include <nvrtc.h>\nint main(void){int a,b;return nvrtcVersion(&a,&b);}\n")
    if not ok:
        fail("cannot build against NVRTC in %s:\n%s" % (culib, out))
    nvcc = os.path.join(cuda, "bin", "nvcc")

    # libFuzzer targets (ninja fuzz): clang with -fsanitize=fuzzer, never required by 'all'
    clang = os.environ.get("CLANG", "clang")
    fuzz_flags = ("-std=c11 -D_POSIX_C_SOURCE=200809L %s -O1 -g -fno-omit-frame-pointer "
                  "-fsanitize=address,undefined -fno-sanitize-recover=undefined" % WARN)
    fuzz_why = None
    if not shutil.which(clang):
        fuzz_why = "clang not found: apt-get install clang (or set CLANG)"
    else:
        ok, out = try_compile(clang, fuzz_flags + " -fsanitize=fuzzer", "",
                              "#include <stddef.h>\n#include <stdint.h>\n"
                              "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\n"
                              "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)"
                              "{(void)d;(void)n;return 0;}\n")
        if not ok:
            fuzz_why = ("%s cannot link a libFuzzer target (apt-get install libclang-rt-dev):\n%s"
                        % (clang, out))

    w = Writer()
    w.lines.append("# written by configure.py %s; edits are lost on regeneration"
                   % " ".join(shlex.quote(a) for a in sys.argv[1:]))
    w.var("ninja_required_version", "1.5")
    if bdir != "out":
        w.var("builddir", bdir)
    w.var("cc", cc)
    # where libcupti is looked for first (--counters): beside NVRTC, as the toolkit installs it;
    # without CUPTI's headers --counters says it was built without them
    cupti = os.path.isfile(os.path.join(cuinc, "cupti_range_profiler.h"))
    if not cupti:
        sys.stderr.write("configure.py: warning: no cupti_range_profiler.h in %s: --counters "
                         "will be unavailable (install the CUDA Toolkit's CUPTI)\n" % cuinc)
    w.var("cflags", esc(cflags + " -I%s %s %s %s%s" % (sh(cuinc), ycflags, jcflags,
                                                     sh('-DTUNER_CUDA_LIB="%s"' % culib),
                                                     "" if cupti else " -DTUNER_NO_CUPTI")))
    w.var("ldflags", esc(ldflags + " -L%s %s" % (sh(culib), sh("-Wl,-rpath," + culib))))
    w.var("libs", esc("-lnvrtc %s %s -ldl -lm" % (ylibs, jlibs)))
    w.var("nvcc", esc(sh(nvcc)))
    w.rule("cc", "$cc -MMD -MF $out.d $cflags -c $in -o $out", depfile="$out.d", deps="gcc",
           description="CC $out")
    w.rule("link", "$cc $ldflags $in -o $out $libs", description="LINK $out")
    w.rule("configure", " ".join([shlex.quote(sys.executable), "configure.py"] +
                                 [shlex.quote(a) for a in sys.argv[1:]]),
           generator="1", description="CONFIGURE")
    binenv = "" if bdir == "out" else "TUNER_BINDIR=%s/bin " % bdir
    if args.sanitize:
        # signals keep their meaning (the runner's tests kill workers on purpose); fewer frames
        # per allocation keep NVRTC's many mallocs affordable; bad input gets more than 1 s
        binenv += ("ASAN_OPTIONS=handle_segv=0:handle_sigbus=0:handle_sigfpe=0:"
                   "malloc_context_size=5 UBSAN_OPTIONS=print_stacktrace=1 TUNER_BAD_SECONDS=3 ")
    w.rule("test", "%sTUNER_NVCC=$nvcc tests/run.sh" % binenv, pool="console",
           description="TEST")

    srcs = sorted(glob.glob(os.path.join("tuner", "*.c")))
    tsrcs = sorted(glob.glob(os.path.join("tests", "*.c")))
    fsrcs = sorted(glob.glob(os.path.join("tests", "fuzz", "*.c")))
    # tuner/NAME.EXT, EXT one of EMBEDDED -> DIR/gen/NAME_EXT.c defining const char
    # NAME_EXT[], its exact text (a new such file changes the directory tuner, on which
    # build.ninja depends)
    texts = sorted(f for ext in EMBEDDED for f in glob.glob(os.path.join("tuner", "*." + ext)))
    w.rule("embed", "%s tuner/embed.py $name $in $out" % shlex.quote(sys.executable),
           depfile="$out.d", deps="gcc", description="EMBED $out")
    embeds = []
    for s in texts:
        name = os.path.basename(s).replace(".", "_")
        if not re.match(r"[A-Za-z_][A-Za-z0-9_]*$", name):
            fail("%s: its name does not make a C identifier (%s)" % (s, name))
        c = os.path.join(bdir, "gen", name + ".c")
        w.build([c], "embed", [s], implicit=["tuner/embed.py"], name=name)
        embeds.append((name, c))
    objs = []
    for s in srcs + tsrcs:
        o = os.path.join(bdir, "obj", s[:-2] + ".o")
        extra = {"cflags": "$cflags -Ituner"} if s.startswith("tests") else {}
        w.build([o], "cc", [s], **extra)
        objs.append((s, o))
    gen_o = []
    for name, c in embeds:  # one string literal longer than ISO C's 4095 minimum
        gen_o.append(os.path.join(bdir, "obj", "gen", name + ".o"))
        w.build([gen_o[-1]], "cc", [c], cflags="$cflags -Wno-overlength-strings")
    lib = [o for s, o in objs if s.startswith("tuner") and not s.endswith("main.c")] + gen_o
    main_o = [o for s, o in objs if s.endswith("tuner/main.c")]
    test_o = [o for s, o in objs if s.startswith("tests")]
    tuner, unit = os.path.join(bdir, "bin", "tuner"), os.path.join(bdir, "bin", "unit")
    w.build([tuner], "link", lib + main_o)
    w.build([unit], "link", lib + test_o)
    hdrs = sorted(glob.glob(os.path.join("tuner", "*.h")))
    # what ninja install copies: (mode, source, destination under the prefix); the configs name
    # their templates as ../templates/X.cu, so the two stay side by side; the documents keep
    # the paths the README names them by (docs/config.md, docs/bank-model.md)
    man = os.path.join(bdir, "man", "tuner.1")
    installs = [("755", tuner, "bin/tuner"), ("644", man, "share/man/man1/tuner.1")]
    for d, pat in (("templates", "*.cu"), ("configs", "*.yaml")):
        for f in sorted(glob.glob(os.path.join(d, pat))):
            installs.append(("644", f, "share/tuner/" + f))
    for f in (["README.md"] + sorted(glob.glob(os.path.join("docs", "*.md"))) +
              sorted(glob.glob(os.path.join("docs", "*.json")))):
        installs.append(("644", f, "share/doc/tuner/" + f))
    # the CMake package (find_package(tuner CONFIG), docs/bundle.md#cmake), its version file
    # written here from tuner/version.h
    with open(os.path.join("tuner", "version.h")) as f:
        version = re.search(r'#define TUNER_VERSION "([^"]+)"', f.read()).group(1)
    with open(os.path.join("cmake", "tunerConfigVersion.cmake.in")) as f:
        cver = f.read().replace("@TUNER_VERSION@", version)
    os.makedirs(os.path.join(bdir, "cmake"), exist_ok=True)
    with open(os.path.join(bdir, "cmake", "tunerConfigVersion.cmake"), "w") as f:
        f.write(cver)
    installs += [("644", os.path.join("cmake", "tunerConfig.cmake"),
                  "lib/cmake/tuner/tunerConfig.cmake"),
                 ("644", os.path.join(bdir, "cmake", "tunerConfigVersion.cmake"),
                  "lib/cmake/tuner/tunerConfigVersion.cmake")]
    w.build([manifest], "configure",
            implicit=["configure.py", "tuner", "tests", "templates", "configs", "docs",
                      "cmake/tunerConfigVersion.cmake.in"] +
            (["tests/fuzz"] if fsrcs else []) + srcs + hdrs + tsrcs + fsrcs)
    # a fake libcuda.so.1 for tests/fakegpu.sh: the GPU side of a run on the host
    fake = os.path.join(bdir, "fakecuda", "libcuda.so.1")
    w.rule("fakecuda", "$cc -std=c11 -D_POSIX_C_SOURCE=200809L %s -O1 -g -fPIC -shared -I%s "
           "$in -o $out" % (WARN, esc(sh(cuinc))), description="CC $out")
    w.build([fake], "fakecuda", ["tests/fakecuda/cuda.c"], implicit=["tuner/cmp.h"])
    w.build(["test"], "test", implicit=[tuner, unit, fake])

    # the man page, from the binary's own --help and --version (tuner/man.py)
    py = shlex.quote(sys.executable)
    w.var("prefix", shlex.quote(prefix).replace("$", "$$"))
    w.rule("man", "%s tuner/man.py --prefix $prefix $in $out" % py, description="MAN $out")
    w.build([man], "man", [tuner], implicit=["tuner/man.py"])
    # ninja install, ninja uninstall: under $DESTDIR$prefix
    w.var("installs", " ".join(shlex.quote(x).replace("$", "$$")
                               for i in installs for x in i))
    w.rule("install", "%s tuner/install.py install $prefix $installs" % py, pool="console",
           description="INSTALL $prefix")
    w.rule("uninstall", "%s tuner/install.py uninstall $prefix $installs" % py,
           pool="console", description="UNINSTALL $prefix")
    w.build(["install"], "install", implicit=[i[1] for i in installs] + ["tuner/install.py"])
    w.build(["uninstall"], "uninstall", implicit=["tuner/install.py"])

    # fuzz targets: tests/fuzz/NAME.c -> DIR/fuzz/NAME, linked with the modules it needs
    fuzz_bins = []
    if fuzz_why is None:
        w.var("clang", clang)
        # the toolkit's headers first, as for $cflags: <nvrtc.h> is not tuner/nvrtc.h
        w.var("fuzzflags", esc(fuzz_flags + " -I%s %s -Ituner" % (sh(cuinc), ycflags)))
        w.rule("fuzzcc", "$clang -MMD -MF $out.d $fuzzflags -fsanitize=fuzzer-no-link "
               "-c $in -o $out", depfile="$out.d", deps="gcc", description="CC $out")
        w.rule("fuzzlink", "$clang $fuzzflags -fsanitize=fuzzer $in -o $out "
               "-L%s %s $libs" % (esc(sh(culib)), esc(sh("-Wl,-rpath," + culib))),
               description="LINK $out")
        fobjs = {}
        for s in fsrcs:
            name = os.path.basename(s)[:-2]
            ins = []
            mods = modules(s)
            for m in [s] + mods:
                if m not in fobjs:
                    fobjs[m] = os.path.join(bdir, "fuzz", "obj", os.path.basename(m)[:-2] + ".o")
                    w.build([fobjs[m]], "fuzzcc", [m])
                ins.append(fobjs[m])
            for sym, gen in embeds:  # the embedded texts its modules refer to
                if not any(re.search(r"\b%s\b" % sym, open(m).read()) for m in mods):
                    continue
                if gen not in fobjs:
                    fobjs[gen] = os.path.join(bdir, "fuzz", "obj", "gen", sym + ".o")
                    w.build([fobjs[gen]], "fuzzcc", [gen],
                            fuzzflags="$fuzzflags -Wno-overlength-strings")
                ins.append(fobjs[gen])
            b = os.path.join(bdir, "fuzz", name)
            w.build([b], "fuzzlink", ins)
            fuzz_bins.append(b)
        w.build(["fuzz"], "phony", fuzz_bins)
    else:
        w.rule("nofuzz", "echo %s >&2; false" % shlex.quote("configure.py: " + fuzz_why),
               description="FUZZ")
        w.build(["fuzz"], "nofuzz")
    # ninja examples: the example application and the bundles it embeds (examples/build.sh),
    # never part of 'all'
    exdir = os.path.join(bdir, "examples")
    w.rule("examples", "examples/build.sh %s %s $nvcc" % (tuner, exdir), pool="console",
           description="EXAMPLES %s/app" % exdir)
    w.build([os.path.join(exdir, "app")], "examples",
            implicit=[tuner, "examples/build.sh", "examples/app.cu", "tests/bundle/fake_gpus.py",
                      "configs/filter21.yaml", "configs/reduction.yaml",
                      "templates/filter21.cu", "templates/reduction.cu",
                      "tests/ref/filter21.c", "tests/ref/sum.c", "tests/ref/ref.h"])
    w.build(["examples"], "phony", [os.path.join(exdir, "app")])
    w.lines.append("build all: phony %s %s %s %s" % (tuner, unit, man, fake))
    w.lines.append("default all")

    path = os.path.join(ROOT, manifest)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w") as f:
        f.write(w.text())
    os.replace(path + ".tmp", path)
    print("configure.py: CUDA %s, NVRTC in %s, libyaml %s,\n  fuzz targets %s, prefix %s; wrote %s"
          % (cuda, culib, ylibs, "with " + clang if fuzz_why is None else "unavailable",
             prefix, manifest))


if __name__ == "__main__":
    main()
