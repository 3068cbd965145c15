#!/usr/bin/env bash
# The run-time net's costs (runtime/intercept/trap_*.c): start-up of a
# simulation build with and without the net (user dispatch, or the seccomp
# filter) and the TSC trap,
# and the cost of one caught instruction against the call it stands for.
# Per-call costs are differences: (t(N) - t(0)) / N, so process start-up
# cancels.  t is the least CPU time (user+sys of every thread, bench/timeit.c)
# of RUNS runs, the estimate other load on the machine disturbs least; the
# start-up rows are the same least CPU time of an empty run.
#
#   bench/trap.sh [BUILD_DIR] [N] [RUNS]    (./build, 100000, 5)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=$(cd "${1:-./build}" && pwd)
N=${2:-100000}
RUNS=${3:-5}
CLANG=${CLANG:-clang-19}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

"$CLANG" -O2 -Wall -Wextra -o "$TMP/timeit" "$HERE/timeit.c"
"$CLANG" -O2 -o "$TMP/native" "$HERE/trap_costs.c"
"$BUILD/bin/detsim-cc" -O2 -o "$TMP/sim" "$HERE/trap_costs.c" 2>/dev/null

least() { sort -g | head -1; }

# Least CPU seconds of RUNS runs of: OPTIONS PROGRAM ARGS...; every run must
# print its checksum.
wall() {
  local opts=$1
  shift
  for _ in $(seq "$RUNS"); do
    if ! DETSIM_SEED=1 DETSIM_OPTIONS="quiet=1:$opts" "$TMP/timeit" -o "$TMP/t" -- "$@" > "$TMP/out" 2> "$TMP/err"; then
      cat "$TMP/err" >&2
      exit 1
    fi
    grep -q '^sum=' "$TMP/out" || { echo "no checksum: $*" >&2; exit 1; }
    sed -E 's/.*user_ns=([0-9]+) sys_ns=([0-9]+).*/\1 \2/' "$TMP/t" | awk '{ print ($1 + $2) / 1e9 }'
  done | least
}

per_call_ns() { awk -v a="$1" -v b="$2" -v n="$N" 'BEGIN { printf "%.0f", (b - a) * 1e9 / n }'; }

s_off=$(wall "trap_syscalls=0:trap_tsc=0" "$TMP/sim" raw 0)
s_tsc=$(wall "trap_syscalls=0:trap_tsc=1" "$TMP/sim" raw 0)
s_all=$(wall "trap_syscalls=1:trap_tsc=1" "$TMP/sim" raw 0)
s_filter=$(wall "trap_syscalls=seccomp:trap_tsc=1" "$TMP/sim" raw 0)

raw0=$(wall "trap_syscalls=1" "$TMP/sim" raw 0)
rawN=$(wall "trap_syscalls=1" "$TMP/sim" raw "$N")
fraw0=$(wall "trap_syscalls=seccomp" "$TMP/sim" raw 0)
frawN=$(wall "trap_syscalls=seccomp" "$TMP/sim" raw "$N")
libc0=$(wall "trap_syscalls=1" "$TMP/sim" libc 0)
libcN=$(wall "trap_syscalls=1" "$TMP/sim" libc "$N")
koff0=$(wall "trap_syscalls=0" "$TMP/sim" kernel 0)
koffN=$(wall "trap_syscalls=0" "$TMP/sim" kernel "$N")
kud0=$(wall "trap_syscalls=1" "$TMP/sim" kernel 0)
kudN=$(wall "trap_syscalls=1" "$TMP/sim" kernel "$N")
kf0=$(wall "trap_syscalls=seccomp" "$TMP/sim" kernel 0)
kfN=$(wall "trap_syscalls=seccomp" "$TMP/sim" kernel "$N")
tsc0=$(wall "trap_tsc=1" "$TMP/sim" rdtsc 0)
tscN=$(wall "trap_tsc=1" "$TMP/sim" rdtsc "$N")
nat0=$(wall "" "$TMP/native" raw 0)
natN=$(wall "" "$TMP/native" raw "$N")
ntsc0=$(wall "" "$TMP/native" rdtsc 0)
ntscN=$(wall "" "$TMP/native" rdtsc "$N")

echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs; $(uname -sr); load average $(cut -d' ' -f1-3 /proc/loadavg); N=$N, least CPU time of $RUNS runs"
echo
echo "| measure | value |"
echo "|---|---:|"
awk -v a="$s_off" -v b="$s_tsc" -v c="$s_all" -v d="$s_filter" 'BEGIN {
  printf "| start-up, simulation build, no traps (ms) | %.2f |\n", a * 1000
  printf "| start-up with trap_tsc=1 (ms) | %.2f (%+.2f) |\n", b * 1000, (b - a) * 1000
  printf "| start-up with trap_syscalls=1 (user dispatch) and trap_tsc=1 (ms) | %.2f (%+.2f) |\n", c * 1000, (c - a) * 1000
  printf "| start-up with trap_syscalls=seccomp and trap_tsc=1 (ms) | %.2f (%+.2f) |\n", d * 1000, (d - a) * 1000 }'
echo "| one caught syscall instruction (getpid: SIGSYS + dispatch), user dispatch, ns | $(per_call_ns "$raw0" "$rawN") |"
echo "| one caught syscall instruction, seccomp filter, ns | $(per_call_ns "$fraw0" "$frawN") |"
echo "| one real call from libc (syscall(SYS_getuid), passed through), no net, ns | $(per_call_ns "$koff0" "$koffN") |"
echo "| the same under user dispatch, ns | $(per_call_ns "$kud0" "$kudN") |"
echo "| the same under the seccomp filter, ns | $(per_call_ns "$kf0" "$kfN") |"
echo "| one syscall(SYS_getpid) in the simulation (the dispatch alone), ns | $(per_call_ns "$libc0" "$libcN") |"
echo "| one getpid syscall instruction natively, ns | $(per_call_ns "$nat0" "$natN") |"
echo "| one caught rdtsc (SIGSEGV + virtual clock read), ns | $(per_call_ns "$tsc0" "$tscN") |"
echo "| one rdtsc natively, ns | $(per_call_ns "$ntsc0" "$ntscN") |"
