"""Helpers shared by the world tests (world_test.py runs them)."""
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
