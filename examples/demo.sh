#!/usr/bin/env bash
# The README's demo: a simulation of the example bank service (examples/bank).
#
#  1. build it three ways: a simulation build (detsim-cc), the same with the
#     race fixed, and a release build (plain clang: no detsim in it at all);
#  2. sweep seeds with simrun: the planted race is found, with its seed;
#  3. replay that seed with simreplay: same history, every time;
#  4. sweep the fixed build: every seed passes.
# Exits 0 when all of that happened as it should.
# Needs detsim installed: DETSIM_PREFIX, or detsim-cc/simrun/simreplay on PATH.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -n "${DETSIM_PREFIX:-}" ]; then export PATH="$DETSIM_PREFIX/bin:$PATH"; fi
for tool in detsim-cc simrun simreplay simworld; do
  command -v "$tool" >/dev/null || { echo "demo: $tool not found (set DETSIM_PREFIX)" >&2; exit 2; }
done
work=${DEMO_DIR:-$(mktemp -d /tmp/detsim-demo.XXXXXX)}
mkdir -p "$work"
cd "$work"
seeds=${DEMO_SEEDS:-40}

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "1. build the bank service: simulation, fixed, and release builds"
echo "\$ detsim-cc -O1 -g -o bank $here/bank/bank.c"
detsim-cc -O1 -g -o bank "$here/bank/bank.c"
detsim-cc -O1 -g -DBANK_FIXED -o bank-fixed "$here/bank/bank.c"
clang=${DETSIM_CLANG:-clang-19}
command -v "$clang" >/dev/null || clang=cc
"$clang" -O1 -o bank-release "$here/bank/bank.c" -I"$(dirname "$(command -v detsim-cc)")/../include" -lpthread
echo "\$ ./bank-release      # the release build runs natively and contains no detsim:"
./bank-release
if nm -a bank-release | grep -qi detsim; then echo "demo: the release build contains detsim symbols" >&2; exit 1; fi

