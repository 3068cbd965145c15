#!/usr/bin/env bash
# detsim's performance benchmarks, all in one run, printed as a Markdown table.
#
#   bench/run.sh [--quick] [BUILD_DIR]      (BUILD_DIR defaults to ./build)
#
# Builds the programs in bench/ itself (native with clang-19, simulation with
# BUILD_DIR/bin/detsim-cc, ThreadSanitizer with clang-19 -fsanitize=thread),
# runs each several times and prints medians.  Every run's output is checked
# (counter totals, hashes, detsim's result line and event count), so a broken
# build fails the script instead of producing a fast number.  The method and a
# recorded run are in bench/README.md.  These are benchmarks, not tests: they
# are not part of CTest.
#
#   1. yield point without a switch: yield_loop, detsim preempt=0 vs native
#   2. switch: switch_pingpong, detsim preempt=1; native futex hand-off
#      (futex_pingpong) pinned to one CPU (the limit) and across two CPUs
#   3. lock_heavy and cpu_bound: native vs detsim vs valgrind --tool=none vs
#      ThreadSanitizer, wall time as a ratio to native
#   4. the tools: a seed sweep with simrun against the same seeds run by hand
#      in a shell loop (supervision overhead), simrun's seeds per second on
#      every core, and simreplay's cost per replay against a plain run
#
# Progress goes to stderr, the results to stdout.
set -euo pipefail

QUICK=0
BUILD=./build
for arg in "$@"; do
  case "$arg" in
    --quick) QUICK=1 ;;
    -h | --help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run.sh: unknown option $arg" >&2; exit 2 ;;
    *) BUILD=$arg ;;
  esac
done

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=$(cd "$BUILD" && pwd) || { echo "run.sh: no build directory $BUILD" >&2; exit 2; }
DETSIM_CC=$BUILD/bin/detsim-cc
CLANG=${CLANG:-clang-19}
SEED=1

die() { echo "run.sh: $*" >&2; exit 1; }
note() { echo "run.sh: $*" >&2; }

[[ -x $DETSIM_CC ]] || die "no $DETSIM_CC: build detsim first (cmake --build $BUILD)"
command -v "$CLANG" >/dev/null || die "no $CLANG"
HAVE_VALGRIND=1
command -v valgrind >/dev/null || { HAVE_VALGRIND=0; note "valgrind not found: its column is left empty"; }

# ---- sizes -------------------------------------------------------------------
# Full: about 2-3 minutes on an idle 2-core machine.  Quick: under 30 s.
if ((QUICK)); then
  YIELD_N=5000000 MICRO_RUNS=3
  SWITCH_N=20000 FUTEX_N=20000 SPLIT_N=500
  LOCK_THREADS=4 LOCK_ITERS=50000
  CPU_THREADS=4 CPU_KIB=1024 CPU_ROUNDS=100 CPU_HASH=388af8f416d4dbad
  APP_RUNS=3 TOOL_RUNS=1 CG_YIELD_N=100000 CG_SWITCH_N=10000
  SWEEP_SEEDS=40 SWEEP_RUNS=1 SMALL_ARGS=(4 200)
else
  YIELD_N=50000000 MICRO_RUNS=5
  SWITCH_N=100000 FUTEX_N=100000 SPLIT_N=2000
  LOCK_THREADS=4 LOCK_ITERS=200000
  CPU_THREADS=4 CPU_KIB=1024 CPU_ROUNDS=500 CPU_HASH=a8ba3c13c8fa1156
  APP_RUNS=5 TOOL_RUNS=3 CG_YIELD_N=200000 CG_SWITCH_N=20000
  SWEEP_SEEDS=200 SWEEP_RUNS=3 SMALL_ARGS=(4 200)
fi

