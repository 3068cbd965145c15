#!/usr/bin/env bash
# bench/sanitize.sh [BUILD_DIR]: what a sanitizer costs in a simulation build.
#
# Builds lock_heavy.c and cpu_bound.c with each sanitizer of SANITIZERS
# (default: address,undefined, thread, leak and memory) natively (plain clang-19,
# -O2) and as simulation builds with the same flags (detsim-cc -O2), runs
# each RUNS times (DETSIM_SEED=1) and prints a Markdown table of the best
# wall time and the simulation/native ratio per sanitizer.  Not a test.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:-$HERE/../build}" && pwd)
CC=$BUILD/bin/detsim-cc
CLANG=${DETSIM_CLANG:-clang-19}
RUNS=${RUNS:-3}
SANITIZERS=${SANITIZERS:-"address,undefined thread leak memory"}
W=$(mktemp -d "${TMPDIR:-/tmp}/detsim-bench-san.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W"

"$CLANG" -O2 -o timeit "$HERE/timeit.c"
declare -A ARGS=([lock_heavy]="4 200000" [cpu_bound]="4 1024 100")
for p in lock_heavy cpu_bound; do
  for san in $SANITIZERS; do
    tag=${san%%,*}
    "$CLANG" -O2 -g -fsanitize=$san -o "$p.native.$tag" "$HERE/$p.c" -lpthread
    "$CC" -O2 -g -fsanitize=$san -o "$p.sim.$tag" "$HERE/$p.c"
  done
done

best() { # best wall seconds of RUNS runs of "$@"
  local b=""
  for _ in $(seq "$RUNS"); do
    DETSIM_SEED=1 ./timeit -o t.txt -- "$@" >/dev/null 2>err.txt || { cat err.txt >&2; exit 1; }
    local ns; ns=$(sed -E 's/.*wall_ns=([0-9]+).*/\1/' t.txt)
    if [[ -z $b || $ns -lt $b ]]; then b=$ns; fi
  done
  echo "$b"
}

echo "| program | sanitizer | native (sanitized) | simulation (sanitized) | simulation / native |"
echo "|---|---|---|---|---|"
for p in lock_heavy cpu_bound; do
  for san in $SANITIZERS; do
    tag=${san%%,*}
    # shellcheck disable=SC2086
    n=$(best "./$p.native.$tag" ${ARGS[$p]})
    # shellcheck disable=SC2086
    s=$(best "./$p.sim.$tag" ${ARGS[$p]})
    awk -v p="$p ${ARGS[$p]}" -v t="$tag" -v n="$n" -v s="$s" \
      'BEGIN { printf "| %s | %s | %.3f s | %.3f s | %.2fx |\n", p, t, n / 1e9, s / 1e9, s / n }'
  done
done
