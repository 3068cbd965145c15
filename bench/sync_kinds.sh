#!/bin/sh
# ns per lock/unlock pair for each mutex kind, and per named-semaphore
# round (open, post, wait, close): native against a simulation build
# (bench/README.md, "Mutex kinds").  Least wall time of RUNS runs with N
# minus N = 0, divided by N.
#   bench/sync_kinds.sh BUILD_DIR [RUNS]
set -eu
build=${1:?usage: sync_kinds.sh BUILD_DIR [RUNS]}
runs=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
clang -O2 -pthread -o "$work/native" "$here/sync_kinds.c"
"$build/bin/detsim-cc" -O2 -o "$work/sim" "$here/sync_kinds.c"

least() {
  for i in $(seq "$runs"); do
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    echo "$e - $s" | bc -l
  done | sort -g | head -1
}

per_op() { # n prog kind
  n=$1; shift
  full=$(least "$@" "$n")
  none=$(least "$@" 0)
  echo "($full - $none) / $n * 1000000000" | bc -l | xargs printf '%.0f'
}

echo "| kind | native ns | detsim ns |"
echo "|---|---|---|"
for kind in plain robust pshared robust_pshared robust_inherit named; do
  n=1000000
  [ "$kind" = named ] && n=100000
  nat=$(per_op "$n" "$work/native" "$kind")
  sim=$(DETSIM_SEED=1 per_op "$n" env DETSIM_SEED=1 "$work/sim" "$kind")
  echo "| $kind | $nat | $sim |"
done
