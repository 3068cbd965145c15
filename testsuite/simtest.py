#!/usr/bin/env python3
"""Test driver for simulation builds: runs a program under seeds, each in its
own process, and checks what the contract promises.

  simtest.py check   --seeds SPEC --class CLASS [--stderr REGEX]... -- PROG [ARGS]
      every seed ends with CLASS, the exit status is the class's, the first and
      last stderr lines have the contract's form, and each REGEX matches stderr.
  simtest.py replay  --seed N --runs K [--stderr REGEX]... -- PROG [ARGS]
      K separate processes give the same stdout, class and history.
  simtest.py explore --seeds SPEC --min-histories N [--min-outputs M] -- PROG
      the seeds give at least N distinct histories (and M distinct stdouts).
  simtest.py compare --seeds SPEC --other PROG2 -- PROG [ARGS]
      PROG and PROG2 (e.g. a verify and a plain simulation build) take the
      same history and print the same stdout for every seed.
  simtest.py usage --env NAME=VALUE [--stderr REGEX]... -- PROG
      bad DETSIM_SEED/DETSIM_OPTIONS: exit status 89, one 'detsim: error:'
      line matching REGEX, and the program's own code never ran (no stdout).
  simtest.py noseed -- PROG
      without DETSIM_SEED a run draws a seed, names it in the first line, and
      the result line names the same seed.
  simtest.py find    --seeds SPEC --class CLASS [--stderr REGEX] -- PROG
      some seed ends with CLASS (prints it), and that seed replays: 3 more
      processes give the same class and history.

Common options: --options DETSIM_OPTIONS, --timeout seconds per run,
--max-wall seconds for a whole run (a bound on real time, e.g. for virtual
sleeps that must cost nothing).
Exit status 0 when the assertion holds, 1 when it fails (with the reason).
"""
import argparse
import os
import re
import subprocess
import sys
import time

CLASS_STATUS = {}
_classes = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "runtime", "classes.inc")
for m in re.finditer(r"^DETSIM_CLASS\((\w+),\s*(\d+),", open(_classes).read(), re.M):
    CLASS_STATUS[m.group(1)] = int(m.group(2))

FIRST_RE = re.compile(r"^detsim: seed=(\d+) replay: DETSIM_SEED=(\d+) .+")
RESULT_RE = re.compile(r"^detsim: (\w+) seed=(\d+) events=(\d+) history=([0-9a-f]{16})( .*)?$")


def parse_seeds(spec):
    seeds = []
    for part in spec.split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            seeds.extend(range(int(a), int(b) + 1))
        else:
            seeds.append(int(part))
    return seeds


