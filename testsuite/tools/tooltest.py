#!/usr/bin/env python3
"""Tests of simrun and simreplay (testsuite/tools/CMakeLists.txt runs each
case as its own CTest test).

  tooltest.py CASE --bin BUILD/bin --progs DIR

Each case runs the tools as a user would, and checks exact counts, classes,
exit statuses and messages.  Exit 0 when the case holds; 1 with the reason.
Every temporary file lives in a fresh directory under the working directory
(the test's build directory), removed on success.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
CLASS_STATUS = {}
for m in re.finditer(r"^DETSIM_CLASS\((\w+),\s*(\d+),",
                     open(os.path.join(HERE, "..", "..", "runtime", "classes.inc")).read(), re.M):
    CLASS_STATUS[m.group(1)] = int(m.group(2))
RESULT_RE = re.compile(r"^detsim: (\w+) seed=(\d+) events=(\d+) history=([0-9a-f]{16})", re.M)

A = None      # parsed arguments
WORK = None   # scratch directory of this case


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def prog(name):
    return os.path.join(A.progs, name)


def tool(name):
    return os.path.join(A.bin, name)


def run(argv, env=None, timeout=120, expect=None, input=None):
    """Runs argv; returns (status, stdout, stderr).  expect: the status."""
    e = dict(os.environ)
    e.pop("DETSIM_SEED", None)
    e.pop("DETSIM_OPTIONS", None)
    for k in ("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "JOB_COMPLETION_INDEX"):
        e.pop(k, None)
    e.update(env or {})
    p = subprocess.run(argv, env=e, cwd=WORK, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, timeout=timeout)
    out, err = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    if expect is not None and p.returncode != expect:
        raise Fail("%s\nexit status %d, expected %d\n--- stdout ---\n%s\n--- stderr ---\n%s" % (
            " ".join(argv), p.returncode, expect, out[-4000:], err[-4000:]))
    return p.returncode, out, err


def jsonl(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def need(pattern, text, what):
    m = re.search(pattern, text, re.M)
    check(m, "%s: no match for %r in:\n%s" % (what, pattern, text[-4000:]))
    return m


def by_seed(records):
    return {r["seed"]: r for r in records}


# ---------------------------------------------------------------- cases

def case_canary_sweep():
    """The planted ABBA deadlock is found in seeds 1-100, with a reproduction
    line that, run by a shell, reproduces the class and the history."""
    j = os.path.join(WORK, "canary.jsonl")
    st, out, _ = run([tool("simrun"), "--seeds", "100", "-j", "2", "--jsonl", j, "--", prog("canary")], expect=1)
    need(r"^  result:\s+FAILED$", out, "report")
    need(r"^  seeds:\s+100 tested, \d+ failed \(seed set 1-100\)$", out, "report")
    recs = jsonl(j)
    check(len(recs) == 100, "%d JSON lines, expected 100" % len(recs))
    check(sorted(r["seed"] for r in recs) == list(range(1, 101)), "seeds are not 1..100 once each")
    dead = sorted(r["seed"] for r in recs if r["class"] == "deadlock")
    check(dead, "the canary's deadlock was not found in seeds 1-100")
    check(all(r["class"] in ("pass", "deadlock") for r in recs), "a class other than pass/deadlock")
    n = len(dead)
    need(r"^  seeds:\s+100 tested, %d failed" % n, out, "report")
    need(r"^  \d+\s+deadlock\s+%d\s+%s" % (n, ",".join(str(s) for s in dead[:5])), out, "failure table")
    m = need(r"^     reproduce: (DETSIM_SEED=(\d+) .*)$", out, "reproduction line")
    seed = int(m.group(2))
    check(seed == dead[0], "the reproduction line is for seed %d, the first deadlock is %d" % (seed, dead[0]))
    rec = by_seed(recs)[seed]
    st, _, err = run(["sh", "-c", m.group(1)])
    rm = RESULT_RE.findall(err)
    check(rm, "the reproduction printed no result line:\n" + err)
    cls, rseed, events, hist = rm[-1]
    check(cls == "deadlock" and st == CLASS_STATUS["deadlock"], "reproduction gave %s/%d" % (cls, st))
    check(hist == rec["history"] and int(events) == rec["events"],
          "reproduction history %s/%s, sweep %s/%s" % (hist, events, rec["history"], rec["events"]))
    m = need(r"^     replay:    (simreplay --seed \d+ -- .*)$", out, "replay line")
    st, rout, _ = run(["sh", "-c", m.group(1).replace("simreplay", tool("simreplay"), 1)], expect=0)
    need(r"replays exactly \(2 of 2\)", rout, "the replay line")
    return "canary found in %d of 100 seeds (first %d); reproduction and replay give %s" % (n, seed, hist)


def case_classes_sweep():
    """A crash, a deadlock and a hang (killed at --timeout 2) are each classed
    while the sweep goes on; JSON lines, JUnit and SARIF hold exact counts.
    A seed that only timed out because this machine was overloaded (a seed
    that cannot hang) makes the case retry, at most twice."""
    expect = {1: "crash", 2: "deadlock", 3: "inconclusive", 0: "pass"}
    for attempt in range(3):
        d = os.path.join(WORK, "a%d" % attempt)
        os.mkdir(d)
        j, x, s = (os.path.join(d, n) for n in ("m.jsonl", "m.xml", "m.sarif"))
        st, out, err = run([tool("simrun"), "--seeds", "1-8", "-j", "2", "--timeout", "2",
                            "--options", "watchdog_s=0", "--trace-dir", d,
                            "--jsonl", j, "--junit", x, "--sarif", s, "--", prog("mixed")], expect=1, timeout=240)
        recs = jsonl(j)
        slow = [r["seed"] for r in recs if r["seed"] % 4 != 3 and (r["signature"] or "").startswith("inconclusive reason=timeout")]
        if slow and attempt < 2:
            print("note: seeds %s timed out on a loaded machine; retrying" % slow)
            continue
        break
    check(len(recs) == 8, "%d JSON lines, expected 8" % len(recs))
    got = {r["seed"]: r["class"] for r in recs}
    want = {s: expect[s % 4] for s in range(1, 9)}
    check(got == want, "classes %s, expected %s" % (got, want))
    for r in recs:
        sig = {1: "crash signal=SIGABRT in main", 2: "deadlock in main,wants_m",
               3: "inconclusive reason=timeout signal=SIGTERM", 0: None}[r["seed"] % 4]
        check(r["signature"] == sig, "seed %d signature %r, expected %r" % (r["seed"], r["signature"], sig))
        # The hang is stopped with SIGTERM at the timeout: its runtime ends
        # it with its own result line (history, checks), status 86.
        status = {1: 82, 2: 83, 3: 86, 0: 0}[r["seed"] % 4]
        check(r["exit_status"] == status, "seed %d exit_status %s, expected %d" % (r["seed"], r["exit_status"], status))
        check(re.fullmatch(r"[0-9a-f]{16}", r["history"]), "bad history %r" % r["history"])
        check(r["checks"] == {"loop_bound": 3}, "seed %d checks %r" % (r["seed"], r["checks"]))
        if r["class"] in ("crash", "deadlock"):
            check(r["trace"] == os.path.join(d, "detsim-%d.trace" % r["seed"]), "trace %r" % r["trace"])
            check(os.path.exists(r["trace"]), "no trace file %s" % r["trace"])
        check((r["stderr_tail"] is None) == (r["class"] == "pass"), "stderr_tail on seed %d" % r["seed"])
    need(r"^  classes:\s+pass 2 crash 2 deadlock 2 inconclusive 2$", out, "report classes")
    need(r"^    loop_bound\s+24 checks in 8 runs$", out, "report invariants")
    need(r"^  faults exercised:\s+none \(level 1: scheduling only\)$", out, "report faults")
    need(r"^  \d+\s+crash\s+2\s+1,5\s+crash signal=SIGABRT in main$", out, "failure table")
    need(r"^  \d+\s+deadlock\s+2\s+2,6\s+deadlock in main,wants_m$", out, "failure table")
    need(r"^  \d+\s+inconclusive\s+2\s+3,7\s+inconclusive reason=timeout signal=SIGTERM$", out, "failure table")
    need(r"^FIRST FAILURE: seed 1 \(crash\)", out, "first failure")
    root = ET.parse(x).getroot()
    check(root.get("tests") == "8" and root.get("failures") == "6", "JUnit totals %s" % root.attrib)
    cases = root.findall(".//testcase")
    check([c.get("name") for c in cases] == ["seed %d" % i for i in range(1, 9)], "JUnit testcases")
    fails = {c.get("name"): c.find("failure").get("type") for c in cases if c.find("failure") is not None}
    check(fails == {"seed %d" % s: want[s] for s in want if want[s] != "pass"}, "JUnit failures %s" % fails)
    sarif = json.load(open(s))
    check(sarif["version"] == "2.1.0", "SARIF version")
    res = sarif["runs"][0]["results"]
    check(len(res) == 3, "%d SARIF results, expected 3 (one per signature)" % len(res))
    check(sorted(r["ruleId"] for r in res) == ["detsim/crash", "detsim/deadlock", "detsim/inconclusive"], "rules")
    check(sorted(r["properties"]["seeds"] for r in res) == [[1, 5], [2, 6], [3, 7]], "SARIF seeds")
    return "8 seeds: 2 crash, 2 deadlock, 2 timeouts, 2 pass; JSONL/JUnit/SARIF counts exact"


def case_shard_merge():
    """--shard 0/2 and 1/2 cover the seed set once; --merge of their JSON
    lines reports what the whole sweep reports; /N takes I from the
    environment of an array job."""
    full, s0, s1, mj, mx = (os.path.join(WORK, n) for n in ("full.jsonl", "s0.jsonl", "s1.jsonl", "m.jsonl", "m.xml"))
    base = [tool("simrun"), "--seeds", "1-60", "-j", "2"]
    _, out_full, _ = run(base + ["--jsonl", full, "--", prog("canary")])
    run(base + ["--shard", "0/2", "--jsonl", s0, "--", prog("canary")])
    st1, out1, _ = run(base + ["--shard", "1/2", "--jsonl", s1, "--", prog("canary")])
    need(r"shard 1/2 of its 60 seeds", out1, "shard report")
    r0, r1 = jsonl(s0), jsonl(s1)
    check(len(r0) == 30 and len(r1) == 30, "shard sizes %d, %d" % (len(r0), len(r1)))
    check(all(r["index"] % 2 == 0 for r in r0) and all(r["index"] % 2 == 1 for r in r1), "shard parity")
    seeds = sorted(r["seed"] for r in r0 + r1)
    check(seeds == list(range(1, 61)), "the shards do not cover 1..60 exactly once")
    st_m, out_m, _ = run([tool("simrun"), "--merge", s0, s1, "--jsonl", mj, "--junit", mx])
    st_f = 1 if any(r["class"] != "pass" for r in jsonl(full)) else 0
    check(st_m == st_f, "merge exit status %d, the full sweep's %d" % (st_m, st_f))
    for pat in (r"^  result:.*$", r"^  seeds:\s+\d+ tested, \d+ failed", r"^  classes:.*$"):
        a, b = re.search(pat, out_full, re.M).group(0), re.search(pat, out_m, re.M).group(0)
        check(a == b, "merged %r, full %r" % (b, a))
    table = lambda o: re.findall(r"^  \d+\s+\w+\s+\d+\s+\S+\s+.*$", o, re.M)
    check(table(out_full) == table(out_m), "failure tables differ:\n%s\n%s" % (table(out_full), table(out_m)))
    check(len(jsonl(mj)) == 60, "merged JSON lines")
    check(ET.parse(mx).getroot().get("tests") == "60", "merged JUnit")
    need(r"merged from 2 files", out_m, "merged report")
    # The index from an array job's environment.
    for env in ({"JOB_COMPLETION_INDEX": "1"}, {"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "2"}):
        e = os.path.join(WORK, "env.jsonl")
        run(base + ["--shard", "/2", "--jsonl", e, "--", prog("canary")], env=env, expect=st1)
        check(sorted(r["seed"] for r in jsonl(e)) == sorted(r["seed"] for r in r1), "--shard /2 with %s" % env)
        run(base + ["--shard-from-env", "2", "--jsonl", e, "--", prog("canary")], env=env, expect=st1)
        check(sorted(r["seed"] for r in jsonl(e)) == sorted(r["seed"] for r in r1), "--shard-from-env with %s" % env)
    # Merging a shard twice is refused.
    st, _, err = run([tool("simrun"), "--merge", s0, s0], expect=2)
    need(r"also in .*shards overlap", err, "double merge")
    return "2 shards of 30 cover 1-60; merge reproduces the full report"


def case_seed_specs():
    """--level 2 without --seeds runs 100 seeds; a git hash gives N seeds from
    its first 16 hex digits; a,b,A-B lists exactly those."""
    j = os.path.join(WORK, "l.jsonl")
    _, out, _ = run([tool("simrun"), "--level", "2", "-q", "--jsonl", j, "--", prog("canary")])
    check(len(jsonl(j)) == 100, "--level 2 ran %d seeds, expected 100" % len(jsonl(j)))
    _, out, _ = run([tool("simrun"), "--level", "2", "--seeds", "2", "--", prog("canary")], expect=0)
    # The runtime takes level=N; a one-node program draws no fault at it.
    need(r"^  level:\s+2 \(stormy\)$", out, "level line")
    need(r"^  faults exercised:\s+none \(level 2: faults are drawn only in worlds of several nodes", out, "faults line")
    h = "0123456789abcdef0123456789abcdef01234567"
    run([tool("simrun"), "--seeds", h + ":3", "-q", "--jsonl", j, "--", prog("canary")])
    start = int(h[:16], 16)
    check(sorted(r["seed"] for r in jsonl(j)) == [start, start + 1, start + 2], "git hash seeds")
    run([tool("simrun"), "--seeds", "7,9,20-22", "-q", "--jsonl", j, "--", prog("canary")])
    check(sorted(r["seed"] for r in jsonl(j)) == [7, 9, 20, 21, 22], "list seeds")
    return "level default, git hash and list specs give exactly their seeds"


def case_bad_input():
    """Bad input: a message naming the problem, exit status 2, no report."""
    sr, sp = tool("simrun"), tool("simreplay")
    c = prog("canary")
    junk = os.path.join(WORK, "junk.jsonl")
    open(junk, "w").write('{"seed": 1}\nnot json\n')
    cases = [
        ([sr, "--frobnicate", "--", c], r"unknown option '--frobnicate'"),
        ([sr, "--seeds", "5-2", "--", c], r"range 5-2 is descending"),
        ([sr, "--seeds", "abc", "--", c], r"'abc' is not a decimal seed"),
        ([sr, "--seeds", "0", "--", c], r"N must be at least 1"),
        ([sr, "--seeds", "1,2,1", "--", c], r"seed 1 appears twice"),
        ([sr, "-j", "0", "--", c], r"bad value '0' for -j"),
        ([sr, "--seeds", "3"], r"no program given"),
        ([sr, "--seeds", "3", "--"], r"no program given"),
        ([sr, c, "x"], r"'x': the program's arguments go after '--'"),
        ([sr, "--timeout", "-1", "--", c], r"bad value '-1' for --timeout"),
        ([sr, "--level", "4", "--", c], r"bad value '4' for --level"),
        ([sr, "--shard", "2/2", "--", c], r"I must be below N"),
        ([sr, "--shard", "/2", "--", c], r"no shard index in the environment"),
        ([sr, "--merge", os.path.join(WORK, "missing.jsonl")], r"cannot read '.*missing.jsonl'"),
        ([sr, "--merge", junk], r"junk.jsonl:1: field 'index' is missing"),
        ([sr, "--options", "stratgy=pct", "--seeds", "2", "--", c], r"refused the options: DETSIM_OPTIONS: unknown key 'stratgy'"),
        ([sp, "--frobnicate"], r"unknown option '--frobnicate'"),
        ([sp, "--seed", "x", "--", c], r"bad --seed 'x'"),
        ([sp, "--seed", "1"], r"no program: give it after --"),
        ([sp, "detsim: nonsense here"], r"not a detsim result line or first line"),
        ([sp, "--seed", "5", "detsim: pass seed=6 events=1 history=0000000000000000", "--", c],
         r"the seed from the pasted result line \(6\) is not the seed from --seed \(5\)"),
        ([sp, "--shrink", "--trace", "--seed", "1", "--", c], r"--shrink cannot be combined with"),
        ([sp, "--gdb", "--seed", "1", "--", c], r"--gdb needs --break-at"),
        ([sp, os.path.join(WORK, "missing.trace")], r"neither a pasted 'detsim:' line nor a file"),
        ([sp, junk], r"not a detsim trace"),
    ]
    for argv, pattern in cases:
        st, out, err = run(argv, expect=2)
        check(re.search(pattern, err), "%s: stderr does not match %r:\n%s" % (" ".join(argv[1:]), pattern, err))
        check("SIMULATION REPORT" not in out and "replays" not in out, "%s printed a report" % " ".join(argv[1:]))
    return "%d bad inputs refused with exit status 2 and the message" % len(cases)


def deadlock_seed():
    """The first canary seed in 1-100 that deadlocks, and its result line."""
    for seed in range(1, 101):
        st, _, err = run([prog("canary")], env={"DETSIM_SEED": str(seed), "DETSIM_OPTIONS": "trace=none"})
        if st == CLASS_STATUS["deadlock"]:
            first = err.splitlines()[0]
            return seed, first, err.strip().splitlines()[-1]
    raise Fail("no canary seed in 1-100 deadlocks")


def case_replay_exact():
    """A passing seed replays exactly in 5 processes; so does a deadlocking
    one (exit 0 both: the verdict is on replaying)."""
    _, out, _ = run([tool("simreplay"), "--repeat", "5", "--seed", "1", "--", prog("canary")], expect=0)
    need(r"^simreplay: seed 1: pass history=[0-9a-f]{16} events=\d+: replays exactly \(5 of 5\)$", out, "verdict")
    check(len(re.findall(r"^simreplay: run \d+: pass ", out, re.M)) == 5, "5 runs")
    seed, _, _ = deadlock_seed()
    _, out, _ = run([tool("simreplay"), "--repeat", "3", "--seed", str(seed), "--", prog("canary")], expect=0)
    need(r"deadlock history=[0-9a-f]{16} events=\d+: replays exactly \(3 of 3\)$", out, "verdict")
    # Runs that replay write no trace (expect_history=, what simreplay passes);
    # a run that does not, does; a malformed value is refused.
    _, _, err = run([prog("canary")], env={"DETSIM_SEED": str(seed), "DETSIM_OPTIONS": "trace=none"})
    h = need(RESULT_RE.pattern, err, "deadlock result").group(4)
    for expect, wanted in ((h, False), ("0123456789abcdef", True)):
        path = os.path.join(WORK, "t-%s.trace" % expect)
        run([prog("canary")], env={"DETSIM_SEED": str(seed), "DETSIM_OPTIONS": "trace=%s:expect_history=%s" % (path, expect)})
        check(os.path.exists(path) == wanted, "expect_history=%s: trace file %s" % (expect, "missing" if wanted else "written"))
    st, _, err = run([prog("canary")], env={"DETSIM_SEED": "1", "DETSIM_OPTIONS": "expect_history=xyz"})
    check(st == 89 and "expected 16 hex digits" in err, "expect_history=xyz: exit %d: %s" % (st, err[-300:]))
    return "seed 1 replays exactly (5 of 5); deadlock seed %d (3 of 3); traces only when the history differs" % seed


def case_replay_pasted():
    """A pasted result line (with the program after --), a pasted first line
    (which carries the command), both in one argument, and a wrong history
    (diverged, exit 87)."""
    seed, first, result = deadlock_seed()
    hist = RESULT_RE.search(result).group(4)
    dl = 0  # replays exactly, whatever the class
    _, out, _ = run([tool("simreplay"), result, "--", prog("canary")], expect=dl)
    need(r"expecting deadlock history=%s .*from the pasted result line" % hist, out, "expectation")
    need(r"^simreplay: seed %d: deadlock history=%s events=\d+: replays exactly \(1 of 1\)$" % (seed, hist), out, "verdict")
    _, out, _ = run([tool("simreplay"), "--repeat", "2", first], expect=dl, env={})
    need(r"replays exactly \(2 of 2\)$", out, "first-line verdict")
    _, out, _ = run([tool("simreplay"), first + "\n" + result], expect=dl)
    need(r"expecting deadlock history=%s" % hist, out, "both lines")
    need(r"replays exactly \(1 of 1\)$", out, "both lines verdict")
    bad = result.replace("history=" + hist, "history=" + ("0" * 16))
    _, out, _ = run([tool("simreplay"), bad, "--", prog("canary")], expect=CLASS_STATUS["diverged"])
    need(r"diverged: replays 0 of 1", out, "wrong history")
    need(r"the runs agree with each other", out, "wrong history explanation")
    return "seed %d replays from a pasted result line, a first line, and both" % seed


def case_replay_trace_file():
    """A trace file is self-describing: simreplay FILE replays it; --trace
    prints every event; a truncated, corrupted or altered copy is refused
    naming the line (exit 2)."""
    seed, _, _ = deadlock_seed()
    tf = os.path.join(WORK, "run.trace")
    run([prog("canary")], env={"DETSIM_SEED": str(seed), "DETSIM_OPTIONS": "trace=" + tf}, expect=CLASS_STATUS["deadlock"])
    text = open(tf).read()
    need(r"^# seed=%d events=(\d+) history=[0-9a-f]{16}$" % seed, text, "trace header")
    need(r"^# replay: DETSIM_SEED=%d DETSIM_OPTIONS=trace=\S+ \S*canary$" % seed, text, "trace replay header")
    events = int(re.search(r"^# seed=\d+ events=(\d+)", text, re.M).group(1))
    _, out, _ = run([tool("simreplay"), "--trace", tf], expect=0)
    need(r"from trace file", out, "expectation")
    need(r"replays exactly \(1 of 1\)$", out, "verdict")
    rows = re.findall(r"^\s+\d+\s+\d+\.\d{9}\s+T\d+\s+\w+\s+\d+\s+0x[0-9a-f]+", out, re.M)
    check(len(rows) == events, "--trace printed %d events, the run had %d" % (len(rows), events))
    lines = text.splitlines(True)
    ev = [i for i, l in enumerate(lines) if not l.startswith("#")]
    variants = {
        "truncated": ("".join(lines[:ev[len(ev) // 2]]), r"the file is truncated"),
        "cut mid-line": ("".join(lines[:ev[3]]) + lines[ev[3]][:12], r"the last line has no newline: the file is truncated"),
        "corrupted": ("".join(lines[:ev[2]] + ["garbage line\n"] + lines[ev[2] + 1:]), r"line %d: not an event line" % (ev[2] + 1)),
        "renumbered": ("".join(lines[:ev[2]] + [re.sub(r"^(\s*)\d+", r"\g<1>999", lines[ev[2]])] + lines[ev[2] + 1:]),
                       r"event 999 where event 2 belongs"),
        "altered": ("".join(lines[:ev[1]] + [lines[ev[1]].replace("val=", "val=7")] + lines[ev[1] + 1:]),
                    r"do not fold to the header's history.*the file was altered"),
    }
    for name, (body, pattern) in variants.items():
        p = os.path.join(WORK, name.replace(" ", "_") + ".trace")
        open(p, "w").write(body)
        _, _, err = run([tool("simreplay"), p], expect=2)
        check(re.search(pattern, err), "%s trace: stderr does not match %r:\n%s" % (name, pattern, err))
    # The first line says whether the ring dropped older events: not here;
    # in a longer run with the smallest ring (16), yes, and the file is
    # still read back and replayed.
    need(r"\A# detsim trace: events 0\.\.%d of %d \(none dropped: trace_events=\d+\)$" % (events - 1, events), text,
         "first line of a whole trace")
    small = os.path.join(WORK, "small.trace")
    run([prog("canary")], env={"DETSIM_SEED": "1", "DETSIM_OPTIONS": "trace_always=1:trace_events=16:trace=" + small}, expect=0)
    m = need(r"\A# detsim trace: events (\d+)\.\.(\d+) of (\d+) \(older events dropped: trace_events=16\)$",
             open(small).read(), "first line of a trace whose ring dropped events")
    first, last, total = (int(g) for g in m.groups())
    check(first > 0 and last == total - 1 and last - first == 15, "ring of 16 kept events %d..%d of %d" % (first, last, total))
    _, out, _ = run([tool("simreplay"), small], expect=0)
    need(r"replays exactly \(1 of 1\)$", out, "replay of a trace whose ring dropped events")
    return "trace file of seed %d replays; %d events printed; %d damaged copies refused" % (seed, events, len(variants))


def case_diverged_canary():
    """The determinism canary (a real clock read in inline asm deciding how often to yield)
    is diverged under --repeat 5, with the first diverging event shown."""
    st, out, _ = run([tool("simreplay"), "--repeat", "5", "--seed", "1", "--", prog("clock_canary")],
                     expect=CLASS_STATUS["diverged"])
    m = need(r"^simreplay: seed 1: diverged: replays (\d) of 5", out, "verdict")
    check(int(m.group(1)) < 5, "replays %s of 5" % m.group(1))
    need(r"^simreplay: first diverging event: \d+$", out, "first event")
    need(r"^    run 1: +event \d+  t=\d+\.\d{9}  T\d+  \w+  val=\d+", out, "run 1 side")
    need(r"^    run \d: +event \d+  t=\d+\.\d{9}  T\d+  \w+  val=\d+", out, "other side")
    need(r"^    site: ", out, "site")
    # ... and as a source line (the canary is built with -g).
    need(r"^    source: main \S*clock_canary\.c:\d+ \(run \d\)$", out, "the site's source line")
    # The leak is a syscall instruction in inline asm: the pass warned at
    # compile time, and nothing at run time sees it (no runtime warning).
    check("syscall() is not simulated" not in out, "no stale runtime warning")
    return "diverged, replays %s of 5" % m.group(1)


def case_not_simulation():
    """A plain program is refused by both tools (exit 3) naming it: by its
    ELF, and (a script) by the missing first line."""
    hello = prog("hello")
    _, out, err = run([tool("simrun"), "--seeds", "3", "--", hello], expect=3)
    need(r"'%s' is not a simulation build" % re.escape(hello), err, "simrun ELF check")
    check("SIMULATION REPORT" not in out, "simrun printed a report")
    _, _, err = run([tool("simreplay"), "--seed", "1", "--", hello], expect=3)
    need(r"'%s' is not a simulation build" % re.escape(hello), err, "simreplay ELF check")
    script = os.path.join(WORK, "hello.sh")
    open(script, "w").write("#!/bin/sh\necho hello\n")
    os.chmod(script, 0o755)
    _, _, err = run([tool("simrun"), "--seeds", "3", "-j", "1", "--", script], expect=3)
    need(r"harness error: '%s' \(seed 1\) printed no 'detsim: seed=' first line" % re.escape(script), err, "simrun first line")
    _, _, err = run([tool("simreplay"), "--seed", "1", "--", script], expect=3)
    need(r"printed no 'detsim: seed=' first line", err, "simreplay first line")
    _, _, err = run([tool("simrun"), "--", os.path.join(WORK, "no-such-program")], expect=3)
    need(r"cannot find program", err, "missing program")
    return "plain ELF and script refused by both tools with exit status 3"


def case_compare():
    """--compare: the simulation build and its verify build take the same
    histories; an extra yield diverges at event 1; a plain release is clean;
    a plain release with a detsim symbol is flagged."""
    sp = tool("simreplay")
    _, out, _ = run([sp, "--compare", prog("canary"), prog("canary_verify"), "--seeds", "1-5"], expect=0)
    need(r"^simreplay: same histories: 5 of 5 seeds$", out, "same")
    _, out, _ = run([sp, "--compare", prog("canary"), prog("canary_extra"), "--seeds", "2"], expect=CLASS_STATUS["diverged"])
    need(r"^simreplay: diverged: 2 of 2 seeds took different histories", out, "verdict")
    check(len(re.findall(r"^simreplay: first diverging event: 1$", out, re.M)) == 2, "first event 1 for both seeds")
    need(r"^    verify: +event 1  t=\S+  T1  yield  val=0", out, "the extra yield")
    _, out, _ = run([sp, "--compare", prog("hello"), prog("canary_verify")], expect=0)
    need(r"is a plain build: no libdetsim_rt in DT_NEEDED and no detsim dynamic symbols", out, "plain release")
    need(r"no histories compared", out, "plain release")
    _, out, _ = run([sp, "--compare", prog("marked_release"), prog("canary_verify")], expect=1)
    need(r"has detsim dynamic symbols \(detsim_leftover_marker\)", out, "marked release")
    _, _, err = run([sp, "--compare", prog("canary"), prog("hello")], expect=3)
    need(r"\(VERIFY\) is not a simulation build", err, "plain verify")
    return "same / diverged at event 1 / plain clean / marked flagged / plain VERIFY refused"


def case_break_at():
    """--break-at 5 stops the run, prints the gdb recipe, and waits; after
    SIGCONT the run ends and simreplay exits with its class."""
    p = subprocess.Popen([tool("simreplay"), "--break-at", "5", "--seed", "1", "--", prog("canary")], cwd=WORK,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        lines = []
        pid = None
        while pid is None:
            line = p.stdout.readline()
            check(line, "simreplay ended before the stop: %s" % "".join(lines))
            lines.append(line)
            m = re.search(r"^simreplay:   gdb -p (\d+)", line)
            if m:
                pid = int(m.group(1))
        need(r"stopped after event 5: process %d waits for a debugger" % pid, "".join(lines), "stop line")
        state = [l for l in open("/proc/%d/status" % pid) if l.startswith("State:")][0]
        check("stopped" in state, "process %d is %s" % (pid, state.strip()))
        os.kill(pid, 18)  # SIGCONT
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    check(p.returncode == 0, "exit status %d after SIGCONT (seed 1 passes)\n%s" % (p.returncode, err))
    need(r"^simreplay: seed 1: pass history=", out, "end line")
    need(r"detsim: break at event", err, "the runtime's own break line")
    return "stopped, resumed with SIGCONT, ended as pass"


def case_help():
    for t in ("simrun", "simreplay"):
        _, out, _ = run([tool(t), "--help"], expect=0)
        need(r"^exit status:", out, t + " --help")
        need(r"^  3 ", out, t + " --help harness status")
    return "both --help texts document the exit statuses"


def failing_shrinkable_seed():
    """The first seed in 1-200 where shrinkable.c loses an update (crash)."""
    for seed in range(1, 201):
        st, _, _ = run([prog("shrinkable")], env={"DETSIM_SEED": str(seed), "DETSIM_OPTIONS": "trace=none"})
        if st == CLASS_STATUS["crash"]:
            return seed
        check(st == 0, "shrinkable seed %d: exit status %d (expected pass or crash)" % (seed, st))
    raise Fail("no shrinkable seed in 1-200 crashes")


def plan_entries(path):
    return [l.split("#")[0].split() for l in open(path) if re.match(r"^(switch|wake) ", l)]


def case_plan_record_replay():
    """A run's recorded schedule plan (plan_out=) replayed with plan= takes
    the very same history, for the random walk and PCT, for programs that
    switch, block and wake; the plan strategy explores nothing by itself."""
    progs = [("shrinkable", prog("shrinkable")), ("canary", prog("canary")), ("mixed", prog("mixed"))]
    checked = 0
    for name, path in progs:
        for strategy in ("random", "pct"):
            for seed in (1, 2, 4, 5, 8):  # mixed.c: crash, deadlock, pass, crash, pass
                plan = os.path.join(WORK, "%s-%s-%d.plan" % (name, strategy, seed))
                env = {"DETSIM_SEED": str(seed), "DETSIM_OPTIONS": "trace=none:strategy=%s:plan_out=%s" % (strategy, plan)}
                _, _, err = run([path], env=env)
                m = need(RESULT_RE.pattern, err, "%s seed %d result" % (name, seed))
                check(os.path.exists(plan), "%s seed %d: no plan written" % (name, seed))
                head = open(plan).read()
                check(head.startswith("# detsim plan 1\n"), "plan magic line")
                check("# class=%s events=%s history=%s" % (m.group(1), m.group(3), m.group(4)) in head,
                      "%s seed %d: the plan names its run's outcome:\n%s" % (name, seed, head[:300]))
                _, _, err2 = run([path], env={"DETSIM_SEED": str(seed), "DETSIM_OPTIONS": "trace=none:plan=%s" % plan})
                m2 = need(RESULT_RE.pattern, err2, "%s seed %d plan replay" % (name, seed))
                check(m2.group(1, 3, 4) == m.group(1, 3, 4),
                      "%s %s seed %d: the plan replay took %s, the run %s" % (name, strategy, seed, m2.group(0), m.group(0)))
                checked += 1
    check(checked >= 20, "only %d runs checked" % checked)
    return "%d recorded plans replay with the recorded history" % checked


def case_shrink():
    """simreplay --shrink: a lost update buried in noise shrinks to a few
    decisions; the plan file replays exactly (through simreplay and by its
    replay line); a second shrink writes the same plan; a passing seed has
    nothing to shrink."""
    seed = failing_shrinkable_seed()
    out1 = os.path.join(WORK, "one.plan")
    _, out, _ = run([tool("simreplay"), "--shrink", "--out", out1, "--seed", str(seed), "--", prog("shrinkable")],
                    expect=0, timeout=600)
    m = need(r"^simreplay: seed %d: shrunk crash \(crash signal=SIGABRT in main\): decisions (\d+) -> (\d+), "
             r"events (\d+) -> (\d+), (\d+) runs$" % seed, out, "shrink verdict")
    before, after, ev_before, ev_after = (int(m.group(i)) for i in range(1, 5))
    check(before >= 10, "the recorded run had only %d decisions: nothing to test shrinking on" % before)
    check(1 <= after <= 10 and after < before, "decisions %d -> %d: not shrunk to a handful" % (before, after))
    check(ev_after <= ev_before, "events grew %d -> %d" % (ev_before, ev_after))
    need(r"^simreplay: plan written to %s; it replays exactly$" % re.escape(out1), out, "written")
    check(len(plan_entries(out1)) == after, "the file holds %d entries, the verdict says %d" % (len(plan_entries(out1)), after))
    # The plan file alone replays: seed, command and expected history come from it.
    _, out, _ = run([tool("simreplay"), "--repeat", "3", out1], expect=0)
    need(r"^simreplay: seed %d: crash history=[0-9a-f]{16} events=%d: replays exactly \(3 of 3\)$" % (seed, ev_after),
         out, "plan replay")
    # So does its replay line, pasted into a shell.
    line = need(r"^# replay: (.*)$", open(out1).read(), "replay line").group(1)
    p = subprocess.run(["bash", "-c", line], cwd=WORK, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    check(p.returncode == CLASS_STATUS["crash"], "the replay line exits %d:\n%s" % (p.returncode, p.stderr.decode()[-2000:]))
    need(r"^detsim: crash seed=%d events=%d " % (seed, ev_after), p.stderr.decode(), "replay line result")
    # A shrink is a function of the run: the same plan again.
    out2 = os.path.join(WORK, "two.plan")
    run([tool("simreplay"), "-q", "--shrink", "--out", out2, "--seed", str(seed), "--", prog("shrinkable")], expect=0,
        timeout=600)
    check(plan_entries(out1) == plan_entries(out2), "two shrinks of seed %d wrote different plans" % seed)
    # A passing seed: nothing to shrink, a distinct status.
    _, out, _ = run([tool("simreplay"), "--shrink", "--seed", "1", "--", prog("canary")], expect=1)
    need(r"nothing to shrink", out, "passing seed")
    return "seed %d: decisions %d -> %d, events %d -> %d; replays 3 of 3 and by its line" % (
        seed, before, after, ev_before, ev_after)


def case_plan_bad_input():
    """Truncated, edited and foreign plan files are refused with the file,
    line and problem: by simreplay (status 2) and by the runtime (its usage
    status), before the program runs; --out alone is a usage error."""
    seed = failing_shrinkable_seed()
    good = os.path.join(WORK, "good.plan")
    run([prog("shrinkable")], env={"DETSIM_SEED": str(seed), "DETSIM_OPTIONS": "trace=none:plan_out=" + good})
    check(len(plan_entries(good)) >= 2, "the recorded plan has %d entries" % len(plan_entries(good)))
    text = open(good).read()
    lines = text.splitlines(True)
    bad = {
        "truncated": ("".join(l for l in lines if not l.startswith("end ")), r"no 'end' line"),
        "count": (text.replace("\nend ", "\nend 9"), r"does not match 'end'"),
        "garbage": (text.replace("\nseed ", "\nfrobnicate 1\nseed "), r"expected 'seed N'"),
        "thread0": (re.sub(r"^switch \d+", "switch 0", text, count=1, flags=re.M), r"expected 'seed N'"),
        "foreign": ("hello\n", r"not a detsim plan"),
    }
    for name, (body, why) in bad.items():
        path = os.path.join(WORK, name + ".plan")
        open(path, "w").write(body)
        if name != "foreign":  # a file without the magic line is taken for a trace file by simreplay
            _, _, err = run([tool("simreplay"), path], expect=2)
            need(r"plan file %s line \d+: .*%s" % (re.escape(path), why), err, "simreplay on %s plan" % name)
        st, out, err = run([prog("shrinkable")], env={"DETSIM_SEED": str(seed), "DETSIM_OPTIONS": "plan=" + path})
        check(st == 89, "runtime on %s plan: exit %d, expected 89" % (name, st))
        need(r"^detsim: error: DETSIM_OPTIONS: plan file %s line \d+: .*%s" % (re.escape(path), why), err,
             "runtime on %s plan" % name)
        check(out == "", "the program ran with a %s plan" % name)
    st, _, err = run([prog("shrinkable")], env={"DETSIM_SEED": str(seed + 1), "DETSIM_OPTIONS": "plan=" + good})
    check(st == 89, "a plan for another seed: exit %d" % st)
    need(r"the plan is for seed %d, but this run's DETSIM_SEED is %d" % (seed, seed + 1), err, "seed mismatch")
    _, _, err = run([tool("simreplay"), "--out", "x.plan", "--seed", "1", "--", prog("canary")], expect=2)
    need(r"--out and --shrink-runs are options of --shrink", err, "--out alone")
    return "%d bad plans refused by both" % len(bad)


def case_options_after():
    """Options may follow PROGRAM (its own arguments then go after '--'):
    the same sweep as with the options first."""
    j1, j2 = os.path.join(WORK, "a.jsonl"), os.path.join(WORK, "b.jsonl")
    _, out1, _ = run([tool("simrun"), "--seeds", "1-20", "-j", "2", "--jsonl", j1, "--", prog("coverage_points"), "strict"],
                     expect=1)
    _, out2, _ = run([tool("simrun"), prog("coverage_points"), "--seeds", "1-20", "-j", "2", "--jsonl", j2, "--", "strict"],
                     expect=1)
    strip = lambda rs: [(r["seed"], r["class"], r["history"]) for r in sorted(rs, key=lambda r: r["seed"])]
    check(strip(jsonl(j1)) == strip(jsonl(j2)), "options after PROGRAM: another sweep")
    check(jsonl(j2)[0]["argv"][1:] == ["strict"], "the arguments after '--': %s" % jsonl(j2)[0]["argv"])
    _, out, _ = run([tool("simrun"), prog("coverage_points"), "-q", "--seeds", "3"], expect=0)
    need(r"^simrun: PASSED: 0 of 3 seeds failed", out, "options after PROGRAM, no arguments")
    return "simrun PROGRAM --seeds ... -- ARGS runs the same sweep"


def case_first_failure_own():
    """FIRST FAILURE shows the failing run's own first lines on stderr (the
    program's message, not detsim's), which the trace tail hides; the JSON
    lines carry them (stderr_own) and --merge shows them again.  A missing
    --trace-dir is made (with its parents) and holds the traces."""
    j, td = os.path.join(WORK, "o.jsonl"), os.path.join(WORK, "new", "traces")
    _, out, _ = run([tool("simrun"), "--seeds", "3", "-j", "2", "--jsonl", j, "--trace-dir", td, "--", prog("own_message")],
                    expect=1)
    check(sorted(os.listdir(td)) == ["detsim-1.trace", "detsim-2.trace", "detsim-3.trace"], "--trace-dir: %s" % os.listdir(td))
    msg = "own_message: the server refused the connection"
    first = out[out.index("FIRST FAILURE"):]
    need(r"^FIRST FAILURE: seed 1 \(crash\)\n  its own first lines on stderr \(not detsim's\):\n  %s\n  the last lines of its stderr:$"
         % re.escape(msg), first, "own lines in FIRST FAILURE")
    recs = jsonl(j)
    check(all(r["stderr_own"] == [msg] for r in recs), "stderr_own: %s" % [r["stderr_own"] for r in recs])
    check(all(msg not in r["stderr_tail"] for r in recs), "the message is in the tail: the case tests nothing")
    _, out_m, _ = run([tool("simrun"), "--merge", j], expect=1)
    check(out_m[out_m.index("FIRST FAILURE"):] == first, "merged FIRST FAILURE differs:\n%s" % out_m)
    open(os.path.join(WORK, "afile"), "w").close()
    _, _, err = run([tool("simrun"), "--seeds", "1", "--trace-dir", os.path.join(WORK, "afile"), "--", prog("own_message")], expect=2)
    need(r"--trace-dir '.*afile' is not a directory", err, "--trace-dir on a file")
    return "the program's own message is in FIRST FAILURE, the JSON lines and a merge"


def case_time_compression():
    """Time compression is simulated time over the runs' CPU time (cpu_s
    in the JSON lines), not over the sweep's wall time, which depends on
    -j; a merge reports the same."""
    j = os.path.join(WORK, "t.jsonl")
    _, out, _ = run([tool("simrun"), "--seeds", "20", "-j", "2", "--jsonl", j, "--", prog("shrinkable")])
    recs = jsonl(j)
    cpu = sum(r["cpu_s"] for r in recs)
    sim = sum(r["sim_time_s"] for r in recs)
    check(all(r["cpu_s"] > 0 for r in recs), "a run without CPU time: %s" % [r["cpu_s"] for r in recs])
    m = need(r"^  CPU time:\s+([\d.]+) s \(sum over the runs\)$", out, "CPU time line")
    check(abs(float(m.group(1)) - cpu) <= 0.0015 + cpu * 0.001, "CPU time %s, the runs' %f" % (m.group(1), cpu))
    m = need(r"^  time compression:\s+([\d.e+]+)x \(simulated / CPU time\)$", out, "compression line")
    check(abs(float(m.group(1)) - sim / cpu) <= sim / cpu * 0.01, "compression %s, sim/cpu %f" % (m.group(1), sim / cpu))
    _, out_m, _ = run([tool("simrun"), "--merge", j])
    mm = need(r"^  time compression:\s+([\d.e+]+)x \(simulated / CPU time\)$", out_m, "merged compression line")
    check(abs(float(mm.group(1)) - float(m.group(1))) <= float(m.group(1)) * 0.01, "merged compression %s, the sweep's %s"
          % (mm.group(1), m.group(1)))
    return "compression %.3gx over %.3f s of CPU" % (sim / cpu, cpu)


def case_keep_failures():
    """A sweep keeps the traces of the --keep lowest failing seeds of each
    signature (default 3) and deletes the others', whatever -j; the report
    says how many and names the kept trace of each signature's first seed."""
    for keep, want in ((None, 3), ("1", 1), ("all", 10)):
        td = os.path.join(WORK, "t-%s" % keep)
        argv = [tool("simrun"), "--seeds", "10", "-j", "2", "--trace-dir", td] + (["--keep", keep] if keep else [])
        _, out, _ = run(argv + ["--", prog("own_message")], expect=1)
        got = sorted(os.listdir(td), key=lambda n: int(re.findall(r"\d+", n)[0]))
        check(got == ["detsim-%d.trace" % s for s in range(1, want + 1)], "--keep %s: %s" % (keep, got))
        if keep == "all":
            need(r"^  kept on disk:\s+every failing seed's trace and world logs \(--keep all\)$", out, "--keep all")
        else:
            need(r"^  kept on disk:\s+the trace and world logs of the lowest %d failing seeds? of each signature "
                 r"\(--keep\); %d seeds' deleted$" % (want, 10 - want), out, "kept line")
        need(r"^     trace:\s+%s$" % re.escape(os.path.join(td, "detsim-1.trace")), out, "the first seed's trace named")
    return "3, 1 and all of 10 failing seeds' traces kept"


