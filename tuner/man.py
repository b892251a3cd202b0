#!/usr/bin/env python3
"""Write tuner(1) from the program's own --help and --version, so the two never disagree.

usage: tuner/man.py [--prefix DIR] TUNER OUT

The help is read generically: the usage lines become the SYNOPSIS; the paragraph under them the
DESCRIPTION (a line starting "SUBCOMMAND:", for a subcommand of the usage lines, starts an
entry of its own); every line of an options block ("  -x, --long ARG   text", and the lines
indented under its text) one OPTIONS entry; a later paragraph "some label: text" a section
SOME LABEL ("exit status: 0 ..., 1 ..." one entry per status); any other paragraph goes on the
DESCRIPTION. What --help cannot say (the environment, the files, where the rest is documented)
is written here; tests/install.sh checks that every variable the sources read is in it.
"""
import argparse
import os
import re
import subprocess
import sys
import textwrap
import time

SUMMARY = "find the fastest shared-memory layout of a CUDA kernel"

# the variables a user sets (tuner/*.c's getenv, less the test hooks): name, text (%(prefix)s)
ENVIRONMENT = [
    ("TUNER_ARCH", "The architecture to compile for when there is no GPU and no --arch "
     "(sm_XX, e.g. sm_90); unset or empty: the newest NVRTC supports, which the output says."),
    ("TUNER_CACHE", "The compile cache directory when there is no --cache; it is created "
     "when needed."),
    ("XDG_CACHE_HOME", "Without TUNER_CACHE the cache is $XDG_CACHE_HOME/tuner (an absolute "
     "path only; a relative one is ignored)."),
    ("HOME", "Without either, the cache is ~/.cache/tuner, and only if the home directory "
     "exists; with no home, compiles are not cached."),
    ("TUNER_CUPTI", "The CUPTI library --counters loads (a path or a name for dlopen), tried "
     "before the toolkit's libcupti."),
    ("TUNER_BENCH_PROFILE", "Anything but 0: on a GPU, print to standard error the time each "
     "variant spent setting up, verifying, timing (its samples, then the compare after them) "
     "and unloading, and how long after the variant before it began; with several problem "
     "sizes, the means per variant as each size's buffers are replaced."),
    ("TUNER_NVRTC_MINIMAL", "0: compile without NVRTC's -minimal. Otherwise every program is "
     "compiled with it (2-10 % faster, the same cubin), and a program that needs what it "
     "leaves out (texture objects, the runtime's types) is compiled again without it, as are "
     "the later ones of its compiler process."),
    ("TUNER_TIMING_HOLD", "0: samples in the L2 are not held: their launches reach the GPU as "
     "the host issues them, so a kernel shorter than a launch is timed by the host's launch "
     "cost. Otherwise each such sample is queued behind a kernel that holds the stream until "
     "the host has enqueued it, and the GPU's time alone is measured."),
    ("TUNER_DISASM", "The disassembler explain --sass runs (nvdisasm or cuobjdump, a path); "
     "unset: nvdisasm, else cuobjdump, looked for in $CUDA_HOME/bin, /usr/local/cuda/bin and "
     "PATH, then nvdisasm where scripts/nvdisasm installs NVIDIA's wheel: "
     "$XDG_DATA_HOME/tuner/nvdisasm, else ~/.local/share/tuner/nvdisasm."),
    ("TUNER_DISASM_TIMEOUT", "The seconds the disassembler of explain --sass may take on one "
     "cubin (default 60); then it is killed with what it started, and the run exits 2."),
    ("TMPDIR", "Where explain --sass writes the cubin it hands the disassembler (default /tmp); "
     "removed once listed."),
    ("CUDA_VISIBLE_DEVICES", "The driver's own: the GPUs it shows, which --devices numbers from "
     "0. With it set, --devices all is every GPU it names, and the GPU workers open them side "
     "by side without first asking the driver about them all; each worker's driver sees only "
     "its own GPU (the driver's start-up takes time for each GPU it sees)."),
    ("CUDA_HOME", "Where explain --sass looks first for the toolkit's disassembler "
     "($CUDA_HOME/bin)."),
    ("PATH", "Where explain --sass looks for nvdisasm and cuobjdump after the toolkit."),
    ("XDG_DATA_HOME", "Where explain --sass looks last for nvdisasm: "
     "$XDG_DATA_HOME/tuner/nvdisasm, where scripts/nvdisasm installs NVIDIA's wheel (unset: "
     "~/.local/share)."),
    ("SOURCE_DATE_EPOCH", "Seconds since 1970: the time written into results and bundles "
     "instead of the current time (reproducible output)."),
]


