"""World tests: the world's trace, fault shrinks, the determinism canary, signals between nodes."""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

from world_common import *  # noqa: F401,F403 (the shared helpers)


TRACE_EVENT_RE = re.compile(r"^ *(\d+) t=\d+\.\d{9} T\d+@(\S+) ", re.M)

def check_world_trace(path, nodes, events):
    """The merged trace at path: a world's header, every event 0..events-1
    exactly once and in order (what each node recorded, crashed and
    restarted incarnations' too), each node present."""
    text = open(path).read()
    if "\n# world: nodes=" not in text:
        fail(f"{path}: no '# world:' header:\n{text[:400]}")
    got = [(int(n), node) for n, node in TRACE_EVENT_RE.findall(text)]
    if [n for n, _ in got] != list(range(events)):
        missing = sorted(set(range(events)) - {n for n, _ in got})
        fail(f"{path}: {len(got)} event lines for {events} events; missing {missing[:10]}...")
    if {node for _, node in got} != set(nodes):
        fail(f"{path}: nodes {sorted({node for _, node in got})}, want {sorted(nodes)}")

def trace(bins, d):
    """A world's trace (the nodes' parts merged by simworld).  A failing
    world (crash.scenario) leaves one on failure: whole, every node's
    events, and simreplay replays it exactly from the file.  A level-2
    world with crashes and restarts (restart.scenario) under trace_always
    gives a whole trace too, the killed processes' events included, from
    which simreplay --trace replays.  A passing world without trace_always
    leaves no trace and no part behind."""
    sw = os.path.join(bins, "simworld")
    sr = os.path.join(bins, "simreplay")
    work = tempfile.mkdtemp()
    # A failing world: the trace the result line names.
    tpath = os.path.join(work, "fail.trace")
    code, out, err = run([sw, "crash.scenario"], env={"DETSIM_SEED": "1", "DETSIM_OPTIONS": f"trace={tpath}"}, cwd=d)
    m = RESULT_RE.search(err)
    if not m or m.group(1) != "crash" or f"trace={tpath}" not in err:
        fail(f"crash.scenario: want class crash naming trace={tpath}:\n{err}")
    check_world_trace(tpath, ["srv", "ok", "bad"], int(m.group(3)))
    code, out, err = run([sr, tpath], cwd=d)
    if code != 0 or "replays exactly (1 of 1)" not in out:
        fail(f"simreplay {tpath}: status {code}\n{out}\n{err}")
    # Crashes and restarts, traced always.
    crashed = None
    for seed in range(1, 25):
        tpath = os.path.join(work, f"restart-{seed}.trace")
        code, out, err = run([sw, "restart.scenario"],
                             env={"DETSIM_SEED": str(seed), "DETSIM_OPTIONS": f"trace={tpath}:trace_always=1"}, cwd=d)
        m = RESULT_RE.search(err)
        if not m or m.group(1) != "pass":
            fail(f"restart.scenario seed {seed}: want pass:\n{err}")
        if not re.search(r"^detsim: faults level=2 .*crash=[1-9]", err, re.M):
            continue
        check_world_trace(tpath, ["srv1", "srv2", "cli"], int(m.group(3)))
        crashed = (seed, tpath)
        break
    if crashed is None:
        fail("no seed of restart.scenario in 1..24 crashed a server")
    seed, tpath = crashed
    code, out, err = run([sr, "--trace", tpath], cwd=d)
    if code != 0 or "replays exactly (1 of 1)" not in out or "@srv1" not in out or "(a world:" not in out:
        fail(f"simreplay --trace {tpath}: status {code}\n{out[-2000:]}\n{err}")
    # A passing world, not traced (trace_always unset, or set false as the
    # runtime spells it): nothing left.
    for always in ("", ":trace_always=false"):
        tpath = os.path.join(work, "pass.trace")
        code, out, err = run([sw, "restart.scenario"],
                             env={"DETSIM_SEED": str(seed), "DETSIM_OPTIONS": f"trace={tpath}{always}"}, cwd=d)
        left = glob.glob(tpath + "*")
        if left:
            fail(f"a passing world ({always or 'trace_always unset'}) left {left}")
    subprocess.run(["rm", "-rf", work])
    print(f"failing world traced whole and replayed; seed {seed} of restart.scenario (crashes) traced whole, "
          f"replayed with --trace; a passing world leaves nothing")

