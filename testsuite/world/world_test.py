#!/usr/bin/env python3
"""Worlds of several nodes: what simworld, simrun and simreplay promise
beyond what simtest.py checks for one program.

  world_test.py bad-input  BIN_DIR DIR   bad scenarios and plain nodes are refused
                                         before anything starts, naming the problem
  world_test.py leftovers  BIN_DIR DIR   no node process and no log directory is
                                         left behind, whatever the run's end
  world_test.py tools      BIN_DIR DIR   simrun sweeps a scenario, finds the failing
                                         one, and simreplay replays a world's line
  world_test.py faults     BIN_DIR DIR   level 2's partitions and pauses, reported
  world_test.py restart    BIN_DIR DIR   crashes (dead process, dead host) and
                                         restarts, as a client sees them
  world_test.py lossy      BIN_DIR DIR   level 2's udp (loss, duplication,
                                         reordering) and short (reads, writes)
  world_test.py trace      BIN_DIR DIR   a world's trace: the nodes' parts merged,
                                         whole, and simreplay replays from it
  world_test.py shrink     BIN_DIR DIR   simreplay --shrink of a world: the
                                         fewest faults that still fail
  world_test.py signal     BIN_DIR DIR   kill() of another node by its pid
  world_test.py canary     BIN_DIR DIR   a world that leaks real time diverges,
                                         located to the event and its node
  world_test.py abort      BIN_DIR DIR   connections aborted while a partition
                                         holds their last write: it is lost
  world_test.py sigterm    BIN_DIR DIR   SIGTERM stops: graceful, default action,
                                         ignored (killed after the grace period)
  world_test.py skew       BIN_DIR DIR   level 2's clock skew and drift, as the
                                         nodes' own clocks show them
  world_test.py clog       BIN_DIR DIR   level 2's clogs: every byte and datagram
                                         arrives, in order, some late
  world_test.py wake       BIN_DIR DIR   every arrival wakes the idle node it is
                                         sent to, through partitions, clogs, pauses
Exit status 0 when every assertion holds, 1 (with the reason) otherwise.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

RESULT_RE = re.compile(r"^detsim: (\w+) seed=(\d+) events=(\d+) history=([0-9a-f]{16})( .*)?$", re.M)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd, env=None, cwd=None, timeout=120):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run(cmd, env=e, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def node_processes(names):
    """Live processes whose argv[0] is one of `names` (a node re-executes
    itself as /proc/self/exe, so its comm is "exe"; its argv[0] stays)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            argv0 = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")[0].decode()
        except OSError:
            continue
        if os.path.basename(argv0) in names:
            found.append(f"{pid} {argv0}")
    return found


def private_scenarios(d, tmp):
    """Copies of the programs under names no other test uses (tests run in
    parallel, and their nodes must not count as this one's leftovers), and
    the scenarios rewritten to use them.  Returns the two names."""
    import shutil
    srv, cli = f"lo{os.getpid()}_srv", f"lo{os.getpid()}_cli"
    shutil.copy(os.path.join(d, "ping_server"), os.path.join(tmp, srv))
    shutil.copy(os.path.join(d, "ping_client"), os.path.join(tmp, cli))
    for scen in glob.glob(os.path.join(d, "*.scenario")):
        text = open(scen).read().replace("ping_server", srv).replace("ping_client", cli)
        open(os.path.join(tmp, os.path.basename(scen)), "w").write(text)
    # A world that runs for a long while (a million pings).
    open(os.path.join(tmp, "long.scenario"), "w").write(f"server srv: {srv} 7000\nclient cli: {cli} 1000000 7000 srv\n")
    return {srv, cli}


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


FAULTS_RE = re.compile(r"^detsim: faults level=\d+(.*)$", re.M)
SKEW_RE = re.compile(r"^detsim: skew node=(\S+) realtime_offset_ns=(-?\d+) drift_ppb=(-?\d+)$", re.M)


