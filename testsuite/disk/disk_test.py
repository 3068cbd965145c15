#!/usr/bin/env python3
"""Tests of the simulated disk (runtime/disk/, docs/disk.md) over worlds.

  disk_test.py rules BIN SCENARIO --seeds A-B [--want POINT]... [--power-loss]
      every seed passes (disk_node.c's checks of the model hold after every
      restart), each POINT (a DETSIM_SOMETIMES) is reached in some seed, and
      with --power-loss some seed lost power.
  disk_test.py excused BIN SCENARIO --seeds A-B
      some seed fails after a fault beyond the envelope and is classed
      excused; none ends with another failing class.
  disk_test.py leftovers BIN SCENARIO --seeds A-B
      passing and failing runs in a fresh TMPDIR: a passing run leaves
      nothing; a failing one keeps its node directories with its logs.
  disk_test.py explore BIN SCENARIO --seeds A-B
      the seeds lose different things (power_loss event values differ: the
      histories and the SIMULATION's loss counts).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

RESULT_RE = re.compile(r"^detsim: (\w+) seed=(\d+) events=(\d+) history=([0-9a-f]{16})(.*)$", re.M)
POINT_RE = re.compile(r"^detsim: point sometimes=(\d+)/(\d+) (.+)$", re.M)
FAULTS_RE = re.compile(r"^detsim: faults level=(\d+)(.*)$", re.M)


def seeds_of(spec):
    a, _, b = spec.partition("-")
    return range(int(a), int(b or a) + 1)


def run(bin_dir, scenario, seed, env_extra=None):
    env = dict(os.environ)
    env["DETSIM_SEED"] = str(seed)
    env.pop("DETSIM_OPTIONS", None)
    if env_extra:
        env.update(env_extra)
    p = subprocess.run([os.path.join(bin_dir, "simworld"), scenario], env=env, capture_output=True, text=True,
                       timeout=300)
    m = list(RESULT_RE.finditer(p.stderr))
    if not m:
        sys.exit("seed %d: no result line\n%s" % (seed, p.stderr[-3000:]))
    faults = {}
    f = FAULTS_RE.search(p.stderr)
    if f:
        for kv in f.group(2).split():
            k, _, v = kv.partition("=")
            faults[k] = int(v)
    points = {name: int(h) for h, _, name in POINT_RE.findall(p.stderr)}
    return m[-1].group(1), m[-1].group(4), m[-1].group(5), faults, points, p.stderr


def cmd_rules(a):
    reached = {w: 0 for w in a.want}
    power = 0
    for s in seeds_of(a.seeds):
        cls, _, extra, faults, points, err = run(a.bin, a.scenario, s)
        if cls != "pass":
            sys.exit("seed %d: %s, not pass (a rule of the model broke?)\n%s" % (s, cls, err[-4000:]))
        power += faults.get("power_loss", 0)
        for w in a.want:
            reached[w] += points.get(w, 0) > 0
    missing = [w for w, n in reached.items() if n == 0]
    if missing:
        sys.exit("never reached in seeds %s: %s" % (a.seeds, ", ".join(missing)))
    if a.power_loss and power == 0:
        sys.exit("no seed of %s lost power" % a.seeds)
    print("ok: %s seeds %s pass; power losses %d; reached %s" % (a.scenario, a.seeds, power, reached))


def cmd_excused(a):
    excused = 0
    for s in seeds_of(a.seeds):
        cls, _, _, faults, _, err = run(a.bin, a.scenario, s)
        if cls not in ("pass", "excused"):
            sys.exit("seed %d: %s (a failure after a beyond-envelope fault is excused)\n%s" % (s, cls, err[-3000:]))
        if cls == "excused" and faults.get("corrupt", 0) == 0 and faults.get("misdirected", 0) == 0:
            sys.exit("seed %d: excused without a beyond-envelope fault" % s)
        excused += cls == "excused"
    if excused == 0:
        sys.exit("no seed of %s was excused" % a.seeds)
    print("ok: %d seeds excused" % excused)


def cmd_leftovers(a):
    tmp = tempfile.mkdtemp(prefix="disk-leftovers-")
    try:
        fails = 0
        for s in seeds_of(a.seeds):
            cls, _, extra, _, _, err = run(a.bin, a.scenario, s, {"TMPDIR": tmp})
            left = os.listdir(tmp)
            if cls == "pass" and left:
                sys.exit("seed %d passed and left %s in TMPDIR" % (s, left))
            if cls != "pass":
                fails += 1
                m = re.search(r"logs=(\S+)", extra)
                if not m or not os.path.isdir(os.path.join(m.group(1), "node-srv")):
                    sys.exit("seed %d failed (%s) without keeping its node directory with its logs" % (s, cls))
                shutil.rmtree(m.group(1))
        print("ok: nothing left by passing runs; %d failing runs kept their node directories" % fails)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def cmd_explore(a):
    histories, losses, n_loss = set(), set(), 0
    for s in seeds_of(a.seeds):
        cls, history, _, faults, _, err = run(a.bin, a.scenario, s)
        histories.add(history)
        if faults.get("power_loss"):
            n_loss += 1
            losses.add(history)
    # Every seed that lost power took a history of its own: what it lost
    # (the power_loss event's value) and where differ.
    if n_loss < 3 or len(losses) < n_loss:
        sys.exit("%d seeds lost power with only %d distinct histories" % (n_loss, len(losses)))
    print("ok: %d histories; %d seeds lost power, each its own way" % (len(histories), n_loss))


def cmd_bad_scenario(a):
    p = subprocess.run([os.path.join(a.bin, "simworld"), a.scenario], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, DETSIM_SEED="1"))
    if p.returncode != 89 or "the path is relative to the node's own directory" not in p.stderr:
        sys.exit("want exit 89 naming the bad data line, got %d:\n%s" % (p.returncode, p.stderr))
    print("ok: %s" % p.stderr.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["rules", "excused", "leftovers", "explore", "bad-scenario"])
    ap.add_argument("bin")
    ap.add_argument("scenario")
    ap.add_argument("--seeds", required=True)
    ap.add_argument("--want", action="append", default=[])
    ap.add_argument("--power-loss", action="store_true")
    a = ap.parse_args()
    {"rules": cmd_rules, "excused": cmd_excused, "leftovers": cmd_leftovers, "explore": cmd_explore, "bad-scenario": cmd_bad_scenario}[a.cmd](a)


if __name__ == "__main__":
    main()
