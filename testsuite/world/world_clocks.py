"""World tests: level 2's clock skew and drift."""
import glob
import os
import re
import subprocess
import sys
import tempfile

from world_common import *  # noqa: F401,F403 (the shared helpers)


# clock.scenario: 5 rounds of each probe.
CLOCK_ROUNDS = 5

# What the probes may see beyond the model: an exchange that takes no link
# latency but some events and clock reads (about 1 us each) while other
# probes talk to the reference too, and a wake a few events after its time.
# Over seeds 1-40 the worst were 8 us, 0.61 ppm and 15 us.
OFFSET_TOL_NS = 50_000

RATE_TOL_PPM = 3.0

WAKE_LATE_MAX_NS = 50_000

# The test means something only with skews and drifts well above those.
SKEW_MEANINGFUL_NS = 1_000_000

DRIFT_MEANINGFUL_PPM = 10.0

SKEW_REPLAY_SEED = 1

PROBE_RE = re.compile(r"^probe (\d+) rt=(\d+) mono=(\d+) ref_rt=(\d+) ref_mono=(\d+)$", re.M)

WAKE_RE = re.compile(r"^(wake|timer|cond) (\d+) armed=(\d+) target=(\d+) rt=(\d+) mono=(\d+)$", re.M)

MONO_RE = re.compile(r"^\w+ \d+ .*\bmono=(\d+)", re.M)

# Per round: a wake (clock_nanosleep), two timerfd expirations, a timeout.
WAITS_PER_ROUND = 4

SLEEP_RE = re.compile(r"^sleep (\d+) asked=(\d+) slept=(\d+)$", re.M)

def check_probe(what, text, own, ref, seen):
    """One probe's readings against the drawn clocks: `own` and `ref` are
    (offset ns, drift ppb) of the probe and of the reference node."""
    probes = [tuple(map(int, g)) for g in PROBE_RE.findall(text)]
    waits = [(kind,) + tuple(map(int, g)) for kind, *g in WAKE_RE.findall(text)]
    sleeps = [tuple(map(int, g)) for g in SLEEP_RE.findall(text)]
    if not (len(probes) == len(sleeps) == CLOCK_ROUNDS and len(waits) == WAITS_PER_ROUND * CLOCK_ROUNDS):
        fail(f"{what}: want {CLOCK_ROUNDS} rounds of readings:\n{text}")
    # CLOCK_REALTIME: at one virtual instant the two nodes' realtime clocks
    # differ by the offsets drawn, plus what their monotonic clocks differ
    # by (the drift, since the start).
    want = ref[0] - own[0]
    for k, rt, mono, ref_rt, ref_mono in probes:
        off = (ref_rt - rt) - (ref_mono - mono) - want
        seen["offset_err"] = max(seen["offset_err"], abs(off))
        if abs(off) > OFFSET_TOL_NS:
            fail(f"{what} round {k}: realtime apart by {ref_rt - rt} ns, monotonic by {ref_mono - mono}: "
                 f"offsets {ref[0]} - {own[0]} = {want} ns drawn")
        seen["offset_max"] = max(seen["offset_max"], abs(ref_rt - rt))
    # The rates: the reference's clock over the probe's, first round to last.
    _, _, m1, _, r1 = probes[0]
    _, _, mk, _, rk = probes[-1]
    rate = ((rk - r1) / (mk - m1) - 1) * 1e6
    want_rate = ((1 + ref[1] / 1e9) / (1 + own[1] / 1e9) - 1) * 1e6
    seen["rate_err"] = max(seen["rate_err"], abs(rate - want_rate))
    seen["rate_max"] = max(seen["rate_max"], abs(want_rate))
    if abs(rate - want_rate) > RATE_TOL_PPM:
        fail(f"{what}: the reference's clock ran {rate:+.3f} ppm against the probe's, want {want_rate:+.3f} "
             f"(drifts {ref[1]} and {own[1]} ppb)")
    # Monotonic clocks never go back: the probe's in the order it read them,
    # the reference's in the order it answered.
    order = [int(m) for m in MONO_RE.findall(text)]
    refs = [p[4] for p in probes]
    if len(order) != len(probes) + len(waits) or order != sorted(order) or refs != sorted(refs):
        fail(f"{what}: CLOCK_MONOTONIC went back: {order} / reference {refs}")
    # A wait until T on the node's own CLOCK_REALTIME (clock_nanosleep, a
    # timerfd and its period, a condition variable's timeout) ends when the
    # clock reads T, not earlier and not much later; a relative sleep lasts
    # what was asked on its CLOCK_MONOTONIC.
    for kind, k, armed, target, rt, _ in waits:
        seen["wake_late"] = max(seen["wake_late"], rt - target)
        if not 0 <= rt - target <= WAKE_LATE_MAX_NS:
            fail(f"{what} round {k}: {kind} until {target} on CLOCK_REALTIME ended at {rt} ({rt - target:+d} ns)")
        # A wait blind to the drift would end this far off: the check above
        # tells the two apart where it is well above the bound.
        effect = abs(own[1]) * (target - armed) // 10**9
        seen["drift_effect"][kind] = max(seen["drift_effect"].get(kind, 0), effect)
    for k, asked, slept in sleeps:
        seen["sleep_late"] = max(seen["sleep_late"], slept - asked)
        if not 0 <= slept - asked <= WAKE_LATE_MAX_NS:
            fail(f"{what} round {k}: a {asked} ns sleep lasted {slept} ns on CLOCK_MONOTONIC")