def world_run(sw, d, scenario, seed, options=None):
    """One world run that must pass, its logs kept until read: the fault
    counts, each skewed node's (offset, drift), each node's stdout, and the
    result line's (events, history)."""
    logs = tempfile.mkdtemp()
    env = {"DETSIM_SEED": str(seed)}
    if options:
        env["DETSIM_OPTIONS"] = options
    code, out, err = run([sw, "--logs", logs, scenario], env=env, cwd=d)
    m = RESULT_RE.search(err)
    if code != 0 or not m or m.group(1) != "pass":
        fail(f"{scenario} seed {seed} ({options or 'its own options'}): want pass, got status {code}:\n{err}")
    outs = {os.path.basename(f)[:-len(".out")]: open(f).read() for f in glob.glob(os.path.join(logs, "*.out"))}
    subprocess.run(["rm", "-rf", logs])
    fm = FAULTS_RE.search(err)
    counts = {k: int(v) for k, v in (kv.split("=") for kv in fm.group(1).split())} if fm else {}
    skews = {name: (int(off), int(drift)) for name, off, drift in SKEW_RE.findall(err)}
    if len(skews) != counts.get("skew", 0):
        fail(f"seed {seed}: {counts.get('skew', 0)} skew faults counted, {len(skews)} skewed nodes listed:\n{err}")
    return counts, skews, outs, (m.group(3), m.group(4))


def replays(sw, d, scenario, seed, runs=3):
    """The seed in separate processes: the same history, the same faults
    drawn, and every node printing the same (clock readings included, which
    no history hash covers)."""
    first = world_run(sw, d, scenario, seed)
    for _ in range(runs - 1):
        again = world_run(sw, d, scenario, seed)
        if again != first:
            fail(f"{scenario} seed {seed} does not replay:\n{first}\n{again}")
    return first


# clock.scenario: 5 rounds of each probe.
CLOCK_ROUNDS = 5
# What the probes may see beyond the model: an exchange that takes no link
# latency but some events and clock reads (about 1 us each) while other
# probes talk to the reference too, and a wake a few events after its time.
# Over seeds 1-40 the worst were 8 us, 0.61 ppm and 15 us.
OFFSET_TOL_NS = 50_000
RATE_TOL_PPM = 3.0
WAKE_LATE_MAX_NS = 50_000
# The test means something only with skews and drifts well above those.
SKEW_MEANINGFUL_NS = 1_000_000
DRIFT_MEANINGFUL_PPM = 10.0
SKEW_REPLAY_SEED = 1

PROBE_RE = re.compile(r"^probe (\d+) rt=(\d+) mono=(\d+) ref_rt=(\d+) ref_mono=(\d+)$", re.M)
WAKE_RE = re.compile(r"^(wake|timer|cond) (\d+) armed=(\d+) target=(\d+) rt=(\d+) mono=(\d+)$", re.M)
MONO_RE = re.compile(r"^\w+ \d+ .*\bmono=(\d+)", re.M)
# Per round: a wake (clock_nanosleep), two timerfd expirations, a timeout.
WAITS_PER_ROUND = 4
SLEEP_RE = re.compile(r"^sleep (\d+) asked=(\d+) slept=(\d+)$", re.M)


