#!/usr/bin/env python3
"""Schedule plans in a run that forks (runtime/trace/trace.h): threads are
named across processes as PID:T.

  plan_check.py CASE --bin BUILD/bin --progs DIR

Cases:
  record-replay  a plan recorded from a forking run (random walk, PCT,
                 choice mode) replays its history in separate processes,
                 and names the child's decisions and switches to another
                 process
  shrink         simreplay --shrink of a failing forking run writes a plan
                 that replays the failure, with the switch to the child
  bad            a plan naming a process the run never had, a pid below
                 the first, a wake across processes: status 89, the reason
  exec           plans of runs that exec (after a fork, and the first
                 process's own exec) replay their history; the new image's
                 decisions are named PID.I:T
Exit 0 when the case holds; 1 with the reason.  Files live in a fresh
directory under the working directory, removed on success.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

RESULT_RE = re.compile(r"^detsim: (\w+) seed=(\d+) events=(\d+) history=([0-9a-f]{16})", re.M)
USAGE_STATUS = 89
A = None
WORK = None


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def run(argv, seed=None, options=None, timeout=120):
    e = {k: v for k, v in os.environ.items() if k not in ("DETSIM_SEED", "DETSIM_OPTIONS")}
    if seed is not None:
        e["DETSIM_SEED"] = str(seed)
    if options is not None:
        e["DETSIM_OPTIONS"] = options
    p = subprocess.run(argv, env=e, cwd=WORK, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def prog(name):
    return os.path.join(A.progs, name)


def result(err):
    m = RESULT_RE.findall(err)
    check(m, "no result line:\n" + err[-2000:])
    return m[-1][0], m[-1][3]


def sim(program, seed, options):
    _, _, err = run([prog(program)], seed, "quiet=1:trace=none:" + options)
    return result(err)


def entries(path):
    return [l.split("#")[0].split() for l in open(path) if l.startswith(("switch", "wake"))]


def case_record_replay():
    choices = os.path.join(WORK, "choices")
    with open(choices, "wb") as f:
        f.write(bytes((i * 7) % 20 for i in range(200)))
    n = cross = child = 0
    for program in ("proc_interleave", "proc_fork_window"):
        for seed in range(1, 7):
            for strategy in ("strategy=random", "strategy=pct", "choices=" + choices):
                plan = os.path.join(WORK, "p.plan")
                rec = sim(program, seed, "%s:plan_out=%s" % (strategy, plan))
                for _ in range(2):
                    again = sim(program, seed, "plan=" + plan)
                    check(again == rec, "%s seed %d %s: recorded %s, its plan replayed %s" % (
                        program, seed, strategy, rec, again))
                es = entries(plan)
                cross += any(":" in e[3] for e in es)
                child += any(e[1].startswith("1001:") for e in es)
                n += 1
    check(cross >= n // 2, "only %d of %d plans switch to another process" % (cross, n))
    check(child >= n // 3, "only %d of %d plans hold a child's decisions" % (child, n))
    return "%d recorded plans replayed twice each (%d switch across processes, %d hold a child's decisions)" % (
        n, cross, child)


def case_shrink():
    for seed in range(1, 60):
        if sim("proc_fork_window", seed, "")[0] == "crash":
            break
    else:
        raise Fail("no crashing seed of proc_fork_window in 1..59")
    out = os.path.join(WORK, "shrunk.plan")
    st, sout, serr = run([os.path.join(A.bin, "simreplay"), "--shrink", "--out", out, "--seed", str(seed),
                          "--", prog("proc_fork_window")], timeout=240)
    check(st == 0 and "it replays exactly" in sout + serr, "shrink: status %d\n%s%s" % (st, sout, serr[-2000:]))
    es = entries(out)
    check(any(e[3].endswith(":0") and not e[3].startswith("1000:") for e in es),
          "the shrunk plan has no switch to the child: %s" % es)
    runs = {sim("proc_fork_window", seed, "plan=" + out) for _ in range(2)}
    check(len(runs) == 1 and next(iter(runs))[0] == "crash", "the shrunk plan replayed %s" % runs)
    return "seed %d shrunk to %d decisions (%s); it replays the crash" % (seed, len(es), "; ".join(" ".join(e) for e in es))


def case_bad():
    plan = os.path.join(WORK, "rec.plan")
    sim("proc_interleave", 2, "plan_out=" + plan)
    text = open(plan).read()
    body = [l for l in text.splitlines() if l.startswith(("switch", "wake"))]
    check(body, "the recorded plan is empty")

    def variant(name, extra):
        lines = [l for l in text.splitlines() if not l.startswith("end ")]
        lines += extra + ["end %d" % (len(body) + len(extra))]
        path = os.path.join(WORK, name)
        open(path, "w").write("\n".join(lines) + "\n")
        return path

    cases = [
        (variant("ghost.plan", ["switch 1 3 1099:0"]), r"names process 1099, which this run never had"),
        (variant("low.plan", ["switch 999:1 3 1000:0"]), r"line \d+: expected 'seed N'.*PID:T"),
        (variant("wake.plan", ["wake 1001:1 3 1000:1"]), r"line \d+: expected 'seed N'"),
        (variant("zero.plan", ["switch 0 3 1000:0"]), r"line \d+: expected 'seed N'"),
        (variant("image0.plan", ["switch 1001.0:1 3 1000:0"]), r"line \d+: expected 'seed N'.*PID\.I:T"),
        (variant("chosenimage.plan", ["switch 1001:1 3 1000.1:0"]), r"line \d+: expected 'seed N'"),
    ]
    for path, pattern in cases:
        st, _, err = run([prog("proc_interleave")], 2, "quiet=1:trace=none:plan=" + path)
        check(st == USAGE_STATUS, "%s: exit status %d, expected %d\n%s" % (path, st, USAGE_STATUS, err[-2000:]))
        check(re.search(r"detsim: error: DETSIM_OPTIONS: plan file .*" + pattern, err),
              "%s: no error matching %r:\n%s" % (path, pattern, err[-2000:]))
    return "%d bad plans refused with status %d and the reason" % (len(cases), USAGE_STATUS)


def case_exec():
    """Plans across an exec: the new image's decisions are PID.I:T."""
    n = imaged = twice = 0
    for program in ("proc_exec_interleave", "proc_conf_exec_self"):
        for seed in range(1, 7):
            for strategy in ("strategy=random", "strategy=pct"):
                plan = os.path.join(WORK, "x.plan")
                st, out, err = run([prog(program)], seed, "quiet=1:trace=none:%s:plan_out=%s" % (strategy, plan))
                check("schedule plan" not in err, "%s seed %d: %s" % (program, seed, err[-2000:]))
                rec = result(err)
                check(rec[0] == "pass", "%s seed %d %s: %s\n%s" % (program, seed, strategy, rec, err[-2000:]))
                if program == "proc_exec_interleave":
                    check(re.search(r"^order=p+ bytes=\d+ child_status=0$", out, re.M) or
                          re.search(r"^order=[pc]+ bytes=\d+ child_status=0$", out, re.M),
                          "%s seed %d: the exec'd child did not run:\n%s" % (program, seed, out))
                for _ in range(2):
                    again = sim(program, seed, "plan=" + plan)
                    check(again == rec, "%s seed %d %s: recorded %s, its plan replayed %s" % (
                        program, seed, strategy, rec, again))
                es = entries(plan)
                imaged += any(re.match(r"^\d+\.\d+:\d+$", e[1]) for e in es)
                # The same thread and step in two images of one process: a
                # plan without the image would give both one name.
                keys = [(re.sub(r"\.\d+:", ":", e[1]), e[2]) for e in es if ":" in e[1]]
                twice += len(keys) != len(set(keys))
                n += 1
    check(imaged >= 3, "only %d of %d plans hold decisions of an exec'd image (PID.I:T)" % (imaged, n))
    check(twice >= 1, "no plan has one thread and step in two images of a process (%d plans)" % n)
    return "%d plans of exec'ing runs replayed twice each (%d hold an exec'd image's decisions, %d the same " \
        "thread and step in two images)" % (n, imaged, twice)


CASES = {n[5:].replace("_", "-"): f for n, f in globals().items() if n.startswith("case_")}


def main():
    global A, WORK
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--bin", required=True)
    ap.add_argument("--progs", required=True)
    A = ap.parse_args()
    A.bin, A.progs = os.path.abspath(A.bin), os.path.abspath(A.progs)
    WORK = tempfile.mkdtemp(prefix="plan-%s-" % A.case, dir=os.getcwd())
    try:
        msg = CASES[A.case]()
    except Fail as e:
        print("FAIL: %s: %s\n(files kept in %s)" % (A.case, e, WORK))
        sys.exit(1)
    shutil.rmtree(WORK, ignore_errors=True)
    print("ok: %s: %s" % (A.case, msg))


if __name__ == "__main__":
    main()
