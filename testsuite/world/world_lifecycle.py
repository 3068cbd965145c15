"""World tests: level 2's partitions and pauses, crashes and restarts, SIGTERM stops."""
import glob
import os
import re
import subprocess
import sys
import tempfile

from world_common import *  # noqa: F401,F403 (the shared helpers)


def faults(bins, d):
    """Level 2 draws partitions and pauses per seed; TCP through them loses
    and reorders nothing (every ping is answered in order), and level 1 has
    none."""
    import json
    simrun = os.path.join(bins, "simrun")
    jl = os.path.join(tempfile.mkdtemp(), "f.jsonl")
    code, out, err = run([simrun, "--seeds", "12", "-j", "2", "--level", "2", "--jsonl", jl, "stall.scenario"], cwd=d, timeout=600)
    if code != 0 or "PASSED" not in out:
        fail(f"level 2 sweep of stall.scenario: status {code}\n{out}\n{err}")
    kinds = {}
    for line in open(jl):
        r = json.loads(line)
        for k, v in r.get("faults", {}).items():
            kinds[k] = kinds.get(k, 0) + v
    for k in ("partition", "heal", "pause"):
        if not kinds.get(k):
            fail(f"no {k} fault in 12 seeds at level 2: {kinds}\n{out}")
    if not re.search(r"faults exercised: +\d+ kinds", out) or not re.search(r"partition +\d+ times in \d+ runs", out):
        fail(f"the report does not list the faults:\n{out}")
    for k in ("crash", "reset"):
        if kinds.get(k):
            fail(f"option faults=partition,pause drew a {k}: {kinds}")
    code, out, err = run([simrun, "--seeds", "4", "-j", "2", "ping.scenario"], cwd=d, timeout=600)
    if code != 0 or "faults exercised:   none (level 1" not in out:
        fail(f"level 1 must draw no fault:\n{out}")
    print(f"level 2 faults over 12 seeds: {kinds}; every ping answered in order")

SEEN_RE = re.compile(r"seen eof=(\d+) reset=(\d+) timeout=(\d+) refused=(\d+) dial_timeout=(\d+)")

def restart(bins, d):
    """Crashes at level 2 (restart.scenario: crashes only): each seed passes,
    since the client reconnects; a crashed server comes back as a fresh
    process; a dead process shows itself as Linux shows one (FIN or RST,
    refused dials, never a timeout), a dead host by silence (timeouts),
    and seeds without a crash see no failure at all."""
    import shutil
    sw = os.path.join(bins, "simworld")
    # Private copies of the programs: other tests running alongside start
    # nodes of the same programs, which must not count as leftovers here.
    progs = tempfile.mkdtemp()
    srv, cli = f"rs{os.getpid()}_srv", f"rs{os.getpid()}_cli"
    shutil.copy(os.path.join(d, "ping_server"), os.path.join(progs, srv))
    shutil.copy(os.path.join(d, "retry_client"), os.path.join(progs, cli))
    text = open(os.path.join(d, "restart.scenario")).read()
    open(os.path.join(progs, "restart.scenario"), "w").write(text.replace("ping_server", srv).replace("retry_client", cli))
    d = progs
    names = [srv, cli]
    modes = {"host": 0, "process": 0}
    seen_by = {"none": [0] * 5, "host": [0] * 5, "process": [0] * 5}
    for seed in range(1, 25):
        logs = tempfile.mkdtemp()
        code, out, err = run([sw, "--logs", logs, "restart.scenario"], env={"DETSIM_SEED": str(seed)}, cwd=d, timeout=120)
        m = RESULT_RE.search(err)
        if code != 0 or not m or m.group(1) != "pass":
            fail(f"seed {seed}: want pass, got status {code}:\n{err}")
        fm = re.search(r"^detsim: faults level=2(.*)$", err, re.M)
        counts = dict(kv.split("=") for kv in fm.group(1).split()) if fm else {}
        marks = "".join(open(f).read() for f in glob.glob(os.path.join(logs, "srv*.err")))
        restarts = re.findall(r"restarts \(incarnation (\d+)\) at virtual time [0-9.]+ s, after a crash as a dead (host|process)", marks)
        if len(restarts) != int(counts.get("restart", 0)):
            fail(f"seed {seed}: {counts.get('restart', 0)} restarts counted, {len(restarts)} processes started again:\n{marks}")
        for inc, mode in restarts:
            modes[mode] += 1
        starts = len(re.findall(r"^detsim: seed=", marks, re.M))
        if starts != 2 + len(restarts):
            fail(f"seed {seed}: want {2 + len(restarts)} server processes started, saw {starts}")
        sm = SEEN_RE.search(open(os.path.join(logs, "cli.out")).read())
        if not sm:
            fail(f"seed {seed}: the client printed no summary")
        seen = [int(x) for x in sm.groups()]
        kinds = {mode for _, mode in restarts}
        key = "none" if not counts.get("crash") else ("host" if kinds == {"host"} else "process" if kinds == {"process"} else None)
        if key:
            seen_by[key] = [a + b for a, b in zip(seen_by[key], seen)]
        subprocess.run(["rm", "-rf", logs])
    left = node_processes(names)
    if left:
        fail(f"node processes left behind: {left}")
    if modes["host"] < 2 or modes["process"] < 2:
        fail(f"want both kinds of crash in 24 seeds: {modes}")
    eof, reset, timeout, refused, dial_timeout = range(5)
    if seen_by["none"][eof] or seen_by["none"][reset] or seen_by["none"][timeout] or seen_by["none"][dial_timeout]:
        fail(f"a seed without a crash saw a failure: {seen_by['none']}")
    if seen_by["process"][timeout] or seen_by["process"][dial_timeout]:
        fail(f"a dead process must not look like silence (its kernel answers): {seen_by['process']}")
    if not (seen_by["process"][eof] + seen_by["process"][reset]):
        fail(f"no client ever saw a dead process close its connection: {seen_by['process']}")
    if not (seen_by["host"][timeout] + seen_by["host"][dial_timeout]):
        fail(f"no client ever met a dead host's silence: {seen_by['host']}")
    if seen_by["host"][eof]:
        fail(f"a dead host sent a FIN: {seen_by['host']}")
    print(f"24 seeds pass; restarts {modes}; the client saw (eof, reset, timeout, refused, dial_timeout): {seen_by}")