def check_probe(what, text, own, ref, seen):
    """One probe's readings against the drawn clocks: `own` and `ref` are
    (offset ns, drift ppb) of the probe and of the reference node."""
    probes = [tuple(map(int, g)) for g in PROBE_RE.findall(text)]
    waits = [(kind,) + tuple(map(int, g)) for kind, *g in WAKE_RE.findall(text)]
    sleeps = [tuple(map(int, g)) for g in SLEEP_RE.findall(text)]
    if not (len(probes) == len(sleeps) == CLOCK_ROUNDS and len(waits) == WAITS_PER_ROUND * CLOCK_ROUNDS):
        fail(f"{what}: want {CLOCK_ROUNDS} rounds of readings:\n{text}")
    # CLOCK_REALTIME: at one virtual instant the two nodes' realtime clocks
    # differ by the offsets drawn, plus what their monotonic clocks differ
    # by (the drift, since the start).
    want = ref[0] - own[0]
    for k, rt, mono, ref_rt, ref_mono in probes:
        off = (ref_rt - rt) - (ref_mono - mono) - want
        seen["offset_err"] = max(seen["offset_err"], abs(off))
        if abs(off) > OFFSET_TOL_NS:
            fail(f"{what} round {k}: realtime apart by {ref_rt - rt} ns, monotonic by {ref_mono - mono}: "
                 f"offsets {ref[0]} - {own[0]} = {want} ns drawn")
        seen["offset_max"] = max(seen["offset_max"], abs(ref_rt - rt))
    # The rates: the reference's clock over the probe's, first round to last.
    _, _, m1, _, r1 = probes[0]
    _, _, mk, _, rk = probes[-1]
    rate = ((rk - r1) / (mk - m1) - 1) * 1e6
    want_rate = ((1 + ref[1] / 1e9) / (1 + own[1] / 1e9) - 1) * 1e6
    seen["rate_err"] = max(seen["rate_err"], abs(rate - want_rate))
    seen["rate_max"] = max(seen["rate_max"], abs(want_rate))
    if abs(rate - want_rate) > RATE_TOL_PPM:
        fail(f"{what}: the reference's clock ran {rate:+.3f} ppm against the probe's, want {want_rate:+.3f} "
             f"(drifts {ref[1]} and {own[1]} ppb)")
    # Monotonic clocks never go back: the probe's in the order it read them,
    # the reference's in the order it answered.
    order = [int(m) for m in MONO_RE.findall(text)]
    refs = [p[4] for p in probes]
    if len(order) != len(probes) + len(waits) or order != sorted(order) or refs != sorted(refs):
        fail(f"{what}: CLOCK_MONOTONIC went back: {order} / reference {refs}")
    # A wait until T on the node's own CLOCK_REALTIME (clock_nanosleep, a
    # timerfd and its period, a condition variable's timeout) ends when the
    # clock reads T, not earlier and not much later; a relative sleep lasts
    # what was asked on its CLOCK_MONOTONIC.
    for kind, k, armed, target, rt, _ in waits:
        seen["wake_late"] = max(seen["wake_late"], rt - target)
        if not 0 <= rt - target <= WAKE_LATE_MAX_NS:
            fail(f"{what} round {k}: {kind} until {target} on CLOCK_REALTIME ended at {rt} ({rt - target:+d} ns)")
        # A wait blind to the drift would end this far off: the check above
        # tells the two apart where it is well above the bound.
        effect = abs(own[1]) * (target - armed) // 10**9
        seen["drift_effect"][kind] = max(seen["drift_effect"].get(kind, 0), effect)
    for k, asked, slept in sleeps:
        seen["sleep_late"] = max(seen["sleep_late"], slept - asked)
        if not 0 <= slept - asked <= WAKE_LATE_MAX_NS:
            fail(f"{what} round {k}: a {asked} ns sleep lasted {slept} ns on CLOCK_MONOTONIC")


def skew(bins, d):
    """Level 2 with skew only (clock.scenario): nodes' clocks disagree by the
    offsets drawn and run at the rates drawn, monotonic clocks never go back,
    absolute and relative sleeps end on the node's own clock; with skew off
    (level 1, or a seed that drew none) every node's clocks agree."""
    sw = os.path.join(bins, "simworld")
    seen = dict.fromkeys(["offset_err", "offset_max", "rate_err", "rate_max", "wake_late", "sleep_late"], 0)
    seen["drift_effect"] = {}
    runs = [(seed, None) for seed in range(1, 9)] + [(seed, "level=1") for seed in (1, 2)]
    on = off = 0
    for seed, options in runs:
        counts, skews, outs, _ = world_run(sw, d, "clock.scenario", seed, options)
        if options == "level=1" and (counts or skews):
            fail(f"level 1 drew faults: {counts} {skews}")
        on += bool(skews)
        off += not skews
        probes = sorted(n for n in outs if n.startswith("probe"))
        if len(probes) != 3:
            fail(f"seed {seed}: want three probes' output, got {sorted(outs)}")
        for name in probes:
            check_probe(f"seed {seed} {name}", outs[name], skews.get(name, (0, 0)), skews.get("ref", (0, 0)), seen)
        print(f"seed {seed} {options or 'level=2'}: skews {skews or 'none'}")
    if on < 2 or off < 3:
        fail(f"want at least 2 runs with skew and 3 without: {on} with, {off} without")
    if seen["offset_max"] < SKEW_MEANINGFUL_NS or seen["rate_max"] < DRIFT_MEANINGFUL_PPM:
        fail(f"no skew or drift large enough to tell the model from no model: {seen}")
    for kind in ("wake", "timer", "cond"):
        if seen["drift_effect"].get(kind, 0) < 2 * WAKE_LATE_MAX_NS:
            fail(f"no drift large enough that a {kind} blind to it would end off by more than the bound: {seen}")
    counts, skews, _, (events, history) = replays(sw, d, "clock.scenario", SKEW_REPLAY_SEED)
    if not skews:
        fail(f"seed {SKEW_REPLAY_SEED} drew no skew: its replay shows nothing")
    print(f"skew: {on} runs with, {off} without; worst seen {seen}")
    print(f"seed {SKEW_REPLAY_SEED} ({len(skews)} nodes askew) replays: history {history}, {events} events, same readings")


