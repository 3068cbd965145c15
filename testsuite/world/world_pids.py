#!/usr/bin/env python3
"""A world's pids (runtime/proc/proc.h) across crashes and restarts.

  world_pids.py BIN_DIR DIR

pids_restart.scenario: srv1, srv2 and cli are pids 1000, 1001, 1002 in
scenario order (parent 999, main tid == pid); a restarted server is a
fresh process with the next pid of the world (1003 for the first restart);
and a seed with a restart prints the same pids when run again.
"""
import os
import re
import subprocess
import sys
import tempfile

from world_common import RESULT_RE, fail, run


def pids_of(sw, d, seed):
    logs = tempfile.mkdtemp()
    code, out, err = run([sw, "--logs", logs, "pids_restart.scenario"], env={"DETSIM_SEED": str(seed)}, cwd=d)
    m = RESULT_RE.search(err)
    if code != 0 or not m or m.group(1) != "pass":
        fail(f"seed {seed}: want pass, got status {code}:\n{err}")
    said = {n: open(os.path.join(logs, f"{n}.out")).read() for n in ("srv1", "srv2")}
    subprocess.run(["rm", "-rf", logs])
    restarts = int(re.search(r"restart=(\d+)", err).group(1)) if "restart=" in err else 0
    return said, restarts


def main():
    bins, d = sys.argv[1], sys.argv[2]
    sw = os.path.join(bins, "simworld")
    for seed in range(1, 13):
        said, restarts = pids_of(sw, d, seed)
        first = {n: s.split("\n")[0] for n, s in said.items()}
        if first != {"srv1": "pid=1000 ppid=999 tid=1000", "srv2": "pid=1001 ppid=999 tid=1001"}:
            fail(f"seed {seed}: first incarnations' ids {first}")
        if restarts == 0:
            continue
        pids = sorted(int(p) for s in said.values() for p in re.findall(r"^pid=(\d+) ", s, re.M))
        want = [1000, 1001] + list(range(1003, 1003 + restarts))
        if pids != want:
            fail(f"seed {seed}: {restarts} restarts, pids {pids}, want {want}:\n{said}")
        again, _ = pids_of(sw, d, seed)
        if again != said:
            fail(f"seed {seed} printed other pids when run again:\n{said}\nthen\n{again}")
        print(f"seed {seed}: {restarts} restart(s), pids {pids}, the same when run again")
        return
    fail("no seed in 1-12 restarted a server")


if __name__ == "__main__":
    main()
