"""World tests: clogs, aborted connections, UDP and short-I/O faults, wake-ups."""
import glob
import os
import re
import subprocess
import sys
import tempfile

from world_common import *  # noqa: F401,F403 (the shared helpers)


# clog.scenario: the link latency bound (net_latency_max_ns's default) plus
# room for a few events, and clogs' longest.
LATENCY_SLACK_US = 3000

CLOG_MIN_US = 10_000

CLOG_MAX_US = 1_000_000

CLOG_SEEDS = 16

CLOG_MESSAGES = 100

CLOG_REPLAY_SEED = 11

OK_RE = re.compile(r"^ok tcp=(\d+) udp=(\d+) tcp_delay_max_us=(-?\d+) udp_delay_max_us=(-?\d+)$", re.M)

def clog(bins, d):
    """Level 2 with clogs only (clog.scenario): the report counts them; every
    byte reaches the sink in order and every datagram arrives (the sink and
    the sources check); messages are late by more than any latency only in
    seeds with clogs, and some are, over TCP and UDP alike."""
    import json
    simrun = os.path.join(bins, "simrun")
    jl = os.path.join(tempfile.mkdtemp(), "c.jsonl")
    code, out, err = run([simrun, "--seeds", str(CLOG_SEEDS), "-j", "2", "--level", "2", "--jsonl", jl, "clog.scenario"],
                         cwd=d, timeout=600)
    if code != 0 or "PASSED" not in out:
        fail(f"level 2 sweep of clog.scenario: status {code}\n{out}\n{err}")
    kinds = {}
    for line in open(jl):
        for k, v in json.loads(line).get("faults", {}).items():
            kinds[k] = kinds.get(k, 0) + v
    if not kinds.get("clog") or set(kinds) != {"clog"}:
        fail(f"faults=clog must draw clogs and nothing else in {CLOG_SEEDS} seeds: {kinds}")
    if not re.search(r"clog +\d+ times in \d+ runs", out):
        fail(f"the report does not list the clogs:\n{out}")
    sw = os.path.join(bins, "simworld")
    late = {"tcp": 0, "udp": 0}
    clogs = 0
    for seed in range(1, CLOG_SEEDS + 1):
        counts, _, outs, _ = world_run(sw, d, "clog.scenario", seed)
        clogs += counts.get("clog", 0)
        bound = CLOG_MAX_US + LATENCY_SLACK_US if counts.get("clog") else LATENCY_SLACK_US
        for name in ("src1", "src2"):
            m = OK_RE.search(outs.get(name, ""))
            if not m:
                fail(f"seed {seed}: {name} printed no account: {outs.get(name)!r}")
            tcp, udp, tcp_late, udp_late = map(int, m.groups())
            if tcp != CLOG_MESSAGES or udp != CLOG_MESSAGES:
                fail(f"seed {seed} {name}: sent {CLOG_MESSAGES} each way, the sink has tcp={tcp} udp={udp}")
            if max(tcp_late, udp_late) > bound:
                fail(f"seed {seed} {name}: late by {tcp_late} us (TCP) and {udp_late} us (UDP), "
                     f"more than {bound} us with {counts.get('clog', 0)} clogs")
            late["tcp"] += tcp_late >= CLOG_MIN_US
            late["udp"] += udp_late >= CLOG_MIN_US
    if not late["tcp"] or not late["udp"]:
        fail(f"no message was held by a clog in {CLOG_SEEDS} seeds: {late}")
    print(f"{clogs} clogs in {CLOG_SEEDS} seeds; sources with messages held {CLOG_MIN_US} us or more: {late}; "
          f"nothing lost or reordered")
    counts, _, _, (events, history) = replays(sw, d, "clog.scenario", CLOG_REPLAY_SEED)
    if not counts.get("clog"):
        fail(f"seed {CLOG_REPLAY_SEED} drew no clog: its replay shows nothing")
    print(f"seed {CLOG_REPLAY_SEED} ({counts['clog']} clogs) replays: history {history}, {events} events, same output")