# clog.scenario: the link latency bound (net_latency_max_ns's default) plus
# room for a few events, and clogs' longest.
LATENCY_SLACK_US = 3000
CLOG_MIN_US = 10_000
CLOG_MAX_US = 1_000_000
CLOG_SEEDS = 16
CLOG_MESSAGES = 100
CLOG_REPLAY_SEED = 11
OK_RE = re.compile(r"^ok tcp=(\d+) udp=(\d+) tcp_delay_max_us=(-?\d+) udp_delay_max_us=(-?\d+)$", re.M)


def clog(bins, d):
    """Level 2 with clogs only (clog.scenario): the report counts them; every
    byte reaches the sink in order and every datagram arrives (the sink and
    the sources check); messages are late by more than any latency only in
    seeds with clogs, and some are, over TCP and UDP alike."""
    import json
    simrun = os.path.join(bins, "simrun")
    jl = os.path.join(tempfile.mkdtemp(), "c.jsonl")
    code, out, err = run([simrun, "--seeds", str(CLOG_SEEDS), "-j", "2", "--level", "2", "--jsonl", jl, "clog.scenario"],
                         cwd=d, timeout=600)
    if code != 0 or "PASSED" not in out:
        fail(f"level 2 sweep of clog.scenario: status {code}\n{out}\n{err}")
    kinds = {}
    for line in open(jl):
        for k, v in json.loads(line).get("faults", {}).items():
            kinds[k] = kinds.get(k, 0) + v
    if not kinds.get("clog") or set(kinds) != {"clog"}:
        fail(f"faults=clog must draw clogs and nothing else in {CLOG_SEEDS} seeds: {kinds}")
    if not re.search(r"clog +\d+ times in \d+ runs", out):
        fail(f"the report does not list the clogs:\n{out}")
    sw = os.path.join(bins, "simworld")
    late = {"tcp": 0, "udp": 0}
    clogs = 0
    for seed in range(1, CLOG_SEEDS + 1):
        counts, _, outs, _ = world_run(sw, d, "clog.scenario", seed)
        clogs += counts.get("clog", 0)
        bound = CLOG_MAX_US + LATENCY_SLACK_US if counts.get("clog") else LATENCY_SLACK_US
        for name in ("src1", "src2"):
            m = OK_RE.search(outs.get(name, ""))
            if not m:
                fail(f"seed {seed}: {name} printed no account: {outs.get(name)!r}")
            tcp, udp, tcp_late, udp_late = map(int, m.groups())
            if tcp != CLOG_MESSAGES or udp != CLOG_MESSAGES:
                fail(f"seed {seed} {name}: sent {CLOG_MESSAGES} each way, the sink has tcp={tcp} udp={udp}")
            if max(tcp_late, udp_late) > bound:
                fail(f"seed {seed} {name}: late by {tcp_late} us (TCP) and {udp_late} us (UDP), "
                     f"more than {bound} us with {counts.get('clog', 0)} clogs")
            late["tcp"] += tcp_late >= CLOG_MIN_US
            late["udp"] += udp_late >= CLOG_MIN_US
    if not late["tcp"] or not late["udp"]:
        fail(f"no message was held by a clog in {CLOG_SEEDS} seeds: {late}")
    print(f"{clogs} clogs in {CLOG_SEEDS} seeds; sources with messages held {CLOG_MIN_US} us or more: {late}; "
          f"nothing lost or reordered")
    counts, _, _, (events, history) = replays(sw, d, "clog.scenario", CLOG_REPLAY_SEED)
    if not counts.get("clog"):
        fail(f"seed {CLOG_REPLAY_SEED} drew no clog: its replay shows nothing")
    print(f"seed {CLOG_REPLAY_SEED} ({counts['clog']} clogs) replays: history {history}, {events} events, same output")