def case_source_coverage():
    """simrun --coverage DIR merges the source coverage of every seed, the
    failing ones too (an UNREACHABLE ends them without exit(): their
    profiles are kept as they run), into one profile and an llvm-cov
    report; a build without coverage says so."""
    d = os.path.join(WORK, "cov")
    j = os.path.join(WORK, "c.jsonl")
    _, out, _ = run([tool("simrun"), "--seeds", "30", "-j", "2", "--coverage", d, "--jsonl", j, "--",
                     prog("coverage_points_cov"), "strict"], expect=1)
    failed = sum(r["class"] != "pass" for r in jsonl(j))
    check(0 < failed < 30, "%d of 30 seeds failed: the case needs both" % failed)
    need(r"^SOURCE COVERAGE: 30 runs, 30 profiles merged into %s$" % re.escape(os.path.join(d, "sweep.profdata")), out,
         "source coverage header")
    m = need(r"^  lines:\s+([\d.]+)% \((\d+) of (\d+)\)$", out, "lines")
    check(int(m.group(2)) > 0, "no line covered")
    m = need(r"^  regions:\s+([\d.]+)% \((\d+) of (\d+)\)$", out, "regions")
    check(int(m.group(2)) < int(m.group(3)), "every region covered: the never-reached branch should not be")
    check(os.path.exists(os.path.join(d, "html", "index.html")), "no html report")
    check("coverage_points.c" in open(os.path.join(d, "report.txt")).read(), "report.txt does not name the source")
    check(not [f for f in os.listdir(d) if f.endswith(".profraw")], "per-seed profiles left in %s" % d)
    shown = subprocess.run(["llvm-profdata-19", "show", "--function=main", os.path.join(d, "sweep.profdata")],
                           stdout=subprocess.PIPE, check=True).stdout.decode()
    need(r"Function count: 30$", shown, "main ran once per seed, failing seeds included")
    _, out, _ = run([tool("simrun"), "--seeds", "3", "--coverage", os.path.join(WORK, "none"), "--",
                     prog("coverage_points")], expect=0)
    need(r"^SOURCE COVERAGE: none: no run wrote a profile", out, "a build without coverage")
    return "30 seeds' profiles (%d failing) merged; %s" % (failed, m.group(0).strip())


