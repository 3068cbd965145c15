#!/usr/bin/env python3
"""fork inside a node of a scenario (docs/processes.md, "A node is a host").

  world_fork.py serve      BIN_DIR DIR   a node's forked workers serve its clients,
                                         are waited for after SIGCHLD; seeds order
                                         them; a seed replays
  world_fork.py exec       BIN_DIR DIR   exec in a node (its own process, its forked
                                         children) with the net for raw system calls
                                         on; refused under the seccomp filter
  world_fork.py reuse      BIN_DIR DIR   a child per connection, 100 of them, on a
                                         world of 64 slots: waited-for children's
                                         slots serve again
  world_fork.py crash      BIN_DIR DIR   a crash of the node takes every process
                                         forked on it (workers, a sleeping
                                         grandchild) and the restart starts it
                                         afresh; the client rides it out; each
                                         kind of crash replays
  world_fork.py leftovers  BIN_DIR DIR   nothing of the world is left behind
                                         however a run with forked processes
                                         ends: no process, no memory file, no
                                         log directory or trace part

Every run uses private copies of the programs, named with this test's pid
(the marker: the processes of its worlds are the ones whose command line
holds it, the launcher's scenario path included).
"""
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from world_common import RESULT_RE, fail, replays, run, world_run

MARK = f"fk{os.getpid()}"
SRV, CLI, PING = f"{MARK}_srv", f"{MARK}_cli", f"{MARK}_ping"


def setup(d):
    """A private directory with the programs under marked names."""
    tmp = tempfile.mkdtemp(prefix=MARK + "-")
    shutil.copy(os.path.join(d, "fork_server"), os.path.join(tmp, SRV))
    shutil.copy(os.path.join(d, "retry_client"), os.path.join(tmp, CLI))
    shutil.copy(os.path.join(d, "ping_client"), os.path.join(tmp, PING))
    return tmp


def scenario(tmp, name, text):
    path = os.path.join(tmp, f"{MARK}-{name}.scenario")
    open(path, "w").write(text)
    return os.path.basename(path)


def marked_processes():
    """Live processes of this test's worlds: their command line holds the
    marker (zombies included: a zombie is a leftover too)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if MARK in cmd:
            found.append(f"{pid} {cmd.strip()}")
    return found


def world_memory_holders():
    """Processes that map or hold a world's memory file, among this test's."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace")
            maps = open(f"/proc/{pid}/maps").read()
        except OSError:
            continue
        if MARK in cmd and "detsim-world" in maps:
            found.append(pid)
    return found


def live_servers():
    """The processes of the server's node that run (not zombies): its first
    process and every process forked on it share its program's name."""
    n = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            argv0 = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")[0].decode()
            state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if os.path.basename(argv0) == SRV and state not in ("Z", "X"):
            n += 1
    return n


def nothing_left(what):
    for _ in range(50):
        left = marked_processes()
        if not left:
            break
        time.sleep(0.1)
    if left:
        fail(f"{what}: processes left behind: {left}")
    if world_memory_holders():
        fail(f"{what}: the world's memory is still mapped by {world_memory_holders()}")


def logged_run(sw, tmp, scen, seed):
    """One run with its logs kept: (status, stderr, logs dir)."""
    logs = tempfile.mkdtemp(prefix=MARK + "-logs-")
    code, out, err = run([sw, "--logs", logs, scen], env={"DETSIM_SEED": str(seed)}, cwd=tmp)
    return code, err, logs


