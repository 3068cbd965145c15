#!/bin/sh
# Executions to first failure on planted bugs of increasing depth, for the
# seeded random walk, PCT and simfuzz (coverage-guided choices), in programs
# and in worlds (scenarios of several nodes).
#
#   bench/explore.sh [--quick] [BUILD_DIR [--budget N] [--trials N] [--only NAME] [--ablation]]
#
# Builds the programs with BUILD_DIR/bin/detsim-cc --fuzz (one build serves
# all three: the coverage counters cost the seeded runs nothing but a few
# increments), then runs bench/explore/explore.py, which prints a Markdown
# table on stdout (progress on stderr).  See bench/README.md, "Exploration".
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# Options after BUILD_DIR go to explore.py: --budget N, --trials N, --only NAME,
# --ablation (simfuzz without and with --schedule-features).
quick=
if [ "${1:-}" = "--quick" ]; then quick=--quick; shift; fi
build=$(cd "${1:-$here/../build}" && pwd)
[ $# -gt 0 ] && shift
cc="$build/bin/detsim-cc"
[ -x "$cc" ] && [ -x "$build/bin/simfuzz" ] || { echo "explore.sh: build first ($build/bin/detsim-cc, simfuzz)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/detsim-explore.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
src="$here/.."
for d in 1 2 3; do
  "$cc" --fuzz -O1 -g -DDEPTH=$d -DNOISE=4 -o "$work/ordering_d$d" "$src/testsuite/fuzz/ordering.c"
done
"$cc" --fuzz -O1 -g -o "$work/lost_update" "$src/testsuite/runtime/lost_update.c"
"$cc" --fuzz -O1 -g -o "$work/canary" "$src/testsuite/tools/canary.c"
"$cc" --fuzz -O1 -g -o "$work/bank" "$src/examples/bank/bank.c"
# Between a parent and its forked child (a run's own world of processes).
for d in 1 2; do
  "$cc" --fuzz -O1 -g -D_GNU_SOURCE -DDEPTH=$d -o "$work/fork_ordering_d$d" "$src/testsuite/fuzz/fork_ordering.c"
done
# Worlds: the cross-node ordering bug at depths 1, 2, 4, 6 (links without latency:
# which byte comes first is scheduling alone), the kv example's stale read
# and the WAL example's ack before fsync at level 3.
"$cc" --fuzz -O1 -g -o "$work/world_ordering" "$src/testsuite/fuzz/world_ordering.c"
for d in 1 2 4 6; do
  printf 'option net_latency_max_ns=0\nserver srv: world_ordering server 7000 3 %d\nclient c x3: world_ordering client {index} srv 7000 %d\n' \
    $d $((2 * d + 2)) > "$work/world_d$d.scenario"
done
kv="$src/examples/kv"
"$cc" --fuzz -O1 -g -DKV_PLANTED_BUG -o "$work/kv_server_buggy" "$kv/kv_server.c" "$kv/kv_net.c"
"$cc" --fuzz -O1 -g -o "$work/kv_client" "$kv/kv_client.c" "$kv/kv_net.c"
cp "$kv/kv-buggy.scenario" "$work/"
wal="$src/examples/wal"
"$cc" --fuzz -O1 -g -DWAL_BUG_ACK_BEFORE_FSYNC -o "$work/wal_server_ack_early" "$wal/wal_server.c" "$wal/wal_log.c" \
  "$wal/wal_snap.c" "$wal/wal_record.c" "$wal/wal_state.c" "$wal/wal_crc32.c" "$wal/wal_net.c"
"$cc" --fuzz -O1 -g -o "$work/wal_client" "$wal/wal_client.c" "$wal/wal_net.c"
{ echo "level 3"; cat "$wal/wal-ack-early.scenario"; } > "$work/wal-ack-early.scenario"
python3 "$here/explore/explore.py" $quick --simfuzz "$build/bin/simfuzz" --progs "$work" --work "$work" "$@"
