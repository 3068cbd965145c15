#!/usr/bin/env bash
# Worlds of several nodes: what a simulated cluster costs, as a Markdown table.
#
#   bench/world.sh [--quick] [BUILD_DIR]      (BUILD_DIR defaults to ./build)
#
#   1. time compression: a 3-node cluster, every node sending a 100 ms
#      heartbeat over TCP to each other, for 600 virtual seconds (60 with
#      --quick), with nodes of both shapes (a thread per connection, one
#      thread in an event loop); simulated time / wall time of the whole
#      world, events per virtual second, (from the world's trace of a 60 s
#      run) node hand-overs per heartbeat sent, the kernel's voluntary
#      context switches per hand-over; and the ceiling the machine sets:
#      the compression if every hand-over cost one bare futex hand-off
#      around three processes (measured here) and nothing else
#   2. throughput: 256 MiB through one TCP connection over loopback, native
#      against a simulation build (bytes per wall-second)
#   3. sweep throughput: seeds per hour (and per core) of the kv example's
#      cluster (4 nodes) at level 2, simrun -j on every core
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
    -h | --help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
"$CLANG" -O2 -Wall -Wextra -o "$W/timeit" "$HERE/timeit.c"
"$CLANG" -O2 -pthread -o "$W/futex_pingpong" "$HERE/futex_pingpong.c"
"$CLANG" -O2 -pthread -o "$W/tcp_stream_native" "$HERE/world/tcp_stream.c"
"$BUILD/bin/detsim-cc" -O2 -o "$W/tcp_stream" "$HERE/world/tcp_stream.c" 2>/dev/null
"$BUILD/bin/detsim-cc" -O2 -o "$W/heartbeat" "$HERE/world/heartbeat.c" 2>/dev/null

# 1. time compression of an idle-ish cluster, for both shapes of node: a
# thread per connection (threads) and one thread in an event loop (epoll)
DUR=600
(( QUICK )) && DUR=60
PROF_S=60
declare -A SIM WALL EVENTS VCSW HANDOVERS SENDS
for shape in threads epoll; do
  printf 'client hb x3: heartbeat %s 100 %s 7000 {name} {hb}\n' "$shape" "$DUR" > "$W/hb.scenario"
  note "heartbeat cluster ($shape): $DUR virtual s"
  rm -rf "$W/hblogs"
  DETSIM_SEED=1 "$W/timeit" -o "$W/hb.time" -- "$BUILD/bin/simworld" --logs "$W/hblogs" "$W/hb.scenario" 2> "$W/hb.err" \
    || { cat "$W/hb.err" >&2; die "the heartbeat world ($shape) failed"; }
  line=$(grep '^detsim: pass seed=1 ' "$W/hb.err") || die "no pass line: $(tail -3 "$W/hb.err")"
  SIM[$shape]=$(sed -E 's/.* sim_time=([0-9.]+)s.*/\1/' <<< "$line")
  EVENTS[$shape]=$(sed -E 's/.* events=([0-9]+) .*/\1/' <<< "$line")
  want=$(( DUR * 10 * 2 ))
  for n in 1 2 3; do
    got=$(sed -E 's/.* sent=([0-9]+) .*/\1/' "$W/hblogs/hb$n.out")
    (( got >= want - 4 && got <= want + 4 )) || die "hb$n ($shape) sent $got heartbeats, want about $want"
  done
  t=$(cat "$W/hb.time")
  [[ $t =~ wall_ns=([0-9]+).*vcsw=([0-9]+) ]] || die "bad timeit line: $t"
  WALL[$shape]=$(calc "${BASH_REMATCH[1]} / 1e9")
  VCSW[$shape]=${BASH_REMATCH[2]}

  # Where the events go: the world's trace of a 60 s run (trace_always),
  # counted by kind.
  note "heartbeat cluster ($shape): event profile of $PROF_S virtual s"
  sed "s/ 100 $DUR / 100 $PROF_S /" "$W/hb.scenario" > "$W/prof.scenario"
  rm -f "$W/prof.trace"
  DETSIM_OPTIONS=trace_always=1:trace_events=1048576:trace="$W/prof.trace" DETSIM_SEED=1 \
    "$BUILD/bin/simworld" "$W/prof.scenario" 2> "$W/prof.err" || { cat "$W/prof.err" >&2; die "the profile run failed"; }
  [[ -f $W/prof.trace ]] || die "the profile run left no trace: $(tail -2 "$W/prof.err")"
  count() { awk -v k="$1" '$4 == k { n++ } END { print n + 0 }' "$W/prof.trace"; }
  HANDOVERS[$shape]=$(count node_switch)
  SENDS[$shape]=$(count net_send)
  (( SENDS[$shape] > 0 )) || die "no net_send in the profile's traces"