def after_restart(sw, tmp, scen, seed, kind):
    """The seed's world with a client that runs on and on: once the server
    restarted, its node runs exactly one incarnation's processes (its first,
    two workers, the grandchild), however long one looks; then the world is
    stopped from outside and nothing is left."""
    logs = tempfile.mkdtemp(prefix=MARK + "-logs-")
    p = subprocess.Popen([sw, "--logs", logs, scen], cwd=tmp, env=dict(os.environ, DETSIM_SEED=str(seed)),
                         stderr=subprocess.PIPE, text=True)
    err_path = os.path.join(logs, "srv.err")
    for _ in range(600):
        if os.path.exists(err_path) and "restarts (incarnation 2)" in open(err_path).read():
            break
        time.sleep(0.05)
    else:
        p.kill()
        fail(f"seed {seed}: the long world never restarted its server")
    time.sleep(0.2)  # the new incarnation forks its workers
    counts = []
    for _ in range(10):
        counts.append(live_servers())
        time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    shutil.rmtree(logs)
    if counts != [4] * len(counts):
        fail(f"seed {seed} ({kind}): after the restart the server's node ran {counts} processes (want 4: the "
             f"new incarnation's; more means the crash left the old one's running)\n{err}")
    nothing_left(f"seed {seed} stopped after its restart")
    print(f"seed {seed} ({kind}): after the restart, the node ran its new incarnation's 4 processes only")


def crash(bins, d):
    sw = os.path.join(bins, "simworld")
    tmp = setup(d)
    scen = scenario(tmp, "crash", "level 2\noption faults=crash\noption fault_horizon_ms=1500\n"
                    f"server srv: {SRV} 7000 2 0 {MARK}\nclient cli: {CLI} 40 7000 {{srv}}\n")
    kinds = {}
    for seed in range(1, 41):
        code, err, logs = logged_run(sw, tmp, scen, seed)
        m = RESULT_RE.search(err)
        if code != 0 or not m or m.group(1) != "pass":
            fail(f"seed {seed}: want pass, got status {code}:\n{err}")
        srv_out = open(os.path.join(logs, "srv.out")).read()
        srv_err = open(os.path.join(logs, "srv.err")).read()
        cli_out = open(os.path.join(logs, "cli.out")).read()
        shutil.rmtree(logs)
        nothing_left(f"seed {seed}")
        restarts = re.findall(r"restarts \(incarnation \d+\) .* after a crash as a (dead \w+)", srv_err)
        starts = srv_out.count("listens on 7000 with 2 workers")
        if starts != 1 + len(restarts):
            fail(f"seed {seed}: {len(restarts)} restarts but the server started {starts} times:\n{srv_out}")
        if not restarts:
            continue
        if not re.search(r"forked worker 2: pid \d+\n(.|\n)*listens on 7000(.|\n)*forked worker 2: pid \d+", srv_out):
            fail(f"seed {seed}: the restarted server did not fork its workers afresh:\n{srv_out}")
        seen = re.search(r"seen eof=(\d+) reset=(\d+) timeout=(\d+)", cli_out)
        if not seen or sum(int(x) for x in seen.groups()) == 0:
            fail(f"seed {seed}: the client saw nothing of the crash (no EOF, reset or timeout): {cli_out}")
        if len(restarts) == 1 and restarts[0] not in kinds:
            kinds[restarts[0]] = seed
            print(f"seed {seed}: a crash as a {restarts[0]}: the server restarted afresh (its workers forked again); "
                  f"the client saw {seen.group(0)}")
        if len(kinds) == 2:
            break
    if len(kinds) != 2:
        fail(f"seeds 1-40 did not crash the server both ways (found {kinds})")
    # Each kind replays: the same history in separate runs, every node's
    # output the same.
    for kind, seed in kinds.items():
        first = None
        for _ in range(3):
            code, err, logs = logged_run(sw, tmp, scen, seed)
            m = RESULT_RE.search(err)
            outs = {os.path.basename(f): open(f).read() for f in glob.glob(os.path.join(logs, "*.out"))}
            shutil.rmtree(logs)
            got = (m.group(3), m.group(4), outs) if m else None
            if first is None:
                first = got
            elif got != first:
                fail(f"seed {seed} ({kind}) does not replay:\n{first}\n{got}")
        print(f"seed {seed} ({kind}) replays: history {first[1]}")
    nothing_left("the replays")
    long_scen = scenario(tmp, "crash-long", "level 2\noption faults=crash\noption fault_horizon_ms=1500\n"
                         f"server srv: {SRV} 7000 2 0 {MARK}\nclient cli: {CLI} 1000000 7000 {{srv}}\n")
    for kind, seed in kinds.items():
        after_restart(sw, tmp, long_scen, seed, kind)
    shutil.rmtree(tmp)


