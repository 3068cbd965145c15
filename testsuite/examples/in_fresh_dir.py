#!/usr/bin/env python3
"""Runs a command in a fresh temporary working directory, removed after.

  in_fresh_dir.py COMMAND [ARGS...]

A relative path in COMMAND itself is the caller's; its arguments are
passed as they are (give them absolute).  The command's stdin, stdout and stderr are this process's, and its exit
status is this one's (128+N when a signal N ended it).  It dies with this
process (PR_SET_PDEATHSIG), so a test driver's timeout kill leaves nothing.

Why: the WAL example keeps its data under its working directory, and a
simulated world's nodes run in simworld's.  Until each node gets a fresh
data directory of its own per seed from the simulated disk, the tests give
every seed's world a fresh directory this way, so no seed sees another
seed's (or an earlier run's) files and each seed replays exactly.
"""
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile

PR_SET_PDEATHSIG = 1


def die_with_parent():
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: in_fresh_dir.py COMMAND [ARGS...]\n")
        return 2
    tmp = tempfile.mkdtemp(prefix="detsim-fresh-")
    try:
        argv = sys.argv[1:]
        # A relative program path means the caller's directory, not the new one.
        if "/" in argv[0]:
            argv[0] = os.path.abspath(argv[0])
        p = subprocess.Popen(argv, cwd=tmp, preexec_fn=die_with_parent)
        while True:
            try:
                rc = p.wait()
                break
            except KeyboardInterrupt:
                continue
        return rc if rc >= 0 else 128 - rc
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
