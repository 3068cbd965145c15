#!/usr/bin/env python3
"""Conformance: a program prints the same stdout natively (over real
loopback) and as a simulation build, for every seed given.

  same_output.py --native PROG --sim SIMPROG [--seeds SPEC] [--timeout S] [--options DETSIM_OPTIONS]

The native run must exit 0; each simulation run must exit 0 and end with
the `detsim: pass` result line.  On a difference, both outputs are shown
with the first differing line marked.
"""
import argparse
import os
import subprocess
import sys


def parse_seeds(spec):
    out = []
    for part in spec.split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            out.extend(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--native", required=True)
    ap.add_argument("--sim", required=True)
    ap.add_argument("--seeds", default="1-3")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--options", help="DETSIM_OPTIONS for the simulation runs")
    a = ap.parse_args()
    env = dict(os.environ)
    env.pop("DETSIM_SEED", None)
    env.pop("DETSIM_OPTIONS", None)
    nat = subprocess.run([a.native], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=a.timeout, env=env,
                         stdin=subprocess.DEVNULL)
    if nat.returncode != 0:
        print("FAIL: the native run exited %d\n%s\n%s" % (nat.returncode, nat.stdout.decode(), nat.stderr.decode()))
        return 1
    if a.options:
        env["DETSIM_OPTIONS"] = a.options
    for seed in parse_seeds(a.seeds):
        env["DETSIM_SEED"] = str(seed)
        sim = subprocess.run([a.sim], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=a.timeout, env=env,
                             stdin=subprocess.DEVNULL)
        err = sim.stderr.decode(errors="replace")
        last = [l for l in err.splitlines() if l][-1:] or [""]
        if sim.returncode != 0 or not last[0].startswith("detsim: pass "):
            print("FAIL: seed %d: simulation run exited %d, last line %r\n--- stdout\n%s--- stderr\n%s" % (
                seed, sim.returncode, last[0], sim.stdout.decode(errors="replace"), err))
            return 1
        if sim.stdout != nat.stdout:
            n = nat.stdout.decode(errors="replace").splitlines()
            s = sim.stdout.decode(errors="replace").splitlines()
            print("FAIL: seed %d: stdout differs from the native run" % seed)
            for i in range(max(len(n), len(s))):
                x = n[i] if i < len(n) else "<none>"
                y = s[i] if i < len(s) else "<none>"
                mark = "  " if x == y else "!!"
                print("%s native: %-40s sim: %s" % (mark, x, y))
            print("--- stderr\n" + err)
            return 1
    print("ok: native and %d simulation seeds printed the same %d lines" % (
        len(parse_seeds(a.seeds)), len(nat.stdout.splitlines())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
