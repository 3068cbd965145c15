#!/usr/bin/env python3
"""Tests of choice mode (DETSIM_OPTIONS choices=) and simfuzz
(testsuite/fuzz/CMakeLists.txt runs each case as its own CTest test).

  fuzztest.py CASE --bin BUILD/bin --progs DIR

Programs (built by CMakeLists.txt): ordering (a detsim-cc --fuzz build of
ordering.c, a depth-1 planted ordering bug), ordering_plain (the same
without --fuzz); world_ordering and world_ordering_plain with their
scenarios (world_ordering.c: a depth-2 ordering bug across the nodes of a
world), next to them; fork_ordering (a --fuzz build of fork_ordering.c, a
depth-2 ordering bug between a parent and its forked child).  Exit 0 when the case holds; 1 with the reason.  Every
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


def case_simfuzz_sanitized():
    """A --fuzz build with a sanitizer links (each sanitizer runtime has a
    weak registration of the counters of its own, which the executable's
    must win over): with ASan and with UBSan the probe line counts as many
    coverage counters as the plain --fuzz build (none would make simfuzz
    refuse the target), simfuzz finds the planted bug within 3000
    executions, and the replay line gives the same failure."""
    plain = simfuzz(["--out", os.path.join(WORK, "p"), "-runs=1", "--", prog("ordering")])[2]
    want = need(r"^simfuzz: \S+: (\d+) coverage counters", plain, "plain probe").group(1)
    found = []
    for name in ("ordering_asan", "ordering_ubsan"):
        out = os.path.join(WORK, name)
        st, _, err = simfuzz(["--out", out, "-seed=1", "-runs=3000", "-artifact_prefix=%s/" % WORK, "--", prog(name)])
        got = need(r"^simfuzz: \S+: (\d+) coverage counters", err, name + " probe").group(1)
        check(int(got) >= int(want), "%s: %s coverage counters, the plain --fuzz build %s" % (name, got, want))
        check(st == 77, "%s: simfuzz exit status %d, expected 77\n%s" % (name, st, err[-3000:]))
        m = need(r"^simfuzz: found crash at run (\d+): detsim: crash seed=1 events=(\d+) history=([0-9a-f]{16})",
                 err, name + " finding")
        rep = need(r"^simfuzz: replay: (.*)$", err, name + " replay line").group(1)
        rm = RESULT_RE.findall(run(["sh", "-c", rep])[2])
        check(rm and rm[-1][0] == "crash" and rm[-1][3] == m.group(3),
              "%s: the replay line gave %s, expected crash %s" % (name, rm[-1:], m.group(3)))
        found.append("%s: %s counters, found at run %s" % (name, got, m.group(1)))
    return "; ".join(found)


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


# ---------------------------------------------------------------- worlds

WORLD = "world_ordering.scenario"  # the planted cross-node ordering bug, depth 2
WORLD_PLAIN = "world_ordering_plain.scenario"  # the same nodes without --fuzz


def world(seed, options="", scenario=WORLD):
    """One run of a world (its logs under WORK); returns (class, events,
    history, extra, stderr)."""
    env = {"DETSIM_SEED": str(seed), "DETSIM_OPTIONS": "quiet=1:trace=none" + (":" + options if options else "")}
    logs = os.path.join(WORK, "logs")
    st, _, err = run([tool("simworld"), "--logs", logs, os.path.join(A.progs, scenario)], env=env)
    shutil.rmtree(logs, ignore_errors=True)
    m = RESULT_RE.findall(err)
    check(m, "no result line:\n" + err[-2000:])
    cls, _, events, hist, extra = m[-1]
    return cls, int(events), hist, extra, err


def faults_line(err):
    m = re.search(r"^detsim: faults level=2.*$", err, re.M)
    g = re.search(r"^detsim: fault groups=(\d+)", err, re.M)
    return (m.group(0) if m else "", int(g.group(1)) if g else 0)


def case_world_choices_deterministic():
    """A world takes its choices file's bytes for every node's scheduling,
    its links and, at level 2, its fault draws: the same input in separate
    processes takes the same history (and the same faults), with link
    latencies too; different inputs take different histories and draw
    different faults."""
    rng = random.Random(41)
    hists, faults = set(), set()
    for i in range(6):
        path = write("w%d" % i, bytes(rng.randrange(256) for _ in range(200)))
        runs = [world(3, "level=2:choices=" + path) for _ in range(2)]
        check(runs[0][:3] == runs[1][:3], "input %d: two processes took %s and %s" % (i, runs[0][:3], runs[1][:3]))
        check(faults_line(runs[0][4]) == faults_line(runs[1][4]), "input %d: two processes drew other faults" % i)
        u, total = used(runs[0][3])
        check(total == 200 and 0 < u <= 200, "input %d: choices_used=%d/%d" % (i, u, total))
        hists.add(runs[0][2])
        faults.add(faults_line(runs[0][4]))
        # With link latencies (each connection's link draws take bytes too).
        slow = [world(3, "level=2:net_latency_max_ns=500000:choices=" + path)[:3] for _ in range(2)]
        check(slow[0] == slow[1], "input %d with latencies: two processes took %s" % (i, slow))
    check(len(hists) >= 4, "6 inputs took only %d histories" % len(hists))
    check(len(faults) >= 3, "6 inputs drew only %d fault schedules: %s" % (len(faults), sorted(faults)))
    # Without a file the seed draws them, as it always did: the input is what changed them.
    plain = {world(3, "level=2")[2] for _ in range(2)}
    check(len(plain) == 1 and not plain & hists, "the seed alone: %s; with inputs: %s" % (plain, hists))
    return "6 inputs x 2 processes: one history each, %d histories and %d fault schedules in all" % (
        len(hists), len(faults))


def case_world_choices_run_out():
    """When a world's bytes run out it goes on from the seed: an empty file
    takes the seed's own history (level 1 and 2); an exhausted input takes
    one history in separate processes, and another seed after the same
    bytes another; an input cut to the bytes it took, or extended, the same
    history as the whole input."""
    empty = write("empty", b"")
    for level in (1, 2):
        for seed in (1, 2, 3):
            plain = world(seed, "level=%d" % level)
            chosen = world(seed, "level=%d:choices=%s" % (level, empty))
            check(chosen[:3] == plain[:3], "level %d seed %d: empty choices %s, the seed alone %s" % (
                level, seed, chosen[:3], plain[:3]))
            check(used(chosen[3]) == (0, 0), "level %d seed %d: an empty file took bytes" % (level, seed))
    short = write("short", bytes([7, 200, 3, 1, 0, 9]))
    runs = [world(2, "level=2:choices=" + short) for _ in range(3)]
    check(used(runs[0][3]) == (6, 6), "the short input was not used up: %s" % runs[0][3])
    check(len({r[:3] for r in runs}) == 1, "an exhausted input took %s" % sorted({r[:3] for r in runs}))
    others = {world(s, "level=2:choices=" + short)[2] for s in range(3, 9)}
    check(len(others | {runs[0][2]}) >= 3, "7 seeds after the same 6 bytes took %d histories" % len(others | {runs[0][2]}))
    rng = random.Random(8)
    cut = 0
    for i in range(8):
        data = bytes(rng.randrange(256) for _ in range(400))
        whole = world(4, "choices=" + write("w%d" % i, data))
        u, _ = used(whole[3])
        if u == len(data):
            continue
        a = world(4, "choices=" + write("c%d" % i, data[:u]))
        b = world(4, "choices=" + write("m%d" % i, data[:u] + bytes(rng.randrange(256) for _ in range(50))))
        check(a[:3] == whole[:3] == b[:3], "input %d: whole %s, cut to %d bytes %s, longer %s" % (
            i, whole[:3], u, a[:3], b[:3]))
        cut += 1
    check(cut >= 3, "only %d inputs ended before their bytes" % cut)
    return "empty = the seed's run (6 runs); an exhausted input replays, other seeds after it explore (%d " \
           "histories); %d inputs cut/extended: same history" % (len(others | {runs[0][2]}), cut)


def case_world_simfuzz_finds():
    """simfuzz on a scenario finds the planted cross-node bug (whose seed's
    own run passes) within 1000 executions; the printed replay line, run
    twice in separate processes, takes the failing history both times;
    the simreplay line replays it; no scratch or log directory is left."""
    check(world(1)[0] == "pass", "the seed's own run fails: nothing to find")
    out = os.path.join(WORK, "out")
    st, _, err = simfuzz(["--out", out, "--fail-on", "crash", "-seed=1", "-runs=1000", "-artifact_prefix=%s/" % WORK,
                          "--", os.path.join(A.progs, WORLD)])
    check(st == 77, "simfuzz exit status %d, expected 77 (a failure found)\n%s" % (st, err[-3000:]))
    need(r"^simfuzz: \S+world_ordering\.scenario: (\d+) coverage counters \(all nodes' programs\)", err, "probe line")
    m = need(r"^simfuzz: found crash at run (\d+): (detsim: crash seed=1 events=(\d+) history=([0-9a-f]{16}) .*"
             r"nodes=4 choices_used=\d+/\d+ node=srv signal=SIGABRT)$", err, "finding")
    execs, line, events, hist = int(m.group(1)), m.group(2), m.group(3), m.group(4)
    check("logs=" not in line, "the result line names the scratch logs: %s" % line)
    need(r"srv\| world_ordering: 2 ticks in a row came first", err, "the server's own words")
    rep = need(r"^simfuzz: replay: (DETSIM_SEED=1 DETSIM_OPTIONS=choices=\S+ \S+/simworld \S+)$", err,
               "replay line").group(1)
    for _ in range(2):
        st, _, rerr = run(["sh", "-c", rep.replace(" simworld ", " simworld --logs %s/rlogs " % WORK)])
        rm = RESULT_RE.findall(rerr)
        check(rm and rm[-1][0] == "crash" and rm[-1][3] == hist and rm[-1][2] == events,
              "the replay line gave %s, expected crash %s" % (rm[-1:] if rm else rerr[-2000:], hist))
    chk = need(r"^simfuzz: check:  (simreplay .*)$", err, "simreplay line").group(1)
    st, sout, serr = run(["sh", "-c", chk.replace("simreplay", tool("simreplay"), 1)], expect=0)
    need(r"replays exactly", sout + serr, "simreplay")
    left = [d for d in os.listdir(out) if d.startswith(".work-")]
    check(not left, "scratch directories left: %s" % left)
    return "found at run %d (%s); the replay line twice and simreplay: the same history" % (
        execs, line.split(" sim_time")[0])


def case_world_simfuzz_minimize():
    """-minimize_crash=1 on the input simfuzz saved for a world's failure
    writes smaller inputs; the smallest is shorter than the saved one (the
    bytes the failure took) and still fails."""
    out = os.path.join(WORK, "out")
    st, _, err = simfuzz(["--out", out, "--fail-on", "crash", "-seed=1", "-runs=1000", "-artifact_prefix=%s/" % WORK,
                          "--", os.path.join(A.progs, WORLD)])
    check(st == 77, "finding: exit status %d\n%s" % (st, err[-3000:]))
    saved = need(r"^simfuzz: input (\S+) \((\d+) of (\d+) bytes taken\)$", err, "saved input")
    path = saved.group(1)
    u = os.path.getsize(path)
    check(u == int(saved.group(2)) and world(1, "choices=" + path)[0] == "crash", "the saved input does not fail")
    prefix = os.path.join(WORK, "min-")
    st, _, err = simfuzz(["--out", out, "--fail-on", "crash", "-minimize_crash=1", "-seed=1", "-runs=30",
                          "-artifact_prefix=" + prefix, path, "--", os.path.join(A.progs, WORLD)], timeout=240)
    check(st == 0, "minimizing: exit status %d\n%s" % (st, err[-3000:]))
    mins = [os.path.join(WORK, f) for f in os.listdir(WORK) if f.startswith("min-minimized-from-")]
    check(mins, "no minimized input written:\n" + err[-3000:])
    best = min(mins, key=os.path.getsize)
    size = os.path.getsize(best)
    check(size < u, "the smallest minimized input has %d bytes, the saved one %d" % (size, u))
    check(world(1, "choices=" + best)[0] == "crash", "the minimized input no longer fails")
    return "the saved %d bytes minimized to %d, still a crash" % (u, size)


def case_world_bad_input():
    """Bad input to a world in fuzz mode is a clear error with its status:
    simworld refuses a choices file that is missing, not a regular file or
    too big (the runtime's usage status); simfuzz a missing scenario, a bad
    one, and one whose nodes have no coverage counters."""
    big = write("big", b"\0" * ((1 << 20) + 1))
    os.mkdir(os.path.join(WORK, "dir"))
    scenario = os.path.join(A.progs, WORLD)
    cases = [
        ("choices=" + os.path.join(WORK, "missing"), r"cannot read choices file .*missing: No such file"),
        ("choices=" + os.path.join(WORK, "dir"), r"choices file .*dir is not a regular file"),
        ("choices=" + big, r"has 1048577 bytes, more than 1048576 \(limit choices_bytes\)"),
    ]
    for opts, pattern in cases:
        st, _, err = run([tool("simworld"), "--logs", os.path.join(WORK, "logs"), scenario],
                         env={"DETSIM_SEED": "1", "DETSIM_OPTIONS": opts})
        check(st == USAGE_STATUS, "%s: exit status %d, expected %d\n%s" % (opts, st, USAGE_STATUS, err))
        need(r"^simworld: DETSIM_OPTIONS: .*" + pattern, err, opts)
        check(not RESULT_RE.search(err), "%s: the world ran:\n%s" % (opts, err))
    bad = write("bad.scenario", b"server srv: /bin/true\nbogus line\n")
    out = os.path.join(WORK, "out")
    fuzz_cases = [
        (["--out", out, "--", os.path.join(WORK, "missing.scenario")], 2, r"missing\.scenario: no such scenario file"),
        (["--out", out, "--", tool("simworld"), os.path.join(WORK, "missing.scenario")], 2, r"missing\.scenario"),
        (["--out", out, "--", tool("simworld"), bad], 2, r"bad\.scenario:2: "),
        (["--out", out, "--", os.path.join(A.progs, WORLD_PLAIN)], 3,
         r"no node's program has coverage counters: build them with detsim-cc --fuzz"),
    ]
    for args, status, pattern in fuzz_cases:
        st, _, err = simfuzz(args)
        check(st == status, "%s: exit status %d, expected %d\n%s" % (args, st, status, err[-2000:]))
        need(r"^simfuzz: .*" + pattern, err, " ".join(args))
    return "%d bad choices files refused by simworld (status %d), %d bad targets by simfuzz" % (
        len(cases), USAGE_STATUS, len(fuzz_cases))


# ---------------------------------------------------------------- fork

FORK = "fork_ordering"  # the planted ordering bug between a parent and its child, depth 2


def case_fork_choices():
    """A run that forks takes its choices file's bytes in the order of the
    one history, in parent and child alike: the same input in separate
    processes takes the same history; different inputs different ones;
    an empty file is the seed's own run; an input cut to the bytes it took,
    or extended, takes the same history; the bytes taken count both
    processes' decisions (more than the parent alone could take before it
    forks)."""
    rng = random.Random(23)
    hists = set()
    for i in range(6):
        # Gap bytes below 24: preemptions within the short run's 30-odd yield points.
        path = write("f%d" % i, bytes(rng.randrange(24) for _ in range(64)))
        runs = {sim(5, "choices=" + path, program=FORK)[:3] for _ in range(3)}
        check(len(runs) == 1, "input %d: three processes took %s" % (i, sorted(runs)))
        hists.add(next(iter(runs))[2])
    check(len(hists) >= 4, "6 inputs took only %d histories" % len(hists))
    empty = write("empty", b"")
    for seed in (1, 2, 3, 4):
        plain = sim(seed, program=FORK)[:3]
        chosen = sim(seed, "choices=" + empty, program=FORK)
        check(chosen[:3] == plain, "seed %d: empty choices %s, the seed alone %s" % (seed, chosen[:3], plain))
    cut = 0
    for i in range(8):
        data = bytes(rng.randrange(24) for _ in range(200))
        whole = sim(2, "choices=" + write("w%d" % i, data), program=FORK)
        u, _ = used(whole[3])
        if u == len(data):
            continue
        a = sim(2, "choices=" + write("c%d" % i, data[:u]), program=FORK)
        b = sim(2, "choices=" + write("m%d" % i, data[:u] + bytes(rng.randrange(256) for _ in range(50))),
                program=FORK)
        check(a[:3] == whole[:3] == b[:3], "input %d: whole %s, cut to %d bytes %s, longer %s" % (
            i, whole[:3], u, a[:3], b[:3]))
        cut += 1
    check(cut >= 3, "only %d inputs ended before their bytes" % cut)
    # Dense preemptions (gap bytes 0..3): the child's decisions take bytes too.
    dense = sim(3, "choices=" + write("dense", bytes(rng.randrange(4) for _ in range(300))), program=FORK)
    u, _ = used(dense[3])
    check(u > 20, "a dense input took only %d bytes" % u)
    return "6 inputs x 3 processes: one history each (%d histories); empty = the seed's run (4 seeds); " \
           "%d inputs cut/extended: same history; a dense input took %d bytes" % (len(hists), cut, u)


def case_fork_simfuzz_finds():
    """simfuzz finds the planted depth-2 bug between a parent and its child
    (the seed's own run passes) within 3000 executions; the printed replay
    line, run twice in separate processes, takes the failing history both
    times, and the simreplay line replays it."""
    check(sim(1, program=FORK)[0] == "pass", "the seed's own run fails: nothing to find")
    out = os.path.join(WORK, "out")
    st, _, err = simfuzz(["--out", out, "-seed=1", "-runs=3000", "-artifact_prefix=%s/" % WORK, "--", prog(FORK)],
                         timeout=280)
    check(st == 77, "simfuzz exit status %d, expected 77 (a failure found)\n%s" % (st, err[-3000:]))
    m = need(r"^simfuzz: found crash at run (\d+): (detsim: crash seed=1 events=(\d+) history=([0-9a-f]{16}).*)$",
             err, "finding")
    execs, line, events, hist = int(m.group(1)), m.group(2), m.group(3), m.group(4)
    need(r"^fork_ordering: the child took all 2 windows$", err, "the program's own words")
    rep = need(r"^simfuzz: replay: (.*)$", err, "replay line").group(1)
    for _ in range(2):
        st, _, rerr = run(["sh", "-c", rep])
        rm = RESULT_RE.findall(rerr)
        check(rm and rm[-1][0] == "crash" and rm[-1][3] == hist and rm[-1][2] == events,
              "the replay line gave %s, expected crash %s" % (rm[-1:] if rm else rerr[-2000:], hist))
    chk = need(r"^simfuzz: check:  (simreplay .*)$", err, "simreplay line").group(1)
    st, sout, serr = run(["sh", "-c", chk.replace("simreplay", tool("simreplay"), 1)], expect=0)
    need(r"replays exactly", sout + serr, "simreplay")
    return "found at run %d (%s); the replay line twice and simreplay: the same history" % (
        execs, line.split(" sim_time")[0])


CASES = {n[5:].replace("_", "-"): f for n, f in globals().items() if n.startswith("case_")}


def main():
    global A, WORK
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--bin", required=True)
    ap.add_argument("--progs", required=True)
    A = ap.parse_args()
    A.bin, A.progs = os.path.abspath(A.bin), os.path.abspath(A.progs)
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
