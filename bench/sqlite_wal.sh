#!/usr/bin/env bash
# sqlite_wal.sh: SQLite in WAL mode on the simulated disk (bench/README.md,
# "An embedded database in WAL mode").
#
#   bench/sqlite_wal.sh [--quick] [--seeds N] [BUILD_DIR]   (BUILD_DIR: ./build)
#
# SQLITE_SRC=DIR names a directory holding sqlite3.c and sqlite3.h (an
# amalgamation); without it the script fetches one from the npm registry
# (`npm pack better-sqlite3@$BETTER_SQLITE3`, its deps/sqlite3/) into its
# scratch directory, and fails if it cannot: nothing of SQLite is in the
# tree.  Then it builds bench/sqlite/sqlite_wal.c with the amalgamation
# natively (clang-19) and as a simulation build (detsim-cc), and:
#
#   1. same bytes: `sqlite_wal run` (3 threads, and 2 processes x 2 threads,
#      each thread committing TXNS transactions with passive checkpoints)
#      natively and for seeds 1-5 on a data directory must print the same
#      line: row count, a hash of a full ordered SELECT, integrity_check,
#      and a hash of the bytes of VACUUM INTO's copy; with the wall times;
#   2. replay: the same seed in 3 separate processes gives one result line
#      (history hash), one-program and as a world at level 3;
#   3. level 3 sweeps of `sqlite_wal node` (3 threads; the node checks
#      integrity_check, whole transactions and every acknowledged commit
#      after each restart) through simrun -j 2: crashes only (ext4 and
#      posix models), every in-envelope fault (level 2's and eio, enospc,
#      edquot, slow), crashes on a full disk (disk_capacity=150000, a tenth
#      of the seeds), and all faults (corrupt and misdirected too, whose
#      failures are excused).  All but the last must pass on every seed,
#      the last may fail only excused.
#
# Prints Markdown rows on stdout (progress on stderr).  Not part of CTest.
set -euo pipefail

QUICK=0 SEEDS=
BUILD=./build
while (($#)); do
  case "$1" in
    --quick) QUICK=1 ;;
    --seeds) SEEDS=$2; shift ;;
    -h | --help) sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "sqlite_wal.sh: unknown option $1" >&2; exit 2 ;;
    *) BUILD=$1 ;;
  esac
  shift
done
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD=$(cd "$BUILD" && pwd) || { echo "sqlite_wal.sh: no build directory $BUILD" >&2; exit 2; }
CLANG=${CLANG:-clang-19}
BETTER_SQLITE3=${BETTER_SQLITE3:-12.11.1}
die() { echo "sqlite_wal.sh: $*" >&2; exit 1; }
note() { echo "sqlite_wal.sh: $*" >&2; }
[[ -x $BUILD/bin/detsim-cc && -x $BUILD/bin/simworld && -x $BUILD/bin/simrun ]] || die "build detsim first (cmake --build $BUILD)"
TXNS=60
[[ -n $SEEDS ]] || { SEEDS=1000; ((QUICK)) && SEEDS=100; }

W=$(mktemp -d /tmp/detsim-sqlite.XXXXXX)
trap 'rm -rf "$W"' EXIT
now() { date +%s.%N; }

# ---- the amalgamation ----
SRC=${SQLITE_SRC:-}
if [[ -z $SRC ]]; then
  note "fetching better-sqlite3@$BETTER_SQLITE3 from the npm registry"
  (cd "$W" && npm pack --silent "better-sqlite3@$BETTER_SQLITE3" >npm.log 2>&1) ||
    die "npm pack better-sqlite3@$BETTER_SQLITE3 failed (no registry?): $(tail -3 "$W/npm.log")"
  tar -xzf "$W"/better-sqlite3-*.tgz -C "$W" package/deps/sqlite3
  SRC=$W/package/deps/sqlite3
fi
[[ -f $SRC/sqlite3.c && -f $SRC/sqlite3.h ]] || die "no sqlite3.c and sqlite3.h in $SRC"
VERSION=$(sed -n 's/^#define SQLITE_VERSION *"\(.*\)"/\1/p' "$SRC/sqlite3.h")