done

# 1c. the limit: a bare futex hand-off around a ring of three processes
# (as many as the world's nodes) pinned to one CPU, what each node
# hand-over costs at the least
PP_N=100000
(( QUICK )) && PP_N=20000
note "process hand-off: $(( 3 * PP_N )) futex hand-offs around three processes"
"$W/timeit" -o "$W/pp.time" -- "$W/futex_pingpong" $PP_N procs 3 > "$W/pp.out" || die "futex_pingpong procs failed"
grep -q "^handoffs=$(( 3 * PP_N ))$" "$W/pp.out" || die "futex_pingpong: $(cat "$W/pp.out")"
"$W/timeit" -o "$W/pp0.time" -- "$W/futex_pingpong" 0 procs 3 > /dev/null || die "futex_pingpong procs 0 failed"
wall_of() { [[ $(cat "$1") =~ wall_ns=([0-9]+) ]] && echo "${BASH_REMATCH[1]}"; }
handoff_ns=$(calc "($(wall_of "$W/pp.time") - $(wall_of "$W/pp0.time")) / (3 * $PP_N)")

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
for shape in threads epoll; do
  sim=${SIM[$shape]} wall=${WALL[$shape]}
  per_s=$(calc "${HANDOVERS[$shape]} / $PROF_S")
  printf '| heartbeat cluster (3 nodes, 100 ms, TCP, %s): virtual time | %.0f s (%s events) |\n' "$shape" "$sim" "${EVENTS[$shape]}"
  printf '| heartbeat cluster (%s): wall time | %.2f s |\n' "$shape" "$wall"
  printf '| **time compression, %s** (virtual / wall) | **%.0fx** |\n' "$shape" "$(calc "$sim / $wall")"
  printf '| heartbeat cluster (%s): events per virtual second | %.0f |\n' "$shape" "$(calc "${EVENTS[$shape]} / $sim")"
  printf '| heartbeat cluster (%s), %d s profile: node hand-overs per heartbeat sent | %.2f (%d / %d) |\n' \
    "$shape" "$PROF_S" "$(calc "${HANDOVERS[$shape]} / ${SENDS[$shape]}")" "${HANDOVERS[$shape]}" "${SENDS[$shape]}"
  printf '| heartbeat cluster (%s): voluntary context switches per node hand-over | %.2f |\n' \
    "$shape" "$(calc "${VCSW[$shape]} / ($per_s * $sim)")"
  printf '| heartbeat cluster (%s): wall time per node hand-over | %.1f µs |\n' "$shape" "$(calc "$wall * 1e6 / ($per_s * $sim)")"
  printf '| ceiling for %s: compression if each hand-over cost one bare process hand-off and nothing else | %.0fx |\n' \
    "$shape" "$(calc "1e9 / ($per_s * $handoff_ns)")"
done
printf '| bare futex hand-off around three processes pinned to one CPU | %.2f µs |\n' "$(calc "$handoff_ns / 1000")"
printf '| one TCP connection, native loopback | %.0f MiB/s |\n' "$(calc "$MIB / $native")"
printf '| one TCP connection, simulated | %.0f MiB/s |\n' "$(calc "$MIB / $simt")"
printf '| **simulated / native bytes per second** | **%.2f** |\n' "$(calc "$native / $simt")"
printf '| kv cluster (4 nodes) at level 2, simrun -j %s | %d seeds in %.1f s |\n' "$(nproc)" "$SEEDS" "$sweep"
printf '| **seeds per hour** | **%.0f** |\n' "$(calc "$SEEDS * 3600 / $sweep")"
printf '| **seeds per hour per core** | **%.0f** |\n' "$(calc "$SEEDS * 3600 / $sweep / $(nproc)")"