def abort(bins, d):
    """abort.scenario over 12 seeds: a client writes 100 bytes on each of 40
    connections and aborts it at once (RST).  Each write arrives whole or
    not at all, and the sink always sees the reset; seeds without a
    partition lose nothing; in seeds with one, the writes a partition held
    back when the RST came are lost (TCP drops its send queue on an abort,
    it does not retransmit it after the heal); a seed with losses replays."""
    sw = os.path.join(bins, "simworld")
    lost_total = 0
    lossy = None
    for seed in range(1, 13):
        logs = tempfile.mkdtemp()
        code, out, err = run([sw, "--logs", logs, "abort.scenario"], env={"DETSIM_SEED": str(seed)}, cwd=d)
        m = RESULT_RE.search(err)
        if code != 0 or not m or m.group(1) != "pass":
            fail(f"seed {seed}: want pass, got status {code}:\n{err}")
        fm = re.search(r"^detsim: faults level=2(.*)$", err, re.M)
        counts = dict(kv.split("=") for kv in fm.group(1).split()) if fm else {}
        conns = re.findall(r"^conn bytes=(\d+) end=(\w+)$", open(os.path.join(logs, "sink.out")).read(), re.M)
        subprocess.run(["rm", "-rf", logs])
        if len(conns) != 40 or any(end != "reset" or b not in ("0", "100") for b, end in conns):
            fail(f"seed {seed}: want 40 connections of 0 or 100 bytes, each reset: {conns}")
        lost = sum(1 for b, _ in conns if b == "0")
        cut = int(counts.get("partition", 0)) + int(counts.get("one_way", 0))
        if lost and not cut:
            fail(f"seed {seed}: {lost} writes lost without a partition")
        lost_total += lost
        if lost and lossy is None:
            lossy = (seed, m.group(4))
    if lost_total == 0:
        fail("no write was ever held back by a partition when its connection was aborted")
    seed, history = lossy
    code, out, err = run([sw, "abort.scenario"], env={"DETSIM_SEED": str(seed)}, cwd=d)
    m = RESULT_RE.search(err)
    if not m or m.group(4) != history:
        fail(f"seed {seed}: history {history}, then {m.group(4) if m else err}")
    print(f"12 seeds pass; {lost_total} aborted writes lost behind partitions; seed {seed} replays")

LOSSY_RE = re.compile(r"^udp got=(\d+) distinct=(\d+) duplicates=(\d+) late=(\d+) "
                      r"tcp messages=(\d+) reads=(\d+) split=(\d+)\nshort_writes=(\d+)$", re.M)

LOSSY_COUNT = 300