# ---- builds ----
DEFS=(-DSQLITE_THREADSAFE=1 -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_DEFAULT_MEMSTATUS=0)
INC=(-I"$SRC" -I"$ROOT/runtime/include")
note "building SQLite $VERSION natively and as a simulation build"
"$CLANG" -O1 "${DEFS[@]}" -c "$SRC/sqlite3.c" -o "$W/sqlite3_native.o" &
"$BUILD/bin/detsim-cc" -O1 "${DEFS[@]}" -c "$SRC/sqlite3.c" -o "$W/sqlite3_sim.o" 2>"$W/cc_sim.log"
wait $! || die "the native build of sqlite3.c failed"
"$CLANG" -O1 -Wall -Wextra -Werror "${INC[@]}" -o "$W/native" "$HERE/sqlite/sqlite_wal.c" "$W/sqlite3_native.o" -lpthread -lm
"$BUILD/bin/detsim-cc" -O1 -Wall -Wextra -Werror "${INC[@]}" -o "$W/sqlite_wal" "$HERE/sqlite/sqlite_wal.c" "$W/sqlite3_sim.o"
"$BUILD/bin/detsim-cc" -O1 -o "$W/idle_client" "$ROOT/testsuite/world/idle_client.c"
if grep -q "not simulated" "$W/cc_sim.log"; then note "detsim-cc warnings on sqlite3.c:"; grep "not simulated" "$W/cc_sim.log" >&2; fi

echo "SQLite $VERSION (better-sqlite3 $BETTER_SQLITE3 from npm), $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| check | native | simulated | result |"
echo "|---|---|---|---|"

# ---- 1. the same database, natively and simulated ----
same_bytes() { # LABEL ARGS...
  local label=$1; shift
  mkdir -p "$W/nat" "$W/sim"
  local t0 t1 t2 nat sim seed
  t0=$(now)
  nat=$(cd "$W" && ./native run "$W/nat" "$@" 2>"$W/nat.err") || die "$label: native run failed: $(cat "$W/nat.err")"
  t1=$(now)
  for seed in 1 2 3 4 5; do
    sim=$(cd "$W" && DETSIM_SEED=$seed DETSIM_OPTIONS=data_dir=$W/sim ./sqlite_wal run "$W/sim" "$@" 2>"$W/sim.err") ||
      die "$label seed $seed: simulated run failed: $(tail -5 "$W/sim.err")"
    grep -q "^detsim: pass seed=$seed " "$W/sim.err" || die "$label seed $seed: no pass line: $(tail -3 "$W/sim.err")"
    [[ $sim == "$nat" ]] || die "$label seed $seed: simulated '$sim', native '$nat'"
  done
  t2=$(now)
  awk -v l="$label" -v n="$nat" -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
    printf "| %s: `%s` | %.2f s | %.2f s a seed | same for seeds 1-5 |\n", l, n, b - a, (c - b) / 5 }'
}
note "same bytes natively and simulated"
same_bytes "3 threads x $TXNS transactions" 3 "$TXNS"
same_bytes "2 processes x 2 threads x $TXNS transactions" 2 "$TXNS" 2

# ---- 2. replay ----
replay() { # LABEL DIR CMD...
  local label=$1 dir=$2; shift 2
  local lines=()
  for run in 1 2 3; do
    (cd "$dir" && "$@" >/dev/null 2>"$W/replay.err") || true
    lines+=("$(grep -E '^detsim: [a-z]+ seed=' "$W/replay.err" | tail -1 | grep -o 'seed=[0-9]* events=[0-9]* history=[0-9a-f]*')")
  done
  [[ -n ${lines[0]} && ${lines[0]} == "${lines[1]}" && ${lines[1]} == "${lines[2]}" ]] ||
    die "$label: the runs differ: ${lines[*]}"
  echo "| replay, $label | | \`${lines[0]}\` | 3 separate runs, one history |"
}
note "replay"
replay "one program, 2 processes" "$W" env DETSIM_SEED=3 DETSIM_OPTIONS=data_dir=$W/sim ./sqlite_wal run "$W/sim" 2 "$TXNS" 2