COVERAGE_LINE_RE = re.compile(r"^  \[(.)\] (.+?) \u2014 (\d+) occurrences? \((.*)\)$", re.M)


def coverage_lines(report):
    """The WORKLOAD COVERAGE section: {name: (mark, occurrences, rest)}."""
    m = re.search(r"^WORKLOAD COVERAGE: (\d+) of (\d+) points exercised\n((?:  \[.*\n?)*)", report, re.M)
    check(m, "no WORKLOAD COVERAGE section in:\n%s" % report[-3000:])
    return {x.group(2): (x.group(1), int(x.group(3)), x.group(4)) for x in COVERAGE_LINE_RE.finditer(m.group(3))}


def point_sums(records):
    """{name: (hits over the records, records with a hit)} from JSON lines."""
    sums = {}
    for r in records:
        for p in r["points"]:
            h, k = sums.get(p["name"], (0, 0))
            sums[p["name"]] = (h + p["hits"], k + (p["hits"] > 0))
    return sums


def case_coverage_points():
    """DETSIM_SOMETIMES/REACHABLE/UNREACHABLE over a sweep (coverage_points.c):
    the report lists every point with its occurrences and seeds, the points
    reached on some seeds only as such, the never-reached ones as `[ ]` (a
    SOMETIMES evaluated but never true says so); the counts are the JSON
    lines' and JUnit's; --require-coverage fails the sweep (status 4);
    an UNREACHABLE reached is `correctness` naming it, and replays."""
    j, x = os.path.join(WORK, "c.jsonl"), os.path.join(WORK, "c.xml")
    base = [tool("simrun"), "--seeds", "1-100", "-j", "2"]
    _, out, _ = run(base + ["--jsonl", j, "--junit", x, "--", prog("coverage_points")], expect=0)
    need(r"^  result:\s+PASSED$", out, "a pass without --require-coverage")
    need(r"^WORKLOAD COVERAGE: 3 of 5 points exercised$", out, "coverage header")
    cov = coverage_lines(out)
    check(set(cov) == {"worker b first", "workers interleaved", "workers done", "never true", "never reached",
                       "b ran three in a row"}, "points listed: %s" % sorted(cov))
    sums = point_sums(jsonl(j))
    for name, (mark, n, rest) in cov.items():
        hits, runs = sums[name]
        check(n == hits, "%s: report %d occurrences, JSON lines %d" % (name, n, hits))
        if hits:
            check(mark == "x" and rest == "%d of 100 seeds" % runs, "%s: %r %r" % (name, mark, rest))
    for name in ("worker b first", "workers interleaved"):
        check(0 < sums[name][1] < 100, "%s reached on %d of 100 seeds: not 'some seeds only'" % (name, sums[name][1]))
    check(cov["workers done"] == ("x", 100, "100 of 100 seeds"), "workers done: %r" % (cov["workers done"],))
    check(cov["never true"] == (" ", 0, "not exercised; evaluated 100 times, never true"), "never true: %r" % (cov["never true"],))
    check(cov["never reached"] == (" ", 0, "not exercised"), "never reached: %r" % (cov["never reached"],))
    check(cov["b ran three in a row"] == ("-", 0, "unreachable, never reached"), "unreachable: %r" % (cov["b ran three in a row"],))
    # One run's own lines: every point, reached or not, before the result line.
    _, _, err = run([prog("coverage_points")], env={"DETSIM_SEED": "1"}, expect=0)
    for name in cov:
        need(r"^detsim: point \w+=\d+(/\d+)? %s$" % re.escape(name), err, "point line of %r" % name)
    props = {p.get("name"): p.get("value") for p in ET.parse(x).getroot().iter("property")}
    check(props.get("coverage: sometimes worker b first") == "%d occurrences in %d of 100 seeds" % sums["worker b first"],
          "JUnit property: %r" % props.get("coverage: sometimes worker b first"))
    check(props.get("coverage: reachable never reached") == "0 occurrences in 0 of 100 seeds", "JUnit unreached property")
    # --require-coverage: the same sweep fails, naming how many points.
    st, out, _ = run(base + ["--require-coverage", "--junit", x, "--", prog("coverage_points")], expect=4)
    need(r"^  result:\s+FAILED \(--require-coverage: 2 points not exercised\)$", out, "--require-coverage result")
    failing = [t.get("name") for t in ET.parse(x).getroot().iter("testcase") if t.find("failure") is not None]
    check(sorted(failing) == ["coverage: never reached", "coverage: never true"], "JUnit coverage failures: %s" % failing)
    _, out, _ = run(base + ["-q", "--require-coverage", "--", prog("coverage_points")], expect=4)
    need(r"^simrun: FAILED: 0 of 100 seeds failed; 2 coverage points not exercised$", out, "-q --require-coverage")
    # UNREACHABLE reached on some seeds: correctness, naming the point.
    j2 = os.path.join(WORK, "strict.jsonl")
    _, out, _ = run(base + ["--jsonl", j2, "--", prog("coverage_points"), "strict"], expect=1)
    recs = jsonl(j2)
    bad = [r for r in recs if r["class"] != "pass"]
    check(0 < len(bad) < 100, "UNREACHABLE reached on %d of 100 seeds" % len(bad))
    check(all(r["class"] == "correctness" and r["signature"] == "correctness unreachable=b_ran_three_in_a_row in main"
              for r in bad), "signatures: %s" % sorted({r["signature"] for r in bad}))
    check(not any(l.startswith("detsim: point ") for r in bad for l in r["stderr_tail"]),
          "point lines fill the failures' stderr tails")
    cov = coverage_lines(out)
    check(cov["b ran three in a row"] == ("!", len(bad), "%d of 100 seeds; unreachable: correctness" % len(bad)),
          "unreachable reached: %r" % (cov["b ran three in a row"],))
    seed = bad[0]["seed"]
    _, _, err = run([prog("coverage_points"), "strict"], env={"DETSIM_SEED": str(seed)}, expect=CLASS_STATUS["correctness"])
    need(r"correctness: unreachable point 'b ran three in a row' reached at .*coverage_points\.c:\d+", err, "message")
    need(r"^detsim: correctness seed=%d .* unreachable=b_ran_three_in_a_row" % seed, err, "result line")
    _, out, err = run([tool("simreplay"), "--repeat", "3", "--seed", str(seed), "--", prog("coverage_points"), "strict"], expect=0)
    need(r"replays exactly \(3 of 3\)", out + err, "replay of the UNREACHABLE seed")
    return "%d points listed with their counts; --require-coverage 4; UNREACHABLE on %d seeds" % (len(cov), len(bad))