def abort(bins, d):
    """abort.scenario over 12 seeds: a client writes 100 bytes on each of 40
    connections and aborts it at once (RST).  Each write arrives whole or
    not at all, and the sink always sees the reset; seeds without a
    partition lose nothing; in seeds with one, the writes a partition held
    back when the RST came are lost (TCP drops its send queue on an abort,
    it does not retransmit it after the heal); a seed with losses replays."""
    sw = os.path.join(bins, "simworld")
    lost_total = 0
    lossy = None
    for seed in range(1, 13):
        logs = tempfile.mkdtemp()
        code, out, err = run([sw, "--logs", logs, "abort.scenario"], env={"DETSIM_SEED": str(seed)}, cwd=d)
        m = RESULT_RE.search(err)
        if code != 0 or not m or m.group(1) != "pass":
            fail(f"seed {seed}: want pass, got status {code}:\n{err}")
        fm = re.search(r"^detsim: faults level=2(.*)$", err, re.M)
        counts = dict(kv.split("=") for kv in fm.group(1).split()) if fm else {}
        conns = re.findall(r"^conn bytes=(\d+) end=(\w+)$", open(os.path.join(logs, "sink.out")).read(), re.M)
        subprocess.run(["rm", "-rf", logs])
        if len(conns) != 40 or any(end != "reset" or b not in ("0", "100") for b, end in conns):
            fail(f"seed {seed}: want 40 connections of 0 or 100 bytes, each reset: {conns}")
        lost = sum(1 for b, _ in conns if b == "0")
        cut = int(counts.get("partition", 0)) + int(counts.get("one_way", 0))
        if lost and not cut:
            fail(f"seed {seed}: {lost} writes lost without a partition")
        lost_total += lost
        if lost and lossy is None:
            lossy = (seed, m.group(4))
    if lost_total == 0:
        fail("no write was ever held back by a partition when its connection was aborted")
    seed, history = lossy
    code, out, err = run([sw, "abort.scenario"], env={"DETSIM_SEED": str(seed)}, cwd=d)
    m = RESULT_RE.search(err)
    if not m or m.group(4) != history:
        fail(f"seed {seed}: history {history}, then {m.group(4) if m else err}")
    print(f"12 seeds pass; {lost_total} aborted writes lost behind partitions; seed {seed} replays")


LOSSY_RE = re.compile(r"^udp got=(\d+) distinct=(\d+) duplicates=(\d+) late=(\d+) "
                      r"tcp messages=(\d+) reads=(\d+) split=(\d+)\nshort_writes=(\d+)$", re.M)
LOSSY_COUNT = 300


