#!/usr/bin/env python3
"""No process of a run's world is left behind: runs `leftover FILE MODE`
(a grandchild sleeping 1000 virtual seconds writes its real pid to FILE),
waits for the run to end, and checks that no process has that pid (or that
it is not the grandchild: the pid was reused by something else).

  leftover_check.py PROG MODE EXPECTED_CLASS
"""
import os
import re
import subprocess
import sys
import tempfile
import time


def main():
    prog, mode, want = sys.argv[1], sys.argv[2], sys.argv[3]
    with tempfile.TemporaryDirectory() as d:
        pidfile = os.path.join(d, "pid")
        env = dict(os.environ, DETSIM_SEED="3", DETSIM_OPTIONS="watchdog_s=%d" % (30 if mode == "killed" else 1))
        p = subprocess.Popen([prog, pidfile, mode], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if mode == "killed":
            # Kill the child from outside while it holds the world.
            for _ in range(200):
                if os.path.exists(pidfile + ".child") and open(pidfile + ".child").read().strip().isdigit():
                    break
                time.sleep(0.05)
            time.sleep(0.3)
            os.kill(int(open(pidfile + ".child").read().strip()), 9)
        try:
            out, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
            print("FAIL: the run did not end\n%s" % err)
            return 1
        r = subprocess.CompletedProcess(p.args, p.returncode, out, err)
        last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
        if not re.match(r"^detsim: %s seed=3 " % want, last):
            print("FAIL: expected class %s, last stderr line: %r\n%s" % (want, last, r.stderr))
            return 1
        if mode != "killed" and "grandchild started" not in r.stdout:
            print("FAIL: the grandchild did not start: %r" % r.stdout)
            return 1
        pid = open(pidfile).read().strip()
        if not pid.isdigit():
            print("FAIL: no pid written: %r" % pid)
            return 1
        # The teardown reaps before the result line; allow the kernel a moment.
        for _ in range(50):
            try:
                cmd = open("/proc/%s/cmdline" % pid, "rb").read()
            except (FileNotFoundError, ProcessLookupError):
                print("ok: grandchild %s is gone (%s)" % (pid, last))
                return 0
            if os.path.basename(prog).encode() not in cmd:
                print("ok: grandchild %s is gone (its pid is another process's now)" % pid)
                return 0
            time.sleep(0.1)
        print("FAIL: grandchild %s still runs after the run ended" % pid)
        os.kill(int(pid), 9)
        return 1


sys.exit(main())