def lossy(bins, d):
    """lossy.scenario with faults=udp, then faults=short, 10 seeds each.
    udp: what the sink counts is what the runtime says it did (received =
    sent - lost + duplicated, duplicates seen = duplicated) and TCP is
    untouched; some datagram arrives after a later one.  short: every TCP
    message arrives intact and in order, but some reads return a piece of
    one and the source's non-blocking writes are short exactly as often as
    the runtime says; UDP is untouched.  Seeds without the fault see none
    of it.  A seed of each replays."""
    sw = os.path.join(bins, "simworld")
    seen = {"udp": [0, 0], "short": [0, 0]}
    for kind in ("udp", "short"):
        replay_seed = None
        for seed in range(1, 11):
            logs = tempfile.mkdtemp()
            code, out, err = run([sw, "--logs", logs, "lossy.scenario"],
                                 env={"DETSIM_SEED": str(seed), "DETSIM_OPTIONS": f"faults={kind}"}, cwd=d)
            m = RESULT_RE.search(err)
            if code != 0 or not m or m.group(1) != "pass":
                fail(f"{kind} seed {seed}: want pass, got status {code}:\n{err}")
            acct = LOSSY_RE.search(open(os.path.join(logs, "src.out")).read())
            subprocess.run(["rm", "-rf", logs])
            if not acct:
                fail(f"{kind} seed {seed}: the source printed no account")
            got, distinct, dups, late, msgs, reads, split, short_writes = map(int, acct.groups())
            u = re.search(r"^detsim: udp lost=(\d+) duplicated=(\d+) reordered=(\d+)$", err, re.M)
            sh = re.search(r"^detsim: short reads=(\d+) writes=(\d+)$", err, re.M)
            if msgs != LOSSY_COUNT:
                fail(f"{kind} seed {seed}: {msgs} TCP messages of {LOSSY_COUNT}")
            if kind == "udp":
                lost, duplicated, reordered = map(int, u.groups()) if u else (0, 0, 0)
                if got != LOSSY_COUNT - lost + duplicated or distinct != LOSSY_COUNT - lost or dups != duplicated:
                    fail(f"udp seed {seed}: runtime lost={lost} duplicated={duplicated}; sink got={got} "
                         f"distinct={distinct} duplicates={dups}")
                if not u and late:
                    fail(f"udp seed {seed}: {late} datagrams late without the fault")
                if split or short_writes or sh:
                    fail(f"udp seed {seed}: TCP pieces changed (split={split} short_writes={short_writes})")
                if u:
                    seen["udp"][0] += lost + duplicated
                    seen["udp"][1] += late
                    replay_seed = replay_seed or seed
            else:
                reads_rt, writes_rt = map(int, sh.groups()) if sh else (0, 0)
                if short_writes != writes_rt:
                    fail(f"short seed {seed}: the source counted {short_writes} short writes, the runtime {writes_rt}")
                if bool(split) != bool(sh) or bool(sh) != bool(reads_rt + writes_rt):
                    fail(f"short seed {seed}: {split} split reads with short={sh.groups() if sh else None}")
                if got != LOSSY_COUNT or dups or late or u:
                    fail(f"short seed {seed}: UDP changed (got={got} duplicates={dups} late={late})")
                if sh:
                    seen["short"][0] += split
                    seen["short"][1] += short_writes
                    replay_seed = replay_seed or seed
        if not all(seen[kind]) or replay_seed is None:
            fail(f"{kind}: the fault never showed in 10 seeds: {seen[kind]}")
        env = {"DETSIM_SEED": str(replay_seed), "DETSIM_OPTIONS": f"faults={kind}"}
        hashes = set()
        for _ in range(2):
            code, out, err = run([sw, "lossy.scenario"], env=env, cwd=d)
            m = RESULT_RE.search(err)
            hashes.add(m.group(4) if m else err)
        if len(hashes) != 1:
            fail(f"{kind} seed {replay_seed} does not replay: {hashes}")
    print(f"udp: {seen['udp'][0]} datagrams lost or duplicated, {seen['udp'][1]} late; "
          f"short: {seen['short'][0]} split reads, {seen['short'][1]} short writes; both replay")