def fail(msg):
    sys.stderr.write("man.py: %s\n" % msg)
    sys.exit(1)


def run(tuner, arg):
    try:
        r = subprocess.run([tuner, arg], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        fail("cannot run %s: %s" % (tuner, e))
    if r.returncode != 0:
        fail("%s %s: exit status %d: %s" % (tuner, arg, r.returncode,
                                            r.stderr.decode(errors="replace")))
    return r.stdout.decode(errors="replace").expandtabs()


def esc(s):
    """text as roff: backslashes and hyphens escaped"""
    return s.replace("\\", "\\e").replace("-", "\\-")


def line(s):
    """one output text line: no leading space, and a leading . or ' is not a request"""
    s = s.strip()
    return "\\&" + s if s[:1] in (".", "'") else s


def bold(s):
    return "\\fB%s\\fR" % esc(s)


def ital(s):
    return "\\fI%s\\fR" % esc(s)


def path(s):
    """a path: never hyphenated, but it may be broken after each slash"""
    return "\\%" + esc(s).replace("/", "/\\:")


class Help:
    def __init__(self, text):
        self.prog = None
        self.usage = []      # lines, without "usage:"
        self.subs = []       # subcommands named by the usage lines
        self.desc = []       # paragraphs: (subcommand or None, lines)
        self.options = []    # blocks: (heading or None, [(spec, [text lines])])
        self.sections = []   # (label, lines)
        self.parse(text)
        self.opts = set()    # option names, bold wherever prose mentions them
        self.holders = set() # placeholders, italic wherever prose mentions them
        for u in self.usage:
            self.holders.update(re.findall(r"\b[A-Z][A-Z0-9_]*\b", u))
        for _, opts in self.options:
            for spec, _ in opts:
                for name, arg in self.spec_parts(spec):
                    self.opts.add(name)
                    self.holders.update(re.findall(r"\b[A-Z][A-Z0-9_]*\b", arg))

    def parse(self, text):
        blocks, cur = [], []
        for ln in text.rstrip().splitlines():
            if ln.strip():
                cur.append(ln.rstrip())
            elif cur:
                blocks.append(cur)
                cur = []
        if cur:
            blocks.append(cur)
        if not blocks or not blocks[0][0].startswith("usage:"):
            fail("--help does not start with 'usage:'")
        first = blocks.pop(0)
        u = first.pop(0)[len("usage:"):].strip()
        self.prog = u.split()[0]
        self.usage.append(u)
        while first and first[0].split()[:1] == [self.prog] and first[0].startswith(" "):
            self.usage.append(first.pop(0).strip())
        for u in self.usage:
            m = re.match(r"%s\s+([a-z][\w-]*)\b" % re.escape(self.prog), u)
            if m and m.group(1) != "options":
                self.subs.append(m.group(1))
        self.description(first)
        for b in blocks:
            if self.option_block(b):
                continue
            m = re.match(r"([a-z][a-z ]*[a-z]):\s+(.*)$", b[0])
            if m:
                self.sections.append((m.group(1), [m.group(2)] + b[1:]))
            else:
                self.description(b)

    def description(self, lines):
        sub, cur = None, []
        for ln in lines:
            m = re.match(r"(%s):\s+(.*)$" % "|".join(map(re.escape, self.subs)), ln) \
                if self.subs else None
            if m:
                if cur:
                    self.desc.append((sub, cur))
                sub, cur = m.group(1), [m.group(2)]
            else:
                cur.append(ln)
        if cur:
            self.desc.append((sub, cur))

    def option_block(self, b):
        """an options block (an optional "heading:" line, then option lines and the lines
        indented under them): parsed into self.options, else False"""
        heading = None
        if b[0].rstrip().endswith(":") and not b[0].startswith(" "):
            heading, b = b[0].rstrip()[:-1], b[1:]
        if not b:
            return False
        m = re.match(r"(\s+)-", b[0])
        if not m:
            return False
        indent = len(m.group(1))
        opts = []
        for ln in b:
            ind = len(ln) - len(ln.lstrip())
            if ind == indent and ln.lstrip().startswith("-"):
                m = re.match(r"\s*(-\S.*?)(?:\s{2,}(\S.*))?$", ln)
                opts.append((m.group(1), [m.group(2)] if m.group(2) else []))
            elif ind > indent and opts:
                opts[-1][1].append(ln.strip())
            else:
                return False
        self.options.append((heading, opts))
        return True

    @staticmethod
    def spec_parts(spec):
        """'-q, --quiet' -> [('-q', ''), ('--quiet', '')]; '--size NAME=N' -> [('--size',
        ' NAME=N')]"""
        parts = []
        for p in re.split(r",\s*(?=-)", spec):
            m = re.match(r"(-{1,2}[A-Za-z0-9?][\w-]*)(.*)$", p.strip())
            if m:
                parts.append((m.group(1), m.group(2)))
            else:
                parts.append((p.strip(), ""))
        return parts

    def para(self, lines):
        """help text (a string or its lines) as roff text lines of at most 78 characters where
        words allow"""
        s = " ".join(x.strip() for x in ([lines] if isinstance(lines, str) else lines))
        return [line(x) for x in textwrap.wrap(self.prose(s), 78, break_long_words=False,
                                               break_on_hyphens=False)]

    def prose(self, s):
        """a line of help text as roff: option names bold, placeholders italic"""
        out, pos = [], 0
        for m in re.finditer(r"(?<![\w-])--?[A-Za-z][\w-]*|\b[A-Za-z_]\w*\b", s):
            out.append(esc(s[pos:m.start()]))
            t = m.group(0)
            out.append(bold(t) if t in self.opts else ital(t) if t in self.holders else esc(t))
            pos = m.end()
        out.append(esc(s[pos:]))
        return "".join(out)

    def synopsis(self, u):
        """a usage line: the program, its subcommand and options bold, the rest italic"""
        out, pos = [], 0
        for i, m in enumerate(re.finditer(r"[^\s\[\]|]+", u)):
            out.append(esc(u[pos:m.start()]))
            t = m.group(0)
            sub = i == 1 and t in self.subs and u[m.start() - 1] == " "
            out.append(bold(t) if i == 0 or sub or t.startswith("-") else ital(t))
            pos = m.end()
        out.append(esc(u[pos:]))
        return "".join(out)

    def tag(self, spec):
        out = []
        for name, arg in self.spec_parts(spec):
            a = re.sub(r"[^\s\[\]=|,<>]+", lambda m: "\x01" + m.group(0) + "\x02", arg)
            a = esc(a).replace("\x01", "\\fI").replace("\x02", "\\fR")
            out.append(bold(name) + a)
        return ", ".join(out)


def exit_statuses(text):
    """'0 success (a, b), 1 failure' -> [('0', 'success (a, b)'), ('1', 'failure')]: split at
    the commas outside parentheses that a number follows"""
    items, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += c == "("
        depth -= c == ")"
        if c == "," and depth == 0 and re.match(r",\s*\d+\s", text[i:]):
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    out = []
    for it in items:
        m = re.match(r"\s*(\d+)\s+(.*?)\s*$", it, re.S)
        if not m:
            return None
        out.append((m.group(1), m.group(2)))
    return out


def page(h, version, prefix, date):
    share = prefix.rstrip("/") + "/share"
    L = ['.\\" tuner(1), written by tuner/man.py from "%s --help" and "--version": edit the '
         'help, not this file' % h.prog,
         '.TH %s 1 "%s" "%s" "User Commands"' % (h.prog.upper(), date,
                                                  esc(version).replace('"', "")),
         ".nh",
         ".ad l",
         ".SH NAME",
         "%s \\- %s" % (esc(h.prog), esc(SUMMARY)),
         ".SH SYNOPSIS"]
    for i, u in enumerate(h.usage):
        if i:
            L.append(".br")
        L.append(line(h.synopsis(u)))
    L.append(".SH DESCRIPTION")
    for i, (sub, lines) in enumerate(h.desc):
        if sub:
            L += [".TP", line(bold(h.prog + " " + sub))]
        elif i:
            L.append(".PP")
        L += h.para(lines)
    L.append(".SH OPTIONS")
    for heading, opts in h.options:
        if heading:
            L += [".SS %s" % esc(heading)]
        for spec, text in opts:
            L += [".TP", line(h.tag(spec))] + h.para(text)
    for label, lines in h.sections:
        L.append(".SH %s" % esc(label.upper()))
        st = exit_statuses(" ".join(lines)) if label == "exit status" else None
        if st:
            for code, text in st:
                L += [".TP", line(bold(code))] + h.para(text)
        else:
            L += h.para(lines)
    L.append(".SH ENVIRONMENT")
    for name, text in ENVIRONMENT:
        L += [".TP", line(bold(name))] + h.para(text)
    conf = path(share + "/tuner/configs/transpose.yaml")
    L += [".SH FILES",
          ".TP", line(path("~/.cache/tuner/")),
          *h.para("The compile cache (see ENVIRONMENT and --cache); safe to delete."),
          ".TP", line(path("out/<kernel>/<gpu>/")),
          *h.para("What a run writes (--out): best.cu and best.h (the winner, with its launch "
                  "header), report.html (the run at a glance, one page that loads nothing), "
                  "results.json (its schema: docs/results.schema.json) and results.csv, "
                  "results.t4.json (with --t4), the config and template as tuned, the journal "
                  "of finished GPU results."),
          ".TP", line(path(share + "/tuner/configs/")),
          *h.para("Example configs; each names its template as ../templates/NAME.cu, relative "
                  "to itself, so the two directories stay side by side."),
          ".TP", line(path(share + "/tuner/templates/")),
          *h.para("Their kernel templates and reference kernels."),
          ".TP", line(path(share + "/doc/tuner/")),
          *h.para("README.md, and in docs/ the setup (docs/setup.md), the config format "
                  "(docs/config.md), the results format and its schema, the bank model, the "
                  "search and the architecture."),
          ".SH EXAMPLES",
          *h.para("List the variants of an example config, tune it on the GPU in front of you, "
                  "then bundle the winners of every GPU it was tuned on:"),
          ".PP", ".RS",
          "%s \\-\\-dry\\-run" % bold(h.prog), line(conf), ".br",
          bold(h.prog), line(conf), ".br",
          line("%s bundle out/transpose" % bold(h.prog)),
          ".RE",
          ".SH SEE ALSO",
          line("\\fBnvcc\\fR(1);"),
          line(path(share + "/doc/tuner/README.md") + ","),
          line(path(share + "/doc/tuner/docs/config.md") + " (the config format),"),
          line(path(share + "/doc/tuner/docs/bank-model.md") + " (the bank model).")]
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prefix", default="/usr/local", help="where the files are installed")
    ap.add_argument("tuner", help="the binary whose --help and --version are read")
    ap.add_argument("out", help="the man page to write")
    args = ap.parse_args()
    h = Help(run(args.tuner, "--help"))
    v = run(args.tuner, "--version").split()
    version = " ".join(v[:2]) if v else h.prog
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    date = time.strftime("%Y-%m-%d", time.gmtime(int(epoch) if epoch else None))
    text = page(h, version, args.prefix, date)
    d = os.path.dirname(args.out)
    if d:
        os.makedirs(d, exist_ok=True)
    with open(args.out + ".tmp", "w") as f:
        f.write(text)
    os.replace(args.out + ".tmp", args.out)


if __name__ == "__main__":
    main()
