#!/usr/bin/env bash
# Time under load: a helper thread works while main sleeps SLEEP_MS; the
# program's wall time natively, under detsim with the cost model (default)
# and without it (cost_model=0, every event 10 ns, no work counted), as a
# ratio to native, with the helper's iterations.  Also prints what the
# priced operations cost natively here (native_costs.c).
#
#   bench/time_under_load.sh [BUILD_DIR] [SLEEP_MS]    (./build, 1000)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=$(cd "${1:-./build}" && pwd)
SLEEP_MS=${2:-1000}
CLANG=${CLANG:-clang-19}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

"$CLANG" -O2 -pthread -o "$TMP/native" "$HERE/busy_while_sleeping.c"
"$BUILD/bin/detsim-cc" -O2 -o "$TMP/sim" "$HERE/busy_while_sleeping.c"
"$CLANG" -O2 -pthread -o "$TMP/costs" "$HERE/native_costs.c"

wall() { # prints wall seconds and the iterations line of one run
  local t0 t1 out
  t0=$(date +%s.%N)
  out=$("$@" 2>/dev/null)
  t1=$(date +%s.%N)
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') ${out##*=}"
}

echo "| helper's work | native s | iterations | detsim s | ratio | iterations | cost_model=0 s | ratio |"
echo "|---|---|---|---|---|---|---|---|"
for kind in mutex cond signal clock compute; do
  read -r n ni < <(wall "$TMP/native" "$kind" "$SLEEP_MS")
  read -r s si < <(DETSIM_SEED=1 wall "$TMP/sim" "$kind" "$SLEEP_MS")
  read -r o _ < <(DETSIM_SEED=1 DETSIM_OPTIONS=cost_model=0 wall "$TMP/sim" "$kind" "$SLEEP_MS")
  awk -v k="$kind" -v n="$n" -v ni="$ni" -v s="$s" -v si="$si" -v o="$o" \
    'BEGIN { printf "| %s | %.2f | %s | %.2f | %.1fx | %s | %.2f | %.1fx |\n", k, n, ni, s, s / n, si, o, o / n }'
done
echo
echo "Native costs on this machine (bench/native_costs.c):"
"$TMP/costs" 100000 | sed 's/^/    /'
