#!/usr/bin/env python3
"""Real signals from outside a world (runtime/signal/outside_signal.c, simworld).

  world_outside_signal.py BIN_DIR DIR

outside.scenario's three nodes never end.  A SIGTERM to simworld, a SIGINT
to one node's process, a SIGHUP to one node, and a SIGTERM to the whole
process group (what GNU timeout sends): each ends the world within seconds
with the result line `detsim: inconclusive ... reason=signal signal=SIG...`,
exit status 86, every node's buffered stdout flushed into its log (with its
pid, the world's: a 1000, b 1001, c 1002), and no node process left.
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

from world_common import RESULT_RE, fail


def children(pid):
    try:
        return [int(x) for x in open(f"/proc/{pid}/task/{pid}/children").read().split()]
    except OSError:
        return []


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def one(sw, d, target, sig):
    logs = tempfile.mkdtemp()
    env = dict(os.environ, DETSIM_SEED="2", DETSIM_OPTIONS="trace=none")
    p = subprocess.Popen([sw, "--logs", logs, "outside.scenario"], cwd=d, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    nodes = []
    for _ in range(200):  # the three nodes started and running
        nodes = children(p.pid)
        if len(nodes) == 3 and all(os.path.getsize(os.path.join(logs, f"{n}.err")) > 0 for n in "abc"
                                   if os.path.exists(os.path.join(logs, f"{n}.err"))):
            break
        time.sleep(0.05)
    if len(nodes) != 3:
        p.kill()
        fail(f"{target}: the world's three nodes did not start: {nodes}")
    time.sleep(0.5)
    t0 = time.time()
    if target == "simworld":
        p.send_signal(sig)
    elif target == "group":
        os.killpg(p.pid, sig)
    else:
        os.kill(nodes[int(target)], sig)
    try:
        out, err = p.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        fail(f"{target} {sig.name}: the world still runs 15 s after the signal")
    took = time.time() - t0
    err = err.decode()
    m = RESULT_RE.search(err)
    if not m or m.group(1) != "inconclusive" or f"reason=signal signal={sig.name}" not in (m.group(5) or ""):
        fail(f"{target} {sig.name}: want 'inconclusive ... reason=signal signal={sig.name}':\n{err[-3000:]}")
    if p.returncode != 86:
        fail(f"{target} {sig.name}: exit status {p.returncode}, want 86:\n{err[-2000:]}")
    for name, pid in (("a", 1000), ("b", 1001), ("c", 1002)):
        said = open(os.path.join(logs, f"{name}.out")).read()
        if said != f"{name} pid={pid} buffered\n":
            fail(f"{target} {sig.name}: node {name}'s stdout {said!r}: not flushed, or another pid")
    left = [n for n in nodes if alive(n)]
    if left:
        fail(f"{target} {sig.name}: node processes {left} left behind")
    subprocess.run(["rm", "-rf", logs])
    print(f"{sig.name} to {target}: ended in {took:.2f} s: {m.group(0)}")


def main():
    bins, d = sys.argv[1], sys.argv[2]
    sw = os.path.join(bins, "simworld")
    one(sw, d, "simworld", signal.SIGTERM)
    one(sw, d, "1", signal.SIGINT)
    one(sw, d, "2", signal.SIGHUP)
    one(sw, d, "group", signal.SIGTERM)
    one(sw, d, "simworld", signal.SIGQUIT)


if __name__ == "__main__":
    main()
