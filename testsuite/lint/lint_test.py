#!/usr/bin/env python3
"""Tests of detsim-lint; each case is one CTest test (label lint).

The planted sources mark each finding's line with
`PLANT <check> <warning|note> <token>`: detsim-lint must name exactly
those, each at file:line:col (the column of the token), with its check and
severity.

  planted   planted.c: every planted escape of the five checks at its place,
            nothing else, in the order of their places; exit status 1; the
            summary counts them
  clean     examples/kv, examples/bank and clean.c (near misses of every
            check): no finding, exit 0
  compdb    a generated compile_commands.json (a define and a relative
            include directory only its commands give, detsim-cc as the
            compiler with -c/-o/-MD/-MF): -p lints all its files by absolute
            path, -p with a named file lints that one, a file not in it is
            exit 2; the same file without its arguments does not compile
            (exit 2) and with them after `--` it does
  disable   --disable=CHECK drops that check's findings and only those (each
            check, and a list); notes alone give exit 0
  cc-lint   detsim-cc --lint fails the compile of planted.c (status 1, no
            object, the findings on stderr), compiles clean.c (status 0,
            nothing printed); --lint=warn compiles planted.c (status 0) and
            prints the findings; DETSIM_LINT=1 is --lint; a bad value is 2
  bad-input a missing file, no arguments, an unknown option, -p without a
            directory or without compile_commands.json, a bad check name, a
            file that does not compile, a database that is not JSON: exit 2
            and one clear error
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
CHECKS = ["spin-wait", "inline-asm", "time-seed", "raw-syscall", "unsupported-call"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def plants(path, shown=None):
    """{(file, line, col, severity, check)} of the PLANT markers."""
    out = set()
    with open(path) as f:
        for n, text in enumerate(f, 1):
            for m in re.finditer(r"/\* PLANT ([\w-]+) (warning|note) (\w+) \*/", text):
                col = text.find(m.group(3)) + 1
                if col == 0:
                    fail("%s:%d: token %s not on its line" % (path, n, m.group(3)))
                out.add((shown or path, n, col, m.group(2), m.group(1)))
    return out


FINDING = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>warning|note): "
                     r"(?P<what>.+) \[detsim-(?P<check>[\w-]+)\]$")


def findings(stdout):
    """The findings of a run; the summary line is checked and left out."""
    out = []
    summary = None
    for line in stdout.splitlines():
        if line.startswith("detsim-lint: "):
            summary = line
            continue
        m = FINDING.match(line)
        if not m:
            fail("unparsed output line: " + line)
        out.append((m.group("file"), int(m.group("line")), int(m.group("col")), m.group("sev"),
                    m.group("check")))
    if summary is None:
        fail("no summary line:\n" + stdout)
    return out, summary


class Env:
    def __init__(self, args, tmp):
        self.lint = os.path.join(args.bin, "detsim-lint")
        self.cc = os.path.join(args.bin, "detsim-cc")
        self.tmp = tmp

    def src(self, name):
        return os.path.join(HERE, name)

    def run(self, *args, cwd=None):
        return run([self.lint, *args], cwd=cwd)


def expect_same(got, want, out):
    if len(set(got)) != len(got):
        fail("a finding is reported twice:\n" + out)
    if set(got) != set(want):
        fail("findings differ\n missing: %s\n extra:   %s\n%s"
             % (sorted(set(want) - set(got)), sorted(set(got) - set(want)), out))


def case_planted(env):
    path = env.src("planted.c")
    r = env.run(path)
    if r.returncode != 1:
        fail("status %d, expected 1\n%s%s" % (r.returncode, r.stdout, r.stderr))
    got, summary = findings(r.stdout)
    want = plants(path)
    for check in CHECKS:
        if not any(w[4] == check for w in want):
            fail("planted.c plants nothing for " + check)
    expect_same(got, want, r.stdout)
    if got != sorted(got, key=lambda f: (f[1], f[2], CHECKS.index(f[4]))):
        fail("findings are not in the order of their places:\n" + r.stdout)
    warnings = sum(1 for w in want if w[3] == "warning")
    notes = len(want) - warnings
    if summary != "detsim-lint: %d warnings, %d notes (1 file)" % (warnings, notes):
        fail("summary: %r (want %d warnings, %d notes)" % (summary, warnings, notes))
    for word in ("'ready'", "'q->done'", "'rdtsc'", "'syscall'", "'lock xaddl'", "'pause'",
                 "SYS_clone", "SYS_io_uring_setup", "syscall(999)", "'shm_unlink'", "'shm_open'",
                 "time()", "__rdtsc()", "asm_ticks()", "'&local'", "clock_gettime()",
                 "POSIX shared memory objects are not simulated"):
        if word not in r.stdout:
            fail("the findings do not name %s:\n%s" % (word, r.stdout))
    print(r.stdout, end="")


def case_clean(env):
    files = [os.path.join(ROOT, "examples", "kv", f) for f in ("kv_client.c", "kv_net.c", "kv_server.c")]
    files += [os.path.join(ROOT, "examples", "bank", "bank.c"), env.src("clean.c")]
    r = env.run(*files)
    got, summary = findings(r.stdout)
    if r.returncode != 0 or got or summary != "detsim-lint: no findings (%d files)" % len(files):
        fail("clean sources: status %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
    # The same with the kv server's planted-bug build, which detsim-cc makes.
    r = env.run(files[2], "--", "-DKV_PLANTED_BUG")
    if r.returncode != 0 or findings(r.stdout)[0]:
        fail("kv_server.c -DKV_PLANTED_BUG: status %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
    print(r.stdout, end="")


def write_db(env, entries):
    with open(os.path.join(env.tmp, "compile_commands.json"), "w") as f:
        json.dump(entries, f, indent=1)


def case_compdb(env):
    src = os.path.join(env.tmp, "src")
    os.makedirs(os.path.join(src, "inc"))
    with open(os.path.join(src, "inc", "lint_db.h"), "w") as f:
        f.write('#define LINT_DB_COMMAND "/lint-db"\n')
    needs = env.src("needs_define.c")
    clean = env.src("clean.c")
    planted = env.src("planted.c")
    entries = [
        {"directory": src, "file": needs,
         "arguments": [env.cc, "-DLINT_FROM_DB", "-Iinc", "-MD", "-MF", "needs.d", "-c", needs,
                       "-o", "needs.o"]},
        {"directory": src, "file": clean,
         "command": "%s -O2 -Wall -c %s -o clean.o" % (env.cc, clean)},
        {"directory": src, "file": planted,
         "arguments": ["clang-19", "--audit", "-c", planted, "-o", "planted.o"]},
    ]
    write_db(env, entries)
    r = env.run("-p", env.tmp)
    if r.returncode != 1:
        fail("-p (all files): status %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
    got, summary = findings(r.stdout)
    want = plants(needs) | plants(planted)
    expect_same(got, want, r.stdout)
    if not summary.endswith("(3 files)"):
        fail("-p: summary %r" % summary)
    for name in ("needs.o", "clean.o", "planted.o", "needs.d"):
        if os.path.exists(os.path.join(src, name)):
            fail("-p wrote %s: it must only parse" % name)
    r = env.run("-p", env.tmp, needs)
    got, _ = findings(r.stdout)
    if r.returncode != 1 or set(got) != plants(needs):
        fail("-p with needs_define.c: status %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
    r = env.run("-p", env.tmp, clean)
    if r.returncode != 0 or findings(r.stdout)[0]:
        fail("-p with clean.c: status %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
    r = env.run("-p", env.tmp, os.path.join(ROOT, "examples", "bank", "bank.c"))
    if r.returncode != 2 or "bank.c: not in" not in r.stderr:
        fail("-p with a file not in the database: status %d\n%s" % (r.returncode, r.stderr))
    # Without a database: the file alone does not compile, with its arguments it does.
    r = env.run(needs)
    if r.returncode != 2 or "compiled without its compile command" not in r.stderr \
            or "does not compile" not in r.stderr:
        fail("needs_define.c without arguments: status %d\n%s" % (r.returncode, r.stderr))
    r = env.run(needs, "--", "-DLINT_FROM_DB", "-I" + os.path.join(src, "inc"))
    got, _ = findings(r.stdout)
    if r.returncode != 1 or set(got) != plants(needs):
        fail("needs_define.c -- args: status %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
    print("compdb: all files, one file, a missing file, and -- arguments behave")


def case_disable(env):
    path = env.src("planted.c")
    want = plants(path)
    for check in CHECKS:
        r = env.run("--disable=" + check, path)
        got, _ = findings(r.stdout)
        expect_same(got, {w for w in want if w[4] != check}, r.stdout)
        if r.returncode != 1:
            fail("--disable=%s: status %d" % (check, r.returncode))
    r = env.run("--disable", "spin-wait,inline-asm", "--disable=unsupported-call", path)
    got, _ = findings(r.stdout)
    expect_same(got, {w for w in want if w[4] in ("time-seed", "raw-syscall")}, r.stdout)
    r = env.run("--disable=" + ",".join(CHECKS), path)
    if r.returncode != 0 or findings(r.stdout)[0]:
        fail("every check disabled: status %d\n%s" % (r.returncode, r.stdout))
    notes_only = os.path.join(env.tmp, "notes_only.c")
    with open(notes_only, "w") as f:
        f.write("#include <stdlib.h>\n#include <time.h>\n"
                "void seed(void) { srand((unsigned)time(NULL)); }\n")
    r = env.run(notes_only)
    got, summary = findings(r.stdout)
    if r.returncode != 0 or got != [(notes_only, 3, 19, "note", "time-seed")] \
            or summary != "detsim-lint: 0 warnings, 1 note (1 file)":
        fail("a note alone: status %d\n%s" % (r.returncode, r.stdout))
    r = env.run("--list-checks")
    if r.returncode != 0 or [l.split(":")[0] for l in r.stdout.splitlines()] != CHECKS:
        fail("--list-checks:\n" + r.stdout)
    print("disable: each check, a list, all; a note alone exits 0")


def case_bad_input(env):
    broken = os.path.join(env.tmp, "broken.c")
    with open(broken, "w") as f:
        f.write("int main(void) { return undeclared_name; }\n")
    empty_dir = os.path.join(env.tmp, "nodb")
    os.makedirs(empty_dir)
    bad_db = os.path.join(env.tmp, "baddb")
    os.makedirs(bad_db)
    with open(os.path.join(bad_db, "compile_commands.json"), "w") as f:
        f.write("this is not json\n")
    cases = [
        ([os.path.join(env.tmp, "missing.c")], r"missing\.c: cannot open: No such file"),
        ([], r"no file to lint"),
        (["--frobnicate", broken], r"unknown option '--frobnicate'"),
        (["-p"], r"-p needs a build directory"),
        (["-p", empty_dir], r"nodb/compile_commands\.json: cannot open: No such file"),
        (["-p", bad_db], r"baddb/compile_commands\.json: not a compile database"),
        (["--disable=spin", broken], r"--disable: no check named 'spin'"),
        ([broken], r"broken\.c: does not compile \(1 error\), not linted"),
    ]
    for args, msg in cases:
        r = env.run(*args)
        if r.returncode != 2 or not re.search("detsim-lint: error: .*" + msg, r.stderr):
            fail("%s: status %d, stderr %r" % (args, r.returncode, r.stderr))
        if findings(r.stdout)[0] if r.stdout else False:
            fail("%s: findings on bad input" % args)
    r = env.run(broken)
    if "use of undeclared identifier 'undeclared_name'" not in r.stderr:
        fail("clang's own error is not shown: %r" % r.stderr)
    print("bad input: %d cases, each exit 2 with its error" % len(cases))


def case_cc_lint(env):
    planted = env.src("planted.c")
    obj = os.path.join(env.tmp, "planted.o")
    r = run([env.cc, "--lint", "-O1", "-c", planted, "-o", obj])
    if r.returncode != 1 or os.path.exists(obj):
        fail("--lint of planted.c: status %d, object %s\n%s"
             % (r.returncode, "made" if os.path.exists(obj) else "not made", r.stderr))
    lines = [l for l in r.stderr.splitlines() if l.startswith(planted + ":") and "[detsim-" in l]
    got, _ = findings("\n".join(lines + ["detsim-lint: summary"]))
    expect_same(got, plants(planted), r.stderr)
    if "detsim-cc: error: detsim-lint names escapes" not in r.stderr or r.stdout:
        fail("--lint does not say why, or writes to stdout:\n" + r.stderr)
    r = run([env.cc, "--lint=warn", "-O1", "-c", planted, "-o", obj])
    if r.returncode != 0 or not os.path.exists(obj) or "[detsim-spin-wait]" not in r.stderr \
            or "detsim-cc: warning: detsim-lint names escapes" not in r.stderr:
        fail("--lint=warn: status %d\n%s" % (r.returncode, r.stderr))
    prog = os.path.join(env.tmp, "clean")
    r = run([env.cc, "--lint", "-O1", "-o", prog, env.src("clean.c")])
    if r.returncode != 0 or not os.path.exists(prog) or r.stderr or r.stdout:
        fail("--lint of clean.c: status %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
    r = run([env.cc, "-c", planted, "-o", obj], env=dict(os.environ, DETSIM_LINT="1"))
    if r.returncode != 1 or "[detsim-inline-asm]" not in r.stderr:
        fail("DETSIM_LINT=1: status %d\n%s" % (r.returncode, r.stderr))
    r = run([env.cc, "--lint=sometimes", "-c", planted, "-o", obj])
    if r.returncode != 2 or "--lint=sometimes" not in r.stderr:
        fail("--lint=sometimes: status %d\n%s" % (r.returncode, r.stderr))
    print("detsim-cc --lint: planted fails, warn compiles, clean is silent")


CASES = {"planted": case_planted, "clean": case_clean, "compdb": case_compdb,
         "disable": case_disable, "bad-input": case_bad_input, "cc-lint": case_cc_lint}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("case", choices=sorted(CASES))
    p.add_argument("--bin", required=True)
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="detsim-lint-") as tmp:
        CASES[args.case](Env(args, tmp))
    print("PASS")


if __name__ == "__main__":
    main()