W=$(mktemp -d "${TMPDIR:-/tmp}/detsim-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W" # detsim writes a trace file here if a run fails

load1() { cut -d' ' -f1 /proc/loadavg; }
LOAD_BEFORE=$(load1)
START=$(date +%s)

# ---- build ---------------------------------------------------------------------
note "building in $W"
"$CLANG" -O2 -Wall -Wextra -o timeit "$HERE/timeit.c"
for p in yield_loop switch_pingpong futex_pingpong lock_heavy cpu_bound; do
  "$CLANG" -O2 -Wall -Wextra -pthread -o "$p.native" "$HERE/$p.c"
done
for p in yield_loop switch_pingpong lock_heavy cpu_bound; do
  "$DETSIM_CC" -O2 -Wall -Wextra -pthread -o "$p.detsim" "$HERE/$p.c"
done
for p in lock_heavy cpu_bound; do
  "$CLANG" -O2 -Wall -Wextra -pthread -fsanitize=thread -o "$p.tsan" "$HERE/$p.c"
done

# ---- measuring -----------------------------------------------------------------
# measure KEY RUNS CHECK -- COMMAND...
# Runs COMMAND RUNS times under timeit; after each run calls CHECK, which
# reads the run's out.txt, err.txt and status.txt, and dies if CHECK fails.
# Sets, in ns: WALL[KEY] and CPU[KEY] (user+sys of all threads), the medians,
# and BEST[KEY], the least CPU time; EVENTS[KEY] is detsim's event count in
# the last run (if it printed one).
declare -A WALL CPU BEST EVENTS INSNS
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }
least() { printf '%s\n' "$@" | sort -n | head -n 1; }
ms() { awk -v x="$1" 'BEGIN {printf "%.1f", x / 1e6}'; }

fail_run() {
  echo "run.sh: $1: wrong result from: ${*:2}" >&2
  echo "  exit status $(cat status.txt); stdout: $(head -c 300 out.txt)" >&2
  echo "  stderr (last lines):" >&2
  tail -n 8 err.txt | sed 's/^/    /' >&2
  exit 1
}

measure() {
  local key=$1 runs=$2 check=$3
  shift 4
  local walls=() cpus=() i line
  for ((i = 0; i < runs; i++)); do
    set +e
    ./timeit -o time.txt -- "$@" >out.txt 2>err.txt
    echo $? >status.txt
    set -e
    "$check" || fail_run "$key" "$@"
    line=$(cat time.txt)
    [[ $line =~ wall_ns=([0-9]+)\ user_ns=([0-9]+)\ sys_ns=([0-9]+) ]] || die "$key: bad timeit line: $line"
    walls+=("${BASH_REMATCH[1]}")
    cpus+=($((BASH_REMATCH[2] + BASH_REMATCH[3])))
  done
  WALL[$key]=$(median "${walls[@]}")
  CPU[$key]=$(median "${cpus[@]}")
  BEST[$key]=$(least "${cpus[@]}")
  EVENTS[$key]=$(sed -n 's/^detsim: pass seed=[0-9]* events=\([0-9]*\) .*/\1/p' err.txt | tail -n 1)
  note "$key: wall $(ms "${WALL[$key]}") ms, cpu $(ms "${CPU[$key]}") ms (best $(ms "${BEST[$key]}"))${EVENTS[$key]:+, events ${EVENTS[$key]}}"
}

# Checks.  EXPECT is the exact stdout; MIN_EVENTS the fewest events a detsim
# run must record (proof that the yield points are really there).
EXPECT='' MIN_EVENTS=0
status_ok() { [[ $(cat status.txt) == 0 ]]; }
out_ok() { [[ $(cat out.txt) == "$EXPECT" ]]; }
check_native() { status_ok && out_ok; }
check_detsim() {
  status_ok && out_ok || return 1
  local ev
  ev=$(sed -n "s/^detsim: pass seed=$SEED events=\([0-9]*\) .*/\1/p" err.txt | tail -n 1)
  [[ -n $ev ]] || { echo "run.sh: no 'detsim: pass seed=$SEED events=N' line" >&2; return 1; }
  ((ev >= MIN_EVENTS)) || { echo "run.sh: only $ev events, expected at least $MIN_EVENTS" >&2; return 1; }
}
check_tsan() { status_ok && out_ok && ! grep -q 'WARNING: ThreadSanitizer' err.txt; }
check_valgrind() { status_ok && out_ok; }
check_split() { [[ $(cat status.txt) == 77 ]] || check_native; }