def skew(bins, d):
    """Level 2 with skew only (clock.scenario): nodes' clocks disagree by the
    offsets drawn and run at the rates drawn, monotonic clocks never go back,
    absolute and relative sleeps end on the node's own clock; with skew off
    (level 1, or a seed that drew none) every node's clocks agree."""
    sw = os.path.join(bins, "simworld")
    seen = dict.fromkeys(["offset_err", "offset_max", "rate_err", "rate_max", "wake_late", "sleep_late"], 0)
    seen["drift_effect"] = {}
    runs = [(seed, None) for seed in range(1, 9)] + [(seed, "level=1") for seed in (1, 2)]
    on = off = 0
    for seed, options in runs:
        counts, skews, outs, _ = world_run(sw, d, "clock.scenario", seed, options)
        if options == "level=1" and (counts or skews):
            fail(f"level 1 drew faults: {counts} {skews}")
        on += bool(skews)
        off += not skews
        probes = sorted(n for n in outs if n.startswith("probe"))
        if len(probes) != 3:
            fail(f"seed {seed}: want three probes' output, got {sorted(outs)}")
        for name in probes:
            check_probe(f"seed {seed} {name}", outs[name], skews.get(name, (0, 0)), skews.get("ref", (0, 0)), seen)
        print(f"seed {seed} {options or 'level=2'}: skews {skews or 'none'}")
    if on < 2 or off < 3:
        fail(f"want at least 2 runs with skew and 3 without: {on} with, {off} without")
    if seen["offset_max"] < SKEW_MEANINGFUL_NS or seen["rate_max"] < DRIFT_MEANINGFUL_PPM:
        fail(f"no skew or drift large enough to tell the model from no model: {seen}")
    for kind in ("wake", "timer", "cond"):
        if seen["drift_effect"].get(kind, 0) < 2 * WAKE_LATE_MAX_NS:
            fail(f"no drift large enough that a {kind} blind to it would end off by more than the bound: {seen}")
    counts, skews, _, (events, history) = replays(sw, d, "clock.scenario", SKEW_REPLAY_SEED)
    if not skews:
        fail(f"seed {SKEW_REPLAY_SEED} drew no skew: its replay shows nothing")
    print(f"skew: {on} runs with, {off} without; worst seen {seen}")
    print(f"seed {SKEW_REPLAY_SEED} ({len(skews)} nodes askew) replays: history {history}, {events} events, same readings")