def case_coverage_merge():
    """Shards merged with --merge give the full sweep's coverage section."""
    full, s0, s1 = (os.path.join(WORK, n) for n in ("full.jsonl", "s0.jsonl", "s1.jsonl"))
    base = [tool("simrun"), "--seeds", "1-60", "-j", "2"]
    _, out_full, _ = run(base + ["--jsonl", full, "--", prog("coverage_points"), "strict"], expect=1)
    run(base + ["--shard", "0/2", "--jsonl", s0, "--", prog("coverage_points"), "strict"])
    run(base + ["--shard", "1/2", "--jsonl", s1, "--", prog("coverage_points"), "strict"])
    _, out_m, _ = run([tool("simrun"), "--merge", s0, s1], expect=1)
    section = lambda o: re.search(r"^WORKLOAD COVERAGE:.*\n(?:  \[.*\n)*", o, re.M).group(0)
    check(section(out_full) == section(out_m), "merged coverage differs:\n%s\nfull:\n%s" % (section(out_m), section(out_full)))
    st, out_r, _ = run([tool("simrun"), "--merge", "--require-coverage", s0, s1], expect=1)
    need(r"^  \[ \] never reached \u2014 0 occurrences \(not exercised\)$", out_r, "merged unreached point")
    return "merge of 2 shards: the same WORKLOAD COVERAGE"