def sigterm(bins, d):
    """SIGTERM at level 2 (sigterm.scenario), four kinds of server: one that
    stops gracefully (its accept gives EINTR, it says so and exits 0), one
    that learns of it from a signalfd it polls, one with the default action, one that ignores SIGTERM (killed at the end of a
    short grace period).  Every seed passes, since the client reconnects;
    each stop is the one its server's kind makes; a stopped server comes
    back as a fresh process; a stop replays exactly."""
    import shutil
    sw = os.path.join(bins, "simworld")
    progs = tempfile.mkdtemp()
    srv, cli = f"tm{os.getpid()}_srv", f"tm{os.getpid()}_cli"
    shutil.copy(os.path.join(d, "ping_server"), os.path.join(progs, srv))
    shutil.copy(os.path.join(d, "retry_client"), os.path.join(progs, cli))
    text = open(os.path.join(d, "sigterm.scenario")).read().replace("ping_server", srv).replace("retry_client", cli)
    want_mark = {"term-graceful": "SIGTERM (it exited)", "term-signalfd": "SIGTERM (it exited)",
                 "term-default": "SIGTERM (it exited)",
                 "term-ignore": "SIGTERM (killed at the end of its grace period)"}
    summary = {}
    for mode in want_mark:
        # A short grace period: the ignoring server is killed while the
        # client still runs, and a server that exited in time restarts
        # before it ends (its next incarnation must not get the kill).
        body = text.replace("MODE", mode) + "option term_grace_ms=300\n"
        open(os.path.join(progs, mode + ".scenario"), "w").write(body)
        stops = restarts = own = 0
        histories = {}
        for seed in range(1, 9):
            logs = tempfile.mkdtemp()
            code, out, err = run([sw, "--logs", logs, mode + ".scenario"], env={"DETSIM_SEED": str(seed)}, cwd=progs)
            m = RESULT_RE.search(err)
            if code != 0 or not m or m.group(1) != "pass":
                fail(f"{mode} seed {seed}: want pass, got status {code}:\n{err}")
            histories[seed] = m.group(4)
            fm = re.search(r"^detsim: faults level=2(.*)$", err, re.M)
            counts = dict(kv.split("=") for kv in fm.group(1).split()) if fm else {}
            if set(counts) - {"sigterm", "crash", "restart"}:
                fail(f"{mode} seed {seed}: faults=sigterm drew other kinds: {counts}")
            n_term = int(counts.get("sigterm", 0))
            stops += n_term
            outs = "".join(open(f).read() for f in glob.glob(os.path.join(logs, "srv*.out")))
            errs = "".join(open(f).read() for f in glob.glob(os.path.join(logs, "srv*.err")))
            marks = re.findall(r"restarts \(incarnation \d+\) at virtual time [0-9.]+ s, after (.*) ---", errs)
            if len(marks) != int(counts.get("restart", 0)) or any(mk != want_mark[mode] for mk in marks):
                fail(f"{mode} seed {seed}: restarts {counts.get('restart', 0)}, marks {marks}")
            restarts += len(marks)
            graceful = len(re.findall(r"^graceful shutdown after \d+ connections$", outs, re.M))
            by_signalfd = len(re.findall(r"^graceful shutdown after \d+ connections \(signalfd\)$", outs, re.M))
            by_default = len(re.findall(r"SIGTERM's default action ends this node", errs))
            killed = int(counts.get("crash", 0))
            seen = {"term-graceful": graceful, "term-signalfd": by_signalfd, "term-default": by_default,
                    "term-ignore": killed}
            # The world may end (its client done) before a stop completes.
            for kind, n in seen.items():
                if n > (n_term if kind == mode else 0):
                    fail(f"{mode} seed {seed}: {n_term} SIGTERM but {kind} stops {n}: {seen}\n{errs[-2000:]}")
            own += seen[mode]
            subprocess.run(["rm", "-rf", logs])
        if own < 2 or restarts < 1:
            fail(f"{mode}: want at least 2 stops of this kind and a restart in 8 seeds, saw {own} of {stops} and {restarts}")
        # A seed with a stop replays: the same history in another process.
        for s_ in histories:
            code, out, err = run([sw, mode + ".scenario"], env={"DETSIM_SEED": str(s_)}, cwd=progs)
            m = RESULT_RE.search(err)
            if not m or m.group(4) != histories[s_]:
                fail(f"{mode} seed {s_}: history {histories[s_]} then {m.group(4) if m else err}")
        summary[mode] = (stops, own, restarts)
    left = node_processes([srv, cli])
    if left:
        fail(f"node processes left behind: {left}")
    print(f"8 seeds x 4 kinds of server pass and replay; (SIGTERMs, stops seen, restarts): {summary}")


