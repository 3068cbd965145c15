"""simrun's FAILURES BY FAULT section on planted bugs.

usage: report_by_fault.py BINDIR EXAMPLES_BUILD_DIR

1. The WAL service that acknowledges before its fsync (wal-ack-early) at
   level 3 loses an acknowledged write only when its server dies between the
   write and the fsync (a crash, with its host's power or with a failed
   fsync's data lost): over seeds 1-400 the section names crash first for
   the correctness signature, in most of its failing seeds, with a share
   among them above its share among the passing seeds.
2. The same section comes back from the sweep's JSON lines (--merge), so
   the per-seed faults travel with them.
3. The kv service's planted stale read at level 1 needs no fault: no seed
   had one, and the report has no FAILURES BY FAULT section.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)

def section(out):
    m = re.search(r"^FAILURES BY FAULT:.*?(?=^\S|\Z)", out, re.M | re.S)
    return m.group(0) if m else None

def run(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
    if p.returncode != 1:
        fail(f"{' '.join(cmd)}: exit status {p.returncode}, want 1 (findings):\n{p.stdout}\n{p.stderr}")
    return p.stdout

def main(work):
    bins, ex = sys.argv[1], sys.argv[2]
    simrun = os.path.join(bins, "simrun")
    jsonl = os.path.join(work, "sweep.jsonl")
    out = run([simrun, "--level", "3", "--seeds", "1-400", "-j", "2", "--keep", "0", "--trace-dir", work,
               "--jsonl", jsonl, os.path.join(ex, "wal-ack-early.scenario")], ex)
    sec = section(out)
    if not sec:
        fail(f"no FAILURES BY FAULT section:\n{out}")
    m = re.search(r"^  1\. (correctness [^\n]*check=acked_write_readable\S*) \((\d+) failing seeds?\)\n"
                  r"     (\S+) +(\d+) of (\d+) failing seeds, (\d+) of (\d+) passing$", sec, re.M)
    if not m:
        fail(f"signature 1 is not the acked_write_readable correctness failure with a first kind:\n{sec}")
    sig, kind = m.group(1), m.group(3)
    count, f, F, p, P = (int(m.group(i)) for i in (2, 4, 5, 6, 7))
    if kind != "crash":
        fail(f"first kind of '{sig}' is {kind}, want crash (an unsynced acknowledged write is lost only "
             f"when the server dies):\n{sec}")
    if F != count or 2 * f <= F:
        fail(f"crash in {f} of {F} failing seeds (signature count {count}): want most of them:\n{sec}")
    if P == 0 or f * P <= p * F:
        fail(f"crash's share among failing seeds ({f}/{F}) is not above the passing seeds' ({p}/{P}):\n{sec}")
    passing = re.search(r"^  classes: .*\bpass (\d+)", out, re.M)
    if not passing or int(passing.group(1)) != P:
        fail(f"the section's passing count {P} is not the report's pass class count:\n{out}")
    print(f"wal-ack-early level 3, seeds 1-400: '{sig}': crash {f} of {F} failing seeds, {p} of {P} passing")

    merged = run([simrun, "--merge", jsonl], ex)
    if section(merged) != sec:
        fail(f"--merge of the JSON lines gives another section:\n{section(merged)}\nwant:\n{sec}")
    print("the same section from --merge of the sweep's JSON lines")

    out = run([simrun, "--seeds", "1-20", "--keep", "0", "--trace-dir", work,
               os.path.join(ex, "kv-buggy.scenario")], ex)
    if "FAILURES:" not in out:
        fail(f"kv-buggy at level 1 has no failures:\n{out}")
    if section(out) is not None:
        fail(f"a level-1 sweep (no faults) has a FAILURES BY FAULT section:\n{out}")
    print("kv-buggy level 1: failures, and no FAILURES BY FAULT section (no faults drawn)")

work = tempfile.mkdtemp(prefix="detsim-byfault-")
try:
    main(work)
finally:
    shutil.rmtree(work, ignore_errors=True)
