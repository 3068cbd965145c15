#!/usr/bin/env bash
# Worlds of several nodes: what a simulated cluster costs, as a Markdown table.
#
#   bench/world.sh [--quick] [BUILD_DIR]      (BUILD_DIR defaults to ./build)
#
#   1. time compression: a 3-node cluster, every node sending a 100 ms
#      heartbeat over TCP to each other, for 600 virtual seconds (60 with
#      --quick); simulated time / wall time of the whole world, events per
#      virtual second, and (from the world's trace of a 60 s run) node
#      hand-overs per heartbeat sent
#   2. throughput: 256 MiB through one TCP connection over loopback, native
#      against a simulation build (bytes per wall-second)
#   3. sweep throughput: seeds per hour of the kv example's cluster (4 nodes)
#      at level 2, simrun -j on every core
#
# Every run is checked (the heartbeats counted, the bytes counted, the
# result lines' classes), so a broken build fails instead of timing fast.
# Results and method: bench/README.md.  Not part of CTest.
set -euo pipefail

QUICK=0
BUILD=./build
for arg in "$@"; do
  case "$arg" in
    --quick) QUICK=1 ;;
    -h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "world.sh: unknown option $arg" >&2; exit 2 ;;
    *) BUILD=$arg ;;
  esac
done
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=$(cd "$BUILD" && pwd) || { echo "world.sh: no build directory $BUILD" >&2; exit 2; }
CLANG=${CLANG:-clang-19}
die() { echo "world.sh: $*" >&2; exit 1; }
note() { echo "world.sh: $*" >&2; }
[[ -x $BUILD/bin/detsim-cc && -x $BUILD/bin/simworld ]] || die "build detsim first (cmake --build $BUILD)"
KV=$BUILD/testsuite/examples/kv.scenario
[[ -f $KV ]] || die "no $KV: build the tests' examples first"

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.9f\", $* }"; }

note "building"
"$CLANG" -O2 -pthread -o "$W/tcp_stream_native" "$HERE/world/tcp_stream.c"
"$BUILD/bin/detsim-cc" -O2 -o "$W/tcp_stream" "$HERE/world/tcp_stream.c" 2>/dev/null
"$BUILD/bin/detsim-cc" -O2 -o "$W/heartbeat" "$HERE/world/heartbeat.c" 2>/dev/null

# 1. time compression of an idle-ish cluster
DUR=600
(( QUICK )) && DUR=60
cat > "$W/hb.scenario" <<SCEN
client hb x3: heartbeat 100 $DUR 7000 {name} {hb}
SCEN
note "heartbeat cluster: $DUR virtual s"
t0=$(now)
DETSIM_SEED=1 "$BUILD/bin/simworld" --logs "$W/hblogs" "$W/hb.scenario" 2> "$W/hb.err" || { cat "$W/hb.err" >&2; die "the heartbeat world failed"; }
t1=$(now)
line=$(grep '^detsim: pass seed=1 ' "$W/hb.err") || die "no pass line: $(tail -3 "$W/hb.err")"
sim=$(sed -E 's/.* sim_time=([0-9.]+)s.*/\1/' <<< "$line")
events=$(sed -E 's/.* events=([0-9]+) .*/\1/' <<< "$line")
want=$(( DUR * 10 * 2 ))
for n in 1 2 3; do
  got=$(sed -E 's/.* sent=([0-9]+) .*/\1/' "$W/hblogs/hb$n.out")
  (( got >= want - 4 && got <= want + 4 )) || die "hb$n sent $got heartbeats, want about $want"
done
wall=$(calc "$t1 - $t0")
comp=$(calc "$sim / $wall")

# 1b. where the events go: the world's trace of a 60 s run (trace_always),
# counted by kind
PROF_S=60
note "heartbeat cluster: event profile of $PROF_S virtual s"
sed "s/ 100 $DUR / 100 $PROF_S /" "$W/hb.scenario" > "$W/prof.scenario"
DETSIM_OPTIONS=trace_always=1:trace_events=1048576:trace="$W/prof.trace" DETSIM_SEED=1 \
  "$BUILD/bin/simworld" "$W/prof.scenario" 2> "$W/prof.err" || { cat "$W/prof.err" >&2; die "the profile run failed"; }
[[ -f $W/prof.trace ]] || die "the profile run left no trace: $(tail -2 "$W/prof.err")"
count() { awk -v k="$1" '$4 == k { n++ } END { print n + 0 }' "$W/prof.trace"; }
handovers=$(count node_switch)
sends=$(count net_send)
(( sends > 0 )) || die "no net_send in the profile's traces"

# 2. one TCP connection
MIB=256
note "tcp stream: $MIB MiB"
t0=$(now); "$W/tcp_stream_native" $MIB | grep -q "bytes=$(( MIB * 1048576 ))" || die "native stream"; t1=$(now)
native=$(calc "$t1 - $t0")
t0=$(now); DETSIM_SEED=1 "$W/tcp_stream" $MIB 2> "$W/ts.err" | grep -q "bytes=$(( MIB * 1048576 ))" || die "simulated stream: $(tail -2 "$W/ts.err")"; t1=$(now)
simt=$(calc "$t1 - $t0")

# 3. seeds per hour at level 2
SEEDS=40
(( QUICK )) && SEEDS=10
note "kv cluster at level 2: $SEEDS seeds"
t0=$(now)
( cd "$(dirname "$KV")" && "$BUILD/bin/simrun" --seeds $SEEDS --level 2 -q kv.scenario > "$W/sweep.out" 2>&1 ) || die "the kv sweep failed: $(tail -5 "$W/sweep.out")"
t1=$(now)
sweep=$(calc "$t1 - $t0")

printf '| measurement | value |\n|---|---|\n'
printf '| heartbeat cluster (3 nodes, 100 ms, TCP): virtual time | %.0f s (%s events) |\n' "$sim" "$events"
printf '| heartbeat cluster: wall time | %.2f s |\n' "$wall"
printf '| **time compression** (virtual / wall) | **%.0fx** |\n' "$comp"
printf '| heartbeat cluster: events per virtual second | %.0f |\n' "$(calc "$events / $sim")"
printf '| heartbeat cluster, %d s profile: node hand-overs per heartbeat sent | %.2f (%d / %d) |\n' "$PROF_S" "$(calc "$handovers / $sends")" "$handovers" "$sends"
printf '| one TCP connection, native loopback | %.0f MiB/s |\n' "$(calc "$MIB / $native")"
printf '| one TCP connection, simulated | %.0f MiB/s |\n' "$(calc "$MIB / $simt")"
printf '| **simulated / native bytes per second** | **%.2f** |\n' "$(calc "$native / $simt")"
printf '| kv cluster (4 nodes) at level 2, simrun -j %s | %d seeds in %.1f s |\n' "$(nproc)" "$SEEDS" "$sweep"
printf '| **seeds per hour** | **%.0f** |\n' "$(calc "$SEEDS * 3600 / $sweep")"