def shrink(bins, d):
    """simreplay --shrink of a failing world (liveness_many.scenario, seed
    1: twelve faults drawn) keeps one fault, says so, and its replay line
    (fault_drop=) fails the same way with every other fault left out and
    takes the same history each time; a passing world has nothing to
    shrink."""
    sw = os.path.join(bins, "simworld")
    sr = os.path.join(bins, "simreplay")
    code, out, err = run([sr, "--shrink", "--seed", "1", "--", sw, "liveness_many.scenario"], cwd=d)
    m = re.search(r"a world with (\d+) drawn faults", out)
    s = re.search(r"shrunk liveness \(liveness nodes=2 liveness_s=5\): faults (\d+) -> (\d+)", out)
    r = re.search(r"it replays exactly; replay: DETSIM_SEED=1 DETSIM_OPTIONS=fault_drop=(\d+) ", out)
    if code != 0 or not (m and s and r):
        fail(f"simreplay --shrink: status {code}\n{out}\n{err}")
    drawn, before, after = int(m.group(1)), int(s.group(1)), int(s.group(2))
    if drawn < 4 or before != drawn or after != 1:
        fail(f"want a shrink of 4 or more faults to 1, got {before} -> {after}:\n{out}")
    drop = int(r.group(1))
    if bin(drop).count("1") != drawn - 1:
        fail(f"fault_drop={drop} does not leave out {drawn - 1} faults")
    histories = set()
    for _ in range(2):
        code, out2, err2 = run([sw, "liveness_many.scenario"],
                               env={"DETSIM_SEED": "1", "DETSIM_OPTIONS": f"fault_drop={drop}"}, cwd=d)
        m2 = RESULT_RE.search(err2)
        if not m2 or m2.group(1) != "liveness" or f"dropped={drawn - 1}" not in err2:
            fail(f"the shrunk replay line does not fail as liveness with {drawn - 1} faults dropped:\n{err2}")
        histories.add(m2.group(4))
    if len(histories) != 1:
        fail(f"the shrunk world does not replay: {histories}")
    code, out, err = run([sr, "--shrink", "--seed", "1", "--", sw, "ping.scenario"], cwd=d)
    if code != 1 or "nothing to shrink" not in out:
        fail(f"a passing world: want 'nothing to shrink' and status 1, got {code}:\n{out}\n{err}")
    print(f"seed 1: {drawn} faults shrunk to 1 ({s.group(0)}); the replay line fails the same way and replays")

def canary(bins, d):
    """canary.scenario's client reads the real clock through a syscall
    instruction in inline asm.  With the run-time net off
    (trap_syscalls=0), simreplay --repeat 3 must call the world diverged
    (status 84's class, the verdict line), name the first event that differs
    with its node (T1@cli) on both sides.  With a world's default
    (trap_syscalls=auto: on in a world) the instruction is caught and
    simulated: the world replays exactly."""
    sr = os.path.join(bins, "simreplay")
    code, out, err = run([sr, "--repeat", "3", "--seed", "4", "--options", "trap_syscalls=0", "canary.scenario"], cwd=d)
    if "diverged: replays" not in out or code == 0:
        fail(f"simreplay of the canary world (trap_syscalls=0): want diverged, got status {code}:\n{out}\n{err}")
    m = re.search(r"first diverging event: (\d+)\n    (run \d+|[a-z ]+): event \1 .*T\d+@cli.*\n    (run \d+): event \1 .*T\d+@cli", out)
    if not m:
        fail(f"no first diverging event located with its node:\n{out}")
    print(f"the canary world diverged without the net; first diverging event {m.group(1)}, in node cli")
    code, out, err = run([sr, "--repeat", "3", "--seed", "4", "canary.scenario"], cwd=d)
    if code != 0 or "replays exactly" not in out:
        fail(f"simreplay of the canary world (trap_syscalls=auto): want replays exactly, got status {code}:\n{out}\n{err}")
    print("with the world's default the syscall instruction is simulated: the canary world replays exactly")