def leftovers(bins, d):
    sw = os.path.join(bins, "simworld")
    tmp = setup(d)
    runs_tmp = tempfile.mkdtemp(prefix=MARK + "-tmp-")
    env = {"TMPDIR": runs_tmp}
    scens = {
        "pass": scenario(tmp, "pass", f"server srv: {SRV} 7000 2 1 {MARK}\nclient cli x2: {PING} 3 7000 {{srv}}\n"),
        "crash-fault": scenario(tmp, "crashf", "level 2\noption faults=crash\noption fault_horizon_ms=1500\n"
                                f"server srv: {SRV} 7000 2 0 {MARK}\nclient cli: {CLI} 40 7000 {{srv}}\n"),
        "exit": scenario(tmp, "exit", f"server srv: {SRV} 7000 2 0 {MARK}\nclient cli: {PING} 3 7001 {{srv}}\n"),
    }
    long_scen = scenario(tmp, "long", f"server srv: {SRV} 7000 2 0 {MARK}\nclient cli: {CLI} 1000000 7000 {{srv}}\n")
    for what, scen, seed, cls in [("pass", scens["pass"], 1, "pass"), ("crash fault", scens["crash-fault"], 6, "pass"),
                                  ("a failing client", scens["exit"], 1, "exit")]:
        code, out, err = run([sw, scen], env=dict(env, DETSIM_SEED=str(seed)), cwd=tmp)
        m = RESULT_RE.search(err)
        if not m or m.group(1) != cls:
            fail(f"{what}: want class {cls}, got status {code}:\n{err}")
        nothing_left(what)
        logs = glob.glob(os.path.join(runs_tmp, "simworld-*"))
        if cls == "pass" and logs:
            fail(f"{what}: a passing run left its log directory {logs}")
        if cls != "pass" and (len(logs) != 1 or f"logs={logs[0]}" not in err):
            fail(f"{what}: a failing run keeps its logs and names them: {logs}\n{err}")
        for l in logs:
            shutil.rmtree(l)
        print(f"{what}: {cls}, nothing left behind")

    def started():
        """Waits until the long world's server forked its workers; their
        real pids (the node's processes that are not its first)."""
        for _ in range(400):
            procs = {}
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                try:
                    argv0 = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")[0].decode()
                    ppid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
                if os.path.basename(argv0) == SRV:
                    procs[int(pid)] = ppid
            forked = [p for p, pp in procs.items() if pp in procs]
            if len(forked) >= 3:
                return forked
            time.sleep(0.05)
        fail("the long world's server never forked its workers and grandchild")

    # A signal from outside to the launcher, and the launcher killed.
    for sig, cls in [(signal.SIGTERM, "inconclusive"), (signal.SIGKILL, None)]:
        p = subprocess.Popen([sw, long_scen], cwd=tmp, env=dict(os.environ, DETSIM_SEED="1", **env),
                             stderr=subprocess.PIPE, text=True)
        started()
        time.sleep(0.3)
        p.send_signal(sig)
        _, err = p.communicate(timeout=60)
        if cls:
            m = RESULT_RE.search(err)
            if not m or m.group(1) != cls or "reason=signal signal=SIGTERM" not in err:
                fail(f"SIGTERM to simworld: want {cls} reason=signal, got:\n{err}")
        nothing_left(f"{sig.name} to simworld")
        for l in glob.glob(os.path.join(runs_tmp, "simworld-*")):
            shutil.rmtree(l)
        print(f"{sig.name} to simworld: nothing left behind")
    # Processes forked on a node killed from outside: the world cannot go
    # on once one of them was to run.
    p = subprocess.Popen([sw, long_scen], cwd=tmp, env=dict(os.environ, DETSIM_SEED="1", **env),
                         stderr=subprocess.PIPE, text=True)
    for pid in started():
        os.kill(pid, signal.SIGKILL)
    _, err = p.communicate(timeout=60)
    m = RESULT_RE.search(err)
    if not m or m.group(1) != "crash" or not re.search(r"process \d+ \(forked on node srv\) died outside the simulation", err):
        fail(f"forked processes killed from outside: want class crash naming the process, got:\n{err}")
    nothing_left("forked processes killed from outside")
    print("forked processes killed from outside: crash, named; nothing left behind")
    # No trace part of a forked process is left (a failing world merged
    # them into its trace, a passing one removed them).
    parts = glob.glob(os.path.join(tmp, "*.pid*"))
    if parts:
        fail(f"trace parts left behind: {parts}")
    shutil.rmtree(tmp)
    shutil.rmtree(runs_tmp)