def case_coverage_release():
    """A plain build (no plugin) of the same source carries no trace of
    detsim: no detsim symbol, no detsim_points section, and it runs."""
    p = prog("coverage_points_plain")
    nm = subprocess.run(["nm", "-a", p], stdout=subprocess.PIPE, check=True).stdout.decode()
    check("detsim" not in nm.lower(), "detsim symbols in a plain build:\n%s" % "\n".join(
        l for l in nm.splitlines() if "detsim" in l.lower()))
    sections = subprocess.run(["readelf", "-SW", p], stdout=subprocess.PIPE, check=True).stdout.decode()
    check("detsim" not in sections, "a detsim section in a plain build")
    strings = subprocess.run(["strings", p], stdout=subprocess.PIPE, check=True).stdout.decode()
    check("worker b first" not in strings and "never reached" not in strings, "point names in a plain build")
    _, out, err = run([p, "strict"], expect=0)
    check(re.match(r"^[ab]{6}$", out.strip()) and "detsim" not in err, "plain run: %r %r" % (out, err))
    return "no detsim symbol, section or point name in a plain build"


OUTPUT_RE = re.compile(r"^detsim: \w+ seed=\d+ events=\d+ history=[0-9a-f]{16} sim_time=\S+ output=([0-9a-f]{16})", re.M)