def lossy_choices(bins, d):
    """In a world's choice mode the per-datagram draws are the input's: an
    input of a random prefix (the fault draws, the first scheduling
    choices) and then 0x00 bytes loses every datagram of the loss window
    (each draw reads 0, under any rate); the same prefix and then 0xff
    bytes loses none while the bytes last, as no draw reaches a rate.
    Seeds' own per-datagram stream would lose about as many with both
    tails.  The sink's account still matches the runtime's, and the same
    input in two processes takes one history."""
    import random
    sw = os.path.join(bins, "simworld")
    rng = random.Random(5)
    zero_lost, runs_losing = 0, 0
    for i in range(6):
        prefix = bytes(rng.randrange(256) for _ in range(48))
        res = {}
        for name, tail in (("zeros", b"\x00"), ("ones", b"\xff")):
            path = os.path.join(tempfile.mkdtemp(), "choices")
            with open(path, "wb") as f:
                f.write(prefix + tail * 6000)
            logs = tempfile.mkdtemp()
            env = {"DETSIM_SEED": "1", "DETSIM_OPTIONS": "faults=udp:choices=" + path}
            code, out, err = run([sw, "--logs", logs, "lossy.scenario"], env=env, cwd=d)
            m = RESULT_RE.search(err)
            if code != 0 or not m or m.group(1) != "pass":
                fail(f"prefix {i} {name}: want pass, got status {code}:\n{err[-2000:]}")
            acct = LOSSY_RE.search(open(os.path.join(logs, "src.out")).read())
            subprocess.run(["rm", "-rf", logs])
            u = re.search(r"^detsim: udp lost=(\d+) duplicated=(\d+) reordered=(\d+)$", err, re.M)
            lost, duplicated, _ = map(int, u.groups()) if u else (0, 0, 0)
            got, distinct = int(acct.group(1)), int(acct.group(2))
            if got != LOSSY_COUNT - lost + duplicated or distinct != LOSSY_COUNT - lost:
                fail(f"prefix {i} {name}: runtime lost={lost} duplicated={duplicated}; sink got={got} distinct={distinct}")
            used = re.search(r"choices_used=(\d+)/(\d+)", m.group(5) or "")
            res[name] = (lost, used and int(used.group(1)) < int(used.group(2)), m.group(4), env)
        if res["ones"][1] and res["ones"][0] != 0:
            fail(f"prefix {i}: a tail of 0xff bytes lost {res['ones'][0]} datagrams")
        if res["zeros"][0]:
            runs_losing += 1
            zero_lost += res["zeros"][0]
            if res["zeros"][0] <= res["ones"][0]:
                fail(f"prefix {i}: 0x00 tail lost {res['zeros'][0]}, 0xff tail {res['ones'][0]}")
    if runs_losing < 3:
        fail(f"only {runs_losing} of 6 prefixes lost datagrams with a 0x00 tail")
    again = run([sw, "lossy.scenario"], env=res["zeros"][3], cwd=d)[2]
    m = RESULT_RE.search(again)
    if not m or m.group(4) != res["zeros"][2]:
        fail(f"the same input took {res['zeros'][2]}, then {m.group(4) if m else again[-500:]}")
    print(f"{runs_losing} of 6 prefixes: a 0x00 tail lost {zero_lost} datagrams, a 0xff tail none; replays")

# wake.scenario: two clients with 12 answered messages per kind of wait,
# one with 1 MiB per slow connection.
WAKE_SEEDS = 40

WAKE_REPLAY_SEEDS = 3

WAKE_LINES = {"msg1": "wake: r=12 p=12 e=12\n", "msg2": "wake: r=12 p=12 e=12\n",
              "bulk": "wake: b=1048576 B=1048576\n"}

def wake(bins, d):
    """wake.scenario over 40 seeds at level 2 (partitions, clogs, pauses):
    every wait in it has no timeout (a blocking read, poll, edge-triggered
    epoll_wait, a writer blocked on a full connection, an edge-triggered
    wait for EPOLLOUT), and every node is idle between arrivals, so a
    wake-up lost anywhere deadlocks the world.  Each seed passes with every
    message answered; the faults held arrivals back in enough seeds to
    count; seeds with faults replay in separate processes."""
    sw = os.path.join(bins, "simworld")
    totals = {}
    faulty = []
    for seed in range(1, WAKE_SEEDS + 1):
        counts, _, outs, _ = world_run(sw, d, "wake.scenario", seed)
        for name, want in WAKE_LINES.items():
            if outs.get(name) != want:
                fail(f"seed {seed}: {name} printed {outs.get(name)!r}, want {want!r}")
        for k, v in counts.items():
            totals[k] = totals.get(k, 0) + v
        if counts.get("partition") and counts.get("pause"):
            faulty.append(seed)
    for k in ("partition", "clog", "pause"):
        if totals.get(k, 0) < 5:
            fail(f"only {totals.get(k, 0)} {k} faults in {WAKE_SEEDS} seeds: {totals}")
    if len(faulty) < WAKE_REPLAY_SEEDS:
        fail(f"fewer than {WAKE_REPLAY_SEEDS} seeds with both partitions and pauses: {faulty}")
    for seed in faulty[:WAKE_REPLAY_SEEDS]:
        replays(sw, d, "wake.scenario", seed, runs=2)
    print(f"{WAKE_SEEDS} seeds pass with every wait woken; faults {totals}; seeds {faulty[:WAKE_REPLAY_SEEDS]} replay")