class Run:
    def __init__(self, argv, seed, options, timeout, env_extra=None):
        env = dict(os.environ)
        env["DETSIM_SEED"] = str(seed)
        if options is not None:
            env["DETSIM_OPTIONS"] = options
        else:
            env.pop("DETSIM_OPTIONS", None)
        env.update(env_extra or {})
        self.seed = seed
        try:
            p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as e:
            self.rc, self.stdout, self.stderr = None, e.stdout or b"", e.stderr or b""
            self.cls = self.history = None
            self.problem = "no result within %ss (the process hung: the watchdog should have ended it)" % timeout
            return
        self.rc, self.stdout = p.returncode, p.stdout
        self.stderr = p.stderr.decode(errors="replace")
        lines = [l for l in self.stderr.splitlines() if l]
        self.problem = None
        self.cls = self.history = self.events = None
        if not lines or not FIRST_RE.match(lines[0]):
            self.problem = "first stderr line is not 'detsim: seed=… replay: …': %r" % (lines[0] if lines else "")
        m = RESULT_RE.match(lines[-1]) if lines else None
        if not m:
            self.problem = "last stderr line is not a result line: %r" % (lines[-1] if lines else "")
            return
        self.cls, self.history, self.events = m.group(1), m.group(4), int(m.group(3))
        if int(m.group(2)) != seed:
            self.problem = "result line names seed %s, expected %d" % (m.group(2), seed)
        expected_rc = CLASS_STATUS.get(self.cls)
        if self.cls != "pass" and self.rc != expected_rc:
            self.problem = "class %s but exit status %s (expected %s)" % (self.cls, self.rc, expected_rc)

    def describe(self):
        tail = "\n".join(self.stderr.splitlines()[-25:])
        return "seed %d: class=%s history=%s rc=%s\n--- stderr (tail) ---\n%s" % (
            self.seed, self.cls, self.history, self.rc, tail)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["check", "replay", "explore", "find", "compare", "usage", "noseed"])
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--other", default=None)
    ap.add_argument("--max-wall", type=float, default=None)
    ap.add_argument("--seeds", default="1-10")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--class", dest="cls", default="pass")
    ap.add_argument("--stderr", action="append", default=[])
    ap.add_argument("--stdout", action="append", default=[])
    ap.add_argument("--min-histories", type=int, default=2)
    ap.add_argument("--min-outputs", type=int, default=0)
    ap.add_argument("--options", default=None)
    ap.add_argument("--timeout", type=float, default=60)
    args = sys.argv[1:]
    if "--" not in args:
        ap.error("no program given (after --)")
    cut = args.index("--")
    a = ap.parse_args(args[:cut])
    argv = args[cut + 1:]
    if not argv:
        ap.error("no program given (after --)")

    def run(seed, prog=None):
        t0 = time.monotonic()
        r = Run(prog or argv, seed, a.options, a.timeout)
        wall = time.monotonic() - t0
        if a.max_wall is not None and wall > a.max_wall:
            fail("seed %d took %.2f s of real time (bound %.2f s)\n%s" % (seed, wall, a.max_wall, r.describe()))
        if r.problem:
            fail(r.problem + "\n" + r.describe())
        return r

    def matches(r):
        return all(re.search(rx, r.stderr, re.M) for rx in a.stderr) and \
            all(re.search(rx, r.stdout.decode(errors="replace"), re.M) for rx in a.stdout)

    if a.mode == "check":
        seeds = parse_seeds(a.seeds)
        for s in seeds:
            r = run(s)
            if r.cls != a.cls:
                fail("expected class %s\n%s" % (a.cls, r.describe()))
            if a.cls == "pass" and r.rc != 0:
                fail("pass with exit status %s\n%s" % (r.rc, r.describe()))
            if not matches(r):
                fail("stderr/stdout does not match %s %s\n%s" % (a.stderr, a.stdout, r.describe()))
        print("ok: %d seeds ended with class %s" % (len(seeds), a.cls))
    elif a.mode == "replay":
        runs = [run(a.seed) for _ in range(a.runs)]
        first = runs[0]
        for rx in a.stderr:
            if not re.search(rx, first.stderr, re.M):
                fail("stderr does not match %s\n%s" % (rx, first.describe()))
        for r in runs[1:]:
            if (r.cls, r.history, r.events) != (first.cls, first.history, first.events):
                fail("history differs between processes: %s/%s/%s vs %s/%s/%s" % (
                    first.cls, first.history, first.events, r.cls, r.history, r.events))
            if r.stdout != first.stdout:
                fail("stdout differs between processes for seed %d" % a.seed)
        print("ok: %d processes of seed %d: class %s, history %s, %d events, identical stdout" % (
            a.runs, a.seed, first.cls, first.history, first.events))
    elif a.mode == "explore":
        seeds = parse_seeds(a.seeds)
        runs = [run(s) for s in seeds]
        histories = {r.history for r in runs}
        outputs = {r.stdout for r in runs}
        if len(histories) < a.min_histories:
            fail("only %d distinct histories over %d seeds (need %d)" % (len(histories), len(seeds), a.min_histories))
        if len(outputs) < a.min_outputs:
            fail("only %d distinct outputs over %d seeds (need %d)" % (len(outputs), len(seeds), a.min_outputs))
        print("ok: %d seeds gave %d distinct histories and %d distinct outputs" % (
            len(seeds), len(histories), len(outputs)))
    elif a.mode == "usage":
        env = dict(os.environ)
        env.pop("DETSIM_SEED", None)
        env.pop("DETSIM_OPTIONS", None)
        for kv in a.env:
            k, v = kv.split("=", 1)
            env[k] = v
        p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=a.timeout)
        err = p.stderr.decode(errors="replace")
        if p.returncode != 89:
            fail("exit status %s, expected 89\n%s" % (p.returncode, err))
        if p.stdout:
            fail("the program's code ran (stdout: %r)" % p.stdout[:200])
        lines = err.splitlines()
        if len(lines) != 1 or not lines[0].startswith("detsim: error: "):
            fail("expected exactly one 'detsim: error:' line, got:\n%s" % err)
        for rx in a.stderr:
            if not re.search(rx, err):
                fail("stderr does not match %r:\n%s" % (rx, err))
        print("ok: %s -> %s" % (" ".join(a.env), lines[0]))
    elif a.mode == "noseed":
        env = dict(os.environ)
        env.pop("DETSIM_SEED", None)
        env.pop("DETSIM_OPTIONS", None)
        p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=a.timeout)
        lines = [l for l in p.stderr.decode(errors="replace").splitlines() if l]
        m1 = FIRST_RE.match(lines[0]) if lines else None
        m2 = RESULT_RE.match(lines[-1]) if lines else None
        if not m1 or not m2:
            fail("no first line or result line:\n%s" % "\n".join(lines))
        if not (m1.group(1) == m1.group(2) == m2.group(2)):
            fail("seeds disagree: %s / %s / %s" % (m1.group(1), m1.group(2), m2.group(2)))
        r = Run(argv, int(m1.group(1)), None, a.timeout)
        if r.history != m2.group(4):
            fail("the drawn seed %s does not replay: %s vs %s" % (m1.group(1), m2.group(4), r.history))
        print("ok: drawn seed %s named in both lines and replays" % m1.group(1))
    elif a.mode == "compare":
        if not a.other:
            ap.error("compare needs --other PROG2")
        seeds = parse_seeds(a.seeds)
        for s in seeds:
            r1, r2 = run(s), run(s, [a.other] + argv[1:])
            if (r1.cls, r1.history, r1.events) != (r2.cls, r2.history, r2.events) or r1.stdout != r2.stdout:
                fail("seed %d: %s took %s/%s/%d events, %s took %s/%s/%d events" % (
                    s, argv[0], r1.cls, r1.history, r1.events, a.other, r2.cls, r2.history, r2.events))
        print("ok: %d seeds: both builds took the same histories" % len(seeds))
    elif a.mode == "find":
        seeds = parse_seeds(a.seeds)
        for s in seeds:
            r = run(s)
            if r.cls == a.cls and matches(r):
                for _ in range(3):
                    again = run(s)
                    if (again.cls, again.history) != (r.cls, r.history):
                        fail("seed %d found %s/%s but replayed as %s/%s" % (
                            s, r.cls, r.history, again.cls, again.history))
                print("ok: seed %d ended with class %s (history %s) and replays; seeds tried: %d" % (
                    s, r.cls, r.history, seeds.index(s) + 1))
                return
        fail("no seed in %s ended with class %s" % (a.seeds, a.cls))


if __name__ == "__main__":
    from scratch_tmpdir import use_private_tmpdir
    use_private_tmpdir("simtest-")
    main()