scenario() { # NAME OPTION-LINES...
  local f=$W/$1.scenario; shift
  { echo "level 3"; printf '%s\n' "$@"; echo "option fault_horizon_ms=400"
    echo "server db: sqlite_wal node 3 $TXNS"; echo "data db disk"; echo "client cli: idle_client 5"; } >"$f"
}
scenario crash "option faults=crash"
scenario posix "option faults=crash" "option disk_model=posix"
scenario envelope "option faults=partition,pause,crash,reset,skew,clog,sigterm,udp,short,step,eio,enospc,edquot,slow"
scenario full "option faults=crash" "option disk_capacity=150000"
scenario all
# A seed with a power loss.
PL=
for s in $(seq 1 40); do
  (cd "$W" && DETSIM_SEED=$s "$BUILD/bin/simworld" crash.scenario >"$W/pl.out" 2>&1) || true
  if grep -q 'power_loss=1' "$W/pl.out"; then PL=$s; break; fi
done
[[ -n $PL ]] || die "no seed of 1-40 of the crash sweep lost power"
replay "a world at level 3 with a power loss (seed $PL)" "$W" env DETSIM_SEED=$PL "$BUILD/bin/simworld" crash.scenario

# ---- 3. level-3 sweeps ----
echo
echo "| level-3 sweep ($SEEDS seeds, simrun -j 2) | classes | power losses | integrity_check after a restart | faults met | wall | seeds per hour |"
echo "|---|---|---|---|---|---|---|"
sweep() { # NAME LABEL MUST [SEEDS]
  local name=$1 label=$2 must=$3 n=${4:-$SEEDS} out=$W/$1.report
  (cd "$W" && "$BUILD/bin/simrun" --seeds "$n" -j 2 --keep 1 "$name.scenario" >"$out" 2>&1) || true
  local classes power integ wall faults
  classes=$(sed -n 's/^  classes: *//p' "$out")
  power=$(awk '$1 == "power_loss" { print $2 " in " $5 " seeds"; exit }' "$out")
  integ=$(awk '$1 == "integrity_check_passes_after_a_restart" { print $2 " checks in " $5 " seeds"; exit }' "$out")
  wall=$(sed -n 's/^  wall time: *\([0-9.]*\) s.*/\1/p' "$out")
  faults=$(awk '/^  faults exercised:/ { on = 1; next } /^  [a-z]/ { on = 0 } on && ($1 == "eio" || $1 == "enospc" || $1 == "edquot" || $1 == "slow" || $1 == "corrupt" || $1 == "misdirected") { printf "%s%s %s", sep, $1, $2; sep = ", " }' "$out")
  case $must in
    pass) grep -q "^  result: *PASSED" "$out" || die "$label: not every seed passed: $(sed -n '/^FAILURES/,/^$/p' "$out" | head -8)" ;;
    excused) [[ $(echo "$classes" | tr ' ' '\n' | grep -vE '^(pass|excused|[0-9]+)$' | wc -l) == 0 ]] ||
      die "$label: a failure other than excused: $classes" ;;
  esac
  awk -v l="$label" -v c="$classes" -v p="${power:-none}" -v i="${integ:-none}" -v f="${faults:-none}" -v w="$wall" -v n="$n" \
    'BEGIN { printf "| %s | %s | %s | %s | %s | %.0f s | %.0f |\n", l, c, p, i, f, w, n * 3600 / w }'
}
note "level-3 sweeps, $SEEDS seeds each"
sweep crash "crashes only (ext4)" pass
sweep posix "crashes only (posix model)" pass
sweep envelope "every fault in the envelope" pass
# A full disk: the workload fills 150 kB and retries (SQLITE_FULL) while
# crashes hit it; a tenth of the seeds (each spins on its retries).
sweep full "crashes on a full disk (disk_capacity=150000; $((SEEDS / 10)) seeds)" pass $((SEEDS / 10))
sweep all "all faults (corrupt, misdirected too)" excused