def lossy(bins, d):
    """lossy.scenario with faults=udp, then faults=short, 10 seeds each.
    udp: what the sink counts is what the runtime says it did (received =
    sent - lost + duplicated, duplicates seen = duplicated) and TCP is
    untouched; some datagram arrives after a later one.  short: every TCP
    message arrives intact and in order, but some reads return a piece of
    one and the source's non-blocking writes are short exactly as often as
    the runtime says; UDP is untouched.  Seeds without the fault see none
    of it.  A seed of each replays."""
    sw = os.path.join(bins, "simworld")
    seen = {"udp": [0, 0], "short": [0, 0]}
    for kind in ("udp", "short"):
        replay_seed = None
        for seed in range(1, 11):
            logs = tempfile.mkdtemp()
            code, out, err = run([sw, "--logs", logs, "lossy.scenario"],
                                 env={"DETSIM_SEED": str(seed), "DETSIM_OPTIONS": f"faults={kind}"}, cwd=d)
            m = RESULT_RE.search(err)
            if code != 0 or not m or m.group(1) != "pass":
                fail(f"{kind} seed {seed}: want pass, got status {code}:\n{err}")
            acct = LOSSY_RE.search(open(os.path.join(logs, "src.out")).read())
            subprocess.run(["rm", "-rf", logs])
            if not acct:
                fail(f"{kind} seed {seed}: the source printed no account")
            got, distinct, dups, late, msgs, reads, split, short_writes = map(int, acct.groups())
            u = re.search(r"^detsim: udp lost=(\d+) duplicated=(\d+) reordered=(\d+)$", err, re.M)
            sh = re.search(r"^detsim: short reads=(\d+) writes=(\d+)$", err, re.M)
            if msgs != LOSSY_COUNT:
                fail(f"{kind} seed {seed}: {msgs} TCP messages of {LOSSY_COUNT}")
            if kind == "udp":
                lost, duplicated, reordered = map(int, u.groups()) if u else (0, 0, 0)
                if got != LOSSY_COUNT - lost + duplicated or distinct != LOSSY_COUNT - lost or dups != duplicated:
                    fail(f"udp seed {seed}: runtime lost={lost} duplicated={duplicated}; sink got={got} "
                         f"distinct={distinct} duplicates={dups}")
                if not u and late:
                    fail(f"udp seed {seed}: {late} datagrams late without the fault")
                if split or short_writes or sh:
                    fail(f"udp seed {seed}: TCP pieces changed (split={split} short_writes={short_writes})")
                if u:
                    seen["udp"][0] += lost + duplicated
                    seen["udp"][1] += late
                    replay_seed = replay_seed or seed
            else:
                reads_rt, writes_rt = map(int, sh.groups()) if sh else (0, 0)
                if short_writes != writes_rt:
                    fail(f"short seed {seed}: the source counted {short_writes} short writes, the runtime {writes_rt}")
                if bool(split) != bool(sh) or bool(sh) != bool(reads_rt + writes_rt):
                    fail(f"short seed {seed}: {split} split reads with short={sh.groups() if sh else None}")
                if got != LOSSY_COUNT or dups or late or u:
                    fail(f"short seed {seed}: UDP changed (got={got} duplicates={dups} late={late})")
                if sh:
                    seen["short"][0] += split
                    seen["short"][1] += short_writes
                    replay_seed = replay_seed or seed
        if not all(seen[kind]) or replay_seed is None:
            fail(f"{kind}: the fault never showed in 10 seeds: {seen[kind]}")
        env = {"DETSIM_SEED": str(replay_seed), "DETSIM_OPTIONS": f"faults={kind}"}
        hashes = set()
        for _ in range(2):
            code, out, err = run([sw, "lossy.scenario"], env=env, cwd=d)
            m = RESULT_RE.search(err)
            hashes.add(m.group(4) if m else err)
        if len(hashes) != 1:
            fail(f"{kind} seed {replay_seed} does not replay: {hashes}")
    print(f"udp: {seen['udp'][0]} datagrams lost or duplicated, {seen['udp'][1]} late; "
          f"short: {seen['short'][0]} split reads, {seen['short'][1]} short writes; both replay")


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
    # A passing world, not traced: nothing left.
    tpath = os.path.join(work, "pass.trace")
    code, out, err = run([sw, "restart.scenario"], env={"DETSIM_SEED": str(seed), "DETSIM_OPTIONS": f"trace={tpath}"}, cwd=d)
    left = glob.glob(tpath + "*")
    if left:
        fail(f"a passing world left {left}")
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


# wake.scenario: two clients with 12 answered messages per kind of wait,
# one with 1 MiB per slow connection.
WAKE_SEEDS = 40
WAKE_REPLAY_SEEDS = 3
WAKE_LINES = {"msg1": "wake: r=12 p=12 e=12\n", "msg2": "wake: r=12 p=12 e=12\n",
              "bulk": "wake: b=1048576 B=1048576\n"}