step "2. sweep $seeds seeds of the simulation build"
echo "\$ simrun --seeds $seeds --jsonl bank.jsonl -- ./bank"
set +e
simrun --seeds "$seeds" --jsonl bank.jsonl -- ./bank
status=$?
set -e
if [ "$status" -ne 1 ]; then echo "demo: expected simrun to report the planted race (exit 1), got $status" >&2; exit 1; fi
seed=$(python3 -c '
import json, sys
for line in open("bank.jsonl"):
    r = json.loads(line)
    if r["class"] == "correctness":
        print(r["seed"]); break' )
if [ -z "$seed" ]; then echo "demo: no correctness failure in the sweep" >&2; exit 1; fi

step "3. replay seed $seed: the same history in separate processes"
echo "\$ DETSIM_SEED=$seed ./bank"
DETSIM_SEED=$seed ./bank 2>&1 | grep -v -e '^detsim: |' -e '^detsim: last events' || true
echo "\$ simreplay --repeat 5 --seed $seed -- ./bank"
simreplay --repeat 5 --seed "$seed" -- ./bank

step "4. sweep the fixed build"
echo "\$ simrun --seeds $seeds -- ./bank-fixed"
simrun --seeds "$seeds" -- ./bank-fixed

step "5. build the replicated key-value service (3 replicas + a client, one process each)"
for p in kv_server kv_client; do
  echo "\$ detsim-cc -O1 -g -o $p $here/kv/$p.c $here/kv/kv_net.c"
  detsim-cc -O1 -g -o "$p" "$here/kv/$p.c" "$here/kv/kv_net.c"
done
detsim-cc -O1 -g -DKV_PLANTED_BUG -o kv_server_buggy "$here/kv/kv_server.c" "$here/kv/kv_net.c"
cp "$here/kv/kv.scenario" "$here/kv/kv-buggy.scenario" .
echo "\$ cat kv-buggy.scenario"
grep -v '^#' kv-buggy.scenario

kv_seeds=${DEMO_KV_SEEDS:-20}
step "6. sweep $kv_seeds seeds of the cluster with the planted bug (acks before replication), at level 2 (partitions, clogs, pauses, crashes and restarts, SIGTERM stops, resets, skewed and stepped clocks, UDP loss, short reads and writes)"
echo "\$ simrun --level 2 --seeds $kv_seeds --jsonl kv.jsonl kv-buggy.scenario"
set +e
simrun --level 2 --seeds "$kv_seeds" --jsonl kv.jsonl kv-buggy.scenario
status=$?
set -e
if [ "$status" -ne 1 ]; then echo "demo: expected simrun to find the stale read (exit 1), got $status" >&2; exit 1; fi
kv_seed=$(python3 -c '
import json
for line in open("kv.jsonl"):
    r = json.loads(line)
    if r["class"] == "correctness":
        print(r["seed"]); break' )
if [ -z "$kv_seed" ]; then echo "demo: no correctness failure in the cluster sweep" >&2; exit 1; fi

step "7. replay the cluster's seed $kv_seed: four processes, one history"
echo "\$ simreplay --repeat 3 --seed $kv_seed --options level=2 kv-buggy.scenario"
simreplay --repeat 3 --seed "$kv_seed" --options level=2 kv-buggy.scenario

step "8. sweep the correct cluster"
echo "\$ simrun --level 2 --seeds $kv_seeds kv.scenario"
simrun --level 2 --seeds "$kv_seeds" kv.scenario

# Level 3 (the simulated disk): the WAL example's planted "ack before
# fsync" found, replayed, and the correct service passing a level-3 sweep
# of every fault in the envelope.  DEMO_WAL=0 leaves it out.
if [ "${DEMO_WAL:-1}" = 1 ]; then
  wal_seeds=${DEMO_WAL_SEEDS:-200}
  step "9. build the durable WAL service (examples/wal) and its planted bug (ack before fsync)"
  wal_srcs="$here/wal/wal_log.c $here/wal/wal_snap.c $here/wal/wal_record.c $here/wal/wal_state.c $here/wal/wal_crc32.c $here/wal/wal_net.c"
  # shellcheck disable=SC2086
  detsim-cc -O1 -g -o wal_server "$here/wal/wal_server.c" $wal_srcs
  # shellcheck disable=SC2086
  detsim-cc -O1 -g -DWAL_BUG_ACK_BEFORE_FSYNC -o wal_server_ack_early "$here/wal/wal_server.c" $wal_srcs
  detsim-cc -O1 -g -o wal_client "$here/wal/wal_client.c" "$here/wal/wal_net.c"
  cp "$here/wal/wal.scenario" "$here/wal/wal-ack-early.scenario" .
  step "10. sweep $wal_seeds seeds of the buggy service at level 3 (host crashes lose unsynced writes, disk faults)"
  echo "\$ simrun --level 3 --seeds $wal_seeds --jsonl wal.jsonl wal-ack-early.scenario"
  simrun --level 3 --seeds "$wal_seeds" --jsonl wal.jsonl wal-ack-early.scenario || true
  wal_seed=$(python3 -c '
import json
for line in open("wal.jsonl"):
    r = json.loads(line)
    if r.get("class") == "correctness":
        print(r["seed"]); break')
  if [ -z "$wal_seed" ]; then echo "demo: no lost write found in the WAL sweep" >&2; exit 1; fi
  step "11. replay the WAL seed $wal_seed"
  simreplay --repeat 3 --seed "$wal_seed" --options level=3 wal-ack-early.scenario
  step "12. sweep the correct WAL service at level 3 (the faults in the envelope: bit flips and misdirected writes would end seeds excused)"
  in_envelope=partition,pause,crash,reset,skew,clog,sigterm,udp,short,step,eio,enospc,slow
  echo "\$ simrun --level 3 --seeds $wal_seeds --options faults=$in_envelope wal.scenario"
  simrun --level 3 --seeds "$wal_seeds" --options faults=$in_envelope wal.scenario
fi

wal_found=${wal_seed:+, the WAL ack before fsync (seed $wal_seed, level 3)}
step "done: the bank race (seed $seed), the cluster's stale read (seed $kv_seed)$wal_found were found, replay exactly, and the fixed builds pass (files in $work)"