# step.scenario: each node waits 50 times, 250 ms ahead on CLOCK_REALTIME.
STEP_WAITS = 50
STEP_SEEDS = range(1, 41)
STEP_RE = re.compile(r"^detsim: step node=(\S+) at_ns=(\d+) delta_ns=(-?\d+)$", re.M)
STEP_WAIT_RE = re.compile(r"^wait (\d+) kind=(\w+) armed=(\d+) target=(\d+) rt=(\d+) mono=(\d+) canceled=(\d+)$", re.M)
# CLOCK_MONOTONIC reads virtual time plus an hour (clock.c) when no skew.
MONO_BOOT_NS = 3600 * 10**9

def step(bins, d):
    """Level 2's clock steps (step.scenario): a wait until a time on
    CLOCK_REALTIME (clock_nanosleep, a condition variable's timeout, a
    timerfd, a POSIX timer) ends when the clock reads that time, steps
    included, as Linux re-arms them (and a TFD_TIMER_CANCEL_ON_SET timerfd's
    read fails with ECANCELED once per step): a step back during the wait makes it
    longer by the step on CLOCK_MONOTONIC (and never ends it early: the
    node fails by itself then), a step forward past the time ends it at
    the step, any other wait ends at its time.  Over the seeds steps land
    in waits of every kind, both ways; a seed with steps replays."""
    sw = os.path.join(bins, "simworld")
    spanned, ways, with_steps = {}, set(), None
    for seed in STEP_SEEDS:
        with tempfile.TemporaryDirectory() as logs:
            code, out, err = run([sw, "--logs", logs, "step.scenario"], env={"DETSIM_SEED": str(seed)}, cwd=d)
            m = RESULT_RE.search(err)
            if code != 0 or not m or m.group(1) != "pass":
                fail(f"step.scenario seed {seed}: want pass, got status {code}:\n{err}")
            steps = [(n, int(at), int(delta)) for n, at, delta in STEP_RE.findall(err)]
            counted = FAULTS_RE.search(err)
            if len(steps) != int(re.search(r"step=(\d+)", counted.group(1)).group(1) if "step=" in counted.group(1) else 0):
                fail(f"seed {seed}: the steps listed are not the steps counted:\n{err}")
            if steps and with_steps is None:
                with_steps = seed
            for node in ("st1", "st2", "st3"):
                waits = STEP_WAIT_RE.findall(open(os.path.join(logs, node + ".out")).read())
                if len(waits) != STEP_WAITS:
                    fail(f"seed {seed} {node}: {len(waits)} waits, want {STEP_WAITS}")
                for k, kind, armed, target, rt, mono, canceled in waits:
                    armed_v, wake_v = int(armed) - MONO_BOOT_NS, int(mono) - MONO_BOOT_NS
                    target, rt = int(target), int(rt)
                    inside = [(at, delta) for n, at, delta in steps if n == node and armed_v <= at <= wake_v]
                    late = rt - target
                    # A TFD_TIMER_CANCEL_ON_SET timerfd: one ECANCELED per
                    # step while it waited, none without.
                    if kind == "cancel" and int(canceled) != len(inside):
                        fail(f"seed {seed} {node} wait {k}: {canceled} reads canceled, {len(inside)} steps during it")
                    if inside:
                        spanned[kind] = spanned.get(kind, 0) + 1
                        ways.add(inside[-1][1] > 0)
                    if late <= WAKE_LATE_MAX_NS:
                        continue
                    # Late: only a step forward across the time, and the
                    # wait ended with it.
                    at, delta = inside[-1] if inside else (None, 0)
                    if not inside or delta <= 0 or rt - delta >= target or wake_v - at > WAKE_LATE_MAX_NS:
                        fail(f"seed {seed} {node} wait {k} ({kind}): until {target} on CLOCK_REALTIME ended at {rt} "
                             f"({late:+d} ns), steps during it: {inside}")
    missing = [k for k in ("sleep", "cond", "timerfd", "ptimer", "cancel") if spanned.get(k, 0) < 1]
    if missing or ways != {True, False}:
        fail(f"steps did not land in waits of every kind both ways: {spanned}, forward/back seen {ways}")
    replays(sw, d, "step.scenario", with_steps)
    print(f"step: waits spanning a step, by kind {spanned}; seed {with_steps} replays")