def wake(bins, d):
    """wake.scenario over 40 seeds at level 2 (partitions, clogs, pauses):
    every wait in it has no timeout (a blocking read, poll, edge-triggered
    epoll_wait, a writer blocked on a full connection, an edge-triggered
    wait for EPOLLOUT), and every node is idle between arrivals, so a
    wake-up lost anywhere deadlocks the world.  Each seed passes with every
    message answered; the faults held arrivals back in enough seeds to
    count; seeds with faults replay in separate processes."""
    sw = os.path.join(bins, "simworld")
    totals = {}
    faulty = []
    for seed in range(1, WAKE_SEEDS + 1):
        counts, _, outs, _ = world_run(sw, d, "wake.scenario", seed)
        for name, want in WAKE_LINES.items():
            if outs.get(name) != want:
                fail(f"seed {seed}: {name} printed {outs.get(name)!r}, want {want!r}")
        for k, v in counts.items():
            totals[k] = totals.get(k, 0) + v
        if counts.get("partition") and counts.get("pause"):
            faulty.append(seed)
    for k in ("partition", "clog", "pause"):
        if totals.get(k, 0) < 5:
            fail(f"only {totals.get(k, 0)} {k} faults in {WAKE_SEEDS} seeds: {totals}")
    if len(faulty) < WAKE_REPLAY_SEEDS:
        fail(f"fewer than {WAKE_REPLAY_SEEDS} seeds with both partitions and pauses: {faulty}")
    for seed in faulty[:WAKE_REPLAY_SEEDS]:
        replays(sw, d, "wake.scenario", seed, runs=2)
    print(f"{WAKE_SEEDS} seeds pass with every wait woken; faults {totals}; seeds {faulty[:WAKE_REPLAY_SEEDS]} replay")


def canary(bins, d):
    """canary.scenario's client reads the real clock through a raw system
    call: simreplay --repeat 3 must call the world diverged (status 84's
    class, the verdict line), name the first event that differs with its
    node (T1@cli) on both sides, and the runtime's warning as the cause."""
    sr = os.path.join(bins, "simreplay")
    code, out, err = run([sr, "--repeat", "3", "--seed", "4", "canary.scenario"], cwd=d)
    if "diverged: replays" not in out or code == 0:
        fail(f"simreplay of the canary world: want diverged, got status {code}:\n{out}\n{err}")
    m = re.search(r"first diverging event: (\d+)\n    (run \d+|[a-z ]+): event \1 .*T\d+@cli.*\n    (run \d+): event \1 .*T\d+@cli", out)
    if not m:
        fail(f"no first diverging event located with its node:\n{out}")
    if "syscall() is not simulated" not in out:
        fail(f"the runtime's warning (the cause) is not shown:\n{out}")
    print(f"the canary world diverged; first diverging event {m.group(1)}, in node cli")


def signal_between_nodes(bins, d):
    """signal.scenario over 6 seeds: the sender kills the target by the pid
    it was told, the target's handler runs (it says so), kill(pid, 0) finds
    it, a pid no node has is ESRCH with the runtime's message; a seed
    replays."""
    sw = os.path.join(bins, "simworld")
    hist = {}
    for seed in range(1, 7):
        logs = tempfile.mkdtemp()
        code, out, err = run([sw, "--logs", logs, "signal.scenario"], env={"DETSIM_SEED": str(seed)}, cwd=d)
        m = RESULT_RE.search(err)
        said = open(os.path.join(logs, "snd.out")).read()
        snd_err = open(os.path.join(logs, "snd.err")).read()
        subprocess.run(["rm", "-rf", logs])
        if code != 0 or not m or m.group(1) != "pass":
            fail(f"seed {seed}: want pass, got status {code}:\n{err}")
        for want in ("kill(unknown)=-1 ESRCH\n", "kill(target, 0)=0\n", "target says: got SIGUSR1\n"):
            if want not in said:
                fail(f"seed {seed}: the sender did not print {want!r}:\n{said}")
        if "no process of the simulated world has that pid" not in snd_err:
            fail(f"seed {seed}: no message for the unknown pid:\n{snd_err}")
        hist[seed] = m.group(4)
    code, out, err = run([sw, "signal.scenario"], env={"DETSIM_SEED": "3"}, cwd=d)
    m = RESULT_RE.search(err)
    if not m or m.group(4) != hist[3]:
        fail(f"seed 3 does not replay: {hist[3]} then {m.group(4) if m else err}")
    print("6 seeds: the target's handler ran on the sender's kill(); unknown pids are ESRCH; seed 3 replays")


if __name__ == "__main__":
    mode, bins, d = sys.argv[1], sys.argv[2], sys.argv[3]
    {"bad-input": bad_input, "leftovers": leftovers, "tools": tools, "faults": faults, "restart": restart,
     "sigterm": sigterm, "skew": skew, "clog": clog, "abort": abort,
     "lossy": lossy, "trace": trace,
     "shrink": shrink, "wake": wake, "canary": canary,
     "signal": signal_between_nodes}[mode](bins, d)
