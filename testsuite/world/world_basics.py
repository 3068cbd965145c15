"""World tests: bad input, leftovers, the tools over scenarios."""
import glob
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile

from world_common import *  # noqa: F401,F403 (the shared helpers)


def bad_input(bins, d):
    sw = os.path.join(bins, "simworld")
    cases = [
        ("bad_line.scenario", 89, r"bad_line\.scenario:2: .*cliant"),
        ("not_simulation.scenario", 3, r"not_simulation\.scenario:2: node srv: .*ping_server_plain is not a simulation build"),
        ("no_such.scenario", 89, r"no_such\.scenario"),
    ]
    for scen, status, pattern in cases:
        with tempfile.TemporaryDirectory() as tmp:
            code, out, err = run([sw, "--logs", os.path.join(tmp, "logs"), scen], env={"DETSIM_SEED": "1"}, cwd=d)
            if code != status:
                fail(f"{scen}: exit status {code}, want {status}\n{err}")
            if not re.search(pattern, err):
                fail(f"{scen}: stderr does not match {pattern!r}:\n{err}")
            if RESULT_RE.search(err):
                fail(f"{scen}: a refused scenario printed a result line:\n{err}")
            if glob.glob(os.path.join(tmp, "logs", "*")):
                fail(f"{scen}: a node was started (logs exist) although the scenario was refused")
    code, out, err = run([sw, "ping.scenario"], env={"DETSIM_SEED": "x1"}, cwd=d)
    if code != 89 or "DETSIM_SEED" not in err:
        fail(f"bad DETSIM_SEED: status {code}, stderr:\n{err}")
    code, out, err = run([sw, "--frobnicate", "ping.scenario"], cwd=d)
    if code != 89 or "--frobnicate" not in err:
        fail(f"unknown option: status {code}, stderr:\n{err}")
    # A bad DETSIM_OPTIONS is the first node's to refuse: its message is shown.
    code, out, err = run([sw, "ping.scenario"], env={"DETSIM_SEED": "1", "DETSIM_OPTIONS": "nonsense=1"}, cwd=d)
    if code != 89 or "nonsense" not in err:
        fail(f"bad DETSIM_OPTIONS: status {code}, stderr:\n{err}")
    print("bad input: refused, named, nothing started")

def leftovers(bins, d):
    sw = os.path.join(bins, "simworld")
    tmp = tempfile.mkdtemp()
    env = {"DETSIM_SEED": "3", "TMPDIR": tmp}
    progs = tempfile.mkdtemp()
    names = private_scenarios(d, progs)
    d = progs
    for scen, cls in [("ping.scenario", "pass"), ("crash.scenario", "crash"), ("mute.scenario", "deadlock"),
                      ("unknown_name.scenario", "exit")]:
        code, out, err = run([sw, scen], env=env, cwd=d)
        m = RESULT_RE.search(err)
        if not m or m.group(1) != cls:
            fail(f"{scen}: want class {cls}, got:\n{err}")
        left = node_processes(names)
        if left:
            fail(f"{scen}: node processes left behind: {left}")
        logs = glob.glob(os.path.join(tmp, "simworld-*"))
        if cls == "pass" and logs:
            fail(f"{scen}: a passing run left its log directory {logs}")
        if cls != "pass":
            if len(logs) != 1 or f"logs={logs[0]}" not in err:
                fail(f"{scen}: a failing run must keep its logs and name them: {logs}\n{err}")
            subprocess.run(["rm", "-rf"] + logs)
        print(f"{scen}: {cls}, nothing left behind")
    # The launcher killed from outside: its nodes die with it.
    p = subprocess.Popen([sw, "long.scenario"], cwd=d, env=dict(os.environ, DETSIM_SEED="1"),
                         stderr=subprocess.DEVNULL)
    import time
    time.sleep(1.0)
    if not node_processes(names):
        fail("the check sees no node of a running world: it could not see leftovers either")
    p.kill()
    p.wait()
    time.sleep(0.5)
    left = node_processes(names)
    if left:
        fail(f"nodes outlived a killed launcher: {left}")
    print("killed launcher: no node left")

