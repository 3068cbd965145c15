#!/usr/bin/env python3
"""The exploration benchmark (bench/explore.sh builds the programs).

For each planted bug and each way of exploring, TRIALS independent trials
each count the executions up to and including the first failing one, with
a budget of BUDGET executions (a trial that finds nothing within it counts
as "> BUDGET"):

  random  the seeded random walk (the default strategy): trial t runs seeds
          (t-1)*BUDGET+1, (t-1)*BUDGET+2, ...
  pct     DETSIM_OPTIONS=strategy=pct (depth 3, change points spread over a
          per-seed length), the same seeds
  fuzz    simfuzz --seed t -seed=t -runs=BUDGET (libFuzzer's defaults but
          -len_control=0 -max_len=64, simfuzz's own; 256 for a world): the
          run at which it reports the failure

A planted bug in a world is a scenario (simworld runs it; its input holds
every node's scheduling choices and the fault draws); PCT is for one-node
runs only.

Every run gets quiet=1:trace=none.  Prints the table in Markdown."""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

PROGRAMS = [
    # name, program (or scenario: a world), what the bug needs, the class that counts
    ("ordering depth 1", "ordering_d1", "1 switch into a window 1 yield point wide", "crash"),
    ("ordering depth 2", "ordering_d2", "2 such switches, in order", "crash"),
    ("ordering depth 3", "ordering_d3", "3 such switches, in order", "crash"),
    ("lost update", "lost_update", "a switch between a load and its store (2 threads x 50)", "crash"),
    ("ABBA canary", "canary", "each thread holding its first lock", "deadlock"),
    ("bank (example)", "bank", "two tellers passing the balance check at once", "correctness"),
    ("fork ordering depth 1", "fork_ordering_d1", "processes: the child reads in the parent's window 1 yield point wide",
     "crash"),
    ("fork ordering depth 2", "fork_ordering_d2", "processes: the child takes 2 such windows, in order", "crash"),
    ("world ordering depth 1", "world_d1.scenario", "world: tick 2's first byte from client 1 of 3", "crash"),
    ("world ordering depth 2", "world_d2.scenario", "world: ticks 2, 4 from clients 1, 2", "crash"),
    ("world ordering depth 4", "world_d4.scenario", "world: ticks 2 .. 8 from clients 1, 2, 3, 1", "crash"),
    ("world ordering depth 6", "world_d6.scenario", "world: ticks 2 .. 12 from clients 1, 2, 3, 1, 2, 3", "crash"),
    ("kv stale read (world example)", "kv-buggy.scenario", "world: a read from a backup before it applied the put",
     "correctness"),
    ("wal ack before fsync (world example, level 3)", "wal-ack-early.scenario",
     "world: a power loss of the server between an ack and its fsync", "correctness"),
]


SIMWORLD = None  # simworld, next to simfuzz
WORK = None


def argv_of(path):
    """A program runs as it is; a scenario through simworld, its logs in the
    work directory (removed after each run)."""
    if path.endswith(".scenario"):
        return [SIMWORLD, "--logs", os.path.join(WORK, "logs"), path]
    return [path]


def seeded(path, seed, strategy, want):
    opts = "quiet=1:trace=none" + (":strategy=pct" if strategy == "pct" else "")
    env = dict(os.environ, DETSIM_SEED=str(seed), DETSIM_OPTIONS=opts)
    p = subprocess.run(argv_of(path), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)
    shutil.rmtree(os.path.join(WORK, "logs"), ignore_errors=True)
    m = re.findall(r"^detsim: (\w+) seed=", p.stderr.decode(errors="replace"), re.M)
    return bool(m) and m[-1] == want


def trial_seeded(path, strategy, want, t, budget):
    for i in range(1, budget + 1):
        if seeded(path, (t - 1) * budget + i, strategy, want):
            return i
    return None


def trial_fuzz(simfuzz, path, want, t, budget, work, extra=()):
    out = os.path.join(work, "fuzz-out")
    env = dict(os.environ)
    env.pop("DETSIM_OPTIONS", None)
    p = subprocess.run([simfuzz, "--out", out, "--seed", str(t), "--fail-on", want] + list(extra) + ["-seed=%d" % t,
                        "-runs=%d" % budget, "-artifact_prefix=%s/" % work, "-print_final_stats=0", "--", path],
                       env=env, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=3600)
    err = p.stderr.decode(errors="replace")
    m = re.search(r"^simfuzz: found (\w+) at run (\d+):", err, re.M)
    for f in os.listdir(work):
        if f.startswith("crash-"):
            os.unlink(os.path.join(work, f))
    if m and m.group(1) == want:
        return int(m.group(2))
    if p.returncode not in (0, 77):
        sys.exit("explore.py: simfuzz failed (status %d):\n%s" % (p.returncode, err[-3000:]))
    return None


def show(values, budget):
    found = [v for v in values if v is not None]
    cells = ["%d" % v if v is not None else ">%d" % budget for v in values]
    if len(found) * 2 > len(values):
        ordered = sorted(v if v is not None else float("inf") for v in values)
        med = ordered[len(ordered) // 2]
        head = "%d" % med if med != float("inf") else ">%d" % budget
    else:
        head = ">%d" % budget
    return "%s (%s)" % (head, ", ".join(cells))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--simfuzz", required=True)
    ap.add_argument("--progs", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--budget", type=int, help="executions per trial (default 1000; --quick 300)")
    ap.add_argument("--trials", type=int, help="trials per cell (default 3; --quick 1)")
    ap.add_argument("--only", help="only the planted bugs whose name contains this")
    ap.add_argument("--ablation", action="store_true",
                    help="simfuzz with and without its scheduling features, instead of the three methods")
    a = ap.parse_args()
    global SIMWORLD, WORK
    SIMWORLD = os.path.join(os.path.dirname(os.path.abspath(a.simfuzz)), "simworld")
    WORK = a.work
    trials, budget = (1, 300) if a.quick else (3, 1000)
    trials, budget = a.trials or trials, a.budget or budget
    rows = []
    t0 = time.time()
    for name, prog, needs, want in PROGRAMS:
        if a.only and a.only not in name:
            continue
        path = os.path.join(a.progs, prog)
        cols = []
        for how in (("fuzz", "fuzz-sched") if a.ablation else ("random", "pct", "fuzz")):
            if how == "pct" and prog.endswith(".scenario"):
                cols.append("n/a (one-node runs only)")
                continue
            vals = []
            for t in range(1, trials + 1):
                s = time.time()
                v = (trial_fuzz(a.simfuzz, path, want, t, budget, a.work,
                                ["--schedule-features"] if how == "fuzz-sched" else []) if how.startswith("fuzz")
                     else trial_seeded(path, how, want, t, budget))
                vals.append(v)
                print("%s / %s / trial %d: %s (%.0f s)" % (name, how, t, v if v is not None else ">%d" % budget,
                                                         time.time() - s), file=sys.stderr, flush=True)
            cols.append(show(vals, budget))
        rows.append((name, needs, want, cols))
    if a.ablation:
        print("| planted bug | what it needs | class | simfuzz | simfuzz --schedule-features |")
        print("|---|---|---|---|---|")
    else:
        print("| planted bug | what it needs | class | random walk | PCT | simfuzz |")
        print("|---|---|---|---|---|---|")
    for name, needs, want, cols in rows:
        print("| %s | %s | %s | %s |" % (name, needs, want, " | ".join(cols)))
    print()
    print("Executions to the first failure: the median of %d trials (each trial's count in brackets), "
          "budget %d executions per trial; %.0f s in all." % (trials, budget, time.time() - t0))


if __name__ == "__main__":
    main()