SERVE_RE = re.compile(
    r"\Aserver pid 1000 listens on 7000 with 2 workers\n"
    r"forked worker 1: pid (?P<w1>\d+)\nforked worker 2: pid (?P<w2>\d+)\n"
    r"worker (?P<a>[12]) pid (?P<pa>\d+) ppid 1000: connection 1, 3 lines\n"
    r"reaped pid (?P=pa): exit (?P=a) \(SIGCHLD seen: yes\)\n"
    r"worker (?P<b>[12]) pid (?P<pb>\d+) ppid 1000: connection 1, 3 lines\n"
    r"reaped pid (?P=pb): exit (?P=b) \(SIGCHLD seen: yes\)\n"
    r"every worker ended\n\Z")


def serve(bins, d):
    """forkserve.scenario: the workers are processes of the world (the next
    pids after the nodes', their parent the server), serve the clients over
    the shared listener, end with their numbers as statuses, and the server
    reaps them after its SIGCHLD; seeds order the workers differently; a
    seed replays, every node's output included."""
    sw = os.path.join(bins, "simworld")
    orders = set()
    for seed in range(1, 9):
        _, _, outs, _ = world_run(sw, d, "forkserve.scenario", seed)
        m = SERVE_RE.match(outs["srv"])
        if not m:
            fail(f"seed {seed}: the server's output is not a forking server's:\n{outs['srv']}")
        # The nodes are 1000 (srv), 1001 and 1002 (the clients): the workers
        # take the world's next pids.
        if (m.group("w1"), m.group("w2")) != ("1003", "1004") or {m.group("a"), m.group("b")} != {"1", "2"}:
            fail(f"seed {seed}: workers' pids or numbers:\n{outs['srv']}")
        for cli in ("cli1", "cli2"):
            if outs[cli] != f"{cli}: 3 rounds with 1 servers ok\n":
                fail(f"seed {seed}: {cli} said {outs[cli]!r}")
        orders.add(m.group("a"))
    if orders != {"1", "2"}:
        fail(f"seeds 1-8 always let worker {orders} serve first: the seed does not order the processes")
    print("seeds 1-8: both workers served, reaped after SIGCHLD; both orders seen")
    replays(sw, d, "forkserve.scenario", 5)
    print("seed 5 replays: the same history and outputs in separate runs")
    # The world's trace holds the forked processes' events too, each
    # thread named with its node and pid, and no event is missing.
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "t.trace")
        code, out, err = run([sw, "forkserve.scenario"], env={"DETSIM_SEED": "5",
                             "DETSIM_OPTIONS": f"trace_always=1:trace={trace}"}, cwd=d)
        text = open(trace).read() if os.path.exists(trace) else ""
        m = re.search(r"^# detsim trace: events 0\.\.(\d+) of (\d+) \(none dropped", text, re.M)
        if code != 0 or not m or int(m.group(1)) + 1 != int(m.group(2)):
            fail(f"trace_always: want a whole merged trace, got status {code}:\n{err}\n{text[:400]}")
        for who in ("@srv ", "@srv/1003 ", "@srv/1004 "):
            if who not in text:
                fail(f"the world's trace has no event of {who.strip()}:\n{text[:800]}")
        if glob.glob(os.path.join(tmp, "t.trace.*")):
            fail(f"trace parts left: {glob.glob(os.path.join(tmp, 't.trace.*'))}")
    print("the world's trace holds every event, the workers' (T1@srv/1003) too")


