#!/usr/bin/env python3
"""Links' drawn jitter and bandwidth, as a program sees them (link_model.c).

  link_model.py PROGRAM

Over 30 seeds every byte arrives and nothing reorders.  Some seeds draw a
slow link (4 MiB take 500 virtual ms or more) and some a fast or unlimited
one (under 30 ms: the cost model prices the thousands of reads and writes
at 1-1.5 us each); some draw a jitter that spreads one-way delays by 10 us
or more.  With net_bandwidth_min=0 and net_jitter_max_ns=0 (the limits
off) the transfer is bound by latency and the window only (under 100 ms)
and no spread exceeds 5 us.  A seed replays: the same
output and history in another process.
"""
import os
import re
import subprocess
import sys

RESULT_RE = re.compile(r"^detsim: (\w+) seed=(\d+) events=(\d+) history=([0-9a-f]{16})", re.M)
OUT_RE = re.compile(r"^bulk_ms=([0-9.]+) ok\nstamp_spread_us=(\d+) ordered\n$")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(prog, seed, options=""):
    env = dict(os.environ, DETSIM_SEED=str(seed), DETSIM_OPTIONS=options)
    p = subprocess.run([prog], env=env, capture_output=True, text=True, timeout=120)
    m = OUT_RE.match(p.stdout)
    r = RESULT_RE.search(p.stderr)
    if p.returncode != 0 or not m or not r or r.group(1) != "pass":
        fail(f"seed {seed} {options!r}: status {p.returncode}\n{p.stdout}\n{p.stderr[-2000:]}")
    return float(m.group(1)), int(m.group(2)), p.stdout, r.group(4)


def main():
    prog = sys.argv[1]
    drawn = [run(prog, s) for s in range(1, 31)]
    bulk = [b for b, _, _, _ in drawn]
    spread = [j for _, j, _, _ in drawn]
    if max(bulk) < 500 or min(bulk) >= 30:
        fail(f"the bandwidths drawn do not show: bulk ms {sorted(bulk)}")
    if max(spread) < 10:
        fail(f"no jitter drawn spreads the delays: {sorted(spread)}")
    off = [run(prog, s, "net_bandwidth_min=0:net_jitter_max_ns=0") for s in range(1, 11)]
    if max(b for b, _, _, _ in off) >= 100 or max(j for _, j, _, _ in off) > 5:
        fail(f"with the limits off: bulk ms {[b for b, _, _, _ in off]}, spreads {[j for _, j, _, _ in off]}")
    slow = max(range(30), key=lambda i: bulk[i]) + 1
    again = run(prog, slow)
    if again[2:] != drawn[slow - 1][2:]:
        fail(f"seed {slow} does not replay: {drawn[slow - 1][2:]} then {again[2:]}")
    print(f"bulk ms over 30 seeds {min(bulk):.1f}..{max(bulk):.1f}, delay spreads {min(spread)}..{max(spread)} us; "
          f"off: bulk under 100 ms, spreads under 5 us; seed {slow} replays")


if __name__ == "__main__":
    main()