# icount KEY CHECK OPTIONS -- COMMAND...: user-space instructions of one run of
# COMMAND under callgrind (deterministic, so the load of the machine does not
# matter) into INSNS[KEY].  valgrind 3.19 cannot read the DWARF 5 that clang
# 19 writes into the runtime, so the run uses a copy of the runtime without
# debug info (rtlib/, ahead of the RUNPATH through LD_LIBRARY_PATH), and
# aslr=1, since detsim's re-execution through /proc/self/exe would start
# valgrind's launcher instead of the program.  DETSIM_OPTIONS is OPTIONS.
icount() {
  local key=$1 check=$2 options=$3
  shift 4
  set +e
  env LD_LIBRARY_PATH="$W/rtlib" DETSIM_SEED=$SEED DETSIM_OPTIONS="$options:aslr=1" \
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" >out.txt 2>err.txt
  echo $? >status.txt
  set -e
  "$check" || fail_run "$key" "$@"
  INSNS[$key]=$(sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' err.txt)
  [[ -n ${INSNS[$key]} ]] || fail_run "$key" "$@"
}

# ---- 1. yield point without a switch --------------------------------------------
note "1. yield point, no switch ($YIELD_N atomic loads, $MICRO_RUNS runs)"
EXPECT="sum=$YIELD_N" MIN_EVENTS=$YIELD_N
measure y_nat $MICRO_RUNS check_native -- ./yield_loop.native "$YIELD_N"
measure y_det $MICRO_RUNS check_detsim -- env DETSIM_SEED=$SEED DETSIM_OPTIONS=preempt=0 ./yield_loop.detsim "$YIELD_N"
EXPECT="sum=0" MIN_EVENTS=0
measure y_nat0 $MICRO_RUNS check_native -- ./yield_loop.native 0
measure y_det0 $MICRO_RUNS check_detsim -- env DETSIM_SEED=$SEED DETSIM_OPTIONS=preempt=0 ./yield_loop.detsim 0

# ---- 2. switches ------------------------------------------------------------------
note "2. switches (2x$SWITCH_N switching yield points; 2x$FUTEX_N and 2x$SPLIT_N futex hand-offs)"
EXPECT="counter=$((2 * SWITCH_N))" MIN_EVENTS=$((4 * SWITCH_N))
measure s_det $MICRO_RUNS check_detsim -- env DETSIM_SEED=$SEED DETSIM_OPTIONS=preempt=1 ./switch_pingpong.detsim "$SWITCH_N"
EXPECT="counter=0" MIN_EVENTS=0
measure s_det0 $MICRO_RUNS check_detsim -- env DETSIM_SEED=$SEED DETSIM_OPTIONS=preempt=1 ./switch_pingpong.detsim 0
EXPECT="handoffs=$((2 * FUTEX_N))"
measure f_same $MICRO_RUNS check_native -- ./futex_pingpong.native "$FUTEX_N" same
EXPECT="handoffs=0"
measure f_same0 $MICRO_RUNS check_native -- ./futex_pingpong.native 0 same
EXPECT="handoffs=$((2 * SPLIT_N))"
measure f_split 3 check_split -- ./futex_pingpong.native "$SPLIT_N" split
HAVE_SPLIT=1
[[ $(cat status.txt) == 77 ]] && HAVE_SPLIT=0
EXPECT="handoffs=0"
measure f_split0 3 check_split -- ./futex_pingpong.native 0 split

# ---- instruction counts of the same paths -----------------------------------------
if ((HAVE_VALGRIND)); then
  note "1-2. user-space instructions under callgrind ($CG_YIELD_N yield points, 2x$CG_SWITCH_N switches)"
  mkdir -p rtlib
  objcopy --strip-debug "$BUILD/lib/libdetsim_rt.so" rtlib/libdetsim_rt.so
  EXPECT="sum=$CG_YIELD_N" MIN_EVENTS=$CG_YIELD_N
  icount iy_nat check_native quiet=1 -- ./yield_loop.native "$CG_YIELD_N"
  icount iy_det check_detsim preempt=0 -- ./yield_loop.detsim "$CG_YIELD_N"
  EXPECT="sum=0" MIN_EVENTS=0
  icount iy_nat0 check_native quiet=1 -- ./yield_loop.native 0
  icount iy_det0 check_detsim preempt=0 -- ./yield_loop.detsim 0
  EXPECT="counter=$((2 * CG_SWITCH_N))" MIN_EVENTS=$((4 * CG_SWITCH_N))
  icount is_det check_detsim preempt=1 -- ./switch_pingpong.detsim "$CG_SWITCH_N"
  EXPECT="counter=0" MIN_EVENTS=0
  icount is_det0 check_detsim preempt=1 -- ./switch_pingpong.detsim 0
fi

# ---- 3. whole programs --------------------------------------------------------------
note "3. lock_heavy ${LOCK_THREADS}x$LOCK_ITERS and cpu_bound ${CPU_THREADS}x${CPU_KIB}KiBx$CPU_ROUNDS ($APP_RUNS runs, tools $TOOL_RUNS)"
./lock_heavy.native "$LOCK_THREADS" "$LOCK_ITERS" >out.txt
LOCK_EXPECT=$(cat out.txt)
[[ $LOCK_EXPECT == "counter=$((LOCK_THREADS * LOCK_ITERS)) sum="* ]] || die "lock_heavy: wrong native output: $LOCK_EXPECT"
EXPECT=$LOCK_EXPECT MIN_EVENTS=$((2 * LOCK_THREADS * LOCK_ITERS))
LOCK_ARGS=("$LOCK_THREADS" "$LOCK_ITERS")
measure l_nat $APP_RUNS check_native -- ./lock_heavy.native "${LOCK_ARGS[@]}"
measure l_det $APP_RUNS check_detsim -- env DETSIM_SEED=$SEED ./lock_heavy.detsim "${LOCK_ARGS[@]}"
measure l_det5 $TOOL_RUNS check_detsim -- env DETSIM_SEED=$SEED DETSIM_OPTIONS=preempt=0.5 ./lock_heavy.detsim "${LOCK_ARGS[@]}"
if ((HAVE_VALGRIND)); then
  measure l_vg $TOOL_RUNS check_valgrind -- valgrind --tool=none -q ./lock_heavy.native "${LOCK_ARGS[@]}"
fi
measure l_tsan $TOOL_RUNS check_tsan -- ./lock_heavy.tsan "${LOCK_ARGS[@]}"

EXPECT="hash=$CPU_HASH" MIN_EVENTS=$((2 * CPU_THREADS))
CPU_ARGS=("$CPU_THREADS" "$CPU_KIB" "$CPU_ROUNDS")
measure c_nat $APP_RUNS check_native -- ./cpu_bound.native "${CPU_ARGS[@]}"
measure c_det $APP_RUNS check_detsim -- env DETSIM_SEED=$SEED ./cpu_bound.detsim "${CPU_ARGS[@]}"
measure c_det5 $TOOL_RUNS check_detsim -- env DETSIM_SEED=$SEED DETSIM_OPTIONS=preempt=0.5 ./cpu_bound.detsim "${CPU_ARGS[@]}"
if ((HAVE_VALGRIND)); then
  measure c_vg $TOOL_RUNS check_valgrind -- valgrind --tool=none -q ./cpu_bound.native "${CPU_ARGS[@]}"
fi
measure c_tsan $TOOL_RUNS check_tsan -- ./cpu_bound.tsan "${CPU_ARGS[@]}"

# ---- 4. the tools ------------------------------------------------------------------
# A small program (lock_heavy with ${SMALL_ARGS[*]}: 4 threads, 200 lock/unlock
# pairs each) over SWEEP_SEEDS seeds: run by hand one after another in a
# shell loop, by simrun -j1 (the same one-at-a-time, so the difference is
# supervision: fork/exec, pipes, parsing, the report), and by simrun on every
# core.  Replay: simreplay --repeat SWEEP_SEEDS on one seed against the same
# number of plain runs of it (simreplay traces every run, reads the trace
# back and compares).
note "4. tools: $SWEEP_SEEDS seeds of lock_heavy ${SMALL_ARGS[*]} ($SWEEP_RUNS runs)"
SIMRUN=$BUILD/bin/simrun SIMREPLAY=$BUILD/bin/simreplay
cat >loop.sh <<LOOP
#!/usr/bin/env bash
# The seeds by hand: what a user would write without simrun.
for ((s = 1; s <= $SWEEP_SEEDS; s++)); do
  DETSIM_SEED=\$s DETSIM_OPTIONS=trace=none ./lock_heavy.detsim ${SMALL_ARGS[*]} >/dev/null 2>&1 || exit 1
done
LOOP
cat >replay_loop.sh <<LOOP
#!/usr/bin/env bash
for ((i = 1; i <= $SWEEP_SEEDS; i++)); do
  DETSIM_SEED=$SEED ./lock_heavy.detsim ${SMALL_ARGS[*]} >/dev/null 2>err.run || exit 1
done
LOOP
chmod +x loop.sh replay_loop.sh
check_loop() { status_ok; }
check_sweep() { status_ok && grep -q "^simrun: PASSED: 0 of $SWEEP_SEEDS seeds failed" out.txt; }
check_replay() { status_ok && grep -q "replays exactly ($SWEEP_SEEDS of $SWEEP_SEEDS)" out.txt; }
measure t_loop $SWEEP_RUNS check_loop -- ./loop.sh
measure t_sweep1 $SWEEP_RUNS check_sweep -- "$SIMRUN" -q -j 1 --seeds $SWEEP_SEEDS -- ./lock_heavy.detsim "${SMALL_ARGS[@]}"
measure t_sweepn $SWEEP_RUNS check_sweep -- "$SIMRUN" -q --seeds $SWEEP_SEEDS -- ./lock_heavy.detsim "${SMALL_ARGS[@]}"
measure t_plain $SWEEP_RUNS check_loop -- ./replay_loop.sh
measure t_replay $SWEEP_RUNS check_replay -- "$SIMREPLAY" -q --repeat $SWEEP_SEEDS --seed $SEED -- ./lock_heavy.detsim "${SMALL_ARGS[@]}"

LOAD_AFTER=$(load1)
ELAPSED=$(($(date +%s) - START))

# ---- the tables ------------------------------------------------------------------------
# per A A0 COUNT: (A - A0) / COUNT, one decimal
per() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN {printf "%.1f", (a - b) / n}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
verdict() { awk -v x="$1" -v t="$2" 'BEGIN {print (x <= t) ? "meets" : "**misses**"}'; }

# Per-event costs from a metric map (WALL, CPU or BEST).
y_per() { # extra ns per yield point over the native loop
  local -n m=$1
  awk -v d="${m[y_det]}" -v d0="${m[y_det0]}" -v n="${m[y_nat]}" -v n0="${m[y_nat0]}" -v N="$YIELD_N" \
    'BEGIN {printf "%.1f", ((d - d0) - (n - n0)) / N}'
}
y_rate() { # yield points per second, in millions
  local -n m=$1
  awk -v d="${m[y_det]}" -v d0="${m[y_det0]}" -v N="$YIELD_N" 'BEGIN {printf "%.1f M", N / ((d - d0) / 1e9) / 1e6}'
}
row3() { # per-event cost of KEY over KEY0 in the three metrics: | wall | CPU | best |
  printf '%s | %s | %s' "$(per "${WALL[$1]}" "${WALL[$2]}" "$3")" "$(per "${CPU[$1]}" "${CPU[$2]}" "$3")" \
    "$(per "${BEST[$1]}" "${BEST[$2]}" "$3")"
}
Y_BEST=$(y_per BEST)
for m in WALL CPU BEST; do
  declare -n mm=$m
  printf -v "S_$m" '%s' "$(per "${mm[s_det]}" "${mm[s_det0]}" $((2 * SWITCH_N)))"
  printf -v "F_$m" '%s' "$(per "${mm[f_same]}" "${mm[f_same0]}" $((2 * FUTEX_N)))"
  unset -n mm
done
if ((HAVE_SPLIT)); then
  SPLIT_ROW=$(row3 f_split f_split0 $((2 * SPLIT_N)))
else
  SPLIT_ROW="n/a (1 CPU) | n/a | n/a"
fi
if ((HAVE_VALGRIND)); then
  I_YIELD=$(awk -v d="${INSNS[iy_det]}" -v d0="${INSNS[iy_det0]}" -v n="${INSNS[iy_nat]}" -v n0="${INSNS[iy_nat0]}" \
    -v N="$CG_YIELD_N" 'BEGIN {printf "%.0f", ((d - d0) - (n - n0)) / N}')
  I_SWITCH=$(awk -v d="${INSNS[is_det]}" -v d0="${INSNS[is_det0]}" -v N=$((2 * CG_SWITCH_N)) 'BEGIN {printf "%.0f", (d - d0) / N}')
else
  I_YIELD=n/a I_SWITCH=n/a
fi

cell() { [[ -n ${WALL[$1]:-} ]] && ms "${WALL[$1]}" || echo "n/a"; }
rcell() { [[ -n ${WALL[$1]:-} ]] && echo "$(ratio "${WALL[$1]}" "${WALL[$2]}")x" || echo "n/a"; }
app_row() { # NAME KEY-PREFIX
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$1" \
    "$(cell "$2_nat")" "$(cell "$2_det")" "$(cell "$2_det5")" "$(cell "$2_vg")" "$(cell "$2_tsan")" \
    "$(rcell "$2_det" "$2_nat")" "$(rcell "$2_det5" "$2_nat")" "$(rcell "$2_vg" "$2_nat")" "$(rcell "$2_tsan" "$2_nat")"
}

cat <<TABLE
## detsim benchmarks$( ((QUICK)) && echo " (--quick)")

$(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); Linux $(uname -r);
load average $LOAD_BEFORE before, $LOAD_AFTER after; $ELAPSED s in all.
$(awk -v a="$LOAD_BEFORE" -v b="$LOAD_AFTER" -v n="$(nproc)" 'BEGIN {if (a > n || b > n) print "\n**The machine was loaded (load average above the CPU count): wall times include waiting for other processes, and CPU times the cache and steal effects of sharing. Rerun on a quiet machine.**"}')

Per-event costs in ns: the time of N events minus the time of 0 events, over
the events, from the median wall time, the median CPU time (user+sys of all
threads) and the least CPU time of $MICRO_RUNS runs. The verdict is on the
least CPU time, the estimate least disturbed by other load.

| benchmark | measure | wall | CPU | best CPU | target | verdict |
|---|---|---:|---:|---:|---:|---|
| 1. yield point, no switch (preempt=0) | ns per yield point, over native | $(y_per WALL) | $(y_per CPU) | $Y_BEST | ≤ 15 | $(verdict "$Y_BEST" 15) |
| 1. yield point, no switch | yield points per second | $(y_rate WALL) | $(y_rate CPU) | $(y_rate BEST) | | |
| 1. the same loop, native | ns per iteration | $(row3 y_nat y_nat0 "$YIELD_N") | | |
| 2. detsim switch (preempt=1) | ns per switching yield point | $(row3 s_det s_det0 $((2 * SWITCH_N))) | ≤ 1500 | $(verdict "$S_BEST" 1500) |
| 2. native futex hand-off, 2 threads pinned to 1 CPU | ns per hand-off (the limit) | $(row3 f_same f_same0 $((2 * FUTEX_N))) | | |
| 2. native futex hand-off, threads on 2 CPUs | ns per hand-off | $SPLIT_ROW | | |
| 2. detsim switch / pinned futex hand-off | ratio | $(ratio "$S_WALL" "$F_WALL") | $(ratio "$S_CPU" "$F_CPU") | $(ratio "$S_BEST" "$F_BEST") | | |

User-space instructions per event under callgrind (exact; the kernel's part
of a switch, two futex calls and a context switch, is not counted):
yield point without a switch $I_YIELD (over the native loop), switching yield
point $I_SWITCH.

Whole programs: median wall time in ms of $APP_RUNS runs (native, detsim) or
$TOOL_RUNS runs (the rest), and the ratio to native. detsim: detsim-cc -O2,
DETSIM_SEED=$SEED and default options (the seed draws its switch probability;
lock_heavy recorded ${EVENTS[l_det]} events), and the same with preempt=0.5,
the top of the range seeds draw from. valgrind: --tool=none on the native
build. TSan: clang-19 -O2 -fsanitize=thread.

| program | native | detsim | detsim p=0.5 | valgrind none | TSan | detsim / native | detsim p=0.5 / native | valgrind / native | TSan / native |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
$(app_row "lock_heavy: ${LOCK_THREADS} threads x ${LOCK_ITERS} lock/unlock" l)
$(app_row "cpu_bound: ${CPU_THREADS} threads x ${CPU_KIB} KiB x ${CPU_ROUNDS} rounds" c)

The tools, over $SWEEP_SEEDS seeds of lock_heavy ${SMALL_ARGS[*]} (median wall time of $SWEEP_RUNS runs):

| measure | value | target | verdict |
|---|---:|---:|---|
| shell loop, one seed after another | $(ms "${WALL[t_loop]}") ms ($(per "${WALL[t_loop]}" 0 $((SWEEP_SEEDS * 1000))) µs per seed) | | |
| simrun -j 1 (supervised, one at a time) | $(ms "${WALL[t_sweep1]}") ms ($(per "${WALL[t_sweep1]}" 0 $((SWEEP_SEEDS * 1000))) µs per seed) | | |
| supervision overhead: simrun -j 1 / shell loop | $(ratio "${WALL[t_sweep1]}" "${WALL[t_loop]}")x | ≤ 1.2x | $(verdict "$(ratio "${WALL[t_sweep1]}" "${WALL[t_loop]}")" 1.2) |
| simrun on $(nproc) CPUs: seeds per second | $(awk -v w="${WALL[t_sweepn]}" -v n="$SWEEP_SEEDS" 'BEGIN {printf "%.0f", n / (w / 1e9)}') | | |
| simreplay --repeat $SWEEP_SEEDS / $SWEEP_SEEDS plain runs of the seed | $(ratio "${WALL[t_replay]}" "${WALL[t_plain]}")x | ≤ 1.1x | $(verdict "$(ratio "${WALL[t_replay]}" "${WALL[t_plain]}")" 1.1) |
TABLE
