#!/usr/bin/env python3
"""A failing run of several processes leaves one trace: every process's
events merged by event number, each thread named with its pid (T1@1001),
whole (events 0..N-1, folding to the run's history, which simreplay
checks), and no part files behind; a passing run leaves nothing.

    merged_trace.py BIN_DIR PROC_BUILD_DIR
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

bin_dir, pb = sys.argv[1], sys.argv[2]
simrun, simreplay = os.path.join(bin_dir, "simrun"), os.path.join(bin_dir, "simreplay")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def events_of(path):
    """The event lines' (number, thread@pid, kind)."""
    out = []
    for line in open(path):
        m = re.match(r"^\s*(\d+) t=\S+ (T\d+@\d+) (\w+)", line)
        if m:
            out.append((int(m.group(1)), m.group(2), m.group(3)))
    return out


def check_trace(path, want):
    """want: (thread@pid, kind) pairs that must be in it."""
    text = open(path).read()
    if "# world: processes=1000,1001 " not in text:
        fail("%s: no '# world: processes=1000,1001' line:\n%s" % (path, text[:600]))
    ev = events_of(path)
    if [n for n, _, _ in ev] != list(range(len(ev))):
        fail("%s: the events are not 0..%d in order" % (path, len(ev) - 1))
    have = {(who, kind) for _, who, kind in ev}
    for w in want:
        if w not in have:
            fail("%s: no event %s of %s" % (path, w[1], w[0]))
    # simreplay reads it (the events must fold to its history) and replays it.
    r = subprocess.run([simreplay, path], capture_output=True, text=True, timeout=120)
    if r.returncode != 0 or "replays exactly" not in r.stdout + r.stderr:
        fail("simreplay %s:\n%s%s" % (path, r.stdout, r.stderr))
    r = subprocess.run([simreplay, "--trace", path], capture_output=True, text=True, timeout=120)
    if r.returncode != 0 or not re.search(r"T1@1001 ", r.stdout + r.stderr):
        fail("simreplay --trace %s printed no event of process 1001:\n%s%s" % (path, r.stdout, r.stderr))


with tempfile.TemporaryDirectory() as d:
    # A child's failed check ends the run: the child asks, the first process merges.
    tr = os.path.join(d, "check")
    r = subprocess.run([simrun, "--seeds", "1-3", "--trace-dir", tr, "--", os.path.join(pb, "proc_child_check")],
                       capture_output=True, text=True, timeout=300, cwd=d)
    traces = sorted(glob.glob(os.path.join(tr, "detsim-*.trace")))
    if len(traces) != 3:
        fail("simrun left %d traces, not 3:\n%s%s" % (len(traces), r.stdout, r.stderr))
    for t in traces:
        check_trace(t, [("T1@1000", "start"), ("T1@1000", "proc_fork"), ("T1@1001", "sleep"), ("T1@1001", "check")])
    # The first process finds the deadlock: the stopped child writes its part when asked.
    tr = os.path.join(d, "stop")
    os.mkdir(tr)
    env = dict(os.environ, DETSIM_SEED="4", DETSIM_OPTIONS="trace=" + os.path.join(tr, "stop.trace"))
    r = subprocess.run([os.path.join(pb, "proc_stop_forever"), "child"], capture_output=True, text=True,
                       timeout=60, cwd=d, env=env)
    if "trace=" not in r.stderr:
        fail("the deadlock's result line names no trace:\n" + r.stderr)
    check_trace(os.path.join(tr, "stop.trace"), [("T1@1000", "proc_wait"), ("T1@1001", "proc_stop")])
    # A passing run of 200 short-lived children: no trace, no part left.
    tr = os.path.join(d, "pass")
    os.mkdir(tr)
    r = subprocess.run([os.path.join(pb, "proc_fork_limit")], capture_output=True, text=True, timeout=120, cwd=tr,
                       env=dict(os.environ, DETSIM_SEED="2"))
    if "detsim: pass " not in r.stderr:
        fail("proc_fork_limit did not pass:\n" + r.stderr[-2000:])
    for t in (os.path.join(d, "check"), os.path.join(d, "stop"), tr):
        left = [f for f in os.listdir(t) if ".pid" in f]
        if left:
            fail("part files left in %s: %s" % (t, left[:5]))
print("ok: merged traces of 3 failing seeds and a deadlock replay; no part left behind")
