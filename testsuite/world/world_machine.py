"""Each node of a world is a machine of its own (machine.scenario)."""
import os
import re

from world_common import fail, replays, world_run

LINE_RE = re.compile(r"^cpus=(\d+) machine_id=([0-9a-f]{32}) boot_id=(\S{36}) uuid=(\S{36}) urandom=([0-9a-f]{32})$")


def machine(bins, d):
    """Every node draws its own identity and random bytes; the same seed
    replays them in separate processes; the CPU counts drawn differ between
    nodes over a few seeds."""
    sw = os.path.join(bins, "simworld")
    cpus_seen = set()
    for seed in (1, 2, 3):
        _, _, outs, _ = replays(sw, d, "machine.scenario", seed, runs=2)
        boxes = sorted(n for n in outs if n.startswith("box"))
        if len(boxes) != 4:
            fail(f"seed {seed}: want four nodes' output, got {sorted(outs)}")
        rows = []
        for name in boxes:
            m = LINE_RE.match(outs[name].strip())
            if not m:
                fail(f"seed {seed} {name}: unexpected output {outs[name]!r}")
            rows.append(m.groups())
        for field, what in ((1, "machine-id"), (2, "boot_id"), (3, "uuid"), (4, "urandom bytes")):
            values = [r[field] for r in rows]
            if len(set(values)) != len(values):
                fail(f"seed {seed}: nodes share a {what}: {values}")
        cpus_seen.update(int(r[0]) for r in rows)
        print(f"seed {seed}: cpus {[r[0] for r in rows]}")
    if len(cpus_seen) < 3:
        fail(f"cpus=draw drew too few distinct CPU counts over 12 nodes: {sorted(cpus_seen)}")
