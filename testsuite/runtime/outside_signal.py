#!/usr/bin/env python3
"""Real signals from outside the simulation (runtime/signal/outside_signal.c).

  outside_signal.py PROG SIMRUN

For SIGTERM, SIGINT, SIGHUP, SIGQUIT and SIGALRM, sent by this driver to a
run busy in virtual sleeps and to a run blocked in a real read (which the
watchdog would end after 10 s): the run ends within seconds with the
result line `detsim: inconclusive ... reason=signal signal=SIG...`, exit
status 86, its buffered stdout flushed, the program's own (simulated)
handlers not run, and no process left.  Then simrun --timeout stops a busy
run with SIGTERM and its report names the class and the signal.
"""
import os
import re
import signal
import subprocess
import sys
import time

RESULT_RE = re.compile(r"^detsim: (\w+) seed=(\d+) events=(\d+) history=([0-9a-f]{16})( .*)?$", re.M)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def one(prog, mode, sig):
    env = dict(os.environ, DETSIM_SEED="3", DETSIM_OPTIONS="trace=none")
    r, w = os.pipe()  # stdin: held open, never written
    p = subprocess.Popen([prog, mode], stdin=r, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    os.close(r)
    # Wait for the first line (the run has started), then a little longer.
    first = p.stderr.readline().decode()
    if not first.startswith("detsim: seed=3 "):
        fail(f"{mode}: no first line: {first!r}")
    time.sleep(0.3)
    t0 = time.time()
    p.send_signal(sig)
    try:
        out, err = p.communicate(timeout=8)
    except subprocess.TimeoutExpired:
        p.kill()
        fail(f"{mode} {sig.name}: still running 8 s after the signal")
    os.close(w)
    took = time.time() - t0
    out, err = out.decode(), err.decode()
    m = RESULT_RE.search(err)
    if not m or m.group(1) != "inconclusive" or f"reason=signal signal={sig.name}" not in (m.group(5) or ""):
        fail(f"{mode} {sig.name}: want 'inconclusive ... reason=signal signal={sig.name}':\n{err[-2000:]}")
    if err.rstrip("\n").split("\n")[-1] != m.group(0):
        fail(f"{mode} {sig.name}: the result line is not the last line:\n{err[-1000:]}")
    if p.returncode != 86:
        fail(f"{mode} {sig.name}: exit status {p.returncode}, want 86")
    if out != "buffered line pid=1000\n":
        fail(f"{mode} {sig.name}: stdout {out!r}, want the buffered line (flushed) and nothing else")
    if alive(p.pid):
        fail(f"{mode} {sig.name}: process {p.pid} left behind")
    print(f"{mode} {sig.name}: ended in {took:.2f} s: {m.group(0)}")


def main():
    prog, simrun = sys.argv[1], sys.argv[2]
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGALRM):
        one(prog, "busy", sig)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM):
        one(prog, "blocked", sig)
    # simrun --timeout: SIGTERM first, so the run's own line is read.
    p = subprocess.run([simrun, "--seeds", "2", "-j", "2", "--timeout", "1", "--", prog, "busy"],
                       capture_output=True, text=True, timeout=60)
    rep = p.stdout + p.stderr
    if not re.search(r"inconclusive +2 +1,2 +inconclusive reason=timeout signal=SIGTERM", rep):
        fail(f"simrun --timeout: the report does not name the class and SIGTERM:\n{rep}")
    if "reason=signal signal=SIGTERM" not in rep:
        fail(f"simrun --timeout: the run's own result line is not in the report:\n{rep}")
    print("simrun --timeout: inconclusive reason=timeout signal=SIGTERM, the runs' own result lines")


if __name__ == "__main__":
    main()