EXEC_RE = re.compile(
    r"\Anode pid 1000 execs itself\nnew image: pid 1000 ppid 999\n"
    r"forked worker 1: pid 1003\nforked worker 2: pid 1004\n"
    r"exec'd worker (?P<a>[12]) pid (?P<pa>100[34]) ppid 1000 raw_getpid_same=1: 3 lines\n"
    r"exec'd worker (?P<b>[12]) pid (?P<pb>100[34]) ppid 1000 raw_getpid_same=1: 3 lines\n"
    r"worker pid (?P=pa): exit (?P=a)\nworker pid (?P=pb): exit (?P=b)\nevery worker ended\n\Z")


def exec_in_node(bins, d):
    """exec.scenario: the node's own process execs itself (the same pid,
    its parent outside the world) and its forked children exec the program
    as workers over the listener they inherited, with the net for raw
    system calls on in every image (user dispatch ends with an image; a raw
    getpid is the virtual pid); seeds order the workers; a seed replays.
    Under trap_syscalls=seccomp an exec is refused, saying why."""
    sw = os.path.join(bins, "simworld")
    orders = set()
    for seed in range(1, 7):
        _, _, outs, _ = world_run(sw, d, "exec.scenario", seed)
        m = EXEC_RE.match(outs["srv"])
        if not m or m.group("a") == m.group("b") or m.group("pa") != f"100{2 + int(m.group('a'))}":
            fail(f"seed {seed}: the node's output is not an exec'ing server's:\n{outs['srv']}")
        orders.add(m.group("a"))
    if orders != {"1", "2"}:
        fail(f"seeds 1-6 always let worker {orders} serve first")
    print("seeds 1-6: the node exec'd itself, its children exec'd as workers (the net on in each image)")
    replays(sw, d, "exec.scenario", 4)
    print("seed 4 replays: the same history and outputs in separate runs")
    logs = tempfile.mkdtemp()
    code, out, err = run([sw, "--logs", logs, "exec.scenario"],
                         env={"DETSIM_SEED": "1", "DETSIM_OPTIONS": "trap_syscalls=seccomp:trace=none"}, cwd=d)
    srv_out, srv_err = (open(os.path.join(logs, "srv." + k)).read() for k in ("out", "err"))
    shutil.rmtree(logs)
    m = RESULT_RE.search(err)
    if not m or m.group(1) != "exit" or "exec of the node failed: Function not implemented" not in srv_out or \
            "with a seccomp filter that would outlive the exec" not in srv_err:
        fail(f"trap_syscalls=seccomp: want the exec refused (ENOSYS, the node's exit), got:\n{err}\n{srv_out}\n{srv_err}")
    print("trap_syscalls=seccomp: the exec is refused with ENOSYS, saying why")


def reuse(bins, d):
    """forkreuse.scenario: a server that forks a child per connection, 100
    in all, each waited for, on a node of a world of 64 process slots: the
    slots of the children waited for serve the next (every child a pid of
    its own); a seed replays."""
    sw = os.path.join(bins, "simworld")
    for seed in (1, 2):
        _, _, outs, _ = world_run(sw, d, "forkreuse.scenario", seed)
        if outs["srv"] != ("server pid 1000 listens on 7000 with 0 workers\n"
                           "100 connections, a child each (100 with new pids), 100 reaped\n"):
            fail(f"seed {seed}: {outs['srv']!r}")
    print("seeds 1-2: 100 children, one per connection, on 64 slots")
    replays(sw, d, "forkreuse.scenario", 3)
    print("seed 3 replays")


MODES = {"crash": crash, "leftovers": leftovers, "serve": serve, "exec": exec_in_node, "reuse": reuse}

if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in MODES:
        print(__doc__)
        sys.exit(2)
    MODES[sys.argv[1]](sys.argv[2], sys.argv[3])
