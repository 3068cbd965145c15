#!/usr/bin/env bash
# Files and the WAL example: what the file API and a durable service cost
# simulated, as Markdown rows (bench/README.md, "Disk").
#
#   bench/disk.sh [--quick] [--level3] [--record] [BUILD_DIR]   (BUILD_DIR: ./build)
#
#   1. file I/O throughput, native against a simulation build of
#      bench/disk/file_io.c: a write+fsync loop (COUNT x 4 KiB, each write
#      followed by fsync: fsyncs per second) and a read loop (64 MiB written
#      once, read back 8 times in 64 KiB preads: MiB per second); the median
#      wall time of 3 runs each, and the ratio simulated / native
#   2. seeds per hour of the WAL example (examples/wal, 2 nodes) at level 2:
#      SEEDS seeds of wal.scenario, 2 at a time, each in a fresh working
#      directory (testsuite/examples/in_fresh_dir.py); every seed must pass
#   3. with --level3 (once the simulated disk is in the tree): the same at
#      level 3, through simrun --level 3 -j 2 (each node's working directory
#      is then the disk's, fresh per seed)
#
# --record appends the rows, dated, to bench/README.md's Disk table.
# Every run is checked (sizes, checksums, result lines), so a broken build
# fails instead of timing fast.  Not part of CTest.
set -euo pipefail

QUICK=0 LEVEL3=0 RECORD=0
BUILD=./build
for arg in "$@"; do
  case "$arg" in
    --quick) QUICK=1 ;;
    --level3) LEVEL3=1 ;;
    --record) RECORD=1 ;;
    -h | --help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "disk.sh: unknown option $arg" >&2; exit 2 ;;
    *) BUILD=$arg ;;
  esac
done
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD=$(cd "$BUILD" && pwd) || { echo "disk.sh: no build directory $BUILD" >&2; exit 2; }
CLANG=${CLANG:-clang-19}
die() { echo "disk.sh: $*" >&2; exit 1; }
note() { echo "disk.sh: $*" >&2; }
[[ -x $BUILD/bin/detsim-cc && -x $BUILD/bin/simworld ]] || die "build detsim first (cmake --build $BUILD)"
WAL=$BUILD/testsuite/examples/wal.scenario
[[ -f $WAL ]] || die "no $WAL: build the tests' examples first"

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.9f\", $* }"; }
median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }

note "building"
"$CLANG" -O2 -Wall -Wextra -o "$W/file_io_native" "$HERE/disk/file_io.c"
"$BUILD/bin/detsim-cc" -O2 -o "$W/file_io_sim" "$HERE/disk/file_io.c" 2>/dev/null

COUNT=1000 MIB=64 SEEDS=40
(( QUICK )) && COUNT=200 MIB=16 SEEDS=10

# One timed run in $W (the program makes its own directory there); checks
# its stdout against the expected line and, simulated, the pass line.
timed() {
  local want=$1 sim=$2; shift 2
  local t0 t1 out
  t0=$(now)
  out=$(cd "$W" && DETSIM_SEED=1 "$@" 2>"$W/err") || die "$* failed: $(cat "$W/err")"
  t1=$(now)
  [[ $out == "$want" ]] || die "$*: printed '$out', want '$want'"
  if (( sim )); then grep -q '^detsim: pass seed=1 ' "$W/err" || die "$*: no pass line: $(cat "$W/err")"; fi
  calc "$t1 - $t0"
}

WANT_W="write+fsync: $COUNT x 4096 bytes, size $((COUNT * 4096))"
sum=$((MIB * 256 * 8 * 7))  # every 4096th byte of the pattern is 7, 8 passes
# (byte j of the pattern is j*31+7 mod 256; j a multiple of 4096 gives 7)
WANT_R="read: $((MIB * 1048576 * 8)) bytes, sum $sum"
declare -a nw sw nr sr
for i in 1 2 3; do
  note "file I/O run $i of 3"
  nw+=("$(timed "$WANT_W" 0 "$W/file_io_native" write $COUNT 4096)")
  sw+=("$(timed "$WANT_W" 1 "$W/file_io_sim" write $COUNT 4096)")
  nr+=("$(timed "$WANT_R" 0 "$W/file_io_native" read $MIB)")
  sr+=("$(timed "$WANT_R" 1 "$W/file_io_sim" read $MIB)")
done
NW=$(median3 "${nw[@]}") SW=$(median3 "${sw[@]}") NR=$(median3 "${nr[@]}") SR=$(median3 "${sr[@]}")

# Seeds of the WAL world: N at a time, each must pass.
wal_seeds() {
  local level=$1 n=$2 t0 t1 failed=0
  t0=$(now)
  seq 1 "$n" | xargs -P 2 -I{} sh -c \
    'DETSIM_SEED={} DETSIM_OPTIONS=level='"$level"' python3 "$0" "$1" "$2" 2>&1 | grep -q "^detsim: pass seed={} " || echo "seed {} failed"' \
    "$ROOT/testsuite/examples/in_fresh_dir.py" "$BUILD/bin/simworld" "$WAL" >"$W/seeds" || true
  t1=$(now)
  [[ -s $W/seeds ]] && die "WAL world at level $level: $(head -3 "$W/seeds")"
  calc "$t1 - $t0"
}
note "WAL world, $SEEDS seeds at level 2"
WL2=$(wal_seeds 2 $SEEDS)

rows=()
rows+=("| write+fsync loop, $COUNT x 4 KiB: fsyncs per second, native / simulated | $(calc "$COUNT / $NW" | xargs printf '%.0f') / $(calc "$COUNT / $SW" | xargs printf '%.0f') | $(calc "$SW / $NW" | xargs printf '%.2f')x |")
rows+=("| read loop, $MIB MiB x 8 passes: MiB per second, native / simulated | $(calc "$MIB * 8 / $NR" | xargs printf '%.0f') / $(calc "$MIB * 8 / $SR" | xargs printf '%.0f') | $(calc "$SR / $NR" | xargs printf '%.2f')x |")
rows+=("| WAL example (2 nodes) at level 2, $SEEDS seeds, 2 at a time: seeds per hour | $(calc "$SEEDS * 3600 / $WL2" | xargs printf '%.0f') | |")
if (( LEVEL3 )); then
  note "WAL world, $SEEDS seeds at level 3"
  t0=$(now)
  "$BUILD/bin/simrun" --level 3 --seeds "$SEEDS" -j 2 -q "$WAL" >"$W/l3" 2>&1 || die "level 3 sweep failed: $(tail -5 "$W/l3")"
  t1=$(now)
  rows+=("| WAL example at level 3, simrun --level 3 --seeds $SEEDS -j 2: seeds per hour | $(calc "$SEEDS * 3600 / ($t1 - $t0)" | xargs printf '%.0f') | |")
fi

HEAD="$(date -u '+%Y-%m-%d %H:%M UTC'), $(git -C "$ROOT" rev-parse --short HEAD), load $(cut -d' ' -f1 /proc/loadavg)$( ((QUICK)) && echo ', --quick' || true)"
echo "Disk, $HEAD:"
echo
echo "| measure | value | simulated / native time |"
echo "|---|---:|---:|"
printf '%s\n' "${rows[@]}"
if (( RECORD )); then
  {
    echo
    echo "$HEAD:"
    echo
    echo "| measure | value | simulated / native time |"
    echo "|---|---:|---:|"
    printf '%s\n' "${rows[@]}"
  } >>"$HERE/README.md"
  note "rows appended to bench/README.md"
fi