def tools(bins, d):
    simrun = os.path.join(bins, "simrun")
    simreplay = os.path.join(bins, "simreplay")
    code, out, err = run([simrun, "--seeds", "6", "-j", "2", "ping.scenario"], cwd=d, timeout=300)
    if code != 0 or "PASSED" not in out or "seeds:              6 tested, 0 failed" not in out:
        fail(f"simrun over ping.scenario: status {code}\n{out}\n{err}")
    code, out, err = run([simrun, "--seeds", "3", "-j", "2", "crash.scenario"], cwd=d, timeout=300)
    if code != 1 or "crash" not in out or "simworld" not in out:
        fail(f"simrun over crash.scenario: status {code}, want 1 with the crash class\n{out}\n{err}")
    # FIRST FAILURE names the failing node's own message, not only detsim's lines.
    code, out, err = run([simrun, "--seeds", "2", "-j", "2", "unknown_name.scenario"], cwd=d, timeout=300)
    if code != 1 or not re.search(r"its own first lines on stderr \(not detsim's\):\n    cli\| ping_client: getaddrinfo nosuchnode", out):
        fail(f"simrun over unknown_name.scenario: status {code}, want the client's own line in FIRST FAILURE\n{out}\n{err}")
    # Failing worlds' log directories are bounded: --keep 2 leaves two.
    with tempfile.TemporaryDirectory() as tmp:
        j = os.path.join(tmp, "c.jsonl")
        code, out, err = run([simrun, "--seeds", "6", "-j", "2", "--keep", "2", "--jsonl", j, "crash.scenario"], cwd=d,
                             timeout=300)
        logs = {}
        for line in open(j):
            rec = json.loads(line)
            m = re.search(r"logs=(\S+)", " ".join(rec["stderr_tail"]))
            logs[rec["seed"]] = m.group(1) if m else None
        left = sorted(s for s, p in logs.items() if p and os.path.isdir(p))
        for p in logs.values():
            if p and os.path.isdir(p):
                shutil.rmtree(p)
        if code != 1 or left != [1, 2] or "4 seeds' deleted" not in out:
            fail(f"simrun --keep 2 over crash.scenario: status {code}, log directories left for seeds {left}, want [1, 2]\n{out}")
    # A scenario that sets its own level is swept and reported at it.
    code, out, err = run([simrun, "--seeds", "2", "-j", "2", "restart.scenario"], cwd=d, timeout=300)
    if code != 0 or "level:              2 (stormy)" not in out:
        fail(f"simrun over restart.scenario (level 2): status {code}, want its level in the report\n{out}\n{err}")
    # A world's result line, pasted with its first line, replays.
    code, out, err = run([os.path.join(bins, "simworld"), "ping.scenario"], env={"DETSIM_SEED": "5"}, cwd=d)
    lines = [l for l in err.splitlines() if l.startswith("detsim: ")]
    pasted = lines[0] + "\n" + lines[-1]
    code, out, err = run([simreplay, "--repeat", "3", pasted], cwd=d, timeout=300)
    if code != 0 or "replays exactly" not in (out + err):
        fail(f"simreplay of a world's lines: status {code}\n{out}\n{err}")
    code, out, err = run([simreplay, "--seed", "5", "ping.scenario"], cwd=d, timeout=300)
    if code != 0:
        fail(f"simreplay --seed 5 SCENARIO: status {code}\n{out}\n{err}")
    print("simrun sweeps scenarios; simreplay replays a world")