def signal_between_nodes(bins, d):
    """signal.scenario over 6 seeds: the sender kills the target by the pid
    it was told, the target's handler runs (it says so, with the sender's
    pid from si_pid), kill(pid, 0) finds it, a pid no node has is ESRCH
    with the runtime's message; the pids are the world's (tgt 1000, snd
    1001, their parent 999), sent at natural width; a seed replays, the
    nodes' output too."""
    sw = os.path.join(bins, "simworld")
    hist, outs = {}, {}
    for seed in range(1, 7):
        logs = tempfile.mkdtemp()
        code, out, err = run([sw, "--logs", logs, "signal.scenario"], env={"DETSIM_SEED": str(seed)}, cwd=d)
        m = RESULT_RE.search(err)
        said = open(os.path.join(logs, "snd.out")).read()
        tgt_said = open(os.path.join(logs, "tgt.out")).read()
        snd_err = open(os.path.join(logs, "snd.err")).read()
        subprocess.run(["rm", "-rf", logs])
        if code != 0 or not m or m.group(1) != "pass":
            fail(f"seed {seed}: want pass, got status {code}:\n{err}")
        for want in ("kill(unknown)=-1 ESRCH\n", "kill(target, 0)=0\n", "target says: got SIGUSR1 from 1001\n",
                     "sender pid=1001 ppid=999; target pid=1000\n"):
            if want not in said:
                fail(f"seed {seed}: the sender did not print {want!r}:\n{said}")
        if tgt_said != "target pid=1000 ppid=999 tid=1000\n":
            fail(f"seed {seed}: the target's ids: {tgt_said!r}")
        outs[seed] = said + tgt_said
        if "no process of the simulated world has that pid" not in snd_err:
            fail(f"seed {seed}: no message for the unknown pid:\n{snd_err}")
        hist[seed] = m.group(4)
    logs = tempfile.mkdtemp()
    code, out, err = run([sw, "--logs", logs, "signal.scenario"], env={"DETSIM_SEED": "3"}, cwd=d)
    again = open(os.path.join(logs, "snd.out")).read() + open(os.path.join(logs, "tgt.out")).read()
    subprocess.run(["rm", "-rf", logs])
    m = RESULT_RE.search(err)
    if not m or m.group(4) != hist[3]:
        fail(f"seed 3 does not replay: {hist[3]} then {m.group(4) if m else err}")
    if again != outs[3]:
        fail(f"seed 3's nodes printed otherwise:\n{outs[3]}\nthen\n{again}")
    print("6 seeds: the target's handler ran on the sender's kill(); unknown pids are ESRCH; seed 3 replays")

def coverage(bins, d):
    """Coverage points in a world (points.scenario: a server and two clients,
    points_node.c): the world's report counts every node's points, the two
    clients' occurrences of one point summed, a point only the server has
    and never reaches listed as not exercised (the server's process made it
    known), --require-coverage fails the sweep, and the world replays."""
    simrun = os.path.join(bins, "simrun")
    with tempfile.TemporaryDirectory() as tmp:
        j = os.path.join(tmp, "w.jsonl")
        code, out, err = run([simrun, "--seeds", "20", "-j", "2", "--jsonl", j, "points.scenario"], cwd=d, timeout=300)
        if code != 0:
            fail(f"simrun over points.scenario: status {code}\n{out}\n{err}")
        recs = [json.loads(l) for l in open(j) if l.strip()]
    want = {
        "server got a line": r"\[x\] server got a line \u2014 40 occurrences \(20 of 20 seeds\)",
        "client answered": r"\[x\] client answered \u2014 40 occurrences \(20 of 20 seeds\)",
        "server never": r"\[ \] server never \u2014 0 occurrences \(not exercised\)",
        "client never": r"\[ \] client never \u2014 0 occurrences \(not exercised; evaluated 40 times, never true\)",
    }
    for name, pat in want.items():
        if not re.search("^  " + pat + "$", out, re.M):
            fail(f"points.scenario: no line for {name!r} ({pat}) in:\n{out}")
    m = re.search(r"^  \[x\] cli2 spoke first \u2014 (\d+) occurrences? \((\d+) of 20 seeds\)$", out, re.M)
    if not m or not 0 < int(m.group(2)) < 20:
        fail(f"points.scenario: 'cli2 spoke first' should be reached on some seeds only:\n{out}")
    if not re.search(r"^WORKLOAD COVERAGE: 3 of 5 points exercised$", out, re.M):
        fail(f"points.scenario: coverage header:\n{out}")
    hits = sum(p["hits"] for r in recs for p in r["points"] if p["name"] == "cli2 spoke first")
    if hits != int(m.group(1)):
        fail(f"points.scenario: JSON lines count {hits} for 'cli2 spoke first', the report {m.group(1)}")
    # Options after the scenario, too.
    code, out, err = run([simrun, "points.scenario", "--seeds", "4", "-j", "2", "--require-coverage"], cwd=d, timeout=300)
    if code != 4 or "FAILED (--require-coverage: 2 points not exercised)" not in out or "4 tested" not in out:
        fail(f"simrun --require-coverage over points.scenario: status {code}, want 4\n{out}\n{err}")
    code, out, err = run([os.path.join(bins, "simreplay"), "--repeat", "3", "--seed", "7", "points.scenario"], cwd=d,
                         timeout=300)
    if code != 0 or "replays exactly" not in out + err:
        fail(f"simreplay of points.scenario: status {code}\n{out}\n{err}")
    print("a world's coverage: every node's points counted, the unreached listed; it replays")