def case_output_diverged():
    """The output canary (a number kept in a file across runs, printed) takes
    the same schedule in every run but prints something else: --repeat 3 is
    diverged, and the first diverging event is the program's write, named
    with its source line."""
    state = os.path.join(WORK, "counter")
    st, out, _ = run([tool("simreplay"), "--repeat", "3", "--seed", "1", "--", prog("output_leak"), state],
                     expect=CLASS_STATUS["diverged"])
    m = need(r"^simreplay: seed 1: diverged: replays (\d) of 3", out, "verdict")
    check(m.group(1) == "1", "replays %s of 3 (each run prints another number)" % m.group(1))
    need(r"^simreplay: first diverging event: \d+$", out, "first event")
    need(r"^    run 1: +event \d+  t=\d+\.\d{9}  T1  output  val=\d+", out, "run 1's write")
    need(r"^    run 2: +event \d+  t=\d+\.\d{9}  T1  output  val=\d+", out, "run 2's write")
    need(r"^    source: print_count \S*output_leak\.c:\d+", out, "the printf's source line")
    # Without the leak (the same number each time) the program replays.
    st, out, _ = run([tool("simreplay"), "--repeat", "3", "--seed", "1", "--", prog("output_leak"), "/dev/null"],
                     expect=0)
    need(r"^simreplay: seed 1: pass history=[0-9a-f]{16} events=\d+: replays exactly \(3 of 3\)$", out, "clean replay")
    return "diverged at the program's write (print_count), and replays without the leak"