def handover(bins, d):
    """A node hand-over is one context switch: the node handing the world
    over wakes the thread there that is likely to run first (the one that
    ran first the last time a post from this node came, or the one whose
    deadline comes first), and that thread makes the node's choice itself;
    a dispatcher thread that takes the world and then wakes the chosen
    thread makes two.  Counted for both shapes of node (the bench's
    heartbeat.c): the kernel's voluntary context switches of the whole
    world (simworld and its three nodes) must stay near the switches in
    its trace (node hand-overs and switches between a node's threads), not
    add one per hand-over.  And each seed replays in separate processes."""
    sw = os.path.join(bins, "simworld")
    for scen in ("loop_epoll.scenario", "loop_threads.scenario"):
        with tempfile.TemporaryDirectory() as tmp:
            tpath = os.path.join(tmp, "loop.trace")
            before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_nvcsw
            code, out, err = run([sw, "--logs", os.path.join(tmp, "logs"), scen], cwd=d,
                                 env={"DETSIM_SEED": "1", "DETSIM_OPTIONS": f"trace={tpath}:trace_always=1:trace_events=1048576"})
            switches = resource.getrusage(resource.RUSAGE_CHILDREN).ru_nvcsw - before
            m = RESULT_RE.search(err)
            if code != 0 or not m or m.group(1) != "pass":
                fail(f"{scen}: want pass, got status {code}:\n{err}")
            for name in ("lp1", "lp2", "lp3"):
                printed = open(os.path.join(tmp, "logs", name + ".out")).read()
                if not printed.startswith(f"{name} sent=600 "):
                    fail(f"{scen}: node {name} printed {printed!r}, want sent=600")
            kinds = [line.split()[3] for line in open(tpath) if not line.startswith("#")]
            if len(kinds) != int(m.group(3)):
                fail(f"{scen}: the trace holds {len(kinds)} events of {m.group(3)}")
            handovers, local = kinds.count("node_switch"), kinds.count("switch")
        if handovers < 1000:
            fail(f"{scen}: only {handovers} node hand-overs: too few to count switches by")
        # Process starts, exits and the launcher's own waits add a few
        # hundred; a guess that misses costs a second switch.
        bound = (handovers + local) * 11 // 10 + 300
        if switches > bound:
            fail(f"{scen}: {switches} voluntary context switches for {handovers} node hand-overs and "
                 f"{local} thread switches (more than {bound}): hand-overs take two switches")
        replays(sw, d, scen, 1)
        print(f"handover: {scen}: {handovers} node hand-overs and {local} thread switches, "
              f"{switches} voluntary context switches; the seed replays")

def node_replay(bins, d):
    """A node's own first line names the world's replay (the node alone is
    not the run), and that command, run from elsewhere, replays the world."""
    sw = os.path.join(bins, "simworld")
    line_re = re.compile(r"^detsim: seed=(\d+) replay \(needs the world\): (.*)$")
    for seed in ("2", "7"):
        with tempfile.TemporaryDirectory() as tmp:
            logs = os.path.join(tmp, "logs")
            # No trace: a failing world would leave one in d (the replay
            # line carries the option along).
            code, out, err = run([sw, "--logs", logs, "listen_none.scenario"],
                                 env={"DETSIM_SEED": seed, "DETSIM_OPTIONS": "trace=none"}, cwd=d)
            first = RESULT_RE.findall(err)
            if code != 80 or not first:
                fail(f"seed {seed}: want the client's refusal (exit), got status {code}:\n{err}")
            for node in ("srv", "cli"):
                with open(os.path.join(logs, node + ".err")) as f:
                    head = f.readline().rstrip("\n")
                m = line_re.match(head)
                if not m or m.group(1) != seed:
                    fail(f"seed {seed}: {node}.err's first line is not the world's replay: {head!r}")
                if "DETSIM_OPTIONS=trace=none" not in m.group(2) or "simworld /" not in m.group(2) or not m.group(2).endswith("listen_none.scenario"):
                    fail(f"seed {seed}: {node}'s replay does not name the scenario by an absolute path: {head!r}")
            # Run as written, from another directory, with the tools on PATH.
            path = bins + os.pathsep + os.environ.get("PATH", "")
            code2, out2, err2 = run(["sh", "-c", m.group(2)], env={"PATH": path}, cwd=tmp)
            again = RESULT_RE.findall(err2)
            if code2 != code or not again or again[-1][:4] != first[-1][:4]:
                fail(f"seed {seed}: the node's replay line did not replay the world:\n{first[-1]}\n{err2}")
    print("node replay: each node's first line replays the whole world")