# Scenarios whose test nodes are not written to survive every fault (they
# exit or abort when a peer vanishes): under faults=all a seed may fail,
# but only as the program failing, never as the runtime or the world.
FAULTS_ALL_SCENARIOS = ("restart.scenario", "wake.scenario", "clog.scenario", "sigterm.scenario", "lossy.scenario",
                        "forkcrash.scenario")
FAULTS_ALL_SEEDS = 60
PROGRAM_CLASSES = {"pass", "exit", "crash"}

def faults_all(bins, d):
    """Every level-2 fault kind at once (faults=all: partitions, clogs,
    pauses, crashes and restarts, resets, SIGTERM stops, skew, steps, UDP
    and short-I/O faults) over several scenarios and seeds: every seed ends
    as pass, exit or crash.  inconclusive (a runtime invariant, the
    watchdog, a timeout), deadlock or liveness would be detsim's own failure
    here: these nodes never wait for what a fault takes away."""
    import json
    simrun = os.path.join(bins, "simrun")
    seen = {}
    with tempfile.TemporaryDirectory() as tmp:
        for scen in FAULTS_ALL_SCENARIOS:
            out = os.path.join(tmp, scen + ".jsonl")
            code, so, se = run([simrun, "--seeds", str(FAULTS_ALL_SEEDS), "-q", "--options", "faults=all",
                                "--trace-dir", tmp, "--jsonl", out, scen], cwd=d, timeout=600)
            rows = [json.loads(line) for line in open(out)]
            if len(rows) != FAULTS_ALL_SEEDS:
                fail(f"{scen}: {len(rows)} seeds reported of {FAULTS_ALL_SEEDS}:\n{so}\n{se}")
            for r in rows:
                seen[r["class"]] = seen.get(r["class"], 0) + 1
                if r["class"] not in PROGRAM_CLASSES:
                    fail(f"{scen} seed {r['seed']}: class {r['class']} ({r.get('signature')}):\n{r.get('stderr_tail')}")
    print(f"faults=all: {len(FAULTS_ALL_SCENARIOS)} scenarios x {FAULTS_ALL_SEEDS} seeds, classes {seen}")