def case_output_digest():
    """output= on the result line: the same for one seed in every run, and
    different where the seed prints something else; a deterministic program
    replays exactly; a pasted result line whose output= differs is diverged
    even though its history is the program's."""
    f = os.path.join(WORK, "order.txt")
    digests = {}
    for seed in range(1, 9):
        env = dict(os.environ, DETSIM_SEED=str(seed))
        env.pop("DETSIM_OPTIONS", None)
        seen = set()
        for _ in range(2):
            _, out, err = run([prog("output_steady"), f], env=env, expect=0)
            m = need(OUTPUT_RE.pattern, err, "output= on the result line")
            seen.add((m.group(1), out))
        check(len(seen) == 1, "seed %d: two runs gave %s" % (seed, sorted(seen)))
        digests[seed] = seen.pop()
    outs = {d for d, _ in digests.values()}
    texts = {o for _, o in digests.values()}
    check(len(texts) >= 2, "the seeds all printed the same: %s" % texts)
    check(len(outs) == len(texts), "%d distinct stdouts but %d distinct output= digests" % (len(texts), len(outs)))
    # The file's bytes count too: another file content, another digest.
    env = dict(os.environ, DETSIM_SEED="1")
    env.pop("DETSIM_OPTIONS", None)
    _, _, err = run([prog("output_steady")], env=env, expect=0)
    check(need(OUTPUT_RE.pattern, err, "output=").group(1) != digests[1][0], "writing the file changed no digest")
    _, out, _ = run([tool("simreplay"), "--repeat", "3", "--seed", "3", "--", prog("output_steady"), f], expect=0)
    need(r"replays exactly \(3 of 3\)$", out, "replay")
    _, _, err = run([prog("output_steady"), f], env=dict(env, DETSIM_SEED="3"), expect=0)
    line = need(r"^detsim: pass seed=3 .*$", err, "result line").group(0)
    forged = re.sub(r"output=[0-9a-f]{16}", "output=0000000000000000", line)
    _, out, _ = run([tool("simreplay"), forged, "--", prog("output_steady"), f], expect=CLASS_STATUS["diverged"])
    need(r"^simreplay: seed 3: diverged", out, "a different output= is diverged")
    # The runtime's own lines are not the program's output: a deadlock's
    # report with and without its trace tail has one history and digest.
    seed, _, _ = deadlock_seed()
    ends = set()
    for tail in ("0", "40"):
        _, _, err = run([prog("canary")], env={"DETSIM_SEED": str(seed), "DETSIM_OPTIONS": "trace=none:trace_tail=" + tail})
        check(("detsim: |" in err) == (tail != "0"), "trace_tail=%s: tail lines printed: %s" % (tail, "detsim: |" in err))
        m = need(r"^detsim: deadlock seed=\d+ events=\d+ history=([0-9a-f]{16}) sim_time=\S+ output=([0-9a-f]{16})", err,
                 "deadlock result line")
        ends.add(m.groups())
    check(len(ends) == 1, "the trace tail changed the history or digest: %s" % sorted(ends))
    return "%d seeds, %d distinct outputs, each seed's output= stable; forged output= diverged; the runtime's lines do not count" % (
        len(digests), len(outs))


CASES = {n[5:].replace("_", "-"): f for n, f in globals().items() if n.startswith("case_")}


def main():
    global A, WORK
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--bin", required=True)
    ap.add_argument("--progs", required=True)
    A = ap.parse_args()
    WORK = tempfile.mkdtemp(prefix="tooltest-%s-" % A.case, dir=os.getcwd())
    try:
        msg = CASES[A.case]()
    except Fail as e:
        print("FAIL: %s: %s\n(files kept in %s)" % (A.case, e, WORK))
        sys.exit(1)
    shutil.rmtree(WORK, ignore_errors=True)
    print("ok: %s: %s" % (A.case, msg))


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from scratch_tmpdir import use_private_tmpdir
    use_private_tmpdir("tooltest-")
    main()
