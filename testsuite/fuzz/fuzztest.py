#!/usr/bin/env python3
"""Tests of choice mode (DETSIM_OPTIONS choices=) and simfuzz
(testsuite/fuzz/CMakeLists.txt runs each case as its own CTest test).

  fuzztest.py CASE --bin BUILD/bin --progs DIR

Programs (built by CMakeLists.txt): ordering (a detsim-cc --fuzz build of
ordering.c, a depth-1 planted ordering bug), ordering_plain (the same
without --fuzz).  Exit 0 when the case holds; 1 with the reason.  Every
temporary file lives in a fresh directory under the working directory,
removed on success.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

RESULT_RE = re.compile(r"^detsim: (\w+) seed=(\d+) events=(\d+) history=([0-9a-f]{16})(.*)$", re.M)
USAGE_STATUS = 89  # the runtime's exit status for bad DETSIM_SEED / DETSIM_OPTIONS

A = None
WORK = None


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def prog(name):
    return os.path.join(A.progs, name)


def tool(name):
    return os.path.join(A.bin, name)


def run(argv, env=None, timeout=120, expect=None):
    e = dict(os.environ)
    for k in ("DETSIM_SEED", "DETSIM_OPTIONS") + tuple(k for k in os.environ if k.startswith("SIMFUZZ_")):
        e.pop(k, None)
    e.update(env or {})
    p = subprocess.run(argv, env=e, cwd=WORK, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, timeout=timeout)
    out, err = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    if expect is not None and p.returncode != expect:
        raise Fail("%s\nexit status %d, expected %d\n--- stderr ---\n%s" % (" ".join(argv), p.returncode, expect,
                                                                           err[-4000:]))
    return p.returncode, out, err


def need(pattern, text, what):
    m = re.search(pattern, text, re.M)
    check(m, "%s: no match for %r in:\n%s" % (what, pattern, text[-4000:]))
    return m


def write(name, data):
    path = os.path.join(WORK, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def sim(seed, options="", program="ordering"):
    """One run; returns (class, events, history, extra, stderr)."""
    env = {"DETSIM_SEED": str(seed)}
    opts = "quiet=1:trace=none" + (":" + options if options else "")
    env["DETSIM_OPTIONS"] = opts
    st, _, err = run([prog(program)], env=env)
    m = RESULT_RE.findall(err)
    check(m, "no result line:\n" + err[-2000:])
    cls, _, events, hist, extra = m[-1]
    return cls, int(events), hist, extra, err


def used(extra):
    m = re.search(r"choices_used=(\d+)/(\d+)", extra)
    check(m, "no choices_used= on the result line: %r" % extra)
    return int(m.group(1)), int(m.group(2))


# ---------------------------------------------------------------- cases

def case_choices_deterministic():
    """The same choices file, in separate processes, takes the same history;
    the result line names the bytes taken."""
    rng = random.Random(14)
    n = 0
    for i in range(5):
        path = write("in%d" % i, bytes(rng.randrange(256) for _ in range(48)))
        runs = {sim(7, "choices=" + path)[:3] for _ in range(3)}
        check(len(runs) == 1, "input %d: three processes took %s" % (i, sorted(runs)))
        u, total = used(sim(7, "choices=" + path)[3])
        check(total == 48 and 0 < u <= 48, "input %d: choices_used=%d/%d" % (i, u, total))
        n += 1
    return "%d inputs x 3 processes: one history each" % n


def case_choices_explore():
    """Different inputs take different schedules: of 20 random inputs, at
    least 5 distinct histories; and inputs of dense preemptions (small gap
    bytes) reach the planted failure as well as passing runs."""
    rng = random.Random(3)
    hists = set()
    for i in range(20):
        path = write("in%d" % i, bytes(rng.randrange(256) for _ in range(32)))
        hists.add(sim(1, "choices=" + path)[2])
    check(len(hists) >= 5, "20 inputs took only %d histories" % len(hists))
    classes = {}
    for i in range(100):
        cls = sim(1, "choices=" + write("d%d" % i, bytes(rng.randrange(16) for _ in range(16))))[0]
        classes[cls] = classes.get(cls, 0) + 1
    check(set(classes) == {"pass", "crash"}, "dense inputs: classes %s, expected both pass and crash" % classes)
    return "20 inputs: %d histories; 100 dense inputs: %s" % (len(hists), classes)


def case_choices_run_out():
    """When the bytes run out the run goes on from the seed: an empty file
    takes the seed's own history; an input cut to the bytes it took, or
    with bytes appended, takes the same history as the whole input."""
    empty = write("empty", b"")
    seeds = 0
    for seed in range(1, 9):
        plain = sim(seed)[:3]
        chosen = sim(seed, "choices=" + empty)
        check(chosen[:3] == plain, "seed %d: empty choices %s, the seed alone %s" % (seed, chosen[:3], plain))
        check(used(chosen[3]) == (0, 0), "seed %d: empty file took bytes" % seed)
        seeds += 1
    rng = random.Random(5)
    cut = 0
    for i in range(6):
        data = bytes(rng.randrange(256) for _ in range(64))
        whole = sim(2, "choices=" + write("w%d" % i, data))
        u, _ = used(whole[3])
        if u == len(data):
            continue  # took every byte: the run went on from the seed past them
        cut_run = sim(2, "choices=" + write("c%d" % i, data[:u]))
        more = sim(2, "choices=" + write("m%d" % i, data[:u] + bytes(rng.randrange(256) for _ in range(100))))
        check(cut_run[:3] == whole[:3] == more[:3], "input %d: whole %s, cut to %d bytes %s, longer %s" % (
            i, whole[:3], u, cut_run[:3], more[:3]))
        cut += 1
    check(cut >= 3, "only %d inputs ended before their bytes" % cut)
    # A different seed after the same bytes: the bytes decide first, the seed after.
    data = bytes([0, 0, 0, 0])
    hists = {sim(s, "choices=" + write("short", data))[2] for s in range(1, 13)}
    check(len(hists) >= 2, "12 seeds after the same 4 bytes took one history")
    return "%d seeds: empty choices = the seed's run; %d inputs cut/extended at their last byte taken: same history; " \
           "seeds after 4 bytes: %d histories" % (seeds, cut, len(hists))


def case_choices_bad_input():
    """A bad choices file is a clear error (the runtime's usage status),
    naming the file and the problem."""
    big = write("big", b"\0" * ((1 << 20) + 1))
    os.mkdir(os.path.join(WORK, "dir"))
    plan = write("p.plan", b"# detsim plan 1\nseed 1\nend 0\n")
    cases = [
        ("choices=" + os.path.join(WORK, "missing"), r"cannot read choices file .*missing: No such file"),
        ("choices=" + os.path.join(WORK, "dir"), r"choices file .*dir is not a regular file"),
        ("choices=" + big, r"has 1048577 bytes, more than 1048576 \(limit choices_bytes\)"),
        ("choices=" + write("ok", b"\1\2") + ":plan=" + plan, r"choices= and plan= both decide the schedule"),
    ]
    for opts, pattern in cases:
        st, _, err = run([prog("ordering")], env={"DETSIM_SEED": "1", "DETSIM_OPTIONS": opts})
        check(st == USAGE_STATUS, "%s: exit status %d, expected %d\n%s" % (opts, st, USAGE_STATUS, err))
        need(r"detsim: error: .*" + pattern, err, opts)
    return "%d bad inputs refused with status %d and the reason" % (len(cases), USAGE_STATUS)


def case_choices_plan_out():
    """A choice-mode run records its decisions as a schedule plan
    (plan_out=), which replays to the same history."""
    rng = random.Random(9)
    n = 0
    for i in range(4):
        path = write("in%d" % i, bytes(rng.randrange(256) for _ in range(40)))
        plan = os.path.join(WORK, "p%d.plan" % i)
        a = sim(3, "choices=%s:plan_out=%s" % (path, plan))
        b = sim(3, "plan=" + plan)
        check(a[:3] == b[:3], "input %d: choices %s, its plan %s" % (i, a[:3], b[:3]))
        n += 1
    return "%d choice-mode runs replayed from their plans" % n


def simfuzz(args, expect=None, timeout=180):
    return run([tool("simfuzz")] + args, expect=expect, timeout=timeout)


def case_simfuzz_finds():
    """simfuzz finds the planted depth-1 bug within 3000 executions; its
    saved input replays with the printed line and with simreplay to the
    same failure, and the scratch directory is gone."""
    out = os.path.join(WORK, "out")
    st, _, err = simfuzz(["--out", out, "-seed=1", "-runs=3000", "-artifact_prefix=%s/" % WORK, "--",
                          prog("ordering")])
    check(st == 77, "simfuzz exit status %d, expected 77 (a failure found)\n%s" % (st, err[-3000:]))
    m = need(r"^simfuzz: found crash at run (\d+): (detsim: crash seed=1 events=(\d+) history=([0-9a-f]{16}).*)$", err,
             "finding")
    execs, line, events, hist = int(m.group(1)), m.group(2), m.group(3), m.group(4)
    check(execs <= 3000, "found at run %d, past -runs=3000" % execs)
    need(r"^ordering: the watcher saw all 1 windows$", err, "the program's own words")
    saved = need(r"^simfuzz: input (\S+) \((\d+) of (\d+) bytes taken\)$", err, "saved input")
    check(os.path.exists(saved.group(1)), "the saved input %s is missing" % saved.group(1))
    check(os.path.getsize(saved.group(1)) == int(saved.group(2)), "the saved input is not cut to the bytes taken")
    rep = need(r"^simfuzz: replay: (.*)$", err, "replay line").group(1)
    st, _, rerr = run(["sh", "-c", rep])
    rm = RESULT_RE.findall(rerr)
    check(rm and rm[-1][0] == "crash" and rm[-1][3] == hist and rm[-1][2] == events,
          "the replay line gave %s, expected crash %s" % (rm[-1:] if rm else rerr[-2000:], hist))
    chk = need(r"^simfuzz: check:  (simreplay .*)$", err, "simreplay line").group(1)
    st, sout, serr = run(["sh", "-c", chk.replace("simreplay", tool("simreplay"), 1)], expect=0)
    need(r"replays exactly", sout + serr, "simreplay")
    left = [d for d in os.listdir(out) if d.startswith(".work-")]
    check(not left, "scratch directories left: %s" % left)
    crashes = [f for f in os.listdir(WORK) if f.startswith("crash-")]
    check(crashes, "libFuzzer wrote no crash artifact")
    return "found at run %d (%s); replays via the line and simreplay" % (execs, line.split(" sim_time")[0])


def case_simfuzz_schedule_features():
    """--schedule-features registers the scheduling features after the
    program's counters (the probe line says 4096; by default 0) and still
    finds the planted bug within 3000 executions."""
    st, _, err = simfuzz(["--out", os.path.join(WORK, "out"), "--schedule-features", "-seed=2", "-runs=3000",
                          "-artifact_prefix=%s/" % WORK, "--", prog("ordering")])
    check(st == 77, "exit status %d, expected 77\n%s" % (st, err[-3000:]))
    m = need(r"^simfuzz: \S+: (\d+) coverage counters and 4096 scheduling features; seed 1;", err, "probe line")
    run_no = int(need(r"^simfuzz: found crash at run (\d+):", err, "finding").group(1))
    st, _, err = simfuzz(["--out", os.path.join(WORK, "out"), "-runs=1", "--", prog("ordering")])
    need(r"^simfuzz: \S+: %s coverage counters and 0 scheduling features;" % m.group(1), err, "default probe")
    return "%s counters and 4096 scheduling features: found at run %d" % (m.group(1), run_no)


def case_simfuzz_minimize():
    """-minimize_crash=1 shrinks a failing input padded with 40 bytes back
    to at most the bytes the failure takes, and the result still fails."""
    # A failing input: search a few random ones directly.
    rng = random.Random(21)
    for i in range(400):
        data = bytes(rng.randrange(16) for _ in range(16))
        cls, _, _, extra, _ = sim(1, "choices=" + write("cand", data))
        if cls == "crash":
            break
    check(cls == "crash", "no failing input among 400 random dense ones")
    u, _ = used(extra)
    padded = data[:u] + bytes(rng.randrange(256) for _ in range(40))
    path = write("padded", padded)
    check(sim(1, "choices=" + path)[0] == "crash", "the padded input does not fail")
    prefix = os.path.join(WORK, "min-")
    st, _, err = simfuzz(["--out", os.path.join(WORK, "out"), "-minimize_crash=1", "-runs=40",
                          "-artifact_prefix=" + prefix, path, "--", prog("ordering")], timeout=240)
    check(st == 0, "minimizing: exit status %d\n%s" % (st, err[-3000:]))
    mins = [os.path.join(WORK, f) for f in os.listdir(WORK) if f.startswith("min-minimized-from-")]
    check(mins, "no minimized input written:\n" + err[-3000:])
    best = min(mins, key=os.path.getsize)
    size = os.path.getsize(best)
    check(size <= u, "the smallest minimized input has %d bytes, the failure takes %d" % (size, u))
    check(sim(1, "choices=" + best)[0] == "crash", "the minimized input no longer fails")
    return "%d bytes (%d taken) minimized to %d, still a crash" % (len(padded), u, size)


def case_simfuzz_bad_target():
    """simfuzz refuses what it cannot fuzz, with its exit status and reason:
    no target, a simulation build without --fuzz, a program that is no
    simulation build, a bad option."""
    out = os.path.join(WORK, "out")
    cases = [
        ([], 2, r"no target"),
        (["--out", out, "--", prog("ordering_plain")], 3, r"has no coverage counters: build it with detsim-cc --fuzz"),
        (["--out", out, "--", "/bin/true"], 3, r"is not a simulation build"),
        (["--out", out, "--timeout", "0", "--", prog("ordering")], 2, r"--timeout 0: expected 1\.\.3600 seconds"),
        (["--out", out, "--fail-on", "crash,bogus", "--", prog("ordering")], 2, r"'bogus' is not a class"),
        (["--bogus", "--", prog("ordering")], 2, r"unknown option '--bogus'"),
    ]
    for args, status, pattern in cases:
        st, _, err = simfuzz(args)
        check(st == status, "%s: exit status %d, expected %d\n%s" % (args, st, status, err[-2000:]))
        need(r"^simfuzz: .*" + pattern, err, " ".join(args))
    return "%d bad invocations refused" % len(cases)


CASES = {n[5:].replace("_", "-"): f for n, f in globals().items() if n.startswith("case_")}


def main():
    global A, WORK
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--bin", required=True)
    ap.add_argument("--progs", required=True)
    A = ap.parse_args()
    WORK = tempfile.mkdtemp(prefix="fuzztest-%s-" % A.case, dir=os.getcwd())
    try:
        msg = CASES[A.case]()
    except Fail as e:
        print("FAIL: %s: %s\n(files kept in %s)" % (A.case, e, WORK))
        sys.exit(1)
    shutil.rmtree(WORK, ignore_errors=True)
    print("ok: %s: %s" % (A.case, msg))


if __name__ == "__main__":
    main()
