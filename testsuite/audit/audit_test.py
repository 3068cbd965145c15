#!/usr/bin/env python3
"""Tests of simaudit and detsim-cc --audit; each case is one CTest test.

The planted programs mark every escape's line with `PLANT <kind> [name]`;
the cases build them into a fresh directory and require simaudit to name
exactly those, each with its function and file:line.

  planted   planted.c (+ helper_atomic.c in a static library built with
            plain clang): the syscall, rdtsc, cpuid, lock xadd, shm_open call
            and the helper's atomic, each in its function at its line;
            nothing else; exit status 1
  json      --json parses and holds the same findings as the text
  clean     examples/bank as a simulation build: no findings, exit 0 (also
            with --libs)
  native    examples/bank built with plain clang: 'runtime' (no
            libdetsim_rt) and its atomics, which no yield point precedes
  libs      a clean program loading a plain shared library that runs rdtsc:
            nothing without --libs, the library's rdtsc (function, line)
            with it; glibc and the runtime are not audited
  ignore    a suppression file: matched findings leave, the rest stay;
            suppressing all gives exit 0; a bad line is exit 2
  bad-input missing file, a file that is not ELF, an object file, no
            arguments, an unknown option: exit 2 and one clear error
  cc-audit  detsim-cc --audit fails the link of planted.c (status 1, output
            removed), passes bank.c (status 0, output kept);
            --audit=warn links planted.c with status 0 and prints findings
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def plants(path):
    """{(kind, file, line)} of the PLANT markers in a source file."""
    out = set()
    with open(path) as f:
        for n, line in enumerate(f, 1):
            m = re.search(r"/\* PLANT (\w+)", line)
            if m:
                out.add((m.group(1), os.path.basename(path), n))
    return out


def function_of(path, line):
    """The C function whose body holds `line` (the last definition above)."""
    name = None
    with open(path) as f:
        for n, text in enumerate(f, 1):
            m = re.search(r"\b(\w+)\([^;()]*\)\s*\{\s*$", text) if not text[0].isspace() else None
            if m:
                name = m.group(1)
            if n == line:
                return name
    return None


TEXT = re.compile(r"^(?P<file>[^:\s]+):(?P<line>\d+): (?P<kind>\w+): (?P<what>.*?)"
                  r"(?: in (?P<func>\w+))?: ")


def text_findings(stdout):
    out = []
    for line in stdout.splitlines():
        if line.startswith("simaudit:"):
            continue
        m = TEXT.match(line)
        if not m:
            fail("unparsed finding line: " + line)
        out.append((m.group("kind"), os.path.basename(m.group("file")), int(m.group("line")),
                    m.group("func")))
    return out


class Env:
    def __init__(self, args, tmp):
        self.bin = args.bin
        self.clang = args.clang
        self.tmp = tmp
        self.cc = os.path.join(args.bin, "detsim-cc")
        self.simaudit = os.path.join(args.bin, "simaudit")

    def src(self, name):
        return os.path.join(HERE, name)

    def build_planted(self, out="planted", extra=()):
        obj = os.path.join(self.tmp, "helper_atomic.o")
        lib = os.path.join(self.tmp, "libhelper.a")
        r = run([self.clang, "-O1", "-g", "-c", self.src("helper_atomic.c"), "-o", obj])
        if r.returncode != 0:
            fail("plain clang: " + r.stderr)
        if run(["ar", "rcs", lib, obj]).returncode != 0:
            fail("ar failed")
        path = os.path.join(self.tmp, out)
        r = run([self.cc, *extra, "-O1", "-g", "-o", path, self.src("planted.c"), lib])
        return path, r

    def build_clean(self, out="bank", extra=()):
        path = os.path.join(self.tmp, out)
        r = run([self.cc, *extra, "-O1", "-g", "-o", path,
                 os.path.join(ROOT, "examples", "bank", "bank.c")])
        return path, r

    def audit(self, *args):
        return run([self.simaudit, *args])


def expected_planted(env):
    want = plants(env.src("planted.c")) | plants(env.src("helper_atomic.c"))
    out = set()
    for kind, f, line in want:
        out.add((kind, f, line, function_of(env.src(f), line)))
    return out


def case_planted(env):
    prog, r = env.build_planted()
    if r.returncode != 0:
        fail("detsim-cc planted.c: " + r.stderr)
    r = env.audit(prog)
    if r.returncode != 1:
        fail("status %d, expected 1\n%s%s" % (r.returncode, r.stdout, r.stderr))
    got = text_findings(r.stdout)
    want = expected_planted(env)
    if len(want) != 6:
        fail("expected 6 planted escapes in the sources, found %d" % len(want))
    if sorted(set(got)) != sorted(got):
        fail("a finding is reported twice: %s" % got)
    if set(got) != want:
        fail("findings differ\n got: %s\nwant: %s\n%s" % (sorted(got), sorted(want), r.stdout))
    if "call to 'shm_open'" not in r.stdout or "6 escapes" not in r.stdout:
        fail("shm_open or the count is not named:\n" + r.stdout)
    print(r.stdout, end="")


def case_json(env):
    prog, r = env.build_planted()
    if r.returncode != 0:
        fail("detsim-cc planted.c: " + r.stderr)
    text = env.audit(prog)
    js = env.audit("--json", prog)
    if js.returncode != 1:
        fail("--json status %d, expected 1" % js.returncode)
    doc = json.loads(js.stdout)
    got = sorted((f["kind"], os.path.basename(f["file"]), f["line"], f["function"])
                 for f in doc["findings"])
    if got != sorted(text_findings(text.stdout)):
        fail("json and text differ:\n%s\n%s" % (got, text.stdout))
    if doc["escapes"] != 6 or doc["suppressed"] != 0 or doc["objects"] != [prog]:
        fail("json summary wrong: %s" % {k: doc[k] for k in ("escapes", "suppressed", "objects")})
    calls = [f["call"] for f in doc["findings"] if f["kind"] == "libc"]
    if calls != ["shm_open"]:
        fail("json libc calls: %s" % calls)
    print("json: %d findings, same as text" % len(got))


def case_clean(env):
    prog, r = env.build_clean()
    if r.returncode != 0:
        fail("detsim-cc bank.c: " + r.stderr)
    for args in ([prog], ["--libs", prog]):
        r = env.audit(*args)
        if r.returncode != 0 or text_findings(r.stdout):
            fail("%s: status %d\n%s%s" % (args, r.returncode, r.stdout, r.stderr))
    j = json.loads(env.audit("--json", prog).stdout)
    if j["findings"] != [] or j["escapes"] != 0:
        fail("json of a clean build has findings: %s" % j)
    print(r.stdout, end="")


def case_native(env):
    prog = os.path.join(env.tmp, "bank_native")
    r = run([env.clang, "-O1", "-g", "-o", prog, os.path.join(ROOT, "examples", "bank", "bank.c"),
             "-I" + os.path.join(env.bin, "..", "include"), "-lpthread"])
    if r.returncode != 0:
        fail("plain clang bank.c: " + r.stderr)
    r = env.audit("--json", prog)
    doc = json.loads(r.stdout)
    kinds = [f["kind"] for f in doc["findings"]]
    if r.returncode != 1 or kinds.count("runtime") != 1 or kinds.count("atomic") < 1:
        fail("native build: status %d, kinds %s" % (r.returncode, kinds))
    sim, r2 = env.build_clean()
    if r2.returncode != 0 or env.audit(sim).returncode != 0:
        fail("the same source as a simulation build is not clean")
    print("native: %s" % sorted(set(kinds)))


def case_libs(env):
    lib = os.path.join(env.tmp, "librdtsc.so")
    r = run([env.clang, "-O1", "-g", "-shared", "-fPIC", "-o", lib, env.src("lib_rdtsc.c")])
    if r.returncode != 0:
        fail("plain clang -shared: " + r.stderr)
    prog = os.path.join(env.tmp, "uses_lib")
    r = run([env.cc, "-O1", "-g", "-o", prog, env.src("uses_lib.c"), "-L" + env.tmp, "-lrdtsc",
             "-Wl,-rpath," + env.tmp])
    if r.returncode != 0:
        fail("detsim-cc uses_lib.c: " + r.stderr)
    r = env.audit(prog)
    if r.returncode != 0 or text_findings(r.stdout):
        fail("without --libs: status %d\n%s" % (r.returncode, r.stdout))
    r = env.audit("--libs", prog)
    (kind, f, line), = plants(env.src("lib_rdtsc.c"))
    want = [(kind, f, line, "lib_ticks")]
    if r.returncode != 1 or text_findings(r.stdout) != want:
        fail("with --libs: status %d, want %s\n%s%s" % (r.returncode, want, r.stdout, r.stderr))
    doc = json.loads(env.audit("--libs", "--json", prog).stdout)
    bases = [os.path.basename(o) for o in doc["objects"]]
    if bases != ["uses_lib", "librdtsc.so"]:
        fail("audited objects: %s (glibc and libdetsim_rt must be left out)" % bases)
    print(r.stdout, end="")


def case_ignore(env):
    prog, r = env.build_planted()
    if r.returncode != 0:
        fail("detsim-cc planted.c: " + r.stderr)
    sup = os.path.join(env.tmp, "some.supp")
    with open(sup, "w") as f:
        f.write("# planted on purpose\nsyscall:plant_syscall\n  rdtsc:*  \nlibc:shm_open\n"
                "atomic:helper_atomic.c\n")
    r = env.audit("--ignore", sup, prog)
    got = text_findings(r.stdout)
    want = {w for w in expected_planted(env)
            if w[0] == "cpuid" or (w[0] == "atomic" and w[1] == "planted.c")}
    if r.returncode != 1 or set(got) != want or "4 suppressed" not in r.stdout:
        fail("partial suppression: status %d, got %s, want %s\n%s"
             % (r.returncode, got, want, r.stdout))
    all_sup = os.path.join(env.tmp, "all.supp")
    with open(all_sup, "w") as f:
        f.write("*:planted*\n*:helper_count\n")
    r = env.audit("--ignore", all_sup, prog)
    if r.returncode != 0 or text_findings(r.stdout) or "6 suppressed" not in r.stdout:
        fail("full suppression: status %d\n%s" % (r.returncode, r.stdout))
    bad = os.path.join(env.tmp, "bad.supp")
    with open(bad, "w") as f:
        f.write("syscall:ok\nno colon here\n")
    r = env.audit("--ignore", bad, prog)
    if r.returncode != 2 or "bad.supp:2" not in r.stderr:
        fail("bad suppression line: status %d, stderr %r" % (r.returncode, r.stderr))
    print("ignore: partial, full and bad suppression files behave")


def case_bad_input(env):
    text = os.path.join(env.tmp, "notes.txt")
    with open(text, "w") as f:
        f.write("not a program\n")
    obj = os.path.join(env.tmp, "helper.o")
    if run([env.clang, "-c", env.src("helper_atomic.c"), "-o", obj]).returncode != 0:
        fail("plain clang -c")
    cases = [
        ([os.path.join(env.tmp, "missing")], r"missing: cannot open: No such file"),
        ([text], r"notes.txt: not an ELF file"),
        ([obj], r"helper.o: not an executable or shared library"),
        ([], r"no program to audit"),
        (["--frobnicate", text], r"unknown option '--frobnicate'"),
        (["--ignore"], r"--ignore needs a file"),
        (["--ignore", os.path.join(env.tmp, "nope.supp"), text], r"nope.supp: cannot open"),
    ]
    for args, msg in cases:
        r = env.audit(*args)
        if r.returncode != 2 or not re.search("simaudit: error: .*" + msg, r.stderr) or r.stdout:
            fail("%s: status %d, stdout %r, stderr %r" % (args, r.returncode, r.stdout, r.stderr))
    print("bad input: %d cases, each exit 2 with its error" % len(cases))


def case_cc_audit(env):
    prog, r = env.build_planted(out="planted_audit", extra=["--audit"])
    if r.returncode != 1 or os.path.exists(prog):
        fail("--audit of planted.c: status %d, output %s\n%s"
             % (r.returncode, "kept" if os.path.exists(prog) else "removed", r.stderr))
    if "detsim-cc: error: simaudit names escapes" not in r.stderr or "plant_rdtsc" not in r.stderr:
        fail("--audit does not say why:\n" + r.stderr)
    prog, r = env.build_planted(out="planted_warn", extra=["--audit=warn"])
    if r.returncode != 0 or not os.path.exists(prog) or "plant_cpuid" not in r.stderr:
        fail("--audit=warn: status %d\n%s" % (r.returncode, r.stderr))
    prog, r = env.build_clean(out="bank_audit", extra=["--audit"])
    if r.returncode != 0 or not os.path.exists(prog) or "no escapes" not in r.stderr:
        fail("--audit of bank.c: status %d\n%s" % (r.returncode, r.stderr))
    r = run([env.cc, "--audit=sometimes", "-o", os.path.join(env.tmp, "x"), env.src("uses_lib.c")])
    if r.returncode != 2:
        fail("--audit=sometimes: status %d" % r.returncode)
    print("detsim-cc --audit: planted fails, warn passes, clean passes")


CASES = {"planted": case_planted, "json": case_json, "clean": case_clean, "native": case_native,
         "libs": case_libs,
         "ignore": case_ignore, "bad-input": case_bad_input, "cc-audit": case_cc_audit}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("case", choices=sorted(CASES))
    p.add_argument("--bin", required=True)
    p.add_argument("--clang", required=True)
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="simaudit-") as tmp:
        CASES[args.case](Env(args, tmp))
    print("PASS")


if __name__ == "__main__":
    main()
